//! Element types chosen at run time (command line, benchmark lists).

/// The key types the library sorts, by command-line name: the twelve primitive
/// [`Element`](crate::Element)s, the game entity record, and the wide keys
/// ([`WideKey`](crate::WideKey): `u128`, `i128`, `bytesN`), which the command line
/// sorts in memory (`host --type`, `host sort`, `host gen`, `host check`) and the
/// other commands refuse.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum KeyType {
    /// `u32`.
    #[default]
    U32,
    /// `i32`.
    I32,
    /// `f32`, by IEEE 754 total order.
    F32,
    /// `u64`.
    U64,
    /// `i64`.
    I64,
    /// `f64`, by IEEE 754 total order.
    F64,
    /// `u16`.
    U16,
    /// `i16`.
    I16,
    /// `f16` (IEEE half precision), by IEEE 754 total order.
    F16,
    /// `bf16` (bfloat16), by IEEE 754 total order.
    Bf16,
    /// `u8`.
    U8,
    /// `i8`.
    I8,
    /// The Catania report's game entity (20 bytes), sorted by `distance_from_player`.
    Entity,
    /// `u128`.
    U128,
    /// `i128`.
    I128,
    /// `[u8; N]` byte strings (`bytesN`, N from 1 to 32), compared lexicographically
    /// as unsigned bytes (fixed-width names, hashes, UUIDs in big-endian form).
    Bytes(ByteWidth),
}

/// The width of a byte-string key, 1 to 32 bytes ([`KeyType::Bytes`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ByteWidth(u8);

impl ByteWidth {
    /// The widest byte-string key (the GPU's order words cover up to 32 bytes).
    pub const MAX: usize = kernels::wide::MAX_KEY_BYTES as usize;

    /// `n` bytes, if `1 <= n <= 32`.
    pub const fn new(n: usize) -> Option<ByteWidth> {
        if n >= 1 && n <= Self::MAX { Some(ByteWidth(n as u8)) } else { None }
    }

    /// The width in bytes.
    pub const fn get(self) -> usize {
        self.0 as usize
    }
}

/// `bytes1` ... `bytes32`, by width - 1.
const BYTE_NAMES: [&str; ByteWidth::MAX] = [
    "bytes1", "bytes2", "bytes3", "bytes4", "bytes5", "bytes6", "bytes7", "bytes8", "bytes9", "bytes10", "bytes11",
    "bytes12", "bytes13", "bytes14", "bytes15", "bytes16", "bytes17", "bytes18", "bytes19", "bytes20", "bytes21",
    "bytes22", "bytes23", "bytes24", "bytes25", "bytes26", "bytes27", "bytes28", "bytes29", "bytes30", "bytes31",
    "bytes32",
];

/// Every wide type: `u128`, `i128`, `bytes1` ... `bytes32`.
const WIDE: [KeyType; 2 + ByteWidth::MAX] = {
    let mut all = [KeyType::U128; 2 + ByteWidth::MAX];
    all[1] = KeyType::I128;
    let mut n = 1;
    while n <= ByteWidth::MAX {
        all[1 + n] = KeyType::Bytes(ByteWidth(n as u8));
        n += 1;
    }
    all
};

/// Every type the command line takes, in `--help` order.
#[cfg(feature = "cli")]
const VALUES: [KeyType; 13 + WIDE.len()] = {
    let mut all = [KeyType::U32; 13 + WIDE.len()];
    let mut i = 0;
    while i < all.len() {
        all[i] = if i < 13 { KeyType::ALL[i] } else { WIDE[i - 13] };
        i += 1;
    }
    all
};

#[cfg(feature = "cli")]
impl clap::ValueEnum for KeyType {
    fn value_variants<'a>() -> &'a [Self] {
        &VALUES
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        let value = clap::builder::PossibleValue::new(self.name());
        Some(match self {
            // `host list` describes the values that have a help text.
            KeyType::Entity => {
                value.help("The Catania report's game entity (20 bytes), sorted by `distance_from_player`")
            }
            // Listed once as `bytes1..bytes32` by `host list` and the arguments' help.
            KeyType::Bytes(w) if w.get() != 16 => value.hide(true),
            _ => value,
        })
    }
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

