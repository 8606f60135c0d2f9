//! The `host` command-line program (`cargo run -p host -- ...`), behind the default `cli`
//! feature: the commands and their arguments here, one module per group of
//! subcommands; `src/main.rs` only calls [`main`]. A library user who turns the
//! feature off (`default-features = false`) compiles neither clap nor indicatif.
pub mod args;
pub mod bench;
pub mod files;
pub mod multi;
pub mod ops;
pub mod pairs;
pub mod ranks;
pub mod records;
pub mod rows;
pub mod segments;
pub mod topk;

use std::process::ExitCode;
use std::sync::OnceLock;

use self::args::{parse_block_size, parse_count, parse_repeat, parse_threads, records_refused};
use crate::inputs::{self, Random};
use crate::measure::{gkeys_per_s, time_sort};
use crate::study::{self, StudyConfig, StudyKind};
use crate::{
    Distribution, Element, KeyType, NanOrder, Order, SortOptions, Sorter, Tuning, Variant, verify, with_key_type,
};
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};

/// Sort random data on the GPU with a chosen algorithm, time it and check it.
///
/// Without a subcommand, runs one variant: `host --variant naive --n 16777216 --check`.
#[derive(Parser, Debug)]
#[command(name = "host", version, about, long_about = None, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run, time and check one variant (the default when no subcommand is given).
    Run(RunArgs),
    /// List the variants, key types and distributions.
    List {
        /// Print only the variant names, one per line (for scripts).
        #[arg(long)]
        names: bool,
    },
    /// Time variants x types x sizes x distributions x block sizes; tables, CSV, JSON, SVG.
    Bench(bench::BenchArgs),
    /// Time the radix sort of (key, value) pairs on the GPU (argsort is pairs with
    /// index values).
    BenchPairs(pairs::PairsArgs),
    /// Time top-k (the k smallest or largest keys and their indices) on the GPU next to
    /// the full radix sort and argsort of the same keys.
    BenchTopk(topk::TopkArgs),
    /// Time run-length encoding, unique with counts and searchsorted (sorted and
    /// unsorted queries) on the GPU on device-resident keys, next to a copy.
    BenchOps(ops::OpsArgs),
    /// Time records of any size sorted by a key field on the GPU (key extraction, pair
    /// sort, gather) on device-resident data.
    BenchRecords(records::RecordsArgs),
    /// Time the segmented sort (many independent segments in one call) on the GPU.
    BenchSegments(segments::SegmentsArgs),
    /// Time the row-wise sort, argsort and top-k of a row-major matrix on the GPU.
    BenchRows(rows::RowsArgs),
    /// Sort a binary or text file of numbers into another file.
    Sort(files::SortArgs),
    /// Sort across processes, one GPU each (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT):
    /// a binary file into another, each rank writing its range, or generated keys, timed.
    RankSort(ranks::RankSortArgs),
    /// Check that a file is another file sorted (order and same elements).
    CheckFile(files::CheckFileArgs),
    /// Write a file of generated elements.
    Gen(files::GenArgs),
    /// CPU speed-up studies (threads, sizes) and GPU vs CPU (gpu): table, CSV, SVG.
    Study(StudyArgs),
}

#[derive(Args, Debug, Clone)]
struct StudyArgs {
    /// Which study.
    #[arg(value_enum)]
    which: StudyKind,
    /// Elements of the threads study.
    #[arg(long, default_value_t = 10_000_000, value_parser = parse_count)]
    n: usize,
    /// Largest n of the sizes and gpu studies (from 2^10, step 4x).
    #[arg(long, default_value = "2^24", value_parser = parse_count)]
    max_n: usize,
    /// Timed repeats after one warm-up (more for small n; 1 to 1000000); medians are
    /// reported.
    #[arg(long, default_value_t = 5, value_parser = parse_repeat)]
    repeat: usize,
    /// Most CPU threads (default: all available).
    #[arg(long, value_parser = parse_threads)]
    max_threads: Option<usize>,
    /// Element type.
    #[arg(long = "type", value_enum, default_value_t = KeyType::U32)]
    key_type: KeyType,
    /// Folder for `<study>.csv` and the SVG charts.
    #[arg(long, default_value = "study")]
    out: std::path::PathBuf,
}

