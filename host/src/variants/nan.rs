//! NaN-last order on the GPU ([`crate::NanOrder::Last`]), by a canonical copy: the
//! sorting kernels know IEEE 754 total order only, which keeps the default order's
//! kernels as fast as they are. For float keys under NaN-last order
//! ([`crate::KeyOrder::nan_last_for`], the one place that decides), `nan_canonical_f32` /
//! `nan_canonical_f64` ([`kernels::nan`]) copy the keys with every NaN replaced by the
//! largest NaN in total order; total order on that copy is NaN-last order (NaN-first
//! descending), all NaNs equal. The copy is sorted with positions, and the original
//! keys (and values) are gathered by them, so NaN payloads are kept.
//!
//! Costs over a total-order sort of the same keys: one copy pass, a pair sort instead
//! of a keys-only one, and a gather. Sorts, pairs and argsort use [`argsort`]; top-k
//! ([`super::topk`]) and segments and rows ([`super::segmented`]) call
//! [`canonical_copy`] and gather themselves.
use kernels::nan::{Canonicalize, NanKernels};

use super::launch::one_thread_per_item;
use crate::device::{DeviceBuffer, Gpu};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::options::Order;
use kernels::key::BitOrder;

/// A copy of the float keys `keys` with every NaN replaced by the canonical NaN
/// ([`kernels::nan::canonical_f32`]; 16-bit floats: [`kernels::nan::canonical_16`]). [`Error::BadArgument`] for keys that are not
/// floats (they have no NaNs; their callers take the total-order path).
pub fn canonical_copy<K: Element>(gpu: &Gpu, keys: &DeviceBuffer<K>) -> Result<DeviceBuffer<K>> {
    if K::BIT_ORDER != Some(BitOrder::Float) {
        return Err(Error::BadArgument(format!("the NaN-canonical copy takes float keys, not {}", K::NAME)));
    }
    let n = keys.len();
    let copy = gpu.alloc::<K>(n)?;
    if n > 0 {
        let cfg = one_thread_per_item(n as u64, 256, 0)?;
        if size_of::<K>() == 2 {
            // `f16` and `bf16` share the 16-bit word: the format picks the kernel.
            let kernel = match K::MANTISSA_BITS {
                10 => kernels::nan::nan_canonical_f16,
                7 => kernels::nan::nan_canonical_bf16,
                m => return Err(Error::BadArgument(format!("no 16-bit float has {m} significand bits"))),
            };
            let p = Canonicalize::<u16> { src: keys.dev_ptr().cast(), dst: copy.dev_ptr().cast(), n: n as u64 };
            gpu.launch(kernel, cfg, &p)?;
        } else {
            let p = Canonicalize::<K::Bits> { src: keys.dev_ptr().cast(), dst: copy.dev_ptr().cast(), n: n as u64 };
            gpu.launch(<K::Bits as NanKernels>::CANONICALIZE, cfg, &p)?;
        }
    }
    Ok(copy)
}

/// The stable sorting permutation of the float keys `keys` in NaN-last `order`: the
/// radix sort of their canonical copy with positions (by order bits `key_bits` of the
/// copy, which are NaN-last order's).
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
    Error::check_u32_indices("a NaN-last sort", n)?;
    let copy = canonical_copy(gpu, keys)?;
    // The copy's total order is NaN-last order: the float keys' own bit order.
    super::radix::argsort_at::<K, I>(gpu, copy.ptr(), out.ptr(), n, BitOrder::Float, order, key_bits)
}

/// Sorts the float keys `buf` in NaN-last `order` (see [`argsort`]), their bits kept.
pub fn sort<K: Element>(
    gpu: &Gpu,
    buf: &mut DeviceBuffer<K>,
    order: Order,
    key_bits: Option<(u32, u32)>,
) -> Result<()> {
    let perm = argsort(gpu, buf, order, key_bits)?;
    let mut sorted = gpu.alloc::<K>(buf.len())?;
    super::records::gather_from(gpu, buf, &mut sorted, &perm)?;
    buf.copy_from_device(gpu, &sorted)
}
