//! The top-bits pipeline ([`super::Pipeline::TopBits`]): partition by the keys' top
//! bits first, so that the exchange needs no merge after it.
//!
//! 1. **Which bits**: samples of the unsorted parts say in which high bits the keys
//!    differ ([`plan::top_bits`]).
//! 2. **Partition**: each GPU sorts its part stably by those bits with the radix sort
//!    (`key_bits`): one digit pass, the constant digits above it skipped. Each part is
//!    then grouped by bucket (`ord >> begin`), and a bucket is one contiguous range.
//! 3. **Cuts**: each GPU counts its keys below every bucket edge (binary searches,
//!    [`plan::top_edges`]); the host cuts at the edges nearest `t * n / p`
//!    ([`plan::top_cuts`]). Where no edge is close enough (skewed keys: one bucket holds
//!    many), each GPU sorts its range of that bucket fully, and the cut is placed by
//!    samples of those sorted ranges in the `(bits, rank, position)` order, as the
//!    sort-first pipeline places its cuts: runs of equal keys are split by position,
//!    which keeps the sort stable.
//! 4. **Exchange by bucket** ([`plan::bucket_layout`]): GPU `j` receives its buckets
//!    in order, each bucket's keys from GPU `0, 1, ..` one after another, so every
//!    bucket is a segment of its receive buffer. The pieces travel in a few chunks
//!    (NCCL groups on the exchange streams, [`super::EXCHANGE_CHUNKS`]).
//! 5. **Local sorts**: each GPU sorts each segment on its own with the stable radix
//!    sort, the segments of a chunk as soon as it has arrived, while the later chunks
//!    travel. A bucket's keys share their top bits, so the sort skips those digits;
//!    runs are in rank order and each in input order among equal keys, so the result
//!    is the stable sort, with no merge.
use std::time::Instant;

use kernels::params::{DevPtr, Direction};
use kernels::splitters::{self as ks, SplitterKernels};

use std::sync::atomic::Ordering as AtomicOrdering;

use cudarc::driver::CudaEvent;

use super::nccl::{self, Lane, Piece};
use super::plan::{self, Layout, Splitter, TopCut};
use super::sort_first::{exchanged_bytes, pieces};
use super::{Comms, MultiGpuReport, MultiGpuSorter, read_u64s};
use crate::device::{DeviceBuffer, Gpu, seconds_between as between, timing_event as mark};
use crate::element::{Element, Key};
use crate::error::{DriverContext as _, Error, Result};
use crate::options::SortOptions;
use crate::variants::launch::one_thread_per_item;
use crate::variants::radix;

/// Whether the top-bits pipeline serves values of `value_bytes` (0: keys only): the
/// radix sort moves values of 4 or 8 bytes.
pub(super) fn serves(value_bytes: usize) -> bool {
    matches!(value_bytes, 0 | 4 | 8)
}

/// One GPU's keys (and values) as raw device addresses, for sorting ranges of them.
#[derive(Clone, Copy)]
struct Part {
    keys: u64,
    values: Option<(usize, u64)>,
    len: u64,
}

