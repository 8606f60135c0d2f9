//! The sort-first pipeline with one rank per process (see the module docs of
//! [`super`]): the steps of `multi_gpu`'s one-process pipeline, with its host-side
//! gathering of samples and counts replaced by NCCL all-gathers between the ranks.
use std::time::{Duration, Instant};

use cudarc::nccl::{group_end, group_start};
use kernels::params::{DevPtr, Direction};
use kernels::splitters::{self as ks, SplitterKernels};

use super::RankGroup;
use crate::device::DeviceBuffer;
use crate::element::{Element, Key};
use crate::error::{Error, Result};
use crate::multi_gpu::plan::{self, Layout};
use crate::multi_gpu::spare::{Spare, fitted};
use crate::multi_gpu::{nccl, read_u64s};
use crate::options::SortOptions;
use crate::variants::launch::one_thread_per_item;
use crate::variants::mergepath::{self, Run};
use crate::variants::{radix, records};

/// What a sort over the ranks did, as this rank saw it (seconds by the wall clock;
/// every phase but the local sort waits for the other ranks).
#[derive(Clone, Debug, Default)]
pub struct RankReport {
    /// This rank.
    pub rank: usize,
    /// Number of ranks.
    pub world: usize,
    /// This rank's local sort of its shard.
    pub local_sort_s: f64,
    /// Samples, their all-gather, the splitters, the cuts and the all-gather of counts.
    pub splitters_s: f64,
    /// The grouped send/receive of keys (and values).
    pub exchange_s: f64,
    /// Merging what this rank holds.
    pub merge_s: f64,
    /// The whole sort on this rank.
    pub wall_s: f64,
    /// Keys every rank holds afterwards, by rank (each rank knows all of them).
    pub held: Vec<u64>,
    /// Bytes this rank sent to other ranks (keys and values).
    pub sent_bytes: u64,
}

impl RankReport {
    /// Where this rank's range starts in the whole sorted result (elements).
    pub fn offset(&self) -> u64 {
        self.held[..self.rank].iter().sum()
    }

    /// Keys over all ranks.
    pub fn total(&self) -> u64 {
        self.held.iter().sum()
    }
}

fn nccl_err(rank: usize, step: &str, e: cudarc::nccl::result::NcclError) -> Error {
    Error::Communication(format!("rank {rank}: {step}: {e:?}"))
}

impl RankGroup {
    /// Sorts the keys of all ranks together: `keys` is this rank's shard (on its GPU,
    /// any length). Afterwards it holds this rank's range of the sorted keys of all
    /// ranks (rank 0's range first; the length changes). Every rank must call it at the
    /// same time with the same options. On an error the contents are unspecified and
    /// the group cannot sort again.
    pub fn sort_device<K: Key>(&mut self, keys: &mut DeviceBuffer<K>, opts: &SortOptions) -> Result<RankReport> {
        self.run::<K, u32>(keys, None, opts)
    }

    /// [`RankGroup::sort_device`] for key-value pairs; stable (equal keys keep their
    /// order: rank 0's first, then each shard's order).
    pub fn sort_pairs_device<K: Key, V: Element>(
        &mut self,
        keys: &mut DeviceBuffer<K>,
        values: &mut DeviceBuffer<V>,
        opts: &SortOptions,
    ) -> Result<RankReport> {
        if keys.len() != values.len() {
            return Err(Error::LengthMismatch { keys: keys.len(), values: values.len() });
        }
        self.run(keys, Some(values), opts)
    }

    fn run<K: Key, V: Element>(
        &mut self,
        keys: &mut DeviceBuffer<K>,
        values: Option<&mut DeviceBuffer<V>>,
        opts: &SortOptions,
    ) -> Result<RankReport> {
        opts.refuse_nan_last::<K>("the one-process-per-GPU sort")?;
        if !keys.belongs_to(&self.gpu) || values.as_deref().is_some_and(|v| !v.belongs_to(&self.gpu)) {
            return Err(Error::BadArgument(format!("rank {}: the buffers are not on this rank's GPU", self.rank())));
        }
        let (rank, world) = (self.rank(), self.world());
        if world > 1 && self.comm.is_none() {
            return Err(Error::Communication(format!(
                "rank {rank}: the communicator was aborted by an earlier failure; join again"
            )));
        }
        let start = Instant::now();
        let mut report = RankReport { rank, world, ..Default::default() };
        let result = self.sort_first(keys, values, opts, &mut report);
        if result.is_err() {
            self.abort();
        }
        result?;
        report.wall_s = start.elapsed().as_secs_f64();
        Ok(report)
    }

