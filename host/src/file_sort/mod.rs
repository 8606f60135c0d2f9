//! Sorting files: the library side of `host sort`, `host check-file` and `host gen`.
//!
//! Inputs and outputs are paths or standard streams ([`Input`], [`Output`]). A regular
//! file is read with positioned reads on several threads; anything else (pipes, FIFOs,
//! devices) is read sequentially to its end. The output is written to a temporary
//! file beside the destination and renamed at the end, so an error never leaves a
//! partial output behind; streams and devices are written in place
//! ([`AtomicFile`]).
//!
//! Memory is bounded twice. On the device: a file that fits is sorted in one piece
//! (a binary file streams through pinned buffers); a larger one is read
//! in chunks that fit, each sorted while the next is read. On the host: while the
//! sorted chunks fit the host memory budget ([`FileSortOptions::memory`]) they stay in
//! memory and are merged straight into the output by a parallel, stable k-way merge
//! beyond it every sorted chunk is written to a temporary run file and
//! the runs are merged with bounded buffers, like GNU sort. The result is
//! the same either way, bit for bit: ties go to the earlier chunk, which keeps a
//! stable sort stable. An input larger than the budget and the temporary disk space
//! together (an endless stream) fails with [`Error::TooLarge`] and writes nothing.
pub(crate) mod budget;
mod check;
pub(crate) mod format;
pub(crate) mod merge;
pub(crate) mod output;
pub(crate) mod pipeline;
mod progress;
pub(crate) mod runs;
pub(crate) mod source;
mod wide;

use std::path::{Path, PathBuf};
use std::sync::mpsc::{RecvTimeoutError, sync_channel};
use std::time::{Duration, Instant};

pub use check::{CheckReport, check_files};
pub use format::{Format, TextElement, TextLosses};
pub use output::WriteMode;
pub use progress::{Phase, Progress};
pub use source::{Input, Output};

pub use crate::atomic_file::{AtomicFile, clean_up_on_signals, write_atomic};
use crate::error::{Error, Result};
use crate::{Backend, Distribution, KeyType, SortOptions, Sorter, Variant};
use progress::Counter;
use runs::{RunFile, Spill};
use source::ElementReader;

/// Device memory a chunk may need, in multiples of its own size: the data plus the
/// scratch space the variants allocate (at most twice the data).
pub const DEVICE_BYTES_PER_CHUNK_BYTE: u64 = 3;

/// Share of the free device memory a chunked sort plans to use; the rest is headroom
/// for the driver and other processes.
const FREE_MEMORY_SHARE: f64 = 0.9;

/// Chunks below this size are not split further when the device runs out of memory.
const MIN_SPLIT_CHUNK: usize = 1 << 16;

/// Bytes of output written at a time when there is nothing to merge (progress is
/// reported between them).
const WRITE_BLOCK: usize = 256 << 20;

/// What to sort and how.
#[derive(Clone, Debug)]
pub struct FileSortOptions {
    /// Element type of the input (and output).
    pub key_type: KeyType,
    /// How the input is read and the output written (binary or text).
    pub format: Format,
    /// Variant, order, block size and key bits of each sort.
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
    /// Host memory the sort may use for its buffers (default: half of what the
    /// machine, the cgroup and `RLIMIT_AS`/`RLIMIT_DATA` leave). Past it,
    /// sorted chunks go to temporary files.
    pub memory: Option<u64>,
    /// Directory of the temporary run files (default: `TMPDIR` if set, else the
    /// output's directory; for standard output the system's temporary directory).
    pub temp_dir: Option<PathBuf>,
    /// Temporary disk space the run files may take (default: the free space of their
    /// file system less a reserve, halved when the output is on the same one).
    pub max_temp_bytes: Option<u64>,
}

impl FileSortOptions {
    /// Sorts `key_type` elements in `format` with the default [`SortOptions`], no
    /// stability required, and the default memory, disk and durability limits.
    pub fn new(key_type: KeyType, format: Format) -> Self {
        FileSortOptions {
            key_type,
            format,
            sort: SortOptions::default(),
            stable: false,
            max_device_bytes: None,
            fsync: false,
            memory: None,
            temp_dir: None,
            max_temp_bytes: None,
        }
    }

