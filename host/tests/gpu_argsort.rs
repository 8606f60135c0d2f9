//! The device argsort (`radix::argsort_into`, `u32` and `u64` indices) against the CPU
//! argsort: every key type, both orders, sizes around the one-block sort and the first
//! sizes of the argsort passes, plans that skip every pass, all but one, all but two,
//! key-bit ranges, ties (stability) and floats in NaN-last order.
mod common;

use common::gpu_sorter;
use host::testing::inputs::{Random, generate};
use host::{Distribution, Index, Key, Order, SortOptions, Sorter, bf16, f16};

const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];

/// One-block sort of `u32` pairs, its edge, the last short-tile size, the first sizes
/// of the argsort passes (one and two packed tiles), and an odd size past a million.
const SIZES_32: [usize; 9] = [0, 1, 2, 8832, 8833, 1 << 18, (1 << 18) + 1, (1 << 18) + 9217, (1 << 20) + 3];
/// Other key widths (copy-and-pairs path): fewer sizes, the one-block edge included.
const SIZES_OTHER: [usize; 5] = [0, 1, 7000, 9217, (1 << 20) + 3];

/// The device argsort of `keys` as `u32` and as `u64` indices equals the CPU's.
fn check<K: Key>(s: &Sorter, keys: &[K], opts: &SortOptions, what: &str) {
    let want = Sorter::cpu().argsort(keys, opts).unwrap();
    let mut narrow = vec![u32::MAX; keys.len()];
    s.argsort_into(keys, &mut narrow, opts).unwrap();
    assert!(narrow == want, "{what}: u32 indices differ from the CPU's (n={})", keys.len());
    check_wide::<K, u64>(s, keys, opts, &want, what);
}

fn check_wide<K: Key, I: Index + PartialEq>(s: &Sorter, keys: &[K], opts: &SortOptions, want: &[u32], what: &str) {
    let mut wide = vec![I::from_index(u32::MAX); keys.len()];
    s.argsort_into(keys, &mut wide, opts).unwrap();
    let same = wide.iter().zip(want).all(|(&w, &p)| w == I::from_index(p));
    assert!(same, "{what}: {}-byte indices differ from the CPU's (n={})", size_of::<I>(), keys.len());
}

fn each_order<K: Key + Random>(s: &Sorter, sizes: &[usize], dists: &[Distribution], name: &str) {
    for &n in sizes {
        for &dist in dists {
            let keys: Vec<K> = generate(n, dist, n as u64 ^ 0xa5);
            for order in ORDERS {
                let opts = SortOptions::default().order(order);
                check::<K>(s, &keys, &opts, &format!("{name} {dist:?} {order}"));
            }
        }
    }
}

#[test]
fn argsort_u32_keys_every_size_and_order() {
    let Some(s) = gpu_sorter("argsort_u32_keys_every_size_and_order") else { return };
    each_order::<u32>(s, &SIZES_32, &[Distribution::Uniform, Distribution::FewUnique], "u32");
    each_order::<i32>(s, &SIZES_32[..8], &[Distribution::Uniform], "i32");
    each_order::<f32>(s, &SIZES_32[..8], &[Distribution::Uniform], "f32");
}

/// Plans of the argsort passes: every pass skipped (equal keys: the permutation is
/// `0..n`), one pass (keys differ in their low byte only: the indices come from the
/// scratch buffer), two, and three (key bits `0..20`).
#[test]
fn argsort_passes_skipped_by_the_plan() {
    let Some(s) = gpu_sorter("argsort_passes_skipped_by_the_plan") else { return };
    for n in [(1usize << 18) + 1, (1 << 20) + 3] {
        let random: Vec<u32> = generate(n, Distribution::Uniform, 3);
        let cases: [(&str, Vec<u32>); 4] = [
            ("equal", vec![0xdead_beef; n]),
            ("low byte", random.iter().map(|k| 0x1234_5600 | (k & 0xff)).collect()),
            ("middle bytes", random.iter().map(|k| 0x7700_0000 | (k & 0x00ff_f000)).collect()),
            ("ties", random.iter().map(|k| k & 0x0300_0003).collect()),
        ];
        for (what, keys) in &cases {
            for order in ORDERS {
                check::<u32>(s, keys, &SortOptions::default().order(order), &format!("{what} {order}"));
            }
        }
        for bits in [(0, 20), (8, 16), (31, 32)] {
            let opts = SortOptions::default().key_bits(bits.0, bits.1);
            check::<u32>(s, &random, &opts, &format!("key bits {bits:?}"));
        }
    }
}

