//! The sort-first pipeline (the default): each GPU sorts its whole part, the
//! splitters come from regular samples of the sorted parts (so every GPU's count below
//! a splitter is exact to one sample's share), the pieces are exchanged and each GPU
//! merges what it holds. Also the fallback of the partition-first pipeline when its
//! sampled splitters split too unevenly.
use std::time::Instant;

use super::nccl::Piece;
use super::peer::PeerLinks;
use super::plan::{self, Layout};
use super::spare::{Spare, fitted};
use super::{Exchange, MultiGpuReport, MultiGpuSorter, read_u64s};
use crate::device::DeviceBuffer;
use crate::error::Result;
use kernels::params::{DevPtr, Direction};
use kernels::splitters::{self as ks, SplitterKernels};

use crate::element::{Element, Key};
use crate::options::SortOptions;
use crate::variants::launch::one_thread_per_item;
use crate::variants::mergepath::{self, Run};
use crate::variants::{radix, records};

impl MultiGpuSorter {
    /// Each GPU sorts its part, in its own thread (so no GPU waits for another's
    /// launches or host-side work); returns when all are done. With `reserve`, each
    /// GPU's [`Spare`] buffers for the exchange and the merge are mapped while it
    /// sorts.
    pub(super) fn local_sorts<K: Key, V: Element>(
        &self,
        keys: &mut [DeviceBuffer<K>],
        values: Option<&mut [DeviceBuffer<V>]>,
        opts: &SortOptions,
        reserve: bool,
    ) -> Result<Vec<Spare<K, V>>> {
        let p = self.gpus.len();
        let order = opts.order;
        let local_opts = SortOptions { key_bits: None, ..*opts };
        let value_parts: Vec<Option<&mut DeviceBuffer<V>>> = match values {
            Some(v) => v.iter_mut().map(Some).collect(),
            None => (0..p).map(|_| None).collect(),
        };
        let items: Vec<_> = keys.iter_mut().zip(value_parts).collect();
        self.per_gpu(items, |gpu, (k, v)| {
            let pairs = v.is_some();
            match v {
                Some(v) => records::sort_pairs(gpu, k, v, order, None)?,
                None => radix::sort(gpu, k, &local_opts)?,
            }
            let spare = if reserve { Spare::reserve(gpu, k.len(), p, pairs)? } else { Spare::default() };
            gpu.synchronize("the local sort")?;
            Ok(spare)
        })
    }

    /// `counts[i][b]`: keys of GPU `i`'s sorted part in key range `b` of `buckets`
    /// (splitters from regular samples of the sorted parts, each GPU's cuts found by
    /// binary search on the GPU).
    fn bucket_counts<K: Key>(
        &self,
        keys: &[DeviceBuffer<K>],
        direction: Direction,
        buckets: usize,
    ) -> Result<Vec<Vec<u64>>> {
        let p = self.gpus.len();
        // One kept scratch buffer per GPU holds its samples, the splitters and their
        // bounds (no allocation, no driver call but the copies). Each step is queued on
        // every GPU before any is waited for; these are a few tiny kernels and copies,
        // so one thread does it (threads measured slower).
        let lens: Vec<u64> = keys.iter().map(|k| k.len() as u64).collect();
        let counts: Vec<u64> = lens.iter().map(|&n| plan::samples_of(n, self.samples)).collect();
        let mut scratch = Vec::with_capacity(p);
        for (g, gpu) in self.gpus.iter().enumerate() {
            let (n, count) = (lens[g], counts[g]);
            let buf = gpu.take_scratch(2 * (count as usize + 3 * (buckets - 1)))?;
            if count > 0 {
                let params = ks::Samples { keys: keys[g].dev_ptr(), n, count, direction, out: buf.dev_ptr().cast() };
                gpu.launch(<K as SplitterKernels>::SAMPLES, one_thread_per_item(count, 256, 0)?, &params)?;
            }
            scratch.push(buf);
        }
        let samples = (0..p)
            .map(|g| {
                let bits = read_u64s(&self.gpus[g], &scratch[g], 0, counts[g] as usize)?;
                Ok(plan::sorted_samples(&bits, lens[g]))
            })
            .collect::<Result<Vec<_>>>()?;
        let splitters = plan::choose_bucket_splitters(&samples, &lens, buckets);
        let bits: Vec<u64> = splitters.iter().map(|s| s.bits).collect();
        let bounds = (|| {
            let count = bits.len() as u64;
            for (g, gpu) in self.gpus.iter().enumerate() {
                let at = counts[g] as usize;
                scratch[g].write_at(gpu, 2 * at, bytemuck::cast_slice(&bits))?;
                let (sp, dst) = (scratch[g].ptr_at(2 * at), scratch[g].ptr_at(2 * (at + bits.len())));
                let (splitters, out) = (DevPtr::from_addr(sp), DevPtr::from_addr(dst));
                let params = ks::Bounds { keys: keys[g].dev_ptr(), n: lens[g], splitters, count, direction, out };
                gpu.launch(<K as SplitterKernels>::BOUNDS, one_thread_per_item(count, 32, 0)?, &params)?;
            }
            (0..p)
                .map(|g| {
                    let b = read_u64s(&self.gpus[g], &scratch[g], counts[g] as usize + bits.len(), 2 * bits.len())?;
                    Ok(splitters.iter().enumerate().map(|(t, sp)| plan::cut(g, sp, b[2 * t], b[2 * t + 1])).collect())
                })
                .collect::<Result<Vec<Vec<u64>>>>()
        })();
        for (gpu, buf) in self.gpus.iter().zip(scratch) {
            gpu.give_back_scratch(buf);
        }
        Ok(plan::send_counts(&bounds?, &lens))
    }

