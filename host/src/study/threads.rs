//! Time and speed-up vs threads at a fixed n (the Pisa report's first two plots), with
//! rayon's and std's sorts measured beside ours.
use super::{CpuSort, Pools, Report, StudyConfig, check_output, cpu_name, measure, thread_counts};
use crate::error::Result;
use crate::inputs::{Random, generate};
use crate::measure::gkeys_per_s;
use crate::report::chart::{Chart, Scale, Series};
use crate::{Distribution, Element};

struct Point {
    sort: CpuSort,
    threads: usize,
    median_ms: f64,
    min_ms: f64,
    check: String,
}

pub fn study<T: Random + Element>(cfg: &StudyConfig) -> Result<Report> {
    let n = cfg.n;
    let input: Vec<T> = generate(n, Distribution::Uniform, cfg.seed);
    let mut pools = Pools::default();
    let mut points = Vec::new();
    let mut run = |sort: CpuSort, threads: usize| -> Result<()> {
        let t = measure(sort, &input, threads, cfg.repeat, &mut pools)?;
        let check = check_output(sort, &input, &t.output);
        points.push(Point { sort, threads, median_ms: t.median_ms(), min_ms: t.min_ms(), check });
        Ok(())
    };
    for sort in CpuSort::SEQUENTIAL {
        run(sort, 1)?;
    }
    for &threads in &thread_counts(cfg.max_threads) {
        for sort in CpuSort::PARALLEL {
            run(sort, threads)?;
        }
    }

    let ms_of = |sort: CpuSort, threads: usize| {
        points.iter().find(|p| p.sort == sort && p.threads == threads).map_or(f64::NAN, |p| p.median_ms)
    };
    let std_ms = ms_of(CpuSort::StdSort, 1);
    let rows = points
        .iter()
        .map(|p| {
            vec![
                p.sort.name().to_string(),
                p.threads.to_string(),
                n.to_string(),
                format!("{:.3}", p.median_ms),
                format!("{:.3}", p.min_ms),
                format!("{:.4}", gkeys_per_s(n, p.median_ms)),
                format!("{:.2}", ms_of(p.sort, 1) / p.median_ms),
                format!("{:.2}", std_ms / p.median_ms),
                p.check.clone(),
            ]
        })
        .collect();

    let what = format!("{n} random {}", T::NAME);
    let series = |y: &dyn Fn(&Point) -> f64| -> Vec<Series> {
        CpuSort::PARALLEL
            .iter()
            .chain(&CpuSort::SEQUENTIAL)
            .map(|&sort| Series {
                name: sort.name().to_string(),
                points: points.iter().filter(|p| p.sort == sort).map(|p| (p.threads as f64, y(p))).collect(),
            })
            .collect()
    };
    let speedup = Chart {
        title: format!("CPU sorts: speed-up over std sort on 1 thread, {what}"),
        subtitle: cpu_name(),
        x_label: "threads".into(),
        y_label: "speed-up over std sort".into(),
        x_scale: Scale::Log2,
        y_scale: Scale::Linear,
        series: series(&|p| std_ms / p.median_ms),
    };
    let time = Chart {
        title: format!("CPU sorts: time against threads, {what}"),
        subtitle: cpu_name(),
        x_label: "threads".into(),
        y_label: "median time (ms)".into(),
        x_scale: Scale::Log2,
        y_scale: Scale::Log10,
        series: series(&|p| p.median_ms),
    };
    Ok(Report {
        name: "threads",
        title: format!(
            "Threads study: {what}, {}; median of {} repeats (speedup_self: over the same sort on 1 thread)",
            cpu_name(),
            cfg.repeat
        ),
        columns: vec![
            "algorithm",
            "threads",
            "n",
            "median_ms",
            "min_ms",
            "gkeys_s",
            "speedup_self",
            "speedup_vs_std_sort",
            "check",
        ],
        rows,
        charts: vec![("threads".into(), speedup), ("threads-time".into(), time)],
    })
}
