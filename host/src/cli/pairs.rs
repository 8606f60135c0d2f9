//! `host bench-pairs`: the sort of key-value pairs (radix or mergepath) and argsort,
//! timed on the GPU.
use crate::inputs::{Random, generate};
use crate::measure::{Stats, gkeys_per_s, time_rounds};
use crate::variants::{mergepath, radix};
use crate::{Distribution, Element, Error, Key, KeyOrder, KeyType, NanOrder, Order, Sorter, Ties, Variant, with_key};
use clap::{Args, ValueEnum};

use crate::cli::args::{check_host_memory, parse_index_count, parse_repeat, records_refused};

/// The value carried with each key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ValueKind {
    /// A u32 per key (for argsort: the key's index).
    U32,
    /// A u64 per key.
    U64,
}

/// Time the sort of (key, value) pairs on the GPU: median of the repeats, CUDA events
/// around the sort only, the input restored before each repeat (untimed). The output
/// of the last repeat is checked: keys in order, each value the index of an input
/// element with that key, used once, and equal keys in input order (stable).
///
/// Example: host bench-pairs --type u32 --values u32 --n 2^20,2^24,2^28
/// (`--variant mergepath` for the merge-path sort of pairs)
#[derive(Args, Debug, Clone)]
pub struct PairsArgs {
    /// Key types (comma-separated; primitive types only).
    #[arg(long = "type", value_enum, value_delimiter = ',', default_value = "u32")]
    key_types: Vec<KeyType>,
    /// Value type.
    #[arg(long, value_enum, default_value_t = ValueKind::U32)]
    values: ValueKind,
    /// The pair sort: radix or mergepath.
    #[arg(long, value_enum, default_value_t = Variant::Radix)]
    variant: Variant,
    /// Sizes (comma-separated; each like 1000, 2^24, 1<<20 or 16M = 2^24; at most 2^32 - 1,
    /// the values are u32 indices).
    #[arg(long, value_delimiter = ',', value_parser = parse_index_count, default_value = "2^20,2^24")]
    n: Vec<usize>,
    /// Input distribution of the keys.
    #[arg(long, value_enum, default_value_t = Distribution::Uniform)]
    dist: Distribution,
    /// Sort direction.
    #[arg(long, value_enum, default_value_t = Order::Ascending)]
    order: Order,
    /// Timed repeats (1 to 1000000).
    #[arg(long, default_value_t = 10, value_parser = parse_repeat)]
    repeat: usize,
    /// Skip the CPU check of the last output (large n: the check takes seconds).
    #[arg(long)]
    no_check: bool,
    /// Also time the device argsort of the same keys (`radix::argsort_into`: 32-bit
    /// keys past the one-block size by the argsort passes, which read the keys in
    /// place and make the indices; others by a copy paired with `0..n`) and its ratio
    /// to the pair sort.
    #[arg(long)]
    argsort: bool,
    /// With `--argsort`: the indices as `u64` (an int64 tensor's), written at that
    /// width by the sort's last pass.
    #[arg(long)]
    index64: bool,
    /// With `--argsort`: where NaNs of float keys sort, `total` (IEEE total order) or
    /// `last` (numpy's order: every NaN after +inf ascending, -0.0 equal to +0.0; the
    /// argsort passes map the keys as they read them). Pairs sort in total order.
    #[arg(long, value_enum, default_value_t = NanOrder::Total)]
    nan: NanOrder,
    /// With `--argsort`: how equal keys are ordered, `stable` (input order) or `any`
    /// (the argsort whose first pass ranks ties in any order; checked as a sorting
    /// permutation, not against the stable one).
    #[arg(long, value_enum, default_value_t = Ties::Stable)]
    ties: Ties,
}

pub fn bench_pairs(args: &PairsArgs) -> crate::Result<bool> {
    // Keys and values, and their sorted copies.
    check_host_memory(&args.key_types, &args.n, 4)?;
    let sorter = Sorter::new_tuned(super::tuning().clone())?;
    let gpu = sorter.gpu().expect("Sorter::new has a GPU");
    println!("device: {} ({})", gpu.info(), gpu.kernels_summary());
    println!("pair sort: {}", args.variant);
    println!("{:<8} {:<6} {:>12} {:>10} {:>10} {:>11}  check", "keys", "values", "n", "median ms", "min ms", "Gkeys/s");
    let mut ok = true;
    for &kt in &args.key_types {
        for &n in &args.n {
            let r = with_key!(kt, K => match args.values {
                ValueKind::U32 => one::<K, u32>(&sorter, n, args),
                ValueKind::U64 => one::<K, u64>(&sorter, n, args),
            }, else Err(records_refused("pairs", kt)));
            match r {
                Ok((stats, check)) => {
                    ok &= check != "FAILED";
                    println!(
                        "{:<8} {:<6} {:>12} {:>10.3} {:>10.3} {:>11.2}  {check}",
                        kt.name(),
                        format!("{:?}", args.values).to_lowercase(),
                        n,
                        stats.median_ms,
                        stats.min_ms,
                        gkeys_per_s(n, stats.median_ms)
                    );
                    if args.argsort {
                        match with_key!(kt, K => time_argsort::<K>(&sorter, n, args), else Err(records_refused("argsort", kt)))
                        {
                            Ok((a, check)) => {
                                ok &= check != "FAILED";
                                println!(
                                    "{:<8} {:<6} {:>12} {:>10.3} {:>10.3} {:>11.2}  {check}; {:.2}x the pair sort",
                                    kt.name(),
                                    "argsort",
                                    n,
                                    a.median_ms,
                                    a.min_ms,
                                    gkeys_per_s(n, a.median_ms),
                                    a.median_ms / stats.median_ms
                                );
                            }
                            Err(e) => {
                                ok = false;
                                println!("{:<8} {:>12}  argsort error: {e}", kt.name(), n);
                            }
                        }
                    }
                }
                Err(e) => {
                    ok = false;
                    println!("{:<8} {:>12}  error: {e}", kt.name(), n);
                }
            }
        }
    }
    Ok(ok)
}

