//! The mergepath kernels (see the module doc of `mergepath` for the passes and the
//! stability rule). Shared memory holds one tile of elements; a thread's `ITEMS`
//! elements live in a register array indexed only inside [`gpu::unroll`].
use super::{BLOCK, Window, block_co_ranks, block_range, merge_window, take_a};
use crate::block::network;
use crate::gpu;
use crate::key::{Entity, SortKey};
use crate::radix::Word;
use crate::search::{co_rank, co_rank_probe, co_rank_range, guided_narrow, guided_probe, many_way_search};

/// The form an element takes inside the kernels. Primitive keys are turned into their
/// order bits (direction included) as they are read from global memory and back as
/// they are written, so every comparison in the register sort, the co-rank searches
/// and the merges is one unsigned compare of a word (no per-comparison transform,
/// and the register sort's compare-swaps become min/max). Records stay records and
/// compare through [`SortKey::ord_bits`].
trait Item: SortKey {
    /// What shared memory and registers hold.
    type W: Copy;
    /// What the merges compare.
    type K: Ord + Copy;
    /// The order masks of the requested direction, already at the word's width
    /// ([`crate::key::BitOrder::masks`]); nothing for records.
    type M: Copy;
    fn masks(desc: bool) -> Self::M;
    fn enc(self, masks: Self::M) -> Self::W;
    fn dec(w: Self::W, masks: Self::M) -> Self;
    fn key(w: Self::W, desc: bool) -> Self::K;
    /// The word written after each pair of runs in shared memory: the largest key
    /// (see [`super::round_sentinel`]). Records do not use sentinels (their merge
    /// tests both ends).
    fn sentinel() -> Self::W;
}

macro_rules! primitive_item {
    ($t:ty, $w:ty) => {
        impl Item for $t {
            type W = $w;
            type K = $w;
            type M = ($w, $w);
            #[inline(always)]
            fn masks(desc: bool) -> ($w, $w) {
                let (pos, neg) = match <$t as SortKey>::BIT_ORDER {
                    Some(order) => order.masks(8 * size_of::<$t>() as u32, desc),
                    None => (0, 0),
                };
                (<$w>::from_u64(pos), <$w>::from_u64(neg))
            }
            #[inline(always)]
            fn enc(self, m: ($w, $w)) -> $w {
                let raw: $w = unsafe { core::mem::transmute_copy(&self) };
                raw.ordered(m.0, m.1)
            }
            #[inline(always)]
            fn dec(w: $w, m: ($w, $w)) -> Self {
                unsafe { core::mem::transmute_copy(&w.raw(m.0, m.1)) }
            }
            #[inline(always)]
            fn key(w: $w, _desc: bool) -> $w {
                w
            }
            #[inline(always)]
            fn sentinel() -> $w {
                <$w as Word>::MAX
            }
        }
    };
}
primitive_item!(u32, u32);
primitive_item!(i32, u32);
primitive_item!(f32, u32);
primitive_item!(u64, u64);
primitive_item!(i64, u64);
primitive_item!(f64, u64);

impl Item for Entity {
    type W = Entity;
    type K = u32;
    type M = ();
    #[inline(always)]
    fn masks(_: bool) {}
    #[inline(always)]
    fn enc(self, _: ()) -> Entity {
        self
    }
    #[inline(always)]
    fn dec(w: Entity, _: ()) -> Entity {
        w
    }
    #[inline(always)]
    fn sentinel() -> Entity {
        Entity { distance_from_player: 0.0, id: 0, position: [0.0; 3] }
    }
    #[inline(always)]
    fn key(w: Entity, desc: bool) -> u32 {
        w.ord_bits(desc)
    }
}

/// Reads element `x` of the shared-memory array of `T` that starts `tile` bytes into
/// the dynamic shared memory (the key tile at 0, the values of the key-value kernels
/// after it). 4- and 8-byte elements go through 32-bit shared addresses
/// (`ld.shared`), wider records through the generic volatile path.
#[inline(always)]
unsafe fn lds<T: Copy>(tile: u32, x: u32) -> T {
    unsafe {
        if gpu::carry_by_value::<T>() {
            lds_at(gpu::smem_base() + tile + x * size_of::<T>() as u32)
        } else {
            gpu::load_shared_element(gpu::dyn_smem::<u8>().add(tile as usize).cast::<T>().add(x as usize))
        }
    }
}

/// Reads the 4- or 8-byte `T` at shared address `addr`.
#[inline(always)]
unsafe fn lds_at<T: Copy>(addr: u32) -> T {
    unsafe {
        match size_of::<T>() {
            4 => core::mem::transmute_copy(&gpu::lds_u32(addr)),
            _ => core::mem::transmute_copy(&gpu::lds_u64(addr)),
        }
    }
}

/// Reads the 4- or 8-byte `T` at shared address `addr` of block `rank` of the cluster
/// ([`gpu::lds_cluster_u32`]), as [`lds_at`] reads this block's.
#[inline(always)]
unsafe fn lds_cluster_at<T: Copy>(addr: u32, rank: u32) -> T {
    unsafe {
        match size_of::<T>() {
            4 => core::mem::transmute_copy(&gpu::lds_cluster_u32(addr, rank)),
            _ => core::mem::transmute_copy(&gpu::lds_cluster_u64(addr, rank)),
        }
    }
}

/// Writes element `x` of the shared-memory array of `T` at byte `tile` (see [`lds`]),
/// through 32-bit shared addresses for 4- and 8-byte elements.
#[inline(always)]
unsafe fn sts<T: Copy>(tile: u32, x: u32, v: T) {
    let addr = gpu::smem_base() + tile + x * size_of::<T>() as u32;
    unsafe {
        match size_of::<T>() {
            4 => gpu::sts_u32(addr, core::mem::transmute_copy(&v)),
            8 => gpu::sts_u64(addr, core::mem::transmute_copy(&v)),
            _ => *gpu::dyn_smem::<u8>().add(tile as usize).cast::<T>().add(x as usize) = v,
        }
    }
}

/// What travels with the keys through the block sort and the merges: nothing
/// ([`NoValues`], the key-only kernels) or one 4- or 8-byte value per key
/// ([`ValuesAt`]), staged in shared memory after the key tile
/// ([`super::kv_values_offset`]) and gathered by the tile slot each output key came
/// from, so keys and values both leave coalesced. One kernel body serves both: every
/// value step is behind the constant [`Values::ON`] and folds away without values.
trait Values: Copy {
    type V: Copy;
    const ON: bool;
    /// The values from element `i` on.
    unsafe fn add(self, i: u64) -> Self;
    /// The first value's address (null without values).
    fn ptr(self) -> *mut Self::V;
}

/// No values: the key-only kernels.
#[derive(Clone, Copy)]
struct NoValues;

impl Values for NoValues {
    type V = u32;
    const ON: bool = false;
    #[inline(always)]
    unsafe fn add(self, _: u64) -> Self {
        self
    }
    #[inline(always)]
    fn ptr(self) -> *mut u32 {
        core::ptr::null_mut()
    }
}

/// One `V` per key, at this address (source or destination).
#[derive(Clone, Copy)]
struct ValuesAt<V>(*mut V);

