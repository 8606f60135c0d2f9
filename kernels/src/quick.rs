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
//! Everything below that is not a GPU intrinsic is a plain function, used by the
//! kernels and by the host and checked by the CPU simulation in the tests.
use crate::search::count_less_eq;

/// Samples per segment for the pivot (one thread each).
pub const SAMPLES: u32 = 64;
/// Threads per warp.
pub const WARP: u32 = crate::block::WARP;

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

/// Offset inside its tile of item `k` of lane `lane` of warp `warp`: the block
/// primitives' warp-striped arrangement ([`crate::block::warp_striped`]), as a 64-bit
/// index.
#[inline(always)]
pub fn tile_offset(warp: u32, k: u32, lane: u32, items: u32) -> u64 {
    crate::block::warp_striped(warp, k, lane, items) as u64
}

pub use crate::block::lane_rank;

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
mod device {
    use core::mem::MaybeUninit;

    use super::*;
    use crate::gpu;
    use crate::key::SortKey;
    use crate::scan::block_exclusive_sum_u64;

    #[inline(always)]
    unsafe fn seg_table(segs: *const u64, nseg: u64) -> SegTable<impl Fn(u64) -> u64 + Copy> {
        SegTable { nseg, at: move |i: u64| unsafe { *segs.add(i as usize) } }
    }

    /// Block `s` picks the pivot of segment `s`; `blockDim.x == SAMPLES`, shared
    /// memory `SAMPLES` elements.
    pub unsafe fn pivots<T: SortKey>(
        src: *const T,
        segs: *const u64,
        nseg: u64,
        pivots: *mut T,
        desc: bool,
        salt: u64,
    ) {
        let s = gpu::block_idx() as u64;
        let i = gpu::thread_idx();
        let table = unsafe { seg_table(segs, nseg) };
        let start = table.start(s);
        let smem = gpu::dyn_smem::<T>();
        unsafe {
            let x = *src.add(sample_position(start, table.len(s), i, mix64(salt ^ start)) as usize);
            *smem.add(i as usize) = x;
            gpu::sync_threads();
            if sample_rank(i, x.ord_bits(desc), |j| (*smem.add(j as usize)).ord_bits(desc)) == SAMPLES / 2 {
                *pivots.add(s as usize) = x;
            }
        }
    }

    /// Thread 0 finds the block's segment and shares it (slot 0 of shared memory).
    #[inline(always)]
    unsafe fn block_segment<F: Fn(u64) -> u64>(table: &SegTable<F>, smem: *mut u64) -> u64 {
        unsafe {
            if gpu::thread_idx() == 0 {
                *smem = table.segment_of_block(gpu::block_idx() as u64);
            }
            gpu::sync_threads();
            *smem
        }
    }

    /// Pass 2: per-block counts of elements before and after the pivot. Shared memory:
    /// 34 `u64`s.
    pub unsafe fn count<T: SortKey, const I: usize>(
        src: *const T,
        segs: *const u64,
        nseg: u64,
        pivots: *const T,
        counts: *mut u64,
        nblocks: u64,
        desc: bool,
    ) {
        let b = gpu::block_idx() as u64;
        let table = unsafe { seg_table(segs, nseg) };
        let smem = gpu::dyn_smem::<u64>();
        let s = unsafe { block_segment(&table, smem) };
        let tile = gpu::block_dim() as u64 * I as u64;
        let off = (b - table.first_block(s)) * tile;
        let base = table.start(s) + off;
        let tile_len = core::cmp::min(tile, table.len(s) - off);
        let p = unsafe { (*pivots.add(s as usize)).ord_bits(desc) };
        let (warp, lane) = (gpu::thread_idx() / WARP, gpu::lane_id());
        let (mut lt, mut gt) = (0u64, 0u64);
        for k in 0..I as u32 {
            let o = tile_offset(warp, k, lane, I as u32);
            if o < tile_len {
                let key = unsafe { (*src.add((base + o) as usize)).ord_bits(desc) };
                lt += (key < p) as u64;
                gt += (key > p) as u64;
            }
        }
        // Block sums of both counters in one scan (a block counts < 2^32 of each).
        let (_, total) = unsafe { block_exclusive_sum_u64(lt | gt << 32, smem.add(1)) };
        if gpu::thread_idx() == 0 {
            unsafe {
                *counts.add(b as usize) = total & 0xffff_ffff;
                *counts.add((nblocks + b) as usize) = total >> 32;
            }
        }
    }

