//! Timing of one sort configuration: warm-up, then repeats on a fresh copy of the
//! input each time, timed with CUDA events on the GPU (wall clock on the CPU); and the
//! device's copy bandwidth, the yardstick every sort's effective bandwidth is held to.
use std::time::Instant;

use crate::device::{DeviceBuffer, Gpu};
use crate::error::{Error, Result};
use crate::{Element, SortOptions, Sorter, cpu};

/// Times of the repeats (milliseconds) and the output of the last one.
pub struct Timing<T> {
    /// Milliseconds of each timed repeat, in run order.
    pub times_ms: Vec<f64>,
    /// The last repeat's sorted output, for verification.
    pub output: Vec<T>,
}

impl<T> Timing<T> {
    /// Median of [`times_ms`](Self::times_ms).
    pub fn median_ms(&self) -> f64 {
        median(&self.times_ms)
    }

    /// Fastest repeat (infinity when there were none).
    pub fn min_ms(&self) -> f64 {
        self.times_ms.iter().copied().fold(f64::INFINITY, f64::min)
    }

    /// Slowest repeat (0 when there were none).
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

/// Median, minimum and maximum of a sample, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stats {
    /// Median (NaN for an empty sample).
    pub median_ms: f64,
    /// Fastest (infinity for an empty sample).
    pub min_ms: f64,
    /// Slowest (minus infinity for an empty sample).
    pub max_ms: f64,
}

impl Stats {
    /// The statistics of `times_ms`.
    pub fn of(times_ms: &[f64]) -> Stats {
        Stats {
            median_ms: median(times_ms),
            min_ms: times_ms.iter().copied().fold(f64::INFINITY, f64::min),
            max_ms: times_ms.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        }
    }
}

/// Runs `round` (which restores its input untimed, then returns the milliseconds of
/// the timed work) once to warm up and then `repeats` times (at least once), and
/// summarises the timed rounds: the loop of the `bench-*` commands.
pub fn time_rounds(repeats: usize, mut round: impl FnMut() -> Result<f64>) -> Result<Stats> {
    round()?;
    let times = (0..repeats.max(1)).map(|_| round()).collect::<Result<Vec<f64>>>()?;
    Ok(Stats::of(&times))
}

/// Throughput in billions of keys per second: `n` keys sorted in `ms` milliseconds.
pub fn gkeys_per_s(n: usize, ms: f64) -> f64 {
    n as f64 / (ms * 1e-3) / 1e9
}

/// Effective bandwidth of a sort in GB/s (10^9 bytes per second): the bytes of one
/// read and one write of the whole array, divided by the sort's time. An ideal sort
/// that touched each element exactly once would reach the device's copy bandwidth.
pub fn effective_gb_per_s(n: usize, elem_bytes: usize, ms: f64) -> f64 {
    2.0 * (n * elem_bytes) as f64 / (ms * 1e-3) / 1e9
}

/// How to time one configuration.
#[derive(Clone, Copy, Debug)]
pub struct TimingPlan {
    /// Untimed sorts first (module JIT, allocator, clocks).
    pub warmup: usize,
    /// Timed sorts.
    pub repeats: usize,
    /// Input copies rotated between repeats; 0 picks [`rotation_buffers`].
    pub buffers: usize,
}

impl Default for TimingPlan {
    fn default() -> Self {
        TimingPlan { warmup: 1, repeats: 5, buffers: 0 }
    }
}

/// Most input copies a timing rotates through.
pub const MAX_ROTATION: usize = 256;

/// How many copies of a `bytes`-sized input to rotate through so that each one has
/// left the L2 cache (`l2_bytes`) by the time it is sorted again: enough for twice the
/// L2 size, at most [`MAX_ROTATION`], and using at most a quarter of `free` device
/// memory (at least one).
pub fn rotation_buffers(bytes: u64, l2_bytes: u64, free: u64) -> usize {
    let bytes = bytes.max(1);
    let wanted = (2 * l2_bytes).div_ceil(bytes).max(1);
    let fit = (free / 4 / bytes).max(1);
    wanted.min(fit).min(MAX_ROTATION as u64) as usize
}

/// Times reserved up front: a vector of one per repeat would make an absurd repeat
/// count fail in the allocator before the first sort; beyond this the vector grows.
const PREALLOCATED_TIMES: usize = 1 << 16;