impl<V: Copy> Values for ValuesAt<V> {
    type V = V;
    const ON: bool = true;
    #[inline(always)]
    unsafe fn add(self, i: u64) -> Self {
        ValuesAt(unsafe { self.0.add(i as usize) })
    }
    #[inline(always)]
    fn ptr(self) -> *mut V {
        self.0
    }
}

/// Sorts `v[0..valid]` stably (records, and keys that carry values; primitive keys
/// alone use [`network::sort_by_key`]) by odd-even transposition (`valid` rounds of adjacent
/// compare-swaps, swapping only on strict `>`); `v[valid..]` is left alone.
/// `swapped(k)` is called after each swap of `k` and `k + 1`, so that values can
/// follow their keys.
#[inline(always)]
fn sort_registers<T: Item, const N: usize>(
    v: &mut [T::W; N],
    valid: usize,
    desc: bool,
    mut swapped: impl FnMut(usize),
) {
    gpu::unroll::<N>(|round| {
        gpu::unroll::<N>(|k| {
            if k % 2 == round % 2 && k + 1 < N && k + 1 < valid && T::key(v[k + 1], desc) < T::key(v[k], desc) {
                v.swap(k, k + 1);
                swapped(k);
            }
        });
    });
}

/// Merges `N` outputs of the pair `A = tile[a0 .. a0 + a_len]`,
/// `B = tile[a0 + a_len .. a0 + a_len + b_len]` (contiguous in shared memory) starting
/// at diagonal `diag` into `out`. The thread's split comes from the co-rank (32-bit
/// index math); then each step takes by the stability rule and loads one new head.
/// With `POS`, `pos[k]` gets the tile slot (counted from `a0`) output `k` came from.
///
/// Words (primitive keys, `size <= 8`) need the sentinel ([`Item::sentinel`]) in
/// the slot after `B` and [`super::tile_slots`] room after it: the step tests only
/// `A`'s end (see [`super::round_sentinel`]), and a thread whose outputs run past
/// the pair's end reads on past the sentinel (outputs nobody stores). With `CHECK_B`
/// (the block sort's [`super::dense_round`]s) there is no sentinel and the step tests
/// `B`'s end too. Records test both ends and clamp their reads into the pair.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn merge_from_tile<T: Item, const N: usize, const POS: bool, const CHECK_B: bool>(
    tile: u32,
    a0: u32,
    a_len: u32,
    b_len: u32,
    diag: u32,
    desc: bool,
    out: &mut [T::W; N],
    pos: &mut [u32; N],
) {
    let key = |x: u32| T::key(unsafe { lds(tile, x) }, desc);
    let b0 = a0 + a_len;
    let mut i = co_rank(diag, a_len, b_len, |x| key(a0 + x), |x| key(b0 + x));
    let mut j = diag - i;
    if !gpu::carry_by_value::<T::W>() {
        // Wide records: carry the heads' keys and positions, read each record once
        // when it is output (record-valued heads end up in local memory).
        let last = a_len + b_len - 1;
        let key_at = |x: u32| key(a0 + x.min(last));
        let (mut ak, mut bk) = (key_at(i), key_at(a_len + j));
        gpu::unroll::<N>(|k| {
            let from_a = take_a(i, a_len, j, b_len, ak, bk);
            let at = if from_a { i } else { a_len + j };
            out[k] = unsafe { lds(tile, a0 + at.min(last)) };
            if POS {
                pos[k] = at;
            }
            i += from_a as u32;
            j += !from_a as u32;
            if k + 1 < N {
                let v = key_at(at + 1);
                ak = if from_a { v } else { ak };
                bk = if from_a { bk } else { v };
            }
        });
        return;
    }
    // Words: heads tracked by shared address, B's end guarded by the sentinel.
    let size = size_of::<T::W>() as u32;
    let base = gpu::smem_base() + tile + a0 * size;
    let a_end = base + a_len * size;
    let b_end = a_end + b_len * size;
    let (mut pa, mut pb) = (base + i * size, a_end + j * size);
    unsafe {
        let mut ah: T::W = lds_at(pa);
        let mut bh: T::W = lds_at(pb);
        gpu::unroll::<N>(|k| {
            let from_a = pa < a_end && (T::key(ah, desc) <= T::key(bh, desc) || (CHECK_B && pb >= b_end));
            out[k] = if from_a { ah } else { bh };
            let at = if from_a { pa } else { pb };
            if POS {
                pos[k] = (at - base) / size;
            }
            pa += if from_a { size } else { 0 };
            pb += if from_a { 0 } else { size };
            if k + 1 < N {
                let v = lds_at(at + size);
                // Two value selects: an `if` that assigns one of two heads becomes a
                // store through a selected pointer, which puts both heads in local
                // memory.
                ah = if from_a { v } else { ah };
                bh = if from_a { bh } else { v };
            }
        });
    }
}

/// Writes this thread's `N` consecutive outputs (first one at position `first`, slot
/// `first + shift`) to the tile, those at positions below `count` only (all of them
/// with `FULL`, see [`block_sort`]).
#[inline(always)]
unsafe fn store_blocked<W: Copy, const N: usize, const FULL: bool>(
    tile: u32,
    first: u32,
    count: u32,
    shift: u32,
    v: &[W; N],
) {
    gpu::unroll::<N>(|k| {
        if FULL || first + (k as u32) < count {
            unsafe { sts(tile, first + shift + k as u32, v[k]) };
        }
    });
}

/// The sample stride of elements of type `T` ([`super::sample_stride`] of its size).
const fn sample_stride<T>() -> u32 {
    super::sample_stride(size_of::<T>() as u32)
}

/// Copies `count` elements of the tile to `dst` (element `start` of the sequence),
/// `TB` (the block's threads) consecutive ones per step (coalesced), turning them back into `T`
/// ([`Item::dec`]). Unless `samples` is null, also writes the first and the last
/// element of every whole chunk of [`sample_stride`] there (`start` is a multiple of
/// the chunk): one sample per thread, coalesced.
#[inline(always)]
unsafe fn store_striped<T: Item, const N: usize, const FULL: bool, const TB: u32>(
    tile: u32,
    dst: *mut T,
    samples: *mut T,
    start: u64,
    count: u32,
    m: T::M,
) {
    let t = gpu::thread_idx();
    unsafe {
        let out = dst.add(start as usize);
        gpu::unroll::<N>(|k| {
            let x = k as u32 * TB + t;
            if FULL || x < count {
                *out.add(x as usize) = T::dec(lds(tile, x), m);
            }
        });
        if samples.is_null() {
            return;
        }
        let s = sample_stride::<T>();
        let first_slot = 2 * (start / s as u64);
        // Slot 2c is chunk c's first element, 2c + 1 its last (when it exists).
        let mut slot = t;
        while slot < 2 * count.div_ceil(s) {
            let x = (slot / 2) * s + (slot % 2) * (s - 1);
            if x < count {
                *samples.add((first_slot + slot as u64) as usize) = T::dec(lds(tile, x), m);
            }
            slot += TB;
        }
    }
}

