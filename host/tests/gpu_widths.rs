//! The 16- and 8-bit keys (`u16`, `i16`, `f16`, `bf16`, `u8`, `i8`) on the GPU: the radix
//! sort of keys, pairs and argsort against independent CPU references (sizes around
//! every tile edge, both orders, every special float), and the clear refusal of the
//! variants and operations that have no narrow kernels; NaN-last order of `f16`/`bf16`. Skips without a device
//! (`common::gpu_sorter`); `SORT_REQUIRE_GPU=1` makes a missing device fail.
mod common;

use common::{check_keys_and_pairs, gpu_sorter};
use host::testing::inputs::{Random, generate};
use host::testing::variants::radix;
use host::testing::verify;
use host::{Distribution, Error, Key, Order, SortOptions, Sorter, Variant, bf16, f16};
use rayon::prelude::*;

const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];

/// Sizes around the one-block limits, the short and full digit-pass tiles of the
/// narrow widths (keys alone and with 32-bit values), and a few large odd ones.
fn sizes() -> Vec<usize> {
    let mut v: Vec<usize> = vec![0, 1, 2, 3, 31, 255, 256, 257, 1000, 4097, (1 << 20) + 3];
    let (short, mid) = (kernels::radix::short_max() as usize, kernels::radix::mid_max() as usize);
    v.extend([short - 1, short, short + 1, mid, mid + 1]);
    let m = kernels::radix::SHORT_ONESWEEP_MAX as usize;
    v.extend([m, m + 1]);
    for (kb, vb) in [(2, 0), (2, 4), (1, 0), (1, 4)] {
        let t = radix::small_max(kb, vb) as usize;
        v.extend([t - 1, t, t + 1, 2 * t - 1, 2 * t + 1, 3 * t]);
    }
    v.sort();
    v.dedup();
    v
}

/// Keys, pairs (stable, with input indices) and argsort of one narrow type at every
/// size, both orders, against the CPU.
fn check_type<K: Random + Key>(test: &str) {
    let Some(s) = gpu_sorter(test) else { return };
    sizes().par_iter().for_each(|&n| {
        for order in ORDERS {
            let dist = if n % 2 == 0 { Distribution::Uniform } else { Distribution::FewUnique };
            check_keys_and_pairs::<K>(test, s, Variant::Radix, n, order, dist);
            let keys: Vec<K> = generate(n, dist, n as u64 ^ 0xa5);
            let opts = SortOptions::default().order(order);
            let gpu = s.argsort(&keys, &opts).unwrap_or_else(|e| panic!("{test} argsort n={n} {order}: {e}"));
            let cpu = Sorter::cpu().argsort(&keys, &opts).unwrap();
            assert!(gpu == cpu, "{test} argsort n={n} {order}: permutations differ");
        }
    });
}

#[test]
fn u16_keys_pairs_argsort() {
    check_type::<u16>("u16_keys_pairs_argsort");
}

#[test]
fn i16_keys_pairs_argsort() {
    check_type::<i16>("i16_keys_pairs_argsort");
}

#[test]
fn f16_keys_pairs_argsort() {
    check_type::<f16>("f16_keys_pairs_argsort");
}

#[test]
fn bf16_keys_pairs_argsort() {
    check_type::<bf16>("bf16_keys_pairs_argsort");
}

#[test]
fn u8_keys_pairs_argsort() {
    check_type::<u8>("u8_keys_pairs_argsort");
}

#[test]
fn i8_keys_pairs_argsort() {
    check_type::<i8>("i8_keys_pairs_argsort");
}

