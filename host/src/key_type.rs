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
    /// `u16`.
    #[cfg_attr(feature = "cli", value(help = None::<&str>))]
    U16,
    /// `i16`.
    #[cfg_attr(feature = "cli", value(help = None::<&str>))]
    I16,
    /// `f16` (IEEE half precision), by IEEE 754 total order.
    #[cfg_attr(feature = "cli", value(help = None::<&str>))]
    F16,
    /// `bf16` (bfloat16), by IEEE 754 total order.
    #[cfg_attr(feature = "cli", value(help = None::<&str>))]
    Bf16,
    /// `u8`.
    #[cfg_attr(feature = "cli", value(help = None::<&str>))]
    U8,
    /// `i8`.
    #[cfg_attr(feature = "cli", value(help = None::<&str>))]
    I8,
    /// The Catania report's game entity (20 bytes), sorted by `distance_from_player`.
    Entity,
}

impl KeyType {
    /// Every type, in command-line and table order.
    pub const ALL: &'static [KeyType] = &[
        KeyType::U32,
        KeyType::I32,
        KeyType::F32,
        KeyType::U64,
        KeyType::I64,
        KeyType::F64,
        KeyType::U16,
        KeyType::I16,
        KeyType::F16,
        KeyType::Bf16,
        KeyType::U8,
        KeyType::I8,
        KeyType::Entity,
    ];

    /// The command-line name (`"u32"`, ..., `"entity"`), as [`Display`](std::fmt::Display) prints it.
    pub fn name(self) -> &'static str {
        match self {
            KeyType::U32 => "u32",
            KeyType::I32 => "i32",
            KeyType::F32 => "f32",
            KeyType::U64 => "u64",
            KeyType::I64 => "i64",
            KeyType::F64 => "f64",
            KeyType::U16 => "u16",
            KeyType::I16 => "i16",
            KeyType::F16 => "f16",
            KeyType::Bf16 => "bf16",
            KeyType::U8 => "u8",
            KeyType::I8 => "i8",
            KeyType::Entity => "entity",
        }
    }

    /// Whether this is a 16- or 8-bit key, which the GPU sorts by the radix variant
    /// only.
    pub fn is_narrow(self) -> bool {
        self.size() < 4
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            KeyType::U32 | KeyType::I32 | KeyType::F32 => 4,
            KeyType::U64 | KeyType::I64 | KeyType::F64 => 8,
            KeyType::U16 | KeyType::I16 | KeyType::F16 | KeyType::Bf16 => 2,
            KeyType::U8 | KeyType::I8 => 1,
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
/// pairs, argsort, top-k, segments, several GPUs): `$T` is bound for the twelve key
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
            $crate::KeyType::U16 => {
                type $T = u16;
                $body
            }
            $crate::KeyType::I16 => {
                type $T = i16;
                $body
            }
            $crate::KeyType::F16 => {
                type $T = $crate::f16;
                $body
            }
            $crate::KeyType::Bf16 => {
                type $T = $crate::bf16;
                $body
            }
            $crate::KeyType::U8 => {
                type $T = u8;
                $body
            }
            $crate::KeyType::I8 => {
                type $T = i8;
                $body
            }
            $crate::KeyType::Entity => $record,
        }
    };
}
