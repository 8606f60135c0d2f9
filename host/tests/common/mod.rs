//! Shared by the GPU test files: opening the device, or skipping visibly.
#![allow(dead_code)]
use std::io::Write;
use std::sync::OnceLock;

use host::inputs::{Random, generate};
use host::{Distribution, Element, Entity, Order, SortOptions, Sorter, Variant, verify};
use rayon::prelude::*;

/// The GPU sorter (opened once per test binary: loading the module JIT-compiles the
/// PTX), or `None` after printing `<test>: skipped: no CUDA device` on a machine
/// without one. With `SORT_REQUIRE_GPU=1` a missing device fails the test instead, so
/// a GPU run proves the tests really ran there.
pub fn gpu_sorter(test: &str) -> Option<&'static Sorter> {
    static SORTER: OnceLock<Result<Sorter, String>> = OnceLock::new();
    match SORTER.get_or_init(|| Sorter::new().map_err(|e| e.to_string())) {
        Ok(s) => Some(s),
        Err(e) => {
            if std::env::var("SORT_REQUIRE_GPU").is_ok_and(|v| v == "1") {
                panic!("{test}: SORT_REQUIRE_GPU=1 but no GPU: {e}");
            }
            // Straight to the process's stderr: libtest would swallow eprintln!.
            let _ = writeln!(std::io::stderr(), "{test}: skipped: no CUDA device ({e})");
            None
        }
    }
}

/// Sizes every variant must handle: tiny, around block boundaries, odd, large.
pub const SIZES: &[usize] = &[0, 1, 2, 3, 31, 255, 256, 257, 1000, 4097, (1 << 20) + 13];

/// Sorts a generated input on the GPU and verifies it (order, permutation and, for
/// stable variants, stability); panics with the configuration on failure.
pub fn check_variant<T: Random + Element>(
    sorter: &Sorter,
    variant: Variant,
    n: usize,
    order: Order,
    dist: Distribution,
    block: u32,
) {
    let input: Vec<T> = generate(n, dist, n as u64 ^ 0xfeed);
    let mut out = input.clone();
    let opts = SortOptions::new(variant).order(order).block_size(block);
    if let Err(e) = sorter.sort(&mut out, &opts) {
        panic!("{variant} {} n={n} {order} {dist} block {block}: {e}", T::NAME);
    }
    if let Err(m) = verify::check(&input, &out, order, variant.is_stable()) {
        panic!("{variant} {} n={n} {order} {dist} block {block}: {m}", T::NAME);
    }
}

/// [`check_variant`] for every element type at one configuration.
pub fn check_every_type(sorter: &Sorter, variant: Variant, n: usize, order: Order, dist: Distribution, block: u32) {
    check_variant::<u32>(sorter, variant, n, order, dist, block);
    check_variant::<i32>(sorter, variant, n, order, dist, block);
    check_variant::<f32>(sorter, variant, n, order, dist, block);
    check_variant::<u64>(sorter, variant, n, order, dist, block);
    check_variant::<i64>(sorter, variant, n, order, dist, block);
    check_variant::<f64>(sorter, variant, n, order, dist, block);
    check_variant::<Entity>(sorter, variant, n, order, dist, block);
}

/// Every distribution in each of `orders` at one size, sorted in parallel (the CPU
/// check dominates); skips visibly without a device.
pub fn all_distributions<T: Random + Element>(test: &str, variant: Variant, n: usize, orders: &[Order]) {
    let Some(s) = gpu_sorter(test) else { return };
    let cases: Vec<(Distribution, Order)> =
        Distribution::ALL.iter().flat_map(|&d| orders.iter().map(move |&o| (d, o))).collect();
    cases.par_iter().for_each(|&(dist, order)| check_variant::<T>(s, variant, n, order, dist, 256));
}

/// NaN of both signs, infinities, -0.0 and +0.0 mixed with ordinary values, as f32 and
/// f64, at each size in `sizes` and both orders; stability checked where the variant
/// promises it.
pub fn check_special_floats(sorter: &Sorter, variant: Variant, sizes: &[usize]) {
    let specials = [f32::NAN, -f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0, 1.0, -1.0, f32::MIN_POSITIVE];
    for &n in sizes {
        let input: Vec<f32> = (0..n).map(|i| specials[(i * 7 + i / 13) % specials.len()]).collect();
        let input64: Vec<f64> = input.iter().map(|&x| x as f64).collect();
        for order in [Order::Ascending, Order::Descending] {
            let opts = SortOptions::new(variant).order(order);
            let mut out = input.clone();
            sorter.sort(&mut out, &opts).unwrap();
            verify::check(&input, &out, order, variant.is_stable())
                .unwrap_or_else(|m| panic!("{variant} f32 {n} {order}: {m}"));
            let mut out = input64.clone();
            sorter.sort(&mut out, &opts).unwrap();
            verify::check(&input64, &out, order, variant.is_stable())
                .unwrap_or_else(|m| panic!("{variant} f64 {n} {order}: {m}"));
        }
    }
}
