//! The device argsort (`radix::argsort_into`, `u32` and `u64` indices) against the CPU
//! argsort: every key type, both orders, sizes around the one-block sort and the first
//! sizes of the argsort passes, plans that skip every pass, all but one, all but two,
//! key-bit ranges, ties (stability) and floats in NaN-last order.
mod common;

use common::gpu_sorter;
use host::testing::inputs::{Random, generate};
use host::{Distribution, Index, Key, Order, SortOptions, Sorter, bf16, f16};
use rayon::prelude::*;

const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];

/// One-block sort of `u32` pairs, its edge, the last short-tile size, the first sizes
/// of the argsort passes (one and two packed tiles), and an odd size past a million.
const SIZES_32: [usize; 9] = [0, 1, 2, 8832, 8833, 1 << 18, (1 << 18) + 1, (1 << 18) + 9217, (1 << 20) + 3];
/// Other key widths (copy-and-pairs path): fewer sizes, the one-block edge included.
const SIZES_OTHER: [usize; 5] = [0, 1, 7000, 9217, (1 << 20) + 3];
/// 16-bit keys: the copy-and-pairs path up to the one-block size of the 32-bit pairs
/// (8,832), the argsort passes above it.
const SIZES_16: [usize; 8] = [0, 1, 7000, 8832, 8833, 1 << 18, (1 << 18) + 9217, (1 << 20) + 3];

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
    let dists = [Distribution::Uniform, Distribution::FewUnique];
    each_order::<u16>(s, &SIZES_16, &dists, "u16");
    each_order::<i16>(s, &SIZES_16, &dists, "i16");
    each_order::<f16>(s, &SIZES_16, &dists, "f16");
    each_order::<bf16>(s, &SIZES_16, &dists, "bf16");
    // A digit the same in every key: the plan skips its pass, and one pass (below 256)
    // or none (one value) writes the indices.
    for (what, key) in [("u16 below 256", 0xffu16), ("u16 multiples of 256", 0xff00), ("u16 one value", 0)] {
        let keys: Vec<u16> = generate::<u16>(300_007, Distribution::Uniform, 5).iter().map(|k| k & key).collect();
        for order in ORDERS {
            check::<u16>(s, &keys, &SortOptions::default().order(order), &format!("{what} {order}"));
        }
    }
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

/// Sizes of the NaN-last argsort: one key, around the packed tile (one-block sorts),
/// past the one-block sort, around a multiple of the packed tile, and an odd size
/// past a million (the argsort passes).
const SIZES_NAN: [usize; 10] = [1, 7679, 7680, 7681, 8833, 299_519, 299_520, 299_521, 300_007, (1 << 20) + 3];

/// Float keys with every third one special: NaNs of both signs and several payloads
/// (signalling ones included), both infinities and both zeros.
fn with_specials<K: Key + Random>(n: usize, seed: u64, specials: &[K]) -> Vec<K> {
    let mut keys: Vec<K> = generate(n, Distribution::Uniform, seed);
    for (i, k) in keys.iter_mut().enumerate().step_by(3) {
        *k = specials[(i / 3 * 7 + i / 5) % specials.len()];
    }
    keys
}

