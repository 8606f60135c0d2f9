//! One launcher per algorithm family, mirroring `kernels/src`. Each module exposes
//! `sort(gpu, buf, opts)`; [`sort`] dispatches on [`Variant`], and sends record types
//! that a variant sorts by key to [`records`], which sits above the pair sorts it uses.
use crate::device::{DeviceBuffer, Gpu};
use crate::error::Result;
use crate::{Element, SortOptions};
use records::PairSort;

pub mod launch;
pub mod mergepath;
pub mod naive;
pub mod quick;
pub mod radix;
pub mod records;
mod scratch;
pub mod segmented;
pub mod shared;
pub mod topk;

pub mod bitonic;
pub mod blockmerge;
pub mod bottomup;

/// A named sorting algorithm. Every variant sorts any `n` and every element type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Variant {
    /// Onesweep-style LSD radix sort (Adinets and Merrill): one histogram pass, then
    /// one pass per 8-bit digit with a decoupled look-back across tiles; records by
    /// (key, index) pairs and a gather. Stable. The default.
    #[default]
    Radix,
    /// Merge-path merge sort (ModernGPU / CUB style): tiles sorted in shared memory
    /// (register sorts, then co-rank merges), then one partition and one merge launch
    /// per doubling of the run width, each block merging exactly one tile. Stable.
    Mergepath,
    /// Catania 3.1: log2(n) global-memory passes; each thread places its element by a
    /// binary search in the neighbouring chunk. Stable.
    Naive,
    /// Catania 3.4 `SM8`: passes with chunks narrower than the block run inside each
    /// block in shared memory (8 passes at block size 256); the rest as `naive`. Stable.
    Sm8,
    /// Catania 3.4 `SM9`: `sm8` plus the pass with chunk == block in shared memory,
    /// each block loading its neighbour tile's keys. Stable.
    Sm9,
    /// Catania 3.4 `SM`: `sm9` plus one block per chunk (walking its sub-chunks) for
    /// every chunk whose keys fit in the device's shared memory per block. Stable.
    Sm,
    /// GPU quicksort (Cederman and Tsigas; the UPC report's counters done right):
    /// three-way partitions of all segments per level around sampled medians, block
    /// offsets by a device scan, short segments sorted in shared memory. Unstable.
    Quick,
    /// Pisa: bottom-up merge sort, each thread merging whole slices of width 2^p with a
    /// sequential merge (few busy threads in late passes, one in the last). Stable.
    Bottomup,
    /// Blog: merges inside each block in shared memory, then parallel merge-path
    /// merges of run pairs across blocks. Stable.
    Blockmerge,
    /// Bitonic sort for any n (virtual +infinity padding): shared-memory stages for
    /// small strides, one global pass per large stride. Not stable.
    Bitonic,
}

impl Variant {
    /// Every variant, in the order the CLI lists them.
    pub const ALL: &'static [Variant] = &[
        Variant::Radix,
        Variant::Mergepath,
        Variant::Naive,
        Variant::Sm8,
        Variant::Sm9,
        Variant::Sm,
        Variant::Quick,
        Variant::Bottomup,
        Variant::Blockmerge,
        Variant::Bitonic,
    ];

    /// The name used on the command line and in tables.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Radix => "radix",
            Variant::Mergepath => "mergepath",
            Variant::Naive => "naive",
            Variant::Sm8 => "sm8",
            Variant::Sm9 => "sm9",
            Variant::Sm => "sm",
            Variant::Quick => "quick",
            Variant::Bottomup => "bottomup",
            Variant::Blockmerge => "blockmerge",
            Variant::Bitonic => "bitonic",
        }
    }

    /// Largest number of elements the variant accepts; longer inputs are refused with
    /// [`crate::Error::BadArgument`] before anything is launched.
    pub fn max_len(self) -> u64 {
        match self {
            Variant::Radix | Variant::Mergepath | Variant::Naive | Variant::Quick => u64::MAX,
            Variant::Sm8 | Variant::Sm9 | Variant::Sm => u64::MAX,
            // 64-bit indices throughout; launch limits are reported as errors.
            Variant::Blockmerge | Variant::Bitonic => u64::MAX,
            // Correct at any size, but its last passes merge on a handful of threads:
            // ~5 s at 2^24 on an H100 and linear in n beyond. Past 2^27 (~40 s) it is
            // refused rather than left to run for many minutes.
            Variant::Bottomup => 1 << 27,
        }
    }

    /// Whether equal keys keep their input order.
    pub fn is_stable(self) -> bool {
        match self {
            Variant::Radix | Variant::Mergepath | Variant::Naive => true,
            Variant::Sm8 | Variant::Sm9 | Variant::Sm => true,
            Variant::Quick => false,
            Variant::Bottomup | Variant::Blockmerge => true,
            Variant::Bitonic => false,
        }
    }
}

impl std::fmt::Display for Variant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Variant {
    type Err = crate::Error;
    fn from_str(s: &str) -> Result<Self> {
        Variant::ALL.iter().copied().find(|v| v.name() == s).ok_or_else(|| {
            let names: Vec<_> = Variant::ALL.iter().map(|v| v.name()).collect();
            crate::Error::BadArgument(format!("unknown variant `{s}` (known: {})", names.join(", ")))
        })
    }
}

pub(crate) fn sort<T: Element>(gpu: &Gpu, buf: &mut DeviceBuffer<T>, opts: &SortOptions) -> Result<()> {
    if buf.len() as u64 > opts.variant.max_len() {
        return Err(crate::Error::BadArgument(format!(
            "variant {} sorts at most {} elements; got {}",
            opts.variant,
            opts.variant.max_len(),
            buf.len()
        )));
    }
    if opts.key_bits.is_some() && opts.variant != Variant::Radix {
        return Err(crate::Error::BadArgument(format!(
            "key bits are a radix sort option; variant {} sorts whole keys",
            opts.variant
        )));
    }
    if buf.len() <= 1 {
        return match opts.key_bits {
            Some(b) if T::BIT_ORDER.is_some() => radix::check_bits::<T>(Some(b), 8 * size_of::<T>() as u32).map(|_| ()),
            _ => Ok(()),
        };
    }
    match opts.variant {
        // The radix sort orders key bits: records by their key field and a gather.
        Variant::Radix if T::BIT_ORDER.is_none() => records::sort_by_own_key(gpu, buf, opts, PairSort::Radix),
        Variant::Radix => radix::sort(gpu, buf, opts),
        Variant::Mergepath if mergepath::sorts_by_key::<T>(buf.len()) => {
            records::sort_by_own_key(gpu, buf, opts, PairSort::Mergepath)
        }
        Variant::Mergepath => mergepath::sort(gpu, buf, opts),
        Variant::Naive => naive::sort(gpu, buf, opts),
        Variant::Sm8 => shared::sort(gpu, buf, opts, shared::Strategy::Sm8),
        Variant::Sm9 => shared::sort(gpu, buf, opts, shared::Strategy::Sm9),
        Variant::Sm => shared::sort(gpu, buf, opts, shared::Strategy::Sm),
        Variant::Quick => quick::sort(gpu, buf, opts),
        Variant::Bottomup => bottomup::sort(gpu, buf, opts),
        Variant::Blockmerge => blockmerge::sort(gpu, buf, opts),
        Variant::Bitonic => bitonic::sort(gpu, buf, opts),
    }
}
