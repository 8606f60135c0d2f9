//! The `radix` variant, its pairs, argsort and key-bit ranges on the GPU, against the
//! CPU reference. Skips without a device (see `common::gpu_sorter`).
mod common;

use common::gpu_sorter;
use host::testing::inputs::{Random, generate};
use host::testing::variants::radix;
use host::testing::verify;
use host::{Bytes, Distribution, Element, Entity, Error, Order, SortOptions, Sorter, Variant};
use rayon::prelude::*;

const V: Variant = Variant::Radix;
const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];

/// Sizes around the one-block limit and the tile sizes of every kernel configuration.
fn boundary_sizes() -> Vec<usize> {
    let mut v: Vec<usize> = common::SIZES.to_vec();
    let (short, mid) = (kernels::radix::short_max() as usize, kernels::radix::mid_max() as usize);
    v.extend([short - 1, short, short + 1, mid, mid + 1]);
    // The last input with short digit-pass tiles and the first with full ones.
    let m = kernels::radix::SHORT_ONESWEEP_MAX as usize;
    v.extend([m, m + 1]);
    for (kb, vb) in [(4, 0), (4, 4), (4, 8), (8, 0), (8, 4), (8, 8)] {
        let t = radix::small_max(kb, vb) as usize;
        v.extend([t - 1, t, t + 1, 2 * t - 1, 2 * t + 1, 3 * t]);
    }
    v.sort();
    v.dedup();
    v
}

#[test]
fn radix_boundary_sizes_every_type() {
    let Some(s) = gpu_sorter("radix_boundary_sizes_every_type") else { return };
    let sizes = boundary_sizes();
    sizes.par_iter().for_each(|&n| {
        for order in ORDERS {
            let dist = if n % 2 == 0 { Distribution::Uniform } else { Distribution::FewUnique };
            common::check_every_type(s, V, n, order, dist, 256);
        }
    });
}

#[test]
fn radix_every_distribution_2p20_plus_13() {
    common::all_distributions::<u32>("radix_every_distribution_2p20_plus_13", V, (1 << 20) + 13, &ORDERS);
    common::all_distributions::<f64>("radix_every_distribution_2p20_plus_13 f64", V, (1 << 20) + 13, &ORDERS);
    common::all_distributions::<i32>("radix_every_distribution_2p20_plus_13 i32", V, (1 << 20) + 13, &ORDERS);
    common::all_distributions::<Entity>(
        "radix_every_distribution_2p20_plus_13 entity",
        V,
        (1 << 20) + 13,
        &[Order::Descending],
    );
}

#[test]
fn radix_every_distribution_large() {
    common::all_distributions::<u32>("radix_every_distribution_2p24", V, 1 << 24, &[Order::Ascending]);
    common::all_distributions::<u32>("radix_every_distribution_10_000_019", V, 10_000_019, &[Order::Descending]);
    common::all_distributions::<i64>("radix_every_distribution_3_000_017", V, 3_000_017, &ORDERS);
    common::all_distributions::<f32>("radix_every_distribution_5_000_011", V, 5_000_011, &[Order::Descending]);
}

/// Inputs of a few tiles, every distribution: sorted and all-equal inputs skip
/// passes, so the result may end in either buffer.
#[test]
fn radix_every_distribution_medium() {
    let (t32, t64) = (radix::small_max(4, 0) as usize, radix::small_max(8, 0) as usize);
    common::all_distributions::<u32>("radix_every_distribution_medium u32", V, 4 * t32 - 5, &ORDERS);
    common::all_distributions::<f64>("radix_every_distribution_medium f64", V, 2 * t64 + 7, &ORDERS);
    common::all_distributions::<i32>("radix_every_distribution_medium i32", V, 2 * t32 + 1, &[Order::Descending]);
}

#[test]
fn radix_special_floats() {
    let Some(s) = gpu_sorter("radix_special_floats") else { return };
    common::check_special_floats(s, V, &[100, 5000, 20_000, 50_000, 200_003, (1 << 20) + 3]);
}

/// A NaN-last sort (the floats' default order) whose histogram finds one NaN or one
/// `-0.0` among keys that would take the plan by buckets or the digit passes: the sort
/// stops after its first pass (which wrote scratch only) and sorts the canonical bits
/// instead; the result equals the CPU's bit for bit, and keys with neither take the
/// plain sort.
#[test]
fn radix_nan_found_by_the_histogram_stops_the_sort() {
    let Some(s) = gpu_sorter("radix_nan_found_by_the_histogram_stops_the_sort") else { return };
    for n in [200_003usize, 1 << 20, 3_000_017] {
        for order in ORDERS {
            let opts = SortOptions::new(V).order(order);
            let base: Vec<f32> = generate(n, Distribution::Uniform, n as u64);
            for special in [None, Some(f32::NAN), Some(-0.0f32), Some(-f32::NAN)] {
                let mut input = base.clone();
                if let Some(x) = special {
                    input[n / 3] = x;
                }
                let (mut g, mut c) = (input.clone(), input.clone());
                s.sort(&mut g, &opts).unwrap();
                Sorter::cpu().sort(&mut c, &opts).unwrap();
                assert!(
                    g.iter().zip(&c).all(|(a, b)| a.to_bits() == b.to_bits()),
                    "f32 n={n} {order} with {special:?}"
                );
                let wide: Vec<f64> = input.iter().map(|&x| x as f64).collect();
                let (mut g, mut c) = (wide.clone(), wide);
                s.sort(&mut g, &opts).unwrap();
                Sorter::cpu().sort(&mut c, &opts).unwrap();
                assert!(
                    g.iter().zip(&c).all(|(a, b)| a.to_bits() == b.to_bits()),
                    "f64 n={n} {order} with {special:?}"
                );
            }
        }
    }
}

