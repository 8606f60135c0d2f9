//! The scan kernels (see the module docs).
use super::{ITEMS, Reduce, TILE, Tiles, tile_range};
use crate::block::scan::block_exclusive_sum_u64;
use crate::gpu;

/// This thread's values of tile `b` of `src[0..n]`: their first index, the tile's
/// end, and their sum.
#[inline(always)]
unsafe fn thread_sum(src: *const u64, n: u64, b: u64) -> (u64, u64, u64) {
    let (lo, hi) = tile_range(b, n, TILE);
    let first = lo + gpu::thread_idx() as u64 * ITEMS;
    let mut s = 0u64;
    for j in 0..ITEMS {
        let i = first + j;
        if i < hi {
            s += unsafe { *src.add(i as usize) };
        }
    }
    (first, hi, s)
}

/// Pass 2a: `sums[b]` = sum of tile `b` of `src[0..n]`.
pub(super) unsafe fn scan_reduce(p: Reduce) {
    let Reduce { src, n, sums } = p;
    let (src, sums): (*const u64, *mut u64) = (src.get(), sums.get());
    let b = gpu::block_idx() as u64;
    let (_, _, s) = unsafe { thread_sum(src, n, b) };
    let (_, total) = unsafe { block_exclusive_sum_u64(s, gpu::dyn_smem::<u64>()) };
    if gpu::thread_idx() == 0 {
        unsafe { *sums.add(b as usize) = total };
    }
}

/// Passes 1 and 2b: scans tile `b` of `src[0..n]` into `dst`, starting from
/// `offsets[b]` (0 when `offsets` is null); the last block also writes the total to
/// `dst[n]`.
pub(super) unsafe fn scan_tiles(p: Tiles) {
    let Tiles { src, dst, n, offsets } = p;
    let (src, dst, offsets): (*const u64, *mut u64, *const u64) = (src.get(), dst.get(), offsets.get());
    let b = gpu::block_idx() as u64;
    // Values are read twice (to sum, then to scan) rather than kept in registers,
    // which 32 `u64`s per thread would overflow.
    let (first, hi, s) = unsafe { thread_sum(src, n, b) };
    let base = if offsets.is_null() { 0 } else { unsafe { *offsets.add(b as usize) } };
    let (excl, total) = unsafe { block_exclusive_sum_u64(s, gpu::dyn_smem::<u64>()) };
    let mut run = base + excl;
    for j in 0..ITEMS {
        let i = first + j;
        if i < hi {
            // Read before write: in place, each value is read by its own thread only.
            let x = unsafe { *src.add(i as usize) };
            unsafe { *dst.add(i as usize) = run };
            run += x;
        }
    }
    if gpu::thread_idx() == 0 && b + 1 == gpu::grid_dim() as u64 {
        unsafe { *dst.add(n as usize) = base + total };
    }
}
