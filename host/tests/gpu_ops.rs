//! The operations after a sort on the GPU (`Sorter::run_length_encode`,
//! `unique_counts`, `searchsorted` and their `_device` forms) against the references
//! of `ops_reference` and the CPU backend. Skips without a device (see
//! `common::gpu_sorter`; `SORT_REQUIRE_GPU=1` makes a missing device fail).
mod common;
mod ops_reference;

use common::gpu_sorter;
use host::testing::variants::searchsorted::{SortedMerge, Strategy, UnsortedSearch, searchsorted_into_by};
use host::{QueryOrder, Side, Sorter};
use ops_reference::{RefKey, keys, same, sorted};

/// Empty, tiny, the encoding tiles (4,096 keys; the split encoding's 8,192 keys of up
/// to 4 bytes, 4,096 of 8) and the merge tile (8,192 keys and queries) on both sides of
/// their boundaries, and 2^20 + 13.
const SIZES: &[usize] = &[0, 1, 2, 31, 32, 33, 4095, 4096, 4097, 8191, 8192, 8193, 16_385, 300_007, (1 << 20) + 13];
/// All equal (one run over every tile), runs longer than a tile, short runs, mostly
/// distinct.
const RANGES: &[u64] = &[1, 3, 40, 5000, 1 << 40];

fn check_runs<K: RefKey>(s: &Sorter, input: &[K], what: &str) {
    let n = input.len();
    let want = ops_reference::runs(input);
    let got = s.run_length_encode(input).unwrap_or_else(|e| panic!("{what} {} n={n}: {e}", K::NAME));
    if !same(&got, &want) {
        let first = got.1.iter().zip(&want.1).position(|(a, b)| a != b);
        panic!(
            "{what}: run_length_encode {} n={n}: {} runs, want {}; first differing count at {first:?}",
            K::NAME,
            got.1.len(),
            want.1.len()
        );
    }
    let got = s.unique_counts(input).unwrap();
    assert!(same(&got, &ops_reference::unique_counts(input)), "{what}: unique_counts {} n={n}", K::NAME);
}

fn check_search<K: RefKey>(s: &Sorter, sorted_keys: &[K], queries: &[K], what: &str) {
    let gpu = s.gpu().unwrap();
    let (kb, qb) = (s.upload(sorted_keys).unwrap(), s.upload(queries).unwrap());
    let queries_sorted = queries.windows(2).all(|w| w[0].ref_cmp(&w[1]).is_le());
    for side in [Side::Left, Side::Right] {
        let want = ops_reference::searchsorted(sorted_keys, queries, side, false);
        let label = format!("{what}: {} n={} m={} {side:?}", K::NAME, sorted_keys.len(), queries.len());
        assert_eq!(s.searchsorted(sorted_keys, queries, side).unwrap(), want, "{label}");
        let unsorted = s.searchsorted_device(&kb, &qb, side, QueryOrder::Unsorted).unwrap();
        assert_eq!(unsorted.to_vec(gpu).unwrap(), want, "{label}, unsorted");
        let mut out = gpu.alloc::<u64>(queries.len()).unwrap();
        // Every unsorted search by every merge, whatever the sizes would choose.
        for merge in [SortedMerge::Binary, SortedMerge::Gallop] {
            for search in [UnsortedSearch::Binary, UnsortedSearch::SortMerge] {
                let strategy = Strategy { merge, unsorted: Some(search) };
                searchsorted_into_by(gpu, &kb, &qb, side, QueryOrder::Unsorted, strategy, &mut out).unwrap();
                assert_eq!(out.to_vec(gpu).unwrap(), want, "{label}, unsorted by {search:?}, {merge:?} merge");
            }
        }
        if queries_sorted {
            let merged = s.searchsorted_device(&kb, &qb, side, QueryOrder::Sorted).unwrap();
            assert_eq!(merged.to_vec(gpu).unwrap(), want, "{label}, merge");
            let strategy = Strategy { merge: SortedMerge::Gallop, unsorted: None };
            searchsorted_into_by(gpu, &kb, &qb, side, QueryOrder::Sorted, strategy, &mut out).unwrap();
            assert_eq!(out.to_vec(gpu).unwrap(), want, "{label}, galloping merge");
        }
    }
}

