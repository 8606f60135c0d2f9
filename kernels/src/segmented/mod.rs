//! `segmented`: many independent segments of one buffer sorted in a few launches (as
//! CUB's `DeviceSegmentedSort` and `torch.sort` along a dimension do).
//!
//! The host knows the offsets, so it bins the segments by length ([`bin`]) and
//! uploads the [`pack`]ed `(start, len)` descriptors of the two kernel bins in one
//! copy (warp bin first):
//!
//! - [`Bin::Warp`] (2..=[`WARP_MAX`] keys): `segmented_warp_sort`, one warp per
//!   segment, [`WARPS`] segments per block. The warp holds its segment in registers,
//!   [`warp_items`] keys per lane (a power of two, so the network is as short as the
//!   segment allows), in *striped* order (element `k * 32 + lane`: coalesced loads and
//!   stores), padded with the largest order bits, and sorts it by a bitonic network:
//!   strides below 32 exchange across lanes by shuffles, larger strides swap inside a
//!   lane's registers ([`keeps_min`] is the whole network's direction rule).
//! - [`Bin::Block`] (up to [`crate::radix::small_max`] keys): `segmented_block_sort`,
//!   one block per segment running the radix sort's one-block body
//!   (`radix::device::small`) on the segment, on the smallest of its tiles that
//!   holds the segment ([`crate::radix::small_items`]).
//! - [`Bin::Large`]: the ordinary radix sort. One sort per segment costs a few
//!   launches whatever its length (tens of microseconds), so when there are many
//!   large segments ([`batch_large`]) they are sorted together instead:
//!   `segmented_gather` copies them into one buffer (their *concatenation*, in segment
//!   order) with each key's segment index, a stable pair sort by key and then a
//!   stable pair sort by segment index (over its few low bits) leave each segment's
//!   keys sorted in its own place of the concatenation, and `segmented_scatter`
//!   copies them back.
//!
//! Pairs (a `u32` value per key, e.g. an index) are sorted stably: the warp network
//! sorts `(order bits, position in the segment)` tags ([`tag_u32`] for 32-bit keys:
//! one `u64`), so no two elements tie, and each lane then fetches its outputs' values
//! from their input positions before any is overwritten; the block kernel runs the
//! radix body with values, which is stable. Long segments of pairs get a radix pair
//! sort each.
//!
//! Keys move as raw words; the networks compare order bits (`raw ^ mask`, see
//! [`crate::key::BitOrder::masks`]), so every primitive type and both directions use
//! the same kernels, one set per key width. Equal order bits mean equal raw bits, so the
//! unstable network gives the same result as any stable sort.

/// Threads per block of the warp kernel, and segments per block.
pub const WARP_BLOCK: u32 = 256;
pub const WARPS: u32 = WARP_BLOCK / 32;
/// Largest keys per lane of the warp sort, and so its largest segment.
pub const WARP_ITEMS_MAX: u32 = 16;
pub const WARP_MAX: u64 = 32 * WARP_ITEMS_MAX as u64;

/// Launch bounds (see [`crate::LAUNCH_BOUNDS`]): the block kernel as the radix
/// one-block kernel whose body it runs.
pub const LAUNCH_BOUNDS: &[(&str, u32, u32)] = &[
    ("segmented_block_sort_k32", crate::radix::BLOCK, 1),
    ("segmented_block_sort_k64", crate::radix::BLOCK, 1),
    ("segmented_block_sort_k32_v32", crate::radix::BLOCK, 1),
    ("segmented_block_sort_k64_v32", crate::radix::BLOCK, 1),
];

/// Bits of a descriptor that hold the segment's start (elements); its length sits
/// above them.
pub const START_BITS: u32 = 40;

/// Where a segment is sorted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bin {
    /// 0 or 1 keys: already sorted.
    Skip,
    Warp,
    Block,
    Large,
}

