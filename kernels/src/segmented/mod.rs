//! `segmented`: many independent segments of one buffer sorted in a few launches (as
//! CUB's `DeviceSegmentedSort` and `torch.sort` along a dimension do).
//!
//! The offsets stay on the device. `segmented_bin` ([`BinSegments`], one thread per
//! segment) checks them, bins each segment by length ([`bin`]) and appends it to its
//! bin's work list with warp-aggregated atomics, and records for each tile of the key
//! buffer the first tile-bin segment that starts in it. The sorting kernels that follow are
//! launched for the worst case the host can tell from the key and segment counts and
//! read their work counts from device memory, so nothing waits for the host between
//! them:
//!
//! - [`Bin::Tile`] (2..=[`TILE_SEG_MAX`] keys, where the mean segment is short; else
//!   [`tiny_in_warp`] gives these segments to the warp kernel and the tile kernel is
//!   not launched): `segmented_tile_sort` ([`TileSort`]),
//!   blocks striding over the tiles of the keys (tiles without a tile-bin segment cost
//!   one load). Tile `t` *owns* the tile-bin segments that start in
//!   `[t * TILE_STRIDE, (t + 1) * TILE_STRIDE)`; they end inside its window of [`TILE`]
//!   keys. The block marks the owned window positions and loads the owned keys
//!   (coalesced; no other key is touched, as other kernels sort those concurrently)
//!   into shared memory as order bits. Then, by [`tile_sorter`]:
//!   - [`TileSorter::Network`] (32-bit keys alone): the block lists its owned
//!     segments of two keys or more in shared memory, those of up to
//!     [`TILE_SHORT_MAX`] keys first ([`tile_sorted_slot`]), and each thread sorts one
//!     listed segment at a time in its registers with Batcher's network
//!     ([`sort_padded`]) of 8, 16 or 32 inputs, the smallest that holds the longest
//!     segment of its warp ([`tile_network`]), padded with the largest order bits;
//!     the block stores the owned keys back, coalesced: about 6 comparators a key at
//!     mean 16.
//!   - [`TileSorter::Rank`] (64-bit keys, and pairs): each key's new place in its
//!     segment is its rank there ([`rank_in_segment`]: the keys below it, and the
//!     equal keys before it, so pairs stay stable), as many comparisons as the
//!     segment's length; the network's 64-bit tags for pairs and its wider registers
//!     for 64-bit keys were slower (see `docs/history.md`).
//! - [`Bin::Warp`] (up to [`WARP_MAX`] keys): `segmented_warp_sort`, one warp per
//!   segment (grid-stride over the list, which the bin kernel keeps in a region per
//!   network size, longest first, where the mean segment is long: [`WARP_CLASSES`]).
//!   The warp holds its segment in registers,
//!   [`warp_items`] keys per lane (a power of two, so the network is as short as the
//!   segment allows), loaded striped (element `k * 32 + lane`: coalesced), padded with
//!   the largest order bits, and sorts it by the warp's bitonic network
//!   ([`crate::block::warp_sort`]). For 64-bit keys and for pairs, and for 32-bit
//!   keys from 8 items a lane ([`warp_blocked_from`]), the network runs in the
//!   *blocked* layout, in its all-ascending form (strides below [`warp_items`] swap
//!   inside a lane's registers, larger ones exchange across lanes by shuffles: 15
//!   steps of shuffles where the striped layout takes 30 to 35; the merges across
//!   lanes as loops, which keeps the code small), and the sorted keys (pairs: their
//!   input positions) go back striped through a buffer of the warp's in shared
//!   memory. Shorter segments of 32-bit keys alone run the striped network, or the
//!   blocked one on its own entry (`segmented_warp_sort_k32_blocked`) where the host
//!   chooses it. The entries have launch bounds ([`LAUNCH_BOUNDS`]) for three or four
//!   blocks per SM.
//! - [`Bin::Block`] (up to [`crate::radix::small_max`] keys): `segmented_block_sort`,
//!   one block per segment (grid-stride; the `_once` entries, without the loop, when
//!   the grid has a block per possible segment) running the radix sort's one-block body
//!   (`radix::device::small`) on the segment, on the smallest of its tiles that
//!   holds the segment ([`crate::radix::small_items`]).
//! - [`Bin::Large`]: the ordinary radix sort, launched by the host once it has read the
//!   large list (the only read back, queued right after the bin kernel so the device
//!   sorts the other bins meanwhile). One sort per segment costs a few
//!   launches whatever its length (tens of microseconds), so when there are many
//!   large segments ([`batch_large`]) they are sorted together instead:
//!   `segmented_gather` copies them into one buffer (their *concatenation*, in segment
//!   order) with each key's segment index, a stable pair sort by key and then a
//!   stable pair sort by segment index (over its few low bits) leave each segment's
//!   keys sorted in its own place of the concatenation, and `segmented_scatter`
//!   copies them back.
//!
//! Bad offsets (decreasing, or past the keys) set a flag ([`COUNT_BAD`]) that every
//! sorting kernel checks first: the keys are then left as they were, and the host
//! reports the error.
//!
//! Pairs (a `u32` value per key, e.g. an index) are sorted stably: the tile kernel
//! ranks equal keys by position; the warp network sorts `(order bits, position in the
//! segment)` tags ([`tag_u32`] for 32-bit keys: one `u64`), so no two elements tie, and
//! each lane then fetches its outputs' keys and values from their input positions
//! before any is overwritten; the block kernel runs the radix body with values, which
//! is stable.
//! Long segments of pairs get a radix pair sort each.
//!
//! Keys move as raw words; the kernels compare order bits (`raw ^ mask`, see
//! [`crate::key::BitOrder::masks`]), so every primitive type and both directions use
//! the same kernels, one set per key width. Equal order bits mean equal raw bits, so the
//! unstable network gives the same result as any stable sort.
//!
//! The entries are per key *word* ([`SegmentedKernels`]): `u32` for 32-bit keys, `u64`
//! for 64-bit keys, and those reading the offsets per offset word ([`OffsetKernels`]:
//! `u32` or `u64`). A primitive key's word is its
//! [`SortKey::Bits`](crate::SortKey::Bits), the unsigned integer of its width.
use crate::key::Word;
use crate::params::{DevPtr, EntryLayout, Kernel};