fn every_case<K: RefKey>(test: &str) {
    let Some(s) = gpu_sorter(test) else { return };
    for &n in SIZES {
        // The large sizes with long and short runs only, to keep the test in seconds.
        let ranges = if n > 100_000 { &RANGES[2..] } else { RANGES };
        for &range in ranges {
            for specials in [false, true] {
                let input: Vec<K> = keys(n, range, specials, n as u64 ^ range ^ 0x0b5);
                check_runs(s, &input, "unsorted");
                let sorted_input = sorted(input.clone());
                check_runs(s, &sorted_input, "sorted");
                for m in [n / 4 + 3, 2 * n + 1] {
                    let queries: Vec<K> = keys(m, range + 4, specials, (n + m) as u64);
                    check_search(s, &sorted_input, &queries, "unsorted queries");
                    check_search(s, &sorted_input, &sorted(queries), "sorted queries");
                }
            }
        }
    }
}

#[test]
fn gpu_ops_u32() {
    every_case::<u32>("gpu_ops_u32");
}
#[test]
fn gpu_ops_i32() {
    every_case::<i32>("gpu_ops_i32");
}
#[test]
fn gpu_ops_f32() {
    every_case::<f32>("gpu_ops_f32");
}
#[test]
fn gpu_ops_u64() {
    every_case::<u64>("gpu_ops_u64");
}
#[test]
fn gpu_ops_i64() {
    every_case::<i64>("gpu_ops_i64");
}
#[test]
fn gpu_ops_f64() {
    every_case::<f64>("gpu_ops_f64");
}
#[test]
fn gpu_ops_u16() {
    every_case::<u16>("gpu_ops_u16");
}
#[test]
fn gpu_ops_i16() {
    every_case::<i16>("gpu_ops_i16");
}
#[test]
fn gpu_ops_f16() {
    every_case::<host::f16>("gpu_ops_f16");
}
#[test]
fn gpu_ops_bf16() {
    every_case::<host::bf16>("gpu_ops_bf16");
}
#[test]
fn gpu_ops_u8() {
    every_case::<u8>("gpu_ops_u8");
}
#[test]
fn gpu_ops_i8() {
    every_case::<i8>("gpu_ops_i8");
}

/// The device forms give what the CPU backend gives, and leave their input alone.
#[test]
fn gpu_ops_device_forms_match_the_cpu() {
    let Some(s) = gpu_sorter("gpu_ops_device_forms_match_the_cpu") else { return };
    let gpu = s.gpu().unwrap();
    let cpu = Sorter::cpu();
    let input: Vec<f64> = keys(100_003, 700, true, 5);
    let buf = s.upload(&input).unwrap();
    let (k, c) = s.run_length_encode_device(&buf).unwrap();
    assert!(same(&(k.to_vec(gpu).unwrap(), c.to_vec(gpu).unwrap()), &cpu.run_length_encode(&input).unwrap()));
    let (k, c) = s.unique_counts_device(&buf).unwrap();
    assert!(same(&(k.to_vec(gpu).unwrap(), c.to_vec(gpu).unwrap()), &cpu.unique_counts(&input).unwrap()));
    assert!(buf.to_vec(gpu).unwrap().iter().zip(&input).all(|(a, b)| a.same_bits(b)), "input unchanged");
}

