//! CPU runs of the quicksort as the host drives it: every level (pivots, counts,
//! scan, scatter) thread by thread and warp by warp as the kernels run it, the finish
//! list, and the merge fallback.
extern crate std;
use std::vec;
use std::vec::Vec;

use super::*;
use crate::block::WARP;
use crate::block::rank::lane_rank;
use crate::block::tile::warp_striped;
use crate::naive;

/// A simulated element: (key, id); the id shows that elements move, not keys.
type E = (u32, u32);

fn bits(x: &E, desc: bool) -> u32 {
    if desc { !x.0 } else { x.0 }
}

fn lcg(state: &mut u64) -> u64 {
    *state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    *state >> 33
}

fn table(segs: &[(u64, u64)], tile: u64) -> Vec<u64> {
    let nseg = segs.len();
    let mut t = vec![0u64; 3 * nseg + 1];
    let mut fb = 0;
    for (i, &(s, l)) in segs.iter().enumerate() {
        t[i] = s;
        t[nseg + i] = l;
        t[2 * nseg + i] = fb;
        fb += blocks_for(l, tile);
    }
    t[3 * nseg] = fb;
    t
}

/// `quick_pivots` on the CPU.
fn pick_pivots(data: &[E], segs: &[(u64, u64)], salt: u64, desc: bool) -> Vec<u32> {
    segs.iter()
        .map(|&(start, len)| {
            let samples: Vec<E> =
                (0..SAMPLES).map(|i| data[sample_position(start, len, i, mix64(salt ^ start)) as usize]).collect();
            let winners: Vec<u32> = (0..SAMPLES)
                .filter(|&i| {
                    sample_rank(i, bits(&samples[i as usize], desc), |j| bits(&samples[j as usize], desc))
                        == SAMPLES / 2
                })
                .collect();
            assert_eq!(winners.len(), 1, "exactly one median");
            bits(&samples[winners[0] as usize], desc)
        })
        .collect()
}

/// One level (count, scan, scatter) on the CPU, thread by thread and warp by warp
/// as the kernels do it; `pivots` are order bits. Returns each segment's counts as
/// the scatter kernel stores them, and checks that no slot is written twice.
fn simulate_level(
    src: &[E],
    dst: &mut [E],
    segs: &[(u64, u64)],
    pivots: &[u32],
    block: u32,
    items: u32,
    desc: bool,
) -> Vec<[u64; 3]> {
    let tile = (block * items) as u64;
    let t = table(segs, tile);
    let segt = SegTable { nseg: segs.len() as u64, at: |i: u64| t[i as usize] };
    let nblocks = t[3 * segs.len()];
    let warps = block / WARP;
    // quick_count
    let mut counts = vec![0u64; 2 * nblocks as usize + 1];
    for b in 0..nblocks {
        let s = segt.segment_of_block(b);
        let off = (b - segt.first_block(s)) * tile;
        let tile_len = tile.min(segt.len(s) - off);
        let p = pivots[s as usize];
        for w in 0..warps {
            for k in 0..items {
                for lane in 0..WARP {
                    let o = warp_striped(w, k, lane, items) as u64;
                    if o < tile_len {
                        let key = bits(&src[(segt.start(s) + off + o) as usize], desc);
                        counts[b as usize] += (key < p) as u64;
                        counts[(nblocks + b) as usize] += (key > p) as u64;
                    }
                }
            }
        }
    }
    // the scan
    let mut acc = 0;
    for c in counts.iter_mut() {
        let x = *c;
        *c = acc;
        acc += x;
    }
    // quick_scatter
    let mut seg_counts = vec![[u64::MAX; 3]; segs.len()];
    let mut written = vec![false; dst.len()];
    for b in 0..nblocks {
        let s = segt.segment_of_block(b);
        let plan = block_plan(b, nblocks, s, &segt, tile, |i| counts[i as usize]);
        if b == segt.first_block(s) {
            seg_counts[s as usize] = segment_totals(nblocks, s, &segt, &|i| counts[i as usize]);
        }
        let p = pivots[s as usize];
        // masks[w][k] = (lt, gt, valid) ballots
        let mut masks = vec![vec![(0u32, 0u32, 0u32); items as usize]; warps as usize];
        let mut warp_totals = vec![0u64; warps as usize];
        for w in 0..warps {
            for k in 0..items {
                let m = &mut masks[w as usize][k as usize];
                for lane in 0..WARP {
                    let o = warp_striped(w, k, lane, items) as u64;
                    if o < plan.tile_len {
                        let key = bits(&src[(plan.tile_start + o) as usize], desc);
                        m.0 |= ((key < p) as u32) << lane;
                        m.1 |= ((key > p) as u32) << lane;
                        m.2 |= 1 << lane;
                    }
                }
                let eq = m.2 & !(m.0 | m.1);
                warp_totals[w as usize] +=
                    pack3(m.0.count_ones() as u64, eq.count_ones() as u64, m.1.count_ones() as u64);
            }
        }
        let mut excl = 0;
        for w in 0..warps {
            let [mut lt_at, mut eq_at, mut gt_at] = unpack3(excl);
            excl += warp_totals[w as usize];
            lt_at += plan.less;
            eq_at += plan.equal;
            gt_at += plan.greater;
            for k in 0..items {
                let (lt, gt, valid) = masks[w as usize][k as usize];
                let eq = valid & !(lt | gt);
                for lane in 0..WARP {
                    let bit = 1 << lane;
                    let to = if lt & bit != 0 {
                        lt_at + lane_rank(lt, lane) as u64
                    } else if gt & bit != 0 {
                        gt_at + lane_rank(gt, lane) as u64
                    } else if eq & bit != 0 {
                        eq_at + lane_rank(eq, lane) as u64
                    } else {
                        continue;
                    };
                    let from = plan.tile_start + warp_striped(w, k, lane, items) as u64;
                    assert!(!written[to as usize], "slot {to} written twice");
                    written[to as usize] = true;
                    dst[to as usize] = src[from as usize];
                }
                lt_at += lt.count_ones() as u64;
                gt_at += gt.count_ones() as u64;
                eq_at += eq.count_ones() as u64;
            }
        }
    }
    for &(s, l) in segs {
        assert!(written[s as usize..(s + l) as usize].iter().all(|&w| w), "segment ({s}, {l}) not filled");
    }
    seg_counts
}

