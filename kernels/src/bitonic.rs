//! Bitonic sort (the blog's announced next step) for any `n`, without padding.
//!
//! Formulation: the array is virtually extended to `N = n.next_power_of_two()` with
//! elements greater than every key. Merge `k` (k = 2, 4, ..., N) turns sorted runs of
//! `k / 2` into sorted runs of `k`; its first stage compares `i` with its mirror
//! `i ^ (k - 1)` in the same `k`-block, and the following stages compare `i` with
//! `i + j` for `j = k / 4, ..., 1`. Every comparator puts the smaller key at the lower
//! index (no alternating directions), so a comparator whose upper index is `>= n`
//! would leave its virtual +infinity where it is: it is simply skipped, and no element
//! ever moves past `n`. Descending order compares `!bits`, so the virtual elements stay
//! "largest" in either order. Not stable.
//!
//! Stages with stride `j` below the tile run in shared memory, a whole range of them
//! per launch ([`Step::Shared`]); larger strides are one global pass each
//! ([`Step::Global`]).
use crate::search::Index;

/// Comparators per thread in a shared-memory tile (tile = 2 x block x this).
pub const TILE_PAIRS: u32 = 4;

/// `log2` of the tile length for blocks of `block` threads (a power of two).
#[inline(always)]
pub fn log_tile(block: u32) -> u32 {
    (2 * block * TILE_PAIRS).trailing_zeros()
}

/// Comparator `p` of the stage with stride `j` in merge `k` (both powers of two,
/// `j <= k / 2`): `(lo, hi)` with `lo < hi`, the smaller key going to `lo`.
/// `lo` is `p` with a zero inserted at bit `log2(j)`, so the comparators of a stage
/// cover every index exactly once. The network is in its all-ascending form: the first
/// stage of each merge compares mirrored slots, so every comparator puts the smaller
/// key at the lower slot, and a sort of `len` elements in a power-of-two network can
/// skip the comparators whose upper slot is `>= len` (missing slots behave as
/// +infinity, which never moves down). Generic over the index width: `u64` for the
/// global sort, `u32` inside a block (`quick`'s finishing sort).
#[inline(always)]
pub fn comparator<I>(p: I, k: I, j: I) -> (I, I)
where
    I: Index + core::ops::BitOr<Output = I> + core::ops::BitXor<Output = I> + core::ops::Not<Output = I>,
{
    let lo = ((p & !(j - I::ONE)) << 1) | (p & (j - I::ONE));
    let hi = if j << 1 == k { lo ^ (k - I::ONE) } else { lo | j };
    (lo, hi)
}

/// Number of comparators of a stride-`j` stage whose lower index is `< n` (the others
/// only touch virtual elements): indices below `n` with bit `log2(j)` clear.
#[inline(always)]
pub fn comparator_count(n: u64, j: u64) -> u64 {
    let rest = n & (2 * j - 1);
    (n / (2 * j)) * j + if rest < j { rest } else { j }
}

/// Whether comparator `(lo, hi)` of an array of `n` real elements must swap them
/// (`key(x)` reads the order bits at `x`). Equal keys stay put; a comparator
/// reaching a virtual element never swaps.
#[inline(always)]
pub fn must_swap<B: Ord>(lo: u64, hi: u64, n: u64, key: impl Fn(u64) -> B) -> bool {
    hi < n && key(hi) < key(lo)
}

/// One launch of the sort.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The stages with stride `j < tile` of merges `k_first ..= k_last`, in shared
    /// memory: first every merge up to the tile, later the tail of one larger merge.
    Shared { k_first: u64, k_last: u64 },
    /// The stage of merge `k` with stride `j >= tile`, in global memory.
    Global { k: u64, j: u64 },
}

/// The launches that sort `n` elements with tiles of `1 << log_tile`, in order.
#[derive(Clone, Debug)]
pub struct Plan {
    big_n: u64,
    tile: u64,
    next: Option<Step>,
}

impl Plan {
    pub fn new(n: u64, log_tile: u32) -> Plan {
        let big_n = n.next_power_of_two();
        let tile = 1u64 << log_tile;
        let next = if n <= 1 {
            None
        } else {
            Some(Step::Shared { k_first: 2, k_last: if big_n < tile { big_n } else { tile } })
        };
        Plan { big_n, tile, next }
    }

    /// First step of merge `k`, if that merge exists.
    fn merge_start(&self, k: u64) -> Option<Step> {
        (k <= self.big_n).then_some(Step::Global { k, j: k / 2 })
    }
}

