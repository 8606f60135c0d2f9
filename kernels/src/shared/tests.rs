//! CPU runs of the block sort, the chunk passes and the global passes, block by
//! block and thread by thread, as the kernels run them, against `naive`'s targets.
extern crate std;
use super::*;
use crate::naive::merge_target;
use std::vec::Vec;

/// An element with its input position: sorting by `.0` only, stability shows in `.1`.
type El = (u32, usize);

/// Order bits for the direction, as `SortKey::ord_bits` does.
fn bits(e: &El, desc: bool) -> u32 {
    if desc { !e.0 } else { e.0 }
}

/// The block sort, block by block and pass by pass, as the kernel runs it: keys
/// and tile positions in "shared memory"; every thread of a pass reads the current
/// buffers, then (after the barrier) the next pass reads what they wrote; finally
/// each thread gathers the element that sorts to its slot.
fn block_sort(src: &[El], block: u32, desc: bool) -> Vec<El> {
    let n = src.len() as u64;
    let mut dst = std::vec![(u32::MAX, usize::MAX); src.len()];
    for start in (0..n).step_by(block as usize) {
        let m = tile_len(n, start, block);
        let tile = &src[start as usize..][..m as usize];
        let mut keys: Vec<u32> = tile.iter().map(|e| bits(e, desc)).collect();
        let mut pos: Vec<u32> = (0..m).collect();
        let mut log_chunk = 0;
        while (1u32 << log_chunk) < m {
            let (mut next_keys, mut next_pos) = (std::vec![0; m as usize], std::vec![u32::MAX; m as usize]);
            for t in 0..m {
                let to = block_sort_target(t, m, log_chunk, |j| keys[j as usize]) as usize;
                assert_eq!(to, merge_target(t, m, log_chunk, |j| keys[j as usize]) as usize);
                assert_eq!(next_pos[to], u32::MAX, "two threads wrote slot {to}");
                (next_keys[to], next_pos[to]) = (keys[t as usize], pos[t as usize]);
            }
            (keys, pos) = (next_keys, next_pos);
            log_chunk += 1;
        }
        for t in 0..m {
            dst[(start + t as u64) as usize] = tile[pos[t as usize] as usize];
        }
    }
    dst
}

/// One chunk pass: per block, the partner's keys go to "shared memory", then the
/// threads walk the own chunk in sub-chunks of `block`.
fn chunk_pass(src: &[El], block: u32, log_chunk: u32, desc: bool) -> Vec<El> {
    let n = src.len() as u64;
    let mut dst = std::vec![(u32::MAX, usize::MAX); src.len()];
    for chunk_idx in 0..n.div_ceil(1 << log_chunk) {
        let p = ChunkPass::new(chunk_idx, n, log_chunk);
        assert!(p.partner_len <= 1 << log_chunk && p.own_len <= 1 << log_chunk);
        let smem: Vec<u32> =
            (0..p.partner_len).map(|j| bits(&src[(p.partner_start + j as u64) as usize], desc)).collect();
        for sub in (0..p.own_len).step_by(block as usize) {
            for t in 0..block {
                let local = sub + t;
                if local >= p.own_len {
                    continue;
                }
                let i = p.own_start + local as u64;
                let to = p.target(local, bits(&src[i as usize], desc), |j| smem[j as usize]);
                assert_eq!(to, merge_target(i, n, log_chunk, |j| bits(&src[j as usize], desc)));
                assert_eq!(dst[to as usize].1, usize::MAX, "two elements sent to {to}");
                dst[to as usize] = src[i as usize];
            }
        }
    }
    dst
}

fn global_pass(src: &[El], log_chunk: u32, desc: bool) -> Vec<El> {
    let n = src.len() as u64;
    let mut dst = src.to_vec();
    for i in 0..n {
        dst[merge_target(i, n, log_chunk, |j| bits(&src[j as usize], desc)) as usize] = src[i as usize];
    }
    dst
}

/// A whole sort as the host launcher schedules it.
fn simulate(mut v: Vec<El>, block: u32, chunk_pass_end: u32, desc: bool) -> Vec<El> {
    let plan = Plan::new(v.len() as u64, block.trailing_zeros(), chunk_pass_end);
    v = block_sort(&v, block, desc);
    for k in plan.chunk_passes {
        v = chunk_pass(&v, block, k, desc);
    }
    for k in plan.global_passes {
        v = global_pass(&v, k, desc);
    }
    v
}