/// Stores thread `t`'s outputs for block-sort round `r` at their slots (each pair of
/// runs followed by a sentinel slot, [`super::round_shift`], but in a
/// [`super::dense_round`]) and the sentinel its outputs end, if any
/// ([`super::round_sentinel`]). Returns the slot shift of its pair.
#[inline(always)]
unsafe fn store_round<T: Item, const N: usize, const FULL: bool>(
    tile: u32,
    t: u32,
    count: u32,
    r: u32,
    v: &[T::W; N],
) -> u32 {
    let pair = super::round_shift(t, r);
    unsafe {
        store_blocked::<_, N, FULL>(tile, t * N as u32, count, pair, v);
        if let Some(slot) = super::round_sentinel(t, N as u32, count, r) {
            sts(tile, slot, T::sentinel());
        }
    }
    pair
}

/// Block sort: sorts each tile of `ITEMS * TB` elements (`TB` threads: [`BLOCK`], or a
/// multiple for the wide block sorts) of `src` into the same tile of `dst` (which may
/// be `src`: a block reads its whole tile before writing),
/// values (if any) from `vsrc` to `vdst` with their keys: the register sort swaps
/// values with their keys (adjacent swaps on strict `>`: stable), and every merge
/// round gathers them by the tile slots its outputs came from.
///
/// Every block but the last holds a whole tile; those run a copy of the kernel body
/// compiled with `FULL`, without a bound test per element (the load and store loops
/// are a fifth of the merge kernel's instructions otherwise).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn block_sort<T: Item, P: Values, const N: usize, const TB: u32>(
    src: *const T,
    vsrc: P,
    dst: *mut T,
    vdst: P,
    samples: *mut T,
    n: u64,
    descending: u32,
) {
    let (start, count) = block_range(gpu::block_idx() as u64, TB * N as u32, n);
    unsafe {
        if count == TB * N as u32 {
            block_sort_tile::<T, P, N, true, TB>(src, vsrc, dst, vdst, samples, start, count, descending)
        } else {
            block_sort_tile::<T, P, N, false, TB>(src, vsrc, dst, vdst, samples, start, count, descending)
        }
    }
}

/// [`block_sort`] of the tile of `count` elements at `start`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn block_sort_tile<T: Item, P: Values, const N: usize, const FULL: bool, const TB: u32>(
    src: *const T,
    vsrc: P,
    dst: *mut T,
    vdst: P,
    samples: *mut T,
    start: u64,
    count: u32,
    descending: u32,
) {
    let m = T::masks(descending != 0);
    unsafe {
        let (v, vals) = sort_tile::<T, P, N, FULL, TB>(src, vsrc, start, count, descending);
        store_tile::<T, P, N, FULL, TB>(&v, &vals, dst, vdst, samples, start, count, m);
    }
}

/// Cluster block sort (keys alone): the two blocks of a cluster (`TB` threads each)
/// sort one run of two tiles of `TB * N` elements. Each block sorts its tile as
/// [`block_sort`] does; then a cluster round merges the two tiles held in the blocks'
/// shared memory ([`cluster_pair_round`]), and each block stores its tile of the run.
/// A second block past the data's end (the last cluster may be partial) takes part in
/// the cluster barriers alone. (Clusters of four, with a second round that gathered
/// from all four blocks, measured slower: see [`super::sort_width`].)
#[inline(always)]
unsafe fn cluster_block_sort<T: Item, const N: usize, const TB: u32>(
    src: *const T,
    dst: *mut T,
    samples: *mut T,
    n: u64,
    descending: u32,
) {
    const CL: u32 = 2;
    let tile = TB * N as u32;
    let b = gpu::block_idx() as u64;
    let rank = (b % CL as u64) as u32;
    let base = (b - rank as u64) * tile as u64;
    // The cluster's elements (the host launches no cluster past the data) and this
    // block's tile among them.
    let cc = (n - base).min((CL * tile) as u64) as u32;
    let count = cc.saturating_sub(rank * tile).min(tile);
    let start = base + (rank * tile) as u64;
    let m = T::masks(descending != 0);
    unsafe {
        let mut v = [T::sentinel(); N];
        if count == tile {
            v = sort_tile::<T, NoValues, N, true, TB>(src, NoValues, start, count, descending).0;
        } else if count > 0 {
            v = sort_tile::<T, NoValues, N, false, TB>(src, NoValues, start, count, descending).0;
        }
        cluster_pair_round::<T, N, TB>(&mut v, rank, tile, cc, count, descending != 0);
        let nv = [0u32; N];
        if count == tile {
            store_tile::<T, NoValues, N, true, TB>(&v, &nv, dst, NoValues, samples, start, count, m);
        } else if count > 0 {
            store_tile::<T, NoValues, N, false, TB>(&v, &nv, dst, NoValues, samples, start, count, m);
        }
    }
}

/// The cluster round of [`cluster_block_sort`]: merges the two blocks' sorted tiles
/// (`A`, block 0's, and `B`, block 1's: `cc` elements in all) into one run, block
/// `rank` producing its own tile of it (`count` outputs, thread `t`'s `N` of them in
/// `v` on entry and on return). The blocks store their outputs; after a cluster barrier
/// warp 0 of each finds the co-rank `i` of the diagonal `tile` (how many of block 0's
/// outputs come from `A`) by a 32-way search over both blocks' shared memory. Then
/// only the `tile - i` elements each block needs from the other move
/// ([`super::pair_swap`]): block 0 receives the head of `B` after its `A[..i]`, block 1
/// the tail of `A` before its `B[tile - i..]`, read from the partner's shared memory
/// (coalesced) into registers; after a second barrier (both have read) they are
/// stored, and each block merges its two parts as a block-sort round does.
#[inline(always)]
unsafe fn cluster_pair_round<T: Item, const N: usize, const TB: u32>(
    v: &mut [T::W; N],
    rank: u32,
    tile: u32,
    cc: u32,
    count: u32,
    desc: bool,
) {
    let t = gpu::thread_idx();
    let first = t * N as u32;
    let size = size_of::<T::W>() as u32;
    let base = gpu::smem_base();
    // A word after the tile and its sentinel slot: the co-rank.
    let meta = base + (tile + 2) * size;
    let remote = |slot: u32, block: u32| -> T::W { unsafe { lds_cluster_at(base + slot * size, block) } };
    // `B`'s length (0: the data ends in block 0, which then holds its whole run).
    let b_len = cc.saturating_sub(tile);
    unsafe {
        if count > 0 {
            gpu::sync_threads();
            store_blocked::<_, N, false>(0, first, count, 0, v);
        }
        gpu::cluster_sync();
        if count > 0 && b_len > 0 {
            if t < 32 {
                let (lo, hi) = co_rank_range(tile as u64, tile as u64, b_len as u64);
                let i = group_search::<32>(lo, hi, |x| {
                    let x = x as u32;
                    T::key(remote(x, 0), desc) <= T::key(remote(tile - 1 - x, 1), desc)
                }) as u32;
                if gpu::lane_id() == 0 {
                    gpu::sts_u32(meta, i);
                }
            }
            gpu::sync_threads();
            let i = gpu::lds_u32(meta);
            let (src, dst, a, m) = super::pair_swap(rank, i, tile);
            // Slots `k * TB + t` computed here, not hoisted to hold registers through
            // the sort (the kernel spilled 1 KB so).
            let t = gpu::opaque_u32(t);
            // What moves, `m` elements, into registers: in three groups, each skipped
            // as a whole past `m` (a block-wide test), so that a group's loads issue
            // back to back (under a bound test each, each load waited out its latency
            // alone); slots past `m` in a group read the last one again.
            const { assert!(N <= 3 * GROUP) };
            const GROUP: usize = 11;
            gpu::unroll::<3>(|g| {
                if ((g * GROUP) as u32) * TB < m {
                    gpu::unroll::<GROUP>(|j| {
                        let k = g * GROUP + j;
                        if k < N {
                            let e = (k as u32 * TB + t).min(m - 1);
                            v[k] = remote(src + e, 1 - rank);
                        }
                    });
                }
            });
            gpu::cluster_sync();
            let t = gpu::opaque_u32(t);
            gpu::unroll::<N>(|k| {
                let e = k as u32 * TB + t;
                if e < m {
                    sts(0, dst + e, v[k]);
                }
            });
            if t == 0 {
                sts(0, count, T::sentinel());
            }
            gpu::sync_threads();
            if first < count {
                let mut pos = [0u32; N];
                merge_from_tile::<T, N, false, false>(0, 0, a, count - a, first, desc, v, &mut pos);
            }
        } else {
            gpu::cluster_sync();
        }
    }
}

