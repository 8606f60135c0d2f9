//! A study's result: one table, printed aligned and written as CSV, plus its charts.
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::report::chart::Chart;
use crate::report::table::{Align, Table};

pub struct Report {
    /// File stem of the CSV (and of the first chart): `threads`, `sizes`, `gpu`.
    pub name: &'static str,
    pub title: String,
    pub columns: Vec<&'static str>,
    pub rows: Vec<Vec<String>>,
    /// File stem and chart; the first one is named like the study.
    pub charts: Vec<(String, Chart)>,
}

impl Report {
    /// The title, then the table (numbers right-aligned, words left-aligned).
    pub fn table(&self) -> String {
        let numeric = |c: usize| self.rows.iter().all(|r| r[c].parse::<f64>().is_ok() || r[c] == "-");
        let mut table = Table::new(
            self.columns.iter().enumerate().map(|(c, h)| (*h, if numeric(c) { Align::Right } else { Align::Left })),
        );
        for r in &self.rows {
            table.push(r.clone());
        }
        format!("{}\n{}", self.title, table.render())
    }

    pub fn csv(&self) -> String {
        let quote = |s: &str| {
            if s.contains([',', '"', '\n']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_string() }
        };
        let mut out = self.columns.join(",") + "\n";
        for r in &self.rows {
            out += &(r.iter().map(|c| quote(c)).collect::<Vec<_>>().join(",") + "\n");
        }
        out
    }

    /// Writes `<dir>/<name>.csv` and every chart as `<dir>/<stem>.svg`; returns the paths.
    pub fn write(&self, dir: &Path) -> Result<Vec<PathBuf>> {
        let io = |path: &Path| {
            let context = format!("writing {}", path.display());
            move |source| Error::Io { context, source }
        };
        let mut written = vec![dir.join(format!("{}.csv", self.name))];
        std::fs::write(&written[0], self.csv()).map_err(io(&written[0]))?;
        for (stem, chart) in &self.charts {
            let path = dir.join(format!("{stem}.svg"));
            chart.write(&path)?;
            written.push(path);
        }
        Ok(written)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_aligns_and_csv_quotes() {
        let r = Report {
            name: "t",
            title: "T".into(),
            columns: vec!["algorithm", "ms"],
            rows: vec![vec!["a,b".into(), "1.5".into()], vec!["long-name".into(), "10.25".into()]],
            charts: vec![],
        };
        assert_eq!(r.table(), "T\nalgorithm     ms\n----------------\na,b          1.5\nlong-name  10.25\n");
        assert_eq!(r.csv(), "algorithm,ms\n\"a,b\",1.5\nlong-name,10.25\n");
    }
}
