//! `host bench-topk`: top-k on device-resident keys, timed on the GPU next to the full
//! radix sort and the argsort (pairs) of the same keys, and (`--select`) select_nth of
//! the k-th key.
use crate::inputs::{Random, generate};
use crate::measure::Stats;
use crate::sorter::cpu_top_k;
use crate::variants::{radix, select, topk};
use crate::{Distribution, Gpu, Key, KeyType, Order, SortOptions, Sorter, with_key};
use clap::Args;

use crate::cli::args::{check_host_memory, parse_count, parse_index_count, parse_repeat, records_refused};

/// Time top-k on the GPU (keys already on the device; the result left there, as
/// `variants::topk::top_k` returns it) and, in the same run, the radix sort of the same
/// keys and their argsort (key + u32 index pairs): medians of the repeats, CUDA events
/// around each call (host work between the launches included: the exact path's one
/// wait for its candidate count), one untimed warm-up each; sort inputs restored
/// before every repeat (untimed).
///
/// Example: host bench-topk --type u32 --n 2^26 --k 100 --repeat 10 --check;
/// host bench-topk --type f32 --n 2^26 --k 2^25 --select --check (the median's time)
#[derive(Args, Debug, Clone)]
pub struct TopkArgs {
    /// Key types (comma-separated; primitive types only).
    #[arg(long = "type", value_enum, value_delimiter = ',', default_value = "u32")]
    key_types: Vec<KeyType>,
    /// Sizes (comma-separated; each like 1000, 2^26, 1<<20 or 64M = 2^26; at most 2^32 - 1,
    /// top-k returns u32 indices).
    #[arg(long, value_delimiter = ',', value_parser = parse_index_count, default_value = "2^26")]
    n: Vec<usize>,
    /// How many keys to select (comma-separated).
    #[arg(long, value_delimiter = ',', value_parser = parse_count, default_value = "100")]
    k: Vec<usize>,
    /// Input distribution of the keys.
    #[arg(long, value_enum, default_value_t = Distribution::Uniform)]
    dist: Distribution,
    /// Ascending: the k smallest; descending: the k largest.
    #[arg(long, value_enum, default_value_t = Order::Ascending)]
    order: Order,
    /// Timed repeats (1 to 1000000).
    #[arg(long, default_value_t = 10, value_parser = parse_repeat)]
    repeat: usize,
    /// Check the last top-k result against the CPU's (`cpu_top_k`).
    #[arg(long)]
    check: bool,
    /// Time the exact path (radix select, compaction, radix sort of the candidates)
    /// whatever `k` is, to compare it with the planned path.
    #[arg(long)]
    exact: bool,
    /// Also time select_nth of position k - 1 (the k-th key of the sort, what top-k's
    /// last key is; `torch.kthvalue(x, k)` ascending) and check it against the CPU's.
    #[arg(long)]
    select: bool,
}

pub fn bench_topk(args: &TopkArgs) -> crate::Result<bool> {
    // The keys, the indices of the argsort and the CPU's top-k for the check.
    check_host_memory(&args.key_types, &args.n, 3)?;
    let sorter = Sorter::new_tuned(super::tuning().clone())?;
    let gpu = sorter.gpu().expect("Sorter::new has a GPU");
    println!("device: {}", gpu.info());
    if args.exact {
        println!("top-k: the exact path (radix select) for every k");
    }
    println!(
        "{:<6} {:>12} {:>9} {:>11} {:>10} {:>12} {:>10} {:>12}  check{}",
        "type",
        "n",
        "k",
        "top-k ms",
        "sort ms",
        "argsort ms",
        "vs sort",
        "vs argsort",
        if args.select { "  select_nth ms  check" } else { "" }
    );
    let mut ok = true;
    for &kt in &args.key_types {
        for &n in &args.n {
            for &k in &args.k {
                match with_key!(kt, K => one::<K>(gpu, n, k, args), else Err(records_refused("top-k", kt))) {
                    Ok(r) => {
                        ok &= r.check != "FAILED";
                        let select = match &r.select {
                            Some((stats, check)) => {
                                ok &= *check != "FAILED";
                                format!("  {:>13.4}  {check}", stats.median_ms)
                            }
                            None => String::new(),
                        };
                        println!(
                            "{:<6} {:>12} {:>9} {:>11.4} {:>10.4} {:>12.4} {:>9.2}x {:>11.2}x  {}{select}",
                            kt.name(),
                            n,
                            k,
                            r.topk.median_ms,
                            r.sort.median_ms,
                            r.argsort.median_ms,
                            r.sort.median_ms / r.topk.median_ms,
                            r.argsort.median_ms / r.topk.median_ms,
                            r.check
                        );
                    }
                    Err(e) => {
                        ok = false;
                        println!("{:<6} {:>12} {:>9}  error: {e}", kt.name(), n, k);
                    }
                }
            }
        }
    }
    Ok(ok)
}

