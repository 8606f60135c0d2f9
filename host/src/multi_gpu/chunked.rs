//! Sort first's exchange and merge by peer copies, in chunks: every GPU's key range is
//! cut into `chunks` consecutive sub-ranges ([`plan::Chunked`]); the copy engines move
//! the pieces chunk after chunk while each GPU merges the chunks that have arrived
//! into their places in its result. The merge of chunk `c` runs beside the copies of
//! chunk `c + 1` (the copy engines take no SMs), so only the last chunk's merge comes
//! after the exchange.
use std::time::Instant;

use cudarc::driver::CudaEvent;

use super::peer::PeerLinks;
use super::plan::Chunked;
use super::spare::Spare;
use super::{MultiGpuReport, MultiGpuSorter};
use crate::device::{DeviceBuffer, seconds_between, timing_event};
use crate::element::{Element, Key};
use crate::error::{Error, Result};
use crate::options::Order;
use crate::variants::mergepath::{self, Run};

/// Each GPU's buffers for the chunked exchange: its result and what it receives.
struct Room<T> {
    out: Vec<DeviceBuffer<T>>,
    recv: Vec<DeviceBuffer<T>>,
}

impl MultiGpuSorter {
    /// Exchanges the pieces of the sorted parts by peer copies and merges them, chunk
    /// by chunk (`counts[i][b]`: keys of GPU `i` in bucket `b` of `p * chunks`).
    /// `keys` (and `values`) end as each GPU's range of the result. Values move with
    /// their keys when they are 4 or 8 bytes wide (the caller sends wider ones through
    /// NCCL). `stores`: each piece moved by a kernel of its GPU storing into the
    /// destination ([`PeerLinks::store`]) instead of the copy engines.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn copy_exchange_and_merge<K: Key, V: Element>(
        &self,
        links: &PeerLinks,
        keys: &mut [DeviceBuffer<K>],
        values: Option<&mut [DeviceBuffer<V>]>,
        counts: &[Vec<u64>],
        chunks: usize,
        stores: bool,
        order: Order,
        mut spares: Vec<Spare<K, V>>,
        report: &mut MultiGpuReport,
    ) -> Result<()> {
        if values.is_some() && !matches!(size_of::<V>(), 4 | 8) {
            return Err(Error::BadArgument(format!(
                "the peer-copy exchange takes 4- or 8-byte values, not {} ({} bytes)",
                V::NAME,
                size_of::<V>()
            )));
        }
        let t = Instant::now();
        let p = self.gpus.len();
        let layout = Chunked::new(counts, chunks);
        let crossing: u64 = (0..p)
            .flat_map(|i| (0..p).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| (0..chunks).map(|c| layout.count(counts, i, j, c)).sum::<u64>())
            .sum();
        report.exchanged_bytes = crossing * (size_of::<K>() + if values.is_some() { size_of::<V>() } else { 0 }) as u64;

        let kroom = Room {
            out: self.fitted(spares.iter_mut().map(|s| s.held_keys.take()), &layout.held)?,
            recv: self.fitted(spares.iter_mut().map(|s| s.recv_keys.take()), &layout.received)?,
        };
        let vroom = match values.as_deref() {
            Some(_) => Some(Room {
                out: self.fitted(spares.iter_mut().map(|s| s.held_values.take()), &layout.held)?,
                recv: self.fitted(spares.iter_mut().map(|s| s.recv_values.take()), &layout.received)?,
            }),
            None => None,
        };
        drop(spares);
        // Whatever fails below, no copy may still run when the buffers are freed.
        let result = self.queue_copies_and_merges(
            links,
            keys,
            values.as_deref(),
            &kroom,
            vroom.as_ref(),
            counts,
            &layout,
            stores,
            order,
        );
        let copies_done = links.synchronize();
        let (begin, arrived) = result?;
        copies_done?;

        // Timed by the copy streams' events: from the end of the local sorts' queue to
        // the last piece's arrival; the merge is what the phase took beyond that.
        let mut exchange = 0f64;
        for (i, row) in arrived.iter().enumerate() {
            for ev in row.iter().flatten() {
                exchange = exchange.max(seconds_between(&begin[i], ev)?);
            }
        }
        report.exchange_s = exchange;
        report.merge_s = (t.elapsed().as_secs_f64() - exchange).max(0.0);

        for (g, k) in kroom.out.into_iter().enumerate() {
            keys[g] = k;
        }
        if let (Some(vr), Some(values)) = (vroom, values) {
            for (g, v) in vr.out.into_iter().enumerate() {
                values[g] = v;
            }
        }
        Ok(())
    }

    /// Queues every chunk's copies on the copy streams, then has each GPU merge each
    /// chunk once its pieces have arrived (its main stream waits for the copies'
    /// events), and waits for the merges. Returns each GPU's start event and the
    /// events marking the last chunk's arrival from GPU `i` at GPU `j`
    /// (`arrived[i][j]`).
    #[allow(clippy::too_many_arguments, clippy::type_complexity)]
    fn queue_copies_and_merges<K: Key, V: Element>(
        &self,
        links: &PeerLinks,
        keys: &[DeviceBuffer<K>],
        values: Option<&[DeviceBuffer<V>]>,
        kroom: &Room<K>,
        vroom: Option<&Room<V>>,
        counts: &[Vec<u64>],
        layout: &Chunked,
        stores: bool,
        order: Order,
    ) -> Result<(Vec<CudaEvent>, Vec<Vec<Option<CudaEvent>>>)> {
        let p = self.gpus.len();
        let chunks = layout.chunks;
        let (kb, vb) = (size_of::<K>() as u64, size_of::<V>() as u64);
        let begin = self.gpus.iter().map(|g| timing_event(g.stream())).collect::<Result<Vec<_>>>()?;
        links.after_main(&self.gpus)?;
        let move_piece = |i: usize, j: usize, dst: u64, src: u64, bytes: u64| match stores {
            true => links.store(&self.gpus, i, j, dst, src, bytes),
            false => links.copy(&self.gpus, i, j, dst, src, bytes as usize),
        };
        // events[c][i][j]: chunk `c` from GPU `i` has arrived at GPU `j`.
        let mut events: Vec<Vec<Vec<Option<CudaEvent>>>> = Vec::with_capacity(chunks);
        for c in 0..chunks {
            let mut row = Vec::with_capacity(p);
            for i in 0..p {
                let mut to = Vec::with_capacity(p);
                for j in 0..p {
                    if i == j {
                        to.push(None);
                        continue;
                    }
                    let len = layout.count(counts, i, j, c);
                    let from = layout.send_offsets[i][j * chunks + c];
                    let at = layout.recv_offsets[j][c][i];
                    move_piece(i, j, kroom.recv[j].ptr() + at * kb, keys[i].ptr() + from * kb, len * kb)?;
                    if let (Some(v), Some(vr)) = (values, vroom) {
                        move_piece(i, j, vr.recv[j].ptr() + at * vb, v[i].ptr() + from * vb, len * vb)?;
                    }
                    to.push(Some(links.mark(i, j)?));
                }
                row.push(to);
            }
            events.push(row);
        }

        // Each GPU merges in its own thread: the merges' host work (co-rank kernels,
        // scratch) is queued for all GPUs at once.
        let items: Vec<usize> = (0..p).collect();
        self.per_gpu(items, |gpu, j| {
            for (c, arrived) in events.iter().enumerate() {
                for ev in arrived.iter().filter_map(|to| to[j].as_ref()) {
                    gpu.stream().wait(ev).map_err(|e| Error::Driver { call: "cuStreamWaitEvent", source: e })?;
                }
                // Runs in rank order: the stable order of equal keys.
                let at = |i: usize, size: u64, own: u64, recv: u64| {
                    if i == j {
                        own + layout.send_offsets[j][j * chunks + c] * size
                    } else {
                        recv + layout.recv_offsets[j][c][i] * size
                    }
                };
                let runs: Vec<Run> = (0..p)
                    .map(|i| Run {
                        ptr: at(i, kb, keys[j].ptr(), kroom.recv[j].ptr()),
                        len: layout.count(counts, i, j, c),
                    })
                    .collect();
                let out = kroom.out[j].ptr() + layout.out_offsets[j][c] * kb;
                match (values, vroom) {
                    (Some(v), Some(vr)) => {
                        let vptrs: Vec<u64> = (0..p).map(|i| at(i, vb, v[j].ptr(), vr.recv[j].ptr())).collect();
                        let vout = vr.out[j].ptr() + layout.out_offsets[j][c] * vb;
                        mergepath::merge_run_list_pairs_into::<K, V>(gpu, &runs, &vptrs, (out, vout), order)?;
                    }
                    _ => mergepath::merge_run_list_into::<K>(gpu, &runs, out, order)?,
                }
            }
            gpu.synchronize("the merge")
        })?;
        let last = events.pop().unwrap_or_default();
        Ok((begin, last))
    }
}

/// Chunks the peer-copy exchange cuts each GPU's key range into by default.
pub const DEFAULT_CHUNKS: usize = 4;
