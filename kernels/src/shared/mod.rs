//! The Catania report's shared-memory merge sorts (sections 3.3-3.4): `sm8`, `sm9` and
//! `sm`. They run the same rank merge as [`crate::naive`] (chunk pairs of width 2^k,
//! each element placed by a binary search in the partner chunk) but move the searches
//! of the early passes into shared memory:
//!
//! 1. *Block sort* (chunk < block): a block loads its tile of `block` elements into
//!    shared memory and runs every pass with chunks narrower than the block there,
//!    ping-ponging between two shared buffers, one barrier per pass.
//! 2. *Chunk pass* (chunk >= block): one block per chunk loads the *partner* chunk's
//!    order bits into shared memory, then walks its own chunk in block-sized
//!    sub-chunks, each thread searching the shared copy for its element. With
//!    chunk == block this is the report's "neighbour block" pass of `sm9`; with larger
//!    chunks it is the report's block-per-chunk strategy of `sm`, usable while the
//!    partner chunk fits in the shared-memory budget.
//! 3. The remaining passes are `naive`'s global-memory passes.
//!
//! A chunk pass is the same merge pass as `naive`'s, so its entry takes `naive`'s
//! parameters ([`MergePass`]).
//!
//! Only order bits go to shared memory in the chunk pass (the search needs nothing
//! else), so an [`crate::Entity`] of 20 bytes costs 4 bytes there and more passes fit.
//!
//! The index math below is plain Rust: the tests run the passes block by block and
//! thread by thread on the CPU, the way the GPU runs them. Indices inside a tile or a
//! shared-memory chunk are `u32` (a chunk that fits in shared memory has far fewer
//! than 2^32 elements); positions in the array are `u64`.
use crate::key::SortKey;
use crate::naive::{MergePass, merge_pass_entry, pass_count};
use crate::params::{DevPtr, Direction, EntryLayout, Kernel};
use crate::search::{Index, count_before, count_less, count_less_eq};

crate::params::kernel_params! {
    /// The block sort: block `b` sorts its tile (`blockDim` elements from
    /// `b * blockDim`) of `src` into the same place of `dst` (`src != dst`), running
    /// every pass with chunks narrower than the block in shared memory
    /// ([`block_sort_smem_bytes`]).
    pub struct BlockSort<T> {
        pub src: DevPtr<T>,
        pub dst: DevPtr<T>,
        pub n: u64,
        pub direction: Direction,
    }
    /// Declares an entry taking [`BlockSort`].
    entries block_sort_entry;
}

/// The `sm8`/`sm9`/`sm` entries of an element type. Their global passes are
/// `naive`'s ([`crate::naive::NaiveKernels::MERGE_PASS`]).
pub trait SharedKernels: SortKey {
    const BLOCK_SORT: Kernel<BlockSort<Self>>;
    /// A chunk pass: the same merge pass as `naive`'s, one block per chunk with the
    /// partner chunk's order bits in shared memory (`1 << log_chunk` of them).
    const CHUNK_PASS: Kernel<MergePass<Self>>;
}

macro_rules! shared_entries {
    ($t:ty, $suffix:ident) => {
        paste::paste! {
            block_sort_entry!([<sm_block_sort_ $suffix>] { T = $t } |p| device::block_sort::<$t>(p));
            merge_pass_entry!([<sm_chunk_pass_ $suffix>] { T = $t } |p| device::chunk_pass::<$t>(p));
            impl SharedKernels for $t {
                const BLOCK_SORT: Kernel<BlockSort<$t>> = [<sm_block_sort_ $suffix>];
                const CHUNK_PASS: Kernel<MergePass<$t>> = [<sm_chunk_pass_ $suffix>];
            }
        }
    };
}
crate::key::for_each_key_type!(shared_entries);

/// Every `sm8`/`sm9`/`sm` entry.
pub const KERNELS: &[EntryLayout] = crate::key::each_element_type!(|T| [
    <T as SharedKernels>::BLOCK_SORT.layout(),
    <T as SharedKernels>::CHUNK_PASS.layout()
])
.as_flattened();

/// Elements of the tile (or chunk) of width `width` that starts at `start`: `width`
/// except for the last, partial one. `start < n` is assumed.
#[inline(always)]
pub fn tile_len<I: Index>(n: I, start: I, width: u32) -> u32 {
    let rest = n - start;
    if rest < I::from_u32(width) { rest.low_u32() } else { width }
}

/// Destination, inside an `m`-element tile, of the element at `t` during the block
/// sort's pass with chunks of width `1 << log_chunk`; `at` reads the tile's order bits
/// from shared memory. The stable rank merge of `naive`, in 32-bit tile coordinates,
/// and without divergence: with chunks narrower than a warp, a warp holds left and
/// right chunks, whose two kinds of search would otherwise run one after the other.
#[inline(always)]
pub fn block_sort_target<B: Ord + Copy>(t: u32, m: u32, log_chunk: u32, at: impl Fn(u32) -> B) -> u32 {
    let p = ChunkPass::<u32>::new(t >> log_chunk, m, log_chunk);
    p.target_branch_free(t - p.own_start, at(t), |j| at(p.partner_start + j))
}