/// Pairs against the CPU backend's stable pair sort: with many equal keys the values
/// (their input positions) show whether equal keys kept their order.
fn check_pairs<K: Random + host::Key + PartialEq, W: Element + PartialEq + From<u32>>(
    s: &Sorter,
    n: usize,
    order: Order,
    dist: Distribution,
) {
    let keys: Vec<K> = generate(n, dist, n as u64 + 3);
    let vals: Vec<W> = (0..n as u32).map(W::from).collect();
    let opts = SortOptions::new(V).order(order);
    let (mut gk, mut gv) = (keys.clone(), vals.clone());
    s.sort_pairs(&mut gk, &mut gv, &opts).unwrap_or_else(|e| panic!("{} n={n}: {e}", K::NAME));
    let (mut ck, mut cv) = (keys.clone(), vals.clone());
    Sorter::cpu().sort_pairs(&mut ck, &mut cv, &opts).unwrap();
    let what = format!("pairs {} -> {} bytes, n={n} {order} {dist}", K::NAME, size_of::<W>());
    assert!(gk.iter().zip(&ck).all(|(a, b)| a.bits() == b.bits()), "{what}: keys differ");
    assert!(gv == cv, "{what}: values differ (stability)");
}

#[test]
fn radix_pairs_are_stable_for_every_key_and_value_width() {
    let Some(s) = gpu_sorter("radix_pairs_are_stable") else { return };
    let mut sizes = boundary_sizes();
    sizes.push(1_000_003);
    sizes.par_iter().for_each(|&n| {
        for order in ORDERS {
            for dist in [Distribution::FewUnique, Distribution::TwoValues, Distribution::Uniform] {
                check_pairs::<u32, u32>(s, n, order, dist);
                check_pairs::<f32, u64>(s, n, order, dist);
                check_pairs::<i64, u32>(s, n, order, dist);
                check_pairs::<u64, u64>(s, n, order, dist);
            }
        }
    });
}

/// `u32` keys with `u32` values, moved between passes split, packed alternately and
/// packed through scratch (`kernels::radix::Packing`), against the CPU's stable sort:
/// one to four passes run (key-bit ranges; few-unique and all-equal keys skip passes,
/// and one pass alone leaves the result packed for the copy-back to unpack), one or
/// several launches per pass, partial last tiles.
#[test]
fn radix_packed_pairs_match_cpu_for_every_packing() {
    use kernels::radix::Packing;
    let Some(s) = gpu_sorter("radix_packed_pairs_match_cpu_for_every_packing") else { return };
    let gpu = s.gpu().unwrap();
    let t = kernels::radix::tile(8, 0) as usize;
    let mut cases = Vec::new();
    for n in [radix::small_max(4, 4) as usize + 1, 3 * t + 1, 300_007, 1_000_003] {
        for dist in [Distribution::Uniform, Distribution::FewUnique, Distribution::Equal, Distribution::Reverse] {
            for bits in [None, Some((0, 8)), Some((8, 24)), Some((4, 28)), Some((0, 32)), Some((24, 32))] {
                for order in ORDERS {
                    cases.push((n, dist, bits, order));
                }
            }
        }
    }
    cases.par_iter().for_each(|&(n, dist, bits, order)| {
        let keys: Vec<u32> = generate(n, dist, n as u64);
        let vals: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
        let mut opts = SortOptions::new(V).order(order);
        if let Some(b) = bits {
            opts = opts.key_bits(b.0, b.1);
        }
        let (mut ck, mut cv) = (keys.clone(), vals.clone());
        Sorter::cpu().sort_pairs(&mut ck, &mut cv, &opts).unwrap();
        for packing in [Packing::Split, Packing::Alternate, Packing::Through] {
            for portion in [u64::MAX, 2] {
                let (mut gk, mut gv) = (gpu.upload(&keys).unwrap(), gpu.upload(&vals).unwrap());
                radix::sort_pairs_with(gpu, &mut gk, &mut gv, &opts, packing, portion).unwrap();
                let what = format!("n={n} {dist} bits {bits:?} {order} {packing:?} portion {portion}");
                assert!(gk.to_vec(gpu).unwrap() == ck, "{what}: keys");
                assert!(gv.to_vec(gpu).unwrap() == cv, "{what}: values (stability)");
            }
        }
    });
}

