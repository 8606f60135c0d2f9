//! Wide keys (`u128`, `i128`, `[u8; N]`) on the GPU against the CPU reference (std's
//! stable sort by the keys' `Ord`): sorts, argsorts and pairs with `u32` and `u64`
//! values (stable), both orders, every input pattern, sizes 0, 1, odd, past the radix
//! sort's one-block limit and 2^20 + 3; the device entry points; the options refused.
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
