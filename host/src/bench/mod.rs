//! `host bench`: every combination of variants, key types, sizes, distributions and
//! block sizes, timed on the same inputs in one process, reported as a terminal
//! table, CSV, JSON and SVG charts.
//!
//! Each configuration is timed by [`measure::time_sort_with`]: CUDA events around the
//! sort only, warm-up first, the input restored before every repeat, and several input
//! copies rotated so that small sizes are not flattered by the L2 cache. Throughput is
//! reported in Gkeys/s (n / median seconds / 10^9) and as *effective bandwidth*: the
//! bytes of one read and one write of the array, 2 · n · element size, divided by the
//! median time ([`measure::effective_gb_per_s`]), also as a percentage of the
//! device's measured copy bandwidth ([`measure::copy_bandwidth`]).
mod progress;

use std::path::{Path, PathBuf};

pub use progress::Progress;

use crate::error::{Error, Result};
use crate::inputs::{self, Random};
use crate::measure::{self, Stats, TimingPlan};
use crate::report::chart::{Chart, Scale, Series};
use crate::report::records::{Record, Value};
use crate::report::table::{Align, Table};
use crate::{Distribution, Element, KeyType, Order, SortOptions, Sorter, Variant, verify};

/// One-line definition of effective bandwidth, for help texts and report headers.
pub const EFFECTIVE_BANDWIDTH: &str =
    "effective bandwidth = 2 x n x element bytes (one read + one write of the array) / median sort time";

/// What to run.
#[derive(Clone, Debug)]
pub struct BenchPlan {
    pub variants: Vec<Variant>,
    pub key_types: Vec<KeyType>,
    pub sizes: Vec<usize>,
    pub dists: Vec<Distribution>,
    pub block_sizes: Vec<u32>,
    pub order: Order,
    pub seed: u64,
    pub timing: TimingPlan,
    /// Verify every configuration's output (order, permutation, promised stability).
    pub check: bool,
    /// Variant the speed-up column compares with (default: the first one).
    pub baseline: Option<Variant>,
    /// Once a configuration's median exceeds this many milliseconds, larger sizes of
    /// the same variant, type, distribution and block size are skipped (keeps a wide
    /// sweep from stalling on a slow variant).
    pub max_sort_ms: Option<f64>,
}

impl BenchPlan {
    /// The baseline variant, checked to be one of the variants.
    pub fn baseline(&self) -> Result<Variant> {
        let first = *self.variants.first().ok_or_else(|| Error::BadArgument("no variants to benchmark".into()))?;
        match self.baseline {
            Some(b) if !self.variants.contains(&b) => {
                Err(Error::BadArgument(format!("baseline `{b}` is not one of the benchmarked variants")))
            }
            b => Ok(b.unwrap_or(first)),
        }
    }

    fn validate(&self) -> Result<()> {
        self.baseline()?;
        let empty = [
            ("key types", self.key_types.is_empty()),
            ("sizes", self.sizes.is_empty()),
            ("distributions", self.dists.is_empty()),
            ("block sizes", self.block_sizes.is_empty()),
        ];
        if let Some((what, _)) = empty.iter().find(|(_, e)| *e) {
            return Err(Error::BadArgument(format!("no {what} to benchmark")));
        }
        if let Some(kt) = self.key_types.iter().find(|k| k.is_wide()) {
            return Err(kt.wide_refused("the variant benchmark (time wide keys with `host --type`)"));
        }
        Ok(())
    }
}

/// What identifies a series of results across sizes: variant, type, distribution and
/// block size.
type SeriesKey = (Option<Variant>, KeyType, Distribution, Option<u32>);

/// One configuration's result.
#[derive(Clone, Debug)]
pub struct BenchRow {
    /// `None`: the CPU backend (no GPU).
    pub variant: Option<Variant>,
    pub key_type: KeyType,
    pub n: usize,
    pub dist: Distribution,
    /// `None` on the CPU.
    pub block_size: Option<u32>,
    /// Input copies rotated (1 on the CPU).
    pub buffers: usize,
    /// Times, or why the configuration failed or was skipped.
    pub outcome: std::result::Result<Stats, String>,
    /// Not run: a smaller size already took longer than [`BenchPlan::max_sort_ms`].
    pub skipped: bool,
    /// `None` when not checked; `Some(Err(why))` when the output was wrong.
    pub check: Option<std::result::Result<(), String>>,
    /// Baseline median / this median, for the same type, size, distribution and
    /// block size.
    pub speedup: Option<f64>,
}

