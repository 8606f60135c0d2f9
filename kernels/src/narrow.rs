//! The kernel handles of the 16- and 8-bit keys outside the radix sort.
//!
//! Narrow keys (`u16`, `i16`, `f16`, `bf16`, `u8`, `i8`) have native kernels in the
//! radix sort only (`radix_*_k16`, `radix_*_k8`): that is where their width pays (two
//! or one digit pass over 2- or 1-byte words). The merge, network and selection
//! families stage elements through 4- and 8-byte shared-memory words and would need
//! their own audit and PTX per type for no measured gain. The host's element trait
//! still asks every type for every family's handles, so these name entries that the
//! PTX does not contain: the host refuses those variants and operations for narrow
//! keys before any launch (`host::Error::Unsupported`), and were one launched anyway,
//! loading the missing entry would fail with an error, not run a wrong kernel.
//! [`NARROW_ABSENT`] is the one name they carry.
use crate::bitonic::BitonicKernels;
use crate::blockmerge::BlockmergeKernels;
use crate::bottomup::BottomupKernels;
use crate::mergepath::{MergepathKernels, MergepathKvKernels};
use crate::naive::NaiveKernels;
use crate::nan::NanKernels;
use crate::params::Kernel;
use crate::partition::{PartitionKernels, PartitionKvKernels};
use crate::quick::QuickKernels;
use crate::rows::RowKernels;
use crate::segmented::SegmentedKernels;
use crate::shared::SharedKernels;
use crate::splitters::SplitterKernels;
use crate::topk::TopkKernels;

/// The entry name of every handle of this module: no PTX entry has it.
pub const NARROW_ABSENT: &str = "narrow_key_kernel_absent";

const fn absent<P>() -> Kernel<P> {
    Kernel::declared(NARROW_ABSENT)
}

/// The element-level families of a narrow key type.
macro_rules! narrow_element {
    ($t:ty) => {
        impl NaiveKernels for $t {
            const MERGE_PASS: Kernel<crate::naive::MergePass<$t>> = absent();
        }
        impl MergepathKernels for $t {
            const BLOCK_SORT: Kernel<crate::mergepath::BlockSort<$t>> = absent();
            const BLOCK_SORT_X2: Option<Kernel<crate::mergepath::BlockSort<$t>>> = None;
            const BLOCK_SORT_X4: Option<Kernel<crate::mergepath::BlockSort<$t>>> = None;
            const BLOCK_SORT_X8: Option<Kernel<crate::mergepath::BlockSort<$t>>> = None;
            const PARTITION: Kernel<crate::mergepath::Partition<$t>> = absent();
            const PARTITION_L8: Kernel<crate::mergepath::Partition<$t>> = absent();
            const MERGE: Kernel<crate::mergepath::Merge<$t>> = absent();
            const PAIR_PARTITION: Kernel<crate::mergepath::PairPartition<$t>> = absent();
            const PAIR_MERGE: Kernel<crate::mergepath::PairMerge<$t>> = absent();
        }
        narrow_element!(@kv $t, u32);
        narrow_element!(@kv $t, u64);
        impl PartitionKernels for $t {
            const COUNT: Option<Kernel<crate::partition::Count<$t>>> = None;
            const SCATTER: Option<Kernel<crate::partition::Scatter<$t>>> = None;
        }
        impl SplitterKernels for $t {
            const SAMPLES: Kernel<crate::splitters::Samples<$t>> = absent();
            const SAMPLES_JITTERED: Kernel<crate::splitters::Samples<$t>> = absent();
            const BOUNDS: Kernel<crate::splitters::Bounds<$t>> = absent();
        }
        impl BottomupKernels for $t {
            const PASS: Kernel<crate::bottomup::SlicePass<$t>> = absent();
        }
        impl BitonicKernels for $t {
            const TILE: Kernel<crate::bitonic::TileStages<$t>> = absent();
            const GLOBAL: Kernel<crate::bitonic::GlobalStage<$t>> = absent();
        }
        impl BlockmergeKernels for $t {
            const BLOCK_SORT: Kernel<crate::blockmerge::BlockSort<$t>> = absent();
            const CROSS_PASS: Kernel<crate::blockmerge::CrossPass<$t>> = absent();
        }
        impl SharedKernels for $t {
            const BLOCK_SORT: Kernel<crate::shared::BlockSort<$t>> = absent();
            const CHUNK_PASS: Kernel<crate::naive::MergePass<$t>> = absent();
        }
        impl QuickKernels for $t {
            const PIVOTS: Kernel<crate::quick::Pivots<$t>> = absent();
            const COUNT: Kernel<crate::quick::Count<$t>> = absent();
            const SCATTER: Kernel<crate::quick::Scatter<$t>> = absent();
            const FINISH: Kernel<crate::quick::Finish<$t>> = absent();
        }
    };
    (@kv $t:ty, $v:ty) => {
        impl MergepathKvKernels<$v> for $t {
            const BLOCK_SORT_KV: Option<Kernel<crate::mergepath::BlockSortKv<$t, $v>>> = None;
            const BLOCK_SORT_KV_X4: Option<Kernel<crate::mergepath::BlockSortKv<$t, $v>>> = None;
            const MERGE_KV: Option<Kernel<crate::mergepath::MergeKv<$t, $v>>> = None;
            const PAIR_MERGE_KV: Option<Kernel<crate::mergepath::PairMergeKv<$t, $v>>> = None;
        }
        impl PartitionKvKernels<$v> for $t {
            const SCATTER_KV: Option<Kernel<crate::partition::ScatterKv<$t, $v>>> = None;
        }
    };
}