    /// Pass 4: moves every element of the block's tile to its part of the segment in
    /// `dst`; the first block of each segment also stores the segment's three counts in
    /// `seg_counts[3s..3s+3]`. Shared memory: 34 `u64`s.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn scatter<T: SortKey, const I: usize>(
        src: *const T,
        dst: *mut T,
        segs: *const u64,
        nseg: u64,
        pivots: *const T,
        scanned: *const u64,
        nblocks: u64,
        seg_counts: *mut u64,
        desc: bool,
    ) {
        let b = gpu::block_idx() as u64;
        let table = unsafe { seg_table(segs, nseg) };
        let smem = gpu::dyn_smem::<u64>();
        let s = unsafe { block_segment(&table, smem) };
        let tile = gpu::block_dim() as u64 * I as u64;
        let e = |i: u64| unsafe { *scanned.add(i as usize) };
        let plan = block_plan(b, nblocks, s, &table, tile, e);
        if b == table.first_block(s) && gpu::thread_idx() == 0 {
            let totals = segment_totals(nblocks, s, &table, &e);
            for (j, t) in totals.iter().enumerate() {
                unsafe { *seg_counts.add(3 * s as usize + j) = *t };
            }
        }
        let p = unsafe { (*pivots.add(s as usize)).ord_bits(desc) };
        let (warp, lane) = (gpu::thread_idx() / WARP, gpu::lane_id());

        // Ballots of one step of 32 consecutive elements: (less, greater, valid).
        // Computed twice (to count, then to place) rather than kept in per-item
        // arrays, which LLVM would put in local memory; the second read of the tile
        // hits the cache.
        let step = |k: u32| {
            let o = tile_offset(warp, k, lane, I as u32);
            let valid = o < plan.tile_len;
            let (mut lt, mut gt, mut x) = (false, false, MaybeUninit::<T>::uninit());
            if valid {
                let v = unsafe { *src.add((plan.tile_start + o) as usize) };
                let key = v.ord_bits(desc);
                lt = key < p;
                gt = key > p;
                x = MaybeUninit::new(v);
            }
            let (lt, gt, valid) = (gpu::ballot(lt), gpu::ballot(gt), gpu::ballot(valid));
            (lt, valid & !(lt | gt), gt, x)
        };
        let mut warp_counts = 0u64;
        for k in 0..I as u32 {
            let (lt, eq, gt, _) = step(k);
            warp_counts += pack3(lt.count_ones() as u64, eq.count_ones() as u64, gt.count_ones() as u64);
        }
        // Lane 0 stands for its warp: its exclusive sum is what earlier warps write.
        let mine = if lane == 0 { warp_counts } else { 0 };
        let (excl, _) = unsafe { block_exclusive_sum_u64(mine, smem.add(1)) };
        let [mut lt_at, mut eq_at, mut gt_at] = unpack3(gpu::shfl_idx_u64(excl, 0));
        lt_at += plan.less;
        eq_at += plan.equal;
        gt_at += plan.greater;
        for k in 0..I as u32 {
            let (lt, eq, gt, x) = step(k);
            let bit = 1u32 << lane;
            let to = if lt & bit != 0 {
                Some(lt_at + lane_rank(lt, lane) as u64)
            } else if gt & bit != 0 {
                Some(gt_at + lane_rank(gt, lane) as u64)
            } else if eq & bit != 0 {
                Some(eq_at + lane_rank(eq, lane) as u64)
            } else {
                None
            };
            if let Some(to) = to {
                unsafe { *dst.add(to as usize) = x.assume_init() };
            }
            lt_at += lt.count_ones() as u64;
            gt_at += gt.count_ones() as u64;
            eq_at += eq.count_ones() as u64;
        }
    }

    /// Block `b` finishes entry `b` of the list: sorts its part in shared memory
    /// (`small_max` elements) with the bitonic network and writes it to `buf`, or copies
    /// an ordered part from `scratch` to `buf`.
    pub unsafe fn finish<T: SortKey>(buf: *mut T, scratch: *const T, entries: *const u64, desc: bool) {
        let b = gpu::block_idx() as usize;
        let e = unsafe { FinishEntry::decode([*entries.add(2 * b), *entries.add(2 * b + 1)]) };
        let (tid, bd) = (gpu::thread_idx() as u64, gpu::block_dim() as u64);
        let src = if e.from_scratch { scratch } else { buf as *const T };
        let (src, out) = unsafe { (src.add(e.start as usize), buf.add(e.start as usize)) };
        if e.copy_only {
            if e.from_scratch {
                let mut i = tid;
                while i < e.len {
                    unsafe { *out.add(i as usize) = *src.add(i as usize) };
                    i += bd;
                }
            }
            return;
        }
        let smem = gpu::dyn_smem::<T>();
        let len = e.len as u32;
        let mut i = tid as u32;
        while i < len {
            unsafe { *smem.add(i as usize) = *src.add(i as usize) };
            i += bd as u32;
        }
        gpu::sync_threads();
        let p = len.next_power_of_two();
        let mut k = 2;
        while k <= p {
            let mut j = k / 2;
            while j >= 1 {
                let mut c = tid as u32;
                while c < p / 2 {
                    let (lo, hi) = crate::block::network::bitonic_comparator(c, k, j);
                    if hi < len {
                        unsafe {
                            let (a, z) = (*smem.add(lo as usize), *smem.add(hi as usize));
                            if z.ord_bits(desc) < a.ord_bits(desc) {
                                *smem.add(lo as usize) = z;
                                *smem.add(hi as usize) = a;
                            }
                        }
                    }
                    c += bd as u32;
                }
                gpu::sync_threads();
                j /= 2;
            }
            k *= 2;
        }
        let mut i = tid as u32;
        while i < len {
            unsafe { *out.add(i as usize) = *smem.add(i as usize) };
            i += bd as u32;
        }
    }
}

