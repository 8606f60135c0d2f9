//! `bitonic`: bitonic sort for any `n` (`kernels::bitonic`), in place, no scratch
//! buffer: the power-of-two extension is virtual. Strides below the tile run in
//! shared memory (several stages per launch); each larger stride is one global pass.
use kernels::bitonic::{BitonicKernels, GlobalStage, Plan, Step, TileStages, comparator_count, log_tile};

use super::launch::{blocks, one_thread_per_item};
use crate::device::{DeviceBuffer, Gpu};
use crate::element::Element;
use crate::error::Result;
use crate::options::SortOptions;

/// Sorts `buf` in `opts.order`, in place: tiles of `opts.block_size` threads in shared
/// memory, then one launch per larger stride.
pub fn sort<T: Element>(gpu: &Gpu, buf: &mut DeviceBuffer<T>, opts: &SortOptions) -> Result<()> {
    let n = buf.len() as u64;
    let direction = opts.order.into();
    let log_tile = log_tile(opts.block_size);
    let tile = 1u64 << log_tile;
    let smem = tile as u32 * size_of::<T>() as u32;
    let (tile_stages, global_stage) = (<T as BitonicKernels>::TILE, <T as BitonicKernels>::GLOBAL);
    gpu.set_max_dynamic_smem(tile_stages.name(), smem)?;
    let tile_cfg = blocks(n.div_ceil(tile), opts.block_size, smem)?;
    let data = buf.dev_ptr();
    for step in Plan::new(n, log_tile) {
        match step {
            Step::Shared { k_first, k_last } => {
                let stages = TileStages { data, n, log_tile, k_first, k_last, direction };
                gpu.launch(tile_stages, tile_cfg, &stages)?;
            }
            Step::Global { k, j } => {
                let cfg = one_thread_per_item(comparator_count(n, j), opts.block_size, 0)?;
                gpu.launch(global_stage, cfg, &GlobalStage { data, n, k, j, direction })?;
            }
        }
    }
    Ok(())
}
