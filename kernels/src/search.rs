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

/// Merge-path co-rank: of the first `k` outputs of the stable merge of the sorted
/// sequences `a(0..a_len)` and `b(0..b_len)` (ties taken from `a` first), how many come
/// from `a`. The other `k - i` come from `b`, so a thread that must write outputs
/// `k..` starts merging at `a[i]`, `b[k - i]` without looking at anything before.
///
/// Requires `k <= a_len + b_len`.
#[inline(always)]
pub fn co_rank<B: Ord + Copy>(k: u64, a_len: u64, b_len: u64, a: impl Fn(u64) -> B, b: impl Fn(u64) -> B) -> u64 {
    co_rank_within(k, a_len, b_len, 0..=a_len, a, b)
}

/// [`co_rank`] when the answer is already known to lie in `bracket`, e.g. between the
/// co-ranks of two outputs around `k`: the search then touches only that window of
/// `a` and `b`.
#[inline(always)]
pub fn co_rank_within<B: Ord + Copy>(
    k: u64,
    a_len: u64,
    b_len: u64,
    bracket: core::ops::RangeInclusive<u64>,
    a: impl Fn(u64) -> B,
    b: impl Fn(u64) -> B,
) -> u64 {
    // `i` lies in [k - b_len, min(k, a_len)]. `a[mid]` is among the first `k` outputs
    // exactly when it precedes `b[k - 1 - mid]` (the `b` element that would otherwise
    // complete those `k`), i.e. when `a[mid] <= b[k - 1 - mid]`: monotone in `mid`.
    // Both indices stay in range: `lo <= mid < hi <= k` and `mid >= k - b_len`.
    let mut lo = k.saturating_sub(b_len);
    let mut hi = if k < a_len { k } else { a_len };
    if *bracket.start() > lo {
        lo = *bracket.start();
    }
    if *bracket.end() < hi {
        hi = *bracket.end();
    }
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if a(mid) <= b(k - 1 - mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

#[cfg(test)]
mod co_rank_tests {
    extern crate std;
    use super::{co_rank, co_rank_within};
    use std::vec::Vec;

    /// Stable merge of tagged keys, `a` first on ties.
    fn merged(a: &[(u32, u32)], b: &[(u32, u32)]) -> Vec<(u32, u32)> {
        let mut all: Vec<_> = a.iter().chain(b).copied().collect();
        all.sort_by_key(|e| e.0);
        all
    }

    #[test]
    fn co_rank_splits_the_stable_merge() {
        let mut state = 99u64;
        let mut rnd = |m: u64| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((state >> 33) % m) as u32
        };
        for a_len in 0..24u32 {
            for b_len in 0..24u32 {
                let range = 1 + rnd(6) as u64;
                let mut a: Vec<(u32, u32)> = (0..a_len).map(|i| (rnd(range), i)).collect();
                let mut b: Vec<(u32, u32)> = (0..b_len).map(|i| (rnd(range), 1000 + i)).collect();
                a.sort_by_key(|e| e.0);
                b.sort_by_key(|e| e.0);
                let m = merged(&a, &b);
                for k in 0..=(a_len + b_len) as u64 {
                    let (at_a, at_b) = (|x: u64| a[x as usize].0, |x: u64| b[x as usize].0);
                    let i = co_rank(k, a_len as u64, b_len as u64, at_a, at_b);
                    let from_a = m[..k as usize].iter().filter(|e| e.1 < 1000).count() as u64;
                    assert_eq!(i, from_a, "k={k} a={a:?} b={b:?}");
                    // Any bracket holding the answer gives the same answer.
                    let lo = i - (rnd(3) as u64).min(i);
                    let hi = i + rnd(3) as u64;
                    assert_eq!(co_rank_within(k, a_len as u64, b_len as u64, lo..=hi, at_a, at_b), i);
                }
            }
        }
    }
}
