//! The mergepath kernels' parameters and entries. Each parameter list is one
//! `#[repr(C)]` struct ([`crate::params`]); every entry is declared here with the struct
//! it takes, for each element type (and each value word of the key-value kernels). The
//! host picks the typed handles by type through [`MergepathKernels`] and
//! [`MergepathKvKernels`], and those chosen at run time (block-sort widths, partition
//! lanes) through [`block_sort_kernel`], [`block_sort_kv_kernel`] and
//! [`partition_kernel`]. The tables keyed by entry (launch bounds, cluster shapes) name
//! the handles, so a misspelt entry does not compile.
#[cfg(target_arch = "nvptx64")]
use super::device;
use super::{BLOCK, cluster_ctas};
use crate::key::{Entity, SortKey};
use crate::params::{DevPtr, Direction, EntryLayout, Kernel, entry_count, entry_list, layout_of};

crate::params::kernel_params! {
    /// A block sort (`mergepath_block_sort_*`, and the wide `_x<w>_` ones): each block
    /// (or cluster) sorts its tile, or run of tiles, of `src` into the same elements of
    /// `dst`, which may be `src` (a block reads its whole tile before writing).
    pub struct BlockSort<T> {
        pub src: DevPtr<T>,
        pub dst: DevPtr<T>,
        /// Where the first and last element of each chunk of the sorted tiles go, for
        /// the first pass's co-rank searches ([`super::sample_stride`]); null: nowhere.
        pub samples: DevPtr<T>,
        pub n: u64,
        pub direction: Direction,
    }
    /// Declares an entry taking [`BlockSort`].
    entries block_sort_entry;
}

crate::params::kernel_params! {
    /// [`BlockSort`] of keys that carry one value word `V` each
    /// (`mergepath_block_sort_kv_*`): the values move from `vsrc` to `vdst` with their
    /// keys.
    pub struct BlockSortKv<K, V> {
        pub src: DevPtr<K>,
        pub vsrc: DevPtr<V>,
        pub dst: DevPtr<K>,
        pub vdst: DevPtr<V>,
        /// As [`BlockSort::samples`].
        pub samples: DevPtr<K>,
        pub n: u64,
        pub direction: Direction,
    }
    /// Declares an entry taking [`BlockSortKv`].
    entries block_sort_kv_entry;
}

crate::params::kernel_params! {
    /// The partition of a global pass (`mergepath_partition_*`; `_l8_`: 8 lanes per
    /// co-rank, [`super::partition_lanes`]): `parts[b]` = the co-rank of merge block
    /// `b`'s first output in its pair of runs of `tile << log_run` elements of `src`.
    pub struct Partition<T> {
        pub src: DevPtr<T>,
        /// The samples written with `src`.
        pub samples: DevPtr<T>,
        pub parts: DevPtr<u64>,
        pub n: u64,
        /// Elements per merge tile.
        pub tile: u32,
        pub log_run: u32,
        pub direction: Direction,
    }
    /// Declares an entry taking [`Partition`].
    entries partition_entry;
}

crate::params::kernel_params! {
    /// The merge of a global pass (`mergepath_merge_*`): block `b` writes outputs
    /// `b * tile ..` of the pairwise merge of the runs of `tile << log_run` elements of
    /// `src` to `dst`.
    pub struct Merge<T> {
        pub src: DevPtr<T>,
        pub dst: DevPtr<T>,
        /// The samples written with `src` (for the blocks' own co-rank searches).
        pub samples_in: DevPtr<T>,
        /// Where the samples of `dst` go; null after the last pass.
        pub samples: DevPtr<T>,
        /// The pass's co-ranks from its partition; null: each block finds its own
        /// ([`super::co_ranks_in_merge`]).
        pub parts: DevPtr<u64>,
        pub n: u64,
        pub log_run: u32,
        /// [`super::PASS_REVERSED`] and [`super::PASS_STREAMING`] ([`super::pass_flags`]).
        pub flags: u32,
        pub direction: Direction,
    }
    /// Declares an entry taking [`Merge`].
    entries merge_entry;
}

