//! `host sort`, `host check-file` and `host gen`: sorting files of numbers.
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::file_sort::{self, FileSortOptions, Format, Input, Output, Phase, budget, source};
use crate::{Bytes, Distribution, KeyType, Order, SortOptions, Variant};
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::cli::args::{parse_block_size, parse_count, parse_device_bytes, parse_record_size};

/// Sort a file of numbers into another file, on the GPU when there is one.
///
/// Binary files hold little-endian elements back to back; text files one number per
/// line. Input larger than the device's memory is sorted in chunks that fit, which are
/// then merged on the CPU; input larger than the host memory budget (`--memory`) is
/// sorted in runs written to temporary files (`--temp-dir`) and merged from there.
///
/// Without `-i` (or with `-i -`) standard input is read, without `-o` (or with `-o -`)
/// standard output is written: `producer | host sort --type u32 --text > out.txt`.
/// Pipes, FIFOs and devices are read to their end whatever their size.
///
/// A regular output file appears only when complete: it is written to a temporary file
/// beside it and renamed over it, keeping the old file's permission bits (and owner
/// when run as root); on any error or interruption (SIGINT, SIGTERM, SIGHUP) the old
/// file is untouched and no temporary file remains. The output may be the input file
/// itself. A symbolic link is written through to its target (the link stays); a file
/// with several hard links gets a new file under this name, the other names keep the
/// old contents. Devices, FIFOs and standard output are written in place.
///
/// Example: host sort --type u32 --input keys.bin --output sorted.bin
///
/// `SORT_TRACE=1` prints a timeline of the phases (driver start-up, buffers, reading,
/// sorting, writing) to standard error.
#[derive(Args, Debug, Clone)]
pub struct SortArgs {
    /// File to sort (`-`: standard input, the default).
    #[arg(long, short, default_value = "-")]
    input: PathBuf,
    /// Where to write the sorted elements, replaced if it exists (`-`: standard
    /// output, the default).
    #[arg(long, short, default_value = "-")]
    output: PathBuf,
    /// Element type of the file.
    /// Wide keys too: u128, i128 and bytes1 to bytes32 (byte strings compared
    /// lexicographically), as binary records sorted in memory.
    #[arg(long = "type", value_enum, default_value_t = KeyType::U32)]
    key_type: KeyType,
    /// File format (input and output); by default text for `.txt`, `.csv` and `.tsv`
    /// inputs and binary otherwise (standard input: binary).
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Shorthand for `--format text`.
    #[arg(long, conflicts_with = "format")]
    text: bool,
    /// Sort direction.
    #[arg(long, value_enum, default_value_t = Order::Ascending)]
    order: Order,
    /// Sorting algorithm on the GPU (the CPU backend always uses its stable sort).
    #[arg(long, value_enum, default_value_t = Variant::default())]
    variant: Variant,
    /// Require a stable sort (equal keys keep their input order): refuses unstable
    /// variants.
    #[arg(long)]
    stable: bool,
    /// Threads per block on the GPU (power of two, 32..=1024; checked on every backend).
    #[arg(long, default_value_t = 256, value_parser = parse_block_size)]
    block_size: u32,
    /// Device memory the sort may plan for, like 512M or 2G, at least 1M (default: 90%
    /// of the free memory). Larger input is sorted in chunks of a third of this and
    /// merged. Also bounds the chunks on the CPU backend, so the chunked path can be
    /// tried anywhere.
    #[arg(long, value_parser = parse_device_bytes)]
    max_device_bytes: Option<usize>,
    /// Sort on the CPU even if a GPU is present.
    #[arg(long)]
    cpu: bool,
    /// Fail instead of sorting on the CPU when there is no GPU.
    #[arg(long, conflicts_with = "cpu")]
    require_gpu: bool,
    /// Sort a binary file of fixed-size records of this many bytes by the key field
    /// at `--key-offset` (of `--type`, little-endian), stably; the whole file is
    /// sorted in memory.
    #[arg(long, value_parser = parse_record_size, conflicts_with_all = ["text", "max_device_bytes"])]
    record_size: Option<usize>,
    /// Sort over this many GPUs (`all`: every GPU) by the multi-GPU sample sort: a
    /// binary file into a regular file streams (each GPU reads its share straight into
    /// its memory and writes its range of the result into place: as large as the GPUs
    /// hold, whatever the host memory); text and streams are sorted in host memory.
    #[arg(long, value_parser = crate::cli::multi::parse_gpus,
          conflicts_with_all = ["cpu", "record_size", "argsort", "max_device_bytes", "stable"])]
    gpus: Option<crate::cli::multi::Gpus>,
    /// Sync the output to disk before renaming it into place (durable across a power
    /// loss; without it the replacement is still atomic for readers).
    #[arg(long)]
    fsync: bool,
    /// Write the sorting permutation instead of the sorted elements: the input
    /// position (u32) of each element in sorted order, stably (binary: u32
    /// little-endian; text: one per line). In memory; primitive types.
    #[arg(long, conflicts_with_all = ["record_size", "max_device_bytes"])]
    argsort: bool,
    /// Byte offset of the key field in each record (with `--record-size`).
    #[arg(long, requires = "record_size", default_value_t = 0)]
    key_offset: usize,
    #[command(flatten)]
    limits: Limits,
}

