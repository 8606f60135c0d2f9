//! `--gpus`: `host run`, `host sort` and `host bench` over several GPUs
//! ([`crate::MultiGpuSorter`]).
use crate::inputs::{self, Random};
use crate::measure::{gkeys_per_s, median};
use crate::{
    DeviceBuffer, Distribution, Element, Exchange, Key, KeyType, MultiGpuReport, MultiGpuSorter, Order, Pipeline,
    SortOptions, verify,
};

/// How many GPUs: a count (GPUs `0..N`) or every GPU of the host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gpus {
    Count(usize),
    All,
}

impl Gpus {
    /// The sorter over these GPUs, opened with the program's tuning. The program's
    /// `SORT_MULTI_GPU_PIPELINE` (`auto`, `sort-first`, `partition-first`) picks its
    /// pipeline, `SORT_MULTI_GPU_EXCHANGE` (`auto`, `nccl`, `copy`, `store`) how the
    /// pieces travel and `SORT_MULTI_GPU_CHUNKS` (at least 1) in how many chunks the
    /// peer copies move them, for comparing them.
    pub fn open(self) -> crate::Result<MultiGpuSorter> {
        let mut sorter = match self {
            Gpus::All => MultiGpuSorter::all_tuned(super::tuning().clone()),
            Gpus::Count(n) => {
                // Before listing the ordinals: a count like 2^63 is refused, not allocated.
                let present = MultiGpuSorter::device_count()?;
                if n > present {
                    return Err(crate::Error::NoDevice(format!("{n} GPUs asked for but {present} present")));
                }
                MultiGpuSorter::new_tuned(&(0..n).collect::<Vec<_>>(), super::tuning().clone())
            }
        }?;
        if let Ok(v) = std::env::var("SORT_MULTI_GPU_PIPELINE") {
            let pipeline = Pipeline::parse(&v).ok_or_else(|| {
                crate::Error::BadArgument(format!(
                    "SORT_MULTI_GPU_PIPELINE={v}: expected auto, sort-first or partition-first"
                ))
            })?;
            sorter.set_pipeline(pipeline);
        }
        if let Ok(v) = std::env::var("SORT_MULTI_GPU_EXCHANGE") {
            let exchange = Exchange::parse(&v).ok_or_else(|| {
                crate::Error::BadArgument(format!("SORT_MULTI_GPU_EXCHANGE={v}: expected auto, nccl, copy or store"))
            })?;
            sorter.set_exchange(exchange);
        }
        if let Ok(v) = std::env::var("SORT_MULTI_GPU_CHUNKS") {
            match v.trim().parse::<usize>() {
                Ok(c) if c >= 1 => sorter.set_exchange_chunks(c),
                _ => {
                    return Err(crate::Error::BadArgument(format!(
                        "SORT_MULTI_GPU_CHUNKS={v}: expected a count of at least 1"
                    )));
                }
            }
        }
        Ok(sorter)
    }
}

/// Parses `--gpus`: `all` or a count of at least 1.
pub fn parse_gpus(s: &str) -> Result<Gpus, String> {
    match s.trim() {
        "all" => Ok(Gpus::All),
        t => match t.parse::<usize>() {
            Ok(0) | Err(_) => Err(format!("`{s}` is not a GPU count (examples: 1, 2, all)")),
            Ok(n) => Ok(Gpus::Count(n)),
        },
    }
}