crate::params::kernel_params! {
    /// [`Merge`] of keys that carry one value word `V` each (`mergepath_merge_kv_*`):
    /// the values move from `vsrc` to `vdst` with their keys.
    pub struct MergeKv<K, V> {
        pub src: DevPtr<K>,
        pub vsrc: DevPtr<V>,
        pub dst: DevPtr<K>,
        pub vdst: DevPtr<V>,
        /// As [`Merge::samples_in`].
        pub samples_in: DevPtr<K>,
        /// As [`Merge::samples`].
        pub samples: DevPtr<K>,
        /// As [`Merge::parts`].
        pub parts: DevPtr<u64>,
        pub n: u64,
        pub log_run: u32,
        /// As [`Merge::flags`].
        pub flags: u32,
        pub direction: Direction,
    }
    /// Declares an entry taking [`MergeKv`].
    entries merge_kv_entry;
}

crate::params::kernel_params! {
    /// The partition of the merge of two given runs (`mergepath_pair_partition_*`):
    /// `A` = `a[..a_len]` and `B` = `b[..b_len]`, anywhere in memory
    /// ([`super::pair_window`]); `parts[blk]` = the co-rank of merge block `blk`'s first
    /// output.
    pub struct PairPartition<T> {
        pub a: DevPtr<T>,
        pub b: DevPtr<T>,
        pub parts: DevPtr<u64>,
        pub a_len: u64,
        pub b_len: u64,
        /// Elements per merge tile.
        pub tile: u32,
        pub direction: Direction,
    }
    /// Declares an entry taking [`PairPartition`].
    entries pair_partition_entry;
}

crate::params::kernel_params! {
    /// The merge of two given runs (`mergepath_pair_merge_*`, see [`PairPartition`]):
    /// block `blk` writes outputs `blk * tile ..` to `dst`, by the co-ranks in `parts`.
    pub struct PairMerge<T> {
        pub a: DevPtr<T>,
        pub b: DevPtr<T>,
        pub dst: DevPtr<T>,
        pub parts: DevPtr<u64>,
        pub a_len: u64,
        pub b_len: u64,
        pub direction: Direction,
    }
    /// Declares an entry taking [`PairMerge`].
    entries pair_merge_entry;
}

crate::params::kernel_params! {
    /// [`PairMerge`] of keys that carry one value word `V` each
    /// (`mergepath_pair_merge_kv_*`): `A`'s values at `va`, `B`'s at `vb`, the merged
    /// ones to `vdst`.
    pub struct PairMergeKv<K, V> {
        pub a: DevPtr<K>,
        pub b: DevPtr<K>,
        pub va: DevPtr<V>,
        pub vb: DevPtr<V>,
        pub dst: DevPtr<K>,
        pub vdst: DevPtr<V>,
        pub parts: DevPtr<u64>,
        pub a_len: u64,
        pub b_len: u64,
        pub direction: Direction,
    }
    /// Declares an entry taking [`PairMergeKv`].
    entries pair_merge_kv_entry;
}

/// The key-only mergepath entries of an element type (every element type has them),
/// and through the supertraits its key-value entries.
pub trait MergepathKernels: SortKey + MergepathKvKernels<u32> + MergepathKvKernels<u64> {
    /// The block sort of one tile per block of [`BLOCK`] threads.
    const BLOCK_SORT: Kernel<BlockSort<Self>>;
    /// The wide block sort of 2 tiles per block of `2 * BLOCK` threads
    /// ([`super::sort_width`]), where `Self` has it.
    const BLOCK_SORT_X2: Option<Kernel<BlockSort<Self>>>;
    /// The wide block sort of 4 tiles per block of `4 * BLOCK` threads, where `Self`
    /// has it.
    const BLOCK_SORT_X4: Option<Kernel<BlockSort<Self>>>;
    /// The cluster block sort of 8 tiles per cluster of two blocks of 4 tiles
    /// ([`super::cluster_ctas`]), where `Self` has it.
    const BLOCK_SORT_X8: Option<Kernel<BlockSort<Self>>>;
    /// The partition with a warp per co-rank.
    const PARTITION: Kernel<Partition<Self>>;
    /// The partition with 8 lanes per co-rank.
    const PARTITION_L8: Kernel<Partition<Self>>;
    const MERGE: Kernel<Merge<Self>>;
    const PAIR_PARTITION: Kernel<PairPartition<Self>>;
    const PAIR_MERGE: Kernel<PairMerge<Self>>;
}

