//! Run-length encoding on the device (`unique_consecutive`, `run_length_encode`) and
//! `unique` / `unique_counts` (a sort of a canonical copy, then the encoding):
//! `kernels/src/runs/` describes the kernels.
//!
//! Launches ([`Encoder`], chosen by length): the look-back encoding is one memset of
//! the control block and of two status words per tile of 4,096 keys (one scratch
//! buffer) and one `runs_encode`; the split encoding is `runs_count`, `runs_scan` and
//! `runs_write` (no memset). Either ends with **one device-to-host read** of the number
//! of runs (the length of the results). `unique` adds the canonicalising
//! copy (floats: [`super::nan::canonical_copy_as`]) or a device copy (integers) and
//! the radix sort before it. Every key width has its kernel, 16- and 8-bit keys
//! included.
use kernels::key::BitOrder;
use kernels::params::DevPtr;
use kernels::runs::{self as rk, Count, Encode, RunKernels, Scan, Write, ctrl};

use super::launch::blocks;
use super::nan::CanonicalNan;
use super::scratch::Scratch;
use crate::device::{DeviceBuffer, Gpu};
use crate::element::Key;
use crate::error::{Error, Result};
use crate::options::SortOptions;

/// The runs of equal adjacent keys of `keys`, as two new device buffers of one element
/// per run: the first key of each run and the run's length. Equality is that of the
/// bits for integers and of the canonical bits for floats (`-0.0 == +0.0`, all NaNs
/// equal: numpy's `equal_nan=True`; [`kernels::runs::canonical_bits`]). Empty input
/// gives empty buffers. At most `u32::MAX` keys (the lengths are `u32`). Queued on the
/// device's stream, with one wait for the number of runs.
pub fn run_length_encode<K: Key>(gpu: &Gpu, keys: &DeviceBuffer<K>) -> Result<(DeviceBuffer<K>, DeviceBuffer<u32>)> {
    let n = keys.len();
    Error::check_u32_indices("run-length encoding", n)?;
    if n == 0 {
        return Ok((gpu.alloc(0)?, gpu.alloc(0)?));
    }
    let mut out_keys = gpu.alloc::<K>(n)?;
    let mut out_counts = gpu.alloc::<u32>(n)?;
    let runs = run_length_encode_into::<K>(gpu, keys, &mut out_keys, &mut out_counts)?;
    out_keys.truncate(runs);
    out_counts.truncate(runs);
    Ok((out_keys, out_counts))
}

/// [`run_length_encode`] into given buffers (each at least as long as `keys`, which
/// every result fits), for callers that reuse them; returns the number of runs, the
/// length of the results at the start of each buffer.
pub fn run_length_encode_into<K: Key>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    out_keys: &mut DeviceBuffer<K>,
    out_counts: &mut DeviceBuffer<u32>,
) -> Result<usize> {
    check_outputs(keys.len(), out_keys.len(), Some(out_counts.len()))?;
    encode(gpu, keys, out_keys, Counts::U32(out_counts.ptr()))
}

/// [`run_length_encode_into`] with `u64` run lengths written by the encoding itself
/// (int64 counts for Python callers need no widening pass), or none (`out_counts`
/// `None`: the first keys of the runs only, `unique_consecutive` without counts).
pub fn run_length_encode_into_wide<K: Key>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    out_keys: &mut DeviceBuffer<K>,
    out_counts: Option<&mut DeviceBuffer<u64>>,
) -> Result<usize> {
    check_outputs(keys.len(), out_keys.len(), out_counts.as_ref().map(|c| c.len()))?;
    let counts = out_counts.map_or(Counts::None, |c| Counts::U64(c.ptr()));
    encode(gpu, keys, out_keys, counts)
}

/// Refuses more keys than `u32` lengths count, and outputs shorter than the keys.
fn check_outputs(n: usize, keys: usize, counts: Option<usize>) -> Result<()> {
    Error::check_u32_indices("run-length encoding", n)?;
    if keys < n || counts.is_some_and(|c| c < n) {
        return Err(Error::BadArgument(format!(
            "run-length encoding of {n} keys into buffers of {keys} keys and {} counts",
            counts.unwrap_or(0)
        )));
    }
    Ok(())
}

/// Where the encoding writes the run lengths (a device address).
#[derive(Clone, Copy)]
enum Counts {
    U32(u64),
    U64(u64),
    None,
}

impl Counts {
    /// The kernels' `wide_counts` flag.
    fn wide(self) -> u32 {
        matches!(self, Counts::U64(_)) as u32
    }

    /// The kernels' `out_counts` pointer (null: no counts).
    fn ptr(self) -> DevPtr<u32> {
        DevPtr::from_addr(match self {
            Counts::U32(a) | Counts::U64(a) => a,
            Counts::None => 0,
        })
    }
}

/// How the encoding finds the runs before each tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoder {
    /// One kernel: each tile looks back over the status words of the tiles before it
    /// (`runs_encode`); every key read once, but a tile's block waits for its
    /// predecessors.
    LookBack,
    /// Three kernels: the tiles' head masks and run counts (`runs_count`, every key read
    /// once as 16-byte vectors, no waiting), a one-block scan of the counts
    /// (`runs_scan`), then the writes (`runs_write`, reading the masks and only the keys
    /// at heads). Keys at an address that is not a multiple of 16 bytes take the
    /// look-back encoding.
    Split,
}