/// One line describing where the time went.
pub fn phases(r: &MultiGpuReport) -> String {
    match r.pipeline {
        Pipeline::PartitionFirst => format!(
            "partition first: splitters {:.3} ms, partition {:.3} ms, local sorts {:.3} ms with the exchange \
             ({:.3} ms, {:.1} GB/s) beside them, merge {:.3} ms",
            r.splitters_s * 1e3,
            r.partition_s * 1e3,
            r.local_sort_s * 1e3,
            r.exchange_s * 1e3,
            exchange_gb_s(r),
            r.merge_s * 1e3
        ),
        _ if matches!(r.exchange, Exchange::PeerCopy | Exchange::PeerStore) => format!(
            "{}local sort {:.3} ms, splitters {:.3} ms, peer {} in {} chunks {:.3} ms ({:.1} GB/s) with the \
             merge beside them, merge after them {:.3} ms",
            if r.fell_back { "sort first (sampled splitters were uneven): " } else { "" },
            r.local_sort_s * 1e3,
            r.splitters_s * 1e3,
            if r.exchange == Exchange::PeerStore { "stores" } else { "copies" },
            r.chunks,
            r.exchange_s * 1e3,
            exchange_gb_s(r),
            r.merge_s * 1e3
        ),
        _ => format!(
            "{}local sort {:.3} ms, splitters {:.3} ms, exchange {:.3} ms ({:.1} GB/s), merge {:.3} ms",
            if r.fell_back { "sort first (sampled splitters were uneven): " } else { "" },
            r.local_sort_s * 1e3,
            r.splitters_s * 1e3,
            r.exchange_s * 1e3,
            exchange_gb_s(r),
            r.merge_s * 1e3
        ),
    }
}

/// The bench's short name of the pipeline that ran.
fn pipe(r: &MultiGpuReport) -> String {
    match (r.pipeline, r.fell_back, r.exchange) {
        (Pipeline::PartitionFirst, _, _) => "part".into(),
        (Pipeline::SortFirst, _, Exchange::PeerCopy) => {
            format!("copy{}{}", r.chunks, if r.fell_back { "!" } else { "" })
        }
        (Pipeline::SortFirst, _, Exchange::PeerStore) => {
            format!("store{}{}", r.chunks, if r.fell_back { "!" } else { "" })
        }
        (Pipeline::SortFirst, true, _) => "sort!".into(),
        (Pipeline::SortFirst, false, _) => "sort".into(),
        (Pipeline::Auto, _, _) => "-".into(),
    }
}

fn exchange_gb_s(r: &MultiGpuReport) -> f64 {
    if r.exchange_s > 0.0 { r.exchanged_bytes as f64 / r.exchange_s / 1e9 } else { 0.0 }
}

/// Largest share of a GPU relative to `n / p`, e.g. 1.002.
fn imbalance(r: &MultiGpuReport) -> f64 {
    let n: u64 = r.held.iter().sum();
    let ideal = n as f64 / r.held.len().max(1) as f64;
    if ideal == 0.0 { 1.0 } else { r.held.iter().copied().max().unwrap_or(0) as f64 / ideal }
}

/// The median round's report, every round's time in ms, and the last round's sorted
/// keys and (for pairs) index values.
pub type Timed<K> = (MultiGpuReport, Vec<f64>, Vec<K>, Option<Vec<u32>>);

