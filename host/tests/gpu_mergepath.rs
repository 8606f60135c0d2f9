//! The `mergepath` variant on the GPU against the CPU reference: sizes around its tile
//! and pass boundaries, every type and order, every distribution, stability with many
//! equal keys, special floats. Skips without a device (see `common::gpu_sorter`).
mod common;

use common::gpu_sorter;
use host::{Distribution, Entity, Order, SortOptions, Variant, verify};
use kernels::mergepath as mp;
use rayon::prelude::*;

const V: Variant = Variant::Mergepath;
const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];

/// Sizes around one tile, two tiles (one global pass), 2^k tiles (the pass count
/// changes) for every element width, plus the common sizes.
fn boundary_sizes() -> Vec<usize> {
    let mut v: Vec<usize> = common::SIZES.to_vec();
    for bytes in [4u32, 8, 20] {
        let t = mp::tile(bytes) as usize;
        let items = mp::items(bytes) as usize;
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

#[test]
fn mergepath_every_distribution_10_000_019() {
    common::all_distributions::<u32>("mergepath_every_distribution_10_000_019", V, 10_000_019, &ORDERS);
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
