//! Speed-up studies of the CPU backend, after the Pisa report: time and speed-up vs
//! threads at a fixed n, speed-up vs n for several thread counts (where does going
//! parallel start to pay off), and GPU vs CPU speed-up vs n for every GPU variant.
//!
//! Each study prints an aligned table and writes `<out>/<study>.csv` and SVG charts.
//! Comparison rows (rayon `par_sort` and `par_sort_unstable`, std `sort` and
//! `sort_unstable`) are measured in the same run, on the same input, the same way:
//! one warm-up, then the median of repeats, the input restored before each.
mod algorithms;
mod gpu;
mod output;
mod sizes;
mod threads;

use std::path::PathBuf;

pub use algorithms::{CpuSort, Pools, measure};
pub use output::Report;

use crate::error::{Error, Result};
use crate::{Element, KeyType, Order, Sorter, cpu, verify, with_key_type};

/// Which study to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum StudyKind {
    /// Time and speed-up vs threads at n elements.
    Threads,
    /// Speed-up vs n for several thread counts.
    Sizes,
    /// GPU vs CPU speed-up vs n for every GPU variant (skipped without a GPU).
    Gpu,
    /// All three.
    All,
}

/// The knobs of every study.
#[derive(Clone, Debug)]
pub struct StudyConfig {
    /// Elements of the threads study.
    pub n: usize,
    /// Largest n of the sizes and gpu studies (they start at 2^10, step 4x).
    pub max_n: usize,
    /// Timed repeats per measurement (more for small n, see [`repeats_for`]).
    pub repeat: usize,
    /// Most CPU threads; thread counts are 1, 2, 4, ... and this.
    pub max_threads: usize,
    pub key_type: KeyType,
    pub out: PathBuf,
    pub seed: u64,
    /// The knobs of the GPU study's device.
    pub tuning: crate::Tuning,
}

impl Default for StudyConfig {
    fn default() -> Self {
        StudyConfig {
            n: 10_000_000,
            max_n: 1 << 24,
            repeat: 5,
            max_threads: cpu::available_threads(),
            key_type: KeyType::U32,
            out: "study".into(),
            seed: 42,
            tuning: crate::Tuning::default(),
        }
    }
}

/// Runs the study (or all three), prints its tables and writes its files. Returns
/// false when some sort's output failed its check (the table says which).
pub fn run(kind: StudyKind, cfg: &StudyConfig) -> Result<bool> {
    if cfg.max_threads == 0 || cfg.repeat == 0 || cfg.n == 0 {
        return Err(Error::BadArgument("--n, --repeat and --max-threads must be at least 1".into()));
    }
    if cfg.max_n < 1 << 10 {
        return Err(Error::BadArgument("--max-n must be at least 1024 (the sizes start there)".into()));
    }
    std::fs::create_dir_all(&cfg.out)
        .map_err(|source| Error::Io { context: format!("creating {}", cfg.out.display()), source })?;
    println!("CPU: {} ({} threads available)", cpu_name(), cpu::available_threads());
    let mut all_ok = true;
    let mut emit = |report: Report| -> Result<()> {
        print!("\n{}", report.table());
        all_ok &= !report.rows.iter().any(|r| r.last().is_some_and(|c| c.starts_with("WRONG")));
        for path in report.write(&cfg.out)? {
            println!("wrote {}", path.display());
        }
        Ok(())
    };
    if matches!(kind, StudyKind::Threads | StudyKind::All) {
        emit(
            with_key_type!(cfg.key_type, T => threads::study::<T>(cfg), wide => Err(cfg.key_type.wide_refused("study")))?,
        )?;
    }
    if matches!(kind, StudyKind::Sizes | StudyKind::All) {
        emit(
            with_key_type!(cfg.key_type, T => sizes::study::<T>(cfg), wide => Err(cfg.key_type.wide_refused("study")))?,
        )?;
    }
    if matches!(kind, StudyKind::Gpu | StudyKind::All) {
        let sorter = Sorter::with_fallback_tuned(cfg.tuning.clone());
        match sorter.gpu() {
            Some(gpu) => {
                println!("\nGPU: {}", gpu.info());
                emit(
                    with_key_type!(cfg.key_type, T => gpu::study::<T>(&sorter, cfg), wide => Err(cfg.key_type.wide_refused("study")))?,
                )?;
            }
            None => println!("\nstudy gpu: skipped: no GPU ({})", sorter.backend()),
        }
    }
    Ok(all_ok)
}

/// Thread counts 1, 2, 4, ... below `max`, then `max` itself.
pub fn thread_counts(max: usize) -> Vec<usize> {
    let mut counts: Vec<usize> =
        std::iter::successors(Some(1usize), |t| t.checked_mul(2)).take_while(|&t| t < max).collect();
    counts.push(max.max(1));
    counts
}

/// Sizes 2^10, 2^12, ... up to `max_n`.
pub fn sizes_up_to(max_n: usize) -> Vec<usize> {
    std::iter::successors(Some(1usize << 10), |n| n.checked_mul(4)).take_while(|&n| n <= max_n).collect()
}

/// Repeats for `n` elements: at least `repeat`, and for small n enough that each median
/// covers about 2^22 sorted elements (a sort of a few microseconds is noisy), capped
/// at 1000.
pub fn repeats_for(n: usize, repeat: usize) -> usize {
    repeat.max(((1usize << 22) / n.max(1)).min(1000))
}

/// `ok`, or `WRONG: ...`. Our merge sorts get the full check (order, permutation,
/// stability); the library sorts only an order check, which costs O(n) instead of a
/// reference sort.
fn check_output<T: Element>(sort: CpuSort, input: &[T], output: &[T]) -> String {
    let ours = matches!(sort, CpuSort::ParallelMerge | CpuSort::RecursiveMerge | CpuSort::BottomUpMerge);
    if ours {
        match verify::check(input, output, Order::Ascending, true) {
            Ok(_) => "ok".into(),
            Err(m) => format!("WRONG: {m}"),
        }
    } else {
        check_order(output)
    }
}

fn check_order<T: Element>(output: &[T]) -> String {
    if output.is_sorted_by_key(|x| x.bits()) { "ok (order)".into() } else { "WRONG: not ordered".into() }
}

/// The processor's model name (Linux), for tables and chart titles.
pub fn cpu_name() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_counts_end_at_max() {
        assert_eq!(thread_counts(1), [1]);
        assert_eq!(thread_counts(2), [1, 2]);
        assert_eq!(thread_counts(16), [1, 2, 4, 8, 16]);
        assert_eq!(thread_counts(12), [1, 2, 4, 8, 12]);
    }

    #[test]
    fn sizes_and_repeats() {
        assert_eq!(sizes_up_to(1 << 16), [1 << 10, 1 << 12, 1 << 14, 1 << 16]);
        assert_eq!(sizes_up_to(5000), [1 << 10, 1 << 12]);
        assert_eq!(repeats_for(1 << 10, 5), 1000);
        assert_eq!(repeats_for(1 << 20, 5), 5);
        assert_eq!(repeats_for(1 << 18, 5), 16);
    }

    #[test]
    fn bad_arguments_are_errors() {
        let cfg = StudyConfig { max_threads: 0, ..StudyConfig::default() };
        assert!(matches!(run(StudyKind::Threads, &cfg), Err(Error::BadArgument(_))));
        let cfg = StudyConfig { max_n: 10, ..StudyConfig::default() };
        assert!(matches!(run(StudyKind::Sizes, &cfg), Err(Error::BadArgument(_))));
    }
}
