//! Wide keys (`u128`, `i128`, `[u8; N]`) on the GPU against the CPU reference (std's
//! stable sort by the keys' `Ord`): sorts, argsorts and pairs with `u32` and `u64`
//! values (stable), both orders, every input pattern, sizes 0, 1, odd, past the radix
//! sort's one-block limit and 2^20 + 3; the device entry points; the options refused.
//! Top-k and the segmented sort (keys, pairs, device forms with `u32` and `u64`
//! offsets; one segment, many tiny ones, mixed lengths, keys outside the segments)
//! against the CPU backend at 1, 1000, 300,001 and 2^20 + 3 keys.
//! Skips without a device (see `common::gpu_sorter`; `SORT_REQUIRE_GPU=1` fails instead).
//!
//! `gpu_wide_bench` (ignored) times u128 against u64 keys at 2^24 and 2^26:
//! `cargo test --release -p host --test gpu_wide -- --ignored --nocapture gpu_wide_bench`.
mod common;

use common::gpu_sorter;
use common::wide::{Pattern, permuted, reference_perm, wide_keys};
use host::{Error, Order, SortOptions, Sorter, Variant, WideKey};

const SIZES: [usize; 7] = [0, 1, 2, 7, 1001, 4097, 100_003];

/// Sort, argsort and pairs (`u32` and `u64` values) of `keys` on `s` against the
/// reference, in both orders.
fn check<K: WideKey>(s: &Sorter, keys: &[K], what: &str) {
    for order in [Order::Ascending, Order::Descending] {
        let opts = SortOptions::default().order(order);
        let want = reference_perm(keys, order.is_descending());
        let ctx = format!("{} {what} n={} {order}", K::NAME, keys.len());

        let mut sorted = keys.to_vec();
        s.sort_wide(&mut sorted, &opts).unwrap_or_else(|e| panic!("{ctx}: {e}"));
        assert!(sorted == permuted(keys, &want), "sort of {ctx}");

        let perm = s.argsort_wide(keys, &opts).unwrap_or_else(|e| panic!("{ctx}: {e}"));
        assert!(perm == want, "argsort of {ctx}");

        let (mut k, mut v32) = (keys.to_vec(), (0..keys.len() as u32).collect::<Vec<_>>());
        s.sort_pairs_wide(&mut k, &mut v32, &opts).unwrap();
        assert!(k == permuted(keys, &want) && v32 == want, "u32 pairs of {ctx}");

        let big = |i: u32| ((i as u64) << 32) | 0xdead_beef;
        let (mut k, mut v64) = (keys.to_vec(), (0..keys.len() as u32).map(big).collect::<Vec<_>>());
        s.sort_pairs_wide(&mut k, &mut v64, &opts).unwrap();
        assert!(k == permuted(keys, &want), "keys of u64 pairs of {ctx}");
        assert!(v64.iter().copied().eq(want.iter().map(|&i| big(i))), "u64 pairs of {ctx}");
    }
}

fn every_pattern_and_size<K: WideKey>(s: &Sorter) {
    for pattern in Pattern::ALL {
        for n in SIZES {
            check(s, &wide_keys::<K>(n, pattern, 7), &format!("{pattern:?}"));
        }
    }
}

#[test]
fn gpu_u128_and_i128_every_pattern_and_size() {
    let Some(s) = gpu_sorter("gpu_u128_and_i128_every_pattern_and_size") else { return };
    every_pattern_and_size::<u128>(s);
    every_pattern_and_size::<i128>(s);
}

#[test]
fn gpu_byte_strings_every_pattern_and_size() {
    let Some(s) = gpu_sorter("gpu_byte_strings_every_pattern_and_size") else { return };
    // Whole words (aligned loads), partial last words (byte loads), one short word.
    every_pattern_and_size::<[u8; 16]>(s);
    every_pattern_and_size::<[u8; 20]>(s);
    every_pattern_and_size::<[u8; 32]>(s);
    every_pattern_and_size::<[u8; 5]>(s);
}

