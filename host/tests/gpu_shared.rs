//! The merge variants of the Catania report (`naive`, `sm8`, `sm9`, `sm`) on the GPU
//! against the CPU reference, block sizes 256 and 512, both orders. Every variant is
//! stable, so `check_variant` compares with the stable reference exactly; `Entity`
//! inputs with few distinct keys (ids = input positions) make any reordering of equal
//! keys visible. Skips without a device (see `common::gpu_sorter`).
mod common;

use common::{check_variant, gpu_sorter};
use host::{Distribution, Entity, Order, Variant};

const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];
const BLOCKS: [u32; 2] = [256, 512];
/// Empty, single, pair, around one block.
const SMALL: &[usize] = &[0, 1, 2, 255, 256, 257];
/// Around the chunk passes' limits (u32 keys in 48 KiB: chunks up to 2^13) and primes.
const MEDIUM: &[usize] = &[511, 513, 1000, 4097, 8191, 8193, 16_385, 3 * 8192 + 5, 100_003];
const BIG: &[usize] = &[(1 << 20) + 13, 1 << 24, 10_000_019];

fn small_sizes_every_type(test: &str, v: Variant) {
    let Some(s) = gpu_sorter(test) else { return };
    for block in BLOCKS {
        for order in ORDERS {
            for &n in SMALL {
                check_variant::<u32>(s, v, n, order, Distribution::Uniform, block);
                check_variant::<i32>(s, v, n, order, Distribution::Uniform, block);
                check_variant::<f32>(s, v, n, order, Distribution::Uniform, block);
                check_variant::<u64>(s, v, n, order, Distribution::Uniform, block);
                check_variant::<i64>(s, v, n, order, Distribution::TwoValues, block);
                check_variant::<f64>(s, v, n, order, Distribution::Uniform, block);
                check_variant::<Entity>(s, v, n, order, Distribution::FewUnique, block);
            }
        }
    }
}

fn medium_sizes(test: &str, v: Variant) {
    let Some(s) = gpu_sorter(test) else { return };
    for block in BLOCKS {
        for order in ORDERS {
            for &n in MEDIUM {
                check_variant::<u32>(s, v, n, order, Distribution::Uniform, block);
                check_variant::<u64>(s, v, n, order, Distribution::FewUnique, block);
                check_variant::<Entity>(s, v, n, order, Distribution::FewUnique, block);
            }
        }
    }
    // Other block sizes (1024 with Entity fills 40 KiB in the block sort) and inputs.
    for block in [32, 128, 1024] {
        check_variant::<Entity>(s, v, 77_777, Order::Descending, Distribution::FewUnique, block);
        check_variant::<f64>(s, v, 77_777, Order::Ascending, Distribution::Uniform, block);
    }
    for &dist in Distribution::ALL {
        check_variant::<u32>(s, v, 65_537, Order::Descending, dist, 256);
        check_variant::<f32>(s, v, 65_537, Order::Ascending, dist, 512);
    }
}

fn big_u32(test: &str, v: Variant) {
    let Some(s) = gpu_sorter(test) else { return };
    for block in BLOCKS {
        for order in ORDERS {
            for &n in BIG {
                check_variant::<u32>(s, v, n, order, Distribution::Uniform, block);
            }
        }
    }
}

fn big_entity_stable(test: &str, v: Variant) {
    let Some(s) = gpu_sorter(test) else { return };
    for block in BLOCKS {
        for order in ORDERS {
            for &n in BIG {
                check_variant::<Entity>(s, v, n, order, Distribution::FewUnique, block);
            }
        }
    }
}

/// One test per (variant, group) so that libtest runs them in parallel: the CPU
/// reference sorts of the big inputs dominate the run time.
macro_rules! variant_tests {
    ($name:ident, $variant:expr) => {
        mod $name {
            use super::*;

            #[test]
            fn small_sizes_every_type() {
                super::small_sizes_every_type(concat!(stringify!($name), "::small_sizes_every_type"), $variant);
            }

            #[test]
            fn medium_sizes() {
                super::medium_sizes(concat!(stringify!($name), "::medium_sizes"), $variant);
            }

            #[test]
            fn big_u32() {
                super::big_u32(concat!(stringify!($name), "::big_u32"), $variant);
            }

            #[test]
            fn big_entity_stable() {
                super::big_entity_stable(concat!(stringify!($name), "::big_entity_stable"), $variant);
            }
        }
    };
}

variant_tests!(naive, Variant::Naive);
variant_tests!(sm8, Variant::Sm8);
variant_tests!(sm9, Variant::Sm9);
variant_tests!(sm, Variant::Sm);

/// The `sm` variant with a chunk-pass shared-memory budget (`host::Tuning::sm_smem_bytes`)
/// below and above the default 48 KiB (shorter and longer chunk passes) sorts as the
/// CPU does, stably.
#[test]
fn sm_sorts_alike_under_other_shared_memory_budgets() {
    let Some(sorters) = common::tuned_sorters(
        "sm_sorts_alike_under_other_shared_memory_budgets",
        &[
            ("sm_smem_bytes = 24 KiB", |t| t.sm_smem_bytes = Some(24 << 10)),
            ("sm_smem_bytes = 96 KiB", |t| t.sm_smem_bytes = Some(96 << 10)),
        ],
    ) else {
        return;
    };
    for (name, s) in &sorters {
        // `check_variant` names the case; libtest shows this line with a failure.
        eprintln!("with {name}:");
        for n in [8193, 100_003, (1 << 20) + 13] {
            for order in ORDERS {
                check_variant::<u32>(s, Variant::Sm, n, order, Distribution::Uniform, 256);
                check_variant::<Entity>(s, Variant::Sm, n, order, Distribution::FewUnique, 512);
            }
        }
    }
}
