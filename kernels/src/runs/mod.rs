//! `runs`: run-length encoding of a key sequence (the base of `unique`,
//! `unique_consecutive` and `run_length_encode`): each run of equal adjacent keys
//! becomes its first key and its length.
//!
//! Two designs. The split encoding is three kernels: `runs_count` ([`Count`]) reads
//! each tile of [`split_tile`] keys as 16-byte vectors, flags its heads into mask words
//! ([`vector`]) and counts them, no block waiting for another; `runs_scan` ([`Scan`],
//! one block) turns the tile counts into the [`Carry`] before each tile; `runs_write`
//! ([`Write`]) rereads the masks, and only the keys at heads, and writes the runs. The
//! one-pass look-back encoding:
//!
//! `runs_encode` reads every key once. Each block takes a tile id from an atomic
//! counter, flags the *heads* of its keys (the first key, and every key not equal to
//! the one before it: [`same`]) one ballot per warp-striped item, and finds, by a
//! decoupled look-back over the status words of the earlier tiles ([`status`]), how
//! many runs start before the tile and where the last of them starts ([`Carry`]).
//! Inside a tile, counts and offsets are `u32` ([`TileCarry`]); only the tile's carry
//! is 64-bit. Then the head with global rank `r` at index `i` writes
//! `out_keys[r] = keys[i]` and the length of run `r - 1`, `i - start(r - 1)`: the
//! previous head is in the same item, an earlier item or warp of the tile, or given by
//! the look-back. The tile holding the last key also writes the length of the last run
//! and the number of runs ([`ctrl::RUNS`]), the one value the host reads back.
//!
//! Equality: integers compare their bits. Floats compare their [`canonical`] bits:
//! `-0.0 == +0.0` and every NaN equals every NaN (numpy's `equal_nan=True`), so a
//! sorted run of `-0.0, +0.0` is one run; `torch.unique_consecutive` instead uses `==`
//! and makes each NaN its own run. The canonical copy `unique` sorts is
//! `crate::nan`'s, with the quiet NaN.
use crate::key::{Word, float_inf_bits};
use crate::nan::{canonical_raw, quiet_nan_bits};
use crate::params::{DevPtr, EntryLayout, Kernel};

/// Threads per block of the encoding kernel: 256, four blocks per SM (512 threads and
/// two blocks per SM left the memory idle while both tiles of an SM waited for their
/// look-backs: docs/history.md, "Unique, run-length encoding, searchsorted").
pub const BLOCK: u32 = 256;
/// Keys per thread (warp-striped: coalesced loads; `(warp, item, lane)` is index
/// order), every key width: 4,096-key tiles.
pub const ITEMS: usize = 16;

/// Keys per tile of keys of `bytes` bytes (the same for every width).
pub const fn tile(bytes: u32) -> u32 {
    let _ = bytes;
    BLOCK * ITEMS as u32
}

/// Predecessor tiles each look-back round reads at once (per lane: `LOOK_BACK / 32`),
/// all loads in flight together (measured alike with 32).
pub const LOOK_BACK: u32 = 128;
/// Warps per block.
pub const WARPS: u32 = BLOCK / crate::block::WARP;
/// Shared memory of the encoding kernel: the tile id and the tile's exclusive carry
/// (32 bytes), each warp's carry (two `u32`s a warp), then each warp's head masks
/// (one `u32` an item).
pub const SMEM: u32 = 32 + 8 * WARPS + 4 * WARPS * ITEMS as u32;
/// The look-back's sleep between reads of unpublished predecessors (ns; 0: spin), as
/// CUB's look-back can back off. Tried against spinning warps' status reads taking L2
/// bandwidth from the key loads (ncu: L2 traffic twice the DRAM traffic): 0, 32, 64 and
/// 256 ns measured alike (2^26 sorted i32 with counts through Python: 0.45-0.48 ms,
/// torch 0.40-0.43 ms, H100, 2026-11-27), so the default spins.
pub const BACKOFF_NS: u32 = 0;

