//! The portable half of the wide-key kernels: order words against the keys' own order.
use super::*;

fn words_of(key: &[u8], layout: WideLayout, sign: u64) -> [u64; 4] {
    let mut out = [0u64; 4];
    for (w, o) in out.iter_mut().enumerate().take(word_count(key.len() as u64) as usize) {
        *o = order_word(key.len() as u64, layout, sign, w as u64, |j| key[j as usize]);
    }
    out
}

#[test]
fn u128_words_are_its_high_then_low_half() {
    let x: u128 = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210;
    let w = words_of(&x.to_le_bytes(), WideLayout::LittleEndian, 0);
    assert_eq!(w[..2], [0x0123_4567_89ab_cdef, 0xfedc_ba98_7654_3210]);
}

#[test]
fn i128_words_order_negatives_first() {
    let sign = 1u64 << 63;
    let keys = [i128::MIN, -(1i128 << 64), -1, 0, 1, 1i128 << 64, i128::MAX];
    let words = keys.map(|k| words_of(&k.to_le_bytes(), WideLayout::LittleEndian, sign));
    assert!(words.windows(2).all(|p| p[0] < p[1]), "{words:x?}");
}

#[test]
fn byte_strings_read_big_endian_and_zero_padded() {
    let key: [u8; 20] = core::array::from_fn(|i| i as u8 + 1);
    let w = words_of(&key, WideLayout::BigEndian, 0);
    assert_eq!(word_count(20), 3);
    assert_eq!(w[..3], [0x0102_0304_0506_0708, 0x090a_0b0c_0d0e_0f10, 0x1112_1314_0000_0000]);
    // Lexicographic: a shorter common prefix decides.
    let (a, b) = (*b"abc\0\0\0\0\0\0z", *b"abd\0\0\0\0\0\0a");
    assert!(words_of(&a, WideLayout::BigEndian, 0) < words_of(&b, WideLayout::BigEndian, 0));
}

#[test]
fn aligned_words_need_whole_words_and_an_aligned_base() {
    assert!(word_is_aligned(16, 256, 1));
    assert!(!word_is_aligned(16, 4, 0));
    assert!(!word_is_aligned(20, 256, 0));
    assert!(word_is_aligned(32, 0, 3));
    assert!(!word_is_aligned(32, 0, 4));
}
