//! Binary searches over sorted sequences, written against an accessor `at(j)` so the
//! same code reads global memory, shared memory or a host slice.
//!
//! Indices are `u64`: arrays may pass 2^31 elements.

/// Number of leading elements of the sorted sequence `at(0..len)` that are `< key`
/// (the report's `bSearchFirst`: the position of the first element equal to `key`).
#[inline(always)]
pub fn count_less<B: Ord + Copy>(len: u64, key: B, at: impl Fn(u64) -> B) -> u64 {
    let (mut lo, mut hi) = (0u64, len);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if at(mid) < key {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Number of leading elements of the sorted sequence `at(0..len)` that are `<= key`
/// (the report's `bSearchLast`: one past the last element equal to `key`).
#[inline(always)]
pub fn count_less_eq<B: Ord + Copy>(len: u64, key: B, at: impl Fn(u64) -> B) -> u64 {
    let (mut lo, mut hi) = (0u64, len);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if at(mid) <= key {
            lo = mid + 1;
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
            }
        }
    }
}
