//! The segmented sort's kernels (see the module docs for the bins).
use super::*;
use crate::block::WARP;
use crate::block::unroll;
use crate::block::warp_sort::{NetItem, warp_bitonic};
use crate::gpu;
use crate::key::Word;
use crate::radix;
use crate::radix::device::small;

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

/// Loads `len <= 32 * I` keys at `keys` as order bits (striped, padded with
/// [`NetItem::MAX`]), sorts them and stores them back as raw words.
#[inline(always)]
unsafe fn warp_sort<K: Word + NetItem, const I: usize>(keys: *mut K, len: u32, pos: K, neg: K) {
    let lane = gpu::lane_id();
    let mut ks = [<K as NetItem>::MAX; I];
    unroll::<I>(|k| {
        let o = k as u32 * WARP + lane;
        if o < len {
            ks[k] = unsafe { *keys.add(o as usize) }.ordered(pos, neg);
        }
    });
    warp_bitonic::<K, I>(&mut ks);
    unroll::<I>(|k| {
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
    unroll::<I>(|k| {
        let o = k as u32 * WARP + lane;
        if o < len {
            ts[k] = T::tag(unsafe { *keys.add(o as usize) }.ordered(pos, neg), o);
        }
    });
    warp_bitonic::<T, I>(&mut ts);
    let mut vs = [0u32; I];
    unroll::<I>(|k| {
        if k as u32 * WARP + lane < len {
            vs[k] = unsafe { *vals.add(ts[k].idx() as usize) };
        }
    });
    // Other lanes' stores below overwrite values this lane may still be reading.
    gpu::sync_warp();
    unroll::<I>(|k| {
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
pub unsafe fn block_segments<K: Word, const FULL: usize>(p: BlockSort<K>) {
    let BlockSort { keys, descs, pos, neg } = p;
    let vals = core::ptr::null_mut::<u32>();
    unsafe { block_segment::<K, false, FULL>(keys.get(), vals, descs.get(), pos, neg) }
}

/// [`block_segments`] of keys with values.
#[inline(always)]
pub unsafe fn block_segments_pairs<K: Word, const FULL: usize>(p: BlockSortPairs<K>) {
    let BlockSortPairs { keys, vals, descs, pos, neg } = p;
    unsafe { block_segment::<K, true, FULL>(keys.get(), vals.get(), descs.get(), pos, neg) }
}

/// The segment of block `b` (see [`block_segments`]), values too when `PAIRS`.
#[inline(always)]
unsafe fn block_segment<K: Word, const PAIRS: bool, const FULL: usize>(
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
