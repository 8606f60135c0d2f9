//! Property tests: for random lengths (0, 1, 2, primes, 2^k ± 1, anything up to a few
//! thousand), random and adversarial distributions, every key type and both orders,
//! the output is ordered, a permutation of the input, and stable where promised.
//!
//! The CPU backend's properties run everywhere (CI). The GPU ones cover every variant
//! and skip visibly without a device (fail with SORT_REQUIRE_GPU=1).
mod common;

use host::testing::inputs::{Random, generate};
use host::testing::verify;
use host::{Distribution, Element, KeyType, Order, SortOptions, Sorter, Variant, with_key_type};
use proptest::prelude::*;

fn length() -> impl Strategy<Value = usize> {
    prop_oneof![
        prop::sample::select(vec![0usize, 1, 2, 3]),
        prop::sample::select(vec![5usize, 7, 13, 31, 127, 257, 1021, 4093, 8191, 65521]),
        (1u32..17).prop_flat_map(|k| prop::sample::select(vec![(1usize << k) - 1, 1 << k, (1 << k) + 1])),
        0usize..5000,
    ]
}

fn order() -> impl Strategy<Value = Order> {
    prop::sample::select(vec![Order::Ascending, Order::Descending])
}

fn dist() -> impl Strategy<Value = Distribution> {
    prop::sample::select(Distribution::ALL.to_vec())
}

fn key_type() -> impl Strategy<Value = KeyType> {
    prop::sample::select(KeyType::ALL.to_vec())
}

/// Sorts a generated input with `sorter` and checks it; `stable` says whether the
/// result must equal the stable reference exactly.
fn sorts_correctly<T: Random + Element>(
    sorter: &Sorter,
    opts: &SortOptions,
    n: usize,
    dist: Distribution,
    seed: u64,
    stable: bool,
) -> Result<(), TestCaseError> {
    let input: Vec<T> = generate(n, dist, seed);
    sorts_input(sorter, opts, input, stable)
}

fn sorts_input<T: Element>(
    sorter: &Sorter,
    opts: &SortOptions,
    input: Vec<T>,
    stable: bool,
) -> Result<(), TestCaseError> {
    let mut out = input.clone();
    sorter.sort(&mut out, opts).map_err(|e| TestCaseError::fail(format!("{} n={}: {e}", T::NAME, input.len())))?;
    verify::check(&input, &out, opts.order, stable)
        .map_err(|m| TestCaseError::fail(format!("{} {} n={}: {m}", opts.variant, T::NAME, input.len())))?;
    Ok(())
}

/// IEEE special values, both signs, several NaN payloads: they must land in total order.
fn special_f32() -> impl Strategy<Value = f32> {
    prop_oneof![
        prop::sample::select(vec![
            f32::NAN,
            -f32::NAN,
            f32::from_bits(0x7f80_0001), // signalling NaN
            f32::from_bits(0xffc0_1234), // negative NaN with payload
            f32::from_bits(0x7fff_ffff),
            f32::INFINITY,
            f32::NEG_INFINITY,
            0.0,
            -0.0,
            f32::MIN_POSITIVE,
            -f32::MIN_POSITIVE,
            f32::from_bits(1), // smallest subnormal
            f32::from_bits(0x8000_0001),
            f32::MAX,
            f32::MIN,
        ]),
        any::<f32>(),
        -10.0f32..10.0,
    ]
}

fn special_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        prop::sample::select(vec![
            f64::NAN,
            -f64::NAN,
            f64::from_bits(0x7ff0_0000_0000_0001),
            f64::from_bits(0xfff8_0000_0000_beef),
            f64::INFINITY,
            f64::NEG_INFINITY,
            0.0,
            -0.0,
            f64::MIN_POSITIVE,
            f64::from_bits(1),
            f64::MAX,
            f64::MIN,
        ]),
        any::<f64>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn cpu_backend_sorts_every_type(kt in key_type(), n in length(), order in order(), dist in dist(), seed in any::<u64>()) {
        let sorter = Sorter::cpu();
        let opts = SortOptions::default().order(order);
        with_key_type!(kt, T => sorts_correctly::<T>(&sorter, &opts, n, dist, seed, true), wide => unreachable!("key_type() draws from KeyType::ALL"))?;
    }

    #[test]
    fn cpu_backend_total_order_for_floats(v in prop::collection::vec(special_f32(), 0..300),
                                          d in prop::collection::vec(special_f64(), 0..300),
                                          order in order()) {
        let sorter = Sorter::cpu();
        let opts = SortOptions::default().order(order);
        sorts_input(&sorter, &opts, v, true)?;
        sorts_input(&sorter, &opts, d, true)?;
    }
}

/// Runs `cases` random cases of `strategy` through `test` on the GPU; skips once,
/// visibly, without a device.
fn on_gpu<S: Strategy>(
    name: &str,
    cases: u32,
    strategy: S,
    test: impl Fn(&Sorter, S::Value) -> Result<(), TestCaseError>,
) {
    let Some(sorter) = common::gpu_sorter(name) else { return };
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(cases));
    if let Err(e) = runner.run(&strategy, |v| test(sorter, v)) {
        panic!("{name}: {e}");
    }
}

#[test]
fn gpu_every_variant_sorts_every_type() {
    let variants = prop::sample::select(Variant::ALL.to_vec());
    let blocks = prop::sample::select(vec![128u32, 256, 512]);
    let strategy = (variants, key_type(), length(), order(), dist(), any::<u64>(), blocks);
    on_gpu(
        "gpu_every_variant_sorts_every_type",
        400,
        strategy,
        |sorter, (variant, kt, n, order, dist, seed, block)| {
            let opts = SortOptions::new(variant).order(order).block_size(block);
            with_key_type!(kt, T => sorts_correctly::<T>(sorter, &opts, n, dist, seed, variant.is_stable()), wide => unreachable!("the strategy draws from KeyType::ALL"))
        },
    );
}

#[test]
fn gpu_every_variant_total_order_for_floats() {
    let strategy = (
        prop::sample::select(Variant::ALL.to_vec()),
        prop::collection::vec(special_f32(), 0..2000),
        prop::collection::vec(special_f64(), 0..2000),
        order(),
    );
    on_gpu("gpu_every_variant_total_order_for_floats", 100, strategy, |sorter, (variant, v, d, order)| {
        let opts = SortOptions::new(variant).order(order);
        sorts_input(sorter, &opts, v, variant.is_stable())?;
        sorts_input(sorter, &opts, d, variant.is_stable())
    });
}
