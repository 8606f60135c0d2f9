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
//! without per-element bound tests (`FULL` in `device.rs`).
//!
//! Index math ([`merge_window`], [`global_passes`], block ranges) is plain Rust
//! shared by the kernels and the host, and `tests.rs` runs a CPU model of the whole
//! pass structure on small tiles with the same functions.
use crate::search::Index;

/// Threads per block of the mergepath merges and of the block sorts of one tile (the
/// wide block sorts take [`sort_width`] times as many).
pub const BLOCK: u32 = 256;
/// Threads per block of the partition kernels.
pub const PARTITION_BLOCK: u32 = 256;
/// Lanes per co-rank of a pass's partition kernel over `tiles` merge blocks on `sms`
/// SMs: a group of that many lanes of a warp searches each co-rank
/// ([`crate::search::co_rank_probe`]). A whole warp while the pass's co-ranks are at
/// most [`PARTITION_WARP_TILES_PER_SM`] per SM (about one wave of partition warps:
/// each search is then a chain of dependent rounds, and 32 probes a round take the
/// fewest), 8 lanes beyond that (four searches a warp; more rounds each, but a quarter
/// of the warps and fewer loads per search). Measured on an H200 (docs/PERFLOG.md,
/// seventeenth session), partition kernels per 2^28 sort at 32 / 16 / 8 lanes: u32
/// 430 / 331 / 260 us, u64 765 / 593 / 443 us (ncu); sorts at 2^28 +0.9% (u32 25.84 ->
/// 26.07 Gkeys/s, u64 12.56 -> 12.67, u32 + u32 pairs 12.97 -> 13.07), at 2^26 u64 +0.6%;
/// but where co-ranks are few, 8 lanes lose: u64 2^22 14.53 -> 13.93, u32 2^24 28.54 ->
/// 27.93.
pub const fn partition_lanes(tiles: u64, sms: u32) -> u32 {
    if tiles <= PARTITION_WARP_TILES_PER_SM * sms as u64 { 32 } else { 8 }
}

/// See [`partition_lanes`]: u32 2^26 (60 tiles per SM of an H100) measured alike at 8
/// and 32 lanes, u64 2^26 (104 per SM) faster at 8.
pub const PARTITION_WARP_TILES_PER_SM: u64 = 64;

/// Lanes per co-rank of the partition of two given runs (`mergepath_pair_partition`): a
/// whole warp, since that search has no samples and every round is a load over the
/// whole remaining range.
pub const PAIR_PARTITION_LANES: u32 = 32;

/// Threads of a partition launch for `tiles` merge blocks, `lanes` per block.
pub const fn partition_threads(tiles: u64, lanes: u32) -> u64 {
    tiles * lanes as u64
}

/// Stride of the *samples* of keys (or records) of `key_bytes` bytes: every kernel
/// that writes a sorted tile also writes the first and the last element of each chunk
/// of this many (`samples[2c]`, `samples[2c + 1]` for chunk `c`), a 2/stride copy
/// (L2-resident while the sort is). The next pass's partition finds each co-rank among
/// the chunk boundaries there first ([`coarse_range`], [`refine_range`]), and only the
/// final round of its search reads the sequence itself: every candidate of the chunk
/// left at once ([`chunk_candidate`]). Tiles are multiples of the stride
/// ([`MAX_SAMPLE`]), so a block's diagonal and its runs' starts are too; that puts every
/// coarse probe `a[stride * c]` at a chunk's first element and its partner
/// `b[k - 1 - stride * c]` at a chunk's last.
///
/// 128 for 4-byte keys, 64 for wider ones. Measured on an H100 (docs/PERFLOG.md,
/// seventeenth session, runs 7-8): 64 against 32 halved the sample bytes a pass writes
/// (3% of its traffic at 32) and with the chunk searched in one round cost no round
/// (u32 +1.3-3.2%, u64 +0.4-2.3%); 128 against 64 gained u32 0.9-3% more (its kernels
/// stop spilling) but cost u64 0.7-1.6% (16 candidates a lane for 8-byte keys in the
/// chunk round), and u32 + u32 pairs measured alike (-0.2%).
pub const fn sample_stride(key_bytes: u32) -> u32 {
    if key_bytes <= 4 { 128 } else { 64 }
}

