//! `bitonic`: bitonic sort for any `n` (`kernels::bitonic`), in place, no scratch
//! buffer: the power-of-two extension is virtual. Strides below the tile run in
//! shared memory (several stages per launch); each larger stride is one global pass.
use kernels::bitonic::{Plan, Step, comparator_count, log_tile};

use super::launch::{blocks, kernel_name, one_thread_per_item};
use crate::device::{DeviceBuffer, Gpu};
use crate::error::Result;
use crate::{Element, SortOptions, launch};

pub fn sort<T: Element>(gpu: &Gpu, buf: &mut DeviceBuffer<T>, opts: &SortOptions) -> Result<()> {
    let n = buf.len() as u64;
    let desc = opts.order.is_descending() as u32;
    let log_tile = log_tile(opts.block_size);
    let tile = 1u64 << log_tile;
    let smem = tile as u32 * size_of::<T>() as u32;
    let tile_kernel = kernel_name::<T>("bitonic_tile");
    let global_kernel = kernel_name::<T>("bitonic_global");
    gpu.set_max_dynamic_smem(&tile_kernel, smem)?;
    let tile_cfg = blocks(n.div_ceil(tile), opts.block_size, smem)?;
    let data = buf.ptr();
    for step in Plan::new(n, log_tile) {
        match step {
            Step::Shared { k_first, k_last } => {
                launch!(gpu, tile_kernel, tile_cfg, &data, &n, &log_tile, &k_first, &k_last, &desc)?;
            }
            Step::Global { k, j } => {
                let cfg = one_thread_per_item(comparator_count(n, j), opts.block_size, 0)?;
                launch!(gpu, global_kernel, cfg, &data, &n, &k, &j, &desc)?;
            }
        }
    }
    Ok(())
}