/// The bin of a segment of `len` keys of `key_bytes` bytes, each with a value of
/// `value_bytes` bytes (0: keys only).
pub const fn bin(len: u64, key_bytes: u32, value_bytes: u32) -> Bin {
    if len <= 1 {
        Bin::Skip
    } else if len <= WARP_MAX {
        Bin::Warp
    } else if len <= crate::radix::small_max(key_bytes, value_bytes) {
        Bin::Block
    } else {
        Bin::Large
    }
}

/// One `u64` per segment: `start | len << START_BITS`. Requires `start < 2^40` and
/// `len < 2^24` (a warp or block segment).
pub const fn pack(start: u64, len: u64) -> u64 {
    start | len << START_BITS
}

/// `(start, len)` of a descriptor made by [`pack`].
#[inline(always)]
pub const fn unpack(d: u64) -> (u64, u32) {
    (d & ((1 << START_BITS) - 1), (d >> START_BITS) as u32)
}

/// Whether `count` large segments of `total` keys in all are sorted together (see the
/// module docs) rather than by one radix sort each. On an H100, batching adds about
/// 0.04 ns per key (a pair sort instead of a key sort, a short sort by segment index,
/// a gather and a scatter), while each separate sort costs a fixed ~30 us of
/// launches: batching pays below a mean of about 2^19 keys per segment (predicted
/// from the radix sort's measured speeds, not measured itself).
pub const fn batch_large(count: u64, total: u64) -> bool {
    count >= 2 && total / count < 1 << 19
}

/// Index of the large segment holding element `p` of the concatenation, whose
/// segments start at `concat_start(0) = 0 <= concat_start(1) <= ...` (`count` of
/// them, `p` below their total length): the last segment starting at or before `p`.
/// Empty segments never hold an element; large ones are never empty.
#[inline(always)]
pub fn large_segment_of(p: u64, count: u32, concat_start: impl Fn(u32) -> u64) -> u32 {
    crate::search::count_less_eq(count, p, concat_start) - 1
}

/// Order bits (from bit 0) the sort by segment index looks at: enough for `count`
/// segment indices (at least one bit).
pub const fn segment_index_bits(count: u32) -> u32 {
    if count <= 2 { 1 } else { 32 - (count - 1).leading_zeros() }
}

/// The warp network's element for a 32-bit key and its position `idx` in the
/// segment: ordered by key, then by position (a stable sort), below the padding
/// `u64::MAX` since `idx < 2^32 - 1`.
pub const fn tag_u32(ord: u32, idx: u32) -> u64 {
    (ord as u64) << 32 | idx as u64
}

/// Keys per lane of the warp sort for `len` keys: the smallest power of two with
/// `32 * items >= len` (`len <= WARP_MAX`).
pub const fn warp_items(len: u32) -> u32 {
    let per_lane = len.div_ceil(32);
    if per_lane <= 1 { 1 } else { per_lane.next_power_of_two() }
}

/// The bitonic network's direction rule: in the step of merge size `size` (a power of
/// two, 2..=N) and stride `j` (`size / 2` down to 1), element `e` and its partner
/// `e ^ j` are ordered so that `e` ends with the smaller of the two exactly when this
/// is true (ascending blocks of `size` where `e & size == 0`, descending otherwise;
/// the lower index of a pair takes the block's first element). The last merge
/// (`size == N`) is ascending everywhere.
#[inline(always)]
pub const fn keeps_min(e: u32, size: u32, j: u32) -> bool {
    (e & size == 0) == (e & j == 0)
}

/// Steps `(size, j)` of the bitonic network over `2^log_n` elements, in order.
pub fn network(log_n: u32) -> impl Iterator<Item = (u32, u32)> {
    (0..log_n).flat_map(move |m| (0..=m).map(move |t| (2u32 << m, 1u32 << (m - t))))
}

#[cfg(target_arch = "nvptx64")]
mod device;

#[cfg(test)]
mod tests;