    /// The host memory budget in force.
    pub fn memory_budget(&self) -> u64 {
        self.memory.unwrap_or_else(budget::default_memory_budget)
    }
}

/// What [`sort_file`] did.
#[derive(Clone, Debug)]
pub struct FileSortReport {
    /// Elements sorted.
    pub elements: usize,
    /// Sorted chunks merged (1: sorted in one piece).
    pub chunks: usize,
    /// Where the sorts ran.
    pub backend: Backend,
    /// Whether the file streamed through the device (pinned buffers, one sort): then every time
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
    /// Seconds writing the output, beyond what `merge_s` includes.
    pub write_s: f64,
    /// Seconds of the whole sort, by the wall clock.
    pub total_s: f64,
    /// Sorted chunks written to temporary run files (0: everything stayed in memory).
    pub spilled_runs: usize,
    /// Most bytes the run files took at one time.
    pub temp_bytes: u64,
}

/// Elements per chunk for a device budget of `budget_bytes` (at least one).
pub fn chunk_len(elem_bytes: usize, budget_bytes: u64) -> usize {
    (budget_bytes / (elem_bytes as u64 * DEVICE_BYTES_PER_CHUNK_BYTE)).clamp(1, usize::MAX as u64) as usize
}

/// Sorts the elements of `input` into `output` (which may be the same file): paths
/// (`&Path`, `&PathBuf`) or [`Input`] / [`Output`] values. `progress` receives one
/// line per phase.
pub fn sort_file(
    sorter: &Sorter,
    input: impl Into<Input>,
    output: impl Into<Output>,
    opts: &FileSortOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<FileSortReport> {
    let mut messages = progress;
    sort_stream(sorter, &input.into(), &output.into(), opts, &mut messages)
}

/// [`sort_file`] with the progress of each phase reported ([`Progress`]).
pub fn sort_stream(
    sorter: &Sorter,
    input: &Input,
    output: &Output,
    opts: &FileSortOptions,
    progress: &mut dyn Progress,
) -> Result<FileSortReport> {
    crate::with_key_type!(opts.key_type, T => sort_typed::<T>(sorter, input, output, opts, progress),
        wide W => wide::sort::<W>(sorter, input, output, opts, progress))
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

/// The budgets a sort of pieces works within.
struct Limits {
    /// Host memory, bytes.
    memory: u64,
    temp_dir: PathBuf,
    max_temp_bytes: Option<u64>,
}

impl Limits {
    fn new(memory: u64, temp_dir: Option<&Path>, max_temp_bytes: Option<u64>, out: &AtomicFile) -> Limits {
        let temp_dir = temp_dir
            .map(Path::to_path_buf)
            .or_else(|| std::env::var_os("TMPDIR").filter(|v| !v.is_empty()).map(PathBuf::from))
            .or_else(|| out.directory().map(Path::to_path_buf))
            .unwrap_or_else(std::env::temp_dir);
        Limits { memory, temp_dir, max_temp_bytes }
    }

    /// Where runs go; their default space is halved when the output's temporary file
    /// is on the same file system (both take the data's size at once).
    fn spill(&self, out: &AtomicFile) -> Spill {
        use std::os::unix::fs::MetadataExt;
        let dev = |p: &Path| std::fs::metadata(p).map(|m| m.dev()).ok();
        let same = out.directory().is_some_and(|d| dev(d).is_some() && dev(d) == dev(&self.temp_dir));
        Spill::new(self.temp_dir.clone(), self.max_temp_bytes, same)
    }
}

/// The chunk length and whether sorted chunks go to run files from the start.
/// `device_chunk`: the most the device (or the variant) takes at once.
fn plan(n: Option<usize>, elem: u64, memory: u64, device_chunk: usize, gpu: bool) -> (usize, bool) {
    // In flight on the host: the piece being sorted, the next one being read and (CPU)
    // the sort's scratch.
    let host_chunk = (memory / (elem * if gpu { 2 } else { 3 })).clamp(1, usize::MAX as u64) as usize;
    match n {
        Some(n) => {
            let s = n as u64 * elem;
            let c = device_chunk.min(n.max(1));
            let need = if n <= c { if gpu { s } else { 2 * s } } else { s + if gpu { 1 } else { 2 } * c as u64 * elem };
            if need <= memory { (c, false) } else { (device_chunk.min(host_chunk), true) }
        }
        None => (device_chunk.min(host_chunk), false),
    }
}

fn sort_typed<T: TextElement>(
    sorter: &Sorter,
    input: &Input,
    output: &Output,
    opts: &FileSortOptions,
    progress: &mut dyn Progress,
) -> Result<FileSortReport> {
    let start = Instant::now();
    check_stability(sorter, opts)?;
    if opts.max_device_bytes == Some(0) {
        return Err(Error::BadArgument("the device memory budget must be positive".into()));
    }
    let memory = budget::host_memory(opts.memory)?;
    // Fail on a missing input or an unwritable output before any real work.
    let mut reader = ElementReader::<T>::open(input, opts.format)?;
    let mut out = output.create()?;
    let device_budget = match sorter.gpu() {
        Some(gpu) => {
            let free = (gpu.free_mem_for(u64::MAX)?.0 as f64 * FREE_MEMORY_SHARE) as u64;
            opts.max_device_bytes.map_or(free, |m| m.min(free))
        }
        None => opts.max_device_bytes.unwrap_or(u64::MAX),
    };
    // Variants with a size limit get chunks within it, so any file size works.
    let variant_limit = if sorter.gpu().is_some() { opts.sort.variant.max_len() } else { u64::MAX };
    let device_chunk = chunk_len(size_of::<T>(), device_budget).min(variant_limit.clamp(1, usize::MAX as u64) as usize);
    if sorter.gpu().is_some()
        && opts.format == Format::Binary
        && out.is_seekable()
        && let (Some(n), Some(path)) = (reader.known_len(), input.path())
        && n > 0
        && n <= device_chunk
    {
        progress.message(&format!("streaming {n} {} through {}", T::NAME, sorter.backend()));
        progress.phase(Phase::Read, reader.size());
        match pipeline::sort_binary_on_device::<T>(sorter, path, n, &mut out, &opts.sort, memory) {
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
                    spilled_runs: 0,
                    temp_bytes: 0,
                });
            }
            // Nothing is written yet: the chunked path below splits the work.
            Err(Error::OutOfMemory { .. }) => {
                progress.message("out of device memory streaming the file; sorting in chunks")
            }
            Err(e) => return Err(e),
        }
    }
    let elem = size_of::<T>() as u64;
    let (chunk, external) = plan(reader.known_len(), elem, memory, device_chunk, sorter.gpu().is_some());
    reader.set_text_block((chunk as u64 * elem / 16).min(16 << 20) as usize);
    let counter = Counter::default();
    reader.count_into(counter.clone());
    let name = reader.name().to_string();
    let pieces = Pieces {
        size: reader.size(),
        counter,
        name: name.clone(),
        next: Box::new(move |max| Ok(reader.next_piece(max)?.map(|p| (p, reader.at_end())))),
    };
    let limits = Limits::new(memory, opts.temp_dir.as_deref(), opts.max_temp_bytes, &out);
    progress.message(&format!(
        "reading and sorting {name} in chunks of up to {chunk} {} on {}{}",
        T::NAME,
        sorter.backend(),
        if external {
            format!(" (past the host memory budget: sorted runs go to {})", limits.temp_dir.display())
        } else {
            String::new()
        }
    ));
    let mut r =
        sort_pieces::<T>(sorter, pieces, chunk, external, &mut out, opts.format, &opts.sort, &limits, progress)?;
    let t = Instant::now();
    out.commit_with(opts.fsync)?;
    r.write_s += t.elapsed().as_secs_f64();
    r.total_s = start.elapsed().as_secs_f64();
    Ok(r)
}

