//! Sorting networks for the elements a thread holds in registers: Batcher's odd-even
//! merge sort for any `n` up to [`MAX_INPUTS`], as a list of comparators computed at
//! compile time. A comparator `(a, b)` (`a < b`) puts the smaller value at `a`.
//!
//! A network is not stable: equal values may swap. Use it only where equal values are
//! indistinguishable (primitive keys sorted alone); stable register sorts use odd-even
//! transposition ([`transposition_sort`]: adjacent swaps on strict `>`).
//!
//! Sizes: 98 comparators for 19 inputs, 246 for 33 (odd-even transposition takes 171
//! and 528).
//!
//! Also the comparators of the bitonic network over a tile in shared memory or a whole
//! array ([`bitonic_comparator`]), which the bitonic sort and quicksort's finishing
//! sort both run.
use super::unroll;
use crate::search::Index;

/// Largest input count a network is built for.
pub const MAX_INPUTS: usize = 64;

/// Comparators of the network for [`MAX_INPUTS`] inputs (the largest).
pub const MAX_COMPARATORS: usize = 543;

/// A sorting network: its first `len` comparators.
#[derive(Clone, Copy, Debug)]
pub struct Network {
    pub pairs: [(u8, u8); MAX_COMPARATORS],
    pub len: usize,
}

/// Batcher's odd-even merge sort of `n` inputs (`n <= MAX_INPUTS`), for any `n` (not
/// only powers of two): for each merge width `p` and each distance `k`, the
/// comparators `(i + j, i + j + k)` whose two ends lie in one block of `2p`.
pub const fn batcher(n: usize) -> Network {
    assert!(n <= MAX_INPUTS, "network too large");
    let mut net = Network { pairs: [(0, 0); MAX_COMPARATORS], len: 0 };
    let mut p = 1;
    while p < n {
        let mut k = p;
        while k >= 1 {
            let mut j = k % p;
            while j + k < n {
                let mut i = 0;
                while i < k && i < n - j - k {
                    if (i + j) / (2 * p) == (i + j + k) / (2 * p) {
                        net.pairs[net.len] = ((i + j) as u8, (i + j + k) as u8);
                        net.len += 1;
                    }
                    i += 1;
                }
                j += 2 * k;
            }
            k /= 2;
        }
        p *= 2;
    }
    net
}

/// Sorts `v` ascending by `key(v[i])` with [`batcher`]`(N)`: the comparators of the
/// table, unrolled and inlined by force (a closure left as a call keeps `v` in local
/// memory), so that every table entry is read at a constant position and folds into
/// the code and `v` stays in registers.
#[inline(always)]
pub fn sort_by_key<W: Copy, K: Ord, const N: usize>(v: &mut [W; N], key: impl Fn(W) -> K) {
    let net: &'static Network = &Batcher::<N>::NET;
    // 17 x 32 steps cover MAX_COMPARATORS; steps past `net.len` fold away.
    const { assert!(MAX_COMPARATORS <= 17 * 32) };
    unroll::<17>(
        #[inline(always)]
        |hi| {
            unroll::<32>(
                #[inline(always)]
                |lo| {
                    let c = hi * 32 + lo;
                    if c < net.len {
                        let (a, b) = (net.pairs[c].0 as usize, net.pairs[c].1 as usize);
                        let (x, y) = (v[a], v[b]);
                        let swap = key(y) < key(x);
                        v[a] = if swap { y } else { x };
                        v[b] = if swap { x } else { y };
                    }
                },
            )
        },
    );
}

/// Sorts `v[0..valid]` stably by `key` with odd-even transposition (`N` rounds of
/// adjacent compare-swaps inside `v[0..valid]`, swapping only on strict `>`; `valid`
/// rounds already sort it); `v[valid..]` is left alone. `swapped(k)` is called after
/// each swap of `k` and `k + 1`, so that values can follow their keys. The `N * N`
/// steps are unrolled: for the registers of one thread (records, and keys that carry
/// values; primitive keys alone take [`sort_by_key`]).
#[inline(always)]
pub fn transposition_sort<W: Copy, K: Ord, const N: usize>(
    v: &mut [W; N],
    valid: usize,
    key: impl Fn(W) -> K,
    mut swapped: impl FnMut(usize),
) {
    unroll::<N>(|round| {
        unroll::<N>(|k| {
            if k % 2 == round % 2 && k + 1 < N && k + 1 < valid && key(v[k + 1]) < key(v[k]) {
                v.swap(k, k + 1);
                swapped(k);
            }
        });
    });
}

/// The network of [`batcher`]`(N)` as an associated constant (a generic function
/// cannot name a constant of its own that depends on `N`).
struct Batcher<const N: usize>;

impl<const N: usize> Batcher<N> {
    const NET: Network = batcher(N);
}

