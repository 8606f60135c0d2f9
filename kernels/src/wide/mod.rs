//! Wide keys: keys of more than 64 bits (`u128`, `i128`, byte strings `[u8; N]`),
//! sorted as a sequence of 64-bit *order words*, most significant first, whose
//! unsigned lexicographic order is the key's order:
//!
//! * little-endian integers (`u128`, `i128`): word `w` is the `w`-th most significant
//!   eight bytes, with `sign` (the top bit for `i128`, 0 for `u128`) XORed into word 0
//!   so that two's complement orders as unsigned;
//! * byte strings (`[u8; N]`, compared lexicographically): word `w` is bytes
//!   `8w..8w + 8` read big-endian, zero-padded past `N`, so `ceil(N / 8)` words.
//!
//! The host sorts them LSD over the words: a stable pair sort of (word, permutation)
//! per word, least significant first, each word gathered in the current permutation
//! order by the kernels here (`host::wide`).
//!
//! * `wide_word_le` / `wide_word_be`: `words[i]` = order word `word` of key `perm[i]`
//!   (or of key `i` with `first`, which also writes `perm[i] = i`), for little-endian
//!   integers and big-endian byte strings.

use crate::params::{DevPtr, EntryLayout};

/// Most bytes a wide key has (`[u8; 32]`): four order words.
pub const MAX_KEY_BYTES: u64 = 32;

/// How a wide key's bytes map to order bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WideLayout {
    /// A little-endian integer (`u128`, `i128`): its last byte is the most significant.
    LittleEndian,
    /// A byte string compared lexicographically (`[u8; N]`): its first byte is the
    /// most significant, and the key is zero-padded to whole words.
    BigEndian,
}

/// Number of 64-bit order words of a key of `key_bytes` bytes.
pub const fn word_count(key_bytes: u64) -> u64 {
    key_bytes.div_ceil(8)
}

/// Order word `word` (0: the most significant) of a key of `key_bytes` bytes whose
/// byte `j` is `byte(j)`, in `layout`, with `sign` XORed into word 0. The one
/// definition both the kernels and the host's CPU reference use.
#[inline(always)]
pub fn order_word(key_bytes: u64, layout: WideLayout, sign: u64, word: u64, byte: impl Fn(u64) -> u8) -> u64 {
    let mut w = 0u64;
    let mut k = 0;
    while k < 8 {
        // Order byte `pos` of the key, most significant first.
        let pos = 8 * word + k;
        let b = if pos < key_bytes {
            byte(match layout {
                WideLayout::LittleEndian => key_bytes - 1 - pos,
                WideLayout::BigEndian => pos,
            })
        } else {
            0
        };
        w = (w << 8) | b as u64;
        k += 1;
    }
    if word == 0 { w ^ sign } else { w }
}

/// Whether order word `word` of keys of `key_bytes` at `base_addr` is one naturally
/// aligned 8-byte load in every key (the kernels' fast path; otherwise bytes).
pub const fn word_is_aligned(key_bytes: u64, base_addr: u64, word: u64) -> bool {
    key_bytes.is_multiple_of(8) && base_addr.is_multiple_of(8) && 8 * (word + 1) <= key_bytes
}

crate::params::kernel_params! {
    /// `words[i]` = order word `word` (0: the most significant; `sign` XORed into
    /// word 0) of key `perm[i]` of the `n` keys of `key_bytes` bytes at `keys`; with
    /// `first`, of key `i`, and `perm[i] = i` is written (the identity permutation
    /// the first pass starts from). `aligned`: [`word_is_aligned`] (one branch for the
    /// whole launch).
    pub struct WideWord {
        pub keys: DevPtr<u8>,
        pub key_bytes: u64,
        pub word: u64,
        pub sign: u64,
        pub n: u64,
        pub perm: DevPtr<u32>,
        pub words: DevPtr<u64>,
        pub aligned: u32,
        pub first: u32,
    }
    /// Declares an entry taking [`WideWord`].
    entries wide_word_entry;
}

wide_word_entry!(wide_word_le {} | p | device::wide_word::<true>(p));
wide_word_entry!(wide_word_be {} | p | device::wide_word::<false>(p));

/// Every entry of this module.
pub const KERNELS: &[EntryLayout] = &[wide_word_le.layout(), wide_word_be.layout()];

#[cfg(target_arch = "nvptx64")]
mod device;

#[cfg(test)]
mod tests;
