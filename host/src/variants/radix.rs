//! `radix`: the Onesweep-style LSD radix sort (kernels and their passes are described
//! in `kernels/src/radix/mod.rs`). Primitive keys of 32 or 64 bits, alone or with a 32-
//! or 64-bit value each (pairs, argsort); keys of 16 or 8 bits alone or with a 32-bit
//! value, moved at their own width (two or one digit pass). Records such as [`crate::Entity`], and values
//! wider than 8 bytes, are sorted one level up, by these pairs and a gather
//! (`variants/records.rs`).
//!
//! Launches per sort: one for inputs of at most [`small_max`] keys (one block sorts
//! them in shared memory, on a shorter tile for fewer keys:
//! [`kernels::radix::small_items`]); otherwise a histogram, one per digit pass (and
//! per 2^30 keys; on short tiles up to [`kernels::radix::SHORT_ONESWEEP_MAX`] keys),
//! and one copy-back that does nothing unless the plan left the keys in the scratch
//! buffer; keys alone of 32 or 64 bits, and `u32` keys with `u32` values, up to
//! [`Tuning::radix_fused_max`] keys: the same steps in one cooperative launch
//! ([`kernels::radix::Fused`]). The host never
//! waits: which passes to skip and where the result lands are decided on the device.
use kernels::key::Word;
use kernels::params::DevPtr;
use kernels::params::Kernel;
use kernels::radix::{self as rk, FusedKernel, HistKernel, NarrowCopyBack, Packing, Smem, Widths};
use kernels::{SortKey, key::BitOrder};

use super::launch::blocks;
use super::scratch::Scratch;
use crate::device::{DeviceBuffer, Gpu, HostWord};
use crate::element::{Element, Key};
use crate::error::{Error, Result};
use crate::options::{KeyOrder, Order, SortOptions, Ties};
use crate::tuning::Tuning;

/// Largest input of keys of `T` (with values of `V`, or none) sorted by the one-block
/// kernel.
pub fn small_max(key_bytes: usize, value_bytes: usize) -> u64 {
    rk::small_max(key_bytes as u32, value_bytes as u32)
}

/// Which bits of the order bits a radix sort looks at: `begin..end`, the full width
/// by default. Keys equal on those bits keep their input order.
pub fn check_bits<T: SortKey>(bits: Option<(u32, u32)>, width: u32) -> Result<(u32, u32)> {
    let (begin, end) = bits.unwrap_or((0, width));
    if begin >= end || end > width {
        return Err(Error::BadArgument(format!(
            "key bits {begin}..{end} must be a non-empty range within the {width} bits of a {} key",
            T::NAME
        )));
    }
    Ok((begin, end))
}

/// Sorts `buf`, primitive keys, by the radix sort (the `radix` variant's sort of
/// keys; the variant sorts records by their key field and a gather). A record type is
/// [`Error::BadArgument`].
pub fn sort<T: Element>(gpu: &Gpu, buf: &mut DeviceBuffer<T>, opts: &SortOptions) -> Result<()> {
    key_job(gpu.tuning(), buf, opts)?.run(gpu)
}

/// [`sort`] that asks `stop` once, at the last moment the keys are still as they were
/// (before the launch of the one-block sort; after the launches of the histogram and
/// the first digit pass, which writes only scratch memory), and leaves `buf` as it
/// was if `stop` says `true`. Returns whether it sorted. The NaN-last sort
/// ([`super::nan::sort`]) reads a flag there while the first pass runs: its check's,
/// or with `nan_check` = `Some(inf)` (only where [`nan_check_in_histogram`] says so)
/// the histogram's own, which then checks the keys for NaN and `-0.0` of the float
/// format whose `+inf` has bits `inf` and stops the sort if it finds one.
pub(crate) fn sort_unless<T: Element>(
    gpu: &Gpu,
    buf: &mut DeviceBuffer<T>,
    opts: &SortOptions,
    nan_check: Option<u64>,
    stop: &mut dyn FnMut() -> Result<bool>,
) -> Result<bool> {
    key_job(gpu.tuning(), buf, opts)?.checking_nan(nan_check).run_unless(gpu, stop)
}

/// Whether a NaN-last sort of `n` float keys of `T` (whose `+inf` has bits `inf`) can
/// leave its check to the radix histogram ([`sort_unless`]'s `nan_check`): floats of
/// every width past the sizes sorted in one launch (the one-block and the fused
/// sorts, which cannot stop after a histogram). The check is then one more compare
/// per key of a read the sort makes anyway, and its verdict a word of host memory
/// that the histogram's last block sets, instead of a pass over the keys and a copy
/// of its flag: 2^24 f32 keys 0.406 -> 0.367 ms, as total order (0.365; H200,
/// 2026-11-29).
pub(crate) fn nan_check_in_histogram<T: Element>(tuning: &Tuning, n: usize, inf: u64) -> bool {
    let kb = size_of::<T>() as u32;
    let one_launch = fused_limit(tuning, kb, 0).max(rk::small_max(kb, 0));
    let checks = match kb {
        2 => <u16 as HistKernel>::hist_checking(inf).is_some(),
        4 => <u32 as HistKernel>::hist_checking(inf).is_some(),
        8 => <u64 as HistKernel>::hist_checking(inf).is_some(),
        _ => false,
    };
    n as u64 > one_launch && checks
}

/// Sorts the `n` keys of `K` at device address `keys` by order bits `bits` (`None`:
/// all) of `bit_order`, with the `n` values of `vb` (4 or 8) bytes at `values` moved
/// with them: the NaN-last sort's pairs of canonical keys and original bits.
#[allow(clippy::too_many_arguments)]
pub(crate) fn sort_pairs_at<K: SortKey>(
    gpu: &Gpu,
    keys: u64,
    values: (usize, u64),
    n: usize,
    bit_order: BitOrder,
    order: Order,
    bits: Option<(u32, u32)>,
) -> Result<()> {
    let bits = check_bits::<K>(bits, 8 * size_of::<K>() as u32)?;
    Job::new::<K>(gpu.tuning(), bit_order, order, bits, n, keys, Some(values)).run(gpu)
}

/// [`sort`] of primitive keys with at most `portion_tiles` tiles per onesweep launch
/// (normally 2^30 keys' worth), so that tests reach the portion logic with small
/// inputs.
#[doc(hidden)]
pub fn sort_with_portion_tiles<T: Element>(
    gpu: &Gpu,
    buf: &mut DeviceBuffer<T>,
    opts: &SortOptions,
    portion_tiles: u64,
) -> Result<()> {
    let mut job = key_job(gpu.tuning(), buf, opts)?;
    job.portion = portion_tiles.clamp(1, job.portion);
    job.fused = false;
    job.run(gpu)
}

/// [`sort`] of the `n` keys from element `key_at` of `keys`, and with `values` =
/// `(buffer, val_at)` [`sort_pairs`] with the `u32` values from element `val_at`:
/// ranges starting at any element, so that tests reach the narrow widths' unaligned
/// tile loads and the copy-back's byte prefix and tail.
#[doc(hidden)]
pub fn sort_range<K: Key>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    key_at: usize,
    values: Option<(&mut DeviceBuffer<u32>, usize)>,
    n: usize,
    opts: &SortOptions,
) -> Result<()> {
    let fits = |at: usize, len: usize| at.checked_add(n).is_some_and(|end| end <= len);
    if !fits(key_at, keys.len()) || values.as_ref().is_some_and(|(v, at)| !fits(*at, v.len())) {
        return Err(Error::BadArgument(format!("a range of {n} keys from element {key_at} past its buffer")));
    }
    let bits = check_bits::<K>(opts.key_bits, 8 * size_of::<K>() as u32)?;
    let values = values.map(|(v, at)| (size_of::<u32>(), v.ptr_at(at)));
    Job::new::<K>(gpu.tuning(), K::KEY_ORDER, opts.order, bits, n, keys.ptr_at(key_at), values).run(gpu)
}