/// Host memory and temporary files (`sort`, `gen`).
#[derive(Args, Debug, Clone)]
pub struct Limits {
    /// Host memory the sort may use, like 512M or 4G (default: half of what the
    /// machine, the cgroup and `ulimit -v`/`-d` leave). Larger input is sorted in runs
    /// written to temporary files and merged. `--record-size`, `--argsort` and `--gpus`
    /// (but for a binary file into a regular file) sort in memory and refuse input
    /// beyond it.
    #[arg(long, value_parser = parse_count)]
    memory: Option<usize>,
    /// Directory for the temporary run files (default: `TMPDIR` if set, else the
    /// output's directory, for standard output the system's temporary directory).
    #[arg(long)]
    temp_dir: Option<PathBuf>,
    /// Temporary disk space the run files may take, like 20G (default: the free space
    /// of their file system less 1% (at least 256 MiB), halved when the output is on
    /// the same file system).
    #[arg(long, value_parser = parse_count)]
    max_temp_bytes: Option<usize>,
}

impl Limits {
    fn memory(&self) -> u64 {
        self.memory.map_or_else(budget::default_memory_budget, |m| m as u64)
    }
}

/// Before any thread starts (from `main`): a one-GPU `host sort` queues all of its
/// work on one stream, so its context needs one hardware work queue rather than
/// CUDA's default eight, and one is made and released faster. Unless the caller set
/// `CUDA_DEVICE_MAX_CONNECTIONS`, it is set to 1: the context took 58-62 ms instead
/// of 116-150 ms, and its release at the end 27-30 ms instead of 63-87 ms (H200,
/// 2026-11-29, `SORT_TRACE=1 host sort` of 1 GiB of u32). The variable is read when CUDA starts,
/// so it is set while the program is still one thread.
pub(crate) fn prepare_environment(args: &SortArgs) {
    if args.gpus.is_none() && std::env::var_os("CUDA_DEVICE_MAX_CONNECTIONS").is_none() {
        // SAFETY: `main` calls this before the program starts any thread, so nothing
        // reads the environment meanwhile.
        unsafe { std::env::set_var("CUDA_DEVICE_MAX_CONNECTIONS", "1") };
    }
}

