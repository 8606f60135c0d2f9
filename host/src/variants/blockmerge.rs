//! `blockmerge`: the blog's shared-memory merge sort (`kernels::blockmerge`), for any
//! `n`: one launch sorts every tile in shared memory, then one launch per run width
//! merges run pairs across blocks, ping-ponging with a scratch buffer.
//!
//! Shared memory: 2 tiles (8 x block elements) for the in-block sort, `CROSS_ITEMS`
//! x block elements (and two co-ranks) for a cross pass; above 48 KiB (entities with 512+ threads, 64-bit
//! keys with 1024) the kernels opt in to more.
use kernels::blockmerge::{CROSS_ITEMS, cross_passes, cross_threads, log_tile};

use super::launch::{blocks, kernel_name, one_thread_per_item};
use crate::device::{DeviceBuffer, Gpu};
use crate::error::Result;
use crate::{Element, SortOptions, launch};

pub fn sort<T: Element>(gpu: &Gpu, buf: &mut DeviceBuffer<T>, opts: &SortOptions) -> Result<()> {
    let n = buf.len() as u64;
    let desc = opts.order.is_descending() as u32;
    let log_tile = log_tile(opts.block_size);
    let tile = 1u64 << log_tile;

    // Two shared buffers of one tile: each in-block step merges from one into the other.
    let smem = 2 * tile as u32 * size_of::<T>() as u32;
    let block_sort = kernel_name::<T>("blockmerge_block_sort");
    gpu.set_max_dynamic_smem(&block_sort, smem)?;
    let data = buf.ptr();
    launch!(gpu, block_sort, blocks(n.div_ceil(tile), opts.block_size, smem)?, &data, &n, &log_tile, &desc)?;

    let runs = cross_passes(n, log_tile);
    if runs.is_empty() {
        return Ok(());
    }
    let scratch = gpu.alloc::<T>(buf.len())?;
    // Each block keeps its two co-rank bounds and stages its outputs in shared memory.
    let staged = 2 * size_of::<u64>() as u32 + opts.block_size * CROSS_ITEMS as u32 * size_of::<T>() as u32;
    let cross = kernel_name::<T>("blockmerge_cross_pass");
    gpu.set_max_dynamic_smem(&cross, staged)?;
    let cfg = one_thread_per_item(cross_threads(n), opts.block_size, staged)?;
    let count = runs.len();
    for (i, log_run) in runs.enumerate() {
        let (src, dst) = if i % 2 == 0 { (buf.ptr(), scratch.ptr()) } else { (scratch.ptr(), buf.ptr()) };
        launch!(gpu, cross, cfg, &src, &dst, &n, &log_run, &desc)?;
    }
    if count % 2 == 1 {
        buf.copy_from_device(gpu, &scratch)?;
    }
    Ok(())
}
