//! The CUDA side: context, stream, the embedded PTX module, device buffers, events.
//!
//! Everything goes through cudarc's driver API with the driver library loaded at run
//! time, so this crate builds and runs on machines without CUDA; there `Gpu::open`
//! returns [`Error::NoDevice`].
use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex};

use cudarc::driver::sys::{CUdevice_attribute, CUevent_flags, CUresult};
use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DevicePtr, DriverError};

use cudarc::driver::LaunchConfig;
use kernels::params::{DevPtr, Kernel, KernelParams};

use crate::error::{DriverContext, Error, Result};

/// The kernels, embedded in the binary: the prebuilt PTX of `host/prebuilt/` (or, with
/// a kernel experiment feature or stale prebuilt kernels, PTX built from `kernels/`), put
/// in OUT_DIR by `build.rs`.
pub const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/kernels.ptx"));

mod embedded {
    // `CUBINS`: the same kernels as machine code, `(major, minor, cubin)` per
    // architecture: the prebuilt ones, or those ptxas compiled in a from-source build
    // (none without ptxas, or with SORT_CUBINS=0).
    include!(concat!(env!("OUT_DIR"), "/cubins.rs"));
}
pub use embedded::{CUBINS, PDL_KERNELS};

/// The embedded cubin that runs on a GPU of compute capability `cc`: the newest one of
/// the same major version whose minor version is not above the GPU's (machine code is
/// compatible only within a major version). `None`: the PTX must be JIT-compiled.
pub fn pick_cubin<'a>(cc: (i32, i32), cubins: &[(u32, u32, &'a [u8])]) -> Option<(u32, u32, &'a [u8])> {
    cubins
        .iter()
        .filter(|&&(major, minor, _)| major as i32 == cc.0 && minor as i32 <= cc.1)
        .max_by_key(|&&(_, minor, _)| minor)
        .copied()
}

/// Which code [`Gpu::open`] loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModuleSource {
    /// Embedded machine code for `sm_<major><minor>`: no JIT compilation.
    Cubin(u32, u32),
    /// The embedded PTX, JIT-compiled by the driver (cached by it for later runs).
    Ptx,
    /// PTX from the file named by `SORT_PTX_FILE`.
    PtxFile(String),
}

impl std::fmt::Display for ModuleSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ModuleSource::Cubin(major, minor) => write!(f, "embedded sm_{major}{minor} cubin"),
            ModuleSource::Ptx => f.write_str("embedded PTX (JIT-compiled by the driver)"),
            ModuleSource::PtxFile(path) => write!(f, "PTX from SORT_PTX_FILE={path}"),
        }
    }
}

/// What the library needs to know about the device to configure launches.
#[derive(Clone, Debug)]
pub struct DeviceInfo {
    pub name: String,
    pub ordinal: usize,
    pub compute_capability: (i32, i32),
    pub multiprocessors: u32,
    /// Shared memory a block gets without opting in (48 KiB on every current GPU).
    pub shared_mem_per_block: u32,
    /// Shared memory a block can get after raising its limit (227 KiB on Hopper).
    pub shared_mem_per_block_optin: u32,
    pub total_mem: u64,
    pub l2_bytes: u32,
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
    info: DeviceInfo,
    source: ModuleSource,
    sync_each_launch: bool,
    /// Whether kernels of [`PDL_KERNELS`] are launched as programmatic dependents
    /// ([`Gpu::launches_as_dependent`]).
    dependent_launches: bool,
}

