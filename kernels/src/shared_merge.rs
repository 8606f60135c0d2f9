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
//! Only order bits go to shared memory in the chunk pass (the search needs nothing
//! else), so an [`crate::Entity`] of 20 bytes costs 4 bytes there and more passes fit.
//!
//! The index math below is plain Rust: the tests run the passes block by block and
//! thread by thread on the CPU, the way the GPU runs them. Indices inside a tile or a
//! shared-memory chunk are `u32` (a chunk that fits in shared memory has far fewer
//! than 2^32 elements); positions in the array are `u64`.
use crate::naive::pass_count;
use crate::search::{Index, count_before, count_less, count_less_eq};

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
mod entry {
    use super::{ChunkPass, block_sort_target, tile_len};
    use crate::gpu;
    use crate::key::SortKey;

    /// The block sort (`src` != `dst`). Shared memory holds order
    /// bits and tile positions ([`super::block_sort_smem_bytes`]), not elements: a
    /// search step then reads one key with no conversion, and an element of any size
    /// moves once, in the final gather.
    #[inline(always)]
    unsafe fn block_sort<T: SortKey>(src: *const T, dst: *mut T, n: u64, descending: u32) {
        let desc = descending != 0;
        let (b, t) = (gpu::block_dim(), gpu::thread_idx());
        let start = gpu::block_idx() as u64 * b as u64;
        let m = tile_len(n, start, b);
        unsafe {
            let keys = gpu::dyn_smem::<T::Bits>();
            let pos = keys.add(2 * b as usize) as *mut u32;
            let (mut cur, mut next) = (0usize, b as usize);
            if t < m {
                *keys.add(t as usize) = (*src.add((start + t as u64) as usize)).ord_bits(desc);
                *pos.add(t as usize) = t;
            }
            gpu::sync_threads();
            // `m` is the same for the whole block, so every thread runs the same number
            // of passes and reaches every barrier, idle threads of a short tile too.
            let mut log_chunk = 0;
            while (1u32 << log_chunk) < m {
                if t < m {
                    let k = keys.add(cur);
                    let to = block_sort_target(t, m, log_chunk, |j| *k.add(j as usize)) as usize;
                    *keys.add(next + to) = *k.add(t as usize);
                    *pos.add(next + to) = *pos.add(cur + t as usize);
                }
                // One barrier per pass suffices: the next pass writes the buffers this
                // one read, and every read of them happened before this barrier.
                gpu::sync_threads();
                core::mem::swap(&mut cur, &mut next);
                log_chunk += 1;
            }
            // Gather: thread `t` fetches the element that sorts to `t`. (Out of place:
            // in place, each thread would have to hold its element across a barrier,
            // and LLVM keeps an `Entity` held so in local memory.)
            if t < m {
                let from = *pos.add(cur + t as usize);
                *dst.add((start + t as u64) as usize) = *src.add((start + from as u64) as usize);
            }
        }
    }

    /// One chunk pass (`src` != `dst`). Shared memory: `1 << log_chunk` order bits.
    #[inline(always)]
    unsafe fn chunk_pass<T: SortKey>(src: *const T, dst: *mut T, n: u64, log_chunk: u32, descending: u32) {
        let desc = descending != 0;
        let (b, t) = (gpu::block_dim(), gpu::thread_idx());
        let p = ChunkPass::new(gpu::block_idx() as u64, n, log_chunk);
        unsafe {
            let keys = gpu::dyn_smem::<T::Bits>();
            // Four partner keys per step, all loaded before the first is stored (the
            // compiler may not reorder them: it can't tell shared from global memory),
            // so their latencies overlap.
            let key_at = |j: u32| (*src.add((p.partner_start + j as u64) as usize)).ord_bits(desc);
            let mut j = t;
            while j + 3 * b < p.partner_len {
                let k = [key_at(j), key_at(j + b), key_at(j + 2 * b), key_at(j + 3 * b)];
                *keys.add(j as usize) = k[0];
                *keys.add((j + b) as usize) = k[1];
                *keys.add((j + 2 * b) as usize) = k[2];
                *keys.add((j + 3 * b) as usize) = k[3];
                j += 4 * b;
            }
            while j < p.partner_len {
                *keys.add(j as usize) = key_at(j);
                j += b;
            }
            gpu::sync_threads();
            // No barrier from here on: shared memory is only read, and the other
            // resident blocks hide each sub-chunk's global-load latency.
            let mut local = t;
            while local < p.own_len {
                let i = (p.own_start + local as u64) as usize;
                let to = p.target(local, (*src.add(i)).ord_bits(desc), |j| *keys.add(j as usize));
                // The element is read again after the search (a cache hit) rather than
                // held across it: LLVM keeps the non-key part of a held `Entity` in
                // local memory.
                *dst.add(to as usize) = *src.add(i);
                local += b;
            }
        }
    }

