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
use kernels::params::DevPtr;
use kernels::wide::{self as wk, WideLayout, WideWord};

use super::WideKey;
use crate::device::{DeviceBuffer, Gpu};
use crate::error::{Error, Result};
use crate::options::Order;
use crate::variants::{launch, radix, records};

/// The stable sorting permutation of `keys` (left unchanged) in `order`, on the device.
/// At most 2^32 - 1 keys.
pub fn argsort<K: WideKey>(gpu: &Gpu, keys: &DeviceBuffer<K>, order: Order) -> Result<DeviceBuffer<u32>> {
    let n = keys.len();
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
    for (pass, word) in (0..K::WORDS as u64).rev().enumerate() {
        let params = WideWord {
            keys: DevPtr::from_addr(keys.ptr()),
            key_bytes,
            word,
            sign: K::SIGN,
            n: n as u64,
            perm: perm.dev_ptr(),
            words: words.dev_ptr(),
            aligned: wk::word_is_aligned(key_bytes, keys.ptr(), word) as u32,
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

/// `buf[i] = old buf[perm[i]]`, through a new buffer.
fn permute<T: bytemuck::Pod>(gpu: &Gpu, buf: &mut DeviceBuffer<T>, perm: &DeviceBuffer<u32>) -> Result<()> {
    let mut out = gpu.alloc::<T>(buf.len())?;
    records::gather(gpu, buf, &mut out, perm)?;
    *buf = out;
    Ok(())
}
