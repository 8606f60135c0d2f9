//! The CPU backend and the reference every GPU result is checked against.
//!
//! - [`reference_sort`]: std's stable sort, kept independent of everything below so
//!   that verification never trusts the code it checks.
//! - [`recursive_merge_sort`], [`bottom_up_merge_sort`]: the sequential baselines of
//!   the Pisa report.
//! - [`parallel_merge_sort`]: the parallel merge sort with a chosen thread count;
//!   [`sort`] (the fallback of `Sorter`) runs it with every available thread.
//! - [`runs`], [`searchsorted`]: the operations after a sort (unique, run-length
//!   encoding, searchsorted) on the CPU.
//! - [`select`]: the `k`-th key of the stable sort (`select_nth`).
//! - [`wide`]: `u128`, `i128` and byte-string keys.
mod merge;
mod parallel;
pub mod rows;
pub mod runs;
pub mod searchsorted;
pub mod select;
mod sequential;
pub mod wide;

pub use parallel::{parallel_merge_sort, sub_array_start};
pub use sequential::{bottom_up_merge_sort, recursive_merge_sort};

use crate::element::Element;
use crate::options::{KeyOrder, Order};

/// From this many elements on, [`sort`] uses every thread. On the 16-core test
/// machine (sizes study, docs/results/sizes.csv) 16 threads beat one from 4096 keys
/// on (1.9x there, 4x at 16K) while one thread won at 1024; the threshold leaves a
/// margin for busier machines. Choosing between one thread and all of them, never a
/// count in between, keeps a single pool of threads alive.
const PARALLEL_FROM: usize = 1 << 13;

/// The reference: std's stable sort on the order bits. Equal keys keep their input
/// order, so for stable variants the GPU result must equal this exactly.
pub fn reference_sort<T: Element>(data: &mut [T], order: Order) {
    let desc = order.is_descending();
    data.sort_by_key(|x| x.ord_bits(desc));
}

/// Threads of this machine that the CPU backend may use.
pub fn available_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |c| c.get())
}

/// Threads [`sort`] uses for `n` elements: one for small inputs, all available
/// ones from `PARALLEL_FROM` elements on.
pub fn default_threads(n: usize) -> usize {
    if n < PARALLEL_FROM { 1 } else { available_threads() }
}

/// The CPU backend's sort: stable parallel merge sort on [`default_threads`] threads.
pub fn sort<T: Element>(data: &mut [T], order: Order) {
    if parallel_merge_sort(data, order, default_threads(data.len())).is_err() {
        // Only when no threads could be started, which happens before the data is
        // touched; one thread gives the same (stable) result.
        parallel_merge_sort(data, order, 1).expect("one thread needs no pool");
    }
}

/// Segments of at least this many keys are sorted one after another by [`sort`] on
/// every thread; shorter ones are sorted one per thread, many at once.
pub(crate) const LONG_SEGMENT: usize = 1 << 16;

/// Sorts each segment `data[offsets[i]..offsets[i + 1]]` in `order` by the order bits,
/// as every sort of this library does (NaN-last too, [`KeyOrder`]); keys outside the
/// segments stay put. `offsets` must be valid (non-decreasing, the last at most
/// `data.len()`; see [`crate::variants::segmented::check_offsets`]).
pub fn sort_segments<T: Element>(data: &mut [T], offsets: &[usize], order: impl Into<KeyOrder>) {
    use rayon::prelude::*;
    let order = order.into();
    let (desc, nan_last) = (order.order.is_descending(), order.nan_last_for::<T>());
    let mut short = Vec::with_capacity(offsets.len());
    for seg in split_segments(data, offsets) {
        if seg.len() >= LONG_SEGMENT {
            if nan_last {
                seg.par_sort_by_key(|x| order.sort_bits(x));
            } else {
                sort(seg, order.order);
            }
        } else if seg.len() > 1 {
            short.push(seg);
        }
    }
    // Total order: equal order bits are equal keys, so an unstable sort gives the
    // stable result. NaN-last makes NaNs of different bits equal: stable.
    if nan_last {
        short.into_par_iter().for_each(|seg| seg.sort_by_key(|x| order.sort_bits(x)));
    } else {
        short.into_par_iter().for_each(|seg| seg.sort_unstable_by_key(|x| x.ord_bits(desc)));
    }
}

/// [`sort_segments`] of keys with a `u32` value each, stably: within a segment, equal
/// keys keep their input order and values move with their keys. `values` has the
/// length of `data`.
pub fn sort_segments_pairs<T: Element>(
    data: &mut [T],
    values: &mut [u32],
    offsets: &[usize],
    order: impl Into<KeyOrder>,
) {
    use rayon::prelude::*;
    let order = order.into();
    let segs: Vec<_> = split_segments(data, offsets)
        .into_iter()
        .zip(split_segments(values, offsets))
        .filter(|s| s.0.len() > 1)
        .collect();
    segs.into_par_iter().for_each(|(k, v)| {
        let mut pairs: Vec<(T, u32)> = k.iter().copied().zip(v.iter().copied()).collect();
        pairs.sort_by_key(|p| order.sort_bits(&p.0));
        for (i, (key, val)) in pairs.into_iter().enumerate() {
            (k[i], v[i]) = (key, val);
        }
    });
}

/// The segments `data[offsets[i]..offsets[i + 1]]`, each its own slice (empty ones
/// included). `offsets` must be valid (non-decreasing, the last at most `data.len()`).
pub(crate) fn split_segments<'a, T>(data: &'a mut [T], offsets: &[usize]) -> Vec<&'a mut [T]> {
    let (Some(&first), Some(&last)) = (offsets.first(), offsets.last()) else { return Vec::new() };
    let mut rest = &mut data[first..last];
    offsets
        .windows(2)
        .map(|w| {
            let (seg, tail) = std::mem::take(&mut rest).split_at_mut(w[1] - w[0]);
            rest = tail;
            seg
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_inputs_stay_on_one_thread() {
        assert_eq!(default_threads(0), 1);
        assert_eq!(default_threads(PARALLEL_FROM - 1), 1);
        assert_eq!(default_threads(PARALLEL_FROM), available_threads());
    }
}
