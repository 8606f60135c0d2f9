//! Top-k on the GPU (`Sorter::top_k`, `variants::topk::top_k`) against the CPU
//! reference (`cpu_top_k`, itself checked against the stable argsort in `topk.rs`):
//! same indices, same key bits. Skips without a device (see `common::gpu_sorter`).
mod common;

use common::gpu_sorter;
use host::testing::cpu_top_k;
use host::testing::inputs::{Random, generate};
use host::testing::variants::topk;
use host::{Distribution, Order, SortOptions, Sorter};
use rayon::prelude::*;

const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];

fn check<K: host::Key>(s: &Sorter, keys: &[K], k: usize, order: Order, what: &str) {
    let n = keys.len();
    let (gk, gi) = s
        .top_k(keys, k, &SortOptions::default().order(order))
        .unwrap_or_else(|e| panic!("{what} {} n={n} k={k} {order}: {e}", K::NAME));
    let (ck, ci) = cpu_top_k(keys, k, order);
    let bits = |v: &[K]| v.iter().map(|x| x.bits().into()).collect::<Vec<u64>>();
    if gi != ci || bits(&gk) != bits(&ck) {
        let first = gi.iter().zip(&ci).position(|(a, b)| a != b);
        panic!(
            "{what} {} n={n} k={k} {order}: got {} results, want {}; first differing position {first:?}",
            K::NAME,
            gi.len(),
            ci.len()
        );
    }
}

fn ks(n: usize) -> Vec<usize> {
    let mut v = vec![0, 1, 100, 1000, 2048, 2049, 65536, n.saturating_sub(1), n, n + 5];
    v.sort();
    v.dedup();
    v
}

/// Every distribution, both orders, every k, at each size, for key type `K`.
fn every_case<K: Random + host::Key>(test: &str, sizes: &[usize]) {
    let Some(s) = gpu_sorter(test) else { return };
    for &n in sizes {
        let cases: Vec<(Distribution, Order)> =
            Distribution::ALL.iter().flat_map(|&d| ORDERS.iter().map(move |&o| (d, o))).collect();
        cases.par_iter().for_each(|&(dist, order)| {
            let keys: Vec<K> = generate(n, dist, n as u64 ^ 0x70b);
            for k in ks(n) {
                check(s, &keys, k, order, &format!("{test} {dist}"));
            }
        });
    }
}

/// Tiny, around one compaction tile (8,192 keys), around the largest input of the
/// direct path (2^16), the smallest inputs of the exact path's select (about 262,000
/// keys for k = 65,536) with whole and partial last tiles, and 2^20 + 13.
const SIZES: &[usize] =
    &[0, 1, 2, 3, 1000, 4097, 8191, 8192, 8193, 65_536, 65_537, 65_539, 300_007, 327_680, 327_681, (1 << 20) + 13];

#[test]
fn topk_u32_every_case() {
    every_case::<u32>("topk_u32_every_case", SIZES);
}

#[test]
fn topk_i32_every_case() {
    every_case::<i32>("topk_i32_every_case", SIZES);
}

#[test]
fn topk_f32_every_case() {
    every_case::<f32>("topk_f32_every_case", SIZES);
}

#[test]
fn topk_u64_every_case() {
    every_case::<u64>("topk_u64_every_case", SIZES);
}

#[test]
fn topk_i64_every_case() {
    every_case::<i64>("topk_i64_every_case", SIZES);
}

#[test]
fn topk_f64_every_case() {
    every_case::<f64>("topk_f64_every_case", SIZES);
}

#[test]
fn topk_2p24() {
    every_case::<u32>("topk_2p24 u32", &[1 << 24]);
    every_case::<f64>("topk_2p24 f64", &[1 << 24]);
}

/// Inputs that make the select take several passes before the candidates fit, or
/// exhaust every bit: keys that agree on their top bits, and many keys equal to the
/// k-th one next to a few smaller ones.
#[test]
fn topk_skewed_bits_and_ties() {
    let Some(s) = gpu_sorter("topk_skewed_bits_and_ties") else { return };
    let n = (1 << 22) + 5;
    let h = |i: usize| host::testing::inputs::splitmix64(i as u64);
    let low20: Vec<u32> = (0..n).map(|i| h(i) as u32 & 0xf_ffff).collect();
    let low9: Vec<u64> = (0..n).map(|i| h(i) & 0x1ff).collect();
    let mid: Vec<u64> = (0..n).map(|i| 0x1234_5600_0000_0000 | (h(i) & 0xff_ffff) << 8).collect();
    // 1% distinct small keys, the rest one value: the k-th key has millions of equals.
    let ties: Vec<i32> = (0..n).map(|i| if h(i) % 100 == 0 { -(h(i) as i32 & 0xffff) - 1 } else { 7 }).collect();
    let ties_f: Vec<f32> = ties.iter().map(|&x| x as f32).collect();
    for k in [1, 100, 1000, 40_000, 65_536, 100_000] {
        for order in ORDERS {
            check(s, &low20, k, order, "low 20 bits");
            check(s, &low9, k, order, "low 9 bits");
            check(s, &mid, k, order, "middle bits");
            check(s, &ties, k, order, "ties");
            check(s, &ties_f, k, order, "ties f32");
        }
    }
}