impl Iterator for Plan {
    type Item = Step;

    fn next(&mut self) -> Option<Step> {
        let step = self.next?;
        self.next = match step {
            Step::Shared { k_last, .. } => self.merge_start(2 * k_last),
            Step::Global { k, j } => Some(if j / 2 >= self.tile {
                Step::Global { k, j: j / 2 }
            } else {
                Step::Shared { k_first: k, k_last: k }
            }),
        };
        Some(step)
    }
}

/// Shared-memory stages: strides `j` of merges `k` in `k_first ..= k_last`, only those
/// with `j < tile`. `stage(k, j)` runs one stage (then the block synchronises).
#[inline(always)]
pub fn tile_stages(k_first: u64, k_last: u64, tile: u64, mut stage: impl FnMut(u64, u64)) {
    let mut k = k_first;
    while k <= k_last {
        let mut j = if k / 2 < tile { k / 2 } else { tile / 2 };
        while j >= 1 {
            stage(k, j);
            j /= 2;
        }
        k *= 2;
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    /// Runs the plan as the GPU does: tiles of `1 << log_tile` with `block` threads of
    /// `TILE_PAIRS` comparators each, and global passes with one thread per comparator.
    fn simulate(v: &mut [u32], log_tile: u32, block: u32) {
        let n = v.len() as u64;
        let tile = 1u64 << log_tile;
        for step in Plan::new(n, log_tile) {
            match step {
                Step::Shared { k_first, k_last } => {
                    for start in (0..n).step_by(tile as usize) {
                        let len = (n - start).min(tile);
                        let t = &mut v[start as usize..(start + len) as usize];
                        tile_stages(k_first, k_last, tile, |k, j| {
                            let mut touched = std::vec![false; tile as usize];
                            for thread in 0..block as u64 {
                                for q in 0..TILE_PAIRS as u64 {
                                    let (lo, hi) = comparator(thread + q * block as u64, k, j);
                                    assert!(hi < tile, "comparator leaves the tile");
                                    assert!(!touched[lo as usize] && !touched[hi as usize]);
                                    touched[lo as usize] = true;
                                    touched[hi as usize] = true;
                                    if must_swap(lo, hi, len, |x| t[x as usize]) {
                                        t.swap(lo as usize, hi as usize);
                                    }
                                }
                            }
                        });
                    }
                }
                Step::Global { k, j } => {
                    assert!(j >= tile);
                    for p in 0..comparator_count(n, j) {
                        let (lo, hi) = comparator(p, k, j);
                        assert!(lo < n);
                        if must_swap(lo, hi, n, |x| v[x as usize]) {
                            v.swap(lo as usize, hi as usize);
                        }
                    }
                    // The comparators left out touch only virtual elements.
                    let big_n = n.next_power_of_two();
                    for p in comparator_count(n, j)..big_n / 2 {
                        assert!(comparator(p, k, j).0 >= n);
                    }
                }
            }
        }
    }

    #[test]
    fn any_length_sorts() {
        let mut state = 3u64;
        for (log_tile, block) in [(3u32, 1u32), (4, 2), (6, 8)] {
            for n in (0..300usize).chain([511, 512, 513, 1000, 1024, 1025, 3001]) {
                for range in [2u64, 1 << 31] {
                    let mut v: Vec<u32> = (0..n)
                        .map(|_| {
                            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                            ((state >> 33) % range) as u32
                        })
                        .collect();
                    let mut expect = v.clone();
                    expect.sort();
                    simulate(&mut v, log_tile, block);
                    assert_eq!(v, expect, "n = {n}, tile 2^{log_tile}");
                }
            }
        }
    }

    #[test]
    fn comparators_cover_each_index_once() {
        for log_big in 1..8u32 {
            let big_n = 1u64 << log_big;
            let mut k = 2;
            while k <= big_n {
                let mut j = k / 2;
                while j >= 1 {
                    let mut seen = std::vec![false; big_n as usize];
                    for p in 0..big_n / 2 {
                        let (lo, hi) = comparator(p, k, j);
                        assert!(lo < hi && hi < big_n && lo / k == hi / k);
                        assert!(!seen[lo as usize] && !seen[hi as usize]);
                        seen[lo as usize] = true;
                        seen[hi as usize] = true;
                    }
                    for n in 0..=big_n {
                        let count = (0..big_n / 2).filter(|&p| comparator(p, k, j).0 < n).count() as u64;
                        assert_eq!(comparator_count(n, j), count, "n {n} j {j}");
                    }
                    j /= 2;
                }
                k *= 2;
            }
        }
    }

    #[test]
    fn plan_steps() {
        use Step::*;
        assert_eq!(Plan::new(1, 3).count(), 0);
        assert_eq!(Plan::new(5, 3).collect::<Vec<_>>(), [Shared { k_first: 2, k_last: 8 }]);
        assert_eq!(
            Plan::new(33, 3).collect::<Vec<_>>(),
            [
                Shared { k_first: 2, k_last: 8 },
                Global { k: 16, j: 8 },
                Shared { k_first: 16, k_last: 16 },
                Global { k: 32, j: 16 },
                Global { k: 32, j: 8 },
                Shared { k_first: 32, k_last: 32 },
                Global { k: 64, j: 32 },
                Global { k: 64, j: 16 },
                Global { k: 64, j: 8 },
                Shared { k_first: 64, k_last: 64 },
            ]
        );
    }
}

#[cfg(target_arch = "nvptx64")]
mod entry {
    use crate::gpu;
    use crate::key::SortKey;

    /// Swaps two elements of shared memory (through registers, see
    /// `gpu::load_shared_element`).
    #[inline(always)]
    unsafe fn swap_shared<T: Copy>(a: *mut T, b: *mut T) {
        unsafe {
            let (x, y) = (gpu::load_shared_element(a), gpu::load_shared_element(b));
            a.write(y);
            b.write(x);
        }
    }

    /// Shared-memory stages of merges `k_first ..= k_last` on tile `block_idx`.
    #[inline(always)]
    unsafe fn tile<T: SortKey>(data: *mut T, n: u64, log_tile: u32, k_first: u64, k_last: u64, desc: u32) {
        let desc = desc != 0;
        let (t, block) = (gpu::thread_idx() as u64, gpu::block_dim() as u64);
        let tile = 1u64 << log_tile;
        let start = gpu::block_idx() as u64 * tile;
        let len = if n - start < tile { n - start } else { tile };
        let s = gpu::dyn_smem::<T>();
        unsafe {
            let mut x = t;
            while x < len {
                *s.add(x as usize) = *data.add((start + x) as usize);
                x += block;
            }
            gpu::sync_threads();
            super::tile_stages(k_first, k_last, tile, |k, j| {
                for q in 0..super::TILE_PAIRS as u64 {
                    let (lo, hi) = super::comparator(t + q * block, k, j);
                    if super::must_swap(lo, hi, len, |x| (*s.add(x as usize)).ord_bits(desc)) {
                        swap_shared(s.add(lo as usize), s.add(hi as usize));
                    }
                }
                gpu::sync_threads();
            });
            let mut x = t;
            while x < len {
                *data.add((start + x) as usize) = *s.add(x as usize);
                x += block;
            }
        }
    }

    /// One global stage: thread `p` applies comparator `p` of stride `j` in merge `k`.
    #[inline(always)]
    unsafe fn global<T: SortKey>(data: *mut T, n: u64, k: u64, j: u64, desc: u32) {
        let desc = desc != 0;
        let p = gpu::global_idx();
        if p >= super::comparator_count(n, j) {
            return;
        }
        let (lo, hi) = super::comparator(p, k, j);
        unsafe {
            if super::must_swap(lo, hi, n, |x| (*data.add(x as usize)).ord_bits(desc)) {
                core::ptr::swap(data.add(lo as usize), data.add(hi as usize));
            }
        }
    }

    macro_rules! bitonic_entry {
        ($t:ty, $suffix:ident) => {
            paste::paste! {
                #[unsafe(no_mangle)]
                pub unsafe extern "ptx-kernel" fn [<bitonic_tile_ $suffix>](
                    data: *mut $t, n: u64, log_tile: u32, k_first: u64, k_last: u64, descending: u32,
                ) {
                    unsafe { tile::<$t>(data, n, log_tile, k_first, k_last, descending) }
                }

                #[unsafe(no_mangle)]
                pub unsafe extern "ptx-kernel" fn [<bitonic_global_ $suffix>](
                    data: *mut $t, n: u64, k: u64, j: u64, descending: u32,
                ) {
                    unsafe { global::<$t>(data, n, k, j, descending) }
                }
            }
        };
    }
    crate::for_each_key_type!(bitonic_entry);
}