impl MultiGpuSorter {
    pub(super) fn run_top_bits<K: Key, V: Element>(
        &self,
        keys: &mut [DeviceBuffer<K>],
        mut values: Option<&mut [DeviceBuffer<V>]>,
        opts: &SortOptions,
        report: &mut MultiGpuReport,
    ) -> Result<()> {
        let p = self.gpus.len();
        let order = opts.order;
        let direction: Direction = order.into();
        let width = 8 * size_of::<K>() as u32;
        let lens: Vec<u64> = keys.iter().map(|k| k.len() as u64).collect();
        let n: u64 = lens.iter().sum();
        let vb = size_of::<V>();
        if values.is_some() && !serves(vb) {
            return Err(Error::BadArgument(format!("the top-bits pipeline moves values of 4 or 8 bytes, not {vb}")));
        }

        // 1. Which bits: samples of the unsorted parts.
        let t = Instant::now();
        let sampled = self.sample_unsorted(keys, direction)?;
        let bits = plan::top_bits(&sampled, width, self.top_digit);
        let sampled_and = sampled.iter().fold(u64::MAX, |a, &b| a & b);
        report.top_bits = bits;
        let mut splitters_s = t.elapsed().as_secs_f64();

        // 2. Partition: the stable sort by those bits.
        let t = Instant::now();
        let by_bits = SortOptions { key_bits: Some(bits), ..*opts };
        let value_parts: Vec<Option<&mut DeviceBuffer<V>>> = match values.as_deref_mut() {
            Some(v) => v.iter_mut().map(Some).collect(),
            None => (0..p).map(|_| None).collect(),
        };
        let items: Vec<_> = keys.iter_mut().zip(value_parts).collect();
        self.per_gpu(items, |gpu, (k, v)| {
            match v {
                Some(v) => radix::sort_pairs(gpu, k, v, order, Some(bits))?,
                None => radix::sort(gpu, k, &by_bits)?,
            }
            gpu.synchronize("the partition by the top bits")
        })?;
        report.partition_s = t.elapsed().as_secs_f64();

        // 3. Cuts: at bucket edges, or inside the buckets that must be split.
        let t = Instant::now();
        let edges = plan::top_edges(sampled_and, bits, width, self.top_digit);
        let below: Vec<Vec<u64>> = {
            let counts = self.bounds(keys, &edges, direction)?;
            counts
                .into_iter()
                .zip(&lens)
                .map(|(c, &len)| {
                    let mut b = Vec::with_capacity(edges.len() + 2);
                    b.push(0);
                    b.extend(c.chunks(2).map(|lt| lt[0]));
                    b.push(len);
                    b
                })
                .collect()
        };
        let top = plan::top_cuts(&below, plan::top_tolerance(n, p));
        let parts: Vec<Part> = (0..p)
            .map(|g| Part { keys: keys[g].ptr(), values: values.as_deref().map(|v| (vb, v[g].ptr())), len: lens[g] })
            .collect();
        let mut cuts = vec![vec![0u64; p - 1]; p];
        let mut u = 0;
        while u < top.len() {
            match top[u] {
                TopCut::At(k) => {
                    for g in 0..p {
                        cuts[g][u] = below[g][k];
                    }
                    u += 1;
                }
                TopCut::Inside { bucket, .. } => {
                    let same: Vec<usize> = (u..top.len())
                        .take_while(|&w| matches!(top[w], TopCut::Inside { bucket: b, .. } if b == bucket))
                        .collect();
                    let ranks: Vec<f64> = same
                        .iter()
                        .filter_map(|&w| match top[w] {
                            TopCut::Inside { rank, .. } => Some(rank as f64),
                            TopCut::At(_) => None,
                        })
                        .collect();
                    let starts: Vec<u64> = (0..p).map(|g| below[g][bucket]).collect();
                    let blens: Vec<u64> = (0..p).map(|g| below[g][bucket + 1] - starts[g]).collect();
                    let ranges: Vec<Part> = (0..p)
                        .map(|g| {
                            let at = |a: u64, bytes: usize| a + starts[g] * bytes as u64;
                            Part {
                                keys: at(parts[g].keys, size_of::<K>()),
                                values: parts[g].values.map(|(vb, v)| (vb, at(v, vb))),
                                len: blens[g],
                            }
                        })
                        .collect();
                    report.resorted_keys += blens.iter().sum::<u64>();
                    let split = self.split_bucket::<K>(&ranges, &ranks, opts)?;
                    for (w, row) in same.iter().zip(split) {
                        for g in 0..p {
                            cuts[g][*w] = starts[g] + row[g];
                        }
                    }
                    u += same.len();
                }
            }
        }
        splitters_s += t.elapsed().as_secs_f64();
        report.splitters_s = splitters_s;
        if self.chunks == 0 {
            self.exchange_then_sort(keys, values, &cuts, opts, report)
        } else {
            self.exchange_by_bucket(keys, values, &below, &cuts, opts, report)
        }
    }

