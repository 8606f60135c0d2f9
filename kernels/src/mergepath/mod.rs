//! `mergepath`: a stable merge sort built from merge-path merges (Green, McColl and
//! Bader; ModernGPU's "block sort + partition + block merge").
//!
//! Passes over `n` elements, tiles of [`tile`] = [`BLOCK`] x [`items`] elements:
//!
//! 1. `mergepath_block_sort`: each block loads its tile coalesced into shared memory,
//!    each thread sorts its `ITEMS` consecutive elements in registers (primitive keys
//!    alone: a Batcher sorting network, [`crate::block::network`], whose instability
//!    cannot be seen since equal keys are equal words; records and key-value pairs:
//!    odd-even transposition, adjacent swaps on strict `>` only, so stable), then
//!    `log2(BLOCK)` rounds merge runs of `ITEMS << r` elements pairwise in shared
//!    memory: every thread finds where its `ITEMS` outputs start by the merge-path
//!    co-rank ([`crate::search::co_rank`]) and merges them sequentially. The sorted
//!    tile is written back coalesced.
//!    For large inputs a wide block of `w * BLOCK` threads sorts `w` tiles as one run
//!    instead ([`sort_width`]), and the global passes start at runs of `w` tiles. On
//!    Hopper, 4-byte keys alone go further: a cluster of two such blocks merges its two
//!    runs through distributed shared memory ([`cluster_ctas`], [`pair_swap`]).
//! 2. One global pass per run width `tile << p` while that is `< n`: every block needs
//!    the co-ranks of the diagonals where its `tile` outputs start and end inside its
//!    pair of runs (a warp-wide search, samples first; in the partition kernel its
//!    first round probes around where random runs put the answer, [`coarse_guess`],
//!    and the two ends of the range). For large inputs
//!    `mergepath_partition` finds them for all blocks first; for inputs whose merge
//!    runs in one or two waves, warps 0 and 1 of each `mergepath_merge` block find their
//!    own ([`co_ranks_in_merge`]: one launch per pass). The block then loads exactly
//!    the two input windows its outputs need into shared memory (coalesced), merges
//!    with per-thread co-ranks and stores its tile coalesced. So every block merges
//!    exactly one tile, however long the runs.
//!    Between passes L2 keeps what it can of the last pass's output
//!    ([`l2_reuse`]): every other pass runs its blocks from the last tile down, so it
//!    reads first what the previous pass wrote last, and where that pays the merges
//!    load their input as last-use data ([`PASS_STREAMING`]).
//!    Passes ping-pong between the caller's buffer and one scratch buffer. With an
//!    odd number of passes the block sort writes its tiles to the scratch buffer
//!    ([`block_sort_to_scratch`]), so the last pass always ends in the caller's buffer
//!    and no copy-back is needed.
//!
//! **Stability rule (one rule everywhere):** in a merge of a left run `A` and a right
//! run `B`, on equal keys the element of `A` comes first. The co-rank search counts
//! `a[m]` among the first `k` outputs iff `a[m] <= b[k - 1 - m]`
//! ([`crate::search::co_rank`]), and the sequential merge takes `a` iff
//! `a <= b` ([`take_a`]): the same `<=`, so the split a thread finds is exactly
//! where the sequential merge of the whole pair would be after `k` outputs. Runs are
//! always consecutive ranges of the input in input order (A before B), so equal keys
//! keep their input order. Keys are compared only through
//! [`crate::SortKey::ord_bits`] (descending = `!bits`, which keeps ties ties).
//!
//! **Sentinels.** In shared memory every pair of runs being merged is followed by one
//! slot holding the largest word ([`round_sentinel`], [`tile_slots`]), so a merge
//! step tests only whether `A` is exhausted: an exhausted `B` shows a head that every
//! `A` head is `<=`, and the stability rule then takes from `A`. With heads tracked by
//! shared address and a 32-bit co-rank, a merge step is about 10 instructions instead
//! of 15. Blocks holding a whole tile (all but the last) run a copy of each kernel body
//! without per-element bound tests (`FULL` in `device/`).
//!
//! **Layout.** The index math is plain Rust shared by the kernels and the host: tile
//! geometry, block-sort widths and the plan of the passes ([`global_passes`], block
//! ranges) here, the parameters of the co-rank searches in `co_ranks.rs`, the merges'
//! windows ([`merge_window`]), the block-sort rounds and the cluster exchange in
//! `rounds.rs`. `entries.rs` declares each kernel's parameter struct, its entries and
//! the typed handles the host launches ([`MergepathKernels`]); `device.rs` (nvptx only)
//! has the agents the entries run. `tests.rs` checks the index math and the entries,
//! `tests/model.rs` runs a CPU model of the whole pass structure on small tiles with
//! the same functions, and `tests/search.rs` one of the sampled co-rank search.
mod co_ranks;
mod entries;
mod rounds;

