//! The radix kernels' entries ([`crate::params`]): the entries of each key and value
//! width, and [`Widths`], the handles of one width that the host picks at run time.
use super::params::*;
#[cfg(target_arch = "nvptx64")]
use super::{MID_ITEMS, SHORT_ITEMS, device, items, narrow};
#[cfg(target_arch = "nvptx64")]
use crate::gpu;
use crate::key::Word;
use crate::params::{EntryLayout, Kernel};

/// The tile kernels of one key and value width: the digit pass on full and on short
/// tiles, and the one-block sort on its three tile sizes.
#[derive(Clone, Copy, Debug)]
pub struct Widths<K, V> {
    pub sweep: Kernel<Sweep<K, V>>,
    /// Keys alone: the first digit pass on full tiles of a sort by all the keys' bits,
    /// which ranks ties in any order (`block::rank::rank_tile`, device code:
    /// items of one digit that differ are ordered by a later pass, and equal ones
    /// cannot be told apart). `None` with values.
    pub sweep_first: Option<Kernel<Sweep<K, V>>>,
    pub sweep_short: Kernel<Sweep<K, V>>,
    pub small: Kernel<Small<K, V>>,
    pub small_short: Kernel<Small<K, V>>,
    pub small_mid: Kernel<Small<K, V>>,
    /// 4- and 8-byte keys: the last launch of a split sort that may take the plan by
    /// buckets (`device::buckets`: the groups of the top digit sorted in one block
    /// each, or the copy-back). `None` for narrower keys.
    pub buckets: Option<Kernel<Buckets<K, V>>>,
}

impl<K: Word, V: Word> Widths<K, V> {
    const fn layouts(&self) -> [EntryLayout; 5] {
        [
            self.sweep.layout(),
            self.sweep_short.layout(),
            self.small.layout(),
            self.small_short.layout(),
            self.small_mid.layout(),
        ]
    }
}

/// Keys per thread of the full tile of keys `$k` with values `$v` (if `$pairs`).
#[cfg(target_arch = "nvptx64")]
macro_rules! full_items {
    ($k:ty, $v:ty, $pairs:expr) => {
        items(<$k as Word>::BYTES, if $pairs { <$v as Word>::BYTES } else { 0 })
    };
}

