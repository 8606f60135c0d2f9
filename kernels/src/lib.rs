//! GPU sorting kernels written in Rust.
//!
//! This crate is `#![no_std]` and is compiled twice:
//!
//! * for `nvptx64-nvidia-cuda`, as a `cdylib`, into the PTX module that `host` loads
//!   (`cargo xtask build-ptx`). Only that build contains the `extern "ptx-kernel"`
//!   entry points, which are thin wrappers over generic kernel bodies, declared with
//!   their parameter structs ([`params`]).
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
pub mod nan;
pub mod narrow;
pub mod params;
pub mod partition;
pub mod peer;
pub mod quick;
pub mod radix;
pub mod records;
pub mod rows;
pub mod runs;
pub mod scan;
pub mod search;
pub mod searchsorted;
pub mod segmented;
pub mod shared;
pub mod splitters;
pub mod topk;
pub mod wide;
pub mod widen;

pub mod bitonic;
pub mod blockmerge;
pub mod bottomup;

#[cfg(target_arch = "nvptx64")]
pub mod gpu;

pub use key::{Entity, SortKey};

/// Every entry the host can launch ([`params::Kernel`]), by family: `host`'s tests
/// check each against the PTX (name, parameter offsets and sizes), and that no entry
/// of the PTX is missing here.
pub const KERNELS: &[&[params::EntryLayout]] = &[
    naive::KERNELS,
    radix::KERNELS,
    records::KERNELS,
    scan::KERNELS,
    mergepath::KERNELS,
    partition::KERNELS,
    peer::KERNELS,
    splitters::KERNELS,
    bottomup::KERNELS,
    bitonic::KERNELS,
    blockmerge::KERNELS,
    shared::KERNELS,
    quick::KERNELS,
    segmented::KERNELS,
    topk::KERNELS,
    runs::KERNELS,
    searchsorted::KERNELS,
    rows::KERNELS,
    nan::KERNELS,
    widen::KERNELS,
    wide::KERNELS,
];

/// Tag of the Hopper-only instructions that `gpu::grid_dependency_wait` and the
/// cluster intrinsics (`gpu::cluster_sync`, `gpu::lds_cluster_u32`) write into the
/// (sm_70) PTX as comments: `<PDL_MARK><instruction>`. The sm_90 build removes the tag
/// (`xtask::ptx::for_sm90`); the host launches an entry as a programmatic dependent
/// only if its PTX has the tagged wait, and the cluster kernels only from the sm_90
/// cubin.
pub const PDL_MARK: &str = "// sort-pdl: ";

/// `(kernel, threads per block, blocks per SM)`: CUDA's `__launch_bounds__` for the
/// kernels whose speed depends on how many blocks share an SM. Rust has no attribute
/// for it; the PTX builder (`xtask::ptx`) writes these into the PTX as `.maxntid` and
/// `.minnctapersm`, which cap the registers ptxas may use.
pub const LAUNCH_BOUNDS: &[(&str, u32, u32)] = &concat_bounds::<{ total_len(BOUND_TABLES) }>(BOUND_TABLES);

/// Each algorithm family's launch bounds.
const BOUND_TABLES: &[&[(&str, u32, u32)]] = &[
    radix::LAUNCH_BOUNDS,
    mergepath::LAUNCH_BOUNDS,
    segmented::LAUNCH_BOUNDS,
    topk::LAUNCH_BOUNDS,
    runs::LAUNCH_BOUNDS,
    searchsorted::LAUNCH_BOUNDS,
    partition::LAUNCH_BOUNDS,
    rows::LAUNCH_BOUNDS,
];

const fn total_len(tables: &[&[(&'static str, u32, u32)]]) -> usize {
    let (mut n, mut t) = (0, 0);
    while t < tables.len() {
        n += tables[t].len();
        t += 1;
    }
    n
}

/// The tables one after another, as an array of length `N` (their total length), in a
/// constant.
const fn concat_bounds<const N: usize>(tables: &[&[(&'static str, u32, u32)]]) -> [(&'static str, u32, u32); N] {
    let mut out = [("", 0, 0); N];
    let (mut i, mut t) = (0, 0);
    while t < tables.len() {
        let mut j = 0;
        while j < tables[t].len() {
            out[i] = tables[t][j];
            i += 1;
            j += 1;
        }
        t += 1;
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