#[cfg(target_arch = "nvptx64")]
mod entry {
    use super::device;
    use super::items_per_thread;

    macro_rules! quick_entries {
        ($t:ty, $suffix:ident) => {
            paste::paste! {
                #[unsafe(no_mangle)]
                pub unsafe extern "ptx-kernel" fn [<quick_pivots_ $suffix>](
                    src: *const $t, segs: *const u64, nseg: u64, pivots: *mut $t, descending: u32, salt: u64,
                ) {
                    unsafe { device::pivots::<$t>(src, segs, nseg, pivots, descending != 0, salt) }
                }

                #[unsafe(no_mangle)]
                pub unsafe extern "ptx-kernel" fn [<quick_count_ $suffix>](
                    src: *const $t, segs: *const u64, nseg: u64, pivots: *const $t, counts: *mut u64,
                    nblocks: u64, descending: u32,
                ) {
                    unsafe {
                        device::count::<$t, { items_per_thread(size_of::<$t>()) }>(
                            src, segs, nseg, pivots, counts, nblocks, descending != 0,
                        )
                    }
                }

                #[unsafe(no_mangle)]
                pub unsafe extern "ptx-kernel" fn [<quick_scatter_ $suffix>](
                    src: *const $t, dst: *mut $t, segs: *const u64, nseg: u64, pivots: *const $t,
                    scanned: *const u64, nblocks: u64, seg_counts: *mut u64, descending: u32,
                ) {
                    unsafe {
                        device::scatter::<$t, { items_per_thread(size_of::<$t>()) }>(
                            src, dst, segs, nseg, pivots, scanned, nblocks, seg_counts, descending != 0,
                        )
                    }
                }

                #[unsafe(no_mangle)]
                pub unsafe extern "ptx-kernel" fn [<quick_finish_ $suffix>](
                    buf: *mut $t, scratch: *const $t, entries: *const u64, descending: u32,
                ) {
                    unsafe { device::finish::<$t>(buf, scratch, entries, descending != 0) }
                }
            }
        };
    }
    crate::for_each_key_type!(quick_entries);
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec;
    use std::vec::Vec;

    use super::*;
    use crate::naive;

    /// A simulated element: (key, id); the id shows that elements move, not keys.
    type E = (u32, u32);

    fn bits(x: &E, desc: bool) -> u32 {
        if desc { !x.0 } else { x.0 }
    }

    fn lcg(state: &mut u64) -> u64 {
        *state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        *state >> 33
    }

