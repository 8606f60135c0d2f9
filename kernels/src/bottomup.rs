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

use crate::naive::pass_count;

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

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    /// Runs every pass as the GPU does: each simulated thread merges its slices from
    /// the source buffer into the other one; checks every output is written once.
    fn simulate(mut v: Vec<(u32, usize)>, max_threads: u64) -> Vec<(u32, usize)> {
        let n = v.len() as u64;
        for p in 1..=passes(n) {
            let (threads, per_thread) = pass_shape(n, p, max_threads);
            assert!(threads <= max_threads.max(1));
            let mut out = std::vec![None; v.len()];
            for t in 0..threads {
                thread_pass(
                    t,
                    n,
                    p,
                    per_thread,
                    |x| (v[x as usize].0, v[x as usize]),
                    |o, e| {
                        assert!(out[o as usize].is_none(), "output {o} written twice");
                        out[o as usize] = Some(e);
                    },
                );
            }
            v = out.into_iter().map(|e| e.expect("output never written")).collect();
        }
        v
    }

    fn input(n: usize, seed: u64) -> Vec<(u32, usize)> {
        let mut state = seed;
        (0..n)
            .map(|i| {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                (((state >> 40) % 13) as u32, i)
            })
            .collect()
    }

    #[test]
    fn any_length_sorts_stably() {
        for n in (0..200usize).chain([255, 256, 257, 1000, 1023, 1025, 4099]) {
            for max_threads in [1, 3, 64, 1 << 20] {
                let v = input(n, n as u64);
                let mut expect = v.clone();
                expect.sort_by_key(|e| e.0);
                assert_eq!(simulate(v, max_threads), expect, "n = {n}, {max_threads} threads");
            }
        }
    }

    #[test]
    fn merge_runs_stops_after_count() {
        let src = [1u32, 4, 6, 2, 4, 5];
        for count in 0..=6u64 {
            let mut out = std::vec![0u32; 6];
            merge_runs(0..3, 3..6, 0, count, |x| (src[x as usize], src[x as usize]), |o, e| out[o as usize] = e);
            let expect = [1, 2, 4, 4, 5, 6];
            assert_eq!(&out[..count as usize], &expect[..count as usize]);
            assert!(out[count as usize..].iter().all(|&x| x == 0));
        }
    }

    #[test]
    fn slices_cover_the_array() {
        assert_eq!(slice_bounds(0, 1, 1), (0, 1, 1));
        assert_eq!(slice_bounds(2, 2, 10), (8, 10, 10));
        assert_eq!(slice_bounds(1, 3, 13), (8, 12, 13));
        assert_eq!(thread_slices(5, 3, 16), 15..16);
        assert_eq!(thread_slices(6, 3, 16), 16..16);
        assert_eq!(pass_shape(1 << 24, 24, 1 << 18), (1, 1));
        assert_eq!(pass_shape(1 << 24, 1, 1 << 18), (1 << 18, 32));
        assert_eq!(pass_shape((1 << 24) + 1, 25, 1 << 18), (1, 1));
    }
}

#[cfg(target_arch = "nvptx64")]
mod entry {
    use crate::gpu;
    use crate::key::SortKey;

    /// One pass: thread `t` merges slices `t * per_thread ..` of width
    /// `1 << log_width` from `src` into `dst`.
    #[inline(always)]
    unsafe fn pass<T: SortKey>(src: *const T, dst: *mut T, n: u64, log_width: u32, per_thread: u64, desc: u32) {
        let desc = desc != 0;
        let t = gpu::global_idx();
        unsafe {
            if gpu::carry_by_value::<T>() {
                let load = |x: u64| {
                    let v = *src.add(x as usize);
                    (v.ord_bits(desc), v)
                };
                super::thread_pass(t, n, log_width, per_thread, load, |o, v| *dst.add(o as usize) = v);
            } else {
                let load = |x: u64| ((*src.add(x as usize)).ord_bits(desc), x);
                let store = |o: u64, x: u64| *dst.add(o as usize) = *src.add(x as usize);
                super::thread_pass(t, n, log_width, per_thread, load, store);
            }
        }
    }

    macro_rules! bottomup_entry {
        ($t:ty, $suffix:ident) => {
            paste::paste! {
                #[unsafe(no_mangle)]
                pub unsafe extern "ptx-kernel" fn [<bottomup_pass_ $suffix>](
                    src: *const $t, dst: *mut $t, n: u64, log_width: u32, per_thread: u64, descending: u32,
                ) {
                    unsafe { pass::<$t>(src, dst, n, log_width, per_thread, descending) }
                }
            }
        };
    }
    crate::for_each_key_type!(bottomup_entry);
}
