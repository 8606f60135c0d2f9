//! `topk`: the first `k` keys of the stable sort (with their input indices) without
//! sorting the other `n - k`. Three paths, chosen on the host by [`plan`]:
//!
//! **Sampled** (`k <= FAST_K_MAX`, large `n`): one read of the input.
//!
//! 1. `topk_gather` (many blocks) reads the order bits of [`SamplePlan::samples`] keys
//!    at even strides ([`sample_position`]); `topk_sample` (one block) finds the
//!    [`SamplePlan::rank`]-th smallest by a radix select in shared memory: the
//!    *threshold*. The rank is chosen so that, for
//!    keys in random order, at least `k` and at most [`SamplePlan::cap`] keys lie at or
//!    below it except with odds below [`FAIL_ODDS`] ([`sample_plan`]).
//! 2. `topk_filter` (a full grid, 16-byte loads): writes `(key, index)` of every key at
//!    or below the threshold to the candidate buffer, in any order (one atomic add per
//!    warp that has candidates), and counts them all, also those past the buffer.
//! 3. `topk_finish` (one block): if `k <= count <= cap`, the candidates hold the answer.
//!    It narrows them by a radix select on the *composite* key `(order bits, index)`
//!    (unique, so ties resolve to the lowest index and the select always ends; digits
//!    from the threshold's top bit down, [`Narrow`]) until at most [`SORT_MAX`] remain,
//!    gathers those into shared memory, sorts them by a bitonic network and writes the
//!    first `k`: exactly `argsort(keys)[..k]`. Then it marks the work finished.
//! 4. Otherwise (a sample fooled by the input's order, or many keys equal to the
//!    threshold) the exact path below runs, queued behind it anyway: its kernels see the
//!    finished mark and return at once when not needed, so the host never waits. Its
//!    candidates (at most `cap`) are narrowed and written by `topk_finish` again.
//!
//! **Direct** (`k <= FAST_K_MAX`, `n <= DIRECT_MAX`): `topk_finish` alone, on the input
//! itself (indices are positions): one launch.
//!
//! **Exact** (larger `k`; also the fallback of the sampled path), the passes over `n`
//! keys of `W` bits (32 or 64):
//!
//! 1. `topk_hist` + `topk_select`, once per digit of [`DIGIT_BITS`] bits from the most
//!    significant end (at most [`passes`]`(W)` times): the histogram counts the next
//!    digit of the keys whose higher digits equal the *prefix* chosen so far
//!    (shared-memory counters, several loads in flight, grid-stride); one block then
//!    finds the digit bucket holding the `k`-th key ([`State::step`]). Once the keys
//!    before the bucket plus the bucket itself fit the candidate buffer, or every bit
//!    is decided, the state says *done* and the remaining launches return at once, so
//!    the host queues them all without waiting.
//! 2. `topk_compact`: one read of the keys writes `(key, index)` of every *candidate*
//!    in index order: all keys whose decided bits are below the prefix ("before",
//!    fewer than `k`), and the first [`State::quota`] keys equal to it ("boundary").
//!    Each block takes a tile id from an atomic counter, ranks its candidates in the
//!    tile, and finds the counts of all earlier tiles by a decoupled look-back over
//!    one 64-bit status word per tile ([`status`]).
//! 3. The host sorts the candidates by the stable radix sort of pairs and keeps `k`
//!    (after one read of the candidate count); as the sampled path's fallback,
//!    `topk_finish` does it on the device instead. Candidates are in index order, so
//!    ties stay in index order: exactly `argsort(keys)[..k]`.
//!
//! Why a quota and not "every boundary key": when all bits are decided the boundary
//! keys all equal the `k`-th key, and the answer needs only the lowest-indexed
//! `k - before` of them, however many there are (all-equal input: `n`). When bits
//! remain, the boundary bucket fits the buffer (that is why selecting stopped) and
//! all of it is kept.
//!
//! The entries are per key *word* ([`TopkKernels`]): `u32` for 32-bit keys, `u64` for
//! 64-bit keys (a primitive key's [`SortKey::Bits`](crate::SortKey::Bits)); the select
//! kernel ([`SELECT`]) reads only the control block. Every entry starts with the wait
//! for the previous grid (`gpu::grid_dependency_wait`), so on Hopper each is launched
//! as a programmatic dependent and the ones that return at once cost little.
use crate::key::Word;
use crate::params::{DevPtr, EntryLayout, Kernel};

