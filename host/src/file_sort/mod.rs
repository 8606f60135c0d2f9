//! Sorting files: the library side of `host sort`, `host check-file` and `host gen`.
//!
//! A file that fits the device's memory budget is sorted in one piece. A larger one is
//! read in chunks that fit; each chunk is sorted (on the GPU: upload, sort, download)
//! while the next one is read from disk, and the sorted chunks are merged on the CPU
//! with a parallel, stable k-way merge ([`merge`]). The output is written to a
//! temporary file beside the destination and renamed at the end, so an error never
//! leaves a partial output behind.
//!
//! The whole input and the merged output are held in host memory (twice the file
//! size when chunked); only device memory is the limit chunking works around.
pub mod check;
pub mod format;
pub mod merge;
pub(crate) mod output;
pub mod pipeline;

use std::path::Path;
use std::sync::mpsc::sync_channel;
use std::time::Instant;

pub use check::{CheckReport, check_files};
pub use format::{Format, TextElement};

use crate::atomic_file::AtomicFile;
use crate::error::{Error, Result};
use crate::{Backend, KeyType, SortOptions, Sorter, Variant};

/// Device memory a chunk may need, in multiples of its own size: the data plus the
/// scratch space the variants allocate (at most twice the data).
pub const DEVICE_BYTES_PER_CHUNK_BYTE: u64 = 3;

/// Share of the free device memory a chunked sort plans to use; the rest is headroom
/// for the driver and other processes.
const FREE_MEMORY_SHARE: f64 = 0.9;

/// Chunks below this size are not split further when the device runs out of memory.
const MIN_SPLIT_CHUNK: usize = 1 << 16;

/// What to sort and how.
#[derive(Clone, Debug)]
pub struct FileSortOptions {
    pub key_type: KeyType,
    pub format: Format,
    pub sort: SortOptions,
    /// Refuse a GPU variant that does not keep equal keys in input order.
    pub stable: bool,
    /// Device memory the sort may plan for (default: 90% of the free memory). Data
    /// needing more is sorted in chunks. On the CPU backend it bounds the chunk size
    /// the same way, so the chunked path can be exercised without a GPU.
    pub max_device_bytes: Option<u64>,
    /// Sync the output to disk before renaming it into place (durable across a power
    /// loss; the rename is atomic for readers either way). Off by default, as for
    /// `sort -o` or numpy's `tofile`: syncing 1 GiB costs the disk's write time.
    pub fsync: bool,
}

impl FileSortOptions {
    pub fn new(key_type: KeyType, format: Format) -> Self {
        FileSortOptions {
            key_type,
            format,
            sort: SortOptions::default(),
            stable: false,
            max_device_bytes: None,
            fsync: false,
        }
    }
}

/// What [`sort_file`] did.
#[derive(Clone, Debug)]
pub struct FileSortReport {
    pub elements: usize,
    /// Sorted chunks merged (1: sorted in one piece).
    pub chunks: usize,
    pub backend: Backend,
    /// Whether the file streamed through the device ([`pipeline`]): then every time
    /// below is one step's busy time, the steps overlapping (read with upload,
    /// download with write), and `sort_s` is the device sort alone.
    pub pipelined: bool,
    /// Seconds reading (and parsing) the input, not overlapped with sorting.
    pub read_s: f64,
    /// Seconds copying to the device (pipelined path; 0 otherwise).
    pub upload_s: f64,
    /// Seconds sorting chunks (transfers included, except on the pipelined path),
    /// overlapped with reading.
    pub sort_s: f64,
    /// Seconds copying back from the device (pipelined path; 0 otherwise).
    pub download_s: f64,
    /// Seconds merging sorted chunks; for binary output this includes writing the
    /// merged parts into the file (the two overlap), and `write_s` is the commit.
    pub merge_s: f64,
    pub write_s: f64,
    pub total_s: f64,
}

/// Elements per chunk for a device budget of `budget_bytes` (at least one).
pub fn chunk_len(elem_bytes: usize, budget_bytes: u64) -> usize {
    (budget_bytes / (elem_bytes as u64 * DEVICE_BYTES_PER_CHUNK_BYTE)).clamp(1, usize::MAX as u64) as usize
}

