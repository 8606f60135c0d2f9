//! The `quick` variant, its three-way `partition` and the device scan on the GPU,
//! against the CPU reference. Skips without a device (see `common::gpu_sorter`).
mod common;

use common::{check_variant, gpu_sorter};
use host::testing::inputs::generate;
use host::testing::variants::quick::{self, PartitionCounts};
use host::testing::verify;
use host::{Distribution, Element, Entity, Order, SortOptions, Variant};

const V: Variant = Variant::Quick;
const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];

#[test]
fn quick_small_sizes_both_orders() {
    let Some(s) = gpu_sorter("quick_small_sizes_both_orders") else { return };
    for &n in common::SIZES {
        for order in ORDERS {
            for dist in [Distribution::Uniform, Distribution::TwoValues, Distribution::Sorted] {
                check_variant::<u32>(s, V, n, order, dist, 256);
            }
        }
    }
}

#[test]
fn quick_every_distribution_2p20_plus_13() {
    common::all_distributions::<u32>("quick_every_distribution_2p20_plus_13", V, (1 << 20) + 13, &ORDERS);
}

#[test]
fn quick_every_distribution_2p24() {
    common::all_distributions::<u32>("quick_every_distribution_2p24", V, 1 << 24, &[Order::Ascending]);
}

#[test]
fn quick_every_distribution_10_000_019() {
    common::all_distributions::<u32>("quick_every_distribution_10_000_019", V, 10_000_019, &[Order::Descending]);
}

#[test]
fn quick_every_type_both_orders() {
    let Some(s) = gpu_sorter("quick_every_type_both_orders") else { return };
    for order in ORDERS {
        for dist in [Distribution::Uniform, Distribution::FewUnique, Distribution::Reverse] {
            common::check_every_type(s, V, 100_003, order, dist, 256);
        }
    }
}

#[test]
fn quick_block_sizes() {
    let Some(s) = gpu_sorter("quick_block_sizes") else { return };
    for &block in &[32, 64, 128, 512, 1024] {
        check_variant::<u32>(s, V, 77_777, Order::Descending, Distribution::Uniform, block);
        check_variant::<u64>(s, V, 77_777, Order::Ascending, Distribution::OrganPipe, block);
        check_variant::<Entity>(s, V, 77_777, Order::Ascending, Distribution::TwoValues, block);
    }
}

#[test]
fn quick_special_floats() {
    let Some(s) = gpu_sorter("quick_special_floats") else { return };
    common::check_special_floats(s, V, &[50_000]);
}

/// The depth limit's merge fallback, forced: with limit 0 the whole input is
/// merge-sorted; with 1 and 3 some parts are finished by the fallback, others by the
/// shared-memory sort, some of them from the scratch buffer.
#[test]
fn quick_depth_limit_falls_back_to_merging() {
    let Some(s) = gpu_sorter("quick_depth_limit_falls_back_to_merging") else { return };
    let gpu = s.gpu().unwrap();
    for max_depth in [0, 1, 2, 3] {
        for &dist in Distribution::ALL {
            let order = if max_depth % 2 == 0 { Order::Ascending } else { Order::Descending };
            let n = 300_007;
            let input: Vec<u64> = generate(n, dist, 5);
            let mut buf = gpu.upload(&input).unwrap();
            quick::sort_with_max_depth(gpu, &mut buf, &SortOptions::new(V).order(order), max_depth).unwrap();
            let out = buf.to_vec(gpu).unwrap();
            verify::check(&input, &out, order, false)
                .unwrap_or_else(|m| panic!("max depth {max_depth} {dist} {order}: {m}"));
        }
    }
}

