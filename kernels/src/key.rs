//! The one definition of "how elements compare", shared by kernels and host.
//!
//! Every element type maps to unsigned *order bits*: `a` sorts before `b` exactly when
//! `a.bits() < b.bits()`. Kernels only ever compare bits, so one generic kernel body
//! serves every type, and descending order is the same comparison on `!bits` (which
//! keeps equal keys equal, so stability is unaffected).
//!
//! Floats use IEEE 754 total order (the order of [`f32::total_cmp`]):
//! `-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN`.

/// An element that can be sorted: a plain-old-data value with an order-preserving key.
pub trait SortKey: Copy + 'static {
    /// Unsigned integer whose natural order is the element's sort order.
    type Bits: Copy + Ord + core::ops::Not<Output = Self::Bits> + Into<u64>;
    /// Suffix of this type's kernel entry points (`naive_merge_pass_u32`, ...) and
    /// its name on the command line.
    const NAME: &'static str;
    /// For primitive keys (the whole element is the key), how its raw bits map to its
    /// order bits; `None` for records such as [`Entity`], whose key is one field.
    const BIT_ORDER: Option<BitOrder>;
    /// For records, where the key field is: `(byte offset, bit order)`, the key being
    /// `size_of::<Self::Bits>()` bytes wide (the GPU sorts records by that field and
    /// an index, then gathers them). `None` for primitive keys.
    const RECORD_KEY: Option<(usize, BitOrder)> = None;
    /// For IEEE floats (the key itself, or a record's key field), the bits of the
    /// significand below the exponent: 23 (`f32`), 52 (`f64`), 10 (`f16`), 7 (`bf16`);
    /// 0 for integers. The width alone does not tell `f16` from `bf16`, and NaN
    /// tests (`abs > inf`) need the exponent's place.
    const MANTISSA_BITS: u32 = 0;
    /// Order-preserving key bits.
    fn bits(&self) -> Self::Bits;
    /// Key bits for the requested direction: ascending compares `bits`, descending
    /// compares `!bits`.
    #[inline(always)]
    fn ord_bits(&self, descending: bool) -> Self::Bits {
        let b = self.bits();
        if descending { !b } else { b }
    }
}

/// How a primitive key's raw bit pattern maps to its order bits, for kernels that
/// move raw words and derive the order on the fly (the radix sort): `bits = raw ^ mask`,
/// where the mask depends only on the sign bit ([`BitOrder::masks`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BitOrder {
    /// Unsigned integers: the raw bits are the order.
    Unsigned,
    /// Two's complement integers: the sign bit flipped.
    Signed,
    /// IEEE 754 total order: negatives fully flipped, positives the sign bit set.
    Float,
}

impl BitOrder {
    /// `(mask for a clear sign bit, mask for a set sign bit)` of a `width_bits`-bit
    /// key: `order bits = raw ^ mask`. Descending order flips every bit on top.
    #[inline(always)]
    pub const fn masks(self, width_bits: u32, descending: bool) -> (u64, u64) {
        let all = if width_bits == 64 { u64::MAX } else { (1u64 << width_bits) - 1 };
        let sign = 1u64 << (width_bits - 1);
        let (pos, neg) = match self {
            BitOrder::Unsigned => (0, 0),
            BitOrder::Signed => (sign, sign),
            BitOrder::Float => (sign, all),
        };
        if descending { (pos ^ all, neg ^ all) } else { (pos, neg) }
    }
}

/// Order bits of a raw 32-bit key under the masks of [`BitOrder::masks`].
#[inline(always)]
pub const fn ordered_u32(raw: u32, pos: u32, neg: u32) -> u32 {
    raw ^ if raw & 0x8000_0000 != 0 { neg } else { pos }
}

/// Order bits of a raw 64-bit key under the masks of [`BitOrder::masks`].
#[inline(always)]
pub const fn ordered_u64(raw: u64, pos: u64, neg: u64) -> u64 {
    raw ^ if raw & 0x8000_0000_0000_0000 != 0 { neg } else { pos }
}

