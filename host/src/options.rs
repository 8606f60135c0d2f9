//! What a caller asks of a sort: the algorithm ([`Variant`]), the direction
//! ([`Order`]) and the rest of [`SortOptions`]. Plain data that every launcher, the CPU
//! backend and the entry points read, so it sits below all of them.
use std::fmt;

use crate::error::{Error, Result};

/// Sort direction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Order {
    // `--help` lists `asc, desc` without descriptions: `help = None` keeps these doc
    // comments out of it.
    /// Smallest first (the default).
    #[default]
    #[cfg_attr(feature = "cli", value(name = "asc", alias = "ascending", help = None::<&str>))]
    Ascending,
    /// Largest first.
    #[cfg_attr(feature = "cli", value(name = "desc", alias = "descending", help = None::<&str>))]
    Descending,
}

impl Order {
    /// Whether this is [`Order::Descending`].
    pub fn is_descending(self) -> bool {
        self == Order::Descending
    }
}

/// The one way an order reaches the device.
impl From<Order> for kernels::params::Direction {
    fn from(order: Order) -> Self {
        kernels::params::Direction::new(order.is_descending())
    }
}

impl fmt::Display for Order {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.is_descending() { "desc" } else { "asc" })
    }
}

/// Where floats' NaNs sort.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum NanOrder {
    /// IEEE 754 total order (the default; [`f32::total_cmp`]):
    /// `-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN`, NaNs ordered by sign and
    /// payload. `0.0 / 0.0` on x86 is a `-NaN`, so it sorts first ascending.
    #[default]
    #[cfg_attr(feature = "cli", value(name = "total", help = None::<&str>))]
    Total,
    /// numpy's and torch's order: every NaN, whatever its sign and payload, is larger
    /// than `+inf` and equal to every other NaN, and `-0.0` equals `+0.0`. Ascending
    /// puts all NaNs last in input order (stable sorts), descending first; both zeros
    /// keep their input order; top-k treats NaN as the largest value (`torch.topk`).
    /// The keys' bits (NaN payloads, zero signs) are returned unchanged.
    #[cfg_attr(feature = "cli", value(name = "last", help = None::<&str>))]
    Last,
}

/// How an argsort orders keys that compare equal.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Ties {
    /// In input order: a stable argsort (the default).
    #[default]
    #[cfg_attr(feature = "cli", value(name = "stable", help = None::<&str>))]
    Stable,
    /// In any order (`numpy.argsort`'s default kind, `torch.argsort(stable=False)`).
    /// On the GPU an argsort of 32- or 16-bit keys then ranks its first digit's ties in
    /// whatever order its atomic counters hand out places, which is faster; other
    /// argsorts, and the CPU backend, give the stable result, which is one of the
    /// allowed ones.
    #[cfg_attr(feature = "cli", value(name = "any", help = None::<&str>))]
    Any,
}

impl NanOrder {
    /// Whether this is [`NanOrder::Last`].
    pub fn is_last(self) -> bool {
        self == NanOrder::Last
    }
}

/// The whole order keys are compared by: the direction and where NaNs go. What the
/// segmented, row and top-k launchers take ([`KeyOrder::nan_last_for`] says which
/// keys NaN-last order concerns).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct KeyOrder {
    /// Ascending or descending.
    pub order: Order,
    /// Where NaNs go.
    pub nan: NanOrder,
}

impl KeyOrder {
    /// `order`, NaNs as `nan` says.
    pub fn new(order: Order, nan: NanOrder) -> KeyOrder {
        KeyOrder { order, nan }
    }

    /// Whether NaN-last order changes anything for keys `K` (floats, or records with a
    /// float key, under [`NanOrder::Last`]).
    ///
    /// The one decision of the NaN-last route: on the GPU such keys are sorted through
    /// a NaN-canonical copy (`host::variants::nan`), everything else by the
    /// total-order kernels alone; on the CPU such keys compare by
    /// the NaN-last order bits of their canonical form.
    pub fn nan_last_for<K: kernels::SortKey>(self) -> bool {
        use kernels::key::BitOrder;
        let float = matches!(K::BIT_ORDER.or(K::RECORD_KEY.map(|r| r.1)), Some(BitOrder::Float));
        float && self.nan.is_last()
    }

