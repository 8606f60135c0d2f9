//! CPU runs of the bottom-up merge sort, pass by pass and thread by thread, as the
//! kernel runs it.
extern crate std;
use super::*;
use std::vec::Vec;

/// Runs every pass as the GPU does: each simulated thread merges its slices from
/// the source buffer into the other one; checks every output is written once.
fn simulate(mut v: Vec<(u32, usize)>, max_threads: u64) -> Vec<(u32, usize)> {
    let n = v.len() as u64;
    for p in 1..=passes(n) {
        let (threads, per_thread) = pass_shape(n, p, max_threads);
        assert!(threads <= max_threads.max(1));
        let mut out = std::vec![None; v.len()];
        for t in 0..threads {
            thread_pass(
                t,
                n,
                p,
                per_thread,
                |x| (v[x as usize].0, v[x as usize]),
                |o, e| {
                    assert!(out[o as usize].is_none(), "output {o} written twice");
                    out[o as usize] = Some(e);
                },
            );
        }
        v = out.into_iter().map(|e| e.expect("output never written")).collect();
    }
    v
}

fn input(n: usize, seed: u64) -> Vec<(u32, usize)> {
    let mut state = seed;
    (0..n)
        .map(|i| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (((state >> 40) % 13) as u32, i)
        })
        .collect()
}

#[test]
fn any_length_sorts_stably() {
    for n in (0..200usize).chain([255, 256, 257, 1000, 1023, 1025, 4099]) {
        for max_threads in [1, 3, 64, 1 << 20] {
            let v = input(n, n as u64);
            let mut expect = v.clone();
            expect.sort_by_key(|e| e.0);
            assert_eq!(simulate(v, max_threads), expect, "n = {n}, {max_threads} threads");
        }
    }
}

#[test]
fn merge_runs_stops_after_count() {
    let src = [1u32, 4, 6, 2, 4, 5];
    for count in 0..=6u64 {
        let mut out = std::vec![0u32; 6];
        merge_runs(0..3, 3..6, 0, count, |x| (src[x as usize], src[x as usize]), |o, e| out[o as usize] = e);
        let expect = [1, 2, 4, 4, 5, 6];
        assert_eq!(&out[..count as usize], &expect[..count as usize]);
        assert!(out[count as usize..].iter().all(|&x| x == 0));
    }
}

#[test]
fn slices_cover_the_array() {
    assert_eq!(slice_bounds(0, 1, 1), (0, 1, 1));
    assert_eq!(slice_bounds(2, 2, 10), (8, 10, 10));
    assert_eq!(slice_bounds(1, 3, 13), (8, 12, 13));
    assert_eq!(thread_slices(5, 3, 16), 15..16);
    assert_eq!(thread_slices(6, 3, 16), 16..16);
    assert_eq!(pass_shape(1 << 24, 24, 1 << 18), (1, 1));
    assert_eq!(pass_shape(1 << 24, 1, 1 << 18), (1 << 18, 32));
    assert_eq!(pass_shape((1 << 24) + 1, 25, 1 << 18), (1, 1));
}
