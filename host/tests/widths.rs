//! The 16- and 8-bit keys (`u16`, `i16`, `f16`, `bf16`, `u8`, `i8`) on the CPU backend,
//! against references written with the standard library alone: `sort_by(total_cmp)` /
//! `sort_by_key` (stable), bit for bit (NaN payloads of both signs, ±0, ±inf,
//! subnormals), in both orders, NaN-last order included; pairs, argsort, top-k, unique,
//! searchsorted, segments and rows.
use std::cmp::Ordering;

use host::{Key, Order, SortOptions, Sorter, bf16, f16};
use proptest::prelude::*;

/// A narrow key type with its reference order and raw bits.
trait Narrow: Key + Copy {
    fn from_raw(raw: u16) -> Self;
    fn raw(self) -> u16;
    fn reference_cmp(a: &Self, b: &Self) -> Ordering;
    fn is_nan(self) -> bool {
        false
    }
    /// `±0.0` of a float (the integers' zero is one value anyway).
    fn is_zero(self) -> bool {
        false
    }
}

macro_rules! narrow_int {
    ($t:ty, $u:ty) => {
        impl Narrow for $t {
            fn from_raw(raw: u16) -> Self {
                raw as $u as $t
            }
            fn raw(self) -> u16 {
                self as $u as u16
            }
            fn reference_cmp(a: &Self, b: &Self) -> Ordering {
                a.cmp(b)
            }
        }
    };
}
narrow_int!(u16, u16);
narrow_int!(i16, u16);
narrow_int!(u8, u8);
narrow_int!(i8, u8);

macro_rules! narrow_float {
    ($t:ty) => {
        impl Narrow for $t {
            fn from_raw(raw: u16) -> Self {
                <$t>::from_bits(raw)
            }
            fn raw(self) -> u16 {
                self.to_bits()
            }
            fn reference_cmp(a: &Self, b: &Self) -> Ordering {
                a.total_cmp(b)
            }
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            fn is_zero(self) -> bool {
                self.to_bits() & 0x7fff == 0
            }
        }
    };
}
narrow_float!(f16);
narrow_float!(bf16);

/// Raw patterns weighted towards the special values: NaN payloads of both signs, ±0,
/// ±inf and subnormals of both half formats, and the integers' extremes.
fn special_raw() -> impl Strategy<Value = u16> {
    prop_oneof![
        any::<u16>(),
        prop::sample::select(vec![
            0x0000u16, 0x8000, 0x7c00, 0xfc00, 0x7c01, 0xfe00, 0x7e00, 0xffff, 0x7fff, 0x0001, 0x8001, 0x03ff, 0x7f80,
            0xff80, 0x7fc0, 0xffc1, 0x007f, 0x807f, 0x0080, 0x00ff, 0x7f, 0x80, 0xff,
        ]),
    ]
}

/// The stable reference sort in `order` (NaN-last, numpy's order: every NaN one value
/// above every number, so last ascending and first descending, NaNs in input order,
/// and `-0.0` equal to `+0.0`).
fn reference<K: Narrow>(keys: &[K], order: Order, nan_last: bool) -> Vec<u32> {
    let mut idx: Vec<u32> = (0..keys.len() as u32).collect();
    idx.sort_by(|&a, &b| {
        let (x, y) = (&keys[a as usize], &keys[b as usize]);
        let o = if nan_last && (x.is_nan() || y.is_nan()) {
            x.is_nan().cmp(&y.is_nan())
        } else if nan_last && x.is_zero() && y.is_zero() {
            Ordering::Equal
        } else {
            K::reference_cmp(x, y)
        };
        if order.is_descending() { o.reverse() } else { o }
    });
    idx
}

fn raws<K: Narrow>(keys: &[K]) -> Vec<u16> {
    keys.iter().map(|k| k.raw()).collect()
}