/// The tile kernels of one key / value width (`$pairs`: with values) and their
/// [`Widths`], named after `$suffix` (`K32_V64` for `radix_onesweep_k32_v64`, ...).
macro_rules! width_entries {
    ($k:ty, $v:ty, $pairs:expr, $suffix:ident, $first:expr, $buckets:expr) => {
        paste::paste! {
            sweep_entry!([<radix_onesweep_ $suffix>] { K = $k, V = $v } |p| {
                gpu::grid_dependency_wait();
                device::sweep::<$k, $v, $pairs, false, { full_items!($k, $v, $pairs) as usize }>(p)
            });
            sweep_entry!([<radix_onesweep_short_ $suffix>] { K = $k, V = $v } |p| {
                gpu::grid_dependency_wait();
                device::sweep::<$k, $v, $pairs, false, { SHORT_ITEMS as usize }>(p)
            });
            small_entry!([<radix_small_ $suffix>] { K = $k, V = $v } |p| {
                gpu::grid_dependency_wait();
                device::small_entry::<$k, $v, $pairs, { full_items!($k, $v, $pairs) as usize }>(p)
            });
            small_entry!([<radix_small_short_ $suffix>] { K = $k, V = $v } |p| {
                gpu::grid_dependency_wait();
                device::small_entry::<$k, $v, $pairs, { SHORT_ITEMS as usize }>(p)
            });
            small_entry!([<radix_small_mid_ $suffix>] { K = $k, V = $v } |p| {
                gpu::grid_dependency_wait();
                device::small_entry::<$k, $v, $pairs, { MID_ITEMS as usize }>(p)
            });
            #[doc = concat!("The tile kernels of `", stringify!($suffix), "`.")]
            pub const [<$suffix:upper>]: Widths<$k, $v> = Widths {
                sweep: [<radix_onesweep_ $suffix>],
                sweep_first: $first,
                sweep_short: [<radix_onesweep_short_ $suffix>],
                small: [<radix_small_ $suffix>],
                small_short: [<radix_small_short_ $suffix>],
                small_mid: [<radix_small_mid_ $suffix>],
                buckets: $buckets,
            };
        }
    };
}
/// The first digit pass of keys `$k` alone on full tiles ([`Widths::sweep_first`]).
macro_rules! first_pass_entry {
    ($k:ty, $suffix:ident) => {
        paste::paste! {
            sweep_entry!([<radix_onesweep_first_ $suffix>] { K = $k, V = u32 } |p| {
                gpu::grid_dependency_wait();
                device::sweep::<$k, u32, false, true, { full_items!($k, u32, false) as usize }>(p)
            });
        }
    };
}
/// The bucket kernel of keys `$k` with values `$v` ([`Widths::buckets`]).
macro_rules! buckets_entries {
    ($k:ty, $v:ty, $pairs:expr, $suffix:ident) => {
        paste::paste! {
            buckets_entry!([<radix_buckets_ $suffix>] { K = $k, V = $v } |p| {
                gpu::grid_dependency_wait();
                device::buckets::<$k, $v, $pairs, { full_items!($k, $v, $pairs) as usize }>(p)
            });
        }
    };
}
buckets_entries!(u32, u32, false, k32);
buckets_entries!(u32, u32, true, k32_v32);
buckets_entries!(u32, u64, true, k32_v64);
buckets_entries!(u64, u32, false, k64);
buckets_entries!(u64, u32, true, k64_v32);
buckets_entries!(u64, u64, true, k64_v64);

first_pass_entry!(u32, k32);
first_pass_entry!(u64, k64);
first_pass_entry!(u16, k16);
first_pass_entry!(u8, k8);

width_entries!(u32, u32, false, k32, Some(radix_onesweep_first_k32), Some(radix_buckets_k32));
width_entries!(u32, u32, true, k32_v32, None, Some(radix_buckets_k32_v32));
width_entries!(u32, u64, true, k32_v64, None, Some(radix_buckets_k32_v64));
width_entries!(u64, u32, false, k64, Some(radix_onesweep_first_k64), Some(radix_buckets_k64));
width_entries!(u64, u32, true, k64_v32, None, Some(radix_buckets_k64_v32));
width_entries!(u64, u64, true, k64_v64, None, Some(radix_buckets_k64_v64));
// 16- and 8-bit keys (alone, or with 32-bit values: pairs and argsort): two passes
// (one) over keys loaded and stored at their own width.
width_entries!(u16, u32, false, k16, Some(radix_onesweep_first_k16), None);
width_entries!(u16, u32, true, k16_v32, None, None);
width_entries!(u8, u32, false, k8, Some(radix_onesweep_first_k8), None);
width_entries!(u8, u32, true, k8_v32, None, None);

// The fused sorts of keys alone ([`super::FUSED_MAX`]), one per tile size. Launched
// cooperatively, never as programmatic dependents (their predecessor is the control
// block's memset), so they have no `griddepcontrol.wait`.
macro_rules! fused_entries {
    ($k:ty, $suffix:ident, $pairs:expr; $($i:literal)*) => {
        paste::paste! {
            $(
                fused_entry!([<radix_fused_ $suffix _i $i>] { K = $k, V = u32 } |p| {
                    device::fused::<$k, u32, $pairs, $i>(p)
                });
            )*
        }
    };
}
fused_entries!(u32, k32, false; 4 8 12 20);
fused_entries!(u64, k64, false; 4 8 12);
fused_entries!(u32, k32_v32, true; 8 12 23);