    /// The wide types, [`WideKey`](crate::WideKey)s: `u128`, `i128`, `bytes1` ...
    /// `bytes32`.
    pub const WIDE: &'static [KeyType] = &WIDE;

    /// The type named `name` (`"u32"`, `"bytes10"`, ...), if there is one.
    pub fn from_name(name: &str) -> Option<KeyType> {
        Self::ALL.iter().chain(Self::WIDE).copied().find(|k| k.name() == name)
    }

    /// The refusal of a wide key by `by`, an operation of primitive keys or records
    /// (the command line's: only it offers wide keys to operations that refuse them).
    #[cfg(feature = "cli")]
    pub(crate) fn wide_refused(self, by: &str) -> crate::Error {
        crate::Error::Unsupported {
            option: "wide keys",
            by: format!("{by} (asked for {self})"),
            hint: "u128, i128 and bytesN keys sort with `host --type`, `host sort`, `host gen`, `host check-file` and \
                   the library's `Sorter::sort_wide`, `argsort_wide`, `sort_pairs_wide`, `sort_by_wide_key`, \
                   `top_k_wide` and `sort_segments_wide`",
        }
    }

    /// Whether this is a wide key ([`KeyType::WIDE`]).
    pub fn is_wide(self) -> bool {
        matches!(self, KeyType::U128 | KeyType::I128 | KeyType::Bytes(_))
    }

    /// The command-line name (`"u32"`, ..., `"entity"`, `"u128"`, `"bytes16"`), as [`Display`](std::fmt::Display) prints it.
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
            KeyType::U128 => "u128",
            KeyType::I128 => "i128",
            KeyType::Bytes(w) => BYTE_NAMES[w.get() - 1],
        }
    }

    /// Whether this is a 16- or 8-bit key, which the GPU sorts by the radix variant
    /// only.
    pub fn is_narrow(self) -> bool {
        self.size() < 4 && !self.is_wide()
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            KeyType::U32 | KeyType::I32 | KeyType::F32 => 4,
            KeyType::U64 | KeyType::I64 | KeyType::F64 => 8,
            KeyType::U16 | KeyType::I16 | KeyType::F16 | KeyType::Bf16 => 2,
            KeyType::U8 | KeyType::I8 => 1,
            KeyType::Entity => size_of::<kernels::key::Entity>(),
            KeyType::U128 | KeyType::I128 => 16,
            KeyType::Bytes(w) => w.get(),
        }
    }
}

impl std::fmt::Display for KeyType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Runs a generic expression with `$T` bound to the Rust type of a [`KeyType`]:
/// `with_key_type!(kt, T => run::<T>(args), wide => Err(refusal))` or, for the
/// operations that take wide keys too, `with_key_type!(kt, T => run::<T>(args), wide
/// W => run_wide::<W>(args))`.
#[macro_export]
macro_rules! with_key_type {
    ($kt:expr, $T:ident => $body:expr, wide => $wide:expr) => {
        match $kt {
            $crate::KeyType::U128 | $crate::KeyType::I128 | $crate::KeyType::Bytes(_) => $wide,
            kt => $crate::with_key!(kt, $T => $body, else {
                type $T = $crate::Entity;
                $body
            }),
        }
    };
    ($kt:expr, $T:ident => $body:expr, wide $W:ident => $wide:expr) => {
        match $kt {
            kt @ ($crate::KeyType::U128 | $crate::KeyType::I128 | $crate::KeyType::Bytes(_)) => {
                $crate::with_wide_key!(kt, $W => $wide, else unreachable!("matched as a wide key"))
            }
            kt => $crate::with_key!(kt, $T => $body, else {
                type $T = $crate::Entity;
                $body
            }),
        }
    };
}