/// The word-level families of a narrow key word.
macro_rules! narrow_word {
    ($w:ty) => {
        impl SegmentedKernels for $w {
            const WARP_SORT: Kernel<crate::segmented::WarpSort<$w>> = absent();
            const WARP_SORT_PAIRS: Kernel<crate::segmented::WarpSortPairs<$w>> = absent();
            const BLOCK_SORT: Kernel<crate::segmented::BlockSort<$w>> = absent();
            const BLOCK_SORT_PAIRS: Kernel<crate::segmented::BlockSortPairs<$w>> = absent();
            const BLOCK_SORT_ONCE: Kernel<crate::segmented::BlockSort<$w>> = absent();
            const BLOCK_SORT_PAIRS_ONCE: Kernel<crate::segmented::BlockSortPairs<$w>> = absent();
            const GATHER: Kernel<crate::segmented::LargeCopy<$w>> = absent();
            const SCATTER: Kernel<crate::segmented::LargeCopy<$w>> = absent();
            const TILE_SORT_O32: Kernel<crate::segmented::TileSort<$w, u32>> = absent();
            const TILE_SORT_O64: Kernel<crate::segmented::TileSort<$w, u64>> = absent();
            const TILE_SORT_PAIRS_O32: Kernel<crate::segmented::TileSort<$w, u32>> = absent();
            const TILE_SORT_PAIRS_O64: Kernel<crate::segmented::TileSort<$w, u64>> = absent();
        }
        impl TopkKernels for $w {
            const HIST: Kernel<crate::topk::Hist<$w>> = absent();
            const COMPACT: Kernel<crate::topk::Compact<$w>> = absent();
            const GATHER: Kernel<crate::topk::Gather<$w>> = absent();
            const FILTER: Kernel<crate::topk::Filter<$w>> = absent();
            const FINISH: Kernel<crate::topk::Finish<$w>> = absent();
            const FINISH_ROWS: Kernel<crate::topk::FinishRows<$w>> = absent();
        }
        impl RowKernels for $w {
            const TAKE: Kernel<crate::rows::RowTake<$w>> = absent();
            const SORT: [Kernel<crate::rows::RowSort<$w>>; crate::rows::ROW_TILES] = [absent(); crate::rows::ROW_TILES];
            const SORT_IDX: [Kernel<crate::rows::RowSort<$w>>; crate::rows::ROW_TILES] =
                [absent(); crate::rows::ROW_TILES];
        }
        // The 16-bit floats' canonical copies run `nan_canonical_k16` with their
        // format's +inf and NaN as parameters (`variants::nan::canonical_copy_as`):
        // one word type cannot name both formats.
        impl NanKernels for $w {
            const CANONICALIZE: Kernel<crate::nan::Canonicalize<$w>> = absent();
        }
    };
}

narrow_element!(u16);
narrow_element!(i16);
narrow_element!(u8);
narrow_element!(i8);
#[cfg(not(target_arch = "nvptx64"))]
narrow_element!(half::f16);
#[cfg(not(target_arch = "nvptx64"))]
narrow_element!(half::bf16);
narrow_word!(u16);
narrow_word!(u8);
