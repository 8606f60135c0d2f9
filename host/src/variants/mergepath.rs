//! `mergepath`: the stable merge-path merge sort (kernels and the stability rule are
//! described in `kernels/src/mergepath/mod.rs`).
//!
//! Launches per sort of `n` elements in tiles of `T = kernels::mergepath::tile`:
//! one block sort (every tile sorted in shared memory), then for each of the
//! `ceil(log2(n / T))` global passes a partition (one co-rank per block) and a merge
//! (every block writes exactly `T` outputs), ping-ponging between the caller's buffer
//! and one scratch buffer. The block sort writes to whichever buffer makes the last
//! pass end in the caller's (no copy-back). Device memory besides the input: `n`
//! elements and one `u64` per tile.
use kernels::mergepath as mp;

use super::launch::{blocks, kernel_name, one_thread_per_item};
use super::scratch::Scratch;
use crate::device::{DeviceBuffer, Gpu};
use crate::error::Result;
use crate::{Element, SortOptions, launch};

/// Sorts `buf` by the merge-path merge sort (the `mergepath` variant). Stable.
pub fn sort<T: Element>(gpu: &Gpu, buf: &mut DeviceBuffer<T>, opts: &SortOptions) -> Result<()> {
    let n = buf.len() as u64;
    if n <= 1 {
        return Ok(());
    }
    let bytes = size_of::<T>() as u32;
    let tile = mp::tile(bytes);
    let smem = mp::smem_bytes(bytes);
    let tiles = mp::tiles(n, tile);
    let desc = opts.order.is_descending() as u32;

    let block_sort = kernel_name::<T>("mergepath_block_sort");
    let merge = kernel_name::<T>("mergepath_merge");
    let partition = kernel_name::<T>("mergepath_partition");
    for name in [&block_sort, &merge] {
        if smem > gpu.info().shared_mem_per_block {
            gpu.set_max_dynamic_smem(name, smem)?;
        }
    }
    let passes = mp::global_passes(n, tile);

    let data = buf.ptr();
    let sort_cfg = blocks(tiles, mp::BLOCK, smem)?;
    if passes == 0 {
        return launch!(gpu, block_sort, sort_cfg, &data, &data, &n, &desc);
    }

    // Scratch from the device's cache; out of memory fails here, before any launch.
    let scratch = Scratch::take(gpu, &[(n * bytes as u64).div_ceil(4) as usize, 2 * tiles as usize])?;
    let [data_b, parts] = &scratch.bufs[..] else { unreachable!("two buffers") };
    // `bufs[0]` is the caller's; the block sort writes `bufs[first]`, pass `p` reads
    // `bufs[first ^ (p & 1)]`, and the last pass writes `bufs[0]`.
    let bufs = [data, data_b.ptr()];
    let first = mp::block_sort_to_scratch(passes) as usize;
    launch!(gpu, block_sort, sort_cfg, &data, &bufs[first], &n, &desc)?;
    let parts_ptr = parts.ptr();
    let part_cfg = one_thread_per_item(tiles, mp::PARTITION_BLOCK, 0)?;
    let merge_cfg = blocks(tiles, mp::BLOCK, smem)?;
    for log_run in 0..passes {
        let from = first ^ (log_run as usize & 1);
        let (src, dst) = (bufs[from], bufs[from ^ 1]);
        launch!(gpu, partition, part_cfg, &src, &parts_ptr, &n, &log_run, &desc)?;
        launch!(gpu, merge, merge_cfg, &src, &dst, &parts_ptr, &n, &log_run, &desc)?;
    }
    scratch.give_back(gpu);
    Ok(())
}