    macro_rules! shared_merge_entry {
        ($t:ty, $suffix:ident) => {
            paste::paste! {
                #[unsafe(no_mangle)]
                pub unsafe extern "ptx-kernel" fn [<sm_block_sort_ $suffix>](
                    src: *const $t, dst: *mut $t, n: u64, descending: u32,
                ) {
                    unsafe { block_sort::<$t>(src, dst, n, descending) }
                }

                #[unsafe(no_mangle)]
                pub unsafe extern "ptx-kernel" fn [<sm_chunk_pass_ $suffix>](
                    src: *const $t, dst: *mut $t, n: u64, log_chunk: u32, descending: u32,
                ) {
                    unsafe { chunk_pass::<$t>(src, dst, n, log_chunk, descending) }
                }
            }
        };
    }
    crate::for_each_key_type!(shared_merge_entry);
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::naive::merge_target;
    use std::vec::Vec;

    /// An element with its input position: sorting by `.0` only, stability shows in `.1`.
    type El = (u32, usize);

    /// Order bits for the direction, as `SortKey::ord_bits` does.
    fn bits(e: &El, desc: bool) -> u32 {
        if desc { !e.0 } else { e.0 }
    }

    /// The block sort, block by block and pass by pass, as the kernel runs it: keys
    /// and tile positions in "shared memory"; every thread of a pass reads the current
    /// buffers, then (after the barrier) the next pass reads what they wrote; finally
    /// each thread gathers the element that sorts to its slot.
    fn block_sort(src: &[El], block: u32, desc: bool) -> Vec<El> {
        let n = src.len() as u64;
        let mut dst = std::vec![(u32::MAX, usize::MAX); src.len()];
        for start in (0..n).step_by(block as usize) {
            let m = tile_len(n, start, block);
            let tile = &src[start as usize..][..m as usize];
            let mut keys: Vec<u32> = tile.iter().map(|e| bits(e, desc)).collect();
            let mut pos: Vec<u32> = (0..m).collect();
            let mut log_chunk = 0;
            while (1u32 << log_chunk) < m {
                let (mut next_keys, mut next_pos) = (std::vec![0; m as usize], std::vec![u32::MAX; m as usize]);
                for t in 0..m {
                    let to = block_sort_target(t, m, log_chunk, |j| keys[j as usize]) as usize;
                    assert_eq!(to, merge_target(t, m, log_chunk, |j| keys[j as usize]) as usize);
                    assert_eq!(next_pos[to], u32::MAX, "two threads wrote slot {to}");
                    (next_keys[to], next_pos[to]) = (keys[t as usize], pos[t as usize]);
                }
                (keys, pos) = (next_keys, next_pos);
                log_chunk += 1;
            }
            for t in 0..m {
                dst[(start + t as u64) as usize] = tile[pos[t as usize] as usize];
            }
        }
        dst
    }

    /// One chunk pass: per block, the partner's keys go to "shared memory", then the
    /// threads walk the own chunk in sub-chunks of `block`.
    fn chunk_pass(src: &[El], block: u32, log_chunk: u32, desc: bool) -> Vec<El> {
        let n = src.len() as u64;
        let mut dst = std::vec![(u32::MAX, usize::MAX); src.len()];
        for chunk_idx in 0..n.div_ceil(1 << log_chunk) {
            let p = ChunkPass::new(chunk_idx, n, log_chunk);
            assert!(p.partner_len <= 1 << log_chunk && p.own_len <= 1 << log_chunk);
            let smem: Vec<u32> =
                (0..p.partner_len).map(|j| bits(&src[(p.partner_start + j as u64) as usize], desc)).collect();
            for sub in (0..p.own_len).step_by(block as usize) {
                for t in 0..block {
                    let local = sub + t;
                    if local >= p.own_len {
                        continue;
                    }
                    let i = p.own_start + local as u64;
                    let to = p.target(local, bits(&src[i as usize], desc), |j| smem[j as usize]);
                    assert_eq!(to, merge_target(i, n, log_chunk, |j| bits(&src[j as usize], desc)));
                    assert_eq!(dst[to as usize].1, usize::MAX, "two elements sent to {to}");
                    dst[to as usize] = src[i as usize];
                }
            }
        }
        dst
    }

    fn global_pass(src: &[El], log_chunk: u32, desc: bool) -> Vec<El> {
        let n = src.len() as u64;
        let mut dst = src.to_vec();
        for i in 0..n {
            dst[merge_target(i, n, log_chunk, |j| bits(&src[j as usize], desc)) as usize] = src[i as usize];
        }
        dst
    }

