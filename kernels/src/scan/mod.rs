//! Exclusive prefix sum of `u64` values on the device: the block-level scan
//! ([`crate::block::scan`]) in a multi-pass ("reduce, then scan") scan over blocks, for
//! any `n`.
//!
//! Why multi-pass and not a single-pass decoupled look-back: the users (block offsets
//! of partitions, histograms) scan short arrays next to the real work, where one extra
//! launch costs less than the look-back's protocol, and the passes are deterministic
//! and easy to check. `u64` because the values are counts and offsets into arrays that
//! may pass 2^32 elements.
//!
//! The passes over `n` values with tiles of [`TILE`] values:
//!
//! 1. `n <= TILE`: one block scans everything (`scan_tiles_u64` without offsets).
//! 2. otherwise `scan_reduce_u64` writes each tile's sum to `sums[0..m]`
//!    (`m = ceil(n / TILE)`), `sums[0..m]` is scanned recursively (its total landing in
//!    `sums[m]`), and `scan_tiles_u64` scans every tile again starting from `sums[b]`.
//!
//! Output: `dst[i] = src[0] + ... + src[i-1]` for `i < n`, and `dst[n]` = the total, so
//! the destination holds `n + 1` values. In place (`dst == src`) is allowed: each
//! value is read and written by one thread only, read first.

/// Threads per block of the scan kernels.
pub const BLOCK: u32 = 512;
/// Values per thread (contiguous: thread `t` owns tile values `t*ITEMS..(t+1)*ITEMS`).
pub const ITEMS: u64 = 32;
/// Values per block.
pub const TILE: u64 = BLOCK as u64 * ITEMS;

/// The half-open range of values of tile `b` (of `tile` values) of an `n`-value array.
#[inline(always)]
pub fn tile_range(b: u64, n: u64, tile: u64) -> (u64, u64) {
    let lo = b * tile;
    let hi = if n - lo < tile { n } else { lo + tile };
    (lo, hi)
}

/// Number of tiles (blocks) a pass over `n` values launches.
#[inline(always)]
pub fn tile_count(n: u64) -> u64 {
    n.div_ceil(TILE)
}

use crate::params::{DevPtr, EntryLayout};

crate::params::kernel_params! {
    /// Pass 2a (`scan_reduce_u64`): `sums[b]` = sum of tile `b` of `src[0..n]`.
    pub struct Reduce {
        pub src: DevPtr<u64>,
        pub n: u64,
        pub sums: DevPtr<u64>,
    }
    /// Declares an entry taking [`Reduce`].
    entries reduce_entry;
}

crate::params::kernel_params! {
    /// Passes 1 and 2b (`scan_tiles_u64`): scans tile `b` of `src[0..n]` into `dst`
    /// (which may be `src`), starting from `offsets[b]` ([`DevPtr::NULL`]: from 0); the
    /// last block also writes the total to `dst[n]`.
    pub struct Tiles {
        pub src: DevPtr<u64>,
        pub dst: DevPtr<u64>,
        pub n: u64,
        pub offsets: DevPtr<u64>,
    }
    /// Declares an entry taking [`Tiles`].
    entries tiles_entry;
}

reduce_entry!(scan_reduce_u64 {} | p | device::scan_reduce(p));
tiles_entry!(scan_tiles_u64 {} | p | device::scan_tiles(p));

/// Every scan entry.
pub const KERNELS: &[EntryLayout] = &[scan_reduce_u64.layout(), scan_tiles_u64.layout()];

/// Shared memory the scan kernels need (the block scan's 33 slots).
pub const SMEM_BYTES: u32 = crate::block::scan::SCAN_SMEM_U64;

#[cfg(target_arch = "nvptx64")]
mod device;

#[cfg(test)]
mod tests;
