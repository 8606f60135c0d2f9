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

crate::kernel_params! {
    /// Pass 2a (`scan_reduce_u64`): `sums[b]` = sum of tile `b` of `src[0..n]`.
    pub struct Reduce {
        pub src: DevPtr<u64>,
        pub n: u64,
        pub sums: DevPtr<u64>,
    }
    /// Declares an entry taking [`Reduce`].
    entries reduce_entry;
}

crate::kernel_params! {
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

#[cfg(target_arch = "nvptx64")]
mod device;

/// Shared memory the scan kernels need (the block scan's 33 slots).
pub const SMEM_BYTES: u32 = crate::block::scan::SCAN_SMEM_U64;

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    /// The passes as the host launches them, with `block` threads of `items` values
    /// (small tiles reach the recursive case with small inputs); each block's work is
    /// done on the CPU as the GPU does it: per-thread contiguous runs, then the
    /// block's prefix over the threads' sums.
    fn simulate(data: &mut [u64], n: u64, block: u64, items: u64) {
        let tile = block * items;
        if n <= tile {
            scan_tiles_cpu(data, n, None, block, items);
            return;
        }
        let m = n.div_ceil(tile);
        let mut sums: Vec<u64> = (0..m)
            .map(|b| {
                let (lo, hi) = tile_range(b, n, tile);
                data[lo as usize..hi as usize].iter().sum()
            })
            .collect();
        sums.push(0);
        simulate(&mut sums, m, block, items);
        scan_tiles_cpu(data, n, Some(&sums), block, items);
    }

    fn scan_tiles_cpu(data: &mut [u64], n: u64, offsets: Option<&[u64]>, block: u64, items: u64) {
        let tile = block * items;
        let blocks = n.div_ceil(tile).max(1);
        for b in 0..blocks {
            let (lo, hi) = tile_range(b, n, tile);
            let base = offsets.map_or(0, |o| o[b as usize]);
            let threads: Vec<u64> = (0..block)
                .map(|t| (0..items).map(|j| lo + t * items + j).filter(|&i| i < hi).map(|i| data[i as usize]).sum())
                .collect();
            let total: u64 = threads.iter().sum();
            let mut excl = 0;
            for (t, &s) in threads.iter().enumerate() {
                let mut run = base + excl;
                for j in 0..items {
                    let i = lo + t as u64 * items + j;
                    if i < hi {
                        let x = data[i as usize];
                        data[i as usize] = run;
                        run += x;
                    }
                }
                excl += s;
            }
            if b + 1 == blocks {
                data[n as usize] = base + total;
            }
        }
    }

    #[test]
    fn multi_pass_equals_sequential_scan() {
        let mut state = 99u64;
        for (block, items) in [(BLOCK as u64, ITEMS), (4, 2), (32, 3)] {
            let tile = block * items;
            for n in [0u64, 1, 2, 7, tile - 1, tile, tile + 1, 3 * tile + 5, tile * tile + 3, tile * tile * 2 + 1] {
                if n > 1 << 22 {
                    continue;
                }
                let mut data: Vec<u64> = (0..n)
                    .map(|_| {
                        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                        state >> 40
                    })
                    .collect();
                let mut expect = Vec::with_capacity(n as usize + 1);
                let mut acc = 0u64;
                for &x in &data {
                    expect.push(acc);
                    acc += x;
                }
                expect.push(acc);
                data.push(12345); // the total's slot: its old value must not matter
                simulate(&mut data, n, block, items);
                assert!(data == expect, "n = {n}, tile {block}x{items}");
            }
        }
    }

    #[test]
    fn tiles_cover_exactly() {
        for n in [1u64, TILE, TILE + 1, 5 * TILE - 1] {
            let mut next = 0;
            for b in 0..tile_count(n) {
                let (lo, hi) = tile_range(b, n, TILE);
                assert_eq!(lo, next);
                assert!(hi > lo && hi - lo <= TILE);
                next = hi;
            }
            assert_eq!(next, n);
        }
    }
}