/// The key-value mergepath entries of a key type whose values travel as `V` (`u32`
/// for 4-byte values, `u64` for 8-byte ones): every primitive key has them, records
/// (`Entity`) none.
pub trait MergepathKvKernels<V>: SortKey {
    const BLOCK_SORT_KV: Option<Kernel<BlockSortKv<Self, V>>>;
    /// The wide block sort of 4 tiles per block ([`super::sort_width`]), where its
    /// tile fits.
    const BLOCK_SORT_KV_X4: Option<Kernel<BlockSortKv<Self, V>>>;
    const MERGE_KV: Option<Kernel<MergeKv<Self, V>>>;
    const PAIR_MERGE_KV: Option<Kernel<PairMergeKv<Self, V>>>;
}

/// The block sort of `T` of width `w` (merge tiles per block, or per cluster:
/// [`super::sort_width`], [`super::narrower_sort_width`]); `None` where `T` has none.
pub const fn block_sort_kernel<T: MergepathKernels>(w: u32) -> Option<Kernel<BlockSort<T>>> {
    match w {
        1 => Some(T::BLOCK_SORT),
        2 => T::BLOCK_SORT_X2,
        4 => T::BLOCK_SORT_X4,
        8 => T::BLOCK_SORT_X8,
        _ => None,
    }
}

/// The key-value block sort of keys `K` with value words `V` of width `w`; `None`
/// where there is none.
pub const fn block_sort_kv_kernel<K: MergepathKvKernels<V>, V>(w: u32) -> Option<Kernel<BlockSortKv<K, V>>> {
    match w {
        1 => K::BLOCK_SORT_KV,
        4 => K::BLOCK_SORT_KV_X4,
        _ => None,
    }
}

/// The partition of `T` with `lanes` lanes per co-rank ([`super::partition_lanes`]);
/// `None` for other lane counts.
pub const fn partition_kernel<T: MergepathKernels>(lanes: u32) -> Option<Kernel<Partition<T>>> {
    match lanes {
        32 => Some(T::PARTITION),
        8 => Some(T::PARTITION_L8),
        _ => None,
    }
}

