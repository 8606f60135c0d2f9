//! Device memory the library keeps: the scratch buffers cached between sorts
//! ([`Gpu::take_scratch`]), the stream-ordered pool kept reserved for this process
//! ([`keep_pool_memory`]) and trimmed when a request would not fit otherwise
//! ([`Gpu::free_mem_for`]).
use cudarc::driver::CudaContext;
use cudarc::driver::sys::CUresult;

use super::{DeviceBuffer, Gpu, PinnedBuffer};
use crate::error::Result;

impl Gpu {
    /// `(free, total)` device memory, counting memory this process keeps cached in the
    /// pool (the pool keeps freed memory, see `keep_pool_memory` in this module) as free when `needed` would not fit otherwise:
    /// then the queued work is waited for and the pool is trimmed before asking again
    /// (`free_mem_for(u64::MAX)` always trims: what a budget for the whole device uses).
    pub fn free_mem_for(&self, needed: u64) -> Result<(u64, u64)> {
        let (free, total) = self.mem_info()?;
        if needed <= free {
            return Ok((free, total));
        }
        self.synchronize("trimming the memory pool")?;
        self.scratch.lock().unwrap_or_else(|p| p.into_inner()).clear();
        trim_pool_memory(&self.ctx);
        self.mem_info()
    }

    /// A device buffer of at least `words` `u32`s for a sort's scratch space: an idle
    /// one kept from an earlier sort if one is large enough (no allocation, no driver
    /// call), a new one otherwise. Return it with [`Gpu::give_back_scratch`] once the
    /// work using it is queued: every operation is ordered on the one stream, so the
    /// next user's kernels run after this sort's. Not zeroed.
    pub fn take_scratch(&self, words: usize) -> Result<DeviceBuffer<u32>> {
        {
            let mut idle = self.scratch.lock().unwrap_or_else(|p| p.into_inner());
            let fit =
                idle.iter().enumerate().filter(|(_, b)| b.len() >= words).min_by_key(|(_, b)| b.len()).map(|(i, _)| i);
            if let Some(i) = fit {
                return Ok(idle.swap_remove(i));
            }
        }
        self.alloc::<u32>(words)
    }

    /// The device address of a buffer of at least `words` `u32`s that is all zeros
    /// whenever no kernel queued on this device's stream is using it: zeroed once when
    /// allocated, and every kernel given it must leave it zeroed (the fused radix
    /// sort's control block, which then needs no memset before each sort). Kept for
    /// the `Gpu`'s life; a larger request replaces it (the old one is freed in stream
    /// order, after the work queued before).
    pub(crate) fn zeroed_block(&self, words: usize) -> Result<u64> {
        let mut kept = self.zeroed.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(b) = kept.as_ref().filter(|b| b.len() >= words) {
            return Ok(b.ptr());
        }
        let mut b = self.alloc::<u32>(words)?;
        b.zero_prefix(self, words)?;
        let addr = b.ptr();
        *kept = Some(b);
        Ok(addr)
    }

    /// A page-locked host buffer of at least `bytes` for reading small results back
    /// (allocating one costs more than the rest of a small sort): a kept one, or a new
    /// one. Give it back with [`Gpu::give_back_pinned`]; it is freed with the `Gpu`.
    pub(crate) fn take_pinned(&self, bytes: usize) -> Result<PinnedBuffer> {
        let kept = {
            let mut idle = self.pinned.lock().unwrap_or_else(|p| p.into_inner());
            idle.iter().position(|b| b.len() >= bytes).map(|i| idle.swap_remove(i))
        };
        match kept {
            Some(b) => Ok(b),
            None => PinnedBuffer::new(self, bytes),
        }
    }

    /// Keeps `buf` for the next [`Gpu::take_pinned`].
    pub(crate) fn give_back_pinned(&self, buf: PinnedBuffer) {
        self.pinned.lock().unwrap_or_else(|p| p.into_inner()).push(buf);
    }

    /// Bytes of idle scratch buffers this device keeps for later sorts (the
    /// library's workspace: a repeated sort of the same size allocates nothing).
    pub fn scratch_kept_bytes(&self) -> u64 {
        self.scratch.lock().unwrap_or_else(|p| p.into_inner()).iter().map(|b| b.len() as u64 * 4).sum()
    }

    /// Frees the kept scratch buffers (stream-ordered: after the queued work).
    pub fn release_scratch(&self) {
        self.scratch.lock().unwrap_or_else(|p| p.into_inner()).clear();
    }

    /// Keeps `buf` for a later [`Gpu::take_scratch`] (the largest few are kept).
    pub fn give_back_scratch(&self, buf: DeviceBuffer<u32>) {
        const KEEP: usize = 8;
        let mut idle = self.scratch.lock().unwrap_or_else(|p| p.into_inner());
        idle.push(buf);
        if idle.len() > KEEP {
            idle.sort_by_key(|b| std::cmp::Reverse(b.len()));
            idle.truncate(KEEP);
        }
    }
}

/// Keeps memory freed back to the device's default pool (stream-ordered frees of the
/// sorts' scratch buffers) reserved for this process instead of returning it to the
/// driver at every synchronisation, as PyTorch's caching allocator does. Otherwise
/// every sort's scratch allocation maps fresh memory: on an H100 that cost ~170 us per
/// 2^24-key radix sort, more than a third of its time. Best effort: a device without
/// memory pools simply keeps the default.
pub(super) fn keep_pool_memory(ctx: &CudaContext) {
    use cudarc::driver::sys;
    unsafe {
        let mut pool: sys::CUmemoryPool = std::ptr::null_mut();
        if sys::cuDeviceGetDefaultMemPool(&mut pool, ctx.cu_device()) == CUresult::CUDA_SUCCESS {
            let mut threshold = u64::MAX;
            let _ = sys::cuMemPoolSetAttribute(
                pool,
                sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                (&mut threshold as *mut u64).cast(),
            );
        }
    }
}

/// Returns the memory cached in the device's default pool to the driver.
fn trim_pool_memory(ctx: &CudaContext) {
    use cudarc::driver::sys;
    unsafe {
        let mut pool: sys::CUmemoryPool = std::ptr::null_mut();
        if sys::cuDeviceGetDefaultMemPool(&mut pool, ctx.cu_device()) == CUresult::CUDA_SUCCESS {
            let _ = sys::cuMemPoolTrimTo(pool, 0);
        }
    }
}
