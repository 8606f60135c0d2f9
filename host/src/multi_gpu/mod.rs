//! Sorting across the GPUs of one host: a distributed sample sort over NCCL.
//!
//! 1. **Local sort.** Each GPU sorts its part with the radix sort (stable).
//! 2. **Splitters.** Each GPU samples its sorted part at regular positions
//!    (`splitter_samples_*`); the host orders all samples by `(key, GPU, position)`
//!    and picks `p - 1` splitters at equal shares of all keys ([`plan::choose_splitters`]);
//!    each GPU counts its keys before each splitter by binary search
//!    (`splitter_bounds_*`). Ties are ordered by GPU and position, i.e. by input
//!    position, so duplicates are split anywhere and every GPU ends with `n / p` keys,
//!    give or take one sample's share of each part, however skewed the keys.
//! 3. **Exchange.** GPU `i` sends GPU `j` its keys between cuts `j` and `j + 1`
//!    (grouped NCCL send/recv; pieces that stay are device copies). GPU `j` receives
//!    `p` sorted runs, from GPU 0 first.
//! 4. **Merge.** The GPU's own run (read where the local sort left it) and the
//!    received runs are merged by merge path in rank order, pairwise rounds
//!    ([`crate::variants::mergepath::merge_run_list`]); values of 4 or 8 bytes move
//!    with their keys in the same kernels. Wider values: the received pairs are sorted
//!    again by the stable radix pair sort (the runs arrive in input order, so ties
//!    keep it).
//!
//! GPU `i` then holds the `i`-th range of the result, and the concatenation over the
//! GPUs is the stable sort of the concatenated input. With one GPU only step 1 runs:
//! the result is [`crate::Sorter`]'s radix sort exactly.
//!
//! One process drives all GPUs (one communicator each, `ncclCommInitAll`). Several
//! hosts would use the same steps with one process per GPU: rank 0 creates an NCCL
//! unique id ([`cudarc::nccl::Id`]), a launcher (MPI, a TCP rendezvous) passes it to
//! the others, each calls `Comm::from_rank`, and the host-side splitter choice becomes
//! an all-gather of the samples and the bounds; see the README.
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};
use std::time::{Duration, Instant};

use cudarc::nccl::Comm;

use crate::device::{DeviceBuffer, Gpu, PlainAlloc};
use crate::error::{Error, Result};
use crate::variants::launch::{kernel_name, one_thread_per_item};
use crate::variants::mergepath::{self, Run};
use crate::variants::radix;
use crate::{Element, SortOptions, launch};

pub mod nccl;
pub mod plan;

use nccl::{Lane, Piece};
use plan::Layout;

/// Samples each GPU contributes to the splitter choice: each GPU ends within about
/// `n / SAMPLES` keys of `n / p`.
pub const SAMPLES_PER_GPU: u64 = 4096;

/// Default for [`MultiGpuSorter::set_exchange_timeout`].
pub const DEFAULT_EXCHANGE_TIMEOUT: Duration = Duration::from_secs(60);

/// The communicators, one per GPU. NCCL communicators may be used from any thread,
/// one call at a time: the sorter keeps them behind a mutex, so moving them between
/// threads is sound.
struct Comms(Vec<Comm>);

// SAFETY: see `Comms`; every use goes through `MultiGpuSorter::comms`' mutex.
unsafe impl Send for Comms {}

/// Where a multi-GPU sort spent its time (seconds, each phase waited for on every GPU)
/// and how the keys ended up spread.
#[derive(Clone, Debug, Default)]
pub struct MultiGpuReport {
    pub gpus: usize,
    pub local_sort_s: f64,
    pub splitters_s: f64,
    pub exchange_s: f64,
    pub merge_s: f64,
    /// Keys each GPU holds afterwards.
    pub held: Vec<u64>,
    /// Bytes that crossed from one GPU to another (keys and values).
    pub exchanged_bytes: u64,
}

impl MultiGpuReport {
    pub fn total_s(&self) -> f64 {
        self.local_sort_s + self.splitters_s + self.exchange_s + self.merge_s
    }
}

/// `len` `u64`s from `u64` index `at` of a `u32` scratch buffer (waits for the GPU).
fn read_u64s(gpu: &Gpu, buf: &DeviceBuffer<u32>, at: usize, len: usize) -> Result<Vec<u64>> {
    let mut words = vec![0u32; 2 * len];
    buf.read_at(gpu, 2 * at, &mut words)?;
    Ok(words.as_chunks::<2>().0.iter().map(|w| w[0] as u64 | (w[1] as u64) << 32).collect())
}

