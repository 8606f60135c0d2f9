//! One launcher per algorithm family, mirroring `kernels/src` stem for stem
//! (`kernels/src/radix/` is launched by `radix.rs`); the multi-GPU sort's `partition`
//! and `splitters` kernels are launched by `crate::multi_gpu`. Each sort exposes
//! `sort(gpu, buf, opts)` and [`scan`] the device-wide scan the sorts use; [`sort`]
//! dispatches on [`Variant`], and sends record types that a variant sorts by key to
//! [`records`], which sits above the pair sorts it uses.
use crate::device::{DeviceBuffer, Gpu};
use crate::error::{Error, Result};
// Defined with the rest of what a caller asks of a sort, below every launcher.
use crate::element::Element;
use crate::options::SortOptions;
pub use crate::options::Variant;
use records::PairSort;

pub mod launch;
pub mod mergepath;
pub mod naive;
pub mod nan;
pub mod quick;
pub mod radix;
pub mod records;
pub mod rows;
pub mod runs;
pub mod scan;
mod scratch;
pub mod searchsorted;
pub mod segmented;
pub mod select;
pub mod shared;
pub mod topk;
pub mod widen;

pub mod bitonic;
pub mod blockmerge;
pub mod bottomup;

/// [`sort`] from `src` into `dst` (same length; `src` is only read). The radix sort
/// of primitive keys reads `src` in its first digit pass ([`radix::sort_into`],
/// [`nan::sort_into`]); other sorts copy `src` into `dst` and sort there. `src` and
/// `dst` may be the same buffer (in place), not otherwise overlap.
pub(crate) fn sort_into<T: Element>(
    gpu: &Gpu,
    src: &DeviceBuffer<T>,
    dst: &mut DeviceBuffer<T>,
    opts: &SortOptions,
) -> Result<()> {
    radix::check_into(src, dst)?;
    let radix_keys = opts.variant == Variant::Radix && T::BIT_ORDER.is_some();
    if src.ptr() == dst.ptr() || src.len() <= 1 || !radix_keys || src.len() as u64 > opts.variant.max_len() {
        if src.ptr() != dst.ptr() {
            dst.copy_from_device(gpu, src)?;
        }
        return sort(gpu, dst, opts);
    }
    if opts.key_order().nan_last_for::<T>() {
        nan::sort_into(gpu, src, dst, opts.order, opts.key_bits)
    } else {
        radix::sort_into(gpu, src, dst, opts)
    }
}

pub(crate) fn sort<T: Element>(gpu: &Gpu, buf: &mut DeviceBuffer<T>, opts: &SortOptions) -> Result<()> {
    if buf.len() as u64 > opts.variant.max_len() {
        return Err(Error::TooManyElements {
            what: format!("variant {}", opts.variant),
            max: opts.variant.max_len(),
            len: buf.len() as u64,
        });
    }
    if opts.key_bits.is_some() && opts.variant != Variant::Radix {
        return Err(Error::Unsupported {
            option: "key bits",
            by: format!("variant {}", opts.variant),
            hint: "key bits are a radix sort option",
        });
    }
    if !matches!(opts.variant, Variant::Radix | Variant::Mergepath) {
        crate::element::narrow_refusal::<T>(&format!("variant {}", opts.variant))?;
    }
    if buf.len() <= 1 {
        return match opts.key_bits {
            Some(b) if T::BIT_ORDER.is_some() => radix::check_bits::<T>(Some(b), 8 * size_of::<T>() as u32).map(|_| ()),
            _ => Ok(()),
        };
    }
    match opts.variant {
        // The radix sort orders key bits: records by their key field and a gather.
        Variant::Radix if T::BIT_ORDER.is_none() => records::sort_by_own_key(gpu, buf, opts, PairSort::Radix),
        Variant::Radix if opts.key_order().nan_last_for::<T>() => nan::sort(gpu, buf, opts.order, opts.key_bits),
        Variant::Radix => radix::sort(gpu, buf, opts),
        Variant::Mergepath if mergepath::sorts_by_key::<T>(buf.len()) => {
            records::sort_by_own_key(gpu, buf, opts, PairSort::Mergepath)
        }
        Variant::Mergepath => mergepath::sort(gpu, buf, opts),
        Variant::Naive => naive::sort(gpu, buf, opts),
        Variant::Sm8 => shared::sort(gpu, buf, opts, shared::Strategy::Sm8),
        Variant::Sm9 => shared::sort(gpu, buf, opts, shared::Strategy::Sm9),
        Variant::Sm => shared::sort(gpu, buf, opts, shared::Strategy::Sm),
        Variant::Quick => quick::sort(gpu, buf, opts),
        Variant::Bottomup => bottomup::sort(gpu, buf, opts),
        Variant::Blockmerge => blockmerge::sort(gpu, buf, opts),
        Variant::Bitonic => bitonic::sort(gpu, buf, opts),
    }
}