pub fn sort(args: &SortArgs) -> crate::Result<bool> {
    budget::fit_allocator_to_limits();
    file_sort::clean_up_on_signals()?;
    let (input, output) = (Input::from_arg(&args.input), Output::from_arg(&args.output));
    let format = Format::choose(args.text, args.format, &args.input);
    if args.limits.memory == Some(0) {
        return Err(crate::Error::BadArgument("--memory must be positive".into()));
    }
    if let Some(gpus) = args.gpus {
        return crate::with_key!(args.key_type, T => crate::cli::multi::sort_file::<T>(
            gpus, &input, &output, format, args.order, args.limits.memory()
        ), else Err(crate::cli::args::records_refused("several GPUs", args.key_type)));
    }
    // Creating the CUDA context takes ~0.2 s (cuInit 0.10 s, the context 0.11 s on an
    // H100, 2026-11-27): meanwhile a cold input streams into the page cache.
    let (cpu, require_gpu) = (args.cpu, args.require_gpu);
    let opening = std::thread::spawn(move || crate::cli::open_sorter(cpu, require_gpu));
    input.read_ahead(args.limits.memory() / 2);
    let sorter = opening
        .join()
        .map_err(|_| crate::Error::NoDevice("opening the device: the opening thread panicked".into()))??;
    if let Some(record_size) = args.record_size {
        return sort_records(&sorter, args, record_size);
    }
    if args.argsort {
        return crate::with_key!(args.key_type, T => argsort_file::<T>(&sorter, args), else Err(crate::cli::args::records_refused("--argsort", args.key_type)));
    }
    let opts = FileSortOptions {
        sort: SortOptions::new(args.variant).order(args.order).block_size(args.block_size),
        stable: args.stable,
        max_device_bytes: args.max_device_bytes.map(|b| b as u64),
        fsync: args.fsync,
        memory: args.limits.memory.map(|m| m as u64),
        temp_dir: args.limits.temp_dir.clone(),
        max_temp_bytes: args.limits.max_temp_bytes.map(|b| b as u64),
        ..FileSortOptions::new(args.key_type, format)
    };
    // Without a GPU, why is said once, by the file sort's first progress message.
    match sorter.gpu() {
        Some(_) => eprintln!("sorting on {} with variant {}", sorter.backend(), args.variant),
        None => eprintln!("sorting on the CPU with its stable sort"),
    }
    let mut progress = ProgressReport::new();
    let r = file_sort::sort_stream(&sorter, &input, &output, &opts, &mut progress);
    progress.finish();
    let r = r?;
    let steps = if r.pipelined {
        format!(
            "streamed through the device; busy: read {:.3} s, upload {:.3} s, sort {:.3} s, download {:.3} s, \
             write {:.3} s",
            r.read_s, r.upload_s, r.sort_s, r.download_s, r.write_s
        )
    } else {
        format!(
            "{} chunk{}{}; read {:.2} s, sort {:.2} s, merge {:.2} s, write {:.2} s",
            r.chunks,
            if r.chunks == 1 { "" } else { "s" },
            if r.spilled_runs > 0 {
                format!(" ({} runs on disk, {} of temporary files at most)", r.spilled_runs, Bytes(r.temp_bytes))
            } else {
                String::new()
            },
            r.read_s,
            r.sort_s,
            r.merge_s,
            r.write_s
        )
    };
    summary(
        &output,
        &format!(
            "sorted {} {} ({format}, {}) into {output} on {}: {steps}, total {:.3} s",
            r.elements,
            args.key_type,
            args.order,
            match &r.backend {
                crate::Backend::Cuda(name) => format!("GPU ({name})"),
                crate::Backend::Cpu(_) => "CPU".to_string(),
            },
            r.total_s
        ),
    );
    Ok(true)
}

/// The closing line of a command: on standard output, unless the data went there.
pub(super) fn summary(output: &Output, line: &str) {
    if output.is_stdout() {
        eprintln!("{line}");
    } else {
        println!("{line}");
    }
}

/// Host bytes an in-memory sort of `bytes` of input may read, when each input byte
/// needs `per_byte` bytes of memory in all.
fn in_memory_limit(memory: u64, per_byte: f64) -> u64 {
    (memory as f64 / per_byte) as u64
}

