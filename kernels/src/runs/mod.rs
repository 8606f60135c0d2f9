//! `runs`: run-length encoding of a key sequence in one pass (the base of `unique`,
//! `unique_consecutive` and `run_length_encode`): each run of equal adjacent keys
//! becomes its first key and its length.
//!
//! `runs_encode` reads every key once. Each block takes a tile id from an atomic
//! counter, flags the *heads* of its keys (the first key, and every key not equal to
//! the one before it: [`same`]), and finds, by a decoupled look-back over the status
//! words of the earlier tiles ([`status`]), how many runs start before the tile and
//! where the last of them starts ([`Carry`]). Then the head with global rank `r` at
//! index `i` writes `out_keys[r] = keys[i]` and the length of run `r - 1`,
//! `i - start(r - 1)`: the previous head is in the same warp, an earlier warp of the
//! tile, or given by the look-back. The tile holding the last key also writes the
//! length of the last run and the number of runs ([`ctrl::RUNS`]), the one value the
//! host reads back.
//!
//! Equality: integers compare their bits. Floats compare their [`canonical`] bits:
//! `-0.0 == +0.0` and every NaN equals every NaN (numpy's `equal_nan=True`), so a
//! sorted run of `-0.0, +0.0` is one run; `torch.unique_consecutive` instead uses `==`
//! and makes each NaN its own run. `runs_canonical` writes the canonical keys (for
//! `unique`, which sorts a canonical copy so that NaNs of both signs meet).
use crate::key::Word;
use crate::params::{DevPtr, EntryLayout, Kernel};

/// Threads per block of the encoding kernel.
pub const BLOCK: u32 = 512;
/// Keys per thread of 4-byte keys (warp-striped: coalesced loads; `(warp, item, lane)`
/// is index order), and of 8-byte keys: 32 and 64 KiB tiles. 16 and 24 items measured
/// alike for 2^26 sorted u32 (0.32 and 0.31 ms, H100, 2026-11-27; docs/history.md,
/// "Unique, run-length encoding, searchsorted"); with the look-back's sleep parameter
/// and the `u64` counts, 24 spilled 136 bytes under the 64-register bound, 16 spills 8.
pub const ITEMS_32: usize = 16;
pub const ITEMS_64: usize = 16;

/// Keys per tile of keys of `bytes` bytes.
pub const fn tile(bytes: u32) -> u32 {
    BLOCK * if bytes == 4 { ITEMS_32 } else { ITEMS_64 } as u32
}

/// Predecessor tiles each look-back round reads at once (per lane: `LOOK_BACK / 32`),
/// all loads in flight together (measured alike with 32).
pub const LOOK_BACK: u32 = 128;
/// Warps per block.
pub const WARPS: u32 = BLOCK / crate::block::WARP;
/// Shared memory of the encoding kernel: the tile id and the tile's exclusive carry
/// (16 bytes), then each warp's carry (two `u64`s a warp).
pub const SMEM: u32 = 32 + 16 * WARPS;
/// The look-back's sleep between reads of unpublished predecessors (ns; 0: spin), as
/// CUB's look-back can back off. Tried against spinning warps' status reads taking L2
/// bandwidth from the key loads (ncu: L2 traffic twice the DRAM traffic): 0, 32, 64 and
/// 256 ns measured alike (2^26 sorted i32 with counts through Python: 0.45-0.48 ms,
/// torch 0.40-0.43 ms, H100, 2026-11-27), so the default spins.
pub const BACKOFF_NS: u32 = 0;
/// Threads per block of the canonicalising copy.
pub const COPY_BLOCK: u32 = 256;

crate::params::kernel_params! {
    /// `runs_encode`: the heads of `keys[0..n]` and the lengths of their runs (see the
    /// module docs), one tile per block.
    pub struct Encode<K> {
        pub keys: DevPtr<K>,
        pub n: u64,
        /// Nonzero for float keys: equality of [`canonical`] bits.
        pub float: u32,
        /// Nanoseconds a look-back that finds a predecessor unpublished sleeps before
        /// reading again (0: it spins).
        pub backoff: u32,
        /// Nonzero: `out_counts` holds `u64` lengths (the pointer is the `u64`
        /// array's), else `u32`.
        pub wide_counts: u32,
        /// The control block ([`ctrl`]), zeroed.
        pub ctrl: DevPtr<u64>,
        /// Two words per tile ([`status`]), zeroed.
        pub status: DevPtr<u64>,
        /// At least as many keys as runs (`n` is always enough).
        pub out_keys: DevPtr<K>,
        /// As many lengths as runs (`u64` with `wide_counts`); null: none written.
        pub out_counts: DevPtr<u32>,
    }
    /// Declares an entry taking [`Encode`].
    entries encode_entry;
}

crate::params::kernel_params! {
    /// `runs_canonical`: `dst[i] = canonical(src[i])` (grid-stride).
    pub struct Canonical<K> {
        pub src: DevPtr<K>,
        pub dst: DevPtr<K>,
        pub n: u64,
    }
    /// Declares an entry taking [`Canonical`].
    entries canonical_entry;
}

/// The run entries of one key word type.
pub trait RunKernels: Word {
    const ENCODE: Kernel<Encode<Self>>;
    /// For float keys of this width.
    const CANONICAL: Kernel<Canonical<Self>>;
}

