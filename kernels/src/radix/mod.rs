//! `radix`: least-significant-digit radix sort in the style of Onesweep (Adinets and
//! Merrill, 2022), 8-bit digits.
//!
//! The passes over `n` keys of `K` bits (8, 16, 32 or 64), with `P = ceil((end_bit -
//! begin_bit) / 8)` digit passes:
//!
//! 1. `radix_hist`: one read of the keys builds the digit histograms of *all* passes
//!    (shared-memory counters, one word per lane so that a warp's adds do not collide
//!    ([`hist`]), then global `u64` sums). The last block to finish scans
//!    each pass's histogram into global digit offsets and writes the *plan*: a pass
//!    whose histogram puts every key under one digit moves nothing and is skipped, and
//!    the plan says which of the two buffers each pass reads (`PLAN_*`).
//! 2. `radix_onesweep`, once per pass (and per *portion* of at most
//!    [`portion_tiles`] tiles, so every count fits the 30 bits of a status word): each
//!    block takes the next tile id from an atomic counter (so a block only ever waits
//!    for tiles taken by blocks already running: no deadlock whatever the scheduling
//!    order), ranks its tile's keys by digit in shared memory
//!    (`block::rank::rank_by_digit`), publishes its per-digit counts and finds the
//!    counts of all earlier tiles by a decoupled look-back over per-tile status words
//!    (`FLAG_AGGREGATE`: this tile's count only; `FLAG_PREFIX`: inclusive of all
//!    earlier tiles), then writes its keys (and values) from shared memory to their
//!    global positions, runs of equal digits contiguous. The first pass of keys alone
//!    sorted by all their bits (`radix_onesweep_first`) ranks ties in any order
//!    (`block::rank::rank_tile`, an atomic increment per key in place of matching the
//!    lanes of a digit): keys of one digit are then either put in order by a later
//!    pass or are the same key.
//! 3. `radix_copy_back`: when the plan left the result in the scratch buffer (an odd
//!    number of passes ran), copies it back.
//!
//!    The plan by buckets ([`buckets_plan`]; split sorts of 4- and 8-byte keys the host
//!    allows it for, up to a few million keys): when every group of the top digit fits
//!    one block's tile, the histogram's last block plans only the top digit's pass
//!    (the lower passes are launched and skip), and `radix_buckets`, launched in place
//!    of the copy-back, sorts each group by the lower digits in one block in shared
//!    memory ([`buckets_fit`]). Where a group is too large (few distinct keys, skewed
//!    top bits) the plan is the digit passes' and `radix_buckets` is the copy-back.
//!    Either way the result is the stable sort's.
//!
//! 4. Argsort of `u32` keys (`radix_onesweep_arg_k32_i32` / `_i64`): the packed passes
//!    ([`Packing::Through`]) with the value made, not read: the first pass that runs
//!    reads the caller's keys (left unchanged) and packs each, as its order bits, with
//!    its position (so every pass ranks unsigned words); the last writes only the
//!    index half of each word, as `u32` or `u64`;
//!    `radix_arg_back` covers the plans where fewer than two passes ran ([`ArgFinish`]).
//!    `radix_onesweep_arg_any_k32_i32` / `_i64`: the same passes for an argsort whose
//!    ties may come out in any order, whose first pass ranks ties as
//!    `radix_onesweep_first` does.
//!    About 60 bytes a key (histogram 4, first pass 4 + 8, two middle passes 16 each,
//!    last pass 8 + 4 or 8), against about 92 for a copy of the keys, an iota, the
//!    pair sort and a widening.
//!
//! Inputs of at most [`small_max`] keys are sorted by one block in shared memory in
//! one launch (`radix_small`; `radix_small_short` and `radix_small_mid` with fewer
//! items per thread for fewer keys, [`small_items`]).
//!
//! 5. `radix_fused` (32- and 64-bit keys alone, `u32` keys with `u32` values, up to
//!    [`FUSED_MAX`]): steps 1 to 3 in
//!    one cooperative launch whose blocks are all resident, separated by grid-wide
//!    barriers, on tiles sized so that a pass's tiles fit the resident blocks
//!    ([`fused_choice`]); the look-back and the plan are the same code.
//!
//! Keys are moved as raw words; the order bits are derived on the fly by
//! `raw ^ mask(sign)` ([`crate::key::BitOrder::masks`]), so signed integers, IEEE
//! total order for floats and descending order cost nothing extra. Stable: a tile's
//! keys are ranked in tile order and tiles are laid out in tile order (the first pass
//! of keys alone by all their bits excepted, where the order of ties cannot show).

/// Threads per block of the tile kernels.
pub const BLOCK: u32 = 384;
/// Warps per block of the tile kernels.
pub const WARPS: u32 = BLOCK / 32;
/// Bits per digit and digits per pass. The `digit-bits-7` and `digit-bits-6`
/// experiments (32-bit keys only: 64-bit keys would need more than [`MAX_PASSES`])
/// measure narrower digits (docs/history.md, 2026-11-24).
#[cfg(not(any(feature = "digit-bits-7", feature = "digit-bits-6")))]
pub const DIGIT_BITS: u32 = 8;
#[cfg(feature = "digit-bits-7")]
pub const DIGIT_BITS: u32 = 7;
#[cfg(all(feature = "digit-bits-6", not(feature = "digit-bits-7")))]
pub const DIGIT_BITS: u32 = 6;
pub const DIGITS: u32 = 1 << DIGIT_BITS;
/// Largest number of passes (64-bit keys).
pub const MAX_PASSES: u32 = 8;
/// Threads per block of the histogram kernel: one block per SM, since its counters
/// ([`hist::COUNTER_BYTES`]) leave room for one block only.
pub const HIST_BLOCK: u32 = 1024;

