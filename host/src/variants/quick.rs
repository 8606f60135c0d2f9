//! `quick`: GPU quicksort with three-way partitions (after Cederman and Tsigas,
//! "GPU-Quicksort"; the algorithm and its invariants are described in
//! `kernels/src/quick/mod.rs`). The host drives one level per iteration: it uploads the
//! level's segment table, queues the pivot, count, scan and scatter kernels, reads back
//! three counts per segment and plans the next level. The data never leaves the device.
//!
//! Also exposes the level machinery as a standalone three-way [`partition`].
use cudarc::driver::sys::CUfunction_attribute;
use kernels::naive::{self, MergePass, NaiveKernels};
use kernels::params::{DevPtr, Direction};
use kernels::quick::{
    Count, Finish, FinishEntry, Pivots, QuickKernels, SAMPLES, Scatter, blocks_for, copy_back, default_max_depth,
    items_per_thread, mix64, plan_children, small_max,
};
use kernels::scan;

use super::launch::{blocks, one_thread_per_item};
use super::scan::exclusive_scan_u64_raw;
use crate::device::{DeviceBuffer, Gpu};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::options::{Order, SortOptions};

/// Threads per block of [`partition`] and of the finishing sorts.
const BLOCK: u32 = 256;
/// Shared memory of the count and scatter kernels: the block's segment index and the
/// block scan's slots.
const PARTITION_SMEM: u32 = 8 + scan::SMEM_BYTES;

/// Sizes of the three parts written by [`partition`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PartitionCounts {
    /// Elements that sort before the pivot.
    pub less: usize,
    /// Elements whose key equals the pivot's.
    pub equal: usize,
    /// Elements that sort after the pivot.
    pub greater: usize,
}

/// Three-way partition of `src` around `pivot`, into a new buffer laid out as
/// `[less | equal | greater]`. "Less" means "sorts before `pivot` in `order`" (for
/// [`Order::Descending`], larger keys); "equal" compares the key only (an [`Entity`]
/// with the pivot's distance but another payload is equal). `pivot` need not occur in
/// `src`. Every element is moved, none is lost or duplicated; the order inside each
/// part is unspecified. Returns after the work is done (the counts are read back).
///
/// [`Entity`]: crate::Entity
pub fn partition<T: Element>(
    gpu: &Gpu,
    src: &DeviceBuffer<T>,
    pivot: T,
    order: Order,
) -> Result<(DeviceBuffer<T>, PartitionCounts)> {
    let n = src.len();
    let dst = gpu.alloc::<T>(n)?;
    if n == 0 {
        return Ok((dst, PartitionCounts::default()));
    }
    let mut ws = Workspace::<T>::new(gpu, n as u64, BLOCK)?;
    ws.pivots.write_at(gpu, 0, &[pivot])?;
    let c = ws.level(gpu, src.dev_ptr(), dst.dev_ptr(), &[(0, n as u64)], None, order.into())?[0];
    Ok((dst, PartitionCounts { less: c[0] as usize, equal: c[1] as usize, greater: c[2] as usize }))
}

/// Sorts `buf` with the GPU quicksort; `opts.block_size` is the partition kernels'
/// block size.
pub fn sort<T: Element>(gpu: &Gpu, buf: &mut DeviceBuffer<T>, opts: &SortOptions) -> Result<()> {
    sort_with_max_depth(gpu, buf, opts, default_max_depth(buf.len() as u64))
}