/// Checks a GPU partition against the CPU's three-way partition: sizes, that each part
/// holds the right keys, and that each part is a permutation of the CPU's part.
fn check_partition<T: Element>(input: &[T], pivot: T, order: Order) {
    let s = gpu_sorter("partition").unwrap();
    let gpu = s.gpu().unwrap();
    let src = gpu.upload(input).unwrap();
    let (dst, counts) = quick::partition(gpu, &src, pivot, order).unwrap();
    let out = dst.to_vec(gpu).unwrap();
    let desc = order.is_descending();
    let p = pivot.ord_bits(desc);
    let part = |f: &dyn Fn(&T) -> bool| input.iter().copied().filter(|x| f(x)).collect::<Vec<T>>();
    let expect = [part(&|x| x.ord_bits(desc) < p), part(&|x| x.ord_bits(desc) == p), part(&|x| x.ord_bits(desc) > p)];
    let what = format!("{} n={} {order}", T::NAME, input.len());
    assert_eq!(
        counts,
        PartitionCounts { less: expect[0].len(), equal: expect[1].len(), greater: expect[2].len() },
        "{what}"
    );
    let mut at = 0;
    for (i, e) in expect.iter().enumerate() {
        let mut got = out[at..at + e.len()].to_vec();
        at += e.len();
        // Sorting the GPU's part on the CPU makes verify::check a multiset comparison
        // (it also rejects keys that belong to another part: their order would break).
        host::testing::cpu::reference_sort(&mut got, order);
        verify::check(e, &got, order, false).unwrap_or_else(|m| panic!("{what}, part {i}: {m}"));
    }
}

#[test]
fn partition_matches_cpu_three_way_partition() {
    if gpu_sorter("partition_matches_cpu_three_way_partition").is_none() {
        return;
    }
    for order in ORDERS {
        for n in [0, 1, 2, 1000, 4097, (1 << 20) + 13] {
            for dist in [Distribution::Uniform, Distribution::FewUnique, Distribution::Equal] {
                let input: Vec<u32> = generate(n, dist, 9);
                // A key from the data (equal part non-empty), and one absent from it.
                let from_data = input.get(n / 3).copied().unwrap_or(7);
                check_partition(&input, from_data, order);
                check_partition(&input, from_data.wrapping_add(1) | 1, order);
                check_partition(&input, 0, order);
                check_partition(&input, u32::MAX, order);
            }
        }
        let entities: Vec<Entity> = generate(100_003, Distribution::FewUnique, 3);
        check_partition(&entities, entities[17], order);
        let floats: Vec<f64> = generate(100_003, Distribution::TwoValues, 3);
        check_partition(&floats, floats[5], order);
        check_partition(&floats, -0.0, order);
        let ints: Vec<i64> = generate(100_003, Distribution::Uniform, 3);
        check_partition(&ints, 0, order);
    }
}

fn check_scan(values: &[u64]) {
    let s = gpu_sorter("scan").unwrap();
    let gpu = s.gpu().unwrap();
    let mut with_total = values.to_vec();
    with_total.push(u64::MAX);
    let mut buf = gpu.upload(&with_total).unwrap();
    host::testing::scan::exclusive_scan_u64(gpu, &mut buf, values.len()).unwrap();
    let got = buf.to_vec(gpu).unwrap();
    let mut acc = 0u64;
    for (i, &v) in values.iter().enumerate() {
        assert_eq!(got[i], acc, "n = {}: index {i}", values.len());
        acc = acc.wrapping_add(v);
    }
    assert_eq!(got[values.len()], acc, "n = {}: total", values.len());
}

#[test]
fn scan_matches_cpu_prefix_sums() {
    if gpu_sorter("scan_matches_cpu_prefix_sums").is_none() {
        return;
    }
    let tile = kernels::scan::TILE as usize;
    // (Inputs past tile^2 = 2^28 values, where the scan of the tile sums is itself
    // multi-pass, are covered by the CPU simulation in kernels/src/scan/tests.rs.)
    for n in [0, 1, 2, 1000, tile - 1, tile, tile + 1, 5 * tile + 3, (1 << 22) + 1] {
        let values: Vec<u64> = generate::<u64>(n, Distribution::Uniform, n as u64).iter().map(|v| v >> 30).collect();
        check_scan(&values);
    }
    let s = gpu_sorter("scan").unwrap();
    let mut short = s.gpu().unwrap().upload(&[1u64, 2]).unwrap();
    assert!(host::testing::scan::exclusive_scan_u64(s.gpu().unwrap(), &mut short, 2).is_err(), "no slot for the total");
}