    pub(super) fn run_sort_first<K: Key, V: Element>(
        &self,
        keys: &mut [DeviceBuffer<K>],
        mut values: Option<&mut [DeviceBuffer<V>]>,
        opts: &SortOptions,
        links: Option<&PeerLinks>,
        report: &mut MultiGpuReport,
    ) -> Result<()> {
        let p = self.gpus.len();
        let order = opts.order;
        let direction: Direction = order.into();

        // 1. Local sorts.
        let t = Instant::now();
        let mut spares = self.local_sorts(keys, values.as_deref_mut(), opts, true)?;
        report.local_sort_s = t.elapsed().as_secs_f64();

        // 2. Splitters: one per GPU, or `chunks` per GPU for the chunked peer copies.
        let t = Instant::now();
        let chunks = if links.is_some() { self.chunks } else { 1 };
        let counts = self.bucket_counts(keys, direction, p * chunks)?;
        if let Some(links) = links {
            report.splitters_s = t.elapsed().as_secs_f64();
            report.exchange = self.peer_exchange();
            report.chunks = chunks;
            let stores = report.exchange == Exchange::PeerStore;
            return self.copy_exchange_and_merge(links, keys, values, &counts, chunks, stores, order, spares, report);
        }
        report.exchange = Exchange::Nccl;
        report.chunks = 1;
        // A GPU's own piece stays where it is and the merge reads it there; only pairs
        // with values of other widths than 4 or 8 bytes are sorted again from one
        // buffer, so theirs is copied in.
        let kv_merge = matches!(size_of::<V>(), 4 | 8);
        let keep_own = values.is_none() || kv_merge;
        let layout = Layout::new(&counts, !keep_own);
        report.splitters_s = t.elapsed().as_secs_f64();

        // 3. Exchange.
        let t = Instant::now();
        let pieces = pieces(&counts, &layout, keep_own);
        report.exchanged_bytes = exchanged_bytes::<K, V>(&pieces, values.is_some());
        let mut recv_keys = self.fitted(spares.iter_mut().map(|s| s.recv_keys.take()), &layout.received)?;
        let mut recv_values = match values.as_deref() {
            Some(_) => Some(self.fitted(spares.iter_mut().map(|s| s.recv_values.take()), &layout.received)?),
            None => None,
        };
        self.begin_exchange(keys, &mut recv_keys, values.as_deref(), recv_values.as_mut(), &pieces)?;
        self.watch()?;
        self.end_exchange()?;
        report.exchange_s = t.elapsed().as_secs_f64();

        // 4. Merge what each GPU received, each GPU in its own thread.
        let t = Instant::now();
        let recv_values: Vec<Option<DeviceBuffer<V>>> = match recv_values {
            Some(rv) => rv.into_iter().map(Some).collect(),
            None => (0..p).map(|_| None).collect(),
        };
        let own: Vec<u64> = (0..p).map(|g| keys[g].ptr_at(layout.send_offsets[g][g] as usize)).collect();
        let own_values: Vec<u64> = match values.as_deref() {
            Some(v) => (0..p).map(|g| v[g].ptr_at(layout.send_offsets[g][g] as usize)).collect(),
            None => vec![0; p],
        };
        // The merged result of GPU `g`: `counts[i][g]` keys from each GPU `i`, into its
        // spare buffers where they are long enough.
        let held: Vec<u64> = (0..p).map(|g| counts.iter().map(|c| c[g]).sum()).collect();
        let spares: Vec<_> = spares.into_iter().map(|s| (s.held_keys, s.held_values)).collect();
        let items: Vec<_> = recv_keys.into_iter().zip(recv_values).zip(spares).enumerate().collect();
        let merged = self.per_gpu(items, |gpu, (g, ((k, v), (held_keys, held_values)))| {
            let len = held[g] as usize;
            // Runs in rank order: the stable order of equal keys.
            let runs: Vec<Run> = (0..p)
                .map(|i| Run {
                    ptr: if i == g { own[g] } else { k.ptr_at(layout.recv_offsets[g][i] as usize) },
                    len: counts[i][g],
                })
                .collect();
            let out = match v {
                Some(v) if kv_merge => {
                    let vptrs: Vec<u64> = (0..p)
                        .map(|i| if i == g { own_values[g] } else { v.ptr_at(layout.recv_offsets[g][i] as usize) })
                        .collect();
                    let (mk, mv) = (fitted::<K>(gpu, held_keys, len)?, fitted::<V>(gpu, held_values, len)?);
                    mergepath::merge_run_list_pairs_into::<K, V>(gpu, &runs, &vptrs, (mk.ptr(), mv.ptr()), order)?;
                    (mk, Some(mv))
                }
                Some(mut v) => {
                    let mut k = k;
                    records::sort_pairs(gpu, &mut k, &mut v, order, None)?;
                    (k, Some(v))
                }
                None => {
                    let merged = fitted::<K>(gpu, held_keys, len)?;
                    mergepath::merge_run_list_into::<K>(gpu, &runs, merged.ptr(), order)?;
                    (merged, None)
                }
            };
            gpu.synchronize("the merge")?;
            Ok(out)
        })?;
        for (g, (k, v)) in merged.into_iter().enumerate() {
            keys[g] = k;
            if let (Some(v), Some(values)) = (v, values.as_deref_mut()) {
                values[g] = v;
            }
        }
        report.merge_s = t.elapsed().as_secs_f64();
        Ok(())
    }
}

/// The pieces of an exchange with these counts and layout: GPU `i` sends GPU `j` its
/// keys from `send_offsets[i][j]`. Without `keep_own`, a GPU's own piece is copied into
/// its receive buffer too.
pub(super) fn pieces(counts: &[Vec<u64>], layout: &Layout, keep_own: bool) -> Vec<Piece> {
    let p = counts.len();
    (0..p)
        .flat_map(|i| {
            (0..p).map(move |j| Piece {
                src: i,
                dst: j,
                from: layout.send_offsets[i][j] as usize,
                at: layout.recv_offsets[j][i] as usize,
                len: counts[i][j] as usize,
            })
        })
        .filter(|x| !(keep_own && x.src == x.dst))
        .collect()
}

/// Bytes that cross between GPUs in these pieces (keys, and values if any).
pub(super) fn exchanged_bytes<K, V>(pieces: &[Piece], with_values: bool) -> u64 {
    pieces.iter().filter(|x| x.src != x.dst).map(|x| x.len as u64).sum::<u64>()
        * (size_of::<K>() + if with_values { size_of::<V>() } else { 0 }) as u64
}