crate::params::kernel_params! {
    /// `segmented_bin`: thread `i` bins segment `i` of `segments`
    /// (`offsets[i]..offsets[i + 1]` of `n` keys), see the module docs.
    pub struct BinSegments<O> {
        pub offsets: DevPtr<O>,
        pub segments: u32,
        pub n: u64,
        /// Whether the segments of 2..=[`TILE_SEG_MAX`] keys go to the warp bin (1, see
        /// [`tiny_in_warp`]) or the tile bin (0).
        pub tiny_in_warp: u32,
        /// The block bin's longest segment ([`crate::radix::small_max`] of the keys).
        pub block_max: u64,
        /// Whether the warp list has a region per class (1) or one for all (0), see
        /// [`warp_regions`].
        pub warp_by_class: u32,
        /// [`COUNTS`] words, zeroed before the launch: the lists' lengths and the flag
        /// of bad offsets.
        pub counts: DevPtr<u32>,
        /// Per tile ([`tiles`] of them, zeroed): the first tile-bin segment that starts
        /// in it as [`first_mark`], 0 when none does.
        pub first: DevPtr<u32>,
        /// The warp bin's descriptors ([`pack`]) in the regions of [`warp_regions`],
        /// and the block bin's.
        pub warp: DevPtr<u64>,
        pub block: DevPtr<u64>,
        /// The large segments' `(start, end)`, two words each.
        pub large: DevPtr<u64>,
    }
    /// Declares an entry taking [`BinSegments`].
    entries bin_entry;
}

crate::params::kernel_params! {
    /// `segmented_tile_sort`: block `b` sorts the tile-bin segments tiles `b`,
    /// `b + blocks in the grid`, ... own (see the module docs), with their values when
    /// `vals` is not null (pairs entries).
    pub struct TileSort<K, O> {
        pub keys: DevPtr<K>,
        pub vals: DevPtr<u32>,
        pub offsets: DevPtr<O>,
        pub segments: u32,
        pub n: u64,
        /// The bin kernel's counts (only the bad-offsets flag is read).
        pub counts: DevPtr<u32>,
        pub first: DevPtr<u32>,
        pub pos: K,
        pub neg: K,
    }
    /// Declares an entry taking [`TileSort`].
    entries tile_sort_entry;
}

crate::params::kernel_params! {
    /// `segmented_warp_sort`: warp `w` of the grid sorts warp-bin segments `w`,
    /// `w + warps in the grid`, ... of `keys` in place (the classes' counts from
    /// `counts[COUNT_WARP]`, their regions of `descs` from `counts[WARP_STARTS]`).
    pub struct WarpSort<K> {
        pub keys: DevPtr<K>,
        /// The segments' descriptors ([`pack`]).
        pub descs: DevPtr<u64>,
        /// The bin kernel's counts.
        pub counts: DevPtr<u32>,
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
        pub counts: DevPtr<u32>,
        pub pos: K,
        pub neg: K,
    }
    /// Declares an entry taking [`WarpSortPairs`].
    entries warp_sort_pairs_entry;
}

