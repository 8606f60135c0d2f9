//! Wide keys: `u128`, `i128` and byte strings `[u8; N]` (N up to 32, compared
//! lexicographically), sorted alone, with values, or as a permutation.
//!
//! They are not [`Element`](crate::Element)s (that would ask every kernel family for
//! 128- and 256-bit kernels): each key is a sequence of 64-bit *order words*, most
//! significant first, whose unsigned lexicographic order is the key's order
//! ([`kernels::wide`]), and the GPU sorts them LSD over the words with the radix sort
//! of (`u64` word, `u32` index) pairs ([`device`]). The CPU sorts them by their own
//! [`Ord`] (`cpu::wide`).
pub(crate) mod device;

use kernels::wide::{MAX_KEY_BYTES, WideLayout, order_word};

/// A key wider than 64 bits: `u128`, `i128`, or a byte string `[u8; N]` with
/// `1 <= N <= 32` compared lexicographically (as `Ord` compares arrays: fixed-width
/// names, hash prefixes). Sorted by [`Sorter::sort_wide`](crate::Sorter::sort_wide)
/// and its siblings.
///
/// Sealed: the order words are defined for these types only.
pub trait WideKey: bytemuck::Pod + Ord + Send + Sync + std::fmt::Debug + sealed::Sealed {
    /// The type's name (`"u128"`, `"i128"`, `"[u8; 16]"`).
    const NAME: &'static str;
    /// How the key's bytes map to order bytes.
    const LAYOUT: WideLayout;
    /// XORed into the most significant order word: the sign bit for `i128`, so that
    /// two's complement orders as unsigned.
    const SIGN: u64;
    /// Number of 64-bit order words (the GPU's passes over the keys).
    const WORDS: usize = size_of::<Self>().div_ceil(8);

    /// Order word `word` of this key (0: the most significant): comparing keys'
    /// words as unsigned integers, first word first, orders them as [`Ord`] does.
    fn order_word(&self, word: usize) -> u64 {
        let bytes = bytemuck::bytes_of(self);
        order_word(bytes.len() as u64, Self::LAYOUT, Self::SIGN, word as u64, |j| bytes[j as usize])
    }
}

mod sealed {
    pub trait Sealed {}
}

impl sealed::Sealed for u128 {}
impl WideKey for u128 {
    const NAME: &'static str = "u128";
    const LAYOUT: WideLayout = WideLayout::LittleEndian;
    const SIGN: u64 = 0;
}

impl sealed::Sealed for i128 {}
impl WideKey for i128 {
    const NAME: &'static str = "i128";
    const LAYOUT: WideLayout = WideLayout::LittleEndian;
    const SIGN: u64 = 1 << 63;
}

macro_rules! byte_string_keys {
    ($($n:literal),*) => {$(
        impl sealed::Sealed for [u8; $n] {}
        impl WideKey for [u8; $n] {
            const NAME: &'static str = concat!("[u8; ", $n, "]");
            const LAYOUT: WideLayout = WideLayout::BigEndian;
            const SIGN: u64 = 0;
        }
    )*};
}
byte_string_keys!(
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
    32
);
const _: () = assert!(size_of::<[u8; 32]>() as u64 == MAX_KEY_BYTES);

#[cfg(test)]
mod tests {
    use super::*;

    fn words<K: WideKey>(k: &K) -> Vec<u64> {
        (0..K::WORDS).map(|w| k.order_word(w)).collect()
    }

    /// The order words compare as the keys do, for every pair of a set that
    /// differs in each word, the sign and the padding.
    fn words_order_as_ord<K: WideKey>(keys: &[K]) {
        for a in keys {
            for b in keys {
                assert_eq!(words(a).cmp(&words(b)), a.cmp(b), "{} {a:?} {b:?}", K::NAME);
            }
        }
    }

    #[test]
    fn order_words_order_as_the_keys() {
        let u: Vec<u128> = vec![0, 1, u64::MAX as u128, 1 << 64, (1 << 64) + 1, u128::MAX - 1, u128::MAX, 7 << 100];
        words_order_as_ord(&u);
        let i: Vec<i128> = vec![i128::MIN, i128::MIN + 1, -(1 << 64) - 1, -(1 << 64), -1, 0, 1, 1 << 64, i128::MAX];
        words_order_as_ord(&i);
        let s: Vec<[u8; 20]> = vec![
            [0; 20],
            [255; 20],
            *b"abcdefghijklmnopqrst",
            *b"abcdefghijklmnopqrsu",
            *b"abcdefgi\0\0\0\0\0\0\0\0\0\0\0\0",
            *b"b\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0",
        ];
        words_order_as_ord(&s);
        let t: Vec<[u8; 3]> = vec![*b"abc", *b"ab\0", *b"abd", [0xff, 0, 0]];
        words_order_as_ord(&t);
        assert_eq!(<[u8; 32]>::WORDS, 4);
        assert_eq!(<[u8; 17]>::WORDS, 3);
        assert_eq!(u128::WORDS, 2);
    }
}