pub use co_ranks::*;
pub use entries::*;
pub use rounds::*;

/// Threads per block of the mergepath merges and of the block sorts of one tile (the
/// wide block sorts take [`sort_width`] times as many).
pub const BLOCK: u32 = 256;

/// Elements per thread of the kernels that sort elements of `bytes` bytes alone (keys
/// or records). Odd counts keep a thread's consecutive shared-memory words on distinct
/// banks (stride `items` words for 4-byte keys). Wider elements hold more registers
/// each, so fewer of them. 4-byte keys: 33, so that the tile (8,448 keys, 16,896 in
/// the wide block sort) is past twice the old one and one global pass falls away at
/// every size from 2^18 up; their register sort is a sorting network
/// ([`crate::block::network`]), cheaper per key at 33 than odd-even transposition at
/// 19. 8-byte keys: 19 (a wide run of 19,456 keys; 17 gave one pass fewer than 13 at
/// 17,408, and 19 against 17 was +1.1-2.5% from 2^24 up, -2.5% at 2^20 and -0.9% at 2^23
/// on an H100, 2026-11-25 (docs/history.md, mergepath: "Look-ahead co-ranks, a guided search, 19 keys for 8-byte keys"): fewer tiles, so fewer co-ranks, and each
/// thread's search serves more keys; the wide block sort spills nothing at 19 where
/// it spilled 12 bytes at 17). Earlier steps were measured (docs/history.md,
/// 2026-11-23): 19 against 15 for 4-byte keys was +8% at 2^24 (one pass
/// fewer); 13 against 11 for 8-byte keys +2-3% from 2^24 up, -4% at 2^20. The key-value
/// kernels keep [`kv_items`].
pub const fn items(bytes: u32) -> u32 {
    match bytes {
        0..=4 => 33,
        5..=8 => 19,
        _ => 7,
    }
}

/// Elements per thread of the key-value kernels (keys of `key_bytes` bytes): a value
/// and a tile slot per key share the registers, so fewer than [`items`].
pub const fn kv_items(key_bytes: u32) -> u32 {
    match key_bytes {
        0..=4 => 19,
        _ => 13,
    }
}

/// Elements per thread for keys of `key_bytes` bytes with values of `value_bytes` (0:
/// keys alone).
pub const fn items_for(key_bytes: u32, value_bytes: u32) -> u32 {
    if value_bytes == 0 { items(key_bytes) } else { kv_items(key_bytes) }
}

/// Elements per tile (one block's share in every kernel) of the kernels that sort
/// elements of `bytes` bytes alone.
pub const fn tile(bytes: u32) -> u32 {
    BLOCK * items(bytes)
}

/// Elements per tile for keys of `key_bytes` bytes with values of `value_bytes` (0:
/// keys alone).
pub const fn tile_for(key_bytes: u32, value_bytes: u32) -> u32 {
    BLOCK * items_for(key_bytes, value_bytes)
}
const _: () = assert!(BLOCK.is_multiple_of(MAX_SAMPLE), "tiles are whole chunks of samples");

/// Shared-memory slots of one tile: its elements, one sentinel slot per pair of runs
/// being merged (at most `BLOCK / 2` pairs, in the block sort's first round), and
/// `items` slots after the last sentinel, which a thread whose outputs run past the
/// end of the data may read (those outputs are never stored). See [`round_sentinel`].
pub const fn tile_slots(bytes: u32) -> u32 {
    slots(BLOCK, items(bytes))
}