/// Both encoders (the one-kernel look-back and the count / scan / write split), whatever
/// length the library picks each for: every size and run length of the per-type tests,
/// on sorted keys of a 32-, 64-, 16- and 8-bit type, against the reference.
#[test]
fn gpu_ops_both_encoders_match_the_reference() {
    use host::testing::variants::runs::{Encoder, run_length_encode_into_by};
    let Some(s) = gpu_sorter("gpu_ops_both_encoders_match_the_reference") else { return };
    fn check<K: RefKey>(s: &Sorter) {
        let gpu = s.gpu().unwrap();
        for &n in SIZES {
            for &range in RANGES {
                let input: Vec<K> = sorted(keys(n, range, true, n as u64 ^ range ^ 0xe1c));
                let want = ops_reference::runs(&input);
                let buf = s.upload(&input).unwrap();
                for encoder in [Encoder::LookBack, Encoder::Split] {
                    let (mut ok, mut oc) = (gpu.alloc::<K>(n).unwrap(), gpu.alloc::<u32>(n).unwrap());
                    let runs = run_length_encode_into_by(gpu, &buf, &mut ok, &mut oc, encoder).unwrap();
                    let got = (ok.to_vec(gpu).unwrap()[..runs].to_vec(), oc.to_vec(gpu).unwrap()[..runs].to_vec());
                    assert!(
                        same(&got, &want),
                        "{encoder:?} {} n={n} range={range}: {runs} runs, want {}",
                        K::NAME,
                        want.1.len()
                    );
                }
            }
        }
    }
    check::<u32>(s);
    check::<f64>(s);
    check::<host::f16>(s);
    check::<i8>(s);
}

/// The split encoding's scan of the tiles' carries goes in rounds of `SCAN_BLOCK`
/// tiles: u32 keys over 16 full rounds and part of another (the last tile partial), in
/// runs of 1 to 20,000 keys that cross tile and round boundaries, against the
/// reference.
#[test]
fn gpu_ops_split_encoding_over_several_scan_rounds() {
    use host::testing::variants::runs::{Encoder, run_length_encode_into_by};
    use kernels::runs::{SCAN_BLOCK, split_tile};
    let Some(s) = gpu_sorter("gpu_ops_split_encoding_over_several_scan_rounds") else { return };
    let gpu = s.gpu().unwrap();
    let round = SCAN_BLOCK as usize * split_tile(4) as usize;
    let n = 16 * round + 3 * split_tile(4) as usize + 77;
    let mut input = Vec::with_capacity(n);
    let (mut key, mut state) = (0u32, 0x9e37_79b9_7f4a_7c15u64);
    while input.len() < n {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let len = 1 + (state % 20_000) as usize;
        input.extend(std::iter::repeat_n(key, len.min(n - input.len())));
        key += 1 + (state >> 40) as u32 % 3;
    }
    let want = ops_reference::runs(&input);
    let buf = s.upload(&input).unwrap();
    let (mut ok, mut oc) = (gpu.alloc::<u32>(n).unwrap(), gpu.alloc::<u32>(n).unwrap());
    let runs = run_length_encode_into_by(gpu, &buf, &mut ok, &mut oc, Encoder::Split).unwrap();
    let got = (ok.to_vec(gpu).unwrap()[..runs].to_vec(), oc.to_vec(gpu).unwrap()[..runs].to_vec());
    assert!(same(&got, &want), "n={n}: {runs} runs, want {}", want.1.len());
}

/// Keys at addresses that are not multiples of 16 bytes (lent from inside another
/// buffer): the split encoding loads 16-byte vectors, so such keys take the look-back
/// encoding, whichever encoder is asked for; the runs are the same.
#[test]
fn gpu_ops_encoding_of_unaligned_keys() {
    use host::testing::variants::runs::{Encoder, run_length_encode_into_by};
    let Some(s) = gpu_sorter("gpu_ops_encoding_of_unaligned_keys") else { return };
    let gpu = s.gpu().unwrap();
    let n = 20_000;
    let input: Vec<u32> = sorted(keys(n + 3, 40, false, 0x0a1));
    let all = s.upload(&input).unwrap();
    for skip in 0..4 {
        let view = unsafe { gpu.borrow_device_memory::<u32>(all.ptr() + 4 * skip as u64, n) }.unwrap();
        let want = ops_reference::runs(&input[skip..skip + n]);
        for encoder in [Encoder::LookBack, Encoder::Split] {
            let (mut ok, mut oc) = (gpu.alloc::<u32>(n).unwrap(), gpu.alloc::<u32>(n).unwrap());
            let runs = run_length_encode_into_by(gpu, view.buffer(), &mut ok, &mut oc, encoder).unwrap();
            let got = (ok.to_vec(gpu).unwrap()[..runs].to_vec(), oc.to_vec(gpu).unwrap()[..runs].to_vec());
            assert!(same(&got, &want), "{encoder:?} keys at +{} bytes", 4 * skip);
        }
    }
}

