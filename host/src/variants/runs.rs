//! Run-length encoding on the device (`unique_consecutive`, `run_length_encode`) and
//! `unique` / `unique_counts` (a sort of a canonical copy, then the encoding):
//! `kernels/src/runs/` describes the one-pass kernel.
//!
//! Launches: one memset of the control block and of two status words per tile of
//! 4,096 keys (one scratch buffer), one `runs_encode`, then **one device-to-host read**
//! of the number of runs (the length of the results). `unique` adds the canonicalising
//! copy (floats: [`super::nan::canonical_copy_as`]) or a device copy (integers) and
//! the radix sort before it. Every key width has its kernel, 16- and 8-bit keys
//! included.
use cudarc::driver::LaunchConfig;
use kernels::key::BitOrder;
use kernels::params::DevPtr;
use kernels::runs::{self as rk, Encode, RunKernels, ctrl};

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

/// The encoding of `keys` (outputs checked by the caller): returns the number of runs.
fn encode<K: Key>(gpu: &Gpu, keys: &DeviceBuffer<K>, out_keys: &mut DeviceBuffer<K>, counts: Counts) -> Result<usize> {
    let n = keys.len();
    if n == 0 {
        return Ok(0);
    }
    let tiles = rk::tiles(n as u64, size_of::<K>() as u32) as usize;
    // Words of u32: the control block's, then two u64 status words per tile, zeroed by
    // one memset.
    let ctrl_words = 2 * ctrl::WORDS as usize;
    let mut scratch = Scratch::take(gpu, &[ctrl_words + 4 * tiles])?;
    let words = &mut scratch.bufs[0];
    words.zero_prefix(gpu, ctrl_words + 4 * tiles)?;
    let cfg = blocks(tiles as u64, rk::BLOCK, rk::SMEM)?;
    let ctrl_ptr: DevPtr<u64> = words.dev_ptr().cast();
    let status_ptr = DevPtr::from_addr(words.ptr() + 4 * ctrl_words as u64);
    let inf = if K::KEY_ORDER == BitOrder::Float {
        kernels::key::float_inf_bits(8 * size_of::<K>() as u32, K::MANTISSA_BITS)
    } else {
        0
    };
    // The kernels move a primitive key as the unsigned word of its width.
    fn launch<W: RunKernels>(gpu: &Gpu, cfg: LaunchConfig, p: Encode<W>) -> Result<()> {
        gpu.launch(W::ENCODE, cfg, &p)
    }
    macro_rules! params {
        ($w:ty) => {
            Encode::<$w> {
                keys: keys.dev_ptr().cast(),
                n: n as u64,
                inf: inf as $w,
                backoff: rk::BACKOFF_NS,
                wide_counts: matches!(counts, Counts::U64(_)) as u32,
                ctrl: ctrl_ptr,
                status: status_ptr,
                out_keys: out_keys.dev_ptr().cast(),
                out_counts: DevPtr::from_addr(match counts {
                    Counts::U32(a) | Counts::U64(a) => a,
                    Counts::None => 0,
                }),
            }
        };
    }
    match size_of::<K>() {
        1 => launch(gpu, cfg, params!(u8))?,
        2 => launch(gpu, cfg, params!(u16))?,
        4 => launch(gpu, cfg, params!(u32))?,
        _ => launch(gpu, cfg, params!(u64))?,
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
