//! NaN-last order on the GPU ([`crate::NanOrder::Last`]), by a canonical copy: the
//! sorting kernels know IEEE 754 total order only, which keeps the default order's
//! kernels as fast as they are. For float keys under NaN-last order
//! ([`crate::KeyOrder::nan_last_for`], the one place that decides), `nan_canonical_k16`
//! / `_k32` / `_k64` ([`kernels::nan`]) copy the keys with every NaN replaced by the
//! largest NaN in total order ([`canonical_copy`]; `unique` and `searchsorted` use the
//! same copy with the quiet NaN: [`canonical_copy_as`]); total order on that copy is NaN-last order (NaN-first
//! descending), all NaNs equal. The copy is sorted with positions, and the original
//! keys (and values) are gathered by them, so NaN payloads are kept.
//!
//! Costs over a total-order sort of the same keys: one copy pass, a pair sort instead
//! of a keys-only one, and a gather. Sorts, pairs and argsort use [`argsort`]; top-k
//! ([`super::topk`]) and segments and rows ([`super::segmented`]) call
//! [`canonical_copy`] and gather themselves.
use kernels::nan::{Canonicalize, NanCheck};

use super::launch::blocks;
use super::scratch::Scratch;
use crate::device::{DeviceBuffer, Gpu, PendingWord};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::options::{Order, SortOptions, Ties};
use kernels::key::BitOrder;
use kernels::params::DevPtr;

/// Which NaN a canonical copy writes in place of every NaN of the keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CanonicalNan {
    /// The largest NaN in IEEE total order (every bit but the sign set:
    /// [`kernels::nan::largest_nan_bits`]): total order on the copy is NaN-last order.
    Largest,
    /// The positive quiet NaN without payload (`f32::NAN`, ...:
    /// [`kernels::nan::quiet_nan_bits`]): the NaN `unique` returns.
    Quiet,
}

/// Blocks of a grid-stride pass over the keys: enough to fill the device, fewer for
/// few keys.
fn stride_grid(gpu: &Gpu, n: usize) -> Result<cudarc::driver::LaunchConfig> {
    let block = kernels::nan::BLOCK;
    blocks((n as u64).div_ceil(block as u64).min(gpu.info().multiprocessors as u64 * 16), block, 0)
}

/// The `+inf` bits of float keys `K` (`Err` for keys that are not floats: they have no
/// NaNs; `what` names the caller).
pub(crate) fn inf_bits<K: Element>(what: &str) -> Result<u64> {
    if K::BIT_ORDER != Some(BitOrder::Float) {
        return Err(Error::BadArgument(format!("{what} takes float keys, not {}", K::NAME)));
    }
    Ok(kernels::key::float_inf_bits(8 * size_of::<K>() as u32, K::MANTISSA_BITS))
}

/// A copy of the float keys `keys` with every NaN, whatever its sign and payload,
/// replaced by the NaN `nan` asks for and `-0.0` by `+0.0`; every other key is copied
/// bit for bit ([`kernels::nan::canonical_raw`]). One kernel family for every float
/// width (`nan_canonical_k16` / `_k32` / `_k64`; `f16` and `bf16` told apart by their
/// `+inf`). [`Error::BadArgument`] for keys that are not floats. Queued, not waited for.
pub fn canonical_copy_as<K: Element>(gpu: &Gpu, keys: &DeviceBuffer<K>, nan: CanonicalNan) -> Result<DeviceBuffer<K>> {
    let inf = inf_bits::<K>("the NaN-canonical copy")?;
    let width = 8 * size_of::<K>() as u32;
    let nan = match nan {
        CanonicalNan::Largest => kernels::nan::largest_nan_bits(width),
        CanonicalNan::Quiet => kernels::nan::quiet_nan_bits(width, K::MANTISSA_BITS),
    };
    let copy = gpu.alloc::<K>(keys.len())?;
    canonicalize(gpu, keys.ptr(), copy.ptr(), keys.len(), width, inf, nan)?;
    Ok(copy)
}

