//! GPU quicksort (variant `quick`), after Cederman and Tsigas, "GPU-Quicksort", with the
//! counter scheme of the UPC report (`upc-quicksort-cuda.txt`) done completely.
//!
//! One *level* partitions every active segment at once, three ways around a pivot
//! sampled from that segment:
//!
//! 1. `quick_pivots`: one block per segment takes [`SAMPLES`] stratified random
//!    samples and keeps their median (the report used the first element, which makes
//!    sorted inputs quadratic).
//! 2. `quick_count`: every segment is cut into tiles of `blockDim * items` elements,
//!    one block per tile; each thread counts its elements below and above the pivot
//!    (the report's per-thread `lt`/`gt` counters) and the block's sums go to
//!    `counts[b]` (less) and `counts[nblocks + b]` (greater).
//! 3. An exclusive scan of `counts` (`crate::scan`) replaces the report's thread 0
//!    summing every earlier block: `E[b] - E[first block of the segment]` is the number
//!    of smaller elements in the segment's earlier tiles, so one scan serves all
//!    segments of the level.
//! 4. `quick_scatter`: every block recounts its tile, ranks its elements inside the
//!    block (warp ballots, then a scan over warps) and writes them out of place to
//!    `[less | equal | greater]` of its segment. Equal elements are real elements moved
//!    like the others, never pivot copies: that is where the report lost them (it
//!    filled the middle with `pivot` from block 0 while other blocks were still
//!    writing, and its `equal` count was derived from a race).
//!
//! The host reads back each segment's three counts, keeps the `less` and `greater`
//! parts longer than [`small_max`] for the next level, and lists the rest for
//! `quick_finish`, which sorts each short part in shared memory with a bitonic network
//! (or just copies it, for equal runs and single elements) into the output buffer.
//! The equal part of a segment is final at once, so inputs with few distinct keys
//! finish in few levels.
//!
//! Levels alternate between the data buffer and a scratch buffer; parts that finish in
//! the scratch buffer are copied back by `quick_finish`. A segment still active after
//! [`default_max_depth`] levels (pivots this bad are astronomically unlikely with
//! sampled medians) is finished by the merge passes of the `naive` variant instead, so
//! the number of levels stays O(log n) whatever the input.
//!
//! Everything here is plain Rust, used by the kernels (`device.rs`) and by the host and
//! checked by the CPU simulation in the tests.
use crate::key::SortKey;
use crate::params::{DevPtr, Direction, EntryLayout, Kernel};
use crate::search::count_less_eq;

crate::params::kernel_params! {
    /// `quick_pivots`: block `s` picks the pivot of segment `s` of `src` (one thread
    /// per sample, `blockDim == SAMPLES`; shared memory: `SAMPLES` elements).
    pub struct Pivots<T> {
        pub src: DevPtr<T>,
        /// The level's segment table ([`SegTable`] layout, `3 * nseg + 1` words).
        pub segs: DevPtr<u64>,
        pub nseg: u64,
        /// Out: one pivot per segment.
        pub pivots: DevPtr<T>,
        pub direction: Direction,
        /// Seeds the sample positions ([`sample_position`]); differs per level.
        pub salt: u64,
    }
    /// Declares an entry taking [`Pivots`].
    entries pivots_entry;
}

crate::params::kernel_params! {
    /// `quick_count`: block `b` counts the elements of its tile that sort before and
    /// after its segment's pivot, into `counts[b]` and `counts[nblocks + b]`.
    pub struct Count<T> {
        pub src: DevPtr<T>,
        pub segs: DevPtr<u64>,
        pub nseg: u64,
        pub pivots: DevPtr<T>,
        /// Out: `2 * nblocks` counts (less, then greater), scanned next.
        pub counts: DevPtr<u64>,
        /// Blocks of the level (the segment table's last word).
        pub nblocks: u64,
        pub direction: Direction,
    }
    /// Declares an entry taking [`Count`].
    entries count_entry;
}

