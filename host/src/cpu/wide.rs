//! Wide keys ([`crate::WideKey`]) on the CPU: rayon's stable parallel sort by the
//! keys' own [`Ord`], which the order words of the GPU path reproduce.
use std::cmp::Ordering;

use rayon::prelude::*;

use super::{LONG_SEGMENT, split_segments};
use crate::options::Order;
use crate::wide::WideKey;

/// `a` against `b` in `order`.
fn compare<K: WideKey>(a: &K, b: &K, order: Order) -> Ordering {
    match order {
        Order::Ascending => a.cmp(b),
        Order::Descending => b.cmp(a),
    }
}

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
    perm.par_sort_by(|&a, &b| compare(&keys[a as usize], &keys[b as usize], order));
    perm
}

/// The first `min(k, n)` keys of the stable sort of `keys` in `order` and their input
/// indices: a selection of the `k`-th (key, index), which are unique, then a sort of
/// the `k` before it (at most 2^32 - 1 keys: the caller checks).
pub fn top_k<K: WideKey>(keys: &[K], k: usize, order: Order) -> (Vec<K>, Vec<u32>) {
    let k = k.min(keys.len());
    if k == 0 {
        return (Vec::new(), Vec::new());
    }
    let rank = |&a: &u32, &b: &u32| compare(&keys[a as usize], &keys[b as usize], order).then(a.cmp(&b));
    let mut idx: Vec<u32> = (0..keys.len() as u32).collect();
    if k < idx.len() {
        idx.select_nth_unstable_by(k - 1, rank);
        idx.truncate(k);
    }
    idx.par_sort_unstable_by(rank);
    (idx.iter().map(|&i| keys[i as usize]).collect(), idx)
}

/// Sorts each segment `keys[offsets[i]..offsets[i + 1]]` in `order`; keys outside the
/// segments stay put. `offsets` must be valid (see
/// [`crate::variants::segmented::check_offsets`]). Equal wide keys are equal bytes,
/// so this is the stable result.
pub fn sort_segments<K: WideKey>(keys: &mut [K], offsets: &[usize], order: Order) {
    let mut short = Vec::with_capacity(offsets.len());
    for seg in split_segments(keys, offsets) {
        if seg.len() >= LONG_SEGMENT {
            sort(seg, order);
        } else if seg.len() > 1 {
            short.push(seg);
        }
    }
    short.into_par_iter().for_each(|seg| seg.sort_unstable_by(|a, b| compare(a, b, order)));
}

/// [`sort_segments`] of keys with a value each, stably: within a segment, equal keys
/// keep their input order and values move with their keys. `values` has the length
/// of `keys`.
pub fn sort_segments_pairs<K: WideKey, V: Copy + Send + Sync>(
    keys: &mut [K],
    values: &mut [V],
    offsets: &[usize],
    order: Order,
) {
    let segs: Vec<_> = split_segments(keys, offsets)
        .into_iter()
        .zip(split_segments(values, offsets))
        .filter(|s| s.0.len() > 1)
        .collect();
    let sort_one = |(k, v): (&mut [K], &mut [V])| {
        let mut pairs: Vec<(K, V)> = k.iter().copied().zip(v.iter().copied()).collect();
        if pairs.len() >= LONG_SEGMENT {
            pairs.par_sort_by(|a, b| compare(&a.0, &b.0, order));
        } else {
            pairs.sort_by(|a, b| compare(&a.0, &b.0, order));
        }
        for (i, (key, val)) in pairs.into_iter().enumerate() {
            (k[i], v[i]) = (key, val);
        }
    };
    let (long, short): (Vec<_>, Vec<_>) = segs.into_iter().partition(|s| s.0.len() >= LONG_SEGMENT);
    long.into_iter().for_each(sort_one);
    short.into_par_iter().for_each(sort_one);
}
