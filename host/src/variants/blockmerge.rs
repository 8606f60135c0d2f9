//! `blockmerge`: the blog's shared-memory merge sort (`kernels::blockmerge`), for any
//! `n`: one launch sorts every tile in shared memory, then one launch per run width
//! merges run pairs across blocks, ping-ponging with a scratch buffer.
//!
//! Shared memory: 2 tiles (8 x block elements) for the in-block sort, `CROSS_ITEMS`
//! x block elements (and two co-ranks) for a cross pass; above 48 KiB (entities with 512+ threads, 64-bit
//! keys with 1024) the kernels opt in to more.
use kernels::blockmerge::{
    BlockSort, BlockmergeKernels, CROSS_ITEMS, CrossPass, cross_passes, cross_threads, log_tile,
};

use super::launch::{blocks, one_thread_per_item};
use crate::device::{DeviceBuffer, Gpu};
use crate::element::Element;
use crate::error::Result;
use crate::options::SortOptions;

/// Sorts `buf` in `opts.order`: blocks of `opts.block_size` threads sort the tiles in
/// shared memory, then one launch per run width merges across blocks, ping-ponging with a
/// scratch buffer of `buf.len()` elements.
pub fn sort<T: Element>(gpu: &Gpu, buf: &mut DeviceBuffer<T>, opts: &SortOptions) -> Result<()> {
    let n = buf.len() as u64;
    let direction = opts.order.into();
    let log_tile = log_tile(opts.block_size);
    let tile = 1u64 << log_tile;

    // Two shared buffers of one tile: each in-block step merges from one into the other.
    let smem = 2 * tile as u32 * size_of::<T>() as u32;
    let block_sort = <T as BlockmergeKernels>::BLOCK_SORT;
    gpu.set_max_dynamic_smem(block_sort.name(), smem)?;
    let cfg = blocks(n.div_ceil(tile), opts.block_size, smem)?;
    gpu.launch(block_sort, cfg, &BlockSort { data: buf.dev_ptr(), n, log_tile, direction })?;

    let runs = cross_passes(n, log_tile);
    if runs.is_empty() {
        return Ok(());
    }
    let scratch = gpu.alloc::<T>(buf.len())?;
    // Each block keeps its two co-rank bounds and stages its outputs in shared memory.
    let staged = 2 * size_of::<u64>() as u32 + opts.block_size * CROSS_ITEMS as u32 * size_of::<T>() as u32;
    let cross_pass = <T as BlockmergeKernels>::CROSS_PASS;
    gpu.set_max_dynamic_smem(cross_pass.name(), staged)?;
    let cfg = one_thread_per_item(cross_threads(n), opts.block_size, staged)?;
    let count = runs.len();
    for (i, log_run) in runs.enumerate() {
        let (src, dst) = if i % 2 == 0 { (&*buf, &scratch) } else { (&scratch, &*buf) };
        let pass = CrossPass { src: src.dev_ptr(), dst: dst.dev_ptr(), n, log_run, direction };
        gpu.launch(cross_pass, cfg, &pass)?;
    }
    if count % 2 == 1 {
        buf.copy_from_device(gpu, &scratch)?;
    }
    Ok(())
}