/// The fused sorts of keys `Self` ([`Fused`]): `(items per thread, kernel)`, fewest
/// items first; none for 16- and 8-bit keys.
pub trait FusedKernel: Word {
    /// Keys alone.
    const FUSED: &'static [(u32, Kernel<Fused<Self, u32>>)];
    /// With `u32` values (split pairs).
    const FUSED_PAIRS: &'static [(u32, Kernel<Fused<Self, u32>>)];
}

impl FusedKernel for u32 {
    const FUSED: &'static [(u32, Kernel<Fused<u32, u32>>)] =
        &[(4, radix_fused_k32_i4), (8, radix_fused_k32_i8), (12, radix_fused_k32_i12), (20, radix_fused_k32_i20)];
    const FUSED_PAIRS: &'static [(u32, Kernel<Fused<u32, u32>>)] =
        &[(8, radix_fused_k32_v32_i8), (12, radix_fused_k32_v32_i12), (23, radix_fused_k32_v32_i23)];
}

impl FusedKernel for u64 {
    const FUSED: &'static [(u32, Kernel<Fused<u64, u32>>)] =
        &[(4, radix_fused_k64_i4), (8, radix_fused_k64_i8), (12, radix_fused_k64_i12)];
    const FUSED_PAIRS: &'static [(u32, Kernel<Fused<u64, u32>>)] = &[];
}

impl FusedKernel for u16 {
    const FUSED: &'static [(u32, Kernel<Fused<u16, u32>>)] = &[];
    const FUSED_PAIRS: &'static [(u32, Kernel<Fused<u16, u32>>)] = &[];
}

impl FusedKernel for u8 {
    const FUSED: &'static [(u32, Kernel<Fused<u8, u32>>)] = &[];
    const FUSED_PAIRS: &'static [(u32, Kernel<Fused<u8, u32>>)] = &[];
}

