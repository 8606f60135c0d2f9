//! Output of measurements: charts (SVG), aligned terminal tables, CSV and JSON.
pub mod chart;
pub mod records;
pub mod table;