/// Status word flags of the look-back (the low 30 bits hold a count).
pub const FLAG_AGGREGATE: u32 = 1 << 30;
pub const FLAG_PREFIX: u32 = 2 << 30;
pub const FLAG_MASK: u32 = 3 << 30;
pub const VALUE_MASK: u32 = (1 << 30) - 1;

/// Plan entries: which buffer a pass reads (`PLAN_FROM_A`: the caller's, its output
/// going to the scratch buffer; `PLAN_FROM_B`: the reverse), or `PLAN_SKIP`.
/// Entry [`MAX_PASSES`] says where the sorted keys ended (A or B).
pub const PLAN_FROM_A: u32 = 0;
pub const PLAN_FROM_B: u32 = 1;
pub const PLAN_SKIP: u32 = 2;
/// Packed pair sorts ([`Packing`]): the pass reads the caller's separate key and value
/// arrays (and packs each pair into one word) instead of its packed source buffer.
pub const PLAN_LOAD_SPLIT: u32 = 4;
/// Packed pair sorts: the pass writes the caller's separate arrays (unpacking each
/// word) instead of its packed destination buffer.
pub const PLAN_STORE_SPLIT: u32 = 8;
/// Entry [`MAX_PASSES`] of a plan by buckets ([`buckets_plan`]): the top digit's pass
/// left the keys in buffer B grouped by that digit, and the bucket kernel
/// (`radix_buckets`) sorts each group by the lower digits into buffer A.
pub const PLAN_BUCKETS: u32 = 16;