/// Every radix knob of `host::Tuning` set away from its default (short tiles off or
/// longer, pairs packed earlier or moved each way, more or fewer histogram blocks)
/// sorts keys and pairs exactly as the CPU does: the knobs choose tiles, grids and how
/// pairs move, never the result.
#[test]
fn radix_sorts_alike_under_every_tuning_knob() {
    use kernels::radix::Packing;
    let Some(sorters) = common::tuned_sorters(
        "radix_sorts_alike_under_every_tuning_knob",
        &[
            ("radix_short_onesweep_max = 0", |t| t.radix_short_onesweep_max = 0),
            ("radix_short_onesweep_max = 2^21", |t| t.radix_short_onesweep_max = 1 << 21),
            ("radix_packed_min = 2^16", |t| t.radix_packed_min = 1 << 16),
            ("radix_pairs = split", |t| t.radix_pairs = Some(Packing::Split)),
            ("radix_pairs = alternate", |t| t.radix_pairs = Some(Packing::Alternate)),
            ("radix_pairs = through", |t| t.radix_pairs = Some(Packing::Through)),
            ("radix_hist_blocks_per_sm = 3", |t| t.radix_hist_blocks_per_sm = 3),
            ("radix_hist_blocks_per_sm = 0", |t| t.radix_hist_blocks_per_sm = 0),
            ("radix_fused_max = 0", |t| t.radix_fused_max = Some(0)),
            ("radix_fused_items = 4", |t| fused_up_to_the_limit(t, 4)),
            ("radix_buckets_max = 0", |t| t.radix_buckets_max = 0),
        ],
    ) else {
        return;
    };
    sorters.par_iter().for_each(|(name, s)| {
        for n in [300_007, (1 << 20) + 13] {
            for order in ORDERS {
                common::check_keys_and_pairs::<u32>(name, s, V, n, order, Distribution::Uniform);
                common::check_keys_and_pairs::<f64>(name, s, V, n, order, Distribution::FewUnique);
            }
        }
    });
}

/// The fused sort at every size it can take (`kernels::radix::FUSED_MAX`, past its
/// default limits), on tiles of `items` keys a thread.
fn fused_up_to_the_limit(t: &mut host::Tuning, items: u32) {
    t.radix_fused_max = Some(kernels::radix::FUSED_MAX);
    t.radix_fused_items = Some(items);
}

/// The fused sort (keys alone, and `u32` keys with `u32` values, in one launch up to
/// `kernels::radix::FUSED_MAX`) with each tile size forced and with the fused sort off, from the smallest input past the
/// one-block sort through a few tiles, several rounds of the resident blocks at the
/// smallest tile, to the largest fused input; every distribution at one size (sorted
/// and all-equal inputs skip passes, so the result may end in scratch and be copied
/// back), both orders, signed, float and 64-bit keys, key-bit ranges.
#[test]
fn radix_fused_matches_cpu_for_every_tile_size() {
    use kernels::radix::{BLOCK, FUSED_MAX};
    let Some(sorters) = common::tuned_sorters(
        "radix_fused_matches_cpu_for_every_tile_size",
        &[
            ("radix_fused_items = 4", |t| fused_up_to_the_limit(t, 4)),
            ("radix_fused_items = 8", |t| fused_up_to_the_limit(t, 8)),
            ("radix_fused_items = 12", |t| fused_up_to_the_limit(t, 12)),
            ("radix_fused_items = 20", |t| fused_up_to_the_limit(t, 20)),
            ("radix_fused_max = 0", |t| t.radix_fused_max = Some(0)),
        ],
    ) else {
        return;
    };
    let (t32, t64) = (radix::small_max(4, 0) as usize, radix::small_max(8, 0) as usize);
    let few = 3 * (BLOCK as usize) * 4 + 1;
    sorters.par_iter().for_each(|(name, s)| {
        for order in ORDERS {
            for n in [t32 + 1, few, (1 << 18) + 3, (1 << 20) + 13, FUSED_MAX as usize] {
                let dist = if n % 2 == 0 { Distribution::Uniform } else { Distribution::FewUnique };
                common::check_keys_and_pairs::<u32>(name, s, V, n, order, dist);
                common::check_variant::<i32>(s, V, n, order, Distribution::Uniform, 256);
                common::check_variant::<f32>(s, V, n, order, dist, 256);
            }
            for n in [t64 + 1, few, (1 << 20) + 13, FUSED_MAX as usize] {
                common::check_variant::<u64>(s, V, n, order, Distribution::Uniform, 256);
                common::check_variant::<f64>(s, V, n, order, Distribution::FewUnique, 256);
            }
            for &dist in Distribution::ALL {
                common::check_variant::<u32>(s, V, 70_001, order, dist, 256);
                common::check_variant::<i64>(s, V, 30_001, order, dist, 256);
            }
            let keys: Vec<u32> = generate(200_003, Distribution::Uniform, 11);
            for b in [(0, 20), (4, 12), (31, 32), (0, 32)] {
                let opts = SortOptions::new(V).order(order).key_bits(b.0, b.1);
                let (mut g, mut c) = (keys.clone(), keys.clone());
                s.sort(&mut g, &opts).unwrap();
                Sorter::cpu().sort(&mut c, &opts).unwrap();
                assert!(g == c, "{name}: u32 {order} bits {b:?}");
            }
        }
    });
    // The first input past the fused sort (separate launches), beside the last one.
    let Some(s) = gpu_sorter("radix_fused_matches_cpu_for_every_tile_size") else { return };
    for order in ORDERS {
        common::check_variant::<u32>(s, V, FUSED_MAX as usize + 1, order, Distribution::Uniform, 256);
        common::check_variant::<f64>(s, V, FUSED_MAX as usize + 1, order, Distribution::Uniform, 256);
    }
}