#[derive(Args, Debug, Clone)]
struct RunArgs {
    /// Sorting algorithm.
    #[arg(long, value_enum, default_value_t = Variant::default())]
    variant: Variant,
    /// Number of elements: any n >= 0, like 1000, 2^24, 1<<24 or 16M (K, M, G are
    /// powers of two: 16M = 2^24).
    #[arg(long, default_value_t = 1 << 24, value_parser = parse_count)]
    n: usize,
    /// Element type.
    /// Wide keys too: u128, i128 and bytes1 to bytes32 (byte strings compared
    /// lexicographically), as binary records sorted in memory.
    #[arg(long = "type", value_enum, default_value_t = KeyType::U32)]
    key_type: KeyType,
    /// Sort direction.
    #[arg(long, value_enum, default_value_t = Order::Ascending)]
    order: Order,
    /// Where NaNs of float keys sort: `total` (IEEE total order, -NaN first) or `last`
    /// (numpy and torch: every NaN after +inf ascending, first descending).
    #[arg(long, value_enum, default_value_t = NanOrder::Total)]
    nan: NanOrder,
    /// Input distribution.
    #[arg(long, value_enum, default_value_t = Distribution::Uniform)]
    dist: Distribution,
    /// Seed of the random input (same seed, same input).
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Timed repeats after one warm-up (1 to 1000000); median and minimum are reported.
    #[arg(long, default_value_t = 5, value_parser = parse_repeat)]
    repeat: usize,
    /// Threads per block (power of two, 32..=1024), checked on every backend.
    #[arg(long, default_value_t = 256, value_parser = parse_block_size)]
    block_size: u32,
    /// Verify the result against the CPU reference (order, permutation, stability).
    #[arg(long)]
    check: bool,
    /// Sort on the CPU even if a GPU is present.
    #[arg(long)]
    cpu: bool,
    /// Fail instead of falling back to the CPU when there is no GPU.
    #[arg(long, conflicts_with = "cpu")]
    require_gpu: bool,
    /// Time the sort of a host vector by the wall clock, its copies to and from the
    /// GPUs included (`Sorter::sort`; with `--gpus`, `MultiGpuSorter::sort`), instead
    /// of the sort of keys already on the device.
    #[arg(long)]
    from_host: bool,
    /// Sort over this many GPUs (`all`: every GPU) by the multi-GPU sample sort (NCCL);
    /// the variant is then radix on each GPU. `--gpus 1` gives the radix sort's result.
    /// `SORT_MULTI_GPU_PIPELINE=partition-first` picks the partition-first pipeline
    /// (default: sort first); `SORT_MULTI_GPU_TRACE=1` prints its per-GPU timeline.
    #[arg(long, value_parser = multi::parse_gpus, conflicts_with = "cpu")]
    gpus: Option<multi::Gpus>,
}

/// The program's tuning: the `SORT_*` variables of its environment, read once
/// ([`Tuning::from_env`]; docs/design.md, "Environment variables"). Every device and
/// sorter a command opens is opened with it.
pub(crate) fn tuning() -> &'static Tuning {
    static TUNING: OnceLock<Tuning> = OnceLock::new();
    TUNING.get_or_init(Tuning::from_env)
}

