//! The partition-first pipeline (asked for by [`super::Pipeline::PartitionFirst`]):
//! the exchange runs while the GPUs sort. The textbook sample sort's order of steps;
//! on two H200s it is slower than sorting first (the exchange slows the sort it runs
//! beside, and the partition pass costs more than the overlap saves: docs/history.md,
//! 2026-11-23), so it is not the default.
//!
//! 1. **Splitters** from samples of the *unsorted* parts, one key from each of equal
//!    slices at a pseudo-random place inside it
//!    ([`kernels::splitters::jittered_position`]); the host sorts each GPU's samples and
//!    picks the splitters as the sort-first pipeline does.
//! 2. **Partition**: each GPU splits its part stably into the `p` key ranges
//!    ([`kernels::partition`]: count, scan, scatter). The host reads the `p` totals of
//!    each GPU; if a GPU would end more than 5% off `n / p` (the samples were unlucky),
//!    the sort-first pipeline runs instead, from the untouched input.
//! 3. **Sorts and exchange**: each GPU sorts the ranges it sends away first, then
//!    queues the exchange on its high-priority exchange stream and sorts the range it
//!    keeps while the pieces travel.
//! 4. **Merge**: the kept range and the received ones, in rank order (stable).
//!
//! Everything is queued from this thread without waiting, but for the samples and the
//! totals; the phases are timed by events on the GPUs.
use cudarc::driver::CudaEvent;
use kernels::params::{DevPtr, Direction};
use kernels::partition::{self as kp, PartitionKernels, PartitionKvKernels};
use kernels::splitters::{self as ks, SplitterKernels};

use super::plan::{self, Layout};
use super::sort_first::{exchanged_bytes, pieces};
use super::{MultiGpuReport, MultiGpuSorter, read_u64s};
use crate::device::{DeviceBuffer, Gpu, seconds_between as between, timing_event as mark};
use crate::element::{Element, Key};
use crate::error::{Error, Result};
use crate::options::{Order, SortOptions};
use crate::variants::launch::{blocks, one_thread_per_item, require_entry};
use crate::variants::mergepath::{self, Run};
use crate::variants::radix;

/// Whether the partition-first pipeline serves `p` GPUs with values of `value_bytes`
/// (0: keys only).
pub(super) fn serves(p: usize, value_bytes: usize) -> bool {
    p <= kp::MAX_PARTS as usize && matches!(value_bytes, 0 | 4 | 8)
}

/// Blocks of a partition kernel over `tiles` tiles: enough to fill the GPU, each
/// working through several tiles.
fn grid(gpu: &Gpu, tiles: u64, scatter: bool, key_bytes: usize) -> u64 {
    let resident = gpu.info().multiprocessors as u64 * kp::blocks_per_sm(scatter, key_bytes as u32) as u64;
    tiles.min(resident)
}

fn refs(v: &[CudaEvent]) -> Vec<&CudaEvent> {
    v.iter().collect()
}