/// Launch bounds of the tile kernels (see [`crate::LAUNCH_BOUNDS`]): three blocks of
/// [`BLOCK`] threads per SM, so that one block's look-back or barrier wait overlaps
/// the others' loads and ranking (at most 56 registers per thread). The histogram:
/// one block of [`HIST_BLOCK`] threads per SM, so a launch of that size cannot fail
/// for want of registers (at most 64).
pub const LAUNCH_BOUNDS: &[(&str, u32, u32)] = &[
    ("radix_hist_k32", HIST_BLOCK, 1),
    ("radix_hist_k64", HIST_BLOCK, 1),
    ("radix_hist_k16", HIST_BLOCK, 1),
    ("radix_hist_k8", HIST_BLOCK, 1),
    ("radix_hist_nan_f32", HIST_BLOCK, 1),
    ("radix_hist_nan_f16", HIST_BLOCK, 1),
    ("radix_hist_nan_bf16", HIST_BLOCK, 1),
    ("radix_hist_check_f32", HIST_BLOCK, 1),
    ("radix_hist_check_f64", HIST_BLOCK, 1),
    ("radix_hist_check_f16", HIST_BLOCK, 1),
    ("radix_hist_check_bf16", HIST_BLOCK, 1),
    ("radix_onesweep_k16", BLOCK, 3),
    ("radix_onesweep_k16_v32", BLOCK, 2),
    ("radix_onesweep_k8", BLOCK, 3),
    ("radix_onesweep_k8_v32", BLOCK, 2),
    ("radix_onesweep_short_k16", BLOCK, 3),
    ("radix_onesweep_short_k16_v32", BLOCK, 2),
    ("radix_onesweep_short_k8", BLOCK, 3),
    ("radix_onesweep_short_k8_v32", BLOCK, 2),
    ("radix_small_k16", BLOCK, 1),
    ("radix_small_k16_v32", BLOCK, 1),
    ("radix_small_k8", BLOCK, 1),
    ("radix_small_k8_v32", BLOCK, 1),
    ("radix_small_short_k16", BLOCK, 1),
    ("radix_small_short_k16_v32", BLOCK, 1),
    ("radix_small_short_k8", BLOCK, 1),
    ("radix_small_short_k8_v32", BLOCK, 1),
    ("radix_small_mid_k16", BLOCK, 1),
    ("radix_small_mid_k16_v32", BLOCK, 1),
    ("radix_small_mid_k8", BLOCK, 1),
    ("radix_small_mid_k8_v32", BLOCK, 1),
    ("radix_onesweep_k32", BLOCK, 3),
    ("radix_onesweep_first_k32", BLOCK, 3),
    ("radix_onesweep_first_k64", BLOCK, 2),
    ("radix_onesweep_first_k16", BLOCK, 3),
    ("radix_onesweep_first_k8", BLOCK, 3),
    ("radix_onesweep_k32_v32", BLOCK, 2),
    ("radix_onesweep_k32_v64", BLOCK, 2),
    ("radix_onesweep_k64", BLOCK, 2),
    ("radix_onesweep_k64_v32", BLOCK, 2),
    ("radix_onesweep_k64_v64", BLOCK, 2),
    ("radix_onesweep_packed_k32_v32", BLOCK, PACKED_BLOCKS_PER_SM),
    ("radix_onesweep_packed_int_k32_v32", BLOCK, PACKED_BLOCKS_PER_SM),
    ("radix_onesweep_arg_k32_i32", BLOCK, PACKED_BLOCKS_PER_SM),
    ("radix_onesweep_arg_k32_i64", BLOCK, PACKED_BLOCKS_PER_SM),
    ("radix_onesweep_arg_any_k32_i32", BLOCK, PACKED_BLOCKS_PER_SM),
    ("radix_onesweep_arg_any_k32_i64", BLOCK, PACKED_BLOCKS_PER_SM),
    ("radix_onesweep_arg_k16_i32", BLOCK, PACKED_BLOCKS_PER_SM),
    ("radix_onesweep_arg_k16_i64", BLOCK, PACKED_BLOCKS_PER_SM),
    ("radix_onesweep_arg_any_k16_i32", BLOCK, PACKED_BLOCKS_PER_SM),
    ("radix_onesweep_arg_any_k16_i64", BLOCK, PACKED_BLOCKS_PER_SM),
    ("radix_onesweep_carry_k16", BLOCK, PACKED_BLOCKS_PER_SM),
    ("radix_onesweep_short_k32", BLOCK, 3),
    ("radix_onesweep_short_k32_v32", BLOCK, 2),
    ("radix_onesweep_short_k32_v64", BLOCK, 2),
    ("radix_onesweep_short_k64", BLOCK, 2),
    ("radix_onesweep_short_k64_v32", BLOCK, 2),
    ("radix_onesweep_short_k64_v64", BLOCK, 2),
    ("radix_fused_k32_i4", BLOCK, FUSED_BLOCKS_PER_SM),
    ("radix_fused_k32_i8", BLOCK, FUSED_BLOCKS_PER_SM),
    ("radix_fused_k32_i12", BLOCK, FUSED_BLOCKS_PER_SM),
    ("radix_fused_k32_i20", BLOCK, FUSED_BLOCKS_PER_SM),
    ("radix_fused_k64_i4", BLOCK, FUSED_BLOCKS_PER_SM),
    ("radix_fused_k64_i8", BLOCK, FUSED_BLOCKS_PER_SM),
    ("radix_fused_k64_i12", BLOCK, FUSED_BLOCKS_PER_SM),
    ("radix_fused_k32_v32_i8", BLOCK, FUSED_PAIRS_BLOCKS_PER_SM),
    ("radix_fused_k32_v32_i12", BLOCK, FUSED_PAIRS_BLOCKS_PER_SM),
    ("radix_fused_k32_v32_i23", BLOCK, FUSED_PAIRS_BLOCKS_PER_SM),
    ("radix_small_k32", BLOCK, 1),
    ("radix_small_k32_v32", BLOCK, 1),
    ("radix_small_k32_v64", BLOCK, 1),
    ("radix_small_k64", BLOCK, 1),
    ("radix_small_k64_v32", BLOCK, 1),
    ("radix_small_k64_v64", BLOCK, 1),
    ("radix_small_short_k32", BLOCK, 1),
    ("radix_small_short_k32_v32", BLOCK, 1),
    ("radix_small_short_k32_v64", BLOCK, 1),
    ("radix_small_short_k64", BLOCK, 1),
    ("radix_small_short_k64_v32", BLOCK, 1),
    ("radix_small_short_k64_v64", BLOCK, 1),
    ("radix_small_mid_k32", BLOCK, 1),
    ("radix_small_mid_k32_v32", BLOCK, 1),
    ("radix_small_mid_k32_v64", BLOCK, 1),
    ("radix_small_mid_k64", BLOCK, 1),
    ("radix_small_mid_k64_v32", BLOCK, 1),
    ("radix_small_mid_k64_v64", BLOCK, 1),
    ("radix_buckets_k32", BLOCK, BUCKETS_BLOCKS_PER_SM),
    ("radix_buckets_k32_v32", BLOCK, 1),
    ("radix_buckets_k32_v64", BLOCK, 1),
    ("radix_buckets_k64", BLOCK, BUCKETS_BLOCKS_PER_SM),
    ("radix_buckets_k64_v32", BLOCK, 1),
    ("radix_buckets_k64_v64", BLOCK, 1),
];

/// Blocks per SM of the bucket kernels of keys alone (their launch bounds): two, so
/// that the 256 groups of the top digit are sorted in one round on an SM count above
/// 128 (`u32` keys: no spills at the 80 registers that leaves; `u64`: 24 bytes). With
/// values one block per SM: at two, ptxas spilled 256-336 bytes.
pub const BUCKETS_BLOCKS_PER_SM: u32 = 2;

/// Keys per thread for keys of `kb` bytes with values of `vb` bytes (0: keys only).
/// Registers hold the keys, their digits and ranks, so wider items mean fewer of them.
pub const fn items(kb: u32, vb: u32) -> u32 {
    // Measured on an H100 (docs/history.md): these sizes (CUB's for SM90) beat
    // 15 / 12 / 10 items for pairs and 64-bit keys by 10-20% from 2^24 keys on.
    // 16-bit keys alone: the 32-bit keys' tile shape, whose warp runs are whole 16-byte
    // vectors for the staged load ([`staged_load`]). With 32-bit values 20 still
    // (`ptxas -v`: 24 bytes of spills at the 80 registers of two blocks per SM): 16
    // items, without spills, made f16 pairs 4% slower at 2^28 (docs/history.md,
    // 2026-11-28).
    match (kb, vb) {
        (4, 0) => 20,
        (4, 4) => 23,
        (4, _) => 17,
        (2, 0) => 20,
        (_, 0) => 24,
        (_, 4) => 20,
        _ => 16,
    }
}