impl Encoder {
    /// The faster encoder for `n` keys of `key_bytes` bytes (docs/history.md, "Unique,
    /// run-length encoding, searchsorted"): the split encoding for 4-byte keys from
    /// [`SPLIT_FROM`], the only width where it was measured faster.
    pub fn for_len(n: usize, key_bytes: usize) -> Encoder {
        if n >= SPLIT_FROM && key_bytes == 4 { Encoder::Split } else { Encoder::LookBack }
    }
}

/// 4-byte keys from which the split encoding is used. u32 keys with 2^20 runs, into
/// reused buffers, split / look-back: 2^26 keys 0.281 / 0.319 ms, 2^24 0.123 / 0.125 ms,
/// 2^22 0.050 / 0.054 ms (H100, 2026-11-28, `host bench-ops`; H200 at 2^26 0.271 /
/// 0.311 ms, at 2^20 even). u64 keys: split 2^25 0.237 / 0.232 ms (H100), 2^20 0.038 /
/// 0.036 ms (H200), so 8-byte keys keep the look-back; narrower keys were not measured.
const SPLIT_FROM: usize = 1 << 22;

/// [`run_length_encode_into`] by a given encoder, for comparing them; returns the
/// number of runs.
pub fn run_length_encode_into_by<K: Key>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    out_keys: &mut DeviceBuffer<K>,
    out_counts: &mut DeviceBuffer<u32>,
    encoder: Encoder,
) -> Result<usize> {
    check_outputs(keys.len(), out_keys.len(), Some(out_counts.len()))?;
    encode_by(gpu, keys, out_keys, Counts::U32(out_counts.ptr()), encoder)
}

/// The encoding of `keys` (outputs checked by the caller) by the encoder for its
/// length: returns the number of runs.
fn encode<K: Key>(gpu: &Gpu, keys: &DeviceBuffer<K>, out_keys: &mut DeviceBuffer<K>, counts: Counts) -> Result<usize> {
    encode_by(gpu, keys, out_keys, counts, Encoder::for_len(keys.len(), size_of::<K>()))
}

/// The `inf` parameter of the kernels: the `+inf` bits of a float key's format
/// (equality of canonical bits), 0 for integers (equality of bits).
fn inf_bits<K: Key>() -> u64 {
    if K::KEY_ORDER == BitOrder::Float {
        kernels::key::float_inf_bits(8 * size_of::<K>() as u32, K::MANTISSA_BITS)
    } else {
        0
    }
}

/// The encoding of `keys` by `encoder`: returns the number of runs. The split encoding
/// loads 16-byte vectors: keys at an address that is not a multiple of 16 (a borrowed
/// buffer's) take the look-back encoding.
fn encode_by<K: Key>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    out_keys: &mut DeviceBuffer<K>,
    counts: Counts,
    encoder: Encoder,
) -> Result<usize> {
    let n = keys.len();
    if n == 0 {
        return Ok(0);
    }
    let encoder = if keys.ptr().is_multiple_of(rk::VECTOR_BYTES as u64) { encoder } else { Encoder::LookBack };
    let job = Job { n, inf: inf_bits::<K>(), counts, encoder };
    let (src, dst) = (keys.dev_ptr(), out_keys.dev_ptr());
    match size_of::<K>() {
        1 => encode_words::<u8>(gpu, src.cast(), dst.cast(), job),
        2 => encode_words::<u16>(gpu, src.cast(), dst.cast(), job),
        4 => encode_words::<u32>(gpu, src.cast(), dst.cast(), job),
        _ => encode_words::<u64>(gpu, src.cast(), dst.cast(), job),
    }
}

/// What an encoding of `n >= 1` keys is asked for, whatever the word its keys move as.
#[derive(Clone, Copy)]
struct Job {
    n: usize,
    /// [`inf_bits`] of the key type.
    inf: u64,
    counts: Counts,
    encoder: Encoder,
}

