//! The segmented sort's kernels (see the module docs for the bins).
use super::*;
use crate::block::WARP;
use crate::gpu;
use crate::radix::device::{SmemWord, small};
use crate::radix::{self, Word};

/// An element of the warp network: compared as a whole, moved between lanes.
pub(super) trait NetItem: Copy + Ord {
    /// Above every real element: the padding past a segment's end.
    const MAX: Self;
    /// This element of lane `src` (every lane of the warp must call it).
    fn shfl(self, src: u32) -> Self;
}

impl NetItem for u32 {
    const MAX: u32 = u32::MAX;
    #[inline(always)]
    fn shfl(self, src: u32) -> u32 {
        gpu::shfl_idx_u32(self, src)
    }
}

impl NetItem for u64 {
    const MAX: u64 = u64::MAX;
    #[inline(always)]
    fn shfl(self, src: u32) -> u64 {
        gpu::shfl_idx_u64(self, src)
    }
}

/// A 64-bit key's order bits and its position: tuples compare field by field.
impl NetItem for (u64, u32) {
    const MAX: (u64, u32) = (u64::MAX, u32::MAX);
    #[inline(always)]
    fn shfl(self, src: u32) -> (u64, u32) {
        (gpu::shfl_idx_u64(self.0, src), gpu::shfl_idx_u32(self.1, src))
    }
}

/// A network element that tags a key's order bits with its position in the segment,
/// for the stable sort of pairs.
pub(super) trait Tag: NetItem {
    type Key: Word;
    fn tag(ord: Self::Key, idx: u32) -> Self;
    fn ord(self) -> Self::Key;
    fn idx(self) -> u32;
}

impl Tag for u64 {
    type Key = u32;
    #[inline(always)]
    fn tag(ord: u32, idx: u32) -> u64 {
        tag_u32(ord, idx)
    }
    #[inline(always)]
    fn ord(self) -> u32 {
        (self >> 32) as u32
    }
    #[inline(always)]
    fn idx(self) -> u32 {
        self as u32
    }
}

impl Tag for (u64, u32) {
    type Key = u64;
    #[inline(always)]
    fn tag(ord: u64, idx: u32) -> (u64, u32) {
        (ord, idx)
    }
    #[inline(always)]
    fn ord(self) -> u64 {
        self.0
    }
    #[inline(always)]
    fn idx(self) -> u32 {
        self.1
    }
}

/// Sorts the warp's `32 * I` order bits, element `k * 32 + lane` in `keys[k]` of
/// `lane`, ascending: the steps of [`network`] (which the CPU model checks), written
/// out so that every `(size, j)` is a constant. A stride known only at run time would
/// make the partner of a register step a computed index and put `keys` in local
/// memory; nested `unroll` closures this large are not inlined by LLVM.
#[inline(always)]
fn warp_bitonic<K: NetItem, const I: usize>(keys: &mut [K; I]) {
    let lane = gpu::lane_id();
    let log_n = (32 * I).trailing_zeros();
    macro_rules! stage {
        ($m:literal: $($t:literal)*) => {
            if $m < log_n {
                $( bitonic_step::<K, I>(keys, 2 << $m, 1 << ($m - $t), lane); )*
            }
        };
    }
    stage!(0: 0);
    stage!(1: 0 1);
    stage!(2: 0 1 2);
    stage!(3: 0 1 2 3);
    stage!(4: 0 1 2 3 4);
    stage!(5: 0 1 2 3 4 5);
    stage!(6: 0 1 2 3 4 5 6);
    stage!(7: 0 1 2 3 4 5 6 7);
    stage!(8: 0 1 2 3 4 5 6 7 8);
    const { assert!(32 * I <= 1 << 9, "stages cover networks of up to 512 elements") };
}

/// One step of the network: pairs at stride `j` inside merges of `size`. Strides of a
/// warp or more pair two items of the same lane; smaller ones pair lanes.
#[inline(always)]
fn bitonic_step<K: NetItem, const I: usize>(keys: &mut [K; I], size: u32, j: u32, lane: u32) {
    if j >= WARP {
        let jj = (j / WARP) as usize;
        gpu::unroll::<I>(|k| {
            if k & jj == 0 {
                let (a, b) = (keys[k], keys[k | jj]);
                let (lo, hi) = (core::cmp::min(a, b), core::cmp::max(a, b));
                let min_first = keeps_min(k as u32 * WARP + lane, size, j);
                (keys[k], keys[k | jj]) = if min_first { (lo, hi) } else { (hi, lo) };
            }
        });
    } else {
        gpu::unroll::<I>(|k| {
            let other = keys[k].shfl(lane ^ j);
            let mine = keys[k];
            keys[k] = if keeps_min(k as u32 * WARP + lane, size, j) {
                core::cmp::min(mine, other)
            } else {
                core::cmp::max(mine, other)
            };
        });
    }
}