crate::params::kernel_params! {
    /// `segmented_block_sort`: block `b` sorts the block-bin segments `descs[b]`,
    /// `descs[b + blocks in the grid]`, ... (`counts[COUNT_BLOCK]` of them) of `keys` in
    /// place with the radix sort's one-block body.
    pub struct BlockSort<K> {
        pub keys: DevPtr<K>,
        pub descs: DevPtr<u64>,
        pub counts: DevPtr<u32>,
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
        pub counts: DevPtr<u32>,
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
    /// The warp kernel of keys alone on the blocked network (the layout of
    /// [`Self::WARP_SORT`] for 64-bit keys; another entry for 32-bit keys).
    const WARP_SORT_BLOCKED: Kernel<WarpSort<Self>> = Self::WARP_SORT;
    const WARP_SORT_PAIRS: Kernel<WarpSortPairs<Self>>;
    const BLOCK_SORT: Kernel<BlockSort<Self>>;
    const BLOCK_SORT_PAIRS: Kernel<BlockSortPairs<Self>>;
    /// The block kernels for a grid of a block per listed segment: block `b` sorts
    /// `descs[b]` only, with no loop holding state across segments.
    const BLOCK_SORT_ONCE: Kernel<BlockSort<Self>>;
    const BLOCK_SORT_PAIRS_ONCE: Kernel<BlockSortPairs<Self>>;
    const GATHER: Kernel<LargeCopy<Self>>;
    const SCATTER: Kernel<LargeCopy<Self>>;
    /// The tile kernels for `u32` and `u64` offsets, keys only (by [`tile_sorter`]) and
    /// pairs.
    const TILE_SORT_O32: Kernel<TileSort<Self, u32>>;
    const TILE_SORT_O64: Kernel<TileSort<Self, u64>>;
    /// The tile kernels of keys only with the rank sorter: those above where
    /// [`tile_sorter`] ranks them (64-bit keys).
    const TILE_SORT_RANK_O32: Kernel<TileSort<Self, u32>> = Self::TILE_SORT_O32;
    const TILE_SORT_RANK_O64: Kernel<TileSort<Self, u64>> = Self::TILE_SORT_O64;
    const TILE_SORT_PAIRS_O32: Kernel<TileSort<Self, u32>>;
    const TILE_SORT_PAIRS_O64: Kernel<TileSort<Self, u64>>;
}

/// The segmented sort's entries that read offsets of one word type (`u32` or `u64`).
pub trait OffsetKernels: Word {
    const BIN: Kernel<BinSegments<Self>>;
    /// The tile kernel of keys of word `K` (with values when `pairs`) with `sorter`,
    /// which must be [`tile_sorter`]'s or the rank.
    fn tile_sort<K: SegmentedKernels>(pairs: bool, sorter: TileSorter) -> Kernel<TileSort<K, Self>>;
}

impl OffsetKernels for u32 {
    const BIN: Kernel<BinSegments<u32>> = segmented_bin_o32;
    fn tile_sort<K: SegmentedKernels>(pairs: bool, sorter: TileSorter) -> Kernel<TileSort<K, u32>> {
        match (pairs, sorter) {
            (true, _) => K::TILE_SORT_PAIRS_O32,
            (false, TileSorter::Rank) => K::TILE_SORT_RANK_O32,
            (false, TileSorter::Network) => K::TILE_SORT_O32,
        }
    }
}

impl OffsetKernels for u64 {
    const BIN: Kernel<BinSegments<u64>> = segmented_bin_o64;
    fn tile_sort<K: SegmentedKernels>(pairs: bool, sorter: TileSorter) -> Kernel<TileSort<K, u64>> {
        match (pairs, sorter) {
            (true, _) => K::TILE_SORT_PAIRS_O64,
            (false, TileSorter::Rank) => K::TILE_SORT_RANK_O64,
            (false, TileSorter::Network) => K::TILE_SORT_O64,
        }
    }
}

bin_entry!(segmented_bin_o32 { O = u32 } |p| device::bin_segments::<u32>(p));
bin_entry!(segmented_bin_o64 { O = u64 } |p| device::bin_segments::<u64>(p));

/// Declares the entries of key word `$k`; `$tag` is its pairs' network element
/// (`device::Tag`), `$rank32` and `$rank64` its keys' tile kernels with the rank sorter
/// where those are other entries.
macro_rules! segmented_entries {
    ($k:ty, $tag:ty, $suffix:ident { $($extra:tt)* }) => {
        paste::paste! {
            warp_sort_entry!([<segmented_warp_sort_ $suffix>] { K = $k }
                |p| device::warp_segments::<$k, { warp_blocked_from(<$k as Word>::BYTES, false) as usize }>(p));
            warp_sort_pairs_entry!([<segmented_warp_sort_ $suffix _v32>] { K = $k }
                |p| device::warp_segments_pairs::<$tag>(p));
            block_sort_entry!([<segmented_block_sort_ $suffix _once>] { K = $k }
                |p| device::block_segments::<$k, true, { crate::radix::items(<$k as Word>::BYTES, 0) as usize }>(p));
            block_sort_pairs_entry!([<segmented_block_sort_ $suffix _v32_once>] { K = $k }
                |p| device::block_segments_pairs::<$k, true, { crate::radix::items(<$k as Word>::BYTES, 4) as usize }>(p));
            block_sort_entry!([<segmented_block_sort_ $suffix>] { K = $k }
                |p| device::block_segments::<$k, false, { crate::radix::items(<$k as Word>::BYTES, 0) as usize }>(p));
            block_sort_pairs_entry!([<segmented_block_sort_ $suffix _v32>] { K = $k }
                |p| device::block_segments_pairs::<$k, false, { crate::radix::items(<$k as Word>::BYTES, 4) as usize }>(p));
            large_copy_entry!([<segmented_gather_ $suffix>] { K = $k } |p| device::gather_large::<$k>(p));
            large_copy_entry!([<segmented_scatter_ $suffix>] { K = $k } |p| device::scatter_large::<$k>(p));
            tile_sort_entry!([<segmented_tile_sort_ $suffix _o32>] { K = $k, O = u32 }
                |p| device::tile_segments::<$k, u32, false, { tile_sorter(<$k as Word>::BYTES, false) as u32 }>(p));
            tile_sort_entry!([<segmented_tile_sort_ $suffix _o64>] { K = $k, O = u64 }
                |p| device::tile_segments::<$k, u64, false, { tile_sorter(<$k as Word>::BYTES, false) as u32 }>(p));
            tile_sort_entry!([<segmented_tile_sort_ $suffix _o32_v32>] { K = $k, O = u32 }
                |p| device::tile_segments::<$k, u32, true, { tile_sorter(<$k as Word>::BYTES, true) as u32 }>(p));
            tile_sort_entry!([<segmented_tile_sort_ $suffix _o64_v32>] { K = $k, O = u64 }
                |p| device::tile_segments::<$k, u64, true, { tile_sorter(<$k as Word>::BYTES, true) as u32 }>(p));
            impl SegmentedKernels for $k {
                const WARP_SORT: Kernel<WarpSort<$k>> = [<segmented_warp_sort_ $suffix>];
                const WARP_SORT_PAIRS: Kernel<WarpSortPairs<$k>> = [<segmented_warp_sort_ $suffix _v32>];
                const BLOCK_SORT: Kernel<BlockSort<$k>> = [<segmented_block_sort_ $suffix>];
                const BLOCK_SORT_ONCE: Kernel<BlockSort<$k>> = [<segmented_block_sort_ $suffix _once>];
                const BLOCK_SORT_PAIRS_ONCE: Kernel<BlockSortPairs<$k>> = [<segmented_block_sort_ $suffix _v32_once>];
                const BLOCK_SORT_PAIRS: Kernel<BlockSortPairs<$k>> = [<segmented_block_sort_ $suffix _v32>];
                const GATHER: Kernel<LargeCopy<$k>> = [<segmented_gather_ $suffix>];
                const SCATTER: Kernel<LargeCopy<$k>> = [<segmented_scatter_ $suffix>];
                const TILE_SORT_O32: Kernel<TileSort<$k, u32>> = [<segmented_tile_sort_ $suffix _o32>];
                const TILE_SORT_O64: Kernel<TileSort<$k, u64>> = [<segmented_tile_sort_ $suffix _o64>];
                $($extra)*
                const TILE_SORT_PAIRS_O32: Kernel<TileSort<$k, u32>> = [<segmented_tile_sort_ $suffix _o32_v32>];
                const TILE_SORT_PAIRS_O64: Kernel<TileSort<$k, u64>> = [<segmented_tile_sort_ $suffix _o64_v32>];
            }
        }
    };
}
segmented_entries!(u32, u64, k32 {
    const TILE_SORT_RANK_O32: Kernel<TileSort<u32, u32>> = segmented_tile_sort_k32_o32_rank;
    const TILE_SORT_RANK_O64: Kernel<TileSort<u32, u64>> = segmented_tile_sort_k32_o64_rank;
    const WARP_SORT_BLOCKED: Kernel<WarpSort<u32>> = segmented_warp_sort_k32_blocked;
});
// 32-bit keys alone on the blocked warp network for every segment, for the layout
// chosen at run time (`WARP_SORT_BLOCKED`).
warp_sort_entry!(segmented_warp_sort_k32_blocked { K = u32 } |p| device::warp_segments::<u32, 1>(p));
segmented_entries!(u64, (u64, u32), k64 {});
// 32-bit keys alone with the rank sorter, for [`TileSorter::Rank`] chosen at run time.
tile_sort_entry!(segmented_tile_sort_k32_o32_rank { K = u32, O = u32 }
    |p| device::tile_segments::<u32, u32, false, { TileSorter::Rank as u32 }>(p));
tile_sort_entry!(segmented_tile_sort_k32_o64_rank { K = u32, O = u64 }
    |p| device::tile_segments::<u32, u64, false, { TileSorter::Rank as u32 }>(p));

/// The entries of key word `K`, and the bin kernel of offset word `K` (both are
/// `u32` and `u64`).
const fn word_layouts<K: SegmentedKernels + OffsetKernels>() -> [EntryLayout; WORD_ENTRIES] {
    [
        K::BIN.layout(),
        K::WARP_SORT.layout(),
        K::WARP_SORT_PAIRS.layout(),
        K::BLOCK_SORT.layout(),
        K::BLOCK_SORT_PAIRS.layout(),
        K::BLOCK_SORT_ONCE.layout(),
        K::BLOCK_SORT_PAIRS_ONCE.layout(),
        K::GATHER.layout(),
        K::SCATTER.layout(),
        K::TILE_SORT_O32.layout(),
        K::TILE_SORT_O64.layout(),
        K::TILE_SORT_PAIRS_O32.layout(),
        K::TILE_SORT_PAIRS_O64.layout(),
    ]
}

/// Entries per key word (see [`word_layouts`]).
const WORD_ENTRIES: usize = 13;

/// Every segmented entry.
pub const KERNELS: &[EntryLayout] = &const {
    let [a, b] = [word_layouts::<u32>(), word_layouts::<u64>()];
    let extra = [
        segmented_tile_sort_k32_o32_rank.layout(),
        segmented_tile_sort_k32_o64_rank.layout(),
        segmented_warp_sort_k32_blocked.layout(),
    ];
    let mut all = [a[0]; 2 * WORD_ENTRIES + EXTRA_ENTRIES];
    let mut i = 0;
    while i < WORD_ENTRIES {
        (all[i], all[WORD_ENTRIES + i]) = (a[i], b[i]);
        i += 1;
    }
    let mut j = 0;
    while j < EXTRA_ENTRIES {
        all[2 * WORD_ENTRIES + j] = extra[j];
        j += 1;
    }
    all
};

/// Entries of [`KERNELS`] beyond those of every key word.
const EXTRA_ENTRIES: usize = 3;

/// Threads per block of the warp kernel, and segments per block.
pub const WARP_BLOCK: u32 = 256;
pub const WARPS: u32 = WARP_BLOCK / 32;
/// Largest keys per lane of the warp sort, and so its largest segment.
pub const WARP_ITEMS_MAX: u32 = 16;
pub const WARP_MAX: u64 = 32 * WARP_ITEMS_MAX as u64;
/// Words of a warp's buffer that puts the sorted blocked registers back in striped
/// order: a segment, skewed by a word every 32.
pub const WARP_SMEM_WORDS: u32 = WARP_MAX as u32 + WARP_MAX as u32 / 32;

/// Items a lane from which the warp kernel sorts keys of `key_bytes` bytes (with
/// values when `pairs`) in the blocked layout (see the module docs); shorter segments
/// take the striped one. 64-bit keys and pairs: every segment, as the network's
/// shuffles of two words or of tags dominate (H100, 2^24 keys in 2^16 segments against
/// the striped layout, 2026-11-28, both written out, the blocked one alternating: u64
/// keys 0.896 against 1.010 ms, u32 pairs 0.919 against 0.981). 32-bit keys alone:
/// from 8 items (256 keys): H200, 2^24 keys at four blocks per SM (2026-11-28), in
/// 2^16 segments (mostly 8 and 16 items) blocked 0.142 ms against striped 0.176, in
/// 2^18 (2 and 4 items) 0.243 against 0.237. The entry
/// `segmented_warp_sort_k32_blocked` takes every segment blocked.
pub const fn warp_blocked_from(key_bytes: u32, pairs: bool) -> u32 {
    if pairs || key_bytes == 8 { 1 } else { WARP_K32_BLOCKED_FROM }
}

/// [`warp_blocked_from`] of 32-bit keys alone.
pub const WARP_K32_BLOCKED_FROM: u32 = 8;

/// Dynamic shared memory of the warp kernel for keys of `key_bytes` bytes: a buffer
/// per warp for the segments in the blocked layout (of the keys' order bits, or for
/// pairs of their input positions, `u32`).
pub const fn warp_smem(key_bytes: u32, pairs: bool) -> u32 {
    WARPS * WARP_SMEM_WORDS * if pairs { 4 } else { key_bytes }
}

/// Launch bounds (see [`crate::LAUNCH_BOUNDS`]): the block kernel as the radix
/// one-block kernel whose body it runs.
pub const LAUNCH_BOUNDS: &[(&str, u32, u32)] = &[
    (<u32 as SegmentedKernels>::BLOCK_SORT.name(), crate::radix::BLOCK, 1),
    (<u64 as SegmentedKernels>::BLOCK_SORT.name(), crate::radix::BLOCK, 1),
    (<u32 as SegmentedKernels>::BLOCK_SORT_PAIRS.name(), crate::radix::BLOCK, 1),
    (<u64 as SegmentedKernels>::BLOCK_SORT_PAIRS.name(), crate::radix::BLOCK, 1),
    (<u32 as SegmentedKernels>::BLOCK_SORT_ONCE.name(), crate::radix::BLOCK, ONCE_BLOCKS_PER_SM),
    (<u64 as SegmentedKernels>::BLOCK_SORT_ONCE.name(), crate::radix::BLOCK, ONCE_BLOCKS_PER_SM),
    (<u32 as SegmentedKernels>::BLOCK_SORT_PAIRS_ONCE.name(), crate::radix::BLOCK, ONCE_BLOCKS_PER_SM),
    (<u64 as SegmentedKernels>::BLOCK_SORT_PAIRS_ONCE.name(), crate::radix::BLOCK, ONCE_BLOCKS_PER_SM),
    // Two warp-kernel blocks per SM for 64-bit pairs: 128 registers and a 40-byte
    // spill instead of 168 registers and one block, 1.99 -> 1.13 ms for 2^24 keys in
    // 2^16 segments (H100, 2026-11-27). The same bounds on 32-bit pairs (96 -> 127
    // registers, two blocks either way) were 3% slower.
    (<u64 as SegmentedKernels>::WARP_SORT_PAIRS.name(), WARP_BLOCK, 2),
    // The other warp kernels at four (32-bit keys) or three blocks per SM: ptxas -v
    // (sm_90) without bounds took 71 registers for the striped 32-bit entry (three
    // 256-thread blocks per SM), 93 for the blocked one (two), 120 for 64-bit keys and
    // 106 for 32-bit pairs (two); under these bounds 64 (no spill) and 80 (24 bytes
    // of stack). H200, 2^24 keys in 2^16 segments (2026-11-28, the list by class,
    // entries side by side): u32 keys striped 0.171 -> 0.176 ms (8 bytes spilled; at
    // five blocks, 48 registers, 0.166), blocked 0.206 -> 0.142; u64 keys 0.393 ->
    // 0.389; u32 pairs 0.407 -> 0.392.
    (<u32 as SegmentedKernels>::WARP_SORT.name(), WARP_BLOCK, 4),
    (<u32 as SegmentedKernels>::WARP_SORT_BLOCKED.name(), WARP_BLOCK, 4),
    (<u64 as SegmentedKernels>::WARP_SORT.name(), WARP_BLOCK, 3),
    (<u32 as SegmentedKernels>::WARP_SORT_PAIRS.name(), WARP_BLOCK, 3),
    // The network tile kernel at eight blocks per SM (at most 64 registers; 84 without
    // bounds: five blocks, achieved occupancy 28% and issue slots 29% busy, H200 ncu,
    // 2026-11-27), for the latency of its short dependent chains between barriers.
    // ptxas spills 60 bytes a thread (48 at seven blocks). With the bit marks and three
    // barriers a tile: 2^24 u32 keys in 2^20 segments 0.255 -> 0.206 ms, the kernel
    // 153 us under ncu (H200, 2026-11-28).
    (<u32 as SegmentedKernels>::TILE_SORT_O32.name(), tile_block(TileSorter::Network), 8),
    (<u32 as SegmentedKernels>::TILE_SORT_O64.name(), tile_block(TileSorter::Network), 8),
    // The rank tile kernel at four 512-thread blocks per SM (at most 32 registers; 34
    // without bounds for 64-bit keys: three blocks), the occupancy of its 256-thread
    // blocks of 31 to 32 registers before the window grew to 2,048 keys.
    (<u32 as SegmentedKernels>::TILE_SORT_PAIRS_O32.name(), tile_block(TileSorter::Rank), 4),
    (<u32 as SegmentedKernels>::TILE_SORT_RANK_O32.name(), tile_block(TileSorter::Rank), 4),
    (<u32 as SegmentedKernels>::TILE_SORT_RANK_O64.name(), tile_block(TileSorter::Rank), 4),
    (<u32 as SegmentedKernels>::TILE_SORT_PAIRS_O64.name(), tile_block(TileSorter::Rank), 4),
    (<u64 as SegmentedKernels>::TILE_SORT_O32.name(), tile_block(TileSorter::Rank), 4),
    (<u64 as SegmentedKernels>::TILE_SORT_O64.name(), tile_block(TileSorter::Rank), 4),
    (<u64 as SegmentedKernels>::TILE_SORT_PAIRS_O32.name(), tile_block(TileSorter::Rank), 4),
    (<u64 as SegmentedKernels>::TILE_SORT_PAIRS_O64.name(), tile_block(TileSorter::Rank), 4),
];

/// Blocks per SM of the `_once` block kernels' launch bounds (an experiment's
/// feature raises it to two).
const ONCE_BLOCKS_PER_SM: u32 = if cfg!(feature = "segmented-two-blocks") { 2 } else { 1 };

/// Threads per block of the bin kernel.
pub const BIN_BLOCK: u32 = 256;
/// Dynamic shared memory of the bin kernel: each warp's count of each list, and the
/// block's first slot in each.
pub const BIN_SMEM: u32 = 4 * (COUNT_LARGE as u32 + 1) * (BIN_BLOCK / 32 + 1);

/// The tile bin's longest segment.
pub const TILE_SEG_MAX: u64 = 32;
/// Keys per window of the tile kernel: about one segment of mean 16 per thread of the
/// network's blocks, as each of its threads sorts a whole segment.
pub const TILE: u32 = 2048;
/// Keys between the windows of consecutive tiles: a segment owned by a tile starts in
/// its first `TILE_STRIDE` keys, so it ends inside the window.
pub const TILE_STRIDE: u64 = TILE as u64 - TILE_SEG_MAX;

/// The counts the bin kernel writes: the warp list's length per class
/// ([`WARP_CLASSES`] words from `COUNT_WARP`), the block and large lists' lengths,
/// the flag of bad offsets (0: none; else `segments - i` for the first bad segment
/// `i` found, so the largest flag is the first bad segment), and where each class's
/// region of the warp list starts ([`warp_regions`], [`WARP_CLASSES`] words from
/// `WARP_STARTS`, for the warp kernel).
pub const COUNT_WARP: usize = 0;
pub const COUNT_BLOCK: usize = COUNT_WARP + WARP_CLASSES;
pub const COUNT_LARGE: usize = COUNT_BLOCK + 1;
pub const COUNT_BAD: usize = COUNT_LARGE + 1;
pub const WARP_STARTS: usize = COUNT_BAD + 1;
pub const COUNTS: usize = WARP_STARTS + WARP_CLASSES;

/// Classes of the warp list: segments of 16, 8, 4, 2 and 1 items a lane
/// ([`warp_items`]), in that order, each in its own region of the list. The warp
/// kernel takes the segments class by class, so that the eight warps of a block sort
/// segments of one network size (a block holds its registers until its slowest warp
/// is done: with lengths uniform in 0..=512, a block of mixed segments keeps about a
/// third of its warps idle), the longest first (the tail of the grid is short
/// segments), and an SM runs one network's code at a time.
pub const WARP_CLASSES: usize = 5;

/// The warp-list class of a warp-bin segment of `len` keys (see [`WARP_CLASSES`]):
/// 0 for [`WARP_ITEMS_MAX`] items a lane, up to 4 for one.
#[inline(always)]
pub const fn warp_class(len: u32) -> usize {
    (WARP_ITEMS_MAX / warp_items(len)).trailing_zeros() as usize
}

/// Where each class's region of the warp list starts, then the list's length, for a
/// buffer of `n` keys in `segments` segments, with the segments of 2..=32 keys in the
/// warp bin or not ([`tiny_in_warp`]): each region holds the most segments its class
/// can have ([`bin_capacity`]; none for the one-item class when the tile kernel takes
/// every segment that short). Without `by_class`, one region holds every class (the
/// segments in the order the bin kernel appends them). Every division is by a
/// constant (the bin kernel computes this per warp: divisions by a parameter took it
/// from 4.6 to 11.5 us for 2^16 segments, H200 ncu, 2026-11-28).
#[inline(always)]
pub const fn warp_regions(n: u64, segments: u64, tiny_in_warp: bool, by_class: bool) -> [u64; WARP_CLASSES + 1] {
    let one = if tiny_in_warp { bin_capacity(n, segments, 2) } else { 0 };
    let caps = if by_class {
        [
            bin_capacity(n, segments, class_min_len(0)),
            bin_capacity(n, segments, class_min_len(1)),
            bin_capacity(n, segments, class_min_len(2)),
            bin_capacity(n, segments, class_min_len(3)),
            one,
        ]
    } else if tiny_in_warp {
        [one, 0, 0, 0, 0]
    } else {
        [bin_capacity(n, segments, TILE_SEG_MAX + 1), 0, 0, 0, 0]
    };
    let mut starts = [0; WARP_CLASSES + 1];
    let mut c = 0;
    while c < WARP_CLASSES {
        starts[c + 1] = starts[c] + caps[c];
        c += 1;
    }
    starts
}

/// The shortest segment of warp class `c < 4` (the one-item class starts after the
/// tile bin).
#[inline(always)]
const fn class_min_len(c: usize) -> u64 {
    16 * (WARP_ITEMS_MAX as u64 >> c) + 1
}

/// The warp list's slot of the `w`-th segment when the class regions are taken one
/// after another (`w` below their total count; `count(c)` and `start(c)`: class
/// `c`'s count and region start).
#[inline(always)]
pub fn warp_list_slot(w: u32, count: impl Fn(usize) -> u32, start: impl Fn(usize) -> u32) -> u32 {
    let (mut rest, mut slot) = (w, 0);
    let mut found = false;
    crate::block::unroll::<WARP_CLASSES>(|c| {
        if !found {
            let n = count(c);
            if rest < n {
                slot = start(c) + rest;
                found = true;
            } else {
                rest -= n;
            }
        }
    });
    slot
}

/// The class region of a warp-bin segment of `len` keys (see [`warp_regions`]).
#[inline(always)]
pub const fn warp_region(len: u32, by_class: bool) -> usize {
    if by_class { warp_class(len) } else { 0 }
}

/// Tiles of a buffer of `n` keys.
pub const fn tiles(n: u64) -> u64 {
    n.div_ceil(TILE_STRIDE)
}

/// The tile a segment starting at `start` belongs to.
#[inline(always)]
pub const fn tile_of(start: u64) -> u64 {
    start / TILE_STRIDE
}

/// Tile `t`'s entry of the bin kernel's `first` list for tile-bin segment `i`: the
/// largest mark is the first segment, so that an atomic maximum over a zeroed list
/// keeps it (`i < 2^32 - 1`: marks are never 0, which means no segment).
#[inline(always)]
pub const fn first_mark(i: u32) -> u32 {
    u32::MAX - i
}

/// The segment of a mark made by [`first_mark`] (not 0).
#[inline(always)]
pub const fn first_of_mark(mark: u32) -> u32 {
    u32::MAX - mark
}

/// How the tile kernel sorts a tile's segments (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TileSorter {
    /// Each key stored at its rank in its segment.
    Rank = 0,
    /// One thread a segment, by a register network.
    Network = 1,
}

