//! Wide keys ([`crate::WideKey`]) on the CPU: rayon's stable parallel sort by the
//! keys' own [`Ord`], which the order words of the GPU path reproduce.
use rayon::prelude::*;

use crate::options::Order;
use crate::wide::WideKey;

/// Sorts `keys` stably in `order`.
pub fn sort<K: WideKey>(keys: &mut [K], order: Order) {
    match order {
        Order::Ascending => keys.par_sort(),
        Order::Descending => keys.par_sort_by(|a, b| b.cmp(a)),
    }
}

/// The stable sorting permutation of `keys` in `order` (at most 2^32 - 1 keys: the
/// caller checks).
pub fn argsort<K: WideKey>(keys: &[K], order: Order) -> Vec<u32> {
    let mut perm: Vec<u32> = (0..keys.len() as u32).collect();
    match order {
        Order::Ascending => perm.par_sort_by(|&a, &b| keys[a as usize].cmp(&keys[b as usize])),
        Order::Descending => perm.par_sort_by(|&a, &b| keys[b as usize].cmp(&keys[a as usize])),
    }
    perm
}