/// [`sort`] with the depth limit after which the remaining segments are merge-sorted
/// (the `naive` variant's passes on each segment) instead of partitioned further. The
/// default is [`default_max_depth`]; a small limit exercises the fallback.
pub fn sort_with_max_depth<T: Element>(
    gpu: &Gpu,
    buf: &mut DeviceBuffer<T>,
    opts: &SortOptions,
    max_depth: u32,
) -> Result<()> {
    let n = buf.len() as u64;
    if n <= 1 {
        return Ok(());
    }
    let direction = opts.order.into();
    let small = small_max(size_of::<T>());
    let mut finish: Vec<FinishEntry> = Vec::new();
    if n <= small {
        finish.push(FinishEntry { start: 0, len: n, from_scratch: false, copy_only: false });
        return run_finish::<T>(gpu, buf.dev_ptr(), buf.dev_ptr(), &finish, direction, small);
    }
    let scratch = gpu.alloc::<T>(buf.len())?;
    let mut ws = Workspace::<T>::new(gpu, n, opts.block_size)?;
    let (data, spare) = (buf.dev_ptr(), scratch.dev_ptr());
    let mut active = vec![(0u64, n)];
    let mut in_scratch = false;
    let mut depth = 0;
    while !active.is_empty() {
        if depth == max_depth {
            merge_fallback::<T>(gpu, data, spare, &active, in_scratch, opts.block_size, direction, small, &mut finish)?;
            break;
        }
        let (src, dst) = if in_scratch { (spare, data) } else { (data, spare) };
        let salt = mix64(depth as u64 ^ n.rotate_left(17));
        let counts = ws.level(gpu, src, dst, &active, Some(salt), direction)?;
        in_scratch = !in_scratch;
        let mut next = Vec::new();
        for (&(start, _), &c) in active.iter().zip(&counts) {
            plan_children(start, c, in_scratch, small, |s, l| next.push((s, l)), |e| finish.push(e));
        }
        active = next;
        depth += 1;
    }
    run_finish::<T>(gpu, data, spare, &finish, direction, small)?;
    drop(scratch);
    Ok(())
}

/// Device buffers of the level kernels, allocated once per sort at their largest size
/// (allocation per level would add driver calls to every level).
struct Workspace<T> {
    block: u32,
    tile: u64,
    /// Segment table (`kernels::quick::SegTable` layout).
    table: DeviceBuffer<u64>,
    pivots: DeviceBuffer<T>,
    /// Per-block counts, scanned in place (`2 * nblocks + 1` used).
    counts: DeviceBuffer<u64>,
    /// `[less, equal, greater]` per segment.
    seg_counts: DeviceBuffer<u64>,
}

impl<T: Element> Workspace<T> {
    /// Room for any level of a sort of `n` elements: active segments are longer than
    /// `small_max`, so there are at most `n / (small_max + 1)` of them (at least one),
    /// and each adds at most one partial tile.
    fn new(gpu: &Gpu, n: u64, block: u32) -> Result<Self> {
        let block = fitting_block::<T>(gpu, block)?;
        let tile = block as u64 * items_per_thread(size_of::<T>()) as u64;
        let max_segs = (n / (small_max(size_of::<T>()) + 1)).max(1);
        let max_blocks = n.div_ceil(tile) + max_segs;
        Ok(Workspace {
            block,
            tile,
            table: gpu.alloc((3 * max_segs + 1) as usize)?,
            pivots: gpu.alloc(max_segs as usize)?,
            counts: gpu.alloc((2 * max_blocks + 1) as usize)?,
            seg_counts: gpu.alloc((3 * max_segs) as usize)?,
        })
    }

    /// Partitions every segment `(start, len)` of `src` three ways into the same range
    /// of `dst` around pivots sampled with `salt`, or, with `None`, around those
    /// already in `self.pivots`; returns each segment's `[less, equal, greater]` counts.
    fn level(
        &mut self,
        gpu: &Gpu,
        src: DevPtr<T>,
        dst: DevPtr<T>,
        segs: &[(u64, u64)],
        salt: Option<u64>,
        direction: Direction,
    ) -> Result<Vec<[u64; 3]>> {
        let nseg = segs.len() as u64;
        // The layout of kernels::quick::SegTable: starts, lengths, first blocks.
        let mut table: Vec<u64> = segs.iter().map(|s| s.0).collect();
        table.extend(segs.iter().map(|s| s.1));
        let mut nblocks = 0;
        for &(_, len) in segs {
            table.push(nblocks);
            nblocks += blocks_for(len, self.tile);
        }
        table.push(nblocks);
        self.table.write_at(gpu, 0, &table)?;
        let (table, pivots, counts) = (self.table.dev_ptr(), self.pivots.dev_ptr(), self.counts.dev_ptr());
        if let Some(salt) = salt {
            let cfg = blocks(nseg, SAMPLES, SAMPLES * size_of::<T>() as u32)?;
            let pick = Pivots { src, segs: table, nseg, pivots, direction, salt };
            gpu.launch(<T as QuickKernels>::PIVOTS, cfg, &pick)?;
        }
        let cfg = blocks(nblocks, self.block, PARTITION_SMEM)?;
        let count = Count { src, segs: table, nseg, pivots, counts, nblocks, direction };
        gpu.launch(<T as QuickKernels>::COUNT, cfg, &count)?;
        // SAFETY: `counts` holds 2 * nblocks + 1 values (Workspace::new's bound).
        unsafe { exclusive_scan_u64_raw(gpu, counts.addr(), 2 * nblocks)? };
        let scatter = Scatter {
            src,
            dst,
            segs: table,
            nseg,
            pivots,
            scanned: counts,
            nblocks,
            seg_counts: self.seg_counts.dev_ptr(),
            direction,
        };
        gpu.launch(<T as QuickKernels>::SCATTER, cfg, &scatter)?;
        let mut out = vec![0u64; 3 * segs.len()];
        self.seg_counts.read_at(gpu, 0, &mut out)?;
        Ok(out.as_chunks::<3>().0.to_vec())
    }
}