/// The canonical bits ([`kernels::nan::canonical_raw`]) of the `n` floats of `width`
/// bits at device address `src`, every NaN written as `nan`, to device address `dst`
/// (may be `src`). Queued.
fn canonicalize(gpu: &Gpu, src: u64, dst: u64, n: usize, width: u32, inf: u64, nan: u64) -> Result<()> {
    if n == 0 {
        return Ok(());
    }
    let cfg = stride_grid(gpu, n)?;
    macro_rules! launch {
        ($w:ty, $kernel:expr) => {{
            let p = Canonicalize::<$w> {
                src: DevPtr::from_addr(src),
                dst: DevPtr::from_addr(dst),
                n: n as u64,
                inf: inf as $w,
                nan: nan as $w,
            };
            gpu.launch($kernel, cfg, &p)
        }};
    }
    match width {
        16 => launch!(u16, kernels::nan::nan_canonical_k16),
        32 => launch!(u32, kernels::nan::nan_canonical_k32),
        64 => launch!(u64, kernels::nan::nan_canonical_k64),
        w => Err(Error::BadArgument(format!("no {w}-bit float keys"))),
    }
}

/// The NaN-last copy ([`CanonicalNan::Largest`]) of the `n` floats of `width` bits
/// whose `+inf` has bits `inf` at device address `src`, to `dst`: the copy an argsort
/// of keys other than 32-bit ones sorts ([`super::radix::argsort_at`]). Queued.
pub(crate) fn canonical_copy_at(gpu: &Gpu, src: u64, dst: u64, n: usize, width: u32, inf: u64) -> Result<()> {
    canonicalize(gpu, src, dst, n, width, inf, kernels::nan::largest_nan_bits(width))
}

/// [`canonical_copy_as`] with [`CanonicalNan::Largest`]: the copy whose IEEE total
/// order is NaN-last order (the NaN-last sorts, top-k, segments, rows, select).
pub fn canonical_copy<K: Element>(gpu: &Gpu, keys: &DeviceBuffer<K>) -> Result<DeviceBuffer<K>> {
    canonical_copy_as(gpu, keys, CanonicalNan::Largest)
}

/// Whether the device keys `keys` hold a NaN or `-0.0`
/// ([`kernels::nan::is_nan_or_negative_zero`]): the float keys whose NaN-last order
/// differs from their IEEE total order, so that a caller can sort keys without them
/// by the total-order path (no canonical copy, pair sort and gather). One grid-stride
/// pass that reads each key once and sets a flag, then one 4-byte read of the flag
/// (which waits for the device). Keys that are not floats: `false`, no launch.
pub fn has_nan_or_negative_zero<K: Element>(gpu: &Gpu, keys: &DeviceBuffer<K>) -> Result<bool> {
    let Ok(inf) = inf_bits::<K>("") else { return Ok(false) };
    let n = keys.len();
    if n == 0 {
        return Ok(false);
    }
    let mut scratch = Scratch::take(gpu, &[1])?;
    let flag = &mut scratch.bufs[0];
    flag.zero_prefix(gpu, 1)?;
    launch_check(gpu, keys, inf, flag.dev_ptr())?;
    let mut found = [0u32];
    flag.read_at(gpu, 0, &mut found)?;
    Ok(found[0] != 0)
}

/// The stable sorting permutation of the float keys `keys` in NaN-last `order`: the
/// radix argsort of their canonical bits (by order bits `key_bits` of those, which
/// are NaN-last order's). 32-bit keys are mapped by the argsort passes as they read
/// them (no copy: NaN-last order costs what total order costs); other widths sort a
/// canonical copy with positions.
pub fn argsort<K: Element>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    order: Order,
    key_bits: Option<(u32, u32)>,
) -> Result<DeviceBuffer<u32>> {
    let mut idx = gpu.alloc::<u32>(keys.len())?;
    argsort_into(gpu, keys, &mut idx, order, key_bits)?;
    Ok(idx)
}

/// [`argsort`] into `out` (same length), indices of `I` (`u32` or `u64`).
pub fn argsort_into<K: Element, I: super::radix::Index>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    out: &mut DeviceBuffer<I>,
    order: Order,
    key_bits: Option<(u32, u32)>,
) -> Result<()> {
    let n = keys.len();
    if n != out.len() {
        return Err(Error::LengthMismatch { keys: n, values: out.len() });
    }
    let inf = inf_bits::<K>("a NaN-last argsort")?;
    // Total order on the canonical bits is NaN-last order: the float keys' bit order.
    let float = BitOrder::Float;
    super::radix::argsort_at::<K, I>(gpu, keys.ptr(), out.ptr(), n, float, order, key_bits, Some(inf), Ties::Stable)
}