/// The tile kernel's sorter for keys of `key_bytes` bytes, with values when `pairs`:
/// the network for 32-bit keys alone. H100, 2^24 keys in 2^20 segments against the
/// rank (2026-11-28): u32 keys 0.263 against 0.270 ms, u32 pairs 0.376 against 0.272
/// (64-bit tags, 128 registers and a second pass over the values).
pub const fn tile_sorter(key_bytes: u32, pairs: bool) -> TileSorter {
    if key_bytes == 4 && !pairs { TileSorter::Network } else { TileSorter::Rank }
}

/// The tile sorter an entry's `u32` parameter stands for.
pub const fn tile_sorter_of(id: u32) -> TileSorter {
    if id == TileSorter::Network as u32 { TileSorter::Network } else { TileSorter::Rank }
}

/// Threads per block of the tile kernel with `sorter`: the network's 128 threads take
/// about one segment of mean 16 each per window; the rank's 512 take four keys each
/// (the work per thread of the rank kernel's earlier 256-thread, 1,024-key windows).
pub const fn tile_block(sorter: TileSorter) -> u32 {
    match sorter {
        TileSorter::Network => 128,
        TileSorter::Rank => 512,
    }
}

/// The network sorter's owned marks of a segment of `len <= TILE_SEG_MAX` keys at
/// window position `s`, a bit a position: the low half goes to word `s / 32` of the
/// window's bit marks, the high half to word `s / 32 + 1`.
#[inline(always)]
pub const fn owned_bits(s: u32, len: u32) -> u64 {
    ((1u64 << len) - 1) << (s % 32)
}