/// Comparator `p` of the bitonic stage with stride `j` in merge `k` (both powers of
/// two, `j <= k / 2`): `(lo, hi)` with `lo < hi`, the smaller key going to `lo`.
/// `lo` is `p` with a zero inserted at bit `log2(j)`, so the comparators of a stage
/// cover every index exactly once. The network is in its all-ascending form: the first
/// stage of each merge compares mirrored slots, so every comparator puts the smaller
/// key at the lower slot, and a sort of `len` elements in a power-of-two network can
/// skip the comparators whose upper slot is `>= len` (missing slots behave as
/// +infinity, which never moves down). Generic over the index width: `u64` for the
/// global sort, `u32` inside a block (`quick`'s finishing sort).
#[inline(always)]
pub fn bitonic_comparator<I>(p: I, k: I, j: I) -> (I, I)
where
    I: Index + core::ops::BitOr<Output = I> + core::ops::BitXor<Output = I> + core::ops::Not<Output = I>,
{
    let lo = ((p & !(j - I::ONE)) << 1) | (p & (j - I::ONE));
    let hi = if j << 1 == k { lo ^ (k - I::ONE) } else { lo | j };
    (lo, hi)
}

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;
    use std::vec::Vec;

    fn apply(net: &Network, v: &mut [u32]) {
        for &(a, b) in &net.pairs[..net.len] {
            let (a, b) = (a as usize, b as usize);
            assert!(a < b && b < v.len());
            if v[b] < v[a] {
                v.swap(a, b);
            }
        }
    }

    #[test]
    fn sizes_match_batcher() {
        assert_eq!(batcher(19).len, 98);
        assert_eq!(batcher(33).len, 246);
        assert_eq!(batcher(MAX_INPUTS).len, MAX_COMPARATORS);
        assert_eq!(batcher(1).len, 0);
    }

    /// The 0-1 principle: a comparator network that sorts every 0-1 input sorts every
    /// input. Exhaustive up to 20 inputs.
    #[test]
    fn sorts_every_zero_one_input_up_to_20() {
        for n in 1..=20 {
            let net = batcher(n);
            for bits in 0u32..1 << n {
                let mut v: Vec<u32> = (0..n).map(|i| (bits >> i) & 1).collect();
                apply(&net, &mut v);
                assert!(v.windows(2).all(|w| w[0] <= w[1]), "n {n} input {bits:b}");
            }
        }
    }

    #[test]
    fn sorts_random_inputs_up_to_64() {
        let mut state = 3u64;
        for n in 1..=MAX_INPUTS {
            let net = batcher(n);
            for _ in 0..500 {
                let mut v: Vec<u32> = (0..n)
                    .map(|_| {
                        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                        ((state >> 33) % 7) as u32
                    })
                    .collect();
                let mut want = v.clone();
                want.sort();
                apply(&net, &mut v);
                assert_eq!(v, want, "n {n}");
            }
        }
    }

    /// The unrolled sort runs exactly the table's comparators: on random inputs it
    /// gives what applying the table gives, tracking where every element goes.
    fn unrolled_is_the_table<const N: usize>() {
        let mut state = N as u64;
        for _ in 0..300 {
            let mut v = [(0u32, 0u32); N];
            for (i, e) in v.iter_mut().enumerate() {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                *e = (((state >> 33) % 5) as u32, i as u32);
            }
            let mut by_table = v;
            for &(a, b) in &batcher(N).pairs[..batcher(N).len] {
                let (a, b) = (a as usize, b as usize);
                if by_table[b].0 < by_table[a].0 {
                    by_table.swap(a, b);
                }
            }
            sort_by_key(&mut v, |e| e.0);
            assert_eq!(v, by_table, "n {N}");
            assert!(v.windows(2).all(|w| w[0].0 <= w[1].0));
        }
    }

    /// Every stage of a power-of-two bitonic network pairs each slot exactly once,
    /// inside its merge block.
    #[test]
    fn bitonic_stages_are_disjoint_comparators() {
        for p in [2u32, 4, 8, 64, 256] {
            let mut k = 2;
            while k <= p {
                let mut j = k / 2;
                while j >= 1 {
                    let mut seen = std::vec![false; p as usize];
                    for c in 0..p / 2 {
                        let (lo, hi) = bitonic_comparator(c, k, j);
                        assert!(lo < hi && hi < p && lo / k == hi / k, "p {p} k {k} j {j} c {c}");
                        assert!(!seen[lo as usize] && !seen[hi as usize]);
                        seen[lo as usize] = true;
                        seen[hi as usize] = true;
                    }
                    j /= 2;
                }
                k *= 2;
            }
        }
    }

    /// The transposition sort is stable, leaves `v[valid..]` alone, and reports every
    /// swap (values that follow the reported swaps end with their keys).
    #[test]
    fn transposition_sort_is_stable_and_reports_its_swaps() {
        let mut state = 7u64;
        for valid in 0..=13 {
            for _ in 0..200 {
                let mut v = [(0u32, 0u32); 13];
                for (i, e) in v.iter_mut().enumerate() {
                    state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    *e = (((state >> 33) % 4) as u32, i as u32);
                }
                let mut want = v;
                want[..valid].sort_by_key(|e| e.0);
                let mut follow: [u32; 13] = core::array::from_fn(|i| v[i].1);
                transposition_sort(&mut v, valid, |e| e.0, |k| follow.swap(k, k + 1));
                assert_eq!(v, want, "valid {valid}");
                assert!(v.iter().zip(follow).all(|(e, f)| e.1 == f));
            }
        }
    }

    #[test]
    fn unrolled_sort_is_the_network() {
        unrolled_is_the_table::<1>();
        unrolled_is_the_table::<2>();
        unrolled_is_the_table::<3>();
        unrolled_is_the_table::<7>();
        unrolled_is_the_table::<13>();
        unrolled_is_the_table::<17>();
        unrolled_is_the_table::<19>();
        unrolled_is_the_table::<33>();
        unrolled_is_the_table::<40>();
        unrolled_is_the_table::<64>();
    }
}