/// Loads `len <= 32 * I` keys at `keys` as order bits (striped, padded with
/// [`NetItem::MAX`]), sorts them and stores them back as raw words.
#[inline(always)]
unsafe fn warp_sort<K: Word + NetItem, const I: usize>(keys: *mut K, len: u32, pos: K, neg: K) {
    let lane = gpu::lane_id();
    let mut ks = [<K as NetItem>::MAX; I];
    gpu::unroll::<I>(|k| {
        let o = k as u32 * WARP + lane;
        if o < len {
            ks[k] = unsafe { *keys.add(o as usize) }.ordered(pos, neg);
        }
    });
    warp_bitonic::<K, I>(&mut ks);
    gpu::unroll::<I>(|k| {
        let o = k as u32 * WARP + lane;
        if o < len {
            unsafe { *keys.add(o as usize) = ks[k].raw(pos, neg) };
        }
    });
}

/// Loads `len <= 32 * I` keys at `keys` tagged with their positions, sorts them
/// (stably, as no two tags are equal), then each lane reads the values of its outputs
/// from their input positions and, once the whole warp has read, stores keys and
/// values.
#[inline(always)]
unsafe fn warp_sort_pairs<T: Tag, const I: usize>(
    keys: *mut T::Key,
    vals: *mut u32,
    len: u32,
    pos: T::Key,
    neg: T::Key,
) {
    let lane = gpu::lane_id();
    let mut ts = [T::MAX; I];
    gpu::unroll::<I>(|k| {
        let o = k as u32 * WARP + lane;
        if o < len {
            ts[k] = T::tag(unsafe { *keys.add(o as usize) }.ordered(pos, neg), o);
        }
    });
    warp_bitonic::<T, I>(&mut ts);
    let mut vs = [0u32; I];
    gpu::unroll::<I>(|k| {
        if k as u32 * WARP + lane < len {
            vs[k] = unsafe { *vals.add(ts[k].idx() as usize) };
        }
    });
    // Other lanes' stores below overwrite values this lane may still be reading.
    gpu::sync_warp();
    gpu::unroll::<I>(|k| {
        let o = k as u32 * WARP + lane;
        if o < len {
            unsafe {
                *keys.add(o as usize) = ts[k].ord().raw(pos, neg);
                *vals.add(o as usize) = vs[k];
            }
        }
    });
}

/// Warp `w` of the grid sorts segment `descs[w]` (`count` segments of 2..=WARP_MAX
/// keys), with the shortest network that holds it: `$sort::<..., I>(seg, len)`.
macro_rules! for_warp_segment {
    ($descs:expr, $count:expr, |$seg:ident, $len:ident| $sort:ident::<$t:ty>($($arg:expr),*)) => {{
        let w = gpu::block_idx() * WARPS + gpu::thread_idx() / WARP;
        if w >= $count {
            return;
        }
        unsafe {
            let ($seg, $len) = unpack(*$descs.add(w as usize));
            // Uniform across the warp: each lane reads the same descriptor.
            match warp_items($len) {
                1 => $sort::<$t, 1>($($arg),*),
                2 => $sort::<$t, 2>($($arg),*),
                4 => $sort::<$t, 4>($($arg),*),
                8 => $sort::<$t, 8>($($arg),*),
                _ => $sort::<$t, { WARP_ITEMS_MAX as usize }>($($arg),*),
            }
        }
    }};
}

#[inline(always)]
pub unsafe fn warp_segments<K: Word + NetItem>(p: WarpSort<K>) {
    let WarpSort { keys, descs, count, pos, neg } = p;
    let (keys, descs) = (keys.get(), descs.get());
    for_warp_segment!(descs, count, |start, len| warp_sort::<K>(keys.add(start as usize), len, pos, neg))
}

