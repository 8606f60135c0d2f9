//! The Pisa report's sequential baselines, done without its defects: a recursive
//! (top-down) and an iterative (bottom-up) merge sort. Both allocate one scratch buffer
//! per sort and ping-pong between it and the data instead of copying back after every
//! merge, and both sort short runs by insertion instead of recursing down to single
//! elements (the recursion overhead the report's profile blamed).
use super::merge::{insertion_sort, merge};
use kernels::SortKey;

use crate::element::Element;
use crate::options::Order;

/// Length of the runs sorted by insertion before merging starts.
pub(crate) const INSERTION_RUN: usize = 16;

/// Recursive top-down merge sort (stable).
pub fn recursive_merge_sort<T: Element>(data: &mut [T], order: Order) {
    let mut scratch = bytemuck::zeroed_vec::<T>(data.len());
    if order.is_descending() {
        top_down::<T, true>(data, &mut scratch, false);
    } else {
        top_down::<T, false>(data, &mut scratch, false);
    }
}

/// Iterative bottom-up merge sort (stable).
pub fn bottom_up_merge_sort<T: Element>(data: &mut [T], order: Order) {
    let mut scratch = bytemuck::zeroed_vec::<T>(data.len());
    if order.is_descending() {
        bottom_up::<T, true>(data, &mut scratch, false);
    } else {
        bottom_up::<T, false>(data, &mut scratch, false);
    }
}

/// Sorts the elements of `v` with `w` (same length) as the other buffer; the sorted
/// result ends in `w` when `into_w`, in `v` otherwise.
fn top_down<T: SortKey, const DESC: bool>(v: &mut [T], w: &mut [T], into_w: bool) {
    let n = v.len();
    if n <= INSERTION_RUN {
        insertion_sort::<T, DESC>(v);
        if into_w {
            w.copy_from_slice(v);
        }
        return;
    }
    let mid = n / 2;
    // The halves end in the buffer this level merges from, so the merge writes
    // straight into the requested one and no level copies.
    let (v1, v2) = v.split_at_mut(mid);
    let (w1, w2) = w.split_at_mut(mid);
    top_down::<T, DESC>(v1, w1, !into_w);
    top_down::<T, DESC>(v2, w2, !into_w);
    if into_w {
        merge::<T, DESC>(&v[..mid], &v[mid..], w);
    } else {
        merge::<T, DESC>(&w[..mid], &w[mid..], v);
    }
}

/// Bottom-up merge sort of `v` with `w` (same length) as the other buffer; the sorted
/// result ends in `w` when `into_w`, in `v` otherwise.
fn bottom_up<T: SortKey, const DESC: bool>(v: &mut [T], w: &mut [T], into_w: bool) {
    let n = v.len();
    let mut passes = 0;
    let mut width = INSERTION_RUN;
    while width < n {
        width *= 2;
        passes += 1;
    }
    // Form the initial runs in whichever buffer makes the last pass land where asked:
    // copying first costs less than a copy at the end, since the runs are sorted while
    // the elements are still in cache.
    let runs_in_w = into_w != (passes % 2 == 1);
    let (mut src, mut dst) = if runs_in_w {
        w.copy_from_slice(v);
        (w, v)
    } else {
        (v, w)
    };
    for run in src.chunks_mut(INSERTION_RUN) {
        insertion_sort::<T, DESC>(run);
    }
    let mut width = INSERTION_RUN;
    while width < n {
        for (s, d) in src.chunks(2 * width).zip(dst.chunks_mut(2 * width)) {
            let m = width.min(s.len());
            merge::<T, DESC>(&s[..m], &s[m..], d);
        }
        std::mem::swap(&mut src, &mut dst);
        width *= 2;
    }
}
