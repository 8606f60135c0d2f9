//! The row kernels' bodies that are more than one line (see the module docs).
use super::{RowSort, RowTake, row_smem, take_source};
use crate::block::rank::{RankSmem, rank_by_digit};
use crate::block::smem::{lds_at, sts_at};
use crate::block::tile::{load_striped, warp_striped};
use crate::block::{WARP, unroll};
use crate::gpu;
use crate::key::Word;
use crate::nan::nan_mapped;
use crate::radix::{DIGITS, Smem, pass_digit, passes};

/// See [`RowTake`].
#[inline(always)]
pub(super) unsafe fn take<K: Copy>(p: RowTake<K>) {
    let g = gpu::global_idx();
    if g < p.rows as u64 * p.k as u64 {
        let from = take_source(g, p.cols, p.k) as usize;
        unsafe {
            *p.dst.get().add(g as usize) = *p.src.get().add(from);
            *p.dst_idx.get().add(g as usize) = *p.src_idx.get().add(from);
        }
    }
}

/// See [`RowSort`]: the radix one-block sort of row `blockIdx.x`, `I` keys per thread.
/// Total order and NaN-last order are two copies of the body in the one entry, chosen
/// once per block: the map inside the ranking's digit, behind a runtime test, made the
/// total-order sort ~25% slower (H200, 4,096 x 4,096 `f32` 0.244 -> 0.308 ms).
///
/// NaN-last order: the entries without columns map each key as the ranking computes
/// its digit (twice a pass) and move its own bits; the `_idx` entries map the keys once
/// as they load them, sort the canonical bits with their columns and, where keys are
/// written, read each key's own bits back by its column (mapping in the digit made the
/// column entries up to 19% slower than a separate canonical copy, H200, 2026-11-28).
#[inline(always)]
pub(super) unsafe fn sort_row<K: Word, const IDX: bool, const I: usize>(p: RowSort<K>) {
    unsafe {
        if p.nan_inf.to_u64() == 0 { sort_row_in::<K, IDX, I, false>(p) } else { sort_row_in::<K, IDX, I, true>(p) }
    }
}

/// [`sort_row`] in total order (`NAN` false) or in NaN-last order by `p.nan_inf`.
#[inline(always)]
unsafe fn sort_row_in<K: Word, const IDX: bool, const I: usize, const NAN: bool>(p: RowSort<K>) {
    let RowSort { src, dst, idx, cols, keep, pos, neg, nan_inf } = p;
    let row = gpu::block_idx() as usize * cols as usize;
    let out_row = gpu::block_idx() as usize * keep as usize;
    let (keys_at, cols_at, _) = const { row_smem(K::BYTES, IDX, I as u32) };
    let base = gpu::smem_base();
    let s = Smem::small(K::BYTES, 0);
    let smem = RankSmem { warp_digits: base + s.warp_digits, scan: base + s.scan, digit_start: base + s.digit_start };
    let (keys_at, cols_at) = (base + keys_at, base + cols_at);
    let (warp, lane) = (gpu::thread_idx() / WARP, gpu::lane_id());
    let slot = |k: usize| warp_striped(warp, k as u32, lane, I as u32);
    unsafe {
        // Slots past the row hold zeros and rank last (digit 255, after every key of
        // the row, as they come after them in the tile): never stored.
        let mut ks = load_striped::<K, I>(src.get().add(row), 0, cols);
        let mut vs = [0u32; I];
        if IDX {
            unroll::<I>(|k| vs[k] = slot(k));
        }
        // Mapped once here (zeros past the row stay zeros), or in the digit below.
        let map_at_load = NAN && IDX;
        if map_at_load {
            unroll::<I>(|k| ks[k] = nan_mapped(ks[k], nan_inf));
        }
        let end = 8 * K::BYTES;
        for pass in 0..passes(0, end) {
            let (shift, mask) = pass_digit(0, end, pass);
            let digit = |k: usize| {
                let key = if NAN && !map_at_load { nan_mapped(ks[k], nan_inf) } else { ks[k] };
                if slot(k) < cols { key.ordered(pos, neg).digit(shift, mask) } else { DIGITS - 1 }
            };
            rank_by_digit::<I, DIGITS>(
                digit,
                smem,
                |_, _| {},
                |k, r| {
                    sts_at::<K>(keys_at + r * K::BYTES, ks[k]);
                    if IDX {
                        gpu::sts_u32(cols_at + 4 * r, vs[k]);
                    }
                },
            );
            gpu::sync_threads();
            unroll::<I>(|k| {
                ks[k] = lds_at::<K>(keys_at + slot(k) * K::BYTES);
                if IDX {
                    vs[k] = gpu::lds_u32(cols_at + 4 * slot(k));
                }
            });
            gpu::sync_threads();
        }
        let (dst, idx) = (dst.get(), idx.get());
        if map_at_load && !dst.is_null() {
            // The keys' own bits by their columns. Uniform across the block; every
            // thread reads before any writes (`dst` may be `src`).
            unroll::<I>(|k| {
                if slot(k) < keep {
                    ks[k] = *src.get().add(row + vs[k] as usize);
                }
            });
            gpu::sync_threads();
        }
        unroll::<I>(|k| {
            let o = slot(k);
            if o < keep {
                if !dst.is_null() {
                    *dst.add(out_row + o as usize) = ks[k];
                }
                if IDX {
                    *idx.add(out_row + o as usize) = vs[k];
                }
            }
        });
    }
}