/// `next(max)` of [`Pieces`]: the next piece of at most `max` elements and whether it
/// was the last, or `None` at the end.
type NextPiece<T> = Box<dyn FnMut(usize) -> Result<Option<(Vec<T>, bool)>> + Send>;

/// A source of pieces of elements, read on a thread of its own.
struct Pieces<T> {
    next: NextPiece<T>,
    /// Input bytes read so far (for progress) and in all, if known.
    counter: Counter,
    size: Option<u64>,
    name: String,
}

/// Reads `pieces` in chunks of `chunk`, sorts each (while the next is read), keeps the
/// sorted chunks in memory or, past the memory budget (or from the start with
/// `external`), in run files, and merges them into `out` (not committed).
#[allow(clippy::too_many_arguments)]
fn sort_pieces<T: TextElement>(
    sorter: &Sorter,
    pieces: Pieces<T>,
    chunk: usize,
    mut external: bool,
    out: &mut AtomicFile,
    format: Format,
    sort: &SortOptions,
    limits: &Limits,
    progress: &mut dyn Progress,
) -> Result<FileSortReport> {
    let gpu = sorter.gpu().is_some();
    let elem = size_of::<T>() as u64;
    let mut spill = limits.spill(out);
    let Pieces { mut next, counter, size, name } = pieces;
    let too_large = |space: u64, dir: &Path| budget::too_large(&name, counter.get(), limits.memory, Some((space, dir)));
    progress.phase(Phase::Read, size);
    // The reader runs on its own thread (not joined: on an error, a stream that never
    // ends must not hold the sort up), one piece ahead of the sorting.
    let (tx, rx) = sync_channel::<Result<(Vec<T>, bool)>>(0);
    std::thread::Builder::new()
        .name("file-sort-reader".into())
        .spawn(move || {
            loop {
                match next(chunk) {
                    Ok(Some(p)) => {
                        if tx.send(Ok(p)).is_err() {
                            break;
                        }
                    }
                    Ok(None) => break,
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        break;
                    }
                }
            }
        })
        .map_err(|e| Error::Io { context: "starting the reading thread".into(), source: e })?;

    let mut mem_runs: Vec<Vec<T>> = Vec::new();
    let mut mem_bytes = 0u64;
    let mut file_runs: Vec<RunFile> = Vec::new();
    let mut sort_s = 0.0;
    let loop_start = Instant::now();
    loop {
        let (piece, last) = match rx.recv_timeout(Duration::from_millis(200)) {
            Ok(m) => m?,
            Err(RecvTimeoutError::Timeout) => {
                progress.position(counter.get());
                continue;
            }
            Err(RecvTimeoutError::Disconnected) => break,
        };
        progress.position(counter.get());
        let piece_bytes = piece.len() as u64 * elem;
        // In memory while the kept runs, this piece, the next one and (CPU) the sort's
        // scratch fit the budget; past it, everything goes to run files.
        let scratch = if gpu { 0 } else { piece_bytes };
        if !external && !mem_runs.is_empty() && mem_bytes + piece_bytes + chunk as u64 * elem + scratch > limits.memory
        {
            external = true;
            progress.message(&format!(
                "{name} is larger than the host memory budget ({}): sorted runs go to {}",
                crate::Bytes(limits.memory),
                limits.temp_dir.display()
            ));
        }
        if external {
            for run in mem_runs.drain(..) {
                file_runs.push(spill.write(&run, |space| too_large(space, &limits.temp_dir))?);
            }
            mem_bytes = 0;
        }
        if last {
            progress.phase(Phase::Sort, Some(piece_bytes));
        }
        let t = Instant::now();
        if !gpu {
            // The CPU sort allocates its scratch itself (an abort if refused).
            budget::probe(piece_bytes)?;
        }
        let mut sorted = Vec::new();
        sort_splitting_on_oom(sorter, piece, sort, &mut sorted)?;
        sort_s += t.elapsed().as_secs_f64();
        for run in sorted {
            if external {
                file_runs.push(spill.write(&run, |space| too_large(space, &limits.temp_dir))?);
            } else {
                mem_bytes += run.len() as u64 * elem;
                mem_runs.push(run);
            }
        }
        if last {
            progress.position(piece_bytes);
        }
    }
    let read_s = (loop_start.elapsed().as_secs_f64() - sort_s).max(0.0);
    let elements: usize =
        mem_runs.iter().map(Vec::len).sum::<usize>() + file_runs.iter().map(RunFile::len).sum::<usize>();
    let chunks = (mem_runs.len() + file_runs.len()).max(1);
    let spilled_runs = file_runs.len();
    let desc = sort.order.is_descending();
    let total_bytes = elements as u64 * elem;
    let t = Instant::now();
    let seekable = out.is_seekable();
    let mut done = 0u64;
    let mut write = |part: &[T], progress: &mut dyn Progress| -> Result<()> {
        format::write_elements(out, part, format, sorter.tuning())?;
        done += part.len() as u64 * elem;
        progress.position(done);
        Ok(())
    };
    let merged = if !file_runs.is_empty() {
        progress.message(&format!("merging {} sorted runs from {}", file_runs.len(), spill.dir().display()));
        progress.phase(Phase::Merge, Some(total_bytes));
        let mut sink = |part: &[T]| format::write_elements(out, part, format, sorter.tuning());
        runs::merge_files(file_runs, desc, limits.memory, &mut spill, &mut sink, &mut |d| progress.position(d))?;
        true
    } else if mem_runs.len() > 1 {
        progress.message(&format!("merging {} sorted chunks on the CPU", mem_runs.len()));
        progress.phase(Phase::Merge, Some(total_bytes));
        if format == Format::Binary && seekable {
            // Merged parts go straight to their place in the file: merging overlaps
            // writing, and no whole-output buffer is needed.
            merge_into_file(&mem_runs, desc, out, sorter.tuning())?;
            progress.position(total_bytes);
        } else {
            let refs: Vec<&[T]> = mem_runs.iter().map(Vec::as_slice).collect();
            merge::merge_runs_ordered(&refs, desc, MERGE_PART_BYTES, |part| write(part, progress))?;
        }
        true
    } else {
        progress.phase(Phase::Write, Some(total_bytes));
        let run = mem_runs.pop().unwrap_or_default();
        for block in run.chunks((WRITE_BLOCK / size_of::<T>()).max(1)) {
            write(block, progress)?;
        }
        false
    };
    let merge_s = if merged { t.elapsed().as_secs_f64() } else { 0.0 };
    let write_s = if merged { 0.0 } else { t.elapsed().as_secs_f64() };
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
        total_s: 0.0,
        spilled_runs,
        temp_bytes: spill.peak_bytes(),
    })
}