impl BenchRow {
    pub fn label(&self) -> &'static str {
        self.variant.map_or("cpu", Variant::name)
    }

    fn stable(&self) -> bool {
        self.variant.is_none_or(Variant::is_stable)
    }

    pub fn median_ms(&self) -> Option<f64> {
        self.outcome.as_ref().ok().map(|s| s.median_ms)
    }

    pub fn gkeys_per_s(&self) -> Option<f64> {
        self.median_ms().map(|ms| measure::gkeys_per_s(self.n, ms))
    }

    pub fn effective_gb_per_s(&self) -> Option<f64> {
        self.median_ms().map(|ms| measure::effective_gb_per_s(self.n, self.key_type.size(), ms))
    }

    fn failed(&self) -> bool {
        (self.outcome.is_err() && !self.skipped) || matches!(self.check, Some(Err(_)))
    }

    /// What identifies a series across sizes.
    fn series_key(&self) -> SeriesKey {
        (self.variant, self.key_type, self.dist, self.block_size)
    }

    fn same_config(&self, o: &BenchRow) -> bool {
        (self.key_type, self.n, self.dist, self.block_size) == (o.key_type, o.n, o.dist, o.block_size)
    }
}

/// All results of a run and what they were measured on.
#[derive(Clone, Debug)]
pub struct BenchReport {
    /// The device, or the CPU backend and why it was used.
    pub device: String,
    pub on_gpu: bool,
    pub copy_gb_per_s: Option<f64>,
    pub baseline: Option<Variant>,
    pub plan: BenchPlan,
    pub rows: Vec<BenchRow>,
}

/// Runs `plan`. Failures of single configurations (out of memory, a variant that
/// rejects a size, a wrong result) are recorded in their rows and the run goes on;
/// errors that stop everything (a bad plan) are returned.
pub fn run(sorter: &Sorter, plan: &BenchPlan, show_progress: bool) -> Result<BenchReport> {
    plan.validate()?;
    // The input and the sorted copy of the largest size live on the host at once: refuse
    // an impossible size before hours of smaller ones have run.
    for &kt in &plan.key_types {
        if let Some(&n) = plan.sizes.iter().max() {
            crate::inputs::ensure_host_bytes(n, kt.size(), 2)?;
        }
    }
    let on_gpu = sorter.gpu().is_some();
    // On every backend, so that a plan that runs on the CPU runs on a GPU too.
    for &b in &plan.block_sizes {
        SortOptions::new(plan.variants[0]).block_size(b).validate()?;
    }
    let (device, copy_gb_per_s) = match sorter.gpu() {
        Some(gpu) => (gpu.info().to_string(), Some(measure::copy_bandwidth(gpu)?)),
        None => (sorter.backend().to_string(), None),
    };
    let per_input = if on_gpu { plan.variants.len() * plan.block_sizes.len() } else { 1 };
    let configs = plan.key_types.len() * plan.dists.len() * plan.sizes.len() * per_input;
    let sorts_per_config = (plan.timing.warmup + plan.timing.repeats.max(1)) as u64;
    // Series (variant, type, dist, block) whose median passed `max_sort_ms`, and at which n.
    let mut too_slow: Vec<(SeriesKey, usize)> = Vec::new();
    let mut progress = Progress::new(configs as u64 * sorts_per_config, show_progress);
    let mut rows: Vec<BenchRow> = Vec::with_capacity(configs);
    for &kt in &plan.key_types {
        for &dist in &plan.dists {
            for &n in &plan.sizes {
                crate::with_key_type!(kt, T => run_input::<T>(sorter, plan, (kt, dist, n), &too_slow, &mut progress, &mut rows), wide => unreachable!("BenchPlan::validate refuses wide keys"));
                if let Some(limit) = plan.max_sort_ms {
                    // Rows over the limit mark their series as too slow for larger n.
                    let slow: Vec<usize> = rows
                        .iter()
                        .enumerate()
                        .filter(|(_, r)| r.n == n && r.key_type == kt && r.dist == dist)
                        .filter(|(_, r)| r.median_ms().is_some_and(|m| m > limit))
                        .map(|(i, _)| i)
                        .collect();
                    too_slow.extend(slow.into_iter().map(|i| (rows[i].series_key(), n)));
                }
            }
        }
    }
    progress.finish();
    let baseline = on_gpu.then(|| plan.baseline()).transpose()?;
    if let Some(b) = baseline {
        apply_speedups(&mut rows, b);
    }
    Ok(BenchReport { device, on_gpu, copy_gb_per_s, baseline, plan: plan.clone(), rows })
}

