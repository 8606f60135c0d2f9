//! The blockmerge kernels: the in-block sort and a cross-block pass.
use super::{BlockSort, CrossPass};
use crate::gpu;
use crate::key::SortKey;

/// Phase 1: sorts tile `block_idx` of `data` in place, through two shared-memory
/// buffers of `1 << log_tile` elements each.
#[inline(always)]
pub unsafe fn block_sort<T: SortKey>(p: BlockSort<T>) {
    let BlockSort { data, n, log_tile, direction } = p;
    let data = data.get();
    let desc = direction.is_descending();
    let (t, block) = (gpu::thread_idx(), gpu::block_dim());
    let tile = 1u64 << log_tile;
    let start = gpu::block_idx() as u64 * tile;
    let len = if n - start < tile { n - start } else { tile };
    let smem = gpu::dyn_smem::<T>();
    unsafe {
        // Step `w` reads `a` when `w` is odd; selects, not an indexed array, so the
        // pointers stay in registers.
        let (a, b) = (smem, smem.add(tile as usize));
        let mut x = t as u64;
        while x < len {
            *a.add(x as usize) = *data.add((start + x) as usize);
            x += block as u64;
        }
        gpu::sync_threads();
        for log_width in 1..=log_tile {
            let (src, dst) = if log_width % 2 == 1 { (a, b) } else { (b, a) };
            if gpu::carry_by_value::<T>() {
                let load = |x: u64| {
                    let v = *src.add(x as usize);
                    (v.ord_bits(desc), v)
                };
                super::tile_step(t, block, len, log_width, load, |o, v| *dst.add(o as usize) = v);
            } else {
                let load = |x: u64| ((*src.add(x as usize)).ord_bits(desc), x);
                let store = |o: u64, x: u64| *dst.add(o as usize) = *src.add(x as usize);
                super::tile_step(t, block, len, log_width, load, store);
            }
            gpu::sync_threads();
        }
        let done = if log_tile % 2 == 1 { b } else { a };
        let mut x = t as u64;
        while x < len {
            *data.add((start + x) as usize) = *done.add(x as usize);
            x += block as u64;
        }
    }
}

/// Phase 2: one cross-block pass merging run pairs of width `1 << log_run`.
/// Shared memory: the block's two co-rank bounds (`2 x u64`), then its outputs
/// (`block * CROSS_ITEMS` elements). Each thread's outputs are consecutive, so
/// written straight to global memory a warp's stores would be strided; they are
/// staged and the block copies them out coalesced.
#[inline(always)]
pub unsafe fn cross_pass<T: SortKey>(p: CrossPass<T>) {
    let CrossPass { src, dst, n, log_run, direction } = p;
    let (src, dst) = (src.get(), dst.get());
    let desc = direction.is_descending();
    let (t, block) = (gpu::thread_idx() as u64, gpu::block_dim());
    let out = super::cross_block_outputs(gpu::block_idx() as u64, block, n);
    let bounds = gpu::dyn_smem::<u64>();
    unsafe {
        let staged = bounds.add(2) as *mut T;
        let key = |x: u64| (*src.add(x as usize)).ord_bits(desc);
        if t < 2 {
            *bounds.add(t as usize) = super::block_co_rank(&out, t == 1, n, log_run, key);
        }
        gpu::sync_threads();
        let bracket = *bounds..=*bounds.add(1);
        let g = gpu::global_idx();
        let stage = |o: u64| staged.add((o - out.start) as usize);
        if gpu::carry_by_value::<T>() {
            let load = |x: u64| {
                let v = *src.add(x as usize);
                (v.ord_bits(desc), v)
            };
            super::cross_thread(g, n, log_run, bracket, key, load, |o, v| *stage(o) = v);
        } else {
            let load = |x: u64| (key(x), x);
            super::cross_thread(g, n, log_run, bracket, key, load, |o, x| *stage(o) = *src.add(x as usize));
        }
        gpu::sync_threads();
        let mut x = out.start + t;
        while x < out.end {
            *dst.add(x as usize) = *stage(x);
            x += block as u64;
        }
    }
}
