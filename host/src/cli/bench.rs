//! `host bench`: arguments, header, table and output files.
use std::path::PathBuf;

use crate::bench::{self, BenchPlan, EFFECTIVE_BANDWIDTH};
use crate::file_sort::write_atomic;
use crate::measure::TimingPlan;
use crate::report::records;
use crate::{Distribution, KeyType, Order};
use clap::Args;

use crate::cli::args::{
    check_host_memory, parse_block_size, parse_buffers, parse_count, parse_millis, parse_repeat, parse_warmup,
};

/// Time sort variants on the same inputs and report Gkeys/s and effective bandwidth.
///
/// Every list flag takes comma-separated values; all combinations are run.
/// Effective bandwidth is 2 x n x element bytes (one read and one write of the array)
/// divided by the median sort time; the device's copy bandwidth, measured once at the
/// start, is printed in the header for comparison.
///
/// Example (the Catania experiment):
///   host bench --type entity --n 16777216 --repeat 100 --variants naive,sm8,sm9,sm
///   --block-size 256,512 --csv catania.csv
#[derive(Args, Debug, Clone)]
pub struct BenchArgs {
    /// Variants to time (comma-separated), or `all`.
    #[arg(long, alias = "variant", value_delimiter = ',', default_value = "all")]
    variants: Vec<String>,
    /// Element types (comma-separated).
    #[arg(long = "type", value_enum, value_delimiter = ',', default_value = "u32")]
    key_types: Vec<KeyType>,
    /// Sizes (comma-separated; each like 1000, 2^24, 1<<20 or 16M; K, M, G are powers
    /// of two: 16M = 2^24).
    #[arg(long, value_delimiter = ',', value_parser = parse_count, default_value = "2^16,2^20,2^24")]
    n: Vec<usize>,
    /// Input distributions (comma-separated).
    #[arg(long, value_enum, value_delimiter = ',', default_value = "uniform")]
    dist: Vec<Distribution>,
    /// Threads per block (comma-separated powers of two, 32..=1024).
    #[arg(long, value_delimiter = ',', value_parser = parse_block_size, default_value = "256")]
    block_size: Vec<u32>,
    /// Sort direction.
    #[arg(long, value_enum, default_value_t = Order::Ascending)]
    order: Order,
    /// Seed of the random inputs (every variant sorts the same input).
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Timed repeats per configuration (1 to 1000000); median, minimum and maximum are
    /// reported.
    #[arg(long, default_value_t = 10, value_parser = parse_repeat)]
    repeat: usize,
    /// Untimed sorts before the timed ones (0 to 1000000).
    #[arg(long, default_value_t = 2, value_parser = parse_warmup)]
    warmup: usize,
    /// Input copies rotated between repeats so that no sort finds its input in the L2
    /// cache; 0 picks enough to cover twice the L2 size (at most 256).
    #[arg(long, default_value_t = 0, value_parser = parse_buffers)]
    buffers: usize,
    /// Variant the speed-up column compares with (default: the first listed).
    #[arg(long)]
    baseline: Option<String>,
    /// Skip larger sizes of a variant (per type, distribution and block size) once its
    /// median time exceeds this many milliseconds.
    #[arg(long, value_name = "MS", value_parser = parse_millis)]
    max_sort_ms: Option<f64>,
    /// Verify every configuration's output (order, permutation, promised stability).
    #[arg(long)]
    check: bool,
    /// Write the results as CSV to this file.
    #[arg(long)]
    csv: Option<PathBuf>,
    /// Write the results and the run's settings as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Write an SVG chart of Gkeys/s against n (a line per variant) to this file; with
    /// several types or distributions, one file per pair, named `FILE-<type>-<dist>.svg`.
    #[arg(long)]
    svg: Option<PathBuf>,
    /// Draw the `--svg` charts from saved CSV files (comma-separated) instead of
    /// timing anything: `host bench --csv` output, or any CSV with the columns n,
    /// gkeys_per_s and variant or series (optional: type, dist, device, date).
    /// `--type` and `--dist` choose the charts.
    #[arg(long, value_name = "CSV", value_delimiter = ',', requires = "svg")]
    chart_from: Vec<PathBuf>,
    /// Time the CPU backend even if a GPU is present.
    #[arg(long)]
    cpu: bool,
    /// Fail instead of timing the CPU backend when there is no GPU.
    #[arg(long, conflicts_with = "cpu")]
    require_gpu: bool,
    /// Never show the progress bar.
    #[arg(long)]
    no_progress: bool,
    /// Time the multi-GPU sample sort instead of the variants, for each GPU count
    /// listed (comma-separated counts or `all`), on device-resident data: one row per
    /// count with the time split into local sort, splitters, exchange and merge, and
    /// the speed-up over the first count.
    #[arg(long, value_delimiter = ',', value_parser = crate::cli::multi::parse_gpus, conflicts_with = "cpu")]
    gpus: Vec<crate::cli::multi::Gpus>,
    /// With `--gpus`: sort (key, u32 index) pairs instead of keys.
    #[arg(long, requires = "gpus")]
    pairs: bool,
}