/// Sets each row's speed-up: the median of `baseline`'s row for the same type, size,
/// distribution and block size, divided by the row's own median.
fn apply_speedups(rows: &mut [BenchRow], baseline: Variant) {
    let base: Vec<Option<f64>> = rows
        .iter()
        .map(|r| rows.iter().find(|o| o.variant == Some(baseline) && o.same_config(r)).and_then(BenchRow::median_ms))
        .collect();
    for (r, base) in rows.iter_mut().zip(base) {
        r.speedup = base.zip(r.median_ms()).map(|(b, m)| b / m);
    }
}

/// Times every variant and block size on one generated input.
fn run_input<T: Random + Element>(
    sorter: &Sorter,
    plan: &BenchPlan,
    (key_type, dist, n): (KeyType, Distribution, usize),
    too_slow: &[(SeriesKey, usize)],
    progress: &mut Progress,
    rows: &mut Vec<BenchRow>,
) {
    let sorts = (plan.timing.warmup + plan.timing.repeats.max(1)) as u64;
    progress.set_message(format!("generating {n} {key_type} {dist}"));
    let input: Vec<T> = inputs::generate(n, dist, plan.seed);
    let configs: Vec<(Option<Variant>, Option<u32>)> = match sorter.gpu() {
        Some(_) => {
            plan.variants.iter().flat_map(|&v| plan.block_sizes.iter().map(move |&b| (Some(v), Some(b)))).collect()
        }
        None => vec![(None, None)],
    };
    for (variant, block_size) in configs {
        let mut row = BenchRow {
            variant,
            key_type,
            n,
            dist,
            block_size,
            buffers: 1,
            outcome: Err(String::new()),
            skipped: false,
            check: None,
            speedup: None,
        };
        if let Some((_, at)) = too_slow.iter().find(|(k, at)| *k == row.series_key() && *at < n) {
            let limit = plan.max_sort_ms.unwrap_or_default();
            row.outcome = Err(format!("skipped: median above {limit} ms at n = {}", size_label(*at)));
            row.skipped = true;
            progress.inc(sorts, None);
            rows.push(row);
            continue;
        }
        let what = format!(
            "{} {key_type} n={n} {dist}{}",
            row.label(),
            block_size.map_or(String::new(), |b| format!(" block {b}"))
        );
        progress.set_message(what.clone());
        let opts =
            SortOptions::new(variant.unwrap_or_default()).order(plan.order).block_size(block_size.unwrap_or(256));
        let mut timing = plan.timing;
        if let (Some(gpu), 0) = (sorter.gpu(), timing.buffers) {
            let free = gpu.free_mem_for(u64::MAX).map(|m| m.0).unwrap_or(0);
            timing.buffers =
                measure::rotation_buffers(size_of_val(input.as_slice()) as u64, gpu.info().l2_bytes as u64, free);
        }
        row.buffers =
            if sorter.gpu().is_some() { timing.buffers.min(timing.warmup + timing.repeats.max(1)) } else { 1 };
        let mut ticks = 0u64;
        let result = measure::time_sort_with(sorter, &input, &opts, &timing, &mut || ticks += 1);
        progress.inc(ticks, None);
        match result {
            Ok(t) => {
                row.outcome = Ok(Stats::of(&t.times_ms));
                if plan.check {
                    row.check =
                        Some(verify::check(&input, &t.output, plan.order, row.stable()).map(|_| ()).map_err(|m| m.0));
                }
            }
            Err(e) => row.outcome = Err(e.to_string()),
        }
        // Whatever the sort did not get to do still counts as done for the bar.
        progress.inc(sorts.saturating_sub(ticks), None);
        let summary = match &row.outcome {
            Ok(s) => format!("{what}: {:.3} ms, {:.2} Gkeys/s", s.median_ms, measure::gkeys_per_s(n, s.median_ms)),
            Err(e) => format!("{what}: error: {e}"),
        };
        progress.inc(0, Some(&summary));
        rows.push(row);
    }
}

