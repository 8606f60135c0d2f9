//! The block sort and the chunk pass on the device (see the module docs).
use super::{BlockSort, ChunkPass, block_sort_target, tile_len};
use crate::gpu;
use crate::key::SortKey;
use crate::naive::MergePass;

/// The block sort (`src` != `dst`). Shared memory holds order
/// bits and tile positions ([`super::block_sort_smem_bytes`]), not elements: a
/// search step then reads one key with no conversion, and an element of any size
/// moves once, in the final gather.
#[inline(always)]
pub unsafe fn block_sort<T: SortKey>(p: BlockSort<T>) {
    let BlockSort { src, dst, n, direction } = p;
    let (src, dst) = (src.get(), dst.get());
    let desc = direction.is_descending();
    let (b, t) = (gpu::block_dim(), gpu::thread_idx());
    let start = gpu::block_idx() as u64 * b as u64;
    let m = tile_len(n, start, b);
    unsafe {
        let keys = gpu::dyn_smem::<T::Bits>();
        let pos = keys.add(2 * b as usize) as *mut u32;
        let (mut cur, mut next) = (0usize, b as usize);
        if t < m {
            *keys.add(t as usize) = (*src.add((start + t as u64) as usize)).ord_bits(desc);
            *pos.add(t as usize) = t;
        }
        gpu::sync_threads();
        // `m` is the same for the whole block, so every thread runs the same number
        // of passes and reaches every barrier, idle threads of a short tile too.
        let mut log_chunk = 0;
        while (1u32 << log_chunk) < m {
            if t < m {
                let k = keys.add(cur);
                let to = block_sort_target(t, m, log_chunk, |j| *k.add(j as usize)) as usize;
                *keys.add(next + to) = *k.add(t as usize);
                *pos.add(next + to) = *pos.add(cur + t as usize);
            }
            // One barrier per pass suffices: the next pass writes the buffers this
            // one read, and every read of them happened before this barrier.
            gpu::sync_threads();
            core::mem::swap(&mut cur, &mut next);
            log_chunk += 1;
        }
        // Gather: thread `t` fetches the element that sorts to `t`. (Out of place:
        // in place, each thread would have to hold its element across a barrier,
        // and LLVM keeps an `Entity` held so in local memory.)
        if t < m {
            let from = *pos.add(cur + t as usize);
            *dst.add((start + t as u64) as usize) = *src.add((start + from as u64) as usize);
        }
    }
}

/// One chunk pass (`src` != `dst`). Shared memory: `1 << log_chunk` order bits.
#[inline(always)]
pub unsafe fn chunk_pass<T: SortKey>(params: MergePass<T>) {
    let MergePass { src, dst, n, log_chunk, direction } = params;
    let (src, dst) = (src.get(), dst.get());
    let desc = direction.is_descending();
    let (b, t) = (gpu::block_dim(), gpu::thread_idx());
    let p = ChunkPass::new(gpu::block_idx() as u64, n, log_chunk);
    unsafe {
        let keys = gpu::dyn_smem::<T::Bits>();
        // Four partner keys per step, all loaded before the first is stored (the
        // compiler may not reorder them: it can't tell shared from global memory),
        // so their latencies overlap.
        let key_at = |j: u32| (*src.add((p.partner_start + j as u64) as usize)).ord_bits(desc);
        let mut j = t;
        while j + 3 * b < p.partner_len {
            let k = [key_at(j), key_at(j + b), key_at(j + 2 * b), key_at(j + 3 * b)];
            *keys.add(j as usize) = k[0];
            *keys.add((j + b) as usize) = k[1];
            *keys.add((j + 2 * b) as usize) = k[2];
            *keys.add((j + 3 * b) as usize) = k[3];
            j += 4 * b;
        }
        while j < p.partner_len {
            *keys.add(j as usize) = key_at(j);
            j += b;
        }
        gpu::sync_threads();
        // No barrier from here on: shared memory is only read, and the other
        // resident blocks hide each sub-chunk's global-load latency.
        let mut local = t;
        while local < p.own_len {
            let i = (p.own_start + local as u64) as usize;
            let to = p.target(local, (*src.add(i)).ord_bits(desc), |j| *keys.add(j as usize));
            // The element is read again after the search (a cache hit) rather than
            // held across it: LLVM keeps the non-key part of a held `Entity` in
            // local memory.
            *dst.add(to as usize) = *src.add(i);
            local += b;
        }
    }
}
