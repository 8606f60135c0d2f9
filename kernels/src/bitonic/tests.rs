//! CPU runs of the bitonic plan, tile by tile and comparator by comparator, as the
//! kernels run it.
extern crate std;
use super::*;
use crate::block::network::bitonic_comparator;
use std::vec::Vec;

/// Runs the plan as the GPU does: tiles of `1 << log_tile` with `block` threads of
/// `TILE_PAIRS` comparators each, and global passes with one thread per comparator.
fn simulate(v: &mut [u32], log_tile: u32, block: u32) {
    let n = v.len() as u64;
    let tile = 1u64 << log_tile;
    for step in Plan::new(n, log_tile) {
        match step {
            Step::Shared { k_first, k_last } => {
                for start in (0..n).step_by(tile as usize) {
                    let len = (n - start).min(tile);
                    let t = &mut v[start as usize..(start + len) as usize];
                    tile_stages(k_first, k_last, tile, |k, j| {
                        let mut touched = std::vec![false; tile as usize];
                        for thread in 0..block as u64 {
                            for q in 0..TILE_PAIRS as u64 {
                                let (lo, hi) = bitonic_comparator(thread + q * block as u64, k, j);
                                assert!(hi < tile, "comparator leaves the tile");
                                assert!(!touched[lo as usize] && !touched[hi as usize]);
                                touched[lo as usize] = true;
                                touched[hi as usize] = true;
                                if must_swap(lo, hi, len, |x| t[x as usize]) {
                                    t.swap(lo as usize, hi as usize);
                                }
                            }
                        }
                    });
                }
            }
            Step::Global { k, j } => {
                assert!(j >= tile);
                for p in 0..comparator_count(n, j) {
                    let (lo, hi) = bitonic_comparator(p, k, j);
                    assert!(lo < n);
                    if must_swap(lo, hi, n, |x| v[x as usize]) {
                        v.swap(lo as usize, hi as usize);
                    }
                }
                // The comparators left out touch only virtual elements.
                let big_n = n.next_power_of_two();
                for p in comparator_count(n, j)..big_n / 2 {
                    assert!(bitonic_comparator(p, k, j).0 >= n);
                }
            }
        }
    }
}

#[test]
fn any_length_sorts() {
    let mut state = 3u64;
    for (log_tile, block) in [(3u32, 1u32), (4, 2), (6, 8)] {
        for n in (0..300usize).chain([511, 512, 513, 1000, 1024, 1025, 3001]) {
            for range in [2u64, 1 << 31] {
                let mut v: Vec<u32> = (0..n)
                    .map(|_| {
                        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                        ((state >> 33) % range) as u32
                    })
                    .collect();
                let mut expect = v.clone();
                expect.sort();
                simulate(&mut v, log_tile, block);
                assert_eq!(v, expect, "n = {n}, tile 2^{log_tile}");
            }
        }
    }
}

#[test]
fn comparators_cover_each_index_once() {
    for log_big in 1..8u32 {
        let big_n = 1u64 << log_big;
        let mut k = 2;
        while k <= big_n {
            let mut j = k / 2;
            while j >= 1 {
                let mut seen = std::vec![false; big_n as usize];
                for p in 0..big_n / 2 {
                    let (lo, hi) = bitonic_comparator(p, k, j);
                    assert!(lo < hi && hi < big_n && lo / k == hi / k);
                    assert!(!seen[lo as usize] && !seen[hi as usize]);
                    seen[lo as usize] = true;
                    seen[hi as usize] = true;
                }
                for n in 0..=big_n {
                    let count = (0..big_n / 2).filter(|&p| bitonic_comparator(p, k, j).0 < n).count() as u64;
                    assert_eq!(comparator_count(n, j), count, "n {n} j {j}");
                }
                j /= 2;
            }
            k *= 2;
        }
    }
}

#[test]
fn plan_steps() {
    use Step::*;
    assert_eq!(Plan::new(1, 3).count(), 0);
    assert_eq!(Plan::new(5, 3).collect::<Vec<_>>(), [Shared { k_first: 2, k_last: 8 }]);
    assert_eq!(
        Plan::new(33, 3).collect::<Vec<_>>(),
        [
            Shared { k_first: 2, k_last: 8 },
            Global { k: 16, j: 8 },
            Shared { k_first: 16, k_last: 16 },
            Global { k: 32, j: 16 },
            Global { k: 32, j: 8 },
            Shared { k_first: 32, k_last: 32 },
            Global { k: 64, j: 32 },
            Global { k: 64, j: 16 },
            Global { k: 64, j: 8 },
            Shared { k_first: 64, k_last: 64 },
        ]
    );
}