/// Every 16-bit pattern (all NaN payloads of both signs, ±0, ±inf, every subnormal),
/// several times over in a scrambled order, sorted on the GPU: bit-identical to the CPU's
/// stable `sort_by(total_cmp)`, both orders, and the argsort equal to the CPU's stable
/// one (so equal keys, the repeats, keep their order).
#[test]
fn every_half_bit_pattern_in_total_order() {
    let Some(s) = gpu_sorter("every_half_bit_pattern_in_total_order") else { return };
    // 2^16 patterns x 5 > the one-block limit: the digit passes run.
    let n = 5 << 16;
    let bits: Vec<u16> = (0..n as u32).map(|i| (i.wrapping_mul(0x9e37_79b1) >> 7) as u16).collect();
    fn check<F: Key + Copy + PartialEq>(
        s: &Sorter,
        keys: &[F],
        cmp: fn(&F, &F) -> std::cmp::Ordering,
        raw: fn(F) -> u16,
    ) {
        for order in ORDERS {
            let mut expect = keys.to_vec();
            expect.sort_by(|a, b| if order.is_descending() { cmp(b, a) } else { cmp(a, b) });
            let mut got = keys.to_vec();
            s.sort(&mut got, &SortOptions::default().order(order)).unwrap();
            let same = got.iter().zip(&expect).all(|(a, b)| raw(*a) == raw(*b));
            assert!(same, "{} {order}: not bit-identical to sort_by(total_cmp)", F::NAME);
            let opts = SortOptions::default().order(order);
            assert!(s.argsort(keys, &opts).unwrap() == Sorter::cpu().argsort(keys, &opts).unwrap(), "{}", F::NAME);
        }
    }
    let h: Vec<f16> = bits.iter().map(|&b| f16::from_bits(b)).collect();
    check(s, &h, |a, b| a.total_cmp(b), f16::to_bits);
    let b: Vec<bf16> = bits.iter().map(|&b| bf16::from_bits(b)).collect();
    check(s, &b, |a, b| a.total_cmp(b), bf16::to_bits);
}

/// The digit passes split into portions of a few tiles, so that 16- and 8-bit sorts
/// cross the portions' carries with small inputs.
#[test]
fn narrow_keys_across_portions() {
    let Some(s) = gpu_sorter("narrow_keys_across_portions") else { return };
    let gpu = s.gpu().expect("a GPU sorter");
    for n in [300_001usize, 1 << 20] {
        for order in ORDERS {
            let opts = SortOptions::default().order(order);
            let keys: Vec<f16> = generate(n, Distribution::Uniform, 7);
            let mut buf = gpu.upload(&keys).unwrap();
            radix::sort_with_portion_tiles(gpu, &mut buf, &opts, 3).unwrap();
            let out = buf.to_vec(gpu).unwrap();
            verify::check(&keys, &out, order, true).unwrap_or_else(|m| panic!("f16 n={n} {order}: {m}"));
            let keys: Vec<i8> = generate(n, Distribution::Uniform, 8);
            let mut buf = gpu.upload(&keys).unwrap();
            radix::sort_with_portion_tiles(gpu, &mut buf, &opts, 2).unwrap();
            let out = buf.to_vec(gpu).unwrap();
            verify::check(&keys, &out, order, true).unwrap_or_else(|m| panic!("i8 n={n} {order}: {m}"));
        }
    }
}

/// The classic variants (which have no narrow kernels) and the operations not yet
/// widened refuse the narrow keys with [`Error::Unsupported`] naming the type, before
/// any launch; the CPU does them. (Mergepath, top-k, segments, rows and select_nth
/// run them as wide words: `gpu_narrow.rs`.)
#[test]
fn other_variants_and_operations_refuse_narrow_keys() {
    let Some(s) = gpu_sorter("other_variants_and_operations_refuse_narrow_keys") else { return };
    let keys: Vec<f16> = generate(1000, Distribution::Uniform, 3);
    let unsupported = |r: Result<(), Error>, what: &str| match r {
        Err(e @ Error::Unsupported { .. }) => assert!(e.to_string().contains("f16"), "{what}: {e}"),
        other => panic!("{what}: expected a refusal naming f16, got {other:?}"),
    };
    for v in [Variant::Bitonic, Variant::Sm9, Variant::Quick, Variant::Naive] {
        let mut k = keys.clone();
        unsupported(s.sort(&mut k, &SortOptions::new(v)).map(|_| ()), &format!("variant {v}"));
        assert!(k.iter().zip(&keys).all(|(a, b)| a.to_bits() == b.to_bits()), "{v}: keys changed");
    }
}

