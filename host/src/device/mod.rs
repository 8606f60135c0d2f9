//! The CUDA side: the [`Gpu`] handle (a context, one stream and the kernel module) and
//! what it hands out, one concern per file:
//!
//! - this file: [`Gpu`] itself: opening a device or taking over a caller's stream,
//!   the device's properties ([`DeviceInfo`]), memory info, allocation and upload,
//!   copies and synchronisation;
//! - `module.rs`: the embedded PTX and cubins, which of them is loaded
//!   ([`ModuleSource`]), and kernel lookup by name;
//! - `launch.rs`: the typed launch, dependent launches, clusters, dynamic shared memory;
//! - `buffer.rs`: [`DeviceBuffer`] and plain (peer-reachable) allocations;
//! - `borrowed.rs`: [`BorrowedBuffer`], device memory the caller lends without
//!   giving it up (a PyTorch tensor's);
//! - `pinned.rs`: [`PinnedBuffer`], page-locked host memory;
//! - `staging.rs`: transfers through page-locked staging buffers (files, large host
//!   slices);
//! - `memory.rs`: the scratch cache, the memory pool and free-memory checks;
//! - `events.rs`: timing events.
//!
//! Everything goes through cudarc's driver API with the driver library loaded at run
//! time, so this crate builds and runs on machines without CUDA; there `Gpu::open`
//! returns [`Error::NoDevice`].
mod borrowed;
mod buffer;
mod events;
mod launch;
mod memory;
mod module;
mod pinned;
mod staging;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use cudarc::driver::sys::{CUdevice_attribute, CUresult};
use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaStream, DriverError};

pub use borrowed::BorrowedBuffer;
pub use buffer::DeviceBuffer;
pub(crate) use buffer::PlainAlloc;
pub(crate) use events::{seconds_between, timing_event};
#[doc(hidden)]
pub use launch::kernel_cluster_ctas;
pub use module::{CUBINS, ModuleSource, PDL_KERNELS, pick_cubin, ptx};
pub use pinned::PinnedBuffer;
pub(crate) use pinned::{HostWord, PendingWord};
pub(crate) use staging::{Stages, download_with, upload_with};

use crate::error::{DriverContext, Error, Result};
use crate::tuning::Tuning;
use memory::keep_pool_memory;
use module::{dependent_launches, load_kernels};

/// What the library needs to know about the device to configure launches.
#[derive(Clone, Debug)]
pub struct DeviceInfo {
    /// The driver's device name (`"NVIDIA H100 80GB HBM3"`).
    pub name: String,
    /// The CUDA device number (0-based, as `CUDA_VISIBLE_DEVICES` leaves them).
    pub ordinal: usize,
    /// `(major, minor)`: `(9, 0)` is sm_90 (Hopper).
    pub compute_capability: (i32, i32),
    /// Streaming multiprocessors (SMs); grids are sized by it.
    pub multiprocessors: u32,
    /// Shared memory a block gets without opting in (48 KiB on every current GPU).
    pub shared_mem_per_block: u32,
    /// Shared memory a block can get after raising its limit (227 KiB on Hopper).
    pub shared_mem_per_block_optin: u32,
    /// Device memory in bytes.
    pub total_mem: u64,
    /// L2 cache in bytes.
    pub l2_bytes: u32,
    /// The most threads a block may have (1024 on every current GPU).
    pub max_threads_per_block: u32,
}

impl std::fmt::Display for DeviceInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} (sm_{}{}, {} SMs, {:.1} GiB)",
            self.name,
            self.compute_capability.0,
            self.compute_capability.1,
            self.multiprocessors,
            self.total_mem as f64 / (1u64 << 30) as f64
        )
    }
}