/// [`sort_pairs`] of `u32` keys with `u32` values (or any keys and values of 4 or 8
/// bytes, with `Packing::Split`), their pairs moved between passes as `packing` says
/// and at most `portion_tiles` tiles per onesweep launch, so that tests reach every
/// packing, and the portion logic, with small inputs.
#[doc(hidden)]
pub fn sort_pairs_with<K: Key, V: Element>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: &mut DeviceBuffer<V>,
    opts: &SortOptions,
    packing: Packing,
    portion_tiles: u64,
) -> Result<()> {
    let bit_order = K::KEY_ORDER;
    let (kb, vb) = (size_of::<K>(), size_of::<V>());
    if keys.len() != values.len() || !matches!(vb, 4 | 8) || (packing != Packing::Split && (kb, vb) != (4, 4)) {
        return Err(Error::BadArgument(format!(
            "{packing:?} pairs of {} {kb}-byte keys and {} {vb}-byte values",
            keys.len(),
            values.len()
        )));
    }
    let bits = check_bits::<K>(opts.key_bits, 8 * kb as u32)?;
    let mut job =
        Job::new::<K>(gpu.tuning(), bit_order, opts.order, bits, keys.len(), keys.ptr(), Some((vb, values.ptr())));
    job.packing = packing;
    (job.tile, _) = tile_for(gpu.tuning(), job.n, job.key_bytes, job.value_bytes, packing);
    job.portion = portion_tiles.clamp(1, rk::portion_tiles(job.tile));
    job.fused = false;
    job.run(gpu)
}

/// The radix sort of a buffer of primitive keys, as `opts` asks.
fn key_job<T: Element>(tuning: &Tuning, buf: &DeviceBuffer<T>, opts: &SortOptions) -> Result<Job> {
    let bit_order = T::BIT_ORDER.ok_or_else(|| Error::BadArgument(format!("{} is a record, not a key", T::NAME)))?;
    let bits = check_bits::<T>(opts.key_bits, 8 * size_of::<T>() as u32)?;
    Ok(Job::new::<T>(tuning, bit_order, opts.order, bits, buf.len(), buf.ptr(), None))
}

/// Sorts the `n` primitive keys of `K` at device address `keys` (a range of a larger
/// buffer: the segmented sort's long segments) by their whole key, in `order`, with
/// `values` = `(bytes per value, device address)` of 4- or 8-byte values if any.
pub(crate) fn sort_at<K: SortKey>(
    gpu: &Gpu,
    keys: u64,
    values: Option<(usize, u64)>,
    n: usize,
    bit_order: BitOrder,
    order: Order,
) -> Result<()> {
    Job::new::<K>(gpu.tuning(), bit_order, order, (0, 8 * size_of::<K>() as u32), n, keys, values).run(gpu)
}

/// Sorts the primitive keys of `src` into `dst` (same length), `src` left as it is:
/// the first digit pass reads `src` and the last lands in `dst`
/// ([`kernels::radix::into_plan`]), so no copy of the input is made (keys of 4 or 8
/// bytes past the one-block size; others are copied into `dst` and sorted there). The
/// same buffer as both is the sort in place; buffers that overlap otherwise are
/// [`Error::BadArgument`].
pub fn sort_into<T: Element>(
    gpu: &Gpu,
    src: &DeviceBuffer<T>,
    dst: &mut DeviceBuffer<T>,
    opts: &SortOptions,
) -> Result<()> {
    sort_into_unless(gpu, src, dst, opts, None, &mut || Ok(false)).map(drop)
}

/// [`sort_into`] with [`sort_unless`]'s `nan_check` and `stop` (asked while `src` is
/// only read; on `true` `dst` holds unspecified keys).
pub(crate) fn sort_into_unless<T: Element>(
    gpu: &Gpu,
    src: &DeviceBuffer<T>,
    dst: &mut DeviceBuffer<T>,
    opts: &SortOptions,
    nan_check: Option<u64>,
    stop: &mut dyn FnMut() -> Result<bool>,
) -> Result<bool> {
    check_into(src, dst)?;
    let job = key_job(gpu.tuning(), dst, opts)?.checking_nan(nan_check);
    if src.ptr() == dst.ptr() {
        return job.run_unless(gpu, stop);
    }
    job.with_input((src.ptr(), 0)).run_unless(gpu, stop)
}

/// Refuses a sort from `src` into `dst` of another length, or into memory that
/// overlaps `src` without being `src` itself.
pub(crate) fn check_into<T: bytemuck::Pod>(src: &DeviceBuffer<T>, dst: &DeviceBuffer<T>) -> Result<()> {
    if src.len() != dst.len() {
        return Err(Error::BadArgument(format!("a sort of {} keys into {} places", src.len(), dst.len())));
    }
    let bytes = (src.len() * size_of::<T>()) as u64;
    let (a, b) = (src.ptr(), dst.ptr());
    if bytes > 0 && a != b && a < b + bytes && b < a + bytes {
        return Err(Error::BadArgument("a sort into memory that overlaps its input (not in place)".into()));
    }
    Ok(())
}

/// Sorts `keys` and permutes `values` the same way (stable: equal keys keep their
/// order, and so do their values). Keys are the primitive types; values are of 4 or 8
/// bytes (an index, a second key, a payload) and move with their keys. Wider values
/// are [`Error::BadArgument`] here: they are sorted by (key, index) pairs and a gather
/// one level up (`variants/records.rs`).
pub fn sort_pairs<K: Key, V: Element>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: &mut DeviceBuffer<V>,
    order: Order,
    key_bits: Option<(u32, u32)>,
) -> Result<()> {
    let bit_order = K::KEY_ORDER;
    if keys.len() != values.len() {
        return Err(Error::LengthMismatch { keys: keys.len(), values: values.len() });
    }
    let bits = check_bits::<K>(key_bits, 8 * size_of::<K>() as u32)?;
    let vb = size_of::<V>();
    if !matches!(vb, 4 | 8) {
        return Err(Error::BadArgument(format!("radix moves values of 4 or 8 bytes with their keys, not of {vb}")));
    }
    Job::new::<K>(gpu.tuning(), bit_order, order, bits, keys.len(), keys.ptr(), Some((vb, values.ptr()))).run(gpu)
}

/// The index type of an argsort's result: `u32` or `u64` (an int64 tensor's indices,
/// written by the sort's last pass itself, with no widening pass). Sealed.
pub trait Index: Element + rk::ArgIndex + PartialEq + std::fmt::Debug + index_sealed::Sealed {
    /// The index `i` (a position below 2^32) as `Self`.
    fn from_index(i: u32) -> Self;
}

impl Index for u32 {
    fn from_index(i: u32) -> u32 {
        i
    }
}

impl Index for u64 {
    fn from_index(i: u32) -> u64 {
        i as u64
    }
}

mod index_sealed {
    pub trait Sealed {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
}

/// The stable sorting permutation of device-resident `keys` (left unchanged), as `u32`
/// indices in a new device buffer ([`argsort_into`]). At most 2^32 - 1 keys.
pub fn argsort<K: Key>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    order: Order,
    key_bits: Option<(u32, u32)>,
) -> Result<DeviceBuffer<u32>> {
    let mut idx = gpu.alloc::<u32>(keys.len())?;
    argsort_into(gpu, keys, &mut idx, order, key_bits)?;
    Ok(idx)
}

/// Writes the stable sorting permutation of device-resident `keys` (left unchanged)
/// into `out` (same length) as indices of `I` (`u32` or `u64`). 32-bit keys past the
/// one-block size take the argsort passes (`kernels::radix`: the first pass reads the
/// keys and makes each index from its position, the last writes only the indices, at
/// their own width); other keys are copied, paired with `0..n` and sorted as pairs
/// (then widened for `u64`). At most 2^32 - 1 keys: the passes carry each index in
/// the low half of a 64-bit word.
pub fn argsort_into<K: Key, I: Index>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    out: &mut DeviceBuffer<I>,
    order: Order,
    key_bits: Option<(u32, u32)>,
) -> Result<()> {
    argsort_ordered_into(gpu, keys, out, order.into(), key_bits, Ties::Stable)
}

