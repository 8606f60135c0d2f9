//! CPU runs of the multi-pass scan, block by block and thread by thread, as the host
//! launches it and the kernels run it.
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