/// `host sort --argsort`: the stable sorting permutation of a file, written atomically.
fn argsort_file<T: file_sort::TextElement + crate::Key>(
    sorter: &crate::Sorter,
    args: &SortArgs,
) -> crate::Result<bool> {
    let (input, output) = (Input::from_arg(&args.input), Output::from_arg(&args.output));
    let format = Format::choose(args.text, args.format, &args.input);
    let start = std::time::Instant::now();
    let mut out = output.create()?;
    // The keys, the permutation and its sort's scratch (u32 indices): 12 bytes a key
    // besides the key itself.
    let per_byte = 1.0 + 12.0 / size_of::<T>() as f64;
    let limit = in_memory_limit(args.limits.memory(), per_byte);
    let data: Vec<T> = source::read_all(&input, format, limit).map_err(|e| in_memory("--argsort", e))?;
    let opts = SortOptions::default().order(args.order);
    let perm = sorter.argsort(&data, &opts)?;
    file_sort::format::write_elements(&mut out, &perm, format, sorter.tuning())?;
    out.commit_with(args.fsync)?;
    summary(
        &output,
        &format!(
            "wrote the sorting permutation of {} {} ({format}, {}) to {output} on {}, total {:.3} s",
            data.len(),
            args.key_type,
            args.order,
            sorter.backend(),
            start.elapsed().as_secs_f64()
        ),
    );
    Ok(true)
}

/// Says which option sorts in memory when an input passes the memory budget.
fn in_memory(option: &str, e: crate::Error) -> crate::Error {
    match e {
        crate::Error::TooLarge(m) => crate::Error::TooLarge(format!("{m}; {option} sorts in memory")),
        e => e,
    }
}

/// `host sort --record-size`: records by a key field, in memory, written atomically.
fn sort_records(sorter: &crate::Sorter, args: &SortArgs, record_size: usize) -> crate::Result<bool> {
    use crate::variants::records::KeyField;
    let (input, output) = (Input::from_arg(&args.input), Output::from_arg(&args.output));
    if Format::choose(args.text, args.format, &args.input) != Format::Binary {
        return Err(crate::Error::BadArgument("--record-size sorts binary files only".into()));
    }
    let field = KeyField::new(args.key_offset, args.key_type);
    field.check(record_size)?;
    let start = std::time::Instant::now();
    let mut out = output.create()?;
    // On the CPU: the records, their sorted copy, a u64 key and a u32 index each.
    let per_byte = if sorter.gpu().is_some() { 1.0 } else { 2.0 + 12.0 / record_size as f64 };
    let limit = in_memory_limit(args.limits.memory(), per_byte);
    let mut bytes = source::read_all_bytes(&input, limit).map_err(|e| in_memory("--record-size", e))?;
    if !bytes.len().is_multiple_of(record_size) {
        return Err(crate::Error::BadArgument(format!(
            "{input} is {} bytes: not a whole number of {record_size}-byte records",
            bytes.len()
        )));
    }
    let read_s = start.elapsed().as_secs_f64();
    let t = std::time::Instant::now();
    if sorter.gpu().is_none() {
        budget::probe((bytes.len() + bytes.len() / record_size * 12) as u64)?;
    }
    let backend =
        sorter.sort_records_by_field(&mut bytes, record_size, field, &SortOptions::default().order(args.order))?;
    let sort_s = t.elapsed().as_secs_f64();
    let t = std::time::Instant::now();
    out.write_all(&bytes)?;
    out.commit_with(args.fsync)?;
    summary(
        &output,
        &format!(
            "sorted {} records of {record_size} bytes by the {} at byte {} ({}) into {output} on {backend}; read \
             {read_s:.2} s, sort {sort_s:.2} s, write {:.2} s, total {:.2} s",
            bytes.len() / record_size,
            args.key_type,
            args.key_offset,
            args.order,
            t.elapsed().as_secs_f64(),
            start.elapsed().as_secs_f64()
        ),
    );
    Ok(true)
}