/// NaN-last argsort (numpy's order: NaNs after `+inf` ascending and first descending,
/// stable among themselves, `-0.0` equal to `+0.0`) of floats full of specials against
/// the CPU, as `u32` and `u64` indices: `f32` keys are mapped by the argsort passes
/// as they read them, the other widths sort a canonical copy.
#[test]
fn argsort_nan_last_floats_full_of_specials() {
    let Some(s) = gpu_sorter("argsort_nan_last_floats_full_of_specials") else { return };
    let nan32 = |bits: u32| f32::from_bits(bits);
    let specials32 = [
        f32::NAN,
        -f32::NAN,
        nan32(0x7fc0_1234),
        nan32(0xffc0_0042),
        nan32(0x7f80_0001), // signalling
        nan32(0xff80_0001),
        nan32(0x7fff_ffff), // the canonical NaN itself
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
    ];
    let nan64 = |bits: u64| f64::from_bits(bits);
    let specials64 =
        [f64::NAN, -f64::NAN, nan64(0x7ff0_0000_0000_0001), nan64(0xfff8_0000_0000_0042), f64::INFINITY, -0.0, 0.0];
    let specials16 =
        [f16::NAN, -f16::NAN, f16::from_bits(0x7c01), f16::INFINITY, f16::NEG_INFINITY, f16::ZERO, -f16::ZERO];
    let specialsb = [bf16::NAN, -bf16::NAN, bf16::from_bits(0xff81), bf16::INFINITY, -bf16::ZERO, bf16::ZERO];
    for (i, &n) in SIZES_NAN.iter().enumerate() {
        let k32 = with_specials::<f32>(n, 31 + i as u64, &specials32);
        for order in ORDERS {
            let opts = SortOptions::default().order(order).nan_last();
            check::<f32>(s, &k32, &opts, &format!("f32 NaN-last {order}"));
            if i % 3 == 0 || n > 300_000 {
                check::<f64>(s, &with_specials(n, 7, &specials64), &opts, &format!("f64 NaN-last {order}"));
                check::<f16>(s, &with_specials(n, 8, &specials16), &opts, &format!("f16 NaN-last {order}"));
                check::<bf16>(s, &with_specials(n, 9, &specialsb), &opts, &format!("bf16 NaN-last {order}"));
            }
        }
    }
}

/// Plans of the NaN-last argsort passes, which the histogram makes from the same
/// mapped bits as the passes sort: NaNs of many payloads and signs are one key (every
/// pass skipped: the permutation is `0..n`), NaNs and both zeros (two keys: one
/// pass), and key-bit ranges of the mapped bits.
#[test]
fn argsort_nan_last_plans_count_the_mapped_keys() {
    let Some(s) = gpu_sorter("argsort_nan_last_plans_count_the_mapped_keys") else { return };
    for n in [300_007usize, (1 << 20) + 3] {
        let random: Vec<u32> = generate(n, Distribution::Uniform, 5);
        // Any payload but zero, and either sign.
        let nan = |r: u32| f32::from_bits(0x7f80_0000 | (r & 0x8000_0000) | (r & 0x007f_ffff).max(1));
        let cases: [(&str, Vec<f32>); 3] = [
            ("NaNs only", random.iter().map(|&r| nan(r)).collect()),
            (
                "NaNs and zeros",
                random
                    .iter()
                    .map(|&r| {
                        if r & 6 == 0 {
                            nan(r)
                        } else if r & 1 == 0 {
                            0.0
                        } else {
                            -0.0
                        }
                    })
                    .collect(),
            ),
            ("zeros and ones", random.iter().map(|&r| if r & 1 == 0 { -0.0 } else { 1.0 }).collect()),
        ];
        for (what, keys) in &cases {
            for order in ORDERS {
                let opts = SortOptions::default().order(order).nan_last();
                check::<f32>(s, keys, &opts, &format!("{what} {order}"));
            }
        }
        let keys = with_specials::<f32>(n, 13, &[f32::NAN, -f32::NAN, -0.0, f32::INFINITY]);
        for bits in [(0, 20), (16, 32), (31, 32)] {
            let opts = SortOptions::default().nan_last().key_bits(bits.0, bits.1);
            check::<f32>(s, &keys, &opts, &format!("key bits {bits:?}"));
        }
    }
}

/// The NaN-last argsort of device keys reads them in place and leaves them as they
/// were, NaN payloads and `-0.0` included (300,007 keys: past the one-block sort, a
/// partial last tile; the size the memory checker runs).
#[test]
fn argsort_nan_last_leaves_the_keys() {
    let Some(s) = gpu_sorter("argsort_nan_last_leaves_the_keys") else { return };
    let gpu = s.gpu().unwrap();
    let keys = with_specials::<f32>(300_007, 17, &[f32::from_bits(0xffc0_0042), -0.0, f32::NAN]);
    let k = gpu.upload(&keys).unwrap();
    let mut idx = gpu.alloc::<u32>(keys.len()).unwrap();
    host::testing::variants::nan::argsort_into(gpu, &k, &mut idx, Order::Descending, None).unwrap();
    let after = k.to_vec(gpu).unwrap();
    assert!(after.iter().zip(&keys).all(|(a, b)| a.to_bits() == b.to_bits()), "the keys changed");
    let want = Sorter::cpu().argsort(&keys, &SortOptions::default().order(Order::Descending).nan_last()).unwrap();
    assert!(idx.to_vec(gpu).unwrap() == want, "the indices differ from the CPU's");
}

