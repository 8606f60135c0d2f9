//! Shared by the NaN-order and row test files: floats full of the values whose order
//! is easy to get wrong, and the NaN-last order as numpy and torch define it, written
//! from `is_nan`, `==` and `total_cmp` alone (not from the library's order bits).
#![allow(dead_code)]
use std::cmp::Ordering;

/// NaNs of both signs and several payloads (quiet, signalling, all-ones), the
/// infinities, both zeros.
pub const SPECIAL_F32: [u32; 12] = [
    0x7fc0_0000,
    0xffc0_0000,
    0x7f80_0001,
    0xff80_0001,
    0x7fff_ffff,
    0xffff_ffff,
    0x7fc0_1234,
    0x7f80_0000,
    0xff80_0000,
    0x0000_0000,
    0x8000_0000,
    0x0000_0001,
];

/// `n` floats from a seed: about a third special values, the rest from a few
/// distinct values (so that ties are common) and random ones.
pub fn nan_zoo_f32(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            match s % 6 {
                0 | 1 => f32::from_bits(SPECIAL_F32[(s >> 8) as usize % SPECIAL_F32.len()]),
                2 | 3 => ((s >> 16) % 5) as f32 - 2.0,
                _ => f32::from_bits((s >> 20) as u32),
            }
        })
        .collect()
}

/// [`nan_zoo_f32`] widened to doubles (NaN payloads move to the top of the mantissa;
/// the signs stay).
pub fn nan_zoo_f64(n: usize, seed: u64) -> Vec<f64> {
    nan_zoo_f32(n, seed).into_iter().map(|x| x as f64).collect()
}

/// A float type for the model.
pub trait Float: Copy + PartialEq + From<i8> {
    fn nan(self) -> bool;
    fn total(self, other: Self) -> Ordering;
}
impl Float for f32 {
    fn nan(self) -> bool {
        self.is_nan()
    }
    fn total(self, other: Self) -> Ordering {
        self.total_cmp(&other)
    }
}
impl Float for f64 {
    fn nan(self) -> bool {
        self.is_nan()
    }
    fn total(self, other: Self) -> Ordering {
        self.total_cmp(&other)
    }
}

/// numpy's and torch's order: NaNs equal to each other and above everything else,
/// `-0.0` equal to `+0.0`, the rest in total order; reversed for descending.
pub fn nan_last_cmp<F: Float>(a: F, b: F, descending: bool) -> Ordering {
    let zero = F::from(0);
    let o = match (a.nan(), b.nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) if a == zero && b == zero => Ordering::Equal, // -0.0 == +0.0
        (false, false) => a.total(b),
    };
    if descending { o.reverse() } else { o }
}

/// The stable NaN-last permutation of `v` (std's stable sort with [`nan_last_cmp`]).
pub fn nan_last_argsort<F: Float>(v: &[F], descending: bool) -> Vec<u32> {
    let mut p: Vec<u32> = (0..v.len() as u32).collect();
    p.sort_by(|&i, &j| nan_last_cmp(v[i as usize], v[j as usize], descending));
    p
}

/// Raw bits of floats, to compare results bit for bit (NaN payloads included).
pub fn bits_of<T: bytemuck::Pod>(v: &[T]) -> Vec<u8> {
    bytemuck::cast_slice(v).to_vec()
}