/// The `host` program: parses the command line, runs the command, reports errors.
pub fn main() -> ExitCode {
    crate::trace::mark("main");
    let matches = args::short_value_lists(Cli::command()).get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    if let Some(Command::Sort(args)) = &cli.command {
        files::prepare_environment(args);
    }
    let result = match cli.command {
        Some(Command::List { names }) => {
            list(names);
            Ok(true)
        }
        Some(Command::Run(args)) => run(&args),
        Some(Command::Bench(args)) => bench::bench(&args),
        Some(Command::BenchPairs(args)) => pairs::bench_pairs(&args),
        Some(Command::BenchTopk(args)) => topk::bench_topk(&args),
        Some(Command::BenchOps(args)) => ops::bench_ops(&args),
        Some(Command::BenchRecords(args)) => records::bench_records(&args),
        Some(Command::BenchSegments(args)) => segments::bench_segments(&args),
        Some(Command::BenchRows(args)) => rows::bench_rows(&args),
        Some(Command::Sort(args)) => files::sort(&args),
        Some(Command::RankSort(args)) => ranks::rank_sort(&args),
        Some(Command::CheckFile(args)) => files::check_file(&args),
        Some(Command::Gen(args)) => files::generate(&args),
        Some(Command::Study(a)) => study(a),
        None => run(&cli.run),
    };
    crate::trace::mark("command done, device released");
    // Once per command, whatever text it read (input, output, both files of a check).
    let losses = crate::file_sort::format::take_text_losses();
    if !losses.is_empty() {
        eprintln!("warning: parsing text: {losses}");
    }
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn study(a: StudyArgs) -> crate::Result<bool> {
    // The input, its work copy and the reference copy of the largest size it sorts.
    let largest = match a.which {
        StudyKind::Threads => a.n,
        StudyKind::Sizes | StudyKind::Gpu => a.max_n,
        StudyKind::All => a.n.max(a.max_n),
    };
    args::check_host_memory(&[a.key_type], &[largest], 3)?;
    let defaults = StudyConfig::default();
    let max_threads = a.max_threads.unwrap_or(defaults.max_threads);
    let cfg = StudyConfig {
        n: a.n,
        max_n: a.max_n,
        repeat: a.repeat,
        max_threads,
        key_type: a.key_type,
        out: a.out,
        tuning: tuning().clone(),
        ..defaults
    };
    study::run(a.which, &cfg)
}

fn list(names_only: bool) {
    if names_only {
        Variant::ALL.iter().for_each(|v| println!("{v}"));
        return;
    }
    // The descriptions are the values' documentation, as clap knows it.
    let describe = |p: Option<clap::builder::PossibleValue>| {
        p.and_then(|p| p.get_help().map(|h| format!("  {:<12} {h}", p.get_name()))).unwrap_or_default()
    };
    println!("variants (--variant, --variants; stable: equal keys keep their input order):");
    for v in Variant::ALL {
        println!("{}", describe(v.to_possible_value()));
    }
    let types: Vec<_> = KeyType::ALL.iter().map(|k| k.name()).collect();
    println!("\ntypes (--type): {}; floats sort by IEEE 754 total order", types.join(", "));
    println!(
        "  u128, i128, bytes1..bytes32 (byte strings compared lexicographically): wide keys, sorted by `host` \
         (generated keys), `host sort`, `host gen` and `host check-file` (binary files, in memory); \
         the other commands refuse them"
    );
    let narrow: Vec<_> = KeyType::ALL.iter().filter(|k| k.is_narrow()).map(|k| k.name()).collect();
    println!(
        "  {}: on the GPU the radix and mergepath variants, top-k, select_nth, segments and rows \
         (the classic variants, unique, searchsorted and several GPUs refuse them); \
         the CPU (--cpu) does every variant and operation",
        narrow.join(", ")
    );
    for k in KeyType::ALL.iter().filter(|k| k.to_possible_value().is_some_and(|p| p.get_help().is_some())) {
        println!("{}", describe(k.to_possible_value()));
    }
    println!("\ndistributions (--dist):");
    for d in Distribution::ALL {
        let line = describe(d.to_possible_value());
        println!("{}", if line.is_empty() { format!("  {}", d.name()) } else { line });
    }
}

pub(crate) fn open_sorter(cpu: bool, require_gpu: bool) -> crate::Result<Sorter> {
    if cpu {
        Ok(Sorter::cpu_tuned(tuning().clone()))
    } else if require_gpu {
        Sorter::new_tuned(tuning().clone())
    } else {
        Ok(Sorter::with_fallback_tuned(tuning().clone()))
    }
}

/// Returns Ok(false) when the check failed.
fn run(args: &RunArgs) -> crate::Result<bool> {
    if let Some(gpus) = args.gpus {
        let input = multi::RunInput { n: args.n, key_type: args.key_type, dist: args.dist, seed: args.seed };
        return crate::with_key!(args.key_type, T => multi::run::<T>(
            gpus, &input, args.order, args.repeat, args.check, args.from_host
        ), else Err(records_refused("several GPUs", args.key_type)));
    }
    let sorter = open_sorter(args.cpu, args.require_gpu)?;
    match sorter.gpu() {
        Some(gpu) => println!("device:     {}\nkernels:    {}", gpu.info(), gpu.kernels_summary()),
        None => println!("device:     {}", sorter.backend()),
    }
    with_key_type!(args.key_type, T => run_typed::<T>(&sorter, args), wide W => run_wide::<W>(&sorter, args))
}

/// [`run_typed`] for wide keys: [`Sorter::sort_wide`] timed on device-resident keys
/// (CUDA events, the input restored between repeats) or by the wall clock on the CPU,
/// and checked against the standard library's sort.
fn run_wide<K: crate::WideKey>(sorter: &Sorter, args: &RunArgs) -> crate::Result<bool> {
    let opts = SortOptions::new(args.variant).order(args.order).block_size(args.block_size).nan(args.nan);
    let gpu = sorter.gpu();
    println!(
        "variant:    {}",
        if gpu.is_some() {
            "wide keys: LSD radix sort over 64-bit order words".to_string()
        } else {
            "wide keys (CPU backend: stable parallel sort)".to_string()
        }
    );
    println!(
        "input:      n = {}, type {} ({}), order {}, dist {}, seed {}",
        args.n,
        args.key_type,
        K::NAME,
        args.order,
        args.dist,
        args.seed
    );
    inputs::ensure_host_bytes(args.n, size_of::<K>(), if args.check { 3 } else { 2 })?;
    let input: Vec<K> = inputs::generate_wide(args.n, args.dist, args.seed);
    let mut output = input.clone();
    let stats = match gpu {
        Some(gpu) => {
            let original = gpu.upload(&input)?;
            let mut work = gpu.alloc::<K>(input.len())?;
            let stats = crate::measure::time_rounds(args.repeat, || {
                work.copy_from_device(gpu, &original)?;
                gpu.time_ms(|| sorter.sort_wide_device(&mut work, &opts))
            })?;
            output = work.to_vec(gpu)?;
            stats
        }
        None => crate::measure::time_rounds(args.repeat, || {
            output.copy_from_slice(&input);
            let t = std::time::Instant::now();
            sorter.sort_wide(&mut output, &opts)?;
            Ok(t.elapsed().as_secs_f64() * 1e3)
        })?,
    };
    print_time(args.n, stats.median_ms, stats.min_ms, args.repeat, clock_of(gpu.is_some()));
    if !args.check {
        return Ok(true);
    }
    use rayon::prelude::*;
    let mut want = input;
    // Equal wide keys are equal bytes: the unstable sort gives the stable result.
    want.par_sort_unstable();
    if args.order.is_descending() {
        want.reverse();
    }
    Ok(print_check(if output == want {
        Ok("ok (equal to the standard library's sort)".to_string())
    } else {
        let at = output.iter().zip(&want).position(|(a, b)| a != b).unwrap_or(0);
        Err(format!("element {at} differs from the standard library's sort"))
    }))
}

/// The `time:` and `throughput:` lines of `host --variant ...`.
/// How [`print_time`]'s times were taken: CUDA events around the sort of keys on the
/// device, or the wall clock on the CPU.
fn clock_of(on_gpu: bool) -> &'static str {
    if on_gpu { "CUDA events, sort only" } else { "wall clock" }
}