/// Times `sorter` on device-resident copies of `input` (pairs with `u32` indices as
/// values when `pairs`): each round copies the pristine parts on the device (untimed),
/// then times the whole sort by the wall clock. Returns the median round's report and
/// every round's time in ms, and the sorted keys (and values) of the last round.
pub fn time_device<K: Key>(
    sorter: &MultiGpuSorter,
    input: &[K],
    pairs: bool,
    opts: &SortOptions,
    repeat: usize,
) -> crate::Result<Timed<K>> {
    let gpus = sorter.gpus();
    let orig = sorter.scatter(input)?;
    let idx: Vec<u32> = if pairs { (0..input.len() as u32).collect() } else { Vec::new() };
    let orig_idx = if pairs { Some(sorter.scatter(&idx)?) } else { None };
    let fresh = |src: &[DeviceBuffer<K>]| -> crate::Result<Vec<DeviceBuffer<K>>> {
        src.iter().zip(gpus).map(|(b, g)| copy_of(g, b)).collect()
    };
    let mut rounds: Vec<(f64, MultiGpuReport)> = Vec::new();
    let mut last = None;
    for round in 0..repeat.max(1) + 1 {
        let mut keys = fresh(&orig)?;
        let mut values = match &orig_idx {
            Some(o) => Some(o.iter().zip(gpus).map(|(b, g)| copy_of(g, b)).collect::<crate::Result<Vec<_>>>()?),
            None => None,
        };
        for g in gpus {
            g.synchronize("copying the input")?;
        }
        let t = std::time::Instant::now();
        let report = match values.as_mut() {
            Some(v) => sorter.sort_pairs_device(&mut keys, v, opts)?,
            None => sorter.sort_device(&mut keys, opts)?,
        };
        let ms = t.elapsed().as_secs_f64() * 1e3;
        if round > 0 {
            rounds.push((ms, report));
        }
        last = Some((keys, values));
    }
    let (keys, values) = last.expect("at least one round");
    let out = sorter.gather(&keys)?;
    let out_values = match values {
        Some(v) => Some(sorter.gather(&v)?),
        None => None,
    };
    let times: Vec<f64> = rounds.iter().map(|r| r.0).collect();
    let med = median(&times);
    let report = rounds
        .iter()
        .min_by(|a, b| (a.0 - med).abs().total_cmp(&(b.0 - med).abs()))
        .map(|r| r.1.clone())
        .unwrap_or_default();
    Ok((report, times, out, out_values))
}

fn copy_of<T: Element>(gpu: &crate::Gpu, b: &DeviceBuffer<T>) -> crate::Result<DeviceBuffer<T>> {
    let mut c = gpu.alloc::<T>(b.len())?;
    c.copy_from_device(gpu, b)?;
    Ok(c)
}

/// Checks sorted keys (and index values) against the input: order and the same
/// multiset; with indices, that each index points at its key and ties are in input
/// order (stability).
pub fn check<K: Element>(input: &[K], out: &[K], idx: Option<&[u32]>, order: Order) -> Result<String, String> {
    verify::check_large(input, out, order).map_err(|m| m.to_string())?;
    if let Some(idx) = idx {
        let mut seen = vec![false; input.len()];
        for (j, (&i, k)) in idx.iter().zip(out).enumerate() {
            let i = i as usize;
            if i >= input.len() || seen[i] || input[i].ord_bits(false).into() != k.ord_bits(false).into() {
                return Err(format!("value {j} (index {i}) does not carry its key"));
            }
            seen[i] = true;
            if j > 0 && k.ord_bits(false).into() == out[j - 1].ord_bits(false).into() && idx[j - 1] as usize > i {
                return Err(format!("equal keys out of input order at {j} (not stable)"));
            }
        }
        return Ok("ok (ordered, same keys, values carried, stable)".into());
    }
    Ok("ok (ordered, same multiset fingerprint as the input)".into())
}

/// The generated input of `host run --gpus N`.
pub struct RunInput {
    pub n: usize,
    pub key_type: KeyType,
    pub dist: Distribution,
    pub seed: u64,
}

/// `host run --gpus N`: the sort of device-resident keys, or with `from_host` of a host
/// vector ([`MultiGpuSorter::sort`], its copies included), timed by the wall clock.
pub fn run<K: Random + Key>(
    gpus: Gpus,
    input: &RunInput,
    order: Order,
    repeat: usize,
    check_result: bool,
    from_host: bool,
) -> crate::Result<bool> {
    let RunInput { n, key_type, dist, seed } = *input;
    let sorter = gpus.open()?;
    for g in sorter.gpus() {
        println!("device:     {}", g.info());
    }
    println!("variant:    radix on each of {} GPUs, sample sort over NCCL", sorter.len());
    println!("input:      n = {n}, type {key_type}, order {order}, dist {dist}, seed {seed}");
    inputs::ensure_host_memory::<K>(n, 2)?;
    let input: Vec<K> = inputs::generate(n, dist, seed);
    let opts = SortOptions::default().order(order);
    let (report, times, out) = if from_host {
        let mut report = MultiGpuReport::default();
        let timing = crate::measure::time_host_sort(&input, repeat, |work| {
            report = sorter.sort(work, &opts)?;
            Ok(())
        })?;
        (report, timing.times_ms, timing.output)
    } else {
        let (report, times, out, _) = time_device(&sorter, &input, false, &opts, repeat)?;
        (report, times, out)
    };
    let med = median(&times);
    let data = if from_host { "from and to host memory" } else { "device-resident data" };
    println!("time:       median {med:.3} ms over {} repeats (wall clock, {data})", times.len());
    println!("phases:     {}", phases(&report));
    println!("held:       {:?} keys per GPU (largest {:.4}x n/p)", report.held, imbalance(&report));
    println!("throughput: {:.3} Gkeys/s (median)", gkeys_per_s(n, med));
    if check_result {
        match check(&input, &out, None, order) {
            Ok(c) => println!("check:      {c}"),
            Err(m) => {
                println!("check:      FAILED: {m}");
                return Ok(false);
            }
        }
    }
    Ok(true)
}

