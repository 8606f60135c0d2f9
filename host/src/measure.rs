//! Timing of one sort configuration: warm-up, then repeats on a fresh copy of the
//! input each time, timed with CUDA events on the GPU (wall clock on the CPU).
use std::time::Instant;

use crate::error::Result;
use crate::{Element, SortOptions, Sorter, cpu};

/// Times of the repeats (milliseconds) and the output of the last one.
pub struct Timing<T> {
    pub times_ms: Vec<f64>,
    pub output: Vec<T>,
}

impl<T> Timing<T> {
    pub fn median_ms(&self) -> f64 {
        median(&self.times_ms)
    }

    pub fn min_ms(&self) -> f64 {
        self.times_ms.iter().copied().fold(f64::INFINITY, f64::min)
    }

    pub fn max_ms(&self) -> f64 {
        self.times_ms.iter().copied().fold(0.0, f64::max)
    }
}

/// Median of a non-empty sample (mean of the middle two for even sizes).
pub fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.is_empty() {
        f64::NAN
    } else if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

/// Billions of keys per second.
pub fn gkeys_per_s(n: usize, ms: f64) -> f64 {
    n as f64 / (ms * 1e-3) / 1e9
}

/// Sorts `input` `repeats` times (after one untimed warm-up) and times each sort.
/// On the GPU the input is uploaded once and copied device-to-device into the work
/// buffer before each repeat, outside the timed region; only the sort is timed.
pub fn time_sort<T: Element>(sorter: &Sorter, input: &[T], opts: &SortOptions, repeats: usize) -> Result<Timing<T>> {
    let repeats = repeats.max(1);
    let mut times_ms = Vec::with_capacity(repeats);
    match sorter.gpu() {
        Some(gpu) => {
            let original = gpu.upload(input)?;
            let mut work = gpu.alloc::<T>(input.len())?;
            for rep in 0..=repeats {
                work.copy_from_device(gpu, &original)?;
                let ms = gpu.time_ms(|| sorter.sort_device(&mut work, opts))?;
                if rep > 0 {
                    times_ms.push(ms);
                }
            }
            Ok(Timing { times_ms, output: work.to_vec(gpu)? })
        }
        None => Ok(time_cpu(input, repeats, |work| cpu::sort(work, opts.order))),
    }
}

/// Times `sort` on the CPU by wall clock: one untimed warm-up, then `repeats` timed
/// runs, each on a fresh copy of `input` made outside the timed region.
pub fn time_cpu<T: Copy>(input: &[T], repeats: usize, mut sort: impl FnMut(&mut [T])) -> Timing<T> {
    let repeats = repeats.max(1);
    let mut times_ms = Vec::with_capacity(repeats);
    let mut work = input.to_vec();
    for rep in 0..=repeats {
        work.copy_from_slice(input);
        let t = Instant::now();
        sort(&mut work);
        if rep > 0 {
            times_ms.push(t.elapsed().as_secs_f64() * 1e3);
        }
    }
    Timing { times_ms, output: work }
}