impl Gpu {
    /// Opens device `ordinal` and loads the kernels. Fails with [`Error::NoDevice`]
    /// when there is no driver library, no device, or the device can't be used.
    pub fn open(ordinal: usize) -> Result<Gpu> {
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
        Gpu::with_stream(stream)
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
        let ctx = stream.context().clone();
        let ordinal = ctx.ordinal();
        let cc = ctx.compute_capability().call("cuDeviceGetAttribute")?;
        let (module, source) = load_kernels(&ctx, cc)?;
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
        Ok(Gpu {
            ctx,
            stream,
            module,
            functions: Mutex::new(HashMap::new()),
            scratch: Mutex::new(Vec::new()),
            info,
            dependent_launches: dependent_launches(&source),
            source,
            sync_each_launch: std::env::var_os("SORT_SYNC_LAUNCHES").is_some_and(|v| v != "0"),
        })
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

    /// Device memory from `cuMemAlloc` rather than the stream-ordered pool: peer
    /// access enabled by [`Gpu::enable_peer_access`] covers it (pool memory would need
    /// the pool's own access rights, so a peer copy of it is staged through the host).
    pub(crate) fn alloc_plain(&self, bytes: usize) -> Result<PlainAlloc<'_>> {
        self.ctx.bind_to_thread().call("cuCtxSetCurrent")?;
        // SAFETY: a plain allocation in this (current) context, freed by `PlainAlloc`.
        let ptr = unsafe { cudarc::driver::result::malloc_sync(bytes.max(1)) }.call("cuMemAlloc")?;
        Ok(PlainAlloc { gpu: self, ptr })
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

    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// Whether the kernels came from an embedded cubin or were JIT-compiled from PTX.
    pub fn module_source(&self) -> &ModuleSource {
        &self.source
    }

    /// Where the kernels came from and how they are launched, for the CLI's
    /// "kernels:" line.
    pub fn kernels_summary(&self) -> String {
        if self.dependent_launches {
            format!("{}; {} kernels launched as programmatic dependents", self.source, PDL_KERNELS.len())
        } else {
            self.source.to_string()
        }
    }

    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// `(free, total)` device memory in bytes.
    pub fn mem_info(&self) -> Result<(u64, u64)> {
        let (free, total) = self.ctx.mem_get_info().call("cuMemGetInfo")?;
        Ok((free as u64, total as u64))
    }

    /// `(free, total)` device memory, counting memory this process keeps cached in the
    /// pool (see [`keep_pool_memory`]) as free when `needed` would not fit otherwise:
    /// then the queued work is waited for and the pool is trimmed before asking again
    /// (`free_mem_for(u64::MAX)` always trims: what a budget for the whole device uses).
    pub fn free_mem_for(&self, needed: u64) -> Result<(u64, u64)> {
        let (free, total) = self.mem_info()?;
        if needed <= free {
            return Ok((free, total));
        }
        self.synchronize("trimming the memory pool")?;
        self.scratch.lock().unwrap_or_else(|p| p.into_inner()).clear();
        trim_pool_memory(&self.ctx);
        self.mem_info()
    }

    /// A device buffer of at least `words` `u32`s for a sort's scratch space: an idle
    /// one kept from an earlier sort if one is large enough (no allocation, no driver
    /// call), a new one otherwise. Return it with [`Gpu::give_back_scratch`] once the
    /// work using it is queued: every operation is ordered on the one stream, so the
    /// next user's kernels run after this sort's. Not zeroed.
    pub fn take_scratch(&self, words: usize) -> Result<DeviceBuffer<u32>> {
        {
            let mut idle = self.scratch.lock().unwrap_or_else(|p| p.into_inner());
            let fit =
                idle.iter().enumerate().filter(|(_, b)| b.len() >= words).min_by_key(|(_, b)| b.len()).map(|(i, _)| i);
            if let Some(i) = fit {
                return Ok(idle.swap_remove(i));
            }
        }
        self.alloc::<u32>(words)
    }

    /// Bytes of idle scratch buffers this device keeps for later sorts (the
    /// library's workspace: a repeated sort of the same size allocates nothing).
    pub fn scratch_kept_bytes(&self) -> u64 {
        self.scratch.lock().unwrap_or_else(|p| p.into_inner()).iter().map(|b| b.len() as u64 * 4).sum()
    }

    /// Frees the kept scratch buffers (stream-ordered: after the queued work).
    pub fn release_scratch(&self) {
        self.scratch.lock().unwrap_or_else(|p| p.into_inner()).clear();
    }

    /// Keeps `buf` for a later [`Gpu::take_scratch`] (the largest few are kept).
    pub fn give_back_scratch(&self, buf: DeviceBuffer<u32>) {
        const KEEP: usize = 8;
        let mut idle = self.scratch.lock().unwrap_or_else(|p| p.into_inner());
        idle.push(buf);
        if idle.len() > KEEP {
            idle.sort_by_key(|b| std::cmp::Reverse(b.len()));
            idle.truncate(KEEP);
        }
    }

    /// The kernel entry point `name`, looked up once and cached.
    pub fn function(&self, name: &str) -> Result<CudaFunction> {
        let mut map = self.functions.lock().unwrap_or_else(|p| p.into_inner());
        Self::function_in(&self.module, &mut map, name).map(|(f, _)| f.clone())
    }

    fn function_in<'m>(
        module: &Arc<CudaModule>,
        map: &'m mut HashMap<String, (CudaFunction, u32)>,
        name: &str,
    ) -> Result<&'m mut (CudaFunction, u32)> {
        if !map.contains_key(name) {
            let f = module.load_function(name).map_err(|source| Error::Launch { kernel: name.to_string(), source })?;
            map.insert(name.to_string(), (f, 0));
        }
        Ok(map.get_mut(name).expect("inserted above"))
    }

    /// Lets kernel `name` use up to `bytes` of dynamic shared memory (above the 48 KiB
    /// default a kernel must opt in; the device's limit is
    /// [`DeviceInfo::shared_mem_per_block_optin`]). At or below the default there is
    /// nothing to opt into and no driver call is made, so every launch site can call it.
    /// The allowance only grows: the attribute belongs to the kernel, not to a launch,
    /// so a smaller value set by another thread's sort between this call and this
    /// thread's launch would make the launch fail (the radix histogram's shared memory
    /// depends on the pass count, and the GPU tests sort from many threads at once).
    pub fn set_max_dynamic_smem(&self, name: &str, bytes: u32) -> Result<()> {
        if bytes <= self.info.shared_mem_per_block {
            return Ok(());
        }
        if bytes > self.info.shared_mem_per_block_optin {
            return Err(Error::BadArgument(format!(
                "kernel `{name}` asks for {bytes} bytes of shared memory; the device allows {}",
                self.info.shared_mem_per_block_optin
            )));
        }
        let mut map = self.functions.lock().unwrap_or_else(|p| p.into_inner());
        let (f, allowed) = Self::function_in(&self.module, &mut map, name)?;
        if bytes <= *allowed {
            return Ok(());
        }
        f.set_attribute(
            cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            bytes as i32,
        )
        .map_err(|source| Error::Launch { kernel: name.to_string(), source })?;
        *allowed = bytes;
        Ok(())
    }

    /// Whether kernel `name` is launched as a *programmatic dependent* of the kernel
    /// before it in the stream (Hopper): its blocks may be scheduled while that
    /// kernel's last blocks still run, and wait for it to finish on the device
    /// (`kernels::gpu::grid_dependency_wait`) rather than after a launch. True for
    /// the entries of [`PDL_KERNELS`] when the sm_90 cubin is loaded (only its code has
    /// the wait) and `SORT_PDL` is not `0`.
    pub fn launches_as_dependent(&self, name: &str) -> bool {
        self.dependent_launches && PDL_KERNELS.binary_search(&name).is_ok()
    }

    /// Whether the loaded module can run the cluster kernels
    /// ([`kernels::mergepath::CLUSTER_KERNELS`]): only the sm_90 cubin has their cluster
    /// instructions (elsewhere they are comments, see `kernels::gpu::cluster_sync`).
    pub fn runs_clusters(&self) -> bool {
        matches!(self.source, ModuleSource::Cubin(major, _) if major >= 9)
    }

    /// Launches `func` with `cuLaunchKernelEx`: as a programmatic dependent
    /// (`dependent`: programmatic stream serialization) and in clusters of `cluster`
    /// blocks along x (`cluster > 1`); `args` point at the kernel's arguments.
    ///
    /// # Safety
    /// As for any kernel launch: `args` must match the kernel's parameters; with
    /// `dependent` the kernel must start with `kernels::gpu::grid_dependency_wait`
    /// ([`Gpu::launches_as_dependent`] says so); with `cluster > 1` the grid must be a
    /// multiple of it and the kernel one of [`kernels::mergepath::CLUSTER_KERNELS`]
    /// ([`Gpu::runs_clusters`]).
    pub unsafe fn launch_ex(
        &self,
        func: &CudaFunction,
        cfg: cudarc::driver::LaunchConfig,
        args: &mut [*mut std::ffi::c_void],
        dependent: bool,
        cluster: u32,
    ) -> std::result::Result<(), DriverError> {
        use cudarc::driver::sys;
        self.ctx.bind_to_thread()?;
        // SAFETY: a zeroed attribute is valid (plain C data); the fields set below are
        // the ones each attribute id reads.
        let mut attrs: [sys::CUlaunchAttribute; 2] = unsafe { std::mem::zeroed() };
        let mut count = 0;
        if dependent {
            attrs[count].id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
            attrs[count].value.programmaticStreamSerializationAllowed = 1;
            count += 1;
        }
        if cluster > 1 {
            attrs[count].id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
            attrs[count].value.clusterDim.x = cluster;
            attrs[count].value.clusterDim.y = 1;
            attrs[count].value.clusterDim.z = 1;
            count += 1;
        }
        let config = sys::CUlaunchConfig {
            gridDimX: cfg.grid_dim.0,
            gridDimY: cfg.grid_dim.1,
            gridDimZ: cfg.grid_dim.2,
            blockDimX: cfg.block_dim.0,
            blockDimY: cfg.block_dim.1,
            blockDimZ: cfg.block_dim.2,
            sharedMemBytes: cfg.shared_mem_bytes,
            hStream: self.stream.cu_stream(),
            attrs: attrs.as_mut_ptr(),
            numAttrs: count as u32,
        };
        // SAFETY: the caller's contract; `config` and `attrs` outlive the call.
        unsafe { sys::cuLaunchKernelEx(&config, func.cu_function(), args.as_mut_ptr(), std::ptr::null_mut()) }.result()
    }

    /// Launches `kernel` with `params`: the one typed launch of every kernel. The
    /// parameter list comes from the struct the entry was declared with
    /// ([`kernels::params::kernel_params!`]), so a missing, extra or swapped argument is
    /// a compile error, and the tests check each entry of the PTX against its struct.
    /// Dependent launches and clusters are chosen by the entry's name
    /// ([`Gpu::launches_as_dependent`], [`kernel_cluster_ctas`]).
    pub(crate) fn launch<P: KernelParams>(&self, kernel: Kernel<P>, cfg: LaunchConfig, params: &P) -> Result<()> {
        let name = kernel.name();
        let func = self.function(name)?;
        let (dependent, cluster) = (self.launches_as_dependent(name), kernel_cluster_ctas(name));
        let (mut args, count) = params.arg_ptrs();
        // SAFETY: `args` point at the fields of `params`, which outlive the call, in the
        // order and with the sizes of the entry's parameters (both are made from one
        // field list, and the tests compare every entry with its struct); the kernels
        // bound their accesses by the lengths among those parameters, which the
        // launchers derive from the buffers they pass; clusters come from the cluster
        // table, whose kernels' callers size grids in whole clusters.
        let launched = unsafe { self.launch_ex(&func, cfg, &mut args[..count], dependent, cluster) };
        match launched {
            Ok(()) => self.after_launch(name),
            Err(source) => Err(Error::Launch { kernel: name.to_string(), source }),
        }
    }

    /// Called after every launch by [`Gpu::launch`]: with `SORT_SYNC_LAUNCHES=1` it waits
    /// for the kernel so that a fault is reported with the kernel's name.
    pub fn after_launch(&self, kernel: &str) -> Result<()> {
        if self.sync_each_launch {
            self.stream.synchronize().map_err(|source| Error::Launch { kernel: kernel.to_string(), source })?;
        }
        Ok(())
    }

    /// Waits for all queued work. A kernel fault surfaces here (named after `what`)
    /// unless `SORT_SYNC_LAUNCHES=1` caught it at its launch.
    pub fn synchronize(&self, what: &str) -> Result<()> {
        self.stream.synchronize().map_err(|source| Error::Launch {
            kernel: format!("{what} (reported asynchronously; rerun with SORT_SYNC_LAUNCHES=1 to name the kernel)"),
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
    /// memory first so that a too-large request is [`Error::OutOfMemory`].
    pub fn alloc<T: bytemuck::Pod>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        let bytes = len
            .checked_mul(size_of::<T>())
            .ok_or_else(|| Error::BadArgument(format!("{len} elements overflow the address space")))?;
        let (free, _) = self.free_mem_for(bytes as u64)?;
        if bytes as u64 > free {
            return Err(Error::OutOfMemory { needed: bytes as u64, free });
        }
        // Zero-length buffers still get a real (1-byte) allocation: cuMemAlloc(0) fails.
        let raw = unsafe { self.stream.alloc::<u8>(bytes.max(1)) }
            .map_err(|e| self.map_oom(e, bytes as u64, "cuMemAlloc"))?;
        Ok(DeviceBuffer { raw, len, _elem: PhantomData })
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

    /// Times `work` on the stream with CUDA events; returns milliseconds.
    pub fn time_ms(&self, work: impl FnOnce() -> Result<()>) -> Result<f64> {
        let start = timing_event(&self.stream)?;
        work()?;
        let end = timing_event(&self.stream)?;
        self.synchronize("timed work")?;
        Ok(seconds_between(&start, &end)? * 1e3)
    }
}

/// An event with timing, recorded now on `stream`: it completes when the stream
/// reaches this point.
pub(crate) fn timing_event(stream: &CudaStream) -> Result<cudarc::driver::CudaEvent> {
    stream.record_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).call("cuEventRecord")
}

/// Seconds from timing event `a` to `b` (both completed).
pub(crate) fn seconds_between(a: &cudarc::driver::CudaEvent, b: &cudarc::driver::CudaEvent) -> Result<f64> {
    Ok(a.elapsed_ms(b).call("cuEventElapsedTime")? as f64 / 1e3)
}

/// Keeps memory freed back to the device's default pool (stream-ordered frees of the
/// sorts' scratch buffers) reserved for this process instead of returning it to the
/// driver at every synchronisation, as PyTorch's caching allocator does. Otherwise
/// every sort's scratch allocation maps fresh memory: on an H100 that cost ~170 us per
/// 2^24-key radix sort, more than a third of its time. Best effort: a device without
/// memory pools simply keeps the default.
/// Page-locked host memory for asynchronous copies between a file and the device (the
/// file sort's staging buffers), with an event marking the end of the last copy that
/// used it: [`PinnedBuffer::host_mut`] waits for that copy, so the CPU never touches
/// bytes a copy is still moving.
pub struct PinnedBuffer {
    ptr: *mut u8,
    len: usize,
    event: cudarc::driver::CudaEvent,
    ctx: Arc<CudaContext>,
}

// SAFETY: the buffer is plain host memory owned by this value; access goes through
// `&mut self` after the event is waited for.
unsafe impl Send for PinnedBuffer {}

impl PinnedBuffer {
    /// `len` bytes of pinned, CPU-cached memory (not write-combined: the CPU reads
    /// downloads back from it).
    pub fn new(gpu: &Gpu, len: usize) -> Result<PinnedBuffer> {
        gpu.ctx.bind_to_thread().call("cuCtxSetCurrent")?;
        let event = gpu.ctx.new_event(Some(CUevent_flags::CU_EVENT_BLOCKING_SYNC)).call("cuEventCreate")?;
        let ptr = unsafe { cudarc::driver::result::malloc_host(len.max(1), 0) }
            .map_err(|e| gpu.map_oom(e, len as u64, "cuMemHostAlloc"))? as *mut u8;
        Ok(PinnedBuffer { ptr, len, event, ctx: gpu.ctx.clone() })
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The bytes, once the last copy using them has finished.
    pub fn host_mut(&mut self) -> Result<&mut [u8]> {
        self.event.synchronize().call("cuEventSynchronize")?;
        // SAFETY: no copy is in flight (waited above) and `&mut self` is exclusive.
        Ok(unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) })
    }

    /// Queues a copy of the first `len` bytes to byte `at` of `dst` on the stream.
    pub fn upload<T: bytemuck::Pod>(
        &mut self,
        gpu: &Gpu,
        len: usize,
        dst: &mut DeviceBuffer<T>,
        at: usize,
    ) -> Result<()> {
        let dst_ptr = dst.byte_range(at, len, self.len)?;
        gpu.ctx.bind_to_thread().call("cuCtxSetCurrent")?;
        // SAFETY: `len` bytes fit both buffers (checked); the event keeps the host side
        // from being reused before the copy ends.
        unsafe {
            let src = std::slice::from_raw_parts(self.ptr, len);
            cudarc::driver::result::memcpy_htod_async(dst_ptr, src, gpu.stream.cu_stream())
                .call("cuMemcpyHtoDAsync")?;
        }
        self.event.record(&gpu.stream).call("cuEventRecord")
    }

    /// Queues a copy of `len` bytes from byte `at` of `src` into the first `len` bytes.
    pub fn download<T: bytemuck::Pod>(
        &mut self,
        gpu: &Gpu,
        src: &DeviceBuffer<T>,
        at: usize,
        len: usize,
    ) -> Result<()> {
        let src_ptr = src.byte_range(at, len, self.len)?;
        gpu.ctx.bind_to_thread().call("cuCtxSetCurrent")?;
        // SAFETY: as in `upload`.
        unsafe {
            let dst = std::slice::from_raw_parts_mut(self.ptr, len);
            cudarc::driver::result::memcpy_dtoh_async(dst, src_ptr, gpu.stream.cu_stream())
                .call("cuMemcpyDtoHAsync")?;
        }
        self.event.record(&gpu.stream).call("cuEventRecord")
    }
}

