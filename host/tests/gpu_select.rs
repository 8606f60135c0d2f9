//! `select_nth` (the key at position `k` of the stable sort) on the GPU against the CPU
//! backend (`cpu::select`, itself checked against the stable sort in its unit tests)
//! and against the stable sort of the same keys, bit for bit: every primitive type,
//! both orders, distributions with many ties, positions at the ends and inside, and
//! NaN-last order with NaNs of every payload. The CPU checks run everywhere; the GPU
//! ones skip without a device (see `common::gpu_sorter`).
mod common;
mod nan;

use common::gpu_sorter;
use host::testing::inputs::{Random, generate};
use host::{Distribution, Error, Key, Order, SortOptions, Sorter};
use nan::{nan_zoo_f32, nan_zoo_f64};

const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];

/// Positions at the ends, around the middle and one pseudo-random one.
fn positions(n: usize) -> Vec<usize> {
    let mut v = vec![0, 1, n / 3, n / 2, n.saturating_sub(2), n - 1, (n * 7919 + 13) % n];
    v.retain(|&k| k < n);
    v.sort();
    v.dedup();
    v
}

/// `select_nth` of `s` at every position of [`positions`] equals the stable sort's key
/// there (the CPU backend's sort), bit for bit; the device form too.
fn check<K: Key>(s: &Sorter, keys: &[K], opts: &SortOptions) {
    let what = format!("{} n={} {} {:?}", K::NAME, keys.len(), opts.order, opts.nan);
    let mut sorted = keys.to_vec();
    Sorter::cpu().sort(&mut sorted, opts).unwrap();
    let dev = s.gpu().map(|_| s.upload(keys).unwrap());
    for k in positions(keys.len()) {
        let got = s.select_nth(keys, k, opts).unwrap_or_else(|e| panic!("{what} k={k}: {e}"));
        assert!(got.bits() == sorted[k].bits(), "{what} k={k}: got {got:?}, want {:?}", sorted[k]);
        if let Some(dev) = &dev {
            let got = s.select_nth_device(dev, k, opts).unwrap();
            assert!(got.bits() == sorted[k].bits(), "{what} k={k}: device form got {got:?}");
        }
    }
}

fn check_type<K: Key + Random>(s: &Sorter, n: usize) {
    for dist in [Distribution::Uniform, Distribution::FewUnique, Distribution::Sorted] {
        let keys: Vec<K> = generate(n, dist, n as u64 + 1);
        for order in ORDERS {
            check(s, &keys, &SortOptions::default().order(order));
        }
    }
}

#[test]
fn cpu_select_nth_is_the_sorts_kth() {
    let s = Sorter::cpu();
    for n in [1, 2, 1000] {
        check_type::<u32>(&s, n);
        check_type::<f64>(&s, n);
    }
    let zoo = nan_zoo_f32(3000, 5);
    for order in ORDERS {
        check(&s, &zoo, &SortOptions::default().order(order).nan_last());
    }
}

#[test]
fn positions_past_the_keys_are_refused() {
    let keys = [3u32, 1, 2];
    let cpu = Sorter::cpu();
    assert!(matches!(cpu.select_nth(&keys, 3, &SortOptions::default()), Err(Error::BadArgument(_))));
    assert!(matches!(cpu.select_nth::<u32>(&[], 0, &SortOptions::default()), Err(Error::BadArgument(_))));
    let Some(s) = gpu_sorter("positions_past_the_keys_are_refused") else { return };
    assert!(matches!(s.select_nth(&keys, 3, &SortOptions::default()), Err(Error::BadArgument(_))));
    let dev = s.upload(&keys).unwrap();
    assert!(matches!(s.select_nth_device(&dev, 7, &SortOptions::default()), Err(Error::BadArgument(_))));
}

#[test]
fn gpu_select_nth_matches_the_sort() {
    let Some(s) = gpu_sorter("gpu_select_nth_matches_the_sort") else { return };
    for n in [1, 2, 33, 5000, 70_001, 1 << 20] {
        check_type::<u32>(s, n);
        check_type::<i32>(s, n);
        check_type::<f32>(s, n);
        check_type::<u64>(s, n);
        check_type::<i64>(s, n);
        check_type::<f64>(s, n);
    }
}

#[test]
fn gpu_nan_last_select_keeps_payloads() {
    let Some(s) = gpu_sorter("gpu_nan_last_select_keeps_payloads") else { return };
    for n in [100, 70_000] {
        let f = nan_zoo_f32(n, n as u64);
        let d = nan_zoo_f64(n, n as u64 + 1);
        for order in ORDERS {
            let opts = SortOptions::default().order(order).nan_last();
            check(s, &f, &opts);
            check(s, &d, &opts);
            // Total order on the same keys (NaNs sorted by their bits).
            check(s, &f, &SortOptions::default().order(order));
        }
    }
}