fn one<K: Key + Random, W: Element + From<u32> + Into<u64>>(
    sorter: &Sorter,
    n: usize,
    args: &PairsArgs,
) -> crate::Result<(Stats, &'static str)> {
    if !matches!(args.variant, Variant::Radix | Variant::Mergepath) {
        return Err(Error::BadArgument(format!("pairs are sorted by radix or mergepath, not {}", args.variant)));
    }
    let gpu = sorter.gpu().expect("GPU sorter");
    let keys: Vec<K> = generate(n, args.dist, 42);
    let vals: Vec<W> = (0..n as u32).map(W::from).collect();
    let (k0, v0) = (gpu.upload(&keys)?, gpu.upload(&vals)?);
    let (mut k, mut v) = (gpu.alloc::<K>(n)?, gpu.alloc::<W>(n)?);
    let stats = time_rounds(args.repeat, || {
        k.copy_from_device(gpu, &k0)?;
        v.copy_from_device(gpu, &v0)?;
        gpu.time_ms(|| match args.variant {
            Variant::Mergepath => mergepath::sort_pairs(gpu, &mut k, &mut v, args.order),
            _ => radix::sort_pairs(gpu, &mut k, &mut v, args.order, None),
        })
    })?;
    let check = if args.no_check {
        "skipped"
    } else {
        let (gk, gv) = (k.to_vec(gpu)?, v.to_vec(gpu)?);
        let desc = args.order.is_descending();
        let ordered = gk.windows(2).all(|w| w[0].ord_bits(desc) <= w[1].ord_bits(desc));
        // Every value is an input index, used once, that holds the key beside it.
        let mut seen = vec![false; n];
        let consistent = gv.iter().zip(&gk).all(|(&i, key)| {
            let i: u64 = i.into();
            (i as usize) < n && keys[i as usize].bits() == key.bits() && !std::mem::replace(&mut seen[i as usize], true)
        });
        // Stable: among equal keys the input indices increase.
        let stable =
            gv.windows(2).zip(gk.windows(2)).all(|(v, k)| k[0].bits() != k[1].bits() || v[0].into() < v[1].into());
        if ordered && consistent && stable { "ok" } else { "FAILED" }
    };
    Ok((stats, check))
}

/// The device argsort of generated keys (indices `u64` with `--index64`, else `u32`):
/// median of the repeats (the keys are not modified, so nothing is restored), checked
/// like the pairs.
fn time_argsort<K: Key + Random>(sorter: &Sorter, n: usize, args: &PairsArgs) -> crate::Result<(Stats, &'static str)> {
    if args.index64 { time_argsort_as::<K, u64>(sorter, n, args) } else { time_argsort_as::<K, u32>(sorter, n, args) }
}

fn time_argsort_as<K: Key + Random, I: crate::Index>(
    sorter: &Sorter,
    n: usize,
    args: &PairsArgs,
) -> crate::Result<(Stats, &'static str)> {
    let gpu = sorter.gpu().expect("GPU sorter");
    let keys: Vec<K> = generate(n, args.dist, 42);
    let k = gpu.upload(&keys)?;
    let mut idx = gpu.alloc::<I>(n)?;
    let order = KeyOrder::new(args.order, args.nan);
    let run = |idx: &mut crate::DeviceBuffer<I>| radix::argsort_ordered_into(gpu, &k, idx, order, None, args.ties);
    let stats = time_rounds(args.repeat, || gpu.time_ms(|| run(&mut idx)))?;
    let check = if args.no_check {
        "skipped"
    } else {
        let perm = idx.to_vec(gpu)?;
        let want = Sorter::cpu().argsort(&keys, &crate::SortOptions::default().order(args.order).nan(args.nan))?;
        let ok = match args.ties {
            Ties::Stable => perm.len() == want.len() && perm.iter().zip(&want).all(|(&p, &w)| p == I::from_index(w)),
            Ties::Any => crate::verify::is_sorting_permutation(&keys, &perm, &want, order),
        };
        if ok { "ok" } else { "FAILED" }
    };
    Ok((stats, check))
}
