//! Sorting across the GPUs of one host: a distributed sample sort over NCCL.
//!
//! Two pipelines share the splitter rule, the exchange and the merge:
//!
//! * **Sort first** (the default, [`sort_first`]): each GPU sorts its whole part,
//!   splitters from regular samples of the sorted parts, exchange, merge.
//! * **Partition first** ([`Pipeline::PartitionFirst`], [`partitioned`]): splitters
//!   from samples of the unsorted parts; each GPU splits its part stably into the `p`
//!   key ranges, sorts the ranges it sends away, then sorts the range it keeps *while*
//!   those travel (the exchange runs on a second, high-priority stream), and merges.
//!   Measured slower than sorting first on two H200s (the overlapped exchange slows
//!   the sort beside it by about as much as it hides), so it runs only when asked; it
//!   falls back to sorting first for sampled splitters that would leave a GPU more
//!   than 5% off `n / p`.
//!
//! **Ties.** Keys are ordered by `(order bits, GPU, position in the part)`
//! ([`plan::Splitter`]), which is the stable order, so runs of duplicates are split
//! anywhere and every GPU ends with about `n / p` keys however skewed the keys.
//!
//! **Exchange.** GPU `i` sends GPU `j` its keys (and values) of range `j`; a GPU's own
//! range stays where it is. Sort first moves them directly where every pair of GPUs
//! has a peer-to-peer path ([`chunked`]), by the copy engines ([`Exchange::PeerCopy`])
//! or, asked for, by kernels storing into the peers ([`Exchange::PeerStore`]): each
//! range in [`MultiGpuSorter::set_exchange_chunks`] key sub-ranges, each merged while
//! the next one travels. Otherwise (and for partition first, and values wider than 8 bytes) by
//! grouped NCCL send/recv ([`Exchange::Nccl`]). **Merge.** The own range and the
//! received runs are merged by merge path in rank order
//! ([`crate::variants::mergepath::merge_run_list`]); values of 4 or 8 bytes move with
//! their keys in the same kernels. Wider values (sort first only): the received pairs
//! are sorted again by the stable radix pair sort.
//!
//! GPU `i` then holds the `i`-th range of the result, and the concatenation over the
//! GPUs is the stable sort of the concatenated input. With one GPU only the local sort
//! runs: the result is [`crate::Sorter`]'s radix sort exactly.
//!
//! One process drives all GPUs (one communicator each, `ncclCommInitAll`). The same
//! steps with one process per GPU (a TCP rendezvous passes NCCL's unique id, each rank
//! calls `Comm::from_rank`, samples and counts are all-gathered) are
//! [`crate::ranks::RankGroup`]; docs/ranks.md says how to run them on several hosts.
use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use cudarc::nccl::Comm;

use cudarc::driver::{CudaEvent, CudaStream};

use crate::device::{DeviceBuffer, Gpu, PlainAlloc};
use crate::element::{Element, Key};
use crate::error::{DriverContext as _, Error, Result};
use crate::options::SortOptions;
use crate::tuning::Tuning;

mod chunked;
pub mod nccl;
mod partitioned;
mod peer;
#[doc(hidden)]
pub use partitioned::partition_on_gpu;
pub mod plan;
mod sort_first;
pub(crate) mod spare;

pub use chunked::DEFAULT_CHUNKS;
use nccl::{Lane, Piece};
use peer::PeerLinks;

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

/// Which steps a multi-GPU sort takes (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Pipeline {
    /// The fastest measured: sort first.
    #[default]
    Auto,
    /// Sort each part first, then exchange and merge.
    SortFirst,
    /// Partition first, the exchange beside the local sorts: 2 to
    /// [`kernels::partition::MAX_PARTS`] GPUs, keys alone or with 4- or 8-byte values
    /// (an error otherwise). Falls back to sorting first when the sampled splitters
    /// would split unevenly ([`MultiGpuReport::fell_back`]).
    PartitionFirst,
}

