//! The merges' index math: the window of runs a unit of outputs comes from (a
//! thread's in a block sort, a block's in a global pass), the stability rule, the
//! shared-memory layout of the block-sort rounds, and the exchange of the cluster
//! round.
use crate::search::Index;

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

/// The exchange of a cluster of two blocks (`cluster_pair_round` in `device/block_sort.rs`), whose
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
