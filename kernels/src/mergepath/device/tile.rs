//! The mergepath kernels' work on a tile in shared memory: a thread's sequential merge
//! from the tile, and the stores that take a sorted tile (with its samples) out to
//! global memory. The element access by slot and the generic stores are the block
//! primitives' ([`crate::block::smem`], [`crate::block::tile`]).
use super::*;
use crate::block::smem::{lds, lds_at, sts};
use crate::block::tile::{copy_striped, store_blocked};
use crate::block::unroll;

/// Merges `N` outputs of the pair `A = tile[a0 .. a0 + a_len]`,
/// `B = tile[a0 + a_len .. a0 + a_len + b_len]` (contiguous in shared memory) starting
/// at diagonal `diag` into `out`. The thread's split comes from the co-rank (32-bit
/// index math); then each step takes by the stability rule and loads one new head.
/// With `POS`, `pos[k]` gets the tile slot (counted from `a0`) output `k` came from.
///
/// Words (primitive keys, `size <= 8`) need the sentinel ([`Item::sentinel`]) in
/// the slot after `B` and [`crate::mergepath::tile_slots`] room after it: the step tests only
/// `A`'s end (see [`crate::mergepath::round_sentinel`]), and a thread whose outputs run past
/// the pair's end reads on past the sentinel (outputs nobody stores). With `CHECK_B`
/// (the block sort's [`crate::mergepath::dense_round`]s) there is no sentinel and the step tests
/// `B`'s end too. Records test both ends and clamp their reads into the pair.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn merge_from_tile<T: Item, const N: usize, const POS: bool, const CHECK_B: bool>(
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
        unroll::<N>(|k| {
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
        unroll::<N>(|k| {
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

/// The sample stride of elements of type `T` ([`crate::mergepath::sample_stride`] of its size).
pub(super) const fn sample_stride<T>() -> u32 {
    crate::mergepath::sample_stride(size_of::<T>() as u32)
}

/// Copies `count` elements of the tile to `dst` (element `start` of the sequence),
/// `TB` (the block's threads) consecutive ones per step (coalesced), turning them back into `T`
/// ([`Item::dec`]). Unless `samples` is null, also writes the first and the last
/// element of every whole chunk of [`sample_stride`] there (`start` is a multiple of
/// the chunk): one sample per thread, coalesced.
#[inline(always)]
pub(super) unsafe fn store_striped<T: Item, const N: usize, const FULL: bool, const TB: u32>(
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
        unroll::<N>(|k| {
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
/// runs followed by a sentinel slot, [`crate::mergepath::round_shift`], but in a
/// [`crate::mergepath::dense_round`]) and the sentinel its outputs end, if any
/// ([`crate::mergepath::round_sentinel`]). Returns the slot shift of its pair.
#[inline(always)]
pub(super) unsafe fn store_round<T: Item, const N: usize, const FULL: bool>(
    tile: u32,
    t: u32,
    count: u32,
    r: u32,
    v: &[T::W; N],
) -> u32 {
    let pair = crate::mergepath::round_shift(t, r);
    unsafe {
        store_blocked::<_, N, FULL>(tile, t * N as u32, count, pair, v);
        if let Some(slot) = crate::mergepath::round_sentinel(t, N as u32, count, r) {
            sts(tile, slot, T::sentinel());
        }
    }
    pair
}

/// Writes a block's sorted tile: this thread's `N` consecutive outputs `v` (values
/// `vals`) go to the tile in shared memory, then the whole tile to `dst` (`vdst`) at
/// element `start`, coalesced, with the samples unless `samples` is null.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn store_tile<T: Item, P: Values, const N: usize, const FULL: bool, const TB: u32>(
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
    let voff = crate::mergepath::kv_values_offset_in(TB, size_of::<T>() as u32);
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