impl Pipeline {
    /// The name [`Pipeline::parse`] takes (`"auto"`, `"sort-first"`, `"partition-first"`).
    pub fn name(self) -> &'static str {
        match self {
            Pipeline::Auto => "auto",
            Pipeline::SortFirst => "sort-first",
            Pipeline::PartitionFirst => "partition-first",
        }
    }

    /// `auto`, `sort-first` or `partition-first`.
    pub fn parse(s: &str) -> Option<Pipeline> {
        [Pipeline::Auto, Pipeline::SortFirst, Pipeline::PartitionFirst].into_iter().find(|p| p.name() == s.trim())
    }
}

/// How the pieces travel between the GPUs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Exchange {
    /// Peer copies by the copy engines where every pair of GPUs can reach each other
    /// directly and the values (if any) are 4 or 8 bytes wide, NCCL otherwise.
    #[default]
    Auto,
    /// Grouped NCCL send/recv, after the local sorts.
    Nccl,
    /// The copy engines (`cuMemcpyPeerAsync`), in chunks merged as they arrive (sort
    /// first only; an error where a pair of GPUs has no peer-to-peer path).
    PeerCopy,
    /// As [`Exchange::PeerCopy`], but each piece moved by a kernel of its source GPU
    /// that stores it into the destination's memory (`kernels::peer`). With four GPUs
    /// exchanging at once, a test kernel storing 16-byte vectors moved 1,368 GB/s over
    /// the GPUs where the copy engines moved 764-920 (4 x H200, 2026-11-29); with two,
    /// the copy engines are the faster. Not yet what [`Exchange::Auto`] picks: this
    /// kernel has been timed on two GPUs only.
    PeerStore,
}

impl Exchange {
    /// The name [`Exchange::parse`] takes (`"auto"`, `"nccl"`, `"copy"`, `"store"`).
    pub fn name(self) -> &'static str {
        match self {
            Exchange::Auto => "auto",
            Exchange::Nccl => "nccl",
            Exchange::PeerCopy => "copy",
            Exchange::PeerStore => "store",
        }
    }

    /// `auto`, `nccl`, `copy` or `store`.
    pub fn parse(s: &str) -> Option<Exchange> {
        [Exchange::Auto, Exchange::Nccl, Exchange::PeerCopy, Exchange::PeerStore]
            .into_iter()
            .find(|e| e.name() == s.trim())
    }
}

/// Where a multi-GPU sort spent its time (seconds) and how the keys ended up spread.
/// Sort first: each phase is waited for on every GPU, by the wall clock; with peer
/// copies the merge runs beside the exchange, which is timed by the copy streams'
/// events (start to the last arrival), and the merge is the rest of the phase. Partition
/// first: the phases overlap (the exchange runs during the local sort and its share
/// beyond it counts in the merge), each is the slowest GPU's, timed by events.
#[derive(Clone, Debug, Default)]
pub struct MultiGpuReport {
    /// Number of GPUs that took part.
    pub gpus: usize,
    /// The pipeline that ran ([`Pipeline::SortFirst`] or [`Pipeline::PartitionFirst`];
    /// [`Pipeline::Auto`] with one GPU, where only the local sort runs).
    pub pipeline: Pipeline,
    /// Partition first only: the splitters were rejected and the sort ran again sorting
    /// first.
    pub fell_back: bool,
    /// How the pieces travelled ([`Exchange::Nccl`] or [`Exchange::PeerCopy`];
    /// [`Exchange::Auto`] with one GPU, where nothing travels).
    pub exchange: Exchange,
    /// Chunks each GPU's range travelled in (1 with NCCL).
    pub chunks: usize,
    /// Sampling the keys and choosing the splitters that divide them between the GPUs
    /// (with sort first, also finding each split in the sorted parts).
    pub splitters_s: f64,
    /// Partition first only.
    pub partition_s: f64,
    /// Each GPU sorting its part (the only phase with one GPU).
    pub local_sort_s: f64,
    /// Moving the pieces between the GPUs.
    pub exchange_s: f64,
    /// Each GPU merging the pieces it received.
    pub merge_s: f64,
    /// The whole sort, by the wall clock.
    pub wall_s: f64,
    /// Keys each GPU holds afterwards.
    pub held: Vec<u64>,
    /// Bytes that crossed from one GPU to another (keys and values).
    pub exchanged_bytes: u64,
}

