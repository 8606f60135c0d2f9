//! The shared-memory merge sort of the blog (`mergeSort_power2n_shared` followed by
//! `mergeVec_half_global`), in two phases:
//!
//! 1. **In-block**: each block loads a tile into shared memory and merges runs of
//!    width 1, 2, 4, ... up to the tile with sequential merges ([`tile_step`]),
//!    synchronising between steps. As in the blog, parallelism halves at every step.
//! 2. **Across blocks**: passes that merge pairs of sorted runs of width `tile`,
//!    `2 tile`, ... in global memory ([`cross_thread`]).
//!
//! What changed from the blog: any `n` (the blog sorts each power-of-two piece of `n`
//! separately and merges the pieces on the CPU; here the last tile and the last run
//! pair are simply short), the cross-block merges are parallel (the blog gives each
//! pair one thread; here every thread writes [`CROSS_ITEMS`] outputs after finding its
//! start with a merge-path co-rank search, confined to its block's window), the
//! in-block steps ping-pong between two shared buffers instead of copying back, and
//! the sort is stable.
use core::ops::{Range, RangeInclusive};

use crate::bottomup::{merge_runs, slice_bounds, slice_count};
use crate::search::co_rank_within;

/// Elements per thread in a phase-1 tile (tile = block size x this).
pub const TILE_ITEMS: u32 = 4;

/// Outputs written by each thread of a cross-block pass.
pub const CROSS_ITEMS: u64 = 8;

/// `log2` of the tile length for blocks of `block` threads (a power of two).
#[inline(always)]
pub fn log_tile(block: u32) -> u32 {
    (block * TILE_ITEMS).trailing_zeros()
}

/// Phase-1 step of thread `t` (of `block`) on a tile of `len` elements whose runs of
/// width `1 << (log_width - 1)` are sorted: thread `t` merges the run pairs
/// `t, t + block, ...` (pair `m` covers `m * 2^log_width ..`). `load`/`store` address
/// the tile's source and destination buffers as in [`merge_runs`].
#[inline(always)]
pub fn tile_step<B: Ord + Copy, T: Copy>(
    t: u32,
    block: u32,
    len: u64,
    log_width: u32,
    load: impl Fn(u64) -> (B, T) + Copy,
    mut store: impl FnMut(u64, T),
) {
    let merges = slice_count(len, log_width);
    let mut m = t as u64;
    while m < merges {
        let (start, mid, end) = slice_bounds(m, log_width, len);
        merge_runs(start..mid, mid..end, start, end - start, load, &mut store);
        m += block as u64;
    }
}

/// Number of threads of a cross-block pass over `n` elements.
#[inline(always)]
pub fn cross_threads(n: u64) -> u64 {
    n.div_ceil(CROSS_ITEMS)
}

/// Outputs of block `b` (of `block` threads) in a cross-block pass: the block stages
/// them in shared memory and writes them out together, coalesced. They lie in one run
/// pair: a pair (at least two tiles, `8 x block`) is a multiple of a block's outputs.
#[inline(always)]
pub fn cross_block_outputs(b: u64, block: u32, n: u64) -> Range<u64> {
    let per_block = block as u64 * CROSS_ITEMS;
    let first = b * per_block;
    first..if n - first < per_block { n } else { first + per_block }
}

/// `(start, mid, end)` of the run pair (runs of `1 << log_run`) holding output `g`.
#[inline(always)]
pub fn output_pair(g: u64, n: u64, log_run: u32) -> (u64, u64, u64) {
    slice_bounds(g >> (log_run + 1), log_run + 1, n)
}

/// Co-rank of output `g` (`start <= g <= end`) in the run pair `(start, mid, end)`: how
/// many of the pair's first `g - start` outputs come from its left run. The answer is
/// searched for within `bracket`, which must hold it.
#[inline(always)]
pub fn pair_co_rank<B: Ord + Copy>(
    g: u64,
    (start, mid, end): (u64, u64, u64),
    bracket: RangeInclusive<u64>,
    key: impl Fn(u64) -> B,
) -> u64 {
    co_rank_within(g - start, mid - start, end - mid, bracket, |x| key(start + x), |x| key(mid + x))
}

/// Bounds on the co-ranks of a block's outputs `out`: `end == false` gives the co-rank
/// of its first output, `end == true` that of one past its last (both within their
/// pair). Every thread's co-rank lies between them, so its search can be confined to
/// that window (a few KiB that the block shares in L1) instead of the whole pair.
#[inline(always)]
pub fn block_co_rank<B: Ord + Copy>(out: &Range<u64>, end: bool, n: u64, log_run: u32, key: impl Fn(u64) -> B) -> u64 {
    let pair = output_pair(out.start, n, log_run);
    pair_co_rank(if end { out.end } else { out.start }, pair, 0..=u64::MAX, key)
}

