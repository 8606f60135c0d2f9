//! `host rank-sort`: one process per GPU ([`crate::ranks`]). Each process is started
//! with `RANK`, `WORLD_SIZE`, `MASTER_ADDR`, `MASTER_PORT` (scripts/sort-ranks.sh sets
//! them for N local processes).
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;

use crate::atomic_file::{self, AtomicFile};
use crate::cli::args::{parse_count, parse_repeat};
use crate::device::DeviceBuffer;
use crate::error::{Error, Result};
use crate::file_sort::budget;
use crate::file_sort::output::{SizedOutput, WriteMode};
use crate::file_sort::pipeline::{self, Stages};
use crate::inputs::{self, Random};
use crate::measure::{gkeys_per_s, median};
use crate::ranks::{self, RankConfig, RankGroup, RankReport};
use crate::{Distribution, Key, KeyType, Order, SortOptions};

/// Sort across processes, one GPU each: a binary file into another, or generated keys
/// (timed).
///
/// Run one process per GPU with `RANK`, `WORLD_SIZE`, `MASTER_ADDR`, `MASTER_PORT` (and
/// `LOCAL_RANK` to pick the GPU; default `RANK % GPUs`) set, as torchrun does;
/// `scripts/sort-ranks.sh N input output` starts N on this host. With `--input` each
/// rank reads its share of the file (little-endian elements), the ranks sort them
/// together, and each writes its range of the result at its offset into a temporary
/// file beside `--output` that rank 0 renames into place once every rank has written
/// (on several hosts the output's directory must be shared). On any failure the output
/// is not created (an existing file is left as it was). Without `--input` each rank
/// sorts its share of generated keys on the device, `--repeat` times, and rank 0
/// prints the timing.
///
/// `SORT_RANKS_TIMEOUT` (seconds, default 60) bounds every wait for another rank: a
/// rank that never comes, hangs or dies fails the others within it.
#[derive(Args, Debug, Clone)]
pub struct RankSortArgs {
    /// Binary file to sort (each rank reads its share).
    #[arg(long, short, requires = "output")]
    input: Option<PathBuf>,
    /// Where to write the sorted file (replaced if it exists, only when complete).
    #[arg(long, short, requires = "input")]
    output: Option<PathBuf>,
    /// Element type.
    #[arg(long = "type", value_enum, default_value_t = KeyType::U32)]
    key_type: KeyType,
    /// Sort direction.
    #[arg(long, value_enum, default_value_t = Order::Ascending)]
    order: Order,
    /// Sync the output to disk before renaming it into place.
    #[arg(long)]
    fsync: bool,
    /// Without `--input`: elements over all ranks (generated, the same on every rank).
    #[arg(long, default_value_t = 1 << 24, value_parser = parse_count, conflicts_with = "input")]
    n: usize,
    /// Without `--input`: the distribution of the generated keys.
    #[arg(long, value_enum, default_value_t = Distribution::Uniform, conflicts_with = "input")]
    dist: Distribution,
    /// Without `--input`: the seed of the generated keys.
    #[arg(long, default_value_t = 42, conflicts_with = "input")]
    seed: u64,
    /// Without `--input`: timed sorts after one warm-up (median reported).
    #[arg(long, default_value_t = 5, value_parser = parse_repeat, conflicts_with = "input")]
    repeat: usize,
    /// Without `--input`: each rank compares its range with the CPU's stable sort of the
    /// whole input, bit for bit.
    #[arg(long, conflicts_with = "input")]
    check: bool,
}

pub fn rank_sort(args: &RankSortArgs) -> Result<bool> {
    let cfg = RankConfig::from_env()?;
    if cfg.rank == 0 && args.input.is_some() {
        // SIGINT, SIGTERM and SIGHUP remove rank 0's temporary output.
        atomic_file::clean_up_on_signals()?;
    }
    let t = Instant::now();
    let mut group = RankGroup::join(&cfg, crate::cli::tuning().clone())?;
    let joined_s = t.elapsed().as_secs_f64();
    let refused = || Err(crate::cli::args::records_refused("a sort over ranks", args.key_type));
    match (&args.input, &args.output) {
        (Some(input), Some(output)) => {
            crate::with_key!(args.key_type, T => sort_file::<T>(&mut group, input, output, args, joined_s), else refused())
        }
        _ => crate::with_key!(args.key_type, T => time_generated::<T>(&mut group, args), else refused()),
    }
}

fn io(context: String) -> impl FnOnce(std::io::Error) -> Error {
    move |source| Error::Io { context, source }
}

/// The input opened, with this rank's share of it (elements) and its element count.
fn open_shard<T: Key>(input: &Path, rank: usize, world: usize) -> Result<(File, std::ops::Range<u64>, u64)> {
    let file = File::open(input).map_err(io(format!("cannot read input {}", input.display())))?;
    let bytes = file.metadata().map_err(io(format!("cannot read input {}", input.display())))?.len();
    let size = size_of::<T>() as u64;
    if bytes % size != 0 {
        return Err(Error::BadInput(format!(
            "{} holds {bytes} bytes, not a whole number of {}-byte {} elements",
            input.display(),
            size,
            T::NAME
        )));
    }
    let s = ranks::shard(bytes / size, rank, world);
    usize::try_from(s.end - s.start).map_err(|_| Error::TooLarge(format!("rank {rank}'s share")))?;
    Ok((file, s.start..s.end, bytes / size))
}