crate::params::kernel_params! {
    /// `topk_hist`: counts the digit of select pass `pass` of every key of `keys` whose
    /// decided bits equal the prefix, into that pass's histogram in `ctrl`
    /// (grid-stride); returns at once once selecting is done.
    pub struct Hist<K> {
        pub keys: DevPtr<K>,
        pub n: u64,
        /// The key order's masks ([`crate::key::BitOrder::masks`]).
        pub pos: K,
        pub neg: K,
        pub pass: u32,
        /// The control block ([`ctrl`]).
        pub ctrl: DevPtr<u64>,
    }
    /// Declares an entry taking [`Hist`].
    entries hist_entry;
}

crate::params::kernel_params! {
    /// `topk_select` (one block): finds the bucket of pass `pass` that holds the `k`-th
    /// key of `width`-bit keys and advances the state in `ctrl` ([`State::step`]).
    pub struct Select {
        pub ctrl: DevPtr<u64>,
        pub pass: u32,
        pub width: u32,
        pub k: u64,
        /// The candidate buffer's capacity ([`capacity`]).
        pub cap: u64,
    }
    /// Declares an entry taking [`Select`].
    entries select_entry;
}

crate::params::kernel_params! {
    /// `topk_compact`: writes `(key, index)` of every candidate of `keys` to
    /// `out_keys`/`out_idx` in index order, one tile per block (tiles taken from the
    /// counter in `ctrl`, earlier tiles' counts by a look-back over `status`).
    pub struct Compact<K> {
        pub keys: DevPtr<K>,
        pub n: u64,
        pub pos: K,
        pub neg: K,
        pub ctrl: DevPtr<u64>,
        /// One status word per tile ([`status`]), zeroed.
        pub status: DevPtr<u64>,
        pub out_keys: DevPtr<K>,
        pub out_idx: DevPtr<u32>,
    }
    /// Declares an entry taking [`Compact`].
    entries compact_entry;
}

crate::params::kernel_params! {
    /// `topk_gather`: the order bits of the `samples` keys of `keys` at
    /// [`sample_position`]s, to `ords` (one sample per thread, many blocks: one block
    /// alone waits out the latency of 16,384 scattered loads, ~25 us on an H100).
    pub struct Gather<K> {
        pub keys: DevPtr<K>,
        pub n: u64,
        pub pos: K,
        pub neg: K,
        pub samples: u32,
        pub ords: DevPtr<u64>,
    }
    /// Declares an entry taking [`Gather`].
    entries gather_entry;
}

crate::params::kernel_params! {
    /// `topk_sample` (one block of [`SAMPLE_BLOCK`] threads): of the `samples` order
    /// bits in `ords` (`width`-bit keys), the `rank`-th smallest (1-based) as the
    /// threshold, written to `ctrl`, whose other words up to [`ctrl::HIST`] it zeroes
    /// (the sampled path needs no memset: `topk_filter` zeroes the rest).
    pub struct Sample {
        pub ords: DevPtr<u64>,
        pub samples: u32,
        pub rank: u32,
        pub width: u32,
        pub ctrl: DevPtr<u64>,
    }
    /// Declares an entry taking [`Sample`].
    entries sample_entry;
}

crate::params::kernel_params! {
    /// `topk_filter`: writes `(key, index)` of every key of `keys` whose order bits are
    /// at most the threshold in `ctrl` to `out_keys`/`out_idx` (the first `cap` of them,
    /// in any order) and counts them all in `ctrl` (grid-stride, 16-byte loads; `keys`
    /// 16-byte aligned). `topk_sample` zeroed the count.
    pub struct Filter<K> {
        pub keys: DevPtr<K>,
        pub n: u64,
        pub pos: K,
        pub neg: K,
        pub ctrl: DevPtr<u64>,
        pub cap: u64,
        pub out_keys: DevPtr<K>,
        pub out_idx: DevPtr<u32>,
        /// The exact fallback's tile status words (`tiles` of them), which it zeroes
        /// along with the fallback's histograms in `ctrl`.
        pub status: DevPtr<u64>,
        pub tiles: u64,
    }
    /// Declares an entry taking [`Filter`].
    entries filter_entry;
}

