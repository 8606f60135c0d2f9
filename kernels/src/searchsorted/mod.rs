//! `searchsorted`: for each query, how many keys of a sorted array come before it,
//! comparing order bits ([`crate::key`]: floats in IEEE 754 total order). `Left`
//! counts the keys `< q` (the first index `i` with `sorted[i] >= q`), `Right` the
//! keys `<= q` ([`precedes`]).
//!
//! Sorted queries are a merge of the keys and the queries, so each key and each query
//! is read once:
//!
//! 1. `searchsorted_partition`: one warp per merge tile finds where diagonal
//!    [`diagonal`]`(t)` of the merge crosses the keys ([`split`]'s predicate, a 32-way
//!    search: [`crate::search::many_way_search`]), into `splits[t]`.
//! 2. `searchsorted_merge`: block `t` owns the keys `splits[t]..splits[t + 1]` and the
//!    queries between the same diagonals ([`TILE`] of both together). It loads its keys
//!    into shared memory, then its queries; each query's answer is the block's first
//!    key index plus a binary search among them.
//!
//! Unsorted queries, many of them: sorted with their positions (the radix pair sort),
//! then merged as above, the merge writing each answer at its query's position
//! ([`Merge::positions`]).
//!
//! Unsorted queries, few of them (`searchsorted_search`): a binary search per query. The top levels
//! of the search (every [`stride`]-th key, [`SAMPLE`] of them) sit in shared memory,
//! loaded once per block; the remaining `log2(stride)` steps read global memory.
//!
//! Indices are `u64`: arrays may pass 2^32 keys (torch returns int64 too).
use crate::key::Word;
use crate::params::{DevPtr, EntryLayout, Kernel};

/// Threads per block of the merge kernel: 512, two blocks per SM ([`LAUNCH_BOUNDS`]),
/// 8,192-element tiles (256 threads: 4,096, twice the splits to search, 84 us of the
/// 0.41 ms of 2^24 queries in 2^26 u32 keys, H100, 2026-11-27).
pub const MERGE_BLOCK: u32 = 512;
/// Merge elements (keys and queries together) per thread.
pub const MERGE_ITEMS: u32 = 16;
/// Blocks per SM of the merge kernel (a 64-register bound).
pub const MERGE_BLOCKS_PER_SM: u32 = 2;
/// Merge elements per block: at most this many keys sit in its shared memory.
pub const TILE: u32 = MERGE_BLOCK * MERGE_ITEMS;
/// Threads per block of the partition kernel (one warp per split).
pub const PARTITION_BLOCK: u32 = 256;
/// Threads per block of the unsorted search.
pub const SEARCH_BLOCK: u32 = 256;
/// Queries per thread of the unsorted search, searched in lockstep so that their
/// loads overlap ([`lockstep_count`]).
pub const SEARCH_ITEMS: usize = 8;
/// Keys of the top levels of the unsorted search (in shared memory).
pub const SAMPLE: u32 = 2048;

crate::params::kernel_params! {
    /// `searchsorted_partition`: `splits[t]` for `t` in `0..count` ([`split`]).
    pub struct Partition<K> {
        pub sorted: DevPtr<K>,
        pub n: u64,
        pub queries: DevPtr<K>,
        pub m: u64,
        /// The key order's masks ([`crate::key::BitOrder::masks`]).
        pub pos: K,
        pub neg: K,
        /// Nonzero for `Right` ([`precedes`]).
        pub right: u32,
        pub splits: DevPtr<u64>,
        pub count: u64,
    }
    /// Declares an entry taking [`Partition`].
    entries partition_entry;
}

crate::params::kernel_params! {
    /// `searchsorted_merge`: the answers of the sorted `queries[0..m]` (one merge tile per
    /// block, between `splits[t]` and `splits[t + 1]`) into `out`.
    pub struct Merge<K> {
        pub sorted: DevPtr<K>,
        pub n: u64,
        pub queries: DevPtr<K>,
        pub m: u64,
        pub pos: K,
        pub neg: K,
        pub right: u32,
        pub splits: DevPtr<u64>,
        pub out: DevPtr<u64>,
        /// Where each query's answer goes: `out[positions[i]]` for query `i` (the
        /// queries' places before they were sorted, so that unsorted queries are
        /// answered as sorted ones), or `out[i]` when null (address 0).
        pub positions: DevPtr<u32>,
    }
    /// Declares an entry taking [`Merge`].
    entries merge_entry;
}

