//! `host bench-ops`: the operations after a sort on device-resident keys, timed on the
//! GPU: run-length encoding of sorted keys (`unique_consecutive` with counts), `unique`
//! with counts of unsorted keys (sort included), and searchsorted of sorted and of
//! unsorted queries, next to a device-to-device copy of the keys (the bandwidth
//! floor). Inputs as `carry/anchors/torch_anchor.py` makes them: for the encoding, `n`
//! keys uniform in `0..2^20`, sorted; for the search, `n` keys and `m` queries uniform
//! in `0..2^31 - 1`, the keys sorted.
use std::path::{Path, PathBuf};

use crate::cpu::{runs as cpu_runs, searchsorted as cpu_search};
use crate::measure::Stats;
use crate::variants::runs::{self, Encoder};
use crate::variants::searchsorted::{self, QueryOrder, Side, SortedMerge, Strategy, UnsortedSearch};
use crate::{Gpu, Key, KeyType, Sorter, with_key};
use clap::Args;
use kernels::key::BitOrder;

use crate::cli::args::{check_host_memory, parse_count, parse_index_count, parse_repeat, records_refused};

/// Time the run-length encoding, unique with counts and searchsorted on the GPU (keys
/// already on the device, results left there): medians of the repeats, CUDA events
/// around each call (the encoding's one wait for its run count included), one
/// untimed warm-up each.
///
/// Example: host bench-ops --type u32 --n 2^26 --queries 2^24 --repeat 20 --check
#[derive(Args, Debug, Clone)]
pub struct OpsArgs {
    /// Key types (comma-separated; primitive types only).
    #[arg(long = "type", value_enum, value_delimiter = ',', default_value = "u32")]
    key_types: Vec<KeyType>,
    /// Keys (comma-separated sizes; each like 1000, 2^26, 1<<20; at most 2^32 - 1: run
    /// lengths are u32).
    #[arg(long, value_delimiter = ',', value_parser = parse_index_count, default_value = "2^26")]
    n: Vec<usize>,
    /// Queries of the search (comma-separated; 0: a quarter of the keys, the anchor's
    /// 2^24 in 2^26). Each count is a row of its own.
    #[arg(long, value_delimiter = ',', value_parser = parse_count, default_value = "0")]
    queries: Vec<usize>,
    /// Distinct values of the encoding's keys (they are uniform in 0..this).
    #[arg(long, value_parser = parse_count, default_value = "2^20")]
    values: usize,
    /// Timed repeats (1 to 1000000).
    #[arg(long, default_value_t = 10, value_parser = parse_repeat)]
    repeat: usize,
    /// Check every result against the CPU backend's.
    #[arg(long)]
    check: bool,
    /// Write the inputs and results as raw little-endian files into this folder (for a
    /// comparison with numpy: `<type>-<n>-<name>.bin`).
    #[arg(long)]
    dump: Option<PathBuf>,
}