    /// The bits the CPU backend compares `x` by under this order: its order bits
    /// ([`kernels::SortKey::ord_bits`]), except that under NaN-last order every NaN
    /// of a float key gets all ones ascending and zero descending (the order bits of
    /// the canonical NaN, `kernels::nan::CANONICAL_NAN_F32`, which the GPU sorts by),
    /// and `-0.0` of a primitive float gets the order bits of `+0.0` (the canonical
    /// copy's zero: both zeros are one value, as in numpy and torch).
    pub(crate) fn sort_bits<K: kernels::SortKey>(self, x: &K) -> u64 {
        let desc = self.order.is_descending();
        let width = 8 * size_of::<K::Bits>() as u32;
        let asc: u64 = x.bits().into();
        if self.nan_last_for::<K>() {
            if is_nan_order_bits_of::<K>(asc) {
                return if desc { 0 } else { u64::MAX };
            }
            let sign = 1u64 << (width - 1);
            // -0.0's ascending order bits are all ones below the sign bit.
            if K::BIT_ORDER == Some(kernels::key::BitOrder::Float) && asc == sign - 1 {
                return if desc { sign - 1 } else { sign }; // +0.0's: `sign`, flipped within `width`
            }
        }
        x.ord_bits(desc).into()
    }
}

/// Whether the ascending order bits `bits` of float key `K` (any width: `f16` and
/// `bf16` share 16 bits, so the exponent's place comes from
/// [`kernels::SortKey::MANTISSA_BITS`]) are a NaN's: above `+inf`'s (positive NaNs)
/// or below `-inf`'s (negative NaNs, whose bits are flipped).
fn is_nan_order_bits_of<K: kernels::SortKey>(bits: u64) -> bool {
    let width = 8 * size_of::<K::Bits>() as u32;
    let sign = 1u64 << (width - 1);
    let all = if width == 64 { u64::MAX } else { (1u64 << width) - 1 };
    let pos_inf = sign | kernels::key::float_inf_bits(width, K::MANTISSA_BITS);
    bits > pos_inf || bits < !pos_inf & all
}

/// Whether the ascending order bits `bits` of a float of `width` bits (32 or 64) are a
/// NaN's: above `+inf`'s (positive NaNs) or below `-inf`'s (negative NaNs, whose bits
/// are flipped).
#[cfg(test)]
fn is_nan_order_bits(bits: u64, width: u32) -> bool {
    let (sign, exponent) = if width == 32 { (1u64 << 31, 0x7f80_0000) } else { (1u64 << 63, 0x7ff0_0000_0000_0000) };
    let all = if width == 64 { u64::MAX } else { (1u64 << width) - 1 };
    let pos_inf = sign | exponent;
    bits > pos_inf || bits < !pos_inf & all
}

impl From<Order> for KeyOrder {
    fn from(order: Order) -> Self {
        KeyOrder { order, nan: NanOrder::Total }
    }
}

/// How to sort: which algorithm, which direction, which block size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SortOptions {
    /// The algorithm.
    pub variant: Variant,
    /// Ascending (the default) or descending.
    pub order: Order,
    /// Threads per block for the variants that take one (power of two, 32..=1024).
    pub block_size: u32,
    /// Radix sort only: sort by order bits `begin..end` of each key (see
    /// [`SortOptions::key_bits`]); `None` sorts by the whole key.
    pub key_bits: Option<(u32, u32)>,
    /// Where NaNs of float keys sort ([`NanOrder`]); integers ignore it.
    pub nan: NanOrder,
}

impl SortOptions {
    /// `variant`, ascending, 256 threads per block, the whole key.
    pub fn new(variant: Variant) -> Self {
        SortOptions { variant, order: Order::Ascending, block_size: 256, key_bits: None, nan: NanOrder::Total }
    }

    /// Sets the direction.
    pub fn order(mut self, order: Order) -> Self {
        self.order = order;
        self
    }

    /// Sets the threads per block (power of two, 32..=1024) for the variants that take
    /// one; the others ignore it.
    pub fn block_size(mut self, block_size: u32) -> Self {
        self.block_size = block_size;
        self
    }