/// Sorts the tile of `count` elements at `start` of `src` (values from `vsrc`) in the
/// block: returns thread `t`'s outputs `t * N ..` of the sorted tile (and their values),
/// in registers; shared memory holds a copy of the last round's input.
#[inline(always)]
unsafe fn sort_tile<T: Item, P: Values, const N: usize, const FULL: bool, const TB: u32>(
    src: *const T,
    vsrc: P,
    start: u64,
    count: u32,
    descending: u32,
) -> ([T::W; N], [P::V; N]) {
    let desc = descending != 0;
    let m = T::masks(desc);
    let t = gpu::thread_idx();
    let tile = 0; // the key tile starts the dynamic shared memory
    let voff = super::kv_values_offset_in(TB, size_of::<T>() as u32);
    let count = if FULL { TB * N as u32 } else { count };
    unsafe {
        let (src, vsrc) = (src.add(start as usize), vsrc.add(start).ptr());
        gpu::unroll::<N>(|k| {
            let x = k as u32 * TB + t;
            if FULL || x < count {
                sts(tile, x, (*src.add(x as usize)).enc(m));
                if P::ON {
                    sts(voff, x, *vsrc.add(x as usize));
                }
            }
        });
        gpu::sync_threads();
        let first = t * N as u32;
        let valid = count.saturating_sub(first).min(N as u32) as usize;
        let mut v = [lds(tile, first.min(count - 1)); N];
        let mut vals: [P::V; N] = [core::mem::zeroed(); N];
        let by_slot = P::ON && TB > BLOCK && size_of::<T::W>() == 4;
        gpu::unroll::<N>(|k| {
            v[k] = lds(tile, (first + k as u32).min(count - 1));
            if P::ON && !by_slot {
                vals[k] = lds::<P::V>(voff, (first + k as u32).min(count - 1));
            }
        });
        if by_slot {
            // 4-byte keys with values, in the wide block sorts: sort the words (key <<
            // 32 | slot), which are distinct, so the network's order is the stable one
            // (equal keys by slot), then gather each value from the shared slot its
            // key came from (98 comparators for 19 instead of 171 compare-swaps that
            // also swap values). Slots past the data get the largest key, after every
            // valid one. Measured on an H100 (docs/PERFLOG.md, fifteenth session):
            // u32 + u32 pairs +0.3-0.9% from 2^22 up (the wide kernels), but -3.7% at
            // 2^20 in the 256-thread kernel, which keeps the transposition.
            let mut ks = [0u64; N];
            gpu::unroll::<N>(|k| {
                let key: u32 = if k < valid { core::mem::transmute_copy(&v[k]) } else { u32::MAX };
                ks[k] = ((key as u64) << 32) | k as u64;
            });
            network::sort_by_key(&mut ks, |w| w);
            gpu::unroll::<N>(|k| {
                v[k] = core::mem::transmute_copy(&((ks[k] >> 32) as u32));
                vals[k] = lds::<P::V>(voff, first + ks[k] as u32);
            });
        } else if P::ON {
            sort_registers::<T, N>(&mut v, valid, desc, |k| vals.swap(k, k + 1));
        } else if gpu::carry_by_value::<T::W>() {
            // Primitive keys alone: equal keys are equal words, so the network's
            // instability cannot be seen. Slots past the data get the largest word,
            // which sorts last (those slots are never stored).
            gpu::unroll::<N>(|k| {
                if k >= valid {
                    v[k] = T::sentinel();
                }
            });
            network::sort_by_key(&mut v, |w| T::key(w, desc));
        } else if valid == N {
            // Records, whole rows with a constant count: the transposition unrolls
            // without tests. (The value kernels keep one copy: they are at their
            // register bound.)
            sort_registers::<T, N>(&mut v, N, desc, |_| {});
        } else {
            sort_registers::<T, N>(&mut v, valid, desc, |_| {});
        }
        // Round r merges runs of N << r elements (runs of 2^r threads' outputs).
        let mut r = 0;
        while r < TB.trailing_zeros() && ((N as u32) << r) < count {
            // A whole tile's rounds within a warp wait for the warp alone (the first
            // round's stores still wait for the block: they overwrite slots other warps
            // read the tile's rows from).
            let warp_local = FULL && super::warp_local_round(r);
            if warp_local && r > 0 {
                gpu::sync_warp();
            } else {
                gpu::sync_threads();
            }
            let pair = store_round::<T, N, FULL>(tile, t, count, r, &v);
            if P::ON {
                store_blocked::<_, N, FULL>(voff, first, count, pair, &vals);
            }
            if warp_local {
                gpu::sync_warp();
            } else {
                gpu::sync_threads();
            }
            if FULL || first < count {
                let w: Window<u32> = merge_window(t, r, N as u32, count);
                let a0 = w.start + pair;
                let mut pos = [0u32; N];
                let (a, b, d) = (w.a_len, w.b_len, w.diag);
                match (P::ON, super::dense_round(r)) {
                    (true, true) => merge_from_tile::<T, N, true, true>(tile, a0, a, b, d, desc, &mut v, &mut pos),
                    (true, false) => merge_from_tile::<T, N, true, false>(tile, a0, a, b, d, desc, &mut v, &mut pos),
                    (false, true) => merge_from_tile::<T, N, false, true>(tile, a0, a, b, d, desc, &mut v, &mut pos),
                    (false, false) => merge_from_tile::<T, N, false, false>(tile, a0, a, b, d, desc, &mut v, &mut pos),
                }
                if P::ON {
                    gpu::unroll::<N>(|k| vals[k] = lds::<P::V>(voff, a0 + pos[k]));
                }
            }
            r += 1;
        }
        (v, vals)
    }
}