// The packed pass of pairs and of argsorts: one body, the value source and sink chosen
// by `device::packed_sweep`'s `ARG`. Pairs of integer keys (equal order masks) have a
// kernel of their own, which holds one way of taking digits: spills 140 -> 88 bytes,
// u32 pairs 3.5% faster at 2^24 and 1.6% at 2^28 (H200, 2026-11-29). The general
// kernel serves float keys: a kernel of their way alone (no spills) made f32 pairs 1%
// slower, so they keep this one. An argsort ranks order bits (masks zero).
packed_sweep_entry!(radix_onesweep_packed_k32_v32 { K = u32, V = u32 } |p| {
    gpu::grid_dependency_wait();
    device::packed_sweep::<u32, u32, 0, { device::MASKS_EITHER }, false>(p)
});
packed_sweep_entry!(radix_onesweep_packed_int_k32_v32 { K = u32, V = u32 } |p| {
    gpu::grid_dependency_wait();
    device::packed_sweep::<u32, u32, 0, { device::MASKS_EQUAL }, false>(p)
});
packed_sweep_entry!(radix_onesweep_arg_k32_i32 { K = u32, V = u32 } |p| {
    gpu::grid_dependency_wait();
    device::packed_sweep::<u32, u32, 4, { device::MASKS_EQUAL }, false>(p)
});
packed_sweep_entry!(radix_onesweep_arg_k32_i64 { K = u32, V = u64 } |p| {
    gpu::grid_dependency_wait();
    device::packed_sweep::<u32, u64, 4, { device::MASKS_EQUAL }, false>(p)
});
// An argsort whose ties may come out in any order (`stable=False`): its first pass
// ranks ties in any order, as the first pass of keys alone does.
packed_sweep_entry!(radix_onesweep_arg_any_k32_i32 { K = u32, V = u32 } |p| {
    gpu::grid_dependency_wait();
    device::packed_sweep::<u32, u32, 4, { device::MASKS_EQUAL }, true>(p)
});
packed_sweep_entry!(radix_onesweep_arg_any_k32_i64 { K = u32, V = u64 } |p| {
    gpu::grid_dependency_wait();
    device::packed_sweep::<u32, u64, 4, { device::MASKS_EQUAL }, true>(p)
});
// The argsort of 16-bit keys: the same passes, whose first loads `u16` keys (two
// passes over the packed words, where a copy of the keys, positions made apart and
// a split pair sort with widened indices moved ~44 bytes a key).
packed_sweep_entry!(radix_onesweep_arg_k16_i32 { K = u16, V = u32 } |p| {
    gpu::grid_dependency_wait();
    device::packed_sweep::<u16, u32, 2, { device::MASKS_EQUAL }, false>(p)
});
packed_sweep_entry!(radix_onesweep_arg_k16_i64 { K = u16, V = u64 } |p| {
    gpu::grid_dependency_wait();
    device::packed_sweep::<u16, u64, 2, { device::MASKS_EQUAL }, false>(p)
});
packed_sweep_entry!(radix_onesweep_arg_any_k16_i32 { K = u16, V = u32 } |p| {
    gpu::grid_dependency_wait();
    device::packed_sweep::<u16, u32, 2, { device::MASKS_EQUAL }, true>(p)
});
packed_sweep_entry!(radix_onesweep_arg_any_k16_i64 { K = u16, V = u64 } |p| {
    gpu::grid_dependency_wait();
    device::packed_sweep::<u16, u64, 2, { device::MASKS_EQUAL }, true>(p)
});
// The sort of 16-bit float keys in NaN-last order once a NaN or -0.0 was seen: the
// argsort passes' words carry each key's own bits where the position would be, and the
// last pass stores them, in place (where the argsort's indices and a gather took 4x
// as long at 2^28).
packed_sweep_entry!(radix_onesweep_carry_k16 { K = u16, V = u16 } |p| {
    gpu::grid_dependency_wait();
    device::packed_sweep::<u16, u16, { device::CARRY_K16 }, { device::MASKS_EQUAL }, false>(p)
});
arg_back_entry!(radix_arg_back_i32 { I = u32 } |p| {
    gpu::grid_dependency_wait();
    device::arg_back::<_, false>(p)
});
arg_back_entry!(radix_arg_back_i64 { I = u64 } |p| {
    gpu::grid_dependency_wait();
    device::arg_back::<_, false>(p)
});
arg_back_entry!(radix_carry_back_k16 { I = u16 } |p| {
    gpu::grid_dependency_wait();
    device::arg_back::<_, true>(p)
});

hist_entry!(radix_hist_k32 { K = u32 } |p| {
    gpu::grid_dependency_wait();
    device::histogram::<_, 0>(p)
});
// An argsort of `f32` keys in NaN-last order: the keys counted as the argsort passes
// map them (`PackedSweep::nan_inf`).
hist_entry!(radix_hist_nan_f32 { K = u32 } |p| {
    gpu::grid_dependency_wait();
    device::histogram::<_, { crate::key::float_inf_bits(32, 23) }>(p)
});
// The same for `f16` and `bf16` keys (`+inf` bits of their own, one entry each).
hist_entry!(radix_hist_nan_f16 { K = u16 } |p| {
    gpu::grid_dependency_wait();
    device::histogram::<_, { crate::key::float_inf_bits(16, 10) }>(p)
});
hist_entry!(radix_hist_nan_bf16 { K = u16 } |p| {
    gpu::grid_dependency_wait();
    device::histogram::<_, { crate::key::float_inf_bits(16, 7) }>(p)
});
hist_entry!(radix_hist_k64 { K = u64 } |p| {
    gpu::grid_dependency_wait();
    device::histogram::<_, 0>(p)
});
// The total-order sort of `f32` / `f64` keys in NaN-last order: counts as
// `radix_hist_k32` / `_k64` and sets `ctrl::NAN_FOUND` if a key is a NaN or `-0.0`.
hist_entry!(radix_hist_check_f32 { K = u32 } |p| {
    gpu::grid_dependency_wait();
    device::histogram_checking::<_, { crate::key::float_inf_bits(32, 23) }>(p)
});
hist_entry!(radix_hist_check_f64 { K = u64 } |p| {
    gpu::grid_dependency_wait();
    device::histogram_checking::<_, { crate::key::float_inf_bits(64, 52) }>(p)
});
// The same for 16-bit floats: `f16` and `bf16` have different `+inf` bits, so one
// entry each.
hist_entry!(radix_hist_check_f16 { K = u16 } |p| {
    gpu::grid_dependency_wait();
    device::histogram_checking::<_, { crate::key::float_inf_bits(16, 10) }>(p)
});
hist_entry!(radix_hist_check_bf16 { K = u16 } |p| {
    gpu::grid_dependency_wait();
    device::histogram_checking::<_, { crate::key::float_inf_bits(16, 7) }>(p)
});
hist_entry!(radix_hist_k16 { K = u16 } |p| {
    gpu::grid_dependency_wait();
    device::histogram::<_, 0>(p)
});
hist_entry!(radix_hist_k8 { K = u8 } |p| {
    gpu::grid_dependency_wait();
    device::histogram::<_, 0>(p)
});

