//! `searchsorted` on the device: for each query, the number of keys of a sorted buffer
//! that come before it (`kernels/src/searchsorted/` describes the kernels).
//!
//! Sorted queries ([`QueryOrder::Sorted`]): one partition launch (a warp per merge
//! tile of 8,192 keys and queries) and one merge launch; every key and query is read
//! once. Unsorted queries ([`UnsortedSearch`]): many of them are sorted with their
//! positions and merged as sorted queries, each answer written at its query's
//! position; few of them take one launch, a binary search per query whose top 11
//! levels sit in shared memory. No wait for the device.
use cudarc::driver::LaunchConfig;
use kernels::params::DevPtr;
use kernels::searchsorted::{self as sk, Merge, Partition, Search, SearchKernels};

use super::launch::{blocks, one_thread_per_item};
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
    searchsorted_into_by(gpu, sorted, queries, side, order, Strategy::DEFAULT, out)
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

/// How unsorted queries are answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnsortedSearch {
    /// A binary search per query (`searchsorted_search`): `log2(n)` dependent reads
    /// each, the top 11 levels from shared memory, the rest scattered over the keys.
    Binary,
    /// The queries copied and sorted with their positions (the radix pair sort), then
    /// merged as sorted queries, the merge writing each answer at its query's position
    /// (8-byte writes scattered over the output): every key read once, at the price of
    /// the sort. At most 2^32 - 1 queries (`u32` positions).
    SortMerge,
}

impl UnsortedSearch {
    /// The faster search of `m` unsorted queries in `n` keys of `key_bytes` bytes each:
    /// the binary search reads about `m * (log2(n) - 11)` scattered sectors (most of
    /// them from L2 while the keys fit there), the sort and merge about `n` keys plus
    /// a few passes over the queries, and several launches.
    pub fn for_sizes(n: u64, m: u64, key_bytes: u64) -> UnsortedSearch {
        if m >= SORT_MERGE_FROM
            && m.saturating_mul(SORT_MERGE_KEYS_PER_QUERY) >= n
            && n.saturating_mul(key_bytes) >= SORT_MERGE_KEY_BYTES
            && m <= u32::MAX as u64
        {
            UnsortedSearch::SortMerge
        } else {
            UnsortedSearch::Binary
        }
    }
}

/// Queries from which unsorted queries may be sorted and merged: below, the sort's
/// launches cost more than the binary searches (2^18 queries in 2^26 u32 keys: binary
/// 0.082 ms, sorted and merged 0.252 ms; H200, 2026-11-28).
const SORT_MERGE_FROM: u64 = 1 << 18;
/// Keys per query up to which unsorted queries are sorted and merged: past it, reading
/// every key costs more than the queries' scattered binary-search reads (2^26 u32 keys:
/// 2^22 queries binary 0.93 ms, sorted and merged 0.57 ms; 2^20 queries 0.26 and
/// 0.31 ms; H200, 2026-11-28).
const SORT_MERGE_KEYS_PER_QUERY: u64 = 32;
/// Key bytes from which unsorted queries may be sorted and merged: keys that fit in L2
/// (50 MB on an H100 or H200) serve the binary search's reads from there (2^18 queries
/// in 2^20 u32 keys: binary 0.035 ms, sorted and merged 0.091 ms; H200, 2026-11-28).
const SORT_MERGE_KEY_BYTES: u64 = 64 << 20;

/// How [`searchsorted_into_by`] answers the queries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Strategy {
    /// The merge of sorted queries (and of unsorted ones once sorted).
    pub merge: SortedMerge,
    /// The search of unsorted queries; `None`: [`UnsortedSearch::for_sizes`].
    pub unsorted: Option<UnsortedSearch>,
}

impl Strategy {
    /// The strategy [`searchsorted`] uses.
    pub const DEFAULT: Strategy = Strategy { merge: SortedMerge::DEFAULT, unsorted: None };
}

/// [`searchsorted_into`] by a given [`Strategy`], for comparing the merges and the
/// unsorted searches.
pub fn searchsorted_into_by<K: Key>(
    gpu: &Gpu,
    sorted: &DeviceBuffer<K>,
    queries: &DeviceBuffer<K>,
    side: Side,
    order: QueryOrder,
    strategy: Strategy,
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
        gallop: strategy.merge == SortedMerge::Gallop,
        positions: 0,
    };
    let unsorted = strategy.unsorted.unwrap_or_else(|| UnsortedSearch::for_sizes(n, m, size_of::<K>() as u64));
    match (order, unsorted) {
        (QueryOrder::Sorted, _) => merge_by_width::<K>(gpu, &args),
        (QueryOrder::Unsorted, UnsortedSearch::SortMerge) => sort_merge(gpu, queries, &args),
        (QueryOrder::Unsorted, UnsortedSearch::Binary) => {
            let masks = K::KEY_ORDER.masks(8 * size_of::<K>() as u32, false);
            // The kernels move a primitive key as the unsigned word of its width.
            match size_of::<K>() {
                1 => search::<u8>(gpu, &args, masks),
                2 => search::<u16>(gpu, &args, masks),
                4 => search::<u32>(gpu, &args, masks),
                _ => search::<u64>(gpu, &args, masks),
            }
        }
    }
}

/// The merge of `a`'s sorted queries, by the kernels of `K`'s width.
fn merge_by_width<K: Key>(gpu: &Gpu, a: &Args) -> Result<()> {
    let masks = K::KEY_ORDER.masks(8 * size_of::<K>() as u32, false);
    match size_of::<K>() {
        1 => merge::<u8>(gpu, a, masks),
        2 => merge::<u16>(gpu, a, masks),
        4 => merge::<u32>(gpu, a, masks),
        _ => merge::<u64>(gpu, a, masks),
    }
}

/// [`UnsortedSearch::SortMerge`]: a copy of the queries sorted with their positions
/// (by the same key order as the keys, so the merge sees them ascending), merged, each
/// answer written at its position (a second pair sort of the answers by position
/// instead took longer: docs/history.md).
fn sort_merge<K: Key>(gpu: &Gpu, queries: &DeviceBuffer<K>, a: &Args) -> Result<()> {
    let m = queries.len();
    Error::check_u32_indices("searchsorted by sorted queries", m)?;
    let mut keys = gpu.alloc::<K>(m)?;
    keys.copy_from_device(gpu, queries)?;
    let mut positions = gpu.alloc::<u32>(m)?;
    let iota = kernels::records::Iota { idx: positions.dev_ptr(), n: m as u64 };
    gpu.launch(kernels::records::iota_u32, one_thread_per_item(m as u64, 256, 0)?, &iota)?;
    super::radix::sort_pairs(gpu, &mut keys, &mut positions, crate::Order::Ascending, None)?;
    merge_by_width::<K>(gpu, &Args { queries: keys.ptr(), positions: positions.ptr(), ..*a })
}

/// The addresses and lengths every searchsorted kernel takes.
#[derive(Clone, Copy)]
struct Args {
    sorted: u64,
    n: u64,
    queries: u64,
    m: u64,
    right: u32,
    out: u64,
    /// Sorted queries by `searchsorted_gallop`.
    gallop: bool,
    /// Each query's place in `out` ([`kernels::searchsorted::Merge::positions`]; 0:
    /// its own).
    positions: u64,
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
    let p = Merge {
        sorted,
        n: a.n,
        queries,
        m: a.m,
        pos,
        neg,
        right: a.right,
        splits,
        out: DevPtr::from_addr(a.out),
        positions: DevPtr::from_addr(a.positions),
    };
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
