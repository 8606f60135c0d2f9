//! One launcher per algorithm family, mirroring `kernels/src`. Each module exposes
//! `sort(gpu, buf, opts)`; [`sort`] dispatches on [`Variant`].
use crate::device::{DeviceBuffer, Gpu};
use crate::error::Result;
use crate::{Element, SortOptions};

pub mod launch;
pub mod naive;
pub mod quick;

pub mod bitonic;
pub mod blockmerge;
pub mod bottomup;

/// A named sorting algorithm. Every variant sorts any `n` and every element type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Variant {
    /// Catania 3.1: log2(n) global-memory passes; each thread places its element by a
    /// binary search in the neighbouring chunk. Stable.
    #[default]
    Naive,
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
    pub const ALL: &'static [Variant] =
        &[Variant::Naive, Variant::Quick, Variant::Bottomup, Variant::Blockmerge, Variant::Bitonic];

    /// The name used on the command line and in tables.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Naive => "naive",
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
            Variant::Naive | Variant::Quick => u64::MAX,
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
            Variant::Naive => true,
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
    if buf.len() <= 1 {
        return Ok(());
    }
    match opts.variant {
        Variant::Naive => naive::sort(gpu, buf, opts),
        Variant::Quick => quick::sort(gpu, buf, opts),
        Variant::Bottomup => bottomup::sort(gpu, buf, opts),
        Variant::Blockmerge => blockmerge::sort(gpu, buf, opts),
        Variant::Bitonic => bitonic::sort(gpu, buf, opts),
    }
}
