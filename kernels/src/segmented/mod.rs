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
//!   stores), padded with the largest order bits, and sorts it by the warp's bitonic
//!   network ([`crate::block::warp_sort`]: strides below 32 exchange across lanes by
//!   shuffles, larger strides swap inside a lane's registers).
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
//!
//! The entries are per key *word* ([`SegmentedKernels`]): `u32` for 32-bit keys, `u64`
//! for 64-bit keys. A primitive key's word is its [`SortKey::Bits`](crate::SortKey::Bits),
//! the unsigned integer of its width.
use crate::key::Word;
use crate::params::{DevPtr, EntryLayout, Kernel};

crate::params::kernel_params! {
    /// `segmented_warp_sort`: warp `w` of the grid sorts the `w`-th of `count` warp-bin
    /// segments of `keys` in place.
    pub struct WarpSort<K> {
        pub keys: DevPtr<K>,
        /// The segments' descriptors ([`pack`]).
        pub descs: DevPtr<u64>,
        pub count: u32,
        /// The key order's masks ([`crate::key::BitOrder::masks`]).
        pub pos: K,
        pub neg: K,
    }
    /// Declares an entry taking [`WarpSort`].
    entries warp_sort_entry;
}

crate::params::kernel_params! {
    /// [`WarpSort`] of keys with a `u32` value each (`vals`, moved along, stably).
    pub struct WarpSortPairs<K> {
        pub keys: DevPtr<K>,
        pub vals: DevPtr<u32>,
        pub descs: DevPtr<u64>,
        pub count: u32,
        pub pos: K,
        pub neg: K,
    }
    /// Declares an entry taking [`WarpSortPairs`].
    entries warp_sort_pairs_entry;
}

crate::params::kernel_params! {
    /// `segmented_block_sort`: block `b` sorts the block-bin segment `descs[b]` of
    /// `keys` in place with the radix sort's one-block body.
    pub struct BlockSort<K> {
        pub keys: DevPtr<K>,
        pub descs: DevPtr<u64>,
        pub pos: K,
        pub neg: K,
    }
    /// Declares an entry taking [`BlockSort`].
    entries block_sort_entry;
}

crate::params::kernel_params! {
    /// [`BlockSort`] of keys with a `u32` value each (`vals`, moved along, stably).
    pub struct BlockSortPairs<K> {
        pub keys: DevPtr<K>,
        pub vals: DevPtr<u32>,
        pub descs: DevPtr<u64>,
        pub pos: K,
        pub neg: K,
    }
    /// Declares an entry taking [`BlockSortPairs`].
    entries block_sort_pairs_entry;
}

crate::params::kernel_params! {
    /// `segmented_gather` and `segmented_scatter`: thread `p` copies element `p` of the
    /// concatenation of the `count` large segments (`total` keys) from `keys` to
    /// `concat`, recording its segment index in `ids` (gather), or back (scatter).
    pub struct LargeCopy<K> {
        pub keys: DevPtr<K>,
        pub concat: DevPtr<K>,
        pub ids: DevPtr<u32>,
        /// The segments' `count` starts in `keys`, then their `count` starts in
        /// `concat`.
        pub table: DevPtr<u64>,
        pub count: u32,
        pub total: u64,
    }
    /// Declares an entry taking [`LargeCopy`].
    entries large_copy_entry;
}

/// The segmented sort's entries for keys of one word type.
pub trait SegmentedKernels: Word {
    const WARP_SORT: Kernel<WarpSort<Self>>;
    const WARP_SORT_PAIRS: Kernel<WarpSortPairs<Self>>;
    const BLOCK_SORT: Kernel<BlockSort<Self>>;
    const BLOCK_SORT_PAIRS: Kernel<BlockSortPairs<Self>>;
    const GATHER: Kernel<LargeCopy<Self>>;
    const SCATTER: Kernel<LargeCopy<Self>>;
}