/// Sorts `input` `repeats` times (after one untimed warm-up) and times each sort.
/// On the GPU the input is uploaded once and copied device-to-device into the work
/// buffer before each repeat, outside the timed region; only the sort is timed.
pub fn time_sort<T: Element>(sorter: &Sorter, input: &[T], opts: &SortOptions, repeats: usize) -> Result<Timing<T>> {
    let plan = TimingPlan { warmup: 1, repeats, buffers: 1 };
    time_sort_with(sorter, input, opts, &plan, &mut || {})
}

/// Times `plan.repeats` sorts of `input` after `plan.warmup` untimed ones, calling
/// `tick` after each sort. Returns the times and the output of the last sort.
///
/// On the GPU the input is uploaded once and copied into `buffers` work buffers. The
/// sorts take the buffers in turn; each buffer is restored from the pristine copy
/// right after its sort (untimed), so the next sort of that buffer finds the input
/// again but, with enough buffers, no longer in the L2 cache: small sizes are timed
/// from device memory like large ones. Only the sort is inside the CUDA events. On the
/// CPU the times are wall clock and the work array is restored before each repeat.
pub fn time_sort_with<T: Element>(
    sorter: &Sorter,
    input: &[T],
    opts: &SortOptions,
    plan: &TimingPlan,
    tick: &mut dyn FnMut(),
) -> Result<Timing<T>> {
    opts.validate()?;
    let repeats = plan.repeats.max(1);
    let total = plan.warmup.checked_add(repeats).ok_or_else(|| {
        Error::BadArgument(format!("{} warm-up runs and {repeats} repeats are too many to count", plan.warmup))
    })?;
    let mut times_ms = Vec::with_capacity(repeats.min(PREALLOCATED_TIMES));
    match sorter.gpu() {
        Some(gpu) => {
            let original = gpu.upload(input)?;
            let k = match plan.buffers {
                0 => {
                    let bytes = size_of_val(input) as u64;
                    rotation_buffers(bytes, gpu.info().l2_bytes as u64, gpu.free_mem_for(u64::MAX)?.0)
                }
                k => k,
            }
            .min(total);
            let mut work: Vec<DeviceBuffer<T>> = Vec::with_capacity(k);
            for _ in 0..k {
                let mut b = gpu.alloc::<T>(input.len())?;
                b.copy_from_device(gpu, &original)?;
                work.push(b);
            }
            let mut last = 0;
            for rep in 0..total {
                let i = rep % k;
                let ms = gpu.time_ms(|| sorter.sort_device(&mut work[i], opts))?;
                if rep >= plan.warmup {
                    times_ms.push(ms);
                }
                last = i;
                if rep + 1 < total {
                    work[i].copy_from_device(gpu, &original)?;
                }
                tick();
            }
            Ok(Timing { times_ms, output: work[last].to_vec(gpu)? })
        }
        None => Ok(time_cpu_with(input, plan.warmup, repeats, |work| cpu::sort(work, opts.order), tick)),
    }
}

/// Times `repeats` calls of `sort` on a host copy of `input` (after one untimed
/// warm-up) by the wall clock: what a caller holding host data waits for, the copies
/// to and from the device included. The copy is restored before each call, untimed.
/// Returns the times and the last call's output.
pub fn time_host_sort<T: Copy>(
    input: &[T],
    repeats: usize,
    mut sort: impl FnMut(&mut [T]) -> Result<()>,
) -> Result<Timing<T>> {
    let repeats = repeats.max(1);
    let mut times_ms = Vec::with_capacity(repeats.min(PREALLOCATED_TIMES));
    let mut work = input.to_vec();
    for rep in 0..=repeats {
        work.copy_from_slice(input);
        let t = Instant::now();
        sort(&mut work)?;
        if rep > 0 {
            times_ms.push(t.elapsed().as_secs_f64() * 1e3);
        }
    }
    Ok(Timing { times_ms, output: work })
}

/// The device's copy bandwidth in GB/s (10^9 bytes per second), counting the read and
/// the write: the median of 10 device-to-device copies of a buffer of up to 256 MiB
/// (less when memory is short), after warm-up.
pub fn copy_bandwidth(gpu: &Gpu) -> Result<f64> {
    let (free, _) = gpu.free_mem_for(u64::MAX)?;
    let bytes = (256u64 << 20).min(free / 4).max(1 << 20);
    let n = (bytes / 4) as usize;
    let src = gpu.alloc::<u32>(n)?;
    let mut dst = gpu.alloc::<u32>(n)?;
    let mut times = Vec::new();
    for rep in 0..13 {
        let ms = gpu.time_ms(|| dst.copy_from_device(gpu, &src))?;
        if rep >= 3 {
            times.push(ms);
        }
    }
    Ok(effective_gb_per_s(n, 4, median(&times)))
}