/// A window position's owned segment `[s, e)` (window positions, `e <= TILE`) in one
/// shared-memory word of the rank sorter.
#[inline(always)]
pub const fn tile_span(s: u32, e: u32) -> u32 {
    s | e << 16
}

/// `(s, e)` of a word made by [`tile_span`].
#[inline(always)]
pub const fn tile_span_bounds(w: u32) -> (u32, u32) {
    (w & 0xffff, w >> 16)
}

/// A window position that no owned segment covers (see [`tile_span`]).
pub const NOT_OWNED: u32 = u32::MAX;

/// Order bits tagged with a position, compared as one value (order bits first): the
/// rank sorter counts the tagged keys of a segment below a key's own, in one
/// comparison per key.
pub trait RankKey: Copy + Ord {
    type Tagged: Ord + Copy;
    fn tagged(self, pos: u32) -> Self::Tagged;
}

impl RankKey for u32 {
    /// One 64-bit comparison.
    type Tagged = u64;
    #[inline(always)]
    fn tagged(self, pos: u32) -> u64 {
        tag_u32(self, pos)
    }
}

impl RankKey for u64 {
    type Tagged = (u64, u32);
    #[inline(always)]
    fn tagged(self, pos: u32) -> (u64, u32) {
        (self, pos)
    }
}