/// The largest [`sample_stride`]: tiles are whole chunks of it.
pub const MAX_SAMPLE: u32 = 128;

/// Candidate `i` (of `stride / lanes`) of lane `lane` in the final round of a sampled
/// co-rank search over `[lo, lo + stride)`: the lanes of a group of `lanes` together
/// test every candidate of the chunk, so the answer is `lo` plus the number of trues.
#[inline(always)]
pub const fn chunk_candidate(lo: u64, lane: u32, i: u32, lanes: u32) -> u64 {
    lo + lane as u64 + (lanes * i) as u64
}

/// Sample slots of a sequence of `n` keys of `key_bytes` bytes ([`sample_stride`]).
pub const fn sample_slots(n: u64, key_bytes: u32) -> u64 {
    2 * n.div_ceil(sample_stride(key_bytes) as u64)
}

/// Chunk-boundary candidates of the co-rank range `[lo, hi]`: the multiples
/// `stride * c` in it with `c` in `[c0, c1)`; the coarse search finds the first `c` whose
/// predicate is false, or `c1`.
#[inline(always)]
pub const fn coarse_range(lo: u64, hi: u64, stride: u64) -> (u64, u64) {
    (lo.div_ceil(stride), hi.div_ceil(stride))
}

/// The co-rank range left after the coarse search found `cf` (of `[c0, c1]`): after the
/// last true candidate `stride * (cf - 1)` and at or before the first false one
/// `stride * cf`, so at most `stride` candidates.
#[inline(always)]
pub const fn refine_range(lo: u64, hi: u64, stride: u64, c0: u64, c1: u64, cf: u64) -> (u64, u64) {
    let new_lo = if cf > c0 && stride * cf - (stride - 1) > lo { stride * cf - (stride - 1) } else { lo };
    let new_hi = if cf < c1 && stride * cf < hi { stride * cf } else { hi };
    (new_lo, new_hi)
}

/// Chunk-boundary candidate ranges of at least this many chunks start their coarse
/// search with a guided round ([`coarse_guess`]); two plain rounds cover smaller ones.
pub const GUESS_MIN_CHUNKS: u64 = 64;

/// The guess the coarse search of diagonal `k` in a pair of runs of `a_len` and `b_len`
/// elements probes first ([`crate::search::guided_probe`]), as chunk candidates inside
/// `[c0, c1)` (chunks of `stride`): where the co-rank lies if the two runs are sorted
/// draws of one distribution. It is then hypergeometric, centred on
/// `k * a_len / (a_len + b_len)`, with a standard deviation `s` of at most `sqrt(m) / 2`
/// where `m = min(k, a_len + b_len - k)`; the guess spans `2^ceil(bits(m) / 2)` (2 to 4
/// `s`) each side, and a chunk more for rounding. (A power of two: with `u64::isqrt`
/// the partition kernels took 46-48 registers instead of 40 and the 2^24 ones were 10%
/// slower, sixteenth session run 3.) On random keys that leaves at most ~`4 sqrt(k) /
/// 29` candidates after the first round where the plain search leaves `(c1 - c0) /
/// 33`: at 2^27 a coarse search of 3 rounds instead of 5. Runs of other shapes cost at
/// most one round more, and sorted or reversed runs (the answer at an end) take one
/// round. `None` for ranges under [`GUESS_MIN_CHUNKS`].
#[inline(always)]
pub fn coarse_guess(k: u64, a_len: u64, b_len: u64, (c0, c1): (u64, u64), stride: u64) -> Option<(u64, u64)> {
    if c1 - c0 < GUESS_MIN_CHUNKS {
        return None;
    }
    let total = a_len + b_len;
    let center = (k as f32 * (a_len as f32 / total as f32)) as u64;
    let m = if k < total - k { k } else { total - k };
    let spread = (1u64 << (64 - m.leading_zeros()).div_ceil(2)) + stride;
    let g0 = (center.saturating_sub(spread) / stride).clamp(c0, c1 - 1);
    let g1 = (center + spread).div_ceil(stride).clamp(g0, c1 - 1);
    Some((g0, g1))
}

