//! Copies between host memory and the device through page-locked staging buffers
//! ([`Stages`]): each chunk is filled (or emptied) by the CPU while the chunk before it
//! is copied by the DMA engine, so a transfer runs at the slower of the two rates
//! rather than at the driver's rate for pageable memory.
//!
//! Why: on an H200 machine (PCIe 5.0 x16, 2026-11-30, torch's copies of 1 GiB) pageable
//! memory moved 8.5 GB/s to the device and 14.4 GB/s back, page-locked memory 53.7 and
//! 55.3 GB/s, and one host thread copied memory at ~36 GB/s. The file pipeline fills
//! the buffers from the input file and empties them into the output
//! (`file_sort::pipeline`); large host slices ([`DeviceBuffer::copy_from_host`],
//! [`DeviceBuffer::copy_to_host`] from [`crate::Tuning::host_stage_min_bytes`] on) are
//! copied into and out of them on several threads.
use rayon::prelude::*;

use super::{DeviceBuffer, Gpu, PinnedBuffer};
use crate::error::Result;

/// Bytes each thread copies between a host slice and a staging buffer at a time.
const COPY_SLICE: usize = 1 << 20;

/// Page-locked staging buffers and the bytes each chunk of a transfer takes.
pub(crate) struct Stages {
    bufs: Vec<PinnedBuffer>,
    stage: usize,
}

impl Stages {
    /// `stages` buffers (at least one, no more than the chunks of `bytes`) of about
    /// `stage_bytes` (whole elements of `T`, at least one), in 2 MiB pages where the
    /// tuning says so ([`crate::Tuning::file_pin_huge`]).
    pub(crate) fn new<T>(gpu: &Gpu, stage_bytes: usize, stages: usize, bytes: usize) -> Result<Stages> {
        let stage = (stage_bytes / size_of::<T>()).max(1) * size_of::<T>();
        let bufs = (0..Self::count(stage, stages, bytes)).map(|_| pinned(gpu, stage)).collect::<Result<_>>()?;
        Ok(Stages { bufs, stage })
    }

    /// The device's kept staging buffers for a transfer of `bytes` (the tuning's size
    /// and count, [`crate::Tuning::file_stage_bytes`] and
    /// [`crate::Tuning::file_stages`]), allocating those it lacks. Pinning costs
    /// ~0.5 ms per MiB, more than a transfer of a few MiB, so they are kept with the
    /// device ([`Stages::keep`]) for the next one.
    pub(crate) fn kept(gpu: &Gpu, bytes: usize) -> Result<Stages> {
        let t = gpu.tuning();
        let stage = t.file_stage_bytes.max(1);
        let want = Self::count(stage, t.file_stages, bytes);
        let mut bufs = {
            let mut idle = gpu.stages.lock().unwrap_or_else(|p| p.into_inner());
            let at = idle.len().saturating_sub(want);
            idle.split_off(at)
        };
        while bufs.len() < want {
            bufs.push(pinned(gpu, stage)?);
        }
        Ok(Stages { bufs, stage })
    }

    /// Gives the buffers back to the device's kept ones ([`Stages::kept`]); a copy
    /// still using one is waited for by its next user.
    pub(crate) fn keep(self, gpu: &Gpu) {
        gpu.stages.lock().unwrap_or_else(|p| p.into_inner()).extend(self.bufs);
    }

    fn count(stage: usize, stages: usize, bytes: usize) -> usize {
        stages.clamp(1, bytes.div_ceil(stage).max(1))
    }

    /// The chunks of a transfer of `bytes`: `(offset, length)`.
    fn chunks(&self, bytes: usize) -> Vec<(usize, usize)> {
        (0..bytes).step_by(self.stage).map(|at| (at, self.stage.min(bytes - at))).collect()
    }
}

fn pinned(gpu: &Gpu, bytes: usize) -> Result<PinnedBuffer> {
    if gpu.tuning().file_pin_huge { PinnedBuffer::new_huge(gpu, bytes) } else { PinnedBuffer::new(gpu, bytes) }
}

