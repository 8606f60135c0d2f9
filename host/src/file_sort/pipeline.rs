//! The file sort's fast path for a binary file that fits the device: the file streams
//! through a few pinned staging buffers straight into device memory (reading chunk
//! `i + 1` while chunk `i` is copied), the device sorts it in place, and the result
//! streams back the same way into the output file (writing chunk `i` while chunk
//! `i + 1` is copied). No whole-file host buffer, no pageable copies, and the reads and
//! writes are spread over threads (the reads positioned, the writes copies into the
//! mapped output, [`SizedOutput`]), so page-cache bandwidth rather than one thread's
//! `read`/`write` is the limit.
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::time::Instant;

use rayon::prelude::*;

use super::output::{IO_SLICE, SizedOutput, WriteMode};
use crate::atomic_file::AtomicFile;
use crate::device::{download_with, seconds_between, timing_event, upload_with};
use crate::error::{Error, Result};
use crate::{DeviceBuffer, Element, Gpu, SortOptions, Sorter};

/// Busy times of each step (seconds), besides the wall time of the whole sort.
#[derive(Clone, Copy, Debug, Default)]
pub struct PipelineTimes {
    /// Reading the input into the pinned buffers.
    pub read_s: f64,
    /// Copying to the device.
    pub upload_s: f64,
    /// The device sort.
    pub sort_s: f64,
    /// Copying back from the device.
    pub download_s: f64,
    /// Writing the output from the pinned buffers.
    pub write_s: f64,
}

/// Sorts the `n` elements of the binary file `input` on the device and writes them to
/// `out` (not committed). [`Error::OutOfMemory`] comes before anything is written, so
/// the caller can fall back to the chunked path. `host_budget` is the host memory the
/// sort may hold: an output larger than it is written with positioned writes rather
/// than through a mapping, whose pages would count as the process's resident memory.
pub fn sort_binary_on_device<T: Element>(
    sorter: &Sorter,
    input: &Path,
    n: usize,
    out: &mut AtomicFile,
    opts: &SortOptions,
    host_budget: u64,
) -> Result<PipelineTimes> {
    // Bytes per staging buffer and buffers in flight: `Tuning::file_stage_bytes` and
    // `Tuning::file_stages` (which say why 4 x 16 MiB).
    let tuning = sorter.tuning();
    sort_binary_staged::<T>(sorter, input, n, out, opts, tuning.file_stage_bytes, tuning.file_stages, host_budget)
}