crate::params::kernel_params! {
    /// `topk_finish` (one block of [`FINISH_BLOCK`] threads): the first `k` (at most
    /// [`FAST_K_MAX`]) of the candidates `keys`/`idx` by `(order bits, index)`, written
    /// to `out_keys`/`out_idx` in order. `stage` says which candidates ([`finish`]).
    pub struct Finish<K> {
        pub keys: DevPtr<K>,
        /// Input index of each candidate; null: the candidates are the input itself.
        pub idx: DevPtr<u32>,
        /// [`finish::ALL`]: the number of candidates; otherwise the buffer's capacity.
        pub len: u64,
        pub stage: u32,
        pub k: u64,
        pub pos: K,
        pub neg: K,
        pub ctrl: DevPtr<u64>,
        pub out_keys: DevPtr<K>,
        pub out_idx: DevPtr<u32>,
    }
    /// Declares an entry taking [`Finish`].
    entries finish_entry;
}

crate::params::kernel_params! {
    /// `topk_rows` (a block of [`FINISH_BLOCK`] threads per row): `topk_finish` on
    /// each row of the row-major `rows` x `cols` matrix `keys`, block `r` writing the
    /// first `k` (at most [`FAST_K_MAX`]) of row `r` by `(order bits, column)` to row
    /// `r` of the `rows` x `k` outputs, with column indices (`torch.topk(dim=-1)`).
    pub struct FinishRows<K> {
        pub keys: DevPtr<K>,
        pub cols: u64,
        pub k: u64,
        pub pos: K,
        pub neg: K,
        /// Float keys in NaN-last order: the `+inf` bits of their format (keys ranked
        /// by their canonical bits, [`crate::nan::nan_mapped`], and written with their
        /// own); 0: total order.
        pub nan_inf: K,
        pub out_keys: DevPtr<K>,
        pub out_idx: DevPtr<u32>,
    }
    /// Declares an entry taking [`FinishRows`].
    entries finish_rows_entry;
}

/// The stages of `topk_finish`.
pub mod finish {
    /// After `topk_filter`: the candidates are valid if their count (all keys at or
    /// below the threshold) is at least `k` and at most the buffer; then the kernel
    /// writes the answer and marks the work finished ([`super::ctrl::FINISHED`]).
    pub const FAST: u32 = 0;
    /// After the exact path's compaction: returns at once if the work is finished,
    /// else narrows the `OUT` candidates the compaction wrote.
    pub const EXACT: u32 = 1;
    /// The whole input (`len` keys, indices are positions; `ctrl` unused).
    pub const ALL: u32 = 2;
}

select_entry!(topk_select {} | p | device::select(p));
sample_entry!(topk_sample {} | p | device::sample(p));

/// The one-block select kernel (the same for every key width).
pub const SELECT: Kernel<Select> = topk_select;
/// The one-block sample select kernel (the same for every key width).
pub const SAMPLE: Kernel<Sample> = topk_sample;

/// The top-k entries for keys of one word type.
pub trait TopkKernels: Word {
    const HIST: Kernel<Hist<Self>>;
    const COMPACT: Kernel<Compact<Self>>;
    const GATHER: Kernel<Gather<Self>>;
    const FILTER: Kernel<Filter<Self>>;
    const FINISH: Kernel<Finish<Self>>;
    const FINISH_ROWS: Kernel<FinishRows<Self>>;
}