/// Runs a generic expression with `$W` bound to the Rust type of a wide [`KeyType`]
/// (`u128`, `i128`, `[u8; N]`), or evaluates `$other` for the other types:
/// `with_wide_key!(kt, W => run::<W>(args), else Err(refusal))`.
#[macro_export]
macro_rules! with_wide_key {
    ($kt:expr, $W:ident => $body:expr, else $other:expr) => {
        match $kt {
            $crate::KeyType::U128 => {
                type $W = u128;
                $body
            }
            $crate::KeyType::I128 => {
                type $W = i128;
                $body
            }
            $crate::KeyType::Bytes(w) => $crate::with_byte_width!(w.get(), $W => $body),
            _ => $other,
        }
    };
}

/// `$W = [u8; n]` for a [`ByteWidth`]'s `n` (1 to 32).
#[doc(hidden)]
#[macro_export]
macro_rules! with_byte_width {
    ($n:expr, $W:ident => $body:expr) => {
        $crate::with_byte_width!(@arms $n, $W => $body;
            1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32)
    };
    (@arms $n:expr, $W:ident => $body:expr; $($w:literal)*) => {
        match $n {
            $($w => {
                type $W = [u8; $w];
                $body
            })*
            _ => unreachable!("a ByteWidth is 1 to 32 bytes"),
        }
    };
}

/// [`with_key_type!`] for the operations that take primitive keys ([`crate::Key`]:
/// pairs, argsort, top-k, segments, several GPUs): `$T` is bound for the twelve key
/// types, and a record or wide type evaluates `$record` instead:
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
            $crate::KeyType::Entity | $crate::KeyType::U128 | $crate::KeyType::I128 | $crate::KeyType::Bytes(_) => {
                $record
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_type_has_one_name_and_its_size() {
        let all: Vec<KeyType> = KeyType::ALL.iter().chain(KeyType::WIDE).copied().collect();
        assert_eq!(all.len(), 13 + 2 + 32);
        for &k in &all {
            assert_eq!(KeyType::from_name(k.name()), Some(k), "{k}");
            assert!(!(k.is_wide() && k.is_narrow()), "{k}");
        }
        assert_eq!(KeyType::from_name("bytes10"), KeyType::Bytes(ByteWidth::new(10).unwrap()).into());
        assert_eq!(KeyType::from_name("bytes10").unwrap().size(), 10);
        assert_eq!(KeyType::U128.size(), 16);
        assert!(KeyType::from_name("bytes33").is_none() && KeyType::from_name("bytes0").is_none());
        assert!(ByteWidth::new(0).is_none() && ByteWidth::new(33).is_none() && ByteWidth::new(32).is_some());
        assert!(KeyType::Bytes(ByteWidth::new(1).unwrap()).is_wide() && !KeyType::U8.is_wide());
    }

    #[test]
    #[cfg(feature = "cli")]
    fn the_command_line_takes_every_name() {
        use clap::ValueEnum;
        for &k in KeyType::ALL.iter().chain(KeyType::WIDE) {
            assert_eq!(KeyType::from_str(k.name(), false), Ok(k));
        }
        assert!(KeyType::from_str("bytes33", false).is_err());
    }

    /// The macros bind the wide types' Rust types: sizes agree with `size()`.
    #[test]
    fn wide_types_bind_their_rust_types() {
        for &k in KeyType::WIDE {
            let size = crate::with_wide_key!(k, W => size_of::<W>(), else 0);
            assert_eq!(size, k.size(), "{k}");
            let size = crate::with_key_type!(k, T => size_of::<T>(), wide W => size_of::<W>());
            assert_eq!(size, k.size(), "{k}");
        }
        assert_eq!(crate::with_wide_key!(KeyType::U32, W => size_of::<W>(), else 0), 0);
    }
}