/// A chunk of one merge pass and that chunk's partner (the odd neighbour of an even
/// chunk, the even neighbour of an odd one). `I` indexes the array: `u64` for global
/// memory, `u32` inside a tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkPass<I> {
    /// Start of the merged pair (the even chunk), where the output range begins.
    pub pair_start: I,
    pub own_start: I,
    pub own_len: u32,
    pub partner_start: I,
    /// 0 for an even chunk without partner (the last, when the chunk count is odd):
    /// its elements stay where they are.
    pub partner_len: u32,
    /// Whether the own chunk is the odd (right) one of the pair.
    pub odd: bool,
}

impl<I: Index> ChunkPass<I> {
    /// Chunk `chunk_idx` of the pass that merges chunk pairs of width `1 << log_chunk`
    /// of an `n`-element array (`chunk_idx << log_chunk < n`, `log_chunk < 32`).
    #[inline(always)]
    pub fn new(chunk_idx: I, n: I, log_chunk: u32) -> ChunkPass<I> {
        let width = 1u32 << log_chunk;
        let odd = chunk_idx & I::ONE == I::ONE;
        let own_start = chunk_idx << log_chunk;
        let pair_start = (chunk_idx - (chunk_idx & I::ONE)) << log_chunk;
        let partner_start = if odd { pair_start } else { own_start + I::from_u32(width) };
        // Only the right chunk can be short or missing: the left one of a pair always
        // lies wholly before a later chunk.
        let partner_len = if partner_start < n { tile_len(n, partner_start, width) } else { 0 };
        ChunkPass { pair_start, own_start, own_len: tile_len(n, own_start, width), partner_start, partner_len, odd }
    }

    /// Destination in the array of the own chunk's element `local` (key bits `key`);
    /// `partner(j)` reads the partner chunk's `j`-th order bits (from shared memory).
    /// For callers whose threads of a warp share one chunk (a chunk pass).
    ///
    /// Stability, as in `naive`: a left element counts the partner's keys strictly
    /// below its own, a right element those below or equal.
    #[inline(always)]
    pub fn target<B: Ord + Copy>(&self, local: u32, key: B, partner: impl Fn(u32) -> B) -> I {
        let len = self.partner_len;
        let other = if self.odd { count_less_eq(len, key, partner) } else { count_less(len, key, partner) };
        self.pair_start + I::from_u32(local + other)
    }

    /// [`ChunkPass::target`] with one search loop for left and right chunks, for
    /// callers whose warps mix both.
    #[inline(always)]
    pub fn target_branch_free<B: Ord + Copy>(&self, local: u32, key: B, partner: impl Fn(u32) -> B) -> I {
        self.pair_start + I::from_u32(local + count_before(self.partner_len, key, self.odd, partner))
    }
}

/// Dynamic shared memory of the block sort for `block` threads and keys of
/// `key_bytes`: two buffers (ping-pong) of `block` keys, then two of `block` `u32`
/// tile positions. Keys first, so the positions stay 4-byte aligned.
pub fn block_sort_smem_bytes(block: u32, key_bytes: u32) -> u64 {
    2 * block as u64 * (key_bytes as u64 + 4)
}

/// Largest `k` with a chunk of `2^k` keys of `key_bytes` bytes fitting in
/// `budget_bytes` of shared memory (0 if not even one fits: a chunk pass needs at least
/// a block-wide chunk, so such a budget simply allows no chunk pass).
pub fn max_chunk_log(budget_bytes: u32, key_bytes: u32) -> u32 {
    let keys = budget_bytes / key_bytes.max(1);
    if keys == 0 { 0 } else { 31 - keys.leading_zeros() }
}

/// Which passes run where, for `n` elements and blocks of `2^log_block` threads.
/// Pass `k` merges chunks of width `2^k`; passes are numbered `0..pass_count(n)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Passes `0..block_passes` run inside the block sort (at most `log_block`).
    pub block_passes: u32,
    /// Chunk passes, one launch each, in shared memory.
    pub chunk_passes: core::ops::Range<u32>,
    /// Global-memory passes (`naive`'s kernel).
    pub global_passes: core::ops::Range<u32>,
}

impl Plan {
    /// `chunk_pass_end`: chunk passes are those `k` with `log_block <= k <
    /// chunk_pass_end` (`log_block` for none: `sm8`; `log_block + 1` for the single
    /// neighbour-tile pass: `sm9`; one past the widest chunk that fits: `sm`).
    pub fn new(n: u64, log_block: u32, chunk_pass_end: u32) -> Plan {
        let total = pass_count(n);
        let block_passes = log_block.min(total);
        let chunk_end = chunk_pass_end.max(log_block).min(total);
        Plan { block_passes, chunk_passes: block_passes..chunk_end, global_passes: chunk_end..total }
    }

    /// Kernel launches, each reading one buffer and writing the other: the block
    /// sort, then one per chunk or global pass. Their parity says where the result
    /// ends.
    pub fn launches(&self) -> u32 {
        1 + self.chunk_passes.len() as u32 + self.global_passes.len() as u32
    }
}

#[cfg(target_arch = "nvptx64")]
mod device;

#[cfg(test)]
mod tests;
