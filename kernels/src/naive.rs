//! The Catania report's basic parallel merge (section 3.1, `parallelMergeSortDesc`):
//! one pass per chunk width, every element independently finds its place in the
//! merged pair of chunks by a binary search in the neighbouring chunk.
//!
//! Unlike the report, any `n` works: the last pair may be incomplete (a short right
//! chunk, or a left chunk with no partner, which is copied through). Chunk widths are
//! powers of two, passed as `log2`, so the index math needs no 64-bit division.
use crate::key::SortKey;
use crate::params::{DevPtr, Direction, EntryLayout, Kernel};
use crate::search::{Index, count_less, count_less_eq};

crate::kernel_params! {
    /// One pass of the basic rank merge: every element of `src` moves to its place in
    /// `dst`, where the chunk pairs of width `1 << log_chunk` are merged.
    pub struct MergePass<T> {
        pub src: DevPtr<T>,
        pub dst: DevPtr<T>,
        pub n: u64,
        pub log_chunk: u32,
        pub direction: Direction,
    }
    /// Declares an entry taking [`MergePass`].
    entries merge_pass_entry;
}

/// The `naive` entries of an element type.
pub trait NaiveKernels: SortKey {
    const MERGE_PASS: Kernel<MergePass<Self>>;
}

macro_rules! naive_entries {
    ($t:ty, $suffix:ident) => {
        paste::paste! {
            merge_pass_entry!([<naive_merge_pass_ $suffix>] { T = $t } |p| device::merge_pass::<$t>(p));
            impl NaiveKernels for $t {
                const MERGE_PASS: Kernel<MergePass<$t>> = [<naive_merge_pass_ $suffix>];
            }
        }
    };
}
crate::for_each_key_type!(naive_entries);

/// Every `naive` entry.
pub const KERNELS: &[EntryLayout] = &crate::each_element_type!(|T| <T as NaiveKernels>::MERGE_PASS.layout());

/// Destination of element `i` in the pass that merges chunk pairs of width
/// `1 << log_chunk` of the `n`-element array whose order bits are `at(0..n)`. Generic
/// over the index type so that a tile in shared memory can use 32-bit arithmetic.
///
/// Stability: an element of the left (even) chunk counts the right chunk's elements
/// strictly below its key, one of the right (odd) chunk those below *or equal*, so
/// equal keys keep their input order.
#[inline(always)]
pub fn merge_target<I: Index, B: Ord + Copy>(i: I, n: I, log_chunk: u32, at: impl Fn(I) -> B) -> I {
    let chunk = I::ONE << log_chunk;
    let chunk_idx = i >> log_chunk;
    let odd = chunk_idx & I::ONE;
    let pair_start = (chunk_idx - odd) << log_chunk;
    let rank_in_own = i - (chunk_idx << log_chunk);
    let key = at(i);
    let other_rank = if odd == I::ZERO {
        let other_start = pair_start + chunk;
        if other_start >= n {
            // Left chunk without a partner: already in place.
            return i;
        }
        let other_len = if n - other_start < chunk { n - other_start } else { chunk };
        count_less(other_len, key, |j| at(other_start + j))
    } else {
        count_less_eq(chunk, key, |j| at(pair_start + j))
    };
    pair_start + rank_in_own + other_rank
}

/// Number of passes for `n` elements: chunk widths 1, 2, 4, ... while a chunk is
/// shorter than the array.
#[inline(always)]
pub fn pass_count(n: u64) -> u32 {
    if n <= 1 { 0 } else { 64 - (n - 1).leading_zeros() }
}

#[cfg(target_arch = "nvptx64")]
mod device {
    use super::MergePass;
    use crate::gpu;
    use crate::key::SortKey;

    /// One pass of the basic rank merge: every thread moves one element.
    #[inline(always)]
    pub unsafe fn merge_pass<T: SortKey>(p: MergePass<T>) {
        let MergePass { src, dst, n, log_chunk, direction } = p;
        let (src, dst) = (src.get(), dst.get());
        let i = gpu::global_idx();
        if i >= n {
            return;
        }
        let desc = direction.is_descending();
        unsafe {
            let t = super::merge_target(i, n, log_chunk, |j| (*src.add(j as usize)).ord_bits(desc));
            *dst.add(t as usize) = *src.add(i as usize);
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    /// Runs every pass on the CPU with `merge_target`, as the GPU does.
    fn simulate(mut v: Vec<(u32, usize)>) -> Vec<(u32, usize)> {
        let n = v.len() as u64;
        for log_chunk in 0..pass_count(n) {
            let mut out = v.clone();
            let mut written = std::vec![false; v.len()];
            for i in 0..n {
                let t = merge_target(i, n, log_chunk, |j| v[j as usize].0) as usize;
                assert!(!written[t], "two elements sent to {t}");
                written[t] = true;
                out[t] = v[i as usize];
            }
            v = out;
        }
        v
    }

    #[test]
    fn any_length_sorts_stably() {
        let mut state = 7u64;
        for n in (0..300usize).chain([511, 512, 513, 1000, 1023, 1025]) {
            let input: Vec<(u32, usize)> = (0..n)
                .map(|i| {
                    state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    (((state >> 40) % 17) as u32, i)
                })
                .collect();
            let mut expect = input.clone();
            expect.sort_by_key(|e| e.0);
            assert_eq!(simulate(input), expect, "n = {n}");
        }
    }

    #[test]
    fn pass_counts() {
        assert_eq!(pass_count(0), 0);
        assert_eq!(pass_count(1), 0);
        assert_eq!(pass_count(2), 1);
        assert_eq!(pass_count(3), 2);
        assert_eq!(pass_count(256), 8);
        assert_eq!(pass_count(257), 9);
        assert_eq!(pass_count(1 << 40), 40);
    }
}