/// Times `sort` on the CPU by wall clock: one untimed warm-up, then `repeats` timed
/// runs, each on a fresh copy of `input` made outside the timed region.
pub fn time_cpu<T: Copy>(input: &[T], repeats: usize, sort: impl FnMut(&mut [T])) -> Timing<T> {
    time_cpu_with(input, 1, repeats, sort, &mut || {})
}

/// [`time_cpu`] with `warmup` untimed runs and `tick` called after every run.
fn time_cpu_with<T: Copy>(
    input: &[T],
    warmup: usize,
    repeats: usize,
    mut sort: impl FnMut(&mut [T]),
    tick: &mut dyn FnMut(),
) -> Timing<T> {
    let repeats = repeats.max(1);
    let mut times_ms = Vec::with_capacity(repeats.min(PREALLOCATED_TIMES));
    let mut work = input.to_vec();
    for rep in 0..warmup.saturating_add(repeats) {
        work.copy_from_slice(input);
        let t = Instant::now();
        sort(&mut work);
        if rep >= warmup {
            times_ms.push(t.elapsed().as_secs_f64() * 1e3);
        }
        tick();
    }
    Timing { times_ms, output: work }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_rounds_drops_the_warm_up_round() {
        let mut ms = [50.0, 3.0, 1.0, 2.0].into_iter();
        let stats = time_rounds(3, || Ok(ms.next().unwrap())).unwrap();
        assert_eq!((stats.min_ms, stats.median_ms), (1.0, 2.0));
        assert!(ms.next().is_none());
        let mut calls = 0;
        time_rounds(0, || {
            calls += 1;
            Ok(1.0)
        })
        .unwrap();
        assert_eq!(calls, 2);
    }
    use crate::Variant;

    #[test]
    fn stats_and_rates() {
        let s = Stats::of(&[3.0, 1.0, 2.0, 10.0]);
        assert_eq!(s, Stats { median_ms: 2.5, min_ms: 1.0, max_ms: 10.0 });
        assert!((gkeys_per_s(1 << 30, 1000.0) - 1.073741824).abs() < 1e-12);
        // 1e9 u32 read and written in one second: 8 GB/s.
        assert!((effective_gb_per_s(1_000_000_000, 4, 1000.0) - 8.0).abs() < 1e-9);
    }

    #[test]
    fn rotation_covers_twice_the_l2_within_limits() {
        let l2 = 50 << 20;
        let free = 80u64 << 30;
        assert_eq!(rotation_buffers(1 << 30, l2, free), 1);
        assert_eq!(rotation_buffers(25 << 20, l2, free), 4);
        assert_eq!(rotation_buffers(1 << 20, l2, free), 100);
        assert_eq!(rotation_buffers(1024, l2, free), MAX_ROTATION);
        // Short of memory: no more than a quarter of it.
        assert_eq!(rotation_buffers(1 << 20, l2, 8 << 20), 2);
        assert_eq!(rotation_buffers(0, 0, 0), 1);
    }

    /// Counts that cannot be run and block sizes a GPU would refuse are errors on the
    /// CPU too, before anything is sorted.
    #[test]
    fn impossible_timings_are_errors() {
        let input = [2u32, 1];
        let plan = TimingPlan { warmup: usize::MAX, repeats: 1, buffers: 0 };
        let r = time_sort_with(&Sorter::cpu(), &input, &SortOptions::default(), &plan, &mut || {});
        assert!(matches!(r, Err(Error::BadArgument(_))));
        let r = time_sort(&Sorter::cpu(), &input, &SortOptions::default().block_size(100), 1);
        assert!(matches!(r, Err(Error::BadArgument(_))));
    }

    #[test]
    fn cpu_timing_counts_repeats_and_sorts() {
        let input = [5u32, 1, 4, 2, 3];
        let plan = TimingPlan { warmup: 2, repeats: 3, buffers: 0 };
        let mut ticks = 0;
        let t =
            time_sort_with(&Sorter::cpu(), &input, &SortOptions::new(Variant::default()), &plan, &mut || ticks += 1)
                .unwrap();
        assert_eq!((t.times_ms.len(), ticks), (3, 5));
        assert_eq!(t.output, [1, 2, 3, 4, 5]);
    }
}