crate::params::kernel_params! {
    /// `quick_scatter`: block `b` moves every element of its tile of `src` to its part
    /// (`[less | equal | greater]`) of its segment in `dst` ([`block_plan`]).
    pub struct Scatter<T> {
        pub src: DevPtr<T>,
        pub dst: DevPtr<T>,
        pub segs: DevPtr<u64>,
        pub nseg: u64,
        pub pivots: DevPtr<T>,
        /// The exclusive scan of [`Count`]'s counts (`2 * nblocks + 1` words).
        pub scanned: DevPtr<u64>,
        pub nblocks: u64,
        /// Out: each segment's `[less, equal, greater]` counts (three words per
        /// segment), written by its first block.
        pub seg_counts: DevPtr<u64>,
        pub direction: Direction,
    }
    /// Declares an entry taking [`Scatter`].
    entries scatter_entry;
}

crate::params::kernel_params! {
    /// `quick_finish`: block `b` finishes entry `b` of the list (two words each,
    /// [`FinishEntry::encode`]): sorts its part in shared memory into `buf`, or copies
    /// it from `scratch` to `buf`.
    pub struct Finish<T> {
        /// The data buffer, where every part ends.
        pub buf: DevPtr<T>,
        /// The scratch buffer, where the entries marked `from_scratch` are.
        pub scratch: DevPtr<T>,
        pub entries: DevPtr<u64>,
        pub direction: Direction,
    }
    /// Declares an entry taking [`Finish`].
    entries finish_entry;
}

/// The `quick` entries of an element type.
pub trait QuickKernels: SortKey {
    const PIVOTS: Kernel<Pivots<Self>>;
    const COUNT: Kernel<Count<Self>>;
    const SCATTER: Kernel<Scatter<Self>>;
    const FINISH: Kernel<Finish<Self>>;
}

macro_rules! quick_entries {
    ($t:ty, $suffix:ident) => {
        paste::paste! {
            pivots_entry!([<quick_pivots_ $suffix>] { T = $t } |p| device::pivots::<$t>(p));
            count_entry!([<quick_count_ $suffix>] { T = $t }
                |p| device::count::<$t, { items_per_thread(size_of::<$t>()) }>(p));
            scatter_entry!([<quick_scatter_ $suffix>] { T = $t }
                |p| device::scatter::<$t, { items_per_thread(size_of::<$t>()) }>(p));
            finish_entry!([<quick_finish_ $suffix>] { T = $t } |p| device::finish::<$t>(p));
            impl QuickKernels for $t {
                const PIVOTS: Kernel<Pivots<$t>> = [<quick_pivots_ $suffix>];
                const COUNT: Kernel<Count<$t>> = [<quick_count_ $suffix>];
                const SCATTER: Kernel<Scatter<$t>> = [<quick_scatter_ $suffix>];
                const FINISH: Kernel<Finish<$t>> = [<quick_finish_ $suffix>];
            }
        }
    };
}
crate::key::for_each_key_type!(quick_entries);

/// Every `quick` entry.
pub const KERNELS: &[EntryLayout] = crate::key::each_element_type!(|T| [
    <T as QuickKernels>::PIVOTS.layout(),
    <T as QuickKernels>::COUNT.layout(),
    <T as QuickKernels>::SCATTER.layout(),
    <T as QuickKernels>::FINISH.layout()
])
.as_flattened();

/// Samples per segment for the pivot (one thread each).
pub const SAMPLES: u32 = 64;

/// Elements per thread in the partition kernels: about 64 bytes per thread keeps a
/// tile in registers without spilling the wider types.
pub const fn items_per_thread(elem_size: usize) -> usize {
    let i = 64 / elem_size;
    if i == 0 {
        1
    } else if i > 16 {
        16
    } else {
        i
    }
}

/// Longest part that `quick_finish` sorts in shared memory: the largest power of two
/// up to 4096 elements that fits in 40 KiB (below the 48 KiB every GPU grants a block
/// without opting in).
pub const fn small_max(elem_size: usize) -> u64 {
    let mut m = 4096u64;
    while m > 1 && m * elem_size as u64 > 40 * 1024 {
        m /= 2;
    }
    m
}

/// Levels after which the remaining segments are merge-sorted instead of partitioned:
/// twice the depth of perfect halving, plus slack for small inputs.
pub fn default_max_depth(n: u64) -> u32 {
    2 * (64 - n.leading_zeros()) + 8
}

