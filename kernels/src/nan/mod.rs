//! `nan`: NaN-last order (numpy's and torch's: every NaN after `+inf` ascending, first
//! descending, all NaNs equal, and `-0.0` equal to `+0.0`) by a copy of the keys
//! instead of another order in the sorting kernels.
//!
//! `nan_canonical_f32` / `nan_canonical_f64` ([`Canonicalize`]) copy float keys with
//! every NaN, whatever its sign and payload, replaced by the canonical NaN of
//! [`canonical_f32`] / [`canonical_f64`] (the largest value in IEEE 754 total order)
//! and `-0.0` replaced by `+0.0`. IEEE total order on the copy is therefore NaN-last
//! order ascending and, with the descending flip, NaN-first descending; all NaNs of
//! the copy are equal, and so are both zeros, so a stable sort of it keeps each in
//! input order (as `numpy.sort(kind='stable')` and `torch.sort(stable=True)` do). The host sorts the copy with positions and
//! gathers the original keys (and values) by them, which keeps NaN payloads; the
//! total-order kernels stay as they are (`host::variants::nan`).
use crate::params::{DevPtr, EntryLayout, Kernel};

/// The canonical `f32` NaN: positive, all payload bits set, the largest `f32` bits in
/// IEEE total order (its order bits are all ones).
pub const CANONICAL_NAN_F32: u32 = 0x7fff_ffff;
/// The canonical `f64` NaN (see [`CANONICAL_NAN_F32`]).
pub const CANONICAL_NAN_F64: u64 = 0x7fff_ffff_ffff_ffff;

/// `raw` (an `f32`'s bits), or [`CANONICAL_NAN_F32`] if it is a NaN of either sign
/// (exponent all ones, mantissa not zero), or `+0.0` if it is `-0.0`.
#[inline(always)]
pub const fn canonical_f32(raw: u32) -> u32 {
    if raw & 0x7fff_ffff > 0x7f80_0000 {
        CANONICAL_NAN_F32
    } else if raw == 0x8000_0000 {
        0
    } else {
        raw
    }
}

/// `raw` (an `f64`'s bits), or [`CANONICAL_NAN_F64`] if it is a NaN, or `+0.0` if it
/// is `-0.0`.
#[inline(always)]
pub const fn canonical_f64(raw: u64) -> u64 {
    if raw & 0x7fff_ffff_ffff_ffff > 0x7ff0_0000_0000_0000 {
        CANONICAL_NAN_F64
    } else if raw == 0x8000_0000_0000_0000 {
        0
    } else {
        raw
    }
}

crate::params::kernel_params! {
    /// `dst[i]` = `src[i]` with a NaN replaced by the canonical NaN, for `i < n`: one
    /// thread per key. `src` and `dst` may be the same buffer.
    pub struct Canonicalize<K> {
        pub src: DevPtr<K>,
        pub dst: DevPtr<K>,
        pub n: u64,
    }
    /// Declares an entry taking [`Canonicalize`].
    entries canonicalize_entry;
}

canonicalize_entry!(
    nan_canonical_f32 { K = u32 } | p | {
        let i = crate::gpu::global_idx();
        if i < p.n {
            *p.dst.get().add(i as usize) = canonical_f32(*p.src.get().add(i as usize));
        }
    }
);
canonicalize_entry!(
    nan_canonical_f64 { K = u64 } | p | {
        let i = crate::gpu::global_idx();
        if i < p.n {
            *p.dst.get().add(i as usize) = canonical_f64(*p.src.get().add(i as usize));
        }
    }
);

/// The canonical `f16` / `bf16` NaN (see [`CANONICAL_NAN_F32`]): positive, every bit
/// below the sign set, in both formats.
pub const CANONICAL_NAN_16: u16 = 0x7fff;

/// `raw` (the bits of a 16-bit float whose `+inf` has bits `inf`: `0x7c00` for `f16`,
/// `0x7f80` for `bf16`), or [`CANONICAL_NAN_16`] if it is a NaN, or `+0.0` if it is
/// `-0.0` (as [`canonical_f32`]).
#[inline(always)]
pub const fn canonical_16(raw: u16, inf: u16) -> u16 {
    if raw & 0x7fff > inf {
        CANONICAL_NAN_16
    } else if raw == 0x8000 {
        0
    } else {
        raw
    }
}

canonicalize_entry!(
    nan_canonical_f16 { K = u16 } | p | {
        let i = crate::gpu::global_idx();
        if i < p.n {
            *p.dst.get().add(i as usize) = canonical_16(*p.src.get().add(i as usize), 0x7c00);
        }
    }
);
canonicalize_entry!(
    nan_canonical_bf16 { K = u16 } | p | {
        let i = crate::gpu::global_idx();
        if i < p.n {
            *p.dst.get().add(i as usize) = canonical_16(*p.src.get().add(i as usize), 0x7f80);
        }
    }
);

/// The canonicalizing copy of float keys stored as words `Self` (`u32`: `f32`,
/// `u64`: `f64`; the 16-bit floats share one word, so theirs are picked by format:
/// [`nan_canonical_f16`], [`nan_canonical_bf16`]).
pub trait NanKernels: crate::key::Word {
    const CANONICALIZE: Kernel<Canonicalize<Self>>;
}

