//! The `mergepath` variant on the GPU against the CPU reference: sizes around its tile
//! and pass boundaries, every type and order, every distribution, stability with many
//! equal keys, special floats. Skips without a device (see `common::gpu_sorter`).
mod common;

use common::gpu_sorter;
use host::testing::verify;
use host::{Distribution, Entity, Order, SortOptions, Variant};
use kernels::mergepath as mp;
use rayon::prelude::*;

const V: Variant = Variant::Mergepath;
const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];

/// Sizes around one tile, two tiles (one global pass), 2^k tiles (the pass count
/// changes) for every element width, keys alone and with values (4-byte keys have
/// their own tile then), plus the common sizes.
fn boundary_sizes() -> Vec<usize> {
    let mut v: Vec<usize> = common::SIZES.to_vec();
    let shapes = [(4u32, 0u32), (8, 0), (20, 0), (4, 4)];
    for (bytes, value_bytes) in shapes {
        let t = mp::tile_for(bytes, value_bytes) as usize;
        let items = mp::items_for(bytes, value_bytes) as usize;
        v.extend([items - 1, items, items + 1, 2 * items + 1, t - 1, t, t + 1, 2 * t - 1, 2 * t, 2 * t + 1]);
        v.extend([3 * t, 4 * t - 1, 4 * t + 1, 5 * t + 7, 8 * t + 1, 17 * t - 3]);
    }
    v.sort();
    v.dedup();
    v
}

#[test]
fn mergepath_boundary_sizes_every_type() {
    let Some(s) = gpu_sorter("mergepath_boundary_sizes_every_type") else { return };
    boundary_sizes().par_iter().for_each(|&n| {
        for order in ORDERS {
            let dist = if n % 2 == 0 { Distribution::Uniform } else { Distribution::FewUnique };
            common::check_every_type(s, V, n, order, dist, 256);
        }
    });
}

#[test]
fn mergepath_every_distribution_2p20_plus_13() {
    let n = (1 << 20) + 13;
    common::all_distributions::<u32>("mergepath_every_distribution_2p20_plus_13", V, n, &ORDERS);
    common::all_distributions::<f64>("mergepath_every_distribution_2p20_plus_13 f64", V, n, &ORDERS);
    common::all_distributions::<i32>("mergepath_every_distribution_2p20_plus_13 i32", V, n, &ORDERS);
    common::all_distributions::<Entity>("mergepath_every_distribution_2p20_plus_13 entity", V, n, &ORDERS);
}

/// Past a wave of the widest block sorts of 4-byte keys (132 SMs x 33,792 keys on an
/// H100), and between a wave of the 2-wide ones and that (3,000,007: the narrower
/// width); 8-byte keys and records past a wave of theirs.
#[test]
fn mergepath_every_distribution_10_000_019() {
    common::all_distributions::<u32>("mergepath_every_distribution_10_000_019", V, 10_000_019, &ORDERS);
    common::all_distributions::<f32>(
        "mergepath_every_distribution_10_000_019 f32",
        V,
        10_000_019,
        &[Order::Descending],
    );
    common::all_distributions::<i32>("mergepath_every_distribution_3_000_007 i32", V, 3_000_007, &ORDERS);
    common::all_distributions::<i64>(
        "mergepath_every_distribution_10_000_019 i64",
        V,
        10_000_019,
        &[Order::Descending],
    );
    common::all_distributions::<Entity>(
        "mergepath_every_distribution_10_000_019 entity",
        V,
        10_000_019,
        &[Order::Ascending],
    );
}

/// Many equal keys: entities carry their input position in `id`, so the output shows
/// directly whether equal keys kept their order (besides `verify::check`'s own test).
#[test]
fn mergepath_is_stable_with_many_equal_keys() {
    let Some(s) = gpu_sorter("mergepath_is_stable_with_many_equal_keys") else { return };
    for n in [1000usize, mp::tile(20) as usize * 3 + 5, 1_000_003, 4_000_037] {
        for distinct in [1u32, 2, 7, 1000] {
            let input: Vec<Entity> = (0..n as u32)
                .map(|i| Entity {
                    distance_from_player: ((i.wrapping_mul(2_654_435_761) >> 7) % distinct) as f32,
                    id: i,
                    position: [i as f32, 0.0, 1.0],
                })
                .collect();
            for order in ORDERS {
                let mut out = input.clone();
                s.sort(&mut out, &SortOptions::new(V).order(order)).unwrap();
                verify::check(&input, &out, order, true).unwrap_or_else(|m| panic!("n={n} {distinct} {order}: {m}"));
                for w in out.windows(2) {
                    if w[0].distance_from_player == w[1].distance_from_player {
                        assert!(w[0].id < w[1].id, "n={n} {distinct} {order}: ids {} then {}", w[0].id, w[1].id);
                    }
                }
            }
            let keys: Vec<u64> = (0..n as u64).map(|i| (i * 40503) % distinct as u64).collect();
            for order in ORDERS {
                let mut out = keys.clone();
                s.sort(&mut out, &SortOptions::new(V).order(order)).unwrap();
                verify::check(&keys, &out, order, true).unwrap_or_else(|m| panic!("u64 n={n} {order}: {m}"));
            }
        }
    }
}