/// The encoding of the keys at `keys` moved as the unsigned word `W` of their width.
fn encode_words<W: RunKernels>(gpu: &Gpu, keys: DevPtr<W>, out_keys: DevPtr<W>, job: Job) -> Result<usize> {
    let Job { n, inf, counts, encoder } = job;
    let bytes = size_of::<W>() as u32;
    let inf = W::from_u64(inf);
    // Words of u32: the control block's, then per tile either two u64 status words
    // (look-back: zeroed with the control block by one memset) or the tile's two carry
    // words, two u64 carries before it and its head masks (split: nothing zeroed, every
    // word is written before it is read).
    let ctrl_words = 2 * ctrl::WORDS as usize;
    let (tiles, per_tile) = match encoder {
        Encoder::LookBack => (rk::tiles(n as u64, bytes) as usize, 4),
        Encoder::Split => (rk::split_tiles(n as u64, bytes) as usize, 2 + 4 + rk::split_mask_words(bytes) as usize),
    };
    let mut scratch = Scratch::take(gpu, &[ctrl_words + per_tile * tiles])?;
    let words = &mut scratch.bufs[0];
    let words_addr = words.ptr();
    let at = |word: usize| words_addr + 4 * word as u64;
    let ctrl_ptr: DevPtr<u64> = DevPtr::from_addr(at(0));
    match encoder {
        Encoder::LookBack => {
            let status = DevPtr::from_addr(at(ctrl_words));
            words.zero_prefix(gpu, ctrl_words + 4 * tiles)?;
            let p = Encode::<W> {
                keys,
                n: n as u64,
                inf,
                backoff: rk::BACKOFF_NS,
                wide_counts: counts.wide(),
                ctrl: ctrl_ptr,
                status,
                out_keys,
                out_counts: counts.ptr(),
            };
            gpu.launch(W::ENCODE, blocks(tiles as u64, rk::BLOCK, rk::SMEM)?, &p)?;
        }
        Encoder::Split => {
            let tile_carries = DevPtr::from_addr(at(ctrl_words));
            let before = DevPtr::from_addr(at(ctrl_words + 2 * tiles));
            let masks = DevPtr::from_addr(at(ctrl_words + 6 * tiles));
            let grid = blocks(tiles as u64, rk::BLOCK, rk::SPLIT_SMEM)?;
            gpu.launch(W::COUNT, grid, &Count::<W> { keys, n: n as u64, inf, masks, tile_carries })?;
            let scan = Scan {
                tile_carries,
                tiles: tiles as u64,
                n: n as u64,
                before,
                tile_len: rk::split_tile(bytes),
                ctrl: ctrl_ptr,
                wide_counts: counts.wide(),
                out_counts: counts.ptr(),
            };
            gpu.launch(rk::runs_scan, blocks(1, rk::SCAN_BLOCK, rk::SCAN_SMEM)?, &scan)?;
            let write =
                Write::<W> { keys, masks, before, wide_counts: counts.wide(), out_keys, out_counts: counts.ptr() };
            gpu.launch(W::WRITE, grid, &write)?;
        }
    }
    let mut count = [0u32; 2];
    words.read_at(gpu, 2 * ctrl::RUNS as usize, &mut count)?;
    let runs = u64::from_le_bytes(bytemuck::cast(count)) as usize;
    if runs == 0 || runs > n {
        return Err(Error::BadArgument(format!("run-length encoding: {runs} runs of {n} keys (a bug: please report)")));
    }
    Ok(runs)
}

/// A copy of `keys` in which every float is its canonical value (every NaN the
/// positive quiet NaN, `-0.0` as `+0.0`: [`super::nan::canonical_copy_as`] with
/// [`CanonicalNan::Quiet`]), so that IEEE total order on the copy is numpy's
/// comparison of the keys (NaNs above `+inf` and all equal, both zeros equal), and the
/// NaN `unique` returns is the quiet one. Integer keys are copied as they are. Queued,
/// not waited for.
pub fn canonical_copy<K: Key>(gpu: &Gpu, keys: &DeviceBuffer<K>) -> Result<DeviceBuffer<K>> {
    if K::KEY_ORDER == BitOrder::Float {
        return super::nan::canonical_copy_as(gpu, keys, CanonicalNan::Quiet);
    }
    let mut copy = gpu.alloc::<K>(keys.len())?;
    copy.copy_from_device(gpu, keys)?;
    Ok(copy)
}

/// The sorted distinct values of `keys` and how often each occurs (numpy's
/// `unique(return_counts=True)`): a canonical copy of the keys (floats: every NaN the
/// positive quiet NaN, `-0.0` as `+0.0`, so that all NaNs are one value, sorted last,
/// and both zeros one value), sorted by the radix sort, then run-length encoded.
/// `keys` is not modified. At most `u32::MAX` keys.
pub fn unique_counts<K: Key>(gpu: &Gpu, keys: &DeviceBuffer<K>) -> Result<(DeviceBuffer<K>, DeviceBuffer<u32>)> {
    let n = keys.len();
    Error::check_u32_indices("unique", n)?;
    if n == 0 {
        return Ok((gpu.alloc(0)?, gpu.alloc(0)?));
    }
    let mut sorted = canonical_copy(gpu, keys)?;
    super::sort(gpu, &mut sorted, &SortOptions::default())?;
    run_length_encode(gpu, &sorted)
}

/// [`unique_counts`] into given buffers (each at least as long as `keys`), the counts
/// as `u64` or none ([`run_length_encode_into_wide`]); returns the number of values.
pub fn unique_counts_into_wide<K: Key>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    out_keys: &mut DeviceBuffer<K>,
    out_counts: Option<&mut DeviceBuffer<u64>>,
) -> Result<usize> {
    check_outputs(keys.len(), out_keys.len(), out_counts.as_ref().map(|c| c.len()))?;
    if keys.is_empty() {
        return Ok(0);
    }
    let mut sorted = canonical_copy(gpu, keys)?;
    super::sort(gpu, &mut sorted, &SortOptions::default())?;
    run_length_encode_into_wide(gpu, &sorted, out_keys, out_counts)
}