/// The plan by buckets (`kernels::radix::buckets_plan`: the top digit's pass, then
/// each of its groups sorted in one block) against the CPU, on each side of where the
/// histogram takes it: uniform keys whose groups fit a block's tile (also past the
/// fused sort's sizes, which it then replaces, and near the most keys whose 256 groups
/// can fit), inputs with a group too large (few distinct keys, two values, all equal:
/// the digit passes and their copy-back), keys and pairs of every width the kernel
/// has, both orders, key-bit ranges (a top digit of fewer than 8 bits: fewer groups),
/// and a sort into another buffer; the plan off for comparison.
#[test]
fn radix_buckets_plan_matches_cpu() {
    let Some(sorters) = common::tuned_sorters(
        "radix_buckets_plan_matches_cpu",
        &[
            ("default", |_| {}),
            ("radix_fused_max = 0", |t| t.radix_fused_max = Some(0)),
            ("radix_buckets_max = 0", |t| t.radix_buckets_max = 0),
        ],
    ) else {
        return;
    };
    let t32 = radix::small_max(4, 0) as usize;
    sorters.par_iter().for_each(|(name, s)| {
        for order in ORDERS {
            for n in [t32 + 1, 20_001, 300_007, 1 << 20, 1_900_000, 2_100_001] {
                let dist = if n % 2 == 0 { Distribution::Uniform } else { Distribution::Sorted };
                common::check_keys_and_pairs::<u32>(name, s, V, n, order, Distribution::Uniform);
                common::check_keys_and_pairs::<f64>(name, s, V, n, order, dist);
                common::check_variant::<i64>(s, V, n, order, Distribution::Uniform, 256);
                common::check_variant::<f32>(s, V, n, order, dist, 256);
            }
            for &dist in Distribution::ALL {
                common::check_keys_and_pairs::<i32>(name, s, V, 500_001, order, dist);
                common::check_variant::<u64>(s, V, 200_003, order, dist, 256);
            }
            check_pairs::<u32, u64>(s, 700_001, order, Distribution::Uniform);
            check_pairs::<u64, u32>(s, 700_001, order, Distribution::Uniform);
            check_pairs::<i64, u64>(s, 300_001, order, Distribution::FewUnique);
            let keys: Vec<u32> = generate(600_001, Distribution::Uniform, 21);
            let wide: Vec<u64> = generate(600_001, Distribution::Uniform, 22);
            for b in [(0, 20), (4, 12), (0, 9), (3, 27), (0, 32)] {
                let opts = SortOptions::new(V).order(order).key_bits(b.0, b.1);
                let (mut g, mut c) = (keys.clone(), keys.clone());
                s.sort(&mut g, &opts).unwrap();
                Sorter::cpu().sort(&mut c, &opts).unwrap();
                assert!(g == c, "{name}: u32 {order} bits {b:?}");
                let (mut gk, mut gv, mut ck, mut cv) = (keys.clone(), wide.clone(), keys.clone(), wide.clone());
                s.sort_pairs(&mut gk, &mut gv, &opts).unwrap();
                Sorter::cpu().sort_pairs(&mut ck, &mut cv, &opts).unwrap();
                assert!(gk == ck && gv == cv, "{name}: u32 + u64 pairs {order} bits {b:?}");
            }
            for b in [(0, 64), (40, 64), (7, 50)] {
                let opts = SortOptions::new(V).order(order).key_bits(b.0, b.1);
                let (mut g, mut c) = (wide.clone(), wide.clone());
                s.sort(&mut g, &opts).unwrap();
                Sorter::cpu().sort(&mut c, &opts).unwrap();
                assert!(g == c, "{name}: u64 {order} bits {b:?}");
            }
            let gpu = s.gpu().unwrap();
            for n in [300_007usize, 1 << 20] {
                let input: Vec<f32> = generate(n, Distribution::Uniform, 23);
                let src = gpu.upload(&input).unwrap();
                let mut dst = gpu.alloc::<f32>(n).unwrap();
                let opts = SortOptions::new(V).order(order);
                s.sort_device_into(&src, &mut dst, &opts).unwrap();
                let mut want = input.clone();
                Sorter::cpu().sort(&mut want, &opts).unwrap();
                let got = dst.to_vec(gpu).unwrap();
                assert!(
                    got.iter().zip(&want).all(|(a, b)| a.to_bits() == b.to_bits()),
                    "{name}: f32 into n={n} {order}"
                );
                assert!(src.to_vec(gpu).unwrap() == input, "{name}: f32 into n={n}: the input was written");
            }
        }
    });
}

