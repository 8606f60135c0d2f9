//! `topk`: the first `k` keys of the stable sort (with their input indices) by a radix
//! *select* on the order bits, without sorting the other `n - k`.
//!
//! The passes over `n` keys of `W` bits (32 or 64):
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
//! 3. The host sorts the candidates by the stable radix sort of pairs and keeps `k`.
//!    Candidates are in index order, so ties stay in index order: exactly
//!    `argsort(keys)[..k]`.
//!
//! Why a quota and not "every boundary key": when all bits are decided the boundary
//! keys all equal the `k`-th key, and the answer needs only the lowest-indexed
//! `k - before` of them, however many there are (all-equal input: `n`). When bits
//! remain, the boundary bucket fits the buffer (that is why selecting stopped) and
//! all of it is kept.
//!
//! The entries are per key *word* ([`TopkKernels`]): `u32` for 32-bit keys, `u64` for
//! 64-bit keys (a primitive key's [`SortKey::Bits`](crate::SortKey::Bits)); the select
//! kernel ([`SELECT`]) reads only the control block.
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

select_entry!(topk_select {} | p | device::select(p));

/// The one-block select kernel (the same for every key width).
pub const SELECT: Kernel<Select> = topk_select;

/// The top-k entries for keys of one word type.
pub trait TopkKernels: Word {
    const HIST: Kernel<Hist<Self>>;
    const COMPACT: Kernel<Compact<Self>>;
}

macro_rules! topk_entries {
    ($k:ty, $suffix:ident) => {
        paste::paste! {
            hist_entry!([<topk_hist_ $suffix>] { K = $k } |p| device::histogram::<$k>(p));
            compact_entry!([<topk_compact_ $suffix>] { K = $k } |p| device::compact::<$k, COMPACT_ITEMS>(p));
            impl TopkKernels for $k {
                const HIST: Kernel<Hist<$k>> = [<topk_hist_ $suffix>];
                const COMPACT: Kernel<Compact<$k>> = [<topk_compact_ $suffix>];
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
];

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
    /// `u32` word of `hist[p * DIGITS + d]`: keys with the prefix and digit `d` in pass `p`.
    pub const HIST: u32 = 2 * 8;
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