impl MultiGpuSorter {
    /// Runs the pipeline; `Ok(false)` when the sampled splitters were rejected as
    /// unbalanced (nothing of the input has changed then).
    pub(super) fn run_partitioned<K: Key, V: Element>(
        &self,
        keys: &mut [DeviceBuffer<K>],
        mut values: Option<&mut [DeviceBuffer<V>]>,
        opts: &SortOptions,
        report: &mut MultiGpuReport,
    ) -> Result<bool> {
        let start = std::time::Instant::now();
        let p = self.gpus.len();
        let order = opts.order;
        let direction: Direction = order.into();
        let bit_order = K::KEY_ORDER;
        let lens: Vec<u64> = keys.iter().map(|k| k.len() as u64).collect();

        // 1. Samples and splitters.
        let sample_counts: Vec<u64> = lens.iter().map(|&n| plan::samples_of(n, self.samples)).collect();
        let mut scratch = Vec::with_capacity(p);
        for (g, gpu) in self.gpus.iter().enumerate() {
            let (n, count) = (lens[g], sample_counts[g]);
            let buf = gpu.take_scratch(4 * count as usize)?;
            if count > 0 {
                let params = ks::Samples { keys: keys[g].dev_ptr(), n, count, direction, out: buf.dev_ptr().cast() };
                gpu.launch(<K as SplitterKernels>::SAMPLES_JITTERED, one_thread_per_item(count, 256, 0)?, &params)?;
            }
            scratch.push(buf);
        }
        let samples = (0..p).map(|g| {
            let words = read_u64s(&self.gpus[g], &scratch[g], 0, 2 * sample_counts[g] as usize)?;
            let mut s: Vec<(u64, u64)> = words.as_chunks::<2>().0.iter().map(|w| (w[0], w[1])).collect();
            s.sort_unstable();
            Ok(s)
        });
        let samples = samples.collect::<Result<Vec<_>>>();
        for (gpu, buf) in self.gpus.iter().zip(scratch) {
            gpu.give_back_scratch(buf);
        }
        let splitters = plan::choose_splitters(&samples?, &lens);
        report.splitters_s = start.elapsed().as_secs_f64();

        // 2. Partition: counts, their scan, and the totals that size the exchange. Each
        // GPU's host-side work (allocations, launches) runs in its own thread from here
        // on, as in the sort-first pipeline.
        let trace = self.gpus[0].tuning().multi_gpu_trace;

        let host_t = std::time::Instant::now();
        let mut host_marks: Vec<(&str, f64)> = Vec::new();
        let mut stamp = |what: &'static str| {
            if trace {
                host_marks.push((what, host_t.elapsed().as_secs_f64() * 1e3));
            }
        };
        let src: Vec<u64> = keys.iter().map(|k| k.ptr()).collect();
        let vsrc: Option<Vec<u64>> = values.as_deref().map(|v| v.iter().map(|b| b.ptr()).collect());
        let staged = self.per_gpu((0..p).collect(), |gpu, g| {
            let begin = mark(gpu.stream())?;
            let counted = count_parts::<K>(gpu, src[g], lens[g], &plan::cuts_for(g, &splitters), direction)?;
            Ok((begin, mark(gpu.stream())?, counted))
        })?;
        stamp("counted");
        let sends: Vec<Vec<u64>> = staged.iter().map(|s| s.2.sends.clone()).collect();
        if !plan::balanced_enough(&plan::received_totals(&sends), &lens, &sample_counts) {
            return Ok(false);
        }
        let layout = Layout::new(&sends, false);

        // The scatter into each GPU's ranges (one after another, at
        // `layout.send_offsets`), then the sorts of the ranges that leave.
        let vb = size_of::<V>();
        let sort_range = |gpu: &Gpu, g: usize, j: usize, keys: &DeviceBuffer<K>, vals: Option<&DeviceBuffer<V>>| {
            let (from, len) = (layout.send_offsets[g][j] as usize, sends[g][j] as usize);
            if len > 1 {
                let v = vals.map(|v| (vb, v.ptr_at(from)));
                radix::sort_at::<K>(gpu, keys.ptr_at(from), v, len, bit_order, order)?;
            }
            Ok::<(), Error>(())
        };
        let mut events = Vec::with_capacity(p);
        let items: Vec<_> = staged.into_iter().enumerate().collect();
        let parted = self.per_gpu(items, |gpu, (g, (begin, counted, parts))| {
            let scatter_from = mark(gpu.stream())?;
            let (out_keys, out_values) =
                scatter_parts::<K, V>(gpu, src[g], vsrc.as_ref().map(|v| v[g]), &parts, direction)?;
            let parted_at = mark(gpu.stream())?;
            for j in (0..p).filter(|&j| j != g) {
                sort_range(gpu, g, j, &out_keys, out_values.as_ref())?;
            }
            let remote_at = mark(gpu.stream())?;
            let recv_keys = gpu.alloc::<K>(layout.received[g] as usize)?;
            let recv_values = match vsrc {
                Some(_) => Some(gpu.alloc::<V>(layout.received[g] as usize)?),
                None => None,
            };
            drop(parts);
            Ok(((out_keys, out_values, recv_keys, recv_values), [begin, counted, scatter_from, parted_at, remote_at]))
        })?;
        let mut pkeys = Vec::with_capacity(p);
        let mut pvals = Vec::with_capacity(p);
        let mut recv_keys = Vec::with_capacity(p);
        let mut recv_vals = Vec::with_capacity(p);
        for ((k, v, rk, rv), ev) in parted {
            pkeys.push(k);
            pvals.extend(v);
            recv_keys.push(rk);
            recv_vals.extend(rv);
            events.push(ev);
        }
        let pvals = vsrc.is_some().then_some(pvals);
        let mut recv_values = vsrc.is_some().then_some(recv_vals);
        stamp("ranges sent away queued");