impl MultiGpuReport {
    /// The whole sort (the wall clock).
    pub fn total_s(&self) -> f64 {
        self.wall_s
    }
}

/// `len` `u64`s from `u64` index `at` of a `u32` scratch buffer (waits for the GPU).
pub(crate) fn read_u64s(gpu: &Gpu, buf: &DeviceBuffer<u32>, at: usize, len: usize) -> Result<Vec<u64>> {
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
    /// Each GPU's exchange stream (high priority), where its communicator queues.
    xstreams: Vec<Arc<CudaStream>>,
    pipeline: Pipeline,
    exchange: Exchange,
    chunks: usize,
    /// Peer access and copy streams, set up by the first sort that may use them (the
    /// error when some pair of GPUs has no peer-to-peer path).
    links: OnceLock<std::result::Result<PeerLinks, String>>,
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
        Self::new_tuned(ordinals, Tuning::default())
    }

    /// [`MultiGpuSorter::new`] with every GPU opened with `tuning`
    /// ([`Gpu::open_tuned`]).
    pub fn new_tuned(ordinals: &[usize], tuning: Tuning) -> Result<MultiGpuSorter> {
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
        let gpus = ordinals.iter().map(|&o| Gpu::open_tuned(o, tuning.clone())).collect::<Result<Vec<_>>>()?;
        let xstreams = gpus.iter().map(|g| g.high_priority_stream()).collect::<Result<Vec<_>>>()?;
        Ok(MultiGpuSorter {
            gpus,
            xstreams,
            pipeline: Pipeline::Auto,
            exchange: Exchange::Auto,
            chunks: DEFAULT_CHUNKS,
            links: OnceLock::new(),
            comms: Mutex::new(None),
            timeout: DEFAULT_EXCHANGE_TIMEOUT,
            samples: SAMPLES_PER_GPU,
            silent: AtomicUsize::new(usize::MAX),
        })
    }

    /// Every GPU of this host.
    pub fn all() -> Result<MultiGpuSorter> {
        Self::all_tuned(Tuning::default())
    }

    /// Every GPU of this host, opened with `tuning`.
    pub fn all_tuned(tuning: Tuning) -> Result<MultiGpuSorter> {
        let n = Self::device_count()?;
        Self::new_tuned(&(0..n).collect::<Vec<_>>(), tuning)
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

    /// The GPUs, in the order they were given.
    pub fn gpus(&self) -> &[Gpu] {
        &self.gpus
    }

    /// The knobs the GPUs were opened with (the same on each).
    pub fn tuning(&self) -> &Tuning {
        self.gpus[0].tuning()
    }

    /// Number of GPUs.
    pub fn len(&self) -> usize {
        self.gpus.len()
    }

    /// Whether there are no GPUs.
    pub fn is_empty(&self) -> bool {
        self.gpus.is_empty()
    }

    /// How long an exchange may take before the communicators are aborted and the sort
    /// fails with [`Error::Communication`] (a peer that stopped answering). Default 60 s.
    pub fn set_exchange_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }

    /// Which pipeline the sorts take (default [`Pipeline::Auto`]).
    pub fn set_pipeline(&mut self, pipeline: Pipeline) {
        self.pipeline = pipeline;
    }

    /// How the pieces travel between the GPUs (default [`Exchange::Auto`]).
    pub fn set_exchange(&mut self, exchange: Exchange) {
        self.exchange = exchange;
    }

    /// Key sub-ranges each GPU's range travels in with peer copies, each merged while
    /// the next one arrives (default [`DEFAULT_CHUNKS`]; at least 1).
    pub fn set_exchange_chunks(&mut self, chunks: usize) {
        self.chunks = chunks.max(1);
    }

    /// How the pieces travel when the peer links serve ([`MultiGpuSorter::peer_links`]):
    /// by the SMs' stores when [`Exchange::PeerStore`] was asked for, otherwise by the
    /// copy engines.
    fn peer_exchange(&self) -> Exchange {
        match self.exchange {
            Exchange::PeerStore => Exchange::PeerStore,
            _ => Exchange::PeerCopy,
        }
    }

    /// The peer links when sort first should exchange by peer copies: `None` for NCCL
    /// (asked for, values of other widths than 4 or 8 bytes, or, with
    /// [`Exchange::Auto`], GPUs without a peer-to-peer path); an error when
    /// [`Exchange::PeerCopy`] or [`Exchange::PeerStore`] was asked for and cannot serve.
    fn peer_links(&self, value_bytes: usize) -> Result<Option<&PeerLinks>> {
        let asked = matches!(self.exchange, Exchange::PeerCopy | Exchange::PeerStore);
        if self.exchange == Exchange::Nccl || self.gpus.len() < 2 {
            return Ok(None);
        }
        if !matches!(value_bytes, 0 | 4 | 8) {
            return match asked {
                true => Err(Error::BadArgument(format!(
                    "the peer-copy exchange takes keys alone or 4- or 8-byte values ({value_bytes}-byte values)"
                ))),
                false => Ok(None),
            };
        }
        match self.links.get_or_init(|| PeerLinks::open(&self.gpus).map_err(|e| e.to_string())) {
            Ok(l) => Ok(Some(l)),
            Err(e) if asked => Err(Error::NoDevice(format!("no peer copies: {e}"))),
            Err(_) => Ok(None),
        }
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
        let comms = nccl::communicators(&self.xstreams)?;
        let p = self.gpus.len();
        let send = self.gpus.iter().map(|g| g.upload(&vec![1u32; p])).collect::<Result<Vec<_>>>()?;
        let mut recv = self.gpus.iter().map(|g| g.alloc::<u32>(p)).collect::<Result<Vec<_>>>()?;
        let pieces: Vec<Piece> =
            (0..p).flat_map(|i| (0..p).map(move |j| Piece { src: i, dst: j, from: j, at: i, len: 1 })).collect();
        self.x_after_main()?;
        nccl::queue_exchange(&self.gpus, &comms, &mut [&mut Lane { send: &send, recv: &mut recv }], &pieces, None)?;
        if !nccl::wait_all(&self.gpus, &self.xstreams, self.timeout)? {
            drop(comms);
            return Err(Error::Communication(format!("the first exchange did not finish in {:?}", self.timeout)));
        }
        *guard = Some(Comms(comms));
        Ok(())
    }

    /// Sorts the keys spread over the GPUs: `parts[g]` lives on GPU `g` (any lengths).
    /// Afterwards `parts[g]` holds the `g`-th range of the sorted keys (its length
    /// changes: about the total over the GPU count). Primitive key types, either order;
    /// `opts.variant` and `opts.key_bits` are not used (the local sort is `radix`);
    /// NaN-last order of float keys is refused ([`SortOptions::refuse_nan_last`]).
    ///
    /// On an error the contents of `parts` are unspecified (they are the caller's
    /// keys, some possibly sorted or moved), but no key is lost while no error occurs.
    pub fn sort_device<K: Key>(&self, parts: &mut [DeviceBuffer<K>], opts: &SortOptions) -> Result<MultiGpuReport> {
        crate::element::narrow_refusal::<K>("the multi-GPU sort")?;
        self.run::<K, u32>(parts, None, opts)
    }

    /// [`MultiGpuSorter::sort_device`] for key-value pairs: `values[g]` (same length as
    /// `keys[g]`) moves with its keys. Stable: equal keys keep their input order (GPU 0's
    /// first, then each part's order).
    pub fn sort_pairs_device<K: Key, V: Element>(
        &self,
        keys: &mut [DeviceBuffer<K>],
        values: &mut [DeviceBuffer<V>],
        opts: &SortOptions,
    ) -> Result<MultiGpuReport> {
        crate::element::narrow_refusal::<K>("the multi-GPU sort")?;
        self.run(keys, Some(values), opts)
    }

    /// Sorts a host slice over the GPUs: GPU `g` gets the `g`-th of `p` equal ranges, and
    /// the sorted ranges are copied back in order. The slice is unchanged on error.
    pub fn sort<K: Key>(&self, keys: &mut [K], opts: &SortOptions) -> Result<MultiGpuReport> {
        let mut parts = self.scatter(keys)?;
        let report = self.sort_device(&mut parts, opts)?;
        self.gather_into(&parts, keys)?;
        Ok(report)
    }

    /// Sorts host pairs over the GPUs (see [`MultiGpuSorter::sort`]); stable.
    pub fn sort_pairs<K: Key, V: Element>(
        &self,
        keys: &mut [K],
        values: &mut [V],
        opts: &SortOptions,
    ) -> Result<MultiGpuReport> {
        if keys.len() != values.len() {
            return Err(Error::LengthMismatch { keys: keys.len(), values: values.len() });
        }
        let mut k = self.scatter(keys)?;
        let mut v = self.scatter(values)?;
        let report = self.sort_pairs_device(&mut k, &mut v, opts)?;
        self.gather_into(&k, keys)?;
        self.gather_into(&v, values)?;
        Ok(report)
    }

    /// Uploads `data` as `p` equal consecutive ranges, range `g` to GPU `g`, all GPUs
    /// at once (one thread each).
    pub fn scatter<T: Element>(&self, data: &[T]) -> Result<Vec<DeviceBuffer<T>>> {
        let p = self.gpus.len();
        let n = data.len();
        let ranges = (0..p).map(|g| &data[g * n / p..(g + 1) * n / p]).collect();
        self.per_gpu(ranges, |gpu, range| gpu.upload(range))
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
        // Each GPU copies its part into its own range of `out`, all at once.
        let mut ranges = Vec::with_capacity(parts.len());
        let mut rest = out;
        for part in parts {
            let (range, tail) = rest.split_at_mut(part.len());
            ranges.push((part, range));
            rest = tail;
        }
        self.per_gpu(ranges, |gpu, (part, range)| part.copy_to_host(gpu, range)).map(drop)
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

    fn run<K: Key, V: Element>(
        &self,
        keys: &mut [DeviceBuffer<K>],
        mut values: Option<&mut [DeviceBuffer<V>]>,
        opts: &SortOptions,
    ) -> Result<MultiGpuReport> {
        opts.refuse_nan_last::<K>("the multi-GPU sort")?;
        self.check_parts(keys, "key")?;
        if let Some(v) = values.as_deref() {
            self.check_parts(v, "value")?;
            if let Some(g) = (0..keys.len()).find(|&g| keys[g].len() != v[g].len()) {
                return Err(Error::LengthMismatch { keys: keys[g].len(), values: v[g].len() });
            }
        }
        let start = Instant::now();
        let p = self.gpus.len();
        let mut report = MultiGpuReport { gpus: p, ..Default::default() };
        let value_bytes = if values.is_some() { size_of::<V>() } else { 0 };
        let serves = partitioned::serves(p, value_bytes);
        if self.pipeline == Pipeline::PartitionFirst && !serves {
            return Err(Error::BadArgument(format!(
                "the partition-first pipeline takes 2 to {} GPUs and values of 4 or 8 bytes ({p} GPUs, {} values)",
                kernels::partition::MAX_PARTS,
                V::NAME
            )));
        }
        if p == 1 {
            self.local_sorts(keys, values, opts, false)?;
            report.local_sort_s = start.elapsed().as_secs_f64();
        } else {
            let first = self.pipeline == Pipeline::PartitionFirst;
            let links = if first { None } else { self.peer_links(value_bytes)? };
            // NCCL's communicators only where NCCL carries the exchange.
            if links.is_none() {
                self.connect()?;
            }
            if first && self.run_partitioned(keys, values.as_deref_mut(), opts, &mut report)? {
                report.pipeline = Pipeline::PartitionFirst;
                report.exchange = Exchange::Nccl;
                report.chunks = 1;
            } else {
                report = MultiGpuReport { gpus: p, fell_back: first, ..Default::default() };
                self.run_sort_first(keys, values, opts, links, &mut report)?;
                report.pipeline = Pipeline::SortFirst;
            }
        }
        report.wall_s = start.elapsed().as_secs_f64();
        report.held = keys.iter().map(|k| k.len() as u64).collect();
        Ok(report)
    }

    /// Each GPU's buffer of `lens[g]` elements: its spare from `spares` where that is
    /// long enough ([`spare::fitted`]), else a new one.
    fn fitted<T: Element>(
        &self,
        spares: impl IntoIterator<Item = Option<DeviceBuffer<T>>>,
        lens: &[u64],
    ) -> Result<Vec<DeviceBuffer<T>>> {
        self.gpus.iter().zip(spares).zip(lens).map(|((gpu, s), &n)| spare::fitted(gpu, s, n as usize)).collect()
    }

    /// Makes each GPU's exchange stream wait for the work queued so far on its main
    /// stream.
    fn x_after_main(&self) -> Result<()> {
        for (gpu, x) in self.gpus.iter().zip(&self.xstreams) {
            x.join(gpu.stream()).call("cuStreamWaitEvent")?;
        }
        Ok(())
    }

    /// Makes each GPU's main stream wait for its exchange stream's work (the end of the
    /// exchange): what is queued there next may read what was received.
    fn end_exchange(&self) -> Result<()> {
        for (gpu, x) in self.gpus.iter().zip(&self.xstreams) {
            gpu.stream().join(x).call("cuStreamWaitEvent")?;
        }
        Ok(())
    }

    /// Queues the exchange of keys (and values) on the exchange streams, after the work
    /// queued so far on the main streams; returns events marking its start and end on
    /// each GPU. Work queued next on the main streams runs beside it;
    /// [`MultiGpuSorter::watch`] waits for the exchange, and
    /// [`MultiGpuSorter::end_exchange`] orders the main streams after it.
    fn begin_exchange<K: Key, V: Element>(
        &self,
        keys: &[DeviceBuffer<K>],
        recv_keys: &mut [DeviceBuffer<K>],
        values: Option<&[DeviceBuffer<V>]>,
        recv_values: Option<&mut Vec<DeviceBuffer<V>>>,
        pieces: &[Piece],
    ) -> Result<(Vec<CudaEvent>, Vec<CudaEvent>)> {
        let guard = self.comms.lock().unwrap_or_else(|p| p.into_inner());
        let Some(Comms(comms)) = guard.as_ref() else {
            return Err(Error::Communication("no communicators (connect failed)".into()));
        };
        let silent = match self.silent.swap(usize::MAX, AtomicOrdering::Relaxed) {
            usize::MAX => None,
            r => Some(r),
        };
        self.x_after_main()?;
        let mark = |x: &Arc<CudaStream>| crate::device::timing_event(x);
        let begin = self.xstreams.iter().map(mark).collect::<Result<Vec<_>>>()?;
        let mut key_lane = Lane { send: keys, recv: recv_keys };
        match (values, recv_values) {
            (Some(v), Some(rv)) => {
                let mut value_lane = Lane { send: v, recv: rv };
                nccl::queue_exchange(&self.gpus, comms, &mut [&mut key_lane, &mut value_lane], pieces, silent)?
            }
            _ => nccl::queue_exchange(&self.gpus, comms, &mut [&mut key_lane], pieces, silent)?,
        };
        let end = self.xstreams.iter().map(mark).collect::<Result<Vec<_>>>()?;
        Ok((begin, end))
    }

    /// Waits for the exchange (everything queued on the exchange streams) under the
    /// watchdog: past the exchange timeout, or on a fault, the communicators are
    /// aborted (the next sort creates new ones) and the sort fails. Nothing may read
    /// what was received before this returns: after a failed exchange the receive
    /// buffers hold garbage, and the merge kernels trap on unsorted runs, which would
    /// leave the GPU unusable.
    fn watch(&self) -> Result<()> {
        let finished = nccl::wait_all(&self.gpus, &self.xstreams, self.timeout);
        match finished {
            Ok(true) => Ok(()),
            Ok(false) | Err(_) => {
                // Abort every communicator: NCCL's kernels stop waiting for the peer.
                *self.comms.lock().unwrap_or_else(|p| p.into_inner()) = None;
                let stopped = nccl::wait_all(&self.gpus, &self.xstreams, Duration::from_secs(10)).unwrap_or(false);
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
    pub(crate) fn per_gpu<I: Send, O: Send>(
        &self,
        items: Vec<I>,
        f: impl Fn(&Gpu, I) -> Result<O> + Sync,
    ) -> Result<Vec<O>> {
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