unpack_back_entry!(
    radix_unpack_back {} | p | {
        gpu::grid_dependency_wait();
        device::unpack_back(p)
    }
);

copy_back_entry!(radix_copy_back { K = u32 } |p| {
    gpu::grid_dependency_wait();
    device::copy_back(p)
});
// Narrow keys are copied back as bytes (`n` keys need not fill whole `u32` words), by
// 16-byte vectors between a byte prefix and tail.
copy_back_entry!(radix_copy_back_k16 { K = u16 } |p| {
    gpu::grid_dependency_wait();
    narrow::copy_back(p)
});
copy_back_entry!(radix_copy_back_k8 { K = u8 } |p| {
    gpu::grid_dependency_wait();
    narrow::copy_back(p)
});

/// The histogram kernel of keys `K`.
pub trait HistKernel: Word {
    const HIST: Kernel<Hist<Self>>;
    /// The histograms that also check the keys for NaN and `-0.0`
    /// ([`super::ctrl::NAN_FOUND`]), each with the `+inf` bits of the float format it
    /// checks for (none for a width without floats).
    const HIST_CHECKING: &'static [(u64, Kernel<Hist<Self>>)];

    /// The checking histogram of the float format whose `+inf` has bits `inf`, if
    /// this width has one.
    fn hist_checking(inf: u64) -> Option<Kernel<Hist<Self>>> {
        Self::HIST_CHECKING.iter().find(|c| c.0 == inf).map(|c| c.1)
    }
}

impl HistKernel for u32 {
    const HIST: Kernel<Hist<u32>> = radix_hist_k32;
    const HIST_CHECKING: &'static [(u64, Kernel<Hist<u32>>)] =
        &[(crate::key::float_inf_bits(32, 23), radix_hist_check_f32)];
}

impl HistKernel for u64 {
    const HIST: Kernel<Hist<u64>> = radix_hist_k64;
    const HIST_CHECKING: &'static [(u64, Kernel<Hist<u64>>)] =
        &[(crate::key::float_inf_bits(64, 52), radix_hist_check_f64)];
}

impl HistKernel for u16 {
    const HIST: Kernel<Hist<u16>> = radix_hist_k16;
    const HIST_CHECKING: &'static [(u64, Kernel<Hist<u16>>)] = &[
        (crate::key::float_inf_bits(16, 10), radix_hist_check_f16),
        (crate::key::float_inf_bits(16, 7), radix_hist_check_bf16),
    ];
}

impl HistKernel for u8 {
    const HIST: Kernel<Hist<u8>> = radix_hist_k8;
    const HIST_CHECKING: &'static [(u64, Kernel<Hist<u8>>)] = &[];
}

/// The packed argsort ([`PackedSweep`]) of keys `Self` (`u32` or `u16` words): its
/// histograms and, for indices of each [`ArgIndex`], its passes.
pub trait ArgKey: HistKernel {
    /// The histograms counting the keys as the first pass maps them in NaN-last order,
    /// each with the `+inf` bits of its float format.
    const HIST_NAN: &'static [(u64, Kernel<Hist<Self>>)];

