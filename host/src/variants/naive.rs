//! `naive`: the Catania report's `parallelMergeSortDesc` (section 3.1), for any `n`.
//! Pass `k` merges chunk pairs of width 2^k in global memory, ping-ponging between the
//! data and one scratch buffer.
use kernels::naive::{MergePass, pass_count};

use super::launch::one_thread_per_item;
use crate::device::{DeviceBuffer, Gpu};
use crate::element::Element;
use crate::error::Result;
use crate::options::SortOptions;

/// Sorts `buf` in `opts.order`: one launch per pass, one thread per element in blocks of
/// `opts.block_size`, through a scratch buffer of `buf.len()` elements.
pub fn sort<T: Element>(gpu: &Gpu, buf: &mut DeviceBuffer<T>, opts: &SortOptions) -> Result<()> {
    let n = buf.len() as u64;
    let scratch = gpu.alloc::<T>(buf.len())?;
    let cfg = one_thread_per_item(n, opts.block_size, 0)?;
    let passes = pass_count(n);
    for log_chunk in 0..passes {
        let (src, dst) = if log_chunk % 2 == 0 { (&*buf, &scratch) } else { (&scratch, &*buf) };
        let pass = MergePass { src: src.dev_ptr(), dst: dst.dev_ptr(), n, log_chunk, direction: opts.order.into() };
        gpu.launch(T::MERGE_PASS, cfg, &pass)?;
    }
    if passes % 2 == 1 {
        buf.copy_from_device(gpu, &scratch)?;
    }
    drop(scratch);
    Ok(())
}
