//! The bitonic kernels: shared-memory stages of a tile, and one global stage.
use super::{GlobalStage, TileStages};
use crate::block::network::bitonic_comparator;
use crate::gpu;
use crate::key::SortKey;

/// Swaps two elements of shared memory (through registers, see
/// `gpu::load_shared_element`).
#[inline(always)]
unsafe fn swap_shared<T: Copy>(a: *mut T, b: *mut T) {
    unsafe {
        let (x, y) = (gpu::load_shared_element(a), gpu::load_shared_element(b));
        a.write(y);
        b.write(x);
    }
}

/// Shared-memory stages of merges `k_first ..= k_last` on tile `block_idx`.
#[inline(always)]
pub unsafe fn tile<T: SortKey>(p: TileStages<T>) {
    let TileStages { data, n, log_tile, k_first, k_last, direction } = p;
    let data = data.get();
    let desc = direction.is_descending();
    let (t, block) = (gpu::thread_idx() as u64, gpu::block_dim() as u64);
    let tile = 1u64 << log_tile;
    let start = gpu::block_idx() as u64 * tile;
    let len = if n - start < tile { n - start } else { tile };
    let s = gpu::dyn_smem::<T>();
    unsafe {
        let mut x = t;
        while x < len {
            *s.add(x as usize) = *data.add((start + x) as usize);
            x += block;
        }
        gpu::sync_threads();
        super::tile_stages(k_first, k_last, tile, |k, j| {
            for q in 0..super::TILE_PAIRS as u64 {
                let (lo, hi) = bitonic_comparator(t + q * block, k, j);
                if super::must_swap(lo, hi, len, |x| (*s.add(x as usize)).ord_bits(desc)) {
                    swap_shared(s.add(lo as usize), s.add(hi as usize));
                }
            }
            gpu::sync_threads();
        });
        let mut x = t;
        while x < len {
            *data.add((start + x) as usize) = *s.add(x as usize);
            x += block;
        }
    }
}

/// One global stage: thread `p` applies comparator `p` of stride `j` in merge `k`.
#[inline(always)]
pub unsafe fn global<T: SortKey>(params: GlobalStage<T>) {
    let GlobalStage { data, n, k, j, direction } = params;
    let data = data.get();
    let desc = direction.is_descending();
    let p = gpu::global_idx();
    if p >= super::comparator_count(n, j) {
        return;
    }
    let (lo, hi) = bitonic_comparator(p, k, j);
    unsafe {
        if super::must_swap(lo, hi, n, |x| (*data.add(x as usize)).ord_bits(desc)) {
            core::ptr::swap(data.add(lo as usize), data.add(hi as usize));
        }
    }
}