/// Co-rank of the diagonal `k` of the pair `w` of a global pass (over `src`), found by
/// a group of `LANES` lanes of a warp (the result is the same in each): first among the chunk
/// boundaries in `samples` (written with `src`; see [`super::sample_stride`]), then in one
/// round over `src` itself ([`chunk_co_rank`]). With `GUIDED` (the partition
/// kernels) the coarse search starts with a round around the likely answer
/// ([`super::coarse_guess`]); the in-merge searches keep plain rounds, since the guided
/// round's code in the merge kernels cost the key-value merges registers and 1-6% at
/// every size (docs/PERFLOG.md, sixteenth session).
#[inline(always)]
unsafe fn pass_co_rank<T: SortKey, const GUIDED: bool, const LANES: u32>(
    src: *const T,
    samples: *const T,
    w: &Window<u64>,
    k: u64,
    desc: bool,
) -> u64 {
    let lanes = LANES;
    let lane = gpu::lane_id() % LANES;
    let stride = sample_stride::<T>() as u64;
    let (a, bb) = (w.start, w.start + w.a_len);
    let (mut lo, mut hi) = co_rank_range(k, w.a_len, w.b_len);
    if w.b_len > 0 {
        let (c0, c1) = super::coarse_range(lo, hi, stride);
        // Chunk candidate `c`: is `a[stride * c]` among the first `k` outputs? (Read from
        // the samples: a chunk's first element of `A`, its partner a chunk's last of `B`.)
        let before = |c: u64| {
            let (ga, gb) = (a + stride * c, bb + k - 1 - stride * c);
            unsafe {
                (*samples.add((2 * (ga / stride)) as usize)).ord_bits(desc)
                    <= (*samples.add((2 * (gb / stride) + 1) as usize)).ord_bits(desc)
            }
        };
        let (mut s0, mut s1) = (c0, c1);
        if GUIDED && let Some(guess) = super::coarse_guess(k, w.a_len, w.b_len, (c0, c1), stride) {
            let trues = gpu::ballot_group::<LANES>(before(guided_probe(c0, c1, guess, lane, lanes))).count_ones();
            (s0, s1) = guided_narrow(c0, c1, guess, trues, lanes);
        }
        let cf = group_search::<LANES>(s0, s1, before);
        (lo, hi) = super::refine_range(lo, hi, stride, c0, c1, cf);
    }
    // At most one chunk is left: with `B` non-empty the coarse search leaves one
    // ([`super::refine_range`]), with `B` empty the range is `[k, k]`.
    unsafe { chunk_co_rank::<T, LANES>(src.add(a as usize), src.add(bb as usize), k, lo, hi, desc) }
}

/// Co-rank of the diagonal `k` in the merge of `A` (at `a`) and `B` (at `bb`) among the
/// at most [`sample_stride`] candidates `[lo, hi)` a coarse search left (the answer in
/// `[lo, hi]`), in one round: each lane of the group tests `stride / LANES` of them
/// ([`super::chunk_candidate`]), all its loads issued before the ballots; the trues of
/// the monotone predicate are the candidates before the answer.
#[inline(always)]
unsafe fn chunk_co_rank<T: SortKey, const LANES: u32>(
    a: *const T,
    bb: *const T,
    k: u64,
    lo: u64,
    hi: u64,
    desc: bool,
) -> u64 {
    const MAX_PER_LANE: usize = (super::MAX_SAMPLE / 8) as usize;
    let per_lane = const { sample_stride::<T>() / LANES };
    const { assert!(sample_stride::<T>() / LANES <= MAX_PER_LANE as u32, "a chunk's candidates per lane") };
    let lane = gpu::lane_id() % LANES;
    let mut before = [false; MAX_PER_LANE];
    gpu::unroll::<MAX_PER_LANE>(|i| {
        let x = super::chunk_candidate(lo, lane, i as u32, LANES);
        if (i as u32) < per_lane && x < hi {
            before[i] = unsafe { a_before_partner(a, bb, k, x, desc) };
        }
    });
    let mut trues = 0;
    gpu::unroll::<MAX_PER_LANE>(|i| {
        if (i as u32) < per_lane {
            trues += gpu::ballot_group::<LANES>(before[i]).count_ones() as u64;
        }
    });
    lo + trues
}

/// The co-ranks `(i0, i1)` of block `b`'s first output and of the output after its
/// last (`count` outputs; the window `w` of its pair), searched inside the merge
/// kernel by warps 0 and 1 at once ([`pass_co_rank`]; the pair's end needs no search)
/// and shared through the 16 bytes at byte `at` of the dynamic shared memory. This
/// replaces a partition kernel per pass: the searches of one block overlap the merging
/// of the others on the SM, and a pass is one launch. Inlined, it makes
/// `mergepath_merge_kv_u32_*` spill 32 bytes; not inlined (a call in the kernel), every
/// merge measured 2-5% slower, so it stays inlined (docs/PERFLOG.md).
#[inline(always)]
unsafe fn pass_co_ranks<T: SortKey>(
    src: *const T,
    samples: *const T,
    w: &Window<u64>,
    count: u32,
    at: u32,
    desc: bool,
) -> (u64, u64) {
    let warp = gpu::thread_idx() / 32;
    unsafe {
        if warp < 2 {
            let k = w.diag + warp as u64 * count as u64;
            let i =
                if k == w.a_len + w.b_len { w.a_len } else { pass_co_rank::<_, false, 32>(src, samples, w, k, desc) };
            if gpu::lane_id() == 0 {
                sts::<u64>(at, warp, i);
            }
        }
        gpu::sync_threads();
        (lds::<u64>(at, 0), lds::<u64>(at, 1))
    }
}

/// Partition of one global pass (for large inputs, see [`super::co_ranks_in_merge`]):
/// `parts[b]` = co-rank of block `b`'s first output in its pair of runs of
/// `tile << log_run` elements. `LANES` lanes per block (a group of the warp);
/// `samples` are those written with `src`.
#[inline(always)]
unsafe fn partition<T: SortKey, const LANES: u32>(
    src: *const T,
    samples: *const T,
    parts: *mut u64,
    n: u64,
    tile: u32,
    log_run: u32,
    descending: u32,
) {
    let b = gpu::global_idx() / LANES as u64;
    if b >= super::tiles(n, tile) {
        return;
    }
    let w = merge_window(b, log_run, tile as u64, n);
    let i = unsafe { pass_co_rank::<_, true, LANES>(src, samples, &w, w.diag, descending != 0) };
    if gpu::lane_id() % LANES == 0 {
        unsafe { *parts.add(b as usize) = i };
    }
}

/// Partition of the merge of two given runs, `A` = `a[..a_len]` and `B` = `bb[..b_len]`
/// (anywhere in memory; [`super::pair_window`]). [`super::PAIR_PARTITION_LANES`] lanes
/// per block.
#[inline(always)]
unsafe fn partition_pair<T: SortKey>(
    a: *const T,
    bb: *const T,
    parts: *mut u64,
    a_len: u64,
    b_len: u64,
    tile: u32,
    descending: u32,
) {
    const LANES: u32 = super::PAIR_PARTITION_LANES;
    let b = gpu::global_idx() / LANES as u64;
    if b >= super::tiles(a_len + b_len, tile) {
        return;
    }
    let w = super::pair_window(b, tile, a_len, b_len);
    let (lo, hi) = co_rank_range(w.diag, a_len, b_len);
    let i = unsafe { co_rank_search::<T, LANES>(a, bb, w.diag, lo, hi, descending != 0) };
    if gpu::lane_id() % LANES == 0 {
        unsafe { *parts.add(b as usize) = i };
    }
}