    /// The passes into indices `I`; `any`: the one whose first pass ranks ties in any
    /// order.
    fn sweep<I: ArgIndex>(any: bool) -> Kernel<PackedSweep<Self, I>>;

    /// The histogram of an argsort: [`HistKernel::HIST`], or with `nan_inf` (not 0)
    /// the one of [`ArgKey::HIST_NAN`] for that float format, if this width has it.
    fn arg_hist(nan_inf: u64) -> Option<Kernel<Hist<Self>>> {
        if nan_inf == 0 {
            return Some(Self::HIST);
        }
        Self::HIST_NAN.iter().find(|c| c.0 == nan_inf).map(|c| c.1)
    }
}

impl ArgKey for u32 {
    const HIST_NAN: &'static [(u64, Kernel<Hist<u32>>)] = &[(crate::key::float_inf_bits(32, 23), radix_hist_nan_f32)];
    fn sweep<I: ArgIndex>(any: bool) -> Kernel<PackedSweep<u32, I>> {
        if any { I::SWEEP_ANY_K32 } else { I::SWEEP_K32 }
    }
}

impl ArgKey for u16 {
    const HIST_NAN: &'static [(u64, Kernel<Hist<u16>>)] = &[
        (crate::key::float_inf_bits(16, 10), radix_hist_nan_f16),
        (crate::key::float_inf_bits(16, 7), radix_hist_nan_bf16),
    ];
    fn sweep<I: ArgIndex>(any: bool) -> Kernel<PackedSweep<u16, I>> {
        if any { I::SWEEP_ANY_K16 } else { I::SWEEP_K16 }
    }
}

/// The argsort kernels writing indices of `Self` (`u32` or `u64`): the passes over
/// `u32` and `u16` keys ([`ArgKey::sweep`] chooses), and the kernel writing the
/// indices the passes did not ([`ArgBack`]).
pub trait ArgIndex: Word {
    const SWEEP_K32: Kernel<PackedSweep<u32, Self>>;
    /// [`ArgIndex::SWEEP_K32`] whose first pass ranks ties in any order.
    const SWEEP_ANY_K32: Kernel<PackedSweep<u32, Self>>;
    const SWEEP_K16: Kernel<PackedSweep<u16, Self>>;
    const SWEEP_ANY_K16: Kernel<PackedSweep<u16, Self>>;
    const BACK: Kernel<ArgBack<Self>>;
}

impl ArgIndex for u32 {
    const SWEEP_K32: Kernel<PackedSweep<u32, u32>> = radix_onesweep_arg_k32_i32;
    const SWEEP_ANY_K32: Kernel<PackedSweep<u32, u32>> = radix_onesweep_arg_any_k32_i32;
    const SWEEP_K16: Kernel<PackedSweep<u16, u32>> = radix_onesweep_arg_k16_i32;
    const SWEEP_ANY_K16: Kernel<PackedSweep<u16, u32>> = radix_onesweep_arg_any_k16_i32;
    const BACK: Kernel<ArgBack<u32>> = radix_arg_back_i32;
}

impl ArgIndex for u64 {
    const SWEEP_K32: Kernel<PackedSweep<u32, u64>> = radix_onesweep_arg_k32_i64;
    const SWEEP_ANY_K32: Kernel<PackedSweep<u32, u64>> = radix_onesweep_arg_any_k32_i64;
    const SWEEP_K16: Kernel<PackedSweep<u16, u64>> = radix_onesweep_arg_k16_i64;
    const SWEEP_ANY_K16: Kernel<PackedSweep<u16, u64>> = radix_onesweep_arg_any_k16_i64;
    const BACK: Kernel<ArgBack<u64>> = radix_arg_back_i64;
}