/// The raw 32-bit key whose order bits ([`ordered_u32`]) are `ord`. Every mask pair of
/// [`BitOrder::masks`] has equal sign bits, so the raw key's sign bit is `ord`'s sign
/// bit XOR that of `pos`: the inverse is the same XOR, chosen by that bit. Lets a sort
/// carry order bits through its network and store raw keys at the end.
#[inline(always)]
pub const fn raw_u32(ord: u32, pos: u32, neg: u32) -> u32 {
    ord ^ if (ord ^ pos) & 0x8000_0000 != 0 { neg } else { pos }
}

/// [`raw_u32`] for 64-bit keys: the inverse of [`ordered_u64`].
#[inline(always)]
pub const fn raw_u64(ord: u64, pos: u64, neg: u64) -> u64 {
    ord ^ if (ord ^ pos) & 0x8000_0000_0000_0000 != 0 { neg } else { pos }
}

/// An unsigned word that kernels move as a key or a value: raw bits, or a key's order
/// bits (radix digits are taken from these; the networks and merges compare them).
pub trait Word: Copy + 'static {
    const BYTES: u32;
    const ZERO: Self;
    const MAX: Self;
    fn from_u64(v: u64) -> Self;
    /// Order bits from raw bits (see [`ordered_u32`]).
    fn ordered(self, pos: Self, neg: Self) -> Self;
    /// Raw bits from order bits: the inverse of [`Word::ordered`].
    fn raw(self, pos: Self, neg: Self) -> Self;
    /// `(self >> shift) & mask`, `shift` below the width.
    fn digit(self, shift: u32, mask: u32) -> u32;
    fn to_u64(self) -> u64;
}

impl Word for u32 {
    const BYTES: u32 = 4;
    const ZERO: u32 = 0;
    const MAX: u32 = u32::MAX;
    #[inline(always)]
    fn from_u64(v: u64) -> u32 {
        v as u32
    }
    #[inline(always)]
    fn ordered(self, pos: u32, neg: u32) -> u32 {
        ordered_u32(self, pos, neg)
    }
    #[inline(always)]
    fn raw(self, pos: u32, neg: u32) -> u32 {
        raw_u32(self, pos, neg)
    }
    #[inline(always)]
    fn digit(self, shift: u32, mask: u32) -> u32 {
        (self >> shift) & mask
    }
    #[inline(always)]
    fn to_u64(self) -> u64 {
        self as u64
    }
}

impl Word for u64 {
    const BYTES: u32 = 8;
    const ZERO: u64 = 0;
    const MAX: u64 = u64::MAX;
    #[inline(always)]
    fn from_u64(v: u64) -> u64 {
        v
    }
    #[inline(always)]
    fn ordered(self, pos: u64, neg: u64) -> u64 {
        ordered_u64(self, pos, neg)
    }
    #[inline(always)]
    fn raw(self, pos: u64, neg: u64) -> u64 {
        raw_u64(self, pos, neg)
    }
    #[inline(always)]
    fn digit(self, shift: u32, mask: u32) -> u32 {
        (self >> shift) as u32 & mask
    }
    #[inline(always)]
    fn to_u64(self) -> u64 {
        self
    }
}

macro_rules! narrow_word {
    ($t:ty, $bytes:expr, $sign:expr) => {
        impl Word for $t {
            const BYTES: u32 = $bytes;
            const ZERO: $t = 0;
            const MAX: $t = <$t>::MAX;
            #[inline(always)]
            fn from_u64(v: u64) -> $t {
                v as $t
            }
            #[inline(always)]
            fn ordered(self, pos: $t, neg: $t) -> $t {
                self ^ if self & $sign != 0 { neg } else { pos }
            }
            #[inline(always)]
            fn raw(self, pos: $t, neg: $t) -> $t {
                self ^ if (self ^ pos) & $sign != 0 { neg } else { pos }
            }
            #[inline(always)]
            fn digit(self, shift: u32, mask: u32) -> u32 {
                (self as u32 >> shift) & mask
            }
            #[inline(always)]
            fn to_u64(self) -> u64 {
                self as u64
            }
        }
    };
}
// The 16- and 8-bit keys' words: the radix sort moves them at their own width, so a
// pass reads and writes 2 (1) bytes a key rather than 4.
narrow_word!(u16, 2, 0x8000);
narrow_word!(u8, 1, 0x80);