    fn table(segs: &[(u64, u64)], tile: u64) -> Vec<u64> {
        let nseg = segs.len();
        let mut t = vec![0u64; 3 * nseg + 1];
        let mut fb = 0;
        for (i, &(s, l)) in segs.iter().enumerate() {
            t[i] = s;
            t[nseg + i] = l;
            t[2 * nseg + i] = fb;
            fb += blocks_for(l, tile);
        }
        t[3 * nseg] = fb;
        t
    }

    /// `quick_pivots` on the CPU.
    fn pick_pivots(data: &[E], segs: &[(u64, u64)], salt: u64, desc: bool) -> Vec<u32> {
        segs.iter()
            .map(|&(start, len)| {
                let samples: Vec<E> =
                    (0..SAMPLES).map(|i| data[sample_position(start, len, i, mix64(salt ^ start)) as usize]).collect();
                let winners: Vec<u32> = (0..SAMPLES)
                    .filter(|&i| {
                        sample_rank(i, bits(&samples[i as usize], desc), |j| bits(&samples[j as usize], desc))
                            == SAMPLES / 2
                    })
                    .collect();
                assert_eq!(winners.len(), 1, "exactly one median");
                bits(&samples[winners[0] as usize], desc)
            })
            .collect()
    }

    /// One level (count, scan, scatter) on the CPU, thread by thread and warp by warp
    /// as the kernels do it; `pivots` are order bits. Returns each segment's counts as
    /// the scatter kernel stores them, and checks that no slot is written twice.
    fn simulate_level(
        src: &[E],
        dst: &mut [E],
        segs: &[(u64, u64)],
        pivots: &[u32],
        block: u32,
        items: u32,
        desc: bool,
    ) -> Vec<[u64; 3]> {
        let tile = (block * items) as u64;
        let t = table(segs, tile);
        let segt = SegTable { nseg: segs.len() as u64, at: |i: u64| t[i as usize] };
        let nblocks = t[3 * segs.len()];
        let warps = block / WARP;
        // quick_count
        let mut counts = vec![0u64; 2 * nblocks as usize + 1];
        for b in 0..nblocks {
            let s = segt.segment_of_block(b);
            let off = (b - segt.first_block(s)) * tile;
            let tile_len = tile.min(segt.len(s) - off);
            let p = pivots[s as usize];
            for w in 0..warps {
                for k in 0..items {
                    for lane in 0..WARP {
                        let o = tile_offset(w, k, lane, items);
                        if o < tile_len {
                            let key = bits(&src[(segt.start(s) + off + o) as usize], desc);
                            counts[b as usize] += (key < p) as u64;
                            counts[(nblocks + b) as usize] += (key > p) as u64;
                        }
                    }
                }
            }
        }
        // the scan
        let mut acc = 0;
        for c in counts.iter_mut() {
            let x = *c;
            *c = acc;
            acc += x;
        }
        // quick_scatter
        let mut seg_counts = vec![[u64::MAX; 3]; segs.len()];
        let mut written = vec![false; dst.len()];
        for b in 0..nblocks {
            let s = segt.segment_of_block(b);
            let plan = block_plan(b, nblocks, s, &segt, tile, |i| counts[i as usize]);
            if b == segt.first_block(s) {
                seg_counts[s as usize] = segment_totals(nblocks, s, &segt, &|i| counts[i as usize]);
            }
            let p = pivots[s as usize];
            // masks[w][k] = (lt, gt, valid) ballots
            let mut masks = vec![vec![(0u32, 0u32, 0u32); items as usize]; warps as usize];
            let mut warp_totals = vec![0u64; warps as usize];
            for w in 0..warps {
                for k in 0..items {
                    let m = &mut masks[w as usize][k as usize];
                    for lane in 0..WARP {
                        let o = tile_offset(w, k, lane, items);
                        if o < plan.tile_len {
                            let key = bits(&src[(plan.tile_start + o) as usize], desc);
                            m.0 |= ((key < p) as u32) << lane;
                            m.1 |= ((key > p) as u32) << lane;
                            m.2 |= 1 << lane;
                        }
                    }
                    let eq = m.2 & !(m.0 | m.1);
                    warp_totals[w as usize] +=
                        pack3(m.0.count_ones() as u64, eq.count_ones() as u64, m.1.count_ones() as u64);
                }
            }
            let mut excl = 0;
            for w in 0..warps {
                let [mut lt_at, mut eq_at, mut gt_at] = unpack3(excl);
                excl += warp_totals[w as usize];
                lt_at += plan.less;
                eq_at += plan.equal;
                gt_at += plan.greater;
                for k in 0..items {
                    let (lt, gt, valid) = masks[w as usize][k as usize];
                    let eq = valid & !(lt | gt);
                    for lane in 0..WARP {
                        let bit = 1 << lane;
                        let to = if lt & bit != 0 {
                            lt_at + lane_rank(lt, lane) as u64
                        } else if gt & bit != 0 {
                            gt_at + lane_rank(gt, lane) as u64
                        } else if eq & bit != 0 {
                            eq_at + lane_rank(eq, lane) as u64
                        } else {
                            continue;
                        };
                        let from = plan.tile_start + tile_offset(w, k, lane, items);
                        assert!(!written[to as usize], "slot {to} written twice");
                        written[to as usize] = true;
                        dst[to as usize] = src[from as usize];
                    }
                    lt_at += lt.count_ones() as u64;
                    gt_at += gt.count_ones() as u64;
                    eq_at += eq.count_ones() as u64;
                }
            }
        }
        for &(s, l) in segs {
            assert!(written[s as usize..(s + l) as usize].iter().all(|&w| w), "segment ({s}, {l}) not filled");
        }
        seg_counts
    }