/// [`argsort_into`] in the whole order `order`: floats in NaN-last order as
/// [`super::nan::argsort_into`] sorts them (their canonical bits), other keys and
/// orders by the keys' own order bits; equal keys as `ties` says ([`Ties::Any`]: the
/// argsort passes of 32- and 16-bit keys rank their first pass's ties in any order, the other
/// paths stay stable). The one choice of the argsort's way for callers holding a
/// [`KeyOrder`].
pub(crate) fn argsort_ordered_into<K: Key, I: Index>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    out: &mut DeviceBuffer<I>,
    order: KeyOrder,
    key_bits: Option<(u32, u32)>,
    ties: Ties,
) -> Result<()> {
    if keys.len() != out.len() {
        return Err(Error::LengthMismatch { keys: keys.len(), values: out.len() });
    }
    let (bit_order, nan_inf) = argsort_bit_order::<K>(order)?;
    argsort_at::<K, I>(gpu, keys.ptr(), out.ptr(), keys.len(), bit_order, order.order, key_bits, nan_inf, ties)
}

/// The bit order an argsort of `K` in `order` ranks by, and under NaN-last order of
/// floats the `+inf` bits whose NaNs and `-0.0` it canonicalises.
fn argsort_bit_order<K: Key>(order: KeyOrder) -> Result<(BitOrder, Option<u64>)> {
    Ok(if order.nan_last_for::<K>() {
        (BitOrder::Float, Some(super::nan::inf_bits::<K>("a NaN-last argsort")?))
    } else {
        (K::KEY_ORDER, None)
    })
}

/// [`argsort_into`] of the `n` keys of `K` at device address `keys`, compared by
/// `bit_order`, into the `n` indices of `I` at `out`. `nan_inf`: NaN-last order of
/// float keys whose `+inf` has these bits (`variants::nan`): the keys are sorted as
/// their canonical bits (every NaN the largest NaN, `-0.0` as `+0.0`), which the
/// argsort passes make as they read 32- and 16-bit keys (and their histogram counts), and the
/// copy of other widths holds. `ties`: [`Ties::Any`] lets the argsort passes rank
/// the first pass's ties in any order (the other paths are stable whatever it says).
#[allow(clippy::too_many_arguments)]
pub(crate) fn argsort_at<K: SortKey, I: Index>(
    gpu: &Gpu,
    keys: u64,
    out: u64,
    n: usize,
    bit_order: BitOrder,
    order: Order,
    key_bits: Option<(u32, u32)>,
    nan_inf: Option<u64>,
    ties: Ties,
) -> Result<()> {
    let kb = size_of::<K>() as u32;
    let bits = check_bits::<K>(key_bits, 8 * kb)?;
    if n > u32::MAX as usize {
        return argsort_wide_indices::<K, I>(gpu, keys, out, n, bit_order, order, bits, nan_inf);
    }
    if n == 0 {
        return Ok(());
    }
    if (kb == 4 || kb == 2) && argsort_packed(gpu.tuning(), n as u64) {
        let job = Job::packed_arg::<K>(gpu.tuning(), bit_order, order, bits, n, keys, (4, out));
        let nan_inf = nan_inf.unwrap_or(0);
        return if kb == 4 {
            job.run_arg::<u32, I>(gpu, nan_inf, ties)
        } else {
            job.run_arg::<u16, I>(gpu, nan_inf, ties)
        };
    }
    // The copy of the keys paired with `0..n` (`u32`: at most 2^32 - 1 keys), sorted.
    let copy = key_copy(gpu, keys, n, kb, nan_inf)?;
    let wide = size_of::<I>() == 8;
    let idx: Option<DeviceBuffer<u32>> = if wide { Some(gpu.alloc::<u32>(n)?) } else { None };
    let idx_addr = idx.as_ref().map_or(out, |b| b.ptr());
    let cfg = super::launch::one_thread_per_item(n as u64, 256, 0)?;
    let iota = kernels::records::Iota { idx: DevPtr::from_addr(idx_addr), n: n as u64 };
    gpu.launch(kernels::records::iota_u32, cfg, &iota)?;
    Job::new::<K>(gpu.tuning(), bit_order, order, bits, n, copy.ptr(), Some((4, idx_addr))).run(gpu)?;
    if wide {
        super::records::widen_indices(gpu, idx_addr, out, n as u64, 0)?;
    }
    Ok(())
}

/// The NaN-last sort of the `n` 16-bit float keys of `K` at device address `keys`, in
/// place, once a NaN or `-0.0` is known to be among them: ranked by their canonical
/// bits (`nan_inf`: the format's `+inf` bits) in `order`, each key's own bits carried
/// through the argsort passes in place of its position and stored by the last one
/// (`radix_onesweep_carry_k16`), so NaN payloads and zero signs are kept and equal
/// canonical keys stay in input order: the argsort and gather's result, in two passes.
/// `Ok(false)`: not taken (where the argsort would not take its passes, or for other
/// widths); nothing was queued.
pub(crate) fn sort_carrying_at<K: SortKey>(
    gpu: &Gpu,
    keys: u64,
    n: usize,
    order: Order,
    key_bits: Option<(u32, u32)>,
    nan_inf: u64,
) -> Result<bool> {
    if size_of::<K>() != 2 || n > u32::MAX as usize || !argsort_packed(gpu.tuning(), n as u64) {
        return Ok(false);
    }
    let bits = check_bits::<K>(key_bits, 16)?;
    let job = Job::packed_arg::<K>(gpu.tuning(), BitOrder::Float, order, bits, n, keys, (2, keys));
    job.run_packed_arg::<u16, u16>(gpu, rk::radix_onesweep_carry_k16, rk::radix_carry_back_k16, nan_inf)?;
    Ok(true)
}

/// [`argsort_into`] into `u64` indices by the path of 2^32 keys or more (a copy of
/// the keys sorted with `u64` values), whatever `n`, in `order` (NaN-last too): so
/// that tests reach that path with small inputs.
#[doc(hidden)]
pub fn argsort_by_u64_values<K: Key>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    out: &mut DeviceBuffer<u64>,
    order: KeyOrder,
    key_bits: Option<(u32, u32)>,
) -> Result<()> {
    let n = keys.len();
    if n != out.len() {
        return Err(Error::LengthMismatch { keys: n, values: out.len() });
    }
    let bits = check_bits::<K>(key_bits, 8 * size_of::<K>() as u32)?;
    let (bit_order, nan_inf) = argsort_bit_order::<K>(order)?;
    if n == 0 {
        return Ok(());
    }
    argsort_wide_indices::<K, u64>(gpu, keys.ptr(), out.ptr(), n, bit_order, order.order, bits, nan_inf)
}

/// [`argsort_at`] of 2^32 keys or more, into `u64` indices ([`Error::TooManyElements`]
/// for `u32`): the indices no longer fit the low half of the packed passes' words, so
/// a copy of the keys (canonical bits under NaN-last order; for 16- and 8-bit keys
/// their `u32` wide words, [`super::widen`]) is sorted with `0..n` as `u64` values by
/// the split pair passes, which write the indices straight into `out`. Device memory
/// besides the keys and `out`: the copy and the pair sort's scratch, ~24 bytes a key
/// for 32-bit keys (~100 GB for 2^32 of them), 32 for 64-bit keys.
#[allow(clippy::too_many_arguments)]
fn argsort_wide_indices<K: SortKey, I: Index>(
    gpu: &Gpu,
    keys: u64,
    out: u64,
    n: usize,
    bit_order: BitOrder,
    order: Order,
    (begin, end): (u32, u32),
    nan_inf: Option<u64>,
) -> Result<()> {
    if size_of::<I>() != 8 {
        return Err(Error::past_u32_indices("argsort", n));
    }
    let kb = size_of::<K>() as u32;
    let iota = kernels::records::Iota64 { idx: DevPtr::from_addr(out), n: n as u64 };
    gpu.launch(kernels::records::iota_u64, super::launch::one_thread_per_item(n as u64, 256, 0)?, &iota)?;
    if kb < 4 {
        // The order of the wide words is the keys' (a canonical copy's total order is
        // its NaN-last order), their order bits in the top bits of each word; only
        // NaN-last order needs a copy before widening.
        let words = gpu.alloc::<u32>(n)?;
        {
            let canonical = nan_inf.map(|inf| key_copy(gpu, keys, n, kb, Some(inf))).transpose()?;
            let src = canonical.as_ref().map_or(keys, |c| c.ptr());
            super::widen::widen_at(gpu, src, words.ptr(), n, kb as usize, bit_order)?;
        }
        let shift = kernels::widen::shift(kb);
        let bits = (begin + shift, end + shift);
        let job = Job::new::<u32>(gpu.tuning(), BitOrder::Unsigned, order, bits, n, words.ptr(), Some((8, out)));
        return job.run(gpu);
    }
    let copy = key_copy(gpu, keys, n, kb, nan_inf)?;
    Job::new::<K>(gpu.tuning(), bit_order, order, (begin, end), n, copy.ptr(), Some((8, out))).run(gpu)
}

