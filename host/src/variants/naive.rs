//! `naive`: the Catania report's `parallelMergeSortDesc` (section 3.1), for any `n`.
//! Pass `k` merges chunk pairs of width 2^k in global memory, ping-ponging between the
//! data and one scratch buffer.
use kernels::naive::pass_count;

use super::launch::{kernel_name, one_thread_per_item};
use crate::device::{DeviceBuffer, Gpu};
use crate::error::Result;
use crate::{Element, SortOptions, launch};

pub fn sort<T: Element>(gpu: &Gpu, buf: &mut DeviceBuffer<T>, opts: &SortOptions) -> Result<()> {
    let n = buf.len() as u64;
    let scratch = gpu.alloc::<T>(buf.len())?;
    let kernel = kernel_name::<T>("naive_merge_pass");
    let cfg = one_thread_per_item(n, opts.block_size, 0)?;
    let desc = opts.order.is_descending() as u32;
    let passes = pass_count(n);
    for log_chunk in 0..passes {
        let (src, dst) = if log_chunk % 2 == 0 { (buf.ptr(), scratch.ptr()) } else { (scratch.ptr(), buf.ptr()) };
        launch!(gpu, kernel, cfg, &src, &dst, &n, &log_chunk, &desc)?;
    }
    if passes % 2 == 1 {
        buf.copy_from_device(gpu, &scratch)?;
    }
    drop(scratch);
    Ok(())
}