/// An open CUDA device with the kernel module loaded. Owns one stream; every
/// operation of the library is ordered on it.
pub struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    module: Arc<CudaModule>,
    /// Each kernel looked up so far, with the dynamic shared memory it was allowed
    /// ([`Gpu::set_max_dynamic_smem`]; 0: the default).
    functions: Mutex<HashMap<String, (CudaFunction, u32)>>,
    /// Idle scratch buffers kept between sorts ([`Gpu::take_scratch`]).
    scratch: Mutex<Vec<DeviceBuffer<u32>>>,
    /// Idle page-locked buffers for small read-backs ([`Gpu::take_pinned`]).
    pinned: Mutex<Vec<PinnedBuffer>>,
    /// Idle staging buffers of large host copies ([`Stages::kept`]).
    stages: Mutex<Vec<PinnedBuffer>>,
    info: DeviceInfo,
    source: ModuleSource,
    /// Whether kernels of [`PDL_KERNELS`] are launched as programmatic dependents
    /// ([`Gpu::launches_as_dependent`]).
    dependent_launches: bool,
    /// The knobs every launcher reads ([`Gpu::tuning`]).
    tuning: Tuning,
    /// Free device memory at the last query ([`Gpu::mem_info`]) less what
    /// [`Gpu::alloc`] took since without asking: small allocations skip the query.
    known_free: AtomicU64,
    /// [`Gpu::resident_blocks`] asked so far, by kernel, block size and shared memory.
    occupancy: Mutex<HashMap<(String, u32, u32), u32>>,
    /// Whether the device runs cooperative launches ([`Gpu::cooperative_launch`]).
    cooperative: bool,
    /// The buffer of [`Gpu::zeroed_block`], once asked for.
    zeroed: Mutex<Option<DeviceBuffer<u32>>>,
}

/// [`Gpu::alloc`] asks the driver for free memory only for allocations above this
/// fraction of the memory known to be free (`1 / ALLOC_UNCHECKED_SHARE`): the query
/// cost 0.4-0.6 ms of a ~2 ms call in one H200 run, paid before every allocation.
const ALLOC_UNCHECKED_SHARE: u64 = 16;

impl Gpu {
    /// Opens device `ordinal` and loads the kernels, with the measured defaults
    /// ([`Tuning::default`]). Fails with [`Error::NoDevice`] when there is no driver
    /// library, no device, or the device can't be used.
    pub fn open(ordinal: usize) -> Result<Gpu> {
        Gpu::open_tuned(ordinal, Tuning::default())
    }