crate::params::kernel_params! {
    /// `searchsorted_search`: the answers of the queries `queries[0..m]` in any order into
    /// `out` (grid-stride; `n >= 1`).
    pub struct Search<K> {
        pub sorted: DevPtr<K>,
        pub n: u64,
        pub queries: DevPtr<K>,
        pub m: u64,
        pub pos: K,
        pub neg: K,
        pub right: u32,
        pub out: DevPtr<u64>,
    }
    /// Declares an entry taking [`Search`].
    entries search_entry;
}

/// The searchsorted entries of one key word type.
pub trait SearchKernels: Word {
    const PARTITION: Kernel<Partition<Self>>;
    const MERGE: Kernel<Merge<Self>>;
    /// The merge tile with each thread's queries consecutive: one binary search for
    /// the first, then a galloping search from the answer before for each next one
    /// (`searchsorted_gallop`, same parameters and tiles as `searchsorted_merge`).
    const GALLOP: Kernel<Merge<Self>>;
    const SEARCH: Kernel<Search<Self>>;
}

macro_rules! search_entries {
    ($k:ty, $suffix:ident) => {
        paste::paste! {
            partition_entry!([<searchsorted_partition_ $suffix>] { K = $k } |p| device::partition::<$k>(p));
            merge_entry!([<searchsorted_merge_ $suffix>] { K = $k } |p| device::merge::<$k>(p));
            merge_entry!([<searchsorted_gallop_ $suffix>] { K = $k } |p| device::gallop::<$k>(p));
            search_entry!([<searchsorted_search_ $suffix>] { K = $k } |p| device::search::<$k>(p));
            impl SearchKernels for $k {
                const PARTITION: Kernel<Partition<$k>> = [<searchsorted_partition_ $suffix>];
                const MERGE: Kernel<Merge<$k>> = [<searchsorted_merge_ $suffix>];
                const GALLOP: Kernel<Merge<$k>> = [<searchsorted_gallop_ $suffix>];
                const SEARCH: Kernel<Search<$k>> = [<searchsorted_search_ $suffix>];
            }
        }
    };
}
search_entries!(u8, k8);
search_entries!(u16, k16);
search_entries!(u32, k32);
search_entries!(u64, k64);

/// Every searchsorted entry.
pub const KERNELS: &[EntryLayout] = &[
    <u8 as SearchKernels>::PARTITION.layout(),
    <u8 as SearchKernels>::MERGE.layout(),
    <u8 as SearchKernels>::GALLOP.layout(),
    <u8 as SearchKernels>::SEARCH.layout(),
    <u16 as SearchKernels>::PARTITION.layout(),
    <u16 as SearchKernels>::MERGE.layout(),
    <u16 as SearchKernels>::GALLOP.layout(),
    <u16 as SearchKernels>::SEARCH.layout(),
    <u32 as SearchKernels>::PARTITION.layout(),
    <u32 as SearchKernels>::MERGE.layout(),
    <u32 as SearchKernels>::GALLOP.layout(),
    <u32 as SearchKernels>::SEARCH.layout(),
    <u64 as SearchKernels>::PARTITION.layout(),
    <u64 as SearchKernels>::MERGE.layout(),
    <u64 as SearchKernels>::GALLOP.layout(),
    <u64 as SearchKernels>::SEARCH.layout(),
];

