//! Shared by the GPU test files: opening the device, or skipping visibly.
#![allow(dead_code)]
use std::sync::OnceLock;

use host::testing::inputs::{Random, generate};
use host::testing::verify;
use host::{Distribution, Element, Entity, KeyType, Order, SortOptions, Sorter, Tuning, Variant, with_key_type};
use rayon::prelude::*;

/// The GPU sorter (opened once per test binary: loading the module JIT-compiles the
/// PTX), tuned by the `SORT_*` variables of the test's environment as the `host`
/// program is (a GPU run can force the PTX, synchronous launches or a knob's other
/// path for every test), or `None` on a machine without one, after recording the test
/// as skipped (`<test>: skipped: no CUDA device` on stderr, and a line in
/// `$SORT_SKIP_LOG`: see `host::testing`). With `SORT_REQUIRE_GPU=1` a missing device fails the test
/// instead, so a GPU run proves the tests really ran there.
pub fn gpu_sorter(test: &str) -> Option<&'static Sorter> {
    static SORTER: OnceLock<Result<Sorter, String>> = OnceLock::new();
    match SORTER.get_or_init(|| Sorter::new_tuned(Tuning::from_env()).map_err(|e| e.to_string())) {
        Ok(s) => Some(s),
        Err(e) => {
            if std::env::var("SORT_REQUIRE_GPU").is_ok_and(|v| v == "1") {
                panic!("{test}: SORT_REQUIRE_GPU=1 but no GPU: {e}");
            }
            host::testing::skipped(test, &format!("no CUDA device ({e})"));
            None
        }
    }
}