/// A copy of the `n` keys of `kb` bytes at device address `keys`, the argsorts' to
/// sort: their canonical bits under NaN-last order (`nan_inf`: the `+inf` bits, see
/// [`argsort_at`]), else the raw bytes (`K` is only a width here).
fn key_copy(gpu: &Gpu, keys: u64, n: usize, kb: u32, nan_inf: Option<u64>) -> Result<DeviceBuffer<u8>> {
    let bytes = n as u64 * kb as u64;
    let copy = gpu.alloc::<u8>(bytes as usize)?;
    match nan_inf {
        Some(inf) => super::nan::canonical_copy_at(gpu, keys, copy.ptr(), n, 8 * kb, inf)?,
        None => gpu.copy_raw(copy.ptr(), keys, bytes)?,
    }
    Ok(copy)
}

/// Whether an argsort of `n` 32- or 16-bit keys takes the argsort passes
/// ([`Job::run_arg`]): past the one-block sort and the short tiles (the argsort passes
/// run on the packed tile), unless [`Tuning::radix_pairs`] asks for split pairs.
fn argsort_packed(tuning: &Tuning, n: u64) -> bool {
    n > rk::small_max(4, 4)
        && onesweep_tile(tuning, n, 4, 4) == rk::tile(4, 4)
        && !matches!(tuning.radix_pairs, Some(Packing::Split | Packing::Alternate))
}

/// Device bytes a pair sort of `n` keys of `kb` bytes with values of `vb` bytes needs
/// besides its input, on a device tuned by `tuning`.
pub(crate) fn pairs_scratch_bytes(tuning: &Tuning, n: usize, kb: u32, vb: u32) -> u64 {
    Plan::scratch_bytes(tuning, n, kb, vb)
}

/// Keys per tile of the digit passes of a sort of `n` keys ([`rk::onesweep_tile`],
/// short tiles up to [`Tuning::radix_short_onesweep_max`] keys).
fn onesweep_tile(tuning: &Tuning, n: u64, kb: u32, vb: u32) -> u32 {
    rk::onesweep_tile(n, kb, vb, tuning.radix_short_onesweep_max)
}

/// Largest sort of keys of `kb` bytes with values of `vb` bytes (0: keys alone) that
/// runs as one fused launch by default ([`Tuning::radix_fused_max`]): where it measured
/// faster than the separate launches (H100, 2026-11-28, medians of 30, main's build in
/// the same call; docs/history.md, radix: "One launch for small inputs"): `u32` keys up
/// to 2^18 (2^18: 47-49 against 49-51 us; 2^19: 59-61 against 55-57), `u64` keys up to
/// 2^19 (109-113 against 122-124 us), `u32` keys with `u32` values up to 2^19 (59-61
/// against 71 us; 2^20: 86-88 against 76). Keys alone now stop at 2^17, where the plan
/// by buckets ([`Tuning::radix_buckets_max`]) takes over: at 2^18 it measured 40 us
/// against the fused sort's 45-46 for `u32` keys and 69 against 82-86 for `u64` (H200,
/// 2026-11-30, docs/history.md, radix: "The top digit first, then one block a group").
/// 0: none.
pub const fn fused_max(kb: u32, vb: u32) -> u64 {
    match (kb, vb) {
        (4, 0) | (8, 0) => 1 << 17,
        (4, 4) => 1 << 19,
        _ => 0,
    }
}

/// Largest sort of keys of `kb` bytes with values of `vb` bytes that may run as one
/// fused launch under `tuning` ([`Tuning::radix_fused_max`], else [`fused_max`],
/// within what the kernels allow).
fn fused_limit(tuning: &Tuning, kb: u32, vb: u32) -> u64 {
    tuning.radix_fused_max.unwrap_or(fused_max(kb, vb)).min(rk::FUSED_MAX)
}

/// Largest split sort that may take the plan by buckets by default
/// ([`Tuning::radix_buckets_max`]). Past 256 groups of a block's tile no input can
/// take it, so this only bounds where the histogram looks.
pub const BUCKETS_MAX: u64 = 1 << 22;

/// The most keys the bucket kernel sorts in one block for keys of `kb` bytes with
/// values of `vb` (`kernels::radix::buckets_plan`), when a split sort of `n` keys may
/// take the plan by buckets under `tuning`; 0 when it may not (the histogram then
/// plans the digit passes as always).
fn bucket_capacity(tuning: &Tuning, n: u64, kb: u32, vb: u32, bits: (u32, u32)) -> u32 {
    let capacity = rk::small_max(kb, vb);
    let (begin, end) = bits;
    let passes = rk::passes(begin, end);
    if n > tuning.radix_buckets_max || passes < 2 {
        return 0;
    }
    let (_, top_mask) = rk::pass_digit(begin, end, passes - 1);
    if n > (top_mask as u64 + 1) * capacity {
        return 0;
    }
    capacity as u32
}

/// Smallest sort of `u32` keys with `u32` values whose pairs travel packed
/// ([`Packing::Through`]) by default: the measured default of
/// [`Tuning::radix_packed_min`], which says why.
pub const PACKED_MIN: u64 = 1 << 23;

/// How a sort of `n` keys of `kb` bytes with values of `vb` bytes moves its pairs
/// ([`Packing`]): packed through scratch for `u32` keys with `u32` values from
/// [`Tuning::radix_packed_min`] pairs on, split otherwise, unless
/// [`Tuning::radix_pairs`] chooses.
fn packing_for(tuning: &Tuning, n: u64, kb: u32, vb: u32) -> Packing {
    let min = tuning.radix_packed_min;
    if (kb, vb) != (4, 4) || n <= rk::small_max(kb, vb) || onesweep_tile(tuning, n, kb, vb) != rk::tile(kb, vb) {
        return Packing::Split;
    }
    match tuning.radix_pairs {
        Some(packing) => packing,
        None if n < min => Packing::Split,
        None => Packing::Through,
    }
}

/// Most histogram blocks per SM ([`Tuning::radix_hist_blocks_per_sm`], which says
/// why one; at least one).
fn hist_blocks_per_sm(tuning: &Tuning) -> u64 {
    tuning.radix_hist_blocks_per_sm.max(1)
}

/// Alignment, in bytes, that the scratch buffers of 16- and 8-bit keys (and their
/// values) share with the caller's buffers: the copy-back's vector width.
const NARROW_ALIGN: u64 = 16;

/// The shape of one onesweep sort: tiles, look-back portions, passes, and the words
/// of its four scratch buffers (keys, values, status words, control block).
#[derive(Clone, Copy)]
struct Plan {
    total_tiles: u64,
    status_tiles: u64,
    portions: u64,
    passes: u32,
    words: [usize; 4],
}