#[test]
fn gpu_wide_2p20_plus_3() {
    let Some(s) = gpu_sorter("gpu_wide_2p20_plus_3") else { return };
    let n = (1 << 20) + 3;
    for pattern in [Pattern::Random, Pattern::FewUnique, Pattern::LowWord, Pattern::SmallSigned] {
        check(s, &wide_keys::<u128>(n, pattern, 11), &format!("{pattern:?}"));
        check(s, &wide_keys::<i128>(n, pattern, 12), &format!("{pattern:?}"));
    }
    check(s, &wide_keys::<[u8; 32]>(n, Pattern::SharedPrefix, 13), "SharedPrefix");
    check(s, &wide_keys::<[u8; 20]>(n, Pattern::HighWord, 14), "HighWord");
}

#[test]
fn gpu_wide_device_entry_points_and_sort_by_key() {
    let Some(s) = gpu_sorter("gpu_wide_device_entry_points_and_sort_by_key") else { return };
    let gpu = s.gpu().unwrap();
    let keys = wide_keys::<i128>(50_001, Pattern::FewUnique, 3);
    let want = reference_perm(&keys, true);
    let opts = SortOptions::default().order(Order::Descending);

    let mut buf = gpu.upload(&keys).unwrap();
    let perm = s.argsort_wide_device(&buf, &opts).unwrap();
    assert!(perm.to_vec(gpu).unwrap() == want);
    s.sort_wide_device(&mut buf, &opts).unwrap();
    assert!(buf.to_vec(gpu).unwrap() == permuted(&keys, &want));

    let mut k = gpu.upload(&keys).unwrap();
    let idx: Vec<u32> = (0..keys.len() as u32).collect();
    let mut v = gpu.upload(&idx).unwrap();
    s.sort_pairs_wide_device(&mut k, &mut v, &opts).unwrap();
    assert!(v.to_vec(gpu).unwrap() == want && k.to_vec(gpu).unwrap() == permuted(&keys, &want));

    // Records by a wide key field: 24-byte rows with a 16-byte name.
    #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
    #[repr(C)]
    struct Row {
        name: [u8; 16],
        id: u64,
    }
    let names = wide_keys::<[u8; 16]>(30_000, Pattern::SharedPrefix, 5);
    let rows: Vec<Row> = names.iter().enumerate().map(|(i, &name)| Row { name, id: i as u64 }).collect();
    let mut got = rows.clone();
    s.sort_by_wide_key(&mut got, |r| r.name, &SortOptions::default()).unwrap();
    assert!(got == permuted(&rows, &reference_perm(&names, false)));
}

