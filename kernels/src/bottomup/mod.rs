//! The Pisa report's iterative GPU merge sort (`gpu_mergesort` / `gpu_bottomUpMerge`):
//! pass `p` cuts the array into slices of width `w = 2^p`, and each thread merges the
//! two sorted halves of whole slices, one after another, with a plain sequential merge.
//!
//! Kept faithful on purpose (it is a study baseline): a thread owns whole slices, so
//! late passes have few busy threads and the last one merges all `n` elements on a
//! single thread. Differences from the report: any `n` (the last slice may be short or
//! have no right half), equal keys keep their order (stable), and the grid is sized to
//! the device instead of a fixed 16 x 256 threads.
use core::ops::Range;

use crate::key::SortKey;
use crate::naive::pass_count;
use crate::params::{DevPtr, Direction, EntryLayout, Kernel};

crate::params::kernel_params! {
    /// One pass: thread `t` merges slices `t * per_thread ..` of width
    /// `1 << log_width` (each two sorted halves) from `src` into the same positions of
    /// `dst`.
    pub struct SlicePass<T> {
        pub src: DevPtr<T>,
        pub dst: DevPtr<T>,
        pub n: u64,
        pub log_width: u32,
        /// Slices each thread merges, one after another ([`pass_shape`]).
        pub per_thread: u64,
        pub direction: Direction,
    }
    /// Declares an entry taking [`SlicePass`].
    entries slice_pass_entry;
}

/// The `bottomup` entries of an element type.
pub trait BottomupKernels: SortKey {
    const PASS: Kernel<SlicePass<Self>>;
}

macro_rules! bottomup_entries {
    ($t:ty, $suffix:ident) => {
        paste::paste! {
            slice_pass_entry!([<bottomup_pass_ $suffix>] { T = $t } |p| device::pass::<$t>(p));
            impl BottomupKernels for $t {
                const PASS: Kernel<SlicePass<$t>> = [<bottomup_pass_ $suffix>];
            }
        }
    };
}
crate::key::for_each_key_type!(bottomup_entries);

/// Every `bottomup` entry.
pub const KERNELS: &[EntryLayout] = &crate::key::each_element_type!(|T| <T as BottomupKernels>::PASS.layout());

/// Number of passes for `n` elements (slice widths 2, 4, ... up to the first that
/// covers the array): the same count as every bottom-up merge sort.
#[inline(always)]
pub fn passes(n: u64) -> u32 {
    pass_count(n)
}

/// Number of slices of width `1 << log_width` covering `n` elements.
#[inline(always)]
pub fn slice_count(n: u64, log_width: u32) -> u64 {
    n.div_ceil(1u64 << log_width)
}

/// `(start, middle, end)` of slice `s`: the sorted halves are `start..middle` and
/// `middle..end`, clipped to `n` (so the right half may be short or empty).
#[inline(always)]
pub fn slice_bounds(s: u64, log_width: u32, n: u64) -> (u64, u64, u64) {
    let start = s << log_width;
    let half = 1u64 << (log_width - 1);
    let clip = |x: u64| if x < n { x } else { n };
    (start, clip(start + half), clip(start + 2 * half))
}

/// Slices merged by thread `t` when each thread takes `per_thread` consecutive slices
/// (the report's `slices` argument) of the `total` in the pass.
#[inline(always)]
pub fn thread_slices(t: u64, per_thread: u64, total: u64) -> Range<u64> {
    let first = t * per_thread;
    let first = if first < total { first } else { total };
    let last = if total - first < per_thread { total } else { first + per_thread };
    first..last
}

/// Sequential stable merge (the report's `gpu_bottomUpMerge`, also the blog's
/// `mergeVec`): writes `count` outputs to positions `out..out + count` taking from the
/// sorted runs `a` and `b`, `a` first on equal keys. `load(x)` reads source element `x`
/// with its order bits; `store(o, v)` writes `v` to output position `o`.
/// Requires `count <= a.len() + b.len()`.
///
/// The two heads are kept in registers, so each element is read once (the report
/// re-reads both heads every step, then the one it copies). `T` may be the element
/// itself or just its index (then `store` copies it), see `gpu::carry_by_value`.
#[inline(always)]
pub fn merge_runs<B: Ord + Copy, T: Copy>(
    a: Range<u64>,
    b: Range<u64>,
    out: u64,
    count: u64,
    load: impl Fn(u64) -> (B, T),
    mut store: impl FnMut(u64, T),
) {
    let (mut i, a_end, mut j, b_end) = (a.start, a.end, b.start, b.end);
    let end = out + count;
    let mut o = out;
    if i < a_end && j < b_end && o < end {
        let ((mut ka, mut va), (mut kb, mut vb)) = (load(i), load(j));
        loop {
            if ka <= kb {
                store(o, va);
                i += 1;
                o += 1;
                if i == a_end || o == end {
                    break;
                }
                (ka, va) = load(i);
            } else {
                store(o, vb);
                j += 1;
                o += 1;
                if j == b_end || o == end {
                    break;
                }
                (kb, vb) = load(j);
            }
        }
    }
    // At most one run is left; copy its head.
    while o < end && i < a_end {
        store(o, load(i).1);
        i += 1;
        o += 1;
    }
    while o < end && j < b_end {
        store(o, load(j).1);
        j += 1;
        o += 1;
    }
}

/// Work of thread `t` in one pass: merges each of its slices from the source to the
/// same positions of the destination (through `load` and `store` as in [`merge_runs`]).
#[inline(always)]
pub fn thread_pass<B: Ord + Copy, T: Copy>(
    t: u64,
    n: u64,
    log_width: u32,
    per_thread: u64,
    load: impl Fn(u64) -> (B, T) + Copy,
    mut store: impl FnMut(u64, T),
) {
    for s in thread_slices(t, per_thread, slice_count(n, log_width)) {
        let (start, mid, end) = slice_bounds(s, log_width, n);
        merge_runs(start..mid, mid..end, start, end - start, load, &mut store);
    }
}

/// Launch shape of a pass: `(threads, slices per thread)` with at most `max_threads`
/// threads, each taking an equal share of the pass's slices.
#[inline(always)]
pub fn pass_shape(n: u64, log_width: u32, max_threads: u64) -> (u64, u64) {
    let slices = slice_count(n, log_width);
    let max_threads = if max_threads == 0 { 1 } else { max_threads };
    let per_thread = slices.div_ceil(max_threads).max(1);
    (slices.div_ceil(per_thread), per_thread)
}

#[cfg(target_arch = "nvptx64")]
mod device;

#[cfg(test)]
mod tests;