#[inline(always)]
pub unsafe fn warp_segments_pairs<T: Tag>(p: WarpSortPairs<T::Key>) {
    let WarpSortPairs { keys, vals, descs, count, pos, neg } = p;
    let (keys, vals, descs) = (keys.get(), vals.get(), descs.get());
    for_warp_segment!(descs, count, |start, len| warp_sort_pairs::<T>(
        keys.add(start as usize),
        vals.add(start as usize),
        len,
        pos,
        neg
    ))
}

/// Block `b` sorts segment `descs[b]` (more than WARP_MAX keys, at most the radix
/// one-block limit) with the radix sort's one-block body on tiles of at most `FULL`
/// items per thread.
#[inline(always)]
pub unsafe fn block_segments<K: SmemWord, const FULL: usize>(p: BlockSort<K>) {
    let BlockSort { keys, descs, pos, neg } = p;
    let vals = core::ptr::null_mut::<u32>();
    unsafe { block_segment::<K, false, FULL>(keys.get(), vals, descs.get(), pos, neg) }
}

/// [`block_segments`] of keys with values.
#[inline(always)]
pub unsafe fn block_segments_pairs<K: SmemWord, const FULL: usize>(p: BlockSortPairs<K>) {
    let BlockSortPairs { keys, vals, descs, pos, neg } = p;
    unsafe { block_segment::<K, true, FULL>(keys.get(), vals.get(), descs.get(), pos, neg) }
}

/// The segment of block `b` (see [`block_segments`]), values too when `PAIRS`.
#[inline(always)]
unsafe fn block_segment<K: SmemWord, const PAIRS: bool, const FULL: usize>(
    keys: *mut K,
    vals: *mut u32,
    descs: *const u64,
    pos: K,
    neg: K,
) {
    unsafe {
        let (start, len) = unpack(*descs.add(gpu::block_idx() as usize));
        let (seg, seg_vals) = (keys.add(start as usize), if PAIRS { vals.add(start as usize) } else { vals });
        let end = 8 * K::BYTES;
        // The radix one-block sort's tile for `len` keys (every pass ranks every slot,
        // so the smallest that holds them). Uniform across the block: the barriers
        // inside are reached by every thread.
        match radix::small_items(len as u64, K::BYTES, if PAIRS { 4 } else { 0 }) {
            radix::SHORT_ITEMS => {
                small::<K, u32, PAIRS, { radix::SHORT_ITEMS as usize }>(seg, seg_vals, len, 0, end, pos, neg)
            }
            radix::MID_ITEMS => {
                small::<K, u32, PAIRS, { radix::MID_ITEMS as usize }>(seg, seg_vals, len, 0, end, pos, neg)
            }
            _ => small::<K, u32, PAIRS, FULL>(seg, seg_vals, len, 0, end, pos, neg),
        }
    }
}

/// Thread `p` copies element `p` of the concatenation of the large segments (`table`:
/// their `count` starts in `keys`, then their `count` starts in the concatenation)
/// and records its segment index.
#[inline(always)]
pub unsafe fn gather_large<K: Word>(params: LargeCopy<K>) {
    let LargeCopy { keys, concat, ids, table, count, total } = params;
    let (keys, concat, ids, table) = (keys.get(), concat.get(), ids.get(), table.get());
    let p = gpu::global_idx();
    if p >= total {
        return;
    }
    unsafe {
        let concat_starts = table.add(count as usize);
        let seg = large_segment_of(p, count, |i| *concat_starts.add(i as usize));
        let from = *table.add(seg as usize) + p - *concat_starts.add(seg as usize);
        *concat.add(p as usize) = *keys.add(from as usize);
        *ids.add(p as usize) = seg;
    }
}

/// The inverse of [`gather_large`], once the concatenation is sorted by key within
/// each segment: element `p` goes back to its segment (`ids[p]`, sorted alongside).
#[inline(always)]
pub unsafe fn scatter_large<K: Word>(params: LargeCopy<K>) {
    let LargeCopy { keys, concat, ids, table, count, total } = params;
    let (keys, concat, ids, table) = (keys.get(), concat.get(), ids.get(), table.get());
    let p = gpu::global_idx();
    if p >= total {
        return;
    }
    unsafe {
        let seg = *ids.add(p as usize) as usize;
        let to = *table.add(seg) + p - *table.add(count as usize + seg);
        *keys.add(to as usize) = *concat.add(p as usize);
    }
}