    /// `quick_finish`'s bitonic network on the CPU.
    fn bitonic_sort(v: &mut [E], desc: bool) {
        let len = v.len() as u32;
        let p = len.next_power_of_two();
        let mut k = 2;
        while k <= p {
            let mut j = k / 2;
            while j >= 1 {
                for c in 0..p / 2 {
                    let (lo, hi) = crate::block::network::bitonic_comparator(c, k, j);
                    if hi < len && bits(&v[hi as usize], desc) < bits(&v[lo as usize], desc) {
                        v.swap(lo as usize, hi as usize);
                    }
                }
                j /= 2;
            }
            k *= 2;
        }
    }

    struct Config {
        block: u32,
        items: u32,
        small: u64,
        max_depth: u32,
    }

    /// The whole sort as the host drives it (levels, finish list, merge fallback).
    /// Returns the number of levels run.
    fn simulate_sort(data: &mut [E], desc: bool, cfg: &Config) -> u32 {
        let n = data.len() as u64;
        if n <= 1 {
            return 0;
        }
        let mut scratch = vec![(0u32, 0u32); n as usize];
        let mut finish: Vec<FinishEntry> = Vec::new();
        let mut active = Vec::new();
        if n > cfg.small {
            active.push((0, n));
        } else {
            finish.push(FinishEntry { start: 0, len: n, from_scratch: false, copy_only: false });
        }
        let mut in_scratch = false;
        let mut depth = 0;
        while !active.is_empty() {
            if depth == cfg.max_depth {
                for &(s, l) in &active {
                    let (mut cur, mut other) =
                        if in_scratch { (&mut scratch[..], &mut *data) } else { (&mut *data, &mut scratch[..]) };
                    let mut res_in_scratch = in_scratch;
                    for log_chunk in 0..naive::pass_count(l) {
                        let (a, z) = (&cur[s as usize..(s + l) as usize], &mut other[s as usize..(s + l) as usize]);
                        for i in 0..l {
                            let t = naive::merge_target(i, l, log_chunk, |j| bits(&a[j as usize], desc));
                            z[t as usize] = a[i as usize];
                        }
                        core::mem::swap(&mut cur, &mut other);
                        res_in_scratch = !res_in_scratch;
                    }
                    if res_in_scratch {
                        copy_back(s, l, cfg.small, |e| finish.push(e));
                    }
                }
                break;
            }
            let (src, dst): (&[E], &mut [E]) = if in_scratch { (&scratch, data) } else { (data, &mut scratch) };
            let pivots = pick_pivots(src, &active, mix64(depth as u64), desc);
            let counts = simulate_level(src, dst, &active, &pivots, cfg.block, cfg.items, desc);
            in_scratch = !in_scratch;
            let mut next = Vec::new();
            for (&(s, l), c) in active.iter().zip(&counts) {
                assert_eq!(c.iter().sum::<u64>(), l);
                assert!(c[1] >= 1, "the pivot is an element of its segment");
                plan_children(s, *c, in_scratch, cfg.small, |s, l| next.push((s, l)), |e| finish.push(e));
            }
            active = next;
            depth += 1;
        }
        for e in finish {
            let (s, l) = (e.start as usize, e.len as usize);
            assert!(e.len >= 1 && (e.copy_only || e.len <= cfg.small));
            let mut part: Vec<E> = if e.from_scratch { scratch[s..s + l].to_vec() } else { data[s..s + l].to_vec() };
            if !e.copy_only {
                bitonic_sort(&mut part, desc);
            }
            data[s..s + l].copy_from_slice(&part);
        }
        depth
    }

