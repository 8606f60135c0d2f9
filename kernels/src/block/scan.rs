//! Prefix sums across a warp (shuffles) and across a block (a warp scan, the warps'
//! totals through shared memory, and a scan of those by warp 0).

/// Shared memory of `block_exclusive_sum_u32`: 33 words.
pub const SCAN_SMEM: u32 = 33 * 4;

/// Shared memory of `block_exclusive_sum_u64`: 33 `u64`s.
pub const SCAN_SMEM_U64: u32 = 33 * 8;

#[cfg(target_arch = "nvptx64")]
pub use device::*;

#[cfg(target_arch = "nvptx64")]
mod device {
    use crate::block::WARP;
    use crate::gpu;

    /// Inclusive prefix sum of `v` across the warp (every lane must call it).
    #[inline(always)]
    pub fn warp_inclusive_sum_u32(mut v: u32) -> u32 {
        let lane = gpu::lane_id();
        let mut d = 1;
        while d < 32 {
            let up = gpu::shfl_up_u32(v, d);
            if lane >= d {
                v += up;
            }
            d <<= 1;
        }
        v
    }

    /// Inclusive prefix sum of a 64-bit `v` across the warp (every lane must call it).
    #[inline(always)]
    pub fn warp_inclusive_sum_u64(mut v: u64) -> u64 {
        let lane = gpu::lane_id();
        let mut d = 1;
        while d < 32 {
            let up = gpu::shfl_up_u64(v, d);
            if lane >= d {
                v += up;
            }
            d <<= 1;
        }
        v
    }

    /// Sum of `v` over the warp, in every lane (every lane must call it).
    #[inline(always)]
    pub fn warp_sum_u32(v: u32) -> u32 {
        gpu::shfl_idx_u32(warp_inclusive_sum_u32(v), WARP - 1)
    }

    /// Sum of a 64-bit `v` over the warp, in every lane (every lane must call it).
    #[inline(always)]
    pub fn warp_sum_u64(v: u64) -> u64 {
        gpu::shfl_idx_u64(warp_inclusive_sum_u64(v), WARP - 1)
    }

    /// Exclusive prefix sum of one `u64` per thread across the block; returns
    /// `(this thread's exclusive sum, block total)`. Every thread must call it;
    /// `blockDim.x` must be a multiple of 32. `smem` points to 33 free shared `u64`s
    /// ([`super::SCAN_SMEM_U64`] bytes), which may be reused once this returns (it ends
    /// with a barrier).
    #[inline(always)]
    pub unsafe fn block_exclusive_sum_u64(v: u64, smem: *mut u64) -> (u64, u64) {
        let lane = gpu::lane_id();
        let warp = gpu::thread_idx() / 32;
        let warps = gpu::block_dim() / 32;
        let incl = warp_inclusive_sum_u64(v);
        unsafe {
            if lane == 31 {
                *smem.add(warp as usize) = incl;
            }
            gpu::sync_threads();
            if warp == 0 {
                let t = if lane < warps { *smem.add(lane as usize) } else { 0 };
                let ti = warp_inclusive_sum_u64(t);
                // Lane 31 reads slot 31 before anyone writes slots (shuffles above
                // synchronise the warp), so overwriting in place is safe.
                *smem.add(lane as usize) = ti - t;
                if lane == 31 {
                    *smem.add(32) = ti;
                }
            }
            gpu::sync_threads();
            let r = (*smem.add(warp as usize) + incl - v, *smem.add(32));
            gpu::sync_threads();
            r
        }
    }

    /// Exclusive prefix sum of one `u32` per thread across the block; returns
    /// `(this thread's exclusive sum, block total)`. Every thread must call it;
    /// `blockDim.x` must be a multiple of 32 and at most 1024. `scan` is the shared
    /// address of [`super::SCAN_SMEM`] free bytes, reusable once this returns (it ends with a
    /// barrier).
    #[inline(always)]
    pub unsafe fn block_exclusive_sum_u32(v: u32, scan: u32) -> (u32, u32) {
        let lane = gpu::lane_id();
        let warp = gpu::thread_idx() / WARP;
        let warps = gpu::block_dim() / WARP;
        let incl = warp_inclusive_sum_u32(v);
        unsafe {
            if lane == WARP - 1 {
                gpu::sts_u32(scan + 4 * warp, incl);
            }
            gpu::sync_threads();
            if warp == 0 {
                let t = if lane < warps { gpu::lds_u32(scan + 4 * lane) } else { 0 };
                let ti = warp_inclusive_sum_u32(t);
                // Every lane read its slot before the shuffles, which converge the warp.
                gpu::sts_u32(scan + 4 * lane, ti - t);
                if lane == WARP - 1 {
                    gpu::sts_u32(scan + 4 * WARP, ti);
                }
            }
            gpu::sync_threads();
            let r = (gpu::lds_u32(scan + 4 * warp) + incl - v, gpu::lds_u32(scan + 4 * WARP));
            gpu::sync_threads();
            r
        }
    }
}