/// `quick_finish`'s bitonic network on the CPU.
fn bitonic_sort(v: &mut [E], desc: bool) {
    let len = v.len() as u32;
    let p = len.next_power_of_two();
    let mut k = 2;
    while k <= p {
        let mut j = k / 2;
        while j >= 1 {
            for c in 0..p / 2 {
                let (lo, hi) = crate::block::network::bitonic_comparator(c, k, j);
                if hi < len && bits(&v[hi as usize], desc) < bits(&v[lo as usize], desc) {
                    v.swap(lo as usize, hi as usize);
                }
            }
            j /= 2;
        }
        k *= 2;
    }
}

struct Config {
    block: u32,
    items: u32,
    small: u64,
    max_depth: u32,
}

/// The whole sort as the host drives it (levels, finish list, merge fallback).
/// Returns the number of levels run.
fn simulate_sort(data: &mut [E], desc: bool, cfg: &Config) -> u32 {
    let n = data.len() as u64;
    if n <= 1 {
        return 0;
    }
    let mut scratch = vec![(0u32, 0u32); n as usize];
    let mut finish: Vec<FinishEntry> = Vec::new();
    let mut active = Vec::new();
    if n > cfg.small {
        active.push((0, n));
    } else {
        finish.push(FinishEntry { start: 0, len: n, from_scratch: false, copy_only: false });
    }
    let mut in_scratch = false;
    let mut depth = 0;
    while !active.is_empty() {
        if depth == cfg.max_depth {
            for &(s, l) in &active {
                let (mut cur, mut other) =
                    if in_scratch { (&mut scratch[..], &mut *data) } else { (&mut *data, &mut scratch[..]) };
                let mut res_in_scratch = in_scratch;
                for log_chunk in 0..naive::pass_count(l) {
                    let (a, z) = (&cur[s as usize..(s + l) as usize], &mut other[s as usize..(s + l) as usize]);
                    for i in 0..l {
                        let t = naive::merge_target(i, l, log_chunk, |j| bits(&a[j as usize], desc));
                        z[t as usize] = a[i as usize];
                    }
                    core::mem::swap(&mut cur, &mut other);
                    res_in_scratch = !res_in_scratch;
                }
                if res_in_scratch {
                    copy_back(s, l, cfg.small, |e| finish.push(e));
                }
            }
            break;
        }
        let (src, dst): (&[E], &mut [E]) = if in_scratch { (&scratch, data) } else { (data, &mut scratch) };
        let pivots = pick_pivots(src, &active, mix64(depth as u64), desc);
        let counts = simulate_level(src, dst, &active, &pivots, cfg.block, cfg.items, desc);
        in_scratch = !in_scratch;
        let mut next = Vec::new();
        for (&(s, l), c) in active.iter().zip(&counts) {
            assert_eq!(c.iter().sum::<u64>(), l);
            assert!(c[1] >= 1, "the pivot is an element of its segment");
            plan_children(s, *c, in_scratch, cfg.small, |s, l| next.push((s, l)), |e| finish.push(e));
        }
        active = next;
        depth += 1;
    }
    for e in finish {
        let (s, l) = (e.start as usize, e.len as usize);
        assert!(e.len >= 1 && (e.copy_only || e.len <= cfg.small));
        let mut part: Vec<E> = if e.from_scratch { scratch[s..s + l].to_vec() } else { data[s..s + l].to_vec() };
        if !e.copy_only {
            bitonic_sort(&mut part, desc);
        }
        data[s..s + l].copy_from_slice(&part);
    }
    depth
}

