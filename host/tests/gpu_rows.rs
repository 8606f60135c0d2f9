//! The row-wise API and NaN-last order on the GPU against the CPU backend (itself
//! checked against per-row and numpy models in `rows.rs` and `nan_order.rs`), bit for
//! bit: rows around the segmented sort's bin limits and past them, top-k by the
//! one-block-per-row kernel and by the sort-and-take path, NaNs of every sign and
//! payload. Skips without a device (see `common::gpu_sorter`).
mod common;
mod nan;

use common::gpu_sorter;
use host::testing::inputs::generate;
use host::{Distribution, Error, Key, Order, SortOptions, Sorter, Variant};
use nan::{bits_of, nan_zoo_f32, nan_zoo_f64};

const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];

/// Every row operation on `m` (`rows` x `cols`) on the GPU and the CPU, compared bit
/// for bit.
fn check_rows<K: Key + bytemuck::Pod>(s: &Sorter, m: &[K], rows: usize, cols: usize, ks: &[usize], opts: &SortOptions) {
    let cpu = Sorter::cpu();
    let what = format!("{} {rows}x{cols} {} {:?}", K::NAME, opts.order, opts.nan);
    let (mut got, mut want) = (m.to_vec(), m.to_vec());
    s.sort_rows(&mut got, rows, cols, opts).unwrap_or_else(|e| panic!("{what}: {e}"));
    cpu.sort_rows(&mut want, rows, cols, opts).unwrap();
    assert!(bits_of(&got) == bits_of(&want), "{what}: sort_rows differs");
    let gp = s.argsort_rows(m, rows, cols, opts).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(gp == cpu.argsort_rows(m, rows, cols, opts).unwrap(), "{what}: argsort_rows differs");
    for &k in ks {
        let (gk, gi) = s.top_k_rows(m, rows, cols, k, opts).unwrap_or_else(|e| panic!("{what} k={k}: {e}"));
        let (wk, wi) = cpu.top_k_rows(m, rows, cols, k, opts).unwrap();
        assert!(gi == wi, "{what}: top_k_rows k={k} indices differ");
        assert!(bits_of(&gk) == bits_of(&wk), "{what}: top_k_rows k={k} keys differ");
    }
}

#[test]
fn rows_of_every_width_match_the_cpu() {
    let Some(s) = gpu_sorter("rows_of_every_width_match_the_cpu") else { return };
    // Around the tile (32), warp (512) and block (7,680 32-bit keys) bins, and past.
    for (rows, cols) in [(1, 1), (5, 2), (64, 33), (37, 513), (16, 4096), (9, 7680), (3, 7681), (4, 50_257)] {
        let ks = [1, 50, 2048, 2049];
        let m: Vec<u32> = generate(rows * cols, Distribution::FewUnique, cols as u64);
        let f: Vec<f32> = generate(rows * cols, Distribution::Uniform, rows as u64);
        let d: Vec<i64> = generate(rows * cols, Distribution::Uniform, 7);
        for order in ORDERS {
            let opts = SortOptions::default().order(order);
            check_rows(s, &m, rows, cols, &ks, &opts);
            check_rows(s, &f, rows, cols, &ks, &opts);
            check_rows(s, &d, rows, cols, &[1, 50], &opts);
        }
    }
}

/// The one-launch row sort on both sides of every tile limit (4, 8, 11, 16 keys per
/// thread of 384, then the one-block limit of each key width, with and without
/// columns), 32- and 64-bit keys, ties (few unique values), both orders, and floats
/// with NaNs of every sign and payload and both zeros in NaN-last order (ranked by
/// their canonical bits in the kernel, written with their own).
#[test]
fn rows_on_every_row_tile_match_the_cpu() {
    let Some(s) = gpu_sorter("rows_on_every_row_tile_match_the_cpu") else { return };
    let mut widths = vec![2, 31, 384, 1536, 1537, 3072, 3073, 4096, 4224, 4225, 6144, 6145];
    for (kb, idx) in [(4, false), (4, true), (8, false), (8, true)] {
        let max = kernels::radix::small_max(kb, if idx { 4 } else { 0 }) as usize;
        widths.extend([max - 1, max, max + 1]);
    }
    for cols in widths {
        let rows = 3;
        let u: Vec<u32> = generate(rows * cols, Distribution::FewUnique, cols as u64);
        let f: Vec<f32> = generate(rows * cols, Distribution::Uniform, cols as u64 + 1);
        let d: Vec<f64> = generate(rows * cols, Distribution::Uniform, cols as u64 + 2);
        let w: Vec<u64> = generate(rows * cols, Distribution::FewUnique, cols as u64 + 3);
        let fz = nan_zoo_f32(rows * cols, cols as u64 + 4);
        let dz = nan_zoo_f64(rows * cols, cols as u64 + 5);
        for order in ORDERS {
            let opts = SortOptions::default().order(order);
            // k = 2049 takes the sort-and-take path (keys and columns).
            check_rows(s, &u, rows, cols, &[2049], &opts);
            check_rows(s, &f, rows, cols, &[2049], &opts);
            check_rows(s, &d, rows, cols, &[2049], &opts);
            check_rows(s, &w, rows, cols, &[2049], &opts);
            let nan_last = opts.nan_last();
            check_rows(s, &fz, rows, cols, &[1, 2049], &nan_last);
            check_rows(s, &dz, rows, cols, &[1, 2049], &nan_last);
        }
    }
}