/// Bytes of the merged parts [`merge_into_file`] hands to the writing threads.
const MERGE_PART_BYTES: usize = 32 << 20;

/// Merges the sorted `runs` into the binary output `out` (elements only, nothing
/// written yet): merged parts are written at their offsets from several threads.
fn merge_into_file<T: TextElement>(
    runs: &[Vec<T>],
    desc: bool,
    out: &mut AtomicFile,
    tuning: &crate::Tuning,
) -> Result<()> {
    let refs: Vec<&[T]> = runs.iter().map(Vec::as_slice).collect();
    let bytes: usize = runs.iter().map(|r| r.len() * size_of::<T>()).sum();
    let o = output::SizedOutput::new(out, bytes, WriteMode::tuned(tuning, WriteMode::Mapped))?;
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

/// Where and within what `host gen` writes.
#[derive(Clone, Debug, Default)]
pub struct GenOptions {
    /// Host memory for the distributions that are sorted (`sorted`, `reverse`,
    /// `organ-pipe`); default as [`FileSortOptions::memory`].
    pub memory: Option<u64>,
    /// Directory of the temporary run files; default as [`FileSortOptions::temp_dir`].
    pub temp_dir: Option<PathBuf>,
    /// Temporary disk space the run files may take; default as
    /// [`FileSortOptions::max_temp_bytes`].
    pub max_temp_bytes: Option<u64>,
    /// How the file is written ([`crate::Tuning::file_write`] and the other `file_`
    /// knobs).
    pub tuning: crate::Tuning,
}

/// Elements `host gen` generates and writes at a time.
const GEN_PIECE_BYTES: u64 = 64 << 20;

/// Writes `n` generated elements to `output` (for `host gen`), in bounded pieces
/// whatever `n` is: the same file as [`crate::inputs::generate`] would give in one
/// piece.
pub fn generate_file(
    output: impl Into<Output>,
    key_type: KeyType,
    format: Format,
    n: usize,
    dist: Distribution,
    seed: u64,
) -> Result<()> {
    generate_to(&output.into(), key_type, format, n, dist, seed, &GenOptions::default(), &mut |_: &str| {})
}

/// [`generate_file`] with limits and progress ([`Phase::Write`], or the phases of a
/// sort for the sorted distributions).
#[allow(clippy::too_many_arguments)]
pub fn generate_to(
    output: &Output,
    key_type: KeyType,
    format: Format,
    n: usize,
    dist: Distribution,
    seed: u64,
    opts: &GenOptions,
    progress: &mut dyn Progress,
) -> Result<()> {
    crate::with_key_type!(key_type, T => generate_typed::<T>(output, format, n, dist, seed, opts, progress),
        wide W => wide::generate::<W>(output, format, n, dist, seed, opts, progress))
}

fn generate_typed<T: TextElement + crate::inputs::Random>(
    output: &Output,
    format: Format,
    n: usize,
    dist: Distribution,
    seed: u64,
    opts: &GenOptions,
    progress: &mut dyn Progress,
) -> Result<()> {
    use crate::Order;
    let memory = budget::host_memory(opts.memory)?;
    let mut out = output.create()?;
    let elem = size_of::<T>() as u64;
    // A file that cannot fit the disk fails before anything is written (text takes at
    // least two bytes an element).
    if let Some(dir) = out.directory() {
        let least = (n as u64).checked_mul(if format == Format::Binary { elem } else { 2 });
        budget::ensure_disk_room(dir, least, &format!("{n} {}", T::NAME))?;
    }
    let sorted: &[(std::ops::Range<usize>, Order)] = &match dist {
        Distribution::Sorted => vec![(0..n, Order::Ascending)],
        Distribution::Reverse => vec![(0..n, Order::Descending)],
        Distribution::OrganPipe => vec![(0..n / 2, Order::Ascending), (n / 2..n, Order::Descending)],
        _ => Vec::new(),
    };
    if sorted.is_empty() {
        progress.phase(Phase::Write, Some(n as u64 * elem));
        let piece = (GEN_PIECE_BYTES / elem).min(memory / 4 / elem).max(1) as usize;
        let mut at = 0;
        while at < n {
            let end = (at + piece).min(n);
            let data: Vec<T> = crate::inputs::generate_range(at..end, dist, seed);
            format::write_elements(&mut out, &data, format, &opts.tuning)?;
            at = end;
            progress.position(at as u64 * elem);
        }
    } else {
        // The sorted shapes are sorts of the uniform values: the file sort's chunks,
        // runs and stable merge give exactly the in-memory sort's result.
        let sorter = Sorter::cpu_tuned(opts.tuning.clone());
        let limits = Limits::new(memory, opts.temp_dir.as_deref(), opts.max_temp_bytes, &out);
        for (range, order) in sorted.iter().cloned() {
            let (chunk, external) = plan(Some(range.len()), elem, memory, usize::MAX, false);
            let counter = Counter::default();
            let mut at = range.start;
            let end = range.end;
            let c = counter.clone();
            let pieces = Pieces {
                next: Box::new(move |max| {
                    if at >= end {
                        return Ok(None);
                    }
                    let to = (at + max).min(end);
                    let data: Vec<T> = crate::inputs::generate_range(at..to, dist, seed);
                    c.add((to - at) as u64 * elem);
                    at = to;
                    Ok(Some((data, at >= end)))
                }),
                counter,
                size: Some(range.len() as u64 * elem),
                name: format!("{n} generated {}", T::NAME),
            };
            let sort = SortOptions::default().order(order);
            sort_pieces::<T>(&sorter, pieces, chunk, external, &mut out, format, &sort, &limits, progress)?;
        }
    }
    out.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_keep_in_memory_what_fits() {
        // CPU, one chunk: the data and the sort's scratch.
        assert_eq!(plan(Some(100), 4, 800, usize::MAX, false), (100, false));
        assert_eq!(plan(Some(100), 4, 799, usize::MAX, false), (66, true));
        // GPU, device chunks of 10: the runs, one piece read ahead.
        assert_eq!(plan(Some(100), 4, 440, 10, true), (10, false));
        assert_eq!(plan(Some(100), 4, 439, 10, true), (10, true));
        assert_eq!(plan(Some(100), 4, 40, 10, true), (5, true));
        // Unknown sizes start in memory, in chunks of a third of the budget (CPU).
        assert_eq!(plan(None, 8, 2400, usize::MAX, false), (100, false));
        assert_eq!(plan(Some(0), 8, 1, usize::MAX, false), (1, false));
    }

    #[test]
    fn chunk_length_follows_the_budget() {
        assert_eq!(chunk_len(4, 1200), 100);
        assert_eq!(chunk_len(20, 1), 1);
        assert_eq!(chunk_len(8, u64::MAX), (u64::MAX / 24) as usize);
    }
}