/// How long a command runs before its progress is shown: quick ones print nothing.
const QUIET_FOR: Duration = Duration::from_secs(1);
/// Seconds between plain progress lines (standard error not a terminal).
const LINE_EVERY: Duration = Duration::from_secs(5);

/// Progress of `sort` and `gen`: after the first second, a bar on standard error when
/// it is a terminal, else a plain line per phase and every few seconds. Messages are
/// printed as they come.
pub struct ProgressReport {
    start: Instant,
    bar: ProgressBar,
    terminal: bool,
    shown: bool,
    phase: Option<(Phase, Option<u64>)>,
    done: u64,
    last_line: Option<Instant>,
}

impl ProgressReport {
    pub fn new() -> ProgressReport {
        ProgressReport {
            start: Instant::now(),
            bar: ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden()),
            terminal: std::io::stderr().is_terminal(),
            shown: false,
            phase: None,
            done: 0,
            last_line: None,
        }
    }

    fn style(total: Option<u64>) -> ProgressStyle {
        let template = match total {
            Some(_) => "{prefix:>5} [{bar:40}] {binary_bytes}/{binary_total_bytes} {binary_bytes_per_sec} ETA {eta}",
            None => "{prefix:>5} {spinner} {binary_bytes} {binary_bytes_per_sec} {elapsed}",
        };
        ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()).progress_chars("=> ")
    }

    /// Shows the progress once the command has run for [`QUIET_FOR`].
    fn update(&mut self, phase_start: bool) {
        if self.start.elapsed() < QUIET_FOR {
            return;
        }
        let Some((phase, total)) = self.phase else { return };
        if self.terminal {
            if !self.shown {
                self.bar.set_draw_target(ProgressDrawTarget::stderr());
                self.bar.enable_steady_tick(Duration::from_millis(200));
                self.shown = true;
            }
            return;
        }
        if phase_start || self.last_line.is_none_or(|t| t.elapsed() >= LINE_EVERY) {
            let of = match total {
                Some(t) if t > 0 => format!(" of {} ({:.0}%)", Bytes(t), 100.0 * self.done as f64 / t as f64),
                _ => String::new(),
            };
            eprintln!("[{:>7.1} s] {phase}: {}{of}", self.start.elapsed().as_secs_f64(), Bytes(self.done));
            self.last_line = Some(Instant::now());
        }
    }

    /// Clears the bar before the closing line.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Default for ProgressReport {
    fn default() -> Self {
        ProgressReport::new()
    }
}

impl file_sort::Progress for ProgressReport {
    fn message(&mut self, msg: &str) {
        if self.shown {
            self.bar.suspend(|| eprintln!("{msg}"));
        } else {
            eprintln!("{msg}");
        }
    }

    fn phase(&mut self, phase: Phase, total: Option<u64>) {
        self.phase = Some((phase, total));
        self.done = 0;
        self.bar.set_style(Self::style(total));
        self.bar.set_length(total.unwrap_or(0));
        if total.is_none() {
            self.bar.unset_length();
        }
        self.bar.set_prefix(phase.name());
        self.bar.set_position(0);
        self.update(true);
    }

    fn position(&mut self, done: u64) {
        self.done = done;
        self.bar.set_position(done);
        self.update(false);
    }
}