/// Bytes of one vector of the staged load of narrow keys.
pub const STAGED_VECTOR: u32 = 16;
/// Most vectors one lane loads for its warp's run of a tile in the staged load.
pub const STAGED_STEPS: u32 = 3;

/// Whether the digit pass loads a tile of keys of `kb` bytes, `items` a thread, staged:
/// each warp reads its run of the tile (`32 * items` keys) as 16-byte vectors into
/// shared memory and takes its warp-striped items from there, instead of one key per
/// load instruction (2-byte loads at 64 bytes a warp-instruction). Keys narrower than 4
/// bytes whose warp runs are whole vectors, at most [`STAGED_STEPS`] a lane. Measured:
/// the 16-bit pass at 2^28 keys 1.88 -> 1.62 ms under ncu (H100, docs/history.md, 2026-11-28).
pub const fn staged_load(kb: u32, items: u32) -> bool {
    let run = 32 * items * kb;
    kb < 4 && run.is_multiple_of(STAGED_VECTOR) && run / STAGED_VECTOR <= STAGED_STEPS * 32
}

/// Items per thread of the packed pair pass ([`Packing`]) and its blocks per SM: the
/// 64-bit key tile (24 x 8 bytes a thread, two blocks an SM). Measured against 16
/// items at three blocks an SM (56 registers, no spills): 1% slower at 2^24 pairs, 6%
/// at 2^28 (docs/history.md, 2026-11-24).
pub const PACKED_ITEMS: u32 = items(8, 0);
pub const PACKED_BLOCKS_PER_SM: u32 = 2;

/// Pairs per tile of the packed pass.
pub const fn packed_tile() -> u32 {
    BLOCK * PACKED_ITEMS
}

/// Keys per tile (one block's share) of the tile kernels.
pub const fn tile(kb: u32, vb: u32) -> u32 {
    BLOCK * items(kb, vb)
}

/// Largest input sorted by one block in shared memory (`radix_small`).
pub const fn small_max(kb: u32, vb: u32) -> u64 {
    tile(kb, vb) as u64
}

/// Items per thread of the one-block sort of at most [`short_max`] keys
/// (`radix_small_short`): every pass ranks every slot of the block's tile, so 1,000
/// keys in a 7,680-slot tile would waste 87% of the work (64-bit keys: eight passes
/// over 9,216 slots).
pub const SHORT_ITEMS: u32 = 4;

/// Largest input of the short one-block sort (any key and value width).
pub const fn short_max() -> u64 {
    (BLOCK * SHORT_ITEMS) as u64
}

/// Items per thread of the one-block sort between [`short_max`] and [`mid_max`] keys
/// (`radix_small_mid`): the cost of a one-block sort grows with the slots it ranks,
/// so a middle tile halves the step from the short tile to the full one.
pub const MID_ITEMS: u32 = 12;

/// Largest input of the middle one-block sort.
pub const fn mid_max() -> u64 {
    (BLOCK * MID_ITEMS) as u64
}

/// Items per thread of the one-block sort of `n <= small_max(kb, vb)` keys: the
/// fewest of [`SHORT_ITEMS`], [`MID_ITEMS`] and [`items`] whose tile holds them.
pub const fn small_items(n: u64, kb: u32, vb: u32) -> u32 {
    if n <= short_max() {
        SHORT_ITEMS
    } else if n <= mid_max() && MID_ITEMS < items(kb, vb) {
        MID_ITEMS
    } else {
        items(kb, vb)
    }
}

/// Largest input whose digit passes run on short tiles ([`SHORT_ITEMS`] per thread,
/// `radix_onesweep_short`): with few tiles a pass costs one tile's ranking, done by
/// one block, so smaller tiles spread it over more SMs. Chosen by measurement
/// (2026-11-23; docs/history.md, radix: "Small inputs").
pub const SHORT_ONESWEEP_MAX: u64 = 1 << 18;

/// Keys per tile of the digit passes of a sort of `n` keys: short tiles up to
/// `short_onesweep_max` keys, [`tile`] above.
pub const fn onesweep_tile(n: u64, kb: u32, vb: u32, short_onesweep_max: u64) -> u32 {
    if n <= short_onesweep_max { BLOCK * SHORT_ITEMS } else { tile(kb, vb) }
}

/// The fused sort (`radix_fused`): one launch sorts inputs past the one-block sort up
/// to [`FUSED_MAX`] keys. Its blocks are all resident at once (a cooperative launch,
/// its grid no larger than the occupancy the driver reports), so grid-wide barriers
/// (an arrival counter in the control block, [`ctrl::BARRIER`]) can separate the
/// histogram, the digit passes and the copy-back that are otherwise separate launches:
/// at these sizes a pass is bound by latency and the gaps between launches, not by
/// memory (2^20 u32 keys and their scratch sit in L2). Each block takes tiles
/// `block, block + grid, ...` in every pass; that needs no tile counter and cannot
/// deadlock, as every block is running and each waits only for lower tiles.
pub const FUSED_MAX: u64 = 1 << 22;

/// Blocks per SM of the fused kernels of keys alone (their launch bounds).
pub const FUSED_BLOCKS_PER_SM: u32 = 3;
/// Blocks per SM of the fused kernels of pairs: as the split pair pass, whose values'
/// ranks and staging need the registers of two blocks per SM.
pub const FUSED_PAIRS_BLOCKS_PER_SM: u32 = 2;