/// Elements per thread of the kernels that sort elements of `bytes` bytes alone (keys
/// or records). Odd counts keep a thread's consecutive shared-memory words on distinct
/// banks (stride `items` words for 4-byte keys). Wider elements hold more registers
/// each, so fewer of them. 4-byte keys: 33, so that the tile (8,448 keys, 16,896 in
/// the wide block sort) is past twice the old one and one global pass falls away at
/// every size from 2^18 up; their register sort is a sorting network
/// ([`crate::block::network`]), cheaper per key at 33 than odd-even transposition at
/// 19. 8-byte keys: 19 (a wide run of 19,456 keys; 17 gave one pass fewer than 13 at
/// 17,408, and 19 against 17 was +1.1-2.5% from 2^24 up, -2.5% at 2^20 and -0.9% at 2^23
/// on an H100, sixteenth session run 6: fewer tiles, so fewer co-ranks, and each
/// thread's search serves more keys; the wide block sort spills nothing at 19 where
/// it spilled 12 bytes at 17). Earlier steps were measured (docs/PERFLOG.md,
/// 2026-11-23 fourth session): 19 against 15 for 4-byte keys was +8% at 2^24 (one pass
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
/// less latency), so the gain is small. Measured on an H100 (docs/PERFLOG.md,
/// thirteenth session; widths 1 / 2 / 4 at 2^24 and 2^28): u32 keys 20.5 / 20.9 / 20.7
/// and 17.6 / 17.9 / 17.9 Gkeys/s, u64 keys 10.4 / 10.2 / 10.7 and 8.6 / 8.5 / 8.9,
/// pairs of u32 keys and values 11.1 / 10.9 / 11.4 and 9.2 / 9.2 / 9.7. So 4 for 8-byte
/// keys and for pairs, and 1 (the 256-thread kernels) for records and where the wide
/// tile would not fit [`SMEM_OPTIN_SM90`] (4-byte keys with 8-byte values). 4-byte keys
/// alone took 2 until their tiles grew to 8,448 keys; at width 4 (runs of 33,792) they
/// need a pass fewer at 2^24 and 2^28 (9 and 13), and with the warp-local early rounds
/// ([`warp_local_round`]) width 4 measured u32 24.53 / 22.78 / 20.64 Gkeys/s at 2^24 /
/// 2^26 / 2^28 against 24.05 / 22.32 / 20.13 at width 2 (seventeenth session, H100); they
/// fall back to 2 ([`narrower_sort_width`]) below 1.75 waves of width-4 blocks.
/// Since the eighteenth session 4-byte keys alone take 8: clusters of two width-4
/// blocks ([`cluster_ctas`]), runs of 67,584 keys, a pass fewer again (12 at 2^28).
/// Measured on an H100 (docs/PERFLOG.md, eighteenth session, run 6, against width 4
/// in the same call, u32 2^23 .. 2^28): +0.7-2.3% (2^28 21.45 / 21.50 against 21.20 /
/// 21.20 Gkeys/s). In ncu (base clocks, kernels one at a time) the cluster round costs
/// about what the pass and partition it saves do at 2^28 (0.74 against 0.75 ms); at
/// full clocks, with two launches fewer, the sort gains 1.2-1.4% there. Width 16 (clusters
/// of four) lost 4-13% (run 3): an H100 runs only 30 such clusters at once (120 of its
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
/// width 4. Measured on an H100 (eighteenth session, runs 8-9, widths forced), u32 keys
/// at widths 2 / 4 / 8: 6,500,000 keys (1.46 waves of width-4 blocks) 25.11-25.19 /
/// 24.06-24.08 / 24.09-24.13 Gkeys/s, 6,700,000 (1.50) 26.25-26.28 / 26.37-26.38 /
/// 26.13-26.15, 7,100,000 (1.60) 26.54-26.56 / 26.69-26.72 / 26.68-26.70, 7,500,000
/// (1.68) 26.90-26.95 / 27.37-27.41 / 27.06-27.16, 2^23 (1.88) 28.13-28.21 / 28.40 /
/// 28.63-28.68; f32 alike, with width 8 ahead from 7.1 M. (The seventeenth session, on
/// an H200, widths 2 / 4: 4.6 M 23.37 / 21.57, 6.0 M 26.01 / 24.67.)
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
/// `device.rs`), so that the global passes start at runs of `w` tiles.
pub const fn cluster_ctas(w: u32) -> u32 {
    if w > 4 { w / 4 } else { 1 }
}

