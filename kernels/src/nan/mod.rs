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
use crate::key::{Word, float_inf_bits};
use crate::params::{DevPtr, EntryLayout, Kernel};

/// The canonical `f32` NaN of NaN-last sorts: positive, all payload bits set, the
/// largest `f32` bits in IEEE total order (its order bits are all ones).
pub const CANONICAL_NAN_F32: u32 = largest_nan_bits(32) as u32;
/// The canonical `f64` NaN (see [`CANONICAL_NAN_F32`]).
pub const CANONICAL_NAN_F64: u64 = largest_nan_bits(64);
/// The canonical `f16` / `bf16` NaN (see [`CANONICAL_NAN_F32`]): positive, every bit
/// below the sign set, in both formats.
pub const CANONICAL_NAN_16: u16 = largest_nan_bits(16) as u16;

/// The NaN with the largest bits in IEEE total order of a `width`-bit float: every bit
/// but the sign set (whatever the format's exponent width).
#[inline(always)]
pub const fn largest_nan_bits(width: u32) -> u64 {
    (1u64 << (width - 1)) - 1
}

/// The positive quiet NaN without payload of a float of `width` bits with
/// `mantissa_bits` significand bits (`f32::NAN`, `f64::NAN`): exponent all ones and the
/// significand's top bit.
#[inline(always)]
pub const fn quiet_nan_bits(width: u32, mantissa_bits: u32) -> u64 {
    float_inf_bits(width, mantissa_bits) | 1 << (mantissa_bits - 1)
}

/// The canonical bits of the raw bits `raw` of a `width`-bit float whose `+inf` has
/// bits `inf`: a NaN of either sign and any payload becomes `nan`, `-0.0` becomes
/// `+0.0`, every other value stays. The one rule of every canonical copy (NaN-last
/// sorts write [`largest_nan_bits`], the run operations the quiet NaN) and of the run
/// operations' equality.
#[inline(always)]
pub const fn canonical_raw(raw: u64, width: u32, inf: u64, nan: u64) -> u64 {
    let abs = raw & ((1u64 << (width - 1)) - 1);
    if abs > inf {
        nan
    } else if abs == 0 {
        0
    } else {
        raw
    }
}

/// [`canonical_raw`] of a key word (its width from its type).
#[inline(always)]
pub fn canonical_word<W: Word>(raw: W, inf: W, nan: W) -> W {
    W::from_u64(canonical_raw(raw.to_u64(), 8 * W::BYTES, inf.to_u64(), nan.to_u64()))
}

/// The bits a sort orders of the raw key `raw`: its canonical bits
/// ([`canonical_word`]: every NaN the largest NaN, `-0.0` as `+0.0`, so that the order
/// is NaN-last order) when `nan_inf` (the `+inf` bits of the keys' float format) is not
/// 0, `raw` otherwise. The one map of the sorts that order keys by their canonical bits
/// as they read them (the radix histogram and the argsort's first pass, which must
/// agree on every digit, and the row sort) while moving the keys' own bits.
#[inline(always)]
pub fn nan_mapped<K: Word>(raw: K, nan_inf: K) -> K {
    if nan_inf.to_u64() == 0 {
        return raw;
    }
    canonical_word(raw, nan_inf, K::from_u64(largest_nan_bits(8 * K::BYTES)))
}

/// `raw` (an `f32`'s bits), or [`CANONICAL_NAN_F32`] if it is a NaN of either sign
/// (exponent all ones, mantissa not zero), or `+0.0` if it is `-0.0`.
#[inline(always)]
pub const fn canonical_f32(raw: u32) -> u32 {
    canonical_raw(raw as u64, 32, float_inf_bits(32, 23), CANONICAL_NAN_F32 as u64) as u32
}

/// `raw` (an `f64`'s bits), or [`CANONICAL_NAN_F64`] if it is a NaN, or `+0.0` if it
/// is `-0.0`.
#[inline(always)]
pub const fn canonical_f64(raw: u64) -> u64 {
    canonical_raw(raw, 64, float_inf_bits(64, 52), CANONICAL_NAN_F64)
}

/// `raw` (the bits of a 16-bit float whose `+inf` has bits `inf`: `0x7c00` for `f16`,
/// `0x7f80` for `bf16`), or [`CANONICAL_NAN_16`] if it is a NaN, or `+0.0` if it is
/// `-0.0` (as [`canonical_f32`]).
#[inline(always)]
pub const fn canonical_16(raw: u16, inf: u16) -> u16 {
    canonical_raw(raw as u64, 16, inf as u64, CANONICAL_NAN_16 as u64) as u16
}

/// Whether the raw bits of a float whose `+inf` has bits `inf` are a NaN or `-0.0`:
/// the keys whose canonical copy differs from them in order (a NaN-last sort of keys
/// without them is their total-order sort).
#[inline(always)]
pub fn is_nan_or_negative_zero<W: Word>(raw: W, inf: W) -> bool {
    let sign = 1u64 << (8 * W::BYTES - 1);
    let r = raw.to_u64();
    r & (sign - 1) > inf.to_u64() || r == sign
}

/// Threads per block of the canonical copy and of the check.
pub const BLOCK: u32 = 256;

crate::params::kernel_params! {
    /// `dst[i] = canonical_word(src[i], inf, nan)` for `i < n` ([`canonical_raw`]),
    /// grid-stride. `src` and `dst` may be the same buffer.
    pub struct Canonicalize<K> {
        pub src: DevPtr<K>,
        pub dst: DevPtr<K>,
        pub n: u64,
        /// The bits of `+inf` of the keys' float format ([`float_inf_bits`]).
        pub inf: K,
        /// The NaN every NaN becomes.
        pub nan: K,
    }
    /// Declares an entry taking [`Canonicalize`].
    entries canonicalize_entry;
}

