//! `searchsorted` on the device: for each query, the number of keys of a sorted buffer
//! that come before it (`kernels/src/searchsorted/` describes the kernels).
//!
//! Sorted queries ([`QueryOrder::Sorted`]): one partition launch (a warp per merge
//! tile of 8,192 keys and queries) and one merge launch; every key and query is read
//! once. Unsorted queries: one launch, a binary search per query whose top 11 levels
//! sit in shared memory. No wait for the device.
use cudarc::driver::LaunchConfig;
use kernels::params::DevPtr;
use kernels::searchsorted::{self as sk, Merge, Partition, Search, SearchKernels};

use super::launch::blocks;
use super::scratch::Scratch;
use crate::device::{DeviceBuffer, Gpu};
use crate::element::Key;
use crate::error::{Error, Result};

/// Which keys come before a query `q` in [`searchsorted`](crate::Sorter::searchsorted):
/// numpy's and torch's `side`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Side {
    /// The keys `< q`: the answer is the first index `i` with `sorted[i] >= q` (lower
    /// bound).
    #[default]
    Left,
    /// The keys `<= q`: the first index `i` with `sorted[i] > q` (upper bound).
    Right,
}

impl Side {
    /// For the kernels' `right` flag.
    pub(crate) fn is_right(self) -> bool {
        self == Side::Right
    }
}

/// What the caller knows about the order of the queries of a device search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QueryOrder {
    /// Ascending in the keys' order (as the sort leaves them): the search is a merge
    /// that reads each key once. Unsorted queries given as sorted get unspecified
    /// answers (no access leaves the buffers).
    Sorted,
    /// Any order: a binary search per query.
    Unsorted,
}

/// For each query, how many keys of `sorted` come before it ([`Side`]), in a new device
/// buffer of `u64` (arrays may pass 2^32 keys). `sorted` must be ascending by the order
/// the sort uses (floats in IEEE 754 total order: `-NaN` first, `-0.0` before `+0.0`,
/// `+NaN` last); otherwise the answers are unspecified. Queued on the device's stream;
/// nothing is read back.
pub fn searchsorted<K: Key>(
    gpu: &Gpu,
    sorted: &DeviceBuffer<K>,
    queries: &DeviceBuffer<K>,
    side: Side,
    order: QueryOrder,
) -> Result<DeviceBuffer<u64>> {
    let mut out = gpu.alloc::<u64>(queries.len())?;
    searchsorted_into(gpu, sorted, queries, side, order, &mut out)?;
    Ok(out)
}

/// [`searchsorted`] into a given buffer (at least one element per query), for callers
/// that reuse it.
pub fn searchsorted_into<K: Key>(
    gpu: &Gpu,
    sorted: &DeviceBuffer<K>,
    queries: &DeviceBuffer<K>,
    side: Side,
    order: QueryOrder,
    out: &mut DeviceBuffer<u64>,
) -> Result<()> {
    searchsorted_into_by(gpu, sorted, queries, side, order, SortedMerge::DEFAULT, out)
}

/// How a merge tile of sorted queries finds each query's keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortedMerge {
    /// A binary search among the tile's keys per query (`searchsorted_merge`).
    Binary,
    /// Consecutive queries per thread, a galloping search from the answer before
    /// (`searchsorted_gallop`).
    Gallop,
}

impl SortedMerge {
    /// The merge [`searchsorted`] uses for sorted queries.
    pub const DEFAULT: SortedMerge = SortedMerge::Binary;
}

