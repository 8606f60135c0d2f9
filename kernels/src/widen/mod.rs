//! `widen`: the 16- and 8-bit keys (`u16`, `i16`, `f16`, `bf16`, `u8`, `i8`) on the
//! 32-bit kernels. Only the radix sort has kernels of its own for them (where the
//! width pays: one or two digit passes); top-k, select, segments, rows and the merge
//! sort run on a widened copy instead:
//!
//! - `widen_u16` / `widen_u8` ([`Widen`]) write each key's order bits (its
//!   [`BitOrder`](crate::key::BitOrder) masks, ascending) into the top bits of a
//!   `u32` ([`widen_bits`]): the `u32`'s unsigned order is the key's order, equal keys
//!   stay equal (so stable sorts stay stable), and the key's most significant digit is
//!   the word's, which the radix selects of top-k and select_nth decide first.
//! - `narrow_u16` / `narrow_u8` ([`Narrow`]) write the keys back: from the wide order
//!   bits ([`narrow_bits`], the exact inverse), or, where the operation returns
//!   positions, gathered from the input by them (NaN-last order sorts a NaN-canonical
//!   copy, and the gather keeps each NaN's payload and each zero's sign).
use crate::key::Word;
use crate::params::{DevPtr, EntryLayout, Kernel};

/// How far a narrow key's order bits are shifted up in the wide word: 16 (`u16`) or
/// 24 (`u8`) bits.
#[inline(always)]
pub const fn shift(bytes: u32) -> u32 {
    32 - 8 * bytes
}

/// The wide word of the narrow raw key `raw`: its order bits under the masks `pos`,
/// `neg` ([`Word::ordered`]) in the top bits, zeros below.
#[inline(always)]
pub fn widen_bits<N: Word>(raw: N, pos: N, neg: N) -> u32 {
    (raw.ordered(pos, neg).to_u64() as u32) << shift(N::BYTES)
}

/// The narrow raw key of the wide word `wide` ([`widen_bits`]'s inverse; the bits
/// below the key's are ignored).
#[inline(always)]
pub fn narrow_bits<N: Word>(wide: u32, pos: N, neg: N) -> N {
    N::from_u64((wide >> shift(N::BYTES)) as u64).raw(pos, neg)
}

crate::params::kernel_params! {
    /// `dst[i]` = [`widen_bits`]`(src[i])` for `i < n`, one thread per key. `pos` and
    /// `neg` are the key's ascending masks in the low bits (the operation on the wide
    /// words takes the direction).
    pub struct Widen<N> {
        pub src: DevPtr<N>,
        pub dst: DevPtr<u32>,
        pub n: u64,
        pub pos: u32,
        pub neg: u32,
    }
    /// Declares an entry taking [`Widen`].
    entries widen_entry;
}

crate::params::kernel_params! {
    /// The narrow keys of `n` output positions, one thread each: without `gather`
    /// (null), `dst[i]` = [`narrow_bits`]`(wide[i])`; with it, the key of row
    /// `i / keep` at column `idx[i]` of the row-major `gather` whose rows are `cols`
    /// keys long (`keep = n` and `cols` anything: `gather[idx[i]]`).
    pub struct Narrow<N> {
        pub wide: DevPtr<u32>,
        pub gather: DevPtr<N>,
        pub idx: DevPtr<u32>,
        pub dst: DevPtr<N>,
        pub n: u64,
        pub keep: u64,
        pub cols: u64,
        pub pos: u32,
        pub neg: u32,
    }
    /// Declares an entry taking [`Narrow`].
    entries narrow_entry;
}

/// The flat index `gather` holds output position `i`'s key at (see [`Narrow`]).
#[inline(always)]
pub const fn gather_index(i: u64, col: u32, keep: u64, cols: u64) -> u64 {
    (i / keep) * cols + col as u64
}

macro_rules! word_entries {
    ($w:ty, $widen:ident, $narrow:ident) => {
        widen_entry!(
            $widen { N = $w } | p | {
                let i = crate::gpu::global_idx();
                if i < p.n {
                    let raw = *p.src.get().add(i as usize);
                    let (pos, neg) = (p.pos as $w, p.neg as $w);
                    *p.dst.get().add(i as usize) = widen_bits::<$w>(raw, pos, neg);
                }
            }
        );
        narrow_entry!(
            $narrow { N = $w } | p | {
                let i = crate::gpu::global_idx();
                if i < p.n {
                    let key = if p.gather.addr() == 0 {
                        narrow_bits::<$w>(*p.wide.get().add(i as usize), p.pos as $w, p.neg as $w)
                    } else {
                        let col = *p.idx.get().add(i as usize);
                        *p.gather.get().add(gather_index(i, col, p.keep, p.cols) as usize)
                    };
                    *p.dst.get().add(i as usize) = key;
                }
            }
        );
    };
}
word_entries!(u16, widen_u16, narrow_u16);
word_entries!(u8, widen_u8, narrow_u8);