#[test]
fn mergepath_special_floats() {
    let Some(s) = gpu_sorter("mergepath_special_floats") else { return };
    common::check_special_floats(s, V, &[100, 5000, 50_000, 1_000_001]);
}

/// The run-list merges of the multi-GPU sort (`mergepath_pair_partition`,
/// `mergepath_pair_merge`, `mergepath_pair_merge_kv_*`) on one GPU: sorted runs of
/// uneven lengths (empty ones included) merged into one, keys alone and with 4- and
/// 8-byte values that record each key's run and position, so the result shows the
/// stability rule (an earlier run's equal keys first) directly.
fn check_run_merge<K: host::testing::inputs::Random + host::Element>(s: &host::Sorter, lens: &[usize], order: Order) {
    use host::testing::variants::mergepath::{Run, merge_run_list, merge_run_list_pairs};
    let gpu = s.gpu().expect("a GPU sorter");
    let desc = order.is_descending();
    let mut runs: Vec<Vec<K>> = Vec::new();
    for (r, &len) in lens.iter().enumerate() {
        let dist = if r % 2 == 0 { Distribution::FewUnique } else { Distribution::Uniform };
        let mut v: Vec<K> = host::testing::inputs::generate(len, dist, 77 + r as u64);
        v.sort_by_key(|k| k.ord_bits(desc));
        runs.push(v);
    }
    // Value of element `i` of run `r`: its place in the concatenation, so the
    // expected output is the stable sort of the concatenation.
    let all: Vec<K> = runs.concat();
    let mut expected: Vec<(K, u64)> = all.iter().copied().zip(0u64..).collect();
    expected.sort_by_key(|(k, _)| k.ord_bits(desc));
    let bufs: Vec<_> = runs.iter().map(|v| gpu.upload(v).unwrap()).collect();
    let list: Vec<Run> = bufs.iter().zip(&runs).map(|(b, v)| Run { ptr: b.ptr(), len: v.len() as u64 }).collect();
    let what = format!("{} runs {lens:?} {order}", K::NAME);

    let keys = merge_run_list::<K>(gpu, &list, order).unwrap().to_vec(gpu).unwrap();
    let want: Vec<u64> = expected.iter().map(|(k, _)| k.ord_bits(desc).into()).collect();
    let got: Vec<u64> = keys.iter().map(|k| k.ord_bits(desc).into()).collect();
    assert_eq!(got, want, "keys: {what}");

    let mut at = 0u64;
    let vals32: Vec<_> = runs
        .iter()
        .map(|v| {
            let idx: Vec<u32> = (at..at + v.len() as u64).map(|i| i as u32).collect();
            at += v.len() as u64;
            gpu.upload(&idx).unwrap()
        })
        .collect();
    let vptrs: Vec<u64> = vals32.iter().map(|b| b.ptr()).collect();
    let (k, v) = merge_run_list_pairs::<K, u32>(gpu, &list, &vptrs, order).unwrap();
    let (k, v) = (k.to_vec(gpu).unwrap(), v.to_vec(gpu).unwrap());
    let got: Vec<(u64, u64)> = k.iter().zip(&v).map(|(k, &v)| (k.ord_bits(desc).into(), v as u64)).collect();
    let want: Vec<(u64, u64)> = expected.iter().map(|(k, i)| (k.ord_bits(desc).into(), *i)).collect();
    assert_eq!(got, want, "u32 values: {what}");

    let mut at = 0u64;
    let vals64: Vec<_> = runs
        .iter()
        .map(|v| {
            let idx: Vec<u64> = (at..at + v.len() as u64).map(|i| i << 20 | 0xabc).collect();
            at += v.len() as u64;
            gpu.upload(&idx).unwrap()
        })
        .collect();
    let vptrs: Vec<u64> = vals64.iter().map(|b| b.ptr()).collect();
    let (k, v) = merge_run_list_pairs::<K, u64>(gpu, &list, &vptrs, order).unwrap();
    let (k, v) = (k.to_vec(gpu).unwrap(), v.to_vec(gpu).unwrap());
    let got: Vec<(u64, u64)> = k.iter().zip(&v).map(|(k, &v)| (k.ord_bits(desc).into(), v >> 20)).collect();
    assert_eq!(got, want, "u64 values: {what}");
}