/// The raw bits of `+inf` of an IEEE float of `width` bits with `mantissa_bits`
/// significand bits (every exponent bit set): a float is a NaN when its magnitude bits
/// (all but the sign) exceed these.
#[inline(always)]
pub const fn float_inf_bits(width: u32, mantissa_bits: u32) -> u64 {
    let sign = 1u64 << (width - 1);
    (sign - 1) >> mantissa_bits << mantissa_bits
}

/// Order bits of a raw 16-bit key in IEEE total order (`f16`, `bf16`): [`f32_order_bits`]
/// at 16 bits.
#[inline(always)]
pub const fn f16_order_bits(x: u16) -> u16 {
    if x & 0x8000 != 0 { !x } else { x | 0x8000 }
}

/// Maps an IEEE single's bit pattern to unsigned bits in total order: negative values
/// have every bit flipped (so larger magnitudes sort first), positive ones only the
/// sign bit set.
#[inline(always)]
pub const fn f32_order_bits(x: u32) -> u32 {
    if x & 0x8000_0000 != 0 { !x } else { x | 0x8000_0000 }
}

/// [`f32_order_bits`] for doubles.
#[inline(always)]
pub const fn f64_order_bits(x: u64) -> u64 {
    if x & 0x8000_0000_0000_0000 != 0 { !x } else { x | 0x8000_0000_0000_0000 }
}

impl SortKey for u32 {
    type Bits = u32;
    const NAME: &'static str = "u32";
    const BIT_ORDER: Option<BitOrder> = Some(BitOrder::Unsigned);
    #[inline(always)]
    fn bits(&self) -> u32 {
        *self
    }
}

impl SortKey for i32 {
    type Bits = u32;
    const NAME: &'static str = "i32";
    const BIT_ORDER: Option<BitOrder> = Some(BitOrder::Signed);
    #[inline(always)]
    fn bits(&self) -> u32 {
        (*self as u32) ^ 0x8000_0000
    }
}

impl SortKey for f32 {
    type Bits = u32;
    const NAME: &'static str = "f32";
    const BIT_ORDER: Option<BitOrder> = Some(BitOrder::Float);
    const MANTISSA_BITS: u32 = 23;
    #[inline(always)]
    fn bits(&self) -> u32 {
        f32_order_bits(self.to_bits())
    }
}

impl SortKey for u64 {
    type Bits = u64;
    const NAME: &'static str = "u64";
    const BIT_ORDER: Option<BitOrder> = Some(BitOrder::Unsigned);
    #[inline(always)]
    fn bits(&self) -> u64 {
        *self
    }
}

impl SortKey for i64 {
    type Bits = u64;
    const NAME: &'static str = "i64";
    const BIT_ORDER: Option<BitOrder> = Some(BitOrder::Signed);
    #[inline(always)]
    fn bits(&self) -> u64 {
        (*self as u64) ^ 0x8000_0000_0000_0000
    }
}

impl SortKey for f64 {
    type Bits = u64;
    const NAME: &'static str = "f64";
    const BIT_ORDER: Option<BitOrder> = Some(BitOrder::Float);
    const MANTISSA_BITS: u32 = 52;
    #[inline(always)]
    fn bits(&self) -> u64 {
        f64_order_bits(self.to_bits())
    }
}

impl SortKey for u16 {
    type Bits = u16;
    const NAME: &'static str = "u16";
    const BIT_ORDER: Option<BitOrder> = Some(BitOrder::Unsigned);
    #[inline(always)]
    fn bits(&self) -> u16 {
        *self
    }
}

impl SortKey for i16 {
    type Bits = u16;
    const NAME: &'static str = "i16";
    const BIT_ORDER: Option<BitOrder> = Some(BitOrder::Signed);
    #[inline(always)]
    fn bits(&self) -> u16 {
        (*self as u16) ^ 0x8000
    }
}

impl SortKey for u8 {
    type Bits = u8;
    const NAME: &'static str = "u8";
    const BIT_ORDER: Option<BitOrder> = Some(BitOrder::Unsigned);
    #[inline(always)]
    fn bits(&self) -> u8 {
        *self
    }
}

