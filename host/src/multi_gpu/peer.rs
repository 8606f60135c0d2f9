//! The exchange by the GPUs' copy engines: `cuMemcpyPeerAsync` from each GPU's sorted
//! part straight into the other GPUs' receive buffers over NVLink. The copy engines use
//! no SMs, so a GPU merges one chunk while the next one arrives, where NCCL's kernels
//! would take SMs and HBM from the merge (measured: NCCL beside a local sort slowed it
//! 5.3 -> 6.3 ms).
//!
//! Every buffer involved comes from the devices' default memory pools (the sort's
//! `Gpu::alloc`): context peer access alone does not cover pool memory (a copy of it
//! is staged through the host, ~48 GB/s measured), so each pool also grants the other
//! GPUs read and write access (`cuMemPoolSetAccess`).
use std::sync::Arc;

use cudarc::driver::sys::{self, CUresult};
use cudarc::driver::{CudaEvent, CudaStream};

use crate::device::Gpu;
use crate::error::{DriverContext as _, Error, Result};

/// Peer access between every pair of GPUs and one copy stream per ordered pair.
pub(super) struct PeerLinks {
    /// `streams[i][j]`: GPU `i`'s stream for its copies to GPU `j` (`None` for `i ==
    /// j`). One stream per destination lets the copy engines drive every link at once.
    streams: Vec<Vec<Option<Arc<CudaStream>>>>,
}