/// [`tile_slots`] of a tile of `threads` threads holding `items` elements each.
pub const fn slots(threads: u32, items: u32) -> u32 {
    threads * items + threads / 2 + items
}

/// Shared memory of the block-sort and merge kernels: [`tile_slots`] elements.
pub const fn smem_bytes(bytes: u32) -> u32 {
    smem_bytes_in(BLOCK, bytes)
}

/// [`smem_bytes`] of a block of `threads` threads.
pub const fn smem_bytes_in(threads: u32, bytes: u32) -> u32 {
    slots(threads, items(bytes)) * bytes
}

/// Byte offset of the value slots in the key-value kernels' shared memory: after the
/// key slots, rounded up to 8 bytes so that 8-byte values are aligned.
pub const fn kv_values_offset(key_bytes: u32) -> u32 {
    kv_values_offset_in(BLOCK, key_bytes)
}

/// [`kv_values_offset`] of a block of `threads` threads.
pub const fn kv_values_offset_in(threads: u32, key_bytes: u32) -> u32 {
    (slots(threads, kv_items(key_bytes)) * key_bytes).next_multiple_of(8)
}

/// Shared memory of the key-value kernels: the key slots, then one value slot per key
/// slot (values sit at their key's slot).
pub const fn kv_smem_bytes(key_bytes: u32, value_bytes: u32) -> u32 {
    kv_smem_bytes_in(BLOCK, key_bytes, value_bytes)
}

/// [`kv_smem_bytes`] of a block of `threads` threads.
pub const fn kv_smem_bytes_in(threads: u32, key_bytes: u32, value_bytes: u32) -> u32 {
    kv_values_offset_in(threads, key_bytes) + slots(threads, kv_items(key_bytes)) * value_bytes
}

/// The shared memory a block may opt into on Hopper (227 KiB): the wide block sorts
/// are built only where their tile fits it.
pub const SMEM_OPTIN_SM90: u32 = 227 * 1024;

/// Merge tiles per block of the block sort for keys of `key_bytes` bytes with values
/// of `value_bytes` (0: keys alone): a block of `w * BLOCK` threads sorts `w` tiles as
/// one run (`log2(w)` more shared-memory rounds), so the global passes start at runs
/// of `w` tiles and `log2(w)` of them fall away. A shared-memory round costs about half
/// a global pass at 256 threads, but more in the wider blocks (one or two per SM hide
/// less latency), so the gain is small. Measured on an H100 (docs/history.md,
/// 2026-11-25; widths 1 / 2 / 4 at 2^24 and 2^28): u32 keys 20.5 / 20.9 / 20.7
/// and 17.6 / 17.9 / 17.9 Gkeys/s, u64 keys 10.4 / 10.2 / 10.7 and 8.6 / 8.5 / 8.9,
/// pairs of u32 keys and values 11.1 / 10.9 / 11.4 and 9.2 / 9.2 / 9.7. So 4 for 8-byte
/// keys and for pairs, and 1 (the 256-thread kernels) for records and where the wide
/// tile would not fit [`SMEM_OPTIN_SM90`] (4-byte keys with 8-byte values). 4-byte keys
/// alone took 2 until their tiles grew to 8,448 keys; at width 4 (runs of 33,792) they
/// need a pass fewer at 2^24 and 2^28 (9 and 13), and with the warp-local early rounds
/// ([`warp_local_round`]) width 4 measured u32 24.53 / 22.78 / 20.64 Gkeys/s at 2^24 /
/// 2^26 / 2^28 against 24.05 / 22.32 / 20.13 at width 2 (H100, 2026-11-25); they
/// fall back to 2 ([`narrower_sort_width`]) below 1.75 waves of width-4 blocks.
/// Since 2026-11-26 4-byte keys alone take 8: clusters of two width-4
/// blocks ([`cluster_ctas`]), runs of 67,584 keys, a pass fewer again (12 at 2^28).
/// Measured on an H100 (2026-11-26, docs/history.md, mergepath: "Cluster block sort"; against width 4
/// in the same call, u32 2^23 .. 2^28): +0.7-2.3% (2^28 21.45 / 21.50 against 21.20 /
/// 21.20 Gkeys/s). In ncu (base clocks, kernels one at a time) the cluster round costs
/// about what the pass and partition it saves do at 2^28 (0.74 against 0.75 ms); at
/// full clocks, with two launches fewer, the sort gains 1.2-1.4% there. Width 16 (clusters
/// of four) lost 4-13% (2026-11-26): an H100 runs only 30 such clusters at once (120 of its
/// 132 SMs), and the second cluster round cost twice the first.
/// Every width above 1 has its kernels, `mergepath_block_sort_x<w>_<key>` and
/// `mergepath_block_sort_kv_x<w>_<key>_v<bits>`.
pub const fn sort_width(key_bytes: u32, value_bytes: u32) -> u32 {
    let w = match (key_bytes, value_bytes) {
        (0..=4, 0) => 8,
        (0..=8, _) => 4,
        _ => 1,
    };
    if w > 1 && tiles_smem_bytes(block_tiles(w), key_bytes, value_bytes) > SMEM_OPTIN_SM90 { 1 } else { w }
}