pub fn bench_ops(args: &OpsArgs) -> crate::Result<bool> {
    // Keys, queries, the CPU's results.
    check_host_memory(&args.key_types, &args.n, 6)?;
    let sorter = Sorter::new_tuned(super::tuning().clone())?;
    let gpu = sorter.gpu().expect("Sorter::new has a GPU");
    println!("device: {}", gpu.info());
    println!(
        "{:<5} {:>10} {:>10} {:>9} {:>9} {:>8} {:>9} {:>10} {:>10} {:>10}  check",
        "type", "n", "queries", "copy ms", "rle ms", "copy/rle", "runs", "unique ms", "search ms", "unsorted ms"
    );
    let mut ok = true;
    for &kt in &args.key_types {
        for (&n, &queries) in args.n.iter().flat_map(|n| args.queries.iter().map(move |q| (n, q))) {
            let m = if queries == 0 { n / 4 } else { queries };
            match with_key!(kt, K => one::<K>(gpu, n, m, args), else Err(records_refused("bench-ops", kt))) {
                Ok(r) => {
                    ok &= r.check != "FAILED";
                    println!(
                        "{:<5} {:>10} {:>10} {:>9.4} {:>9.4} {:>7.0}% {:>9} {:>10.4} {:>10.4} {:>10.4}  {}",
                        kt.name(),
                        n,
                        r.m,
                        r.copy.median_ms,
                        r.rle.median_ms,
                        100.0 * r.copy.median_ms / r.rle.median_ms,
                        r.runs,
                        r.unique.median_ms,
                        r.search.median_ms,
                        r.unsorted.median_ms,
                        r.check
                    );
                    let encoders: Vec<String> =
                        r.encoders.iter().map(|(e, t)| format!("{e:?} {:.4} ms", t.median_ms)).collect();
                    let merges: Vec<String> =
                        r.merges.iter().map(|(e, t)| format!("{e:?} {:.4} ms", t.median_ms)).collect();
                    let searches: Vec<String> =
                        r.unsorted_by.iter().map(|(e, t)| format!("{e:?} {:.4} ms", t.median_ms)).collect();
                    println!(
                        "      into reused buffers: encoders {}; sorted-query merges {}; unsorted searches {} (chosen: {:?})",
                        encoders.join(", "),
                        merges.join(", "),
                        searches.join(", "),
                        r.chosen
                    );
                    if let Some(c) = &r.nan_check {
                        println!(
                            "      NaN/-0.0 check of the search keys: {:.4} ms ({:.0} GB/s read)",
                            c.median_ms,
                            r.copy_bytes / 2.0 / c.median_ms / 1e6
                        );
                    }
                    println!(
                        "      into reused buffers: rle {:.4} ms, search {:.4} ms; rle {:.0} GB/s (keys read, runs written; {:.0}% of the copy's {:.0} GB/s), search {:.0} GB/s (keys and queries read, u64 answers written)",
                        r.rle_into.median_ms,
                        r.search_into.median_ms,
                        r.rle_bytes / r.rle_into.median_ms / 1e6,
                        100.0 * (r.rle_bytes / r.rle_into.median_ms) / (r.copy_bytes / r.copy.median_ms),
                        r.copy_bytes / r.copy.median_ms / 1e6,
                        r.search_bytes / r.search_into.median_ms / 1e6,
                    );
                }
                Err(e) => {
                    ok = false;
                    println!("{:<5} {:>10}  error: {e}", kt.name(), n);
                }
            }
        }
    }
    Ok(ok)
}

struct Row {
    m: usize,
    /// Each encoder into reused buffers.
    encoders: Vec<(Encoder, Stats)>,
    /// Each merge of sorted queries into a reused buffer.
    merges: Vec<(SortedMerge, Stats)>,
    /// Each search of unsorted queries into a reused buffer.
    unsorted_by: Vec<(UnsortedSearch, Stats)>,
    /// The search of unsorted queries the library chooses for these sizes.
    chosen: UnsortedSearch,
    /// The NaN / `-0.0` check of the search keys (float keys only).
    nan_check: Option<Stats>,
    copy: Stats,
    rle: Stats,
    /// Into reused buffers: no allocation in the timing.
    rle_into: Stats,
    search_into: Stats,
    runs: usize,
    unique: Stats,
    search: Stats,
    unsorted: Stats,
    rle_bytes: f64,
    copy_bytes: f64,
    search_bytes: f64,
    check: &'static str,
}

/// A key of value `v` (below 2^31): the integer itself (narrow integers: its low bits),
/// or the float nearest to that value.
fn key_of<K: Key>(v: u64) -> K {
    let bits = match (K::KEY_ORDER, size_of::<K>()) {
        (BitOrder::Float, 2) if K::MANTISSA_BITS == 10 => half::f16::from_f64(v as f64).to_bits() as u64,
        (BitOrder::Float, 2) => half::bf16::from_f64(v as f64).to_bits() as u64,
        (BitOrder::Float, 4) => (v as f32).to_bits() as u64,
        (BitOrder::Float, _) => (v as f64).to_bits(),
        _ => v,
    };
    bytemuck::pod_read_unaligned(&bits.to_le_bytes()[..size_of::<K>()])
}

