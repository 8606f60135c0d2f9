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
    fn idx(self) -> u32;
}

impl Tag for u64 {
    type Key = u32;
    #[inline(always)]
    fn tag(ord: u32, idx: u32) -> u64 {
        tag_u32(ord, idx)
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
    fn idx(self) -> u32 {
        self.1
    }
}

/// The shared-window address of element `e` in a warp's transposition buffer at
/// `base` (words of `bytes`): skewed by a word every 32 elements, so that both the
/// blocked writes (lane `l` writes `l * I + k`) and the striped reads (`k * 32 + l`)
/// of 4-byte words hit 32 distinct banks.
#[inline(always)]
fn skewed(base: u32, e: u32, bytes: u32) -> u32 {
    base + (e + e / WARP) * bytes
}

/// This warp's transposition buffer ([`WARP_SMEM_WORDS`] words of `bytes`).
#[inline(always)]
fn warp_smem(bytes: u32) -> u32 {
    gpu::smem_base() + gpu::thread_idx() / WARP * WARP_SMEM_WORDS * bytes
}

/// Loads `len <= 32 * I` keys at `keys` as order bits (striped: coalesced, padded with
/// [`NetItem::MAX`]), sorts them (in the blocked layout when `I >= BLOCKED_FROM`, see
/// [`warp_bitonic`]) and stores them back as raw words, striped (when blocked, through
/// the warp's shared memory).
#[inline(always)]
unsafe fn warp_sort<K: SharedWord, const BLOCKED_FROM: usize, const I: usize>(keys: *mut K, len: u32, pos: K, neg: K) {
    let lane = gpu::lane_id();
    let mut ks = [<K as NetItem>::MAX; I];
    unroll::<I>(|k| {
        let o = k as u32 * WARP + lane;
        if o < len {
            ks[k] = unsafe { *keys.add(o as usize) }.ordered(pos, neg);
        }
    });
    if I < BLOCKED_FROM {
        // Striped already: lane `lane` holds the elements it stores.
        warp_bitonic::<K, I, false>(&mut ks);
        unroll::<I>(|k| {
            let o = k as u32 * WARP + lane;
            if o < len {
                unsafe { *keys.add(o as usize) = ks[k].raw(pos, neg) };
            }
        });
        return;
    }
    // The blocked network sorts whatever its registers hold: the striped load is as
    // good an input as any.
    warp_bitonic::<K, I, true>(&mut ks);
    let buf = warp_smem(K::BYTES);
    // The previous segment's reads of the buffer are done.
    gpu::sync_warp();
    unroll::<I>(|k| unsafe { K::sts(skewed(buf, lane * I as u32 + k as u32, K::BYTES), ks[k]) });
    gpu::sync_warp();
    unroll::<I>(|k| {
        let o = k as u32 * WARP + lane;
        if o < len {
            unsafe { *keys.add(o as usize) = K::lds(skewed(buf, o, K::BYTES)).raw(pos, neg) };
        }
    });
}

/// Loads `len <= 32 * I` keys at `keys` tagged with their input positions, sorts them
/// (stably, as no two tags are equal), puts the positions back in striped order
/// through the warp's shared memory, then each lane reads its outputs' keys and values
/// from their input positions and, once the whole warp has read, stores them.
#[inline(always)]
unsafe fn warp_sort_pairs<T: Tag, const I: usize>(
    keys: *mut T::Key,
    vals: *mut u32,
    len: u32,
    pos: T::Key,
    neg: T::Key,
) {
    let lane = gpu::lane_id();
    let buf = warp_smem(4);
    let mut ts = [T::MAX; I];
    unroll::<I>(|k| {
        let o = k as u32 * WARP + lane;
        if o < len {
            ts[k] = T::tag(unsafe { *keys.add(o as usize) }.ordered(pos, neg), o);
        }
    });
    warp_bitonic::<T, I, true>(&mut ts);
    gpu::sync_warp();
    unroll::<I>(|k| unsafe { gpu::sts_u32(skewed(buf, lane * I as u32 + k as u32, 4), ts[k].idx()) });
    gpu::sync_warp();
    let mut ks = [<T::Key as Word>::ZERO; I];
    let mut vs = [0u32; I];
    unroll::<I>(|k| {
        let o = k as u32 * WARP + lane;
        if o < len {
            let from = unsafe { gpu::lds_u32(skewed(buf, o, 4)) } as usize;
            (ks[k], vs[k]) = unsafe { (*keys.add(from), *vals.add(from)) };
        }
    });
    // Other lanes' stores below overwrite keys and values this lane may still be reading.
    gpu::sync_warp();
    unroll::<I>(|k| {
        let o = k as u32 * WARP + lane;
        if o < len {
            unsafe {
                *keys.add(o as usize) = ks[k];
                *vals.add(o as usize) = vs[k];
            }
        }
    });
}

/// Key words in shared memory, through shared-window addresses (one instruction per
/// access, where a generic pointer needs an address-space check).
pub(super) trait SharedWord: Word + NetItem {
    unsafe fn lds(addr: u32) -> Self;
    unsafe fn sts(addr: u32, v: Self);
}

impl SharedWord for u32 {
    #[inline(always)]
    unsafe fn lds(addr: u32) -> u32 {
        unsafe { gpu::lds_u32(addr) }
    }
    #[inline(always)]
    unsafe fn sts(addr: u32, v: u32) {
        unsafe { gpu::sts_u32(addr, v) }
    }
}

impl SharedWord for u64 {
    #[inline(always)]
    unsafe fn lds(addr: u32) -> u64 {
        unsafe { gpu::lds_u64(addr) }
    }
    #[inline(always)]
    unsafe fn sts(addr: u32, v: u64) {
        unsafe { gpu::sts_u64(addr, v) }
    }
}

/// Whether the bin kernel found bad offsets: then no kernel touches the keys.
#[inline(always)]
unsafe fn offsets_bad(counts: *const u32) -> bool {
    unsafe { *counts.add(COUNT_BAD) != 0 }
}

/// Warp `w` of the grid sorts warp-bin segments `w`, `w + warps`, ... of the list
/// `descs` (up to WARP_MAX keys each), taking the class regions one after another
/// ([`warp_regions`]: `counts[COUNT_WARP + c]` segments from `counts[WARP_STARTS +
/// c]`), each with the shortest network that holds it: `$sort::<..., I>(seg, len)`.
macro_rules! for_warp_segments {
    ($descs:expr, $counts:expr, |$seg:ident, $len:ident| $sort:ident::<$($t:tt),*>($($arg:expr),*)) => {{
        if unsafe { offsets_bad($counts) } {
            return;
        }
        let mut total = 0;
        unroll::<WARP_CLASSES>(|c| total += unsafe { *$counts.add(COUNT_WARP + c) });
        let mut w = gpu::block_idx() * WARPS + gpu::thread_idx() / WARP;
        let stride = gpu::grid_dim() * WARPS;
        while w < total {
            unsafe {
                // The counts read again for each segment rather than held in registers
                // across the networks (ten more registers took the 64-bit keys' entry
                // from 120 to 134, one block per SM instead of two).
                let slot = warp_list_slot(
                    w,
                    |c| *$counts.add(COUNT_WARP + c),
                    |c| *$counts.add(WARP_STARTS + c),
                );
                let ($seg, $len) = unpack(*$descs.add(slot as usize));
                // Uniform across the warp: each lane reads the same descriptor.
                match warp_items($len) {
                    1 => $sort::<$($t),*, 1>($($arg),*),
                    2 => $sort::<$($t),*, 2>($($arg),*),
                    4 => $sort::<$($t),*, 4>($($arg),*),
                    8 => $sort::<$($t),*, 8>($($arg),*),
                    _ => $sort::<$($t),*, { WARP_ITEMS_MAX as usize }>($($arg),*),
                }
            }
            w += stride;
        }
    }};
}

#[inline(always)]
pub unsafe fn warp_segments<K: SharedWord, const BLOCKED_FROM: usize>(p: WarpSort<K>) {
    let WarpSort { keys, descs, counts, pos, neg } = p;
    let (keys, descs, counts) = (keys.get(), descs.get(), counts.get());
    for_warp_segments!(descs, counts, |start, len| warp_sort::<K, BLOCKED_FROM>(
        keys.add(start as usize),
        len,
        pos,
        neg
    ))
}

#[inline(always)]
pub unsafe fn warp_segments_pairs<T: Tag>(p: WarpSortPairs<T::Key>) {
    let WarpSortPairs { keys, vals, descs, counts, pos, neg } = p;
    let (keys, vals, descs, counts) = (keys.get(), vals.get(), descs.get(), counts.get());
    for_warp_segments!(descs, counts, |start, len| warp_sort_pairs::<T>(
        keys.add(start as usize),
        vals.add(start as usize),
        len,
        pos,
        neg
    ))
}

/// Block `b` sorts block-bin segments `descs[b]`, `descs[b + blocks]`, ... (more than
/// WARP_MAX keys, at most the radix one-block limit) with the radix sort's one-block
/// body on tiles of at most `FULL` items per thread. `ONCE`: block `b` sorts
/// `descs[b]` only (the grid has a block per listed segment).
#[inline(always)]
pub unsafe fn block_segments<K: Word, const ONCE: bool, const FULL: usize>(p: BlockSort<K>) {
    let BlockSort { keys, descs, counts, pos, neg } = p;
    let vals = core::ptr::null_mut::<u32>();
    unsafe { block_segments_of::<K, false, ONCE, FULL>(keys.get(), vals, descs.get(), counts.get(), pos, neg) }
}

/// [`block_segments`] of keys with values.
#[inline(always)]
pub unsafe fn block_segments_pairs<K: Word, const ONCE: bool, const FULL: usize>(p: BlockSortPairs<K>) {
    let BlockSortPairs { keys, vals, descs, counts, pos, neg } = p;
    unsafe { block_segments_of::<K, true, ONCE, FULL>(keys.get(), vals.get(), descs.get(), counts.get(), pos, neg) }
}

/// The segments of this block (see [`block_segments`]), values too when `PAIRS`.
#[inline(always)]
unsafe fn block_segments_of<K: Word, const PAIRS: bool, const ONCE: bool, const FULL: usize>(
    keys: *mut K,
    vals: *mut u32,
    descs: *const u64,
    counts: *const u32,
    pos: K,
    neg: K,
) {
    unsafe {
        if offsets_bad(counts) {
            return;
        }
        // Uniform across the block, as the barriers inside need.
        let count = *counts.add(COUNT_BLOCK);
        let mut b = gpu::block_idx();
        if ONCE {
            // No loop, so no state lives across segments: the looping 32-bit pairs
            // entry spills 76 bytes of registers, this one none.
            if b < count {
                block_segment::<K, PAIRS, FULL>(keys, vals, *descs.add(b as usize), pos, neg);
            }
            return;
        }
        while b < count {
            block_segment::<K, PAIRS, FULL>(keys, vals, *descs.add(b as usize), pos, neg);
            // The next segment reuses the shared memory.
            gpu::sync_threads();
            b += gpu::grid_dim();
        }
    }
}

/// Sorts the block-bin segment of descriptor `desc`, values too when `PAIRS`.
#[inline(always)]
unsafe fn block_segment<K: Word, const PAIRS: bool, const FULL: usize>(
    keys: *mut K,
    vals: *mut u32,
    desc: u64,
    pos: K,
    neg: K,
) {
    unsafe {
        let (start, len) = unpack(desc);
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

/// `atomicMax` on a global `u32`.
#[inline(always)]
unsafe fn atomic_max_u32(p: *mut u32, v: u32) {
    unsafe {
        core::arch::asm!("red.global.max.u32 [{p}], {v};", p = in(reg64) p, v = in(reg32) v);
    }
}

/// Thread `i` checks segment `i`, marks its tile when it is the tile's first tile-bin
/// segment, and appends it to its bin's list (see [`BinSegments`]).
#[inline(always)]
pub unsafe fn bin_segments<O: Word>(p: BinSegments<O>) {
    let BinSegments { offsets, segments, n, tiny_in_warp, block_max, warp_by_class, counts, first, warp, block, large } =
        p;
    let tiny_in_warp = tiny_in_warp != 0;
    let tile_max = tile_max(tiny_in_warp);
    let (offsets, counts, first) = (offsets.get(), counts.get(), first.get());
    let (warp, block, large) = (warp.get(), block.get(), large.get());
    let i = gpu::global_idx();
    // Every thread goes on to the votes and barriers of `bin_append`.
    let live = i < segments as u64;
    let (mut start, mut end) = (0u64, 0u64);
    unsafe {
        if live {
            start = (*offsets.add(i as usize)).to_u64();
            end = (*offsets.add(i as usize + 1)).to_u64();
        }
        let bad = live && (end < start || end > n);
        if bad {
            atomic_max_u32(counts.add(COUNT_BAD), segments - i as u32);
        }
        let b = if live && !bad { bin_with(end - start, tile_max, block_max) } else { Bin::Skip };
        // The first tile-bin segment of each tile: of the lanes with the same tile, the
        // lowest (the first segment) marks it. Tile indices stay below u32::MAX (at
        // most 2^40 keys), which stands for no tile here.
        let tile = if b == Bin::Tile { tile_of(start) as u32 } else { u32::MAX };
        let peers = gpu::match_any_u32(tile);
        if b == Bin::Tile && peers & gpu::lanemask_lt() == 0 {
            atomic_max_u32(first.add(tile as usize), first_mark(i as u32));
        }
        let total = segments as u64;
        // Bad offsets can make the lists longer than their worst case for good ones:
        // slots past it are dropped (nothing is sorted then anyway).
        let fits = |slot: u32, bin: Bin| (slot as u64) < bin_capacity(n, total, bin_min_len(bin, tile_max, block_max));
        let desc = pack(start, end.wrapping_sub(start));
        let by_class = warp_by_class != 0;
        let regions = || warp_regions(n, total, tiny_in_warp, by_class);
        if i == 0 {
            let r = regions();
            unroll::<WARP_CLASSES>(|c| *counts.add(WARP_STARTS + c) = r[c] as u32);
        }
        // The list this segment goes to, as its counter's index in `counts`
        // (`BIN_LISTS`: none).
        let list = match b {
            Bin::Warp => COUNT_WARP + warp_region((end - start) as u32, by_class),
            Bin::Block => COUNT_BLOCK,
            Bin::Large => COUNT_LARGE,
            _ => BIN_LISTS,
        };
        let slot = bin_append(counts, list);
        match b {
            Bin::Warp => {
                // The class's region, picked by constant indices (a runtime index put
                // the regions on the stack).
                let (r, c) = (regions(), list - COUNT_WARP);
                let (mut lo, mut hi) = (0, 0);
                unroll::<WARP_CLASSES>(|k| {
                    if k == c {
                        (lo, hi) = (r[k], r[k + 1]);
                    }
                });
                if (slot as u64) < hi - lo {
                    *warp.add((lo + slot as u64) as usize) = desc;
                }
            }
            Bin::Block if fits(slot, Bin::Block) => *block.add(slot as usize) = desc,
            Bin::Large if fits(slot, Bin::Large) => {
                *large.add(2 * slot as usize) = start;
                *large.add(2 * slot as usize + 1) = end;
            }
            _ => {}
        }
    }
}

/// The lists of the bin kernel's counts: the warp list's classes, the block and the
/// large lists (their counters are the first `BIN_LISTS` words of `counts`).
const BIN_LISTS: usize = COUNT_LARGE + 1;
const _: () = assert!(
    COUNT_WARP == 0
        && COUNT_BLOCK == WARP_CLASSES
        && BIN_LISTS * 4 * (BIN_BLOCK as usize / 32 + 1) <= BIN_SMEM as usize
);

/// This thread's slot in list `list` (below `BIN_LISTS`; `BIN_LISTS`: none, 0
/// returned), reserved with one atomic per list a block: each warp counts its lanes
/// of each list by a vote, the block sums the warps' counts in shared memory and
/// adds its total to the list's counter once. An atomic per warp made the bin kernel
/// take 21-30 us for 2^24 keys in segments of mean 24 to 48 (the warps' atomics on
/// the same few counters wait on each other; H200 ncu, 2026-11-28), against 10 us
/// for mean 16, where nearly nothing is listed. Every thread of the block must call it.
#[inline(always)]
unsafe fn bin_append(counts: *mut u32, list: usize) -> u32 {
    const WARPS: u32 = BIN_BLOCK / 32;
    let sm = gpu::smem_base();
    let (tid, lane) = (gpu::thread_idx(), gpu::lane_id());
    let warp = tid / 32;
    let at = |w: u32, l: u32| sm + 4 * (w * BIN_LISTS as u32 + l);
    let mut mine = 0u32;
    // Blocks of tiny segments list none (mean 16: nearly every block).
    if !gpu::sync_threads_or(list < BIN_LISTS) {
        return 0;
    }
    unsafe {
        unroll::<BIN_LISTS>(|l| {
            let m = gpu::ballot(list == l);
            if list == l {
                mine = m;
            }
            if lane == 0 {
                gpu::sts_u32(at(warp, l as u32), m.count_ones());
            }
        });
        gpu::sync_threads();
        if tid < BIN_LISTS as u32 {
            // Each warp's first slot within the block, then the block's first slot.
            let mut sum = 0;
            for w in 0..WARPS {
                let c = gpu::lds_u32(at(w, tid));
                gpu::sts_u32(at(w, tid), sum);
                sum += c;
            }
            let first = if sum > 0 { gpu::atomic_add_u32(counts.add(tid as usize), sum) } else { 0 };
            gpu::sts_u32(at(WARPS, tid), first);
        }
        gpu::sync_threads();
        if list < BIN_LISTS {
            let l = list as u32;
            gpu::lds_u32(at(WARPS, l)) + gpu::lds_u32(at(warp, l)) + (mine & gpu::lanemask_lt()).count_ones()
        } else {
            0
        }
    }
}

/// Block `b` sorts the tile-bin segments of tiles `b`, `b + blocks`, ... (see the
/// module docs), with their values when `PAIRS`, by the sorter `SORTER`
/// ([`tile_sorter_of`]; the network sorts keys alone).
#[inline(always)]
pub unsafe fn tile_segments<K: SharedWord + RankKey, O: Word, const PAIRS: bool, const SORTER: u32>(p: TileSort<K, O>) {
    let TileSort { keys, vals, offsets, segments, n, counts, first, pos, neg } = p;
    let (keys, vals, offsets, counts, first) = (keys.get(), vals.get(), offsets.get(), counts.get(), first.get());
    let sorter = const { tile_sorter_of(SORTER) };
    const { assert!(!PAIRS || tile_sorter_of(SORTER) as u32 == TileSorter::Rank as u32, "the network sorts keys alone") };
    unsafe {
        if offsets_bad(counts) {
            return;
        }
        let tiles = tiles(n);
        if sorter == TileSorter::Network {
            // Both owned-mark buffers and both pairs of list counters start clear (see
            // `sort_tile_network`).
            let l = const { network_smem(K::BYTES) };
            let base = gpu::smem_base();
            if gpu::thread_idx() < 2 * TILE / 32 {
                gpu::sts_u32(base + l.marks + 4 * gpu::thread_idx(), 0);
            }
            if gpu::thread_idx() < 4 {
                gpu::sts_u32(base + l.counters + 4 * gpu::thread_idx(), 0);
            }
            gpu::sync_threads();
        }
        let mut parity = 0;
        let mut t = gpu::block_idx() as u64;
        // Uniform across the block: every thread skips a tile or none does.
        while t < tiles {
            let mark = *first.add(t as usize);
            if mark != 0 {
                let tile =
                    Tile { offsets, segments: segments as u64, base: t * TILE_STRIDE, first: first_of_mark(mark) };
                match sorter {
                    TileSorter::Network => sort_tile_network::<K, O>(keys, &tile, parity, pos, neg),
                    TileSorter::Rank => {
                        sort_tile_rank::<K, O, PAIRS>(keys, vals, &tile, pos, neg);
                        // The next tile reuses the shared memory.
                        gpu::sync_threads();
                    }
                }
                parity ^= 1;
            }
            t += gpu::grid_dim() as u64;
        }
    }
}

/// A tile: the offsets, the keys' position of its window (`base`) and its first owned
/// segment.
struct Tile<O> {
    offsets: *const O,
    segments: u64,
    base: u64,
    first: u32,
}

impl<O: Word> Tile<O> {
    /// Round `r` of the tile's owned segments on each of the block's `BLOCK` threads:
    /// thread `tid` takes segment `first + r * BLOCK + tid`, as `(s, len)`: `s` the
    /// window position of an owned segment and `len` its length, or `len == 0` when it
    /// is not one; and whether round `r + 1` holds owned segments (the same on every
    /// thread: rounds end for the whole block at once, so callers may use warp votes
    /// and barriers between rounds). The three offsets are loaded together, one memory
    /// latency a round.
    #[inline(always)]
    unsafe fn round<const BLOCK: u32>(&self, r: u32) -> (u32, u32, bool) {
        let owned_end = self.base + TILE_STRIDE;
        let chunk = self.first as u64 + r as u64 * BLOCK as u64;
        let i = chunk + gpu::thread_idx() as u64;
        let next = chunk + BLOCK as u64;
        unsafe {
            // `offsets` has `segments + 1` entries.
            let (start, end) = if i < self.segments {
                ((*self.offsets.add(i as usize)).to_u64(), (*self.offsets.add(i as usize + 1)).to_u64())
            } else {
                (owned_end, owned_end)
            };
            // Every thread reads the same offset.
            let more = next < self.segments && (*self.offsets.add(next as usize)).to_u64() < owned_end;
            if start < owned_end && bin_with(end - start, TILE_SEG_MAX, u64::MAX) == Bin::Tile {
                ((start - self.base) as u32, (end - start) as u32, more)
            } else {
                (0, 0, more)
            }
        }
    }

    /// Calls `f(r, s, len)` for each round `r` of [`Tile::round`]; returns the number of
    /// rounds.
    #[inline(always)]
    unsafe fn for_owned<const BLOCK: u32>(&self, mut f: impl FnMut(u32, u32, u32)) -> u32 {
        let mut r = 0;
        loop {
            let (s, len, more) = unsafe { self.round::<BLOCK>(r) };
            f(r, s, len);
            r += 1;
            if !more {
                return r;
            }
        }
    }
}

/// Sorts the tile-bin segments owned by `tile` with the rank sorter, in the block's
/// shared memory ([`tile_smem`]: a [`tile_span`] word per window position, then the
/// order bits): marks each owned position with its segment, loads the owned keys
/// (and values), and stores each at its rank in its segment.
#[inline(always)]
unsafe fn sort_tile_rank<K: SharedWord + RankKey, O: Word, const PAIRS: bool>(
    keys: *mut K,
    vals: *mut u32,
    tile: &Tile<O>,
    pos: K,
    neg: K,
) {
    const BLOCK: u32 = tile_block(TileSorter::Rank);
    const I: usize = (TILE / BLOCK) as usize;
    let spans = gpu::smem_base();
    let ords = spans + 4 * TILE;
    let tid = gpu::thread_idx();
    let base = tile.base as usize;
    unsafe {
        unroll::<I>(|k| gpu::sts_u32(spans + 4 * (k as u32 * BLOCK + tid), NOT_OWNED));
        gpu::sync_threads();
        tile.for_owned::<BLOCK>(|_, s, len| {
            let span = tile_span(s, s + len);
            for q in s..s + len {
                gpu::sts_u32(spans + 4 * q, span);
            }
        });
        gpu::sync_threads();
        let mut span = [NOT_OWNED; I];
        let mut mine = [K::ZERO; I];
        let mut v = [0u32; I];
        unroll::<I>(|k| {
            let o = k * BLOCK as usize + tid as usize;
            span[k] = gpu::lds_u32(spans + 4 * o as u32);
            if span[k] != NOT_OWNED {
                mine[k] = (*keys.add(base + o)).ordered(pos, neg);
                K::sts(ords + o as u32 * K::BYTES, mine[k]);
                if PAIRS {
                    v[k] = *vals.add(base + o);
                }
            }
        });
        // Every owned key is read before any is overwritten.
        gpu::sync_threads();
        unroll::<I>(|k| {
            if span[k] != NOT_OWNED {
                let o = (k * BLOCK as usize + tid as usize) as u32;
                let (s, e) = tile_span_bounds(span[k]);
                let r = rank_in_segment(|j| K::lds(ords + j * K::BYTES), s, e, o, mine[k]);
                let dst = base + (s + r) as usize;
                *keys.add(dst) = mine[k].raw(pos, neg);
                if PAIRS {
                    *vals.add(dst) = v[k];
                }
            }
        });
    }
}

/// Reserves a place in the shared list counted at `count` for each lane whose `pred`
/// holds, with one shared atomic per warp; returns this lane's place. Every lane must
/// call it.
#[inline(always)]
unsafe fn append_shared(count: u32, pred: bool) -> u32 {
    let mask = gpu::ballot(pred);
    if mask == 0 {
        return 0;
    }
    let leader = mask.trailing_zeros();
    let mut first = 0;
    if gpu::lane_id() == leader {
        first = unsafe { gpu::atomic_add_shared_u32(count, mask.count_ones()) };
    }
    gpu::shfl_idx_u32(first, leader) + (mask & gpu::lanemask_lt()).count_ones()
}

/// Sorts the tile-bin segments owned by `tile` with the network sorter, in the
/// block's shared memory ([`tile_smem`]: the order bits of each window position, two
/// buffers of a bit a position that marks it owned, the list of owned segments and
/// two pairs of its counters, `parity` this tile's buffer and pair): marks the owned
/// positions and lists the owned segments of two keys or more (the short ones,
/// [`TILE_SHORT_MAX`], from the list's front, the long ones from its back), loads the
/// owned keys (coalesced), sorts each listed segment in one thread's registers, the
/// short ones first, stores the owned keys back (coalesced). Listing the segments
/// packs them: a thread per segment that starts in the window left the threads of
/// the warp- and block-bin segments idle, and a warp with one long segment ran the
/// 32-input network for all its short ones. Three barriers a tile: the marks and
/// counters alternate between their buffers, and each tile clears the other ones
/// once every thread is past the previous tile's stores, so that the next tile finds
/// them clear and needs no barrier before its marks; its loads come after its marks'
/// barrier, so after this tile's stores, and its list entries after this tile's last
/// barrier, so after this tile's sorts read the list.
#[inline(always)]
unsafe fn sort_tile_network<K: SharedWord, O: Word>(keys: *mut K, tile: &Tile<O>, parity: u32, pos: K, neg: K) {
    const BLOCK: u32 = tile_block(TileSorter::Network);
    const I: usize = (TILE / BLOCK) as usize;
    const { assert!(TILE / 32 <= BLOCK && BLOCK % 32 == 0) };
    let ords = gpu::smem_base();
    let l = const { network_smem(K::BYTES) };
    let marks = ords + l.marks + parity * (TILE / 8);
    let other = ords + l.marks + (parity ^ 1) * (TILE / 8);
    let list = ords + l.list;
    // This tile's counters (short, long) and the other pair.
    let counts = ords + l.counters + 8 * parity;
    let other_counts = ords + l.counters + 8 * (parity ^ 1);
    let tid = gpu::thread_idx();
    let base = tile.base as usize;
    // Position `o`'s bit: item `k` of a thread reads the word its whole warp reads.
    let owned = |o: u32| unsafe { gpu::lds_u32(marks + 4 * (o / 32)) >> (o % 32) & 1 != 0 };
    unsafe {
        tile.for_owned::<BLOCK>(|_, s, len| {
            // A segment of at most 32 keys covers bits of one or two words; each bit is
            // set by one thread, so adding sets it.
            let bits = owned_bits(s, len);
            if bits as u32 != 0 {
                gpu::reds_add_u32(marks + 4 * (s / 32), bits as u32);
            }
            if (bits >> 32) as u32 != 0 {
                gpu::reds_add_u32(marks + 4 * (s / 32 + 1), (bits >> 32) as u32);
            }
            let long = len > TILE_SHORT_MAX;
            let w_short = append_shared(counts, len >= 2 && !long);
            let w_long = append_shared(counts + 4, long);
            if len >= 2 {
                let slot = tile_list_slot(long, if long { w_long } else { w_short });
                gpu::sts_u32(list + 4 * slot, tile_entry(s, len));
            }
        });
        gpu::sync_threads();
        // Every thread is past the previous tile's stores, which read the other marks,
        // and past its sorts, which read the other counters.
        if tid < TILE / 32 {
            gpu::sts_u32(other + 4 * tid, 0);
        }
        if tid < 2 {
            gpu::sts_u32(other_counts + 4 * tid, 0);
        }
        unroll::<I>(|k| {
            let o = k as u32 * BLOCK + tid;
            if owned(o) {
                K::sts(ords + o * K::BYTES, (*keys.add(base + o as usize)).ordered(pos, neg));
            }
        });
        gpu::sync_threads();
        let (short, long) = (gpu::lds_u32(counts), gpu::lds_u32(counts + 4));
        let listed = short + long;
        let mut first = 0;
        // Uniform across the block.
        while first < listed {
            let j = first + tid;
            let (s, len) = if j < listed {
                tile_entry_bounds(gpu::lds_u32(list + 4 * tile_sorted_slot(j, short, long)))
            } else {
                (0, 0)
            };
            // The warp's shortest network that holds each of its segments.
            if gpu::ballot(len > 16) != 0 {
                sort_segment::<K, 32>(ords, s, len);
            } else if gpu::ballot(len > 8) != 0 {
                sort_segment::<K, 16>(ords, s, len);
            } else {
                sort_segment::<K, 8>(ords, s, len);
            }
            first += BLOCK;
        }
        gpu::sync_threads();
        unroll::<I>(|k| {
            let o = k as u32 * BLOCK + tid;
            if owned(o) {
                *keys.add(base + o as usize) = K::lds(ords + o * K::BYTES).raw(pos, neg);
            }
        });
    }
}

/// Sorts the segment of `len <= N` order bits at window position `s` of the shared
/// array `ords` with the network of `N` inputs (nothing when `len < 2`).
#[inline(always)]
unsafe fn sort_segment<K: SharedWord, const N: usize>(ords: u32, s: u32, len: u32) {
    if len < 2 {
        return;
    }
    unsafe {
        let v = sort_padded::<K, N>(len, <K as NetItem>::MAX, |j| K::lds(ords + (s + j) * K::BYTES));
        unroll::<N>(|j| {
            if (j as u32) < len {
                K::sts(ords + (s + j as u32) * K::BYTES, v[j]);
            }
        });
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