        // 3. The exchange, beside the sorts of the ranges that stay.
        let pieces = pieces(&sends, &layout, true);
        report.exchanged_bytes = exchanged_bytes::<K, V>(&pieces, values.is_some());
        let (x_begin, x_end) =
            self.begin_exchange(&pkeys, &mut recv_keys, pvals.as_deref(), recv_values.as_mut(), &pieces)?;
        stamp("exchange queued");
        let items: Vec<_> = pkeys.iter().zip(0..p).collect();
        let sorted_at = self.per_gpu(items, |gpu, (k, g)| {
            sort_range(gpu, g, g, k, pvals.as_ref().map(|v| &v[g]))?;
            mark(gpu.stream())
        })?;
        stamp("own ranges queued");
        // Nothing reads what arrived until the exchange is known to have finished.
        self.watch()?;
        stamp("exchange done");
        self.end_exchange()?;

        // 4. Merge, runs in rank order (the stable order of equal keys).
        let merged = self.per_gpu((0..p).collect(), |gpu, g| {
            let run_at = |i: usize| -> (u64, u64) {
                if i == g {
                    let at = layout.send_offsets[g][g] as usize;
                    (pkeys[g].ptr_at(at), pvals.as_ref().map_or(0, |v| v[g].ptr_at(at)))
                } else {
                    let at = layout.recv_offsets[g][i] as usize;
                    (recv_keys[g].ptr_at(at), recv_values.as_ref().map_or(0, |v| v[g].ptr_at(at)))
                }
            };
            let runs: Vec<Run> = (0..p).map(|i| Run { ptr: run_at(i).0, len: sends[i][g] }).collect();
            let out = if vsrc.is_some() {
                let vptrs: Vec<u64> = (0..p).map(|i| run_at(i).1).collect();
                let (k, v) = mergepath::merge_run_list_pairs::<K, V>(gpu, &runs, &vptrs, order)?;
                (k, Some(v))
            } else {
                (mergepath::merge_run_list::<K>(gpu, &runs, order)?, None)
            };
            let merged_at = mark(gpu.stream())?;
            gpu.synchronize("the merge")?;
            Ok((out, merged_at))
        })?;
        stamp("merged");
        let (merged, merged_at): (Vec<_>, Vec<CudaEvent>) = merged.into_iter().unzip();
        let pick = |i: usize| -> Vec<&CudaEvent> { events.iter().map(|e| &e[i]).collect() };
        let (begin, counted, scatter_from, parted_at, remote_at) = (pick(0), pick(1), pick(2), pick(3), pick(4));
        if trace {
            for g in 0..p {
                let at = |e: &CudaEvent| between(begin[g], e).map(|s| s * 1e3).unwrap_or(f64::NAN);
                eprintln!(
                    "trace GPU {g} (ms from the partition's start): counted {:.3}, scatter from {:.3} to {:.3}, \
                     ranges sent away sorted {:.3}, exchange {:.3}..{:.3}, own range sorted {:.3}, merged {:.3}",
                    at(counted[g]),
                    at(scatter_from[g]),
                    at(parted_at[g]),
                    at(remote_at[g]),
                    at(&x_begin[g]),
                    at(&x_end[g]),
                    at(&sorted_at[g]),
                    at(&merged_at[g])
                );
            }
            eprintln!("trace host (ms): {host_marks:?}");
        }