/// Which of the fused kernels sorts `n` keys, from `choices`: `(items per thread,
/// blocks the device holds at once)` of each, fewest items first
/// ([`FusedKernel::FUSED`]). The fewest items whose tiles fit one round of the
/// resident blocks (every tile of a pass ranked at once, by more blocks per SM than
/// larger tiles would keep busy), else the most; `forced` (a tuning knob) picks the
/// choice with that many items. Choices the device cannot hold (0 blocks) are never
/// picked; `None` when none can run.
pub fn fused_choice(n: u64, choices: &[(u32, u64)], forced: Option<u32>) -> Option<usize> {
    let runs = |&(_, resident): &(u32, u64)| resident > 0;
    if let Some(at) = forced.and_then(|f| choices.iter().position(|c| c.0 == f && runs(c))) {
        return Some(at);
    }
    let fits = |c: &(u32, u64)| runs(c) && n.div_ceil((BLOCK * c.0) as u64) <= c.1;
    choices.iter().position(fits).or_else(|| choices.iter().rposition(runs))
}

/// The count that barrier `j` of a fused kernel of `grid` blocks waits for on the
/// arrival counter: `j` arrivals of every block, plus the release by the block that
/// wrote the offsets and the plan after the histogram (barrier 1).
pub const fn fused_barrier(j: u32, grid: u32) -> u32 {
    j * grid + 1
}

/// Histogram counter words per counter in the fused kernels ([`hist::slot`]): the
/// counters of all passes of keys of `kb` bytes in 64 KiB (16 words for up to four
/// passes, 8 for eight), which leaves room for three blocks per SM.
pub const fn fused_slots(kb: u32) -> u32 {
    if kb > 4 { 8 } else { 16 }
}

/// Keys each thread of a fused kernel loads per histogram step: half the histogram
/// kernel's ([`hist::items`]), for the register budget of three blocks per SM.
pub const fn fused_hist_items(kb: u32) -> u32 {
    hist::items(kb) / 2
}

/// Dynamic shared memory of a fused kernel for keys of `kb` bytes (values of `vb`),
/// `items` a thread: the larger of its histogram's layout ([`hist`], with
/// [`fused_slots`]) and its tile's ([`Smem::onesweep_items`]).
pub const fn fused_smem(kb: u32, vb: u32, items: u32) -> u32 {
    let max_passes = (8 * kb).div_ceil(DIGIT_BITS);
    let hist = hist::COUNTERS + 4 * max_passes * DIGITS * fused_slots(kb);
    let tile = Smem::onesweep_items(kb, vb, items).bytes;
    if hist > tile { hist } else { tile }
}

/// Tiles per onesweep launch: a portion's count of one digit (at most its number of
/// keys) must fit the 30 bits of a status word.
pub const fn portion_tiles(tile: u32) -> u64 {
    VALUE_MASK as u64 / tile as u64
}

/// `(portions, tiles per portion)` of a pass over `total_tiles` tiles with at most
/// `max_tiles` per launch: the fewest portions, of equal size (the last may be a few
/// tiles shorter). Equal portions matter: every launch's blocks clear the status
/// words of the launch after next, and a tiny last portion (2^30 keys are one tile
/// past one portion) left that to one block, making a 2^30-key sort 1.5x slower.
pub const fn balanced_portions(total_tiles: u64, max_tiles: u64) -> (u64, u64) {
    if total_tiles == 0 {
        return (0, 0);
    }
    let portions = total_tiles.div_ceil(max_tiles);
    (portions, total_tiles.div_ceil(portions))
}

/// Number of digit passes over bits `begin..end`.
pub const fn passes(begin: u32, end: u32) -> u32 {
    (end - begin).div_ceil(DIGIT_BITS)
}

/// `(shift, mask)` of pass `p` over bits `begin..end`: the digit is
/// `(order_bits >> shift) & mask`; the last pass may have fewer than 8 bits.
pub const fn pass_digit(begin: u32, end: u32, p: u32) -> (u32, u32) {
    let shift = begin + p * DIGIT_BITS;
    let bits = if end - shift < DIGIT_BITS { end - shift } else { DIGIT_BITS };
    (shift, (1 << bits) - 1)
}

/// The digit of a raw key under one order mask for either sign (integers: `pos ==
/// neg` in [`crate::key::BitOrder::masks`]), given `pos_digit = pos.digit(shift,
/// mask)`: `raw.digit(shift, mask) ^ pos_digit`, which equals
/// `raw.ordered(pos, pos).digit(shift, mask)` (the XOR commutes with the shift and the
/// mask), without the order bits' sign test. The digit passes take it so.
#[inline(always)]
pub fn same_mask_digit<K: crate::key::Word>(raw: K, shift: u32, mask: u32, pos_digit: u32) -> u32 {
    raw.digit(shift, mask) ^ pos_digit
}

/// The plan from which passes are trivial (every key under one digit): the entries of
/// passes `0..passes`, then (at index [`MAX_PASSES`]) where the result ends.
pub fn plan(passes: u32, trivial: impl Fn(u32) -> bool) -> [u32; MAX_PASSES as usize + 1] {
    let mut plan = [PLAN_SKIP; MAX_PASSES as usize + 1];
    let mut from = PLAN_FROM_A;
    for p in 0..passes {
        if !trivial(p) {
            plan[p as usize] = from;
            from ^= 1;
        }
    }
    plan[MAX_PASSES as usize] = from;
    plan
}

