//! `host sort`, `host check-file` and `host gen`: sorting files of numbers.
use std::path::PathBuf;

use clap::Args;
use host::file_sort::{self, FileSortOptions, Format};
use host::{Distribution, KeyType, Order, SortOptions, Variant};

use crate::cli::args::{parse_block_size, parse_count, parse_device_bytes, parse_record_size};

/// Sort a file of numbers into another file, on the GPU when there is one.
///
/// Binary files hold little-endian elements back to back; text files one number per
/// line. Input larger than the device's memory is sorted in chunks that fit, which are
/// then merged on the CPU. The output appears only when complete (it is written to a
/// temporary file beside it and renamed), and may be the input file itself.
///
/// Example: host sort --type u32 --input keys.bin --output sorted.bin
///
/// `SORT_TRACE=1` prints a timeline of the phases (driver start-up, buffers, reading,
/// sorting, writing) to standard error.
#[derive(Args, Debug, Clone)]
pub struct SortArgs {
    /// File to sort.
    #[arg(long, short)]
    input: PathBuf,
    /// Where to write the sorted elements (replaced if it exists).
    #[arg(long, short)]
    output: PathBuf,
    /// Element type of the file.
    #[arg(long = "type", value_enum, default_value_t = KeyType::U32)]
    key_type: KeyType,
    /// File format (input and output); by default text for `.txt`, `.csv` and `.tsv`
    /// inputs and binary otherwise.
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
    /// Sort over this many GPUs (`all`: every GPU) by the multi-GPU sample sort (NCCL);
    /// the whole file is sorted in memory.
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
}

pub fn sort(args: &SortArgs) -> host::Result<bool> {
    if let Some(gpus) = args.gpus {
        let format = Format::choose(args.text, args.format, &args.input);
        return host::with_key_type!(args.key_type, T => crate::cli::multi::sort_file::<T>(
            gpus, &args.input, &args.output, format, args.order
        ));
    }
    let sorter = crate::open_sorter(args.cpu, args.require_gpu)?;
    if let Some(record_size) = args.record_size {
        return sort_records(&sorter, args, record_size);
    }
    if args.argsort {
        return host::with_key_type!(args.key_type, T => argsort_file::<T>(&sorter, args));
    }
    let format = Format::choose(args.text, args.format, &args.input);
    let opts = FileSortOptions {
        key_type: args.key_type,
        format,
        sort: SortOptions::new(args.variant).order(args.order).block_size(args.block_size),
        stable: args.stable,
        max_device_bytes: args.max_device_bytes.map(|b| b as u64),
        fsync: args.fsync,
    };
    match sorter.gpu() {
        Some(_) => eprintln!("sorting on {} with variant {}", sorter.backend(), args.variant),
        None => eprintln!("sorting on {} with its stable sort", sorter.backend()),
    }
    let r = file_sort::sort_file(&sorter, &args.input, &args.output, &opts, &mut |msg| eprintln!("{msg}"))?;
    let steps = if r.pipelined {
        format!(
            "streamed through the device; busy: read {:.3} s, upload {:.3} s, sort {:.3} s, download {:.3} s, \
             write {:.3} s",
            r.read_s, r.upload_s, r.sort_s, r.download_s, r.write_s
        )
    } else {
        format!(
            "{} chunk{}; read {:.2} s, sort {:.2} s, merge {:.2} s, write {:.2} s",
            r.chunks,
            if r.chunks == 1 { "" } else { "s" },
            r.read_s,
            r.sort_s,
            r.merge_s,
            r.write_s
        )
    };
    println!(
        "sorted {} {} ({format}, {}) into {} on {}: {steps}, total {:.3} s",
        r.elements,
        args.key_type,
        args.order,
        args.output.display(),
        r.backend,
        r.total_s
    );
    Ok(true)
}