/// Cross-block pass work of thread `t`: the runs of width `1 << log_run` are sorted;
/// thread `t` writes merged outputs `t * CROSS_ITEMS ..` of its run pair. The pair's
/// width is a multiple of `CROSS_ITEMS` (runs are at least one tile), so a thread's
/// outputs never straddle two pairs. `bracket` holds the thread's co-rank (see
/// [`block_co_rank`]); `key(x)` reads only element `x`'s order bits (for the search),
/// `load`/`store` work as in [`merge_runs`].
#[inline(always)]
pub fn cross_thread<B: Ord + Copy, T: Copy>(
    t: u64,
    n: u64,
    log_run: u32,
    bracket: RangeInclusive<u64>,
    key: impl Fn(u64) -> B,
    load: impl Fn(u64) -> (B, T) + Copy,
    store: impl FnMut(u64, T),
) {
    let first = t * CROSS_ITEMS;
    if first >= n {
        return;
    }
    let pair = output_pair(first, n, log_run);
    let (start, mid, end) = pair;
    let k = first - start;
    let i = pair_co_rank(first, pair, bracket, key);
    let count = if end - first < CROSS_ITEMS { end - first } else { CROSS_ITEMS };
    merge_runs(start + i..mid, mid + (k - i)..end, first, count, load, store);
}

/// `log2` of the run widths merged by the cross-block passes: from the tile while a
/// run is shorter than the array.
#[inline(always)]
pub fn cross_passes(n: u64, log_tile: u32) -> core::ops::Range<u32> {
    let last = crate::naive::pass_count(n).max(log_tile);
    log_tile..last
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    type Item = (u32, usize);

    /// Phase 1 for every block, step by step, as the GPU runs it.
    fn simulate_tiles(v: &mut [Item], block: u32) {
        let tile = 1usize << log_tile(block);
        for chunk in v.chunks_mut(tile) {
            let len = chunk.len() as u64;
            let mut buf = [chunk.to_vec(), chunk.to_vec()];
            for log_width in 1..=log_tile(block) {
                let src = buf[(log_width as usize + 1) % 2].clone();
                let dst = &mut buf[log_width as usize % 2];
                let mut written = std::vec![false; chunk.len()];
                for t in 0..block {
                    tile_step(
                        t,
                        block,
                        len,
                        log_width,
                        |x| (src[x as usize].0, src[x as usize]),
                        |o, e| {
                            assert!(!written[o as usize], "smem {o} written twice");
                            written[o as usize] = true;
                            dst[o as usize] = e;
                        },
                    );
                }
                assert!(written.iter().all(|&w| w), "a tile element was not written");
            }
            chunk.copy_from_slice(&buf[log_tile(block) as usize % 2]);
        }
    }

    /// Phase 2 passes, block by block: each block's threads fill its staging buffer,
    /// which is then copied out.
    fn simulate_cross(mut v: Vec<Item>, block: u32) -> Vec<Item> {
        let n = v.len() as u64;
        for log_run in cross_passes(n, log_tile(block)) {
            let mut out = Vec::with_capacity(v.len());
            for b in 0..cross_threads(n).div_ceil(block as u64) {
                let range = cross_block_outputs(b, block, n);
                let key = |x: u64| v[x as usize].0;
                assert_eq!(output_pair(range.start, n, log_run), output_pair(range.end - 1, n, log_run));
                let bracket =
                    block_co_rank(&range, false, n, log_run, key)..=block_co_rank(&range, true, n, log_run, key);
                let mut staged = std::vec![None; (range.end - range.start) as usize];
                for t in b * block as u64..(b + 1) * block as u64 {
                    cross_thread(
                        t,
                        n,
                        log_run,
                        bracket.clone(),
                        key,
                        |x| (v[x as usize].0, v[x as usize]),
                        |o, e| {
                            assert!(range.contains(&o), "thread {t} writes {o} outside its block's {range:?}");
                            let slot = &mut staged[(o - range.start) as usize];
                            assert!(slot.is_none(), "output {o} written twice");
                            *slot = Some(e);
                        },
                    );
                }
                out.extend(staged.into_iter().map(|e| e.expect("output never written")));
            }
            assert_eq!(out.len(), v.len());
            v = out;
        }
        v
    }

    fn input(n: usize, seed: u64, range: u64) -> Vec<Item> {
        let mut state = seed;
        (0..n)
            .map(|i| {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                (((state >> 33) % range) as u32, i)
            })
            .collect()
    }

    #[test]
    fn any_length_sorts_stably() {
        for block in [32u32, 64] {
            let tile = 1usize << log_tile(block);
            let sizes = (0..300usize).chain([tile - 1, tile, tile + 1, 3 * tile + 5, 8 * tile, 8 * tile + 1, 5000]);
            for n in sizes {
                for range in [3, 1 << 30] {
                    let mut v = input(n, n as u64 ^ range, range);
                    let mut expect = v.clone();
                    expect.sort_by_key(|e| e.0);
                    simulate_tiles(&mut v, block);
                    for c in v.chunks(tile) {
                        assert!(c.windows(2).all(|w| w[0].0 < w[1].0 || (w[0].0 == w[1].0 && w[0].1 < w[1].1)));
                    }
                    assert_eq!(simulate_cross(v, block), expect, "n = {n}, block {block}");
                }
            }
        }
    }

    #[test]
    fn pass_ranges() {
        assert_eq!(log_tile(256), 10);
        assert_eq!(cross_passes(0, 10), 10..10);
        assert_eq!(cross_passes(1024, 10), 10..10);
        assert_eq!(cross_passes(1025, 10), 10..11);
        assert_eq!(cross_passes(1 << 24, 10), 10..24);
        assert_eq!(cross_threads(17), 3);
    }
}

