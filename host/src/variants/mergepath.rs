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

/// A sorted run in device memory on the merging GPU: its address and its length in
/// elements.
#[derive(Clone, Copy, Debug)]
pub struct Run {
    pub ptr: u64,
    pub len: u64,
}

/// Merges the consecutive sorted runs of `src` (their lengths in `runs`, summing to
/// `src.len()`) into one sorted buffer, stably: among equal keys an earlier run's come
/// first. See [`merge_run_list`]; `src` is freed once the merge has read it.
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
    if runs.iter().filter(|&&r| r > 0).count() <= 1 {
        return Ok(src);
    }
    let list: Vec<Run> = runs
        .iter()
        .scan(0u64, |at, &len| {
            let r = Run { ptr: src.ptr_at(*at as usize), len };
            *at += len;
            Some(r)
        })
        .collect();
    merge_run_list::<T>(gpu, &list, order)
}

/// Merges sorted runs lying anywhere in `gpu`'s memory (each must stay valid until the
/// queued work has run) into one new sorted buffer, stably: among equal keys an earlier
/// run's come first. Pairs of neighbouring runs are merged by merge path (every block
/// writes one tile, whatever the run lengths) in `ceil(log2(runs))` rounds; the first
/// round reads the runs where they are (so two runs cost one pass and no copy), later
/// rounds ping-pong between the output and one more buffer. Used by the multi-GPU sort
/// for a GPU's own part and what it received.
pub fn merge_run_list<T: Element>(gpu: &Gpu, runs: &[Run], order: crate::Order) -> Result<DeviceBuffer<T>> {
    let mut runs: Vec<Run> = runs.iter().copied().filter(|r| r.len > 0).collect();
    let n: u64 = runs.iter().map(|r| r.len).sum();
    let bytes = size_of::<T>() as u32;
    let tile = mp::tile(bytes);
    let smem = mp::smem_bytes(bytes);
    let desc = order.is_descending() as u32;
    let partition = kernel_name::<T>("mergepath_pair_partition");
    let merge = kernel_name::<T>("mergepath_pair_merge");
    if smem > gpu.info().shared_mem_per_block {
        gpu.set_max_dynamic_smem(&merge, smem)?;
    }
    // Rounds alternate between `bufs[0]` and `bufs[1]`; the last round must write
    // `bufs[0]` (the result), so an even number of rounds starts in `bufs[1]`.
    let rounds = if runs.len() <= 1 { 1 } else { 64 - (runs.len() as u64 - 1).leading_zeros() };
    let mut bufs = vec![gpu.alloc::<T>(n as usize)?];
    if rounds > 1 {
        bufs.push(gpu.alloc::<T>(n as usize)?);
    }
    let parts = gpu.alloc::<u64>((mp::tiles(n, tile) + runs.len() as u64) as usize)?;
    let mut to = (rounds % 2 == 0) as usize;
    for _ in 0..rounds {
        let mut at = 0u64;
        let mut next = Vec::with_capacity(runs.len().div_ceil(2));
        for pair in runs.chunks(2) {
            let out = bufs[to].ptr_at(at as usize);
            match *pair {
                [a, b] => {
                    let t = mp::tiles(a.len + b.len, tile);
                    let p = parts.ptr();
                    let (a_len, b_len) = (a.len, b.len);
                    launch!(
                        gpu,
                        partition,
                        one_thread_per_item(t, mp::PARTITION_BLOCK, 0)?,
                        &a.ptr,
                        &b.ptr,
                        &p,
                        &a_len,
                        &b_len,
                        &desc
                    )?;
                    launch!(gpu, merge, blocks(t, mp::BLOCK, smem)?, &a.ptr, &b.ptr, &out, &p, &a_len, &b_len, &desc)?;
                }
                [a] => gpu.copy_raw(out, a.ptr, a.len * bytes as u64)?,
                _ => unreachable!("chunks of two"),
            }
            let len = pair.iter().map(|r| r.len).sum::<u64>();
            next.push(Run { ptr: out, len });
            at += len;
        }
        runs = next;
        to ^= 1;
    }
    debug_assert_eq!(to, 1, "the last round wrote bufs[0]");
    Ok(bufs.swap_remove(0))
}