macro_rules! topk_entries {
    ($k:ty, $suffix:ident) => {
        paste::paste! {
            hist_entry!([<topk_hist_ $suffix>] { K = $k } |p| device::histogram::<$k>(p));
            compact_entry!([<topk_compact_ $suffix>] { K = $k } |p| device::compact::<$k, COMPACT_ITEMS>(p));
            gather_entry!([<topk_gather_ $suffix>] { K = $k } |p| device::gather::<$k>(p));
            filter_entry!([<topk_filter_ $suffix>] { K = $k } |p| device::filter::<$k>(p));
            finish_entry!([<topk_finish_ $suffix>] { K = $k } |p| device::finish::<$k>(p));
            finish_rows_entry!([<topk_rows_ $suffix>] { K = $k } |p| device::finish_rows::<$k>(p));
            impl TopkKernels for $k {
                const HIST: Kernel<Hist<$k>> = [<topk_hist_ $suffix>];
                const COMPACT: Kernel<Compact<$k>> = [<topk_compact_ $suffix>];
                const GATHER: Kernel<Gather<$k>> = [<topk_gather_ $suffix>];
                const FILTER: Kernel<Filter<$k>> = [<topk_filter_ $suffix>];
                const FINISH: Kernel<Finish<$k>> = [<topk_finish_ $suffix>];
                const FINISH_ROWS: Kernel<FinishRows<$k>> = [<topk_rows_ $suffix>];
            }
        }
    };
}
topk_entries!(u32, k32);
topk_entries!(u64, k64);

/// Every top-k entry.
pub const KERNELS: &[EntryLayout] = &[
    SELECT.layout(),
    <u32 as TopkKernels>::HIST.layout(),
    <u32 as TopkKernels>::COMPACT.layout(),
    <u64 as TopkKernels>::HIST.layout(),
    <u64 as TopkKernels>::COMPACT.layout(),
    SAMPLE.layout(),
    <u32 as TopkKernels>::GATHER.layout(),
    <u32 as TopkKernels>::FILTER.layout(),
    <u32 as TopkKernels>::FINISH.layout(),
    <u64 as TopkKernels>::GATHER.layout(),
    <u64 as TopkKernels>::FILTER.layout(),
    <u64 as TopkKernels>::FINISH.layout(),
    <u32 as TopkKernels>::FINISH_ROWS.layout(),
    <u64 as TopkKernels>::FINISH_ROWS.layout(),
];

/// Bits per select digit: 2,048 shared counters (8 KiB) per histogram block; 2^26
/// uniform keys leave ~32,768 candidates after one pass.
pub const DIGIT_BITS: u32 = 11;
pub const DIGITS: u32 = 1 << DIGIT_BITS;
/// Threads per block and keys each thread loads per step, of the histogram kernel.
pub const HIST_BLOCK: u32 = 512;
pub const HIST_ITEMS: usize = 8;
/// Shared memory of the histogram kernel: its counters.
pub const HIST_SMEM: u32 = 4 * DIGITS;
/// Threads of the one-block select kernel (each owns `DIGITS / SELECT_BLOCK` buckets).
pub const SELECT_BLOCK: u32 = 1024;
pub const SELECT_BUCKETS: u32 = DIGITS / SELECT_BLOCK;
/// Threads per block and keys per thread of the compaction kernel.
pub const COMPACT_BLOCK: u32 = 512;
pub const COMPACT_ITEMS: usize = 16;
pub const COMPACT_TILE: u32 = COMPACT_BLOCK * COMPACT_ITEMS as u32;
/// Shared memory of the compaction kernel: tile id, look-back result, block scan.
pub const COMPACT_SMEM: u32 = 16 + crate::block::scan::SCAN_SMEM;
/// Largest number of select passes (64-bit keys).
pub const MAX_PASSES: u32 = 6;
/// Smallest candidate buffer: selecting stops as soon as the candidates fit it, and
/// sorting this many pairs costs little next to one read of a large input.
pub const MIN_CAP: u64 = 1 << 16;

/// Launch bounds (see [`crate::LAUNCH_BOUNDS`]): two blocks per SM, so that enough
/// loads are in flight to keep the memory busy (at most 64 registers per thread).
pub const LAUNCH_BOUNDS: &[(&str, u32, u32)] = &[
    (<u32 as TopkKernels>::HIST.name(), HIST_BLOCK, 2),
    (<u64 as TopkKernels>::HIST.name(), HIST_BLOCK, 2),
    (<u32 as TopkKernels>::COMPACT.name(), COMPACT_BLOCK, 2),
    // Unbounded it takes 71 registers (one block per SM); bounded it spills 8 bytes
    // and is faster: 2^26 u64, k = 100: 0.72 -> 0.62 ms (H100, 2026-11-23; docs/history.md, "top-k").
    (<u64 as TopkKernels>::COMPACT.name(), COMPACT_BLOCK, 2),
    // The filter: two blocks per SM of the grid-stride loop keep 64 KiB of loads in
    // flight per SM. The one-block kernels need at most 64 registers for 1,024 threads.
    (<u32 as TopkKernels>::FILTER.name(), FILTER_BLOCK, FILTER_BLOCKS_PER_SM),
    (<u64 as TopkKernels>::FILTER.name(), FILTER_BLOCK, FILTER_BLOCKS_PER_SM),
    (SAMPLE.name(), SAMPLE_BLOCK, 1),
    (<u32 as TopkKernels>::FINISH.name(), FINISH_BLOCK, 1),
    (<u64 as TopkKernels>::FINISH.name(), FINISH_BLOCK, 1),
    (<u32 as TopkKernels>::FINISH_ROWS.name(), FINISH_BLOCK, 1),
    (<u64 as TopkKernels>::FINISH_ROWS.name(), FINISH_BLOCK, 1),
];