    /// Steps 4 and 5 as one exchange (pieces in rank order) and one stable radix sort
    /// of everything each GPU received.
    fn exchange_then_sort<K: Key, V: Element>(
        &self,
        keys: &mut [DeviceBuffer<K>],
        mut values: Option<&mut [DeviceBuffer<V>]>,
        cuts: &[Vec<u64>],
        opts: &SortOptions,
        report: &mut MultiGpuReport,
    ) -> Result<()> {
        let p = self.gpus.len();
        let order = opts.order;
        let lens: Vec<u64> = keys.iter().map(|k| k.len() as u64).collect();
        let counts = plan::send_counts(cuts, &lens);
        let layout = Layout::new(&counts, true);
        // 4. Exchange, every piece into the receive buffers in rank order (a GPU's
        // own piece by a device copy).
        let t = Instant::now();
        let pieces = pieces(&counts, &layout, false);
        report.exchanged_bytes = exchanged_bytes::<K, V>(&pieces, values.is_some());
        let mut recv_keys = self.alloc_received::<K>(&layout.received)?;
        let mut recv_values = match values.as_deref() {
            Some(_) => Some(self.alloc_received::<V>(&layout.received)?),
            None => None,
        };
        self.begin_exchange(keys, &mut recv_keys, values.as_deref(), recv_values.as_mut(), &pieces)?;
        self.watch()?;
        self.end_exchange()?;
        report.exchange_s = t.elapsed().as_secs_f64();

        // 5. Each GPU sorts what it received.
        let t = Instant::now();
        let whole = SortOptions { key_bits: None, ..*opts };
        let recv_v: Vec<Option<DeviceBuffer<V>>> = match recv_values {
            Some(rv) => rv.into_iter().map(Some).collect(),
            None => (0..p).map(|_| None).collect(),
        };
        let items: Vec<_> = recv_keys.into_iter().zip(recv_v).collect();
        let sorted = self.per_gpu(items, |gpu, (mut k, v)| {
            let v = match v {
                Some(mut v) => {
                    radix::sort_pairs(gpu, &mut k, &mut v, order, None)?;
                    Some(v)
                }
                None => {
                    radix::sort(gpu, &mut k, &whole)?;
                    None
                }
            };
            gpu.synchronize("the local sort")?;
            Ok((k, v))
        })?;
        for (g, (k, v)) in sorted.into_iter().enumerate() {
            keys[g] = k;
            if let (Some(v), Some(values)) = (v, values.as_deref_mut()) {
                values[g] = v;
            }
        }
        report.local_sort_s = t.elapsed().as_secs_f64();
        Ok(())
    }

    /// Steps 4 and 5 by bucket: the exchange placed by bucket in chunks, each GPU
    /// sorting each bucket on its own as its chunk arrives ([`plan::bucket_layout`]).
    fn exchange_by_bucket<K: Key, V: Element>(
        &self,
        keys: &mut [DeviceBuffer<K>],
        values: Option<&mut [DeviceBuffer<V>]>,
        below: &[Vec<u64>],
        cuts: &[Vec<u64>],
        opts: &SortOptions,
        report: &mut MultiGpuReport,
    ) -> Result<()> {
        let p = self.gpus.len();
        let order = opts.order;
        let vb = size_of::<V>();
        let layout = plan::bucket_layout(below, cuts, self.chunks);
        // 4. and 5. The exchange in chunks on the exchange streams; each GPU sorts the
        // segments of a chunk on its main stream as soon as the chunk has arrived,
        // while the next chunks travel.
        let pieces: Vec<Piece> = layout
            .pieces
            .iter()
            .map(|x| Piece { src: x.src, dst: x.dst, from: x.from as usize, at: x.at as usize, len: x.len as usize })
            .collect();
        report.exchanged_bytes = exchanged_bytes::<K, V>(&pieces, values.is_some());
        let mut recv_keys = self.alloc_received::<K>(&layout.received)?;
        let mut recv_values = match values.as_deref() {
            Some(_) => Some(self.alloc_received::<V>(&layout.received)?),
            None => None,
        };
        let begin: Vec<CudaEvent> = self.gpus.iter().map(|g| mark(g.stream())).collect::<Result<_>>()?;
        let chunk_of: Vec<usize> = layout.pieces.iter().map(|x| x.chunk).collect();
        let arrived = self.begin_chunked_exchange(
            keys,
            &mut recv_keys,
            values.as_deref(),
            recv_values.as_mut(),
            &pieces,
            &chunk_of,
            self.chunks,
        )?;
        let targets: Vec<(u64, Option<u64>)> =
            (0..p).map(|g| (recv_keys[g].ptr(), recv_values.as_ref().map(|v| v[g].ptr()))).collect();
        let items: Vec<usize> = (0..p).collect();
        let sorted_at = self.per_gpu(items, |gpu, g| {
            let (kp, vp) = targets[g];
            let mut waited = usize::MAX;
            for seg in &layout.segments[g] {
                if seg.chunk != waited {
                    gpu.stream().wait(&arrived[seg.chunk][g]).call("cuStreamWaitEvent")?;
                    waited = seg.chunk;
                }
                if seg.len > 1 {
                    let at = seg.at;
                    let v = vp.map(|v| (vb, v + at * vb as u64));
                    radix::sort_at::<K>(
                        gpu,
                        kp + at * size_of::<K>() as u64,
                        v,
                        seg.len as usize,
                        K::KEY_ORDER,
                        order,
                    )?;
                }
            }
            mark(gpu.stream())
        })?;
        // Nothing is handed back before the exchange is known to have finished (a
        // failed one leaves garbage in the receive buffers).
        self.watch()?;
        self.end_exchange()?;
        for gpu in &self.gpus {
            gpu.synchronize("the local sort")?;
        }
        let slowest = |to: &[CudaEvent]| -> Result<f64> {
            (0..p).map(|g| between(&begin[g], &to[g])).try_fold(0f64, |m, t| Ok(m.max(t?)))
        };
        report.exchange_s = slowest(&arrived[self.chunks - 1])?;
        report.local_sort_s = slowest(&sorted_at)?;
        for (g, k) in recv_keys.into_iter().enumerate() {
            keys[g] = k;
        }
        if let (Some(rv), Some(values)) = (recv_values, values) {
            for (g, v) in rv.into_iter().enumerate() {
                values[g] = v;
            }
        }
        Ok(())
    }