impl SortKey for i8 {
    type Bits = u8;
    const NAME: &'static str = "i8";
    const BIT_ORDER: Option<BitOrder> = Some(BitOrder::Signed);
    #[inline(always)]
    fn bits(&self) -> u8 {
        (*self as u8) ^ 0x80
    }
}

// The half-precision floats are host types (`half`): the kernels see their raw 16-bit
// words and a `BitOrder` only, so the device build needs no `half`. The impls live
// here because `SortKey` and `half::f16` both come from other crates than the host.
#[cfg(not(target_arch = "nvptx64"))]
impl SortKey for half::f16 {
    type Bits = u16;
    const NAME: &'static str = "f16";
    const BIT_ORDER: Option<BitOrder> = Some(BitOrder::Float);
    const MANTISSA_BITS: u32 = 10;
    #[inline(always)]
    fn bits(&self) -> u16 {
        f16_order_bits(self.to_bits())
    }
}

#[cfg(not(target_arch = "nvptx64"))]
impl SortKey for half::bf16 {
    type Bits = u16;
    const NAME: &'static str = "bf16";
    const BIT_ORDER: Option<BitOrder> = Some(BitOrder::Float);
    const MANTISSA_BITS: u32 = 7;
    #[inline(always)]
    fn bits(&self) -> u16 {
        f16_order_bits(self.to_bits())
    }
}

/// The game entity of the Catania report's experiment: sorted by
/// `distance_from_player` (IEEE total order), carrying its payload along.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(not(target_arch = "nvptx64"), derive(bytemuck::Pod, bytemuck::Zeroable))]
pub struct Entity {
    pub distance_from_player: f32,
    pub id: u32,
    pub position: [f32; 3],
}

impl SortKey for Entity {
    type Bits = u32;
    const NAME: &'static str = "entity";
    const BIT_ORDER: Option<BitOrder> = None;
    const RECORD_KEY: Option<(usize, BitOrder)> =
        Some((core::mem::offset_of!(Entity, distance_from_player), BitOrder::Float));
    const MANTISSA_BITS: u32 = 23;
    #[inline(always)]
    fn bits(&self) -> u32 {
        f32_order_bits(self.distance_from_player.to_bits())
    }
}

/// Invokes `$m!(Type, suffix)` once per element type. Entry-point families use this so
/// that adding a key type is a one-line change here.
macro_rules! for_each_key_type {
    ($m:ident) => {
        $m!(u32, u32);
        $m!(i32, i32);
        $m!(f32, f32);
        $m!(u64, u64);
        $m!(i64, i64);
        $m!(f64, f64);
        $m!($crate::key::Entity, entity);
    };
}

/// An array of `$e` for each element type, bound to `$t` in turn (in the order of
/// [`for_each_key_type!`]): `each_element_type!(|T| size_of::<T>())`.
macro_rules! each_element_type {
    (|$t:ident| $e:expr) => {
        [
            {
                type $t = u32;
                $e
            },
            {
                type $t = i32;
                $e
            },
            {
                type $t = f32;
                $e
            },
            {
                type $t = u64;
                $e
            },
            {
                type $t = i64;
                $e
            },
            {
                type $t = f64;
                $e
            },
            {
                type $t = $crate::key::Entity;
                $e
            },
        ]
    };
}