/// Sorts the float keys `buf` in NaN-last `order`, their bits kept (NaN payloads and
/// signs, both zeros, each block in input order: `numpy.sort(kind='stable')`).
///
/// Keys with neither NaN nor `-0.0` are in NaN-last order exactly when in total order,
/// which the plain radix sort gives. So past the one-block size the keys are checked
/// ([`kernels::nan::is_nan_or_negative_zero`]) and the total-order sort queued; the
/// check's answer is read once the sort's histogram and first digit pass are queued
/// (the first pass writes scratch only), so the wait overlaps them, and the sort goes
/// on if no key was either. Otherwise it stops there, with `buf` as it was, and the
/// keys are sorted by their canonical copy ([`sort_canonical`]). For 4- and 8-byte
/// floats past the fused sort's sizes the check is the histogram's own, whose last
/// block sets a word of page-locked memory that the host polls
/// (`radix::nan_check_in_histogram`); otherwise a pass of its own before the sort,
/// whose flag is copied back. Up to the one-block size (where a wait would cost more
/// than the sort) the canonical way is taken straight away.
pub fn sort<K: Element>(
    gpu: &Gpu,
    buf: &mut DeviceBuffer<K>,
    order: Order,
    key_bits: Option<(u32, u32)>,
) -> Result<()> {
    let inf = inf_bits::<K>("a NaN-last sort")?;
    let n = buf.len();
    if n <= 1 {
        return Ok(());
    }
    let kb = size_of::<K>();
    if n as u64 <= super::radix::small_max(kb, 0) {
        return sort_canonical(gpu, buf, order, key_bits);
    }
    let opts = SortOptions { order, key_bits, ..SortOptions::new(crate::Variant::Radix) };
    let sorted = if super::radix::nan_check_in_histogram::<K>(gpu.tuning(), n, inf) {
        super::radix::sort_unless(gpu, buf, &opts, Some(inf), &mut || Ok(false))?
    } else {
        let flag = queue_check(gpu, buf, inf)?;
        with_flag(gpu, flag, |stop| super::radix::sort_unless(gpu, buf, &opts, None, stop))?
    };
    if sorted {
        return Ok(());
    }
    sort_canonical(gpu, buf, order, key_bits)
}

/// [`sort`] from `src` into `dst` (same length, `src` only read, as
/// [`super::radix::sort_into`]): past the one-block size the check of `src` and the
/// total-order sort into `dst`, whose first pass reads `src`; if the check finds a
/// NaN or `-0.0`, `src` is copied into `dst` and sorted there by [`sort_canonical`].
pub fn sort_into<K: Element>(
    gpu: &Gpu,
    src: &DeviceBuffer<K>,
    dst: &mut DeviceBuffer<K>,
    order: Order,
    key_bits: Option<(u32, u32)>,
) -> Result<()> {
    super::radix::check_into(src, dst)?;
    if src.ptr() == dst.ptr() {
        return sort(gpu, dst, order, key_bits);
    }
    let inf = inf_bits::<K>("a NaN-last sort")?;
    let n = src.len();
    if n as u64 > super::radix::small_max(size_of::<K>(), 0) {
        let opts = SortOptions { order, key_bits, ..SortOptions::new(crate::Variant::Radix) };
        let sorted = if super::radix::nan_check_in_histogram::<K>(gpu.tuning(), n, inf) {
            super::radix::sort_into_unless(gpu, src, dst, &opts, Some(inf), &mut || Ok(false))?
        } else {
            let flag = queue_check(gpu, src, inf)?;
            with_flag(gpu, flag, |stop| super::radix::sort_into_unless(gpu, src, dst, &opts, None, stop))?
        };
        if sorted {
            return Ok(());
        }
    }
    dst.copy_from_device(gpu, src)?;
    sort_canonical(gpu, dst, order, key_bits)
}