    /// Queues the exchange of `pieces` (keys, and values if any) on the exchange
    /// streams after the work queued so far on the main streams, one NCCL group per
    /// chunk (`chunk_of[i]`: piece `i`'s, below `chunks`), in chunk order; a GPU's own
    /// pieces are copied on its main stream. Returns, for each chunk and GPU, an event
    /// on that GPU's exchange stream after the chunk.
    #[allow(clippy::too_many_arguments)]
    fn begin_chunked_exchange<K: Key, V: Element>(
        &self,
        keys: &[DeviceBuffer<K>],
        recv_keys: &mut [DeviceBuffer<K>],
        values: Option<&[DeviceBuffer<V>]>,
        recv_values: Option<&mut Vec<DeviceBuffer<V>>>,
        pieces: &[Piece],
        chunk_of: &[usize],
        chunks: usize,
    ) -> Result<Vec<Vec<CudaEvent>>> {
        let guard = self.comms.lock().unwrap_or_else(|p| p.into_inner());
        let Some(Comms(comms)) = guard.as_ref() else {
            return Err(Error::Communication("no communicators (connect failed)".into()));
        };
        let silent = match self.silent.swap(usize::MAX, AtomicOrdering::Relaxed) {
            usize::MAX => None,
            r => Some(r),
        };
        self.x_after_main()?;
        let mut key_lane = Lane { send: keys, recv: recv_keys };
        let mut value_lane = match (values, recv_values) {
            (Some(v), Some(rv)) => Some(Lane { send: v, recv: rv }),
            _ => None,
        };
        let mut out = Vec::with_capacity(chunks);
        for c in 0..chunks {
            let these: Vec<Piece> = pieces.iter().zip(chunk_of).filter(|&(_, &k)| k == c).map(|(x, _)| *x).collect();
            match value_lane.as_mut() {
                Some(vl) => nccl::queue_exchange(&self.gpus, comms, &mut [&mut key_lane, vl], &these, silent)?,
                None => nccl::queue_exchange(&self.gpus, comms, &mut [&mut key_lane], &these, silent)?,
            }
            out.push(self.xstreams.iter().map(|x| mark(x)).collect::<Result<Vec<_>>>()?);
        }
        Ok(out)
    }

    /// Order bits of keys sampled from every GPU's unsorted part (at most
    /// `self.samples` from each).
    fn sample_unsorted<K: Key>(&self, keys: &[DeviceBuffer<K>], direction: Direction) -> Result<Vec<u64>> {
        let mut out = Vec::new();
        for (gpu, k) in self.gpus.iter().zip(keys) {
            let n = k.len() as u64;
            let count = plan::samples_of(n, self.samples);
            if count == 0 {
                continue;
            }
            let buf = gpu.take_scratch(4 * count as usize)?;
            let params = ks::Samples { keys: k.dev_ptr(), n, count, direction, out: buf.dev_ptr().cast() };
            let got = gpu
                .launch(<K as SplitterKernels>::SAMPLES_JITTERED, one_thread_per_item(count, 256, 0)?, &params)
                .and_then(|()| read_u64s(gpu, &buf, 0, 2 * count as usize));
            gpu.give_back_scratch(buf);
            out.extend(got?.chunks(2).map(|w| w[0]));
        }
        Ok(out)
    }

