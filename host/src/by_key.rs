//! Keys that [`crate::Sorter::sort_by_key`] extracts from records: the primitive key
//! types, and pairs of 32-bit ones compared lexicographically.
use kernels::SortKey;

/// A sort key computed from a record: it maps to unsigned *order bits* whose natural
/// order is the key's order (ascending or descending), so that the GPU sorts them as
/// plain unsigned words.
///
/// Implemented for `u32`, `i32`, `f32`, `u64`, `i64`, `f64` (floats by IEEE 754 total
/// order) and for pairs `(A, B)` of the 32-bit ones, ordered by `A` and then `B` (in
/// descending order, both descend).
pub trait RecordKey: Copy + Send + Sync {
    /// `u32` or `u64`.
    type Bits: crate::element::Key + Ord;
    /// The order bits of this key: comparing them as unsigned integers orders the keys
    /// ascending, or descending with `descending`.
    fn order_bits(&self, descending: bool) -> Self::Bits;
}

macro_rules! primitive_record_keys {
    ($($t:ty),*) => {$(
        impl RecordKey for $t {
            type Bits = <$t as SortKey>::Bits;
            #[inline]
            fn order_bits(&self, descending: bool) -> Self::Bits {
                self.ord_bits(descending)
            }
        }
    )*};
}
primitive_record_keys!(u32, i32, f32, u64, i64, f64);

/// A 32-bit key type, the half of a lexicographic pair key.
pub trait Key32: SortKey<Bits = u32> + Send + Sync {}
impl Key32 for u32 {}
impl Key32 for i32 {}
impl Key32 for f32 {}

impl<A: Key32, B: Key32> RecordKey for (A, B) {
    type Bits = u64;
    #[inline]
    fn order_bits(&self, descending: bool) -> u64 {
        ((self.0.ord_bits(descending) as u64) << 32) | self.1.ord_bits(descending) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::RecordKey;

    #[test]
    fn pairs_order_by_the_first_then_the_second() {
        let keys = [(1u32, -5i32), (0, 7), (1, -6), (0, -1)];
        let mut asc = keys;
        asc.sort_by_key(|k| k.order_bits(false));
        assert_eq!(asc, [(0, -1), (0, 7), (1, -6), (1, -5)]);
        let mut desc = keys;
        desc.sort_by_key(|k| k.order_bits(true));
        assert_eq!(desc, [(1, -5), (1, -6), (0, 7), (0, -1)]);
    }

    #[test]
    fn float_keys_use_total_order() {
        let mut v = [2.0f64, -0.0, f64::NAN, 0.0, -f64::NAN, -1.0];
        v.sort_by_key(|k| k.order_bits(false));
        let bits: Vec<u64> = v.iter().map(|x| x.to_bits()).collect();
        let mut want = [2.0f64, -0.0, f64::NAN, 0.0, -f64::NAN, -1.0];
        want.sort_by(f64::total_cmp);
        assert_eq!(bits, want.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
    }
}
