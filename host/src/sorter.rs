use std::fmt;

use crate::device::{DeviceBuffer, Gpu};
use crate::error::{Error, Result};
use crate::variants::{self, Variant};
use crate::{Element, cpu};

/// Sort direction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Order {
    #[default]
    #[value(name = "asc", alias = "ascending")]
    Ascending,
    #[value(name = "desc", alias = "descending")]
    Descending,
}

impl Order {
    pub fn is_descending(self) -> bool {
        self == Order::Descending
    }
}

impl fmt::Display for Order {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.is_descending() { "desc" } else { "asc" })
    }
}

/// How to sort: which algorithm, which direction, which block size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SortOptions {
    pub variant: Variant,
    pub order: Order,
    /// Threads per block for the variants that take one (power of two, 32..=1024).
    pub block_size: u32,
}

impl SortOptions {
    pub fn new(variant: Variant) -> Self {
        SortOptions { variant, order: Order::Ascending, block_size: 256 }
    }

    pub fn order(mut self, order: Order) -> Self {
        self.order = order;
        self
    }

    pub fn block_size(mut self, block_size: u32) -> Self {
        self.block_size = block_size;
        self
    }

    /// Checks the options against what the device allows.
    pub fn validate(&self, max_threads_per_block: u32) -> Result<()> {
        let b = self.block_size;
        if !b.is_power_of_two() || !(32..=max_threads_per_block).contains(&b) {
            return Err(Error::BadArgument(format!(
                "block size {b} must be a power of two between 32 and {max_threads_per_block}"
            )));
        }
        Ok(())
    }
}

impl Default for SortOptions {
    fn default() -> Self {
        SortOptions::new(Variant::default())
    }
}

/// Where a sort ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Backend {
    /// On the CUDA device of that name.
    Cuda(String),
    /// On the CPU; the string says why (no device, or asked for).
    Cpu(String),
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Backend::Cuda(name) => write!(f, "GPU ({name})"),
            Backend::Cpu(why) => write!(f, "CPU ({why})"),
        }
    }
}

/// The entry point: owns the device (context, stream, kernel module) if there is one.
pub struct Sorter {
    gpu: Option<Gpu>,
    cpu_reason: String,
}

impl Sorter {
    /// Opens the first CUDA device; [`Error::NoDevice`] if there is none.
    pub fn new() -> Result<Sorter> {
        Ok(Sorter { gpu: Some(Gpu::open(0)?), cpu_reason: String::new() })
    }

    /// The first CUDA device if there is one, the CPU otherwise (see [`Sorter::backend`]).
    pub fn with_fallback() -> Sorter {
        match Gpu::open(0) {
            Ok(gpu) => Sorter { gpu: Some(gpu), cpu_reason: String::new() },
            Err(e) => Sorter { gpu: None, cpu_reason: e.to_string() },
        }
    }

    /// Sorts on the CPU only.
    pub fn cpu() -> Sorter {
        Sorter { gpu: None, cpu_reason: "CPU backend requested".into() }
    }

    /// Which backend [`Sorter::sort`] uses.
    pub fn backend(&self) -> Backend {
        match &self.gpu {
            Some(gpu) => Backend::Cuda(gpu.info().name.clone()),
            None => Backend::Cpu(self.cpu_reason.clone()),
        }
    }

    /// The device, if this sorter has one.
    pub fn gpu(&self) -> Option<&Gpu> {
        self.gpu.as_ref()
    }

    fn require_gpu(&self) -> Result<&Gpu> {
        self.gpu.as_ref().ok_or_else(|| Error::NoDevice(self.cpu_reason.clone()))
    }

    /// Sorts `data` in place and says where it ran. On the GPU: upload, sort with
    /// `opts.variant`, download. On the CPU: the CPU backend's sort in `opts.order`
    /// (stable, so the result is the same as every stable GPU variant's).
    pub fn sort<T: Element>(&self, data: &mut [T], opts: &SortOptions) -> Result<Backend> {
        match &self.gpu {
            Some(gpu) => {
                let mut buf = gpu.upload(data)?;
                self.sort_device(&mut buf, opts)?;
                buf.copy_to_host(gpu, data)?;
            }
            None => cpu::sort(data, opts.order),
        }
        Ok(self.backend())
    }

    /// Sorts data already on the device. Queued on the sorter's stream; returns once
    /// the work is queued (read the buffer back or call [`Gpu::synchronize`] to wait).
    pub fn sort_device<T: Element>(&self, buf: &mut DeviceBuffer<T>, opts: &SortOptions) -> Result<()> {
        let gpu = self.require_gpu()?;
        opts.validate(gpu.info().max_threads_per_block)?;
        variants::sort(gpu, buf, opts)
    }

    /// Copies `data` to the device (for [`Sorter::sort_device`]).
    pub fn upload<T: Element>(&self, data: &[T]) -> Result<DeviceBuffer<T>> {
        self.require_gpu()?.upload(data)
    }
}
