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

/// Merge-path co-rank: of the first `k` outputs of the stable merge of the sorted
/// sequences `a(0..a_len)` and `b(0..b_len)` (ties taken from `a` first), how many come
/// from `a`. The other `k - i` come from `b`, so a thread that must write outputs
/// `k..` starts merging at `a[i]`, `b[k - i]` without looking at anything before.
///
/// Requires `k <= a_len + b_len`. Generic over the index width: 32-bit inside a
/// shared-memory tile (half the instructions of 64-bit index math), 64-bit in global
/// memory.
#[inline(always)]
pub fn co_rank<I: Index, B: Ord + Copy>(k: I, a_len: I, b_len: I, a: impl Fn(I) -> B, b: impl Fn(I) -> B) -> I {
    co_rank_within(k, a_len, b_len, I::ZERO..=a_len, a, b)
}

/// [`co_rank`] when the answer is already known to lie in `bracket`, e.g. between the
/// co-ranks of two outputs around `k`: the search then touches only that window of
/// `a` and `b`.
#[inline(always)]
pub fn co_rank_within<I: Index, B: Ord + Copy>(
    k: I,
    a_len: I,
    b_len: I,
    bracket: core::ops::RangeInclusive<I>,
    a: impl Fn(I) -> B,
    b: impl Fn(I) -> B,
) -> I {
    // `i` lies in [k - b_len, min(k, a_len)]. `a[mid]` is among the first `k` outputs
    // exactly when it precedes `b[k - 1 - mid]` (the `b` element that would otherwise
    // complete those `k`), i.e. when `a[mid] <= b[k - 1 - mid]`: monotone in `mid`.
    // Both indices stay in range: `lo <= mid < hi <= k` and `mid >= k - b_len`.
    let (mut lo, mut hi) = co_rank_range(k, a_len, b_len);
    if *bracket.start() > lo {
        lo = *bracket.start();
    }
    if *bracket.end() < hi {
        hi = *bracket.end();
    }
    while lo < hi {
        let mid = lo + ((hi - lo) >> 1);
        if a(mid) <= b(k - I::ONE - mid) {
            lo = mid + I::ONE;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The range `[lo, hi]` in which the co-rank of output `k` lies (before any probe):
/// `max(0, k - b_len) ..= min(k, a_len)`. `hi` is a valid answer; probes are `< hi`.
#[inline(always)]
pub fn co_rank_range<I: Index>(k: I, a_len: I, b_len: I) -> (I, I) {
    (if k > b_len { k - b_len } else { I::ZERO }, if k < a_len { k } else { a_len })
}

/// Probe `lane` (of `ways` probes at once, e.g. the 32 lanes of a warp) of one round of
/// the many-way co-rank search over `[lo, hi)` (`lo < hi`): evenly spaced, in
/// `lo..hi`, non-decreasing in `lane`. Every lane tests the same predicate as the binary
/// search in [`co_rank_within`] at its probe, `a[p] <= b[k - 1 - p]`, true exactly for the
/// probes below the answer.
#[inline(always)]
pub fn co_rank_probe(lo: u64, hi: u64, lane: u32, ways: u32) -> u64 {
    lo + (hi - lo) * (lane as u64 + 1) / (ways as u64 + 1)
}

/// Narrows `[lo, hi]` after a round of [`co_rank_probe`]s of which the first `trues`
/// (lanes `0..trues`) found their predicate true: the answer lies after the last true
/// probe and at or before the first false one. Each round divides the range by about
/// `ways + 1`, so a warp finds a co-rank among 2^23 candidates in 5 rounds where the
/// binary search takes 23 dependent steps (each a global-memory round trip).
#[inline(always)]
pub fn co_rank_narrow(lo: u64, hi: u64, trues: u32, ways: u32) -> (u64, u64) {
    narrow_after(lo, hi, trues, ways, |lane| co_rank_probe(lo, hi, lane, ways))
}

/// The range left after a round of `ways` probes, `probe(lane)` non-decreasing in
/// `lane`, of which the first `trues` found their (monotone) predicate true: after the
/// last true probe and at or before the first false one (`lo` / `hi` where there is
/// none).
#[inline(always)]
pub fn narrow_after(lo: u64, hi: u64, trues: u32, ways: u32, probe: impl Fn(u32) -> u64) -> (u64, u64) {
    let new_lo = if trues > 0 { probe(trues - 1) + 1 } else { lo };
    let new_hi = if trues < ways { probe(trues) } else { hi };
    (new_lo, new_hi)
}

/// Probe `lane` (of `ways >= 4`) of a *guided* round over `[lo, hi)` with a guess
/// `[g0, g1]` of where the answer lies (`lo <= g0 <= g1 < hi`): lane 0 probes `lo`, the
/// last lane `hi - 1`, the others spread evenly over the guess, ends included. The
/// probes are non-decreasing in `lane`, so a monotone predicate's trues are still a
/// prefix of the lanes, and [`guided_narrow`] leaves either the answer (`lo` or `hi`,
/// when it lies at an end: sorted or reversed runs), a `1 / (ways - 3)` share of the
/// guess, or the range between the guess and an end (a miss).
#[inline(always)]
pub fn guided_probe(lo: u64, hi: u64, (g0, g1): (u64, u64), lane: u32, ways: u32) -> u64 {
    if lane == 0 {
        lo
    } else if lane + 1 == ways {
        hi - 1
    } else {
        g0 + (g1 - g0) * (lane as u64 - 1) / (ways as u64 - 3)
    }
}

/// Narrows `[lo, hi]` after a round of [`guided_probe`]s of which the first `trues`
/// found their predicate true (as [`co_rank_narrow`] does for evenly spaced probes).
#[inline(always)]
pub fn guided_narrow(lo: u64, hi: u64, guess: (u64, u64), trues: u32, ways: u32) -> (u64, u64) {
    narrow_after(lo, hi, trues, ways, |lane| guided_probe(lo, hi, guess, lane, ways))
}

/// The many-way co-rank search over `[lo, hi]`: `trues(lo, hi)` runs one round, each
/// of `ways` probers testing its [`co_rank_probe`] (on the GPU, the lanes of a warp and
/// a ballot), and returns how many found their predicate true.
#[inline(always)]
pub fn many_way_search(mut lo: u64, mut hi: u64, ways: u32, mut trues: impl FnMut(u64, u64) -> u32) -> u64 {
    while lo < hi {
        let t = trues(lo, hi);
        (lo, hi) = co_rank_narrow(lo, hi, t, ways);
    }
    lo
}

#[cfg(test)]
mod co_rank_tests {
    extern crate std;
    use super::{
        co_rank, co_rank_narrow, co_rank_probe, co_rank_range, co_rank_within, guided_narrow, guided_probe,
        many_way_search,
    };
    use std::vec::Vec;

    /// Stable merge of tagged keys, `a` first on ties.
    fn merged(a: &[(u32, u32)], b: &[(u32, u32)]) -> Vec<(u32, u32)> {
        let mut all: Vec<_> = a.iter().chain(b).copied().collect();
        all.sort_by_key(|e| e.0);
        all
    }

    /// The warp search of the partition kernels, its lanes run one after the other.
    fn many_way(k: u64, a_len: u64, b_len: u64, ways: u32, a: impl Fn(u64) -> u32, b: impl Fn(u64) -> u32) -> u64 {
        let (lo, hi) = co_rank_range(k, a_len, b_len);
        let mut rounds = 0;
        many_way_search(lo, hi, ways, |lo, hi| {
            let preds: Vec<bool> = (0..ways)
                .map(|l| {
                    let p = co_rank_probe(lo, hi, l, ways);
                    assert!(lo <= p && p < hi);
                    a(p) <= b(k - 1 - p)
                })
                .collect();
            let trues = preds.iter().filter(|&&t| t).count() as u32;
            // The predicate is monotone, so the trues are a prefix of the lanes.
            assert!(preds[..trues as usize].iter().all(|&t| t));
            rounds += 1;
            assert!(rounds <= 64, "no progress");
            trues
        })
    }

    #[test]
    fn many_way_rounds_are_few() {
        // 2^23 candidates, answer anywhere: 32 ways take at most 5 rounds.
        for answer in [0u64, 1, 4_000_000, (1 << 23) - 1, 1 << 23] {
            let (mut lo, mut hi, mut rounds) = (0u64, 1u64 << 23, 0);
            while lo < hi {
                let trues = (0..32).filter(|&l| co_rank_probe(lo, hi, l, 32) < answer).count() as u32;
                (lo, hi) = co_rank_narrow(lo, hi, trues, 32);
                rounds += 1;
            }
            assert_eq!(lo, answer);
            assert!(rounds <= 5, "{rounds} rounds for {answer}");
        }
    }

    /// A guided round then the plain search finds the answer of a monotone predicate
    /// wherever it lies, inside the guess or not, and in one round when it lies at an end
    /// of the range or the guess is right.
    #[test]
    fn guided_round_finds_every_answer() {
        let ways = 32;
        for (lo, hi) in [(0u64, 64u64), (5, 1000), (100, 100_000)] {
            for guess in [(lo, hi - 1), (lo + (hi - lo) / 3, lo + (hi - lo) / 2), (hi - 1, hi - 1), (lo, lo)] {
                let mut answers: Vec<u64> = [lo, lo + 1, guess.0, guess.0 + 1, guess.1, guess.1 + 1, hi - 1, hi].into();
                answers.extend((lo..=hi).step_by(((hi - lo) / 37).max(1) as usize));
                for answer in answers.into_iter().filter(|a| (lo..=hi).contains(a)) {
                    let probes: Vec<u64> = (0..ways).map(|l| guided_probe(lo, hi, guess, l, ways)).collect();
                    assert!(probes.windows(2).all(|w| w[0] <= w[1]) && lo <= probes[0] && probes[31] < hi);
                    let trues = probes.iter().filter(|&&p| p < answer).count() as u32;
                    let (l, h) = guided_narrow(lo, hi, guess, trues, ways);
                    assert!(l <= answer && answer <= h, "{answer} not in [{l}, {h}]");
                    if answer == lo || answer == hi {
                        assert_eq!(l, h, "an end in one round");
                    }
                    if guess.0 < answer && answer <= guess.1 {
                        assert!(h - l <= (guess.1 - guess.0).div_ceil(ways as u64 - 3), "a share of the guess");
                    }
                    let found = many_way_search(l, h, ways, |a, b| {
                        (0..ways).filter(|&x| co_rank_probe(a, b, x, ways) < answer).count() as u32
                    });
                    assert_eq!(found, answer);
                }
            }
        }
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
                    for ways in [1, 2, 3, 32] {
                        assert_eq!(many_way(k, a_len as u64, b_len as u64, ways, at_a, at_b), i, "ways {ways}");
                    }
                }
            }
        }
    }
}
