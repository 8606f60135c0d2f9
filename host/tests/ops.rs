//! The operations after a sort on the CPU backend (`Sorter::cpu`): run-length
//! encoding, unique with counts and searchsorted of every key type against the
//! references of `ops_reference` (loops over each type's own comparisons), on fixed
//! cases and as property tests. The GPU versions are checked in `gpu_ops.rs`.
mod ops_reference;

use host::{Side, Sorter};
use ops_reference::{RefKey, keys, same, sorted};
use proptest::prelude::*;

/// Sizes: empty, tiny, around the device's tile of 8,192 keys, and past the CPU's
/// parallel threshold (65,536) so that runs cross its chunks.
const SIZES: &[usize] = &[0, 1, 2, 3, 100, 8191, 8192, 8193, 70_001, 200_000];
/// Value ranges: all equal, long runs, short runs, nearly all distinct.
const RANGES: &[u64] = &[1, 3, 1000, 1 << 40];

fn check_runs<K: RefKey>(s: &Sorter, input: &[K], what: &str) {
    let got = s.run_length_encode(input).unwrap();
    assert!(same(&got, &ops_reference::runs(input)), "{what}: run_length_encode {} n={}", K::NAME, input.len());
    let got = s.unique_counts(input).unwrap();
    assert!(same(&got, &ops_reference::unique_counts(input)), "{what}: unique_counts {} n={}", K::NAME, input.len());
}

fn check_search<K: RefKey>(s: &Sorter, sorted_keys: &[K], queries: &[K], what: &str) {
    let linear = sorted_keys.len() * queries.len() <= 1 << 22;
    for side in [Side::Left, Side::Right] {
        let got = s.searchsorted(sorted_keys, queries, side).unwrap();
        let want = ops_reference::searchsorted(sorted_keys, queries, side, linear);
        assert_eq!(got, want, "{what}: searchsorted {} n={} m={} {side:?}", K::NAME, sorted_keys.len(), queries.len());
    }
}

fn every_case<K: RefKey>() {
    let s = Sorter::cpu();
    for &n in SIZES {
        for &range in RANGES {
            for specials in [false, true] {
                let input: Vec<K> = keys(n, range, specials, n as u64 ^ range);
                check_runs(&s, &input, "unsorted");
                let sorted_input = sorted(input.clone());
                check_runs(&s, &sorted_input, "sorted");
                // Queries: some equal to keys, some between, below and above all of them.
                let queries: Vec<K> = keys(n / 3 + 5, range + 4, specials, n as u64 + 7);
                check_search(&s, &sorted_input, &queries, "unsorted queries");
                check_search(&s, &sorted_input, &sorted(queries), "sorted queries");
            }
        }
    }
}

#[test]
fn ops_u32() {
    every_case::<u32>();
}
#[test]
fn ops_i32() {
    every_case::<i32>();
}
#[test]
fn ops_f32() {
    every_case::<f32>();
}
#[test]
fn ops_u64() {
    every_case::<u64>();
}
#[test]
fn ops_i64() {
    every_case::<i64>();
}
#[test]
fn ops_f64() {
    every_case::<f64>();
}

/// The float rules, spelled out: numpy's equality for runs and unique (both zeros one
/// value, every NaN one value), total order for searchsorted.
#[test]
fn float_equality_and_order() {
    let s = Sorter::cpu();
    let nan_payload = f32::from_bits(f32::NAN.to_bits() | 1);
    let input = [-f32::NAN, -0.0, 0.0, 1.0, nan_payload, f32::NAN, -0.0];
    let (k, c) = s.run_length_encode(&input).unwrap();
    assert_eq!(c, [1, 2, 1, 2, 1]);
    assert!(k[1].to_bits() == (-0.0f32).to_bits(), "a run keeps its first key");
    let (k, c) = s.unique_counts(&input).unwrap();
    assert_eq!(c, [3, 1, 3], "zeros, one, NaNs");
    assert_eq!(k[0].to_bits(), 0.0f32.to_bits());
    assert_eq!(k[2].to_bits(), f32::NAN.to_bits());
    let sorted_keys = [-f32::NAN, -1.0, -0.0, 0.0, 0.0, 2.0, f32::NAN];
    let q = [-0.0, 0.0, f32::NAN, -f32::NAN, f32::INFINITY];
    assert_eq!(s.searchsorted(&sorted_keys, &q, Side::Left).unwrap(), [2, 3, 6, 0, 6]);
    assert_eq!(s.searchsorted(&sorted_keys, &q, Side::Right).unwrap(), [3, 5, 7, 1, 6]);
}

/// No keys: every answer 0; no queries: nothing.
#[test]
fn empty_inputs() {
    let s = Sorter::cpu();
    assert_eq!(s.searchsorted(&[] as &[u64], &[1, 2], Side::Right).unwrap(), [0, 0]);
    assert!(s.searchsorted(&[1u64], &[], Side::Left).unwrap().is_empty());
    assert_eq!(s.run_length_encode(&[] as &[i32]).unwrap(), (vec![], vec![]));
    assert!(s.unique(&[] as &[f64]).unwrap().is_empty());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn runs_and_unique_match_the_reference(v in prop::collection::vec(0u32..6, 0..3000), sort in any::<bool>()) {
        let v = if sort { sorted(v) } else { v };
        let s = Sorter::cpu();
        prop_assert!(same(&s.run_length_encode(&v).unwrap(), &ops_reference::runs(&v)));
        prop_assert!(same(&s.unique_counts(&v).unwrap(), &ops_reference::unique_counts(&v)));
    }

    #[test]
    fn float_runs_match_the_reference(bits in prop::collection::vec(prop::sample::select(vec![
        0u32, 0x8000_0000, 0x7fc0_0000, 0xffc0_0000, 0x7f80_0001, 0x3f80_0000, 0xbf80_0000, 0x7f80_0000,
    ]), 0..2000)) {
        let v: Vec<f32> = bits.into_iter().map(f32::from_bits).collect();
        let s = Sorter::cpu();
        prop_assert!(same(&s.run_length_encode(&v).unwrap(), &ops_reference::runs(&v)));
        prop_assert!(same(&s.unique_counts(&v).unwrap(), &ops_reference::unique_counts(&v)));
    }

    #[test]
    fn searchsorted_matches_the_reference(
        k in prop::collection::vec(-50i64..50, 0..2000),
        q in prop::collection::vec(-60i64..60, 0..500),
        right in any::<bool>(),
    ) {
        let k = sorted(k);
        let side = if right { Side::Right } else { Side::Left };
        let got = Sorter::cpu().searchsorted(&k, &q, side).unwrap();
        prop_assert_eq!(got, ops_reference::searchsorted(&k, &q, side, true));
    }
}