/// Merge tiles per block of the block sort of width `w`: `w`, or `w / cluster_ctas(w)`
/// for a cluster's blocks. A block has `BLOCK` threads and the shared memory of
/// [`tiles_smem_bytes`] per tile of it.
pub const fn block_tiles(w: u32) -> u32 {
    w / cluster_ctas(w)
}

/// The cluster kernels and their blocks per cluster: the host launches them with that
/// cluster shape, and only from the sm_90 cubin (their cluster instructions are
/// comments elsewhere, see `gpu::cluster_sync`).
pub const CLUSTER_KERNELS: &[(&str, u32)] = &[
    ("mergepath_block_sort_x8_f32", cluster_ctas(8)),
    ("mergepath_block_sort_x8_i32", cluster_ctas(8)),
    ("mergepath_block_sort_x8_u32", cluster_ctas(8)),
];

/// The exchange of a cluster of two blocks (`cluster_pair_round` in `device.rs`), whose
/// tiles `A` (block 0's, `tile` elements) and `B` (block 1's) are merged into one run:
/// with `i` the co-rank of the diagonal `tile` (block 0's outputs are `A[..i]` and
/// `B[..m]`, `m = tile - i`; block 1's are `A[i..]` and `B[m..]`), each block receives
/// the `m` elements it lacks from the other, which gives up exactly those. Returns
/// `(src, dst, a, m)`: block `rank` reads the other block's slots `src..src + m` into
/// its own slots `dst..dst + m`, and then holds its pair as `a` elements of `A` then
/// the rest of `B`, in input order (`A` first, so ties keep the stable order).
#[inline(always)]
pub const fn pair_swap(rank: u32, i: u32, tile: u32) -> (u32, u32, u32, u32) {
    let m = tile - i;
    if rank == 0 { (0, i, i, m) } else { (i, 0, m, m) }
}

/// Whether the blocks of a global-pass merge over `tiles` tiles find their co-ranks
/// themselves (no partition kernel), on a GPU of `sms` SMs. Measured on an H100
/// (docs/PERFLOG.md, 2026-11-23 fourth session): it saves a launch and the partition
/// kernel's latency per pass when the merge runs in one or two waves (u32 keys: 2^20
/// 11.0 -> 14.0 Gkeys/s, 2^22 19.0 -> 20.9), but in the many-wave merges of large
/// inputs a block's search delays its loads more than the separate kernel costs (u32
/// 2^23 18.8 -> 17.9 at 16 tiles per SM, 2^24 19.7 -> 18.2 always in the merge).
pub const fn co_ranks_in_merge(tiles: u64, sms: u32, tiles_per_sm: u32) -> bool {
    tiles <= tiles_per_sm as u64 * sms as u64
}

/// The default `tiles_per_sm` of [`co_ranks_in_merge`] for keys of `key_bytes` with
/// values of `value_bytes` (0: keys alone). Pairs: 8, from the sweep above (2, 4, 8 and
/// 16 tried at 2^21..2^23, tiles of 4,864 and 3,328). 8-byte keys alone: 4 since their
/// tiles grew to 4,352 (fourteenth session, H100: 4 / 8 / 16 tiles per SM gave u64
/// 2^22 12.10 / 11.38 / 11.40 Gkeys/s; the tiles are 4,864 since the sixteenth
/// session, not swept again). 4-byte keys alone: 8, two waves of their
/// merge blocks (4 per SM): 4 was best before the passes reused L2 (u32 2^23 22.25 /
/// 21.98 / 21.87 at 4 / 8 / 16), 8 since (fifteenth session: u32 2^23 25.87 against
/// 24.85; 2^22 and 2^24 take the same path either way).
pub const fn co_ranks_in_merge_per_sm(key_bytes: u32, value_bytes: u32) -> u32 {
    match (key_bytes, value_bytes) {
        (0..=4, 0) => 8,
        (_, 0) => 4,
        _ => 8,
    }
}

