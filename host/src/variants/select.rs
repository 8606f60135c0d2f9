//! `select_nth` on the device: the key at position `k` of the stable sort of a device
//! buffer, by the top-k module's radix select (`kernels/src/topk/`) run to the last
//! digit and nothing after it: per 11-bit digit of the order bits (3 for 32-bit keys,
//! 6 for 64-bit), a histogram of the keys that match the digits decided so far and a
//! one-block select of the digit holding the `k`-th key. The digits decided are the
//! order bits of the answer, read back once (8 bytes); no candidate is compacted and
//! nothing is sorted. Every pass reads the whole input: `3 x n x 4` bytes for `f32`.
//!
//! Float keys under NaN-last order select on their NaN-canonical copy
//! ([`super::nan`]); when the answer is a NaN, which NaN (payloads differ) is the
//! stable sort's `k`-th comes from the top-`k + 1` of the keys (its last key).
use kernels::key::{BitOrder, Word};
use kernels::params::DevPtr;
use kernels::topk::ctrl;

use super::scratch::Scratch;
use super::topk::{PathChoice, masks, select_passes, top_k_on};
use crate::device::{DeviceBuffer, Gpu};
use crate::element::Key;
use crate::error::{Error, Result};
use crate::options::{KeyOrder, Order};

/// The key at position `k` (0-based) of the stable sort of `keys` in `order` (the
/// `k + 1`-th smallest ascending, largest descending; `torch.kthvalue(x, k + 1)`
/// ascending). [`Error::BadArgument`] when `k >= keys.len()`. Waits for the device
/// (the answer is read back). Primitive keys, at most `u32::MAX` of them.
pub fn select_nth<K: Key>(gpu: &Gpu, keys: &DeviceBuffer<K>, k: usize, order: impl Into<KeyOrder>) -> Result<K> {
    let order = order.into();
    let n = keys.len();
    if k >= n {
        return Err(out_of_range(k, n));
    }
    Error::check_u32_indices("select_nth", n)?;
    let narrow = crate::element::is_narrow::<K>();
    if !order.nan_last_for::<K>() && !narrow {
        return select_total(gpu, keys, k, order.order);
    }
    let found = if narrow {
        // 16- and 8-bit keys: the select of their wide words ([`super::widen`]), on
        // the NaN-canonical copy's under NaN-last order.
        let wide = super::widen::widen(gpu, keys, order)?;
        super::widen::narrow_word::<K>(select_total::<u32>(gpu, &wide, k, order.order)?)?
    } else {
        let copy = super::nan::canonical_copy(gpu, keys)?;
        select_total(gpu, &copy, k, order.order)?
    };
    if !order.nan_last_for::<K>() {
        return Ok(found);
    }
    if !is_nan(&found) && !is_zero(&found) {
        return Ok(found);
    }
    // A NaN or a zero: the stable sort's k-th keeps its own bits (a NaN's payload,
    // a zero's sign), which the canonical copy made one value; the top-(k + 1), stable
    // among equal keys, gathers the keys' own bits.
    let (top, _) = top_k_on(gpu, keys, k + 1, order, PathChoice::Planned)?;
    let mut last = [found];
    top.read_at(gpu, k, &mut last)?;
    Ok(last[0])
}

/// The error of a position `k` past `n` keys.
pub fn out_of_range(k: usize, n: usize) -> Error {
    Error::BadArgument(format!("select_nth: position {k} is not below the {n} keys"))
}

/// Whether the float key `x` is a NaN (never for integer keys).
fn is_nan<K: Key>(x: &K) -> bool {
    if K::BIT_ORDER != Some(BitOrder::Float) {
        return false;
    }
    // Every width: the magnitude bits (all but the sign) above those of `+inf`.
    let width = 8 * size_of::<K>() as u32;
    let raw = bytemuck::bytes_of(x).iter().rev().fold(0u64, |a, &b| a << 8 | u64::from(b));
    let magnitude = raw & ((1u64 << (width - 1)) - 1);
    magnitude > kernels::key::float_inf_bits(width, K::MANTISSA_BITS)
}

/// Whether the float key `x` is `+0.0`, the canonical copy's only zero (never for
/// integer keys).
fn is_zero<K: Key>(x: &K) -> bool {
    K::BIT_ORDER == Some(BitOrder::Float) && bytemuck::bytes_of(x).iter().all(|&b| b == 0)
}

/// [`select_nth`] in IEEE 754 total order, where equal order bits are equal keys.
fn select_total<K: Key>(gpu: &Gpu, keys: &DeviceBuffer<K>, k: usize, order: Order) -> Result<K> {
    let n = keys.len() as u64;
    let width = 8 * size_of::<K>() as u32;
    let (pos, neg) = masks::<K>(order);
    let mut scratch = Scratch::take(gpu, &[ctrl::WORDS as usize])?;
    let ctrl_buf = &mut scratch.bufs[0];
    ctrl_buf.zero_prefix(gpu, ctrl::WORDS as usize)?;
    let ctrl_ptr: DevPtr<u64> = ctrl_buf.dev_ptr().cast();
    // A capacity of zero candidates: no digit ends the select early (the kth key's
    // bucket is never empty), so every digit is decided.
    select_passes::<K>(gpu, keys.dev_ptr().cast(), n, pos, neg, ctrl_ptr, width, k as u64 + 1, 0)?;
    let mut words = [0u32; 4];
    ctrl_buf.read_at(gpu, 2 * ctrl::DONE as usize, &mut words[..2])?;
    ctrl_buf.read_at(gpu, 2 * ctrl::PREFIX as usize, &mut words[2..])?;
    let done = u64::from(words[0]) | u64::from(words[1]) << 32;
    let prefix = u64::from(words[2]) | u64::from(words[3]) << 32;
    if done == 0 {
        return Err(Error::BadArgument(format!(
            "select_nth: the radix select of {n} keys did not finish (a bug: please report)"
        )));
    }
    let raw = K::Bits::from_u64(prefix).raw(pos, neg).to_u64();
    Ok(bytemuck::pod_read_unaligned(&raw.to_le_bytes()[..size_of::<K>()]))
}