#[test]
fn gpu_wide_refusals_leave_the_keys_unchanged() {
    let Some(s) = gpu_sorter("gpu_wide_refusals_leave_the_keys_unchanged") else { return };
    let keys = wide_keys::<u128>(100, Pattern::Random, 1);
    let mut k = keys.clone();
    let bits = SortOptions::default().key_bits(0, 8);
    assert!(matches!(s.sort_wide(&mut k, &bits), Err(Error::Unsupported { .. })));
    let merge = SortOptions::new(Variant::Mergepath);
    assert!(matches!(s.sort_wide(&mut k, &merge), Err(Error::Unsupported { .. })));
    let mut short = vec![0u32; 99];
    assert!(matches!(
        s.sort_pairs_wide(&mut k, &mut short, &SortOptions::default()),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(k == keys);
}

/// Median milliseconds of `repeat` runs of `f` (each synchronized).
fn median_ms(s: &Sorter, repeat: usize, mut f: impl FnMut()) -> f64 {
    let gpu = s.gpu().unwrap();
    f();
    gpu.synchronize("warm-up").unwrap();
    let mut t: Vec<f64> = (0..repeat)
        .map(|_| {
            let start = std::time::Instant::now();
            f();
            gpu.synchronize("timed run").unwrap();
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[repeat / 2]
}

#[test]
#[ignore = "a benchmark: cargo test --release -p host --test gpu_wide -- --ignored --nocapture gpu_wide_bench"]
fn gpu_wide_bench() {
    let Some(s) = gpu_sorter("gpu_wide_bench") else { return };
    let gpu = s.gpu().unwrap();
    let opts = SortOptions::default();
    let repeat = 15;
    println!("device: {}", gpu.info().name);
    println!("{:<28} {:>10} {:>10} {:>12}", "what", "n", "median ms", "Gkeys/s");
    let row = |what: &str, n: usize, ms: f64| println!("{what:<28} {n:>10} {ms:>10.3} {:>12.3}", n as f64 / ms / 1e6);
    for log in [24, 26] {
        let n = 1usize << log;
        let wide = wide_keys::<u128>(n, Pattern::Random, 1);
        let narrow: Vec<u64> = wide.iter().map(|&k| k as u64).collect();
        let src64 = gpu.upload(&narrow).unwrap();
        let mut b64 = gpu.alloc::<u64>(n).unwrap();
        row(
            "u64 sort (radix)",
            n,
            median_ms(s, repeat, || {
                b64.copy_from_device(gpu, &src64).unwrap();
                s.sort_device(&mut b64, &opts).unwrap();
            }),
        );
        let src = gpu.upload(&wide).unwrap();
        let mut b = gpu.alloc::<u128>(n).unwrap();
        row(
            "u128 sort",
            n,
            median_ms(s, repeat, || {
                b.copy_from_device(gpu, &src).unwrap();
                s.sort_wide_device(&mut b, &opts).unwrap();
            }),
        );
        row(
            "u128 argsort",
            n,
            median_ms(s, repeat, || {
                let _p = s.argsort_wide_device(&src, &opts).unwrap();
            }),
        );
        let idx: Vec<u32> = (0..n as u32).collect();
        let vsrc = gpu.upload(&idx).unwrap();
        let mut v = gpu.alloc::<u32>(n).unwrap();
        row(
            "u128 pairs (u32 values)",
            n,
            median_ms(s, repeat, || {
                b.copy_from_device(gpu, &src).unwrap();
                v.copy_from_device(gpu, &vsrc).unwrap();
                s.sort_pairs_wide_device(&mut b, &mut v, &opts).unwrap();
            }),
        );
        let low: Vec<u128> = wide.iter().map(|&k| k & u64::MAX as u128).collect();
        let lsrc = gpu.upload(&low).unwrap();
        row(
            "u128 sort, high word zero",
            n,
            median_ms(s, repeat, || {
                b.copy_from_device(gpu, &lsrc).unwrap();
                s.sort_wide_device(&mut b, &opts).unwrap();
            }),
        );
        let bytes = wide_keys::<[u8; 32]>(n, Pattern::Random, 2);
        let bsrc = gpu.upload(&bytes).unwrap();
        let mut bb = gpu.alloc::<[u8; 32]>(n).unwrap();
        row(
            "[u8; 32] sort",
            n,
            median_ms(s, repeat, || {
                bb.copy_from_device(gpu, &bsrc).unwrap();
                s.sort_wide_device(&mut bb, &opts).unwrap();
            }),
        );
        // The result is checked once, outside the timing.
        b.copy_from_device(gpu, &src).unwrap();
        s.sort_wide_device(&mut b, &opts).unwrap();
        let mut want = wide.clone();
        want.sort_unstable();
        assert!(b.to_vec(gpu).unwrap() == want, "u128 sort of 2^{log}");
    }
}

/// Sizes around the tile and one-block limits for top-k and the segmented sort.
const TOPK_SIZES: [usize; 4] = [1, 1000, 300_001, (1 << 20) + 3];

/// Top-k of `keys` on `s` (host slices and device buffers) against the CPU backend and
/// the reference, both orders, `k` = 0, 1, 1000, n - 1, n and past n.
fn check_top_k<K: WideKey>(s: &Sorter, keys: &[K], what: &str) {
    let gpu = s.gpu().unwrap();
    let dev = gpu.upload(keys).unwrap();
    let n = keys.len();
    for order in [Order::Ascending, Order::Descending] {
        let opts = SortOptions::default().order(order);
        let want = reference_perm(keys, order.is_descending());
        for k in [0, 1, 1000, n.saturating_sub(1), n, n + 1] {
            let ctx = format!("{} {what} n={n} k={k} {order}", K::NAME);
            let k_n = k.min(n);
            let (top, at) = s.top_k_wide(keys, k, &opts).unwrap_or_else(|e| panic!("{ctx}: {e}"));
            assert!(at == want[..k_n] && top == permuted(keys, &want[..k_n]), "top-k of {ctx}");
            assert!((top.clone(), at.clone()) == Sorter::cpu().top_k_wide(keys, k, &opts).unwrap(), "CPU of {ctx}");
            let (dtop, dat) = s.top_k_wide_device(&dev, k, &opts).unwrap_or_else(|e| panic!("{ctx}: {e}"));
            assert!(dtop.to_vec(gpu).unwrap() == top && dat.to_vec(gpu).unwrap() == at, "device top-k of {ctx}");
        }
    }
    assert!(dev.to_vec(gpu).unwrap() == keys, "top-k left the keys of {} {what} unchanged", K::NAME);
}

#[test]
fn gpu_wide_top_k_matches_the_cpu() {
    let Some(s) = gpu_sorter("gpu_wide_top_k_matches_the_cpu") else { return };
    for n in TOPK_SIZES {
        for pattern in [Pattern::Random, Pattern::FewUnique, Pattern::AllEqual, Pattern::SmallSigned] {
            let what = format!("{pattern:?}");
            check_top_k(s, &wide_keys::<u128>(n, pattern, 21), &what);
            check_top_k(s, &wide_keys::<i128>(n, pattern, 22), &what);
        }
        check_top_k(s, &wide_keys::<[u8; 20]>(n, Pattern::SharedPrefix, 23), "SharedPrefix");
        check_top_k(s, &wide_keys::<[u8; 32]>(n, Pattern::FewUnique, 24), "FewUnique");
        check_top_k(s, &wide_keys::<[u8; 5]>(n, Pattern::HighWord, 25), "HighWord");
    }
    let none: [u128; 0] = [];
    let (top, at) = s.top_k_wide(&none, 5, &SortOptions::default()).unwrap();
    assert!(top.is_empty() && at.is_empty());
}

/// Segment lengths of `n` keys after a gap of `before`, leaving `after` keys outside:
/// `shape` 0 one segment, 1 many tiny segments (0 to 3 keys, empty ones included),
/// 2 mixed lengths (empty, tiny, past the one-block limit).
fn segment_offsets(n: usize, before: usize, after: usize, shape: u32, seed: u64) -> Vec<usize> {
    let mut rng = common::wide::Rng::new(seed);
    let end = n - after;
    let mut offsets = vec![before];
    let mut at = before;
    while at < end {
        let len = match shape {
            0 => end - at,
            1 => (rng.next() % 4) as usize,
            _ => match rng.next() % 8 {
                0 => 0,
                1..=4 => (rng.next() % 40) as usize,
                5 | 6 => (rng.next() % 3000) as usize,
                _ => (rng.next() % 40_000) as usize,
            },
        };
        at = (at + len).min(end);
        offsets.push(at);
    }
    offsets
}

/// The segmented sorts of `keys` on `s` (keys alone and with `u32` and `u64` values;
/// host slices, and device buffers with `u32` and `u64` offsets) against the CPU
/// backend, both orders.
fn check_segments<K: WideKey>(s: &Sorter, keys: &[K], offsets: &[usize], what: &str) {
    let gpu = s.gpu().unwrap();
    let cpu = Sorter::cpu();
    for order in [Order::Ascending, Order::Descending] {
        let opts = SortOptions::default().order(order);
        let ctx = format!("{} {what} n={} {} segments {order}", K::NAME, keys.len(), offsets.len().saturating_sub(1));
        let idx: Vec<u32> = (0..keys.len() as u32).collect();
        let (mut want, mut want_v) = (keys.to_vec(), idx.clone());
        cpu.sort_segments_pairs_wide(&mut want, &mut want_v, offsets, &opts).unwrap();

        let mut got = keys.to_vec();
        s.sort_segments_wide(&mut got, offsets, &opts).unwrap_or_else(|e| panic!("{ctx}: {e}"));
        assert!(got == want, "keys of {ctx}");

        let (mut k, mut v) = (keys.to_vec(), idx.clone());
        s.sort_segments_pairs_wide(&mut k, &mut v, offsets, &opts).unwrap();
        assert!(k == want && v == want_v, "u32 pairs (stable) of {ctx}");
        let big = |i: u32| ((i as u64) << 32) | 0x5eed;
        let (mut k, mut v) = (keys.to_vec(), idx.iter().map(|&i| big(i)).collect::<Vec<_>>());
        s.sort_segments_pairs_wide(&mut k, &mut v, offsets, &opts).unwrap();
        assert!(k == want && v.iter().copied().eq(want_v.iter().map(|&i| big(i))), "u64 pairs of {ctx}");

        let o32: Vec<u32> = offsets.iter().map(|&o| o as u32).collect();
        let mut dk = gpu.upload(keys).unwrap();
        s.sort_segments_wide_device(&mut dk, &gpu.upload(&o32).unwrap(), &opts).unwrap();
        assert!(dk.to_vec(gpu).unwrap() == want, "device keys (u32 offsets) of {ctx}");
        let o64: Vec<u64> = offsets.iter().map(|&o| o as u64).collect();
        let (mut dk, mut dv) = (gpu.upload(keys).unwrap(), gpu.upload(&idx).unwrap());
        s.sort_segments_pairs_wide_device(&mut dk, &mut dv, &gpu.upload(&o64).unwrap(), &opts).unwrap();
        assert!(dk.to_vec(gpu).unwrap() == want && dv.to_vec(gpu).unwrap() == want_v, "device pairs of {ctx}");
    }
}

#[test]
fn gpu_wide_segments_match_the_cpu() {
    let Some(s) = gpu_sorter("gpu_wide_segments_match_the_cpu") else { return };
    for n in TOPK_SIZES {
        for shape in 0..3 {
            // All the keys in segments, and keys left outside on both sides.
            for (before, after) in [(0, 0), (n / 7, n / 5)] {
                let offsets = segment_offsets(n, before, after, shape, n as u64 + shape as u64);
                let what = format!("shape {shape} from {before}, {after} outside");
                check_segments(s, &wide_keys::<u128>(n, Pattern::FewUnique, 31), &offsets, &what);
                check_segments(s, &wide_keys::<i128>(n, Pattern::SmallSigned, 32), &offsets, &what);
                check_segments(s, &wide_keys::<[u8; 20]>(n, Pattern::SharedPrefix, 33), &offsets, &what);
                check_segments(s, &wide_keys::<[u8; 5]>(n, Pattern::Random, 34), &offsets, &what);
            }
        }
    }
    // No segments, empty segments only, and a segment of one key.
    let keys = wide_keys::<u128>(100, Pattern::Random, 35);
    for offsets in [vec![], vec![40], vec![3, 3, 3], vec![9, 10]] {
        check_segments(s, &keys, &offsets, "degenerate");
    }
}

#[test]
fn gpu_wide_segments_refuse_bad_offsets() {
    let Some(s) = gpu_sorter("gpu_wide_segments_refuse_bad_offsets") else { return };
    let gpu = s.gpu().unwrap();
    let keys = wide_keys::<[u8; 16]>(100, Pattern::Random, 1);
    let opts = SortOptions::default();
    let mut k = keys.clone();
    assert!(matches!(s.sort_segments_wide(&mut k, &[0, 50, 40], &opts), Err(Error::BadArgument(_))));
    assert!(matches!(s.sort_segments_wide(&mut k, &[0, 101], &opts), Err(Error::BadArgument(_))));
    assert!(k == keys);
    let mut dk = gpu.upload(&keys).unwrap();
    for bad in [vec![0u32, 50, 40], vec![0, 101]] {
        let e = s.sort_segments_wide_device(&mut dk, &gpu.upload(&bad).unwrap(), &opts);
        assert!(matches!(e, Err(Error::BadArgument(_))), "{bad:?}: {e:?}");
    }
    let e = s.sort_segments_wide_device(&mut dk, &gpu.upload(&[0u64, u64::MAX]).unwrap(), &opts);
    assert!(matches!(e, Err(Error::BadArgument(_))), "{e:?}");
    assert!(dk.to_vec(gpu).unwrap() == keys);
    let mut dv = gpu.alloc::<u32>(99).unwrap();
    let e = s.sort_segments_pairs_wide_device(&mut dk, &mut dv, &gpu.upload(&[0u32, 100]).unwrap(), &opts);
    assert!(matches!(e, Err(Error::LengthMismatch { .. })), "{e:?}");
}