/// Byte offset, in the shared memory of a global-pass merge whose tile (and values)
/// take `tile_bytes`, of the block's two co-ranks (`u64`s, found in the kernel).
pub const fn co_ranks_offset(tile_bytes: u32) -> u32 {
    tile_bytes.next_multiple_of(8)
}

/// Shared memory of a global-pass merge kernel whose tile (and values) take
/// `tile_bytes`: those, then its two co-ranks.
pub const fn pass_smem_bytes(tile_bytes: u32) -> u32 {
    co_ranks_offset(tile_bytes) + 16
}

/// Block-sort round `log_run` (merging runs of `items << log_run`): the pair of runs
/// that thread `t`'s outputs belong to. In shared memory every pair is followed by
/// one sentinel slot, so position `x` of pair `p` sits at slot `x + p`.
#[inline(always)]
pub const fn pair_index(t: u32, log_run: u32) -> u32 {
    t >> (log_run + 1)
}

/// Whether block-sort round `log_run` keeps its pairs *dense* (no sentinel slots, no
/// shift per pair): while a pair is shorter than a warp (`2^(log_run + 1)` threads' outputs <
/// 32), one warp's stores span several pairs, and a shift per pair breaks the odd
/// stride of a thread's consecutive outputs (bank conflicts: 1.6-way stores in ncu,
/// 2^24 u32). Those rounds keep a warp's pairs adjacent (shifted by the warp index
/// alone) and their merges test `B`'s end instead (two instructions a step); later
/// rounds shift a whole warp alike.
#[inline(always)]
pub const fn dense_round(log_run: u32) -> bool {
    (2u32 << log_run) < crate::block::WARP
}

/// Whether block-sort round `log_run` stays inside each warp: its pairs span at most a
/// warp's threads, and every slot a warp reads or writes in it (its region, and the
/// slot after the region: a merge may read one past `B`'s end, and the round with
/// pairs of a warp puts its sentinel there) lies outside the other warps' regions
/// (see [`round_shift`]). In a whole tile such rounds are ordered by warp barriers
/// alone; a partial tile's threads may read past their pair's end (outputs nobody
/// stores) into the next warp's slots, so it keeps block barriers.
#[inline(always)]
pub const fn warp_local_round(log_run: u32) -> bool {
    (2u32 << log_run) <= crate::block::WARP
}

/// The slot shift of thread `t`'s pair in block-sort round `log_run`: its pair index
/// (one sentinel slot after each pair before it), or in a [`dense_round`] its warp
/// index, so that every warp's region is followed by a slot no other warp touches
/// before the first block-wide round ([`warp_local_round`]).
#[inline(always)]
pub const fn round_shift(t: u32, log_run: u32) -> u32 {
    if dense_round(log_run) { t / crate::block::WARP } else { pair_index(t, log_run) }
}

