//! Line charts of measurements (throughput against n, speed-up against threads) as
//! SVG, drawn by `plotters`. This module decides what a reader needs: a title and a
//! subtitle (the device) that always fit, a legend beside the plot that never covers
//! a line, and ticks that label every axis whatever its range: sizes as `2^k`,
//! logarithmic axes by decades with 2 and 5 (or every digit) between them when the
//! range is narrow, and plain steps when it spans less than a factor of two.
use std::ops::Range;

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::error::{Error, Result};

/// One line of the chart.
#[derive(Clone, Debug)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// Axis scale.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    Linear,
    /// Base-2 logarithmic: ticks at powers of two labelled `2^k` (sizes, thread
    /// counts below 2^10 are labelled as plain numbers).
    Log2,
    /// Base-10 logarithmic: decades, with intermediate ticks on narrow ranges.
    Log10,
}

/// A chart description; [`Chart::to_svg`] renders it.
#[derive(Clone, Debug)]
pub struct Chart {
    pub title: String,
    /// The second line under the title: what it was measured on (device, date).
    pub subtitle: String,
    pub x_label: String,
    pub y_label: String,
    pub x_scale: Scale,
    pub y_scale: Scale,
    pub series: Vec<Series>,
}

const WIDTH: u32 = 960;
const HEIGHT: u32 = 540;
/// plotters writes `font-size` as its size / 1.24: the sizes below are in its units.
const PX_PER_SIZE: f64 = 1.0 / 1.24;
/// Average advance of a sans-serif character in ems: a little wider than the usual
/// ~0.55 so that estimated widths err on the side of room.
const EM_PER_CHAR: f64 = 0.62;
const TITLE_SIZE: f64 = 24.0;
const SUBTITLE_SIZE: f64 = 17.0;
const TEXT_SIZE: f64 = 16.0;
const MIN_SIZE: f64 = 13.0;
const COLORS: [RGBColor; 10] = [
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0x8c, 0x56, 0x4b),
    RGBColor(0xe3, 0x77, 0xc2),
    RGBColor(0x7f, 0x7f, 0x7f),
    RGBColor(0xbc, 0xbd, 0x22),
    RGBColor(0x17, 0xbe, 0xcf),
];

/// Estimated width in pixels of `text` at plotters size `size`.
fn text_width(text: &str, size: f64) -> f64 {
    text.chars().count() as f64 * size * PX_PER_SIZE * EM_PER_CHAR
}

/// The largest size from `size` down to [`MIN_SIZE`] at which `text` fits `width`,
/// and the text itself, shortened with an ellipsis if even the smallest size is too
/// wide.
fn fit(text: &str, size: f64, width: f64) -> (String, f64) {
    let mut s = size;
    while s > MIN_SIZE && text_width(text, s) > width {
        s -= 1.0;
    }
    if text_width(text, s) <= width {
        return (text.to_string(), s);
    }
    let keep = (width / (s * PX_PER_SIZE * EM_PER_CHAR)) as usize;
    let short: String = text.chars().take(keep.saturating_sub(1)).collect();
    (format!("{}…", short.trim_end()), s)
}

fn forward(scale: Scale, v: f64) -> f64 {
    match scale {
        Scale::Linear => v,
        Scale::Log2 => v.log2(),
        Scale::Log10 => v.log10(),
    }
}

fn inverse(scale: Scale, v: f64) -> f64 {
    match scale {
        Scale::Linear => v,
        Scale::Log2 => v.exp2(),
        Scale::Log10 => 10f64.powf(v),
    }
}

fn usable(scale: Scale, v: f64) -> bool {
    v.is_finite() && (scale == Scale::Linear || v > 0.0)
}

/// Steps of 1, 2 or 5 times a power of ten covering `[lo, hi]` with at most `max`
/// ticks (and at least two where the range allows).
fn linear_ticks(lo: f64, hi: f64, max: usize) -> Vec<f64> {
    let span = (hi - lo).max(f64::MIN_POSITIVE);
    let raw = span / max.max(2) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * mag).find(|s| *s >= raw).unwrap_or(10.0 * mag);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step + 1e-9).floor() as i64;
    (first..=last).map(|i| i as f64 * step).collect()
}