/// Declares the key-only entries of element type `$t` and implements
/// [`MergepathKernels`] for it; `x2`, `x4`, `x8` say whether it has the block sort of
/// that width (`yes` or `no`).
macro_rules! mergepath_entries {
    (@some yes, $entry:ident) => {
        Some($entry)
    };
    (@some no, $entry:ident) => {
        None
    };
    (@wide no, $($rest:tt)*) => {};
    (@wide yes, $entry:ident, $t:ty, $w:literal) => {
        block_sort_entry!($entry { T = $t } |p| {
            const N: usize = crate::mergepath::items(size_of::<$t>() as u32) as usize;
            device::block_sort_keys::<$t, N, { BLOCK * $w }>(p)
        });
    };
    (@cluster no, $($rest:tt)*) => {};
    (@cluster yes, $entry:ident, $t:ty, $w:literal) => {
        block_sort_entry!($entry { T = $t } |p| {
            const N: usize = crate::mergepath::items(size_of::<$t>() as u32) as usize;
            const { assert!(crate::mergepath::cluster_ctas($w) == 2, "clusters of two blocks") };
            device::cluster_block_sort::<$t, N, { BLOCK * crate::mergepath::block_tiles($w) }>(p)
        });
    };
    ($t:ty, $suffix:ident, x2 $x2:ident, x4 $x4:ident, x8 $x8:ident) => {
        paste::paste! {
            block_sort_entry!([<mergepath_block_sort_ $suffix>] { T = $t } |p| {
                const N: usize = crate::mergepath::items(size_of::<$t>() as u32) as usize;
                device::block_sort_keys::<$t, N, BLOCK>(p)
            });
            mergepath_entries!(@wide $x2, [<mergepath_block_sort_x2_ $suffix>], $t, 2);
            mergepath_entries!(@wide $x4, [<mergepath_block_sort_x4_ $suffix>], $t, 4);
            mergepath_entries!(@cluster $x8, [<mergepath_block_sort_x8_ $suffix>], $t, 8);
            partition_entry!([<mergepath_partition_ $suffix>] { T = $t } |p| device::partition::<$t, 32>(p));
            partition_entry!([<mergepath_partition_l8_ $suffix>] { T = $t } |p| device::partition::<$t, 8>(p));
            merge_entry!([<mergepath_merge_ $suffix>] { T = $t } |p| {
                const N: usize = crate::mergepath::items(size_of::<$t>() as u32) as usize;
                device::merge_keys::<$t, N>(p)
            });
            pair_partition_entry!([<mergepath_pair_partition_ $suffix>] { T = $t } |p| device::partition_pair::<$t>(p));
            pair_merge_entry!([<mergepath_pair_merge_ $suffix>] { T = $t } |p| {
                const N: usize = crate::mergepath::items(size_of::<$t>() as u32) as usize;
                device::pair_merge_keys::<$t, N>(p)
            });
            impl MergepathKernels for $t {
                const BLOCK_SORT: Kernel<BlockSort<$t>> = [<mergepath_block_sort_ $suffix>];
                const BLOCK_SORT_X2: Option<Kernel<BlockSort<$t>>> =
                    mergepath_entries!(@some $x2, [<mergepath_block_sort_x2_ $suffix>]);
                const BLOCK_SORT_X4: Option<Kernel<BlockSort<$t>>> =
                    mergepath_entries!(@some $x4, [<mergepath_block_sort_x4_ $suffix>]);
                const BLOCK_SORT_X8: Option<Kernel<BlockSort<$t>>> =
                    mergepath_entries!(@some $x8, [<mergepath_block_sort_x8_ $suffix>]);
                const PARTITION: Kernel<Partition<$t>> = [<mergepath_partition_ $suffix>];
                const PARTITION_L8: Kernel<Partition<$t>> = [<mergepath_partition_l8_ $suffix>];
                const MERGE: Kernel<Merge<$t>> = [<mergepath_merge_ $suffix>];
                const PAIR_PARTITION: Kernel<PairPartition<$t>> = [<mergepath_pair_partition_ $suffix>];
                const PAIR_MERGE: Kernel<PairMerge<$t>> = [<mergepath_pair_merge_ $suffix>];
            }
        }
    };
}
mergepath_entries!(u32, u32, x2 yes, x4 yes, x8 yes);
mergepath_entries!(i32, i32, x2 yes, x4 yes, x8 yes);
mergepath_entries!(f32, f32, x2 yes, x4 yes, x8 yes);
mergepath_entries!(u64, u64, x2 no, x4 yes, x8 no);
mergepath_entries!(i64, i64, x2 no, x4 yes, x8 no);
mergepath_entries!(f64, f64, x2 no, x4 yes, x8 no);
mergepath_entries!(Entity, entity, x2 no, x4 no, x8 no);