/// This rank's share of `input` read into a new device buffer, through the pinned
/// staging buffers `stages` (positioned reads on several threads, each buffer read
/// while the one before is copied: no host copy of the share). Waits for the copies.
fn upload_shard<T: Key>(
    gpu: &crate::Gpu,
    file: &File,
    input: &Path,
    share: &std::ops::Range<u64>,
    stages: &mut Stages,
) -> Result<DeviceBuffer<T>> {
    let len = (share.end - share.start) as usize;
    let mut keys = gpu.alloc::<T>(len)?;
    let size = size_of::<T>();
    pipeline::upload_file(gpu, file, input, share.start * size as u64, &mut keys, len * size, stages)?;
    gpu.synchronize("reading the input")?;
    Ok(keys)
}

/// Writes `keys` at byte `at` of `file` (the temporary output, already sized):
/// through the staging buffers into a mapping of that range (copies on several
/// threads, the range's pages faulted in ahead of them), or by positioned writes
/// where it is larger than the host memory budget or the file cannot be mapped.
fn write_range<T: Key>(
    gpu: &crate::Gpu,
    file: &File,
    at: u64,
    keys: &DeviceBuffer<T>,
    stages: &mut Stages,
) -> Result<()> {
    let bytes = keys.len() * size_of::<T>();
    let tuning = gpu.tuning();
    let mode = if bytes as u64 <= budget::host_memory(None)? { WriteMode::Mapped } else { WriteMode::Positioned };
    let mut output = SizedOutput::range(file, at, bytes, WriteMode::tuned(tuning, mode))?;
    crate::trace::mark(if output.is_mapped() { "rank output: range mapped" } else { "rank output: range sized" });
    output.populate_in_background(tuning.file_populate_threads);
    pipeline::download_into(gpu, keys, bytes, &output, 0, stages)?;
    gpu.synchronize("writing the output")?;
    crate::trace::mark("rank output: written");
    output.finish()?;
    crate::trace::mark("rank output: unmapped");
    Ok(())
}

fn sort_file<T: Key>(
    group: &mut RankGroup,
    input: &Path,
    output: &Path,
    args: &RankSortArgs,
    joined_s: f64,
) -> Result<bool> {
    let t = Instant::now();
    let (rank, world) = (group.rank(), group.world());
    let size = size_of::<T>() as u64;
    let gpu = group.gpu().clone();
    let tuning = gpu.tuning().clone();
    // 1. Every rank reads its share into its device; rank 0 creates the temporary
    // output of the final size. A failure anywhere fails every rank here, before any
    // sort.
    let read = open_shard::<T>(input, rank, world).and_then(|(file, share, n)| {
        let bytes = (share.end - share.start) as usize * size_of::<T>();
        let mut stages = Stages::new::<T>(&gpu, tuning.file_stage_bytes, tuning.file_stages, bytes)?;
        let keys = upload_shard::<T>(&gpu, &file, input, &share, &mut stages)?;
        Ok((keys, n, stages))
    });
    let mut out: Option<AtomicFile> = None;
    let prepared = read.as_ref().map_err(|e| Error::BadInput(e.to_string())).and_then(|&(_, n, _)| {
        if rank == 0 {
            let mut f = AtomicFile::create(output)?;
            if !f.is_seekable() {
                return Err(Error::BadArgument(format!(
                    "{}: a sort over ranks writes a regular file (each rank at its offset), not a stream",
                    output.display()
                )));
            }
            f.file()?.set_len(n * size).map_err(io(format!("sizing the output {}", output.display())))?;
            out = Some(f);
        }
        Ok(())
    });
    group.control().agree(prepared, "reading the input and creating the output", || Ok(()))?;
    let (mut keys, _, mut stages) = read?;

    // 2. Rank 0 tells the others the temporary file's name.
    let name = match &out {
        Some(f) => {
            let p = f.temp_path().expect("a seekable output has a temporary file");
            let bytes = p.as_os_str().as_encoded_bytes().to_vec();
            group.control().broadcast(Some(&bytes), "naming the temporary output")?
        }
        None => group.control().broadcast(None, "naming the temporary output")?,
    };
    // SAFETY: the bytes come from `as_encoded_bytes` of rank 0, the same program on
    // the same platform.
    let temp = PathBuf::from(unsafe { std::ffi::OsString::from_encoded_bytes_unchecked(name) });

    // 3. The sort.
    let read_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let report = group.sort_device(&mut keys, &SortOptions::default().order(args.order))?;

    // 4. Each rank writes its range; rank 0 renames the file once all have.
    let sort_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    group.test_die_at("write");
    let written = (|| {
        let at = report.offset() * size;
        let context = format!("writing the output {} (rank {rank})", temp.display());
        match out.as_mut() {
            Some(f) => write_range(&gpu, f.file()?, at, &keys, &mut stages),
            None => {
                let f = OpenOptions::new().read(true).write(true).open(&temp).map_err(io(context.clone()))?;
                write_range(&gpu, &f, at, &keys, &mut stages)?;
                if args.fsync { f.sync_all().map_err(io(context)) } else { Ok(()) }
            }
        }
    })();
    drop(keys);
    let fsync = args.fsync;
    group.control().agree(written, "writing the output", move || match out {
        Some(f) => f.commit_with(fsync),
        None => Ok(()),
    })?;
    crate::trace::mark("rank output: agreed");
    println!(
        "rank {rank}/{world}: {} {} keys, elements {}..{} of {} written; joining {joined_s:.3} s, reading {read_s:.3} s, \
         sorting {sort_s:.3} s ({}), writing {:.3} s",
        report.held[rank],
        T::NAME,
        report.offset(),
        report.offset() + report.held[rank],
        report.total(),
        phases(&report),
        t.elapsed().as_secs_f64()
    );
    Ok(true)
}

