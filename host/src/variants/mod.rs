//! One launcher per algorithm family, mirroring `kernels/src`. Each module exposes
//! `sort(gpu, buf, opts)`; [`sort`] dispatches on [`Variant`].
use crate::device::{DeviceBuffer, Gpu};
use crate::error::Result;
use crate::{Element, SortOptions};

pub mod launch;
pub mod naive;
pub mod shared;

/// A named sorting algorithm. Every variant sorts any `n` and every element type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Variant {
    /// Catania 3.1: log2(n) global-memory passes; each thread places its element by a
    /// binary search in the neighbouring chunk. Stable.
    #[default]
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
}

impl Variant {
    /// Every variant, in the order the CLI lists them.
    pub const ALL: &'static [Variant] = &[Variant::Naive, Variant::Sm8, Variant::Sm9, Variant::Sm];

    /// The name used on the command line and in tables.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Naive => "naive",
            Variant::Sm8 => "sm8",
            Variant::Sm9 => "sm9",
            Variant::Sm => "sm",
        }
    }

    /// Whether equal keys keep their input order.
    pub fn is_stable(self) -> bool {
        match self {
            Variant::Naive => true,
            Variant::Sm8 | Variant::Sm9 | Variant::Sm => true,
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
    if buf.len() <= 1 {
        return Ok(());
    }
    match opts.variant {
        Variant::Naive => naive::sort(gpu, buf, opts),
        Variant::Sm8 => shared::sort(gpu, buf, opts, shared::Strategy::Sm8),
        Variant::Sm9 => shared::sort(gpu, buf, opts, shared::Strategy::Sm9),
        Variant::Sm => shared::sort(gpu, buf, opts, shared::Strategy::Sm),
    }
}