/// Launch bounds (see [`crate::LAUNCH_BOUNDS`]).
pub const LAUNCH_BOUNDS: &[(&str, u32, u32)] = &[
    (<u8 as SearchKernels>::MERGE.name(), MERGE_BLOCK, MERGE_BLOCKS_PER_SM),
    (<u8 as SearchKernels>::GALLOP.name(), MERGE_BLOCK, MERGE_BLOCKS_PER_SM),
    (<u16 as SearchKernels>::MERGE.name(), MERGE_BLOCK, MERGE_BLOCKS_PER_SM),
    (<u16 as SearchKernels>::GALLOP.name(), MERGE_BLOCK, MERGE_BLOCKS_PER_SM),
    (<u32 as SearchKernels>::MERGE.name(), MERGE_BLOCK, MERGE_BLOCKS_PER_SM),
    (<u32 as SearchKernels>::GALLOP.name(), MERGE_BLOCK, MERGE_BLOCKS_PER_SM),
    (<u64 as SearchKernels>::MERGE.name(), MERGE_BLOCK, MERGE_BLOCKS_PER_SM),
    (<u64 as SearchKernels>::GALLOP.name(), MERGE_BLOCK, MERGE_BLOCKS_PER_SM),
];

/// Whether a key with order bits `key` comes before a query with order bits `q`: it
/// is smaller (`Left`), or not larger (`right`, the `Right` side). The answer for `q`
/// is the number of keys that precede it.
#[inline(always)]
pub fn precedes<B: Ord>(key: B, q: B, right: bool) -> bool {
    key < q || (right && key == q)
}

/// Merge tiles of `n` keys and `m` queries.
pub const fn tiles(n: u64, m: u64) -> u64 {
    (n + m).div_ceil(TILE as u64)
}

/// Diagonal `t` of the merge of `n` keys and `m` queries: the merge position where tile
/// `t` starts (the end for `t = tiles(n, m)`).
pub const fn diagonal(t: u64, n: u64, m: u64) -> u64 {
    let d = t * TILE as u64;
    if d < n + m { d } else { n + m }
}