/// The co-ranks of block `b` in a global pass: from the partition kernel's `parts`, or
/// (`parts` null, small inputs: [`super::co_ranks_in_merge`]) searched by the block
/// itself ([`pass_co_ranks`]).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn global_co_ranks<T: SortKey>(
    src: *const T,
    samples: *const T,
    parts: *const u64,
    b: u64,
    w: &Window<u64>,
    count: u32,
    at: u32,
    desc: bool,
) -> (u64, u64) {
    unsafe {
        if parts.is_null() {
            pass_co_ranks(src, samples, w, count, at, desc)
        } else {
            block_co_ranks(w, count, *parts.add(b as usize), || *parts.add(b as usize + 1))
        }
    }
}

/// The merge-path predicate of candidate `x` on diagonal `k`: is `A[x]` among the
/// first `k` outputs, i.e. `A[x] <= B[k - 1 - x]` (ties go to `A`)? True for a prefix of
/// the candidates; the co-rank is the first false one.
#[inline(always)]
unsafe fn a_before_partner<T: SortKey>(a: *const T, bb: *const T, k: u64, x: u64, desc: bool) -> bool {
    unsafe { (*a.add(x as usize)).ord_bits(desc) <= (*bb.add((k - 1 - x) as usize)).ord_bits(desc) }
}

/// Co-rank of the diagonal `k` in the merge of `A` (at `a`) and `B` (at `bb`), known to
/// lie in `[lo, hi]`, found by a group of `LANES` lanes of a warp (the result is the same
/// in each): each round they probe `LANES` evenly spaced candidates at once
/// ([`co_rank_probe`]) and a ballot narrows the range about `LANES + 1`-fold (5 rounds of
/// a warp for 2^23 candidates, where a binary search takes 23 dependent global loads).
/// For ranges without samples (the partition of two given runs); after a coarse search
/// over samples, [`chunk_co_rank`] finishes in one round.
#[inline(always)]
unsafe fn co_rank_search<T: SortKey, const LANES: u32>(
    a: *const T,
    bb: *const T,
    k: u64,
    lo: u64,
    hi: u64,
    desc: bool,
) -> u64 {
    group_search::<LANES>(lo, hi, |x| unsafe { a_before_partner(a, bb, k, x, desc) })
}

/// The first candidate in `[lo, hi)` whose predicate `before` is false (`hi` if none;
/// `before` true for a prefix), found by a group of `LANES` lanes of a warp (the result
/// is the same in each): each round they test `LANES` evenly spaced candidates at once
/// ([`co_rank_probe`]) and a ballot narrows the range about `LANES + 1`-fold
/// ([`many_way_search`]). The co-rank searches over global memory, over samples and
/// over a cluster's shared memory all run on it.
#[inline(always)]
fn group_search<const LANES: u32>(lo: u64, hi: u64, before: impl Fn(u64) -> bool) -> u64 {
    let lane = gpu::lane_id() % LANES;
    many_way_search(lo, hi, LANES, |l, h| {
        gpu::ballot_group::<LANES>(before(co_rank_probe(l, h, lane, LANES))).count_ones()
    })
}

/// Merge of one global pass: block `b` writes outputs `b * tile ..` of the pairwise
/// merge of runs of `tile << log_run` elements from `src` to `dst` (and the values
/// of `vsrc` to `vdst` with their keys).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn merge<T: Item, P: Values, const N: usize>(
    src: *const T,
    vsrc: P,
    dst: *mut T,
    vdst: P,
    samples_in: *const T,
    samples: *mut T,
    parts: *const u64,
    n: u64,
    log_run: u32,
    flags: u32,
    descending: u32,
) {
    // [`super::PASS_REVERSED`]: the blocks run from the last tile down, so that the tiles
    // the previous pass wrote last (still in L2) are read first.
    let reversed = flags & super::PASS_REVERSED != 0;
    let b = if reversed { gpu::grid_dim() - 1 - gpu::block_idx() } else { gpu::block_idx() } as u64;
    let stream = flags & super::PASS_STREAMING != 0;
    let w = merge_window(b, log_run, (BLOCK * N as u32) as u64, n);
    let (kb, vb) = (size_of::<T>() as u32, size_of::<P::V>() as u32);
    let at = super::co_ranks_offset(if P::ON { super::kv_smem_bytes(kb, vb) } else { super::smem_bytes(kb) });
    let co_ranks = |count| unsafe { global_co_ranks(src, samples_in, parts, b, &w, count, at, descending != 0) };
    unsafe {
        let (a, va) = (src.add(w.start as usize), vsrc.add(w.start));
        let (bb, vb) = (a.add(w.a_len as usize), va.add(w.a_len));
        merge_block::<T, P, N>(a, bb, va, vb, dst, vdst, samples, co_ranks, b, n, w, stream, descending)
    }
}

/// Merge of two given runs, `A` = `a[..a_len]` and `B` = `bb[..b_len]` (anywhere in
/// memory; [`super::pair_window`]) with their values `va`, `vb`: block `b` writes
/// outputs `b * tile ..` of `dst` (and `vdst`).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn merge_pair<T: Item, P: Values, const N: usize>(
    a: *const T,
    bb: *const T,
    va: P,
    vb: P,
    dst: *mut T,
    vdst: P,
    parts: *const u64,
    a_len: u64,
    b_len: u64,
    descending: u32,
) {
    let b = gpu::block_idx() as u64;
    let w = super::pair_window(b, BLOCK * N as u32, a_len, b_len);
    let null = core::ptr::null_mut();
    let co_ranks = |count| unsafe { block_co_ranks(&w, count, *parts.add(b as usize), || *parts.add(b as usize + 1)) };
    unsafe { merge_block::<T, P, N>(a, bb, va, vb, dst, vdst, null, co_ranks, b, a_len + b_len, w, false, descending) }
}

/// Block `b`'s tile of outputs (of `n` in all) of the merge whose window is `w` (its
/// `A` at `a` with values `va`, its `B` at `bb` with values `vb`), given
/// `co_ranks(count)`, the co-ranks of its first output and of the one after its last
/// ([`block_co_ranks`]); writes the samples of its outputs unless `samples` is null.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn merge_block<T: Item, P: Values, const N: usize>(
    a: *const T,
    bb: *const T,
    va: P,
    vb: P,
    dst: *mut T,
    vdst: P,
    samples: *mut T,
    co_ranks: impl FnOnce(u32) -> (u64, u64),
    b: u64,
    n: u64,
    w: Window<u64>,
    stream: bool,
    descending: u32,
) {
    let (start, count) = block_range(b, BLOCK * N as u32, n);
    let co = co_ranks(count);
    let out = (dst, vdst, samples);
    unsafe {
        match (count == BLOCK * N as u32, stream) {
            (true, true) => {
                merge_block_tile::<T, P, N, true, true>(a, bb, va, vb, out, co, start, count, w, descending)
            }
            (true, false) => {
                merge_block_tile::<T, P, N, true, false>(a, bb, va, vb, out, co, start, count, w, descending)
            }
            (false, true) => {
                merge_block_tile::<T, P, N, false, true>(a, bb, va, vb, out, co, start, count, w, descending)
            }
            (false, false) => {
                merge_block_tile::<T, P, N, false, false>(a, bb, va, vb, out, co, start, count, w, descending)
            }
        }
    }
}

