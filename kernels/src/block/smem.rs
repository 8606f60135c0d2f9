//! Elements and words in shared memory by 32-bit shared address (device only).
//! Generic pointers into shared memory cost an address conversion per access; these go
//! through `ld.shared`/`st.shared` (`gpu::lds_u32` and friends) wherever the element is
//! a 4- or 8-byte word.
//!
//! By address, for 4- and 8-byte words ([`lds_at`], [`sts_at`]: the radix kernels'
//! keys and values), or by slot of an array ([`lds`], [`sts`]), which also takes wider
//! records, through the generic path (the merge kernels' elements).
use crate::gpu;

/// Reads element `x` of the shared-memory array of `T` that starts `tile` bytes into
/// the dynamic shared memory. 4- and 8-byte elements go through 32-bit shared
/// addresses (`ld.shared`), wider records through the generic volatile path
/// (`gpu::load_shared_element`, which keeps them in registers).
#[inline(always)]
pub unsafe fn lds<T: Copy>(tile: u32, x: u32) -> T {
    unsafe {
        if gpu::carry_by_value::<T>() {
            lds_at(gpu::smem_base() + tile + x * size_of::<T>() as u32)
        } else {
            gpu::load_shared_element(gpu::dyn_smem::<u8>().add(tile as usize).cast::<T>().add(x as usize))
        }
    }
}

/// Reads the 1-, 2-, 4- or 8-byte `T` at shared address `addr`.
#[inline(always)]
pub unsafe fn lds_at<T: Copy>(addr: u32) -> T {
    unsafe {
        match size_of::<T>() {
            1 => core::mem::transmute_copy(&(gpu::lds_u8(addr) as u8)),
            2 => core::mem::transmute_copy(&(gpu::lds_u16(addr) as u16)),
            4 => core::mem::transmute_copy(&gpu::lds_u32(addr)),
            _ => core::mem::transmute_copy(&gpu::lds_u64(addr)),
        }
    }
}

/// Writes the 1-, 2-, 4- or 8-byte `T` at shared address `addr`.
#[inline(always)]
pub unsafe fn sts_at<T: Copy>(addr: u32, v: T) {
    unsafe {
        match size_of::<T>() {
            1 => gpu::sts_u8(addr, core::mem::transmute_copy::<T, u8>(&v) as u32),
            2 => gpu::sts_u16(addr, core::mem::transmute_copy::<T, u16>(&v) as u32),
            4 => gpu::sts_u32(addr, core::mem::transmute_copy(&v)),
            _ => gpu::sts_u64(addr, core::mem::transmute_copy(&v)),
        }
    }
}

/// Reads the 4- or 8-byte `T` at shared address `addr` of block `rank` of the cluster
/// ([`gpu::lds_cluster_u32`]), as [`lds_at`] reads this block's.
#[inline(always)]
pub unsafe fn lds_cluster_at<T: Copy>(addr: u32, rank: u32) -> T {
    unsafe {
        match size_of::<T>() {
            4 => core::mem::transmute_copy(&gpu::lds_cluster_u32(addr, rank)),
            _ => core::mem::transmute_copy(&gpu::lds_cluster_u64(addr, rank)),
        }
    }
}

/// Writes element `x` of the shared-memory array of `T` at byte `tile` (see [`lds`]),
/// through 32-bit shared addresses for 4- and 8-byte elements.
#[inline(always)]
pub unsafe fn sts<T: Copy>(tile: u32, x: u32, v: T) {
    let addr = gpu::smem_base() + tile + x * size_of::<T>() as u32;
    unsafe {
        match size_of::<T>() {
            4 | 8 => sts_at(addr, v),
            _ => *gpu::dyn_smem::<u8>().add(tile as usize).cast::<T>().add(x as usize) = v,
        }
    }
}