fn print_time(n: usize, median_ms: f64, min_ms: f64, repeats: usize, clock: &str) {
    println!("time:       median {median_ms:.3} ms, min {min_ms:.3} ms over {repeats} repeats ({clock})");
    println!("throughput: {:.3} Gkeys/s (median)", gkeys_per_s(n, median_ms));
}

/// The `check:` line; whether the check passed.
fn print_check(result: Result<String, String>) -> bool {
    match &result {
        Ok(c) => println!("check:      {c}"),
        Err(m) => println!("check:      FAILED: {m}"),
    }
    result.is_ok()
}

/// Above this many elements `--check` uses the linear-time fingerprint check.
const LARGE_CHECK: usize = 1 << 27;

fn run_typed<T: Random + Element>(sorter: &Sorter, args: &RunArgs) -> crate::Result<bool> {
    let opts = SortOptions::new(args.variant).order(args.order).block_size(args.block_size).nan(args.nan);
    let on_gpu = sorter.gpu().is_some();
    println!(
        "variant:    {}{}",
        args.variant,
        if on_gpu {
            format!(" (block size {})", args.block_size)
        } else {
            " (CPU backend: parallel merge sort)".into()
        }
    );
    println!(
        "input:      n = {}, type {}, order {}, dist {}, seed {}",
        args.n, args.key_type, args.order, args.dist, args.seed
    );
    // Input, output and (with --check) the reference copy live on the host at once.
    inputs::ensure_host_memory::<T>(args.n, if args.check { 3 } else { 2 })?;
    let input: Vec<T> = inputs::generate(args.n, args.dist, args.seed);
    let (timing, clock) = if args.from_host && on_gpu {
        let timing = crate::measure::time_host_sort(&input, args.repeat, |work| sorter.sort(work, &opts).map(drop))?;
        (timing, "wall clock, from and to host memory")
    } else {
        (time_sort(sorter, &input, &opts, args.repeat)?, clock_of(on_gpu))
    };
    print_time(args.n, timing.median_ms(), timing.min_ms(), timing.times_ms.len(), clock);
    if !args.check {
        return Ok(true);
    }
    let stable = !on_gpu || args.variant.is_stable();
    // Past 2^27 elements sorting a reference copy takes minutes: check order and a
    // multiset fingerprint in linear time instead (stability is not checked then).
    let result = if args.n > LARGE_CHECK {
        verify::check_large(&input, &timing.output, opts.key_order()).map(|()| {
            "ok (ordered, same multiset fingerprint as the input; stability not checked at this size)".to_string()
        })
    } else {
        verify::check(&input, &timing.output, opts.key_order(), stable).map(|c| c.to_string())
    };
    Ok(print_check(result.map_err(|m| m.to_string())))
}

/// Variant names, or `all`.
pub fn parse_variants(names: &[String]) -> crate::Result<Vec<Variant>> {
    let mut out = Vec::new();
    for name in names {
        if name == "all" {
            out.extend_from_slice(Variant::ALL);
        } else {
            out.push(name.parse()?);
        }
    }
    let mut seen = Vec::new();
    out.retain(|v| {
        !seen.contains(v) && {
            seen.push(*v);
            true
        }
    });
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variant_lists() {
        let all = parse_variants(&["all".into()]).unwrap();
        assert_eq!(all, Variant::ALL);
        let naive = Variant::Naive.name().to_string();
        assert_eq!(parse_variants(&[naive.clone(), "all".into()]).unwrap()[0], Variant::Naive);
        assert_eq!(parse_variants(&[naive.clone(), naive]).unwrap(), [Variant::Naive]);
        assert!(parse_variants(&["nope".into()]).is_err());
    }
}
