//! Launch configuration shared by every variant.
use cudarc::driver::LaunchConfig;
use kernels::params::Kernel;

use crate::error::{Error, Result};

/// CUDA's limit on `gridDim.x`.
const MAX_GRID_X: u64 = (1 << 31) - 1;

/// One thread per item: `ceil(items / block)` blocks of `block` threads.
pub fn one_thread_per_item(items: u64, block: u32, shared_mem_bytes: u32) -> Result<LaunchConfig> {
    blocks(items.div_ceil(block as u64), block, shared_mem_bytes)
}

/// `grid` blocks of `block` threads.
pub fn blocks(grid: u64, block: u32, shared_mem_bytes: u32) -> Result<LaunchConfig> {
    if grid > MAX_GRID_X {
        return Err(Error::BadArgument(format!("{grid} blocks exceed CUDA's grid limit")));
    }
    Ok(LaunchConfig { grid_dim: (grid.max(1) as u32, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes })
}

/// The entry `kernel` of a family, or the error that element type `T` has none
/// (`what` names the entry): families declare some entries for some types only
/// (`Option<Kernel<..>>` in their traits), and the launchers check the types first.
pub fn require_entry<T: kernels::SortKey, P>(kernel: Option<Kernel<P>>, what: &str) -> Result<Kernel<P>> {
    kernel.ok_or_else(|| Error::BadArgument(format!("no {what} kernel for {}", T::NAME)))
}