/// The sentinel slot thread `t` writes before block-sort round `log_run` (over `count`
/// elements, `items` per thread): the slot after its pair, when its outputs end that
/// pair (the last full thread of the pair, or the one holding the tile's last
/// element); `None` otherwise, and always in a [`dense_round`].
///
/// Why sentinels: a merge step must not take the head of an exhausted run. With the
/// largest word after `B`, `B`'s head compares `>=` every `A` head once `B` is
/// exhausted, and the stability rule (`A` first on ties) then takes from `A`; so only
/// `A`'s end needs a test. The merge is exactly the unguarded one, ties and all.
#[inline(always)]
pub const fn round_sentinel(t: u32, items: u32, count: u32, log_run: u32) -> Option<u32> {
    let first = t * items;
    if first >= count || dense_round(log_run) {
        return None;
    }
    let end = if first + items < count { first + items } else { count };
    if end == count || (t + 1).is_multiple_of(2 << log_run) { Some(end + pair_index(t, log_run)) } else { None }
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
/// bytes of L2. Measured on an H100 (50 MB of L2; docs/PERFLOG.md, fifteenth session,
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

/// Where a unit of `unit_len` outputs sits in the pairwise merge of runs of
/// `unit_len << log_run` elements over a sequence of `len` elements.
///
/// A *unit* is a thread's `ITEMS` outputs inside a tile (block sort) or a block's
/// tile inside the array (global pass). Runs are aligned to multiples of the run
/// width, so the pair holding unit `u` starts at unit `(u >> (log_run + 1)) <<
/// (log_run + 1)`: no division.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window<I> {
    /// First element of the pair (of its left run `A`).
    pub start: I,
    /// Length of `A` (`run`, or less when the sequence ends inside it).
    pub a_len: I,
    /// Length of the right run `B`, which starts at `start + a_len` (0 when `A` has
    /// no partner).
    pub b_len: I,
    /// The unit's first output, counted from `start`: its merge-path diagonal.
    pub diag: I,
}

/// [`Window`] of unit `unit`. Requires `unit * unit_len < len` (the unit has outputs).
#[inline(always)]
pub fn merge_window<I: Index + core::ops::Mul<Output = I>>(unit: I, log_run: u32, unit_len: I, len: I) -> Window<I> {
    let first_unit = (unit >> (log_run + 1)) << (log_run + 1);
    let start = first_unit * unit_len;
    let run = unit_len << log_run;
    let mid = if len - start < run { len } else { start + run };
    let end = if len - mid < run { len } else { mid + run };
    Window { start, a_len: mid - start, b_len: end - mid, diag: unit * unit_len - start }
}

/// [`Window`] of block `b` (tiles of `tile` outputs) in the merge of two given runs:
/// `A` = the first `a_len` elements, `B` = the next `b_len` (runs of any lengths, e.g.
/// the parts two GPUs sent each other in the multi-GPU sort).
#[inline(always)]
pub const fn pair_window(b: u64, tile: u32, a_len: u64, b_len: u64) -> Window<u64> {
    Window { start: 0, a_len, b_len, diag: b * tile as u64 }
}

/// The sequential merge's choice, the stability rule in one line: take the head of
/// `A` when `B` is exhausted, or when `A` has one and it is `<=` the head of `B`.
/// (`a`/`b` may be garbage once their run is exhausted; they are not looked at then.)
#[inline(always)]
pub fn take_a<B: Ord>(i: u32, a_len: u32, j: u32, b_len: u32, a: B, b: B) -> bool {
    j >= b_len || (i < a_len && a <= b)
}

/// Co-rank bounds of block `b` in a global pass over runs of `tile << log_run_tiles`:
/// `(i0, i1)`, the numbers of `A` elements before its first and after its last output,
/// given `parts[b]` and (when the block is not the last of its pair) `parts[b + 1]`.
/// The last block of a pair ends at the pair's end, where the co-rank is `a_len`.
#[inline(always)]
pub fn block_co_ranks(w: &Window<u64>, count: u32, part: u64, next_part: impl FnOnce() -> u64) -> (u64, u64) {
    let end = if w.diag + count as u64 == w.a_len + w.b_len { w.a_len } else { next_part() };
    (part, end)
}

/// Blocks per SM for a kernel measured best at `blocks_of_256` blocks of 256 threads:
/// the same threads per SM (so the same register budget) at any [`BLOCK`].
const fn per_sm(blocks_of_256: u32) -> u32 {
    let b = blocks_of_256 * 256 / BLOCK;
    if b == 0 { 1 } else { b }
}

