//! The order-word gather of wide keys (see the module docs).
use super::{WideLayout, WideWord, order_word};
use crate::gpu;

/// See [`WideWord`]. `LE`: little-endian integer keys, else big-endian byte strings.
#[inline(always)]
pub(super) unsafe fn wide_word<const LE: bool>(p: WideWord) {
    let WideWord { keys, key_bytes, word, sign, n, perm, words, aligned, first } = p;
    let (keys, perm, words): (*const u8, *mut u32, *mut u64) = (keys.get(), perm.get(), words.get());
    let i = gpu::global_idx();
    if i >= n {
        return;
    }
    unsafe {
        let src = if first != 0 {
            *perm.add(i as usize) = i as u32;
            i
        } else {
            *perm.add(i as usize) as u64
        };
        let key = keys.add((src * key_bytes) as usize);
        let w = if aligned != 0 {
            // Word `word` counted from the most significant end: the little-endian
            // integer's word from the top, the byte string's from the front.
            if LE {
                let raw = *(key.add((key_bytes - 8 * (word + 1)) as usize) as *const u64);
                if word == 0 { raw ^ sign } else { raw }
            } else {
                let raw = (*(key.add((8 * word) as usize) as *const u64)).swap_bytes();
                if word == 0 { raw ^ sign } else { raw }
            }
        } else {
            let layout = if LE { WideLayout::LittleEndian } else { WideLayout::BigEndian };
            order_word(key_bytes, layout, sign, word, |j| *key.add(j as usize))
        };
        *words.add(i as usize) = w;
    }
}