/// `host bench --gpus 1,2`: every GPU count on the same inputs, keys or pairs.
#[allow(clippy::too_many_arguments)]
pub fn bench(
    counts: &[Gpus],
    types: &[KeyType],
    sizes: &[usize],
    dists: &[Distribution],
    order: Order,
    seed: u64,
    repeat: usize,
    pairs: bool,
    check_result: bool,
) -> crate::Result<bool> {
    let sorters = counts.iter().map(|g| g.open()).collect::<crate::Result<Vec<_>>>()?;
    for g in sorters.iter().max_by_key(|s| s.len()).map(|s| s.gpus()).unwrap_or(&[]) {
        println!("# device {}", g.info());
    }
    if let Some(widest) = sorters.iter().max_by_key(|s| s.len()) {
        match widest.peer_copy_gb_s(1 << 30) {
            Ok(Some(gb)) => println!(
                "# peer copy GPU 0 <-> GPU 1, 1 GiB each way at once: {gb:.1} GB/s (both directions; cf. exchange GB/s)"
            ),
            Ok(None) => {}
            Err(e) => println!("# peer copy GPU 0 <-> GPU 1 not measured: {e}"),
        }
    }
    println!(
        "# multi-GPU sample sort, {}, device-resident data, wall clock per sort, median of {repeat}",
        if pairs { "u32 index values" } else { "keys only" }
    );
    println!(
        "# pipe: part = partition first (exchange beside the local sorts, phases timed on the GPUs, they overlap), \
         sort = sort first (phases one after another, NCCL), sort! = sort first after uneven sampled splitters, \
         copyC = sort first with peer copies in C chunks (the merge beside the copies; merge = its share after them), \
         storeC = the same with each piece stored into its GPU by the SMs instead of the copy engines"
    );
    println!(
        "{:>4} {:>5} {:>12} {:>9} {:>10} {:>8} {:>8} {:>5} {:>9} {:>9} {:>7} {:>8} {:>6} {:>8} {:>7}",
        "gpus",
        "type",
        "n",
        "dist",
        "ms",
        "Gkeys/s",
        "speedup",
        "pipe",
        "splitters",
        "partition",
        "local",
        "exchange",
        "GB/s",
        "merge",
        "balance"
    );
    let mut ok = true;
    for &kt in types {
        for &dist in dists {
            for &n in sizes {
                ok &= crate::with_key!(kt, K => bench_one::<K>(&sorters, kt, n, dist, order, seed, repeat, pairs, check_result), else Err(crate::cli::args::records_refused("several GPUs", kt)))?;
            }
        }
    }
    Ok(ok)
}