    /// [`Gpu::open`] with `tuning`: its module knobs choose the code loaded, and every
    /// sort on this device is launched by it.
    pub fn open_tuned(ordinal: usize, tuning: Tuning) -> Result<Gpu> {
        // cudarc panics when the driver library is missing; ask first.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err(Error::NoDevice("the NVIDIA driver library (libcuda) is not installed".into()));
        }
        crate::trace::mark("gpu: open");
        let count = CudaContext::device_count().map_err(|e| Error::NoDevice(format!("cuInit failed: {e}")))?;
        crate::trace::mark("gpu: cuInit, device count");
        if ordinal >= count.max(0) as usize {
            return Err(Error::NoDevice(format!("device {ordinal} requested, {count} present")));
        }
        let ctx = CudaContext::new(ordinal).map_err(|e| Error::NoDevice(format!("opening device {ordinal}: {e}")))?;
        crate::trace::mark("gpu: context");
        // One stream only: cudarc's cross-stream event tracking would add an event
        // record per buffer access for nothing.
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.new_stream().call("cuStreamCreate")?;
        keep_pool_memory(&ctx);
        Gpu::with_stream_tuned(stream, tuning)
    }

    /// Uses the caller's cudarc stream (and its context) instead of opening the
    /// device: every operation of the library is queued on `stream`, in order with
    /// the caller's own work on it, and nothing waits for the whole device. The
    /// kernels are loaded into the stream's context. The context's settings are left
    /// as they are (unlike [`Gpu::open`], which turns off cudarc's event tracking and
    /// keeps freed memory in the pool).
    ///
    /// ```no_run
    /// use host::{DeviceBuffer, Gpu, SortOptions, Sorter};
    ///
    /// let ctx = cudarc::driver::CudaContext::new(0).unwrap();
    /// let stream = ctx.new_stream().unwrap();
    /// let keys = stream.memcpy_stod(&[3u32, 1, 2]).unwrap(); // the caller's buffer
    /// let sorter = Sorter::from_gpu(Gpu::with_stream(stream.clone())?);
    /// let gpu = sorter.gpu().unwrap();
    /// let mut buf = DeviceBuffer::from_cuda_slice(gpu, keys)?; // no copy
    /// sorter.sort_device(&mut buf, &SortOptions::default())?;
    /// let keys = buf.into_cuda_slice(); // back to cudarc, still no copy
    /// assert_eq!(stream.memcpy_dtov(&keys).unwrap(), [1, 2, 3]);
    /// # Ok::<(), host::Error>(())
    /// ```
    pub fn with_stream(stream: Arc<CudaStream>) -> Result<Gpu> {
        Gpu::with_stream_tuned(stream, Tuning::default())
    }

    /// [`Gpu::with_stream`] with `tuning` (as [`Gpu::open_tuned`]).
    pub fn with_stream_tuned(stream: Arc<CudaStream>, tuning: Tuning) -> Result<Gpu> {
        let ctx = stream.context().clone();
        let ordinal = ctx.ordinal();
        let cc = ctx.compute_capability().call("cuDeviceGetAttribute")?;
        let (module, source) = load_kernels(&ctx, cc, &tuning)?;
        let attr = |a| ctx.attribute(a).map(|v| v.max(0) as u32).call("cuDeviceGetAttribute");
        let info = DeviceInfo {
            name: ctx.name().call("cuDeviceGetName")?,
            ordinal,
            compute_capability: cc,
            multiprocessors: attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
            shared_mem_per_block: attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)?,
            shared_mem_per_block_optin: attr(
                CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            )?,
            total_mem: ctx.total_mem().call("cuDeviceTotalMem")? as u64,
            l2_bytes: attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)?,
            max_threads_per_block: attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
        };
        let cooperative = attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH)? != 0;
        Ok(Gpu {
            occupancy: Mutex::new(HashMap::new()),
            cooperative,
            zeroed: Mutex::new(None),
            ctx,
            stream,
            module,
            functions: Mutex::new(HashMap::new()),
            scratch: Mutex::new(Vec::new()),
            pinned: Mutex::new(Vec::new()),
            stages: Mutex::new(Vec::new()),
            info,
            dependent_launches: dependent_launches(&source, &tuning),
            source,
            tuning,
            known_free: AtomicU64::new(0),
        })
    }

    /// The knobs this device was opened with; its launchers read them.
    pub fn tuning(&self) -> &Tuning {
        &self.tuning
    }

    /// Lets this device's kernels and copies reach `peer`'s memory directly (NVLink or
    /// PCIe peer-to-peer). Already enabled (NCCL does it too) is fine.
    pub(crate) fn enable_peer_access(&self, peer: &Gpu) -> Result<()> {
        use cudarc::driver::sys::{CUresult, cuCtxEnablePeerAccess};
        self.ctx.bind_to_thread().call("cuCtxSetCurrent")?;
        // SAFETY: both contexts are alive; the call only changes access rights.
        match unsafe { cuCtxEnablePeerAccess(peer.ctx.cu_ctx(), 0) } {
            CUresult::CUDA_SUCCESS | CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED => Ok(()),
            other => Err(Error::NoDevice(format!(
                "device {} cannot access device {} directly: {other:?}",
                self.info.ordinal, peer.info.ordinal
            ))),
        }
    }

    /// A second stream on this device at the highest priority: the multi-GPU sort's
    /// exchange runs there, beside the sorts on [`Gpu::stream`], and its blocks are
    /// scheduled ahead of theirs as SMs free up.
    pub(crate) fn high_priority_stream(&self) -> Result<Arc<CudaStream>> {
        self.ctx.bind_to_thread().call("cuCtxSetCurrent")?;
        let (_, greatest) = cudarc::driver::result::stream::get_priority_range().call("cuCtxGetStreamPriorityRange")?;
        self.ctx.new_stream_with_priority(greatest).call("cuStreamCreateWithPriority")
    }

    /// The driver context (for peer copies between devices).
    pub(crate) fn cu_ctx(&self) -> cudarc::driver::sys::CUcontext {
        self.ctx.cu_ctx()
    }

    /// What the device is (name, compute capability, sizes).
    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// The stream every operation of this `Gpu` is queued on, in order; wait on it
    /// (or synchronize it) before touching the results from another stream.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// `(free, total)` device memory in bytes.
    pub fn mem_info(&self) -> Result<(u64, u64)> {
        let (free, total) = self.ctx.mem_get_info().call("cuMemGetInfo")?;
        self.known_free.store(free as u64, Ordering::Relaxed);
        Ok((free as u64, total as u64))
    }

    /// Waits for all queued work. A kernel fault surfaces here (named after `what`)
    /// unless [`Tuning::sync_launches`] caught it at its launch.
    pub fn synchronize(&self, what: &str) -> Result<()> {
        self.stream.synchronize().map_err(|source| Error::Launch {
            kernel: format!(
                "{what} (reported asynchronously; rerun with SORT_SYNC_LAUNCHES=1, or \
                 Tuning::sync_launches, to name the kernel)"
            ),
            source,
        })
    }

    /// Queues a copy of `bytes` bytes between two device addresses of this GPU.
    pub(crate) fn copy_raw(&self, dst: u64, src: u64, bytes: u64) -> Result<()> {
        if bytes > 0 {
            // SAFETY: the callers pass addresses inside live buffers of this context.
            unsafe { cudarc::driver::result::memcpy_dtod_async(dst, src, bytes as usize, self.stream.cu_stream()) }
                .call("cuMemcpyDtoDAsync")?;
        }
        Ok(())
    }

    /// Allocates an uninitialised device buffer of `len` elements, checking free
    /// memory first so that a too-large request is [`Error::OutOfMemory`] (after the
    /// memory pool is trimmed, [`Gpu::free_mem_for`]). An allocation small against the
    /// memory known free (`ALLOC_UNCHECKED_SHARE`) is tried without the query, and
    /// checked as any other if the driver refuses it.
    pub fn alloc<T: bytemuck::Pod>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        let bytes = len
            .checked_mul(size_of::<T>())
            .ok_or_else(|| Error::BadArgument(format!("{len} elements overflow the address space")))?;
        if let Some(raw) = self.alloc_unchecked(bytes as u64) {
            return Ok(DeviceBuffer::owning(raw, len));
        }
        let (free, _) = self.free_mem_for(bytes as u64)?;
        if bytes as u64 > free {
            return Err(Error::OutOfMemory { needed: bytes as u64, free });
        }
        // Zero-length buffers still get a real (1-byte) allocation: cuMemAlloc(0) fails.
        let raw = unsafe { self.stream.alloc::<u8>(bytes.max(1)) }
            .map_err(|e| self.map_oom(e, bytes as u64, "cuMemAlloc"))?;
        Ok(DeviceBuffer::owning(raw, len))
    }

    /// `bytes` of device memory without a free-memory query, if they are at most
    /// [`ALLOC_UNCHECKED_SHARE`]th of the memory known free (which they are taken
    /// from) and the driver gives them; `None` otherwise.
    fn alloc_unchecked(&self, bytes: u64) -> Option<cudarc::driver::CudaSlice<u8>> {
        let mut known = self.known_free.load(Ordering::Relaxed);
        loop {
            if bytes > known / ALLOC_UNCHECKED_SHARE {
                return None;
            }
            match self.known_free.compare_exchange_weak(known, known - bytes, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => break,
                Err(now) => known = now,
            }
        }
        // SAFETY: as in `alloc`: uninitialised bytes, never read before written.
        unsafe { self.stream.alloc::<u8>(bytes.max(1) as usize) }.ok()
    }

    /// Copies `data` to a new device buffer.
    pub fn upload<T: bytemuck::Pod>(&self, data: &[T]) -> Result<DeviceBuffer<T>> {
        let mut buf = self.alloc(data.len())?;
        buf.copy_from_host(self, data)?;
        Ok(buf)
    }

    fn map_oom(&self, e: DriverError, needed: u64, call: &'static str) -> Error {
        if e.0 == CUresult::CUDA_ERROR_OUT_OF_MEMORY {
            let free = self.mem_info().map(|m| m.0).unwrap_or(0);
            Error::OutOfMemory { needed, free }
        } else {
            Error::Driver { call, source: e }
        }
    }
}
