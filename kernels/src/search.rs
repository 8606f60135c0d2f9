//! Binary searches over sorted sequences, written against an accessor `at(j)` so the
//! same code reads global memory, shared memory or a host slice.
//!
//! Indices are [`Index`]: `u64` for global arrays (they may pass 2^31 elements), `u32`
//! where the searched range is known to be small, such as a tile in shared memory
//! (32-bit index arithmetic is half the GPU instructions of 64-bit).
use core::ops::{Add, BitAnd, Shl, Shr, Sub};

/// An unsigned index type for the searches and the merge index math built on them.
pub trait Index:
    Copy
    + Ord
    + Add<Output = Self>
    + Sub<Output = Self>
    + Shl<u32, Output = Self>
    + Shr<u32, Output = Self>
    + BitAnd<Output = Self>
{
    const ZERO: Self;
    const ONE: Self;
    fn from_u32(v: u32) -> Self;
    /// The low 32 bits (for values known to fit, such as a chunk length).
    fn low_u32(self) -> u32;
}

impl Index for u32 {
    const ZERO: u32 = 0;
    const ONE: u32 = 1;
    #[inline(always)]
    fn from_u32(v: u32) -> u32 {
        v
    }
    #[inline(always)]
    fn low_u32(self) -> u32 {
        self
    }
}

impl Index for u64 {
    const ZERO: u64 = 0;
    const ONE: u64 = 1;
    #[inline(always)]
    fn from_u32(v: u32) -> u64 {
        v as u64
    }
    #[inline(always)]
    fn low_u32(self) -> u32 {
        self as u32
    }
}

/// Number of leading elements of the sorted sequence `at(0..len)` that are `< key`
/// (the report's `bSearchFirst`: the position of the first element equal to `key`).
#[inline(always)]
pub fn count_less<I: Index, B: Ord + Copy>(len: I, key: B, at: impl Fn(I) -> B) -> I {
    let (mut lo, mut hi) = (I::ZERO, len);
    while lo < hi {
        let mid = lo + ((hi - lo) >> 1);
        if at(mid) < key {
            lo = mid + I::ONE;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Number of leading elements of the sorted sequence `at(0..len)` that are `<= key`
/// (the report's `bSearchLast`: one past the last element equal to `key`).
#[inline(always)]
pub fn count_less_eq<I: Index, B: Ord + Copy>(len: I, key: B, at: impl Fn(I) -> B) -> I {
    let (mut lo, mut hi) = (I::ZERO, len);
    while lo < hi {
        let mid = lo + ((hi - lo) >> 1);
        if at(mid) <= key {
            lo = mid + I::ONE;
        } else {
            hi = mid;
        }
    }
    lo
}

/// [`count_less_eq`] when `or_equal`, else [`count_less`], in one loop: threads of a
/// warp that need different ones run the same instructions instead of diverging into
/// both loops in turn (the price is one more comparison per step).
#[inline(always)]
pub fn count_before<I: Index, B: Ord + Copy>(len: I, key: B, or_equal: bool, at: impl Fn(I) -> B) -> I {
    let (mut lo, mut hi) = (I::ZERO, len);
    while lo < hi {
        let mid = lo + ((hi - lo) >> 1);
        let v = at(mid);
        if v < key || (or_equal && v == key) {
            lo = mid + I::ONE;
        } else {
            hi = mid;
        }
    }
    lo
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    #[test]
    fn counts_match_linear_scan() {
        let mut state = 12345u64;
        for len in 0..40u64 {
            let mut v: Vec<u32> = (0..len)
                .map(|_| {
                    state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
                    ((state >> 33) % 7) as u32
                })
                .collect();
            v.sort();
            for key in 0..9u32 {
                let at = |j: u64| v[j as usize];
                let less = v.iter().filter(|&&x| x < key).count() as u64;
                let less_eq = v.iter().filter(|&&x| x <= key).count() as u64;
                assert_eq!(count_less(len, key, at), less, "{v:?} {key}");
                assert_eq!(count_less_eq(len, key, at), less_eq, "{v:?} {key}");
                assert_eq!(count_before(len, key, false, at), less, "{v:?} {key}");
                assert_eq!(count_before(len as u32, key, true, |j| v[j as usize]) as u64, less_eq, "{v:?} {key}");
            }
        }
    }
}