/// The copy-back kernel of narrow keys `K` (16- and 8-bit): wider keys are copied back
/// as `u32` words by [`radix_copy_back`].
pub trait NarrowCopyBack: Word {
    const COPY_BACK: Kernel<CopyBack<Self>>;
}

impl NarrowCopyBack for u16 {
    const COPY_BACK: Kernel<CopyBack<u16>> = radix_copy_back_k16;
}

impl NarrowCopyBack for u8 {
    const COPY_BACK: Kernel<CopyBack<u8>> = radix_copy_back_k8;
}

/// Every radix entry.
pub const KERNELS: &[EntryLayout] = &{
    let w = [
        K32.layouts(),
        K32_V32.layouts(),
        K32_V64.layouts(),
        K64.layouts(),
        K64_V32.layouts(),
        K64_V64.layouts(),
        K16.layouts(),
        K16_V32.layouts(),
        K8.layouts(),
        K8_V32.layouts(),
    ];
    let mut all = [radix_hist_k32.layout(); 99];
    let mut i = 0;
    while i < 50 {
        all[i] = w[i / 5][i % 5];
        i += 1;
    }
    all[50] = radix_hist_k32.layout();
    all[51] = radix_hist_k64.layout();
    all[52] = radix_hist_k16.layout();
    all[53] = radix_hist_k8.layout();
    all[54] = radix_onesweep_packed_k32_v32.layout();
    all[55] = radix_unpack_back.layout();
    all[56] = radix_copy_back.layout();
    all[57] = radix_copy_back_k16.layout();
    all[58] = radix_copy_back_k8.layout();
    all[59] = radix_onesweep_arg_k32_i32.layout();
    all[60] = radix_onesweep_arg_k32_i64.layout();
    all[61] = radix_arg_back_i32.layout();
    all[62] = radix_arg_back_i64.layout();
    all[63] = radix_hist_nan_f32.layout();
    all[74] = radix_hist_check_f32.layout();
    all[75] = radix_hist_check_f64.layout();
    all[76] = radix_hist_check_f16.layout();
    all[77] = radix_hist_check_bf16.layout();
    all[78] = radix_onesweep_first_k32.layout();
    all[79] = radix_onesweep_first_k64.layout();
    all[80] = radix_onesweep_first_k16.layout();
    all[81] = radix_onesweep_first_k8.layout();
    all[82] = radix_onesweep_packed_int_k32_v32.layout();
    all[83] = radix_onesweep_arg_any_k32_i32.layout();
    all[84] = radix_onesweep_arg_any_k32_i64.layout();
    all[85] = radix_onesweep_arg_k16_i32.layout();
    all[86] = radix_onesweep_arg_k16_i64.layout();
    all[87] = radix_onesweep_arg_any_k16_i32.layout();
    all[88] = radix_onesweep_arg_any_k16_i64.layout();
    all[89] = radix_hist_nan_f16.layout();
    all[90] = radix_hist_nan_bf16.layout();
    all[91] = radix_onesweep_carry_k16.layout();
    all[92] = radix_carry_back_k16.layout();
    all[93] = radix_buckets_k32.layout();
    all[94] = radix_buckets_k32_v32.layout();
    all[95] = radix_buckets_k32_v64.layout();
    all[96] = radix_buckets_k64.layout();
    all[97] = radix_buckets_k64_v32.layout();
    all[98] = radix_buckets_k64_v64.layout();
    let mut f = 0;
    while f < <u32 as FusedKernel>::FUSED.len() {
        all[64 + f] = <u32 as FusedKernel>::FUSED[f].1.layout();
        f += 1;
    }
    let mut g = 0;
    while g < <u64 as FusedKernel>::FUSED.len() {
        all[64 + f + g] = <u64 as FusedKernel>::FUSED[g].1.layout();
        g += 1;
    }
    let mut h = 0;
    while h < <u32 as FusedKernel>::FUSED_PAIRS.len() {
        all[64 + f + g + h] = <u32 as FusedKernel>::FUSED_PAIRS[h].1.layout();
        h += 1;
    }
    all
};
