//! Elements and words in shared memory by 32-bit shared address (device only).
//! Generic pointers into shared memory cost an address conversion per access; these go
//! through `ld.shared`/`st.shared` (`gpu::lds_u32` and friends) wherever the element is
//! a 4- or 8-byte word.
//!
//! Two forms of the same access: [`SmemWord`], a trait over `u32` and `u64` (the radix
//! kernels' keys and values), and [`lds`]/[`sts`], which pick the access by the
//! element's size and take wider records through the generic path (the merge kernels'
//! elements, records included).
use crate::gpu;

/// A word the kernels stage in shared memory: loaded and stored by shared address.
pub trait SmemWord: Copy {
    unsafe fn lds(addr: u32) -> Self;
    unsafe fn sts(addr: u32, v: Self);
}

impl SmemWord for u32 {
    #[inline(always)]
    unsafe fn lds(addr: u32) -> u32 {
        unsafe { gpu::lds_u32(addr) }
    }
    #[inline(always)]
    unsafe fn sts(addr: u32, v: u32) {
        unsafe { gpu::sts_u32(addr, v) }
    }
}

impl SmemWord for u64 {
    #[inline(always)]
    unsafe fn lds(addr: u32) -> u64 {
        unsafe { gpu::lds_u64(addr) }
    }
    #[inline(always)]
    unsafe fn sts(addr: u32, v: u64) {
        unsafe { gpu::sts_u64(addr, v) }
    }
}

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

/// Reads the 4- or 8-byte `T` at shared address `addr`.
#[inline(always)]
pub unsafe fn lds_at<T: Copy>(addr: u32) -> T {
    unsafe {
        match size_of::<T>() {
            4 => core::mem::transmute_copy(&gpu::lds_u32(addr)),
            _ => core::mem::transmute_copy(&gpu::lds_u64(addr)),
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
            4 => gpu::sts_u32(addr, core::mem::transmute_copy(&v)),
            8 => gpu::sts_u64(addr, core::mem::transmute_copy(&v)),
            _ => *gpu::dyn_smem::<u8>().add(tile as usize).cast::<T>().add(x as usize) = v,
        }
    }
}