/// Sorts data spread over several GPUs of this host (see the module docs).
///
/// ```no_run
/// use host::{MultiGpuSorter, SortOptions};
///
/// let sorter = MultiGpuSorter::new(&[0, 1])?; // or MultiGpuSorter::all()
/// let mut keys: Vec<u32> = (0..1_000_000u32).rev().collect();
/// let report = sorter.sort(&mut keys, &SortOptions::default())?;
/// assert!(keys.windows(2).all(|w| w[0] <= w[1]));
/// println!("exchange took {:.3} ms", report.exchange_s * 1e3);
/// # Ok::<(), host::Error>(())
/// ```
pub struct MultiGpuSorter {
    gpus: Vec<Gpu>,
    /// Created on first use; dropped (aborted) after a failed exchange and created
    /// again by the next sort.
    comms: Mutex<Option<Comms>>,
    timeout: Duration,
    samples: u64,
    /// Test hook: the rank whose pieces the next exchange leaves out (usize::MAX: none).
    silent: AtomicUsize,
}

impl MultiGpuSorter {
    /// Opens the GPUs with these ordinals (distinct), each with its own stream and the
    /// kernels loaded. Fails with [`Error::NoDevice`] when one is missing. NCCL is
    /// needed (and its communicators created) only from two GPUs on, at the first sort.
    pub fn new(ordinals: &[usize]) -> Result<MultiGpuSorter> {
        if ordinals.is_empty() {
            return Err(Error::BadArgument("a multi-GPU sort needs at least one GPU".into()));
        }
        for (i, o) in ordinals.iter().enumerate() {
            if ordinals[..i].contains(o) {
                return Err(Error::BadArgument(format!("GPU {o} is listed twice")));
            }
        }
        let present = Self::device_count()?;
        if let Some(&o) = ordinals.iter().find(|&&o| o >= present) {
            return Err(Error::NoDevice(format!(
                "{} GPUs asked for ({ordinals:?}) but {present} present (no GPU {o})",
                ordinals.len()
            )));
        }
        let gpus = ordinals.iter().map(|&o| Gpu::open(o)).collect::<Result<Vec<_>>>()?;
        Ok(MultiGpuSorter {
            gpus,
            comms: Mutex::new(None),
            timeout: DEFAULT_EXCHANGE_TIMEOUT,
            samples: SAMPLES_PER_GPU,
            silent: AtomicUsize::new(usize::MAX),
        })
    }

    /// Every GPU of this host.
    pub fn all() -> Result<MultiGpuSorter> {
        let n = Self::device_count()?;
        Self::new(&(0..n).collect::<Vec<_>>())
    }