/// The place in its segment `[s, e)` of the key at window position `o` with order
/// bits `mine`: the keys of the segment below it, and the equal ones before it
/// (`ord_at(j)`: the order bits at position `j`). A stable sort's ranks: distinct
/// for the keys of a segment.
#[inline(always)]
pub fn rank_in_segment<K: RankKey>(ord_at: impl Fn(u32) -> K, s: u32, e: u32, o: u32, mine: K) -> u32 {
    let me = mine.tagged(o);
    let mut r = 0;
    let mut j = s;
    while j < e {
        r += (ord_at(j).tagged(j) < me) as u32;
        j += 1;
    }
    r
}

/// Inputs of the tile kernel's network for a warp whose longest segment has
/// `max_len <= TILE_SEG_MAX` keys: 8, 16 or 32 (19, 63 or 191 comparators).
#[inline(always)]
pub const fn tile_network(max_len: u32) -> u32 {
    if max_len <= 8 {
        8
    } else if max_len <= 16 {
        16
    } else {
        32
    }
}

/// The `len <= N` elements `at(0)`, ..., `at(len - 1)` sorted in registers by
/// Batcher's network of `N` inputs ([`crate::block::network`]), the other inputs
/// `pad` (not below any element): the first `len` of the result are the elements in
/// order. Unstable, so elements must be distinguishable when equal (order bits alone,
/// or tagged with their positions).
#[inline(always)]
pub fn sort_padded<T: Copy + Ord, const N: usize>(len: u32, pad: T, at: impl Fn(u32) -> T) -> [T; N] {
    let mut v = [pad; N];
    crate::block::unroll::<N>(|j| {
        if (j as u32) < len {
            v[j] = at(j as u32);
        }
    });
    crate::block::network::sort_by_key(&mut v, |x| x);
    v
}