fn input(n: usize, dist: u32, seed: u64) -> Vec<E> {
    let mut st = seed;
    let mut v: Vec<E> = (0..n)
        .map(|i| {
            let r = lcg(&mut st) as u32;
            let key = match dist {
                0 => r,
                3 => 7,
                4 => r % 2,
                6 => r % 16,
                _ => r,
            };
            (key, i as u32)
        })
        .collect();
    match dist {
        1 => v.sort_by_key(|e| e.0),
        2 => v.sort_by_key(|e| core::cmp::Reverse(e.0)),
        5 => {
            let h = n / 2;
            v[..h].sort_by_key(|e| e.0);
            v[h..].sort_by_key(|e| core::cmp::Reverse(e.0));
        }
        _ => {}
    }
    v
}

fn assert_sorted_permutation(input: &[E], out: &[E], desc: bool, what: &str) {
    assert!(out.windows(2).all(|w| bits(&w[0], desc) <= bits(&w[1], desc)), "not ordered: {what}");
    let mut a = input.to_vec();
    let mut b = out.to_vec();
    a.sort();
    b.sort();
    assert!(a == b, "not a permutation: {what}");
}

#[test]
fn sorts_every_distribution_and_size() {
    let configs = [
        Config { block: 64, items: 2, small: 16, max_depth: 100 },
        Config { block: 256, items: 16, small: 4096, max_depth: 100 },
        Config { block: 32, items: 3, small: 8, max_depth: 100 },
    ];
    for cfg in &configs {
        for n in [0usize, 1, 2, 3, 17, 31, 64, 255, 1000, 4097, 20_011] {
            for dist in 0..7 {
                for desc in [false, true] {
                    let inp = input(n, dist, n as u64 * 31 + dist as u64);
                    let mut out = inp.clone();
                    let levels = simulate_sort(&mut out, desc, cfg);
                    let what = std::format!("n {n} dist {dist} desc {desc} block {} small {}", cfg.block, cfg.small);
                    assert_sorted_permutation(&inp, &out, desc, &what);
                    // Sampled medians halve the work: far below the depth cap.
                    assert!(
                        levels as u64 <= 2 * (64 - (n as u64).leading_zeros() as u64) + 2,
                        "{what}: {levels} levels"
                    );
                }
            }
        }
    }
}

#[test]
fn few_distinct_keys_finish_in_few_levels() {
    let cfg = Config { block: 64, items: 2, small: 16, max_depth: 100 };
    let mut v = input(50_000, 4, 5);
    assert!(simulate_sort(&mut v, false, &cfg) <= 2, "two values: one level per value");
    let mut v = input(50_000, 3, 5);
    assert_eq!(simulate_sort(&mut v, true, &cfg), 1, "all equal: one level");
}

#[test]
fn merge_fallback_finishes_deep_segments() {
    for max_depth in [0, 1, 2, 3] {
        let cfg = Config { block: 64, items: 2, small: 16, max_depth };
        for dist in 0..7 {
            for n in [100usize, 5000] {
                let inp = input(n, dist, 77 + dist as u64);
                let mut out = inp.clone();
                simulate_sort(&mut out, dist % 2 == 1, &cfg);
                assert_sorted_permutation(&inp, &out, dist % 2 == 1, &std::format!("depth {max_depth} dist {dist}"));
            }
        }
    }
}