/// Ticks (data values) of a logarithmic axis over `[lo, hi]` (data values, lo > 0).
/// Whole decades when there are at least three of them (every other decade, or
/// sparser, past a dozen); otherwise 1-2-5, 1-2-3-5-7 or every digit in each decade,
/// whichever is the sparsest with enough ticks; a range of less than a decade gets
/// linear steps.
fn log10_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let in_range = |v: f64| v >= lo * (1.0 - 1e-9) && v <= hi * (1.0 + 1e-9);
    let (d0, d1) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    let decades: Vec<f64> = (d0..=d1).map(|d| 10f64.powi(d)).filter(|&v| in_range(v)).collect();
    if decades.len() >= 3 {
        let step = decades.len().div_ceil(12);
        return decades.into_iter().step_by(step).collect();
    }
    if hi < lo * 10.0 {
        // Less than a decade: digits alone would leave the upper part bare (4..9, 10,
        // then nothing up to 18).
        return linear_ticks(lo, hi, 10);
    }
    // The sparsest set that gives enough ticks: 1-2-5 needs five (a decade and a
    // half), 1-2-3-5-7 four, every digit three.
    let sets: [(&[f64], usize); 3] =
        [(&[1.0, 2.0, 5.0], 5), (&[1.0, 2.0, 3.0, 5.0, 7.0], 4), (&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0], 3)];
    for (mantissas, enough) in sets {
        let ticks: Vec<f64> =
            (d0..=d1).flat_map(|d| mantissas.iter().map(move |m| m * 10f64.powi(d))).filter(|&v| in_range(v)).collect();
        if ticks.len() >= enough {
            return ticks;
        }
    }
    linear_ticks(lo, hi, 6)
}

/// Ticks (data values) of a base-2 axis: powers of two, every one while there are at
/// most a dozen, else every second, third, ...; a range with fewer than three gets the
/// ticks of a narrow logarithmic range instead.
fn log2_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let (a, b) = (lo.log2().ceil() as i32, (hi.log2() + 1e-9).floor() as i32);
    if b - a < 2 {
        // Fewer than three powers of two in range: the decimal ticks of a narrow range.
        return log10_ticks(lo, hi);
    }
    let step = (((b - a) as usize + 1).div_ceil(12)).max(1);
    (a..=b).step_by(step).map(|e| 2f64.powi(e)).collect()
}

fn ticks(scale: Scale, lo: f64, hi: f64) -> Vec<f64> {
    match scale {
        Scale::Linear => linear_ticks(lo, hi, 8),
        Scale::Log2 => log2_ticks(lo, hi),
        Scale::Log10 => log10_ticks(lo, hi),
    }
}

/// A tick's label: `2^k` for powers of two from 2^10 on a base-2 axis; otherwise the
/// shortest plain number that tells the axis's ticks apart (`0.5`, `12`, `2.25`),
/// and `1e6`-style past 10^5 or below 10^-3.
fn tick_label(scale: Scale, v: f64, all: &[f64]) -> String {
    if scale == Scale::Log2 && v >= 1024.0 && (v.log2() - v.log2().round()).abs() < 1e-9 {
        return format!("2^{}", v.log2().round() as i64);
    }
    number(v, all)
}

fn number(v: f64, all: &[f64]) -> String {
    let a = v.abs();
    if a != 0.0 && !(1e-3..1e5).contains(&a) {
        let e = a.log10().floor();
        let m = v / 10f64.powf(e);
        return if (m - m.round()).abs() < 1e-6 {
            format!("{}e{}", m.round() as i64, e as i64)
        } else {
            format!("{m:.1}e{}", e as i64)
        };
    }
    // Enough decimals that neighbouring ticks differ, and no more than the value has.
    let gap = all.windows(2).map(|w| (w[1] - w[0]).abs()).filter(|g| *g > 0.0).fold(f64::INFINITY, f64::min);
    let mut decimals = if gap.is_finite() { (-(gap.log10() + 1e-6).floor()).max(0.0) as usize } else { 0 };
    while decimals < 6 && (v * 10f64.powi(decimals as i32) - (v * 10f64.powi(decimals as i32)).round()).abs() > 1e-6 {
        decimals += 1;
    }
    format!("{v:.decimals$}")
}

/// The largest `m * 10^d` (`m` a digit 1..9) not above `v > 0`.
fn nice_floor(v: f64) -> f64 {
    let d = 10f64.powf(v.log10().floor());
    ((v / d + 1e-9).floor()).clamp(1.0, 9.0) * d
}

/// The range `[lo, hi]` (transformed units) that the axis shows: the data with a
/// margin, from zero on a linear y axis, and never empty.
fn padded(scale: Scale, lo: f64, hi: f64, from_zero: bool) -> (f64, f64) {
    let (mut lo, hi) = (lo, hi);
    if from_zero && scale == Scale::Linear {
        lo = lo.min(0.0);
    }
    if hi - lo < 1e-12 {
        let pad = if scale == Scale::Linear { lo.abs().max(1.0) * 0.5 } else { 0.25 };
        return (lo - pad, hi + pad);
    }
    let pad = (hi - lo) * 0.06;
    let lo = if from_zero && scale == Scale::Linear && lo >= 0.0 { lo } else { lo - pad };
    (lo, hi + pad)
}