/// The fused sort's small case for compute-sanitizer (memcheck, racecheck, synccheck):
/// a few tiles of `u32` keys and pairs and `f64` keys on the smallest and largest tiles, including an
/// all-equal input (every pass skipped) and three passes of 8 bits (an odd count: the
/// copy-back).
#[test]
fn radix_fused_small_case() {
    let Some(sorters) = common::tuned_sorters(
        "radix_fused_small_case",
        &[
            ("radix_fused_items = 4", |t| fused_up_to_the_limit(t, 4)),
            ("radix_fused_items = 20", |t| fused_up_to_the_limit(t, 20)),
        ],
    ) else {
        return;
    };
    for (_, s) in &sorters {
        for dist in [Distribution::Uniform, Distribution::Equal, Distribution::FewUnique] {
            common::check_keys_and_pairs::<u32>("fused small case", s, V, 20_001, Order::Ascending, dist);
            common::check_variant::<f64>(s, V, 20_001, Order::Descending, dist, 256);
        }
        let keys: Vec<u32> = generate(20_001, Distribution::Uniform, 12);
        let opts = SortOptions::new(V).key_bits(0, 24);
        let (mut g, mut c) = (keys.clone(), keys);
        s.sort(&mut g, &opts).unwrap();
        Sorter::cpu().sort(&mut c, &opts).unwrap();
        assert!(g == c, "u32 bits 0..24");
    }
}

#[test]
fn radix_argsort_matches_cpu() {
    let Some(s) = gpu_sorter("radix_argsort_matches_cpu") else { return };
    for n in [0usize, 1, 77, 9000, 2_000_001] {
        for order in ORDERS {
            let keys: Vec<f64> = generate(n, Distribution::FewUnique, 5);
            let opts = SortOptions::new(V).order(order);
            assert_eq!(s.argsort(&keys, &opts).unwrap(), Sorter::cpu().argsort(&keys, &opts).unwrap(), "n={n} {order}");
        }
    }
}

#[test]
fn radix_key_bit_ranges_match_cpu() {
    let Some(s) = gpu_sorter("radix_key_bit_ranges_match_cpu") else { return };
    for n in [1000usize, 9000, 20_000, 1_000_001] {
        let keys: Vec<u32> = generate(n, Distribution::Uniform, 8);
        let small: Vec<u32> = keys.iter().map(|k| k & 0xf_ffff).collect();
        let wide: Vec<i64> = generate(n, Distribution::Uniform, 9);
        for order in ORDERS {
            for (input, b) in
                [(&keys, (0, 20)), (&keys, (4, 12)), (&keys, (31, 32)), (&small, (0, 20)), (&keys, (0, 32))]
            {
                let opts = SortOptions::new(V).order(order).key_bits(b.0, b.1);
                let (mut g, mut c) = (input.clone(), input.clone());
                s.sort(&mut g, &opts).unwrap();
                Sorter::cpu().sort(&mut c, &opts).unwrap();
                assert!(g == c, "u32 n={n} {order} bits {b:?}");
            }
            for b in [(0, 64), (40, 64), (0, 33), (7, 50)] {
                let opts = SortOptions::new(V).order(order).key_bits(b.0, b.1);
                let (mut g, mut c) = (wide.clone(), wide.clone());
                s.sort(&mut g, &opts).unwrap();
                Sorter::cpu().sort(&mut c, &opts).unwrap();
                assert!(g == c, "i64 n={n} {order} bits {b:?}");
            }
        }
    }
}

/// The portion logic (digit offsets carried between launches of one pass), reached
/// with small inputs by allowing few tiles per launch.
#[test]
fn radix_portions_carry_offsets() {
    let Some(s) = gpu_sorter("radix_portions_carry_offsets") else { return };
    fn one<T: Random + Element>(s: &Sorter, portion: u64, dist: Distribution, order: Order) {
        let gpu = s.gpu().unwrap();
        let input: Vec<T> = generate(250_007, dist, portion);
        let mut buf = gpu.upload(&input).unwrap();
        radix::sort_with_portion_tiles(gpu, &mut buf, &SortOptions::new(V).order(order), portion).unwrap();
        let out = buf.to_vec(gpu).unwrap();
        verify::check(&input, &out, order, true)
            .unwrap_or_else(|m| panic!("{} portion {portion} {dist} {order}: {m}", T::NAME));
    }
    for portion in [1u64, 2, 3, 7] {
        for &dist in Distribution::ALL {
            for order in ORDERS {
                one::<u32>(s, portion, dist, order);
                one::<u64>(s, portion, dist, order);
            }
        }
    }
}

/// Keys alone on full tiles through the digit passes (no fused launch): the first
/// pass of a sort by all the keys' bits ranks ties in any order, which must not show;
/// a sort by part of the bits must stay stable (ties in those bits that differ in
/// the others keep their input order), so it takes the ordered first pass.
#[test]
fn radix_first_pass_ranks_ties_in_any_order_only_where_unseen() {
    let Some(s) = gpu_sorter("radix_first_pass_ranks_ties_in_any_order_only_where_unseen") else { return };
    fn one<T: Random + Element + PartialEq>(s: &Sorter, n: usize, dist: Distribution, opts: &SortOptions) {
        let gpu = s.gpu().unwrap();
        let input: Vec<T> = generate(n, dist, n as u64 ^ 0x5eed);
        let mut buf = gpu.upload(&input).unwrap();
        radix::sort_with_portion_tiles(gpu, &mut buf, opts, u64::MAX).unwrap();
        let mut want = input.clone();
        Sorter::cpu().sort(&mut want, opts).unwrap();
        let what = format!("{} n={n} {dist} {} bits {:?}", T::NAME, opts.order, opts.key_bits);
        assert!(buf.to_vec(gpu).unwrap() == want, "{what}");
    }
    let n = kernels::radix::SHORT_ONESWEEP_MAX as usize + 1;
    for n in [n, 1_000_003] {
        for &dist in Distribution::ALL {
            for order in ORDERS {
                let opts = SortOptions::new(V).order(order);
                one::<u32>(s, n, dist, &opts);
                one::<u64>(s, n, dist, &opts);
                one::<i16>(s, n, dist, &opts);
                one::<u8>(s, n, dist, &opts);
                one::<u32>(s, n, dist, &opts.clone().key_bits(0, 8));
                one::<u32>(s, n, dist, &opts.clone().key_bits(4, 32));
                one::<u64>(s, n, dist, &opts.clone().key_bits(0, 40));
                one::<i16>(s, n, dist, &opts.clone().key_bits(0, 9));
            }
        }
    }
}