    /// Sorts by bits `begin..end` of each key's *order bits* only (the radix sort's
    /// `begin_bit`/`end_bit`): keys whose order bits agree there keep their input
    /// order. For unsigned integers the order bits are the value, so keys known to be
    /// below 2^20 sort with `key_bits(0, 20)` in three passes instead of four. The
    /// order bits of signed integers have the sign bit flipped; of floats, the IEEE
    /// total-order transform. Only the `radix` variant (and the CPU backend) take it.
    ///
    /// ```
    /// use host::{SortOptions, Sorter, Variant};
    ///
    /// let mut keys = vec![0x0301u32, 0x0102, 0x0203, 0x0101];
    /// Sorter::with_fallback().sort(&mut keys, &SortOptions::new(Variant::Radix).key_bits(0, 8))?;
    /// assert_eq!(keys, [0x0301, 0x0101, 0x0102, 0x0203]); // by the low byte, stable
    /// # Ok::<(), host::Error>(())
    /// ```
    pub fn key_bits(mut self, begin: u32, end: u32) -> Self {
        self.key_bits = Some((begin, end));
        self
    }

    /// Sorts floats' NaNs last ascending (first descending), all equal, in input
    /// order, as numpy and torch do ([`NanOrder::Last`]); the default is IEEE total
    /// order. On the GPU the `radix` variant (the default) takes it for sorts, pairs
    /// and argsort; the other variants refuse it ([`Error::Unsupported`]). Segments,
    /// rows and top-k take it on both backends. The GPU's sorting kernels know total
    /// order only: float keys under this order are sorted as a copy with every NaN
    /// made the largest one, with positions, and gathered from them (one more pass
    /// over the keys, a pair sort and a gather); the default order costs nothing.
    ///
    /// ```
    /// use host::{Order, SortOptions, Sorter};
    ///
    /// let nan = f32::from_bits(0xffc0_0000); // a -NaN, as x86 makes for 0.0 / 0.0
    /// let mut keys = vec![2.0f32, nan, -1.0, f32::INFINITY];
    /// Sorter::with_fallback().sort(&mut keys, &SortOptions::default().nan_last())?;
    /// assert_eq!(keys[..3], [-1.0, 2.0, f32::INFINITY]);
    /// assert_eq!(keys[3].to_bits(), 0xffc0_0000); // the NaN's bits are kept
    /// let mut keys = vec![2.0f32, nan, -1.0];
    /// let desc = SortOptions::default().nan_last().order(Order::Descending);
    /// Sorter::with_fallback().sort(&mut keys, &desc)?;
    /// assert!(keys[0].is_nan() && keys[1..] == [2.0, -1.0]);
    /// # Ok::<(), host::Error>(())
    /// ```
    pub fn nan_last(mut self) -> Self {
        self.nan = NanOrder::Last;
        self
    }

    /// Sets where NaNs sort ([`NanOrder`]).
    pub fn nan(mut self, nan: NanOrder) -> Self {
        self.nan = nan;
        self
    }

    /// The direction and NaN order together.
    pub fn key_order(&self) -> KeyOrder {
        KeyOrder::new(self.order, self.nan)
    }

    /// For the sorts that compare the GPUs' total-order bits across devices (several
    /// GPUs, one process per GPU): an [`Error::Unsupported`] when float keys `K` are
    /// asked for NaN-last order, which those sorts do not offer (their splitters and
    /// merges know total order only), rather than a silently different order.
    pub fn refuse_nan_last<K: kernels::SortKey>(&self, by: &str) -> Result<()> {
        if self.key_order().nan_last_for::<K>() {
            return Err(Error::Unsupported {
                option: "NaN-last order",
                by: by.to_string(),
                hint: "sort on one GPU (Sorter) or the CPU backend for NaNs last",
            });
        }
        Ok(())
    }

    /// Checks the options the same way on every backend, so that options the CPU
    /// backend accepts work on any GPU: the block size is a power of two from 32 (a
    /// warp) to [`MAX_BLOCK_SIZE`] ([`check_block_size`]).
    pub fn validate(&self) -> Result<()> {
        check_block_size(self.block_size)
    }
}

/// Most threads per block: the limit of every CUDA device since compute capability
/// 2.0 (`CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK`).
pub const MAX_BLOCK_SIZE: u32 = 1024;