/// The next width with kernels below `w` (a width of [`sort_width`] or of this), for
/// inputs too small for width `w` ([`sort_width_min_quarter_waves`]): 2 for 4-byte keys
/// alone, else 1.
pub const fn narrower_sort_width(key_bytes: u32, value_bytes: u32, w: u32) -> u32 {
    match (key_bytes, value_bytes, w) {
        (0..=4, 0, 8) => 4,
        (0..=4, 0, 4) => 2,
        _ => 1,
    }
}

/// Blocks of width `w` (one per SM at widths 4 and 8, two at width 2) an input needs,
/// in quarters of the SM count, before its block sort takes that width: one wave, but
/// for 4-byte keys alone, whose fallbacks are close, 1.75 waves at width 8 and 1.5 at
/// width 4. Measured on an H100 (2026-11-26, widths forced), u32 keys
/// at widths 2 / 4 / 8: 6,500,000 keys (1.46 waves of width-4 blocks) 25.11-25.19 /
/// 24.06-24.08 / 24.09-24.13 Gkeys/s, 6,700,000 (1.50) 26.25-26.28 / 26.37-26.38 /
/// 26.13-26.15, 7,100,000 (1.60) 26.54-26.56 / 26.69-26.72 / 26.68-26.70, 7,500,000
/// (1.68) 26.90-26.95 / 27.37-27.41 / 27.06-27.16, 2^23 (1.88) 28.13-28.21 / 28.40 /
/// 28.63-28.68; f32 alike, with width 8 ahead from 7.1 M. (On an H200, 2026-11-25:
/// widths 2 / 4: 4.6 M 23.37 / 21.57, 6.0 M 26.01 / 24.67.)
pub const fn sort_width_min_quarter_waves(key_bytes: u32, value_bytes: u32, w: u32) -> u64 {
    match (key_bytes, value_bytes, w) {
        (0..=4, 0, 8) => 7,
        (0..=4, 0, 4) => 6,
        _ => 4,
    }
}

/// Shared memory of `w` tiles of keys of `key_bytes` with values of `value_bytes` (0:
/// keys alone): a block sort of width `w` ([`sort_width`]), or with `w = 1` a merge's
/// tile ([`smem_bytes`], [`kv_smem_bytes`]).
pub const fn tiles_smem_bytes(w: u32, key_bytes: u32, value_bytes: u32) -> u32 {
    if value_bytes == 0 {
        smem_bytes_in(BLOCK * w, key_bytes)
    } else {
        kv_smem_bytes_in(BLOCK * w, key_bytes, value_bytes)
    }
}

/// Blocks per cluster of the block sort of width `w` ([`sort_width`]): widths above 4
/// are clusters of `w / 4` blocks of `4 * BLOCK` threads (one per SM) that merge their
/// sorted tiles through distributed shared memory (Hopper; `cluster_block_sort` in
/// `device/block_sort.rs`), so that the global passes start at runs of `w` tiles.
pub const fn cluster_ctas(w: u32) -> u32 {
    if w > 4 { w / 4 } else { 1 }
}

