//! The `k`-th key of the stable sort without sorting: `select_nth_unstable` by the
//! library's order bits, then, where equal order bits can hide different keys (the
//! NaNs of a float under NaN-last order, whose payloads differ), the `k`-th key of the
//! stable sort among them.
use crate::element::Element;
use crate::options::KeyOrder;

/// The key at position `k` (0-based) of the stable sort of `keys` in `order`; `None`
/// when `k >= keys.len()`. `keys` is not modified (a copy is partitioned).
pub fn select_nth<K: Element>(keys: &[K], k: usize, order: impl Into<KeyOrder>) -> Option<K> {
    let order = order.into();
    if k >= keys.len() {
        return None;
    }
    let bits = |x: &K| order.sort_bits(x);
    let mut copy = keys.to_vec();
    let (_, &mut nth, _) = copy.select_nth_unstable_by_key(k, bits);
    if !order.nan_last_for::<K>() {
        // Total order: equal order bits are equal keys, bit for bit.
        return Some(nth);
    }
    // The stable sort puts the keys with `nth`'s order bits in input order after the
    // `before` keys below them: position `k` is the `(k - before)`-th of them.
    let b = bits(&nth);
    let before = keys.iter().filter(|x| bits(x) < b).count();
    keys.iter().filter(|x| bits(x) == b).nth(k - before).copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::{NanOrder, Order};

    /// Against the stable sort itself, every position, both orders, with ties.
    #[test]
    fn select_nth_is_the_stable_sorts_kth() {
        let keys: Vec<i64> = (0..200).map(|i: i64| (i * 7919) % 61 - 30).collect();
        for order in [Order::Ascending, Order::Descending] {
            let mut sorted = keys.clone();
            crate::cpu::reference_sort(&mut sorted, order);
            for (k, want) in sorted.iter().enumerate() {
                assert_eq!(select_nth(&keys, k, order), Some(*want), "{order} k={k}");
            }
            assert_eq!(select_nth(&keys, keys.len(), order), None);
        }
    }

    /// NaN-last: NaNs of different payloads come out in input order, as the stable
    /// sort leaves them.
    #[test]
    fn nan_last_selects_the_nan_of_the_stable_sort() {
        let nans = [f32::from_bits(0x7fc0_0001), f32::from_bits(0xffc0_0002), f32::from_bits(0x7f80_0003)];
        let keys = [1.0, nans[0], -2.0, nans[1], 0.5, nans[2], f32::INFINITY];
        let asc = KeyOrder::new(Order::Ascending, NanOrder::Last);
        assert_eq!(select_nth(&keys, 0, asc).map(f32::to_bits), Some((-2.0f32).to_bits()));
        assert_eq!(select_nth(&keys, 3, asc).map(f32::to_bits), Some(f32::INFINITY.to_bits()));
        for (j, nan) in nans.iter().enumerate() {
            assert_eq!(select_nth(&keys, 4 + j, asc).map(f32::to_bits), Some(nan.to_bits()), "NaN {j}");
        }
        // Descending NaN-last puts the NaNs first (the largest), in input order.
        let desc = KeyOrder::new(Order::Descending, NanOrder::Last);
        for (j, nan) in nans.iter().enumerate() {
            assert_eq!(select_nth(&keys, j, desc).map(f32::to_bits), Some(nan.to_bits()), "NaN {j}");
        }
        assert_eq!(select_nth(&keys, 3, desc).map(f32::to_bits), Some(f32::INFINITY.to_bits()));
    }
}