    fn sort_first<K: Key, V: Element>(
        &mut self,
        keys: &mut DeviceBuffer<K>,
        mut values: Option<&mut DeviceBuffer<V>>,
        opts: &SortOptions,
        report: &mut RankReport,
    ) -> Result<()> {
        let (r, p) = (self.rank(), self.world());
        let gpu = &self.gpu;
        let order = opts.order;
        let direction: Direction = order.into();

        // 1. The local sort (the one-process sort's).
        let t = Instant::now();
        match values.as_deref_mut() {
            Some(v) => records::sort_pairs(gpu, keys, v, order, None)?,
            None => radix::sort(gpu, keys, &SortOptions { key_bits: None, ..*opts })?,
        }
        // While the device sorts, the memory the exchange and the merge write is mapped.
        let mut spare =
            if p > 1 { Spare::<K, V>::reserve(gpu, keys.len(), p, values.is_some())? } else { Spare::default() };
        gpu.synchronize("the local sort")?;
        report.local_sort_s = t.elapsed().as_secs_f64();
        if p == 1 {
            report.held = vec![keys.len() as u64];
            return Ok(());
        }

        // 2. Samples of the sorted shard, all-gathered: `[n, count, bits..]` padded to
        // the same length on every rank.
        let t = Instant::now();
        let n = keys.len() as u64;
        let count = plan::samples_of(n, self.samples);
        let scratch = gpu.take_scratch(2 * (count as usize + 3 * (p - 1)))?;
        let mine = (|| {
            if count > 0 {
                let params = ks::Samples { keys: keys.dev_ptr(), n, count, direction, out: scratch.dev_ptr().cast() };
                gpu.launch(<K as SplitterKernels>::SAMPLES, one_thread_per_item(count, 256, 0)?, &params)?;
            }
            read_u64s(gpu, &scratch, 0, count as usize)
        })();
        let mine = match mine {
            Ok(m) => m,
            Err(e) => {
                gpu.give_back_scratch(scratch);
                return Err(e);
            }
        };
        let stride = self.samples as usize + 2;
        let mut row = vec![0u64; stride];
        row[0] = n;
        row[1] = count;
        row[2..2 + mine.len()].copy_from_slice(&mine);
        self.test_die_at("samples");
        let all = self.all_gather_u64(&row, "all-gather of the samples")?;
        let lens: Vec<u64> = (0..p).map(|i| all[i * stride]).collect();
        let samples: Vec<Vec<(u64, u64)>> = (0..p)
            .map(|i| {
                let c = (all[i * stride + 1] as usize).min(stride - 2);
                plan::sorted_samples(&all[i * stride + 2..i * stride + 2 + c], lens[i])
            })
            .collect();
        let splitters = plan::choose_splitters(&samples, &lens);

        // This shard's cuts at the splitters (the bounds kernel), then the counts of
        // every rank, all-gathered.
        let gpu = &self.gpu;
        let bits: Vec<u64> = splitters.iter().map(|s| s.bits).collect();
        let mut scratch = scratch;
        let cuts = (|| {
            let at = count as usize;
            scratch.write_at(gpu, 2 * at, bytemuck::cast_slice(&bits))?;
            let (sp, dst) = (scratch.ptr_at(2 * at), scratch.ptr_at(2 * (at + bits.len())));
            let (splitters_ptr, out) = (DevPtr::from_addr(sp), DevPtr::from_addr(dst));
            let params = ks::Bounds {
                keys: keys.dev_ptr(),
                n,
                splitters: splitters_ptr,
                count: bits.len() as u64,
                direction,
                out,
            };
            gpu.launch(<K as SplitterKernels>::BOUNDS, one_thread_per_item(bits.len() as u64, 32, 0)?, &params)?;
            let b = read_u64s(gpu, &scratch, at + bits.len(), 2 * bits.len())?;
            Ok(splitters.iter().enumerate().map(|(t, sp)| plan::cut(r, sp, b[2 * t], b[2 * t + 1])).collect::<Vec<_>>())
        })();
        gpu.give_back_scratch(scratch);
        let my_counts = plan::send_counts(&[cuts?], &[n]).remove(0);
        let flat = self.all_gather_u64(&my_counts, "all-gather of the counts")?;
        let counts: Vec<Vec<u64>> = flat.chunks(p).map(|c| c.to_vec()).collect();
        // Values of 4 or 8 bytes are merged with their keys and the own piece is read
        // where it is; other values are sorted again from one buffer, own piece included.
        let kv_merge = matches!(size_of::<V>(), 4 | 8);
        let keep_own = values.is_none() || kv_merge;
        let layout = Layout::new(&counts, !keep_own);
        report.held = plan::received_totals(&counts);
        report.splitters_s = t.elapsed().as_secs_f64();

        // 3. The exchange.
        let t = Instant::now();
        self.test_die_at("exchange");
        let gpu = &self.gpu;
        let received = layout.received[r] as usize;
        let mut recv_keys = fitted::<K>(gpu, spare.recv_keys.take(), received)?;
        let mut recv_values = match values.as_deref() {
            Some(_) => Some(fitted::<V>(gpu, spare.recv_values.take(), received)?),
            None => None,
        };
        self.exchange(keys, &mut recv_keys, &counts, &layout, keep_own)?;
        if let (Some(v), Some(rv)) = (values.as_deref(), recv_values.as_mut()) {
            self.exchange(v, rv, &counts, &layout, keep_own)?;
        }
        self.watch("the exchange")?;
        let value_bytes = if values.is_some() { size_of::<V>() } else { 0 };
        report.sent_bytes =
            (0..p).filter(|&j| j != r).map(|j| counts[r][j]).sum::<u64>() * (size_of::<K>() + value_bytes) as u64;
        report.exchange_s = t.elapsed().as_secs_f64();

        // 4. The merge of the runs in rank order (the stable order of equal keys).
        let t = Instant::now();
        let gpu = &self.gpu;
        let own_at = layout.send_offsets[r][r] as usize;
        let runs: Vec<Run> = (0..p)
            .map(|i| Run {
                ptr: if i == r { keys.ptr_at(own_at) } else { recv_keys.ptr_at(layout.recv_offsets[r][i] as usize) },
                len: counts[i][r],
            })
            .collect();
        match (values, recv_values) {
            (Some(v), Some(rv)) if kv_merge => {
                let vptrs: Vec<u64> = (0..p)
                    .map(|i| if i == r { v.ptr_at(own_at) } else { rv.ptr_at(layout.recv_offsets[r][i] as usize) })
                    .collect();
                let held = runs.iter().map(|run| run.len).sum::<u64>() as usize;
                let mk = fitted::<K>(gpu, spare.held_keys.take(), held)?;
                let mv = fitted::<V>(gpu, spare.held_values.take(), held)?;
                mergepath::merge_run_list_pairs_into::<K, V>(gpu, &runs, &vptrs, (mk.ptr(), mv.ptr()), order)?;
                gpu.synchronize("the merge")?;
                *keys = mk;
                *v = mv;
            }
            (Some(v), Some(mut rv)) => {
                records::sort_pairs(gpu, &mut recv_keys, &mut rv, order, None)?;
                gpu.synchronize("the merge")?;
                *keys = recv_keys;
                *v = rv;
            }
            _ => {
                let held = runs.iter().map(|run| run.len).sum::<u64>() as usize;
                let merged = fitted::<K>(gpu, spare.held_keys.take(), held)?;
                mergepath::merge_run_list_into::<K>(gpu, &runs, merged.ptr(), order)?;
                gpu.synchronize("the merge")?;
                *keys = merged;
            }
        }
        report.merge_s = t.elapsed().as_secs_f64();
        Ok(())
    }