/// NaN-last order of the 16-bit floats on the GPU (keys: past the one-block size the
/// argsort passes carrying the keys, below it a NaN-canonical copy, argsort and
/// gather): equal to the CPU's, bit for bit (NaN payloads kept, NaNs in input order),
/// for keys, pairs and argsort in both orders, below and above the one-block limit,
/// with both digit passes, one, or none running.
#[test]
fn half_floats_nan_last() {
    let Some(s) = gpu_sorter("half_floats_nan_last") else { return };
    fn check<F: Key + Copy>(s: &Sorter, raw: &[u16], from: fn(u16) -> F, bits: fn(F) -> u16) {
        let keys: Vec<F> = raw.iter().map(|&r| from(r)).collect();
        for order in ORDERS {
            let opts = SortOptions::default().order(order).nan_last();
            let (mut g, mut c) = (keys.clone(), keys.clone());
            s.sort(&mut g, &opts).unwrap();
            Sorter::cpu().sort(&mut c, &opts).unwrap();
            let what = format!("{} n={} {order}", F::NAME, keys.len());
            assert!(g.iter().zip(&c).all(|(a, b)| bits(*a) == bits(*b)), "{what}: keys differ");
            let perm = Sorter::cpu().argsort(&keys, &opts).unwrap();
            assert!(s.argsort(&keys, &opts).unwrap() == perm, "{what}: argsort differs");
            let (mut pk, mut pv) = (keys.clone(), (0..keys.len() as u32).collect::<Vec<u32>>());
            s.sort_pairs(&mut pk, &mut pv, &opts).unwrap();
            assert!(pv == perm, "{what}: pair values differ");
        }
    }
    for n in [1000usize, 100_003] {
        // Every pattern class: NaN payloads of both signs in both formats, ±inf, ±0.
        let raw: Vec<u16> = (0..n as u32).map(|i| (i.wrapping_mul(0x9e37_79b1) >> 11) as u16 | 0x7c00).collect();
        check(s, &raw, f16::from_bits, f16::to_bits);
        check(s, &raw, bf16::from_bits, bf16::to_bits);
        let raw: Vec<u16> = (0..n as u32).map(|i| (i.wrapping_mul(0x2545_f491) >> 9) as u16).collect();
        check(s, &raw, f16::from_bits, f16::to_bits);
        check(s, &raw, bf16::from_bits, bf16::to_bits);
        // Zeros of both signs, all one canonical key (no digit pass runs, the keys stay
        // in input order); small positive subnormals and -0.0, one canonical high byte
        // (one pass runs).
        let zeros: Vec<u16> =
            (0..n as u32).map(|i| if (i.wrapping_mul(0x9e37_79b1) >> 7) & 1 == 0 { 0x8000 } else { 0 }).collect();
        check(s, &zeros, f16::from_bits, f16::to_bits);
        check(s, &zeros, bf16::from_bits, bf16::to_bits);
        let low: Vec<u16> = (0..n as u32)
            .map(|i| match (i.wrapping_mul(0x2545_f491) >> 13) as u16 & 0xff {
                0 => 0x8000,
                r => r,
            })
            .collect();
        check(s, &low, f16::from_bits, f16::to_bits);
        check(s, &low, bf16::from_bits, bf16::to_bits);
    }
}