/// Copies `bytes` bytes into the start of `dst` through `stages`: `fill(at, chunk)`
/// writes bytes `at..at + chunk.len()` of the source into a staging buffer while the
/// buffer before it is copied to the device. The copies are queued on the device's
/// stream, not waited for; the source is no longer needed when this returns.
pub(crate) fn upload_with<T: bytemuck::Pod>(
    gpu: &Gpu,
    dst: &mut DeviceBuffer<T>,
    bytes: usize,
    stages: &mut Stages,
    mut fill: impl FnMut(usize, &mut [u8]) -> Result<()>,
) -> Result<()> {
    let k = stages.bufs.len();
    for (i, (at, len)) in stages.chunks(bytes).into_iter().enumerate() {
        let buf = &mut stages.bufs[i % k];
        fill(at, &mut buf.host_mut()?[..len])?;
        buf.upload(gpu, len, dst, at)?;
    }
    Ok(())
}

/// Copies the first `bytes` bytes of `src` out through `stages`: `take(at, chunk)`
/// receives bytes `at..at + chunk.len()` while the next chunks are copied from the
/// device. Every copy has ended when it returns.
pub(crate) fn download_with<T: bytemuck::Pod>(
    gpu: &Gpu,
    src: &DeviceBuffer<T>,
    bytes: usize,
    stages: &mut Stages,
    mut take: impl FnMut(usize, &[u8]) -> Result<()>,
) -> Result<()> {
    let k = stages.bufs.len();
    let chunks = stages.chunks(bytes);
    let bufs = &mut stages.bufs;
    // Chunks downloaded (or queued) and not yet taken, oldest first: when every
    // buffer holds one, the oldest is taken, which frees the buffer chunk `i` uses.
    let mut pending = std::collections::VecDeque::with_capacity(k);
    let mut take_one = |j: usize, bufs: &mut Vec<PinnedBuffer>| -> Result<()> {
        let (at, len) = chunks[j];
        take(at, &bufs[j % k].host_mut()?[..len])
    };
    for (i, &(at, len)) in chunks.iter().enumerate() {
        if pending.len() == k {
            let j: usize = pending.pop_front().expect("k pending chunks");
            take_one(j, bufs)?;
        }
        bufs[i % k].download(gpu, src, at, len)?;
        pending.push_back(i);
    }
    while let Some(j) = pending.pop_front() {
        take_one(j, bufs)?;
    }
    Ok(())
}

/// [`upload_with`] of the host bytes `src` into the start of `dst` through the
/// device's kept staging buffers, each filled on several threads.
pub(super) fn upload_slice<T: bytemuck::Pod>(gpu: &Gpu, dst: &mut DeviceBuffer<T>, src: &[u8]) -> Result<()> {
    let mut stages = Stages::kept(gpu, src.len())?;
    let r = upload_with(gpu, dst, src.len(), &mut stages, |at, chunk| {
        copy_parallel(chunk, &src[at..at + chunk.len()]);
        Ok(())
    });
    stages.keep(gpu);
    r
}

/// [`download_with`] of the start of `src` into the host bytes `out` through the
/// device's kept staging buffers, each emptied on several threads.
pub(super) fn download_slice<T: bytemuck::Pod>(gpu: &Gpu, src: &DeviceBuffer<T>, out: &mut [u8]) -> Result<()> {
    let mut stages = Stages::kept(gpu, out.len())?;
    let r = download_with(gpu, src, out.len(), &mut stages, |at, chunk| {
        copy_parallel(&mut out[at..at + chunk.len()], chunk);
        Ok(())
    });
    stages.keep(gpu);
    r
}

/// `dst.copy_from_slice(src)` in slices of [`COPY_SLICE`] on the thread pool.
fn copy_parallel(dst: &mut [u8], src: &[u8]) {
    dst.par_chunks_mut(COPY_SLICE).zip(src.par_chunks(COPY_SLICE)).for_each(|(d, s)| d.copy_from_slice(s));
}