/// Worst-case length of a bin list whose segments have at least `min_len` keys: no
/// more than the segments, nor than the keys allow.
#[inline(always)]
pub const fn bin_capacity(n: u64, segments: u64, min_len: u64) -> u64 {
    let by_keys = n / min_len;
    if by_keys < segments { by_keys } else { segments }
}

/// Bits of a descriptor that hold the segment's start (elements); its length sits
/// above them.
pub const START_BITS: u32 = 40;

/// Where a segment is sorted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bin {
    /// 0 or 1 keys: already sorted.
    Skip,
    Tile,
    Warp,
    Block,
    Large,
}

/// The bin of a segment of `len` keys of `key_bytes` bytes, each with a value of
/// `value_bytes` bytes (0: keys only), with the tile kernel running ([`tile_max`]).
pub const fn bin(len: u64, key_bytes: u32, value_bytes: u32) -> Bin {
    bin_with(len, TILE_SEG_MAX, crate::radix::small_max(key_bytes, value_bytes))
}

/// The tile bin's longest segment: [`TILE_SEG_MAX`] when the tile kernel runs, 1 (no
/// tile bin) when the warp kernel takes the segments of 2..=[`TILE_SEG_MAX`] keys too
/// (see [`tiny_in_warp`]).
pub const fn tile_max(tiny_in_warp: bool) -> u64 {
    if tiny_in_warp { 1 } else { TILE_SEG_MAX }
}