fn phases(r: &RankReport) -> String {
    format!(
        "local sort {:.3} ms, splitters {:.3} ms, exchange {:.3} ms, merge {:.3} ms, whole {:.3} ms",
        r.local_sort_s * 1e3,
        r.splitters_s * 1e3,
        r.exchange_s * 1e3,
        r.merge_s * 1e3,
        r.wall_s * 1e3
    )
}

fn time_generated<T: Key + Random>(group: &mut RankGroup, args: &RankSortArgs) -> Result<bool> {
    let (rank, world) = (group.rank(), group.world());
    inputs::ensure_host_memory::<T>(args.n, if args.check { 3 } else { 2 })?;
    let input: Vec<T> = inputs::generate(args.n, args.dist, args.seed);
    let s = ranks::shard(args.n as u64, rank, world);
    let gpu = group.gpu().clone();
    let orig = gpu.upload(&input[s.start as usize..s.end as usize])?;
    let opts = SortOptions::default().order(args.order);
    let mut times = Vec::new();
    let mut reports = Vec::new();
    let mut last = None;
    for round in 0..args.repeat + 1 {
        let mut keys = gpu.alloc::<T>(orig.len())?;
        keys.copy_from_device(&gpu, &orig)?;
        gpu.synchronize("copying the input")?;
        // Every rank starts the round together.
        group.control().barrier("starting a round")?;
        let report = group.sort_device(&mut keys, &opts)?;
        if round > 0 {
            times.push(report.wall_s);
            reports.push(report.clone());
        }
        last = Some((keys, report));
    }
    let (keys, report) = last.expect("at least one round");
    let mut ok = true;
    if args.check {
        let got = keys.to_vec(&gpu)?;
        let mut want = input.clone();
        let desc = args.order.is_descending();
        want.sort_by_key(|k| Into::<u64>::into(k.ord_bits(desc))); // stable
        let at = report.offset() as usize;
        let same = bytemuck::cast_slice::<T, u8>(&got) == bytemuck::cast_slice::<T, u8>(&want[at..at + got.len()]);
        println!("rank {rank}/{world}: check: {}", if same { "ok (bit for bit)" } else { "FAILED" });
        ok = same;
    }
    // The slowest rank's time of each round, on rank 0.
    let mine: Vec<u8> = times.iter().flat_map(|t| t.to_le_bytes()).collect();
    let all = group.control().gather(&mine, "gathering the timings")?;
    let checks = group.control().gather(&[ok as u8], "gathering the checks")?;
    if let (Some(all), Some(checks)) = (all, checks) {
        let per_rank: Vec<Vec<f64>> =
            all.iter().map(|b| b.as_chunks::<8>().0.iter().map(|c| f64::from_le_bytes(*c)).collect()).collect();
        let slowest: Vec<f64> =
            (0..times.len()).map(|i| per_rank.iter().filter_map(|t| t.get(i)).copied().fold(0.0, f64::max)).collect();
        let med = median(&slowest) * 1e3;
        let mid = reports
            .iter()
            .min_by(|a, b| (a.wall_s - median(&times)).abs().total_cmp(&(b.wall_s - median(&times)).abs()));
        println!(
            "ranks {world}, {} {} keys ({}), {} repeats: median {med:.3} ms (slowest rank per round), {:.3} Gkeys/s",
            args.n,
            T::NAME,
            args.dist,
            times.len(),
            gkeys_per_s(args.n, med)
        );
        println!("held: {:?}", report.held);
        if let Some(r) = mid {
            println!("rank 0 phases: {}", phases(r));
        }
        ok = checks.iter().all(|c| c.first() == Some(&1));
        if args.check {
            println!("check: {}", if ok { "ok on every rank" } else { "FAILED on a rank" });
        }
    }
    Ok(ok)
}