/// Floats whose NaNs and zeros can be replaced by 1.5: keys whose NaN-last order is
/// their total order, so that the NaN-last sort takes its checked total-order path.
trait Plain: Copy {
    fn plain(self) -> Self;
}

macro_rules! plain {
    ($t:ty, $to_f64:expr, $one_and_a_half:expr) => {
        impl Plain for $t {
            fn plain(self) -> Self {
                let x: f64 = $to_f64(self);
                if x.is_nan() || x == 0.0 { $one_and_a_half } else { self }
            }
        }
    };
}
plain!(f32, |x: f32| x as f64, 1.5);
plain!(f64, |x: f64| x, 1.5);
plain!(f16, f16::to_f64, f16::from_f32(1.5));
plain!(bf16, bf16::to_f64, bf16::from_f32(1.5));

/// The sort in NaN-last order equals the CPU's bit for bit (`Sorter::sort`: the
/// device sort in place), whatever the keys hold: the one-block sizes (canonical
/// pairs, no check), and past them the checked total-order sort, which must go on
/// for keys with neither NaN nor `-0.0` and start over from the untouched keys for a
/// single NaN or `-0.0` first, in the middle or last, or for keys full of specials.
#[test]
fn sort_nan_last_checks_for_nans_and_negative_zeros() {
    let Some(s) = gpu_sorter("sort_nan_last_checks_for_nans_and_negative_zeros") else { return };
    fn each<K: Key + Random + Plain>(s: &Sorter, n: usize, seed: u64, specials: &[K], name: &str) {
        let plain: Vec<K> = generate::<K>(n, Distribution::Uniform, seed).into_iter().map(K::plain).collect();
        let mut cases = vec![("plain", plain.clone()), ("specials", with_specials(n, seed, specials))];
        for &at in &[0, n / 2, n - 1] {
            for (what, k) in [("NaN", specials[0]), ("-0.0", specials[specials.len() - 1])] {
                let mut keys = plain.clone();
                keys[at] = k;
                cases.push((if what == "NaN" { "one NaN" } else { "one -0.0" }, keys));
            }
        }
        for (what, keys) in cases {
            for order in ORDERS {
                let opts = SortOptions::default().order(order).nan_last();
                let mut want = keys.clone();
                Sorter::cpu().sort(&mut want, &opts).unwrap();
                let mut got = keys.clone();
                s.sort(&mut got, &opts).unwrap();
                let same = bytemuck::cast_slice::<K, u8>(&got) == bytemuck::cast_slice::<K, u8>(&want);
                assert!(same, "{name} {what} {order} n={n}: the NaN-last sort differs from the CPU's");
            }
        }
    }
    let s32 = [f32::NAN, f32::from_bits(0xffc0_0042), f32::INFINITY, 0.0, -0.0];
    let s64 = [f64::NAN, f64::from_bits(0xfff8_0000_0000_0042), f64::NEG_INFINITY, 0.0, -0.0];
    let s16 = [f16::NAN, -f16::NAN, f16::INFINITY, f16::ZERO, -f16::ZERO];
    let sb = [bf16::NAN, bf16::from_bits(0xff81), bf16::NEG_INFINITY, bf16::ZERO, -bf16::ZERO];
    for (i, &n) in [2usize, 100, 7680, 7681, 9217, 100_003, 300_007, (1 << 20) + 3].iter().enumerate() {
        let seed = 40 + i as u64;
        each::<f32>(s, n, seed, &s32, "f32");
        each::<f64>(s, n, seed, &s64, "f64");
        if i % 2 == 0 || n > 100_000 {
            each::<f16>(s, n, seed, &s16, "f16");
            each::<bf16>(s, n, seed, &sb, "bf16");
        }
    }
}