#[test]
fn nan_last_rows_match_the_cpu() {
    let Some(s) = gpu_sorter("nan_last_rows_match_the_cpu") else { return };
    for (rows, cols) in [(3, 100), (16, 4096), (2, 9000), (2, 50_257)] {
        let f = nan_zoo_f32(rows * cols, cols as u64);
        let d = nan_zoo_f64(rows * cols, rows as u64);
        for order in ORDERS {
            let opts = SortOptions::default().order(order).nan_last();
            check_rows(s, &f, rows, cols, &[1, 50, 2048, 3000], &opts);
            check_rows(s, &d, rows, cols, &[1, 50], &opts);
        }
    }
}

/// Sort, pairs, argsort, top-k and segments under NaN-last order, on the GPU (the
/// radix sort, its packed pair path disabled, and the segmented and top-k kernels)
/// against the CPU backend.
fn check_nan_last<K: Key + bytemuck::Pod>(s: &Sorter, input: &[K]) {
    let cpu = Sorter::cpu();
    let n = input.len();
    for order in ORDERS {
        let opts = SortOptions::default().order(order).nan_last();
        let what = format!("{} n={n} {order}", K::NAME);
        let (mut g, mut c) = (input.to_vec(), input.to_vec());
        s.sort(&mut g, &opts).unwrap();
        cpu.sort(&mut c, &opts).unwrap();
        assert!(bits_of(&g) == bits_of(&c), "{what}: sort differs");
        assert!(s.argsort(input, &opts).unwrap() == cpu.argsort(input, &opts).unwrap(), "{what}: argsort");
        let ids: Vec<u32> = (0..n as u32).collect();
        let (mut gk, mut gv, mut ck, mut cv) = (input.to_vec(), ids.clone(), input.to_vec(), ids.clone());
        s.sort_pairs(&mut gk, &mut gv, &opts).unwrap();
        cpu.sort_pairs(&mut ck, &mut cv, &opts).unwrap();
        assert!(bits_of(&gk) == bits_of(&ck) && gv == cv, "{what}: pairs differ");
        for k in [1, 100, 2048, 5000] {
            let (gk, gi) = s.top_k(input, k, &opts).unwrap();
            let (ck, ci) = cpu.top_k(input, k, &opts).unwrap();
            assert!(gi == ci && bits_of(&gk) == bits_of(&ck), "{what}: top-{k} differs");
        }
        let offsets = [0, 1, 30, 600, 9000, n / 2, n];
        let (mut g, mut c) = (input.to_vec(), input.to_vec());
        s.sort_segments(&mut g, &offsets, &opts).unwrap();
        cpu.sort_segments(&mut c, &offsets, &opts).unwrap();
        assert!(bits_of(&g) == bits_of(&c), "{what}: segments differ");
        let (mut gk, mut gv, mut ck, mut cv) = (input.to_vec(), ids.clone(), input.to_vec(), ids);
        s.sort_segments_pairs(&mut gk, &mut gv, &offsets, &opts).unwrap();
        cpu.sort_segments_pairs(&mut ck, &mut cv, &offsets, &opts).unwrap();
        assert!(bits_of(&gk) == bits_of(&ck) && gv == cv, "{what}: segment pairs differ");
    }
}

