//! Element types chosen at run time (command line, benchmark lists).

/// The element types the library sorts, by command-line name.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum KeyType {
    // `host list` describes the values that have a help text: `help = None` keeps these
    // doc comments out of it (the line above the list names them).
    /// `u32`.
    #[default]
    #[cfg_attr(feature = "cli", value(help = None::<&str>))]
    U32,
    /// `i32`.
    #[cfg_attr(feature = "cli", value(help = None::<&str>))]
    I32,
    /// `f32`, by IEEE 754 total order.
    #[cfg_attr(feature = "cli", value(help = None::<&str>))]
    F32,
    /// `u64`.
    #[cfg_attr(feature = "cli", value(help = None::<&str>))]
    U64,
    /// `i64`.
    #[cfg_attr(feature = "cli", value(help = None::<&str>))]
    I64,
    /// `f64`, by IEEE 754 total order.
    #[cfg_attr(feature = "cli", value(help = None::<&str>))]
    F64,
    /// The Catania report's game entity (20 bytes), sorted by `distance_from_player`.
    Entity,
}

impl KeyType {
    /// Every type, in command-line and table order.
    pub const ALL: &'static [KeyType] =
        &[KeyType::U32, KeyType::I32, KeyType::F32, KeyType::U64, KeyType::I64, KeyType::F64, KeyType::Entity];

    /// The command-line name (`"u32"`, ..., `"entity"`), as [`Display`](std::fmt::Display) prints it.
    pub fn name(self) -> &'static str {
        match self {
            KeyType::U32 => "u32",
            KeyType::I32 => "i32",
            KeyType::F32 => "f32",
            KeyType::U64 => "u64",
            KeyType::I64 => "i64",
            KeyType::F64 => "f64",
            KeyType::Entity => "entity",
        }
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            KeyType::U32 | KeyType::I32 | KeyType::F32 => 4,
            KeyType::U64 | KeyType::I64 | KeyType::F64 => 8,
            KeyType::Entity => size_of::<kernels::key::Entity>(),
        }
    }
}

impl std::fmt::Display for KeyType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Runs a generic expression with `$T` bound to the Rust type of a [`KeyType`]:
/// `with_key_type!(kt, T => run::<T>(args))`.
#[macro_export]
macro_rules! with_key_type {
    ($kt:expr, $T:ident => $body:expr) => {
        $crate::with_key!($kt, $T => $body, else {
            type $T = $crate::Entity;
            $body
        })
    };
}

/// [`with_key_type!`] for the operations that take primitive keys ([`crate::Key`]:
/// pairs, argsort, top-k, segments, several GPUs): `$T` is bound for the six key
/// types, and a record type evaluates `$record` instead:
/// `with_key!(kt, T => run::<T>(args), else Err(refusal))`.
#[macro_export]
macro_rules! with_key {
    ($kt:expr, $T:ident => $body:expr, else $record:expr) => {
        match $kt {
            $crate::KeyType::U32 => {
                type $T = u32;
                $body
            }
            $crate::KeyType::I32 => {
                type $T = i32;
                $body
            }
            $crate::KeyType::F32 => {
                type $T = f32;
                $body
            }
            $crate::KeyType::U64 => {
                type $T = u64;
                $body
            }
            $crate::KeyType::I64 => {
                type $T = i64;
                $body
            }
            $crate::KeyType::F64 => {
                type $T = f64;
                $body
            }
            $crate::KeyType::Entity => $record,
        }
    };
}
