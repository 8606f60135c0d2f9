//! The GPU sort of wide keys: LSD over their order words with the radix sort of
//! (`u64` word, `u32` index) pairs.
//!
//! The permutation starts as `0..n`. For each order word, least significant first,
//! `wide_word_le` / `wide_word_be` gather that word of the keys in the current
//! permutation order (the first pass also writes `0..n`), and the radix sort sorts
//! (word, permutation) pairs stably. Each pass is stable, so after the most
//! significant word the permutation sorts the keys, equal keys in input order; the
//! keys (and values) are then gathered by it (`variants::records::gather`). A word
//! that is equal in every key costs its gather and the radix sort's histogram only:
//! the radix sort skips a digit pass whose keys all fall under one digit.
//!
//! Top-k ([`top_k`]) is that permutation's first `k` entries and the keys gathered by
//! them. The segmented sort ([`sort_segments`]) runs the same passes over the
//! segments' whole range and one more, stable, by each element's segment index (the
//! most significant key): the permutation then sorts by (segment, key, position).
use std::ops::Range;

use kernels::params::DevPtr;
use kernels::wide::{self as wk, WideLayout, WideWord};

use super::WideKey;
use crate::device::{DeviceBuffer, Gpu};
use crate::error::{Error, Result};
use crate::options::Order;
use crate::variants::searchsorted::{self, QueryOrder, Side};
use crate::variants::{launch, radix, records};

/// The stable sorting permutation of `keys` (left unchanged) in `order`, on the device.
/// At most 2^32 - 1 keys.
pub fn argsort<K: WideKey>(gpu: &Gpu, keys: &DeviceBuffer<K>, order: Order) -> Result<DeviceBuffer<u32>> {
    argsort_range(gpu, keys, 0..keys.len(), order)
}

/// The stable sorting permutation of `keys[range]` in `order`, its indices relative to
/// `range.start`. At most 2^32 - 1 keys in the range.
fn argsort_range<K: WideKey>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    range: Range<usize>,
    order: Order,
) -> Result<DeviceBuffer<u32>> {
    if range.start > range.end || range.end > keys.len() {
        return Err(Error::BadArgument(format!(
            "keys {}..{} of a device buffer of {}",
            range.start,
            range.end,
            keys.len()
        )));
    }
    let n = range.len();
    Error::check_u32_indices("a wide-key argsort", n)?;
    let mut perm = gpu.alloc::<u32>(n)?;
    if n == 0 {
        return Ok(perm);
    }
    let mut words = gpu.alloc::<u64>(n)?;
    let kernel = match K::LAYOUT {
        WideLayout::LittleEndian => wk::wide_word_le,
        WideLayout::BigEndian => wk::wide_word_be,
    };
    let cfg = launch::one_thread_per_item(n as u64, 256, 0)?;
    let key_bytes = size_of::<K>() as u64;
    let base = keys.ptr_at(range.start);
    for (pass, word) in (0..K::WORDS as u64).rev().enumerate() {
        let params = WideWord {
            keys: DevPtr::from_addr(base),
            key_bytes,
            word,
            sign: K::SIGN,
            n: n as u64,
            perm: perm.dev_ptr(),
            words: words.dev_ptr(),
            aligned: wk::word_is_aligned(key_bytes, base, word) as u32,
            first: (pass == 0) as u32,
        };
        gpu.launch(kernel, cfg, &params)?;
        radix::sort_pairs(gpu, &mut words, &mut perm, order, None)?;
    }
    Ok(perm)
}

/// Sorts `keys` stably in `order`: [`argsort`], then a gather into a new buffer that
/// replaces `keys`' storage.
pub fn sort<K: WideKey>(gpu: &Gpu, keys: &mut DeviceBuffer<K>, order: Order) -> Result<()> {
    if keys.len() <= 1 {
        return Ok(());
    }
    let perm = argsort(gpu, keys, order)?;
    permute(gpu, keys, &perm)
}

/// Sorts `keys` stably in `order` and moves `values` (any plain-old-data type) with
/// them. Lengths must match.
pub fn sort_pairs<K: WideKey, V: bytemuck::Pod>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: &mut DeviceBuffer<V>,
    order: Order,
) -> Result<()> {
    if keys.len() != values.len() {
        return Err(Error::LengthMismatch { keys: keys.len(), values: values.len() });
    }
    if keys.len() <= 1 {
        return Ok(());
    }
    let perm = argsort(gpu, keys, order)?;
    permute(gpu, keys, &perm)?;
    permute(gpu, values, &perm)
}