#[test]
fn radix_bad_arguments_are_errors_and_leave_data_alone() {
    let Some(s) = gpu_sorter("radix_bad_arguments") else { return };
    let mut keys = vec![3u32, 1, 2];
    let mut vals = vec![1u32, 2];
    let r = s.sort_pairs(&mut keys, &mut vals, &SortOptions::new(V));
    assert!(matches!(r, Err(Error::LengthMismatch { keys: 3, values: 2 })), "{r:?}");
    assert_eq!(keys, [3, 1, 2]);
    for b in [(0, 0), (5, 3), (0, 33)] {
        let r = s.sort(&mut keys, &SortOptions::new(V).key_bits(b.0, b.1));
        assert!(matches!(r, Err(Error::BadArgument(_))), "bits {b:?}: {r:?}");
        assert_eq!(keys, [3, 1, 2]);
    }
    let r = s.sort(&mut keys, &SortOptions::new(Variant::Naive).key_bits(0, 8));
    assert!(matches!(r, Err(Error::Unsupported { option: "key bits", .. })), "{r:?}");
    // Records (`Entity`) are not `Key`s: passing them here does not compile.
}

#[test]
fn radix_pairs_with_record_values() {
    let Some(s) = gpu_sorter("radix_pairs_with_record_values") else { return };
    for n in [0usize, 5, 20_000, 300_001] {
        let keys: Vec<u64> = generate(n, Distribution::FewUnique, 4);
        let vals: Vec<Entity> = generate(n, Distribution::Uniform, 5);
        for order in ORDERS {
            let opts = SortOptions::new(V).order(order);
            let (mut gk, mut gv) = (keys.clone(), vals.clone());
            s.sort_pairs(&mut gk, &mut gv, &opts).unwrap();
            let (mut ck, mut cv) = (keys.clone(), vals.clone());
            Sorter::cpu().sort_pairs(&mut ck, &mut cv, &opts).unwrap();
            assert!(gk == ck && gv == cv, "n={n} {order}");
        }
    }
}

#[test]
fn radix_is_the_default_variant() {
    assert_eq!(Variant::default(), Variant::Radix);
    assert_eq!(SortOptions::default().variant, Variant::Radix);
}

/// 2^28 keys of several types and pairs (checked in linear time: order, multiset, and
/// for pairs that every value is the index of a key equal to the one beside it, each
/// used once). Needs ~8 GiB of device and ~16 GiB of host memory: `--ignored`.
#[test]
#[ignore = "2^28 keys: run with --ignored on a GPU machine"]
fn radix_2p28_keys_and_pairs() {
    let Some(s) = gpu_sorter("radix_2p28_keys_and_pairs") else { return };
    let n = 1usize << 28;
    common::check_large_keys::<u32>(s, V, n, Order::Ascending, 28);
    common::check_large_keys::<f32>(s, V, n, Order::Descending, 28);
    common::check_large_keys::<i64>(s, V, n, Order::Ascending, 28);
    common::check_large_index_pairs(s, V, n, Order::Ascending);
}

/// Past 2^31 elements with 4- and 8-byte keys of the other kinds (the limits test
/// covers u32): three look-back portions per pass. ~35 GiB of device memory for the
/// 8-byte keys and ~70 GiB of host memory: `--ignored`, on an 80 GB GPU.
#[test]
#[ignore = "2^31 + 1000 keys of 4 and 8 bytes: run with --ignored on an 80 GB GPU"]
fn radix_beyond_2p31_float_and_wide_keys() {
    let Some(s) = gpu_sorter("radix_beyond_2p31_float_and_wide_keys") else { return };
    let n = (1usize << 31) + 1000;
    common::check_large_keys::<f32>(s, V, n, Order::Descending, 31);
    common::check_large_keys::<i64>(s, V, n, Order::Ascending, 31);
}

/// Skips a test that fills the device down to `keep` bytes when less than that is free.
fn too_little_memory(test: &str, free: u64, keep: u64) {
    host::testing::skipped(test, &format!("{} of device memory free, the test needs {}", Bytes(free), Bytes(keep)));
}