crate::params::kernel_params! {
    /// `*found` becomes nonzero if a key of `keys[0..n]` is a NaN or `-0.0`
    /// ([`is_nan_or_negative_zero`]); it is never cleared (the caller zeroes it).
    /// Grid-stride.
    pub struct NanCheck<K> {
        pub keys: DevPtr<K>,
        pub n: u64,
        pub inf: K,
        pub found: DevPtr<u32>,
    }
    /// Declares an entry taking [`NanCheck`].
    entries nan_check_entry;
}

#[cfg(target_arch = "nvptx64")]
mod device {
    use super::*;
    use crate::gpu;

    /// See [`Canonicalize`].
    #[inline(always)]
    pub unsafe fn canonicalize<K: Word>(p: Canonicalize<K>) {
        let (src, dst) = (p.src.get(), p.dst.get());
        let stride = gpu::grid_dim() as u64 * gpu::block_dim() as u64;
        let mut i = gpu::global_idx();
        while i < p.n {
            unsafe { *dst.add(i as usize) = canonical_word(*src.add(i as usize), p.inf, p.nan) };
            i += stride;
        }
    }

    /// See [`NanCheck`]: each warp votes, and one lane of a warp that found such a key
    /// sets the flag (a plain store: every writer writes the same value).
    #[inline(always)]
    pub unsafe fn check<K: Word + PartialEq>(p: NanCheck<K>) {
        let keys = p.keys.get();
        let stride = gpu::grid_dim() as u64 * gpu::block_dim() as u64;
        let mut i = gpu::global_idx();
        let mut hit = false;
        while i < p.n {
            hit |= is_nan_or_negative_zero(unsafe { *keys.add(i as usize) }, p.inf);
            i += stride;
        }
        if gpu::ballot(hit) != 0 && gpu::lane_id() == 0 {
            unsafe { gpu::st_relaxed_u32(p.found.get(), 1) };
        }
    }
}

macro_rules! nan_entries {
    ($k:ty, $suffix:ident) => {
        paste::paste! {
            canonicalize_entry!([<nan_canonical_ $suffix>] { K = $k } |p| device::canonicalize::<$k>(p));
            nan_check_entry!([<nan_check_ $suffix>] { K = $k } |p| device::check::<$k>(p));
        }
    };
}
nan_entries!(u16, k16);
nan_entries!(u32, k32);
nan_entries!(u64, k64);

/// The canonical copy and the check of float keys stored as words `Self` (`u16`: `f16`
/// and `bf16`, told apart by the `inf` parameter; `u32`: `f32`; `u64`: `f64`).
pub trait NanKernels: Word {
    const CANONICALIZE: Kernel<Canonicalize<Self>>;
}

impl NanKernels for u32 {
    const CANONICALIZE: Kernel<Canonicalize<u32>> = nan_canonical_k32;
}

impl NanKernels for u64 {
    const CANONICALIZE: Kernel<Canonicalize<u64>> = nan_canonical_k64;
}

/// Every entry of this module.
pub const KERNELS: &[EntryLayout] = &[
    nan_canonical_k16.layout(),
    nan_canonical_k32.layout(),
    nan_canonical_k64.layout(),
    nan_check_k16.layout(),
    nan_check_k32.layout(),
    nan_check_k64.layout(),
];

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

    /// Both NaNs a copy writes are NaNs of their format: the largest (NaN-last sorts)
    /// and the quiet one (`f32::NAN`, `f64::NAN`, and the 16-bit formats' quiet NaNs).
    #[test]
    fn written_nans_are_the_formats_nans() {
        assert_eq!(quiet_nan_bits(32, 23), f32::NAN.to_bits() as u64);
        assert_eq!(quiet_nan_bits(64, 52), f64::NAN.to_bits());
        assert_eq!(quiet_nan_bits(16, 10), half::f16::NAN.to_bits() as u64);
        assert_eq!(quiet_nan_bits(16, 7), half::bf16::NAN.to_bits() as u64);
        assert_eq!(largest_nan_bits(32), 0x7fff_ffff);
        // The rule with the quiet NaN is the run operations' canonical bits.
        for raw in [0xffff_ffffu32, 0x7f80_0001, 0x8000_0000, 0, 0x3f80_0000, 0xff80_0000] {
            let q = canonical_raw(raw as u64, 32, float_inf_bits(32, 23), quiet_nan_bits(32, 23));
            assert_eq!(q, crate::runs::canonical_bits(raw as u64, 32), "{raw:#x}");
        }
    }

    /// The check finds exactly the keys whose canonical copy differs: every NaN and
    /// `-0.0`, in every format.
    #[test]
    fn the_check_finds_exactly_nans_and_negative_zero() {
        for r in 0..=u16::MAX {
            let (h, b) = (half::f16::from_bits(r), half::bf16::from_bits(r));
            assert_eq!(is_nan_or_negative_zero(r, 0x7c00), h.is_nan() || r == 0x8000, "f16 {r:#x}");
            assert_eq!(is_nan_or_negative_zero(r, 0x7f80), b.is_nan() || r == 0x8000, "bf16 {r:#x}");
            assert_eq!(is_nan_or_negative_zero(r, 0x7c00), canonical_16(r, 0x7c00) != r || h.is_nan());
        }
        for x in zoo_f32() {
            let raw = x.to_bits();
            let special = x.is_nan() || raw == 0x8000_0000;
            assert_eq!(is_nan_or_negative_zero(raw, f32::INFINITY.to_bits()), special, "{x:?}");
            let d = (x as f64).to_bits();
            assert_eq!(is_nan_or_negative_zero(d, f64::INFINITY.to_bits()), special, "{x:?}");
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