    fn input(n: usize, dist: u32, seed: u64) -> Vec<E> {
        let mut st = seed;
        let mut v: Vec<E> = (0..n)
            .map(|i| {
                let r = lcg(&mut st) as u32;
                let key = match dist {
                    0 => r,
                    3 => 7,
                    4 => r % 2,
                    6 => r % 16,
                    _ => r,
                };
                (key, i as u32)
            })
            .collect();
        match dist {
            1 => v.sort_by_key(|e| e.0),
            2 => v.sort_by_key(|e| core::cmp::Reverse(e.0)),
            5 => {
                let h = n / 2;
                v[..h].sort_by_key(|e| e.0);
                v[h..].sort_by_key(|e| core::cmp::Reverse(e.0));
            }
            _ => {}
        }
        v
    }

    fn assert_sorted_permutation(input: &[E], out: &[E], desc: bool, what: &str) {
        assert!(out.windows(2).all(|w| bits(&w[0], desc) <= bits(&w[1], desc)), "not ordered: {what}");
        let mut a = input.to_vec();
        let mut b = out.to_vec();
        a.sort();
        b.sort();
        assert!(a == b, "not a permutation: {what}");
    }

    #[test]
    fn sorts_every_distribution_and_size() {
        let configs = [
            Config { block: 64, items: 2, small: 16, max_depth: 100 },
            Config { block: 256, items: 16, small: 4096, max_depth: 100 },
            Config { block: 32, items: 3, small: 8, max_depth: 100 },
        ];
        for cfg in &configs {
            for n in [0usize, 1, 2, 3, 17, 31, 64, 255, 1000, 4097, 20_011] {
                for dist in 0..7 {
                    for desc in [false, true] {
                        let inp = input(n, dist, n as u64 * 31 + dist as u64);
                        let mut out = inp.clone();
                        let levels = simulate_sort(&mut out, desc, cfg);
                        let what =
                            std::format!("n {n} dist {dist} desc {desc} block {} small {}", cfg.block, cfg.small);
                        assert_sorted_permutation(&inp, &out, desc, &what);
                        // Sampled medians halve the work: far below the depth cap.
                        assert!(
                            levels as u64 <= 2 * (64 - (n as u64).leading_zeros() as u64) + 2,
                            "{what}: {levels} levels"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn few_distinct_keys_finish_in_few_levels() {
        let cfg = Config { block: 64, items: 2, small: 16, max_depth: 100 };
        let mut v = input(50_000, 4, 5);
        assert!(simulate_sort(&mut v, false, &cfg) <= 2, "two values: one level per value");
        let mut v = input(50_000, 3, 5);
        assert_eq!(simulate_sort(&mut v, true, &cfg), 1, "all equal: one level");
    }

    #[test]
    fn merge_fallback_finishes_deep_segments() {
        for max_depth in [0, 1, 2, 3] {
            let cfg = Config { block: 64, items: 2, small: 16, max_depth };
            for dist in 0..7 {
                for n in [100usize, 5000] {
                    let inp = input(n, dist, 77 + dist as u64);
                    let mut out = inp.clone();
                    simulate_sort(&mut out, dist % 2 == 1, &cfg);
                    assert_sorted_permutation(
                        &inp,
                        &out,
                        dist % 2 == 1,
                        &std::format!("depth {max_depth} dist {dist}"),
                    );
                }
            }
        }
    }

    #[test]
    fn level_partitions_many_segments_three_ways() {
        let mut st = 3u64;
        for desc in [false, true] {
            let n = 30_000u64;
            let data: Vec<E> = (0..n).map(|i| ((lcg(&mut st) % 50) as u32, i as u32)).collect();
            // Segments of assorted lengths with gaps (inactive ranges) between them.
            let mut segs = Vec::new();
            let mut s = 0;
            while s < n {
                let l = (1 + lcg(&mut st) % 3000).min(n - s);
                if !lcg(&mut st).is_multiple_of(4) {
                    segs.push((s, l));
                }
                s += l;
            }
            // Pivots need not be elements (the public partition takes any pivot).
            let pivots: Vec<u32> = segs.iter().map(|_| bits(&((lcg(&mut st) % 52) as u32, 0), desc)).collect();
            let mut dst = vec![(u32::MAX, u32::MAX); n as usize];
            let counts = simulate_level(&data, &mut dst, &segs, &pivots, 128, 3, desc);
            for ((&(s, l), c), &p) in segs.iter().zip(&counts).zip(&pivots) {
                let (s, l) = (s as usize, l as usize);
                let [lt, eq, _] = c.map(|x| x as usize);
                let part = &dst[s..s + l];
                assert!(part[..lt].iter().all(|x| bits(x, desc) < p));
                assert!(part[lt..lt + eq].iter().all(|x| bits(x, desc) == p));
                assert!(part[lt + eq..].iter().all(|x| bits(x, desc) > p));
                let mut a = data[s..s + l].to_vec();
                let mut b = part.to_vec();
                a.sort();
                b.sort();
                assert_eq!(a, b);
            }
        }
    }

    #[test]
    fn bitonic_network_sorts_any_length() {
        let mut st = 11u64;
        for len in (0..300usize).chain([511, 1000, 2048, 4095, 4096]) {
            for desc in [false, true] {
                let inp: Vec<E> = (0..len).map(|i| ((lcg(&mut st) % 40) as u32, i as u32)).collect();
                let mut v = inp.clone();
                bitonic_sort(&mut v, desc);
                assert_sorted_permutation(&inp, &v, desc, &std::format!("len {len}"));
            }
        }
    }

    #[test]
    fn samples_are_stratified_and_median_is_unique() {
        for len in [1u64, 2, 63, 64, 65, 1000, 1 << 40] {
            for i in 0..SAMPLES {
                let pos = sample_position(100, len, i, 12345);
                assert!((100..100 + len).contains(&pos));
                assert!(pos - 100 >= i as u64 * len / SAMPLES as u64);
                assert!(pos - 100 < ((i as u64 + 1) * len / SAMPLES as u64).max(i as u64 * len / SAMPLES as u64 + 1));
            }
        }
        let keys: Vec<u32> = (0..SAMPLES).map(|i| i % 5).collect();
        let mut ranks: Vec<u32> =
            (0..SAMPLES).map(|i| sample_rank(i, keys[i as usize], |j| keys[j as usize])).collect();
        ranks.sort();
        assert_eq!(ranks, (0..SAMPLES).collect::<Vec<_>>());
    }

    #[test]
    fn small_helpers() {
        assert_eq!(unpack3(pack3(5, (1 << 21) - 1, 7)), [5, (1 << 21) - 1, 7]);
        assert_eq!(lane_rank(0b1011, 3), 2);
        assert_eq!(lane_rank(u32::MAX, 0), 0);
        assert_eq!(lane_rank(u32::MAX, 31), 31);
        for e in [
            FinishEntry { start: 0, len: 1, from_scratch: true, copy_only: false },
            FinishEntry { start: u64::MAX >> 1, len: 4096, from_scratch: false, copy_only: true },
        ] {
            assert_eq!(FinishEntry::decode(e.encode()), e);
        }
        assert_eq!((items_per_thread(4), items_per_thread(8), items_per_thread(20)), (16, 8, 3));
        assert_eq!((small_max(4), small_max(8), small_max(20)), (4096, 4096, 2048));
        // Tiles must fit pack3's 21-bit fields at the largest block size.
        assert!(1024 * items_per_thread(1) < 1 << 21);
        let t = table(&[(0, 5), (10, 1), (20, 9)], 4);
        let segt = SegTable { nseg: 3, at: |i: u64| t[i as usize] };
        let owners: Vec<u64> = (0..t[9]).map(|b| segt.segment_of_block(b)).collect();
        assert_eq!(owners, [0, 0, 1, 2, 2, 2]);
    }
}