/// Blocks per SM of the filter's grid (its launch bound).
pub const FILTER_BLOCKS_PER_SM: u32 = 2;

/// Select passes for `width`-bit keys.
pub const fn passes(width: u32) -> u32 {
    width.div_ceil(DIGIT_BITS)
}

/// `(shift, bits)` of select pass `p`: its digit is `(order_bits >> shift) & (2^bits - 1)`,
/// and the bits above `shift + bits` are the prefix decided by earlier passes.
pub const fn pass_digit(width: u32, p: u32) -> (u32, u32) {
    let used = p * DIGIT_BITS;
    let bits = if width - used < DIGIT_BITS { width - used } else { DIGIT_BITS };
    (width - used - bits, bits)
}

/// The candidate buffer for the first `k` (`1 <= k <= n`) of `n` keys, or `None`
/// when selecting would not pay (a buffer that is a large share of the input): then
/// every key is a candidate and the whole input is sorted.
pub const fn capacity(n: u64, k: u64) -> Option<u64> {
    let cap = if 2 * k > MIN_CAP { 2 * k } else { MIN_CAP };
    if cap < n / 4 { Some(cap) } else { None }
}

/// Threads of the one-block sample kernel, and keys each samples (in registers).
pub const SAMPLE_BLOCK: u32 = 1024;
pub const SAMPLE_ITEMS: usize = 16;
/// Most keys sampled.
pub const SAMPLE_MAX: u64 = SAMPLE_BLOCK as u64 * SAMPLE_ITEMS as u64;
/// Threads per block of the gather kernel (one sample each).
pub const GATHER_BLOCK: u32 = 256;
/// Threads per block of the filter, and 16-byte vectors each loads per step (all
/// issued before any is tested).
pub const FILTER_BLOCK: u32 = 512;
pub const FILTER_ITEMS: usize = 4;
/// Threads of the one-block finish kernel.
pub const FINISH_BLOCK: u32 = 1024;
/// Most candidates `topk_finish` sorts in shared memory: it narrows the rest away.
pub const SORT_MAX: u32 = 4096;
/// Largest `k` of the sampled and direct paths (the sorted `k` must fit [`SORT_MAX`]
/// with room for the keys beside the `k`-th in its last digit bucket).
pub const FAST_K_MAX: u64 = 2048;
/// Largest input that `topk_finish` narrows directly (one block reading every key a
/// few times costs less than three launches and one read by the whole GPU).
pub const DIRECT_MAX: u64 = 1 << 16;
/// Shared memory of `topk_finish`: the select's counters, later the sorted
/// `(order bits, index)` pairs (`u64` + `u32` each); then the block scan's and the
/// select's words.
pub const FINISH_SORT_BYTES: u32 = SORT_MAX * 12;
pub const FINISH_SMEM: u32 = FINISH_SORT_BYTES + crate::block::scan::SCAN_SMEM + 16;
/// Shared memory of `topk_sample`: the select's counters, the scan, the select's words.
pub const SAMPLE_SMEM: u32 = 4 * DIGITS + crate::block::scan::SCAN_SMEM + 16;
/// The odds, for keys in random order, that the sampled threshold has fewer than `k`
/// or more than the candidate buffer at or below it (then the exact path runs).
pub const FAIL_ODDS: f64 = 1e-9;