/// [`sort_binary_on_device`] with `stages` staging buffers of about `stage_bytes`
/// (whole elements, at least one): small ones let tests cover many chunks.
#[allow(clippy::too_many_arguments)]
pub fn sort_binary_staged<T: Element>(
    sorter: &Sorter,
    input: &Path,
    n: usize,
    out: &mut AtomicFile,
    opts: &SortOptions,
    stage_bytes: usize,
    stages: usize,
    host_budget: u64,
) -> Result<PipelineTimes> {
    let gpu = sorter.gpu().ok_or_else(|| Error::NoDevice("the file pipeline needs a GPU".into()))?;
    let mut times = PipelineTimes::default();
    let bytes = n * size_of::<T>();
    crate::trace::mark("pipeline: start");
    // A mapped output's pages are resident until written back: past the host budget
    // (10 GiB through `--memory 4G` peaked at 10.2 GiB resident, H100 machine,
    // 2026-11-27) the output goes out by positioned writes instead.
    let mode = if bytes as u64 <= host_budget { WriteMode::Mapped } else { WriteMode::Positioned };
    let mut output = SizedOutput::new(out, bytes, WriteMode::tuned(sorter.tuning(), mode))?;
    crate::trace::mark(if output.is_mapped() { "pipeline: output mapped" } else { "pipeline: output sized" });
    let mut dev = gpu.alloc::<T>(n)?;
    crate::trace::mark("pipeline: device buffer");
    let mut stages = Stages::new::<T>(gpu, stage_bytes, stages, bytes)?;
    crate::trace::mark("pipeline: pinned buffers");
    // The output's pages are faulted in on other threads while the input is read and
    // sorted, so that writing it is a parallel copy (started after the pinning, whose
    // `mmap`s would wait for the faults' address-space lock).
    output.populate_in_background(sorter.tuning().file_populate_threads);
    let file = File::open(input)
        .map_err(|source| Error::Io { context: format!("cannot read input {}", input.display()), source })?;

    let up_start = timing_event(gpu.stream())?;
    times.read_s = upload_file(gpu, &file, input, 0, &mut dev, bytes, &mut stages)?;
    let up_end = timing_event(gpu.stream())?;
    crate::trace::mark("pipeline: read, uploads queued");
    sorter.sort_device(&mut dev, opts)?;
    let sort_end = timing_event(gpu.stream())?;
    times.write_s = download_into(gpu, &dev, bytes, &output, 0, &mut stages)?;
    let down_end = timing_event(gpu.stream())?;
    gpu.synchronize("the file pipeline")?;
    crate::trace::mark("pipeline: written");
    let t = Instant::now();
    output.finish()?;
    times.write_s += t.elapsed().as_secs_f64();
    crate::trace::mark("pipeline: output unmapped");
    times.upload_s = seconds_between(&up_start, &up_end)?;
    times.sort_s = seconds_between(&up_end, &sort_end)?;
    times.download_s = seconds_between(&sort_end, &down_end)?;
    Ok(times)
}

pub(crate) use crate::device::Stages;

/// Copies `bytes` bytes of `file` (named `path` in errors) from byte `from` into the
/// start of `dev` through `stages`: each buffer is read (positioned reads on several
/// threads) while the one before is copied to the device. Returns the seconds spent
/// reading. The copies are queued on the device's stream, not waited for.
pub(crate) fn upload_file<T: bytemuck::Pod>(
    gpu: &Gpu,
    file: &File,
    path: &Path,
    from: u64,
    dev: &mut DeviceBuffer<T>,
    bytes: usize,
    stages: &mut Stages,
) -> Result<f64> {
    let mut read_s = 0.0;
    upload_with(gpu, dev, bytes, stages, |at, chunk| {
        let t = Instant::now();
        read_at_parallel(file, from + at as u64, chunk)
            .map_err(|source| Error::Io { context: format!("reading {}", path.display()), source })?;
        read_s += t.elapsed().as_secs_f64();
        Ok(())
    })?;
    Ok(read_s)
}

/// Copies the first `bytes` bytes of `dev` into `output` from its byte `to` through
/// `stages`: each buffer is written out while the next one is copied from the device.
/// Returns the seconds spent writing; every copy has ended when it returns. Calls on
/// other threads may write other ranges of the same output at the same time.
pub(crate) fn download_into<T: bytemuck::Pod>(
    gpu: &Gpu,
    dev: &DeviceBuffer<T>,
    bytes: usize,
    output: &SizedOutput<'_>,
    to: usize,
    stages: &mut Stages,
) -> Result<f64> {
    let mut write_s = 0.0;
    download_with(gpu, dev, bytes, stages, |at, chunk| {
        let t = Instant::now();
        // SAFETY: one chunk at a time, each to its own range (the caller's ranges of
        // concurrent calls are disjoint).
        unsafe { output.write_at(to + at, chunk)? };
        write_s += t.elapsed().as_secs_f64();
        Ok(())
    })?;
    Ok(write_s)
}

/// Fills `buf` from `file` at `offset`, slices of [`IO_SLICE`] on several threads.
fn read_at_parallel(file: &File, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
    buf.par_chunks_mut(IO_SLICE)
        .enumerate()
        .try_for_each(|(j, piece)| file.read_exact_at(piece, offset + (j * IO_SLICE) as u64))
}