impl Drop for PinnedBuffer {
    fn drop(&mut self) {
        let _ = self.event.synchronize();
        let _ = self.ctx.bind_to_thread();
        let _ = unsafe { cudarc::driver::result::free_host(self.ptr as *mut std::ffi::c_void) };
    }
}

/// Loads the kernel module: PTX from `SORT_PTX_FILE` (experiments comparing kernel
/// builds with one binary), else the embedded cubin for this GPU (no JIT wait), else
/// the embedded PTX. `SORT_FORCE_PTX=1` skips the cubins (to compare the driver's JIT
/// with the build-time ptxas).
fn load_kernels(ctx: &Arc<CudaContext>, cc: (i32, i32)) -> Result<(Arc<CudaModule>, ModuleSource)> {
    use cudarc::nvrtc::Ptx;
    let (code, source) = if let Some(path) = std::env::var_os("SORT_PTX_FILE") {
        let text = std::fs::read_to_string(&path).map_err(|e| Error::Io {
            context: format!("reading SORT_PTX_FILE {}", std::path::Path::new(&path).display()),
            source: e,
        })?;
        (Ptx::from_src(text), ModuleSource::PtxFile(std::path::Path::new(&path).display().to_string()))
    } else {
        let force_ptx = std::env::var_os("SORT_FORCE_PTX").is_some_and(|v| v != "0");
        match pick_cubin(cc, CUBINS).filter(|_| !force_ptx) {
            Some((major, minor, cubin)) => (Ptx::from_binary(cubin.to_vec()), ModuleSource::Cubin(major, minor)),
            None => (Ptx::from_src(PTX), ModuleSource::Ptx),
        }
    };
    crate::trace::mark("gpu: module chosen");
    let module = ctx.load_module(code).call(match source {
        ModuleSource::Cubin(..) => "cuModuleLoadData (loading the kernels' cubin)",
        _ => "cuModuleLoadData (loading the kernels' PTX)",
    })?;
    crate::trace::mark("gpu: module loaded");
    Ok((module, source))
}