#[test]
fn topk_special_floats() {
    let Some(s) = gpu_sorter("topk_special_floats") else { return };
    let specials = [f32::NAN, -f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0, 1.0, -1.0, f32::MIN_POSITIVE];
    for n in [100, 5000, 300_001, 1 << 20] {
        let keys: Vec<f32> = (0..n).map(|i| specials[(i * 7 + i / 13) % specials.len()]).collect();
        let wide: Vec<f64> = keys.iter().map(|&x| x as f64).collect();
        for k in [1, 3, 100, 1000, 65_536, n - 1, n, n + 5] {
            for order in ORDERS {
                check(s, &keys, k, order, "f32 specials");
                check(s, &wide, k, order, "f64 specials");
            }
        }
    }
}

/// The device-buffer entry point leaves its input as it was and returns buffers of
/// `min(k, n)` elements.
#[test]
fn topk_device_buffers() {
    let Some(s) = gpu_sorter("topk_device_buffers") else { return };
    let gpu = s.gpu().unwrap();
    let keys: Vec<i64> = generate(1_000_003, Distribution::Uniform, 5);
    let buf = gpu.upload(&keys).unwrap();
    for k in [0, 1, 777, 2_000_000] {
        let (dk, di) = topk::top_k(gpu, &buf, k, Order::Descending).unwrap();
        assert_eq!(dk.len(), k.min(keys.len()));
        assert_eq!(di.len(), k.min(keys.len()));
        let (ck, ci) = cpu_top_k(&keys, k, Order::Descending);
        assert_eq!(dk.to_vec(gpu).unwrap(), ck);
        assert_eq!(di.to_vec(gpu).unwrap(), ci);
    }
    assert_eq!(buf.to_vec(gpu).unwrap(), keys);
    // Records (`Entity`) are not `Key`s: passing them here does not compile.
}

/// Top-k with one and with five histogram blocks per SM
/// (`host::Tuning::topk_hist_blocks_per_sm`; default two) selects as the CPU does.
#[test]
fn topk_alike_under_other_histogram_grids() {
    let Some(sorters) = common::tuned_sorters(
        "topk_alike_under_other_histogram_grids",
        &[
            ("topk_hist_blocks_per_sm = 1", |t| t.topk_hist_blocks_per_sm = 1),
            ("topk_hist_blocks_per_sm = 5", |t| t.topk_hist_blocks_per_sm = 5),
        ],
    ) else {
        return;
    };
    for (name, s) in &sorters {
        for n in [300_007, (1 << 20) + 13] {
            let keys: Vec<u32> = generate(n, Distribution::Uniform, n as u64);
            for k in [1, 100, 65536] {
                for order in ORDERS {
                    check(s, &keys, k, order, name);
                }
            }
        }
    }
}

/// Inputs that fool a strided sample (the smallest keys where no sample looks, many
/// keys equal to the threshold, all keys equal) take the exact path behind the sampled
/// one; every input gives the same answer on the planned path as on the exact path.
#[test]
fn topk_sample_foolers_and_paths_agree() {
    let Some(s) = gpu_sorter("topk_sample_foolers_and_paths_agree") else { return };
    let gpu = s.gpu().unwrap();
    let h = |i: usize| host::testing::inputs::splitmix64(i as u64 ^ 0x5eed);
    for n in [(1 << 20) + 13, (1 << 22) + 3] {
        let smallest_last: Vec<u32> =
            (0..n).map(|i| if i + 3000 >= n { (n - i) as u32 } else { 1 << 20 | h(i) as u32 >> 12 }).collect();
        let strided_small: Vec<u32> =
            (0..n).map(|i| if i % 1000 == 999 { i as u32 } else { 1 << 28 | h(i) as u32 >> 8 }).collect();
        let ties: Vec<u32> = (0..n).map(|i| if i % 7 == 0 { h(i) as u32 % 1000 } else { 1000 }).collect();
        let equal = vec![42u32; n];
        let wide: Vec<u64> = strided_small.iter().map(|&x| (x as u64) << 32 | 7).collect();
        let floats: Vec<f64> = ties.iter().map(|&x| -(x as f64)).collect();
        for k in [1, 100, 1000, 2048, 2049] {
            for order in ORDERS {
                check(s, &smallest_last, k, order, "smallest last");
                check(s, &strided_small, k, order, "strided small");
                check(s, &ties, k, order, "ties at the threshold");
                check(s, &equal, k, order, "all equal");
                check(s, &wide, k, order, "strided small u64");
                check(s, &floats, k, order, "ties f64");
            }
        }
        for (dist, seed) in [(Distribution::Uniform, 1u64), (Distribution::FewUnique, 2), (Distribution::Sorted, 3)] {
            let keys: Vec<f32> = generate(n, dist, seed);
            let buf = gpu.upload(&keys).unwrap();
            for k in [1, 100, 2048] {
                for order in ORDERS {
                    let (pk, pi) = topk::top_k_on(gpu, &buf, k, order, topk::PathChoice::Planned).unwrap();
                    let (ek, ei) = topk::top_k_on(gpu, &buf, k, order, topk::PathChoice::Exact).unwrap();
                    let bits = |v: Vec<f32>| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
                    assert_eq!(bits(pk.to_vec(gpu).unwrap()), bits(ek.to_vec(gpu).unwrap()), "{dist} k={k} {order}");
                    assert_eq!(pi.to_vec(gpu).unwrap(), ei.to_vec(gpu).unwrap(), "{dist} k={k} {order}");
                }
            }
        }
    }
}

