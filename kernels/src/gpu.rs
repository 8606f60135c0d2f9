//! Thin, inlined wrappers over the NVPTX intrinsics (thread ids, barriers, shared
//! memory). Only compiled for `nvptx64`.
use core::arch::nvptx;

#[inline(always)]
pub fn thread_idx() -> u32 {
    unsafe { nvptx::_thread_idx_x() as u32 }
}

#[inline(always)]
pub fn block_idx() -> u32 {
    unsafe { nvptx::_block_idx_x() as u32 }
}

#[inline(always)]
pub fn block_dim() -> u32 {
    unsafe { nvptx::_block_dim_x() as u32 }
}

#[inline(always)]
pub fn grid_dim() -> u32 {
    unsafe { nvptx::_grid_dim_x() as u32 }
}

/// Global thread index, 64-bit so that arrays past 2^31 elements index correctly.
#[inline(always)]
pub fn global_idx() -> u64 {
    block_idx() as u64 * block_dim() as u64 + thread_idx() as u64
}

/// `__syncthreads()`: every thread of the block must reach it.
#[inline(always)]
pub fn sync_threads() {
    unsafe { nvptx::_syncthreads() }
}

// The block's dynamic shared memory (size given at launch). Declared once for the
// whole module; every kernel that uses shared memory views it through `dyn_smem`.
core::arch::global_asm!(".extern .shared .align 16 .b8 DYN_SMEM[];");

/// Generic pointer to the start of the block's dynamic shared memory.
#[inline(always)]
pub fn dyn_smem<T>() -> *mut T {
    let p: u64;
    unsafe {
        core::arch::asm!("cvta.shared.u64 {p}, DYN_SMEM;", p = out(reg64) p);
    }
    p as *mut T
}
