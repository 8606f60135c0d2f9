//! Bitonic sort (the blog's announced next step) for any `n`, without padding.
//!
//! Formulation: the array is virtually extended to `N = n.next_power_of_two()` with
//! elements greater than every key. Merge `k` (k = 2, 4, ..., N) turns sorted runs of
//! `k / 2` into sorted runs of `k`; its first stage compares `i` with its mirror
//! `i ^ (k - 1)` in the same `k`-block, and the following stages compare `i` with
//! `i + j` for `j = k / 4, ..., 1`. Every comparator puts the smaller key at the lower
//! index (no alternating directions), so a comparator whose upper index is `>= n`
//! would leave its virtual +infinity where it is: it is simply skipped, and no element
//! ever moves past `n`. Descending order compares `!bits`, so the virtual elements stay
//! "largest" in either order. Not stable.
//!
//! Stages with stride `j` below the tile run in shared memory, a whole range of them
//! per launch ([`Step::Shared`]); larger strides are one global pass each
//! ([`Step::Global`]). The comparators are
//! [`bitonic_comparator`](crate::block::network::bitonic_comparator)'s.
use crate::key::SortKey;
use crate::params::{DevPtr, Direction, EntryLayout, Kernel};

crate::params::kernel_params! {
    /// [`Step::Shared`]: block `b` loads tile `b` (`1 << log_tile` elements of `data`)
    /// into shared memory, runs the stages of strides below the tile of merges
    /// `k_first ..= k_last` there, and writes the tile back.
    pub struct TileStages<T> {
        pub data: DevPtr<T>,
        pub n: u64,
        pub log_tile: u32,
        pub k_first: u64,
        pub k_last: u64,
        pub direction: Direction,
    }
    /// Declares an entry taking [`TileStages`].
    entries tile_stages_entry;
}

crate::params::kernel_params! {
    /// [`Step::Global`]: thread `p` applies comparator `p` of the stage with stride `j`
    /// in merge `k` to `data` (the first [`comparator_count`] of them).
    pub struct GlobalStage<T> {
        pub data: DevPtr<T>,
        pub n: u64,
        pub k: u64,
        pub j: u64,
        pub direction: Direction,
    }
    /// Declares an entry taking [`GlobalStage`].
    entries global_stage_entry;
}

/// The `bitonic` entries of an element type.
pub trait BitonicKernels: SortKey {
    const TILE: Kernel<TileStages<Self>>;
    const GLOBAL: Kernel<GlobalStage<Self>>;
}

macro_rules! bitonic_entries {
    ($t:ty, $suffix:ident) => {
        paste::paste! {
            tile_stages_entry!([<bitonic_tile_ $suffix>] { T = $t } |p| device::tile::<$t>(p));
            global_stage_entry!([<bitonic_global_ $suffix>] { T = $t } |p| device::global::<$t>(p));
            impl BitonicKernels for $t {
                const TILE: Kernel<TileStages<$t>> = [<bitonic_tile_ $suffix>];
                const GLOBAL: Kernel<GlobalStage<$t>> = [<bitonic_global_ $suffix>];
            }
        }
    };
}
crate::key::for_each_key_type!(bitonic_entries);

/// Every `bitonic` entry.
pub const KERNELS: &[EntryLayout] =
    crate::key::each_element_type!(|T| [<T as BitonicKernels>::TILE.layout(), <T as BitonicKernels>::GLOBAL.layout()])
        .as_flattened();

/// Comparators per thread in a shared-memory tile (tile = 2 x block x this).
pub const TILE_PAIRS: u32 = 4;

/// `log2` of the tile length for blocks of `block` threads (a power of two).
#[inline(always)]
pub fn log_tile(block: u32) -> u32 {
    (2 * block * TILE_PAIRS).trailing_zeros()
}

/// Number of comparators of a stride-`j` stage whose lower index is `< n` (the others
/// only touch virtual elements): indices below `n` with bit `log2(j)` clear.
#[inline(always)]
pub fn comparator_count(n: u64, j: u64) -> u64 {
    let rest = n & (2 * j - 1);
    (n / (2 * j)) * j + if rest < j { rest } else { j }
}

/// Whether comparator `(lo, hi)` of an array of `n` real elements must swap them
/// (`key(x)` reads the order bits at `x`). Equal keys stay put; a comparator
/// reaching a virtual element never swaps.
#[inline(always)]
pub fn must_swap<B: Ord>(lo: u64, hi: u64, n: u64, key: impl Fn(u64) -> B) -> bool {
    hi < n && key(hi) < key(lo)
}

/// One launch of the sort.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The stages with stride `j < tile` of merges `k_first ..= k_last`, in shared
    /// memory: first every merge up to the tile, later the tail of one larger merge.
    Shared { k_first: u64, k_last: u64 },
    /// The stage of merge `k` with stride `j >= tile`, in global memory.
    Global { k: u64, j: u64 },
}

/// The launches that sort `n` elements with tiles of `1 << log_tile`, in order.
#[derive(Clone, Debug)]
pub struct Plan {
    big_n: u64,
    tile: u64,
    next: Option<Step>,
}

impl Plan {
    pub fn new(n: u64, log_tile: u32) -> Plan {
        let big_n = n.next_power_of_two();
        let tile = 1u64 << log_tile;
        let next = if n <= 1 {
            None
        } else {
            Some(Step::Shared { k_first: 2, k_last: if big_n < tile { big_n } else { tile } })
        };
        Plan { big_n, tile, next }
    }

    /// First step of merge `k`, if that merge exists.
    fn merge_start(&self, k: u64) -> Option<Step> {
        (k <= self.big_n).then_some(Step::Global { k, j: k / 2 })
    }
}

impl Iterator for Plan {
    type Item = Step;

    fn next(&mut self) -> Option<Step> {
        let step = self.next?;
        self.next = match step {
            Step::Shared { k_last, .. } => self.merge_start(2 * k_last),
            Step::Global { k, j } => Some(if j / 2 >= self.tile {
                Step::Global { k, j: j / 2 }
            } else {
                Step::Shared { k_first: k, k_last: k }
            }),
        };
        Some(step)
    }
}

/// Shared-memory stages: strides `j` of merges `k` in `k_first ..= k_last`, only those
/// with `j < tile`. `stage(k, j)` runs one stage (then the block synchronises).
#[inline(always)]
pub fn tile_stages(k_first: u64, k_last: u64, tile: u64, mut stage: impl FnMut(u64, u64)) {
    let mut k = k_first;
    while k <= k_last {
        let mut j = if k / 2 < tile { k / 2 } else { tile / 2 };
        while j >= 1 {
            stage(k, j);
            j /= 2;
        }
        k *= 2;
    }
}

#[cfg(target_arch = "nvptx64")]
mod device;

#[cfg(test)]
mod tests;