/// [`merge_block`] of the tile of `count` outputs at `start` (see [`block_sort`] for
/// `FULL`). The keys merge with per-thread co-ranks in shared memory; each output
/// remembers the tile slot it came from, and the values are gathered by those slots.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn merge_block_tile<T: Item, P: Values, const N: usize, const FULL: bool, const STREAM: bool>(
    a: *const T,
    bb: *const T,
    va: P,
    vb: P,
    (dst, vdst, samples): (*mut T, P, *mut T),
    (i0, i1): (u64, u64),
    start: u64,
    count: u32,
    w: Window<u64>,
    descending: u32,
) {
    let desc = descending != 0;
    let m = T::masks(desc);
    let t = gpu::thread_idx();
    let tile = 0; // the key tile starts the dynamic shared memory
    let voff = super::kv_values_offset(size_of::<T>() as u32);
    let count = if FULL { BLOCK * N as u32 } else { count };
    unsafe {
        let j0 = w.diag - i0;
        let la = (i1 - i0) as u32;
        let lb = count - la;
        // A's window then B's window, contiguous in the tile.
        let (a_src, b_src) = (a.add(i0 as usize), bb.add(j0 as usize));
        let (va_src, vb_src) = (va.add(i0).ptr(), vb.add(j0).ptr());
        gpu::unroll::<N>(|k| {
            let x = k as u32 * BLOCK + t;
            if FULL || x < count {
                // Select the address, not the element (a selected record goes
                // through local memory).
                let p = if x < la { a_src.add(x as usize) } else { b_src.add((x - la) as usize) };
                sts(tile, x, load_input::<_, STREAM>(p).enc(m));
                if P::ON {
                    let q = if x < la { va_src.add(x as usize) } else { vb_src.add((x - la) as usize) };
                    sts(voff, x, load_input::<_, STREAM>(q));
                }
            }
        });
        if t == 0 {
            sts(tile, count, T::sentinel());
        }
        gpu::sync_threads();
        let first = t * N as u32;
        let mut v = [lds(tile, 0); N];
        let mut pos = [0u32; N];
        let mut vals: [P::V; N] = [core::mem::zeroed(); N];
        if FULL || first < count {
            if P::ON {
                merge_from_tile::<T, N, true, false>(tile, 0, la, lb, first, desc, &mut v, &mut pos);
            } else {
                merge_from_tile::<T, N, false, false>(tile, 0, la, lb, first, desc, &mut v, &mut pos);
            }
        }
        if P::ON {
            gpu::unroll::<N>(|k| {
                if FULL || first + (k as u32) < count {
                    vals[k] = lds::<P::V>(voff, pos[k]);
                }
            });
        }
        store_tile::<T, P, N, FULL, BLOCK>(&v, &vals, dst, vdst, samples, start, count, m);
    }
}

/// Loads an element of a merge's input, with `STREAM` as last-use data
/// ([`gpu::ld_global_cs`], see [`super::PASS_STREAMING`]).
#[inline(always)]
unsafe fn load_input<T: Copy, const STREAM: bool>(p: *const T) -> T {
    unsafe { if STREAM { gpu::ld_global_cs(p) } else { *p } }
}

/// Writes a block's sorted tile: this thread's `N` consecutive outputs `v` (values
/// `vals`) go to the tile in shared memory, then the whole tile to `dst` (`vdst`) at
/// element `start`, coalesced, with the samples unless `samples` is null.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn store_tile<T: Item, P: Values, const N: usize, const FULL: bool, const TB: u32>(
    v: &[T::W; N],
    vals: &[P::V; N],
    dst: *mut T,
    vdst: P,
    samples: *mut T,
    start: u64,
    count: u32,
    m: T::M,
) {
    let tile = 0; // the key tile starts the dynamic shared memory
    let voff = super::kv_values_offset_in(TB, size_of::<T>() as u32);
    let first = gpu::thread_idx() * N as u32;
    unsafe {
        gpu::sync_threads();
        store_blocked::<_, N, FULL>(tile, first, count, 0, v);
        if P::ON {
            store_blocked::<_, N, FULL>(voff, first, count, 0, vals);
        }
        gpu::sync_threads();
        store_striped::<T, N, FULL, TB>(tile, dst, samples, start, count, m);
        if P::ON {
            copy_striped::<P::V, N, FULL, TB>(voff, vdst.add(start).ptr(), count);
        }
    }
}

/// Copies `count` elements of the shared-memory array at byte `tile` to `dst` as they
/// are, `TB` consecutive ones per step (coalesced): the values of the key-value
/// kernels ([`store_striped`] does the keys).
#[inline(always)]
unsafe fn copy_striped<V: Copy, const N: usize, const FULL: bool, const TB: u32>(tile: u32, dst: *mut V, count: u32) {
    let t = gpu::thread_idx();
    gpu::unroll::<N>(|k| {
        let x = k as u32 * TB + t;
        if FULL || x < count {
            unsafe { *dst.add(x as usize) = lds::<V>(tile, x) };
        }
    });
}

