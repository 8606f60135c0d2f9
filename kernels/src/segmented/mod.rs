//! `segmented`: many independent segments of one buffer sorted in a few launches (as
//! CUB's `DeviceSegmentedSort` and `torch.sort` along a dimension do).
//!
//! The host knows the offsets, so it bins the segments by length ([`bin`]) and
//! uploads one list of [`pack`]ed `(start, len)` descriptors per bin:
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
//!   (`radix::device::small`) on the segment, with [`BLOCK_ITEMS_SHORT`] items per
//!   thread when the segment is short enough ([`block_items_short`]).
//! - [`Bin::Large`]: the host runs the ordinary radix sort on the segment's range.
//!
//! Keys move as raw words; the networks compare order bits (`raw ^ mask`, see
//! [`crate::key::BitOrder::masks`]), so every primitive type and both directions use
//! the same two kernels per key width. Equal order bits mean equal raw bits, so the
//! unstable network gives the same result as any stable sort.

/// Threads per block of the warp kernel, and segments per block.
pub const WARP_BLOCK: u32 = 256;
pub const WARPS: u32 = WARP_BLOCK / 32;
/// Largest keys per lane of the warp sort, and so its largest segment.
pub const WARP_ITEMS_MAX: u32 = 16;
pub const WARP_MAX: u64 = 32 * WARP_ITEMS_MAX as u64;
/// Items per thread of the block sort for segments of at most
/// `radix::BLOCK * BLOCK_ITEMS_SHORT` keys: each radix pass ranks every slot of the
/// block's tile, so a 600-key segment in a 7,680-slot tile would waste 92% of them.
pub const BLOCK_ITEMS_SHORT: u32 = 4;

/// Launch bounds (see [`crate::LAUNCH_BOUNDS`]): the block kernel as the radix
/// one-block kernel whose body it runs.
pub const LAUNCH_BOUNDS: &[(&str, u32, u32)] =
    &[("segmented_block_sort_k32", crate::radix::BLOCK, 1), ("segmented_block_sort_k64", crate::radix::BLOCK, 1)];

/// Bits of a descriptor that hold the segment's start (elements); its length sits
/// above them.
pub const START_BITS: u32 = 40;

/// Where a segment of `len` keys of `key_bytes` bytes is sorted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bin {
    /// 0 or 1 keys: already sorted.
    Skip,
    Warp,
    Block,
    Large,
}

/// The bin of a segment of `len` keys of `key_bytes` bytes.
pub const fn bin(len: u64, key_bytes: u32) -> Bin {
    if len <= 1 {
        Bin::Skip
    } else if len <= WARP_MAX {
        Bin::Warp
    } else if len <= crate::radix::small_max(key_bytes, 0) {
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

/// Keys per lane of the warp sort for `len` keys: the smallest power of two with
/// `32 * items >= len` (`len <= WARP_MAX`).
pub const fn warp_items(len: u32) -> u32 {
    let per_lane = len.div_ceil(32);
    if per_lane <= 1 { 1 } else { per_lane.next_power_of_two() }
}

/// Whether a block segment of `len` keys is sorted with [`BLOCK_ITEMS_SHORT`] items
/// per thread rather than the full radix tile.
pub const fn block_items_short(len: u32) -> bool {
    len <= crate::radix::BLOCK * BLOCK_ITEMS_SHORT
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
