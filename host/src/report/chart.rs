//! A small, dependency-free SVG line chart: a few series of (x, y) points, linear or
//! logarithmic axes, a legend. Enough for throughput-vs-n and speed-up-vs-threads
//! plots that open in any browser.
use std::fmt::Write as _;

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
    /// Base-2 logarithmic: ticks at powers of two (sizes, thread counts).
    Log2,
    /// Base-10 logarithmic.
    Log10,
}

/// A chart description; [`Chart::to_svg`] renders it.
#[derive(Clone, Debug)]
pub struct Chart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub x_scale: Scale,
    pub y_scale: Scale,
    pub series: Vec<Series>,
}

const W: f64 = 900.0;
const H: f64 = 560.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 220.0;
const TOP: f64 = 50.0;
const BOTTOM: f64 = 60.0;
const COLORS: [&str; 10] =
    ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];

fn forward(scale: Scale, v: f64) -> f64 {
    match scale {
        Scale::Linear => v,
        Scale::Log2 => v.log2(),
        Scale::Log10 => v.log10(),
    }
}

fn usable(scale: Scale, v: f64) -> bool {
    v.is_finite() && (scale == Scale::Linear || v > 0.0)
}

/// Tick positions (in data units) covering `[lo, hi]` (transformed range).
fn ticks(scale: Scale, lo: f64, hi: f64) -> Vec<f64> {
    match scale {
        Scale::Log2 | Scale::Log10 => {
            let base = if scale == Scale::Log2 { 2f64 } else { 10f64 };
            let (a, b) = (lo.floor() as i32, hi.ceil() as i32);
            let step = ((b - a) / 10).max(1);
            (a..=b).step_by(step as usize).map(|e| base.powi(e)).collect()
        }
        Scale::Linear => {
            let span = (hi - lo).max(f64::MIN_POSITIVE);
            let raw = span / 8.0;
            let mag = 10f64.powf(raw.log10().floor());
            let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * mag).find(|s| *s >= raw).unwrap_or(10.0 * mag);
            let mut t = (lo / step).ceil() * step;
            let mut out = Vec::new();
            while t <= hi + step * 1e-9 {
                out.push(t);
                t += step;
            }
            out
        }
    }
}