#[test]
fn nan_last_sorts_match_the_cpu() {
    let Some(s) = gpu_sorter("nan_last_sorts_match_the_cpu") else { return };
    // One-block sorts, the onesweep passes (split pairs) and the top-k paths.
    for n in [20_000, 300_000, 1 << 21] {
        check_nan_last(s, &nan_zoo_f32(n, n as u64));
        check_nan_last(s, &nan_zoo_f64(n, 3));
    }
}

#[test]
fn nan_last_is_refused_by_the_other_gpu_variants() {
    let Some(s) = gpu_sorter("nan_last_is_refused_by_the_other_gpu_variants") else { return };
    let mut v = nan_zoo_f32(1000, 1);
    let opts = SortOptions::new(Variant::Mergepath).nan_last();
    assert!(matches!(s.sort(&mut v, &opts), Err(Error::Unsupported { .. })));
    // Integers have no NaNs: any variant takes the option.
    let mut ints: Vec<u32> = generate(1000, Distribution::Uniform, 5);
    s.sort(&mut ints, &opts).unwrap();
    assert!(ints.windows(2).all(|w| w[0] <= w[1]));
}

/// The device-resident entry points under NaN-last order keep NaN payloads and leave
/// the inputs of argsort and top-k alone; key bits select bits of NaN-last order
/// bits (those of the canonical copy the GPU sorts).
#[test]
fn nan_last_device_entry_points_keep_payloads() {
    let Some(s) = gpu_sorter("nan_last_device_entry_points_keep_payloads") else { return };
    let gpu = s.gpu().expect("a GPU sorter");
    let cpu = Sorter::cpu();
    for n in [1000usize, 70_000] {
        let input = nan_zoo_f32(n, n as u64 + 1);
        let wide = nan_zoo_f64(n, 9);
        for order in ORDERS {
            let opts = SortOptions::default().order(order).nan_last();
            let what = format!("n={n} {order}");
            let mut buf = s.upload(&input).unwrap();
            s.sort_device(&mut buf, &opts).unwrap();
            let mut want = input.clone();
            cpu.sort(&mut want, &opts).unwrap();
            assert!(bits_of(&buf.to_vec(gpu).unwrap()) == bits_of(&want), "{what}: sort_device");

            let keys = s.upload(&wide).unwrap();
            let (gk, gi) = s.top_k_device(&keys, 300, &opts).unwrap();
            let (wk, wi) = cpu.top_k(&wide, 300, &opts).unwrap();
            assert!(gi.to_vec(gpu).unwrap() == wi, "{what}: top_k_device indices");
            assert!(bits_of(&gk.to_vec(gpu).unwrap()) == bits_of(&wk), "{what}: top_k_device keys");
            assert!(bits_of(&keys.to_vec(gpu).unwrap()) == bits_of(&wide), "{what}: top-k input changed");

            let (rows, cols) = (10, n / 10);
            let mut m = s.upload(&input).unwrap();
            s.sort_rows_device(&mut m, rows, cols, &opts).unwrap();
            let mut want = input.clone();
            cpu.sort_rows(&mut want, rows, cols, &opts).unwrap();
            assert!(bits_of(&m.to_vec(gpu).unwrap()) == bits_of(&want), "{what}: sort_rows_device");
            let keys = s.upload(&input).unwrap();
            let (gk, gi) = s.top_k_rows_device(&keys, rows, cols, 7, &opts).unwrap();
            let (wk, wi) = cpu.top_k_rows(&input, rows, cols, 7, &opts).unwrap();
            assert!(gi.to_vec(gpu).unwrap() == wi, "{what}: top_k_rows_device indices");
            assert!(bits_of(&gk.to_vec(gpu).unwrap()) == bits_of(&wk), "{what}: top_k_rows_device keys");
            let p = s.argsort_rows_device(&keys, rows, cols, &opts).unwrap();
            assert!(p.to_vec(gpu).unwrap() == cpu.argsort_rows(&input, rows, cols, &opts).unwrap(), "{what}");
            assert!(bits_of(&keys.to_vec(gpu).unwrap()) == bits_of(&input), "{what}: argsort_rows input changed");

            let high = opts.clone().key_bits(16, 32);
            assert!(s.argsort(&input, &high).unwrap() == cpu.argsort(&input, &high).unwrap(), "{what}: key bits");
            let (mut g, mut c) = (input.clone(), input.clone());
            s.sort(&mut g, &high).unwrap();
            cpu.sort(&mut c, &high).unwrap();
            assert!(bits_of(&g) == bits_of(&c), "{what}: sort by key bits");
        }
    }
}