crate::params::kernel_params! {
    /// `runs_encode`: the heads of `keys[0..n]` and the lengths of their runs (see the
    /// module docs), one tile per block.
    pub struct Encode<K> {
        pub keys: DevPtr<K>,
        pub n: u64,
        /// Float keys: the bits of their `+inf` ([`float_inf_bits`]), equality of
        /// [`canonical`] bits; 0 for integer keys (equality of bits).
        pub inf: K,
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
    /// `runs_count` (the split encoding's first pass): the head masks of tile `b` of
    /// `keys[0..n]` into `masks[split_mask_words(bytes) * b..]` (bit `l` of word `w`:
    /// key `32 w + l` of the tile is a head; built as [`vector`] says) and
    /// its [`TileCarry`] into `tile_carries[2 b]` (runs) and `[2 b + 1]` (`last`), one
    /// tile of [`split_tile`] keys per block, read as 16-byte vectors (`keys` 16-byte
    /// aligned). No look-back: blocks never wait for each other.
    pub struct Count<K> {
        pub keys: DevPtr<K>,
        pub n: u64,
        /// As [`Encode::inf`].
        pub inf: K,
        /// [`split_mask_words`] words per tile.
        pub masks: DevPtr<u32>,
        /// Two words per tile.
        pub tile_carries: DevPtr<u32>,
    }
    /// Declares an entry taking [`Count`].
    entries count_entry;
}

crate::params::kernel_params! {
    /// `runs_scan` (the split encoding's second pass, one block of [`SCAN_BLOCK`]
    /// threads): the [`Carry`] of the tiles before each tile, from `count`'s tile
    /// carries, into `before[2 b]` (runs) and `[2 b + 1]` (`last`); the number of runs
    /// into the control block ([`ctrl::RUNS`]) and the last run's length into
    /// `out_counts`.
    pub struct Scan {
        pub tile_carries: DevPtr<u32>,
        pub tiles: u64,
        pub n: u64,
        pub before: DevPtr<u64>,
        /// Keys per tile ([`split_tile`]).
        pub tile_len: u32,
        pub ctrl: DevPtr<u64>,
        /// As [`Encode::wide_counts`].
        pub wide_counts: u32,
        /// As [`Encode::out_counts`].
        pub out_counts: DevPtr<u32>,
    }
    /// Declares an entry taking [`Scan`].
    entries scan_entry;
}

crate::params::kernel_params! {
    /// `runs_write` (the split encoding's last pass, one tile per block): each head of
    /// the tile (from `masks`) writes its key and the length of the run before it,
    /// reading only the keys at heads.
    pub struct Write<K> {
        pub keys: DevPtr<K>,
        pub masks: DevPtr<u32>,
        /// `scan`'s carries before each tile.
        pub before: DevPtr<u64>,
        pub wide_counts: u32,
        pub out_keys: DevPtr<K>,
        pub out_counts: DevPtr<u32>,
    }
    /// Declares an entry taking [`Write`].
    entries write_entry;
}

/// Bytes of each load of the split encoding's kernels (one 16-byte vector a lane).
pub const VECTOR_BYTES: u32 = 16;

/// Keys of `bytes` bytes per vector of the split encoding.
pub const fn split_vector(bytes: u32) -> u32 {
    VECTOR_BYTES / bytes
}

/// Vectors per thread of `runs_count`: 8 (128 bytes in flight a thread), fewer for
/// keys of under 4 bytes, so that a warp's mask words (one per key of a vector, per
/// vector of a thread) are at most 32, one per lane.
pub const fn split_items(bytes: u32) -> u32 {
    let by_lanes = crate::block::WARP / split_vector(bytes);
    if by_lanes < 8 { by_lanes } else { 8 }
}

/// Keys per tile of the split encoding: 8,192 for keys of up to 4 bytes, 4,096 for 8.
pub const fn split_tile(bytes: u32) -> u32 {
    BLOCK * split_items(bytes) * split_vector(bytes)
}

/// Head-mask words per tile of the split encoding (one bit a key).
pub const fn split_mask_words(bytes: u32) -> u32 {
    split_tile(bytes) / crate::block::WARP
}

/// Tiles of a split encoding of `n` keys of `bytes` bytes.
pub const fn split_tiles(n: u64, bytes: u32) -> u64 {
    n.div_ceil(split_tile(bytes) as u64)
}
/// Threads of the one block of `runs_scan`, and tiles a round (one a thread).
pub const SCAN_BLOCK: u32 = 1024;
/// Shared memory of `runs_scan`: a [`Carry`] (two `u64`s) per warp and one for the
/// round's total.
pub const SCAN_SMEM: u32 = 16 * (SCAN_BLOCK / crate::block::WARP + 1);
/// Heads of a warp that `runs_write` handles at once, 32 a round: their key loads are
/// in flight together.
pub const WRITE_ROUNDS: usize = 4;
/// Shared memory of `runs_count` and `runs_write`: a [`TileCarry`] per warp.
pub const SPLIT_SMEM: u32 = 8 * WARPS;

scan_entry!(runs_scan {} | p | device::scan(p));

/// The run entries of one key word type.
pub trait RunKernels: Word {
    const ENCODE: Kernel<Encode<Self>>;
    const COUNT: Kernel<Count<Self>>;
    const WRITE: Kernel<Write<Self>>;
}

macro_rules! run_entries {
    ($k:ty, $suffix:ident) => {
        paste::paste! {
            encode_entry!([<runs_encode_ $suffix>] { K = $k } |p| device::encode::<$k, { ITEMS }>(p));
            count_entry!([<runs_count_ $suffix>] { K = $k } |p| device::count::<
                $k,
                { split_items(<$k as Word>::BYTES) as usize },
                { split_vector(<$k as Word>::BYTES) as usize },
            >(p));
            write_entry!([<runs_write_ $suffix>] { K = $k } |p| device::write::<
                $k,
                { (split_items(<$k as Word>::BYTES) * split_vector(<$k as Word>::BYTES)) as usize },
            >(p));
            impl RunKernels for $k {
                const ENCODE: Kernel<Encode<$k>> = [<runs_encode_ $suffix>];
                const COUNT: Kernel<Count<$k>> = [<runs_count_ $suffix>];
                const WRITE: Kernel<Write<$k>> = [<runs_write_ $suffix>];
            }
        }
    };
}
run_entries!(u8, k8);
run_entries!(u16, k16);
run_entries!(u32, k32);
run_entries!(u64, k64);

/// Every run entry.
pub const KERNELS: &[EntryLayout] = &[
    <u8 as RunKernels>::ENCODE.layout(),
    <u16 as RunKernels>::ENCODE.layout(),
    <u32 as RunKernels>::ENCODE.layout(),
    <u64 as RunKernels>::ENCODE.layout(),
    <u8 as RunKernels>::COUNT.layout(),
    <u16 as RunKernels>::COUNT.layout(),
    <u32 as RunKernels>::COUNT.layout(),
    <u64 as RunKernels>::COUNT.layout(),
    <u8 as RunKernels>::WRITE.layout(),
    <u16 as RunKernels>::WRITE.layout(),
    <u32 as RunKernels>::WRITE.layout(),
    <u64 as RunKernels>::WRITE.layout(),
    runs_scan.layout(),
];

/// Blocks per SM of the encoding (see [`crate::LAUNCH_BOUNDS`]): four tiles in flight
/// per SM, so that some load while others wait for their look-backs.
pub const BLOCKS_PER_SM: u32 = 4;

/// Launch bounds (see [`crate::LAUNCH_BOUNDS`]).
pub const LAUNCH_BOUNDS: &[(&str, u32, u32)] = &[
    (<u8 as RunKernels>::ENCODE.name(), BLOCK, BLOCKS_PER_SM),
    (<u16 as RunKernels>::ENCODE.name(), BLOCK, BLOCKS_PER_SM),
    (<u32 as RunKernels>::ENCODE.name(), BLOCK, BLOCKS_PER_SM),
    (<u64 as RunKernels>::ENCODE.name(), BLOCK, BLOCKS_PER_SM),
    (<u8 as RunKernels>::COUNT.name(), BLOCK, BLOCKS_PER_SM),
    (<u16 as RunKernels>::COUNT.name(), BLOCK, BLOCKS_PER_SM),
    (<u32 as RunKernels>::COUNT.name(), BLOCK, BLOCKS_PER_SM),
    (<u64 as RunKernels>::COUNT.name(), BLOCK, BLOCKS_PER_SM),
    (<u8 as RunKernels>::WRITE.name(), BLOCK, WRITE_BLOCKS_PER_SM),
    (<u16 as RunKernels>::WRITE.name(), BLOCK, WRITE_BLOCKS_PER_SM),
    (<u32 as RunKernels>::WRITE.name(), BLOCK, WRITE_BLOCKS_PER_SM),
    (<u64 as RunKernels>::WRITE.name(), BLOCK, WRITE_BLOCKS_PER_SM),
];

/// Blocks per SM of `runs_write`: it holds [`WRITE_ROUNDS`] keys and positions a
/// thread; eight blocks (32 registers) spilled them.
pub const WRITE_BLOCKS_PER_SM: u32 = 6;

/// The control block, in `u64` words. Zeroed before each look-back encoding (the split
/// encoding reads no word of it before writing it).
pub mod ctrl {
    /// `u32` word 0: the tile counter.
    pub const TILE_COUNTER: u32 = 0;
    /// `u64` word 1: the number of runs, written by the tile holding the last key (the
    /// split encoding: by `runs_scan`).
    pub const RUNS: u32 = 1;
    /// `u64` words of the block.
    pub const WORDS: u32 = 2;
}

/// Tiles of an encoding of `n` keys of `bytes` bytes.
pub const fn tiles(n: u64, bytes: u32) -> u64 {
    n.div_ceil(tile(bytes) as u64)
}

/// The canonical bits of a `width`-bit (32 or 64) float's raw bits `raw`: every NaN
/// becomes the quiet NaN with no payload and a clear sign (`f32::NAN`, `f64::NAN`),
/// `-0.0` becomes `+0.0`, every other value stays ([`crate::nan::canonical_raw`]).
/// Two floats are the same value for the run operations when their canonical bits are
/// equal.
#[inline(always)]
pub const fn canonical_bits(raw: u64, width: u32) -> u64 {
    let mant_bits = if width == 32 { 23 } else { 52 };
    canonical_raw(raw, width, float_inf_bits(width, mant_bits), quiet_nan_bits(width, mant_bits))
}

/// The canonical bits of a key word whose float format has `+inf` bits `inf`
/// ([`canonical_bits`] for any width; the NaN written is `inf + 1`, any NaN does for
/// equality).
#[inline(always)]
pub fn canonical<W: Word>(raw: W, inf: W) -> W {
    let inf = inf.to_u64();
    W::from_u64(canonical_raw(raw.to_u64(), 8 * W::BYTES, inf, inf + 1))
}

/// Whether two adjacent keys belong to one run: equal bits, or for floats (`inf`
/// nonzero: their `+inf` bits) equal [`canonical`] bits.
#[inline(always)]
pub fn same<W: Word + PartialEq>(a: W, b: W, inf: W) -> bool {
    if inf.to_u64() != 0 { canonical(a, inf) == canonical(b, inf) } else { a == b }
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

/// A [`Carry`] inside one tile: offsets from the tile's first key (`last`: the last
/// head's offset + 1, 0 for none), in `u32`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TileCarry {
    pub runs: u32,
    pub last: u32,
}

impl TileCarry {
    /// See [`Carry::then`].
    #[inline(always)]
    pub const fn then(self, later: TileCarry) -> TileCarry {
        TileCarry { runs: self.runs + later.runs, last: if later.last != 0 { later.last } else { self.last } }
    }

    /// The carry of one item's heads: `mask` (one bit a lane) of 32 keys starting at
    /// tile offset `base`.
    #[inline(always)]
    pub const fn of_item(mask: u32, base: u32) -> TileCarry {
        let last = if mask != 0 { base + (31 - mask.leading_zeros()) + 1 } else { 0 };
        TileCarry { runs: mask.count_ones(), last }
    }

    /// As a [`Carry`] of the tile starting at key `start`.
    #[inline(always)]
    pub const fn global(self, start: u64) -> Carry {
        Carry { runs: self.runs as u64, last: if self.last != 0 { start + self.last as u64 } else { 0 } }
    }
}

/// The split encoding's *vector items* and head masks. Lane `l` of a warp loads keys
/// `V l..V l + V` of an item of `32 V` keys (one 16-byte vector), flags their heads in
/// `V` bits and shifts them to [`vector::nibble_shift`]; an OR across each group of `32 / V`
/// lanes makes the item's `V` mask words in key order: bit `t` of word `m` says that
/// key `32 m + t` of the item is a head. A warp's words (`I` items, at most 32 words)
/// are then plain head masks of its keys, 32 a word, one word a lane; `runs_write`
/// finds its `h`-th head by [`vector::first_above`] over the words' prefix counts and
/// [`vector::nth_set_bit`] in the word.
pub mod vector {
    /// Where lane `lane`'s `v` head bits sit in the mask word of its group of `32 / v`
    /// lanes (the word of keys `32 (lane / (32 / v))..`).
    #[inline(always)]
    pub const fn nibble_shift(lane: u32, v: u32) -> u32 {
        v * (lane % (32 / v))
    }

    /// The place of the `k`-th (from 0) set bit of `w` (`k` below its count of ones), in
    /// five halving steps.
    #[inline(always)]
    pub const fn nth_set_bit(mut w: u32, mut k: u32) -> u32 {
        let mut pos = 0;
        let mut half = 16;
        while half > 0 {
            let low = (w & ((1u32 << half) - 1)).count_ones();
            if k >= low {
                k -= low;
                w >>= half;
                pos += half;
            }
            half /= 2;
        }
        pos
    }

    /// The first of 32 words whose inclusive prefix count `prefix(q)` (non-decreasing)
    /// is above `h`: the word that holds head `h` of the warp (`h` below `prefix(31)`),
    /// in five halving steps (on the device, `prefix` is a shuffle: every lane calls it
    /// five times).
    #[inline(always)]
    pub fn first_above(h: u32, prefix: impl Fn(u32) -> u32) -> u32 {
        let mut q = 0;
        let mut step = 16;
        while step > 0 {
            if prefix(q + step - 1) <= h {
                q += step;
            }
            step /= 2;
        }
        q
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