#[allow(clippy::too_many_arguments)]
fn bench_one<K: Random + Key>(
    sorters: &[MultiGpuSorter],
    kt: KeyType,
    n: usize,
    dist: Distribution,
    order: Order,
    seed: u64,
    repeat: usize,
    pairs: bool,
    check_result: bool,
) -> crate::Result<bool> {
    let input: Vec<K> = inputs::generate(n, dist, seed);
    let opts = SortOptions::default().order(order);
    let mut base = None;
    let mut ok = true;
    for sorter in sorters {
        let (r, times, out, idx) = time_device(sorter, &input, pairs, &opts, repeat)?;
        let med = median(&times);
        let base_ms = *base.get_or_insert(med);
        println!(
            "{:>4} {:>5} {:>12} {:>9} {:>10.3} {:>8.2} {:>7.2}x {:>5} {:>9.3} {:>9.3} {:>7.3} {:>8.3} {:>6.1} {:>8.3} {:>7.4}",
            sorter.len(),
            kt.name(),
            n,
            dist.name(),
            med,
            gkeys_per_s(n, med),
            base_ms / med,
            pipe(&r),
            r.splitters_s * 1e3,
            r.partition_s * 1e3,
            r.local_sort_s * 1e3,
            r.exchange_s * 1e3,
            exchange_gb_s(&r),
            r.merge_s * 1e3,
            imbalance(&r)
        );
        if check_result && let Err(m) = check(&input, &out, idx.as_deref(), order) {
            println!("# check FAILED for {} GPUs: {m}", sorter.len());
            ok = false;
        }
    }
    Ok(ok)
}

/// `host sort --gpus N`: the whole input is read (within half the host memory
/// budget `memory`: the sort gathers into a second buffer), sorted over the GPUs and
/// written atomically.
pub fn sort_file<K: crate::file_sort::TextElement + Key>(
    gpus: Gpus,
    input: &crate::file_sort::Input,
    output: &crate::file_sort::Output,
    format: crate::file_sort::Format,
    order: Order,
    memory: u64,
) -> crate::Result<bool> {
    let sorter = gpus.open()?;
    let mut out = output.create()?;
    if format == crate::file_sort::Format::Binary
        && out.is_seekable()
        && let Some(path) = input.path()
    {
        // A length that is not a whole number of elements is refused here, as the
        // in-memory path's reader refuses it, before anything is read or written.
        let n = crate::file_sort::format::binary_len::<K>(path)?;
        if n > 0 {
            return sort_binary_streamed::<K>(&sorter, path, n, out, output, order, memory);
        }
    }
    let t = std::time::Instant::now();
    let mut data: Vec<K> = crate::file_sort::source::read_all(input, format, memory / 2).map_err(|e| match e {
        crate::Error::TooLarge(m) => crate::Error::TooLarge(format!("{m}; --gpus sorts in memory")),
        e => e,
    })?;
    let read_s = t.elapsed().as_secs_f64();
    let t = std::time::Instant::now();
    let report = sorter.sort(&mut data, &SortOptions::default().order(order))?;
    let sort_s = t.elapsed().as_secs_f64();
    let t = std::time::Instant::now();
    crate::file_sort::format::write_elements(&mut out, &data, format, sorter.tuning())?;
    out.commit()?;
    let write_s = t.elapsed().as_secs_f64();
    let line = format!(
        "sorted {} {} ({format}) into {output} on {} GPUs: read {read_s:.3} s, sort {sort_s:.3} s with transfers ({}), \
         write {write_s:.3} s",
        data.len(),
        K::NAME,
        sorter.len(),
        phases(&report)
    );
    super::files::summary(output, &line);
    Ok(true)
}