/// Too little device memory for the scratch buffers: `Error::OutOfMemory` naming the
/// whole need, before anything is launched, and the caller's data untouched. The
/// device is filled (by this test's own allocation) so that the input fits but its
/// scratch does not. Ignored by default: filling the device would make the tests
/// running beside it in this binary fail; run it alone with `--ignored`.
#[test]
#[ignore = "fills the device: run alone with --ignored radix_out_of_memory"]
fn radix_out_of_memory_is_an_error_and_leaves_data_alone() {
    let Some(s) = gpu_sorter("radix_out_of_memory") else { return };
    let gpu = s.gpu().unwrap();
    // The sorter is shared by the tests of this binary: scratch that an earlier test
    // left for reuse would let this sort run without allocating.
    gpu.release_scratch();
    let n = 1usize << 26; // 256 MiB of u32 keys; the sort needs as much again in scratch
    let input: Vec<u32> = generate(n, Distribution::Uniform, 7);
    let (free, _) = gpu.free_mem_for(u64::MAX).unwrap();
    let keep = (n * 4 + (n * 4) / 2) as u64; // room for the input, half the scratch
    let Some(fill) = free.checked_sub(keep) else {
        return too_little_memory("radix_out_of_memory", free, keep);
    };
    let _hold = gpu.alloc::<u32>((fill / 4) as usize).unwrap();
    let mut data = input.clone();
    match s.sort(&mut data, &SortOptions::new(V)) {
        Err(Error::OutOfMemory { needed, free }) => {
            assert!(needed > free, "needed {needed} free {free}");
            assert!(needed >= (n * 4) as u64, "the whole scratch need is named: {needed}");
        }
        other => panic!("expected OutOfMemory, got {other:?}"),
    }
    assert!(data == input, "the caller's data changed");
}

/// A packed pair sort whose second packed buffer does not fit falls back to one packed
/// buffer (as much scratch as the split sort) and still sorts. Fills the device, so
/// it must run alone: `gpu_radix --ignored radix_packed_pairs_fall_back`.
#[test]
#[ignore]
fn radix_packed_pairs_fall_back_when_scratch_is_short() {
    let Some(s) = gpu_sorter("radix_packed_pairs_fall_back") else { return };
    let gpu = s.gpu().unwrap();
    gpu.release_scratch(); // as in radix_out_of_memory_is_an_error_and_leaves_data_alone
    let n = 1usize << 26; // 512 MiB of pairs; packed through scratch needs 1 GiB, one buffer 512 MiB
    assert!(n as u64 >= radix::PACKED_MIN);
    let keys: Vec<u32> = generate(n, Distribution::Uniform, 11);
    let vals: Vec<u32> = (0..n as u32).collect();
    let (mut gk, mut gv) = (gpu.upload(&keys).unwrap(), gpu.upload(&vals).unwrap());
    gpu.release_scratch();
    let (free, _) = gpu.free_mem_for(u64::MAX).unwrap();
    let keep = (n * 8 + n * 8 / 2) as u64; // one packed buffer and half of another
    let Some(fill) = free.checked_sub(keep) else {
        return too_little_memory("radix_packed_pairs_fall_back", free, keep);
    };
    let hold = gpu.alloc::<u32>((fill / 4) as usize).unwrap();
    radix::sort_pairs(gpu, &mut gk, &mut gv, Order::Ascending, None).expect("falls back to one packed buffer");
    drop(hold);
    let (mut ck, mut cv) = (keys, vals);
    Sorter::cpu().sort_pairs(&mut ck, &mut cv, &SortOptions::new(V)).unwrap();
    assert!(gk.to_vec(gpu).unwrap() == ck, "keys");
    assert!(gv.to_vec(gpu).unwrap() == cv, "values (stability)");
}

/// Times sorts of 2^28 device-resident u32 keys by bit ranges whose pass counts are
/// even (all 32 bits) and odd (one pass, three passes: the result is copied back from
/// the scratch buffer). A measurement, not a check: `cargo test --release --test
/// gpu_radix -- --ignored --nocapture radix_key_bit_ranges_timing`.
#[test]
#[ignore]
fn radix_key_bit_ranges_timing() {
    let Some(s) = gpu_sorter("radix_key_bit_ranges_timing") else { return };
    let gpu = s.gpu().unwrap();
    let n = 1 << 28;
    let keys: Vec<u32> = generate(n, Distribution::Uniform, 7);
    let original = gpu.upload(&keys).unwrap();
    let mut work = gpu.alloc::<u32>(n).unwrap();
    for bits in [None, Some((0, 8)), Some((8, 32)), Some((0, 24))] {
        let mut opts = SortOptions::new(Variant::Radix);
        if let Some((b, e)) = bits {
            opts = opts.key_bits(b, e);
        }
        let mut times: Vec<f64> = (0..7)
            .map(|_| {
                work.copy_from_device(gpu, &original).unwrap();
                gpu.time_ms(|| s.sort_device(&mut work, &opts)).unwrap()
            })
            .collect();
        times.sort_by(f64::total_cmp);
        println!("n 2^28 u32, key bits {bits:?}: median {:.3} ms", times[3]);
    }
}