/// A linear axis in transformed units (log2 or log10 of the data for logarithmic
/// scales) whose ticks are exactly the given ones: plotters' own key points would
/// leave a narrow logarithmic range without labels.
struct Axis {
    range: Range<f64>,
    ticks: Vec<f64>,
}

impl Ranged for Axis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let share = (value - self.range.start) / (self.range.end - self.range.start);
        limit.0 + (share * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() { Vec::new() } else { self.ticks.clone() }
    }

    fn range(&self) -> Range<f64> {
        self.range.clone()
    }
}

impl Chart {
    /// The points of every series that the scales can show (finite, positive on a
    /// logarithmic axis), in transformed units.
    fn drawable(&self) -> Vec<Vec<(f64, f64)>> {
        self.series
            .iter()
            .map(|s| {
                s.points
                    .iter()
                    .filter(|&&(x, y)| usable(self.x_scale, x) && usable(self.y_scale, y))
                    .map(|&(x, y)| (forward(self.x_scale, x), forward(self.y_scale, y)))
                    .collect()
            })
            .collect()
    }

    /// Renders the chart as SVG. Points that can't be drawn on the chosen scales (NaN,
    /// non-positive on a log axis) are left out.
    pub fn to_svg(&self) -> Result<String> {
        let mut svg = String::new();
        self.draw(&mut svg).map_err(|e| Error::Io {
            context: format!("drawing the chart `{}`", self.title),
            source: std::io::Error::other(e.to_string()),
        })?;
        Ok(svg)
    }

