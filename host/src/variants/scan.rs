//! Device-wide exclusive prefix sum of `u64` values (the kernels and the pass structure
//! are in `kernels/src/scan/`). Used for the block offsets of `quick` and the part
//! offsets of the multi-GPU partition; reusable for any counts or offsets on the
//! device.
use kernels::params::DevPtr;
use kernels::scan::{self, BLOCK, SMEM_BYTES, TILE, tile_count};

use super::launch::blocks;
use crate::device::{DeviceBuffer, Gpu};
use crate::error::{Error, Result};

/// Replaces `data[0..n]` by its exclusive prefix sums (`data[i]` = sum of the old
/// `data[0..i]`) and writes the total to `data[n]`, whose old value is ignored. Queued
/// on the device's stream like a kernel launch.
pub fn exclusive_scan_u64(gpu: &Gpu, data: &mut DeviceBuffer<u64>, n: usize) -> Result<()> {
    if n >= data.len() {
        return Err(Error::BadArgument(format!(
            "scanning {n} values needs a buffer of at least {} (one slot for the total), got {}",
            n + 1,
            data.len()
        )));
    }
    // SAFETY: the buffer holds n + 1 values.
    unsafe { exclusive_scan_u64_raw(gpu, data.ptr(), n as u64) }
}

/// [`exclusive_scan_u64`] on a raw device address.
///
/// # Safety
/// `ptr` must address at least `n + 1` device `u64`s that nothing else uses until the
/// queued work completes.
pub(crate) unsafe fn exclusive_scan_u64_raw(gpu: &Gpu, ptr: u64, n: u64) -> Result<()> {
    let data = DevPtr::from_addr(ptr);
    if n <= TILE {
        let p = scan::Tiles { src: data, dst: data, n, offsets: DevPtr::NULL };
        return gpu.launch(scan::scan_tiles_u64, blocks(1, BLOCK, SMEM_BYTES)?, &p);
    }
    let m = tile_count(n);
    let sums = gpu.alloc::<u64>(m as usize + 1)?;
    let cfg = blocks(m, BLOCK, SMEM_BYTES)?;
    gpu.launch(scan::scan_reduce_u64, cfg, &scan::Reduce { src: data, n, sums: sums.dev_ptr() })?;
    // SAFETY: `sums` holds m + 1 values; freeing it is ordered after the launches.
    unsafe { exclusive_scan_u64_raw(gpu, sums.ptr(), m)? };
    gpu.launch(scan::scan_tiles_u64, cfg, &scan::Tiles { src: data, dst: data, n, offsets: sums.dev_ptr() })
}