#[test]
fn mergepath_run_list_merges_are_stable() {
    let Some(s) = gpu_sorter("mergepath_run_list_merges_are_stable") else { return };
    let t = mp::tile(4) as usize;
    let cases: [&[usize]; 6] = [
        &[1000, 0, 3],
        &[t - 1, t + 1],
        &[5 * t + 7, 1, 0, 2 * t],
        &[300_001, 299_999, 7, 100_000],
        &[1 << 20, (1 << 20) + 13],
        &[0, 0, 17],
    ];
    for lens in cases {
        for order in ORDERS {
            check_run_merge::<u32>(s, lens, order);
            check_run_merge::<i32>(s, lens, order);
            check_run_merge::<f32>(s, lens, order);
            check_run_merge::<u64>(s, lens, order);
            check_run_merge::<i64>(s, lens, order);
            check_run_merge::<f64>(s, lens, order);
        }
    }
}

/// The merge-path sort of pairs (`mergepath_block_sort_kv_*`, `mergepath_merge_kv_*`)
/// against the CPU's stable sort: values are input indices (u32) or indices shifted
/// into the high bits (u64), so equal keys must come out with increasing values.
fn check_pairs<K: host::testing::inputs::Random + host::Key>(
    s: &host::Sorter,
    n: usize,
    order: Order,
    dist: Distribution,
) {
    let keys: Vec<K> = host::testing::inputs::generate(n, dist, n as u64 ^ 0x5a1e);
    let desc = order.is_descending();
    let mut idx: Vec<u32> = (0..n as u32).collect();
    idx.sort_by_key(|&i| keys[i as usize].ord_bits(desc));
    let want: Vec<(u64, u32)> = idx.iter().map(|&i| (keys[i as usize].ord_bits(desc).into(), i)).collect();
    let opts = SortOptions::new(V).order(order);
    let what = format!("{} n={n} {order} {dist}", K::NAME);

    let (mut k, mut v) = (keys.clone(), (0..n as u32).collect::<Vec<u32>>());
    s.sort_pairs(&mut k, &mut v, &opts).unwrap_or_else(|e| panic!("{what}: {e}"));
    let got: Vec<(u64, u32)> = k.iter().zip(&v).map(|(k, &v)| (k.ord_bits(desc).into(), v)).collect();
    assert!(got == want, "u32 values: {what}");

    let (mut k, mut v) = (keys.clone(), (0..n as u64).map(|i| i << 32 | 7).collect::<Vec<u64>>());
    s.sort_pairs(&mut k, &mut v, &opts).unwrap_or_else(|e| panic!("{what}: {e}"));
    let got: Vec<(u64, u32)> = k.iter().zip(&v).map(|(k, &v)| (k.ord_bits(desc).into(), (v >> 32) as u32)).collect();
    assert!(got == want, "u64 values: {what}");
}

/// Every mergepath knob of `host::Tuning` set away from its default (L2 reuse forced
/// on and off, narrow or capped block sorts, wide blocks from fewer blocks, partition
/// lanes, co-ranks always or never in the merge) sorts keys and pairs exactly as the
/// CPU does.
#[test]
fn mergepath_sorts_alike_under_every_tuning_knob() {
    let Some(sorters) = common::tuned_sorters(
        "mergepath_sorts_alike_under_every_tuning_knob",
        &[
            ("reversed and streaming passes", |t| (t.mergepath_reverse, t.mergepath_stream) = (Some(true), Some(true))),
            ("forward, cached passes", |t| (t.mergepath_reverse, t.mergepath_stream) = (Some(false), Some(false))),
            ("mergepath_wide = false", |t| t.mergepath_wide = false),
            ("mergepath_width = 2", |t| t.mergepath_width = Some(2)),
            ("mergepath_width = 0 (narrowest)", |t| t.mergepath_width = Some(0)),
            ("mergepath_width = 3 (below 4)", |t| t.mergepath_width = Some(3)),
            ("mergepath_wide_min_per_sm = 0", |t| t.mergepath_wide_min_per_sm = 0),
            ("mergepath_partition_lanes = 8", |t| t.mergepath_partition_lanes = Some(8)),
            ("mergepath_partition_lanes = 32", |t| t.mergepath_partition_lanes = Some(32)),
            ("mergepath_in_merge_per_sm = 0", |t| t.mergepath_in_merge_per_sm = Some(0)),
            ("mergepath_in_merge_per_sm = 1000", |t| t.mergepath_in_merge_per_sm = Some(1000)),
        ],
    ) else {
        return;
    };
    sorters.par_iter().for_each(|(name, s)| {
        for n in [100_003, (1 << 20) + 13, 3_000_017] {
            for order in ORDERS {
                common::check_keys_and_pairs::<u32>(name, s, V, n, order, Distribution::Uniform);
                common::check_keys_and_pairs::<u64>(name, s, V, n, order, Distribution::FewUnique);
            }
        }
    });
}