/// Check that a file is another file sorted: ordered, and the same elements (compared
/// by an order-independent fingerprint of every element's bytes).
///
/// Example: host check-file --type u32 --input keys.bin --output sorted.bin
///
/// Either file may be `-` (standard input) or a pipe; both are read as streams.
#[derive(Args, Debug, Clone)]
pub struct CheckFileArgs {
    /// The unsorted file.
    #[arg(long, short)]
    input: PathBuf,
    /// The file that should be its sorted version.
    #[arg(long, short)]
    output: PathBuf,
    /// Element type of both files.
    /// Wide keys too: u128, i128 and bytes1 to bytes32 (byte strings compared
    /// lexicographically), as binary records sorted in memory.
    #[arg(long = "type", value_enum, default_value_t = KeyType::U32)]
    key_type: KeyType,
    /// Format of both files; by default text for `.txt`, `.csv` and `.tsv` inputs and
    /// binary otherwise.
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Shorthand for `--format text`.
    #[arg(long, conflicts_with = "format")]
    text: bool,
    /// Order the output must be in.
    #[arg(long, value_enum, default_value_t = Order::Ascending)]
    order: Order,
}

pub fn check_file(args: &CheckFileArgs) -> crate::Result<bool> {
    let format = Format::choose(args.text, args.format, &args.input);
    let (input, output) = (Input::from_arg(&args.input), Input::from_arg(&args.output));
    let r = file_sort::check_files(args.key_type, format, input, output, args.order)?;
    println!("{r}");
    Ok(true)
}

/// Write a file of generated elements (reproducible from the seed), e.g. as input for
/// `host sort`.
///
/// Any size is written piece by piece in bounded memory (the sorted distributions
/// through the file sort's runs when they pass `--memory`); a binary file that cannot
/// fit the disk is refused before anything is written. `-o -` writes standard output.
///
/// Example: host gen --type u32 --n 2^30 --output keys.bin
#[derive(Args, Debug, Clone)]
pub struct GenArgs {
    /// File to write.
    #[arg(long, short)]
    output: PathBuf,
    /// Number of elements (like 1000, 2^30, 1<<20 or 16M; K, M, G are powers of two:
    /// 16M = 2^24).
    #[arg(long, value_parser = parse_count)]
    n: usize,
    /// Element type.
    /// Wide keys too: u128, i128 and bytes1 to bytes32 (byte strings compared
    /// lexicographically), as binary records sorted in memory.
    #[arg(long = "type", value_enum, default_value_t = KeyType::U32)]
    key_type: KeyType,
    /// File format; by default text for `.txt`, `.csv` and `.tsv` outputs and binary
    /// otherwise.
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Shorthand for `--format text`.
    #[arg(long, conflicts_with = "format")]
    text: bool,
    /// Distribution of the elements.
    #[arg(long, value_enum, default_value_t = Distribution::Uniform)]
    dist: Distribution,
    /// Seed (same seed, same file).
    #[arg(long, default_value_t = 42)]
    seed: u64,
    #[command(flatten)]
    limits: Limits,
}

pub fn generate(args: &GenArgs) -> crate::Result<bool> {
    budget::fit_allocator_to_limits();
    file_sort::clean_up_on_signals()?;
    let format = Format::choose(args.text, args.format, &args.output);
    let output = Output::from_arg(&args.output);
    let opts = file_sort::GenOptions {
        memory: args.limits.memory.map(|m| m as u64),
        temp_dir: args.limits.temp_dir.clone(),
        max_temp_bytes: args.limits.max_temp_bytes.map(|b| b as u64),
        tuning: super::tuning().clone(),
    };
    let mut progress = ProgressReport::new();
    let r = file_sort::generate_to(&output, args.key_type, format, args.n, args.dist, args.seed, &opts, &mut progress);
    progress.finish();
    r?;
    summary(&output, &format!("wrote {} {} {} ({format}) to {output}", args.n, args.dist, args.key_type));
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_memory_limits_scale_with_the_budget() {
        assert_eq!(in_memory_limit(1000, 2.0), 500);
        assert_eq!(in_memory_limit(1000, 1.0 + 12.0 / 4.0), 250);
        assert_eq!(Input::from_arg(std::path::Path::new("-")), Input::Stdin);
        assert_eq!(Output::from_arg(std::path::Path::new("x")), Output::Path("x".into()));
    }
}