/// Whether a module loaded from `source` may launch kernels as programmatic
/// dependents: only the sm_90 cubin (built from `xtask::ptx::for_sm90`) has the
/// dependency waits; `SORT_PDL=0` turns dependent launches off (to measure them).
fn dependent_launches(source: &ModuleSource) -> bool {
    matches!(source, ModuleSource::Cubin(major, _) if *major >= 9)
        && !std::env::var_os("SORT_PDL").is_some_and(|v| v == "0")
}

/// Blocks per cluster of kernel `name`: from [`kernels::mergepath::CLUSTER_KERNELS`],
/// 1 (no cluster) for every other kernel.
#[doc(hidden)]
pub fn kernel_cluster_ctas(name: &str) -> u32 {
    kernels::mergepath::CLUSTER_KERNELS.iter().find(|k| k.0 == name).map_or(1, |k| k.1)
}

fn keep_pool_memory(ctx: &CudaContext) {
    use cudarc::driver::sys;
    unsafe {
        let mut pool: sys::CUmemoryPool = std::ptr::null_mut();
        if sys::cuDeviceGetDefaultMemPool(&mut pool, ctx.cu_device()) == CUresult::CUDA_SUCCESS {
            let mut threshold = u64::MAX;
            let _ = sys::cuMemPoolSetAttribute(
                pool,
                sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                (&mut threshold as *mut u64).cast(),
            );
        }
    }
}