fn input(n: usize, distinct: u32, seed: u64) -> Vec<El> {
    let mut state = seed;
    (0..n)
        .map(|i| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (((state >> 33) as u32) % distinct, i)
        })
        .collect()
}

fn expected(v: &[El], desc: bool) -> Vec<El> {
    let mut e = v.to_vec();
    e.sort_by_key(|x| bits(x, desc));
    e
}

#[test]
fn every_strategy_sorts_any_length_stably() {
    for block in [1u32, 2, 4, 8, 32] {
        let lb = block.trailing_zeros();
        // sm8, sm9, sm with the widest shared chunk 4x / 16x the block.
        for chunk_pass_end in [lb, lb + 1, lb + 3, lb + 5] {
            for n in (0..140).chain([255, 256, 257, 511, 512, 513, 1000, 1024, 1031]) {
                for desc in [false, true] {
                    let v = input(n, 7, n as u64 * 31 + block as u64);
                    assert_eq!(
                        simulate(v.clone(), block, chunk_pass_end, desc),
                        expected(&v, desc),
                        "n {n} block {block} chunk_pass_end {chunk_pass_end} desc {desc}"
                    );
                }
            }
        }
    }
}

#[test]
fn distinct_keys_and_all_equal() {
    for n in [300, 777, 2048] {
        for distinct in [1, u32::MAX] {
            let v = input(n, distinct, 99);
            for desc in [false, true] {
                assert_eq!(simulate(v.clone(), 16, 7, desc), expected(&v, desc));
            }
        }
    }
}

#[test]
fn chunk_pass_geometry() {
    // n = 10, chunks of 4: [0,4) [4,8) [8,10) and no partner for the last.
    let p = ChunkPass::new(1u64, 10, 2);
    assert_eq!((p.pair_start, p.own_start, p.own_len, p.partner_start, p.partner_len, p.odd), (0, 4, 4, 0, 4, true));
    let p = ChunkPass::new(0u32, 6, 2);
    assert_eq!((p.own_len, p.partner_start, p.partner_len, p.odd), (4, 4, 2, false));
    let p = ChunkPass::new(2u64, 10, 2);
    assert_eq!((p.pair_start, p.own_len, p.partner_len), (8, 2, 0));
    assert_eq!(p.target(1, 5u32, |_| unreachable!()), 9);
    // Indices past 2^32 stay exact.
    let p = ChunkPass::new((1u64 << 30) + 1, 1 << 44, 12);
    assert_eq!((p.pair_start, p.own_start, p.partner_start), (1 << 42, (1 << 42) + 4096, 1 << 42));
}

#[test]
fn plans() {
    // sm8 / sm9 / sm (block 256, widest shared chunk 2^13) at n = 2^24.
    let n = 1 << 24;
    assert_eq!(Plan::new(n, 8, 8), Plan { block_passes: 8, chunk_passes: 8..8, global_passes: 8..24 });
    assert_eq!(Plan::new(n, 8, 9), Plan { block_passes: 8, chunk_passes: 8..9, global_passes: 9..24 });
    assert_eq!(Plan::new(n, 8, 14), Plan { block_passes: 8, chunk_passes: 8..14, global_passes: 14..24 });
    // Small n: the block sort does everything.
    assert_eq!(Plan::new(200, 8, 14), Plan { block_passes: 8, chunk_passes: 8..8, global_passes: 8..8 });
    assert_eq!(Plan::new(2, 8, 14), Plan { block_passes: 1, chunk_passes: 1..1, global_passes: 1..1 });
    assert_eq!(Plan::new(257, 8, 14).launches(), 2);
    assert_eq!(Plan::new(1 << 24, 8, 14).launches(), 17);
    // A budget below one block: no chunk pass.
    assert_eq!(Plan::new(n, 8, 3), Plan { block_passes: 8, chunk_passes: 8..8, global_passes: 8..24 });
}

#[test]
fn chunk_logs_from_budget() {
    assert_eq!(max_chunk_log(48 * 1024, 4), 13);
    assert_eq!(max_chunk_log(48 * 1024, 8), 12);
    assert_eq!(max_chunk_log(227 * 1024, 4), 15);
    assert_eq!(max_chunk_log(3, 4), 0);
    assert_eq!(max_chunk_log(4, 4), 0);
    assert_eq!(max_chunk_log(8, 4), 1);
}