#[test]
fn level_partitions_many_segments_three_ways() {
    let mut st = 3u64;
    for desc in [false, true] {
        let n = 30_000u64;
        let data: Vec<E> = (0..n).map(|i| ((lcg(&mut st) % 50) as u32, i as u32)).collect();
        // Segments of assorted lengths with gaps (inactive ranges) between them.
        let mut segs = Vec::new();
        let mut s = 0;
        while s < n {
            let l = (1 + lcg(&mut st) % 3000).min(n - s);
            if !lcg(&mut st).is_multiple_of(4) {
                segs.push((s, l));
            }
            s += l;
        }
        // Pivots need not be elements (the public partition takes any pivot).
        let pivots: Vec<u32> = segs.iter().map(|_| bits(&((lcg(&mut st) % 52) as u32, 0), desc)).collect();
        let mut dst = vec![(u32::MAX, u32::MAX); n as usize];
        let counts = simulate_level(&data, &mut dst, &segs, &pivots, 128, 3, desc);
        for ((&(s, l), c), &p) in segs.iter().zip(&counts).zip(&pivots) {
            let (s, l) = (s as usize, l as usize);
            let [lt, eq, _] = c.map(|x| x as usize);
            let part = &dst[s..s + l];
            assert!(part[..lt].iter().all(|x| bits(x, desc) < p));
            assert!(part[lt..lt + eq].iter().all(|x| bits(x, desc) == p));
            assert!(part[lt + eq..].iter().all(|x| bits(x, desc) > p));
            let mut a = data[s..s + l].to_vec();
            let mut b = part.to_vec();
            a.sort();
            b.sort();
            assert_eq!(a, b);
        }
    }
}

#[test]
fn bitonic_network_sorts_any_length() {
    let mut st = 11u64;
    for len in (0..300usize).chain([511, 1000, 2048, 4095, 4096]) {
        for desc in [false, true] {
            let inp: Vec<E> = (0..len).map(|i| ((lcg(&mut st) % 40) as u32, i as u32)).collect();
            let mut v = inp.clone();
            bitonic_sort(&mut v, desc);
            assert_sorted_permutation(&inp, &v, desc, &std::format!("len {len}"));
        }
    }
}

#[test]
fn samples_are_stratified_and_median_is_unique() {
    for len in [1u64, 2, 63, 64, 65, 1000, 1 << 40] {
        for i in 0..SAMPLES {
            let pos = sample_position(100, len, i, 12345);
            assert!((100..100 + len).contains(&pos));
            assert!(pos - 100 >= i as u64 * len / SAMPLES as u64);
            assert!(pos - 100 < ((i as u64 + 1) * len / SAMPLES as u64).max(i as u64 * len / SAMPLES as u64 + 1));
        }
    }
    let keys: Vec<u32> = (0..SAMPLES).map(|i| i % 5).collect();
    let mut ranks: Vec<u32> = (0..SAMPLES).map(|i| sample_rank(i, keys[i as usize], |j| keys[j as usize])).collect();
    ranks.sort();
    assert_eq!(ranks, (0..SAMPLES).collect::<Vec<_>>());
}

#[test]
fn small_helpers() {
    assert_eq!(unpack3(pack3(5, (1 << 21) - 1, 7)), [5, (1 << 21) - 1, 7]);
    for e in [
        FinishEntry { start: 0, len: 1, from_scratch: true, copy_only: false },
        FinishEntry { start: u64::MAX >> 1, len: 4096, from_scratch: false, copy_only: true },
    ] {
        assert_eq!(FinishEntry::decode(e.encode()), e);
    }
    assert_eq!((items_per_thread(4), items_per_thread(8), items_per_thread(20)), (16, 8, 3));
    assert_eq!((small_max(4), small_max(8), small_max(20)), (4096, 4096, 2048));
    // Tiles must fit pack3's 21-bit fields at the largest block size.
    assert!(1024 * items_per_thread(1) < 1 << 21);
    let t = table(&[(0, 5), (10, 1), (20, 9)], 4);
    let segt = SegTable { nseg: 3, at: |i: u64| t[i as usize] };
    let owners: Vec<u64> = (0..t[9]).map(|b| segt.segment_of_block(b)).collect();
    assert_eq!(owners, [0, 0, 1, 2, 2, 2]);
}