/// Returns the memory cached in the device's default pool to the driver.
fn trim_pool_memory(ctx: &CudaContext) {
    use cudarc::driver::sys;
    unsafe {
        let mut pool: sys::CUmemoryPool = std::ptr::null_mut();
        if sys::cuDeviceGetDefaultMemPool(&mut pool, ctx.cu_device()) == CUresult::CUDA_SUCCESS {
            let _ = sys::cuMemPoolTrimTo(pool, 0);
        }
    }
}

/// A `cuMemAlloc` allocation ([`Gpu::alloc_plain`]), freed on drop.
pub(crate) struct PlainAlloc<'a> {
    gpu: &'a Gpu,
    pub ptr: u64,
}

impl Drop for PlainAlloc<'_> {
    fn drop(&mut self) {
        let _ = self.gpu.synchronize("freeing");
        if self.gpu.ctx.bind_to_thread().is_ok() {
            // SAFETY: `ptr` came from `cuMemAlloc` in this context and is freed once.
            let _ = unsafe { cudarc::driver::result::free_sync(self.ptr) };
        }
    }
}

/// Elements of type `T` in device memory, owned. Kernels receive its address as a
/// plain `u64` ([`DeviceBuffer::ptr`]).
pub struct DeviceBuffer<T> {
    raw: CudaSlice<u8>,
    len: usize,
    _elem: PhantomData<T>,
}

