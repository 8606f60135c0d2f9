//! Reproducible inputs: every element is a function of (seed, index), so any size can
//! be generated in parallel and regenerated later for checking.
use kernels::key::Entity;
use rayon::prelude::*;

use crate::cpu;
use crate::element::Element;
use crate::error::{Bytes, Error, Result};
use crate::options::Order;

/// Shape of the input. Besides uniform keys, the adversarial cases that break naive
/// quicksorts and expose unstable merges.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Distribution {
    /// Independent random keys.
    #[default]
    Uniform,
    /// Already in ascending order.
    Sorted,
    /// In descending order.
    Reverse,
    /// Every key the same.
    Equal,
    /// Two distinct keys, randomly mixed.
    TwoValues,
    /// Ascending first half, descending second half.
    OrganPipe,
    /// 16 distinct keys, randomly mixed.
    FewUnique,
}

impl Distribution {
    pub const ALL: &'static [Distribution] = &[
        Distribution::Uniform,
        Distribution::Sorted,
        Distribution::Reverse,
        Distribution::Equal,
        Distribution::TwoValues,
        Distribution::OrganPipe,
        Distribution::FewUnique,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Distribution::Uniform => "uniform",
            Distribution::Sorted => "sorted",
            Distribution::Reverse => "reverse",
            Distribution::Equal => "equal",
            Distribution::TwoValues => "two-values",
            Distribution::OrganPipe => "organ-pipe",
            Distribution::FewUnique => "few-unique",
        }
    }
}