fn label(v: f64) -> String {
    let a = v.abs();
    if a != 0.0 && (a >= 1e6 || a < 1e-2) {
        let exp = a.log2();
        if (exp - exp.round()).abs() < 1e-9 && a >= 1024.0 {
            return format!("2^{}", exp.round() as i64);
        }
        format!("{v:.2e}")
    } else if (v - v.round()).abs() < 1e-9 {
        format!("{}", v.round() as i64)
    } else {
        format!("{v:.2}")
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

impl Chart {
    /// Renders the chart. Points that can't be drawn on the chosen scales (NaN,
    /// non-positive on a log axis) are skipped.
    pub fn to_svg(&self) -> String {
        let pts: Vec<(f64, f64)> = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().copied())
            .filter(|&(x, y)| usable(self.x_scale, x) && usable(self.y_scale, y))
            .map(|(x, y)| (forward(self.x_scale, x), forward(self.y_scale, y)))
            .collect();
        let (mut x0, mut x1, mut y0, mut y1) = pts
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY), |(a, b, c, d), &(x, y)| {
                (a.min(x), b.max(x), c.min(y), d.max(y))
            });
        if pts.is_empty() {
            (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
        }
        if self.y_scale == Scale::Linear {
            y0 = y0.min(0.0);
        }
        if x1 - x0 < 1e-12 {
            x1 = x0 + 1.0;
        }
        if y1 - y0 < 1e-12 {
            y1 = y0 + 1.0;
        }
        y1 += (y1 - y0) * 0.05;
        let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
        let sx = |x: f64| LEFT + (x - x0) / (x1 - x0) * pw;
        let sy = |y: f64| TOP + ph - (y - y0) / (y1 - y0) * ph;

        let mut s = String::new();
        let _ = writeln!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">"#
        );
        let _ = writeln!(s, r#"<rect width="{W}" height="{H}" fill="white"/>"#);
        let _ = writeln!(
            s,
            r#"<text x="{}" y="28" text-anchor="middle" font-size="16">{}</text>"#,
            LEFT + pw / 2.0,
            escape(&self.title)
        );
        for t in ticks(self.x_scale, x0, x1) {
            let x = sx(forward(self.x_scale, t));
            if !(LEFT - 0.5..=LEFT + pw + 0.5).contains(&x) {
                continue;
            }
            let _ = writeln!(
                s,
                r##"<line x1="{x:.1}" y1="{TOP}" x2="{x:.1}" y2="{:.1}" stroke="#e0e0e0"/><text x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
                TOP + ph,
                TOP + ph + 18.0,
                label(t)
            );
        }
        for t in ticks(self.y_scale, y0, y1) {
            let y = sy(forward(self.y_scale, t));
            if !(TOP - 0.5..=TOP + ph + 0.5).contains(&y) {
                continue;
            }
            let _ = writeln!(
                s,
                r##"<line x1="{LEFT}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#e0e0e0"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
                LEFT + pw,
                LEFT - 6.0,
                y + 4.0,
                label(t)
            );
        }
        let _ = writeln!(s, r#"<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="none" stroke="black"/>"#);
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            LEFT + pw / 2.0,
            H - 15.0,
            escape(&self.x_label)
        );
        let _ = writeln!(
            s,
            r#"<text transform="translate(20 {:.1}) rotate(-90)" text-anchor="middle">{}</text>"#,
            TOP + ph / 2.0,
            escape(&self.y_label)
        );
        for (i, series) in self.series.iter().enumerate() {
            let color = COLORS[i % COLORS.len()];
            let path: Vec<String> = series
                .points
                .iter()
                .filter(|&&(x, y)| usable(self.x_scale, x) && usable(self.y_scale, y))
                .map(|&(x, y)| format!("{:.1},{:.1}", sx(forward(self.x_scale, x)), sy(forward(self.y_scale, y))))
                .collect();
            let _ =
                writeln!(s, r#"<polyline fill="none" stroke="{color}" stroke-width="2" points="{}"/>"#, path.join(" "));
            for p in &path {
                let (x, y) = p.split_once(',').unwrap();
                let _ = writeln!(s, r#"<circle cx="{x}" cy="{y}" r="3" fill="{color}"/>"#);
            }
            let ly = TOP + 10.0 + i as f64 * 20.0;
            let lx = LEFT + pw + 15.0;
            let _ = writeln!(
                s,
                r#"<line x1="{lx}" y1="{ly}" x2="{}" y2="{ly}" stroke="{color}" stroke-width="3"/><text x="{}" y="{}">{}</text>"#,
                lx + 20.0,
                lx + 26.0,
                ly + 4.0,
                escape(&series.name)
            );
        }
        s.push_str("</svg>\n");
        s
    }

    /// Writes the SVG to `path`.
    pub fn write(&self, path: &std::path::Path) -> std::io::Result<()> {
        std::fs::write(path, self.to_svg())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_series_legend_and_skips_unplottable_points() {
        let chart = Chart {
            title: "Throughput <u32>".into(),
            x_label: "n".into(),
            y_label: "Gkeys/s".into(),
            x_scale: Scale::Log2,
            y_scale: Scale::Linear,
            series: vec![
                Series { name: "naive".into(), points: vec![(1024.0, 1.0), (1048576.0, 2.5), (0.0, 3.0)] },
                Series { name: "sm".into(), points: vec![(1024.0, 2.0), (1048576.0, f64::NAN)] },
            ],
        };
        let svg = chart.to_svg();
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains("Throughput &lt;u32&gt;"));
        assert_eq!(svg.matches("<polyline").count(), 2);
        // (0, 3) can't sit on a log axis and the NaN point is dropped: 3 circles.
        assert_eq!(svg.matches("<circle").count(), 3);
        assert!(svg.contains(">naive<") && svg.contains(">sm<"));
        assert!(svg.contains(">2^20<"));
    }

    #[test]
    fn empty_chart_is_still_valid() {
        let chart = Chart {
            title: "t".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            x_scale: Scale::Linear,
            y_scale: Scale::Log10,
            series: vec![],
        };
        assert!(chart.to_svg().contains("</svg>"));
    }
}