impl Plan {
    #[allow(clippy::too_many_arguments)]
    fn new(n: u64, kb: u32, vb: u32, packing: Packing, tile: u32, (begin, end): (u32, u32), portion: u64) -> Plan {
        let total_tiles = n.div_ceil(tile as u64);
        let (portions, status_tiles) = rk::balanced_portions(total_tiles, portion);
        let passes = rk::passes(begin, end);
        let ctrl_bytes = rk::ctrl::bytes((passes as u64 * portions) as u32);
        // Buffers B of the keys and of the values; packed sorts: packed buffers A and B
        // of one `u64` a key (the argsort of 16-bit keys too).
        let pair_words = n * 2;
        let (b0, b1) = match packing {
            // Narrow keys: an odd count of 16-bit keys ends inside a word, and each buffer
            // has a vector more, to start at the caller's address modulo 16
            // ([`NARROW_ALIGN`]).
            Packing::Split if kb < 4 => {
                let pad = NARROW_ALIGN / 4;
                ((n * kb as u64).div_ceil(4) + pad, if vb > 0 { n * vb as u64 / 4 + pad } else { 0 })
            }
            Packing::Split => ((n * kb as u64).div_ceil(4), n * vb as u64 / 4),
            Packing::Alternate => (pair_words, 0),
            Packing::Through => (pair_words, pair_words),
        };
        let words = [
            b0 as usize,
            b1 as usize,
            (status_tiles * 2 * rk::DIGITS as u64) as usize,
            ctrl_bytes.div_ceil(8) as usize * 2,
        ];
        Plan { total_tiles, status_tiles, portions, passes, words }
    }

    /// Scratch bytes a sort of `n` keys (and values) over all their bits needs
    /// besides its input; none on the one-block path. A packed sort needs this much;
    /// it uses a second packed buffer only when that fits too.
    fn scratch_bytes(tuning: &Tuning, n: usize, kb: u32, vb: u32) -> u64 {
        if n as u64 <= rk::small_max(kb, vb) {
            return 0;
        }
        let packing = match packing_for(tuning, n as u64, kb, vb) {
            Packing::Through => Packing::Alternate,
            p => p,
        };
        let (tile, _) = tile_for(tuning, n as u64, kb, vb, packing);
        let plan = Plan::new(n as u64, kb, vb, packing, tile, (0, 8 * kb), rk::portion_tiles(tile));
        plan.words.iter().map(|&w| w as u64 * 4).sum()
    }
}

/// `(keys per tile, shared-memory bytes)` of the digit passes of a job: a packed pair
/// is one 64-bit item.
fn tile_for(tuning: &Tuning, n: u64, kb: u32, vb: u32, packing: Packing) -> (u32, u32) {
    match packing {
        Packing::Split => (onesweep_tile(tuning, n, kb, vb), Smem::onesweep(kb, vb).bytes),
        _ => (rk::packed_tile(), Smem::packed().bytes),
    }
}

/// One radix sort of raw key words (and value words) in device memory.
#[derive(Clone, Copy)]
struct Job {
    key_bytes: u32,
    /// 0: keys only.
    value_bytes: u32,
    n: u64,
    keys: u64,
    values: u64,
    masks: (u64, u64),
    bits: (u32, u32),
    /// How pairs move between passes ([`packing_for`]).
    packing: Packing,
    /// Keys per tile of the digit passes ([`tile_for`]).
    tile: u32,
    /// Tiles per onesweep launch.
    portion: u64,
    /// A sort into `keys` / `values`: the device addresses of the input keys and
    /// values (`0`: none; the sort is in place). See [`Job::with_input`].
    input: (u64, u64),
    /// Whether a sort of keys alone up to [`Tuning::radix_fused_max`] may run as the
    /// fused launch ([`Job::run_fused`]); off where a test asks for portions.
    fused: bool,
    /// `Some(inf)`: float keys whose `+inf` has bits `inf`, sorted in total order only
    /// if they hold neither NaN nor `-0.0` (the NaN-last sort, [`nan_check_in_histogram`]):
    /// the histogram checks them and the sort stops, keys untouched, if it finds one.
    nan_check: Option<u64>,
}

impl Job {
    fn new<K: SortKey>(
        tuning: &Tuning,
        bit_order: BitOrder,
        order: Order,
        bits: (u32, u32),
        n: usize,
        keys: u64,
        values: Option<(usize, u64)>,
    ) -> Job {
        let key_bytes = size_of::<K>() as u32;
        let value_bytes = values.map_or(0, |v| v.0 as u32);
        let packing = packing_for(tuning, n as u64, key_bytes, value_bytes);
        let (tile, _) = tile_for(tuning, n as u64, key_bytes, value_bytes, packing);
        Job {
            key_bytes,
            value_bytes,
            packing,
            n: n as u64,
            keys,
            values: values.map_or(0, |v| v.1),
            masks: bit_order.masks(8 * key_bytes, order.is_descending()),
            bits,
            tile,
            portion: rk::portion_tiles(tile),
            input: (0, 0),
            fused: true,
            nan_check: None,
        }
    }

    /// The packed argsort job ([`Job::run_packed_arg`]) of the `n` keys of `K` at
    /// `keys`, its output `(bytes per item, address)`: [`Packing::Through`] on the
    /// packed tile, one `u64` word a key whatever the key's width.
    #[allow(clippy::too_many_arguments)]
    fn packed_arg<K: SortKey>(
        tuning: &Tuning,
        bit_order: BitOrder,
        order: Order,
        bits: (u32, u32),
        n: usize,
        keys: u64,
        out: (usize, u64),
    ) -> Job {
        let job = Job::new::<K>(tuning, bit_order, order, bits, n, keys, Some(out));
        let (tile, _) = tile_for(tuning, job.n, 4, 4, Packing::Through);
        Job { packing: Packing::Through, tile, portion: rk::portion_tiles(tile), ..job }
    }

    /// This sort from the keys (and values) at `input` into its buffers, the input
    /// only read: split sorts of 4- and 8-byte keys past the one-block size read it in
    /// their first digit pass ([`rk::into_plan`]); the others copy it over first and
    /// sort in place.
    fn with_input(self, input: (u64, u64)) -> Job {
        Job { input, ..self }
    }

    /// This sort with its histogram checking the keys for NaN and `-0.0`
    /// ([`Job::nan_check`]; `None`: as it was). A checked sort takes the digit passes:
    /// the fused launch cannot stop after its histogram.
    fn checking_nan(self, nan_check: Option<u64>) -> Job {
        match nan_check {
            Some(_) => Job { nan_check, fused: false, ..self },
            None => self,
        }
    }

    /// Whether the digit passes read the input themselves ([`Job::with_input`]).
    fn reads_input(&self) -> bool {
        self.input.0 != 0
            && self.packing == Packing::Split
            && self.key_bytes >= 4
            && self.n > rk::small_max(self.key_bytes, self.value_bytes)
    }

    /// The passes, portions and scratch buffers this sort needs.
    fn plan(&self) -> Plan {
        Plan::new(self.n, self.key_bytes, self.value_bytes, self.packing, self.tile, self.bits, self.portion)
    }

    fn run(&self, gpu: &Gpu) -> Result<()> {
        self.run_unless(gpu, &mut || Ok(false)).map(drop)
    }

    /// [`Job::run`] that asks `stop` once the keys can still be left as they were
    /// ([`sort_unless`]); `Ok(false)`: stopped there.
    fn run_unless(&self, gpu: &Gpu, stop: &mut dyn FnMut() -> Result<bool>) -> Result<bool> {
        if self.input.0 != 0 && !self.reads_input() {
            let (kb, vb) = (self.n * self.key_bytes as u64, self.n * self.value_bytes as u64);
            gpu.copy_raw(self.keys, self.input.0, kb)?;
            if vb > 0 {
                gpu.copy_raw(self.values, self.input.1, vb)?;
            }
            return self.with_input((0, 0)).run_unless(gpu, stop);
        }
        if self.n <= 1 {
            return Ok(true);
        }
        match (self.key_bytes, self.value_bytes) {
            (4, 0) => self.run_width(gpu, &rk::K32, None, stop),
            (4, 4) => self.run_width(gpu, &rk::K32_V32, None, stop),
            (4, 8) => self.run_width(gpu, &rk::K32_V64, None, stop),
            (8, 0) => self.run_width(gpu, &rk::K64, None, stop),
            (8, 4) => self.run_width(gpu, &rk::K64_V32, None, stop),
            (8, 8) => self.run_width(gpu, &rk::K64_V64, None, stop),
            (2, 0) => self.run_width(gpu, &rk::K16, Some(<u16 as NarrowCopyBack>::COPY_BACK), stop),
            (2, 4) => self.run_width(gpu, &rk::K16_V32, Some(<u16 as NarrowCopyBack>::COPY_BACK), stop),
            (1, 0) => self.run_width(gpu, &rk::K8, Some(<u8 as NarrowCopyBack>::COPY_BACK), stop),
            (1, 4) => self.run_width(gpu, &rk::K8_V32, Some(<u8 as NarrowCopyBack>::COPY_BACK), stop),
            (kb, vb) => Err(Error::BadArgument(format!(
                "radix sorts keys of 1, 2, 4 or 8 bytes with values of 4 or 8 bytes (1- and 2-byte keys: \
                 4-byte values), not {kb}-byte keys with {vb}-byte values"
            ))),
        }
    }

