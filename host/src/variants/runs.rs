//! Run-length encoding on the device (`unique_consecutive`, `run_length_encode`) and
//! `unique` / `unique_counts` (a sort of a canonical copy, then the encoding):
//! `kernels/src/runs/` describes the one-pass kernel.
//!
//! Launches: a memset of the control block and of two status words per tile of 8,192
//! keys, one `runs_encode`, then **one device-to-host read** of the number of runs
//! (the length of the results). `unique` adds the canonicalising copy (floats) or a
//! device copy (integers) and the radix sort before it.
use cudarc::driver::LaunchConfig;
use kernels::key::BitOrder;
use kernels::params::DevPtr;
use kernels::runs::{self as rk, Canonical, Encode, RunKernels, ctrl};

use super::launch::blocks;
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
    crate::element::narrow_refusal::<K>("the GPU run-length encoding")?;
    let n = keys.len();
    Error::check_u32_indices("run-length encoding", n)?;
    if out_keys.len() < n || out_counts.len() < n {
        return Err(Error::BadArgument(format!(
            "run-length encoding of {n} keys into buffers of {} keys and {} counts",
            out_keys.len(),
            out_counts.len()
        )));
    }
    if n == 0 {
        return Ok(0);
    }
    let tiles = rk::tiles(n as u64, size_of::<K>() as u32) as usize;
    // Words of u32: the control block's and two u64 status words per tile.
    let mut scratch = Scratch::take(gpu, &[2 * ctrl::WORDS as usize, 4 * tiles])?;
    let [ctrl_buf, status] = &mut scratch.bufs[..] else { unreachable!("two buffers") };
    ctrl_buf.zero_prefix(gpu, 2 * ctrl::WORDS as usize)?;
    status.zero_prefix(gpu, 4 * tiles)?;
    let cfg = blocks(tiles as u64, rk::BLOCK, rk::SMEM)?;
    let (ctrl_ptr, status_ptr) = (ctrl_buf.dev_ptr().cast(), status.dev_ptr().cast());
    // The kernels move a primitive key as the unsigned word of its width.
    fn launch<W: RunKernels>(gpu: &Gpu, cfg: LaunchConfig, p: Encode<W>) -> Result<()> {
        gpu.launch(W::ENCODE, cfg, &p)
    }
    macro_rules! params {
        ($w:ty) => {
            Encode::<$w> {
                keys: keys.dev_ptr().cast(),
                n: n as u64,
                float: (K::KEY_ORDER == BitOrder::Float) as u32,
                ctrl: ctrl_ptr,
                status: status_ptr,
                out_keys: out_keys.dev_ptr().cast(),
                out_counts: out_counts.dev_ptr(),
            }
        };
    }
    match size_of::<K>() {
        4 => launch(gpu, cfg, params!(u32))?,
        _ => launch(gpu, cfg, params!(u64))?,
    }
    let mut words = [0u32; 2];
    ctrl_buf.read_at(gpu, 2 * ctrl::RUNS as usize, &mut words)?;
    let runs = u64::from_le_bytes(bytemuck::cast(words)) as usize;
    if runs == 0 || runs > n {
        return Err(Error::BadArgument(format!("run-length encoding: {runs} runs of {n} keys (a bug: please report)")));
    }
    Ok(runs)
}

/// The sorted distinct values of `keys` and how often each occurs (numpy's
/// `unique(return_counts=True)`): a canonical copy of the keys (floats: every NaN the
/// positive quiet NaN, `-0.0` as `+0.0`, so that all NaNs are one value, sorted last,
/// and both zeros one value), sorted by the radix sort, then run-length encoded.
/// `keys` is not modified. At most `u32::MAX` keys.
pub fn unique_counts<K: Key>(gpu: &Gpu, keys: &DeviceBuffer<K>) -> Result<(DeviceBuffer<K>, DeviceBuffer<u32>)> {
    crate::element::narrow_refusal::<K>("the GPU unique")?;
    let n = keys.len();
    Error::check_u32_indices("unique", n)?;
    if n == 0 {
        return Ok((gpu.alloc(0)?, gpu.alloc(0)?));
    }
    let mut sorted = gpu.alloc::<K>(n)?;
    if K::KEY_ORDER == BitOrder::Float {
        let grid = (n as u64).div_ceil(rk::COPY_BLOCK as u64).min(gpu.info().multiprocessors as u64 * 16);
        let cfg = blocks(grid, rk::COPY_BLOCK, 0)?;
        fn launch<W: RunKernels>(gpu: &Gpu, cfg: LaunchConfig, src: u64, dst: u64, n: u64) -> Result<()> {
            let p = Canonical::<W> { src: DevPtr::from_addr(src), dst: DevPtr::from_addr(dst), n };
            gpu.launch(W::CANONICAL, cfg, &p)
        }
        let (src, dst) = (keys.ptr(), sorted.ptr());
        match size_of::<K>() {
            4 => launch::<u32>(gpu, cfg, src, dst, n as u64)?,
            _ => launch::<u64>(gpu, cfg, src, dst, n as u64)?,
        }
    } else {
        sorted.copy_from_device(gpu, keys)?;
    }
    super::sort(gpu, &mut sorted, &SortOptions::default())?;
    run_length_encode(gpu, &sorted)
}
