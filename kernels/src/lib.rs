//! GPU sorting kernels written in Rust.
//!
//! This crate is `#![no_std]` and is compiled twice:
//!
//! * for `nvptx64-nvidia-cuda`, as a `cdylib`, into the PTX module that `host` loads
//!   (`cargo xtask build-ptx`). Only that build contains the `extern "ptx-kernel"`
//!   entry points (in [`entry`]), which are thin wrappers over generic kernel bodies.
//! * for the host, as an ordinary library. Everything that is not tied to the GPU (the
//!   key encoding in [`key`], the searches in [`search`], the per-element index math of
//!   each algorithm) is plain Rust that `host` reuses and that `cargo test -p kernels`
//!   checks against slices on the CPU.
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx, stdarch_nvptx, asm_experimental_arch))]

pub mod block;
pub mod key;
pub mod mergepath;
pub mod naive;
pub mod quick;
pub mod radix;
pub mod records;
pub mod scan;
pub mod search;
pub mod shared_merge;
pub mod topk;

pub mod bitonic;
pub mod blockmerge;
pub mod bottomup;

#[cfg(target_arch = "nvptx64")]
pub mod gpu;

#[cfg(target_arch = "nvptx64")]
mod entry;

pub use key::{Entity, SortKey};

/// `(kernel, threads per block, blocks per SM)`: CUDA's `__launch_bounds__` for the
/// kernels whose speed depends on how many blocks share an SM. Rust has no attribute
/// for it; the PTX builder (`xtask::ptx`) writes these into the PTX as `.maxntid` and
/// `.minnctapersm`, which cap the registers ptxas may use.
pub const LAUNCH_BOUNDS: &[(&str, u32, u32)] =
    &concat_bounds::<{ radix::LAUNCH_BOUNDS.len() + mergepath::LAUNCH_BOUNDS.len() + topk::LAUNCH_BOUNDS.len() }>(
        &concat_bounds::<{ radix::LAUNCH_BOUNDS.len() + mergepath::LAUNCH_BOUNDS.len() }>(
            radix::LAUNCH_BOUNDS,
            mergepath::LAUNCH_BOUNDS,
        ),
        topk::LAUNCH_BOUNDS,
    );

/// `a` followed by `b`, as an array of length `N` (`a.len() + b.len()`), in a constant.
const fn concat_bounds<const N: usize>(
    a: &[(&'static str, u32, u32)],
    b: &[(&'static str, u32, u32)],
) -> [(&'static str, u32, u32); N] {
    let mut out = [("", 0, 0); N];
    let mut i = 0;
    while i < a.len() {
        out[i] = a[i];
        i += 1;
    }
    while i < N {
        out[i] = b[i - a.len()];
        i += 1;
    }
    out
}

#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // A panic in a kernel (only reachable through a bug: kernels index through raw
    // pointers) aborts the whole launch; the host sees it as a launch failure.
    unsafe { core::arch::nvptx::trap() }
}