/// `2^k` for powers of two (from 2^10 on), the plain number otherwise.
pub fn size_label(n: usize) -> String {
    if n.is_power_of_two() && n >= 1024 { format!("2^{}", n.trailing_zeros()) } else { n.to_string() }
}

impl BenchReport {
    /// Configurations that failed or produced a wrong result.
    pub fn failures(&self) -> usize {
        self.rows.iter().filter(|r| r.failed()).count()
    }

    /// The terminal table.
    pub fn table(&self) -> Table {
        let base = self.baseline.map_or("baseline".to_string(), |b| format!("vs {b}"));
        let mut t = Table::new([
            ("variant", Align::Left),
            ("type", Align::Left),
            ("n", Align::Right),
            ("dist", Align::Left),
            ("block", Align::Right),
            ("median ms", Align::Right),
            ("min ms", Align::Right),
            ("max ms", Align::Right),
            ("Gkeys/s", Align::Right),
            ("eff GB/s", Align::Right),
            ("% copy", Align::Right),
            (base.as_str(), Align::Right),
            ("check", Align::Left),
        ]);
        for r in &self.rows {
            let num = |x: Option<f64>, digits: usize| x.map_or("-".to_string(), |x| format!("{x:.digits$}"));
            let mut cells = vec![
                r.label().to_string(),
                r.key_type.to_string(),
                size_label(r.n),
                r.dist.to_string(),
                r.block_size.map_or("-".into(), |b| b.to_string()),
            ];
            match &r.outcome {
                Ok(s) => {
                    let eff = r.effective_gb_per_s();
                    cells.extend([
                        format!("{:.3}", s.median_ms),
                        format!("{:.3}", s.min_ms),
                        format!("{:.3}", s.max_ms),
                        num(r.gkeys_per_s(), 3),
                        num(eff, 1),
                        num(eff.zip(self.copy_gb_per_s).map(|(e, c)| 100.0 * e / c), 1),
                        r.speedup.map_or("-".into(), |s| format!("{s:.2}x")),
                        match &r.check {
                            None => "-".into(),
                            Some(Ok(())) => "ok".into(),
                            Some(Err(m)) => format!("FAILED: {m}"),
                        },
                    ]);
                }
                // The message goes last so that it doesn't widen the number columns.
                Err(e) => {
                    cells.extend(std::iter::repeat_n("-".to_string(), 7));
                    cells.push(if r.skipped { e.clone() } else { format!("error: {e}") });
                }
            }
            t.push(cells);
        }
        t
    }