/// Declares the entries of key word `$k`; `$tag` is its pairs' network element
/// (`device::Tag`).
macro_rules! segmented_entries {
    ($k:ty, $tag:ty, $suffix:ident) => {
        paste::paste! {
            warp_sort_entry!([<segmented_warp_sort_ $suffix>] { K = $k } |p| device::warp_segments::<$k>(p));
            warp_sort_pairs_entry!([<segmented_warp_sort_ $suffix _v32>] { K = $k }
                |p| device::warp_segments_pairs::<$tag>(p));
            block_sort_entry!([<segmented_block_sort_ $suffix>] { K = $k }
                |p| device::block_segments::<$k, { crate::radix::items(<$k as Word>::BYTES, 0) as usize }>(p));
            block_sort_pairs_entry!([<segmented_block_sort_ $suffix _v32>] { K = $k }
                |p| device::block_segments_pairs::<$k, { crate::radix::items(<$k as Word>::BYTES, 4) as usize }>(p));
            large_copy_entry!([<segmented_gather_ $suffix>] { K = $k } |p| device::gather_large::<$k>(p));
            large_copy_entry!([<segmented_scatter_ $suffix>] { K = $k } |p| device::scatter_large::<$k>(p));
            impl SegmentedKernels for $k {
                const WARP_SORT: Kernel<WarpSort<$k>> = [<segmented_warp_sort_ $suffix>];
                const WARP_SORT_PAIRS: Kernel<WarpSortPairs<$k>> = [<segmented_warp_sort_ $suffix _v32>];
                const BLOCK_SORT: Kernel<BlockSort<$k>> = [<segmented_block_sort_ $suffix>];
                const BLOCK_SORT_PAIRS: Kernel<BlockSortPairs<$k>> = [<segmented_block_sort_ $suffix _v32>];
                const GATHER: Kernel<LargeCopy<$k>> = [<segmented_gather_ $suffix>];
                const SCATTER: Kernel<LargeCopy<$k>> = [<segmented_scatter_ $suffix>];
            }
        }
    };
}
segmented_entries!(u32, u64, k32);
segmented_entries!(u64, (u64, u32), k64);

/// The entries of key word `K`.
const fn word_layouts<K: SegmentedKernels>() -> [EntryLayout; 6] {
    [
        K::WARP_SORT.layout(),
        K::WARP_SORT_PAIRS.layout(),
        K::BLOCK_SORT.layout(),
        K::BLOCK_SORT_PAIRS.layout(),
        K::GATHER.layout(),
        K::SCATTER.layout(),
    ]
}

/// Every segmented entry.
pub const KERNELS: &[EntryLayout] = [word_layouts::<u32>(), word_layouts::<u64>()].as_flattened();

/// Threads per block of the warp kernel, and segments per block.
pub const WARP_BLOCK: u32 = 256;
pub const WARPS: u32 = WARP_BLOCK / 32;
/// Largest keys per lane of the warp sort, and so its largest segment.
pub const WARP_ITEMS_MAX: u32 = 16;
pub const WARP_MAX: u64 = 32 * WARP_ITEMS_MAX as u64;

/// Launch bounds (see [`crate::LAUNCH_BOUNDS`]): the block kernel as the radix
/// one-block kernel whose body it runs.
pub const LAUNCH_BOUNDS: &[(&str, u32, u32)] = &[
    (<u32 as SegmentedKernels>::BLOCK_SORT.name(), crate::radix::BLOCK, 1),
    (<u64 as SegmentedKernels>::BLOCK_SORT.name(), crate::radix::BLOCK, 1),
    (<u32 as SegmentedKernels>::BLOCK_SORT_PAIRS.name(), crate::radix::BLOCK, 1),
    (<u64 as SegmentedKernels>::BLOCK_SORT_PAIRS.name(), crate::radix::BLOCK, 1),
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

#[cfg(target_arch = "nvptx64")]
mod device;

#[cfg(test)]
mod tests;