/// The NaN-last sort from one device buffer into another checks the input it only
/// reads: past the fused sizes the histogram's own check (f32 from 2^18 keys, f64
/// from 2^19; f16 and bf16 past their one-launch sizes), below them the separate
/// check; a NaN or `-0.0` first, in the middle or last stops the total-order sort and
/// the canonical one runs instead. Output equal to the CPU's, bit for bit; the input
/// unchanged.
#[test]
fn sort_into_nan_last_checks_the_input() {
    let Some(s) = gpu_sorter("sort_into_nan_last_checks_the_input") else { return };
    fn each<K: Key + Random + Plain>(s: &Sorter, n: usize, seed: u64, specials: &[K], name: &str) {
        let gpu = s.gpu().unwrap();
        let plain: Vec<K> = generate::<K>(n, Distribution::Uniform, seed).into_iter().map(K::plain).collect();
        let mut cases = vec![("plain", plain.clone())];
        for &at in &[0, n / 2, n - 1] {
            for k in [specials[0], specials[specials.len() - 1]] {
                let mut keys = plain.clone();
                keys[at] = k;
                cases.push(("one special", keys));
            }
        }
        for (what, keys) in cases {
            for order in ORDERS {
                let opts = SortOptions::default().order(order).nan_last();
                let mut want = keys.clone();
                Sorter::cpu().sort(&mut want, &opts).unwrap();
                let src = gpu.upload(&keys).unwrap();
                let mut dst = gpu.alloc::<K>(n).unwrap();
                s.sort_device_into(&src, &mut dst, &opts).unwrap();
                let (got, back) = (dst.to_vec(gpu).unwrap(), src.to_vec(gpu).unwrap());
                let bits = |v: &[K]| bytemuck::cast_slice::<K, u8>(v).to_vec();
                assert!(bits(&got) == bits(&want), "{name} {what} {order} n={n}: differs from the CPU's");
                assert!(bits(&back) == bits(&keys), "{name} {what} {order} n={n}: the input was written");
            }
        }
    }
    let s32 = [f32::NAN, f32::from_bits(0xffc0_0042), f32::INFINITY, 0.0, -0.0];
    let s64 = [f64::NAN, f64::from_bits(0xfff8_0000_0000_0042), f64::NEG_INFINITY, 0.0, -0.0];
    let s16 = [f16::NAN, -f16::NAN, f16::INFINITY, f16::ZERO, -f16::ZERO];
    let sb = [bf16::NAN, bf16::from_bits(0xff81), bf16::NEG_INFINITY, bf16::ZERO, -bf16::ZERO];
    for (i, &n) in [100_003usize, 300_007, (1 << 20) + 3].iter().enumerate() {
        each::<f32>(s, n, 70 + i as u64, &s32, "f32");
        each::<f64>(s, n, 70 + i as u64, &s64, "f64");
        each::<f16>(s, n, 70 + i as u64, &s16, "f16");
        each::<bf16>(s, n, 70 + i as u64, &sb, "bf16");
    }
}