/// A few sorts into another buffer, small enough for compute-sanitizer: every pass
/// running, passes skipped (few distinct keys), every pass skipped (equal keys: pass
/// 0 copies), an odd pass count (copied back from scratch), short and full tiles,
/// 4- and 8-byte keys, against the CPU.
#[test]
fn radix_sort_into_a_few_plans() {
    let Some(s) = gpu_sorter("radix_sort_into_a_few_plans") else { return };
    fn one<T: Random + Element + PartialEq>(s: &Sorter, n: usize, dist: Distribution, opts: SortOptions) {
        let gpu = s.gpu().unwrap();
        let input: Vec<T> = generate(n, dist, 11);
        let src = gpu.upload(&input).unwrap();
        let mut dst = gpu.alloc::<T>(n).unwrap();
        s.sort_device_into(&src, &mut dst, &opts).unwrap();
        let mut want = input.clone();
        Sorter::cpu().sort(&mut want, &opts).unwrap();
        assert!(dst.to_vec(gpu).unwrap() == want, "{} n={n} {dist} bits {:?}", T::NAME, opts.key_bits);
        assert!(src.to_vec(gpu).unwrap() == input, "{} n={n} {dist}: the input was written", T::NAME);
    }
    for n in [7681usize, 40_000] {
        for dist in [Distribution::Uniform, Distribution::FewUnique, Distribution::Equal] {
            one::<u32>(s, n, dist, SortOptions::new(V));
            one::<f64>(s, n, dist, SortOptions::new(V).order(Order::Descending));
        }
        one::<u32>(s, n, Distribution::Uniform, SortOptions::new(V).key_bits(0, 24));
    }
}

/// The sort from one device buffer into another (`Sorter::sort_device_into`: the
/// first digit pass reads the input, [`kernels::radix::into_plan`]) equals the CPU's
/// sort and leaves its input alone: every size around the tiles, distributions whose
/// plans skip passes (few distinct keys, every key equal: pass 0 then copies), key-bit
/// ranges with odd pass counts (the result copied back from scratch), both orders,
/// keys of 4 and 8 bytes and the copied widths; in place when both are one buffer;
/// overlapping buffers refused.
#[test]
fn radix_sort_into_reads_the_input_once() {
    let Some(s) = gpu_sorter("radix_sort_into_reads_the_input_once") else { return };
    fn one<T: Random + Element + PartialEq>(s: &Sorter, n: usize, dist: Distribution, opts: &SortOptions) {
        let gpu = s.gpu().unwrap();
        let input: Vec<T> = generate(n, dist, n as u64 ^ 0x5eed);
        let src = gpu.upload(&input).unwrap();
        let mut dst = gpu.upload(&generate::<T>(n, Distribution::Uniform, 3)).unwrap();
        s.sort_device_into(&src, &mut dst, opts).unwrap();
        let mut want = input.clone();
        Sorter::cpu().sort(&mut want, opts).unwrap();
        let what = format!("{} n={n} {dist} {} bits {:?}", T::NAME, opts.order, opts.key_bits);
        assert!(dst.to_vec(gpu).unwrap() == want, "{what}: the sorted output differs from the CPU's");
        assert!(src.to_vec(gpu).unwrap() == input, "{what}: the input was written");
    }
    let dists = [Distribution::Uniform, Distribution::FewUnique, Distribution::Equal, Distribution::TwoValues];
    for (i, &n) in boundary_sizes().iter().chain(&[250_007, (1 << 20) + 13]).enumerate() {
        for order in ORDERS {
            let opts = SortOptions::new(V).order(order);
            let dist = dists[i % dists.len()];
            one::<u32>(s, n, dist, &opts);
            one::<f32>(s, n, dists[(i + 1) % dists.len()], &opts);
            one::<i64>(s, n, dists[(i + 2) % dists.len()], &opts);
            if i % 4 == 0 {
                one::<f64>(s, n, dist, &opts);
                one::<u16>(s, n, dist, &opts);
                one::<i8>(s, n, dist, &opts);
            }
        }
    }
    for n in [9000usize, 250_007] {
        for order in ORDERS {
            for (b, e) in [(0, 24), (4, 12), (31, 32), (0, 8)] {
                one::<u32>(s, n, Distribution::Uniform, &SortOptions::new(V).order(order).key_bits(b, e));
            }
            for (b, e) in [(0, 56), (7, 50)] {
                one::<u64>(s, n, Distribution::Uniform, &SortOptions::new(V).order(order).key_bits(b, e));
            }
        }
    }
    // One buffer as both: the sort in place (lent views of one allocation); buffers
    // that overlap otherwise are refused, the keys untouched.
    let gpu = s.gpu().unwrap();
    let n = 100_003;
    let input: Vec<u32> = generate(n, Distribution::Uniform, 5);
    let buf = gpu.upload(&input).unwrap();
    // SAFETY: `buf` outlives the views, and the work is waited for (`to_vec`).
    let (src, mut dst) =
        unsafe { (gpu.borrow_device_memory::<u32>(buf.ptr(), n), gpu.borrow_device_memory(buf.ptr(), n)) };
    dst.as_mut().unwrap().sort_from(src.as_ref().unwrap(), s, &SortOptions::new(V)).unwrap();
    let mut want = input.clone();
    want.sort();
    assert!(buf.to_vec(gpu).unwrap() == want, "in place through sort_from");
    let (src, mut dst) =
        unsafe { (gpu.borrow_device_memory::<u32>(buf.ptr(), n - 1), gpu.borrow_device_memory(buf.ptr() + 4, n - 1)) };
    let refused = dst.as_mut().unwrap().sort_from(src.as_ref().unwrap(), s, &SortOptions::new(V));
    assert!(matches!(refused, Err(Error::BadArgument(_))), "overlapping buffers: {refused:?}");
    assert!(buf.to_vec(gpu).unwrap() == want, "a refused sort wrote the keys");
}
