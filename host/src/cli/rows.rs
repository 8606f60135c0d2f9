//! `host bench-rows`: the row-wise sort, argsort and top-k of a row-major matrix on
//! device-resident data, timed on the GPU.
use crate::inputs::{Random, generate};
use crate::measure::{Stats, gkeys_per_s, time_rounds};
use crate::variants::rows;
use crate::{Distribution, Key, KeyOrder, KeyType, NanOrder, Order, SortOptions, Sorter, with_key};
use clap::{Args, ValueEnum};

use crate::cli::args::{check_host_memory, parse_count, parse_repeat, records_refused};

/// Time row-wise operations on the GPU: a `rows` x `cols` row-major matrix already on
/// the device (f32: uniform in [0, 1) like `torch.rand`; other types: `--dist`), CUDA
/// events around each call, medians of the repeats after one warm-up, the sort's input
/// restored before every repeat (untimed).
///
/// Examples: host bench-rows --rows 4096 --cols 4096 --op sort --check;
/// host bench-rows --rows 128 --cols 50257 --op topk --k 50 --order desc --check
#[derive(Args, Debug, Clone)]
pub struct RowsArgs {
    /// Key types (comma-separated; primitive types only).
    #[arg(long = "type", value_enum, value_delimiter = ',', default_value = "f32")]
    key_types: Vec<KeyType>,
    /// Rows of the matrix.
    #[arg(long, value_parser = parse_count, default_value = "4096")]
    rows: usize,
    /// Columns of the matrix (rows x cols at most 2^32 - 1).
    #[arg(long, value_parser = parse_count, default_value = "4096")]
    cols: usize,
    /// Operations (comma-separated): sort_rows, argsort_rows, top_k_rows.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "sort,argsort,topk")]
    op: Vec<RowOp>,
    /// k of top-k (comma-separated).
    #[arg(long, value_delimiter = ',', value_parser = parse_count, default_value = "50")]
    k: Vec<usize>,
    /// Input distribution of integer keys.
    #[arg(long, value_enum, default_value_t = Distribution::Uniform)]
    dist: Distribution,
    /// Sort direction (top-k: ascending the smallest, descending the largest).
    #[arg(long, value_enum, default_value_t = Order::Ascending)]
    order: Order,
    /// Where NaNs of float keys sort.
    #[arg(long, value_enum, default_value_t = NanOrder::Total)]
    nan: NanOrder,
    /// Seed of the keys.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Timed repeats after one warm-up (1 to 1000000).
    #[arg(long, default_value_t = 20, value_parser = parse_repeat)]
    repeat: usize,
    /// Check the last result against the CPU backend's.
    #[arg(long)]
    check: bool,
}

/// A row-wise operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RowOp {
    /// `sort_rows` (in place).
    Sort,
    /// `argsort_rows` (column indices).
    Argsort,
    /// `top_k_rows` (values and column indices, sorted).
    Topk,
}

pub fn bench_rows(args: &RowsArgs) -> crate::Result<bool> {
    let n = args.rows.saturating_mul(args.cols);
    rows::check_shape(n, args.rows, args.cols)?;
    // The keys, the CPU's answer and the GPU's result for the check.
    check_host_memory(&args.key_types, &[n], 4)?;
    let sorter = Sorter::new_tuned(super::tuning().clone())?;
    let gpu = sorter.gpu().expect("Sorter::new has a GPU");
    println!("device: {}", gpu.info());
    println!("(timed: keys already on the device; order {}, NaNs {:?})", args.order, args.nan);
    println!(
        "{:<6} {:>7} {:>7} {:>12} {:>6} {:>10} {:>10} {:>9}  check",
        "type", "rows", "cols", "op", "k", "median ms", "min ms", "Gkeys/s"
    );
    let mut ok = true;
    for &kt in &args.key_types {
        for &op in &args.op {
            let ks: &[usize] = if op == RowOp::Topk { &args.k } else { &[0] };
            for &k in ks {
                match with_key!(kt, K => one::<K>(&sorter, op, k, args), else Err(records_refused("rows", kt))) {
                    Ok((stats, check)) => {
                        ok &= check != "FAILED";
                        println!(
                            "{:<6} {:>7} {:>7} {:>12} {:>6} {:>10.3} {:>10.3} {:>9.2}  {check}",
                            kt.name(),
                            args.rows,
                            args.cols,
                            op_name(op),
                            if op == RowOp::Topk { k.to_string() } else { "-".into() },
                            stats.median_ms,
                            stats.min_ms,
                            gkeys_per_s(n, stats.median_ms)
                        );
                    }
                    Err(e) => {
                        ok = false;
                        println!("{:<6} {:>7} {:>7} {:>12}  error: {e}", kt.name(), args.rows, args.cols, op_name(op));
                    }
                }
            }
        }
    }
    Ok(ok)
}