/// Runs `sort` with a `stop` that reads the answer of a queued check ([`queue_check`]):
/// whether `sort` went on (the keys held neither NaN nor `-0.0`).
fn with_flag(
    gpu: &Gpu,
    flag: PendingWord,
    sort: impl FnOnce(&mut dyn FnMut() -> Result<bool>) -> Result<bool>,
) -> Result<bool> {
    let mut flag = Some(flag);
    sort(&mut || Ok(flag.take().map(|f| f.read(gpu)).transpose()?.is_some_and(|w| w != 0)))
}

/// Launches the NaN / `-0.0` check of `keys` (float keys whose `+inf` has bits `inf`),
/// which sets the word at `found` (zeroed by the caller) if it sees either.
fn launch_check<K: Element>(gpu: &Gpu, keys: &DeviceBuffer<K>, inf: u64, found: DevPtr<u32>) -> Result<()> {
    let n = keys.len();
    let cfg = stride_grid(gpu, n)?;
    macro_rules! launch {
        ($w:ty, $kernel:expr) => {{
            let p = NanCheck::<$w> { keys: keys.dev_ptr().cast(), n: n as u64, inf: inf as $w, found };
            gpu.launch($kernel, cfg, &p)
        }};
    }
    match size_of::<K>() {
        2 => launch!(u16, kernels::nan::nan_check_k16),
        4 => launch!(u32, kernels::nan::nan_check_k32),
        8 => launch!(u64, kernels::nan::nan_check_k64),
        w => Err(Error::BadArgument(format!("no {w}-byte float keys"))),
    }
}

/// Queues the NaN / `-0.0` check of `keys` (float keys whose `+inf` has bits `inf`)
/// and the copy of its flag (nonzero: found) back to the host.
fn queue_check<K: Element>(gpu: &Gpu, keys: &DeviceBuffer<K>, inf: u64) -> Result<PendingWord> {
    // The flag's word goes back to the cache once its copy is queued (stream order).
    let mut scratch = Scratch::take(gpu, &[1])?;
    let word = &mut scratch.bufs[0];
    word.zero_prefix(gpu, 1)?;
    launch_check(gpu, keys, inf, word.dev_ptr())?;
    PendingWord::queue(gpu, word, 0)
}

/// [`sort`] without the check: 32- and 64-bit keys as pairs of their canonical copy
/// ([`CanonicalNan::Largest`], in scratch memory) and their own bits as the values,
/// one radix pair sort; 16-bit keys past the one-block size by the argsort passes
/// carrying the keys (`radix_onesweep_carry_k16`), below it (whose pairs
/// would need 2-byte values) by [`argsort`] of the canonical bits and a gather.
pub fn sort_canonical<K: Element>(
    gpu: &Gpu,
    buf: &mut DeviceBuffer<K>,
    order: Order,
    key_bits: Option<(u32, u32)>,
) -> Result<()> {
    let inf = inf_bits::<K>("a NaN-last sort")?;
    let (n, kb) = (buf.len(), size_of::<K>());
    if n <= 1 {
        return Ok(());
    }
    let width = 8 * kb as u32;
    let float = BitOrder::Float;
    match kb {
        4 | 8 => {
            let scratch = Scratch::take(gpu, &[n * kb / 4])?;
            let copy = scratch.bufs[0].ptr();
            canonical_copy_at(gpu, buf.ptr(), copy, n, width, inf)?;
            let values = (kb, buf.ptr());
            if kb == 4 {
                super::radix::sort_pairs_at::<u32>(gpu, copy, values, n, float, order, key_bits)
            } else {
                super::radix::sort_pairs_at::<u64>(gpu, copy, values, n, float, order, key_bits)
            }
        }
        _ => {
            if super::radix::sort_carrying_at::<K>(gpu, buf.ptr(), n, order, key_bits, inf)? {
                return Ok(());
            }
            let perm = argsort(gpu, buf, order, key_bits)?;
            let mut sorted = gpu.alloc::<K>(n)?;
            super::records::gather_from(gpu, buf, &mut sorted, &perm)?;
            buf.copy_from_device(gpu, &sorted)
        }
    }
}
