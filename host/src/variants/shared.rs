//! `sm8`, `sm9`, `sm`: the Catania report's shared-memory merge sorts (sections
//! 3.3-3.4), for any `n`. All three start with the block sort (every pass with chunks
//! narrower than the block, in shared memory); each launch reads one of the data and
//! a scratch buffer and writes the other:
//!
//! * `sm8`: the remaining passes are `naive`'s global passes (with the report's block
//!   size 256 that is after 8 shared passes; with 512, after 9).
//! * `sm9`: one more pass in shared memory, chunk == block: each block loads its
//!   neighbour tile's keys.
//! * `sm`: chunk passes (one block per chunk, walking its sub-chunks) for every chunk
//!   width whose keys fit in [`smem_budget`], then global passes.
//!
//! The pass layout is [`kernels::shared::Plan`], tested on the host.
use kernels::naive::{MergePass, NaiveKernels};
use kernels::shared::{BlockSort, Plan, SharedKernels, block_sort_smem_bytes, max_chunk_log};

use super::launch::{blocks, one_thread_per_item};
use crate::device::{DeviceBuffer, Gpu};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::options::SortOptions;

/// How far the shared-memory passes go (the three variants of the report).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// Block sort only.
    Sm8,
    /// Block sort + the neighbour-tile pass (chunk == block).
    Sm9,
    /// Block sort + chunk passes while a chunk's keys fit in shared memory.
    Sm,
}

/// Shared memory one chunk-pass block may use: the device's default per-block limit
/// ([`crate::DeviceInfo::shared_mem_per_block`], 48 KiB), not the opt-in maximum
/// ([`crate::DeviceInfo::shared_mem_per_block_optin`], 227 KiB on Hopper). The report's
/// "shared memory per block" is this limit (CUDA's `sharedMemPerBlock`), it needs no
/// opt-in, and it measured best overall ([`crate::Tuning::sm_smem_bytes`] says how,
/// and overrides it, for measuring that trade-off).
pub fn smem_budget(gpu: &Gpu) -> Result<u32> {
    Ok(gpu.tuning().sm_smem_bytes.unwrap_or(gpu.info().shared_mem_per_block))
}

/// The plan of `strategy` for `n` elements of `T` on this device.
pub fn plan<T: Element>(gpu: &Gpu, n: u64, block: u32, strategy: Strategy) -> Result<Plan> {
    let log_block = block.trailing_zeros();
    let chunk_pass_end = match strategy {
        Strategy::Sm8 => log_block,
        Strategy::Sm9 => log_block + 1,
        Strategy::Sm => max_chunk_log(smem_budget(gpu)?, size_of::<T::Bits>() as u32) + 1,
    };
    Ok(Plan::new(n, log_block, chunk_pass_end))
}

/// Sorts `buf` in `opts.order` with the passes of `strategy` ([`plan`]), blocks of
/// `opts.block_size` threads, ping-ponging with a scratch buffer of `buf.len()` elements.
pub fn sort<T: Element>(gpu: &Gpu, buf: &mut DeviceBuffer<T>, opts: &SortOptions, strategy: Strategy) -> Result<()> {
    let n = buf.len() as u64;
    let block = opts.block_size;
    let direction = opts.order.into();
    let plan = plan::<T>(gpu, n, block, strategy)?;

    let scratch = gpu.alloc::<T>(buf.len())?;
    let mut src_dst = (buf.dev_ptr(), scratch.dev_ptr());
    let mut next = || {
        let (src, dst) = src_dst;
        src_dst = (dst, src);
        (src, dst)
    };

    let block_sort = <T as SharedKernels>::BLOCK_SORT;
    let smem = smem_for(gpu, block_sort.name(), block_sort_smem_bytes(block, size_of::<T::Bits>() as u32))?;
    let cfg = one_thread_per_item(n, block, smem)?;
    let (src, dst) = next();
    gpu.launch(block_sort, cfg, &BlockSort { src, dst, n, direction })?;

    let chunk_pass = <T as SharedKernels>::CHUNK_PASS;
    for log_chunk in plan.chunk_passes.clone() {
        let width = 1u64 << log_chunk;
        let smem = smem_for(gpu, chunk_pass.name(), width * size_of::<T::Bits>() as u64)?;
        let cfg = blocks(n.div_ceil(width), block, smem)?;
        let (src, dst) = next();
        gpu.launch(chunk_pass, cfg, &MergePass { src, dst, n, log_chunk, direction })?;
    }

    let cfg = one_thread_per_item(n, block, 0)?;
    for log_chunk in plan.global_passes.clone() {
        let (src, dst) = next();
        gpu.launch(<T as NaiveKernels>::MERGE_PASS, cfg, &MergePass { src, dst, n, log_chunk, direction })?;
    }
    if plan.launches() % 2 == 1 {
        buf.copy_from_device(gpu, &scratch)?;
    }
    drop(scratch);
    Ok(())
}

/// `bytes` of dynamic shared memory for `kernel`, opting in above the default limit.
fn smem_for(gpu: &Gpu, kernel: &str, bytes: u64) -> Result<u32> {
    let bytes = u32::try_from(bytes)
        .map_err(|_| Error::BadArgument(format!("kernel `{kernel}` would need {bytes} bytes of shared memory")))?;
    gpu.set_max_dynamic_smem(kernel, bytes)?;
    Ok(bytes)
}