/// Declares the key-value entries of key type `$t` with value words `$v` (`$vs`: `v32`
/// or `v64`) and implements [`MergepathKvKernels`] for them; `x4` says whether they
/// have the wide block sort (`yes` or `no`).
macro_rules! mergepath_kv_entries {
    (@wide no, $($rest:tt)*) => {};
    (@wide yes, $entry:ident, $t:ty, $v:ty, $w:literal) => {
        block_sort_kv_entry!($entry { K = $t, V = $v } |p| {
            const N: usize = crate::mergepath::kv_items(size_of::<$t>() as u32) as usize;
            device::block_sort_kv::<$t, $v, N, { BLOCK * $w }>(p)
        });
    };
    ($t:ty, $suffix:ident, $v:ty, $vs:ident, x4 $x4:ident) => {
        paste::paste! {
            block_sort_kv_entry!([<mergepath_block_sort_kv_ $suffix _ $vs>] { K = $t, V = $v } |p| {
                const N: usize = crate::mergepath::kv_items(size_of::<$t>() as u32) as usize;
                device::block_sort_kv::<$t, $v, N, BLOCK>(p)
            });
            mergepath_kv_entries!(@wide $x4, [<mergepath_block_sort_kv_x4_ $suffix _ $vs>], $t, $v, 4);
            merge_kv_entry!([<mergepath_merge_kv_ $suffix _ $vs>] { K = $t, V = $v } |p| {
                const N: usize = crate::mergepath::kv_items(size_of::<$t>() as u32) as usize;
                device::merge_kv::<$t, $v, N>(p)
            });
            pair_merge_kv_entry!([<mergepath_pair_merge_kv_ $suffix _ $vs>] { K = $t, V = $v } |p| {
                const N: usize = crate::mergepath::kv_items(size_of::<$t>() as u32) as usize;
                device::pair_merge_kv::<$t, $v, N>(p)
            });
            impl MergepathKvKernels<$v> for $t {
                const BLOCK_SORT_KV: Option<Kernel<BlockSortKv<$t, $v>>> =
                    Some([<mergepath_block_sort_kv_ $suffix _ $vs>]);
                const BLOCK_SORT_KV_X4: Option<Kernel<BlockSortKv<$t, $v>>> =
                    mergepath_entries!(@some $x4, [<mergepath_block_sort_kv_x4_ $suffix _ $vs>]);
                const MERGE_KV: Option<Kernel<MergeKv<$t, $v>>> = Some([<mergepath_merge_kv_ $suffix _ $vs>]);
                const PAIR_MERGE_KV: Option<Kernel<PairMergeKv<$t, $v>>> =
                    Some([<mergepath_pair_merge_kv_ $suffix _ $vs>]);
            }
        }
    };
}
mergepath_kv_entries!(u32, u32, u32, v32, x4 yes);
mergepath_kv_entries!(u32, u32, u64, v64, x4 no);
mergepath_kv_entries!(i32, i32, u32, v32, x4 yes);
mergepath_kv_entries!(i32, i32, u64, v64, x4 no);
mergepath_kv_entries!(f32, f32, u32, v32, x4 yes);
mergepath_kv_entries!(f32, f32, u64, v64, x4 no);
mergepath_kv_entries!(u64, u64, u32, v32, x4 yes);
mergepath_kv_entries!(u64, u64, u64, v64, x4 yes);
mergepath_kv_entries!(i64, i64, u32, v32, x4 yes);
mergepath_kv_entries!(i64, i64, u64, v64, x4 yes);
mergepath_kv_entries!(f64, f64, u32, v32, x4 yes);
mergepath_kv_entries!(f64, f64, u64, v64, x4 yes);

/// Records have no key-value kernels (records with values are sorted as key-index
/// pairs, `host::variants::records`).
impl<V> MergepathKvKernels<V> for Entity {
    const BLOCK_SORT_KV: Option<Kernel<BlockSortKv<Entity, V>>> = None;
    const BLOCK_SORT_KV_X4: Option<Kernel<BlockSortKv<Entity, V>>> = None;
    const MERGE_KV: Option<Kernel<MergeKv<Entity, V>>> = None;
    const PAIR_MERGE_KV: Option<Kernel<PairMergeKv<Entity, V>>> = None;
}