#[test]
fn mergepath_pairs_are_stable() {
    let Some(s) = gpu_sorter("mergepath_pairs_are_stable") else { return };
    let mut sizes = boundary_sizes();
    sizes.extend([100_003, 1 << 20]);
    sizes.par_iter().for_each(|&n| {
        for order in ORDERS {
            for dist in [Distribution::FewUnique, Distribution::Uniform] {
                check_pairs::<u32>(s, n, order, dist);
                check_pairs::<i32>(s, n, order, dist);
                check_pairs::<f32>(s, n, order, dist);
                check_pairs::<u64>(s, n, order, dist);
                check_pairs::<i64>(s, n, order, dist);
                check_pairs::<f64>(s, n, order, dist);
            }
        }
    });
    // Past a wave of wide blocks (132 SMs x 4 x 4,864 pairs of 4-byte keys on an
    // H100): the wide block sorts, whose register sort of 4-byte keys orders (key,
    // slot) words by a network and gathers the values by slot.
    [(3_000_017, Order::Ascending), (3_000_017, Order::Descending)].par_iter().for_each(|&(n, order)| {
        check_pairs::<u32>(s, n, order, Distribution::FewUnique);
        check_pairs::<f32>(s, n, order, Distribution::FewUnique);
        check_pairs::<i32>(s, n, order, Distribution::Uniform);
        check_pairs::<u64>(s, n, order, Distribution::FewUnique);
    });
    // Bad input: a clear error, nothing sorted.
    let (mut k, mut v) = (vec![3u32, 1, 2], vec![0u32; 2]);
    assert!(s.sort_pairs(&mut k, &mut v, &SortOptions::new(V)).is_err());
    assert_eq!(k, [3, 1, 2]);
    let mut wide = vec![Entity::default(); 3];
    assert!(s.sort_pairs(&mut k, &mut wide, &SortOptions::new(V)).is_err());
    assert_eq!(k, [3, 1, 2]);
}

/// 2^28 keys of several types and u32 + u32 pairs (checked in linear time: order,
/// multiset, and for pairs that every value is the index of a key equal to the one
/// beside it, increasing among equal keys). ~6 GiB of device and ~16 GiB of host
/// memory: `--ignored`.
#[test]
#[ignore = "2^28 keys: run with --ignored on a GPU machine"]
fn mergepath_2p28_keys_and_pairs() {
    let Some(s) = gpu_sorter("mergepath_2p28_keys_and_pairs") else { return };
    let n = 1usize << 28;
    common::check_large_keys::<u32>(s, V, n, Order::Ascending, 28);
    common::check_large_keys::<f32>(s, V, n, Order::Descending, 28);
    common::check_large_keys::<u64>(s, V, n, Order::Ascending, 28);
    common::check_large_index_pairs(s, V, n, Order::Descending);
}

/// Past 2^31 elements with 4- and 8-byte keys: 64-bit positions in every pass
/// (32-bit co-ranks only inside a tile). ~32 GiB of device memory and ~40 GiB of host
/// memory: `--ignored`, on an 80 GB GPU.
#[test]
#[ignore = "2^31 + 1000 keys: run with --ignored on an 80 GB GPU"]
fn mergepath_beyond_2p31() {
    let Some(s) = gpu_sorter("mergepath_beyond_2p31") else { return };
    let n = (1usize << 31) + 1000;
    common::check_large_keys::<u32>(s, V, n, Order::Ascending, 31);
    common::check_large_keys::<u64>(s, V, n, Order::Descending, 31);
}