/// Tiles (blocks) a segment of `len` elements is cut into.
#[inline(always)]
pub fn blocks_for(len: u64, tile: u64) -> u64 {
    len.div_ceil(tile)
}

/// A 64-bit finaliser (MurmurHash3's fmix64): turns (salt, sample index) into a
/// well-spread offset, so that pivot samples are not at positions an input could be
/// built around.
#[inline(always)]
pub fn mix64(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// Position of sample `i` (of [`SAMPLES`]) of the segment `[start, start + len)`: one
/// random position inside the `i`-th of `SAMPLES` equal strata, so the samples cover
/// the whole segment (sorted and organ-pipe inputs get near-exact medians) yet cannot
/// be predicted without the salt.
#[inline(always)]
pub fn sample_position(start: u64, len: u64, i: u32, salt: u64) -> u64 {
    let s = SAMPLES as u64;
    let lo = i as u64 * len / s;
    let hi = (i as u64 + 1) * len / s;
    let width = hi - lo;
    let jitter = if width > 1 { mix64(salt ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)) % width } else { 0 };
    start + lo + jitter
}

/// Rank of sample `i` (key `key`) among the samples `keys(0..SAMPLES)`, ties broken by
/// index, so the ranks are a permutation of `0..SAMPLES` and exactly one sample has
/// rank `SAMPLES / 2` (the median, the pivot).
#[inline(always)]
pub fn sample_rank<B: Ord + Copy>(i: u32, key: B, keys: impl Fn(u32) -> B) -> u32 {
    let mut r = 0;
    for j in 0..SAMPLES {
        let k = keys(j);
        r += (k < key || (k == key && j < i)) as u32;
    }
    r
}

/// Segment table layout shared by host and kernels, in one `u64` buffer of
/// `3 * nseg + 1` values: `start[nseg]`, `len[nseg]`, `first_block[nseg + 1]` (the
/// last entry is the level's block count).
#[derive(Clone, Copy)]
pub struct SegTable<F: Fn(u64) -> u64> {
    pub nseg: u64,
    pub at: F,
}

impl<F: Fn(u64) -> u64> SegTable<F> {
    #[inline(always)]
    pub fn start(&self, s: u64) -> u64 {
        (self.at)(s)
    }
    #[inline(always)]
    pub fn len(&self, s: u64) -> u64 {
        (self.at)(self.nseg + s)
    }
    #[inline(always)]
    pub fn first_block(&self, s: u64) -> u64 {
        (self.at)(2 * self.nseg + s)
    }
    /// The segment that block `b` works on (first blocks strictly increase: every
    /// segment has at least one element, hence one block).
    #[inline(always)]
    pub fn segment_of_block(&self, b: u64) -> u64 {
        count_less_eq(self.nseg, b, |s| self.first_block(s)) - 1
    }
}

/// Three counts packed in one `u64` (21 bits each), so one block scan ranks the less,
/// equal and greater elements together. Tiles are at most 2^21 - 1 elements.
#[inline(always)]
pub fn pack3(lt: u64, eq: u64, gt: u64) -> u64 {
    lt | eq << 21 | gt << 42
}

#[inline(always)]
pub fn unpack3(p: u64) -> [u64; 3] {
    const M: u64 = (1 << 21) - 1;
    [p & M, (p >> 21) & M, p >> 42]
}

/// Where block `b` of a level reads and writes. `scanned` is the exclusive scan of the
/// level's counts (`2 * nblocks + 1` values: less counts, then greater counts, then the
/// total).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockPlan {
    /// First element of the block's tile, and the tile's length.
    pub tile_start: u64,
    pub tile_len: u64,
    /// Destination of the block's first less / equal / greater element.
    pub less: u64,
    pub equal: u64,
    pub greater: u64,
}