    /// One record per row, for CSV and JSON.
    pub fn records(&self) -> Vec<Record> {
        self.rows
            .iter()
            .map(|r| {
                let stats = r.outcome.as_ref().ok();
                let eff = r.effective_gb_per_s();
                vec![
                    ("backend", (if self.on_gpu { "gpu" } else { "cpu" }).into()),
                    ("device", self.device_name().into()),
                    ("variant", r.label().into()),
                    ("stable", r.stable().into()),
                    ("type", r.key_type.name().into()),
                    ("elem_bytes", r.key_type.size().into()),
                    ("n", r.n.into()),
                    ("dist", r.dist.name().into()),
                    ("order", self.plan.order.to_string().into()),
                    ("block_size", r.block_size.into()),
                    ("warmup", self.plan.timing.warmup.into()),
                    ("repeats", self.plan.timing.repeats.max(1).into()),
                    ("buffers", r.buffers.into()),
                    ("median_ms", stats.map(|s| s.median_ms).into()),
                    ("min_ms", stats.map(|s| s.min_ms).into()),
                    ("max_ms", stats.map(|s| s.max_ms).into()),
                    ("gkeys_per_s", r.gkeys_per_s().into()),
                    ("effective_gb_per_s", eff.into()),
                    ("copy_gb_per_s", self.copy_gb_per_s.into()),
                    ("pct_of_copy", eff.zip(self.copy_gb_per_s).map(|(e, c)| 100.0 * e / c).into()),
                    ("baseline", self.baseline.map(Variant::name).into()),
                    ("speedup", r.speedup.into()),
                    (
                        "check",
                        match &r.check {
                            None => Value::Null,
                            Some(Ok(())) => "ok".into(),
                            Some(Err(m)) => format!("FAILED: {m}").into(),
                        },
                    ),
                    ("skipped", r.skipped.into()),
                    ("error", r.outcome.as_ref().err().cloned().into()),
                ]
            })
            .collect()
    }

    /// JSON: the run's settings, then the records.
    pub fn to_json(&self, command: &str) -> String {
        let meta: Vec<(&str, Value)> = vec![
            ("command", command.into()),
            ("device", self.device.clone().into()),
            ("backend", (if self.on_gpu { "gpu" } else { "cpu" }).into()),
            ("copy_gb_per_s", self.copy_gb_per_s.into()),
            ("effective_bandwidth", EFFECTIVE_BANDWIDTH.into()),
            ("order", self.plan.order.to_string().into()),
            ("seed", Value::Int(self.plan.seed as i128)),
            ("timing", "CUDA events around the sort only; inputs restored before every repeat".into()),
        ];
        crate::report::records::to_json(&meta, "results", &self.records())
    }

    /// The device's name for tables, CSV rows and charts: the GPU, or `CPU backend`
    /// (why the CPU was used is said once, in the command's header and the JSON).
    pub fn device_name(&self) -> String {
        if self.on_gpu { self.device.clone() } else { CPU_BACKEND.to_string() }
    }

    /// One chart of Gkeys/s against n per key type and distribution, a line per
    /// variant (and block size, when several were run).
    pub fn charts(&self) -> Vec<(String, Chart)> {
        let many_blocks = self.plan.block_sizes.len() > 1 && self.on_gpu;
        let points = self.rows.iter().filter_map(|r| {
            let name = match (many_blocks, r.block_size) {
                (true, Some(b)) => format!("{} /{b}", r.label()),
                _ => r.label().to_string(),
            };
            r.gkeys_per_s().map(|g| Point {
                series: name,
                key_type: r.key_type.name().into(),
                dist: r.dist.name().into(),
                n: r.n,
                gkeys_per_s: g,
            })
        });
        let order = |kt: &String, d: &String| {
            let t = self.plan.key_types.iter().position(|k| k.name() == kt);
            let d = self.plan.dists.iter().position(|x| x.name() == d);
            (t, d)
        };
        let mut charts = throughput_charts(points, &self.device_name());
        charts.sort_by_key(|(_, key, _)| order(&key.0, &key.1));
        charts.into_iter().map(|(name, _, chart)| (name, chart)).collect()
    }

    /// Writes the charts: to `path` itself when there is one chart, otherwise to
    /// `<stem>-<type>-<dist>.<ext>` beside it. Returns the files written.
    pub fn write_charts(&self, path: &Path) -> Result<Vec<PathBuf>> {
        write_charts(self.charts(), path)
    }
}

/// What the CSV rows and charts call the CPU backend.
pub const CPU_BACKEND: &str = "CPU backend";

/// One measured throughput, from a run or from a saved CSV.
#[derive(Clone, Debug)]
struct Point {
    series: String,
    key_type: String,
    dist: String,
    n: usize,
    gkeys_per_s: f64,
}