impl std::fmt::Display for Distribution {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// SplitMix64: a fast, well-mixed hash of the counter.
#[inline]
pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Builds an element of a type from random bits. `index` is the element's position in
/// the input, which [`Entity`] keeps as its id so stability is visible.
pub trait Random: Element {
    fn random(index: u64, bits: u64) -> Self;
}

impl Random for u32 {
    fn random(_: u64, bits: u64) -> Self {
        bits as u32
    }
}
impl Random for i32 {
    fn random(_: u64, bits: u64) -> Self {
        bits as i32
    }
}
impl Random for u64 {
    fn random(_: u64, bits: u64) -> Self {
        bits
    }
}
impl Random for i64 {
    fn random(_: u64, bits: u64) -> Self {
        bits as i64
    }
}
/// Finite floats in [-1000, 1000), 2^24 distinct values (NaNs and infinities are
/// tested separately).
impl Random for f32 {
    fn random(_: u64, bits: u64) -> Self {
        (bits >> 40) as f32 * (2000.0 / (1u64 << 24) as f32) - 1000.0
    }
}
impl Random for f64 {
    fn random(_: u64, bits: u64) -> Self {
        (bits >> 11) as f64 * (2000.0 / (1u64 << 53) as f64) - 1000.0
    }
}
/// Distances in [0, 1000); the id is the input position.
impl Random for Entity {
    fn random(index: u64, bits: u64) -> Self {
        let h = splitmix64(bits);
        Entity {
            distance_from_player: (bits >> 40) as f32 * (1000.0 / (1u64 << 24) as f32),
            id: index as u32,
            position: [(h & 0xffff) as f32, ((h >> 16) & 0xffff) as f32, ((h >> 32) & 0xffff) as f32],
        }
    }
}

/// Offsets of `segments` segments covering `n` elements (`segments + 1` entries, from
/// 0 to `n`), reproducible from `seed`: each length uniform in `0..=2 * n / segments`
/// (mean `n / segments`), clipped at `n`, the last segment taking what is left.
pub fn segment_offsets(n: usize, segments: usize, seed: u64) -> Vec<usize> {
    let mut offsets = Vec::with_capacity(segments + 1);
    offsets.push(0);
    if segments == 0 {
        return offsets;
    }
    let span = 2 * (n / segments) as u64 + 1;
    let mut at = 0;
    for i in 1..segments {
        at = (at + (splitmix64(seed ^ splitmix64(i as u64)) % span) as usize).min(n);
        offsets.push(at);
    }
    offsets.push(n);
    offsets
}

/// Checks that the host can hold `copies` arrays of `n` elements of `T` before any of
/// them is built, so that an impossible size is an error rather than an abort.
pub fn ensure_host_memory<T>(n: usize, copies: usize) -> Result<()> {
    let bytes = n.checked_mul(size_of::<T>()).and_then(|b| b.checked_mul(copies));
    let fits = bytes.is_some_and(|b| Vec::<u8>::new().try_reserve_exact(b).is_ok());
    if fits {
        Ok(())
    } else {
        Err(Error::BadArgument(format!(
            "{n} elements of {} bytes need {} of host memory ({copies} copies), which this machine cannot allocate",
            size_of::<T>(),
            bytes.map_or("more than the address space".to_string(), |b| Bytes(b as u64).to_string())
        )))
    }
}

/// `n` elements of distribution `dist`, reproducible from `seed`.
pub fn generate<T: Random>(n: usize, dist: Distribution, seed: u64) -> Vec<T> {
    let mut v: Vec<T> = generate_range(0..n, dist, seed);
    match dist {
        Distribution::Sorted => cpu::reference_sort(&mut v, Order::Ascending),
        Distribution::Reverse => cpu::reference_sort(&mut v, Order::Descending),
        Distribution::OrganPipe => {
            let (lo, hi) = v.split_at_mut(n / 2);
            cpu::reference_sort(lo, Order::Ascending);
            cpu::reference_sort(hi, Order::Descending);
        }
        _ => {}
    }
    v
}

/// Elements `range` of the input [`generate`] builds, before the sorting that the
/// `sorted`, `reverse` and `organ-pipe` distributions apply (those are the uniform
/// keys sorted): every element is a function of (seed, index), so any part of any
/// size can be made on its own (`host gen` writes large files piece by piece).
pub fn generate_range<T: Random>(range: std::ops::Range<usize>, dist: Distribution, seed: u64) -> Vec<T> {
    let base = splitmix64(seed);
    let at = |i: usize, key_bits: u64| T::random(i as u64, key_bits);
    match dist {
        Distribution::Equal => {
            let k = splitmix64(base);
            range.into_par_iter().map(|i| at(i, k)).collect()
        }
        Distribution::TwoValues | Distribution::FewUnique => {
            let distinct = if dist == Distribution::TwoValues { 2 } else { 16 };
            range
                .into_par_iter()
                .map(|i| {
                    let pick = splitmix64(base ^ (i as u64).wrapping_mul(0x2545_F491_4F6C_DD1D)) % distinct;
                    at(i, splitmix64(base.wrapping_add(pick + 1)))
                })
                .collect()
        }
        _ => range
            .into_par_iter()
            .map(|i| at(i, splitmix64(base ^ (i as u64).wrapping_mul(0x2545_F491_4F6C_DD1D))))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn impossible_host_sizes_are_errors() {
        assert!(ensure_host_memory::<u32>(1000, 3).is_ok());
        assert!(matches!(ensure_host_memory::<u64>(usize::MAX / 4, 1), Err(Error::BadArgument(_))));
        assert!(matches!(ensure_host_memory::<u32>(1 << 60, 3), Err(Error::BadArgument(_))));
    }

    #[test]
    fn reproducible_and_shaped() {
        assert_eq!(generate::<u32>(1000, Distribution::Uniform, 1), generate::<u32>(1000, Distribution::Uniform, 1));
        assert_ne!(generate::<u32>(1000, Distribution::Uniform, 1), generate::<u32>(1000, Distribution::Uniform, 2));
        let s = generate::<u32>(1000, Distribution::Sorted, 3);
        assert!(s.windows(2).all(|w| w[0] <= w[1]));
        let r = generate::<i64>(1000, Distribution::Reverse, 3);
        assert!(r.windows(2).all(|w| w[0] >= w[1]));
        let e = generate::<f32>(100, Distribution::Equal, 3);
        assert!(e.iter().all(|&x| x.to_bits() == e[0].to_bits()));
        let mut t = generate::<u64>(1000, Distribution::TwoValues, 3);
        t.sort();
        t.dedup();
        assert_eq!(t.len(), 2);
        let mut f = generate::<u32>(10_000, Distribution::FewUnique, 3);
        f.sort();
        f.dedup();
        assert!(f.len() <= 16 && f.len() > 8);
        let ents = generate::<Entity>(10, Distribution::Uniform, 3);
        assert!(ents.iter().enumerate().all(|(i, e)| e.id == i as u32));
    }

    #[test]
    fn ranges_are_pieces_of_the_whole() {
        for dist in [Distribution::Uniform, Distribution::Equal, Distribution::TwoValues, Distribution::FewUnique] {
            let whole: Vec<Entity> = generate(10_007, dist, 9);
            let mut pieces: Vec<Entity> = Vec::new();
            for at in (0..10_007).step_by(1000) {
                pieces.extend(generate_range::<Entity>(at..(at + 1000).min(10_007), dist, 9));
            }
            assert_eq!(pieces, whole, "{dist}");
        }
        let mut sorted: Vec<u64> = generate_range(0..5000, Distribution::Sorted, 4);
        sorted.sort();
        assert_eq!(sorted, generate::<u64>(5000, Distribution::Sorted, 4));
    }

    #[test]
    fn segment_offsets_cover_the_input_with_the_asked_mean() {
        let o = segment_offsets(1 << 20, 1 << 12, 5);
        assert_eq!(o.len(), (1 << 12) + 1);
        assert_eq!((o[0], *o.last().unwrap()), (0, 1 << 20));
        assert!(o.windows(2).all(|w| w[0] <= w[1]));
        // All but the last length are within 0..=2 * 256; their mean is near 256.
        let lens: Vec<usize> = o.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(lens[..lens.len() - 1].iter().all(|&l| l <= 512));
        let mean = lens[..lens.len() - 1].iter().sum::<usize>() as f64 / (lens.len() - 1) as f64;
        assert!((mean - 256.0).abs() < 10.0, "{mean}");
        assert_eq!(o, segment_offsets(1 << 20, 1 << 12, 5));
        assert_eq!(segment_offsets(10, 0, 1), [0]);
        assert_eq!(segment_offsets(0, 3, 1), [0, 0, 0, 0]);
        let few = segment_offsets(5, 100, 1);
        assert!(few.windows(2).all(|w| w[0] <= w[1]) && few[100] == 5);
    }
}