/// Which path a top-k of `k` (`1 <= k <= n`) of `n` keys takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    /// `topk_finish` on the input.
    Direct,
    /// Sample, filter, finish; the exact path queued behind as the fallback.
    Sampled(SamplePlan),
    /// The radix select, compaction and a radix sort of the candidates.
    Exact,
}

/// The sampled path's sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SamplePlan {
    /// Keys sampled.
    pub samples: u32,
    /// The threshold is the `rank`-th smallest sample (1-based).
    pub rank: u32,
    /// The candidate buffer (also the exact fallback's).
    pub cap: u64,
}

/// The path for the first `k` (`1 <= k <= n`) of `n` keys; `aligned`: the keys start
/// on a 16-byte boundary (the filter's vector loads need it).
pub fn plan(n: u64, k: u64, aligned: bool) -> Path {
    if k > FAST_K_MAX {
        return Path::Exact;
    }
    if n <= DIRECT_MAX {
        return Path::Direct;
    }
    match sample_plan(n, k) {
        Some(p) if aligned => Path::Sampled(p),
        _ => Path::Exact,
    }
}

/// Sample size, rank and buffer for the first `k` of `n` keys, or `None` when no
/// buffer below `n / 8` holds the candidates with odds [`FAIL_ODDS`]. Model: keys in
/// random order, so the samples below a key of global rank `r` are about
/// Poisson(`r * s / n`) for `s` samples. A threshold below the `k`-th key needs `rank`
/// samples below that key: the rank is the least `m` whose odds of that,
/// [`poisson_at_least`]`(k * s / n, m)`, are below [`FAIL_ODDS`]. More than `cap` keys
/// at or below the threshold need fewer than `m` samples below the `cap`-th key: the
/// buffer holds `mu * n / s` keys for the least `mu` with [`poisson_below`]`(mu, m)`
/// below the odds.
pub fn sample_plan(n: u64, k: u64) -> Option<SamplePlan> {
    let s = if n < SAMPLE_MAX { n } else { SAMPLE_MAX };
    let lambda = k as f64 * s as f64 / n as f64;
    let mut m = 1u64;
    while poisson_at_least(lambda, m) > FAIL_ODDS {
        m += 1;
        if m > s {
            return None;
        }
    }
    let mut mu = m;
    while poisson_below(mu as f64, m) > FAIL_ODDS {
        mu += 1;
        if mu > POISSON_MAX {
            return None;
        }
    }
    let cap = (mu * n).div_ceil(s).max(2 * k);
    if cap > n / 8 {
        return None;
    }
    Some(SamplePlan { samples: s as u32, rank: m as u32, cap })
}

/// Largest Poisson mean the bounds below take (`e^-mu` stays a normal `f64`).
const POISSON_MAX: u64 = 700;

/// `e^-floor(x)` (at least `e^-x`), by multiplication: `core` has no `exp`.
fn exp_neg_floor(x: f64) -> f64 {
    let mut r = 1.0;
    let mut i = 0.0;
    while i + 1.0 <= x {
        r *= core::f64::consts::E.recip();
        i += 1.0;
    }
    r
}

/// An upper bound of P(X >= m) for X ~ Poisson(`lambda`): the first term
/// `e^-lambda lambda^m / m!` over `1 - lambda / (m + 1)` (each later term is at most
/// that ratio times the one before); 1 when `lambda >= m + 1`.
pub fn poisson_at_least(lambda: f64, m: u64) -> f64 {
    if lambda >= (m + 1) as f64 || lambda > POISSON_MAX as f64 {
        return 1.0;
    }
    let mut term = exp_neg_floor(lambda);
    for i in 1..=m {
        term *= lambda / i as f64;
    }
    term / (1.0 - lambda / (m + 1) as f64)
}

/// An upper bound of P(Y < m) for Y ~ Poisson(`mu`): the sum of its terms, with
/// `e^-floor(mu)` for `e^-mu`.
pub fn poisson_below(mu: f64, m: u64) -> f64 {
    let mut term = exp_neg_floor(mu);
    let mut sum = 0.0;
    for i in 0..m {
        if i > 0 {
            term *= mu / i as f64;
        }
        sum += term;
    }
    sum
}

