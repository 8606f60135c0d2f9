//! References for the operations after a sort (run-length encoding, unique,
//! searchsorted), written as plain loops over each type's own comparisons (`==` and
//! `is_nan` for floats, `total_cmp` for their order), independent of the library's
//! order bits; and inputs that exercise them (small value ranges for long runs, the
//! special floats).
#![allow(dead_code)]
use std::cmp::Ordering;

use host::{Key, Side};

/// A key type as the references see it.
pub trait RefKey: Key {
    /// One value for the run operations: `==`, and for floats every NaN equals every NaN.
    fn ref_eq(&self, other: &Self) -> bool;
    /// The sort's order (floats: IEEE 754 total order).
    fn ref_cmp(&self, other: &Self) -> Ordering;
    /// numpy's representative of the value: every NaN the positive quiet NaN, `-0.0`
    /// as `+0.0`.
    fn numpy_value(self) -> Self;
    /// A key from a small integer (floats: quarters, so fractions and negatives occur).
    fn from_small(v: i64) -> Self;
    /// Values that need care: zeros of both signs, NaNs of both signs and several
    /// payloads, infinities, the extremes (empty for integers beyond the extremes).
    fn specials() -> Vec<Self>;
    /// Same bits (to compare results exactly, NaNs included).
    fn same_bits(&self, other: &Self) -> bool {
        bytemuck::bytes_of(self) == bytemuck::bytes_of(other)
    }
}

macro_rules! int_key {
    ($($t:ty),*) => {$(
        impl RefKey for $t {
            fn ref_eq(&self, other: &Self) -> bool { self == other }
            fn ref_cmp(&self, other: &Self) -> Ordering { self.cmp(other) }
            fn numpy_value(self) -> Self { self }
            fn from_small(v: i64) -> Self { v as $t }
            fn specials() -> Vec<Self> { vec![<$t>::MIN, <$t>::MIN + 1, 0, 1, <$t>::MAX - 1, <$t>::MAX] }
        }
    )*};
}
int_key!(u32, i32, u64, i64, u16, i16, u8, i8);

macro_rules! float_key {
    ($($t:ty, $bits:ty),*) => {$(
        impl RefKey for $t {
            fn ref_eq(&self, other: &Self) -> bool { self == other || (self.is_nan() && other.is_nan()) }
            fn ref_cmp(&self, other: &Self) -> Ordering { self.total_cmp(other) }
            fn numpy_value(self) -> Self {
                if self.is_nan() { <$t>::NAN } else if self == 0.0 { 0.0 } else { self }
            }
            fn from_small(v: i64) -> Self { v as $t / 4.0 }
            fn specials() -> Vec<Self> {
                let payload = <$t>::from_bits(<$t>::NAN.to_bits() | 3);
                vec![0.0, -0.0, <$t>::NAN, -<$t>::NAN, payload, -payload, <$t>::INFINITY, <$t>::NEG_INFINITY,
                     <$t>::MIN, <$t>::MAX, <$t>::MIN_POSITIVE, -<$t>::MIN_POSITIVE, 1.0, -1.0]
            }
        }
    )*};
}
float_key!(f32, u32, f64, u64);

macro_rules! half_key {
    ($($t:ty),*) => {$(
        impl RefKey for $t {
            fn ref_eq(&self, other: &Self) -> bool { self == other || (self.is_nan() && other.is_nan()) }
            fn ref_cmp(&self, other: &Self) -> Ordering { self.total_cmp(other) }
            fn numpy_value(self) -> Self {
                if self.is_nan() { <$t>::NAN } else if self.to_f32() == 0.0 { <$t>::ZERO } else { self }
            }
            fn from_small(v: i64) -> Self { <$t>::from_f32(v as f32 / 4.0) }
            fn specials() -> Vec<Self> {
                let payload = <$t>::from_bits(<$t>::NAN.to_bits() | 3);
                vec![<$t>::ZERO, <$t>::NEG_ZERO, <$t>::NAN, -<$t>::NAN, payload, -payload, <$t>::INFINITY,
                     <$t>::NEG_INFINITY, <$t>::MIN, <$t>::MAX, <$t>::MIN_POSITIVE, -<$t>::MIN_POSITIVE,
                     <$t>::ONE, -<$t>::ONE]
            }
        }
    )*};
}
half_key!(host::f16, host::bf16);

/// Each run of adjacent equal keys: its first key and its length, by a loop.
pub fn runs<K: RefKey>(keys: &[K]) -> (Vec<K>, Vec<u32>) {
    let mut out: (Vec<K>, Vec<u32>) = (Vec::new(), Vec::new());
    for i in 0..keys.len() {
        if i > 0 && keys[i].ref_eq(&keys[i - 1]) {
            *out.1.last_mut().unwrap() += 1;
        } else {
            out.0.push(keys[i]);
            out.1.push(1);
        }
    }
    out
}

/// numpy's `unique(return_counts=True)`: numpy's values, sorted, then their runs.
pub fn unique_counts<K: RefKey>(keys: &[K]) -> (Vec<K>, Vec<u32>) {
    let mut v: Vec<K> = keys.iter().map(|&k| k.numpy_value()).collect();
    v.sort_by(|a, b| a.ref_cmp(b));
    runs(&v)
}

/// For each query, the keys of the sorted `keys` before it: `<` (Left) or `<=` (Right)
/// in the sort's order, by a loop over every key (`linear`) or std's
/// `partition_point` for large inputs.
pub fn searchsorted<K: RefKey>(keys: &[K], queries: &[K], side: Side, linear: bool) -> Vec<u64> {
    let before = |k: &K, q: &K| match side {
        Side::Left => k.ref_cmp(q) == Ordering::Less,
        Side::Right => k.ref_cmp(q) != Ordering::Greater,
    };
    queries
        .iter()
        .map(|q| {
            if linear {
                keys.iter().filter(|k| before(k, q)).count() as u64
            } else {
                keys.partition_point(|k| before(k, q)) as u64
            }
        })
        .collect()
}

/// Whether two results are the same, bit for bit.
pub fn same<K: RefKey>(a: &(Vec<K>, Vec<u32>), b: &(Vec<K>, Vec<u32>)) -> bool {
    a.1 == b.1 && a.0.len() == b.0.len() && a.0.iter().zip(&b.0).all(|(x, y)| x.same_bits(y))
}

/// A small deterministic generator.
pub struct Lcg(pub u64);

impl Lcg {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

/// `n` keys: values in `0..range` (shifted to include negatives where the type has
/// them), a special value in about one key of 16 when `specials`.
pub fn keys<K: RefKey>(n: usize, range: u64, specials: bool, seed: u64) -> Vec<K> {
    let mut g = Lcg(seed);
    let sp = K::specials();
    // Types with negative values get them: the range is centred on 0.
    let shift = if K::from_small(-1).ref_cmp(&K::from_small(0)).is_lt() { (range / 2) as i64 } else { 0 };
    (0..n)
        .map(|_| {
            if specials && g.next().is_multiple_of(16) {
                sp[(g.next() % sp.len() as u64) as usize]
            } else {
                K::from_small((g.next() % range.max(1)) as i64 - shift)
            }
        })
        .collect()
}

/// `keys` sorted in the sort's order.
pub fn sorted<K: RefKey>(mut keys: Vec<K>) -> Vec<K> {
    keys.sort_by(|a, b| a.ref_cmp(b));
    keys
}