/// `host sort --argsort`: the stable sorting permutation of a file, written atomically.
fn argsort_file<T: file_sort::TextElement>(sorter: &host::Sorter, args: &SortArgs) -> host::Result<bool> {
    let format = Format::choose(args.text, args.format, &args.input);
    let start = std::time::Instant::now();
    let data: Vec<T> = file_sort::format::read_file(&args.input, format)?;
    let opts = SortOptions::default().order(args.order);
    let perm = sorter.argsort(&data, &opts)?;
    let mut out = host::AtomicFile::create(&args.output)?;
    file_sort::format::write_elements(&mut out, &perm, format)?;
    out.commit_with(args.fsync)?;
    println!(
        "wrote the sorting permutation of {} {} ({format}, {}) to {} on {}, total {:.3} s",
        data.len(),
        args.key_type,
        args.order,
        args.output.display(),
        sorter.backend(),
        start.elapsed().as_secs_f64()
    );
    Ok(true)
}

/// `host sort --record-size`: records by a key field, in memory, written atomically.
fn sort_records(sorter: &host::Sorter, args: &SortArgs, record_size: usize) -> host::Result<bool> {
    use host::variants::records::KeyField;
    if Format::choose(args.text, args.format, &args.input) != Format::Binary {
        return Err(host::Error::BadArgument("--record-size sorts binary files only".into()));
    }
    let field = KeyField::new(args.key_offset, args.key_type);
    field.check(record_size)?;
    let start = std::time::Instant::now();
    let mut bytes = std::fs::read(&args.input)
        .map_err(|e| host::Error::Io { context: format!("reading {}", args.input.display()), source: e })?;
    if !bytes.len().is_multiple_of(record_size) {
        return Err(host::Error::BadArgument(format!(
            "{} is {} bytes: not a whole number of {record_size}-byte records",
            args.input.display(),
            bytes.len()
        )));
    }
    let read_s = start.elapsed().as_secs_f64();
    let t = std::time::Instant::now();
    let backend =
        sorter.sort_records_by_field(&mut bytes, record_size, field, &SortOptions::default().order(args.order))?;
    let sort_s = t.elapsed().as_secs_f64();
    let t = std::time::Instant::now();
    let mut out = host::AtomicFile::create(&args.output)?;
    out.write_all(&bytes)?;
    out.commit_with(args.fsync)?;
    println!(
        "sorted {} records of {record_size} bytes by the {} at byte {} ({}) into {} on {backend}; read {read_s:.2} s, \
         sort {sort_s:.2} s, write {:.2} s, total {:.2} s",
        bytes.len() / record_size,
        args.key_type,
        args.key_offset,
        args.order,
        args.output.display(),
        t.elapsed().as_secs_f64(),
        start.elapsed().as_secs_f64()
    );
    Ok(true)
}

/// Check that a file is another file sorted: ordered, and the same elements (compared
/// by an order-independent fingerprint of every element's bytes).
///
/// Example: host check-file --type u32 --input keys.bin --output sorted.bin
#[derive(Args, Debug, Clone)]
pub struct CheckFileArgs {
    /// The unsorted file.
    #[arg(long, short)]
    input: PathBuf,
    /// The file that should be its sorted version.
    #[arg(long, short)]
    output: PathBuf,
    /// Element type of both files.
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

pub fn check_file(args: &CheckFileArgs) -> host::Result<bool> {
    let format = Format::choose(args.text, args.format, &args.input);
    let r = file_sort::check_files(args.key_type, format, &args.input, &args.output, args.order)?;
    println!("{r}");
    Ok(true)
}

/// Write a file of generated elements (reproducible from the seed), e.g. as input for
/// `host sort`.
///
/// Example: host gen --type u32 --n 2^30 --output keys.bin
#[derive(Args, Debug, Clone)]
pub struct GenArgs {
    /// File to write.
    #[arg(long, short)]
    output: PathBuf,
    /// Number of elements (like 1000, 2^30, 1<<20 or 16M).
    #[arg(long, value_parser = parse_count)]
    n: usize,
    /// Element type.
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
}

pub fn generate(args: &GenArgs) -> host::Result<bool> {
    // The elements are generated in memory before they are written.
    crate::cli::args::check_host_memory(&[args.key_type], &[args.n], 1)?;
    let format = Format::choose(args.text, args.format, &args.output);
    file_sort::generate_file(&args.output, args.key_type, format, args.n, args.dist, args.seed)?;
    println!("wrote {} {} {} ({format}) to {}", args.n, args.dist, args.key_type, args.output.display());
    Ok(true)
}