/// The argsort of 2^32 keys or more (a copy of the keys sorted with `u64` values,
/// which the split pair passes move), reached with small inputs: every key width
/// (16- and 8-bit keys through their wide words), both orders, ties, a key-bit range,
/// and NaN-last floats full of specials, against the CPU's argsort.
#[test]
fn argsort_by_u64_values_matches_the_cpu() {
    let Some(s) = gpu_sorter("argsort_by_u64_values_matches_the_cpu") else { return };
    fn case<K: Key>(s: &Sorter, keys: &[K], opts: &SortOptions, what: &str) {
        let gpu = s.gpu().unwrap();
        let want = Sorter::cpu().argsort(keys, opts).unwrap();
        let d = gpu.upload(keys).unwrap();
        let mut out = gpu.alloc::<u64>(keys.len()).unwrap();
        host::testing::variants::radix::argsort_by_u64_values(gpu, &d, &mut out, opts.key_order(), opts.key_bits)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let got = out.to_vec(gpu).unwrap();
        let first = got.iter().zip(&want).position(|(&g, &w)| g != w as u64);
        assert!(first.is_none(), "{what} {} n={}: first difference at {first:?}", K::NAME, keys.len());
    }
    fn each<K: Key + Random>(s: &Sorter, n: usize, dist: Distribution) {
        let keys: Vec<K> = generate(n, dist, n as u64 ^ 0x64);
        for order in ORDERS {
            case::<K>(s, &keys, &SortOptions::default().order(order), &format!("{dist:?} {order}"));
        }
    }
    for n in [1, 2, 9000, 300_007] {
        for dist in [Distribution::Uniform, Distribution::FewUnique] {
            each::<u32>(s, n, dist);
            each::<i32>(s, n, dist);
            each::<f32>(s, n, dist);
            each::<u64>(s, n, dist);
            each::<i64>(s, n, dist);
            each::<f64>(s, n, dist);
            each::<u16>(s, n, dist);
            each::<i16>(s, n, dist);
            each::<f16>(s, n, dist);
            each::<u8>(s, n, dist);
            each::<i8>(s, n, dist);
        }
    }
    let keys: Vec<u32> = generate(300_007, Distribution::Uniform, 3);
    case::<u32>(s, &keys, &SortOptions::default().key_bits(4, 20), "u32 bits 4..20");
    let keys: Vec<i16> = generate(300_007, Distribution::Uniform, 4);
    case::<i16>(s, &keys, &SortOptions::default().key_bits(3, 11).order(Order::Descending), "i16 bits 3..11");
    let specials32 = [f32::NAN, -f32::NAN, f32::from_bits(0xff80_0001), f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0];
    let specials16 = [f16::NAN, -f16::NAN, f16::from_bits(0x7c01), f16::INFINITY, -f16::ZERO, f16::ZERO];
    let specials64 = [f64::NAN, -f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, 0.0];
    for n in [1, 9000, 300_007] {
        for order in ORDERS {
            let opts = SortOptions::default().order(order).nan_last();
            case::<f32>(s, &with_specials(n, 41, &specials32), &opts, &format!("f32 NaN-last {order}"));
            case::<f16>(s, &with_specials(n, 42, &specials16), &opts, &format!("f16 NaN-last {order}"));
            case::<f64>(s, &with_specials(n, 43, &specials64), &opts, &format!("f64 NaN-last {order}"));
        }
    }
}

/// Argsort and top-k of 2^32 + 19 `u32` keys into `u64` indices, on a device with the
/// memory for it (about 115 GiB: the keys, the indices, the keys' copy and the pair
/// sort's scratch; skipped otherwise). Keys `key(i)` (65,536 values, each about 65,536
/// times) are recomputed from the indices, so the check reads no key array: the
/// indices are a permutation sorted by `(key, index)` exactly when each `(key(p[i]),
/// p[i])` is below the next and every `p[i] < n`. The top-k results are checked
/// against the argsort's first `k` (ascending) and the first indices of the largest
/// key (descending).
#[test]
fn argsort_and_top_k_past_2_pow_32_keys() {
    let test = "argsort_and_top_k_past_2_pow_32_keys";
    let Some(s) = gpu_sorter(test) else { return };
    let gpu = s.gpu().unwrap();
    let n: usize = (1 << 32) + 19;
    let need: u64 = 28 * n as u64 + (2 << 30);
    let (free, _) = gpu.mem_info().unwrap();
    if free < need {
        host::testing::skipped(test, &format!("needs {} GiB of device memory, {} GiB free", need >> 30, free >> 30));
        return;
    }
    let key = |i: u64| -> u32 { (i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 48) as u32 };
    let keys: Vec<u32> = (0..n as u64).into_par_iter().map(key).collect();
    let d = gpu.upload(&keys).unwrap();
    drop(keys);
    let mut idx = gpu.alloc::<u64>(n).unwrap();
    host::testing::variants::radix::argsort_into(gpu, &d, &mut idx, Order::Ascending, None).unwrap();
    let p = idx.to_vec(gpu).unwrap();
    drop(idx);
    assert!(p[0] < n as u64, "{test}: index {} past {n}", p[0]);
    let bad = p.par_windows(2).position_any(|w| w[1] >= n as u64 || (key(w[0]), w[0]) >= (key(w[1]), w[1]));
    assert!(bad.is_none(), "{test}: the argsort's indices are not sorted by (key, index) at {bad:?}");
    for k in [1000, 70_000] {
        let (top, at) = s.top_k_device_indexed::<u32, u64>(&d, k, &SortOptions::default()).unwrap();
        let (top, at) = (top.to_vec(gpu).unwrap(), at.to_vec(gpu).unwrap());
        assert!(at == p[..k], "{test}: ascending top-{k} indices differ from the argsort's first {k}");
        assert!(top.iter().zip(&at).all(|(&t, &i)| t == key(i)), "{test}: ascending top-{k} keys");
    }
    drop(p);
    let k = 1000;
    let want: Vec<u64> = (0..n as u64).filter(|&i| key(i) == u16::MAX as u32).take(k).collect();
    let (top, at) =
        s.top_k_device_indexed::<u32, u64>(&d, k, &SortOptions::default().order(Order::Descending)).unwrap();
    assert_eq!(at.to_vec(gpu).unwrap(), want, "{test}: descending top-{k} indices");
    assert!(top.to_vec(gpu).unwrap().iter().all(|&t| t == u16::MAX as u32), "{test}: descending top-{k} keys");
    let narrow = s.top_k_device_indexed::<u32, u32>(&d, k, &SortOptions::default());
    assert!(matches!(narrow, Err(host::Error::TooManyElements { .. })), "{test}: u32 indices past 2^32 keys");
}