    /// [`Job::run`] for keys of `K` with values of `V` (keys alone: `V` = `u32`, unused).
    /// `narrow_copy`: the copy-back of 16- and 8-bit keys, which copies keys rather than
    /// `u32` words (`None`: 4- and 8-byte keys, copied as words by `radix_copy_back`).
    fn run_width<K: HistKernel + FusedKernel, V: Word>(
        &self,
        gpu: &Gpu,
        width: &Widths<K, V>,
        narrow_copy: Option<Kernel<rk::CopyBack<K>>>,
        stop: &mut dyn FnMut() -> Result<bool>,
    ) -> Result<bool> {
        let n = self.n;
        let (kb, vb) = (self.key_bytes, self.value_bytes);
        let (pos, neg) = (K::from_u64(self.masks.0), K::from_u64(self.masks.1));
        if n <= rk::small_max(kb, vb) {
            let kernel = match rk::small_items(n, kb, vb) {
                rk::SHORT_ITEMS => width.small_short,
                rk::MID_ITEMS => width.small_mid,
                _ => width.small,
            };
            let smem = Smem::small(kb, vb).bytes;
            gpu.set_max_dynamic_smem(kernel.name(), smem)?;
            let (begin, end) = self.bits;
            let (keys, vals) = (DevPtr::from_addr(self.keys), DevPtr::from_addr(self.values));
            let p = rk::Small { keys, vals, n: n as u32, begin, end, pos, neg };
            if self.nan_check.is_some() {
                return Err(Error::BadArgument(format!(
                    "a NaN check in the histogram of a one-block sort of {n} keys (it has none)"
                )));
            }
            // The one block sorts in place: nothing can be undone after its launch.
            if stop()? {
                return Ok(false);
            }
            return gpu.launch(kernel, blocks(1, rk::BLOCK, smem)?, &p).map(|()| true);
        }
        let fused_max = fused_limit(gpu.tuning(), kb, vb);
        // The fused kernel sorts in place: a sort into another buffer takes the passes.
        if self.fused
            && self.input.0 == 0
            && n <= fused_max
            && let Some(sorted) = self.run_fused(gpu, pos, neg, stop)?
        {
            return Ok(sorted);
        }
        let plan = self.plan();
        let Plan { total_tiles, status_tiles, portions, passes, words } = plan;
        // Every portion but the last has `status_tiles` tiles (balanced portions).
        let (portion, (begin, end)) = (status_tiles, self.bits);
        // Scratch from the device's cache (a repeated sort allocates nothing); the
        // free-memory check is made only when something must be allocated.
        // Given back to the cache when `scratch` drops, whatever the way out.
        let mut scratch = match Scratch::take(gpu, &words) {
            // A second packed buffer does not fit: one is as much scratch as the split
            // sort needs, and packing still saves work in every pass but the first.
            Err(Error::OutOfMemory { .. }) if self.packing == Packing::Through => {
                return Job { packing: Packing::Alternate, ..*self }.run_unless(gpu, stop);
            }
            r => r?,
        };
        let [keys_b, vals_b, status, ctrl_buf] = &mut scratch.bufs[..] else { unreachable!("four buffers") };
        ctrl_buf.zero_prefix(gpu, words[3])?;
        let keys_a = DevPtr::<K>::from_addr(self.keys);
        let vals_a = DevPtr::<V>::from_addr(self.values);
        // Narrow keys: buffers B start where A's start modulo 16, so that the copy-back
        // moves 16-byte vectors and the passes' staged loads see aligned tiles in both.
        let narrow_at = |b: DevPtr<u32>, a: u64| {
            if narrow_copy.is_some() { DevPtr::from_addr(b.addr() + a % NARROW_ALIGN) } else { b }
        };
        let vals_b = if vb > 0 { narrow_at(vals_b.dev_ptr(), self.values).cast() } else { DevPtr::NULL };
        let keys_b = narrow_at(keys_b.dev_ptr(), self.keys).cast::<K>();
        let (status, ctrl) = (status.dev_ptr(), ctrl_buf.dev_ptr().cast::<u64>());
        // Of buffer 0, cleared by the histogram.
        let status_words = status_tiles * rk::DIGITS as u64;

        let sms = gpu.info().multiprocessors as u64;
        let hist_smem = rk::hist::smem(passes);
        let hist_kernel = match self.nan_check {
            None => K::HIST,
            Some(inf) => K::hist_checking(inf)
                .unwrap_or_else(|| unreachable!("a NaN check in the histogram of a float format that has none")),
        };
        gpu.set_max_dynamic_smem(hist_kernel.name(), hist_smem)?;
        let cfg = blocks(rk::hist::grid(n, kb, sms * hist_blocks_per_sm(gpu.tuning())), rk::HIST_BLOCK, hist_smem)?;
        let packing = self.packing as u32;
        let into = self.reads_input() as u32;
        let keys = if into == 1 { DevPtr::from_addr(self.input.0) } else { keys_a };
        // The check's verdict is polled in host memory while the first pass runs; a NaN
        // or `-0.0` stops the sort as the caller's `stop` does.
        let mut verdict = match self.nan_check {
            Some(_) => Some(HostWord::new(gpu)?),
            None => None,
        };
        let verdict_at = verdict.as_ref().map_or(Ok(DevPtr::NULL), |w| w.dev_ptr())?;
        // The last launch: the bucket kernel where the plan by buckets may be taken
        // (it is the copy-back too), else the copy-back. Only with one launch a pass:
        // the bucket kernel finds each group at the top pass's first offsets, which
        // later portions overwrite.
        let buckets = match width.buckets {
            Some(kernel) if self.packing == Packing::Split && portions == 1 => {
                let capacity = bucket_capacity(gpu.tuning(), n, kb, vb, self.bits);
                (capacity > 0).then_some((kernel, capacity))
            }
            _ => None,
        };
        let hist = rk::Hist {
            keys,
            n,
            begin,
            end,
            pos,
            neg,
            ctrl,
            status,
            status_words,
            packing,
            into,
            verdict: verdict_at,
            buckets: buckets.map_or(0, |b| b.1),
        };
        gpu.launch(hist_kernel, cfg, &hist)?;
        let mut stop = || -> Result<bool> {
            if let Some(word) = verdict.take() {
                match word.wait()? {
                    1 => {}
                    2 => return Ok(true),
                    v => return Err(Error::BadArgument(format!("the NaN check's verdict is {v}, not 1 or 2"))),
                }
            }
            stop()
        };
        let stop = &mut stop;
        if self.packing != Packing::Split {
            // Every packed pass but the last writes scratch only: the caller's arrays
            // are untouched until then.
            if stop()? {
                return Ok(false);
            }
            return self.run_packed_passes(gpu, &plan, keys_b.cast(), vals_b.cast(), status, ctrl).map(|()| true);
        }

        let (keys_in, vals_in) = match into {
            1 => (DevPtr::from_addr(self.input.0), DevPtr::from_addr(self.input.1)),
            _ => (DevPtr::NULL, DevPtr::NULL),
        };
        let full_tiles = self.tile == rk::tile(kb, vb);
        let kernel = if full_tiles { width.sweep } else { width.sweep_short };
        let smem = Smem::onesweep(kb, vb).bytes;
        gpu.set_max_dynamic_smem(kernel.name(), smem)?;
        // Keys alone sorted by all their bits: the first pass may rank ties in any
        // order (`Widths::sweep_first`).
        let first = match width.sweep_first {
            Some(first) if full_tiles && vb == 0 && self.bits == (0, 8 * kb) => {
                gpu.set_max_dynamic_smem(first.name(), smem)?;
                first
            }
            _ => kernel,
        };
        let mut launch = 0u32;
        for pass in 0..passes {
            let (shift, mask) = rk::pass_digit(begin, end, pass);
            let kernel = if pass == 0 { first } else { kernel };
            for q in 0..portions {
                let first_tile = q * portion;
                let tiles = (total_tiles - first_tile).min(portion) as u32;
                let p = rk::Sweep {
                    keys_a,
                    keys_b,
                    vals_a,
                    vals_b,
                    keys_in,
                    vals_in,
                    n,
                    first_tile,
                    tiles,
                    shift,
                    mask,
                    pos,
                    neg,
                    pass,
                    launch,
                    portion: q as u32,
                    status,
                    status_tiles: status_tiles as u32,
                    ctrl,
                };
                gpu.launch(kernel, blocks(tiles as u64, rk::BLOCK, smem)?, &p)?;
                launch += 1;
            }
            // The first pass reads buffer A (the caller's) and writes only scratch
            // buffer B (or nothing, if the plan skips it): A is as it was until the
            // second pass or the copy-back.
            if pass == 0 && stop()? {
                return Ok(false);
            }
        }

        if let Some((kernel, _)) = buckets {
            // One block a group of the top digit; under a plan by digit passes the
            // same blocks copy the result back if it ended in B.
            let smem = Smem::small(kb, vb).bytes;
            gpu.set_max_dynamic_smem(kernel.name(), smem)?;
            let (_, top_mask) = rk::pass_digit(begin, end, passes - 1);
            let p = rk::Buckets { keys_a, keys_b, vals_a, vals_b, n, begin, end, pos, neg, ctrl };
            gpu.launch(kernel, blocks(top_mask as u64 + 1, rk::BLOCK, smem)?, &p)?;
            return Ok(true);
        }
        // Narrow keys are copied as keys (`n` of them), wider ones as `u32` words; the
        // values as their `u32` words (not `words[1]`: a narrow sort's buffer B of values
        // is a vector longer than they are).
        let (key_words, val_words) = (if narrow_copy.is_some() { n } else { words[0] as u64 }, n * vb as u64 / 4);
        // Grid-stride: usually nothing is copied and every block just reads the plan,
        // so a few blocks per SM keep the launch cheap.
        let cfg = blocks((key_words + val_words).div_ceil(256).clamp(1, sms * 2), 256, 0)?;
        let (vals_b, vals_a) = (vals_b.cast(), vals_a.cast());
        match narrow_copy {
            Some(kernel) => {
                let copy = rk::CopyBack { keys_b, keys_a, key_words, vals_b, vals_a, val_words, ctrl };
                gpu.launch(kernel, cfg, &copy)?;
            }
            None => {
                let (keys_b, keys_a) = (keys_b.cast(), keys_a.cast());
                let copy = rk::CopyBack { keys_b, keys_a, key_words, vals_b, vals_a, val_words, ctrl };
                gpu.launch(rk::radix_copy_back, cfg, &copy)?;
            }
        }
        Ok(true)
    }