/// Sort, argsort and pairs of `raw` as keys of `K`, every order, against [`reference`].
fn check_sorts<K: Narrow>(raw: &[u16]) -> Result<(), TestCaseError> {
    let keys: Vec<K> = raw.iter().map(|&r| K::from_raw(r)).collect();
    let cpu = Sorter::cpu();
    for order in [Order::Ascending, Order::Descending] {
        for nan_last in [false, true] {
            let opts = if nan_last {
                SortOptions::default().order(order).nan_last()
            } else {
                SortOptions::default().order(order)
            };
            let perm = reference(&keys, order, nan_last);
            let expect: Vec<K> = perm.iter().map(|&i| keys[i as usize]).collect();
            let mut got = keys.clone();
            cpu.sort(&mut got, &opts).unwrap();
            prop_assert_eq!(raws(&got), raws(&expect), "{} {} nan_last {}", K::NAME, order, nan_last);
            prop_assert_eq!(cpu.argsort(&keys, &opts).unwrap(), perm.clone(), "{} argsort", K::NAME);
            let (mut pk, mut pv) = (keys.clone(), (0..keys.len() as u32).collect::<Vec<u32>>());
            cpu.sort_pairs(&mut pk, &mut pv, &opts).unwrap();
            prop_assert_eq!(raws(&pk), raws(&expect), "{} pairs", K::NAME);
            prop_assert_eq!(pv, perm, "{} pair values (stability)", K::NAME);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn narrow_sorts_equal_the_std_reference(raw in prop::collection::vec(special_raw(), 0..300)) {
        check_sorts::<u16>(&raw)?;
        check_sorts::<i16>(&raw)?;
        check_sorts::<f16>(&raw)?;
        check_sorts::<bf16>(&raw)?;
        check_sorts::<u8>(&raw)?;
        check_sorts::<i8>(&raw)?;
    }

    #[test]
    fn narrow_top_k_is_the_sorted_prefix(raw in prop::collection::vec(special_raw(), 0..200), k in 0usize..50) {
        fn check<K: Narrow>(raw: &[u16], k: usize) -> Result<(), TestCaseError> {
            let keys: Vec<K> = raw.iter().map(|&r| K::from_raw(r)).collect();
            for order in [Order::Ascending, Order::Descending] {
                let (got, at) = Sorter::cpu().top_k(&keys, k, &SortOptions::default().order(order)).unwrap();
                let perm = reference(&keys, order, false);
                let perm = &perm[..k.min(keys.len())];
                let expect: Vec<K> = perm.iter().map(|&i| keys[i as usize]).collect();
                prop_assert_eq!(raws(&got), raws(&expect), "{} top-{} {}", K::NAME, k, order);
                prop_assert_eq!(at, perm.to_vec());
            }
            Ok(())
        }
        check::<f16>(&raw, k)?;
        check::<bf16>(&raw, k)?;
        check::<i16>(&raw, k)?;
        check::<u8>(&raw, k)?;
    }

    #[test]
    fn narrow_searchsorted_counts_smaller_keys(raw in prop::collection::vec(special_raw(), 0..200), q in prop::collection::vec(special_raw(), 0..40)) {
        fn check<K: Narrow>(raw: &[u16], q: &[u16]) -> Result<(), TestCaseError> {
            let mut sorted: Vec<K> = raw.iter().map(|&r| K::from_raw(r)).collect();
            sorted.sort_by(K::reference_cmp);
            let queries: Vec<K> = q.iter().map(|&r| K::from_raw(r)).collect();
            let left = Sorter::cpu().searchsorted(&sorted, &queries, host::Side::Left).unwrap();
            for (i, x) in queries.iter().enumerate() {
                let below = sorted.iter().filter(|s| K::reference_cmp(s, x) == Ordering::Less).count();
                prop_assert_eq!(left[i], below as u64, "{} query {:#x}", K::NAME, x.raw());
            }
            Ok(())
        }
        check::<f16>(&raw, &q)?;
        check::<bf16>(&raw, &q)?;
        check::<i8>(&raw, &q)?;
        check::<u16>(&raw, &q)?;
    }
}

/// `unique` treats every NaN as one value (returned last as the positive quiet NaN of
/// the type) and `-0.0` as `+0.0`, as for `f32`: the 16-bit formats each with their own
/// exponent (a `bf16` NaN is not an `f16` NaN's bit pattern).
#[test]
fn narrow_unique_merges_nans_and_zeros() {
    let h: Vec<f16> = [0x7c01u16, 0xfe00, 0x8000, 0x0000, 0x3c00, 0x3c00, 0x7c00, 0x7e00]
        .iter()
        .map(|&b| f16::from_bits(b))
        .collect();
    let (v, c) = Sorter::cpu().unique_counts(&h).unwrap();
    let bits: Vec<u16> = v.iter().map(|x| x.to_bits()).collect();
    assert_eq!(bits, [0x0000, 0x3c00, 0x7c00, 0x7e00], "f16 unique");
    assert_eq!(c, [2, 2, 1, 3]);
    // 0x7c01 is a finite bf16 (about 2.6e36), not a NaN.
    let b: Vec<bf16> =
        [0x7c01u16, 0xffc1, 0x8000, 0x0000, 0x7f80, 0x7f81].iter().map(|&b| bf16::from_bits(b)).collect();
    let (v, c) = Sorter::cpu().unique_counts(&b).unwrap();
    let bits: Vec<u16> = v.iter().map(|x| x.to_bits()).collect();
    assert_eq!(bits, [0x0000, 0x7c01, 0x7f80, 0x7fc0], "bf16 unique");
    assert_eq!(c, [2, 1, 1, 2]);
}

/// Segments and rows of 16-bit floats on the CPU equal the reference per segment.
#[test]
fn narrow_segments_and_rows() {
    let keys: Vec<bf16> = (0..600u32).map(|i| bf16::from_bits((i.wrapping_mul(0x9e37_79b1) >> 9) as u16)).collect();
    let offsets = [0usize, 0, 7, 300, 301, 600];
    let mut got = keys.clone();
    Sorter::cpu().sort_segments(&mut got, &offsets, &SortOptions::default()).unwrap();
    let mut expect = keys.clone();
    for w in offsets.windows(2) {
        expect[w[0]..w[1]].sort_by(|a, b| a.total_cmp(b));
    }
    assert_eq!(raws(&got), raws(&expect));
    let mut rows = keys.clone();
    Sorter::cpu().sort_rows(&mut rows, 6, 100, &SortOptions::default().order(Order::Descending)).unwrap();
    let mut expect = keys;
    for r in expect.chunks_mut(100) {
        r.sort_by(|a, b| b.total_cmp(a));
    }
    assert_eq!(raws(&rows), raws(&expect));
}