/// The first `min(k, n)` keys of the stable sort of `keys` (left unchanged) in `order`
/// and their input indices, in two new buffers: [`argsort`] (a full sort), then its
/// first `k` indices and a gather of their keys.
pub fn top_k<K: WideKey>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    k: usize,
    order: Order,
) -> Result<(DeviceBuffer<K>, DeviceBuffer<u32>)> {
    let k = k.min(keys.len());
    if k == 0 {
        return Ok((gpu.alloc(0)?, gpu.alloc(0)?));
    }
    let perm = argsort(gpu, keys, order)?;
    let idx = if k == perm.len() {
        perm
    } else {
        let mut idx = gpu.alloc::<u32>(k)?;
        idx.copy_range_from(gpu, 0, &perm, 0, k)?;
        idx
    };
    let mut top = gpu.alloc::<K>(k)?;
    records::gather_from(gpu, keys, &mut top, &idx)?;
    Ok((top, idx))
}

/// Sorts each segment `keys[offsets[i]..offsets[i + 1]]` stably in `order`, the keys
/// outside `offsets[0]..offsets[S]` left alone. `offsets` must be valid (checked by the
/// caller: [`crate::variants::segmented::check_offsets`]); at most 2^32 - 1 keys in
/// the segments. The sorted range is gathered into a new buffer that replaces `keys`'
/// storage when the segments cover all of it, and copied back into place otherwise.
pub fn sort_segments<K: WideKey>(gpu: &Gpu, keys: &mut DeviceBuffer<K>, offsets: &[usize], order: Order) -> Result<()> {
    let Some((first, perm)) = segments_perm(gpu, keys, offsets, order)? else { return Ok(()) };
    permute_range(gpu, keys, first, &perm)
}

/// [`sort_segments`] of keys with a value each (any plain-old-data type), moved with
/// their keys: equal keys of a segment keep their input order, and so their values.
/// Lengths must match.
pub fn sort_segments_pairs<K: WideKey, V: bytemuck::Pod>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: &mut DeviceBuffer<V>,
    offsets: &[usize],
    order: Order,
) -> Result<()> {
    if keys.len() != values.len() {
        return Err(Error::LengthMismatch { keys: keys.len(), values: values.len() });
    }
    let Some((first, perm)) = segments_perm(gpu, keys, offsets, order)? else { return Ok(()) };
    permute_range(gpu, keys, first, &perm)?;
    permute_range(gpu, values, first, &perm)
}

/// The permutation of the segments' range `keys[first..last]` (`first`, `last`: the
/// first and last offsets; indices relative to `first`) that sorts each segment
/// stably: [`argsort_range`] of the whole range, then, when more than one segment
/// holds keys, a stable radix pass of (segment, permutation) pairs in which each
/// element's segment is the number of non-empty segments starting at or before its
/// position (a search of its position among their starts,
/// [`searchsorted::searchsorted`]). `None` when no segment holds two keys.
fn segments_perm<K: WideKey>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    offsets: &[usize],
    order: Order,
) -> Result<Option<(usize, DeviceBuffer<u32>)>> {
    let (Some(&first), Some(&last)) = (offsets.first(), offsets.last()) else { return Ok(None) };
    if offsets.windows(2).all(|w| w[1] - w[0] <= 1) {
        return Ok(None);
    }
    Error::check_u32_indices("a wide-key segmented sort", last - first)?;
    let mut perm = argsort_range(gpu, keys, first..last, order)?;
    // Starts of the non-empty segments relative to `first`; the first is 0.
    let starts: Vec<u32> = offsets.windows(2).filter(|w| w[1] > w[0]).map(|w| (w[0] - first) as u32).collect();
    if starts.len() > 1 {
        let starts_dev = gpu.upload(&starts)?;
        let mut segment = searchsorted::searchsorted(gpu, &starts_dev, &perm, Side::Right, QueryOrder::Unsorted)?;
        // Segment numbers 1..=starts.len().
        let bits = u32::BITS - (starts.len() as u32).leading_zeros();
        radix::sort_pairs(gpu, &mut segment, &mut perm, Order::Ascending, Some((0, bits)))?;
    }
    Ok(Some((first, perm)))
}

/// `buf[first + i] = old buf[first + perm[i]]` for the `perm.len()` positions from
/// `first`: a gather into a new buffer, which replaces `buf`'s storage when it covers
/// all of it and is copied back into place otherwise.
fn permute_range<T: bytemuck::Pod>(
    gpu: &Gpu,
    buf: &mut DeviceBuffer<T>,
    first: usize,
    perm: &DeviceBuffer<u32>,
) -> Result<()> {
    if first == 0 && perm.len() == buf.len() {
        return permute(gpu, buf, perm);
    }
    let mut out = gpu.alloc::<T>(perm.len())?;
    records::gather_from_at(gpu, buf, first, &mut out, perm)?;
    buf.copy_range_from(gpu, first, &out, 0, perm.len())
}

/// `buf[i] = old buf[perm[i]]`, through a new buffer.
fn permute<T: bytemuck::Pod>(gpu: &Gpu, buf: &mut DeviceBuffer<T>, perm: &DeviceBuffer<u32>) -> Result<()> {
    let mut out = gpu.alloc::<T>(buf.len())?;
    records::gather(gpu, buf, &mut out, perm)?;
    *buf = out;
    Ok(())
}