impl<T: bytemuck::Pod> DeviceBuffer<T> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Takes over a cudarc device slice without copying it (the library then owns
    /// and frees the memory). The slice must belong to `gpu`'s context
    /// ([`Error::BadArgument`] otherwise); work queued on the slice's own stream is
    /// ordered before the library's (a stream wait, not a host wait).
    pub fn from_cuda_slice(gpu: &Gpu, slice: CudaSlice<T>) -> Result<DeviceBuffer<T>> {
        if slice.context().cu_ctx() != gpu.ctx.cu_ctx() {
            return Err(Error::BadArgument(format!(
                "the device buffer belongs to another CUDA context (device {}) than the sorter's (device {})",
                slice.ordinal(),
                gpu.info.ordinal
            )));
        }
        if slice.stream().cu_stream() != gpu.stream.cu_stream() {
            gpu.stream.join(slice.stream()).call("cuStreamWaitEvent")?;
        }
        let len = slice.len();
        let bytes = len * size_of::<T>();
        if bytes == 0 {
            return gpu.alloc(0);
        }
        let ptr = slice.leak();
        // SAFETY: `ptr` is the leaked allocation of `bytes` bytes, now owned here.
        let raw = unsafe { gpu.stream.upgrade_device_ptr::<u8>(ptr, bytes) };
        Ok(DeviceBuffer { raw, len, _elem: PhantomData })
    }

    /// Gives the memory back as a cudarc slice, without copying (on the library's
    /// stream; the sort's queued work is ordered before anything the caller queues
    /// on that stream).
    pub fn into_cuda_slice(self) -> CudaSlice<T> {
        let stream = self.raw.stream().clone();
        let len = self.len;
        let ptr = self.raw.leak();
        // SAFETY: the allocation holds at least `len` elements of `T` (zero-length
        // buffers keep a 1-byte allocation, and a 0-element slice reads nothing).
        unsafe { stream.upgrade_device_ptr::<T>(ptr, len) }
    }

    /// Shortens the buffer to its first `len` elements (no effect if it is not
    /// longer); the allocation is kept. For results whose length is known only once
    /// the device has computed it.
    pub fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    /// Device address of the first element.
    pub fn ptr(&self) -> u64 {
        let (p, _sync) = self.raw.device_ptr(self.raw.stream());
        p
    }

    /// The buffer as a kernel parameter.
    pub fn dev_ptr(&self) -> DevPtr<T> {
        DevPtr::from_addr(self.ptr())
    }

    /// Device address of element `i` (may be one past the end).
    pub fn ptr_at(&self, i: usize) -> u64 {
        self.ptr() + (i * size_of::<T>()) as u64
    }

    pub fn copy_from_host(&mut self, gpu: &Gpu, data: &[T]) -> Result<()> {
        if data.len() != self.len {
            return Err(Error::BadArgument(format!(
                "copying {} elements into a device buffer of {}",
                data.len(),
                self.len
            )));
        }
        if self.len > 0 {
            let bytes: &[u8] = bytemuck::cast_slice(data);
            let mut dst = self.raw.slice_mut(..bytes.len());
            gpu.stream.memcpy_htod(bytes, &mut dst).call("cuMemcpyHtoD")?;
        }
        Ok(())
    }

    pub fn copy_to_host(&self, gpu: &Gpu, out: &mut [T]) -> Result<()> {
        if out.len() != self.len {
            return Err(Error::BadArgument(format!(
                "copying a device buffer of {} elements into {}",
                self.len,
                out.len()
            )));
        }
        if self.len > 0 {
            let bytes: &mut [u8] = bytemuck::cast_slice_mut(out);
            let n = bytes.len();
            gpu.stream.memcpy_dtoh(&self.raw.slice(..n), bytes).call("cuMemcpyDtoH")?;
        }
        gpu.synchronize("device-to-host copy")
    }

    pub fn to_vec(&self, gpu: &Gpu) -> Result<Vec<T>> {
        let mut v = vec![T::zeroed(); self.len];
        self.copy_to_host(gpu, &mut v)?;
        Ok(v)
    }

    /// Copies `data` into elements `at..at + data.len()` (a prefix or window of the
    /// buffer, for work lists that change size between launches).
    pub fn write_at(&mut self, gpu: &Gpu, at: usize, data: &[T]) -> Result<()> {
        let (lo, hi) = self.byte_window(at, data.len())?;
        if hi > lo {
            let mut dst = self.raw.slice_mut(lo..hi);
            gpu.stream.memcpy_htod(bytemuck::cast_slice::<T, u8>(data), &mut dst).call("cuMemcpyHtoD")?;
        }
        Ok(())
    }

    /// Copies elements `at..at + out.len()` to `out`, waiting for queued work.
    pub fn read_at(&self, gpu: &Gpu, at: usize, out: &mut [T]) -> Result<()> {
        let (lo, hi) = self.byte_window(at, out.len())?;
        if hi > lo {
            gpu.stream
                .memcpy_dtoh(&self.raw.slice(lo..hi), bytemuck::cast_slice_mut::<T, u8>(out))
                .call("cuMemcpyDtoH")?;
        }
        gpu.synchronize("device-to-host copy")
    }

    /// Device address of bytes `at..at + len`, checked against this buffer and
    /// against a host buffer of `host_len` bytes.
    fn byte_range(&self, at: usize, len: usize, host_len: usize) -> Result<u64> {
        let bytes = self.len * size_of::<T>();
        match at.checked_add(len) {
            Some(end) if end <= bytes && len <= host_len => Ok(self.ptr() + at as u64),
            _ => Err(Error::BadArgument(format!(
                "bytes {at}..{at}+{len} of a {bytes}-byte device buffer through a {host_len}-byte host buffer"
            ))),
        }
    }

    fn byte_window(&self, at: usize, len: usize) -> Result<(usize, usize)> {
        match at.checked_add(len) {
            Some(end) if end <= self.len => Ok((at * size_of::<T>(), end * size_of::<T>())),
            _ => Err(Error::BadArgument(format!(
                "elements {at}..{at}+{len} are outside a device buffer of {}",
                self.len
            ))),
        }
    }

    /// Sets every byte of the buffer to zero (queued on the stream).
    pub fn zero(&mut self, gpu: &Gpu) -> Result<()> {
        gpu.stream.memset_zeros(&mut self.raw).call("cuMemsetD8Async")
    }

    /// Sets the first `len` elements to zero (queued on the stream).
    pub fn zero_prefix(&mut self, gpu: &Gpu, len: usize) -> Result<()> {
        let (lo, hi) = self.byte_window(0, len)?;
        if hi > lo {
            gpu.stream.memset_zeros(&mut self.raw.slice_mut(lo..hi)).call("cuMemsetD8Async")?;
        }
        Ok(())
    }

    /// Device-to-device copy of all of `src` into `self` (same length).
    pub fn copy_from_device(&mut self, gpu: &Gpu, src: &DeviceBuffer<T>) -> Result<()> {
        if src.len != self.len {
            return Err(Error::BadArgument("device copy between buffers of different lengths".into()));
        }
        if self.len > 0 {
            let n = self.len * size_of::<T>();
            gpu.stream.memcpy_dtod(&src.raw.slice(..n), &mut self.raw.slice_mut(..n)).call("cuMemcpyDtoD")?;
        }
        Ok(())
    }
}