/// [`searchsorted_into`] with sorted queries merged by `merge` (unsorted queries ignore
/// it), for comparing the merges.
pub fn searchsorted_into_by<K: Key>(
    gpu: &Gpu,
    sorted: &DeviceBuffer<K>,
    queries: &DeviceBuffer<K>,
    side: Side,
    order: QueryOrder,
    merge_by: SortedMerge,
    out: &mut DeviceBuffer<u64>,
) -> Result<()> {
    let (n, m) = (sorted.len() as u64, queries.len() as u64);
    if (out.len() as u64) < m {
        return Err(Error::BadArgument(format!("searchsorted of {m} queries into a buffer of {}", out.len())));
    }
    if m == 0 {
        return Ok(());
    }
    if n == 0 {
        return out.zero_prefix(gpu, m as usize);
    }
    let args = Args {
        sorted: sorted.ptr(),
        n,
        queries: queries.ptr(),
        m,
        right: side.is_right() as u32,
        out: out.ptr(),
        gallop: merge_by == SortedMerge::Gallop,
    };
    let masks = K::KEY_ORDER.masks(8 * size_of::<K>() as u32, false);
    // The kernels move a primitive key as the unsigned word of its width.
    match (size_of::<K>(), order) {
        (1, QueryOrder::Sorted) => merge::<u8>(gpu, &args, masks)?,
        (2, QueryOrder::Sorted) => merge::<u16>(gpu, &args, masks)?,
        (4, QueryOrder::Sorted) => merge::<u32>(gpu, &args, masks)?,
        (_, QueryOrder::Sorted) => merge::<u64>(gpu, &args, masks)?,
        (1, QueryOrder::Unsorted) => search::<u8>(gpu, &args, masks)?,
        (2, QueryOrder::Unsorted) => search::<u16>(gpu, &args, masks)?,
        (4, QueryOrder::Unsorted) => search::<u32>(gpu, &args, masks)?,
        (_, QueryOrder::Unsorted) => search::<u64>(gpu, &args, masks)?,
    }
    Ok(())
}

/// The addresses and lengths every searchsorted kernel takes.
struct Args {
    sorted: u64,
    n: u64,
    queries: u64,
    m: u64,
    right: u32,
    out: u64,
    /// Sorted queries by `searchsorted_gallop`.
    gallop: bool,
}

/// The sorted-query path: splits, then the merge tiles.
fn merge<W: SearchKernels>(gpu: &Gpu, a: &Args, (pos, neg): (u64, u64)) -> Result<()> {
    let (pos, neg) = (W::from_u64(pos), W::from_u64(neg));
    let tiles = sk::tiles(a.n, a.m);
    let count = tiles + 1;
    let scratch = Scratch::take(gpu, &[2 * count as usize])?;
    let splits: DevPtr<u64> = scratch.bufs[0].dev_ptr().cast();
    let (sorted, queries) = (DevPtr::from_addr(a.sorted), DevPtr::from_addr(a.queries));
    let p = Partition { sorted, n: a.n, queries, m: a.m, pos, neg, right: a.right, splits, count };
    let warps_per_block = (sk::PARTITION_BLOCK / kernels::block::WARP) as u64;
    gpu.launch(W::PARTITION, blocks(count.div_ceil(warps_per_block), sk::PARTITION_BLOCK, 0)?, &p)?;
    let p = Merge { sorted, n: a.n, queries, m: a.m, pos, neg, right: a.right, splits, out: DevPtr::from_addr(a.out) };
    let smem = sk::TILE * W::BYTES;
    let kernel = if a.gallop { W::GALLOP } else { W::MERGE };
    // 8-byte keys take 64 KiB, past the default limit.
    gpu.set_max_dynamic_smem(kernel.name(), smem)?;
    gpu.launch(kernel, blocks(tiles, sk::MERGE_BLOCK, smem)?, &p)?;
    drop(scratch);
    Ok(())
}

/// The unsorted-query path: enough blocks to fill the device, each loading the samples
/// once and taking chunks of queries grid-stride.
fn search<W: SearchKernels>(gpu: &Gpu, a: &Args, (pos, neg): (u64, u64)) -> Result<()> {
    let (pos, neg) = (W::from_u64(pos), W::from_u64(neg));
    let chunk = (sk::SEARCH_BLOCK as usize * sk::SEARCH_ITEMS) as u64;
    let fill = gpu.info().multiprocessors as u64 * 8;
    let cfg: LaunchConfig = blocks(a.m.div_ceil(chunk).min(fill), sk::SEARCH_BLOCK, sk::SAMPLE * W::BYTES)?;
    let p = Search {
        sorted: DevPtr::from_addr(a.sorted),
        n: a.n,
        queries: DevPtr::from_addr(a.queries),
        m: a.m,
        pos,
        neg,
        right: a.right,
        out: DevPtr::from_addr(a.out),
    };
    gpu.launch(W::SEARCH, cfg, &p)
}