/// `n` values uniform in `0..range` (splitmix64, seeded).
fn uniform<K: Key>(n: usize, range: u64, seed: u64) -> Vec<K> {
    use rayon::prelude::*;
    (0..n as u64)
        .into_par_iter()
        .map(|i| {
            let mut z = seed.wrapping_add((i + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15));
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            key_of((z ^ (z >> 31)) % range)
        })
        .collect()
}

/// Median of `repeat` timed calls of `work` after one untimed one.
fn time(gpu: &Gpu, repeat: usize, mut work: impl FnMut() -> crate::Result<()>) -> crate::Result<Stats> {
    let mut times = Vec::with_capacity(repeat);
    for i in 0..repeat + 1 {
        let ms = gpu.time_ms(&mut work)?;
        if i > 0 {
            times.push(ms);
        }
    }
    Ok(Stats::of(&times))
}

fn one<K: Key>(gpu: &Gpu, n: usize, m: usize, args: &OpsArgs) -> crate::Result<Row> {
    let width = size_of::<K>() as f64;
    let mut sorted_few: Vec<K> = uniform(n, args.values.max(1) as u64, 1);
    crate::cpu::sort(&mut sorted_few, crate::Order::Ascending);
    let few = gpu.upload(&sorted_few)?;

    let mut copy_dst = gpu.alloc::<K>(n)?;
    let copy = time(gpu, args.repeat, || copy_dst.copy_from_device(gpu, &few))?;
    drop(copy_dst);

    let mut rle_out = None;
    let rle = time(gpu, args.repeat, || {
        rle_out = Some(runs::run_length_encode(gpu, &few)?);
        Ok(())
    })?;
    let (rk, rc) = rle_out.expect("at least one repeat");
    let run_count = rk.len();
    let (mut ok_keys, mut ok_counts) = (gpu.alloc::<K>(n)?, gpu.alloc::<u32>(n)?);
    let rle_into =
        time(gpu, args.repeat, || runs::run_length_encode_into(gpu, &few, &mut ok_keys, &mut ok_counts).map(|_| ()))?;
    // Both encoders on the same keys into the same buffers, each checked below.
    let mut by_encoder = Vec::new();
    for encoder in [Encoder::LookBack, Encoder::Split] {
        let mut got = 0;
        let stats = time(gpu, args.repeat, || {
            got = runs::run_length_encode_into_by(gpu, &few, &mut ok_keys, &mut ok_counts, encoder)?;
            Ok(())
        })?;
        let result = (ok_keys.to_vec(gpu)?[..got].to_vec(), ok_counts.to_vec(gpu)?[..got].to_vec());
        by_encoder.push((encoder, stats, result));
    }
    drop((ok_keys, ok_counts));

    // Unique of the same keys unsorted: the encoding's input before its sort.
    let unsorted_few = gpu.upload(&uniform::<K>(n, args.values.max(1) as u64, 1))?;
    let mut uniq_out = None;
    let unique = time(gpu, args.repeat, || {
        uniq_out = Some(runs::unique_counts(gpu, &unsorted_few)?);
        Ok(())
    })?;

    let range = (1u64 << 31) - 1;
    let mut keys_host: Vec<K> = uniform(n, range, 2);
    crate::cpu::sort(&mut keys_host, crate::Order::Ascending);
    let queries_host: Vec<K> = uniform(m, range, 3);
    let mut sorted_queries_host = queries_host.clone();
    crate::cpu::sort(&mut sorted_queries_host, crate::Order::Ascending);
    let (keys, queries, sorted_queries) =
        (gpu.upload(&keys_host)?, gpu.upload(&queries_host)?, gpu.upload(&sorted_queries_host)?);
    let mut merged = None;
    let search = time(gpu, args.repeat, || {
        merged = Some(searchsorted::searchsorted(gpu, &keys, &sorted_queries, Side::Left, QueryOrder::Sorted)?);
        Ok(())
    })?;
    let mut searched = None;
    let unsorted = time(gpu, args.repeat, || {
        searched = Some(searchsorted::searchsorted(gpu, &keys, &queries, Side::Left, QueryOrder::Unsorted)?);
        Ok(())
    })?;
    let (merged, searched) = (merged.expect("a repeat"), searched.expect("a repeat"));
    let mut found = false;
    let nan_check = if K::KEY_ORDER == BitOrder::Float {
        Some(time(gpu, args.repeat, || {
            found = crate::variants::nan::has_nan_or_negative_zero(gpu, &keys)?;
            Ok(())
        })?)
    } else {
        None
    };
    let mut out = gpu.alloc::<u64>(m)?;
    let search_into = time(gpu, args.repeat, || {
        searchsorted::searchsorted_into(gpu, &keys, &sorted_queries, Side::Left, QueryOrder::Sorted, &mut out)
    })?;
    // Both merges into the same buffer, each checked below.
    let mut by_merge = Vec::new();
    for merge in [SortedMerge::Binary, SortedMerge::Gallop] {
        let strategy = Strategy { merge, unsorted: None };
        let (stats, left, right) = time_search(gpu, args.repeat, &keys, &sorted_queries, QueryOrder::Sorted, strategy)?;
        by_merge.push((merge, stats, left, right));
    }
    // Both searches of unsorted queries, each checked below.
    let mut by_search = Vec::new();
    for search in [UnsortedSearch::Binary, UnsortedSearch::SortMerge] {
        let strategy = Strategy { merge: SortedMerge::DEFAULT, unsorted: Some(search) };
        let (stats, left, right) = time_search(gpu, args.repeat, &keys, &queries, QueryOrder::Unsorted, strategy)?;
        by_search.push((search, stats, left, right));
    }
    drop(out);

    let (uk, uc) = uniq_out.expect("a repeat");
    let right_sorted = searchsorted::searchsorted(gpu, &keys, &sorted_queries, Side::Right, QueryOrder::Sorted)?;
    let right_unsorted = searchsorted::searchsorted(gpu, &keys, &queries, Side::Right, QueryOrder::Unsorted)?;
    let results = Results {
        rle: (rk.to_vec(gpu)?, rc.to_vec(gpu)?),
        unique: (uk.to_vec(gpu)?, uc.to_vec(gpu)?),
        left: (merged.to_vec(gpu)?, searched.to_vec(gpu)?),
        right: (right_sorted.to_vec(gpu)?, right_unsorted.to_vec(gpu)?),
    };
    let check = if args.check {
        let want = cpu_runs::run_length_encode(&sorted_few);
        let rle_ok = same_runs(&results.rle, &want) && by_encoder.iter().all(|(_, _, got)| same_runs(got, &want));
        let unique_ok = same_runs(&results.unique, &cpu_runs::unique_counts(&unsorted_few.to_vec(gpu)?));
        // Each CPU answer once: (sorted queries, unsorted queries) x (left, right).
        let l = |q: &[K], right| cpu_search::searchsorted(&keys_host, q, right);
        let (sorted_left, sorted_right) = (l(&sorted_queries_host, false), l(&sorted_queries_host, true));
        let (unsorted_left, unsorted_right) = (l(&queries_host, false), l(&queries_host, true));
        let merges_ok = by_merge.iter().all(|(_, _, left, right)| *left == sorted_left && *right == sorted_right);
        let searches_ok =
            by_search.iter().all(|(_, _, left, right)| *left == unsorted_left && *right == unsorted_right);
        let search_ok = merges_ok
            && searches_ok
            && results.left.0 == sorted_left
            && results.left.1 == unsorted_left
            && results.right.0 == sorted_right
            && results.right.1 == unsorted_right;
        // The keys are finite and not below zero (`-0.0` cannot occur).
        let nan_ok = !found;
        if rle_ok && unique_ok && search_ok && nan_ok { "ok" } else { "FAILED" }
    } else {
        "skipped"
    };
    if let Some(dir) = &args.dump {
        let name = |what: &str| dir.join(format!("{}-{n}-{what}.bin", K::NAME));
        std::fs::create_dir_all(dir).map_err(|e| io_error("create", dir, e))?;
        dump(&name("unique_in"), &unsorted_few.to_vec(gpu)?)?;
        dump(&name("unique_keys"), &results.unique.0)?;
        dump(&name("unique_counts"), &results.unique.1)?;
        dump(&name("rle_in"), &sorted_few)?;
        dump(&name("rle_keys"), &results.rle.0)?;
        dump(&name("rle_counts"), &results.rle.1)?;
        dump(&name("search_keys"), &keys_host)?;
        dump(&name("search_queries"), &queries_host)?;
        dump(&name("search_left"), &results.left.1)?;
        dump(&name("search_right"), &results.right.1)?;
        dump(&name("search_sorted_queries"), &sorted_queries_host)?;
        dump(&name("search_sorted_left"), &results.left.0)?;
        dump(&name("search_sorted_right"), &results.right.0)?;
    }
    Ok(Row {
        m,
        encoders: by_encoder.into_iter().map(|(e, t, _)| (e, t)).collect(),
        merges: by_merge.into_iter().map(|(e, t, _, _)| (e, t)).collect(),
        unsorted_by: by_search.into_iter().map(|(e, t, _, _)| (e, t)).collect(),
        chosen: UnsortedSearch::for_sizes(n as u64, m as u64, size_of::<K>() as u64),
        nan_check,
        copy,
        rle,
        rle_into,
        search_into,
        runs: run_count,
        unique,
        search,
        unsorted,
        rle_bytes: n as f64 * width + run_count as f64 * (width + 4.0),
        copy_bytes: 2.0 * n as f64 * width,
        search_bytes: (n + m) as f64 * width + m as f64 * 8.0,
        check,
    })
}