macro_rules! mergepath_kv_entries {
    ($t:ty, $suffix:ident) => {
        mergepath_kv_entries!(@value $t, $suffix, u32, v32);
        mergepath_kv_entries!(@value $t, $suffix, u64, v64);
    };
    (@value $t:ty, $suffix:ident, $v:ty, $vs:ident) => {
        paste::paste! {
            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn [<mergepath_pair_merge_kv_ $suffix _ $vs>](
                a: *const $t, b: *const $t, va: *const $v, vb: *const $v, dst: *mut $t, vdst: *mut $v,
                parts: *const u64, a_len: u64, b_len: u64, descending: u32,
            ) {
                gpu::grid_dependency_wait();
                const N: usize = super::kv_items(size_of::<$t>() as u32) as usize;
                let (va, vb, vdst) = (ValuesAt(va as *mut $v), ValuesAt(vb as *mut $v), ValuesAt(vdst));
                unsafe { merge_pair::<$t, _, N>(a, b, va, vb, dst, vdst, parts, a_len, b_len, descending) }
            }

            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn [<mergepath_block_sort_kv_ $suffix _ $vs>](
                src: *const $t, vsrc: *const $v, dst: *mut $t, vdst: *mut $v, samples: *mut $t, n: u64,
                descending: u32,
            ) {
                gpu::grid_dependency_wait();
                const N: usize = super::kv_items(size_of::<$t>() as u32) as usize;
                let (vsrc, vdst) = (ValuesAt(vsrc as *mut $v), ValuesAt(vdst));
                unsafe { block_sort::<$t, _, N, BLOCK>(src, vsrc, dst, vdst, samples, n, descending) }
            }

            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn [<mergepath_merge_kv_ $suffix _ $vs>](
                src: *const $t, vsrc: *const $v, dst: *mut $t, vdst: *mut $v, samples_in: *const $t,
                samples: *mut $t, parts: *const u64, n: u64, log_run: u32, flags: u32, descending: u32,
            ) {
                gpu::grid_dependency_wait();
                const N: usize = super::kv_items(size_of::<$t>() as u32) as usize;
                let (vsrc, vdst) = (ValuesAt(vsrc as *mut $v), ValuesAt(vdst));
                unsafe {
                    merge::<$t, _, N>(src, vsrc, dst, vdst, samples_in, samples, parts, n, log_run, flags, descending)
                }
            }
        }
    };
}
/// The wide block sorts (`mergepath_block_sort_x<w>_*`): `w` merge tiles per block of
/// `w * BLOCK` threads, at the widths of [`super::sort_width`] (checked by a host test
/// against the PTX's entries).
macro_rules! mergepath_wide_entries {
    (keys $t:ty, $suffix:ident, $w:literal) => {
        paste::paste! {
            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn [<mergepath_block_sort_x $w _ $suffix>](
                src: *const $t, dst: *mut $t, samples: *mut $t, n: u64, descending: u32,
            ) {
                gpu::grid_dependency_wait();
                const N: usize = super::items(size_of::<$t>() as u32) as usize;
                unsafe { block_sort::<$t, _, N, { BLOCK * $w }>(src, NoValues, dst, NoValues, samples, n, descending) }
            }
        }
    };
    (pairs $t:ty, $suffix:ident, $v:ty, $vs:ident, $w:literal) => {
        paste::paste! {
            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn [<mergepath_block_sort_kv_x $w _ $suffix _ $vs>](
                src: *const $t, vsrc: *const $v, dst: *mut $t, vdst: *mut $v, samples: *mut $t, n: u64,
                descending: u32,
            ) {
                gpu::grid_dependency_wait();
                const N: usize = super::kv_items(size_of::<$t>() as u32) as usize;
                let (vsrc, vdst) = (ValuesAt(vsrc as *mut $v), ValuesAt(vdst));
                unsafe { block_sort::<$t, _, N, { BLOCK * $w }>(src, vsrc, dst, vdst, samples, n, descending) }
            }
        }
    };
}
mergepath_wide_entries!(keys u32, u32, 2);
mergepath_wide_entries!(keys i32, i32, 2);
mergepath_wide_entries!(keys f32, f32, 2);
mergepath_wide_entries!(keys u32, u32, 4);
mergepath_wide_entries!(keys i32, i32, 4);
mergepath_wide_entries!(keys f32, f32, 4);
mergepath_wide_entries!(keys u64, u64, 4);
mergepath_wide_entries!(keys i64, i64, 4);
mergepath_wide_entries!(keys f64, f64, 4);
mergepath_wide_entries!(pairs u32, u32, u32, v32, 4);
mergepath_wide_entries!(pairs i32, i32, u32, v32, 4);
mergepath_wide_entries!(pairs f32, f32, u32, v32, 4);
mergepath_wide_entries!(pairs u64, u64, u32, v32, 4);
mergepath_wide_entries!(pairs i64, i64, u32, v32, 4);
mergepath_wide_entries!(pairs f64, f64, u32, v32, 4);
mergepath_wide_entries!(pairs u64, u64, u64, v64, 4);
mergepath_wide_entries!(pairs i64, i64, u64, v64, 4);
mergepath_wide_entries!(pairs f64, f64, u64, v64, 4);

/// The cluster block sorts (`mergepath_block_sort_x8_*`): clusters of two blocks of
/// `4 * BLOCK` threads ([`super::cluster_ctas`]), each cluster one run of 8 merge
/// tiles ([`cluster_block_sort`]).
macro_rules! mergepath_cluster_entries {
    ($t:ty, $suffix:ident, $w:literal) => {
        paste::paste! {
            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn [<mergepath_block_sort_x $w _ $suffix>](
                src: *const $t, dst: *mut $t, samples: *mut $t, n: u64, descending: u32,
            ) {
                gpu::grid_dependency_wait();
                const N: usize = super::items(size_of::<$t>() as u32) as usize;
                const { assert!(super::cluster_ctas($w) == 2, "clusters of two blocks") };
                unsafe { cluster_block_sort::<$t, N, { BLOCK * $w / 2 }>(src, dst, samples, n, descending) }
            }
        }
    };
}
mergepath_cluster_entries!(u32, u32, 8);
mergepath_cluster_entries!(i32, i32, 8);
mergepath_cluster_entries!(f32, f32, 8);

mergepath_kv_entries!(u32, u32);
mergepath_kv_entries!(i32, i32);
mergepath_kv_entries!(f32, f32);
mergepath_kv_entries!(u64, u64);
mergepath_kv_entries!(i64, i64);
mergepath_kv_entries!(f64, f64);

macro_rules! mergepath_entries {
    ($t:ty, $suffix:ident) => {
        paste::paste! {
            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn [<mergepath_block_sort_ $suffix>](
                src: *const $t, dst: *mut $t, samples: *mut $t, n: u64, descending: u32,
            ) {
                gpu::grid_dependency_wait();
                const N: usize = super::items(size_of::<$t>() as u32) as usize;
                unsafe { block_sort::<$t, _, N, BLOCK>(src, NoValues, dst, NoValues, samples, n, descending) }
            }

            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn [<mergepath_partition_ $suffix>](
                src: *const $t, samples: *const $t, parts: *mut u64, n: u64, tile: u32, log_run: u32,
                descending: u32,
            ) {
                gpu::grid_dependency_wait();
                unsafe { partition::<$t, 32>(src, samples, parts, n, tile, log_run, descending) }
            }

            /// The partition for passes of many co-ranks, 8 lanes each (`partition_lanes`).
            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn [<mergepath_partition_l8_ $suffix>](
                src: *const $t, samples: *const $t, parts: *mut u64, n: u64, tile: u32, log_run: u32,
                descending: u32,
            ) {
                gpu::grid_dependency_wait();
                unsafe { partition::<$t, 8>(src, samples, parts, n, tile, log_run, descending) }
            }

            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn [<mergepath_pair_partition_ $suffix>](
                a: *const $t, b: *const $t, parts: *mut u64, a_len: u64, b_len: u64, tile: u32, descending: u32,
            ) {
                gpu::grid_dependency_wait();
                unsafe { partition_pair::<$t>(a, b, parts, a_len, b_len, tile, descending) }
            }

            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn [<mergepath_pair_merge_ $suffix>](
                a: *const $t, b: *const $t, dst: *mut $t, parts: *const u64, a_len: u64, b_len: u64, descending: u32,
            ) {
                gpu::grid_dependency_wait();
                const N: usize = super::items(size_of::<$t>() as u32) as usize;
                unsafe { merge_pair::<$t, _, N>(a, b, NoValues, NoValues, dst, NoValues, parts, a_len, b_len, descending) }
            }

            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn [<mergepath_merge_ $suffix>](
                src: *const $t, dst: *mut $t, samples_in: *const $t, samples: *mut $t, parts: *const u64, n: u64,
                log_run: u32, flags: u32, descending: u32,
            ) {
                gpu::grid_dependency_wait();
                const N: usize = super::items(size_of::<$t>() as u32) as usize;
                let (s_in, p) = (samples_in, parts);
                unsafe { merge::<$t, _, N>(src, NoValues, dst, NoValues, s_in, samples, p, n, log_run, flags, descending) }
            }
        }
    };
}
crate::for_each_key_type!(mergepath_entries);
