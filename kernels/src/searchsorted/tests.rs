extern crate std;
use super::*;
use std::vec::Vec;

fn lcg(state: &mut u64) -> u64 {
    *state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    *state >> 33
}

/// The answer by a loop over every key.
fn reference(keys: &[u32], q: u32, right: bool) -> u64 {
    keys.iter().filter(|&&k| precedes(k, q, right)).count() as u64
}

/// The sorted-query path as the kernels compute it: every split, then each tile's
/// queries searched among its keys.
fn merge_model(keys: &[u32], queries: &[u32], right: bool) -> Vec<u64> {
    let (n, m) = (keys.len() as u64, queries.len() as u64);
    let t_count = tiles(n, m);
    let splits: Vec<u64> = (0..=t_count)
        .map(|t| split(diagonal(t, n, m), n, m, right, |i| keys[i as usize], |j| queries[j as usize]))
        .collect();
    let mut out = std::vec![u64::MAX; m as usize];
    for t in 0..t_count {
        let (k0, kn, q0, qn) = tile_ranges(t, n, m, splits[t as usize], splits[t as usize + 1]);
        assert!(kn as u64 + qn as u64 == diagonal(t + 1, n, m) - diagonal(t, n, m));
        let tile = &keys[k0 as usize..(k0 + kn as u64) as usize];
        for x in 0..qn as u64 {
            let q = queries[(q0 + x) as usize];
            let r = crate::search::count_before(kn, q, right, |i| tile[i as usize]);
            assert_eq!(out[(q0 + x) as usize], u64::MAX, "each query in one tile");
            out[(q0 + x) as usize] = k0 + r as u64;
        }
    }
    out
}

/// The unsorted path: samples, then the key range they leave, in lockstep.
fn search_model(keys: &[u32], queries: &[u32], right: bool) -> Vec<u64> {
    let n = keys.len() as u64;
    let (st, sc) = (stride(n), samples(n));
    let sample: Vec<u32> = (0..sc as u64).map(|s| keys[(s * st) as usize]).collect();
    queries
        .chunks(3)
        .flat_map(|c| {
            let mut q = [0u32; 3];
            q[..c.len()].copy_from_slice(c);
            let live = core::array::from_fn::<bool, 3, _>(|k| k < c.len());
            let top =
                lockstep_count([0; 3], live.map(|l| if l { sc as u64 } else { 0 }), &q, right, |i| sample[i as usize]);
            let (mut lo, mut len) = ([0u64; 3], [0u64; 3]);
            for k in 0..c.len() {
                let (a, b) = after_samples(top[k] as u32, n);
                assert!(a <= b && b <= n);
                (lo[k], len[k]) = (a, b - a);
            }
            let r = lockstep_count(lo, len, &q, right, |i| keys[i as usize]);
            r[..c.len()].to_vec()
        })
        .collect()
}

#[test]
fn both_paths_match_the_loop() {
    let mut state = 3;
    let sizes = [1usize, 2, 7, 100, 2047, 2048, 2049, 4095, 4096, 4097, 9000];
    for &n in &sizes {
        for &m in &[0usize, 1, 5, 4096, 7000] {
            for range in [3u64, 1000, 1 << 32] {
                let mut keys: Vec<u32> = (0..n).map(|_| (lcg(&mut state) % range) as u32).collect();
                keys.sort();
                // Queries below and above every key, equal to keys, in between.
                let mut queries: Vec<u32> = (0..m).map(|_| (lcg(&mut state) % (range + 2)) as u32).collect();
                queries.sort();
                for right in [false, true] {
                    let want: Vec<u64> = queries.iter().map(|&q| reference(&keys, q, right)).collect();
                    assert_eq!(
                        merge_model(&keys, &queries, right),
                        want,
                        "merge n={n} m={m} range={range} right={right}"
                    );
                    let mut shuffled = queries.clone();
                    shuffled.reverse();
                    let want_rev: Vec<u64> = shuffled.iter().map(|&q| reference(&keys, q, right)).collect();
                    assert_eq!(search_model(&keys, &shuffled, right), want_rev, "search n={n} m={m} right={right}");
                }
            }
        }
    }
}

#[test]
fn no_keys_and_only_keys() {
    // No queries: the splits take every key.
    let keys = [1u32, 2, 3];
    assert_eq!(split(3, 3, 0, false, |i| keys[i as usize], |_| 0), 3);
    // No keys: every answer is 0.
    let queries = [5u32, 6];
    assert_eq!(merge_model(&[], &queries, true), [0, 0]);
}

#[test]
fn samples_cover_the_keys() {
    for n in [1u64, 2, 2047, 2048, 2049, 1 << 26, (1 << 32) + 5] {
        let (st, sc) = (stride(n), samples(n));
        assert!((1..=SAMPLE).contains(&sc), "n={n}");
        assert!((sc as u64 - 1) * st < n, "the last sample is a key");
        assert!(sc as u64 * st >= n, "the samples reach the end");
    }
}

#[test]
fn unclamped_tiles_of_bad_splits_stay_inside() {
    // Splits of unsorted input may decrease (each stays in its `split_range`): the
    // ranges are then empty or at most a tile, and inside the arrays.
    let t = TILE as u64;
    let (n, m) = (t + t / 4, t + t / 4);
    // The largest split of diagonal 1 and the smallest of diagonal 2.
    let (s0, s1) = (split_range(t, n, m).1, split_range(2 * t, n, m).0);
    assert!(s1 < s0);
    let (k0, kn, q0, qn) = tile_ranges(1, n, m, s0, s1);
    assert!(kn == 0 && qn as u64 <= TILE as u64);
    assert!(k0 + kn as u64 <= n && q0 + qn as u64 <= m);
}

/// The galloping search gives the binary search's answer from any start at or below it.
#[test]
fn gallop_count_matches_the_binary_search() {
    let mut state = 99u64;
    for len in 0..70u32 {
        let mut v: Vec<u32> = (0..len)
            .map(|_| {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                (state >> 33) as u32 % 20
            })
            .collect();
        v.sort();
        for q in 0..22u32 {
            for right in [false, true] {
                let want = crate::search::count_before(len, q, right, |i| v[i as usize]);
                for from in 0..=want {
                    assert_eq!(
                        gallop_count(from, len, q, right, |i| v[i as usize]),
                        want,
                        "len={len} q={q} from={from}"
                    );
                }
            }
        }
    }
}

/// The threads' consecutive query ranges cover a tile's queries once, in order, and
/// never pass the shared memory left after the keys.
#[test]
fn thread_queries_cover_the_tile() {
    for (keys, queries) in [(0, 0), (0, TILE), (TILE, 0), (6000, 2192), (100, 1), (8000, 192), (5000, TILE)] {
        let mut next = 0;
        for tid in 0..MERGE_BLOCK {
            let (first, end) = thread_queries(tid, keys, queries);
            assert!(first <= end);
            if first < end {
                assert_eq!(first, next, "keys={keys} queries={queries} tid={tid}");
                next = end;
            }
        }
        assert_eq!(next, queries.min(TILE - keys), "keys={keys} queries={queries}");
    }
}
