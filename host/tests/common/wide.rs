//! Wide-key inputs for the wide-key tests (CPU and GPU): patterns that leave some
//! order words equal, share prefixes, or cross the sign, from a seeded generator.
use host::{WideKey, WideLayout};

/// How the keys of a test input differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// Every byte random.
    Random,
    /// One random key, repeated.
    AllEqual,
    /// Only the least significant order word differs (the others are one random value).
    LowWord,
    /// Only the most significant order word differs.
    HighWord,
    /// Sixteen random keys, repeated in random order (stability shows).
    FewUnique,
    /// A common random key whose order bytes from a random position on are random:
    /// prefixes shared over every length.
    SharedPrefix,
    /// Small signed integers (-1000..1000) sign-extended over the whole key: for
    /// `i128`, negatives whose high word is all ones next to positives whose high
    /// word is zero.
    SmallSigned,
}

impl Pattern {
    pub const ALL: [Pattern; 7] = [
        Pattern::Random,
        Pattern::AllEqual,
        Pattern::LowWord,
        Pattern::HighWord,
        Pattern::FewUnique,
        Pattern::SharedPrefix,
        Pattern::SmallSigned,
    ];
}

/// SplitMix64: the tests' random bits.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn key<K: WideKey>(&mut self) -> K {
        let mut k = K::zeroed();
        for b in bytemuck::bytes_of_mut(&mut k) {
            *b = self.next() as u8;
        }
        k
    }
}

/// Key byte holding order byte `pos` (0: the most significant) of a `K`.
fn key_byte<K: WideKey>(pos: usize) -> usize {
    match K::LAYOUT {
        WideLayout::LittleEndian => size_of::<K>() - 1 - pos,
        WideLayout::BigEndian => pos,
    }
}

/// Sets the order bytes `range` of `key` at random.
fn randomize<K: WideKey>(rng: &mut Rng, key: &mut K, range: std::ops::Range<usize>) {
    let bytes = bytemuck::bytes_of_mut(key);
    for pos in range {
        bytes[key_byte::<K>(pos)] = rng.next() as u8;
    }
}

/// `n` keys of `pattern` from `seed`.
pub fn wide_keys<K: WideKey>(n: usize, pattern: Pattern, seed: u64) -> Vec<K> {
    let mut rng = Rng::new(seed ^ (n as u64).rotate_left(32) ^ pattern as u64);
    let base: K = rng.key();
    let size = size_of::<K>();
    let words = K::WORDS;
    let few: Vec<K> = (0..16).map(|_| rng.key()).collect();
    (0..n)
        .map(|_| {
            let mut k = base;
            match pattern {
                Pattern::Random => k = rng.key(),
                Pattern::AllEqual => {}
                Pattern::LowWord => randomize(&mut rng, &mut k, 8 * (words - 1)..size),
                Pattern::HighWord => randomize(&mut rng, &mut k, 0..size.min(8)),
                Pattern::FewUnique => k = few[rng.next() as usize % few.len()],
                Pattern::SharedPrefix => {
                    let from = rng.next() as usize % size;
                    randomize(&mut rng, &mut k, from..size);
                }
                Pattern::SmallSigned => {
                    let v = (rng.next() % 2000) as i64 - 1000;
                    let fill = if v < 0 { 0xff } else { 0 };
                    let bytes = bytemuck::bytes_of_mut(&mut k);
                    bytes.fill(fill);
                    for (pos, b) in v.to_be_bytes().iter().rev().enumerate().take(size) {
                        bytes[key_byte::<K>(size - 1 - pos)] = *b;
                    }
                }
            }
            k
        })
        .collect()
}

/// The reference: the stable sorting permutation by the keys' own `Ord` (std's stable
/// sort, independent of the library).
pub fn reference_perm<K: WideKey>(keys: &[K], descending: bool) -> Vec<u32> {
    let mut perm: Vec<u32> = (0..keys.len() as u32).collect();
    if descending {
        perm.sort_by(|&a, &b| keys[b as usize].cmp(&keys[a as usize]));
    } else {
        perm.sort_by(|&a, &b| keys[a as usize].cmp(&keys[b as usize]));
    }
    perm
}

/// `data` permuted by `perm`.
pub fn permuted<T: Copy>(data: &[T], perm: &[u32]) -> Vec<T> {
    perm.iter().map(|&i| data[i as usize]).collect()
}