    /// A whole sort as the host launcher schedules it.
    fn simulate(mut v: Vec<El>, block: u32, chunk_pass_end: u32, desc: bool) -> Vec<El> {
        let plan = Plan::new(v.len() as u64, block.trailing_zeros(), chunk_pass_end);
        v = block_sort(&v, block, desc);
        for k in plan.chunk_passes {
            v = chunk_pass(&v, block, k, desc);
        }
        for k in plan.global_passes {
            v = global_pass(&v, k, desc);
        }
        v
    }

    fn input(n: usize, distinct: u32, seed: u64) -> Vec<El> {
        let mut state = seed;
        (0..n)
            .map(|i| {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                (((state >> 33) as u32) % distinct, i)
            })
            .collect()
    }

    fn expected(v: &[El], desc: bool) -> Vec<El> {
        let mut e = v.to_vec();
        e.sort_by_key(|x| bits(x, desc));
        e
    }

    #[test]
    fn every_strategy_sorts_any_length_stably() {
        for block in [1u32, 2, 4, 8, 32] {
            let lb = block.trailing_zeros();
            // sm8, sm9, sm with the widest shared chunk 4x / 16x the block.
            for chunk_pass_end in [lb, lb + 1, lb + 3, lb + 5] {
                for n in (0..140).chain([255, 256, 257, 511, 512, 513, 1000, 1024, 1031]) {
                    for desc in [false, true] {
                        let v = input(n, 7, n as u64 * 31 + block as u64);
                        assert_eq!(
                            simulate(v.clone(), block, chunk_pass_end, desc),
                            expected(&v, desc),
                            "n {n} block {block} chunk_pass_end {chunk_pass_end} desc {desc}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn distinct_keys_and_all_equal() {
        for n in [300, 777, 2048] {
            for distinct in [1, u32::MAX] {
                let v = input(n, distinct, 99);
                for desc in [false, true] {
                    assert_eq!(simulate(v.clone(), 16, 7, desc), expected(&v, desc));
                }
            }
        }
    }

    #[test]
    fn chunk_pass_geometry() {
        // n = 10, chunks of 4: [0,4) [4,8) [8,10) and no partner for the last.
        let p = ChunkPass::new(1u64, 10, 2);
        assert_eq!(
            (p.pair_start, p.own_start, p.own_len, p.partner_start, p.partner_len, p.odd),
            (0, 4, 4, 0, 4, true)
        );
        let p = ChunkPass::new(0u32, 6, 2);
        assert_eq!((p.own_len, p.partner_start, p.partner_len, p.odd), (4, 4, 2, false));
        let p = ChunkPass::new(2u64, 10, 2);
        assert_eq!((p.pair_start, p.own_len, p.partner_len), (8, 2, 0));
        assert_eq!(p.target(1, 5u32, |_| unreachable!()), 9);
        // Indices past 2^32 stay exact.
        let p = ChunkPass::new((1u64 << 30) + 1, 1 << 44, 12);
        assert_eq!((p.pair_start, p.own_start, p.partner_start), (1 << 42, (1 << 42) + 4096, 1 << 42));
    }

    #[test]
    fn plans() {
        // sm8 / sm9 / sm (block 256, widest shared chunk 2^13) at n = 2^24.
        let n = 1 << 24;
        assert_eq!(Plan::new(n, 8, 8), Plan { block_passes: 8, chunk_passes: 8..8, global_passes: 8..24 });
        assert_eq!(Plan::new(n, 8, 9), Plan { block_passes: 8, chunk_passes: 8..9, global_passes: 9..24 });
        assert_eq!(Plan::new(n, 8, 14), Plan { block_passes: 8, chunk_passes: 8..14, global_passes: 14..24 });
        // Small n: the block sort does everything.
        assert_eq!(Plan::new(200, 8, 14), Plan { block_passes: 8, chunk_passes: 8..8, global_passes: 8..8 });
        assert_eq!(Plan::new(2, 8, 14), Plan { block_passes: 1, chunk_passes: 1..1, global_passes: 1..1 });
        assert_eq!(Plan::new(257, 8, 14).launches(), 2);
        assert_eq!(Plan::new(1 << 24, 8, 14).launches(), 17);
        // A budget below one block: no chunk pass.
        assert_eq!(Plan::new(n, 8, 3), Plan { block_passes: 8, chunk_passes: 8..8, global_passes: 8..24 });
    }

    #[test]
    fn chunk_logs_from_budget() {
        assert_eq!(max_chunk_log(48 * 1024, 4), 13);
        assert_eq!(max_chunk_log(48 * 1024, 8), 12);
        assert_eq!(max_chunk_log(227 * 1024, 4), 15);
        assert_eq!(max_chunk_log(3, 4), 0);
        assert_eq!(max_chunk_log(4, 4), 0);
        assert_eq!(max_chunk_log(8, 4), 1);
    }
}