/// One case of each path past 2^32 keys on small inputs, quick enough for
/// compute-sanitizer: the `u64`-value argsort of `u32`, `u16` and NaN-last `f32`
/// keys, and top-k by parts (a partial last part, ties across parts, NaN-last).
#[test]
fn paths_past_2_pow_32_keys_one_case_each() {
    let Some(s) = gpu_sorter("paths_past_2_pow_32_keys_one_case_each") else { return };
    let gpu = s.gpu().unwrap();
    fn argsort<K: Key + Random>(s: &Sorter, n: usize, opts: &SortOptions) {
        let gpu = s.gpu().unwrap();
        let keys: Vec<K> = generate(n, Distribution::FewUnique, 77);
        let d = gpu.upload(&keys).unwrap();
        let mut out = gpu.alloc::<u64>(n).unwrap();
        host::testing::variants::radix::argsort_by_u64_values(gpu, &d, &mut out, opts.key_order(), None).unwrap();
        let want: Vec<u64> = Sorter::cpu().argsort(&keys, opts).unwrap().iter().map(|&i| i as u64).collect();
        assert!(out.to_vec(gpu).unwrap() == want, "{} n={n}: u64-value argsort", K::NAME);
    }
    argsort::<u32>(s, 300_007, &SortOptions::default());
    argsort::<u16>(s, 9000, &SortOptions::default().order(Order::Descending));
    argsort::<f32>(s, 9000, &SortOptions::default().nan_last());
    let mut keys: Vec<f32> = generate(70_001, Distribution::FewUnique, 78);
    keys.iter_mut().step_by(13).for_each(|x| *x = f32::NAN);
    let d = gpu.upload(&keys).unwrap();
    for (k, opts) in [(3000, SortOptions::default()), (20, SortOptions::default().order(Order::Descending).nan_last())]
    {
        let (top, at) = host::testing::variants::topk::top_k_in_parts(gpu, &d, k, opts.key_order(), 4096).unwrap();
        let (want_top, want_at): (Vec<f32>, Vec<u64>) = Sorter::cpu().top_k_indexed(&keys, k, &opts).unwrap();
        assert!(at.to_vec(gpu).unwrap() == want_at, "top-k by parts k={k}: indices");
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert!(bits(&top.to_vec(gpu).unwrap()) == bits(&want_top), "top-k by parts k={k}: keys");
    }
}

