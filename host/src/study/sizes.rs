//! Speed-up vs n for several thread counts: where going parallel starts to pay off
//! (the Pisa report's last CPU plot). Speed-ups are over our parallel merge sort on one
//! thread at the same n; rayon's and std's sorts are measured beside it.
use super::{
    CpuSort, Pools, Report, StudyConfig, check_output, cpu_name, measure, repeats_for, sizes_up_to, thread_counts,
};
use crate::error::Result;
use crate::inputs::{Random, generate};
use crate::report::chart::{Chart, Scale, Series};
use crate::{Distribution, Element};

pub fn study<T: Random + Element>(cfg: &StudyConfig) -> Result<Report> {
    let counts = thread_counts(cfg.max_threads);
    let max = cfg.max_threads;
    // Ours at every thread count, then the comparison rows.
    let configs: Vec<(CpuSort, usize)> = counts
        .iter()
        .map(|&t| (CpuSort::ParallelMerge, t))
        .chain([(CpuSort::RayonParSort, max), (CpuSort::RayonParSortUnstable, max), (CpuSort::StdSort, 1)])
        .collect();
    let label = |(sort, t): (CpuSort, usize)| format!("{} ({t} thr)", sort.name());
    let mut pools = Pools::default();
    let mut rows = Vec::new();
    let mut series: Vec<Series> = configs.iter().map(|&c| Series { name: label(c), points: vec![] }).collect();
    for n in sizes_up_to(cfg.max_n) {
        let input: Vec<T> = generate(n, Distribution::Uniform, cfg.seed ^ n as u64);
        let repeats = repeats_for(n, cfg.repeat);
        let mut base_ms = f64::NAN;
        for (i, &(sort, threads)) in configs.iter().enumerate() {
            let t = measure(sort, &input, threads, repeats, &mut pools)?;
            let ms = t.median_ms();
            if i == 0 {
                base_ms = ms;
            }
            series[i].points.push((n as f64, base_ms / ms));
            rows.push(vec![
                n.to_string(),
                sort.name().to_string(),
                threads.to_string(),
                format!("{ms:.4}"),
                format!("{:.2}", base_ms / ms),
                repeats.to_string(),
                check_output(sort, &input, &t.output),
            ]);
        }
    }
    let what = format!("random {}", T::NAME);
    let chart = Chart {
        title: format!("CPU sorts: speed-up over 1 thread against n, {what}"),
        subtitle: format!("{}, {} threads", cpu_name(), cfg.max_threads),
        x_label: "n (elements)".into(),
        y_label: "speed-up over parallel-merge on 1 thread".into(),
        x_scale: Scale::Log2,
        y_scale: Scale::Log2,
        series,
    };
    Ok(Report {
        name: "sizes",
        title: format!("Sizes study: {what}, {}; speedup over parallel-merge on 1 thread at the same n", cpu_name()),
        columns: vec!["n", "algorithm", "threads", "median_ms", "speedup", "repeats", "check"],
        rows,
        charts: vec![("sizes".into(), chart)],
    })
}
