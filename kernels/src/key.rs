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
    type Bits: Copy + Ord + core::ops::Not<Output = Self::Bits>;
    /// Suffix of this type's kernel entry points (`naive_merge_pass_u32`, ...) and
    /// its name on the command line.
    const NAME: &'static str;
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
    #[inline(always)]
    fn bits(&self) -> u32 {
        *self
    }
}

impl SortKey for i32 {
    type Bits = u32;
    const NAME: &'static str = "i32";
    #[inline(always)]
    fn bits(&self) -> u32 {
        (*self as u32) ^ 0x8000_0000
    }
}

impl SortKey for f32 {
    type Bits = u32;
    const NAME: &'static str = "f32";
    #[inline(always)]
    fn bits(&self) -> u32 {
        f32_order_bits(self.to_bits())
    }
}

impl SortKey for u64 {
    type Bits = u64;
    const NAME: &'static str = "u64";
    #[inline(always)]
    fn bits(&self) -> u64 {
        *self
    }
}

impl SortKey for i64 {
    type Bits = u64;
    const NAME: &'static str = "i64";
    #[inline(always)]
    fn bits(&self) -> u64 {
        (*self as u64) ^ 0x8000_0000_0000_0000
    }
}

impl SortKey for f64 {
    type Bits = u64;
    const NAME: &'static str = "f64";
    #[inline(always)]
    fn bits(&self) -> u64 {
        f64_order_bits(self.to_bits())
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
    #[inline(always)]
    fn bits(&self) -> u32 {
        f32_order_bits(self.distance_from_player.to_bits())
    }
}

/// Invokes `$m!(Type, suffix)` once per element type. Entry-point families use this so
/// that adding a key type is a one-line change here.
#[macro_export]
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

    #[test]
    fn entity_sorts_by_distance_only() {
        let a = Entity { distance_from_player: 2.0, id: 1, position: [0.0; 3] };
        let b = Entity { distance_from_player: 2.0, id: 9, position: [5.0; 3] };
        assert_eq!(a.bits(), b.bits());
        assert_eq!(core::mem::size_of::<Entity>(), 20);
    }
}