/// How many of the first `d` elements of the merge of the sorted keys `key(0..n)` and
/// the sorted queries `query(0..m)` are keys, where a key comes before a query when it
/// [`precedes`] it (and queries come before keys otherwise). The queries there are
/// `query(d - i..)` and each one's answer is `i` plus the keys of the tile before it.
/// Requires `d <= n + m`. The predicate of the search at `p` is
/// `precedes(key(p), query(d - 1 - p))`, monotone in `p` (true, then false).
pub fn split<B: Ord + Copy>(
    d: u64,
    n: u64,
    m: u64,
    right: bool,
    key: impl Fn(u64) -> B,
    query: impl Fn(u64) -> B,
) -> u64 {
    let (mut lo, mut hi) = split_range(d, n, m);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if precedes(key(mid), query(d - 1 - mid), right) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The range `[lo, hi]` of [`split`]`(d, ..)` before any probe:
/// `max(0, d - m) ..= min(d, n)`; probes are `< hi`.
#[inline(always)]
pub const fn split_range(d: u64, n: u64, m: u64) -> (u64, u64) {
    (d.saturating_sub(m), if d < n { d } else { n })
}

/// The keys and queries of merge tile `t` from its two splits `s0 = splits[t]`,
/// `s1 = splits[t + 1]`: `(first key, keys, first query, queries)`. Splits of unsorted
/// input may be out of order; the ranges are then clamped to the tile (the answers are
/// unspecified, but no access leaves the arrays).
#[inline(always)]
pub const fn tile_ranges(t: u64, n: u64, m: u64, s0: u64, s1: u64) -> (u64, u32, u64, u32) {
    let (d0, d1) = (diagonal(t, n, m), diagonal(t + 1, n, m));
    let keys = s1.saturating_sub(s0);
    let (q0, q1) = (d0 - s0, d1 - s1);
    let queries = q1.saturating_sub(q0);
    let cap = TILE as u64;
    let keys = if keys < cap { keys } else { cap };
    let queries = if queries < cap { queries } else { cap };
    (s0, keys as u32, q0, queries as u32)
}

/// The consecutive queries `[first, end)` of thread `tid` of a merge tile with `keys`
/// keys and `queries` queries: as many each as the tile needs, at most what shared
/// memory holds after the keys (`TILE - keys`; only unsorted input given as sorted
/// asks for more, and its answers are unspecified).
#[inline(always)]
pub const fn thread_queries(tid: u32, keys: u32, queries: u32) -> (u32, u32) {
    let room = TILE - if keys < TILE { keys } else { TILE };
    let queries = if queries < room { queries } else { room };
    let per = queries.div_ceil(MERGE_BLOCK);
    let first = tid * per;
    let first = if first < queries { first } else { queries };
    let end = first + per;
    (first, if end < queries { end } else { queries })
}

/// How many of the sorted values `at(0..len)` precede `q` ([`precedes`]), given that at
/// least `from` do: probes `from + 1 - 1`, `from + 2 - 1`, `from + 4 - 1`, ... until one
/// does not precede (or the end), then a binary search in the last gap.
#[inline(always)]
pub fn gallop_count<B: Ord + Copy>(from: u32, len: u32, q: B, right: bool, at: impl Fn(u32) -> B) -> u32 {
    let (mut base, mut step) = (from, 1u32);
    while step <= len - base && precedes(at(base + step - 1), q, right) {
        base += step;
        step *= 2;
    }
    // The answer is in `[base, min(base + step - 1, len)]`.
    let hi = if step - 1 < len - base { base + step - 1 } else { len };
    base + crate::search::count_before(hi - base, q, right, |i| at(base + i))
}

/// Distance between the keys of the top levels of the unsorted search over `n >= 1`
/// keys: sample `s` is key `s * stride`, for `s` below [`samples`]`(n)`.
pub const fn stride(n: u64) -> u64 {
    let s = n.div_ceil(SAMPLE as u64);
    if s == 0 { 1 } else { s }
}

/// Samples of the unsorted search over `n` keys (at most [`SAMPLE`]).
pub const fn samples(n: u64) -> u32 {
    n.div_ceil(stride(n)) as u32
}

/// The key range left for a query after the samples: `c` samples precede it (of
/// `samples(n)`), so the answer lies in `[lo, hi]`: after the last preceding sample
/// and at or before the first one that does not.
#[inline(always)]
pub const fn after_samples(c: u32, n: u64) -> (u64, u64) {
    let st = stride(n);
    let lo = if c == 0 { 0 } else { (c as u64 - 1) * st + 1 };
    let hi = if c < samples(n) { c as u64 * st } else { n };
    (lo, hi)
}

/// For each of `I` queries `q[k]`, how many of the sorted values `at(lo[k]..lo[k] +
/// len[k])` precede it ([`precedes`]), plus `lo[k]`: `I` binary searches that take
/// their steps together. Each step loads every search's probe first (a finished search
/// reads `at(0)`, which must exist), then compares: the loads of one step are in flight
/// together. (With a branch around each load the unsorted search of 2^24 queries in
/// 2^26 u32 took the same 5.1 ms, H100, 2026-11-27: ncu shows it bound by scattered
/// DRAM reads, 57% of the DRAM throughput, not by load latency.)
#[inline(always)]
pub fn lockstep_count<B: Ord + Copy, const I: usize>(
    mut lo: [u64; I],
    mut len: [u64; I],
    q: &[B; I],
    right: bool,
    at: impl Fn(u64) -> B,
) -> [u64; I] {
    loop {
        let mut any = false;
        let mut probe = [0u64; I];
        for k in 0..I {
            any |= len[k] > 0;
            probe[k] = if len[k] > 0 { lo[k] + len[k] / 2 } else { 0 };
        }
        if !any {
            return lo;
        }
        let v: [B; I] = core::array::from_fn(|k| at(probe[k]));
        for k in 0..I {
            if len[k] > 0 {
                let half = len[k] / 2;
                if precedes(v[k], q[k], right) {
                    lo[k] += half + 1;
                    len[k] -= half + 1;
                } else {
                    len[k] = half;
                }
            }
        }
    }
}

#[cfg(target_arch = "nvptx64")]
mod device;

#[cfg(test)]
mod tests;
