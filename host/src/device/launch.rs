//! Launching kernels: the one typed launch ([`Gpu::launch`]), launches as
//! programmatic dependents and in clusters ([`Gpu::launch_ex`]), and the dynamic
//! shared memory a kernel is allowed ([`Gpu::set_max_dynamic_smem`]).
use cudarc::driver::{CudaFunction, DriverError, LaunchConfig};
use kernels::params::{Kernel, KernelParams};

use super::module::PDL_KERNELS;
use super::{Gpu, ModuleSource};
use crate::error::{DriverContext, Error, Result};

impl Gpu {
    /// Lets kernel `name` use up to `bytes` of dynamic shared memory (above the 48 KiB
    /// default a kernel must opt in; the device's limit is
    /// [`DeviceInfo::shared_mem_per_block_optin`]). At or below the default there is
    /// nothing to opt into and no driver call is made, so every launch site can call it.
    /// The allowance only grows: the attribute belongs to the kernel, not to a launch,
    /// so a smaller value set by another thread's sort between this call and this
    /// thread's launch would make the launch fail (the radix histogram's shared memory
    /// depends on the pass count, and the GPU tests sort from many threads at once).
    ///
    /// [`DeviceInfo::shared_mem_per_block_optin`]: super::DeviceInfo::shared_mem_per_block_optin
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
        // Function calls of the driver act in the thread's current context: another
        // GPU's, in a thread that drives several.
        self.ctx.bind_to_thread().call("cuCtxSetCurrent")?;
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
    /// the wait) and [`crate::Tuning::pdl`] is on.
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
        // SAFETY: the caller's contract.
        unsafe { self.launch_with(self.stream.cu_stream(), func, cfg, args, dependent, cluster, false) }
    }

    /// [`Gpu::launch_ex`] on the stream `hstream` of this GPU's context, and with
    /// `cooperative` as a cooperative launch (every block resident at once, or the
    /// launch fails).
    ///
    /// # Safety
    /// As for [`Gpu::launch_ex`]; `hstream` is a live stream of this GPU's context.
    #[allow(clippy::too_many_arguments)]
    unsafe fn launch_with(
        &self,
        hstream: cudarc::driver::sys::CUstream,
        func: &CudaFunction,
        cfg: cudarc::driver::LaunchConfig,
        args: &mut [*mut std::ffi::c_void],
        dependent: bool,
        cluster: u32,
        cooperative: bool,
    ) -> std::result::Result<(), DriverError> {
        use cudarc::driver::sys;
        self.ctx.bind_to_thread()?;
        // SAFETY: a zeroed attribute is valid (plain C data); the fields set below are
        // the ones each attribute id reads.
        let mut attrs: [sys::CUlaunchAttribute; 3] = unsafe { std::mem::zeroed() };
        let mut count = 0;
        if cooperative {
            attrs[count].id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
            attrs[count].value.cooperative = 1;
            count += 1;
        }
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
            hStream: hstream,
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

    /// Launches `kernel` with `params` as [`Gpu::launch`] does, but on `stream` (a
    /// stream of this GPU's context other than [`Gpu::stream`], e.g. the multi-GPU
    /// exchange's), never as a programmatic dependent nor in clusters.
    pub(crate) fn launch_on<P: KernelParams>(
        &self,
        stream: &cudarc::driver::CudaStream,
        kernel: Kernel<P>,
        cfg: LaunchConfig,
        params: &P,
    ) -> Result<()> {
        let name = kernel.name();
        let func = self.function(name)?;
        let (mut args, count) = params.arg_ptrs();
        // SAFETY: as in `Gpu::launch`; `stream` belongs to this GPU's context.
        match unsafe { self.launch_with(stream.cu_stream(), &func, cfg, &mut args[..count], false, 1, false) } {
            Ok(()) => self.after_launch(name),
            Err(source) => Err(Error::Launch { kernel: name.to_string(), source }),
        }
    }

    /// Launches `kernel` with `params` as [`Gpu::launch`] does, but as a cooperative
    /// launch: every block of the grid is resident at once (a kernel with grid-wide
    /// barriers), as the driver refuses a grid that cannot be and does not start one
    /// beside other work that would keep some of its blocks out. The grid must be at
    /// most [`Gpu::resident_blocks`]. Never a programmatic dependent. `Ok(false)`: the
    /// driver refused the grid as too large, and nothing ran. (A plain launch of the
    /// same grid measured the same on an H200, 2026-11-28.)
    pub(crate) fn launch_cooperative<P: KernelParams>(
        &self,
        kernel: Kernel<P>,
        cfg: LaunchConfig,
        params: &P,
    ) -> Result<bool> {
        use cudarc::driver::sys::CUresult;
        let name = kernel.name();
        let func = self.function(name)?;
        let (mut args, count) = params.arg_ptrs();
        // SAFETY: as in `Gpu::launch`; the caller sizes the grid by `resident_blocks`.
        match unsafe { self.launch_with(self.stream.cu_stream(), &func, cfg, &mut args[..count], false, 1, true) } {
            Ok(()) => self.after_launch(name).map(|()| true),
            Err(DriverError(CUresult::CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE)) => Ok(false),
            Err(source) => Err(Error::Launch { kernel: name.to_string(), source }),
        }
    }

    /// Blocks of `block` threads with `smem` bytes of dynamic shared memory of kernel
    /// `name` that the device holds at once (the driver's occupancy for one SM, times
    /// the SMs), after allowing the kernel that much shared memory. Asked of the
    /// driver once per kernel and size.
    pub fn resident_blocks(&self, name: &str, block: u32, smem: u32) -> Result<u32> {
        self.set_max_dynamic_smem(name, smem)?;
        let key = (name.to_string(), block, smem);
        let mut cache = self.occupancy.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(&r) = cache.get(&key) {
            return Ok(r);
        }
        let func = self.function(name)?;
        // The occupancy query reads the thread's current context, which in a thread
        // that drives several GPUs may be another GPU's (CUDA_ERROR_INVALID_CONTEXT).
        self.ctx.bind_to_thread().call("cuCtxSetCurrent")?;
        let per_sm = func
            .occupancy_max_active_blocks_per_multiprocessor(block, smem as usize, None)
            .map_err(|source| Error::Launch { kernel: name.to_string(), source })?;
        let resident = per_sm * self.info.multiprocessors;
        cache.insert(key, resident);
        Ok(resident)
    }

    /// Whether the device runs cooperative launches (`Gpu::launch_cooperative`).
    pub fn cooperative_launch(&self) -> bool {
        self.cooperative
    }

    /// Called after every launch by `Gpu::launch`: with `Tuning::sync_launches` it waits
    /// for the kernel so that a fault is reported with the kernel's name.
    pub fn after_launch(&self, kernel: &str) -> Result<()> {
        if self.tuning.sync_launches {
            self.stream.synchronize().map_err(|source| Error::Launch { kernel: kernel.to_string(), source })?;
        }
        Ok(())
    }
}

/// Blocks per cluster of kernel `name`: from [`kernels::mergepath::CLUSTER_KERNELS`],
/// 1 (no cluster) for every other kernel.
#[doc(hidden)]
pub fn kernel_cluster_ctas(name: &str) -> u32 {
    kernels::mergepath::CLUSTER_KERNELS.iter().find(|k| k.0 == name).map_or(1, |k| k.1)
}