/// Searches alone (every strategy, both sides) at the tile edges, sizes up to 16,385
/// keys, for a 32-, 64- and 16-bit type: small enough for compute-sanitizer.
#[test]
fn gpu_ops_search_tile_edges() {
    let Some(s) = gpu_sorter("gpu_ops_search_tile_edges") else { return };
    fn check<K: RefKey>(s: &Sorter) {
        for &n in SIZES.iter().filter(|&&n| n <= 16_385) {
            let sorted_keys: Vec<K> = sorted(keys(n, 5000, true, n as u64 ^ 0x5ea));
            for m in [1, n / 4 + 3, 2 * n + 1] {
                let queries: Vec<K> = keys(m, 5004, true, (n + m) as u64 ^ 0x5eb);
                check_search(s, &sorted_keys, &queries, "tile edges");
                check_search(s, &sorted_keys, &sorted(queries), "tile edges, sorted queries");
            }
        }
    }
    check::<u32>(s);
    check::<f64>(s);
    check::<u16>(s);
}

/// Sorted queries that all fall in one merge tile's key range, and queries all below
/// or all above every key: the splits put whole tiles of only keys or only queries.
#[test]
fn gpu_ops_one_sided_merges() {
    let Some(s) = gpu_sorter("gpu_ops_one_sided_merges") else { return };
    let sorted_keys: Vec<u32> = (0..100_000u32).map(|i| 10 + 2 * i).collect();
    for queries in [vec![5u32; 20_000], vec![u32::MAX; 20_000], (0..20_000).map(|i| 1000 + i / 7).collect()] {
        check_search(s, &sorted_keys, &queries, "one-sided");
    }
}

/// The NaN-canonical copy as each caller asks for it, bit for bit against a loop over
/// the keys: NaN-last sorts get every NaN as the largest NaN (all bits but the sign),
/// `unique` and `searchsorted` as the positive quiet NaN; `-0.0` becomes `+0.0`, every
/// other key keeps its bits; integers are copied as they are. Sizes around the copy's
/// grid stride.
#[test]
fn gpu_canonical_copies_bit_for_bit() {
    use host::testing::variants::{nan, runs};
    let Some(s) = gpu_sorter("gpu_canonical_copies_bit_for_bit") else { return };
    let gpu = s.gpu().unwrap();
    fn check<K: RefKey>(s: &Sorter, largest: u64, quiet: u64, is_nan: fn(&K) -> bool) {
        let gpu = s.gpu().unwrap();
        let bits = |k: &K| {
            let mut w = [0u8; 8];
            w[..size_of::<K>()].copy_from_slice(bytemuck::bytes_of(k));
            u64::from_le_bytes(w)
        };
        let zero = bits(&K::from_small(0));
        let sign = 1u64 << (8 * size_of::<K>() - 1);
        for n in [1usize, 2, 255, 256, 257, 300_007] {
            let input: Vec<K> = keys(n, 1000, true, n as u64);
            let buf = s.upload(&input).unwrap();
            for (nan_bits, copy) in [
                (largest, nan::canonical_copy(gpu, &buf).unwrap()),
                (quiet, nan::canonical_copy_as(gpu, &buf, nan::CanonicalNan::Quiet).unwrap()),
                (quiet, runs::canonical_copy(gpu, &buf).unwrap()),
            ] {
                let got = copy.to_vec(gpu).unwrap();
                for (i, (x, y)) in input.iter().zip(&got).enumerate() {
                    let want = if is_nan(x) {
                        nan_bits
                    } else if bits(x) == sign {
                        zero
                    } else {
                        bits(x)
                    };
                    assert_eq!(bits(y), want, "{} n={n} at {i}: {:#x}", K::NAME, bits(x));
                }
            }
        }
    }
    check::<f32>(s, 0x7fff_ffff, 0x7fc0_0000, |x| x.is_nan());
    check::<f64>(s, 0x7fff_ffff_ffff_ffff, 0x7ff8_0000_0000_0000, |x| x.is_nan());
    check::<host::f16>(s, 0x7fff, 0x7e00, |x| x.is_nan());
    check::<host::bf16>(s, 0x7fff, 0x7fc0, |x| x.is_nan());
    // Integers: `unique`'s copy is the keys themselves; the NaN-last copy refuses them.
    let ints: Vec<i32> = keys(1000, 50, true, 9);
    let buf = s.upload(&ints).unwrap();
    assert_eq!(runs::canonical_copy(gpu, &buf).unwrap().to_vec(gpu).unwrap(), ints);
    assert!(nan::canonical_copy(gpu, &buf).is_err());
}