        // Phases: the slowest GPU's time in each.
        let slowest = |a: &[&CudaEvent], b: &[&CudaEvent]| -> Result<f64> {
            a.iter().zip(b).map(|(a, b)| between(a, b)).try_fold(0f64, |m, t| Ok(m.max(t?)))
        };
        report.partition_s = slowest(&begin, &parted_at)?;
        report.local_sort_s = slowest(&parted_at, &refs(&sorted_at))?;
        report.exchange_s = slowest(&refs(&x_begin), &refs(&x_end))?;
        report.merge_s = slowest(&refs(&sorted_at), &refs(&merged_at))?;
        for (g, (k, v)) in merged.into_iter().enumerate() {
            keys[g] = k;
            if let (Some(v), Some(values)) = (v, values.as_deref_mut()) {
                values[g] = v;
            }
        }
        Ok(true)
    }
}

/// One GPU's partition, counted: the splitters and the scanned per-(part, tile) counts
/// on the device, and how many keys fall in each part.
pub(super) struct Counted {
    cuts: DeviceBuffer<u64>,
    offsets: DeviceBuffer<u64>,
    parts: u32,
    n: u64,
    /// Keys in each part.
    pub sends: Vec<u64>,
}

/// Counts the keys of each part (`partition_count_*`, the scan, `partition_starts`) of
/// the `n` keys at device address `src`, by the splitters `cuts` (flattened `(bits,
/// threshold)` pairs, [`plan::cuts_for`]); waits for the part sizes.
fn count_parts<K: Key>(gpu: &Gpu, src: u64, n: u64, cuts: &[u64], direction: Direction) -> Result<Counted> {
    let p = cuts.len() / 2 + 1;
    let parts = p as u32;
    let cuts = gpu.upload(cuts)?;
    let tiles = kp::tiles(n);
    let mut offsets = gpu.alloc::<u64>(p * tiles as usize + 1)?;
    let starts = gpu.alloc::<u64>(p + 1)?;
    if tiles == 0 {
        return Ok(Counted { cuts, offsets, parts, n, sends: vec![0; p] });
    }
    let count = require_entry::<K, _>(<K as PartitionKernels>::COUNT, "partition count")?;
    let cfg = blocks(grid(gpu, tiles, false, size_of::<K>()), kp::BLOCK, kp::SMEM_BYTES)?;
    let (keys, counts) = (DevPtr::from_addr(src), offsets.dev_ptr());
    gpu.launch(count, cfg, &kp::Count { keys, n, tiles, cuts: cuts.dev_ptr(), parts, direction, counts })?;
    crate::variants::scan::exclusive_scan_u64(gpu, &mut offsets, p * tiles as usize)?;
    let params = kp::Starts { offsets: offsets.dev_ptr(), tiles, parts, out: starts.dev_ptr() };
    gpu.launch(kp::partition_starts, blocks(1, 32, 0)?, &params)?;
    let sends = starts.to_vec(gpu)?.windows(2).map(|w| w[1] - w[0]).collect();
    Ok(Counted { cuts, offsets, parts, n, sends })
}