/// Ranges of narrow keys (and `u32` values) starting at unaligned addresses, sorted in
/// place on the GPU: equal to the CPU's stable sort, and the elements around the range
/// untouched. One-pass sorts (8-bit keys, and 16-bit keys whose high byte is the same
/// everywhere, so that the second pass is skipped) end in the scratch buffer and are
/// copied back by 16-byte vectors between a byte prefix and tail; two-pass sorts load
/// unaligned tiles key by key. Sizes: one full tile and a partial one, many tiles,
/// portions of a few tiles.
#[test]
fn narrow_ranges_at_unaligned_addresses() {
    let Some(s) = gpu_sorter("narrow_ranges_at_unaligned_addresses") else { return };
    let gpu = s.gpu().expect("a GPU sorter");
    fn check<K: Random + Key + bytemuck::Pod + PartialEq + std::fmt::Debug>(
        gpu: &host::Gpu,
        keys: &[K],
        key_at: usize,
        val_at: Option<usize>,
        order: Order,
    ) {
        let n = keys.len();
        let what = format!("{} n={n} key_at={key_at} val_at={val_at:?} {order}", K::NAME);
        let opts = SortOptions::default().order(order);
        // Around the range: a few elements of their own before and after.
        let pad = 37;
        let around: Vec<K> = generate(key_at + n + pad, Distribution::Uniform, 99);
        let mut whole = around.clone();
        whole[key_at..key_at + n].copy_from_slice(keys);
        let mut dk = gpu.upload(&whole).unwrap();
        let idx: Vec<u32> = (0..n as u32).collect();
        let (mut expect_k, mut expect_v) = (keys.to_vec(), idx.clone());
        Sorter::cpu().sort_pairs(&mut expect_k, &mut expect_v, &opts).unwrap();
        match val_at {
            None => {
                radix::sort_range(gpu, &mut dk, key_at, None, n, &opts).unwrap_or_else(|e| panic!("{what}: {e}"));
            }
            Some(va) => {
                let mut vals: Vec<u32> = (0..(va + n + pad) as u32).map(|i| i.wrapping_mul(0x9e37_79b1)).collect();
                vals[va..va + n].copy_from_slice(&idx);
                let before = vals.clone();
                let mut dv = gpu.upload(&vals).unwrap();
                radix::sort_range(gpu, &mut dk, key_at, Some((&mut dv, va)), n, &opts)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                let got = dv.to_vec(gpu).unwrap();
                assert!(got[va..va + n] == expect_v[..], "{what}: values differ from the stable CPU sort");
                assert!(got[..va] == before[..va] && got[va + n..] == before[va + n..], "{what}: values outside");
            }
        }
        let got = dk.to_vec(gpu).unwrap();
        assert!(got[key_at..key_at + n] == expect_k[..], "{what}: keys differ from the CPU sort");
        assert!(got[..key_at] == around[..key_at], "{what}: keys before the range changed");
        assert!(got[key_at + n..] == around[key_at + n..], "{what}: keys after the range changed");
    }
    let t16 = radix::small_max(2, 0) as usize;
    let sizes = [t16 + 1, 2 * t16 - 1, 300_007, (1 << 20) + 3];
    for (i, &n) in sizes.iter().enumerate() {
        for (j, at) in [0usize, 1, 3, 8, 13].into_iter().enumerate() {
            let order = ORDERS[(i + j) % 2];
            let val_at = [None, Some(at % 4), Some(1)][(i + j) % 3];
            let seed = (n + at) as u64;
            check::<u8>(gpu, &generate(n, Distribution::Uniform, seed), at, val_at, order);
            check::<i8>(gpu, &generate(n, Distribution::FewUnique, seed + 1), at, val_at, order);
            // The high byte the same everywhere: only the low pass runs.
            let low: Vec<u16> = generate::<u16>(n, Distribution::Uniform, seed + 2).iter().map(|k| k & 0xff).collect();
            check::<u16>(gpu, &low, at, val_at, order);
            check::<u16>(gpu, &generate(n, Distribution::Uniform, seed + 3), at, val_at, order);
        }
    }
}
