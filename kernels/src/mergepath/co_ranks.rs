//! Where the merges' co-ranks come from: the partition kernels (threads and lanes per
//! co-rank), the samples every sorted tile is written with and the ranges of the
//! searches over them, and the passes whose merge blocks find their own co-ranks.

/// Threads per block of the partition kernels.
pub const PARTITION_BLOCK: u32 = 256;
/// Lanes per co-rank of a pass's partition kernel over `tiles` merge blocks on `sms`
/// SMs: a group of that many lanes of a warp searches each co-rank
/// ([`crate::search::co_rank_probe`]). A whole warp while the pass's co-ranks are at
/// most [`PARTITION_WARP_TILES_PER_SM`] per SM (about one wave of partition warps:
/// each search is then a chain of dependent rounds, and 32 probes a round take the
/// fewest), 8 lanes beyond that (four searches a warp; more rounds each, but a quarter
/// of the warps and fewer loads per search). Measured on an H200 (docs/history.md,
/// 2026-11-25), partition kernels per 2^28 sort at 32 / 16 / 8 lanes: u32
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
/// 128 for 4-byte keys, 64 for wider ones. Measured on an H100 (docs/history.md,
/// 2026-11-25): 64 against 32 halved the sample bytes a pass writes
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
/// slower, H100, 2026-11-25; docs/history.md, mergepath: "Look-ahead co-ranks, a guided search, 19 keys for 8-byte keys".) On random keys that leaves at most ~`4 sqrt(k) /
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

/// Whether the blocks of a global-pass merge over `tiles` tiles find their co-ranks
/// themselves (no partition kernel), on a GPU of `sms` SMs. Measured on an H100
/// (2026-11-23; docs/history.md, mergepath: "Sentinels, whole-tile bodies, co-ranks in the merge"): it saves a launch and the partition
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
/// tiles grew to 4,352 (H100, 2026-11-25: 4 / 8 / 16 tiles per SM gave u64
/// 2^22 12.10 / 11.38 / 11.40 Gkeys/s; the tiles are 4,864 since
/// 2026-11-25, not swept again). 4-byte keys alone: 8, two waves of their
/// merge blocks (4 per SM): 4 was best before the passes reused L2 (u32 2^23 22.25 /
/// 21.98 / 21.87 at 4 / 8 / 16), 8 since (2026-11-25: u32 2^23 25.87 against
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