impl PeerLinks {
    /// Enables peer access between every pair of `gpus` (contexts and memory pools)
    /// and creates the copy streams. [`Error::NoDevice`] when two of the GPUs cannot
    /// reach each other directly.
    pub(super) fn open(gpus: &[Gpu]) -> Result<PeerLinks> {
        for (i, a) in gpus.iter().enumerate() {
            for (j, b) in gpus.iter().enumerate() {
                if i == j {
                    continue;
                }
                if !can_access_peer(a, b)? {
                    return Err(Error::NoDevice(format!(
                        "GPU {} cannot reach GPU {} directly (no peer-to-peer path)",
                        a.info().ordinal,
                        b.info().ordinal
                    )));
                }
                a.enable_peer_access(b)?;
                grant_pool_access(a, b)?;
            }
        }
        let streams = (0..gpus.len())
            .map(|i| {
                (0..gpus.len())
                    .map(|j| if i == j { Ok(None) } else { gpus[i].high_priority_stream().map(Some) })
                    .collect::<Result<Vec<_>>>()
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(PeerLinks { streams })
    }

    /// GPU `i`'s copy stream to GPU `j` (`i != j`).
    pub(super) fn stream(&self, i: usize, j: usize) -> &Arc<CudaStream> {
        self.streams[i][j].as_ref().expect("no copy stream from a GPU to itself")
    }

    /// Makes every copy stream of GPU `i` wait for the work queued so far on the main
    /// streams of `i` and of the destination.
    pub(super) fn after_main(&self, gpus: &[Gpu]) -> Result<()> {
        for (i, a) in gpus.iter().enumerate() {
            for (j, b) in gpus.iter().enumerate().filter(|&(j, _)| j != i) {
                let s = self.stream(i, j);
                s.join(a.stream()).call("cuStreamWaitEvent")?;
                s.join(b.stream()).call("cuStreamWaitEvent")?;
            }
        }
        Ok(())
    }

    /// Queues the copy of `bytes` bytes from `src` on GPU `i` to `dst` on GPU `j`
    /// on the copy stream `(i, j)`.
    pub(super) fn copy(&self, gpus: &[Gpu], i: usize, j: usize, dst: u64, src: u64, bytes: usize) -> Result<()> {
        if bytes == 0 {
            return Ok(());
        }
        let s = self.stream(i, j);
        s.context().bind_to_thread().call("cuCtxSetCurrent")?;
        // SAFETY: the callers pass addresses inside live buffers of these contexts,
        // kept alive until the stream has been synchronized.
        unsafe { sys::cuMemcpyPeerAsync(dst, gpus[j].cu_ctx(), src, gpus[i].cu_ctx(), bytes, s.cu_stream()).result() }
            .call("cuMemcpyPeerAsync")
    }

    /// Queues a kernel of GPU `i` that stores the `bytes` bytes (a multiple of 4) at
    /// `src` on GPU `i` into `dst` on GPU `j` (`kernels::peer`), on the copy stream
    /// `(i, j)`: a grid of two blocks an SM shared by the `p - 1` destinations, whose
    /// kernels run at once.
    pub(super) fn store(&self, gpus: &[Gpu], i: usize, j: usize, dst: u64, src: u64, bytes: u64) -> Result<()> {
        if bytes == 0 {
            return Ok(());
        }
        if !bytes.is_multiple_of(4) {
            return Err(Error::BadArgument(format!("a peer store moves whole 4-byte words, not {bytes} bytes")));
        }
        let words = bytes / 4;
        let gpu = &gpus[i];
        let peers = (gpus.len() - 1).max(1) as u64;
        // Words one block moves per step: UNROLL vectors of four words a thread.
        let per_step = kernels::peer::UNROLL * 4 * kernels::peer::BLOCK as u64;
        let grid = (2 * gpu.info().multiprocessors as u64 / peers).clamp(1, words.div_ceil(per_step).max(1));
        let cfg = cudarc::driver::LaunchConfig {
            grid_dim: (grid as u32, 1, 1),
            block_dim: (kernels::peer::BLOCK, 1, 1),
            shared_mem_bytes: 0,
        };
        let p = kernels::peer::PeerStore {
            src: kernels::params::DevPtr::from_addr(src),
            dst: kernels::params::DevPtr::from_addr(dst),
            words,
        };
        gpu.launch_on(self.stream(i, j), kernels::peer::peer_store_words, cfg, &p)
    }

    /// An event marking the copies queued so far from GPU `i` to GPU `j`.
    pub(super) fn mark(&self, i: usize, j: usize) -> Result<CudaEvent> {
        crate::device::timing_event(self.stream(i, j))
    }

    /// Waits for every copy stream; the first failure is the error (the others are
    /// still waited for, so no copy outlives the buffers it reads or writes).
    pub(super) fn synchronize(&self) -> Result<()> {
        let mut first = Ok(());
        for s in self.streams.iter().flatten().flatten() {
            let r = s.synchronize().map_err(|source| Error::Launch { kernel: "a peer copy".into(), source });
            if first.is_ok() {
                first = r;
            }
        }
        first
    }
}

fn device(gpu: &Gpu) -> Result<sys::CUdevice> {
    let mut dev: sys::CUdevice = 0;
    // SAFETY: writes one device handle.
    unsafe { sys::cuDeviceGet(&mut dev, gpu.info().ordinal as i32).result() }.call("cuDeviceGet")?;
    Ok(dev)
}

fn can_access_peer(a: &Gpu, b: &Gpu) -> Result<bool> {
    let mut can = 0;
    // SAFETY: writes one int.
    unsafe { sys::cuDeviceCanAccessPeer(&mut can, device(a)?, device(b)?).result() }.call("cuDeviceCanAccessPeer")?;
    Ok(can != 0)
}

/// Lets `peer` read and write memory from `owner`'s default pool (where the sort's
/// buffers come from).
fn grant_pool_access(owner: &Gpu, peer: &Gpu) -> Result<()> {
    let mut pool: sys::CUmemoryPool = std::ptr::null_mut();
    // SAFETY: writes one pool handle.
    match unsafe { sys::cuDeviceGetDefaultMemPool(&mut pool, device(owner)?) } {
        CUresult::CUDA_SUCCESS => {}
        other => {
            return Err(Error::NoDevice(format!(
                "GPU {} has no memory pool for peer access: {other:?}",
                owner.info().ordinal
            )));
        }
    }
    let desc = sys::CUmemAccessDesc {
        location: sys::CUmemLocation {
            type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
            id: peer.info().ordinal as i32,
        },
        flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
    };
    // SAFETY: one descriptor, read during the call.
    unsafe { sys::cuMemPoolSetAccess(pool, &desc, 1).result() }.call("cuMemPoolSetAccess")
}
