//! `bottomup`: the Pisa report's iterative merge sort (`kernels::bottomup`). Pass `p`
//! merges slices of width 2^p, each thread owning whole slices, ping-ponging between
//! the data and one scratch buffer.
use kernels::bottomup::{BottomupKernels, SlicePass, pass_shape, passes};

use super::launch::one_thread_per_item;
use crate::device::{DeviceBuffer, Gpu};
use crate::element::Element;
use crate::error::Result;
use crate::options::SortOptions;

/// Resident threads per multiprocessor on every GPU since Volta but Turing (which has
/// 1024): a pass never launches more than one full wave, like the report's fixed grid
/// sized to its T4; with more slices than that, threads take several each.
const THREADS_PER_SM: u64 = 2048;

/// Sorts `buf` in `opts.order`: one launch per pass (blocks of `opts.block_size`
/// threads, at most one full wave), ping-ponging with a scratch buffer of `buf.len()`
/// elements.
pub fn sort<T: Element>(gpu: &Gpu, buf: &mut DeviceBuffer<T>, opts: &SortOptions) -> Result<()> {
    let n = buf.len() as u64;
    let scratch = gpu.alloc::<T>(buf.len())?;
    let max_threads = gpu.info().multiprocessors as u64 * THREADS_PER_SM;
    let passes = passes(n);
    for log_width in 1..=passes {
        let (threads, per_thread) = pass_shape(n, log_width, max_threads);
        let cfg = one_thread_per_item(threads, opts.block_size, 0)?;
        let (src, dst) = if log_width % 2 == 1 { (&*buf, &scratch) } else { (&scratch, &*buf) };
        let pass = SlicePass {
            src: src.dev_ptr(),
            dst: dst.dev_ptr(),
            n,
            log_width,
            per_thread,
            direction: opts.order.into(),
        };
        gpu.launch(<T as BottomupKernels>::PASS, cfg, &pass)?;
    }
    if passes % 2 == 1 {
        buf.copy_from_device(gpu, &scratch)?;
    }
    Ok(())
}