/// Charts of Gkeys/s against n, one per (type, distribution) in order of first
/// appearance, a line per series; each with its group key.
fn throughput_charts(points: impl Iterator<Item = Point>, subtitle: &str) -> Vec<(String, (String, String), Chart)> {
    let mut charts: Vec<(String, (String, String), Chart)> = Vec::new();
    for p in points {
        let key = (p.key_type.clone(), p.dist.clone());
        let at = match charts.iter().position(|(_, k, _)| *k == key) {
            Some(i) => i,
            None => {
                let chart = Chart {
                    title: format!("Sort throughput: {} keys, {} input", p.key_type, p.dist),
                    subtitle: subtitle.to_string(),
                    x_label: "n (elements)".into(),
                    y_label: "Gkeys/s (median)".into(),
                    x_scale: Scale::Log2,
                    y_scale: Scale::Log10,
                    series: Vec::new(),
                };
                charts.push((format!("{}-{}", p.key_type, p.dist), key, chart));
                charts.len() - 1
            }
        };
        let series = &mut charts[at].2.series;
        match series.iter_mut().find(|s| s.name == p.series) {
            Some(s) => s.points.push((p.n as f64, p.gkeys_per_s)),
            None => series.push(Series { name: p.series, points: vec![(p.n as f64, p.gkeys_per_s)] }),
        }
    }
    charts
}

/// Writes `charts`: to `path` itself when there is one, otherwise to
/// `<stem>-<group>.<ext>` beside it. Returns the files written.
fn write_charts(charts: Vec<(String, Chart)>, path: &Path) -> Result<Vec<PathBuf>> {
    let single = charts.len() == 1;
    let mut written = Vec::new();
    for (group, chart) in charts {
        let p = if single { path.to_path_buf() } else { suffixed(path, &group) };
        chart.write(&p)?;
        written.push(p);
    }
    Ok(written)
}

/// The charts of saved results: CSV files with a header naming the columns `n`,
/// `gkeys_per_s` and `variant` or `series` (the line's name), and optionally `type`
/// (default `u32`), `dist` (default `uniform`), `device` and `date`, which go into the
/// subtitle. `host bench --csv` writes such files, and so does the reproduction
/// script for the anchors (CUB, torch). Only rows of the given types and
/// distributions are drawn; rows without a throughput (failed or skipped) are left
/// out. Writes like [`BenchReport::write_charts`].
pub fn chart_saved(csvs: &[PathBuf], types: &[KeyType], dists: &[Distribution], path: &Path) -> Result<Vec<PathBuf>> {
    let mut points = Vec::new();
    let (mut devices, mut dates): (Vec<String>, Vec<String>) = (Vec::new(), Vec::new());
    for file in csvs {
        let bad = |what: String| Error::BadInput(format!("{}: {what}", file.display()));
        let mut reader = csv::Reader::from_path(file).map_err(|e| bad(e.to_string()))?;
        let header = reader.headers().map_err(|e| bad(e.to_string()))?.clone();
        let column = |name: &str| header.iter().position(|h| h == name);
        let need = |name: &str| column(name).ok_or_else(|| bad(format!("no `{name}` column")));
        let (n_at, g_at) = (need("n")?, need("gkeys_per_s")?);
        let name_at =
            column("series").or(column("variant")).ok_or_else(|| bad("no `series` or `variant` column".into()))?;
        let (type_at, dist_at, device_at, date_at) = (column("type"), column("dist"), column("device"), column("date"));
        for (line, record) in reader.records().enumerate() {
            let record = record.map_err(|e| bad(e.to_string()))?;
            let field =
                |at: Option<usize>, default: &str| at.and_then(|i| record.get(i)).unwrap_or(default).trim().to_string();
            let (key_type, dist) = (field(type_at, "u32"), field(dist_at, "uniform"));
            if !types.iter().any(|t| t.name() == key_type) || !dists.iter().any(|d| d.name() == dist) {
                continue;
            }
            let Ok(gkeys_per_s) = field(Some(g_at), "").parse::<f64>() else { continue };
            let n = field(Some(n_at), "")
                .parse::<usize>()
                .map_err(|_| bad(format!("row {}: `n` is not a count", line + 2)))?;
            for (list, value) in [(&mut devices, field(device_at, "")), (&mut dates, field(date_at, ""))] {
                if !value.is_empty() && !list.contains(&value) {
                    list.push(value);
                }
            }
            points.push(Point { series: field(Some(name_at), ""), key_type, dist, n, gkeys_per_s });
        }
    }
    if points.is_empty() {
        return Err(Error::BadInput("no rows of the chosen types and distributions with a throughput".into()));
    }
    let subtitle =
        [devices.join("; "), dates.join(", ")].into_iter().filter(|s| !s.is_empty()).collect::<Vec<_>>().join(", ");
    let charts =
        throughput_charts(points.into_iter(), &subtitle).into_iter().map(|(name, _, chart)| (name, chart)).collect();
    write_charts(charts, path)
}