/// [`BlockPlan`] of block `b` (of `nblocks`), which works on segment `s` of `segs`.
#[inline(always)]
pub fn block_plan<F: Fn(u64) -> u64>(
    b: u64,
    nblocks: u64,
    s: u64,
    segs: &SegTable<F>,
    tile: u64,
    scanned: impl Fn(u64) -> u64,
) -> BlockPlan {
    let (start, len, fb) = (segs.start(s), segs.len(s), segs.first_block(s));
    let off = (b - fb) * tile;
    let tile_len = if len - off < tile { len - off } else { tile };
    let [lt_total, eq_total, _] = segment_totals(nblocks, s, segs, &scanned);
    let lt_before = scanned(b) - scanned(fb);
    let gt_before = scanned(nblocks + b) - scanned(nblocks + fb);
    let eq_before = off - lt_before - gt_before;
    BlockPlan {
        tile_start: start + off,
        tile_len,
        less: start + lt_before,
        equal: start + lt_total + eq_before,
        greater: start + lt_total + eq_total + gt_before,
    }
}

/// `[less, equal, greater]` element counts of segment `s`.
#[inline(always)]
pub fn segment_totals<F: Fn(u64) -> u64>(
    nblocks: u64,
    s: u64,
    segs: &SegTable<F>,
    scanned: &impl Fn(u64) -> u64,
) -> [u64; 3] {
    let (fb, fb_next) = (segs.first_block(s), segs.first_block(s + 1));
    let lt = scanned(fb_next) - scanned(fb);
    let gt = scanned(nblocks + fb_next) - scanned(nblocks + fb);
    [lt, segs.len(s) - lt - gt, gt]
}

/// One entry of `quick_finish`'s work list: a part that is final after sorting (or
/// that is already sorted and only needs to reach the data buffer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FinishEntry {
    pub start: u64,
    pub len: u64,
    /// The part's elements are in the scratch buffer (else in the data buffer).
    pub from_scratch: bool,
    /// Already in order (an equal run, one element, a merged segment): copy only.
    pub copy_only: bool,
}

const FROM_SCRATCH: u64 = 1 << 63;
const COPY_ONLY: u64 = 1 << 62;

impl FinishEntry {
    /// Two `u64`s: start, then length with the flags in the top bits.
    #[inline(always)]
    pub fn encode(&self) -> [u64; 2] {
        let flags = if self.from_scratch { FROM_SCRATCH } else { 0 } | if self.copy_only { COPY_ONLY } else { 0 };
        [self.start, self.len | flags]
    }

    #[inline(always)]
    pub fn decode(w: [u64; 2]) -> FinishEntry {
        FinishEntry {
            start: w[0],
            len: w[1] & (COPY_ONLY - 1),
            from_scratch: w[1] & FROM_SCRATCH != 0,
            copy_only: w[1] & COPY_ONLY != 0,
        }
    }
}

/// Lists `[start, start + len)` (already in order) for copying from the scratch buffer
/// to the data buffer, in pieces of at most `chunk` so the copy is spread over blocks.
pub fn copy_back(start: u64, len: u64, chunk: u64, mut finish: impl FnMut(FinishEntry)) {
    let mut s = start;
    while s < start + len {
        let l = if start + len - s < chunk { start + len - s } else { chunk };
        finish(FinishEntry { start: s, len: l, from_scratch: true, copy_only: true });
        s += l;
    }
}

/// What becomes of segment `[start, start + len)` after a level wrote its
/// `[less, equal, greater]` counts `counts` to the buffer `in_scratch` says: parts
/// longer than `small` stay `active` for the next level, shorter ones are listed to
/// `finish`, and the equal part is final (copied back if it is in the scratch buffer).
pub fn plan_children(
    start: u64,
    counts: [u64; 3],
    in_scratch: bool,
    small: u64,
    mut active: impl FnMut(u64, u64),
    mut finish: impl FnMut(FinishEntry),
) {
    let [lt, eq, gt] = counts;
    for (s, l) in [(start, lt), (start + lt + eq, gt)] {
        if l > small {
            active(s, l);
        } else if l > 1 || (l == 1 && in_scratch) {
            finish(FinishEntry { start: s, len: l, from_scratch: in_scratch, copy_only: l == 1 });
        }
    }
    if in_scratch {
        copy_back(start + lt, eq, small, finish);
    }
}

#[cfg(target_arch = "nvptx64")]
mod device;

#[cfg(test)]
mod tests;