/// Every mergepath entry, from the traits.
pub const KERNELS: &[EntryLayout] = &entry_list::<{ entry_count(ENTRIES) }>(ENTRIES);

/// Each kind of entry of every element type (`None` where a type has none).
const ENTRIES: &[&[Option<EntryLayout>]] = &[
    &crate::key::each_element_type!(|T| Some(<T as MergepathKernels>::BLOCK_SORT.layout())),
    &crate::key::each_element_type!(|T| layout_of(<T as MergepathKernels>::BLOCK_SORT_X2)),
    &crate::key::each_element_type!(|T| layout_of(<T as MergepathKernels>::BLOCK_SORT_X4)),
    &crate::key::each_element_type!(|T| layout_of(<T as MergepathKernels>::BLOCK_SORT_X8)),
    &crate::key::each_element_type!(|T| Some(<T as MergepathKernels>::PARTITION.layout())),
    &crate::key::each_element_type!(|T| Some(<T as MergepathKernels>::PARTITION_L8.layout())),
    &crate::key::each_element_type!(|T| Some(<T as MergepathKernels>::MERGE.layout())),
    &crate::key::each_element_type!(|T| Some(<T as MergepathKernels>::PAIR_PARTITION.layout())),
    &crate::key::each_element_type!(|T| Some(<T as MergepathKernels>::PAIR_MERGE.layout())),
    &crate::key::each_element_type!(|T| layout_of(<T as MergepathKvKernels<u32>>::BLOCK_SORT_KV)),
    &crate::key::each_element_type!(|T| layout_of(<T as MergepathKvKernels<u64>>::BLOCK_SORT_KV)),
    &crate::key::each_element_type!(|T| layout_of(<T as MergepathKvKernels<u32>>::BLOCK_SORT_KV_X4)),
    &crate::key::each_element_type!(|T| layout_of(<T as MergepathKvKernels<u64>>::BLOCK_SORT_KV_X4)),
    &crate::key::each_element_type!(|T| layout_of(<T as MergepathKvKernels<u32>>::MERGE_KV)),
    &crate::key::each_element_type!(|T| layout_of(<T as MergepathKvKernels<u64>>::MERGE_KV)),
    &crate::key::each_element_type!(|T| layout_of(<T as MergepathKvKernels<u32>>::PAIR_MERGE_KV)),
    &crate::key::each_element_type!(|T| layout_of(<T as MergepathKvKernels<u64>>::PAIR_MERGE_KV)),
];

/// Blocks per SM for a kernel measured best at `blocks_of_256` blocks of 256 threads:
/// the same threads per SM (so the same register budget) at any [`BLOCK`].
const fn per_sm(blocks_of_256: u32) -> u32 {
    let b = blocks_of_256 * 256 / BLOCK;
    if b == 0 { 1 } else { b }
}

