//! `searchsorted` on the CPU: a binary search per query over the order bits, on every
//! thread for many queries.
use kernels::searchsorted::precedes;
use rayon::prelude::*;

use crate::element::Key;

/// From this many queries on, the searches run on every thread.
const PARALLEL_FROM: usize = 1 << 12;

/// For each query, how many keys of `sorted` (ascending by the order bits) come before
/// it: those `<` it, or `<=` it when `right`.
pub fn searchsorted<K: Key>(sorted: &[K], queries: &[K], right: bool) -> Vec<u64> {
    let one = |q: &K| {
        let qb = q.bits();
        sorted.partition_point(|k| precedes(k.bits(), qb, right)) as u64
    };
    if queries.len() < PARALLEL_FROM {
        queries.iter().map(one).collect()
    } else {
        queries.par_iter().map(one).collect()
    }
}

/// Whether `keys` are ascending by the order bits (the fast path of the device search).
pub fn is_sorted<K: Key>(keys: &[K]) -> bool {
    if keys.len() < PARALLEL_FROM {
        keys.windows(2).all(|w| w[0].bits() <= w[1].bits())
    } else {
        keys.par_windows(2).all(|w| w[0].bits() <= w[1].bits())
    }
}