    fn draw(&self, svg: &mut String) -> std::result::Result<(), Box<dyn std::error::Error + '_>> {
        let series = self.drawable();
        let all: Vec<(f64, f64)> = series.iter().flatten().copied().collect();
        let bounds = |f: fn(&(f64, f64)) -> f64| {
            all.iter().map(f).fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)))
        };
        let ((x0, x1), (y0, y1)) =
            if all.is_empty() { ((0.0, 1.0), (0.0, 1.0)) } else { (bounds(|p| p.0), bounds(|p| p.1)) };
        let (x0, x1) = padded(self.x_scale, x0, x1, false);
        let (mut y0, y1) = padded(self.y_scale, y0, y1, true);
        if self.y_scale == Scale::Log10 && !all.is_empty() && y1 - y0 < 2.0 {
            // Down to a labelled value below the data (10 under 13.4, 0.002 under
            // 0.0021), so that the lowest points have a tick near them.
            y0 = y0.min(nice_floor(10f64.powf(bounds(|p| p.1).0)).log10());
        }
        let x_ticks = ticks(self.x_scale, inverse(self.x_scale, x0), inverse(self.x_scale, x1));
        let y_ticks = ticks(self.y_scale, inverse(self.y_scale, y0), inverse(self.y_scale, y1));
        let x_labels: Vec<String> = x_ticks.iter().map(|&t| tick_label(self.x_scale, t, &x_ticks)).collect();
        let y_labels: Vec<String> = y_ticks.iter().map(|&t| tick_label(self.y_scale, t, &y_ticks)).collect();

        let w = f64::from(WIDTH);
        let legend_text = TEXT_SIZE - 1.0;
        let legend_w =
            self.series.iter().map(|s| text_width(&s.name, legend_text)).fold(0.0, f64::max).min(w * 0.4) + 56.0;
        let root = SVGBackend::with_string(svg, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE)?;
        let (title, title_size) = fit(&self.title, TITLE_SIZE, w - 24.0);
        let (subtitle, subtitle_size) = fit(&self.subtitle, SUBTITLE_SIZE, w - 24.0);
        let centred = Pos::new(HPos::Center, VPos::Top);
        root.draw(&Text::new(
            title,
            ((w / 2.0) as i32, 10),
            ("sans-serif", title_size).into_font().style(FontStyle::Bold).color(&BLACK).pos(centred),
        ))?;
        let header = if subtitle.is_empty() {
            (18.0 + title_size * PX_PER_SIZE) as u32
        } else {
            root.draw(&Text::new(
                subtitle,
                ((w / 2.0) as i32, (16.0 + title_size * PX_PER_SIZE) as i32),
                ("sans-serif", subtitle_size).into_font().color(&RGBColor(0x44, 0x44, 0x44)).pos(centred),
            ))?;
            (26.0 + (title_size + subtitle_size) * PX_PER_SIZE) as u32
        };
        let (_, body) = root.split_vertically(header);
        let (plot, legend) = body.split_horizontally((w - legend_w) as u32);

        let y_label_w = y_labels.iter().map(|l| text_width(l, TEXT_SIZE)).fold(0.0, f64::max) + 12.0;
        let x_axis = Axis { range: x0..x1, ticks: x_ticks.iter().map(|&t| forward(self.x_scale, t)).collect() };
        let y_axis = Axis { range: y0..y1, ticks: y_ticks.iter().map(|&t| forward(self.y_scale, t)).collect() };
        let mut chart = ChartBuilder::on(&plot)
            .margin_left(8)
            .margin_right(12)
            .margin_top(6)
            .margin_bottom(6)
            .x_label_area_size((TEXT_SIZE * PX_PER_SIZE * 2.0 + 22.0) as u32)
            .y_label_area_size((y_label_w + TEXT_SIZE * PX_PER_SIZE + 14.0) as u32)
            .build_cartesian_2d(x_axis, y_axis)?;
        let label_of = |scale: Scale, ticks: &[f64], labels: &[String], v: f64| -> String {
            ticks
                .iter()
                .position(|&t| (forward(scale, t) - v).abs() < 1e-6)
                .map_or_else(|| number(inverse(scale, v), ticks), |i| labels[i].clone())
        };
        let x_fmt = |v: &f64| label_of(self.x_scale, &x_ticks, &x_labels, *v);
        let y_fmt = |v: &f64| label_of(self.y_scale, &y_ticks, &y_labels, *v);
        chart
            .configure_mesh()
            .bold_line_style(RGBColor(0xdd, 0xdd, 0xdd))
            .light_line_style(WHITE)
            .axis_style(BLACK)
            .label_style(("sans-serif", TEXT_SIZE))
            .axis_desc_style(("sans-serif", TEXT_SIZE))
            .x_label_formatter(&x_fmt)
            .y_label_formatter(&y_fmt)
            .x_desc(self.x_label.as_str())
            .y_desc(self.y_label.as_str())
            .draw()?;
        for (i, points) in series.iter().enumerate() {
            let color = COLORS[i % COLORS.len()];
            chart.draw_series(LineSeries::new(points.iter().copied(), color.stroke_width(2)))?;
            chart.draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
        }
        for (i, s) in self.series.iter().enumerate() {
            let color = COLORS[i % COLORS.len()];
            let y = 24 + i as i32 * 24;
            legend.draw(&PathElement::new(vec![(8, y), (36, y)], color.stroke_width(3)))?;
            legend.draw(&Circle::new((22, y), 3, color.filled()))?;
            let (name, size) = fit(&s.name, legend_text, legend_w - 52.0);
            legend.draw(&Text::new(
                name,
                (44, y),
                ("sans-serif", size).into_font().color(&BLACK).pos(Pos::new(HPos::Left, VPos::Center)),
            ))?;
        }
        root.present()?;
        Ok(())
    }

    /// Writes the SVG to `path` atomically.
    pub fn write(&self, path: &std::path::Path) -> Result<()> {
        crate::atomic_file::write_atomic(path, self.to_svg()?.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(series: Vec<Series>, x_scale: Scale, y_scale: Scale) -> Chart {
        Chart {
            title: "Throughput <u32>".into(),
            subtitle: "NVIDIA H100 80GB HBM3".into(),
            x_label: "n".into(),
            y_label: "Gkeys/s".into(),
            x_scale,
            y_scale,
            series,
        }
    }

    /// The text of every `<text>` element.
    fn texts(svg: &str) -> Vec<String> {
        svg.split("<text")
            .skip(1)
            .map(|t| t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()].trim().to_string())
            .collect()
    }

    #[test]
    fn renders_series_legend_subtitle_and_skips_unplottable_points() {
        let c = chart(
            vec![
                Series { name: "naive".into(), points: vec![(1024.0, 1.0), (1048576.0, 2.5), (0.0, 3.0)] },
                Series { name: "sm".into(), points: vec![(1024.0, 2.0), (1048576.0, f64::NAN)] },
            ],
            Scale::Log2,
            Scale::Linear,
        );
        let svg = c.to_svg().unwrap();
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        let t = texts(&svg);
        for want in ["Throughput &lt;u32&gt;", "NVIDIA H100 80GB HBM3", "naive", "sm", "2^10", "2^20", "Gkeys/s"] {
            assert!(t.iter().any(|s| s == want), "{want} not in {t:?}");
        }
        // (0, 3) can't sit on a log axis and the NaN point is dropped: 3 markers.
        assert_eq!(svg.matches("<circle").count(), 3 + 2, "{svg}");
    }

    #[test]
    fn empty_chart_is_still_valid() {
        let svg = chart(vec![], Scale::Linear, Scale::Log10).to_svg().unwrap();
        assert!(svg.contains("</svg>"));
    }

    #[test]
    fn log_axes_label_decades_and_narrow_ranges() {
        assert_eq!(log10_ticks(0.5, 2000.0), [1.0, 10.0, 100.0, 1000.0]);
        assert_eq!(log10_ticks(1.5, 60.0), [2.0, 5.0, 10.0, 20.0, 50.0]);
        assert_eq!(log10_ticks(5.0, 55.0), [5.0, 7.0, 10.0, 20.0, 30.0, 50.0]);
        assert_eq!(log10_ticks(12.0, 45.0), [15.0, 20.0, 25.0, 30.0, 35.0, 40.0, 45.0]);
        assert_eq!(log10_ticks(4.0, 19.0), [4.0, 6.0, 8.0, 10.0, 12.0, 14.0, 16.0, 18.0]);
        assert_eq!(log10_ticks(41.0, 44.0), [41.0, 41.5, 42.0, 42.5, 43.0, 43.5, 44.0]);
        assert!(log10_ticks(1e-3, 1e30).len() <= 12);
        assert_eq!(log2_ticks(1000.0, 5000.0), [1024.0, 2048.0, 4096.0]);
        assert_eq!(log2_ticks(1.0, 16.0), [1.0, 2.0, 4.0, 8.0, 16.0]);
        let narrow = log2_ticks(0.29, 1.5);
        let labels: Vec<String> = narrow.iter().map(|&t| tick_label(Scale::Log2, t, &narrow)).collect();
        assert_eq!(labels, ["0.4", "0.6", "0.8", "1.0", "1.2", "1.4"]);
        assert_eq!(log2_ticks(1.0, (1u64 << 40) as f64).len(), 11);
        assert_eq!(linear_ticks(0.0, 50.0, 8), [0.0, 10.0, 20.0, 30.0, 40.0, 50.0]);
        assert_eq!(nice_floor(13.4), 10.0);
        assert_eq!(nice_floor(0.0021), 0.002);
        assert_eq!(nice_floor(50.0), 50.0);
    }

    #[test]
    fn labels_are_consistent() {
        assert_eq!(tick_label(Scale::Log2, 1048576.0, &[]), "2^20");
        assert_eq!(tick_label(Scale::Log2, 16.0, &[]), "16");
        assert_eq!(tick_label(Scale::Log10, 1e6, &[]), "1e6");
        assert_eq!(tick_label(Scale::Log10, 0.5, &[0.5, 1.0]), "0.5");
        let half_steps = [41.0, 41.5, 42.0];
        assert_eq!(tick_label(Scale::Linear, 42.0, &half_steps), "42.0");
        assert_eq!(tick_label(Scale::Linear, 20.0, &[10.0, 20.0]), "20");
        // Steps of 0.1 that floating point makes 0.09999...: one decimal, not two.
        let tenths = [1.2000000000000002, 1.3000000000000003, 1.4000000000000004];
        assert_eq!(tick_label(Scale::Linear, tenths[1], &tenths), "1.3");
    }

    #[test]
    fn narrow_log_range_has_labelled_y_ticks() {
        let c = chart(
            vec![Series { name: "radix".into(), points: vec![(1048576.0, 41.0), (16777216.0, 44.0)] }],
            Scale::Log2,
            Scale::Log10,
        );
        let t = texts(&c.to_svg().unwrap());
        let numeric = t.iter().filter(|s| s.parse::<f64>().is_ok()).count();
        assert!(numeric >= 3, "{t:?}");
    }

    #[test]
    fn long_titles_shrink_or_shorten_to_fit() {
        let (text, size) = fit("short", TITLE_SIZE, 900.0);
        assert_eq!((text.as_str(), size), ("short", TITLE_SIZE));
        let long = "x".repeat(80);
        let (text, size) = fit(&long, TITLE_SIZE, 900.0);
        assert!(size < TITLE_SIZE && text_width(&text, size) <= 900.0);
        let very_long = "x".repeat(400);
        let (text, size) = fit(&very_long, TITLE_SIZE, 900.0);
        assert!(text.ends_with('…') && size == MIN_SIZE && text_width(&text, size) <= 900.0);
    }
}