/// Launch bounds (see [`crate::LAUNCH_BOUNDS`]), chosen by measurement (docs/history.md,
/// 2026-11-23): 4 blocks per SM for the key-only kernels of 4-byte keys (at most 64
/// registers), 3 for 8-byte keys and for the key-value kernels (at most 80; the
/// 4-byte-key value merges spill 12-20 bytes there and are still faster than at 2
/// blocks per SM), 2 for records. The global-pass merges of u32 and i32 keys with
/// 4-byte values run 4 (H100, 2026-11-25, docs/history.md, mergepath: "Pairs by slot, value merges at 4 blocks per SM"; at 4 against 3: u32 and u32 pairs
/// 2^22 14.05 against 13.23 Gkeys/s, 2^24 12.10 against 11.93, 2^28 9.98 against 9.93;
/// i32 and u32 2^24 12.11 against 11.91; ptxas reports 136 bytes of spill stores over
/// the kernel's four bodies, 68 at 3); f32 keys, whose merge spills more (104 bytes),
/// lost there (11.79 against 12.00) and keep 3.
pub const LAUNCH_BOUNDS: &[(&str, u32, u32)] = &[
    (mergepath_block_sort_u32.name(), BLOCK, per_sm(4)),
    (mergepath_block_sort_i32.name(), BLOCK, per_sm(4)),
    (mergepath_block_sort_f32.name(), BLOCK, per_sm(4)),
    (mergepath_block_sort_u64.name(), BLOCK, per_sm(3)),
    (mergepath_block_sort_i64.name(), BLOCK, per_sm(3)),
    (mergepath_block_sort_f64.name(), BLOCK, per_sm(3)),
    (mergepath_block_sort_entity.name(), BLOCK, per_sm(2)),
    (mergepath_merge_u32.name(), BLOCK, per_sm(4)),
    (mergepath_merge_i32.name(), BLOCK, per_sm(4)),
    (mergepath_merge_f32.name(), BLOCK, per_sm(4)),
    (mergepath_merge_u64.name(), BLOCK, per_sm(3)),
    (mergepath_merge_i64.name(), BLOCK, per_sm(3)),
    (mergepath_merge_f64.name(), BLOCK, per_sm(3)),
    (mergepath_merge_entity.name(), BLOCK, per_sm(2)),
    (mergepath_pair_merge_u32.name(), BLOCK, per_sm(4)),
    (mergepath_pair_merge_i32.name(), BLOCK, per_sm(4)),
    (mergepath_pair_merge_f32.name(), BLOCK, per_sm(4)),
    (mergepath_pair_merge_u64.name(), BLOCK, per_sm(3)),
    (mergepath_pair_merge_i64.name(), BLOCK, per_sm(3)),
    (mergepath_pair_merge_f64.name(), BLOCK, per_sm(3)),
    (mergepath_pair_merge_entity.name(), BLOCK, per_sm(2)),
    (mergepath_pair_merge_kv_u32_v32.name(), BLOCK, per_sm(3)),
    (mergepath_pair_merge_kv_u32_v64.name(), BLOCK, per_sm(3)),
    (mergepath_pair_merge_kv_i32_v32.name(), BLOCK, per_sm(3)),
    (mergepath_pair_merge_kv_i32_v64.name(), BLOCK, per_sm(3)),
    (mergepath_pair_merge_kv_f32_v32.name(), BLOCK, per_sm(3)),
    (mergepath_pair_merge_kv_f32_v64.name(), BLOCK, per_sm(3)),
    (mergepath_pair_merge_kv_u64_v32.name(), BLOCK, per_sm(3)),
    (mergepath_pair_merge_kv_u64_v64.name(), BLOCK, per_sm(3)),
    (mergepath_pair_merge_kv_i64_v32.name(), BLOCK, per_sm(3)),
    (mergepath_pair_merge_kv_i64_v64.name(), BLOCK, per_sm(3)),
    (mergepath_pair_merge_kv_f64_v32.name(), BLOCK, per_sm(3)),
    (mergepath_pair_merge_kv_f64_v64.name(), BLOCK, per_sm(3)),
    (mergepath_block_sort_kv_u32_v32.name(), BLOCK, per_sm(3)),
    (mergepath_block_sort_kv_u32_v64.name(), BLOCK, per_sm(3)),
    (mergepath_block_sort_kv_i32_v32.name(), BLOCK, per_sm(3)),
    (mergepath_block_sort_kv_i32_v64.name(), BLOCK, per_sm(3)),
    (mergepath_block_sort_kv_f32_v32.name(), BLOCK, per_sm(3)),
    (mergepath_block_sort_kv_f32_v64.name(), BLOCK, per_sm(3)),
    (mergepath_block_sort_kv_u64_v32.name(), BLOCK, per_sm(3)),
    (mergepath_block_sort_kv_u64_v64.name(), BLOCK, per_sm(3)),
    (mergepath_block_sort_kv_i64_v32.name(), BLOCK, per_sm(3)),
    (mergepath_block_sort_kv_i64_v64.name(), BLOCK, per_sm(3)),
    (mergepath_block_sort_kv_f64_v32.name(), BLOCK, per_sm(3)),
    (mergepath_block_sort_kv_f64_v64.name(), BLOCK, per_sm(3)),
    (mergepath_merge_kv_u32_v32.name(), BLOCK, per_sm(4)),
    (mergepath_merge_kv_u32_v64.name(), BLOCK, per_sm(3)),
    (mergepath_merge_kv_i32_v32.name(), BLOCK, per_sm(4)),
    (mergepath_merge_kv_i32_v64.name(), BLOCK, per_sm(3)),
    (mergepath_merge_kv_f32_v32.name(), BLOCK, per_sm(3)),
    (mergepath_merge_kv_f32_v64.name(), BLOCK, per_sm(3)),
    (mergepath_merge_kv_u64_v32.name(), BLOCK, per_sm(3)),
    (mergepath_merge_kv_u64_v64.name(), BLOCK, per_sm(3)),
    (mergepath_merge_kv_i64_v32.name(), BLOCK, per_sm(3)),
    (mergepath_merge_kv_i64_v64.name(), BLOCK, per_sm(3)),
    (mergepath_merge_kv_f64_v32.name(), BLOCK, per_sm(3)),
    (mergepath_merge_kv_f64_v64.name(), BLOCK, per_sm(3)),
    // The wide block sorts (`sort_width`, `narrower_sort_width`): two blocks of 512
    // threads per SM, or one of 1,024 (at most 64 registers, as the 256-thread kernels
    // at four blocks).
    (mergepath_block_sort_x2_u32.name(), 2 * BLOCK, 2),
    (mergepath_block_sort_x2_i32.name(), 2 * BLOCK, 2),
    (mergepath_block_sort_x2_f32.name(), 2 * BLOCK, 2),
    (mergepath_block_sort_x4_u32.name(), 4 * BLOCK, 1),
    (mergepath_block_sort_x4_i32.name(), 4 * BLOCK, 1),
    (mergepath_block_sort_x4_f32.name(), 4 * BLOCK, 1),
    (mergepath_block_sort_x4_u64.name(), 4 * BLOCK, 1),
    (mergepath_block_sort_x4_i64.name(), 4 * BLOCK, 1),
    (mergepath_block_sort_x4_f64.name(), 4 * BLOCK, 1),
    (mergepath_block_sort_x8_u32.name(), 4 * BLOCK, 1),
    (mergepath_block_sort_x8_i32.name(), 4 * BLOCK, 1),
    (mergepath_block_sort_x8_f32.name(), 4 * BLOCK, 1),
    (mergepath_block_sort_kv_x4_u32_v32.name(), 4 * BLOCK, 1),
    (mergepath_block_sort_kv_x4_i32_v32.name(), 4 * BLOCK, 1),
    (mergepath_block_sort_kv_x4_f32_v32.name(), 4 * BLOCK, 1),
    (mergepath_block_sort_kv_x4_u64_v32.name(), 4 * BLOCK, 1),
    (mergepath_block_sort_kv_x4_i64_v32.name(), 4 * BLOCK, 1),
    (mergepath_block_sort_kv_x4_f64_v32.name(), 4 * BLOCK, 1),
    (mergepath_block_sort_kv_x4_u64_v64.name(), 4 * BLOCK, 1),
    (mergepath_block_sort_kv_x4_i64_v64.name(), 4 * BLOCK, 1),
    (mergepath_block_sort_kv_x4_f64_v64.name(), 4 * BLOCK, 1),
];

/// The cluster kernels and their blocks per cluster: the host launches them with that
/// cluster shape, and only from the sm_90 cubin (their cluster instructions are
/// comments elsewhere, see `gpu::cluster_sync`).
pub const CLUSTER_KERNELS: &[(&str, u32)] = &[
    (mergepath_block_sort_x8_f32.name(), cluster_ctas(8)),
    (mergepath_block_sort_x8_i32.name(), cluster_ctas(8)),
    (mergepath_block_sort_x8_u32.name(), cluster_ctas(8)),
];