/// `Sorter::top_k_device` returns what `Sorter::top_k` returns, in device buffers.
#[test]
fn topk_sorter_device_entry() {
    let Some(s) = gpu_sorter("topk_sorter_device_entry") else { return };
    let gpu = s.gpu().unwrap();
    for n in [5, 70_000, (1 << 21) + 1] {
        let keys: Vec<u32> = generate(n, Distribution::Uniform, n as u64);
        let buf = s.upload(&keys).unwrap();
        for k in [0, 1, 100, 5000] {
            let opts = SortOptions::default().order(Order::Descending);
            let (dk, di) = s.top_k_device(&buf, k, &opts).unwrap();
            let (ck, ci) = cpu_top_k(&keys, k, Order::Descending);
            assert_eq!((dk.to_vec(gpu).unwrap(), di.to_vec(gpu).unwrap()), (ck, ci), "n={n} k={k}");
        }
    }
}

/// Top-k by parts (the path of 2^32 keys or more: each part's top-k, their indices
/// placed in the array, the candidates sorted stably), reached with small parts:
/// `u64` indices equal the CPU's for every k (within a part, past one, past all),
/// parts of 16 keys to past the input, ties across parts, NaN-last floats, narrow keys.
#[test]
fn top_k_by_parts_matches_the_cpu() {
    let test = "top_k_by_parts_matches_the_cpu";
    let Some(s) = gpu_sorter(test) else { return };
    let gpu = s.gpu().unwrap();
    fn case<K: host::Key + Random>(s: &Sorter, keys: &[K], part: usize, k: usize, opts: &SortOptions, what: &str) {
        let gpu = s.gpu().unwrap();
        let d = gpu.upload(keys).unwrap();
        let (gk, gi) = topk::top_k_in_parts(gpu, &d, k, opts.key_order(), part)
            .unwrap_or_else(|e| panic!("{what} {} part {part} k={k}: {e}", K::NAME));
        let (ck, ci): (Vec<K>, Vec<u64>) = Sorter::cpu().top_k_indexed(keys, k, opts).unwrap();
        let bits = |v: &[K]| v.iter().map(|x| x.bits().into()).collect::<Vec<u64>>();
        assert!(
            gi.to_vec(gpu).unwrap() == ci && bits(&gk.to_vec(gpu).unwrap()) == bits(&ck),
            "{what} {} n={} part {part} k={k} {}: differs from the CPU's top-k",
            K::NAME,
            keys.len(),
            opts.order
        );
    }
    for n in [1usize, 100, 70_001] {
        for dist in [Distribution::Uniform, Distribution::FewUnique] {
            let u: Vec<u32> = generate(n, dist, n as u64 ^ 9);
            let f: Vec<f32> = generate(n, dist, n as u64 ^ 10);
            let h: Vec<i16> = generate(n, dist, n as u64 ^ 11);
            let w: Vec<u64> = generate(n, dist, n as u64 ^ 12);
            let parts: &[usize] = if n <= 100 { &[16, 48, 4096] } else { &[4096, 65_536, 1 << 20] };
            for &part in parts {
                for k in [1, 17, 3000, n, n + 3] {
                    for order in ORDERS {
                        let opts = SortOptions::default().order(order);
                        let what = format!("{dist:?}");
                        case::<u32>(s, &u, part, k, &opts, &what);
                        case::<f32>(s, &f, part, k, &opts.clone().nan_last(), &format!("{what} NaN-last"));
                        case::<i16>(s, &h, part, k, &opts, &what);
                        case::<u64>(s, &w, part, k, &opts, &what);
                    }
                }
            }
        }
    }
    let mut nan: Vec<f32> = generate(70_001, Distribution::Uniform, 13);
    nan.iter_mut().step_by(7).for_each(|x| *x = f32::NAN);
    nan.iter_mut().step_by(11).for_each(|x| *x = -f32::NAN);
    for order in ORDERS {
        let opts = SortOptions::default().order(order).nan_last();
        case::<f32>(s, &nan, 4096, 20_000, &opts, "NaNs");
    }
    let d = gpu.upload(&[1u32, 2, 3]).unwrap();
    assert!(topk::top_k_in_parts(gpu, &d, 1, Order::Ascending, 24).is_err(), "{test}: parts of 24 keys accepted");
    assert!(topk::top_k_in_parts(gpu, &d, 1, Order::Ascending, 0).is_err(), "{test}: parts of no keys accepted");
}