    /// For each GPU, `(keys < s, keys <= s)` of each order-bit value `s` of `values`,
    /// flattened, in its part, which must be sorted by the bits in which the values
    /// differ from each other and all above them.
    fn bounds<K: Key>(&self, keys: &[DeviceBuffer<K>], values: &[u64], direction: Direction) -> Result<Vec<Vec<u64>>> {
        let ranges: Vec<(u64, u64)> = keys.iter().map(|k| (k.ptr(), k.len() as u64)).collect();
        self.bounds_at::<K>(&ranges, values, direction)
    }

    /// [`MultiGpuSorter::bounds`] in ranges `(device address, length)` of sorted keys,
    /// one per GPU.
    fn bounds_at<K: Key>(&self, ranges: &[(u64, u64)], values: &[u64], direction: Direction) -> Result<Vec<Vec<u64>>> {
        let mut scratch = Vec::with_capacity(ranges.len());
        let mut result = Ok(());
        let count = values.len();
        for (gpu, &(ptr, n)) in self.gpus.iter().zip(ranges) {
            let mut buf = gpu.take_scratch(6 * count.max(1))?;
            if count > 0 && result.is_ok() {
                result = buf.write_at(gpu, 0, bytemuck::cast_slice(values)).and_then(|()| {
                    let params = ks::Bounds {
                        keys: DevPtr::from_addr(ptr),
                        n,
                        splitters: buf.dev_ptr().cast(),
                        count: count as u64,
                        direction,
                        out: DevPtr::from_addr(buf.ptr_at(2 * count)),
                    };
                    gpu.launch(<K as SplitterKernels>::BOUNDS, one_thread_per_item(count as u64, 64, 0)?, &params)
                });
            }
            scratch.push(buf);
        }
        let out = result.and_then(|()| {
            (0..ranges.len())
                .map(|g| read_u64s(&self.gpus[g], &scratch[g], count, 2 * count))
                .collect::<Result<Vec<_>>>()
        });
        for (gpu, buf) in self.gpus.iter().zip(scratch) {
            gpu.give_back_scratch(buf);
        }
        out
    }

    /// Sorts each GPU's range of one bucket fully (the ranges lie where the partition
    /// put the bucket) and returns, for each of `ranks` (keys of the bucket before the
    /// cut, increasing), each GPU's count of its range's keys before that cut.
    fn split_bucket<K: Key>(&self, ranges: &[Part], ranks: &[f64], opts: &SortOptions) -> Result<Vec<Vec<u64>>> {
        let direction: Direction = opts.order.into();
        let items: Vec<Part> = ranges.to_vec();
        self.per_gpu(items, |gpu: &Gpu, r| {
            if r.len > 1 {
                radix::sort_at::<K>(gpu, r.keys, r.values, r.len as usize, K::KEY_ORDER, opts.order)?;
            }
            Ok(())
        })?;
        // Samples of the sorted ranges, the splitters at the ranks, and where each
        // range's keys fall around them.
        let lens: Vec<u64> = ranges.iter().map(|r| r.len).collect();
        let mut samples = Vec::with_capacity(ranges.len());
        for (gpu, r) in self.gpus.iter().zip(ranges) {
            let count = plan::samples_of(r.len, self.samples);
            if count == 0 {
                samples.push(Vec::new());
                continue;
            }
            let buf = gpu.take_scratch(2 * count as usize)?;
            let params =
                ks::Samples { keys: DevPtr::from_addr(r.keys), n: r.len, count, direction, out: buf.dev_ptr().cast() };
            let got = gpu
                .launch(<K as SplitterKernels>::SAMPLES, one_thread_per_item(count, 256, 0)?, &params)
                .and_then(|()| read_u64s(gpu, &buf, 0, count as usize));
            gpu.give_back_scratch(buf);
            samples.push(plan::sorted_samples(&got?, r.len));
        }
        let splitters: Vec<Splitter> = plan::splitters_at(&samples, &lens, ranks);
        let bits: Vec<u64> = splitters.iter().map(|s| s.bits).collect();
        let spans: Vec<(u64, u64)> = ranges.iter().map(|r| (r.keys, r.len)).collect();
        let found = self.bounds_at::<K>(&spans, &bits, direction)?;
        Ok(splitters
            .iter()
            .enumerate()
            .map(|(t, sp)| (0..ranges.len()).map(|g| plan::cut(g, sp, found[g][2 * t], found[g][2 * t + 1])).collect())
            .collect())
    }
}