/// The plan of a split sort by buckets: only the top digit's pass (`passes - 1`) runs,
/// from A (or, with `into`, from the caller's input) into B, and entry [`MAX_PASSES`]
/// is [`PLAN_BUCKETS`]: each of its digit's groups is then sorted by the digits below
/// in one block, from B into A. The histogram's last block takes it when every group
/// of the top digit fits one block ([`buckets_fit`]) and the caller asked for it.
pub fn buckets_plan(passes: u32, into: bool) -> [u32; MAX_PASSES as usize + 1] {
    let mut plan = [PLAN_SKIP; MAX_PASSES as usize + 1];
    plan[passes as usize - 1] = PLAN_FROM_A | if into { PLAN_LOAD_SPLIT } else { 0 };
    plan[MAX_PASSES as usize] = PLAN_BUCKETS;
    plan
}

/// Whether a sort of `passes` passes whose top digit's largest group holds
/// `largest` keys may take [`buckets_plan`], the bucket kernel sorting groups of up to
/// `capacity` keys (0: the caller did not ask for it). At least two passes: with one,
/// the top digit's pass is the whole sort.
pub const fn buckets_fit(passes: u32, largest: u64, capacity: u32) -> bool {
    capacity != 0 && passes >= 2 && largest <= capacity as u64
}

/// How a sort of 32-bit keys with 32-bit values moves its pairs between passes.
///
/// `Split` (the general pair pass): keys and values stay in separate arrays; a pass
/// ranks the keys, scatters them, then loads, stages and scatters the values.
/// The packed forms carry each pair as one 64-bit word `key << 32 | value` and sort it
/// as a 64-bit key on its upper half: one load, one staging and one scatter per pair,
/// which the 64-bit key pass does faster than the split pass handles a pair. The first
/// pass packs on its load, and the result is unpacked on the last store:
/// - `Alternate`: every pass goes from the caller's split arrays to one packed scratch
///   buffer or back (scratch: 8 bytes a pair, as `Split`);
/// - `Through`: the first pass packs into scratch, the middle ones go packed to packed
///   between two scratch buffers, the last unpacks (scratch: 16 bytes a pair).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Packing {
    Split = 0,
    Alternate = 1,
    Through = 2,
}

impl Packing {
    /// The value the histogram kernel receives (its `packing` parameter).
    pub const fn from_u32(v: u32) -> Packing {
        match v {
            1 => Packing::Alternate,
            2 => Packing::Through,
            _ => Packing::Split,
        }
    }
}

/// [`plan`] with the packing flags of `packing` on the passes that run. Entry
/// [`MAX_PASSES`] is `PLAN_FROM_B` when the result ended in scratch buffer B (for a
/// packed sort: packed, to be unpacked into the caller's arrays by the copy-back).
pub fn packed_plan(passes: u32, trivial: impl Fn(u32) -> bool, packing: Packing) -> [u32; MAX_PASSES as usize + 1] {
    let mut plan = plan(passes, trivial);
    let ran = |p: &usize| plan[*p] != PLAN_SKIP;
    let (first, last) = ((0..passes as usize).find(ran), (0..passes as usize).rfind(ran));
    match (packing, first, last) {
        (Packing::Split, ..) | (_, None, _) | (_, _, None) => {}
        (Packing::Alternate, ..) => {
            for e in plan[..passes as usize].iter_mut().filter(|e| **e != PLAN_SKIP) {
                *e |= if *e == PLAN_FROM_A { PLAN_LOAD_SPLIT } else { PLAN_STORE_SPLIT };
            }
        }
        (Packing::Through, Some(first), Some(last)) => {
            plan[first] |= PLAN_LOAD_SPLIT;
            if last != first {
                plan[last] |= PLAN_STORE_SPLIT;
                plan[MAX_PASSES as usize] = PLAN_FROM_A;
            }
        }
    }
    plan
}

/// The plan of a split sort from the caller's input into buffer A (the histogram's
/// `into`: the caller's input is [`Buf::Caller`], A the output, B scratch): the
/// first pass that runs reads the input (`PLAN_LOAD_SPLIT`) and writes B, the later
/// ones alternate as in [`plan`], and a result left in B is copied back to A, so the
/// input is only read. If every pass is trivial, pass 0 runs anyway: with every key
/// under one digit it is a stable copy of the input into B.
pub fn into_plan(passes: u32, trivial: impl Fn(u32) -> bool) -> [u32; MAX_PASSES as usize + 1] {
    let mut plan = plan(passes, trivial);
    match (0..passes as usize).find(|&p| plan[p] != PLAN_SKIP) {
        Some(first) => plan[first] |= PLAN_LOAD_SPLIT,
        None => {
            plan[0] = PLAN_FROM_A | PLAN_LOAD_SPLIT;
            plan[MAX_PASSES as usize] = PLAN_FROM_B;
        }
    }
    plan
}

/// What the last launch of an argsort ([`Packing::Through`] with the index as the
/// value, `radix_arg_back`) still has to write, from the plan of `passes` passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgFinish {
    /// Two or more passes ran: the last one wrote the indices.
    Nothing,
    /// Every pass was skipped (every key under one digit in every pass): the keys are
    /// in order already, so the permutation is `0..n`.
    Iota,
    /// One pass ran: it packed and sorted into scratch buffer B, and the indices are
    /// the low halves of its words.
    FromB,
}