/// Launch bounds (see [`crate::LAUNCH_BOUNDS`]), chosen by measurement (docs/PERFLOG.md,
/// 2026-11-23): 4 blocks per SM for the key-only kernels of 4-byte keys (at most 64
/// registers), 3 for 8-byte keys and for the key-value kernels (at most 80; the
/// 4-byte-key value merges spill 12-20 bytes there and are still faster than at 2
/// blocks per SM), 2 for records. The global-pass merges of u32 and i32 keys with
/// 4-byte values run 4 (fifteenth session, H100, at 4 against 3: u32 and u32 pairs
/// 2^22 14.05 against 13.23 Gkeys/s, 2^24 12.10 against 11.93, 2^28 9.98 against 9.93;
/// i32 and u32 2^24 12.11 against 11.91; ptxas reports 136 bytes of spill stores over
/// the kernel's four bodies, 68 at 3); f32 keys, whose merge spills more (104 bytes),
/// lost there (11.79 against 12.00) and keep 3.
pub const LAUNCH_BOUNDS: &[(&str, u32, u32)] = &[
    ("mergepath_block_sort_u32", BLOCK, per_sm(4)),
    ("mergepath_block_sort_i32", BLOCK, per_sm(4)),
    ("mergepath_block_sort_f32", BLOCK, per_sm(4)),
    ("mergepath_block_sort_u64", BLOCK, per_sm(3)),
    ("mergepath_block_sort_i64", BLOCK, per_sm(3)),
    ("mergepath_block_sort_f64", BLOCK, per_sm(3)),
    ("mergepath_block_sort_entity", BLOCK, per_sm(2)),
    ("mergepath_merge_u32", BLOCK, per_sm(4)),
    ("mergepath_merge_i32", BLOCK, per_sm(4)),
    ("mergepath_merge_f32", BLOCK, per_sm(4)),
    ("mergepath_merge_u64", BLOCK, per_sm(3)),
    ("mergepath_merge_i64", BLOCK, per_sm(3)),
    ("mergepath_merge_f64", BLOCK, per_sm(3)),
    ("mergepath_merge_entity", BLOCK, per_sm(2)),
    ("mergepath_pair_merge_u32", BLOCK, per_sm(4)),
    ("mergepath_pair_merge_i32", BLOCK, per_sm(4)),
    ("mergepath_pair_merge_f32", BLOCK, per_sm(4)),
    ("mergepath_pair_merge_u64", BLOCK, per_sm(3)),
    ("mergepath_pair_merge_i64", BLOCK, per_sm(3)),
    ("mergepath_pair_merge_f64", BLOCK, per_sm(3)),
    ("mergepath_pair_merge_entity", BLOCK, per_sm(2)),
    ("mergepath_pair_merge_kv_u32_v32", BLOCK, per_sm(3)),
    ("mergepath_pair_merge_kv_u32_v64", BLOCK, per_sm(3)),
    ("mergepath_pair_merge_kv_i32_v32", BLOCK, per_sm(3)),
    ("mergepath_pair_merge_kv_i32_v64", BLOCK, per_sm(3)),
    ("mergepath_pair_merge_kv_f32_v32", BLOCK, per_sm(3)),
    ("mergepath_pair_merge_kv_f32_v64", BLOCK, per_sm(3)),
    ("mergepath_pair_merge_kv_u64_v32", BLOCK, per_sm(3)),
    ("mergepath_pair_merge_kv_u64_v64", BLOCK, per_sm(3)),
    ("mergepath_pair_merge_kv_i64_v32", BLOCK, per_sm(3)),
    ("mergepath_pair_merge_kv_i64_v64", BLOCK, per_sm(3)),
    ("mergepath_pair_merge_kv_f64_v32", BLOCK, per_sm(3)),
    ("mergepath_pair_merge_kv_f64_v64", BLOCK, per_sm(3)),
    ("mergepath_block_sort_kv_u32_v32", BLOCK, per_sm(3)),
    ("mergepath_block_sort_kv_u32_v64", BLOCK, per_sm(3)),
    ("mergepath_block_sort_kv_i32_v32", BLOCK, per_sm(3)),
    ("mergepath_block_sort_kv_i32_v64", BLOCK, per_sm(3)),
    ("mergepath_block_sort_kv_f32_v32", BLOCK, per_sm(3)),
    ("mergepath_block_sort_kv_f32_v64", BLOCK, per_sm(3)),
    ("mergepath_block_sort_kv_u64_v32", BLOCK, per_sm(3)),
    ("mergepath_block_sort_kv_u64_v64", BLOCK, per_sm(3)),
    ("mergepath_block_sort_kv_i64_v32", BLOCK, per_sm(3)),
    ("mergepath_block_sort_kv_i64_v64", BLOCK, per_sm(3)),
    ("mergepath_block_sort_kv_f64_v32", BLOCK, per_sm(3)),
    ("mergepath_block_sort_kv_f64_v64", BLOCK, per_sm(3)),
    ("mergepath_merge_kv_u32_v32", BLOCK, per_sm(4)),
    ("mergepath_merge_kv_u32_v64", BLOCK, per_sm(3)),
    ("mergepath_merge_kv_i32_v32", BLOCK, per_sm(4)),
    ("mergepath_merge_kv_i32_v64", BLOCK, per_sm(3)),
    ("mergepath_merge_kv_f32_v32", BLOCK, per_sm(3)),
    ("mergepath_merge_kv_f32_v64", BLOCK, per_sm(3)),
    ("mergepath_merge_kv_u64_v32", BLOCK, per_sm(3)),
    ("mergepath_merge_kv_u64_v64", BLOCK, per_sm(3)),
    ("mergepath_merge_kv_i64_v32", BLOCK, per_sm(3)),
    ("mergepath_merge_kv_i64_v64", BLOCK, per_sm(3)),
    ("mergepath_merge_kv_f64_v32", BLOCK, per_sm(3)),
    ("mergepath_merge_kv_f64_v64", BLOCK, per_sm(3)),
    // The wide block sorts (`sort_width`, `narrower_sort_width`): two blocks of 512
    // threads per SM, or one of 1,024 (at most 64 registers, as the 256-thread kernels
    // at four blocks).
    ("mergepath_block_sort_x2_u32", 2 * BLOCK, 2),
    ("mergepath_block_sort_x2_i32", 2 * BLOCK, 2),
    ("mergepath_block_sort_x2_f32", 2 * BLOCK, 2),
    ("mergepath_block_sort_x4_u32", 4 * BLOCK, 1),
    ("mergepath_block_sort_x4_i32", 4 * BLOCK, 1),
    ("mergepath_block_sort_x4_f32", 4 * BLOCK, 1),
    ("mergepath_block_sort_x4_u64", 4 * BLOCK, 1),
    ("mergepath_block_sort_x4_i64", 4 * BLOCK, 1),
    ("mergepath_block_sort_x4_f64", 4 * BLOCK, 1),
    ("mergepath_block_sort_x8_u32", 4 * BLOCK, 1),
    ("mergepath_block_sort_x8_i32", 4 * BLOCK, 1),
    ("mergepath_block_sort_x8_f32", 4 * BLOCK, 1),
    ("mergepath_block_sort_kv_x4_u32_v32", 4 * BLOCK, 1),
    ("mergepath_block_sort_kv_x4_i32_v32", 4 * BLOCK, 1),
    ("mergepath_block_sort_kv_x4_f32_v32", 4 * BLOCK, 1),
    ("mergepath_block_sort_kv_x4_u64_v32", 4 * BLOCK, 1),
    ("mergepath_block_sort_kv_x4_i64_v32", 4 * BLOCK, 1),
    ("mergepath_block_sort_kv_x4_f64_v32", 4 * BLOCK, 1),
    ("mergepath_block_sort_kv_x4_u64_v64", 4 * BLOCK, 1),
    ("mergepath_block_sort_kv_x4_i64_v64", 4 * BLOCK, 1),
    ("mergepath_block_sort_kv_x4_f64_v64", 4 * BLOCK, 1),
];

#[cfg(target_arch = "nvptx64")]
mod device;

#[cfg(test)]
mod tests;