#[test]
fn argsort_64_bit_keys() {
    let Some(s) = gpu_sorter("argsort_64_bit_keys") else { return };
    each_order::<u64>(s, &SIZES_OTHER, &[Distribution::Uniform], "u64");
    each_order::<i64>(s, &SIZES_OTHER, &[Distribution::FewUnique], "i64");
    each_order::<f64>(s, &SIZES_OTHER, &[Distribution::Uniform], "f64");
}

#[test]
fn argsort_16_and_8_bit_keys() {
    let Some(s) = gpu_sorter("argsort_16_and_8_bit_keys") else { return };
    each_order::<u16>(s, &SIZES_OTHER, &[Distribution::Uniform], "u16");
    each_order::<i16>(s, &SIZES_OTHER, &[Distribution::Uniform], "i16");
    each_order::<f16>(s, &SIZES_OTHER, &[Distribution::Uniform], "f16");
    each_order::<bf16>(s, &SIZES_OTHER, &[Distribution::Uniform], "bf16");
    each_order::<u8>(s, &SIZES_OTHER, &[Distribution::Uniform], "u8");
    each_order::<i8>(s, &SIZES_OTHER, &[Distribution::Uniform], "i8");
}

/// Floats with NaNs of both signs and several payloads, infinities and both zeros, in
/// NaN-last order (the canonical copy's argsort) and in IEEE total order.
#[test]
fn argsort_floats_with_nans() {
    let Some(s) = gpu_sorter("argsort_floats_with_nans") else { return };
    let specials32 = [f32::NAN, -f32::NAN, f32::from_bits(0x7fc0_1234), f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0];
    let specials64 = [f64::NAN, -f64::NAN, f64::from_bits(0x7ff8_0000_0000_0042), f64::INFINITY, -0.0, 0.0];
    for n in [1usize, 8833, (1 << 18) + 1, (1 << 20) + 3] {
        let mut k32: Vec<f32> = generate(n, Distribution::Uniform, 11);
        let mut k64: Vec<f64> = generate(n, Distribution::Uniform, 12);
        for i in (0..n).step_by(5) {
            k32[i] = specials32[(i / 5) % specials32.len()];
            k64[i] = specials64[(i / 5) % specials64.len()];
        }
        for order in ORDERS {
            for nan_last in [true, false] {
                let opts = SortOptions::default().order(order);
                let opts = if nan_last { opts.nan_last() } else { opts };
                check::<f32>(s, &k32, &opts, &format!("f32 NaN-last {nan_last} {order}"));
                check::<f64>(s, &k64, &opts, &format!("f64 NaN-last {nan_last} {order}"));
            }
        }
    }
}

/// The argsort of keys on the device leaves them unchanged (the passes read them in
/// place) and refuses an output of another length.
#[test]
fn argsort_leaves_the_keys_and_checks_lengths() {
    let Some(s) = gpu_sorter("argsort_leaves_the_keys_and_checks_lengths") else { return };
    let gpu = s.gpu().unwrap();
    let keys: Vec<u32> = generate((1 << 20) + 3, Distribution::Uniform, 21);
    let k = gpu.upload(&keys).unwrap();
    let mut idx = gpu.alloc::<u64>(keys.len()).unwrap();
    host::testing::variants::radix::argsort_into(gpu, &k, &mut idx, Order::Ascending, None).unwrap();
    assert!(k.to_vec(gpu).unwrap() == keys, "the keys changed");
    let mut short = gpu.alloc::<u64>(keys.len() - 1).unwrap();
    let r = host::testing::variants::radix::argsort_into(gpu, &k, &mut short, Order::Ascending, None);
    assert!(matches!(r, Err(host::Error::LengthMismatch { .. })), "{r:?}");
}
