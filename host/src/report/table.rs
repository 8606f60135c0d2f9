//! Aligned plain-text tables for the terminal.

/// How a column's cells line up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// Column headers and rows of already formatted cells.
#[derive(Clone, Debug, Default)]
pub struct Table {
    columns: Vec<(String, Align)>,
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new<S: Into<String>>(columns: impl IntoIterator<Item = (S, Align)>) -> Table {
        Table { columns: columns.into_iter().map(|(h, a)| (h.into(), a)).collect(), rows: Vec::new() }
    }

    /// Adds a row; missing cells are blank, extra cells are dropped.
    pub fn push(&mut self, mut row: Vec<String>) {
        row.resize(self.columns.len(), String::new());
        self.rows.push(row);
    }

    /// Header, a rule, then the rows; columns two spaces apart, no trailing blanks.
    pub fn render(&self) -> String {
        let width = |i: usize| {
            self.rows.iter().map(|r| r[i].chars().count()).chain([self.columns[i].0.chars().count()]).max().unwrap_or(0)
        };
        let widths: Vec<usize> = (0..self.columns.len()).map(width).collect();
        let line = |cells: &[String]| {
            let parts: Vec<String> = cells
                .iter()
                .zip(&self.columns)
                .zip(&widths)
                .map(|((c, (_, align)), &w)| match align {
                    Align::Left => format!("{c:<w$}"),
                    Align::Right => format!("{c:>w$}"),
                })
                .collect();
            parts.join("  ").trim_end().to_string()
        };
        let headers: Vec<String> = self.columns.iter().map(|(h, _)| h.clone()).collect();
        let mut out = line(&headers);
        out.push('\n');
        out.push_str(&"-".repeat(widths.iter().sum::<usize>() + 2 * widths.len().saturating_sub(1)));
        out.push('\n');
        for r in &self.rows {
            out.push_str(&line(r));
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_line_up() {
        let mut t = Table::new([("variant", Align::Left), ("ms", Align::Right)]);
        t.push(vec!["naive".into(), "12.5".into()]);
        t.push(vec!["sm".into(), "3.25".into(), "dropped".into()]);
        t.push(vec!["x".into()]);
        assert_eq!(t.render(), "variant    ms\n-------------\nnaive    12.5\nsm       3.25\nx\n");
    }
}