/// Position of sample `i` of `samples` (`samples <= n`) in `n` keys: even strides,
/// distinct positions.
#[inline(always)]
pub const fn sample_position(i: u32, samples: u32, n: u64) -> u64 {
    (i as u64 * n) / samples as u64
}

/// The composite key of `topk_finish`: a candidate's order bits (`width` bits) above
/// its 32-bit input index. Unique per key, and ordered as the stable sort orders keys.
#[inline(always)]
pub const fn composite(ord: u64, idx: u32) -> u128 {
    (ord as u128) << 32 | idx as u128
}

/// `topk_finish`'s select over composite keys of `total` bits, of which the top `used`
/// are decided: the candidates kept so far are those whose decided bits are below
/// `prefix` (`before` of them, all among the first `k`) or equal to it (`matching`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Narrow {
    pub total: u32,
    pub used: u32,
    pub prefix: u128,
    pub before: u64,
    pub matching: u64,
}

impl Narrow {
    /// Candidates of `total`-bit composite keys, all below `2^top` (`top <= total`),
    /// `count` of them.
    pub const fn new(total: u32, top: u32, count: u64) -> Narrow {
        Narrow { total, used: total - top, prefix: 0, before: 0, matching: count }
    }

    /// Whether the kept candidates fit the shared-memory sort.
    pub const fn fits(&self) -> bool {
        self.before + self.matching <= SORT_MAX as u64
    }

    /// `(shift, bits)` of the next digit: up to [`DIGIT_BITS`] bits below the decided ones.
    pub const fn next_digit(&self) -> (u32, u32) {
        let left = self.total - self.used;
        let bits = if left < DIGIT_BITS { left } else { DIGIT_BITS };
        (left - bits, bits)
    }

    /// Whether composite `c` has the decided prefix (counted by the next pass).
    #[inline(always)]
    pub fn matches(&self, c: u128) -> bool {
        self.used == 0 || c >> (self.total - self.used) == self.prefix
    }

    /// Whether composite `c` is kept: its decided bits are at most the prefix.
    #[inline(always)]
    pub fn keeps(&self, c: u128) -> bool {
        self.used == 0 || c >> (self.total - self.used) <= self.prefix
    }

    /// After a pass over the next digit found the `k`-th candidate (1-based, of all)
    /// in bucket `d` of `count` keys, with `below` matching keys in smaller buckets.
    pub const fn step(self, d: u32, below: u64, count: u64) -> Narrow {
        let (_, bits) = self.next_digit();
        Narrow {
            total: self.total,
            used: self.used + bits,
            prefix: self.prefix << bits | d as u128,
            before: self.before + below,
            matching: count,
        }
    }
}

/// Bits of the order bits of `t` that can be set (its bit length): every key at or
/// below it has no higher bit set.
pub const fn bit_length(t: u64) -> u32 {
    64 - t.leading_zeros()
}

/// The control block in device memory, in `u64` words: the select state, then the
/// histograms of every pass (`u32`). Zeroed before each top-k.
pub mod ctrl {
    use super::{DIGITS, MAX_PASSES};
    /// Nonzero once selecting is done.
    pub const DONE: u32 = 0;
    /// Order bits decided so far (from the top).
    pub const USED: u32 = 1;
    /// Their value.
    pub const PREFIX: u32 = 2;
    /// Keys whose decided bits are below the prefix.
    pub const BEFORE: u32 = 3;
    /// Keys whose decided bits equal the prefix.
    pub const EQUAL: u32 = 4;
    /// How many of those are candidates (the lowest-indexed ones).
    pub const QUOTA: u32 = 5;
    /// Candidates the compaction writes: `BEFORE + min(EQUAL, QUOTA)`.
    pub const OUT: u32 = 6;
    /// `u32` word (from the start of the block) of the compaction's tile counter.
    pub const TILE_COUNTER: u32 = 2 * 7;
    /// The sampled path's threshold (order bits).
    pub const THRESHOLD: u32 = 8;
    /// Keys at or below the threshold (`topk_filter`'s count).
    pub const FAST_COUNT: u32 = 9;
    /// Nonzero once `topk_finish` has written the answer.
    pub const FINISHED: u32 = 10;
    /// `u32` word of `hist[p * DIGITS + d]`: keys with the prefix and digit `d` in pass `p`.
    pub const HIST: u32 = 2 * 11;
    /// `u32` words of the whole block.
    pub const WORDS: u32 = HIST + MAX_PASSES * DIGITS;
}