/// `requested` threads per block, or fewer where the partition kernels' registers
/// don't fit that many (the wide types at 1024 threads, depending on the compiler).
fn fitting_block<T: Element>(gpu: &Gpu, requested: u32) -> Result<u32> {
    let mut block = requested;
    for name in [<T as QuickKernels>::COUNT.name(), <T as QuickKernels>::SCATTER.name()] {
        let max = gpu
            .function(name)?
            .get_attribute(CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
            .map_err(|source| Error::Launch { kernel: name.to_string(), source })?;
        // Powers of two from 32 keep the tile a whole number of warps.
        let fits = 1u32 << (max.max(32) as u32).ilog2();
        block = block.min(fits);
    }
    Ok(block)
}

/// Sorts and copies the listed parts into the data buffer `data`, one block per entry
/// (`spare` is the scratch buffer the entries marked `from_scratch` are in).
fn run_finish<T: Element>(
    gpu: &Gpu,
    data: DevPtr<T>,
    spare: DevPtr<T>,
    finish: &[FinishEntry],
    direction: Direction,
    small: u64,
) -> Result<()> {
    if finish.is_empty() {
        return Ok(());
    }
    let entries: Vec<u64> = finish.iter().flat_map(|e| e.encode()).collect();
    let entries = gpu.upload(&entries)?;
    let cfg = blocks(finish.len() as u64, BLOCK, (small * size_of::<T>() as u64) as u32)?;
    let finish = Finish { buf: data, scratch: spare, entries: entries.dev_ptr(), direction };
    gpu.launch(<T as QuickKernels>::FINISH, cfg, &finish)
}

/// The depth limit's way out: merge-sorts every remaining segment with the `naive`
/// variant's passes (O(len log^2 len) work, but a bounded number of launches per
/// segment), ping-ponging between the two buffers on the segment's range; a result
/// left in the scratch buffer is listed for copying back.
#[allow(clippy::too_many_arguments)]
fn merge_fallback<T: Element>(
    gpu: &Gpu,
    data: DevPtr<T>,
    spare: DevPtr<T>,
    active: &[(u64, u64)],
    in_scratch: bool,
    block: u32,
    direction: Direction,
    small: u64,
    finish: &mut Vec<FinishEntry>,
) -> Result<()> {
    for &(start, len) in active {
        let (mut cur, mut other) = if in_scratch { (spare, data) } else { (data, spare) };
        let mut result_in_scratch = in_scratch;
        let cfg = one_thread_per_item(len, block, 0)?;
        for log_chunk in 0..naive::pass_count(len) {
            let pass = MergePass { src: cur.offset(start), dst: other.offset(start), n: len, log_chunk, direction };
            gpu.launch(<T as NaiveKernels>::MERGE_PASS, cfg, &pass)?;
            std::mem::swap(&mut cur, &mut other);
            result_in_scratch = !result_in_scratch;
        }
        if result_in_scratch {
            copy_back(start, len, small, |e| finish.push(e));
        }
    }
    Ok(())
}