/// `--gpus` of a binary file into a regular file, without the file in host memory:
/// GPU `g` reads the `g`-th of `p` equal shares through its own pinned staging
/// buffers straight into its memory (the GPUs at once, each buffer read while the one
/// before is copied), the GPUs sort the shares together (`MultiGpuSorter::sort_device`),
/// and each GPU's range of the result streams into its place in the mapped output.
/// The file may be as large as the GPUs hold, whatever the host memory. `n`: its
/// elements ([`crate::file_sort::format::binary_len`]).
fn sort_binary_streamed<K: Key>(
    sorter: &MultiGpuSorter,
    path: &std::path::Path,
    n: usize,
    mut out: crate::file_sort::AtomicFile,
    output: &crate::file_sort::Output,
    order: Order,
    memory: u64,
) -> crate::Result<bool> {
    use crate::file_sort::output::{SizedOutput, WriteMode};
    let size = size_of::<K>();
    let file = std::fs::File::open(path)
        .map_err(|source| crate::Error::Io { context: format!("cannot read input {}", path.display()), source })?;
    let total = n * size;
    let tuning = sorter.tuning();
    let t = std::time::Instant::now();
    let (mut parts, mut stages): (Vec<_>, Vec<_>) =
        read_shares::<K>(sorter, &file, path, n as u64)?.into_iter().unzip();
    let read_s = t.elapsed().as_secs_f64();
    let t = std::time::Instant::now();
    let report = sorter.sort_device(&mut parts, &SortOptions::default().order(order))?;
    let sort_s = t.elapsed().as_secs_f64();
    let t = std::time::Instant::now();
    // The output is sized and mapped after the sort: made while the GPUs read and sorted
    // (8 GiB in /dev/shm on two H200s, 2026-11-29), reserving its space slowed the reads
    // 0.24-0.35 -> 1.2-1.9 s, and its populating threads' page faults the local sorts'
    // allocations 0.04 -> 0.63-0.65 s. A mapped output's pages stay resident until
    // written back, so past the host memory budget it goes out by positioned writes (as
    // the one-GPU pipeline does).
    let mode = WriteMode::tuned(tuning, if total as u64 <= memory { WriteMode::Mapped } else { WriteMode::Positioned });
    let mut sized = SizedOutput::new(&mut out, total, mode)?;
    sized.populate_in_background(tuning.file_populate_threads);
    let starts: Vec<usize> =
        parts.iter().scan(0, |at, part| Some(std::mem::replace(at, *at + part.len() * size))).collect();
    let items: Vec<_> = parts.iter().zip(stages.iter_mut()).zip(starts).collect();
    sorter.per_gpu(items, |gpu, ((part, stages), at)| {
        crate::file_sort::pipeline::download_into(gpu, part, part.len() * size, &sized, at, stages)?;
        gpu.synchronize("writing the output")
    })?;
    drop(parts);
    sized.finish()?;
    out.commit()?;
    let write_s = t.elapsed().as_secs_f64();
    let line = format!(
        "sorted {n} {} (binary) into {output} on {} GPUs, streamed: read {read_s:.3} s, sort {sort_s:.3} s ({}), write \
         {write_s:.3} s",
        K::NAME,
        sorter.len(),
        phases(&report)
    );
    super::files::summary(output, &line);
    Ok(true)
}

/// Each GPU's `g`-th of `p` equal shares of the `n` elements of `file` (named `path`),
/// read on a thread per GPU through that GPU's own staging buffers into its memory;
/// the staging buffers come back with the shares for writing the result.
fn read_shares<K: Key>(
    sorter: &MultiGpuSorter,
    file: &std::fs::File,
    path: &std::path::Path,
    n: u64,
) -> crate::Result<Vec<(DeviceBuffer<K>, crate::file_sort::pipeline::Stages)>> {
    use crate::file_sort::pipeline::{self, Stages};
    let (p, size, tuning) = (sorter.len(), size_of::<K>(), sorter.tuning());
    sorter.per_gpu((0..p).collect(), |gpu, g| {
        let share = crate::ranks::shard(n, g, p);
        let len = (share.end - share.start) as usize;
        let mut stages = Stages::new::<K>(gpu, tuning.file_stage_bytes, tuning.file_stages, len * size)?;
        let mut dev = gpu.alloc::<K>(len)?;
        pipeline::upload_file(gpu, file, path, share.start * size as u64, &mut dev, len * size, &mut stages)?;
        gpu.synchronize("reading the input")?;
        Ok((dev, stages))
    })
}