/// The select state (the first seven words of [`ctrl`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct State {
    pub done: bool,
    pub used: u32,
    pub prefix: u64,
    pub before: u64,
    pub equal: u64,
    pub quota: u64,
}

impl State {
    /// Every key is a candidate (the whole input is sorted): nothing decided, all `n`
    /// keys on the boundary and all kept.
    pub const fn everything(n: u64) -> State {
        State { done: true, used: 0, prefix: 0, before: 0, equal: n, quota: n }
    }

    /// Candidates the compaction writes.
    pub const fn out(&self) -> u64 {
        self.before + if self.equal < self.quota { self.equal } else { self.quota }
    }

    /// After a pass over `bits` more bits found `count` keys with the prefix and digit
    /// `d`, of which `below` keys with the prefix had a smaller digit, and the `k`-th
    /// key (`k` of the whole input, 1-based) is among these `count`: extends the
    /// prefix and decides whether to stop (candidates fit `cap`, or no bits left).
    #[allow(clippy::too_many_arguments)]
    pub const fn step(self, d: u32, below: u64, count: u64, bits: u32, width: u32, k: u64, cap: u64) -> State {
        let used = self.used + bits;
        let before = self.before + below;
        let prefix = (self.prefix << bits) | d as u64;
        let (done, quota) = if used == width {
            (true, k - before)
        } else if before + count <= cap {
            (true, count)
        } else {
            (false, count)
        };
        State { done, used, prefix, before, equal: count, quota }
    }

    /// Whether `k` (1-based) falls in the bucket of `count` keys after `below` keys
    /// that share the prefix: `below < k - before <= below + count`.
    pub const fn holds_kth(&self, k: u64, below: u64, count: u64) -> bool {
        let want = k - self.before; // >= 1 while selecting
        count > 0 && below < want && want <= below + count
    }

    /// The decided bits of order bits `ord` of a `width`-bit key, compared with the
    /// prefix: `Less` = before, `Equal` = boundary, `Greater` = not a candidate.
    #[inline(always)]
    pub fn classify(&self, ord: u64, width: u32) -> core::cmp::Ordering {
        let top = if self.used == 0 { 0 } else { ord >> (width - self.used) };
        top.cmp(&self.prefix)
    }
}

/// Whether a key with order bits `ord` (of `width` bits) is counted by pass `p`: its
/// bits above the pass's digit equal the prefix decided so far.
#[inline(always)]
pub fn matches_prefix(ord: u64, width: u32, p: u32, prefix: u64) -> bool {
    let (shift, bits) = pass_digit(width, p);
    p == 0 || ord >> (shift + bits) == prefix
}

/// One compaction status word per tile: a flag in the top 2 bits, then the tile's (or
/// all tiles' up to it) boundary keys in 32 bits (at most `u32::MAX` keys in all) and
/// before keys in 30 bits (fewer than `k`, which is below 2^29 on this path).
pub mod status {
    pub const AGGREGATE: u64 = 1 << 62;
    pub const PREFIX: u64 = 2 << 62;
    pub const FLAG_MASK: u64 = 3 << 62;
    const BEFORE_BITS: u32 = 30;

    pub const fn pack(flag: u64, before: u64, equal: u64) -> u64 {
        flag | equal << BEFORE_BITS | before
    }

    /// `(flag, before, equal)`.
    pub const fn unpack(w: u64) -> (u64, u64, u64) {
        (w & FLAG_MASK, w & ((1 << BEFORE_BITS) - 1), (w & !FLAG_MASK) >> BEFORE_BITS)
    }
}

/// Output position of a candidate with `before` before keys and `equal` boundary keys
/// at lower indices (`equal` counted up to `quota` at least), or `None` for a boundary
/// key past the quota. Before keys never need the check: all are kept.
#[inline(always)]
pub const fn position(is_before: bool, before: u64, equal: u64, quota: u64) -> Option<u64> {
    let kept = if equal < quota { equal } else { quota };
    if is_before || equal < quota { Some(before + kept) } else { None }
}

#[cfg(target_arch = "nvptx64")]
mod device;

#[cfg(test)]
mod tests;