impl NanKernels for u32 {
    const CANONICALIZE: Kernel<Canonicalize<u32>> = nan_canonical_f32;
}

impl NanKernels for u64 {
    const CANONICALIZE: Kernel<Canonicalize<u64>> = nan_canonical_f64;
}

/// Every entry of this module.
pub const KERNELS: &[EntryLayout] =
    &[nan_canonical_f32.layout(), nan_canonical_f64.layout(), nan_canonical_f16.layout(), nan_canonical_bf16.layout()];

#[cfg(test)]
mod tests {
    use super::*;
    use core::cmp::Ordering;

    /// NaNs of both signs and several payloads, the infinities, both zeros, a
    /// subnormal and the largest finite values.
    fn zoo_f32() -> [f32; 14] {
        [
            f32::from_bits(0xffff_ffff),
            -f32::NAN,
            f32::from_bits(0x7f80_0001),
            f32::NEG_INFINITY,
            f32::MIN,
            -1.5,
            -0.0,
            0.0,
            1e-40,
            f32::MAX,
            f32::INFINITY,
            f32::NAN,
            f32::from_bits(0xff80_0001),
            f32::from_bits(0x7fff_ffff),
        ]
    }

    /// NaN-last order as numpy and torch define it, independently of any bits: NaNs
    /// equal to each other and above everything else, the rest by value (`-0.0 ==
    /// +0.0`).
    fn nan_last_cmp<F: Copy + PartialOrd>(a: F, b: F, is_nan: impl Fn(F) -> bool) -> Ordering {
        match (is_nan(a), is_nan(b)) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            (false, false) => a.partial_cmp(&b).unwrap(),
        }
    }

    #[test]
    fn canonical_copy_in_total_order_is_nan_last_order() {
        let f = zoo_f32();
        for a in f {
            let ca = f32::from_bits(canonical_f32(a.to_bits()));
            assert_eq!(ca.is_nan(), a.is_nan());
            if !a.is_nan() && a != 0.0 {
                assert_eq!(ca.to_bits(), a.to_bits(), "non-NaNs but -0.0 are copied bit for bit");
            }
            if a == 0.0 {
                assert_eq!(ca.to_bits(), 0, "both zeros become +0.0");
            }
            for b in f {
                let cb = f32::from_bits(canonical_f32(b.to_bits()));
                let want = nan_last_cmp(a, b, f32::is_nan);
                assert_eq!(ca.total_cmp(&cb), want, "{a:?} {b:?}");
            }
        }
        let extra = [f64::from_bits(0xfff0_0000_0000_0001), f64::from_bits(0x7ff0_0000_0000_0001), f64::MAX];
        let d: [f64; 17] = core::array::from_fn(|i| if i < f.len() { f[i] as f64 } else { extra[i - f.len()] });
        for &a in &d {
            let ca = f64::from_bits(canonical_f64(a.to_bits()));
            assert_eq!(ca.is_nan(), a.is_nan());
            if !a.is_nan() && a != 0.0 {
                assert_eq!(ca.to_bits(), a.to_bits());
            }
            if a == 0.0 {
                assert_eq!(ca.to_bits(), 0);
            }
            for &b in &d {
                let cb = f64::from_bits(canonical_f64(b.to_bits()));
                let want = nan_last_cmp(a, b, f64::is_nan);
                assert_eq!(ca.total_cmp(&cb), want, "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn canonical_nans_have_the_largest_order_bits() {
        use crate::key::SortKey;
        assert_eq!(f32::from_bits(CANONICAL_NAN_F32).bits(), u32::MAX);
        assert_eq!(f64::from_bits(CANONICAL_NAN_F64).bits(), u64::MAX);
        assert_eq!(f32::from_bits(CANONICAL_NAN_F32).ord_bits(true), 0);
    }

    /// The 16-bit copies: every NaN of each format (and no other value) becomes the
    /// canonical NaN, which is a NaN of both formats and the largest in total order;
    /// `-0.0` becomes `+0.0`; every other value is copied bit for bit.
    #[test]
    fn canonical_16_replaces_exactly_the_nans_and_the_negative_zero() {
        for r in 0..=u16::MAX {
            let (h, b) = (half::f16::from_bits(r), half::bf16::from_bits(r));
            let want = |nan: bool| {
                if nan {
                    CANONICAL_NAN_16
                } else if r == 0x8000 {
                    0
                } else {
                    r
                }
            };
            assert_eq!(canonical_16(r, 0x7c00), want(h.is_nan()), "f16 {r:#x}");
            assert_eq!(canonical_16(r, 0x7f80), want(b.is_nan()), "bf16 {r:#x}");
            let c = half::f16::from_bits(CANONICAL_NAN_16);
            assert_ne!(h.total_cmp(&c), Ordering::Greater);
        }
        assert!(half::f16::from_bits(CANONICAL_NAN_16).is_nan() && half::bf16::from_bits(CANONICAL_NAN_16).is_nan());
        assert_eq!(canonical_16(0x7c00, 0x7c00), 0x7c00, "+inf stays");
    }
}
