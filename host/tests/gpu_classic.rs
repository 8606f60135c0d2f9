//! The classic GPU sorts of issue 7 (`bottomup`, `blockmerge`, `bitonic`) against the
//! CPU reference: every key type, every size of `common::SIZES`, both orders, plus
//! large sizes, block sizes and distributions. `bottomup` and `blockmerge` are also
//! checked for stability (they promise it); `bitonic` only for order and permutation.
//! Skips without a device (see `common::gpu_sorter`).
mod common;

use common::{check_variant, gpu_sorter};
use host::{Distribution, Entity, Order, Sorter, Variant};

const CLASSIC: [Variant; 3] = [Variant::Bottomup, Variant::Blockmerge, Variant::Bitonic];
const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];

/// Every key type at size `n`. Entities get few distinct distances so that stability
/// is really exercised (their ids tell equal keys apart).
fn every_type(s: &Sorter, v: Variant, n: usize, order: Order, block: u32) {
    let d = Distribution::Uniform;
    check_variant::<u32>(s, v, n, order, d, block);
    check_variant::<i32>(s, v, n, order, d, block);
    check_variant::<f32>(s, v, n, order, d, block);
    check_variant::<u64>(s, v, n, order, d, block);
    check_variant::<i64>(s, v, n, order, Distribution::FewUnique, block);
    check_variant::<f64>(s, v, n, order, d, block);
    check_variant::<Entity>(s, v, n, order, Distribution::FewUnique, block);
}

fn all_sizes_every_type(test: &str, v: Variant) {
    let Some(s) = gpu_sorter(test) else { return };
    for &n in common::SIZES {
        for order in ORDERS {
            every_type(s, v, n, order, 256);
        }
    }
}

#[test]
fn bottomup_all_sizes_every_type() {
    all_sizes_every_type("bottomup_all_sizes_every_type", Variant::Bottomup);
}

#[test]
fn blockmerge_all_sizes_every_type() {
    all_sizes_every_type("blockmerge_all_sizes_every_type", Variant::Blockmerge);
}

#[test]
fn bitonic_all_sizes_every_type() {
    all_sizes_every_type("bitonic_all_sizes_every_type", Variant::Bitonic);
}

/// Sizes around the tiles (blockmerge: 4 x block, bitonic: 8 x block) and powers of
/// two, where the any-`n` handling of each variant changes path.
#[test]
fn classic_tile_and_power_of_two_boundaries() {
    let Some(s) = gpu_sorter("classic_tile_and_power_of_two_boundaries") else { return };
    let sizes = [511, 512, 513, 1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096, 65_535, 65_536, 65_537, 1 << 17];
    for v in CLASSIC {
        for n in sizes {
            for order in ORDERS {
                check_variant::<u32>(s, v, n, order, Distribution::Uniform, 256);
                check_variant::<Entity>(s, v, n, order, Distribution::TwoValues, 256);
            }
        }
    }
}

#[test]
fn classic_block_sizes_and_distributions() {
    let Some(s) = gpu_sorter("classic_block_sizes_and_distributions") else { return };
    for v in CLASSIC {
        // 1024 threads need more than the default 48 KiB of shared memory for entities.
        for block in [32, 128, 512, 1024] {
            check_variant::<u32>(s, v, 77_777, Order::Descending, Distribution::Uniform, block);
            check_variant::<Entity>(s, v, 77_777, Order::Ascending, Distribution::FewUnique, block);
            check_variant::<f64>(s, v, 77_777, Order::Descending, Distribution::Uniform, block);
        }
        for &dist in Distribution::ALL {
            for order in ORDERS {
                check_variant::<u32>(s, v, 65_537, order, dist, 256);
                check_variant::<f32>(s, v, 100_003, order, dist, 256);
            }
        }
    }
}

#[test]
fn classic_large_u32() {
    let Some(s) = gpu_sorter("classic_large_u32") else { return };
    for v in CLASSIC {
        for order in ORDERS {
            check_variant::<u32>(s, v, 1 << 24, order, Distribution::Uniform, 256);
            check_variant::<u32>(s, v, 10_000_019, order, Distribution::Uniform, 256);
        }
    }
}