    /// GPUs on this host (0 without a driver).
    pub fn device_count() -> Result<usize> {
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err(Error::NoDevice("the NVIDIA driver library (libcuda) is not installed".into()));
        }
        let n =
            cudarc::driver::CudaContext::device_count().map_err(|e| Error::NoDevice(format!("cuInit failed: {e}")))?;
        Ok(n.max(0) as usize)
    }

    pub fn gpus(&self) -> &[Gpu] {
        &self.gpus
    }

    pub fn len(&self) -> usize {
        self.gpus.len()
    }

    pub fn is_empty(&self) -> bool {
        self.gpus.is_empty()
    }

    /// How long an exchange may take before the communicators are aborted and the sort
    /// fails with [`Error::Communication`] (a peer that stopped answering). Default 60 s.
    pub fn set_exchange_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }

    /// Samples per GPU for the splitters (default [`SAMPLES_PER_GPU`]; at least 1).
    pub fn set_samples_per_gpu(&mut self, samples: u64) {
        self.samples = samples.max(1);
    }

    /// Both-ways copy bandwidth between GPUs 0 and 1 in GB/s (10^9 bytes per second):
    /// `bytes` copied 0 -> 1 and 1 -> 0 at the same time by the driver's peer copies,
    /// total bytes over the time of both (best of three after a warm-up), with peer
    /// access enabled. The ceiling the exchange's NCCL transfers can be compared with.
    /// `Ok(None)` with one GPU; an error when the GPUs cannot reach each other directly.
    pub fn peer_copy_gb_s(&self, bytes: usize) -> Result<Option<f64>> {
        if self.gpus.len() < 2 {
            return Ok(None);
        }
        let (a, b) = (&self.gpus[0], &self.gpus[1]);
        // Without peer access the driver stages the copy through the host (~50 GB/s
        // measured instead of NVLink's hundreds).
        a.enable_peer_access(b)?;
        b.enable_peer_access(a)?;
        let (a_src, a_dst) = (a.alloc_plain(bytes)?, a.alloc_plain(bytes)?);
        let (b_src, b_dst) = (b.alloc_plain(bytes)?, b.alloc_plain(bytes)?);
        let copy = |dst: &PlainAlloc, dg: &Gpu, src: &PlainAlloc, sg: &Gpu| -> Result<()> {
            use crate::error::DriverContext as _;
            // SAFETY: both buffers are live allocations of `bytes` bytes in their contexts.
            unsafe {
                cudarc::driver::sys::cuMemcpyPeerAsync(
                    dst.ptr,
                    dg.cu_ctx(),
                    src.ptr,
                    sg.cu_ctx(),
                    bytes,
                    sg.stream().cu_stream(),
                )
                .result()
            }
            .call("cuMemcpyPeerAsync")
        };
        let mut best = f64::INFINITY;
        for round in 0..4 {
            a.synchronize("peer copy")?;
            b.synchronize("peer copy")?;
            let t = Instant::now();
            copy(&b_dst, b, &a_src, a)?;
            copy(&a_dst, a, &b_src, b)?;
            a.synchronize("peer copy")?;
            b.synchronize("peer copy")?;
            if round > 0 {
                best = best.min(t.elapsed().as_secs_f64());
            }
        }
        Ok(Some(2.0 * bytes as f64 / best / 1e9))
    }

    /// Test hook: in the next exchange, GPU `rank` posts none of its sends and
    /// receives, as a peer that died would; the exchange then times out.
    #[doc(hidden)]
    pub fn silence_rank_in_next_exchange(&self, rank: usize) {
        self.silent.store(rank, AtomicOrdering::Relaxed);
    }

    /// Creates the communicators if needed and runs one small exchange between every
    /// pair, so that NCCL's connections exist before any timed or fault-injected
    /// exchange. A no-op with one GPU.
    pub fn connect(&self) -> Result<()> {
        if self.gpus.len() < 2 {
            return Ok(());
        }
        let mut guard = self.comms.lock().unwrap_or_else(|p| p.into_inner());
        if guard.is_some() {
            return Ok(());
        }
        let comms = nccl::communicators(&self.gpus)?;
        let p = self.gpus.len();
        let send = self.gpus.iter().map(|g| g.upload(&vec![1u32; p])).collect::<Result<Vec<_>>>()?;
        let mut recv = self.gpus.iter().map(|g| g.alloc::<u32>(p)).collect::<Result<Vec<_>>>()?;
        let pieces: Vec<Piece> =
            (0..p).flat_map(|i| (0..p).map(move |j| Piece { src: i, dst: j, from: j, at: i, len: 1 })).collect();
        nccl::queue_exchange(&self.gpus, &comms, &mut [&mut Lane { send: &send, recv: &mut recv }], &pieces, None)?;
        if !nccl::wait_all(&self.gpus, self.timeout)? {
            drop(comms);
            return Err(Error::Communication(format!("the first exchange did not finish in {:?}", self.timeout)));
        }
        *guard = Some(Comms(comms));
        Ok(())
    }

    /// Sorts the keys spread over the GPUs: `parts[g]` lives on GPU `g` (any lengths).
    /// Afterwards `parts[g]` holds the `g`-th range of the sorted keys (its length
    /// changes: about the total over the GPU count). Primitive key types, either order;
    /// `opts.variant` and `opts.key_bits` are not used (the local sort is `radix`).
    ///
    /// On an error the contents of `parts` are unspecified (they are the caller's
    /// keys, some possibly sorted or moved), but no key is lost while no error occurs.
    pub fn sort_device<K: Element>(&self, parts: &mut [DeviceBuffer<K>], opts: &SortOptions) -> Result<MultiGpuReport> {
        self.run::<K, u32>(parts, None, opts)
    }

    /// [`MultiGpuSorter::sort_device`] for key-value pairs: `values[g]` (same length as
    /// `keys[g]`) moves with its keys. Stable: equal keys keep their input order (GPU 0's
    /// first, then each part's order).
    pub fn sort_pairs_device<K: Element, V: Element>(
        &self,
        keys: &mut [DeviceBuffer<K>],
        values: &mut [DeviceBuffer<V>],
        opts: &SortOptions,
    ) -> Result<MultiGpuReport> {
        self.run(keys, Some(values), opts)
    }

    /// Sorts a host slice over the GPUs: GPU `g` gets the `g`-th of `p` equal ranges, and
    /// the sorted ranges are copied back in order. The slice is unchanged on error.
    pub fn sort<K: Element>(&self, keys: &mut [K], opts: &SortOptions) -> Result<MultiGpuReport> {
        let mut parts = self.scatter(keys)?;
        let report = self.sort_device(&mut parts, opts)?;
        self.gather_into(&parts, keys)?;
        Ok(report)
    }

    /// Sorts host pairs over the GPUs (see [`MultiGpuSorter::sort`]); stable.
    pub fn sort_pairs<K: Element, V: Element>(
        &self,
        keys: &mut [K],
        values: &mut [V],
        opts: &SortOptions,
    ) -> Result<MultiGpuReport> {
        if keys.len() != values.len() {
            return Err(Error::BadArgument(format!("{} keys but {} values", keys.len(), values.len())));
        }
        let mut k = self.scatter(keys)?;
        let mut v = self.scatter(values)?;
        let report = self.sort_pairs_device(&mut k, &mut v, opts)?;
        self.gather_into(&k, keys)?;
        self.gather_into(&v, values)?;
        Ok(report)
    }

    /// Uploads `data` as `p` equal consecutive ranges, range `g` to GPU `g`.
    pub fn scatter<T: Element>(&self, data: &[T]) -> Result<Vec<DeviceBuffer<T>>> {
        let p = self.gpus.len();
        let n = data.len();
        self.gpus.iter().enumerate().map(|(g, gpu)| gpu.upload(&data[g * n / p..(g + 1) * n / p])).collect()
    }

    /// Downloads the parts in GPU order into one vector.
    pub fn gather<T: Element>(&self, parts: &[DeviceBuffer<T>]) -> Result<Vec<T>> {
        let mut out = vec![T::zeroed(); parts.iter().map(|p| p.len()).sum()];
        self.gather_into(parts, &mut out)?;
        Ok(out)
    }

    fn gather_into<T: Element>(&self, parts: &[DeviceBuffer<T>], out: &mut [T]) -> Result<()> {
        if parts.iter().map(|p| p.len()).sum::<usize>() != out.len() {
            return Err(Error::BadArgument("the parts do not add up to the output's length".into()));
        }
        let mut at = 0;
        for (gpu, part) in self.gpus.iter().zip(parts) {
            part.copy_to_host(gpu, &mut out[at..at + part.len()])?;
            at += part.len();
        }
        Ok(())
    }

    fn check_parts<T: Element>(&self, parts: &[DeviceBuffer<T>], what: &str) -> Result<()> {
        if parts.len() != self.gpus.len() {
            return Err(Error::BadArgument(format!(
                "{} {what} buffers for {} GPUs (one per GPU, in the sorter's order)",
                parts.len(),
                self.gpus.len()
            )));
        }
        for (g, (gpu, part)) in self.gpus.iter().zip(parts).enumerate() {
            if !part.belongs_to(gpu) {
                return Err(Error::BadArgument(format!(
                    "{what} buffer {g} is not on GPU {} (the sorter's GPU {g})",
                    gpu.info().ordinal
                )));
            }
        }
        Ok(())
    }

    fn run<K: Element, V: Element>(
        &self,
        keys: &mut [DeviceBuffer<K>],
        mut values: Option<&mut [DeviceBuffer<V>]>,
        opts: &SortOptions,
    ) -> Result<MultiGpuReport> {
        if K::BIT_ORDER.is_none() {
            return Err(Error::BadArgument(format!(
                "{} is a record; the multi-GPU sort takes primitive keys",
                K::NAME
            )));
        }
        self.check_parts(keys, "key")?;
        if let Some(v) = values.as_deref() {
            self.check_parts(v, "value")?;
            if let Some(g) = (0..keys.len()).find(|&g| keys[g].len() != v[g].len()) {
                return Err(Error::BadArgument(format!("GPU {g}: {} keys but {} values", keys[g].len(), v[g].len())));
            }
        }
        let p = self.gpus.len();
        let order = opts.order;
        let desc = order.is_descending() as u32;
        let mut report = MultiGpuReport { gpus: p, ..Default::default() };
        if p > 1 {
            self.connect()?;
        }

        // 1. Local sorts, each GPU driven by its own thread (so no GPU waits for
        // another's launches or host-side work).
        let t = Instant::now();
        let local_opts = SortOptions { key_bits: None, ..*opts };
        let mut value_parts: Vec<Option<&mut DeviceBuffer<V>>> = match values.as_deref_mut() {
            Some(v) => v.iter_mut().map(Some).collect(),
            None => (0..p).map(|_| None).collect(),
        };
        let items: Vec<_> = keys.iter_mut().zip(value_parts.iter_mut().map(|v| v.take())).collect();
        self.per_gpu(items, |gpu, (k, v)| {
            match v {
                Some(v) => radix::sort_pairs(gpu, k, v, order, None)?,
                None => radix::sort(gpu, k, &local_opts)?,
            }
            gpu.synchronize("the local sort")
        })?;
        report.local_sort_s = t.elapsed().as_secs_f64();
        if p == 1 {
            report.held = vec![keys[0].len() as u64];
            return Ok(report);
        }

        // 2. Splitters. One kept scratch buffer per GPU holds its samples, the
        // splitters and their bounds (no allocation, no driver call but the copies).
        // Each step is queued on every GPU before any is waited for; these are a few
        // tiny kernels and copies, so one thread does it (threads measured slower).
        let t = Instant::now();
        let lens: Vec<u64> = keys.iter().map(|k| k.len() as u64).collect();
        let counts: Vec<u64> = lens.iter().map(|&n| plan::samples_of(n, self.samples)).collect();
        let mut scratch = Vec::with_capacity(p);
        for (g, gpu) in self.gpus.iter().enumerate() {
            let (src, n, count) = (keys[g].ptr(), lens[g], counts[g]);
            let buf = gpu.take_scratch(2 * (count as usize + 3 * (p - 1)))?;
            if count > 0 {
                let dst = buf.ptr();
                let name = kernel_name::<K>("splitter_samples");
                launch!(gpu, name, one_thread_per_item(count, 256, 0)?, &src, &n, &count, &desc, &dst)?;
            }
            scratch.push(buf);
        }
        let samples =
            (0..p).map(|g| read_u64s(&self.gpus[g], &scratch[g], 0, counts[g] as usize)).collect::<Result<Vec<_>>>()?;
        let splitters = plan::choose_splitters(&samples, &lens);
        let bits: Vec<u64> = splitters.iter().map(|s| s.bits).collect();
        let bounds = (|| {
            let name = kernel_name::<K>("splitter_bounds");
            let count = bits.len() as u64;
            for (g, gpu) in self.gpus.iter().enumerate() {
                let at = counts[g] as usize;
                scratch[g].write_at(gpu, 2 * at, bytemuck::cast_slice(&bits))?;
                let (src, n) = (keys[g].ptr(), lens[g]);
                let (sp, dst) = (scratch[g].ptr_at(2 * at), scratch[g].ptr_at(2 * (at + bits.len())));
                launch!(gpu, name, one_thread_per_item(count, 32, 0)?, &src, &n, &sp, &count, &desc, &dst)?;
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
        let counts = plan::send_counts(&bounds?, &lens);
        // A GPU's own piece stays where it is and the merge reads it there; only pairs
        // with values of other widths than 4 or 8 bytes are sorted again from one
        // buffer, so theirs is copied in.
        let kv_merge = matches!(size_of::<V>(), 4 | 8);
        let keep_own = values.is_none() || kv_merge;
        let layout = Layout::new(&counts, !keep_own);
        report.splitters_s = t.elapsed().as_secs_f64();

        // 3. Exchange.
        let t = Instant::now();
        let pieces: Vec<Piece> = (0..p)
            .flat_map(|i| {
                let (counts, layout) = (&counts, &layout);
                (0..p).map(move |j| Piece {
                    src: i,
                    dst: j,
                    from: layout.send_offsets[i][j] as usize,
                    at: layout.recv_offsets[j][i] as usize,
                    len: counts[i][j] as usize,
                })
            })
            .filter(|x| !(keep_own && x.src == x.dst))
            .collect();
        report.exchanged_bytes = pieces.iter().filter(|x| x.src != x.dst).map(|x| x.len as u64).sum::<u64>()
            * (size_of::<K>() + if values.is_some() { size_of::<V>() } else { 0 }) as u64;
        let mut recv_keys = self.alloc_received::<K>(&layout.received)?;
        let mut recv_values = match values.as_deref() {
            Some(_) => Some(self.alloc_received::<V>(&layout.received)?),
            None => None,
        };
        self.exchange(keys, &mut recv_keys, values.as_deref(), recv_values.as_mut(), &pieces)?;
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
        let items: Vec<_> = recv_keys.into_iter().zip(recv_values).enumerate().collect();
        let merged = self.per_gpu(items, |gpu, (g, (k, v))| {
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
                    let (k, v) = mergepath::merge_run_list_pairs::<K, V>(gpu, &runs, &vptrs, order)?;
                    (k, Some(v))
                }
                Some(mut v) => {
                    let mut k = k;
                    radix::sort_pairs(gpu, &mut k, &mut v, order, None)?;
                    (k, Some(v))
                }
                None => (mergepath::merge_run_list(gpu, &runs, order)?, None),
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
        report.held = keys.iter().map(|k| k.len() as u64).collect();
        Ok(report)
    }

    fn alloc_received<T: Element>(&self, received: &[u64]) -> Result<Vec<DeviceBuffer<T>>> {
        self.gpus.iter().zip(received).map(|(gpu, &n)| gpu.alloc::<T>(n as usize)).collect()
    }

    /// Queues the exchange of keys (and values) and waits for it under the watchdog;
    /// a timeout aborts the communicators (the next sort creates new ones).
    fn exchange<K: Element, V: Element>(
        &self,
        keys: &[DeviceBuffer<K>],
        recv_keys: &mut [DeviceBuffer<K>],
        values: Option<&[DeviceBuffer<V>]>,
        recv_values: Option<&mut Vec<DeviceBuffer<V>>>,
        pieces: &[Piece],
    ) -> Result<()> {
        let mut guard = self.comms.lock().unwrap_or_else(|p| p.into_inner());
        let Some(Comms(comms)) = guard.as_ref() else {
            return Err(Error::Communication("no communicators (connect failed)".into()));
        };
        let silent = match self.silent.swap(usize::MAX, AtomicOrdering::Relaxed) {
            usize::MAX => None,
            r => Some(r),
        };
        let mut key_lane = Lane { send: keys, recv: recv_keys };
        let queued = match (values, recv_values) {
            (Some(v), Some(rv)) => {
                let mut value_lane = Lane { send: v, recv: rv };
                nccl::queue_exchange(&self.gpus, comms, &mut [&mut key_lane, &mut value_lane], pieces, silent)
            }
            _ => nccl::queue_exchange(&self.gpus, comms, &mut [&mut key_lane], pieces, silent),
        };
        let finished = queued.and_then(|_| nccl::wait_all(&self.gpus, self.timeout));
        match finished {
            Ok(true) => Ok(()),
            Ok(false) | Err(_) => {
                // Abort every communicator: NCCL's kernels stop waiting for the peer.
                *guard = None;
                let stopped = nccl::wait_all(&self.gpus, Duration::from_secs(10)).unwrap_or(false);
                let why = match finished {
                    Err(e) => e.to_string(),
                    _ => format!("the exchange did not finish within {:?}", self.timeout),
                };
                Err(Error::Communication(format!(
                    "{why}; the communicators were aborted{}",
                    if stopped { "" } else { " but a GPU is still busy" }
                )))
            }
        }
    }

    /// Runs `f` for every GPU with its item, each in its own thread (inline for one
    /// GPU); the first error wins.
    fn per_gpu<I: Send, O: Send>(&self, items: Vec<I>, f: impl Fn(&Gpu, I) -> Result<O> + Sync) -> Result<Vec<O>> {
        if self.gpus.len() == 1 {
            return items.into_iter().map(|i| f(&self.gpus[0], i)).collect();
        }
        std::thread::scope(|s| {
            let f = &f;
            let handles: Vec<_> = self.gpus.iter().zip(items).map(|(gpu, i)| s.spawn(move || f(gpu, i))).collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                .collect::<Result<Vec<O>>>()
        })
    }
}