/// The widen and narrow entries of a narrow key word (`u16`, `u8`).
pub trait WidenKernels: Word {
    const WIDEN: Kernel<Widen<Self>>;
    const NARROW: Kernel<Narrow<Self>>;
}

impl WidenKernels for u16 {
    const WIDEN: Kernel<Widen<u16>> = widen_u16;
    const NARROW: Kernel<Narrow<u16>> = narrow_u16;
}

impl WidenKernels for u8 {
    const WIDEN: Kernel<Widen<u8>> = widen_u8;
    const NARROW: Kernel<Narrow<u8>> = narrow_u8;
}

/// Every entry of this module.
pub const KERNELS: &[EntryLayout] = &[widen_u16.layout(), widen_u8.layout(), narrow_u16.layout(), narrow_u8.layout()];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::BitOrder;

    /// The masks of a `bits`-bit key of `order`, ascending, as the entries take them.
    fn masks(order: BitOrder, bits: u32) -> (u64, u64) {
        order.masks(bits, false)
    }

    /// Every 16-bit raw key of every bit order: the wide words are in the key's order
    /// (the order bits of `SortKey`'s impls, checked through `f16_order_bits` and the
    /// integer casts), and narrowing returns the raw key.
    #[test]
    fn widening_keeps_the_order_of_every_16_bit_key() {
        for order in [BitOrder::Unsigned, BitOrder::Signed, BitOrder::Float] {
            let (pos, neg) = masks(order, 16);
            let (pos, neg) = (pos as u16, neg as u16);
            let mut prev: Option<(u32, u16)> = None;
            let mut raws: [u16; 65536] = [0; 65536];
            for (i, r) in raws.iter_mut().enumerate() {
                *r = i as u16;
            }
            let expected = |r: u16| -> u16 {
                match order {
                    BitOrder::Unsigned => r,
                    BitOrder::Signed => r ^ 0x8000,
                    BitOrder::Float => crate::key::f16_order_bits(r),
                }
            };
            raws.sort_unstable_by_key(|&r| expected(r));
            for r in raws {
                let w = widen_bits::<u16>(r, pos, neg);
                assert_eq!(w & 0xffff, 0, "{order:?} {r:#x}");
                assert_eq!(narrow_bits::<u16>(w, pos, neg), r, "{order:?} {r:#x}");
                if let Some((pw, pr)) = prev {
                    assert!(pw < w, "{order:?}: {pr:#x} -> {pw:#x} not below {r:#x} -> {w:#x}");
                }
                prev = Some((w, r));
            }
        }
    }

    /// Every 8-bit raw key of both integer orders, as above.
    #[test]
    fn widening_keeps_the_order_of_every_8_bit_key() {
        for order in [BitOrder::Unsigned, BitOrder::Signed] {
            let (pos, neg) = masks(order, 8);
            let (pos, neg) = (pos as u8, neg as u8);
            let mut raws: [u8; 256] = [0; 256];
            for (i, r) in raws.iter_mut().enumerate() {
                *r = i as u8;
            }
            let value = |r: u8| if order == BitOrder::Signed { r as i8 as i32 } else { r as i32 };
            raws.sort_unstable_by_key(|&r| value(r));
            let wide: [u32; 256] = core::array::from_fn(|i| widen_bits::<u8>(raws[i], pos, neg));
            assert!(wide.windows(2).all(|w| w[0] < w[1]), "{order:?}");
            for (w, r) in wide.iter().zip(raws) {
                assert_eq!(w & 0x00ff_ffff, 0);
                assert_eq!(narrow_bits::<u8>(*w, pos, neg), r);
            }
        }
    }

    /// The gather index: rows of `keep` outputs, each from its row of `cols` keys.
    #[test]
    fn gather_index_takes_the_row_of_the_output() {
        assert_eq!(gather_index(0, 3, 2, 10), 3);
        assert_eq!(gather_index(1, 9, 2, 10), 9);
        assert_eq!(gather_index(2, 0, 2, 10), 10);
        assert_eq!(gather_index(5, 4, 2, 10), 24);
        // One row: the index is the flat position.
        assert_eq!(gather_index(7, 1234, 8, 0), 1234);
    }
}
