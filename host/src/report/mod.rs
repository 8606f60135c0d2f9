//! Output of measurements: charts (SVG). Tables and CSV/JSON writers live beside.
pub mod chart;