impl<T: bytemuck::Pod> DeviceBuffer<T> {
    /// Copies `len` elements of `src` from element `from` to element `at` of this
    /// buffer (stream-ordered, device to device).
    pub fn copy_range_from(
        &mut self,
        gpu: &Gpu,
        at: usize,
        src: &DeviceBuffer<T>,
        from: usize,
        len: usize,
    ) -> Result<()> {
        if at.checked_add(len).is_none_or(|e| e > self.len) || from.checked_add(len).is_none_or(|e| e > src.len) {
            return Err(Error::BadArgument(format!(
                "device copy of {len} elements from {from} of {} to {at} of {}",
                src.len, self.len
            )));
        }
        if len > 0 {
            let s = size_of::<T>();
            gpu.stream
                .memcpy_dtod(
                    &src.raw.slice(from * s..(from + len) * s),
                    &mut self.raw.slice_mut(at * s..(at + len) * s),
                )
                .call("cuMemcpyDtoD")?;
        }
        Ok(())
    }

    /// The bytes of elements `range` (for the multi-GPU exchange).
    pub(crate) fn byte_view(&self, range: std::ops::Range<usize>) -> cudarc::driver::CudaView<'_, u8> {
        let s = size_of::<T>();
        self.raw.slice(range.start * s..range.end * s)
    }

    /// The bytes of elements `range`, writable.
    pub(crate) fn byte_view_mut(&mut self, range: std::ops::Range<usize>) -> cudarc::driver::CudaViewMut<'_, u8> {
        let s = size_of::<T>();
        self.raw.slice_mut(range.start * s..range.end * s)
    }

    /// Whether the buffer lives in `gpu`'s context.
    pub(crate) fn belongs_to(&self, gpu: &Gpu) -> bool {
        self.raw.context().cu_ctx() == gpu.ctx.cu_ctx()
    }
}

