//! CPU runs of both phases, block by block and thread by thread, as the kernels run
//! them.
extern crate std;
use super::*;
use std::vec::Vec;

type Item = (u32, usize);

/// Phase 1 for every block, step by step, as the GPU runs it.
fn simulate_tiles(v: &mut [Item], block: u32) {
    let tile = 1usize << log_tile(block);
    for chunk in v.chunks_mut(tile) {
        let len = chunk.len() as u64;
        let mut buf = [chunk.to_vec(), chunk.to_vec()];
        for log_width in 1..=log_tile(block) {
            let src = buf[(log_width as usize + 1) % 2].clone();
            let dst = &mut buf[log_width as usize % 2];
            let mut written = std::vec![false; chunk.len()];
            for t in 0..block {
                tile_step(
                    t,
                    block,
                    len,
                    log_width,
                    |x| (src[x as usize].0, src[x as usize]),
                    |o, e| {
                        assert!(!written[o as usize], "smem {o} written twice");
                        written[o as usize] = true;
                        dst[o as usize] = e;
                    },
                );
            }
            assert!(written.iter().all(|&w| w), "a tile element was not written");
        }
        chunk.copy_from_slice(&buf[log_tile(block) as usize % 2]);
    }
}

/// Phase 2 passes, block by block: each block's threads fill its staging buffer,
/// which is then copied out.
fn simulate_cross(mut v: Vec<Item>, block: u32) -> Vec<Item> {
    let n = v.len() as u64;
    for log_run in cross_passes(n, log_tile(block)) {
        let mut out = Vec::with_capacity(v.len());
        for b in 0..cross_threads(n).div_ceil(block as u64) {
            let range = cross_block_outputs(b, block, n);
            let key = |x: u64| v[x as usize].0;
            assert_eq!(output_pair(range.start, n, log_run), output_pair(range.end - 1, n, log_run));
            let bracket = block_co_rank(&range, false, n, log_run, key)..=block_co_rank(&range, true, n, log_run, key);
            let mut staged = std::vec![None; (range.end - range.start) as usize];
            for t in b * block as u64..(b + 1) * block as u64 {
                cross_thread(
                    t,
                    n,
                    log_run,
                    bracket.clone(),
                    key,
                    |x| (v[x as usize].0, v[x as usize]),
                    |o, e| {
                        assert!(range.contains(&o), "thread {t} writes {o} outside its block's {range:?}");
                        let slot = &mut staged[(o - range.start) as usize];
                        assert!(slot.is_none(), "output {o} written twice");
                        *slot = Some(e);
                    },
                );
            }
            out.extend(staged.into_iter().map(|e| e.expect("output never written")));
        }
        assert_eq!(out.len(), v.len());
        v = out;
    }
    v
}

fn input(n: usize, seed: u64, range: u64) -> Vec<Item> {
    let mut state = seed;
    (0..n)
        .map(|i| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (((state >> 33) % range) as u32, i)
        })
        .collect()
}

#[test]
fn any_length_sorts_stably() {
    for block in [32u32, 64] {
        let tile = 1usize << log_tile(block);
        let sizes = (0..300usize).chain([tile - 1, tile, tile + 1, 3 * tile + 5, 8 * tile, 8 * tile + 1, 5000]);
        for n in sizes {
            for range in [3, 1 << 30] {
                let mut v = input(n, n as u64 ^ range, range);
                let mut expect = v.clone();
                expect.sort_by_key(|e| e.0);
                simulate_tiles(&mut v, block);
                for c in v.chunks(tile) {
                    assert!(c.windows(2).all(|w| w[0].0 < w[1].0 || (w[0].0 == w[1].0 && w[0].1 < w[1].1)));
                }
                assert_eq!(simulate_cross(v, block), expect, "n = {n}, block {block}");
            }
        }
    }
}

#[test]
fn pass_ranges() {
    assert_eq!(log_tile(256), 10);
    assert_eq!(cross_passes(0, 10), 10..10);
    assert_eq!(cross_passes(1024, 10), 10..10);
    assert_eq!(cross_passes(1025, 10), 10..11);
    assert_eq!(cross_passes(1 << 24, 10), 10..24);
    assert_eq!(cross_threads(17), 3);
}