/// The NaN / `-0.0` check finds one such key wherever it is (first, last, past the
/// grid stride), and answers `false` for keys without (`+0.0` and the infinities
/// included), for integers and for no keys.
#[test]
fn gpu_nan_check_finds_one_key_anywhere() {
    use host::testing::variants::nan::has_nan_or_negative_zero;
    let Some(s) = gpu_sorter("gpu_nan_check_finds_one_key_anywhere") else { return };
    let gpu = s.gpu().unwrap();
    fn check<K: RefKey>(s: &Sorter, specials: &[K]) {
        let gpu = s.gpu().unwrap();
        let empty = s.upload::<K>(&[]).unwrap();
        assert!(!has_nan_or_negative_zero(gpu, &empty).unwrap());
        for n in [1usize, 1000, (1 << 20) + 7] {
            // Finite keys and +0.0 (`from_small`), and the type's other special values
            // that are neither NaN nor a zero (the infinities, the extremes): `ref_eq`
            // holds between any two NaNs and between the zeros, so this leaves out
            // every NaN and both zeros.
            let mut plain: Vec<K> = keys(n, 100, false, 3);
            let infinities: Vec<K> = K::specials()
                .into_iter()
                .filter(|k| !specials.iter().any(|sp| sp.ref_eq(k)) && !k.ref_eq(&K::from_small(0)))
                .collect();
            for (i, k) in infinities.iter().enumerate().take(n) {
                plain[i] = *k;
            }
            let buf = s.upload(&plain).unwrap();
            assert!(!has_nan_or_negative_zero(gpu, &buf).unwrap(), "{} n={n}: none", K::NAME);
            for &special in specials {
                for at in [0, n / 2, n - 1] {
                    let mut v = plain.clone();
                    v[at] = special;
                    let buf = s.upload(&v).unwrap();
                    assert!(has_nan_or_negative_zero(gpu, &buf).unwrap(), "{} n={n} at {at}", K::NAME);
                }
            }
        }
    }
    check::<f32>(s, &[f32::NAN, -f32::NAN, f32::from_bits(0x7f80_0001), -0.0]);
    check::<f64>(s, &[f64::NAN, f64::from_bits(0xfff0_0000_0000_0001), -0.0]);
    check::<host::f16>(s, &[host::f16::NAN, host::f16::from_bits(0xfc01), host::f16::NEG_ZERO]);
    check::<host::bf16>(s, &[host::bf16::NAN, host::bf16::from_bits(0x7f81), host::bf16::NEG_ZERO]);
    let ints = s.upload(&[0u32, 0x8000_0000, 0x7fc0_0000]).unwrap();
    assert!(!has_nan_or_negative_zero(gpu, &ints).unwrap(), "integers have no NaNs");
}
