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
//! 4. **Exchange**: GPU `i` sends GPU `j` the range between its cuts `j` and `j + 1`,
//!    received in rank order.
//! 5. **Local sort**: each GPU sorts what it received with the stable radix sort. The
//!    received runs are in rank order and each is in input order among equal keys, so
//!    the result is the stable sort.
use std::time::Instant;

use kernels::params::{DevPtr, Direction};
use kernels::splitters::{self as ks, SplitterKernels};

use super::plan::{self, Layout, Splitter, TopCut};
use super::sort_first::{exchanged_bytes, pieces};
use super::{MultiGpuReport, MultiGpuSorter, read_u64s};
use crate::device::{DeviceBuffer, Gpu};
use crate::element::{Element, Key};
use crate::error::{Error, Result};
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
        let bits = plan::top_bits(&sampled, width);
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
        let edges = plan::top_edges(sampled_and, bits, width);
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
        let counts = plan::send_counts(&cuts, &lens);
        let layout = Layout::new(&counts, true);
        splitters_s += t.elapsed().as_secs_f64();
        report.splitters_s = splitters_s;

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