struct Row {
    topk: Stats,
    sort: Stats,
    argsort: Stats,
    check: &'static str,
    /// select_nth of position k - 1, with its check.
    select: Option<(Stats, &'static str)>,
}

/// select_nth of position `k - 1` of `k0` timed (`repeats` after a warm-up) and, with
/// `check`, compared with the CPU's (`cpu::select`).
fn time_select<K: Key>(
    gpu: &Gpu,
    keys: &[K],
    k0: &crate::DeviceBuffer<K>,
    k: usize,
    args: &TopkArgs,
) -> crate::Result<(Stats, &'static str)> {
    let at = k.clamp(1, keys.len()) - 1;
    let mut got = None;
    let mut times = Vec::with_capacity(args.repeat);
    for i in 0..args.repeat + 1 {
        let ms = gpu.time_ms(|| {
            got = Some(select::select_nth(gpu, k0, at, args.order)?);
            Ok(())
        })?;
        if i > 0 {
            times.push(ms);
        }
    }
    let check = if args.check {
        let want = crate::cpu::select::select_nth(keys, at, args.order);
        if got.map(|g| g.bits()) == want.map(|w| w.bits()) { "ok" } else { "FAILED" }
    } else {
        "skipped"
    };
    Ok((Stats::of(&times), check))
}

fn one<K: Key + Random>(gpu: &Gpu, n: usize, k: usize, args: &TopkArgs) -> crate::Result<Row> {
    let keys: Vec<K> = generate(n, args.dist, 42);
    let k0 = gpu.upload(&keys)?;
    let repeats = args.repeat;
    let path = if args.exact { topk::PathChoice::Exact } else { topk::PathChoice::Planned };

    let mut result = None;
    let mut times = Vec::with_capacity(repeats);
    for i in 0..repeats + 1 {
        let ms = gpu.time_ms(|| {
            result = Some(topk::top_k_on(gpu, &k0, k, args.order, path)?);
            Ok(())
        })?;
        if i > 0 {
            times.push(ms);
        }
    }
    let topk = Stats::of(&times);
    let check = if args.check {
        let (dk, di) = result.as_ref().expect("at least one repeat");
        let (ck, ci) = cpu_top_k(&keys, k, args.order);
        let same_keys = dk.to_vec(gpu)?.iter().map(|x| x.bits()).eq(ck.iter().map(|x| x.bits()));
        if same_keys && di.to_vec(gpu)? == ci { "ok" } else { "FAILED" }
    } else {
        "skipped"
    };
    drop(result);

    let opts = SortOptions::default().order(args.order);
    let mut buf = gpu.alloc::<K>(n)?;
    let mut times = Vec::with_capacity(repeats);
    for i in 0..repeats + 1 {
        buf.copy_from_device(gpu, &k0)?;
        let ms = gpu.time_ms(|| radix::sort(gpu, &mut buf, &opts))?;
        if i > 0 {
            times.push(ms);
        }
    }
    let sort = Stats::of(&times);

    let idx: Vec<u32> = (0..n as u32).collect();
    let v0 = gpu.upload(&idx)?;
    let mut vals = gpu.alloc::<u32>(n)?;
    let mut times = Vec::with_capacity(repeats);
    for i in 0..repeats + 1 {
        buf.copy_from_device(gpu, &k0)?;
        vals.copy_from_device(gpu, &v0)?;
        let ms = gpu.time_ms(|| radix::sort_pairs(gpu, &mut buf, &mut vals, args.order, None))?;
        if i > 0 {
            times.push(ms);
        }
    }
    let argsort = Stats::of(&times);
    let select = if args.select && n > 0 { Some(time_select(gpu, &keys, &k0, k, args)?) } else { None };
    Ok(Row { topk, sort, argsort, check, select })
}
