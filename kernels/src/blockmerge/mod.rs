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
use crate::key::SortKey;
use crate::params::{DevPtr, Direction, EntryLayout, Kernel};
use crate::search::co_rank_within;

crate::params::kernel_params! {
    /// Phase 1: block `b` sorts tile `b` (`1 << log_tile` elements) of `data` in place,
    /// through two shared-memory buffers of one tile each.
    pub struct BlockSort<T> {
        pub data: DevPtr<T>,
        pub n: u64,
        pub log_tile: u32,
        pub direction: Direction,
    }
    /// Declares an entry taking [`BlockSort`].
    entries block_sort_entry;
}

crate::params::kernel_params! {
    /// Phase 2: one cross-block pass, merging the run pairs of width `1 << log_run` of
    /// `src` into `dst` ([`cross_thread`] per thread).
    pub struct CrossPass<T> {
        pub src: DevPtr<T>,
        pub dst: DevPtr<T>,
        pub n: u64,
        pub log_run: u32,
        pub direction: Direction,
    }
    /// Declares an entry taking [`CrossPass`].
    entries cross_pass_entry;
}

/// The `blockmerge` entries of an element type.
pub trait BlockmergeKernels: SortKey {
    const BLOCK_SORT: Kernel<BlockSort<Self>>;
    const CROSS_PASS: Kernel<CrossPass<Self>>;
}

macro_rules! blockmerge_entries {
    ($t:ty, $suffix:ident) => {
        paste::paste! {
            block_sort_entry!([<blockmerge_block_sort_ $suffix>] { T = $t } |p| device::block_sort::<$t>(p));
            cross_pass_entry!([<blockmerge_cross_pass_ $suffix>] { T = $t } |p| device::cross_pass::<$t>(p));
            impl BlockmergeKernels for $t {
                const BLOCK_SORT: Kernel<BlockSort<$t>> = [<blockmerge_block_sort_ $suffix>];
                const CROSS_PASS: Kernel<CrossPass<$t>> = [<blockmerge_cross_pass_ $suffix>];
            }
        }
    };
}
crate::key::for_each_key_type!(blockmerge_entries);

/// Every `blockmerge` entry.
pub const KERNELS: &[EntryLayout] = crate::key::each_element_type!(|T| [
    <T as BlockmergeKernels>::BLOCK_SORT.layout(),
    <T as BlockmergeKernels>::CROSS_PASS.layout()
])
.as_flattened();

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

#[cfg(target_arch = "nvptx64")]
mod device;

#[cfg(test)]
mod tests;