/// [`ArgFinish`] of the plan `plan` (as [`packed_plan`] writes it) of `passes` passes.
pub fn arg_finish(plan: &[u32], passes: u32) -> ArgFinish {
    let ran = plan[..passes as usize].iter().filter(|&&e| e != PLAN_SKIP).count();
    match ran {
        0 => ArgFinish::Iota,
        1 => ArgFinish::FromB,
        _ => ArgFinish::Nothing,
    }
}

/// Where a pass that runs (plan entry `entry`, not `PLAN_SKIP`) reads and writes its
/// items, among the caller's buffer (`Buf::Caller`: keys and values, split) and the
/// two buffers `A` and `B` the kernel is given (for a split sort, A is the caller's
/// and B the scratch; for a packed sort both are packed scratch, the same buffer for
/// [`Packing::Alternate`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Buf {
    Caller,
    A,
    B,
}

/// `(source, destination)` of a pass with plan entry `entry` (see [`Buf`]).
pub const fn route(entry: u32) -> (Buf, Buf) {
    let (from, to) = if entry & PLAN_FROM_B != 0 { (Buf::B, Buf::A) } else { (Buf::A, Buf::B) };
    let from = if entry & PLAN_LOAD_SPLIT != 0 { Buf::Caller } else { from };
    let to = if entry & PLAN_STORE_SPLIT != 0 { Buf::Caller } else { to };
    (from, to)
}

/// The control block in device memory, in `u64` words: digit counts, digit offsets
/// (carried from portion to portion), then `u32`s: the plan, a done counter and one
/// tile counter per onesweep launch. Zeroed before each sort.
pub mod ctrl {
    use super::{DIGITS, MAX_PASSES};
    /// `hist[p * 256 + d]`: keys with digit `d` in pass `p`.
    pub const HIST: u32 = 0;
    /// `carry[(p * 2 + parity) * 256 + d]`: global offset of digit `d` of pass `p` for
    /// the portion of that parity.
    pub const CARRY: u32 = HIST + MAX_PASSES * DIGITS;
    /// Start of the `u32` area, in `u32` words from the start of the block.
    pub const U32_AREA: u32 = 2 * (CARRY + 2 * MAX_PASSES * DIGITS);
    pub const PLAN: u32 = U32_AREA;
    pub const DONE: u32 = U32_AREA + 16;
    /// The fused kernels' grid-barrier arrival counter.
    pub const BARRIER: u32 = DONE + 1;
    /// The fused kernels' count of blocks that are done with the control block.
    pub const EXIT: u32 = DONE + 2;
    /// Set (nonzero) by a checking histogram (`radix_hist_check_f32`, `_f64`) that
    /// saw a NaN or `-0.0` among the keys: the NaN-last sort reads it after the
    /// histogram instead of a separate pass over the keys.
    pub const NAN_FOUND: u32 = DONE + 3;
    pub const COUNTERS: u32 = U32_AREA + 32;

    /// Bytes of the control block for `launches` onesweep launches.
    pub const fn bytes(launches: u32) -> u64 {
        (COUNTERS + launches) as u64 * 4
    }

    #[inline(always)]
    pub const fn carry(pass: u32, parity: u32, d: u32) -> u32 {
        CARRY + (pass * 2 + parity) * DIGITS + d
    }
}

/// Shared-memory layout of the tile kernels, in bytes from the start of the block's
/// dynamic shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Smem {
    /// The block's tile id (broadcast from thread 0).
    pub tile_id: u32,
    pub scan: u32,
    /// 256 words: start of each digit's run in the ranked tile.
    pub digit_start: u32,
    /// 256 `u64`s: global position of each digit's run minus its start in the tile;
    /// in a pass that stores keys alone into a scratch buffer, that position's address.
    pub global_base: u32,
    /// `WARPS * 256` words: per-warp digit counters.
    pub warp_digits: u32,
    /// The tile staged in rank order: keys (then values, in the onesweep kernel).
    pub keys: u32,
    /// Values of the small kernel (which keeps keys and values staged at once).
    pub vals: u32,
    /// Onesweep with values: each item's rank (`u16`, by warp-striped position),
    /// kept here rather than in registers until the values are placed.
    pub ranks: u32,
    pub bytes: u32,
}

impl Smem {
    const fn head() -> (u32, u32, u32, u32, u32) {
        let scan = 16;
        let digit_start = scan + 160;
        let global_base = digit_start + 4 * DIGITS;
        let warp_digits = global_base + 8 * DIGITS;
        let keys = (warp_digits + 4 * WARPS * DIGITS).next_multiple_of(16);
        (scan, digit_start, global_base, warp_digits, keys)
    }

    /// Onesweep: keys and then values staged through one buffer.
    pub const fn onesweep(kb: u32, vb: u32) -> Smem {
        Smem::onesweep_of(kb, vb, tile(kb, vb))
    }

    /// The packed pass: its words staged as 64-bit keys, [`packed_tile`] of them.
    pub const fn packed() -> Smem {
        Smem::onesweep_of(8, 0, packed_tile())
    }

    /// Onesweep on tiles of `items` keys a thread (the fused kernels).
    pub const fn onesweep_items(kb: u32, vb: u32, items: u32) -> Smem {
        Smem::onesweep_of(kb, vb, BLOCK * items)
    }