    /// The sort as one launch of a fused kernel of `K` ([`kernels::radix::Fused`]; keys
    /// alone, or with `u32` values moved split): the fewest items per thread whose tiles
    /// fit one round of the blocks the device holds at once ([`rk::fused_choice`]), a
    /// grid of at most that many blocks, all resident. `Ok(None)`: nothing was
    /// launched (no fused kernel for these widths, no cooperative launch on this device,
    /// or the driver refused the grid), so the caller runs the separate launches;
    /// `Ok(Some(false))`: `stop`, asked just before the launch (the kernel sorts in
    /// place), said to leave the keys as they were ([`Job::run_unless`]).
    fn run_fused<K: FusedKernel>(
        &self,
        gpu: &Gpu,
        pos: K,
        neg: K,
        stop: &mut dyn FnMut() -> Result<bool>,
    ) -> Result<Option<bool>> {
        let tuning = gpu.tuning();
        let (kb, vb) = (self.key_bytes, self.value_bytes);
        let list = match vb {
            0 => K::FUSED,
            4 if self.packing == Packing::Split => K::FUSED_PAIRS,
            _ => &[],
        };
        if list.is_empty() || !gpu.cooperative_launch() {
            return Ok(None);
        }
        let mut choices = [(0u32, 0u64); 8];
        for (c, (items, kernel)) in choices.iter_mut().zip(list) {
            let smem = rk::fused_smem(kb, vb, *items);
            *c = (*items, gpu.resident_blocks(kernel.name(), rk::BLOCK, smem)? as u64);
        }
        let choices = &choices[..list.len()];
        let Some(at) = rk::fused_choice(self.n, choices, tuning.radix_fused_items) else { return Ok(None) };
        let ((items, resident), kernel) = (choices[at], list[at].1);
        let tile = rk::BLOCK * items;
        let plan = Plan::new(self.n, kb, vb, Packing::Split, tile, self.bits, rk::portion_tiles(tile));
        debug_assert_eq!(plan.portions, 1, "the fused sort's inputs are one portion");
        // The control block is the device's, left zeroed by every fused sort (no memset).
        let ctrl = DevPtr::from_addr(gpu.zeroed_block(rk::ctrl::bytes(rk::MAX_PASSES).div_ceil(4) as usize)?);
        let mut words = plan.words;
        words[3] = 0;
        let mut scratch = Scratch::take(gpu, &words)?;
        let [keys_b, vals_b, status, _] = &mut scratch.bufs[..] else { unreachable!("four buffers") };
        let (begin, end) = self.bits;
        let p = rk::Fused {
            keys_a: DevPtr::<K>::from_addr(self.keys),
            keys_b: keys_b.dev_ptr().cast::<K>(),
            vals_a: DevPtr::from_addr(self.values),
            vals_b: if vb > 0 { vals_b.dev_ptr() } else { DevPtr::NULL },
            n: self.n,
            begin,
            end,
            pos,
            neg,
            status: status.dev_ptr(),
            status_tiles: plan.status_tiles as u32,
            ctrl,
            clean: 1,
        };
        let cfg = blocks(plan.total_tiles.min(resident), rk::BLOCK, rk::fused_smem(kb, vb, items))?;
        if stop()? {
            return Ok(Some(false));
        }
        Ok(gpu.launch_cooperative(kernel, cfg, &p)?.then_some(true))
    }

    /// The argsort of the keys `KW` (`u32` or `u16` words) at `self.keys` into the
    /// indices of `I` at `self.values` ([`Packing::Through`] with the index made by
    /// the first pass and written alone by the last; `radix_arg_back` when fewer than
    /// two passes ran). `nan_inf`: the `+inf` bits of float keys of that width
    /// argsorted in NaN-last order (0: as they are): the histogram
    /// ([`rk::ArgKey::HIST_NAN`]) and the first pass map them alike. `ties`:
    /// [`Ties::Any`] takes the kernel whose first pass ranks ties in any order.
    fn run_arg<KW: rk::ArgKey, I: Index>(&self, gpu: &Gpu, nan_inf: u64, ties: Ties) -> Result<()> {
        self.run_packed_arg(gpu, KW::sweep::<I>(ties == Ties::Any), I::BACK, nan_inf)
    }