/// `searchsorted_into_by` of `queries` in `keys` by `strategy` timed into a reused
/// buffer (`Left`), then its answers read back for both sides: (time, left, right).
fn time_search<K: Key>(
    gpu: &Gpu,
    repeat: usize,
    keys: &crate::DeviceBuffer<K>,
    queries: &crate::DeviceBuffer<K>,
    order: QueryOrder,
    strategy: Strategy,
) -> crate::Result<(Stats, Vec<u64>, Vec<u64>)> {
    let mut out = gpu.alloc::<u64>(queries.len())?;
    let stats = time(gpu, repeat, || {
        searchsorted::searchsorted_into_by(gpu, keys, queries, Side::Left, order, strategy, &mut out)
    })?;
    let left = out.to_vec(gpu)?;
    searchsorted::searchsorted_into_by(gpu, keys, queries, Side::Right, order, strategy, &mut out)?;
    Ok((stats, left, out.to_vec(gpu)?))
}

/// The device's results, read back.
struct Results<K> {
    rle: (Vec<K>, Vec<u32>),
    unique: (Vec<K>, Vec<u32>),
    /// (sorted queries, unsorted queries)
    left: (Vec<u64>, Vec<u64>),
    right: (Vec<u64>, Vec<u64>),
}

fn same_runs<K: Key>(a: &(Vec<K>, Vec<u32>), b: &(Vec<K>, Vec<u32>)) -> bool {
    a.1 == b.1 && bytemuck::cast_slice::<K, u8>(&a.0) == bytemuck::cast_slice::<K, u8>(&b.0)
}

fn dump<T: bytemuck::Pod>(path: &Path, data: &[T]) -> crate::Result<()> {
    std::fs::write(path, bytemuck::cast_slice::<T, u8>(data)).map_err(|e| io_error("write", path, e))
}

fn io_error(what: &str, path: &Path, source: std::io::Error) -> crate::Error {
    crate::Error::Io { context: format!("cannot {what} {}", path.display()), source }
}