/// A block size is a power of two from 32 (one warp) to [`MAX_BLOCK_SIZE`].
pub fn check_block_size(b: u32) -> Result<()> {
    if !b.is_power_of_two() || !(32..=MAX_BLOCK_SIZE).contains(&b) {
        return Err(Error::BadArgument(format!(
            "block size {b} must be a power of two between 32 and {MAX_BLOCK_SIZE}"
        )));
    }
    Ok(())
}

impl Default for SortOptions {
    fn default() -> Self {
        SortOptions::new(Variant::default())
    }
}

/// A named sorting algorithm. Every variant sorts any `n` and every element type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Variant {
    /// Onesweep-style LSD radix sort (Adinets and Merrill): one histogram pass, then
    /// one pass per 8-bit digit with a decoupled look-back across tiles; records by
    /// (key, index) pairs and a gather. Stable. The default.
    #[default]
    Radix,
    /// Merge-path merge sort (ModernGPU / CUB style): tiles sorted in shared memory
    /// (register sorts, then co-rank merges), then one partition and one merge launch
    /// per doubling of the run width, each block merging exactly one tile. Stable.
    Mergepath,
    /// Catania 3.1: log2(n) global-memory passes; each thread places its element by a
    /// binary search in the neighbouring chunk. Stable.
    Naive,
    /// Catania 3.4 `SM8`: passes with chunks narrower than the block run inside each
    /// block in shared memory (8 passes at block size 256); the rest as `naive`. Stable.
    Sm8,
    /// Catania 3.4 `SM9`: `sm8` plus the pass with chunk == block in shared memory,
    /// each block loading its neighbour tile's keys. Stable.
    Sm9,
    /// Catania 3.4 `SM`: `sm9` plus one block per chunk (walking its sub-chunks) for
    /// every chunk whose keys fit in the device's shared memory per block. Stable.
    Sm,
    /// GPU quicksort (Cederman and Tsigas; the UPC report's counters done right):
    /// three-way partitions of all segments per level around sampled medians, block
    /// offsets by a device scan, short segments sorted in shared memory. Unstable.
    Quick,
    /// Pisa: bottom-up merge sort, each thread merging whole slices of width 2^p with a
    /// sequential merge (few busy threads in late passes, one in the last). Stable.
    Bottomup,
    /// Blog: merges inside each block in shared memory, then parallel merge-path
    /// merges of run pairs across blocks. Stable.
    Blockmerge,
    /// Bitonic sort for any n (virtual +infinity padding): shared-memory stages for
    /// small strides, one global pass per large stride. Not stable.
    Bitonic,
}

impl Variant {
    /// Every variant, in the order the CLI lists them.
    pub const ALL: &'static [Variant] = &[
        Variant::Radix,
        Variant::Mergepath,
        Variant::Naive,
        Variant::Sm8,
        Variant::Sm9,
        Variant::Sm,
        Variant::Quick,
        Variant::Bottomup,
        Variant::Blockmerge,
        Variant::Bitonic,
    ];

    /// The name used on the command line and in tables.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Radix => "radix",
            Variant::Mergepath => "mergepath",
            Variant::Naive => "naive",
            Variant::Sm8 => "sm8",
            Variant::Sm9 => "sm9",
            Variant::Sm => "sm",
            Variant::Quick => "quick",
            Variant::Bottomup => "bottomup",
            Variant::Blockmerge => "blockmerge",
            Variant::Bitonic => "bitonic",
        }
    }

    /// Largest number of elements the variant accepts; longer inputs are refused with
    /// [`Error::TooManyElements`] before anything is launched.
    pub fn max_len(self) -> u64 {
        match self {
            Variant::Radix | Variant::Mergepath | Variant::Naive | Variant::Quick => u64::MAX,
            Variant::Sm8 | Variant::Sm9 | Variant::Sm => u64::MAX,
            // 64-bit indices throughout; launch limits are reported as errors.
            Variant::Blockmerge | Variant::Bitonic => u64::MAX,
            // Correct at any size, but its last passes merge on a handful of threads:
            // ~5 s at 2^24 on an H100 and linear in n beyond. Past 2^27 (~40 s) it is
            // refused rather than left to run for many minutes.
            Variant::Bottomup => 1 << 27,
        }
    }

    /// Whether equal keys keep their input order.
    pub fn is_stable(self) -> bool {
        match self {
            Variant::Radix | Variant::Mergepath | Variant::Naive => true,
            Variant::Sm8 | Variant::Sm9 | Variant::Sm => true,
            Variant::Quick => false,
            Variant::Bottomup | Variant::Blockmerge => true,
            Variant::Bitonic => false,
        }
    }
}