impl<T> std::fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DeviceBuffer<{}>[{}]", std::any::type_name::<T>(), self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::{PDL_KERNELS, PTX, pick_cubin};

    /// The dependent-launch list comes from the sm_90 cubin's PTX: sorted (the host
    /// binary-searches it), every name an entry of the embedded PTX, and the sorts
    /// whose launch gaps matter (radix, mergepath) in it whenever that cubin is
    /// embedded (the prebuilt kernels have it).
    #[test]
    fn dependent_launch_list_is_sorted_and_names_the_hot_kernels() {
        assert!(PDL_KERNELS.windows(2).all(|w| w[0] < w[1]));
        let entries = xtask::ptx::entry_points(PTX);
        for k in PDL_KERNELS {
            assert!(entries.iter().any(|e| e == k), "{k} is not an entry of the PTX");
        }
        if super::CUBINS.iter().any(|c| c.0 >= 9) {
            for k in ["radix_hist_k32", "radix_onesweep_packed_k32_v32", "radix_copy_back", "mergepath_merge_u32"] {
                assert!(PDL_KERNELS.binary_search(&k).is_ok(), "{k} missing from PDL_KERNELS");
            }
            // Kernels without the wait must never be launched early.
            assert!(PDL_KERNELS.binary_search(&"naive_merge_pass_u32").is_err());
        }
    }

    #[test]
    fn cubins_match_by_major_version_and_not_newer_minor() {
        let (a, b, c): (&[u8], &[u8], &[u8]) = (b"80", b"86", b"90");
        let all = [(8, 0, a), (8, 6, b), (9, 0, c)];
        assert_eq!(pick_cubin((9, 0), &all).map(|x| x.2), Some(c));
        assert_eq!(pick_cubin((8, 9), &all).map(|x| x.2), Some(b));
        assert_eq!(pick_cubin((8, 0), &all).map(|x| x.2), Some(a));
        assert_eq!(pick_cubin((8, 0), &all[1..]), None);
        assert_eq!(pick_cubin((10, 0), &all), None);
        assert_eq!(pick_cubin((7, 5), &all), None);
        assert_eq!(pick_cubin((9, 0), &[]), None);
    }
}