fn op_name(op: RowOp) -> &'static str {
    match op {
        RowOp::Sort => "sort_rows",
        RowOp::Argsort => "argsort_rows",
        RowOp::Topk => "top_k_rows",
    }
}

/// The matrix: f32 uniform in [0, 1) as `torch.rand` makes it (24 random bits), other
/// types from the distribution.
fn matrix<K: Key + Random>(n: usize, dist: Distribution, seed: u64) -> Vec<K> {
    if K::NAME == "f32" {
        let bits: Vec<u32> = generate(n, Distribution::Uniform, seed);
        let unit: Vec<f32> = bits.iter().map(|&b| (b >> 8) as f32 / (1u32 << 24) as f32).collect();
        bytemuck::cast_slice(&unit).to_vec()
    } else {
        generate(n, dist, seed)
    }
}

fn one<K: Key + Random>(sorter: &Sorter, op: RowOp, k: usize, args: &RowsArgs) -> crate::Result<(Stats, &'static str)> {
    let gpu = sorter.gpu().expect("GPU sorter");
    let (r, c) = (args.rows, args.cols);
    let keys: Vec<K> = matrix(r * c, args.dist, args.seed);
    let order = KeyOrder::new(args.order, args.nan);
    let opts = SortOptions::default().order(args.order).nan(args.nan);
    let k0 = gpu.upload(&keys)?;
    let cpu = Sorter::cpu();
    let same = |a: &[K], b: &[K]| a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.bits() == y.bits());
    let (stats, ok) = match op {
        RowOp::Sort => {
            let mut buf = gpu.alloc::<K>(r * c)?;
            let stats = time_rounds(args.repeat, || {
                buf.copy_from_device(gpu, &k0)?;
                gpu.time_ms(|| rows::sort_rows(gpu, &mut buf, r, c, order))
            })?;
            let ok = args.check.then(|| -> crate::Result<bool> {
                let mut want = keys.clone();
                cpu.sort_rows(&mut want, r, c, &opts)?;
                Ok(same(&buf.to_vec(gpu)?, &want))
            });
            (stats, ok)
        }
        RowOp::Argsort => {
            let mut last = None;
            let stats = time_rounds(args.repeat, || {
                gpu.time_ms(|| rows::argsort_rows(gpu, &k0, r, c, order).map(|i| last = Some(i)))
            })?;
            let ok = args.check.then(|| -> crate::Result<bool> {
                let want = cpu.argsort_rows(&keys, r, c, &opts)?;
                Ok(last.as_ref().map(|i| i.to_vec(gpu)).transpose()? == Some(want))
            });
            (stats, ok)
        }
        RowOp::Topk => {
            let mut last = None;
            let stats = time_rounds(args.repeat, || {
                gpu.time_ms(|| rows::top_k_rows(gpu, &k0, r, c, k, order).map(|o| last = Some(o)))
            })?;
            let ok = args.check.then(|| -> crate::Result<bool> {
                let (wk, wi) = cpu.top_k_rows(&keys, r, c, k, &opts)?;
                let Some((gk, gi)) = &last else { return Ok(false) };
                Ok(same(&gk.to_vec(gpu)?, &wk) && gi.to_vec(gpu)? == wi)
            });
            (stats, ok)
        }
    };
    let check = match ok.transpose()? {
        None => "skipped",
        Some(true) => "ok",
        Some(false) => "FAILED",
    };
    Ok((stats, check))
}
