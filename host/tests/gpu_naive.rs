//! The `naive` variant on the GPU against the CPU reference. Skips without a device
//! (see `common::gpu_sorter`).
mod common;

use common::{check_variant, gpu_sorter};
use host::{Distribution, Entity, Order, Variant};

const V: Variant = Variant::Naive;

#[test]
fn naive_all_sizes_both_orders() {
    let Some(s) = gpu_sorter("naive_all_sizes_both_orders") else { return };
    for &n in common::SIZES {
        for order in [Order::Ascending, Order::Descending] {
            check_variant::<u32>(s, V, n, order, Distribution::Uniform, 256);
        }
    }
}

#[test]
fn naive_every_type_stable_with_duplicates() {
    let Some(s) = gpu_sorter("naive_every_type_stable_with_duplicates") else { return };
    for order in [Order::Ascending, Order::Descending] {
        check_variant::<Entity>(s, V, 100_003, order, Distribution::FewUnique, 256);
        check_variant::<i32>(s, V, 100_003, order, Distribution::Uniform, 256);
        check_variant::<f32>(s, V, 100_003, order, Distribution::Uniform, 256);
        check_variant::<u64>(s, V, 100_003, order, Distribution::Uniform, 256);
        check_variant::<i64>(s, V, 100_003, order, Distribution::TwoValues, 256);
        check_variant::<f64>(s, V, 100_003, order, Distribution::Uniform, 256);
    }
}

#[test]
fn naive_block_sizes_and_distributions() {
    let Some(s) = gpu_sorter("naive_block_sizes_and_distributions") else { return };
    for &block in &[32, 128, 512, 1024] {
        check_variant::<u32>(s, V, 77_777, Order::Descending, Distribution::Uniform, block);
    }
    for &dist in Distribution::ALL {
        check_variant::<u32>(s, V, 65_537, Order::Ascending, dist, 256);
    }
}

#[test]
fn naive_large_non_power_of_two() {
    let Some(s) = gpu_sorter("naive_large_non_power_of_two") else { return };
    check_variant::<u32>(s, V, 10_000_019, Order::Descending, Distribution::Uniform, 256);
    check_variant::<u32>(s, V, 1 << 24, Order::Ascending, Distribution::Uniform, 256);
}