macro_rules! run_entries {
    ($k:ty, $suffix:ident, $items:expr) => {
        paste::paste! {
            encode_entry!([<runs_encode_ $suffix>] { K = $k } |p| device::encode::<$k, { $items }>(p));
            canonical_entry!([<runs_canonical_ $suffix>] { K = $k } |p| device::canonical_copy::<$k>(p));
            impl RunKernels for $k {
                const ENCODE: Kernel<Encode<$k>> = [<runs_encode_ $suffix>];
                const CANONICAL: Kernel<Canonical<$k>> = [<runs_canonical_ $suffix>];
            }
        }
    };
}
run_entries!(u32, k32, ITEMS_32);
run_entries!(u64, k64, ITEMS_64);

/// Every run entry.
pub const KERNELS: &[EntryLayout] = &[
    <u32 as RunKernels>::ENCODE.layout(),
    <u32 as RunKernels>::CANONICAL.layout(),
    <u64 as RunKernels>::ENCODE.layout(),
    <u64 as RunKernels>::CANONICAL.layout(),
];

/// Launch bounds (see [`crate::LAUNCH_BOUNDS`]): two blocks per SM keep enough loads
/// in flight for a pass bound by reading the keys.
pub const LAUNCH_BOUNDS: &[(&str, u32, u32)] =
    &[(<u32 as RunKernels>::ENCODE.name(), BLOCK, 2), (<u64 as RunKernels>::ENCODE.name(), BLOCK, 2)];

/// The control block, in `u64` words. Zeroed before each encoding.
pub mod ctrl {
    /// `u32` word 0: the tile counter.
    pub const TILE_COUNTER: u32 = 0;
    /// `u64` word 1: the number of runs, written by the tile holding the last key.
    pub const RUNS: u32 = 1;
    /// `u64` words of the block.
    pub const WORDS: u32 = 2;
}

/// Tiles of an encoding of `n` keys of `bytes` bytes.
pub const fn tiles(n: u64, bytes: u32) -> u64 {
    n.div_ceil(tile(bytes) as u64)
}

/// The canonical bits of a `width`-bit float's raw bits `raw`: every NaN becomes the
/// quiet NaN with no payload and a clear sign (`f32::NAN`, `f64::NAN`), `-0.0` becomes
/// `+0.0`, every other value stays. Two floats are the same value for the run
/// operations when their canonical bits are equal.
#[inline(always)]
pub const fn canonical_bits(raw: u64, width: u32) -> u64 {
    let mant_bits = if width == 32 { 23 } else { 52 };
    let sign = 1u64 << (width - 1);
    let inf = (sign - 1) >> mant_bits << mant_bits; // all exponent bits
    let abs = raw & (sign - 1);
    if abs > inf {
        inf | 1 << (mant_bits - 1)
    } else if abs == 0 {
        0
    } else {
        raw
    }
}

/// [`canonical_bits`] of a key word (its width from its type).
#[inline(always)]
pub fn canonical<W: Word>(raw: W) -> W {
    W::from_u64(canonical_bits(raw.to_u64(), 8 * W::BYTES))
}

/// Whether two adjacent keys belong to one run: equal bits, or for floats
/// (`float`) equal [`canonical`] bits.
#[inline(always)]
pub fn same<W: Word + PartialEq>(a: W, b: W, float: bool) -> bool {
    if float { canonical(a) == canonical(b) } else { a == b }
}

/// What a stretch of keys (a warp's, a tile's, all tiles' before one) tells the keys
/// after it: how many runs start in it, and where the last of them starts
/// (`last_head + 1`; 0 when no run starts in it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Carry {
    pub runs: u64,
    pub last: u64,
}

impl Carry {
    /// The carry of this stretch followed by `later`: the runs add up, and the last head
    /// is `later`'s if it has one.
    #[inline(always)]
    pub const fn then(self, later: Carry) -> Carry {
        Carry { runs: self.runs + later.runs, last: if later.last != 0 { later.last } else { self.last } }
    }
}

/// Two status words per tile, each with the same flag in its top 2 bits: the first
/// holds the carry's run count, the second its `last`. A reader uses a tile's words
/// only when both flags are equal and nonzero: each state is written once (both words,
/// aggregate first, then inclusive prefix), so equal flags mean both words are of that
/// state, whichever order the two stores become visible in.
pub mod status {
    use super::Carry;
    pub const AGGREGATE: u64 = 1 << 62;
    pub const PREFIX: u64 = 2 << 62;
    pub const FLAG_MASK: u64 = 3 << 62;

    /// The two words of `carry` with `flag`.
    pub const fn pack(flag: u64, carry: Carry) -> [u64; 2] {
        [flag | carry.runs, flag | carry.last]
    }

    /// `(flag, carry)` of a tile's two words; flag 0 (not yet published) unless both
    /// words carry the same flag.
    pub const fn unpack(w: [u64; 2]) -> (u64, Carry) {
        let (f0, f1) = (w[0] & FLAG_MASK, w[1] & FLAG_MASK);
        let flag = if f0 == f1 { f0 } else { 0 };
        (flag, Carry { runs: w[0] & !FLAG_MASK, last: w[1] & !FLAG_MASK })
    }
}

#[cfg(target_arch = "nvptx64")]
mod device;

#[cfg(test)]
mod tests;
