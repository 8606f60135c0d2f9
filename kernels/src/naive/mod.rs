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

crate::params::kernel_params! {
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
crate::key::for_each_key_type!(naive_entries);

/// Every `naive` entry.
pub const KERNELS: &[EntryLayout] = &crate::key::each_element_type!(|T| <T as NaiveKernels>::MERGE_PASS.layout());

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
mod device;

#[cfg(test)]
mod tests;