/// `dir/name.svg` + `u32-uniform` -> `dir/name-u32-uniform.svg`.
fn suffixed(path: &Path, group: &str) -> PathBuf {
    let stem = path.file_stem().map_or("chart".into(), |s| s.to_string_lossy().into_owned());
    let name = match path.extension() {
        Some(ext) => format!("{stem}-{group}.{}", ext.to_string_lossy()),
        None => format!("{stem}-{group}"),
    };
    path.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> BenchPlan {
        BenchPlan {
            variants: Variant::ALL.to_vec(),
            key_types: vec![KeyType::U32, KeyType::Entity],
            sizes: vec![1000, 1 << 12],
            dists: vec![Distribution::Uniform, Distribution::FewUnique],
            block_sizes: vec![256],
            order: Order::Descending,
            seed: 3,
            timing: TimingPlan { warmup: 1, repeats: 2, buffers: 0 },
            check: true,
            baseline: None,
            max_sort_ms: None,
        }
    }

    #[test]
    fn cpu_run_covers_every_input_and_reports_it() {
        let report = run(&Sorter::cpu(), &plan(), false).unwrap();
        assert!(!report.on_gpu && report.copy_gb_per_s.is_none() && report.baseline.is_none());
        assert_eq!(report.rows.len(), 2 * 2 * 2);
        assert_eq!(report.failures(), 0);
        assert!(
            report.rows.iter().all(|r| r.variant.is_none() && matches!(r.check, Some(Ok(()))) && r.speedup.is_none())
        );
        let table = report.table().render();
        assert_eq!(table.lines().count(), 2 + 8);
        assert!(table.lines().nth(2).unwrap().starts_with("cpu"));
        let csv = crate::report::records::to_csv(&report.records());
        assert_eq!(csv.lines().count(), 9);
        assert!(csv.lines().nth(1).unwrap().starts_with("cpu,"));
        assert!(report.to_json("host bench").contains("\"results\": ["));
        let charts = report.charts();
        assert_eq!(charts.len(), 4);
        assert_eq!(charts[0].1.series[0].points.len(), 2);
    }

    #[test]
    fn speedup_compares_with_the_baseline_of_the_same_config() {
        let row = |v: Option<Variant>, n: usize, block: u32, ms: Option<f64>| BenchRow {
            variant: v,
            key_type: KeyType::U32,
            n,
            dist: Distribution::Uniform,
            block_size: Some(block),
            buffers: 1,
            outcome: ms.map(|m| Stats { median_ms: m, min_ms: m, max_ms: m }).ok_or_else(|| "failed".to_string()),
            skipped: false,
            check: None,
            speedup: None,
        };
        // Any other variant will do as the compared one; `None` exists on every branch.
        let (base, other) = (Some(Variant::Naive), None);
        let mut rows = vec![
            row(base, 100, 256, Some(8.0)),
            row(other, 100, 256, Some(2.0)),
            row(base, 100, 512, Some(6.0)),
            row(other, 100, 512, Some(3.0)),
            row(other, 200, 256, Some(1.0)),
            row(base, 300, 256, None),
            row(other, 300, 256, Some(1.0)),
        ];
        apply_speedups(&mut rows, Variant::Naive);
        let got: Vec<Option<f64>> = rows.iter().map(|r| r.speedup).collect();
        assert_eq!(got, [Some(1.0), Some(4.0), Some(1.0), Some(2.0), None, None, None]);
        assert_eq!(rows[1].gkeys_per_s(), Some(100.0 / 2e-3 / 1e9));
        assert_eq!(rows[1].effective_gb_per_s(), Some(800.0 / 2e-3 / 1e9));
    }

    #[test]
    fn slow_series_are_skipped_at_larger_sizes() {
        let mut p = plan();
        p.sizes = vec![1 << 12, 10, 1 << 14];
        p.max_sort_ms = Some(0.0);
        let report = run(&Sorter::cpu(), &p, false).unwrap();
        // Every series passes 0 ms at its first size; only sizes above it are skipped.
        let skipped: Vec<(usize, bool)> = report.rows.iter().take(3).map(|r| (r.n, r.skipped)).collect();
        assert_eq!(skipped, [(1 << 12, false), (10, false), (1 << 14, true)]);
        assert_eq!(report.failures(), 0);
        let table = report.table().render();
        let skipped_line = table.lines().find(|l| l.contains("skipped")).unwrap();
        assert!(skipped_line.ends_with("skipped: median above 0 ms at n = 2^12"), "{table}");
        // The message sits in the last column, leaving the number columns narrow.
        assert_eq!(skipped_line.find("skipped"), table.lines().next().unwrap().find("check"), "{table}");
    }

    #[test]
    fn bad_plans_are_errors() {
        let mut p = plan();
        p.sizes.clear();
        assert!(matches!(run(&Sorter::cpu(), &p, false), Err(Error::BadArgument(_))));
        let mut p = plan();
        p.variants.clear();
        assert!(matches!(p.baseline(), Err(Error::BadArgument(_))));
    }

    #[test]
    fn saved_results_are_charted_by_type_and_distribution() {
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("saved.csv");
        std::fs::write(
            &csv,
            "series,type,n,gkeys_per_s,device,date\n\
             radix,u32,1048576,17.1,H100,2026-11-25\n\
             radix,u32,16777216,43.4,H100,2026-11-25\n\
             CUB radix sort,u32,16777216,35.7,H100,2026-11-27\n\
             radix,u64,16777216,15.4,H100,2026-11-25\n\
             radix,u32,268435456,,H100,2026-11-25\n",
        )
        .unwrap();
        let svg = dir.path().join("chart.svg");
        let written = chart_saved(std::slice::from_ref(&csv), &[KeyType::U32], &[Distribution::Uniform], &svg).unwrap();
        assert_eq!(written, std::slice::from_ref(&svg));
        let text = std::fs::read_to_string(&svg).unwrap();
        assert!(text.contains("u32 keys") && text.contains("CUB radix sort") && !text.contains("u64"), "{text}");
        assert!(text.contains("H100, 2026-11-25, 2026-11-27"), "{text}");
        // Both types: one file each.
        let written =
            chart_saved(std::slice::from_ref(&csv), &[KeyType::U32, KeyType::U64], &[Distribution::Uniform], &svg)
                .unwrap();
        assert_eq!(written.len(), 2);
        // No rows of that type, or no throughput column: errors, no file.
        assert!(chart_saved(&[csv], &[KeyType::F64], &[Distribution::Uniform], &svg).is_err());
        let bad = dir.path().join("bad.csv");
        std::fs::write(&bad, "variant,n\nradix,1024\n").unwrap();
        let e = chart_saved(&[bad], &[KeyType::U32], &[Distribution::Uniform], &svg).unwrap_err();
        assert!(e.to_string().contains("gkeys_per_s"), "{e}");
    }

    #[test]
    fn chart_files_are_suffixed_when_several() {
        assert_eq!(suffixed(Path::new("d/tp.svg"), "u32-uniform"), Path::new("d/tp-u32-uniform.svg"));
        assert_eq!(suffixed(Path::new("tp"), "u64-sorted"), Path::new("tp-u64-sorted"));
        assert_eq!(size_label(1 << 20), "2^20");
        assert_eq!(size_label(1000), "1000");
    }
}