    /// One element from every rank to every other (one NCCL group) and one
    /// all-gather, so that NCCL's connections exist before the first sort.
    pub(super) fn connect(&self) -> Result<()> {
        let p = self.world();
        let counts = vec![vec![1u64; p]; p];
        let layout = Layout::new(&counts, false);
        let send = self.gpu.upload(&vec![self.rank() as u32; p])?;
        let mut recv = self.gpu.alloc::<u32>(layout.received[self.rank()] as usize)?;
        self.exchange(&send, &mut recv, &counts, &layout, true)?;
        self.watch("the first exchange (connecting the ranks)")?;
        // Collectives connect separately (0.3 s at a 4-rank sort's first all-gather).
        let ranks = self.all_gather_u64(&[self.rank() as u64], "the first all-gather (connecting the ranks)")?;
        if ranks != (0..p as u64).collect::<Vec<_>>() {
            return Err(Error::Communication(format!("rank {}: the first all-gather gave {ranks:?}", self.rank())));
        }
        let got = recv.to_vec(&self.gpu)?;
        let want: Vec<u32> = (0..p as u32).filter(|&i| i != self.rank() as u32).collect();
        if got != want {
            return Err(Error::Communication(format!(
                "rank {}: the first exchange delivered {got:?}, not {want:?}",
                self.rank()
            )));
        }
        Ok(())
    }