/// Queues the scatter of the counted keys at `src` (and values at `vsrc`) into new
/// buffers, the parts one after another, each in input order.
fn scatter_parts<K: Key, V: Element>(
    gpu: &Gpu,
    src: u64,
    vsrc: Option<u64>,
    counted: &Counted,
    direction: Direction,
) -> Result<(DeviceBuffer<K>, Option<DeviceBuffer<V>>)> {
    let n = counted.n;
    let out_keys = gpu.alloc::<K>(n as usize)?;
    let out_values = match vsrc {
        Some(_) => Some(gpu.alloc::<V>(n as usize)?),
        None => None,
    };
    let tiles = kp::tiles(n);
    if tiles == 0 {
        return Ok((out_keys, out_values));
    }
    let cfg = blocks(grid(gpu, tiles, true, size_of::<K>()), kp::BLOCK, kp::SMEM_BYTES)?;
    let (cuts, parts, offsets) = (counted.cuts.dev_ptr(), counted.parts, counted.offsets.dev_ptr());
    let keys = kp::Scatter {
        keys: DevPtr::from_addr(src),
        n,
        tiles,
        cuts,
        parts,
        direction,
        offsets,
        out_keys: out_keys.dev_ptr(),
    };
    match (vsrc, &out_values) {
        // The kernels move values as words of their size.
        (Some(vs), Some(ov)) => match size_of::<V>() {
            4 => scatter_kv::<K, u32>(gpu, cfg, keys, vs, ov.ptr())?,
            8 => scatter_kv::<K, u64>(gpu, cfg, keys, vs, ov.ptr())?,
            bytes => {
                return Err(Error::BadArgument(format!("the partition moves 4- or 8-byte values, not {bytes}")));
            }
        },
        _ => gpu.launch(require_entry::<K, _>(<K as PartitionKernels>::SCATTER, "partition scatter")?, cfg, &keys)?,
    }
    Ok((out_keys, out_values))
}

/// Launches the scatter of `keys` with their values (at `values`, to `out_values`),
/// which the kernel moves as words `W` of their size.
fn scatter_kv<K: Key + PartitionKvKernels<W>, W: Copy + 'static>(
    gpu: &Gpu,
    cfg: cudarc::driver::LaunchConfig,
    keys: kp::Scatter<K>,
    values: u64,
    out_values: u64,
) -> Result<()> {
    let kernel = require_entry::<K, _>(<K as PartitionKvKernels<W>>::SCATTER_KV, "partition scatter with values")?;
    let kp::Scatter { keys, n, tiles, cuts, parts, direction, offsets, out_keys } = keys;
    let (values, out_values) = (DevPtr::from_addr(values), DevPtr::from_addr(out_values));
    let params = kp::ScatterKv { keys, values, n, tiles, cuts, parts, direction, offsets, out_keys, out_values };
    gpu.launch(kernel, cfg, &params)
}

/// A partition's keys, values (if any) and part sizes.
pub type Partitioned<K, V> = (DeviceBuffer<K>, Option<DeviceBuffer<V>>, Vec<u64>);

/// The partition-first pipeline's partition on one GPU, for tests and profiling: splits
/// `keys` (and `values`, 4 or 8 bytes each) stably into the parts that the splitters
/// `cuts` (flattened `(order bits, threshold)` pairs, at most
/// [`kernels::partition::MAX_PARTS`]` - 1` of them, see
/// [`kernels::partition::part_of`]) define, in `order`'s order bits. Returns the
/// partitioned keys and values and the size of each part.
#[doc(hidden)]
pub fn partition_on_gpu<K: Key, V: Element>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    values: Option<&DeviceBuffer<V>>,
    cuts: &[u64],
    order: Order,
) -> Result<Partitioned<K, V>> {
    crate::element::narrow_refusal::<K>("the multi-GPU sort")?;
    if !cuts.len().is_multiple_of(2) || cuts.len() / 2 + 1 > kp::MAX_PARTS as usize {
        return Err(Error::BadArgument(format!(
            "a partition takes at most {} (bits, threshold) pairs",
            kp::MAX_PARTS - 1
        )));
    }
    if values.is_some_and(|v| v.len() != keys.len() || !matches!(size_of::<V>(), 4 | 8)) {
        return Err(Error::BadArgument("values: as many as keys, of 4 or 8 bytes".into()));
    }
    let direction: Direction = order.into();
    let counted = count_parts::<K>(gpu, keys.ptr(), keys.len() as u64, cuts, direction)?;
    let (k, v) = scatter_parts::<K, V>(gpu, keys.ptr(), values.map(|v| v.ptr()), &counted, direction)?;
    Ok((k, v, counted.sends))
}