#[cfg(target_arch = "nvptx64")]
mod entry {
    use crate::gpu;
    use crate::key::SortKey;

    /// Phase 1: sorts tile `block_idx` of `data` in place, through two shared-memory
    /// buffers of `1 << log_tile` elements each.
    #[inline(always)]
    unsafe fn block_sort<T: SortKey>(data: *mut T, n: u64, log_tile: u32, desc: u32) {
        let desc = desc != 0;
        let (t, block) = (gpu::thread_idx(), gpu::block_dim());
        let tile = 1u64 << log_tile;
        let start = gpu::block_idx() as u64 * tile;
        let len = if n - start < tile { n - start } else { tile };
        let smem = gpu::dyn_smem::<T>();
        unsafe {
            // Step `w` reads `a` when `w` is odd; selects, not an indexed array, so the
            // pointers stay in registers.
            let (a, b) = (smem, smem.add(tile as usize));
            let mut x = t as u64;
            while x < len {
                *a.add(x as usize) = *data.add((start + x) as usize);
                x += block as u64;
            }
            gpu::sync_threads();
            for log_width in 1..=log_tile {
                let (src, dst) = if log_width % 2 == 1 { (a, b) } else { (b, a) };
                if gpu::carry_by_value::<T>() {
                    let load = |x: u64| {
                        let v = *src.add(x as usize);
                        (v.ord_bits(desc), v)
                    };
                    super::tile_step(t, block, len, log_width, load, |o, v| *dst.add(o as usize) = v);
                } else {
                    let load = |x: u64| ((*src.add(x as usize)).ord_bits(desc), x);
                    let store = |o: u64, x: u64| *dst.add(o as usize) = *src.add(x as usize);
                    super::tile_step(t, block, len, log_width, load, store);
                }
                gpu::sync_threads();
            }
            let done = if log_tile % 2 == 1 { b } else { a };
            let mut x = t as u64;
            while x < len {
                *data.add((start + x) as usize) = *done.add(x as usize);
                x += block as u64;
            }
        }
    }

    /// Phase 2: one cross-block pass merging run pairs of width `1 << log_run`.
    /// Shared memory: the block's two co-rank bounds (`2 x u64`), then its outputs
    /// (`block * CROSS_ITEMS` elements). Each thread's outputs are consecutive, so
    /// written straight to global memory a warp's stores would be strided; they are
    /// staged and the block copies them out coalesced.
    #[inline(always)]
    unsafe fn cross_pass<T: SortKey>(src: *const T, dst: *mut T, n: u64, log_run: u32, desc: u32) {
        let desc = desc != 0;
        let (t, block) = (gpu::thread_idx() as u64, gpu::block_dim());
        let out = super::cross_block_outputs(gpu::block_idx() as u64, block, n);
        let bounds = gpu::dyn_smem::<u64>();
        unsafe {
            let staged = bounds.add(2) as *mut T;
            let key = |x: u64| (*src.add(x as usize)).ord_bits(desc);
            if t < 2 {
                *bounds.add(t as usize) = super::block_co_rank(&out, t == 1, n, log_run, key);
            }
            gpu::sync_threads();
            let bracket = *bounds..=*bounds.add(1);
            let g = gpu::global_idx();
            let stage = |o: u64| staged.add((o - out.start) as usize);
            if gpu::carry_by_value::<T>() {
                let load = |x: u64| {
                    let v = *src.add(x as usize);
                    (v.ord_bits(desc), v)
                };
                super::cross_thread(g, n, log_run, bracket, key, load, |o, v| *stage(o) = v);
            } else {
                let load = |x: u64| (key(x), x);
                super::cross_thread(g, n, log_run, bracket, key, load, |o, x| *stage(o) = *src.add(x as usize));
            }
            gpu::sync_threads();
            let mut x = out.start + t;
            while x < out.end {
                *dst.add(x as usize) = *stage(x);
                x += block as u64;
            }
        }
    }

    macro_rules! blockmerge_entry {
        ($t:ty, $suffix:ident) => {
            paste::paste! {
                #[unsafe(no_mangle)]
                pub unsafe extern "ptx-kernel" fn [<blockmerge_block_sort_ $suffix>](
                    data: *mut $t, n: u64, log_tile: u32, descending: u32,
                ) {
                    unsafe { block_sort::<$t>(data, n, log_tile, descending) }
                }

                #[unsafe(no_mangle)]
                pub unsafe extern "ptx-kernel" fn [<blockmerge_cross_pass_ $suffix>](
                    src: *const $t, dst: *mut $t, n: u64, log_run: u32, descending: u32,
                ) {
                    unsafe { cross_pass::<$t>(src, dst, n, log_run, descending) }
                }
            }
        };
    }
    crate::for_each_key_type!(blockmerge_entry);
}