    /// Every rank's `mine` (the same length on each), in rank order, through NCCL.
    fn all_gather_u64(&self, mine: &[u64], step: &str) -> Result<Vec<u64>> {
        let (r, p) = (self.rank(), self.world());
        let gpu = &self.gpu;
        let send = gpu.upload(mine)?;
        let mut recv = gpu.alloc::<u64>(mine.len() * p)?;
        let comm = &self.comm.as_ref().expect("checked by run").0;
        comm.all_gather(&send.byte_view(0..mine.len()), &mut recv.byte_view_mut(0..mine.len() * p))
            .map_err(|e| nccl_err(r, step, e))?;
        self.watch(step)?;
        recv.to_vec(&self.gpu)
    }

    /// Queues this rank's sends of `send`'s pieces and receives into `recv` (one NCCL
    /// group), and the copy of its own piece when it is not kept in place.
    fn exchange<T: bytemuck::Pod>(
        &self,
        send: &DeviceBuffer<T>,
        recv: &mut DeviceBuffer<T>,
        counts: &[Vec<u64>],
        layout: &Layout,
        keep_own: bool,
    ) -> Result<()> {
        let (r, p) = (self.rank(), self.world());
        let gpu = &self.gpu;
        let comm = &self.comm.as_ref().expect("checked by run").0;
        if !keep_own && counts[r][r] > 0 {
            let (from, at) = (layout.send_offsets[r][r] as usize, layout.recv_offsets[r][r] as usize);
            recv.copy_range_from(gpu, at, send, from, counts[r][r] as usize)?;
        }
        group_start().map_err(|e| nccl_err(r, "ncclGroupStart", e))?;
        let queued = (|| {
            for j in (0..p).filter(|&j| j != r && counts[r][j] > 0) {
                let from = layout.send_offsets[r][j] as usize;
                comm.send(&send.byte_view(from..from + counts[r][j] as usize), j as i32)
                    .map_err(|e| nccl_err(r, "ncclSend", e))?;
            }
            for i in (0..p).filter(|&i| i != r && counts[i][r] > 0) {
                let at = layout.recv_offsets[r][i] as usize;
                comm.recv(&mut recv.byte_view_mut(at..at + counts[i][r] as usize), i as i32)
                    .map_err(|e| nccl_err(r, "ncclRecv", e))?;
            }
            Ok(())
        })();
        // The group is closed whatever happened inside it.
        let ended = group_end().map_err(|e| nccl_err(r, "ncclGroupEnd", e));
        queued.and(ended.map(|_| ()))
    }

    /// Waits for what is queued on this rank's stream (NCCL's work included) within the
    /// timeout: past it, a peer stopped answering.
    fn watch(&self, step: &str) -> Result<()> {
        let (r, p) = (self.rank(), self.world());
        let timeout: Duration = self.control.timeout();
        match nccl::wait_all(std::slice::from_ref(&self.gpu), std::slice::from_ref(self.gpu.stream()), timeout) {
            Ok(true) => Ok(()),
            Ok(false) => Err(Error::Communication(format!(
                "rank {r} of {p}: {step} did not finish within {timeout:?} (a rank stopped answering or died)"
            ))),
            Err(e) => Err(Error::Communication(format!("rank {r} of {p}: {step}: {e}"))),
        }
    }
}