impl std::fmt::Display for Variant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Variant {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Variant::ALL.iter().copied().find(|v| v.name() == s).ok_or_else(|| {
            let names: Vec<_> = Variant::ALL.iter().map(|v| v.name()).collect();
            Error::BadArgument(format!("unknown variant `{s}` (known: {})", names.join(", ")))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernels::SortKey;

    #[test]
    fn nan_order_bits_are_exactly_the_nans() {
        let f32s = [
            0x7fc0_0000u32,
            0xffc0_0000,
            0x7f80_0001,
            0xff80_0001,
            0x7fff_ffff,
            0xffff_ffff,
            0x7f80_0000,
            0xff80_0000,
            0x7f7f_ffff,
            0xff7f_ffff,
            0,
            0x8000_0000,
            1,
        ];
        for raw in f32s {
            let x = f32::from_bits(raw);
            assert_eq!(is_nan_order_bits(x.bits().into(), 32), x.is_nan(), "{raw:#x}");
            let d = x as f64;
            assert_eq!(is_nan_order_bits(d.bits(), 64), d.is_nan(), "{raw:#x} widened");
        }
        for raw in [0x7ff0_0000_0000_0001u64, 0xfff0_0000_0000_0001, 0x7ff0_0000_0000_0000, 0xfff0_0000_0000_0000] {
            let d = f64::from_bits(raw);
            assert_eq!(is_nan_order_bits(d.bits(), 64), d.is_nan(), "{raw:#x}");
        }
    }

    #[test]
    fn the_cross_gpu_sorts_refuse_nan_last_for_floats_only() {
        let last = SortOptions::default().nan_last();
        let err = last.refuse_nan_last::<f32>("the multi-GPU sort").unwrap_err();
        assert!(matches!(err, Error::Unsupported { option: "NaN-last order", .. }), "{err}");
        assert!(last.refuse_nan_last::<f64>("x").is_err());
        // Integers have no NaN: the option means nothing to them, as everywhere else.
        assert!(last.refuse_nan_last::<u32>("x").is_ok());
        assert!(last.refuse_nan_last::<i64>("x").is_ok());
        assert!(SortOptions::default().refuse_nan_last::<f32>("x").is_ok());
    }

    #[test]
    fn nan_last_sort_bits_put_nans_last_ascending_and_first_descending() {
        let last = KeyOrder::new(Order::Ascending, NanOrder::Last);
        let first = KeyOrder::new(Order::Descending, NanOrder::Last);
        let nans = [f32::NAN, -f32::NAN, f32::from_bits(0x7f80_0001)];
        for nan in nans {
            assert!(last.sort_bits(&nan) > last.sort_bits(&f32::INFINITY));
            assert!(first.sort_bits(&nan) < first.sort_bits(&f32::INFINITY));
            assert_eq!(last.sort_bits(&nan), last.sort_bits(&nans[0]), "all NaNs equal");
        }
        // Total order and integers: the order bits themselves.
        let total = KeyOrder::from(Order::Ascending);
        assert_eq!(total.sort_bits(&-f32::NAN), (-f32::NAN).bits() as u64);
        assert_eq!(last.sort_bits(&u32::MAX), u32::MAX as u64);
    }

    #[test]
    fn nan_last_sort_bits_make_both_zeros_one_value() {
        for order in [Order::Ascending, Order::Descending] {
            let o = KeyOrder::new(order, NanOrder::Last);
            assert_eq!(o.sort_bits(&-0.0f32), o.sort_bits(&0.0f32), "{order}");
            assert_eq!(o.sort_bits(&-0.0f64), o.sort_bits(&0.0f64), "{order}");
            let (lo, hi) = if order.is_descending() { (1e-45f32, -1e-45) } else { (-1e-45f32, 1e-45) };
            assert!(o.sort_bits(&lo) < o.sort_bits(&-0.0f32) && o.sort_bits(&-0.0f32) < o.sort_bits(&hi));
        }
        // Total order keeps -0.0 before +0.0.
        let total = KeyOrder::from(Order::Ascending);
        assert!(total.sort_bits(&-0.0f32) < total.sort_bits(&0.0f32));
    }
}