/// Merge tiles per block of the block sort of width `w`: `w`, or `w / cluster_ctas(w)`
/// for a cluster's blocks. A block has `BLOCK` threads and the shared memory of
/// [`tiles_smem_bytes`] per tile of it.
pub const fn block_tiles(w: u32) -> u32 {
    w / cluster_ctas(w)
}

/// Number of tiles (blocks of the sort and merge kernels) for `n` elements.
pub const fn tiles(n: u64, tile: u32) -> u64 {
    n.div_ceil(tile as u64)
}

/// Global merge passes after the block sort: runs of `tile << p` are merged while
/// `tile << p < n`, i.e. `ceil(log2(tiles))` passes.
pub const fn global_passes(n: u64, tile: u32) -> u32 {
    let t = tiles(n, tile);
    if t <= 1 { 0 } else { 64 - (t - 1).leading_zeros() }
}

/// Whether the block sort writes to the scratch buffer: with an odd number of global
/// passes, so that the last pass (which alternates from there) writes the caller's.
pub const fn block_sort_to_scratch(passes: u32) -> bool {
    passes % 2 == 1
}

/// Flag of a global pass's merge (its `flags` parameter): the blocks run from the last
/// tile down. The block sort and every pass write their tiles roughly in block order,
/// so at the end of a pass the tiles written last are the ones still in L2; a pass in
/// the other direction reads those first. See [`pass_flags`].
pub const PASS_REVERSED: u32 = 1;
/// Flag of a global pass's merge: its input windows load as last-use data
/// (`ld.global.cs`, evict-first in L2), so that L2 keeps the pass's output for the next
/// pass rather than its input (which is dead: the pass after next overwrites it).
pub const PASS_STREAMING: u32 = 2;

/// Whether the passes of a sort whose buffer holds `bytes` (keys and values) run every
/// other pass reversed and load streaming, `(reversed, streaming)`, on a GPU with `l2`
/// bytes of L2. Measured on an H100 (50 MB of L2; 2026-11-25, docs/history.md, mergepath: "L2 reuse between passes";
/// Gkeys/s, forward / reversed / reversed and streaming): u32 keys 2^23 22.86 / 23.28 /
/// 24.85, 2^24 22.81 / 23.25 / 23.51, 2^25 22.60 / 22.80 / 22.44, 2^28 19.69 / 19.69 /
/// 19.27; u64 2^22 12.16 / 12.06 / 12.94, 2^24 11.64 / 11.67 / 11.64; u32 + u32 pairs
/// 2^22 11.78 / 12.45 / 13.20, 2^24 11.72 / 11.86 / 11.75. So: neither while both
/// buffers fit in L2 (u32 2^22, 32 MB: nothing to keep, and -0.7% reversed); reversed
/// above that; streaming too while the buffer is at most twice the L2 (it wins at 1.3x,
/// loses at 2.7x and costs 1.7% at 2^28).
pub const fn l2_reuse(bytes: u64, l2: u64) -> (bool, bool) {
    let reuse = 2 * bytes > l2;
    (reuse, reuse && bytes <= 2 * l2)
}

/// The flags of global pass `p` (0 = the first after the block sort) with `reversed`
/// and `streaming` allowed ([`l2_reuse`]): the block sort runs forward, so pass 0 is
/// reversed and the direction alternates. Runs and their merges are the same either
/// way; only the order in which blocks are placed and the loads' eviction priority
/// change.
pub const fn pass_flags(p: u32, reversed: bool, streaming: bool) -> u32 {
    let r = if reversed && p.is_multiple_of(2) { PASS_REVERSED } else { 0 };
    r | if streaming { PASS_STREAMING } else { 0 }
}

/// `(first output, outputs)` of block `b`: `tile` outputs, fewer in the last block.
#[inline(always)]
pub const fn block_range(b: u64, tile: u32, n: u64) -> (u64, u32) {
    let start = b * tile as u64;
    let left = n - start;
    (start, if left < tile as u64 { left as u32 } else { tile })
}

#[cfg(target_arch = "nvptx64")]
mod device;

#[cfg(test)]
mod tests;