// The families name these macros by this module's path.
pub(crate) use {each_element_type, for_each_key_type};

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    fn assert_bits_follow<T: SortKey + core::fmt::Debug>(values: &[T], cmp: impl Fn(&T, &T) -> core::cmp::Ordering) {
        for a in values {
            for b in values {
                assert_eq!(a.bits().cmp(&b.bits()), cmp(a, b), "{a:?} vs {b:?} for {}", T::NAME);
                assert_eq!(a.ord_bits(true).cmp(&b.ord_bits(true)), cmp(b, a), "descending {a:?} vs {b:?}");
            }
        }
    }

    #[test]
    fn integer_bits_preserve_order() {
        assert_bits_follow(&[0u32, 1, 2, 0x7fff_ffff, 0x8000_0000, u32::MAX], Ord::cmp);
        assert_bits_follow(&[i32::MIN, -2, -1, 0, 1, i32::MAX], Ord::cmp);
        assert_bits_follow(&[0u64, 1, u64::MAX / 2, u64::MAX], Ord::cmp);
        assert_bits_follow(&[i64::MIN, -1, 0, 1, i64::MAX], Ord::cmp);
    }

    #[test]
    fn float_bits_follow_total_order() {
        let f = [
            f32::from_bits(0xffff_ffff), // -NaN with full payload
            -f32::NAN,
            f32::NEG_INFINITY,
            -1.5,
            -f32::MIN_POSITIVE,
            -0.0,
            0.0,
            f32::MIN_POSITIVE / 2.0,
            1.0,
            f32::INFINITY,
            f32::NAN,
            f32::from_bits(0x7fff_ffff),
        ];
        assert_bits_follow(&f, f32::total_cmp);
        let d: Vec<f64> = f.iter().map(|&x| x as f64).collect();
        assert_bits_follow(&d, f64::total_cmp);
    }

    fn assert_masks_match<T: SortKey + core::fmt::Debug>(
        values: &[T],
        raw: impl Fn(&T) -> u64,
        bits: impl Fn(&T, bool) -> u64,
    ) {
        let width = (size_of::<T>() * 8) as u32;
        for desc in [false, true] {
            let (pos, neg) = T::BIT_ORDER.unwrap().masks(width, desc);
            for v in values {
                let r = raw(v);
                let got = if width == 32 {
                    ordered_u32(r as u32, pos as u32, neg as u32) as u64
                } else {
                    ordered_u64(r, pos, neg)
                };
                assert_eq!(got, bits(v, desc), "{} {v:?} desc {desc}", T::NAME);
            }
        }
    }

    #[test]
    fn bit_order_masks_equal_sort_key_bits() {
        let f = [f32::NAN, -f32::NAN, f32::NEG_INFINITY, -1.5, -0.0, 0.0, 1e-40, 3.0, f32::INFINITY];
        let d: Vec<f64> = f.iter().map(|&x| x as f64).collect();
        assert_masks_match(&[0u32, 1, 0x8000_0000, u32::MAX], |v| *v as u64, |v, s| v.ord_bits(s) as u64);
        assert_masks_match(&[i32::MIN, -1, 0, 1, i32::MAX], |v| *v as u32 as u64, |v, s| v.ord_bits(s) as u64);
        assert_masks_match(&f, |v| v.to_bits() as u64, |v, s| v.ord_bits(s) as u64);
        assert_masks_match(&[0u64, 1, 1 << 63, u64::MAX], |v| *v, |v, s| v.ord_bits(s));
        assert_masks_match(&[i64::MIN, -1, 0, 1, i64::MAX], |v| *v as u64, |v, s| v.ord_bits(s));
        assert_masks_match(&d, |v| v.to_bits(), |v, s| v.ord_bits(s));
        assert_eq!(Entity::BIT_ORDER, None);
    }

    #[test]
    fn raw_inverts_ordered_for_every_mask() {
        let samples = [0u64, 1, 2, 0x7fff_ffff, 0x8000_0000, 0x8000_0001, 0xffff_fffe, 0xffff_ffff, 0x1234_5678];
        for bo in [BitOrder::Unsigned, BitOrder::Signed, BitOrder::Float] {
            for desc in [false, true] {
                let (pos, neg) = bo.masks(32, desc);
                assert_eq!(pos & 0x8000_0000, neg & 0x8000_0000, "{bo:?} {desc}: sign bits of the masks agree");
                let (pos, neg) = (pos as u32, neg as u32);
                for &r in &samples {
                    let r = r as u32;
                    assert_eq!(raw_u32(ordered_u32(r, pos, neg), pos, neg), r, "{bo:?} {desc} {r:#x}");
                }
                let (pos, neg) = bo.masks(64, desc);
                for &r in &samples {
                    for r in [r, r << 32 | r, !r, r.rotate_right(1)] {
                        assert_eq!(raw_u64(ordered_u64(r, pos, neg), pos, neg), r, "{bo:?} {desc} {r:#x}");
                    }
                }
            }
        }
    }

    /// The narrow keys' order bits follow their order (`f16`/`bf16`: every 16-bit
    /// pattern against `total_cmp`), equal the [`BitOrder::masks`] applied by
    /// [`Word::ordered`] at their width, and [`Word::raw`] inverts that.
    #[test]
    fn narrow_keys_bits_masks_and_inverse() {
        assert_bits_follow(&[0u16, 1, 0x7fff, 0x8000, u16::MAX], Ord::cmp);
        assert_bits_follow(&[i16::MIN, -1, 0, 1, i16::MAX], Ord::cmp);
        assert_bits_follow(&[0u8, 1, 0x7f, 0x80, u8::MAX], Ord::cmp);
        assert_bits_follow(&[i8::MIN, -1, 0, 1, i8::MAX], Ord::cmp);
        let all: Vec<u16> = (0..=u16::MAX).collect();
        let check_half = |order_of: &dyn Fn(u16) -> u16, cmp: &dyn Fn(u16, u16) -> core::cmp::Ordering| {
            // Sorting by order bits must give the total order: compare neighbours.
            let mut by_bits = all.clone();
            by_bits.sort_by_key(|&r| order_of(r));
            for w in by_bits.windows(2) {
                assert_eq!(cmp(w[0], w[1]), core::cmp::Ordering::Less, "{:#x} {:#x}", w[0], w[1]);
            }
        };
        check_half(&|r| half::f16::from_bits(r).bits(), &|a, b| {
            half::f16::from_bits(a).total_cmp(&half::f16::from_bits(b))
        });
        check_half(&|r| half::bf16::from_bits(r).bits(), &|a, b| {
            half::bf16::from_bits(a).total_cmp(&half::bf16::from_bits(b))
        });
        for bo in [BitOrder::Unsigned, BitOrder::Signed, BitOrder::Float] {
            for desc in [false, true] {
                let (pos, neg) = bo.masks(16, desc);
                let (pos, neg) = (pos as u16, neg as u16);
                for &r in &all {
                    let ord = r.ordered(pos, neg);
                    assert_eq!(ord.raw(pos, neg), r, "{bo:?} {desc} {r:#x}");
                    let want = match bo {
                        BitOrder::Unsigned => r.ord_bits(desc),
                        BitOrder::Signed => (r as i16).ord_bits(desc),
                        BitOrder::Float => half::f16::from_bits(r).ord_bits(desc),
                    };
                    assert_eq!(ord, want, "{bo:?} {desc} {r:#x}");
                }
                let (pos, neg) = bo.masks(8, desc);
                let (pos, neg) = (pos as u8, neg as u8);
                for r in 0..=u8::MAX {
                    assert_eq!(r.ordered(pos, neg).raw(pos, neg), r, "{bo:?} {desc} {r:#x}");
                }
                if bo != BitOrder::Float {
                    for r in 0..=u8::MAX {
                        let want = if bo == BitOrder::Signed { (r as i8).ord_bits(desc) } else { r.ord_bits(desc) };
                        assert_eq!(r.ordered(pos, neg), want, "{bo:?} {desc} {r:#x}");
                    }
                }
            }
        }
        assert_eq!(half::f16::MANTISSA_BITS, 10);
        assert_eq!(float_inf_bits(16, half::f16::MANTISSA_BITS), half::f16::INFINITY.to_bits() as u64);
        assert_eq!(float_inf_bits(16, half::bf16::MANTISSA_BITS), half::bf16::INFINITY.to_bits() as u64);
        assert_eq!(float_inf_bits(32, f32::MANTISSA_BITS), f32::INFINITY.to_bits() as u64);
        assert_eq!(float_inf_bits(64, f64::MANTISSA_BITS), f64::INFINITY.to_bits());
    }

    #[test]
    fn entity_sorts_by_distance_only() {
        let a = Entity { distance_from_player: 2.0, id: 1, position: [0.0; 3] };
        let b = Entity { distance_from_player: 2.0, id: 9, position: [5.0; 3] };
        assert_eq!(a.bits(), b.bits());
        assert_eq!(core::mem::size_of::<Entity>(), 20);
    }
}