/// Returns Ok(false) when a configuration failed.
pub fn bench(args: &BenchArgs) -> crate::Result<bool> {
    if let (false, Some(svg)) = (args.chart_from.is_empty(), &args.svg) {
        for f in bench::chart_saved(&args.chart_from, &args.key_types, &args.dist, svg)? {
            println!("wrote {}", f.display());
        }
        return Ok(true);
    }
    if !args.gpus.is_empty() {
        // The input and the gathered output of the largest size, on the host.
        check_host_memory(&args.key_types, &args.n, 2)?;
        if let Some(&n) = args.n.iter().find(|&&n| args.pairs && n > u32::MAX as usize) {
            return Err(crate::Error::BadArgument(format!(
                "--pairs carries u32 indices: at most 2^32 - 1 keys, not {n}"
            )));
        }
        return crate::cli::multi::bench(
            &args.gpus,
            &args.key_types,
            &args.n,
            &args.dist,
            args.order,
            args.seed,
            args.repeat,
            args.pairs,
            args.check,
        );
    }
    let sorter = crate::cli::open_sorter(args.cpu, args.require_gpu)?;
    let variants = super::parse_variants(&args.variants)?;
    let baseline = args.baseline.as_deref().map(str::parse).transpose()?;
    let plan = BenchPlan {
        variants,
        key_types: args.key_types.clone(),
        sizes: args.n.clone(),
        dists: args.dist.clone(),
        block_sizes: args.block_size.clone(),
        order: args.order,
        seed: args.seed,
        timing: TimingPlan { warmup: args.warmup, repeats: args.repeat, buffers: args.buffers },
        check: args.check,
        baseline,
        max_sort_ms: args.max_sort_ms,
    };
    plan.baseline()?;
    match sorter.gpu() {
        Some(gpu) => println!("device:         {}\nkernels:        {}", gpu.info(), gpu.kernels_summary()),
        None => println!(
            "device:         none: {}\n                timing the CPU backend (stable sort, wall clock) only; \
             variants and block sizes do not apply",
            sorter.backend()
        ),
    }
    let report = bench::run(&sorter, &plan, !args.no_progress)?;
    if let Some(c) = report.copy_gb_per_s {
        println!("copy bandwidth: {c:.1} GB/s (device-to-device copy, read + write)");
    }
    println!("{EFFECTIVE_BANDWIDTH}; % copy = effective / copy bandwidth");
    println!(
        "timing:         {}; {} warm-up, {} timed repeats; input restored before each repeat{}",
        if report.on_gpu { "CUDA events around the sort only" } else { "wall clock" },
        plan.timing.warmup,
        plan.timing.repeats,
        if report.on_gpu { ", input copies rotated past the L2 cache" } else { "" }
    );
    if let Some(b) = report.baseline {
        println!("speed-up:       median time of {b} / median time, same type, n, dist and block size");
    }
    println!();
    print!("{}", report.table().render());
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    if let Some(p) = &args.csv {
        write_atomic(p, records::to_csv(&report.records()).as_bytes())?;
        println!("wrote {}", p.display());
    }
    if let Some(p) = &args.json {
        write_atomic(p, report.to_json(&command).as_bytes())?;
        println!("wrote {}", p.display());
    }
    if let Some(p) = &args.svg {
        for f in report.write_charts(p)? {
            println!("wrote {}", f.display());
        }
    }
    let failed = report.failures();
    if failed > 0 {
        eprintln!("error: {failed} of {} configurations failed (see the table)", report.rows.len());
    }
    Ok(failed == 0)
}