/// A named change to the tuning a test sorter is opened with ([`tuned_sorters`]).
pub type TuningChange = (&'static str, fn(&mut Tuning));

/// A GPU sorter for each of `changes`, opened with the environment's tuning (as
/// [`gpu_sorter`]) changed by its function (each loads the kernels again), named for
/// failure messages; or `None` on a machine without a GPU, after recording the test as
/// skipped.
pub fn tuned_sorters(test: &str, changes: &[TuningChange]) -> Option<Vec<(String, Sorter)>> {
    gpu_sorter(test)?;
    let open = |&(name, change): &TuningChange| {
        let mut tuning = Tuning::from_env();
        change(&mut tuning);
        let sorter = Sorter::new_tuned(tuning).unwrap_or_else(|e| panic!("{test}: opening with {name}: {e}"));
        (name.to_string(), sorter)
    };
    Some(changes.iter().map(open).collect())
}

/// Sorts `n` generated keys of `K` with `variant` in `order`, and the same keys with
/// their input indices as `u32` values, on `sorter`; checks the keys against the CPU
/// reference and the pairs against the CPU's stable pair sort. `what` names the case.
pub fn check_keys_and_pairs<K: Random + host::Key>(
    what: &str,
    sorter: &Sorter,
    variant: Variant,
    n: usize,
    order: Order,
    dist: Distribution,
) {
    let what = format!("{what}: {variant} {} n={n} {order} {dist}", K::NAME);
    let keys: Vec<K> = generate(n, dist, n as u64 ^ 0x7e57);
    let opts = SortOptions::new(variant).order(order);
    let mut out = keys.clone();
    sorter.sort(&mut out, &opts).unwrap_or_else(|e| panic!("{what}: {e}"));
    verify::check(&keys, &out, order, variant.is_stable()).unwrap_or_else(|m| panic!("{what}: {m}"));
    let (mut gk, mut gv) = (keys.clone(), (0..n as u32).collect::<Vec<u32>>());
    sorter.sort_pairs(&mut gk, &mut gv, &opts).unwrap_or_else(|e| panic!("{what} pairs: {e}"));
    let (mut ck, mut cv) = (keys, (0..n as u32).collect::<Vec<u32>>());
    Sorter::cpu().sort_pairs(&mut ck, &mut cv, &opts).unwrap();
    assert!(gk.iter().zip(&ck).all(|(a, b)| a.bits() == b.bits()), "{what} pairs: keys differ");
    assert!(gv == cv, "{what} pairs: values differ (stability)");
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

/// `n` records of `record_bytes` random bytes, each with a key of `key_type` from
/// distribution `dist` written at byte `offset` (little-endian).
pub fn random_records(n: usize, record_bytes: usize, offset: usize, key_type: KeyType, dist: Distribution) -> Vec<u8> {
    let seed = (n * 31 + record_bytes * 7 + offset) as u64;
    let filler: Vec<u64> = generate(n * record_bytes.div_ceil(8), Distribution::Uniform, seed);
    let mut bytes: Vec<u8> = filler.iter().flat_map(|w| w.to_le_bytes()).take(n * record_bytes).collect();
    let keys: Vec<u8> = with_key_type!(key_type, K => {
        let k: Vec<K> = generate(n, dist, seed ^ 0x5eed);
        bytemuck::cast_slice(&k).to_vec()
    }, wide => unreachable!("record key fields are 32- or 64-bit keys"));
    let kb = key_type.size();
    for (r, key) in bytes.chunks_mut(record_bytes).zip(keys.chunks(kb)) {
        r[offset..offset + kb].copy_from_slice(key);
    }
    bytes
}

/// The records of `bytes` stably sorted by their key field, by a plain comparison sort
/// on the typed keys (independent of the library's order-bit encoding).
pub fn reference_records(bytes: &[u8], record_bytes: usize, offset: usize, key_type: KeyType, order: Order) -> Vec<u8> {
    let recs: Vec<&[u8]> = bytes.chunks(record_bytes).collect();
    let mut idx: Vec<usize> = (0..recs.len()).collect();
    let field = |i: usize| &recs[i][offset..offset + key_type.size()];
    let cmp = |a: usize, b: usize| -> std::cmp::Ordering {
        let (x, y) = (field(a), field(b));
        let o = match key_type {
            KeyType::U32 => u32::from_le_bytes(x.try_into().unwrap()).cmp(&u32::from_le_bytes(y.try_into().unwrap())),
            KeyType::I32 => i32::from_le_bytes(x.try_into().unwrap()).cmp(&i32::from_le_bytes(y.try_into().unwrap())),
            KeyType::F32 => {
                f32::from_le_bytes(x.try_into().unwrap()).total_cmp(&f32::from_le_bytes(y.try_into().unwrap()))
            }
            KeyType::U64 => u64::from_le_bytes(x.try_into().unwrap()).cmp(&u64::from_le_bytes(y.try_into().unwrap())),
            KeyType::I64 => i64::from_le_bytes(x.try_into().unwrap()).cmp(&i64::from_le_bytes(y.try_into().unwrap())),
            KeyType::F64 => {
                f64::from_le_bytes(x.try_into().unwrap()).total_cmp(&f64::from_le_bytes(y.try_into().unwrap()))
            }
            KeyType::Entity
            | KeyType::U16
            | KeyType::I16
            | KeyType::F16
            | KeyType::Bf16
            | KeyType::U8
            | KeyType::I8
            | KeyType::U128
            | KeyType::I128
            | KeyType::Bytes(_) => unreachable!("not a key field type"),
        };
        if order.is_descending() { o.reverse() } else { o }
    };
    idx.sort_by(|&a, &b| cmp(a, b));
    idx.iter().flat_map(|&i| recs[i].iter().copied()).collect()
}

/// Record layouts worth testing: `(record bytes, key offset)` per key width, aligned
/// and unaligned, lanes of 1, 4, 8 and 16 bytes.
pub fn record_layouts(key_bytes: usize) -> Vec<(usize, usize)> {
    let mut v = vec![(key_bytes, 0), (32, 0), (32, 16), (20, 4), (24, 8), (48, 40), (64, 24)];
    v.extend([(key_bytes + 1, 1), (key_bytes + 3, 3), (33, 29 - key_bytes), (7 + key_bytes, 5), (40, 2)]);
    v.retain(|&(r, o)| o + key_bytes <= r);
    v
}

/// Sorts `n` uniform keys of `T` by `variant` and checks the result in linear time
/// (order and multiset: [`verify::check_large`]); for the `--ignored` tests of large
/// inputs.
pub fn check_large_keys<T: Random + Element>(sorter: &Sorter, variant: Variant, n: usize, order: Order, seed: u64) {
    let input: Vec<T> = generate(n, Distribution::Uniform, seed);
    let mut out = input.clone();
    let t = std::time::Instant::now();
    sorter.sort(&mut out, &SortOptions::new(variant).order(order)).unwrap();
    verify::check_large(&input, &out, order).unwrap_or_else(|m| panic!("{variant} {} n={n} {order}: {m}", T::NAME));
    eprintln!("{variant} {} n={n} {order}: ok in {:.1} s", T::NAME, t.elapsed().as_secs_f64());
}

/// Sorts `n` few-unique u32 keys with their indices as values by `variant` and checks
/// in linear time: keys ordered and a permutation of the input, every value the index
/// of a key equal to the one beside it, and values increasing among equal keys (so a
/// permutation, and the sort stable).
pub fn check_large_index_pairs(sorter: &Sorter, variant: Variant, n: usize, order: Order) {
    let input: Vec<u32> = generate(n, Distribution::FewUnique, 29);
    let mut k = input.clone();
    let mut v: Vec<u32> = (0..n as u32).collect();
    sorter.sort_pairs(&mut k, &mut v, &SortOptions::new(variant).order(order)).unwrap();
    verify::check_large(&input, &k, order).unwrap();
    let stable = v.par_windows(2).zip(k.par_windows(2)).all(|(i, k)| k[0] != k[1] || i[0] < i[1]);
    let consistent = v.par_iter().zip(k.par_iter()).all(|(&i, &key)| input[i as usize] == key);
    assert!(stable && consistent, "{variant} pairs n={n} {order}: stable {stable}, values match keys {consistent}");
    eprintln!("{variant} u32 + u32 pairs n={n} few-unique {order}: ok (stable)");
}
pub mod wide;