    const fn onesweep_of(kb: u32, vb: u32, tile: u32) -> Smem {
        let (scan, digit_start, global_base, warp_digits, keys) = Smem::head();
        let wide = if vb > kb { vb } else { kb };
        let ranks = keys + tile * wide;
        let bytes = if vb > 0 { ranks + 2 * tile } else { ranks };
        Smem { tile_id: 0, scan, digit_start, global_base, warp_digits, keys, vals: keys, ranks, bytes }
    }

    /// One-block sort: keys and values staged side by side.
    pub const fn small(kb: u32, vb: u32) -> Smem {
        let (scan, digit_start, global_base, warp_digits, keys) = Smem::head();
        let vals = keys + tile(kb, vb) * kb;
        let bytes = vals + tile(kb, vb) * vb;
        Smem { tile_id: 0, scan, digit_start, global_base, warp_digits, keys, vals, ranks: bytes, bytes }
    }
}

/// Shared-memory layout and grid of the histogram kernel (`radix_hist`), in bytes
/// from the start of its dynamic shared memory: flags (the last-block flag, then one
/// "trivial pass" flag per pass), the last block's scan, then the digit counters.
///
/// Each counter (pass `p`, digit `d`, index `p * DIGITS + d`) has [`hist::slots`] words, and
/// lane `l` of every warp adds to word `l % slots`. With one word per counter, a warp's
/// 32 adds of random digits meet 3-4 to a bank (word % 32), and on one word whenever
/// two lanes share a digit, and such adds serialise: our explanation of the kernel's
/// 48.5 us for 2^24 u32 keys against a ~22 us memory floor (docs/history.md, 2026-11-24).
pub mod hist {
    use super::{DIGITS, HIST_BLOCK};
    use crate::block::WARP;

    /// Bytes of keys each thread loads per step, all before it counts any: with one
    /// block of 32 warps per SM, 64 bytes a thread keep 64 KiB of keys in flight per SM
    /// while other warps do their shared-memory adds (8 u32 keys would keep 32 KiB; the
    /// 512-thread blocks, 3 resident per SM at 8 u32 keys each, kept 48 KiB).
    pub const LOAD_BYTES: u32 = 64;

    /// Keys each thread loads per step, for keys of `kb` bytes: 16 u32 or 8 u64 keys (16
    /// u64 keys spilled at the 64 registers that 1024 threads allow). Narrower keys take
    /// a register each too, so 16- and 8-bit keys stay at 16 a step.
    pub const fn items(kb: u32) -> u32 {
        let i = LOAD_BYTES / kb;
        if i > 16 { 16 } else { i }
    }

    pub const FLAGS: u32 = 0;
    pub const SCAN: u32 = 64;
    /// A multiple of 128 bytes (32 banks of 4 bytes), so that word `s` of a counter
    /// lies in bank `s` when a counter has 32 words.
    pub const COUNTERS: u32 = (SCAN + crate::scan::SMEM_BYTES).next_multiple_of(128);
    /// Most bytes of counters: 4 passes x 256 digits x 32 words, or 8 x 256 x 16.
    pub const COUNTER_BYTES: u32 = 128 * 1024;

    /// Words per counter with `np` passes: 32 (one per lane: every lane of a warp in
    /// its own bank) where that fits [`COUNTER_BYTES`], else fewer (16: two lanes per
    /// bank and per word).
    pub const fn slots(np: u32) -> u32 {
        let mut s = WARP;
        while s > 1 && 4 * np * DIGITS * s > COUNTER_BYTES {
            s /= 2;
        }
        s
    }

    /// Word, from [`COUNTERS`], where `lane` counts counter `counter` (`p * DIGITS + d`).
    #[inline(always)]
    pub const fn slot(counter: u32, slots: u32, lane: u32) -> u32 {
        counter * slots + lane % slots
    }

    /// Step `i` of the final sum of a counter's `slots` words, by the thread in `lane`:
    /// the word to read. Rotated by lane, so that the 32 threads of a warp (32
    /// consecutive counters) read 32 different banks at each step.
    #[inline(always)]
    pub const fn sum_slot(i: u32, slots: u32, lane: u32) -> u32 {
        (i + lane * slots / WARP) % slots
    }

    /// Dynamic shared memory of a launch over `np` passes.
    pub const fn smem(np: u32) -> u32 {
        COUNTERS + 4 * np * DIGITS * slots(np)
    }

    /// Keys one block reads per grid-stride step.
    pub const fn step(kb: u32) -> u64 {
        HIST_BLOCK as u64 * items(kb) as u64
    }

    /// Most keys one block reads: its counts are `u32`s (its words, their sums).
    pub const MAX_KEYS_PER_BLOCK: u64 = 1 << 31;

    /// Blocks of a launch over `n` keys of `kb` bytes: one per step up to
    /// `max_blocks`, but enough that no block reads more than [`MAX_KEYS_PER_BLOCK`]
    /// keys (a block takes at most `ceil(steps / grid)` steps).
    pub const fn grid(n: u64, kb: u32, max_blocks: u64) -> u64 {
        let steps = n.div_ceil(step(kb));
        let grid = if steps < max_blocks { steps } else { max_blocks };
        let needed = steps.div_ceil(MAX_KEYS_PER_BLOCK / step(kb));
        let grid = if grid < needed { needed } else { grid };
        if grid < 1 { 1 } else { grid }
    }
}

mod entries;
mod params;
pub use entries::*;
pub use params::*;

#[cfg(target_arch = "nvptx64")]
pub(crate) mod device;
#[cfg(target_arch = "nvptx64")]
mod narrow;

#[cfg(test)]
mod tests;