/// The argsort whose ties may come out in any order (`Sorter::argsort_unstable_into`,
/// the kernel whose first pass ranks ties in any order) is a sorting permutation: the
/// keys it picks equal, place by place, those of the stable argsort. Every size of the
/// 32- and 16-bit argsort passes and below, tie-heavy and spread keys, both orders,
/// `u32` and `u64` indices, floats in NaN-last order with NaNs and zeros of both signs.
#[test]
fn argsort_with_ties_in_any_order_is_a_sorting_permutation() {
    let Some(s) = gpu_sorter("argsort_with_ties_in_any_order_is_a_sorting_permutation") else { return };
    fn one<K: Key>(s: &Sorter, keys: &[K], opts: &SortOptions, what: &str) {
        let want = Sorter::cpu().argsort(keys, opts).unwrap();
        let order = opts.key_order();
        let mut narrow = vec![u32::MAX; keys.len()];
        s.argsort_unstable_into(keys, &mut narrow, opts).unwrap();
        let ok = host::testing::verify::is_sorting_permutation(keys, &narrow, &want, order);
        assert!(ok, "{what}: u32 indices are not a sorting permutation (n={})", keys.len());
        let mut wide = vec![u64::MAX; keys.len()];
        s.argsort_unstable_into(keys, &mut wide, opts).unwrap();
        let ok = host::testing::verify::is_sorting_permutation(keys, &wide, &want, order);
        assert!(ok, "{what}: u64 indices are not a sorting permutation (n={})", keys.len());
    }
    let dists = [Distribution::Uniform, Distribution::FewUnique, Distribution::TwoValues, Distribution::Equal];
    for &n in &SIZES_32 {
        for dist in dists {
            for order in ORDERS {
                let opts = SortOptions::default().order(order);
                let what = format!("{dist:?} {order}");
                one::<u32>(s, &generate::<u32>(n, dist, n as u64 ^ 0x5a), &opts, &format!("u32 {what}"));
                one::<i32>(s, &generate::<i32>(n, dist, n as u64 ^ 0x5b), &opts, &format!("i32 {what}"));
                one::<f32>(s, &generate::<f32>(n, dist, n as u64 ^ 0x5c), &opts, &format!("f32 {what}"));
            }
        }
    }
    for &n in &SIZES_NAN {
        let keys = with_specials::<f32>(n, 23, &[f32::from_bits(0xffc0_0042), -0.0, f32::NAN, 0.0]);
        for order in ORDERS {
            let opts = SortOptions::default().order(order).nan_last();
            one::<f32>(s, &keys, &opts, &format!("f32 NaN-last {order}"));
        }
    }
    for &n in &SIZES_16 {
        for dist in dists {
            for order in ORDERS {
                let opts = SortOptions::default().order(order);
                let what = format!("{dist:?} {order}");
                one::<u16>(s, &generate::<u16>(n, dist, n as u64 ^ 0x5d), &opts, &format!("u16 {what}"));
                one::<i16>(s, &generate::<i16>(n, dist, n as u64 ^ 0x5e), &opts, &format!("i16 {what}"));
                one::<f16>(s, &generate::<f16>(n, dist, n as u64 ^ 0x5f), &opts, &format!("f16 {what}"));
                one::<bf16>(s, &generate::<bf16>(n, dist, n as u64 ^ 0x60), &opts, &format!("bf16 {what}"));
            }
        }
    }
    for &n in &SIZES_NAN {
        let keys = with_specials::<f16>(n, 24, &[f16::from_bits(0xfe42), -f16::ZERO, f16::NAN, f16::ZERO]);
        let keysb = with_specials::<bf16>(n, 25, &[bf16::from_bits(0xff81), -bf16::ZERO, bf16::NAN, bf16::ZERO]);
        for order in ORDERS {
            let opts = SortOptions::default().order(order).nan_last();
            one::<f16>(s, &keys, &opts, &format!("f16 NaN-last {order}"));
            one::<bf16>(s, &keysb, &opts, &format!("bf16 NaN-last {order}"));
        }
    }
    // Other widths take the stable path, one of the allowed results.
    let k64: Vec<u64> = generate(100_003, Distribution::FewUnique, 7);
    one::<u64>(s, &k64, &SortOptions::default(), "u64");
}
