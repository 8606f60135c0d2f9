//! GPU vs CPU speed-up vs n for every GPU variant (the Pisa report's last plot). The
//! CPU side is our parallel merge sort on every thread.
//!
//! Two GPU times per variant: the sort alone on data already on the device (CUDA
//! events, [`time_sort`]), and end to end through [`Sorter::sort`] (upload, sort,
//! download; wall clock), since a CPU caller pays the transfers too.
use super::{CpuSort, Pools, Report, StudyConfig, check_order, cpu_name, measure, repeats_for, sizes_up_to};
use crate::error::Result;
use crate::inputs::{Random, generate};
use crate::measure::{time_cpu, time_sort};
use crate::report::chart::{Chart, Scale, Series};
use crate::{Distribution, Element, SortOptions, Sorter, Variant};

/// Most repeats per GPU measurement.
const GPU_REPEATS_MAX: usize = 20;

/// A variant whose sort took longer than this at some n is not timed at larger n
/// (`bottomup` takes seconds at 2^22 and grows linearly: it would hold the study up
/// for many minutes).
const SLOW_MS: f64 = 200.0;

pub fn study<T: Random + Element>(sorter: &Sorter, cfg: &StudyConfig) -> Result<Report> {
    let mut pools = Pools::default();
    let mut rows = Vec::new();
    let mut kernel: Vec<Series> =
        Variant::ALL.iter().map(|v| Series { name: format!("{v} (sort only)"), points: vec![] }).collect();
    let mut total: Vec<Series> =
        Variant::ALL.iter().map(|v| Series { name: format!("{v} (with transfers)"), points: vec![] }).collect();
    let sizes = sizes_up_to(cfg.max_n);
    let mut too_slow: Vec<Option<usize>> = vec![None; Variant::ALL.len()];
    for &n in &sizes {
        let input: Vec<T> = generate(n, Distribution::Uniform, cfg.seed ^ n as u64);
        let cpu_ms = measure(CpuSort::ParallelMerge, &input, cfg.max_threads, repeats_for(n, cfg.repeat), &mut pools)?
            .median_ms();
        // CUDA events resolve microseconds, so the GPU side needs far fewer repeats than
        // the CPU's wall clock. Uncapped (up to 1000 at small n, twice per variant), the
        // study over five variants ran past 300 s on the H100 machine.
        let repeats = repeats_for(n, cfg.repeat).min(GPU_REPEATS_MAX);
        for (i, &v) in Variant::ALL.iter().enumerate() {
            let mut row = vec![n.to_string(), v.name().to_string(), format!("{cpu_ms:.4}")];
            if n as u64 > v.max_len() {
                row.extend(["-".into(), "-".into(), "-".into(), "-".into(), format!("skipped: n > {}", v.max_len())]);
                rows.push(row);
                continue;
            }
            if let Some(at) = too_slow[i] {
                row.extend([
                    "-".into(),
                    "-".into(),
                    "-".into(),
                    "-".into(),
                    format!("skipped: over {SLOW_MS} ms at n = {at}"),
                ]);
                rows.push(row);
                continue;
            }
            let opts = SortOptions::new(v);
            let sorted = match time_sort(sorter, &input, &opts, repeats) {
                Ok(t) => t,
                Err(e) => {
                    row.extend(["-".into(), "-".into(), "-".into(), "-".into(), format!("WRONG: error: {e}")]);
                    rows.push(row);
                    continue;
                }
            };
            let mut failure = None;
            let end_to_end = time_cpu(&input, repeats, |w| {
                if let Err(e) = sorter.sort(w, &opts) {
                    failure.get_or_insert(e);
                }
            });
            let (gpu_ms, total_ms) = (sorted.median_ms(), end_to_end.median_ms());
            if gpu_ms > SLOW_MS {
                too_slow[i] = Some(n);
            }
            kernel[i].points.push((n as f64, cpu_ms / gpu_ms));
            total[i].points.push((n as f64, cpu_ms / total_ms));
            // Order only: the variants' own tests check permutation and stability;
            // a reference sort per row would cost more than the study.
            let check = match failure {
                Some(e) => format!("WRONG: error: {e}"),
                None => check_order(&sorted.output),
            };
            row.extend([
                format!("{gpu_ms:.4}"),
                format!("{total_ms:.4}"),
                format!("{:.2}", cpu_ms / gpu_ms),
                format!("{:.2}", cpu_ms / total_ms),
                check,
            ]);
            // Row by row as well, so that a run cut short still shows how far it got.
            eprintln!("gpu study: {}", row.join(" "));
            rows.push(row);
        }
    }
    let break_even = Series { name: "break-even".into(), points: sizes.iter().map(|&n| (n as f64, 1.0)).collect() };
    let what = format!("random {}", T::NAME);
    let cpu = format!("CPU: {} on {} threads", cpu_name(), cfg.max_threads);
    let chart = Chart {
        title: format!("GPU speed-up over the CPU's parallel merge sort, {what}"),
        subtitle: match sorter.gpu() {
            Some(gpu) => format!("{}; {cpu}", gpu.info()),
            None => cpu.clone(),
        },
        x_label: "n (elements)".into(),
        y_label: "speed-up (CPU time / GPU time)".into(),
        x_scale: Scale::Log2,
        y_scale: Scale::Log10,
        series: kernel.into_iter().chain(total).chain([break_even]).collect(),
    };
    Ok(Report {
        name: "gpu",
        title: format!(
            "GPU study: {what}, {cpu}; gpu_ms = sort only (CUDA events), gpu_total_ms = upload + sort + download (wall)"
        ),
        columns: vec!["n", "variant", "cpu_ms", "gpu_ms", "gpu_total_ms", "speedup", "speedup_with_transfers", "check"],
        rows,
        charts: vec![("gpu".into(), chart)],
    })
}