    /// The histogram of the keys as the first pass maps them (`nan_inf` as in
    /// [`Job::run_arg`]), the packed passes `sweep` and the finishing `back` of
    /// [`Job::run_arg`] (indices `V`) or of [`sort_carrying_at`] (the keys themselves,
    /// `V` = `u16`), the caller's keys `KW` at `self.keys` and the output at
    /// `self.values`.
    fn run_packed_arg<KW: rk::ArgKey, V: Word>(
        &self,
        gpu: &Gpu,
        sweep: Kernel<rk::PackedSweep<KW, V>>,
        back: Kernel<rk::ArgBack<V>>,
        nan_inf: u64,
    ) -> Result<()> {
        let hist_kernel = KW::arg_hist(nan_inf).ok_or_else(|| {
            Error::BadArgument(format!("no {}-bit float keys with +inf bits {nan_inf:#x}", 8 * KW::BYTES))
        })?;
        let plan = self.plan();
        let Plan { status_tiles, passes, words, .. } = plan;
        let (n, (begin, end)) = (self.n, self.bits);
        let mut scratch = Scratch::take(gpu, &words)?;
        let [packed_a, packed_b, status, ctrl] = &mut scratch.bufs[..] else { unreachable!("four buffers") };
        ctrl.zero_prefix(gpu, words[3])?;
        let keys = DevPtr::<KW>::from_addr(self.keys);
        let idx = DevPtr::<V>::from_addr(self.values);
        let (packed_a, packed_b) = (packed_a.dev_ptr().cast::<u64>(), packed_b.dev_ptr().cast::<u64>());
        let (status, ctrl) = (status.dev_ptr(), ctrl.dev_ptr().cast::<u64>());

        let sms = gpu.info().multiprocessors as u64;
        let hist_smem = rk::hist::smem(passes);
        // The histogram counts the keys as the first pass maps them.
        gpu.set_max_dynamic_smem(hist_kernel.name(), hist_smem)?;
        let grid = rk::hist::grid(n, KW::BYTES, sms * hist_blocks_per_sm(gpu.tuning()));
        let cfg = blocks(grid, rk::HIST_BLOCK, hist_smem)?;
        let (pos, neg) = (KW::from_u64(self.masks.0), KW::from_u64(self.masks.1));
        let status_words = status_tiles * rk::DIGITS as u64;
        let packing = Packing::Through as u32;
        let hist = rk::Hist {
            keys,
            n,
            begin,
            end,
            pos,
            neg,
            ctrl,
            status,
            status_words,
            packing,
            into: 0,
            verdict: DevPtr::NULL,
            buckets: 0,
        };
        gpu.launch(hist_kernel, cfg, &hist)?;

        self.run_packed_sweeps(gpu, &plan, sweep, idx, packed_a, packed_b, status, ctrl, nan_inf as u32)?;
        let cfg = blocks(n.div_ceil(256).clamp(1, sms * 2), 256, 0)?;
        gpu.launch(back, cfg, &rk::ArgBack { packed_b, idx, n, passes, ctrl })
    }

    /// The digit passes and the unpacking copy-back of a packed sort ([`Packing`]):
    /// `packed_a` and `packed_b` are its scratch buffers (`packed_b` is 0 for
    /// [`Packing::Alternate`], which uses one buffer as both).
    fn run_packed_passes(
        &self,
        gpu: &Gpu,
        plan: &Plan,
        packed_a: DevPtr<u64>,
        packed_b: DevPtr<u64>,
        status: DevPtr<u32>,
        ctrl: DevPtr<u64>,
    ) -> Result<()> {
        let packed_b = if self.packing == Packing::Alternate { packed_a } else { packed_b };
        let (keys, vals) = (DevPtr::from_addr(self.keys), DevPtr::from_addr(self.values));
        // Integer keys (one order mask for either sign) and float keys each have a
        // kernel holding one way of taking digits.
        let kernel = if self.masks.0 == self.masks.1 {
            rk::radix_onesweep_packed_int_k32_v32
        } else {
            rk::radix_onesweep_packed_k32_v32
        };
        self.run_packed_sweeps(gpu, plan, kernel, vals, packed_a, packed_b, status, ctrl, 0)?;
        let n = self.n;
        let sms = gpu.info().multiprocessors as u64;
        let cfg = blocks(n.div_ceil(256).clamp(1, sms * 2), 256, 0)?;
        gpu.launch(rk::radix_unpack_back, cfg, &rk::UnpackBack { packed_b, keys, vals, n, ctrl })
    }

    /// The digit-pass launches over packed words of a pair sort or an argsort
    /// ([`rk::PackedSweep`]; `kernel` chooses): every pass of the plan, one launch per
    /// portion, with the caller's keys at `self.keys` and values (or indices) `vals`.
    #[allow(clippy::too_many_arguments)]
    fn run_packed_sweeps<KW: Word, V: Word>(
        &self,
        gpu: &Gpu,
        plan: &Plan,
        kernel: Kernel<rk::PackedSweep<KW, V>>,
        vals: DevPtr<V>,
        packed_a: DevPtr<u64>,
        packed_b: DevPtr<u64>,
        status: DevPtr<u32>,
        ctrl: DevPtr<u64>,
        nan_inf: u32,
    ) -> Result<()> {
        let Plan { total_tiles, status_tiles, portions, passes, .. } = *plan;
        let smem = Smem::packed().bytes;
        gpu.set_max_dynamic_smem(kernel.name(), smem)?;
        // The packed word is `key << 32 | value`: the key's digits and order bits
        // sit 32 bits up (measured: 32-bit digit arithmetic on the key half alone made
        // the kernel spill and the passes 9% slower; H100, 2026-11-24; docs/history.md, radix: "Pairs: staging, histogram, packing").
        let (pos, neg) = (self.masks.0 << 32, self.masks.1 << 32);
        let keys = DevPtr::from_addr(self.keys);
        let (n, (begin, end)) = (self.n, self.bits);
        let mut launch = 0u32;
        for pass in 0..passes {
            let (shift, mask) = rk::pass_digit(begin, end, pass);
            let shift = shift + 32;
            for q in 0..portions {
                let first_tile = q * status_tiles;
                let tiles = (total_tiles - first_tile).min(status_tiles) as u32;
                let p = rk::PackedSweep {
                    keys,
                    vals,
                    packed_a,
                    packed_b,
                    n,
                    first_tile,
                    tiles,
                    shift,
                    mask,
                    pos,
                    neg,
                    pass,
                    launch,
                    portion: q as u32,
                    status,
                    status_tiles: status_tiles as u32,
                    ctrl,
                    nan_inf,
                };
                gpu.launch(kernel, blocks(tiles as u64, rk::BLOCK, smem)?, &p)?;
                launch += 1;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The histogram checks for NaN and `-0.0` exactly where the sort takes the digit
    /// passes (past the one-block and fused sizes) and a checking histogram exists for
    /// the width and float format (f32, f64, f16, bf16).
    #[test]
    fn nan_check_goes_to_the_histogram_past_the_one_launch_sorts() {
        let t = Tuning::default();
        let (f32_inf, f64_inf) = (f32::INFINITY.to_bits() as u64, f64::INFINITY.to_bits());
        assert!(!nan_check_in_histogram::<f32>(&t, 1 << 17, f32_inf));
        assert!(nan_check_in_histogram::<f32>(&t, (1 << 17) + 1, f32_inf));
        assert!(!nan_check_in_histogram::<f64>(&t, 1 << 17, f64_inf));
        assert!(nan_check_in_histogram::<f64>(&t, (1 << 17) + 1, f64_inf));
        assert!(!nan_check_in_histogram::<f32>(&t, 1 << 24, f64_inf), "another format's +inf");
        let (half_inf, bhalf_inf) = (crate::f16::INFINITY.to_bits() as u64, crate::bf16::INFINITY.to_bits() as u64);
        let one_launch_16 = fused_limit(&t, 2, 0).max(rk::small_max(2, 0)) as usize;
        assert!(!nan_check_in_histogram::<crate::f16>(&t, one_launch_16, half_inf), "the one-launch sort");
        assert!(nan_check_in_histogram::<crate::f16>(&t, one_launch_16 + 1, half_inf));
        assert!(nan_check_in_histogram::<crate::bf16>(&t, one_launch_16 + 1, bhalf_inf));
        assert!(!nan_check_in_histogram::<crate::f16>(&t, 1 << 24, f32_inf), "another format's +inf");
        let unfused = Tuning { radix_fused_max: Some(0), ..Tuning::default() };
        let small = rk::small_max(4, 0);
        assert!(!nan_check_in_histogram::<f32>(&unfused, small as usize, f32_inf), "the one-block sort");
        assert!(nan_check_in_histogram::<f32>(&unfused, small as usize + 1, f32_inf));
    }
}