/// Whether the warp kernel sorts the segments of 2..=[`TILE_SEG_MAX`] keys of a
/// buffer of `n` keys in `segments` segments, and the tile kernel is not launched:
/// where the mean segment is long, the few tiny segments are cheap on the warp
/// kernel's one-item network, while the tile kernel's grid visits every tile of the
/// keys (one dependent chain of loads a tile), ~25-30 us for 2^24 keys in 2^16
/// segments (H100 and H200 profiles, 2026-11-28).
pub const fn tiny_in_warp(n: u64, segments: u64) -> bool {
    n / if segments == 0 { 1 } else { segments } > TINY_IN_WARP_MEAN
}

/// The mean segment length above which [`tiny_in_warp`] holds: measured on an H200
/// (2026-11-28, 2^24 u32 keys, `host bench-segments`, medians of 20, default against
/// `SORT_SEGMENTED_TINY_IN_WARP=1 SORT_SEGMENTED_WARP_BY_CLASS=1`, two rounds): mean
/// 64 0.215-0.218 against 0.199-0.200 ms, mean 48 0.208 against 0.202, mean 32 0.231
/// against 0.313-0.327 (the warp kernel's one-item network then takes a third of the
/// keys), mean 24 0.275 against 0.41.
pub const TINY_IN_WARP_MEAN: u64 = 40;

/// The bin of a segment of `len` keys when the tile bin takes up to `tile_max` (see
/// [`tile_max`]) and the block bin up to `block_max`.
#[inline(always)]
pub const fn bin_with(len: u64, tile_max: u64, block_max: u64) -> Bin {
    if len <= 1 {
        Bin::Skip
    } else if len <= tile_max {
        Bin::Tile
    } else if len <= WARP_MAX {
        Bin::Warp
    } else if len <= block_max {
        Bin::Block
    } else {
        Bin::Large
    }
}

/// The shortest segment of each list the bin kernel writes (see [`bin_capacity`]),
/// for the bins of [`bin_with`].
pub const fn bin_min_len(bin: Bin, tile_max: u64, block_max: u64) -> u64 {
    match bin {
        Bin::Skip => 0,
        Bin::Tile => 2,
        Bin::Warp => tile_max + 1,
        Bin::Block => WARP_MAX + 1,
        Bin::Large => block_max + 1,
    }
}

/// Dynamic shared memory of the tile kernel with `sorter` for keys of `key_bytes`
/// bytes: each window position's order bits and, for the network, two buffers of its
/// owned mark (a bit), its list of owned segments ([`TILE_LIST`] words) and two pairs
/// of the list's counters; for the rank each position's owned segment ([`tile_span`]).
pub const fn tile_smem(sorter: TileSorter, key_bytes: u32) -> u32 {
    match sorter {
        TileSorter::Network => network_smem(key_bytes).bytes,
        TileSorter::Rank => TILE * (key_bytes + 4),
    }
}

/// Where the network sorter's areas lie in its shared memory ([`tile_smem`]), as byte
/// offsets, for keys of `key_bytes` bytes.
pub struct NetworkSmem {
    /// Two buffers of [`TILE`] / 8 bytes of owned marks.
    pub marks: u32,
    /// The list of owned segments, [`TILE_LIST`] words.
    pub list: u32,
    /// Two pairs of the list's counters (short, long).
    pub counters: u32,
    /// The whole.
    pub bytes: u32,
}

/// The network sorter's [`NetworkSmem`] for keys of `key_bytes` bytes: the order bits
/// of each window position first.
pub const fn network_smem(key_bytes: u32) -> NetworkSmem {
    let marks = TILE * key_bytes;
    let list = marks + 2 * (TILE / 8);
    let counters = list + 4 * TILE_LIST;
    NetworkSmem { marks, list, counters, bytes: counters + 4 * 4 }
}

/// Entries of the network sorter's list of a tile's owned segments of at least two
/// keys: a tile owns at most `TILE_STRIDE / 2` of them.
pub const TILE_LIST: u32 = TILE / 2;
const _: () = assert!(TILE_STRIDE / 2 <= TILE_LIST as u64);

/// The longest segment of the network sorter's short list: segments of at most this
/// many keys are listed from the front of the list, longer ones from its back, so
/// that the warps which take the short ones run the network of 16 (or 8) inputs
/// instead of 32 (63 or 19 comparators instead of 191).
pub const TILE_SHORT_MAX: u32 = 16;

/// A list entry of the owned segment at window position `s` (below [`TILE`]) of `len`
/// keys.
#[inline(always)]
pub const fn tile_entry(s: u32, len: u32) -> u32 {
    s | len << 16
}

/// `(s, len)` of an entry made by [`tile_entry`].
#[inline(always)]
pub const fn tile_entry_bounds(e: u32) -> (u32, u32) {
    (e & 0xffff, e >> 16)
}

/// The list slot of the `w`-th short segment appended ([`TILE_SHORT_MAX`]), or of the
/// `w`-th long one.
#[inline(always)]
pub const fn tile_list_slot(long: bool, w: u32) -> u32 {
    if long { TILE_LIST - 1 - w } else { w }
}

/// The list slot of the `j`-th segment sorted (`j` below `short + long`, the counts
/// of short and long segments listed): the short ones first, then the long ones, so
/// that a warp's segments are of one kind but where the two meet.
#[inline(always)]
pub const fn tile_sorted_slot(j: u32, short: u32, long: u32) -> u32 {
    if j < short { j } else { TILE_LIST - long + (j - short) }
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
