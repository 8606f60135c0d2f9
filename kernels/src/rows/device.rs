//! The row kernels' bodies that are more than one line (see the module docs).
use super::{RowSort, RowTake, row_smem, take_source};
use crate::block::rank::{RankSmem, rank_by_digit};
use crate::block::smem::{lds_at, sts_at};
use crate::block::tile::{load_striped, warp_striped};
use crate::block::{WARP, unroll};
use crate::gpu;
use crate::key::Word;
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
#[inline(always)]
pub(super) unsafe fn sort_row<K: Word, const IDX: bool, const I: usize>(p: RowSort<K>) {
    let RowSort { src, dst, idx, gather, cols, keep, pos, neg } = p;
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
        let end = 8 * K::BYTES;
        for pass in 0..passes(0, end) {
            let (shift, mask) = pass_digit(0, end, pass);
            let digit = |k: usize| if slot(k) < cols { ks[k].ordered(pos, neg).digit(shift, mask) } else { DIGITS - 1 };
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
        let (dst, idx, gather) = (dst.get(), idx.get(), gather.get());
        if IDX && !gather.is_null() {
            // Uniform across the block. Every thread reads its keys' own bits before
            // any thread writes (`dst` may be `gather`).
            unroll::<I>(|k| {
                if slot(k) < keep {
                    ks[k] = *gather.add(row + vs[k] as usize);
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
