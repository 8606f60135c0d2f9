//! One launcher per algorithm family, mirroring `kernels/src`. Each module exposes
//! `sort(gpu, buf, opts)`; [`sort`] dispatches on [`Variant`].
use crate::device::{DeviceBuffer, Gpu};
use crate::error::Result;
use crate::{Element, SortOptions};

pub mod launch;
pub mod naive;

/// A named sorting algorithm. Every variant sorts any `n` and every element type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Variant {
    /// Catania 3.1: log2(n) global-memory passes; each thread places its element by a
    /// binary search in the neighbouring chunk. Stable.
    #[default]
    Naive,
}

impl Variant {
    /// Every variant, in the order the CLI lists them.
    pub const ALL: &'static [Variant] = &[Variant::Naive];

    /// The name used on the command line and in tables.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Naive => "naive",
        }
    }

    /// Largest number of elements the variant accepts; longer inputs are refused with
    /// [`crate::Error::BadArgument`] before anything is launched.
    pub fn max_len(self) -> u64 {
        match self {
            Variant::Naive => u64::MAX,
        }
    }

    /// Whether equal keys keep their input order.
    pub fn is_stable(self) -> bool {
        match self {
            Variant::Naive => true,
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
    }
}
