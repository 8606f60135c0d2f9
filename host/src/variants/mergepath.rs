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

/// Merges the consecutive sorted runs of `src` (their lengths in `runs`, summing to
/// `src.len()`) into one sorted buffer, stably: among equal keys an earlier run's come
/// first. Pairs of neighbouring runs are merged by merge path (every block writes one
/// tile, whatever the run lengths) in `ceil(log2(runs))` rounds, ping-ponging with one
/// buffer of `src.len()` elements; returns the buffer holding the result (`src` itself
/// when there is one run). Used by the multi-GPU sort for what each GPU received.
pub fn merge_runs<T: Element>(
    gpu: &Gpu,
    src: DeviceBuffer<T>,
    runs: &[u64],
    order: crate::Order,
) -> Result<DeviceBuffer<T>> {
    let n = src.len() as u64;
    if runs.iter().sum::<u64>() != n {
        return Err(crate::Error::BadArgument(format!("runs of {runs:?} elements in a buffer of {n}")));
    }
    let mut runs: Vec<u64> = runs.iter().copied().filter(|&r| r > 0).collect();
    if runs.len() <= 1 {
        return Ok(src);
    }
    let bytes = size_of::<T>() as u32;
    let tile = mp::tile(bytes);
    let smem = mp::smem_bytes(bytes);
    let desc = order.is_descending() as u32;
    let partition = kernel_name::<T>("mergepath_pair_partition");
    let merge = kernel_name::<T>("mergepath_pair_merge");
    if smem > gpu.info().shared_mem_per_block {
        gpu.set_max_dynamic_smem(&merge, smem)?;
    }
    let mut cur = src;
    let mut other = gpu.alloc::<T>(n as usize)?;
    // Every pair's blocks need one co-rank each; a round has at most this many.
    let parts = gpu.alloc::<u64>((mp::tiles(n, tile) + runs.len() as u64) as usize)?;
    while runs.len() > 1 {
        let mut at = 0u64;
        let mut next = Vec::with_capacity(runs.len().div_ceil(2));
        for pair in runs.chunks(2) {
            let (from, to) = (cur.ptr_at(at as usize), other.ptr_at(at as usize));
            match *pair {
                [a_len, b_len] => {
                    let t = mp::tiles(a_len + b_len, tile);
                    let p = parts.ptr();
                    launch!(
                        gpu,
                        partition,
                        one_thread_per_item(t, mp::PARTITION_BLOCK, 0)?,
                        &from,
                        &p,
                        &a_len,
                        &b_len,
                        &desc
                    )?;
                    launch!(gpu, merge, blocks(t, mp::BLOCK, smem)?, &from, &to, &p, &a_len, &b_len, &desc)?;
                    next.push(a_len + b_len);
                    at += a_len + b_len;
                }
                [len] => {
                    other.copy_range_from(gpu, at as usize, &cur, at as usize, len as usize)?;
                    next.push(len);
                    at += len;
                }
                _ => unreachable!("chunks of two"),
            }
        }
        std::mem::swap(&mut cur, &mut other);
        runs = next;
    }
    Ok(cur)
}