/// Sorts the elements of `input` into `output` (which may be the same file).
/// `progress` receives one line per phase.
pub fn sort_file(
    sorter: &Sorter,
    input: &Path,
    output: &Path,
    opts: &FileSortOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<FileSortReport> {
    crate::with_key_type!(opts.key_type, T => sort_file_typed::<T>(sorter, input, output, opts, progress))
}

fn check_stability(sorter: &Sorter, opts: &FileSortOptions) -> Result<()> {
    if opts.stable && sorter.gpu().is_some() && !opts.sort.variant.is_stable() {
        let stable: Vec<&str> = Variant::ALL.iter().filter(|v| v.is_stable()).map(|v| v.name()).collect();
        return Err(Error::BadArgument(format!(
            "variant `{}` is not stable; stable variants: {}",
            opts.sort.variant,
            stable.join(", ")
        )));
    }
    Ok(())
}

fn sort_file_typed<T: TextElement>(
    sorter: &Sorter,
    input: &Path,
    output: &Path,
    opts: &FileSortOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<FileSortReport> {
    let start = Instant::now();
    check_stability(sorter, opts)?;
    if opts.max_device_bytes == Some(0) {
        return Err(Error::BadArgument("the device memory budget must be positive".into()));
    }
    // Fail on a missing input or an unwritable output before any real work.
    if opts.format == Format::Binary {
        format::binary_len::<T>(input)?;
    } else {
        std::fs::metadata(input)
            .map_err(|source| Error::Io { context: format!("cannot read input {}", input.display()), source })?;
    }
    let mut out = AtomicFile::create(output)?;
    let budget = match sorter.gpu() {
        Some(gpu) => {
            let free = (gpu.free_mem_for(u64::MAX)?.0 as f64 * FREE_MEMORY_SHARE) as u64;
            opts.max_device_bytes.map_or(free, |m| m.min(free))
        }
        None => opts.max_device_bytes.unwrap_or(u64::MAX),
    };
    // Variants with a size limit get chunks within it, so any file size works.
    let variant_limit = if sorter.gpu().is_some() { opts.sort.variant.max_len() } else { u64::MAX };
    let chunk = chunk_len(size_of::<T>(), budget).min(variant_limit.clamp(1, usize::MAX as u64) as usize);
    if sorter.gpu().is_some() && opts.format == Format::Binary {
        let n = format::binary_len::<T>(input)?;
        if n > 0 && n <= chunk {
            progress(&format!("streaming {n} {} through {}", T::NAME, sorter.backend()));
            match pipeline::sort_binary_on_device::<T>(sorter, input, n, &mut out, &opts.sort) {
                Ok(t) => {
                    let w = Instant::now();
                    out.commit_with(opts.fsync)?;
                    crate::trace::mark("output renamed into place");
                    return Ok(FileSortReport {
                        elements: n,
                        chunks: 1,
                        backend: sorter.backend(),
                        pipelined: true,
                        read_s: t.read_s,
                        upload_s: t.upload_s,
                        sort_s: t.sort_s,
                        download_s: t.download_s,
                        merge_s: 0.0,
                        write_s: t.write_s + w.elapsed().as_secs_f64(),
                        total_s: start.elapsed().as_secs_f64(),
                    });
                }
                // Nothing is written yet: the chunked path below splits the work.
                Err(Error::OutOfMemory { .. }) => {
                    progress("out of device memory streaming the file; sorting in chunks")
                }
                Err(e) => return Err(e),
            }
        }
    }
    let desc = opts.sort.order.is_descending();

    let mut runs: Vec<Vec<T>> = Vec::new();
    let mut sort_s = 0.0;
    let mut sort_chunk = |piece: Vec<T>, runs: &mut Vec<Vec<T>>| -> Result<()> {
        let t = Instant::now();
        sort_splitting_on_oom(sorter, piece, &opts.sort, runs)?;
        sort_s += t.elapsed().as_secs_f64();
        Ok(())
    };
    let read_s;
    match opts.format {
        Format::Binary => {
            let mut reader = format::BinaryReader::<T>::open(input, chunk)?;
            let n = reader.remaining();
            progress(&format!(
                "reading and sorting {n} {} in chunks of up to {} on {}",
                T::NAME,
                chunk.min(n),
                sorter.backend()
            ));
            // The reader thread fetches chunk i + 1 while chunk i is being sorted.
            let t = Instant::now();
            std::thread::scope(|s| -> Result<()> {
                let (tx, rx) = sync_channel::<Result<Vec<T>>>(1);
                s.spawn(move || {
                    while let Some(piece) = reader.next_piece().transpose() {
                        let failed = piece.is_err();
                        if tx.send(piece).is_err() || failed {
                            break;
                        }
                    }
                });
                for piece in rx {
                    sort_chunk(piece?, &mut runs)?;
                }
                Ok(())
            })?;
            read_s = (t.elapsed().as_secs_f64() - sort_s).max(0.0);
        }
        Format::Text => {
            let t = Instant::now();
            let mut data = format::read_text::<T>(input)?;
            read_s = t.elapsed().as_secs_f64();
            progress(&format!(
                "read {} {} in {read_s:.2} s; sorting in chunks of up to {} on {}",
                data.len(),
                T::NAME,
                chunk.min(data.len()),
                sorter.backend()
            ));
            // Split from the back so each chunk moves out without copying the rest.
            let mut pieces = Vec::new();
            while data.len() > chunk {
                pieces.push(data.split_off(data.len() - chunk));
            }
            pieces.push(data);
            for piece in pieces.into_iter().rev() {
                sort_chunk(piece, &mut runs)?;
            }
        }
    }
    let elements: usize = runs.iter().map(Vec::len).sum();
    let chunks = runs.len().max(1);
    let t = Instant::now();
    let (merge_s, write_s) = if runs.len() > 1 && opts.format == Format::Binary {
        // Merged parts go straight to their place in the file: merging overlaps writing,
        // and no whole-output buffer is needed.
        progress(&format!("merging {} sorted chunks into {}", runs.len(), output.display()));
        merge_into_file(&runs, desc, &mut out)?;
        drop(runs);
        let merge_s = t.elapsed().as_secs_f64();
        let t = Instant::now();
        out.commit_with(opts.fsync)?;
        (merge_s, t.elapsed().as_secs_f64())
    } else {
        let sorted = if runs.len() <= 1 {
            runs.pop().unwrap_or_default()
        } else {
            progress(&format!("merging {} sorted chunks on the CPU", runs.len()));
            let refs: Vec<&[T]> = runs.iter().map(Vec::as_slice).collect();
            let mut merged = vec![T::zeroed(); elements];
            merge::merge_runs(&refs, desc, &mut merged);
            merged
        };
        drop(runs);
        let merge_s = t.elapsed().as_secs_f64();
        progress(&format!("writing {}", output.display()));
        let t = Instant::now();
        format::write_elements(&mut out, &sorted, opts.format)?;
        out.commit_with(opts.fsync)?;
        (merge_s, t.elapsed().as_secs_f64())
    };
    Ok(FileSortReport {
        elements,
        chunks,
        backend: sorter.backend(),
        pipelined: false,
        read_s,
        upload_s: 0.0,
        sort_s,
        download_s: 0.0,
        merge_s,
        write_s,
        total_s: start.elapsed().as_secs_f64(),
    })
}

/// Bytes of the merged parts [`merge_into_file`] hands to the writing threads.
const MERGE_PART_BYTES: usize = 32 << 20;

/// Merges the sorted `runs` into the binary output `out` (elements only, nothing
/// written yet): merged parts are written at their offsets from several threads.
fn merge_into_file<T: TextElement>(runs: &[Vec<T>], desc: bool, out: &mut AtomicFile) -> Result<()> {
    let refs: Vec<&[T]> = runs.iter().map(Vec::as_slice).collect();
    let bytes: usize = runs.iter().map(|r| r.len() * size_of::<T>()).sum();
    let o = output::SizedOutput::new(out, bytes, output::WriteMode::from_env(output::WriteMode::Mapped))?;
    merge::merge_runs_into(&refs, desc, MERGE_PART_BYTES, |at, part| {
        // SAFETY: the merged parts tile the output: each has its own range.
        unsafe { o.write_at(at * size_of::<T>(), bytemuck::cast_slice(part)) }
    })?;
    o.finish()
}

/// Sorts `piece` and appends it to `runs`; when the device runs out of memory (the
/// variant's scratch was larger than planned, or another process took memory) the
/// piece is halved and each half sorted as its own run.
fn sort_splitting_on_oom<T: TextElement>(
    sorter: &Sorter,
    mut piece: Vec<T>,
    opts: &SortOptions,
    runs: &mut Vec<Vec<T>>,
) -> Result<()> {
    match sorter.sort(&mut piece, opts) {
        Ok(_) => {
            runs.push(piece);
            Ok(())
        }
        Err(Error::OutOfMemory { .. }) if piece.len() >= 2 * MIN_SPLIT_CHUNK => {
            let back = piece.split_off(piece.len() / 2);
            sort_splitting_on_oom(sorter, piece, opts, runs)?;
            sort_splitting_on_oom(sorter, back, opts, runs)
        }
        Err(e) => Err(e),
    }
}

/// Writes `n` generated elements to `output` (for `host gen`).
pub fn generate_file(
    output: &Path,
    key_type: KeyType,
    format: Format,
    n: usize,
    dist: crate::Distribution,
    seed: u64,
) -> Result<()> {
    crate::with_key_type!(key_type, T => {
        let mut out = AtomicFile::create(output)?;
        let data: Vec<T> = crate::inputs::generate(n, dist, seed);
        format::write_elements(&mut out, &data, format)?;
        out.commit()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_length_follows_the_budget() {
        assert_eq!(chunk_len(4, 1200), 100);
        assert_eq!(chunk_len(20, 1), 1);
        assert_eq!(chunk_len(8, u64::MAX), (u64::MAX / 24) as usize);
    }
}
