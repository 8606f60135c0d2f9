//! The 16- and 8-bit keys (`u16`, `i16`, `f16`, `bf16`, `u8`, `i8`) on the GPU
//! operations that run them as widened 32-bit words (`host::variants::widen`): top-k,
//! rows' top-k, select_nth, segments (keys and pairs), row sort and argsort, and the
//! mergepath variant (keys and pairs), each against the CPU path bit for bit (keys,
//! indices, values), at sizes 0, 1, odd and 2^20 + 3, both orders, total and NaN-last
//! order, with NaN payloads of both signs, ±0 and ±inf among the 16-bit floats and
//! many equal keys (stable ties). Skips without a device (`common::gpu_sorter`);
//! `SORT_REQUIRE_GPU=1` makes a missing device fail.
mod common;

use common::gpu_sorter;
use host::{Key, Order, SortOptions, Sorter, Variant, bf16, f16};

const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];
const SIZES: [usize; 6] = [0, 1, 2, 3, 1001, (1 << 20) + 3];
/// The largest input of the small runs (`*_small` tests: what compute-sanitizer runs).
const SMALL_MAX: usize = 40_000;

/// The sizes of a run: all, or those up to [`SMALL_MAX`].
fn sizes(small: bool) -> impl Iterator<Item = usize> {
    SIZES.into_iter().filter(move |&n| !small || n <= SMALL_MAX)
}

/// The options of `order`, NaN-last or total.
fn options(order: Order, nan_last: bool) -> SortOptions {
    let o = SortOptions::default().order(order);
    if nan_last { o.nan_last() } else { o }
}

/// Every order the tests run: both directions, total and NaN-last.
fn orders() -> impl Iterator<Item = (Order, bool)> {
    ORDERS.into_iter().flat_map(|o| [(o, false), (o, true)])
}

/// A splitmix64 step: the test inputs' generator.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The 16-bit patterns every float input holds many of: NaNs of both signs and
/// several payloads in both formats, both infinities of both formats, both zeros.
const SPECIALS: [u16; 12] =
    [0x7e00, 0xfe01, 0x7c01, 0xffff, 0x7fff, 0x7f81, 0x7c00, 0xfc00, 0x7f80, 0xff80, 0x0000, 0x8000];

/// `n` keys of `K` from `seed`: a quarter from a pool of 64 values (ties), a quarter
/// special patterns (floats; for integers the extremes), the rest random bits.
fn keys<K: Key>(n: usize, seed: u64) -> Vec<K> {
    let bytes = size_of::<K>();
    (0..n as u64)
        .map(|i| {
            let r = mix(seed ^ i.wrapping_mul(0x1000_0001));
            let raw: u16 = match r % 4 {
                0 => mix(r >> 8 & 63) as u16,
                1 => SPECIALS[(r >> 8) as usize % SPECIALS.len()],
                _ => (r >> 16) as u16,
            };
            bytemuck::pod_read_unaligned(&raw.to_le_bytes()[..bytes])
        })
        .collect()
}

/// Whether two key slices are bit-identical.
fn same<K: Key>(a: &[K], b: &[K]) -> bool {
    bytemuck::cast_slice::<K, u8>(a) == bytemuck::cast_slice::<K, u8>(b)
}

/// Top-k and select_nth against the CPU, at every size, `k` on the direct, sampled
/// and exact paths.
fn check_top_k_and_select<K: Key>(test: &str, small: bool) {
    let Some(s) = gpu_sorter(test) else { return };
    for n in sizes(small) {
        let keys: Vec<K> = keys(n, n as u64);
        for (order, nan_last) in orders() {
            let opts = options(order, nan_last);
            let what = format!("{test}: {} n={n} {order} nan_last={nan_last}", K::NAME);
            for k in [0, 1, 7, 100, 2048, 3001] {
                let (gk, gi) = s.top_k(&keys, k, &opts).unwrap_or_else(|e| panic!("{what} top-k {k}: {e}"));
                let (ck, ci) = Sorter::cpu().top_k(&keys, k, &opts).unwrap();
                assert!(gi == ci, "{what} top-k {k}: indices differ");
                assert!(same(&gk, &ck), "{what} top-k {k}: keys differ");
            }
            for k in [0, n / 3, n / 2, n.saturating_sub(1)].into_iter().filter(|&k| k < n) {
                let g = s.select_nth(&keys, k, &opts).unwrap_or_else(|e| panic!("{what} select {k}: {e}"));
                let c = Sorter::cpu().select_nth(&keys, k, &opts).unwrap();
                assert!(same(&[g], &[c]), "{what} select_nth {k}: {g:?} against {c:?}");
            }
        }
    }
}

/// Segment offsets over `n` keys: lengths cycling through empty, warp, block and
/// large segments.
fn offsets(n: usize) -> Vec<usize> {
    let lengths = [0usize, 1, 5, 31, 200, 3000, 9000, 70_000, 2];
    let mut v = vec![0];
    let mut i = 0;
    while *v.last().unwrap() < n {
        let next = (*v.last().unwrap() + lengths[i % lengths.len()]).min(n);
        v.push(next);
        i += 1;
    }
    v
}

/// Segments (keys, and pairs with input indices) against the CPU.
fn check_segments<K: Key>(test: &str, small: bool) {
    let Some(s) = gpu_sorter(test) else { return };
    for n in sizes(small) {
        let keys: Vec<K> = keys(n, 3 * n as u64 + 1);
        let offsets = offsets(n);
        for (order, nan_last) in orders() {
            let opts = options(order, nan_last);
            let what = format!("{test}: {} n={n} {order} nan_last={nan_last}", K::NAME);
            let (mut g, mut c) = (keys.clone(), keys.clone());
            s.sort_segments(&mut g, &offsets, &opts).unwrap_or_else(|e| panic!("{what} segments: {e}"));
            Sorter::cpu().sort_segments(&mut c, &offsets, &opts).unwrap();
            assert!(same(&g, &c), "{what}: segment keys differ");
            let (mut g, mut c) = (keys.clone(), keys.clone());
            let mut gv: Vec<u32> = (0..n as u32).collect();
            let mut cv = gv.clone();
            s.sort_segments_pairs(&mut g, &mut gv, &offsets, &opts).unwrap_or_else(|e| panic!("{what} pairs: {e}"));
            Sorter::cpu().sort_segments_pairs(&mut c, &mut cv, &offsets, &opts).unwrap();
            assert!(same(&g, &c), "{what}: segment pair keys differ");
            assert!(gv == cv, "{what}: segment pair values differ");
        }
    }
}

/// Row sort, argsort and top-k against the CPU, on shapes that take the segmented
/// sort's warp rows, the one-block row sort and the segmented sort's long rows.
fn check_rows<K: Key>(test: &str, small: bool) {
    let Some(s) = gpu_sorter(test) else { return };
    let shapes = [(0, 5), (1, 1), (3, 7), (1000, 33), (17, 1000), (5, 3001), (2, 9000), (3, (1 << 18) + 1)];
    for (rows, cols) in shapes.into_iter().filter(|&(r, c)| !small || r * c <= SMALL_MAX) {
        let keys: Vec<K> = keys(rows * cols, (rows * 7 + cols) as u64);
        for (order, nan_last) in orders() {
            let opts = options(order, nan_last);
            let what = format!("{test}: {} {rows}x{cols} {order} nan_last={nan_last}", K::NAME);
            let (mut g, mut c) = (keys.clone(), keys.clone());
            s.sort_rows(&mut g, rows, cols, &opts).unwrap_or_else(|e| panic!("{what} sort_rows: {e}"));
            Sorter::cpu().sort_rows(&mut c, rows, cols, &opts).unwrap();
            assert!(same(&g, &c), "{what}: sorted rows differ");
            let g = s.argsort_rows(&keys, rows, cols, &opts).unwrap_or_else(|e| panic!("{what} argsort_rows: {e}"));
            assert!(g == Sorter::cpu().argsort_rows(&keys, rows, cols, &opts).unwrap(), "{what}: argsort_rows differ");
            for k in [1, 5, 50, 300, cols] {
                let (gk, gi) =
                    s.top_k_rows(&keys, rows, cols, k, &opts).unwrap_or_else(|e| panic!("{what} top_k_rows {k}: {e}"));
                let (ck, ci) = Sorter::cpu().top_k_rows(&keys, rows, cols, k, &opts).unwrap();
                assert!(gi == ci, "{what} top_k_rows {k}: columns differ");
                assert!(same(&gk, &ck), "{what} top_k_rows {k}: keys differ");
            }
        }
    }
}

/// The mergepath variant's keys and pairs (total order: the variant's only order)
/// against the CPU.
fn check_mergepath<K: Key>(test: &str, small: bool) {
    let Some(s) = gpu_sorter(test) else { return };
    for n in sizes(small).chain([4097, 300_001].into_iter().filter(|&n| !small || n <= SMALL_MAX)) {
        let keys: Vec<K> = keys(n, 5 * n as u64 + 2);
        for order in ORDERS {
            let opts = SortOptions::new(Variant::Mergepath).order(order);
            let what = format!("{test}: {} n={n} {order}", K::NAME);
            let (mut g, mut c) = (keys.clone(), keys.clone());
            s.sort(&mut g, &opts).unwrap_or_else(|e| panic!("{what} sort: {e}"));
            Sorter::cpu().sort(&mut c, &opts).unwrap();
            assert!(same(&g, &c), "{what}: keys differ");
            let (mut g, mut c) = (keys.clone(), keys.clone());
            let mut gv: Vec<u32> = (0..n as u32).collect();
            let mut cv = gv.clone();
            s.sort_pairs(&mut g, &mut gv, &opts).unwrap_or_else(|e| panic!("{what} pairs: {e}"));
            Sorter::cpu().sort_pairs(&mut c, &mut cv, &opts).unwrap();
            assert!(same(&g, &c), "{what}: pair keys differ");
            assert!(gv == cv, "{what}: pair values differ");
        }
    }
}

/// The radix pair sort with 8-byte values (which the radix passes move with 32- and
/// 64-bit keys only: narrow keys take them through (key, index) pairs and a gather),
/// against the CPU, both orders, total and NaN-last.
fn check_wide_values<K: Key>(test: &str, small: bool) {
    let Some(s) = gpu_sorter(test) else { return };
    for n in sizes(small) {
        let keys: Vec<K> = keys(n, 7 * n as u64 + 3);
        for (order, nan_last) in orders() {
            let opts = options(order, nan_last);
            let what = format!("{test}: {} n={n} {order} nan_last={nan_last}", K::NAME);
            let (mut g, mut c) = (keys.clone(), keys.clone());
            let mut gv: Vec<u64> = (0..n as u64).map(|i| i << 33 | 5).collect();
            let mut cv = gv.clone();
            s.sort_pairs(&mut g, &mut gv, &opts).unwrap_or_else(|e| panic!("{what} pairs: {e}"));
            Sorter::cpu().sort_pairs(&mut c, &mut cv, &opts).unwrap();
            assert!(same(&g, &c), "{what}: pair keys differ");
            assert!(gv == cv, "{what}: 8-byte values differ");
        }
    }
}

/// Every operation of one type, at every size or (`small`) up to [`SMALL_MAX`].
fn check_all<K: Key>(test: &str, small: bool) {
    check_top_k_and_select::<K>(test, small);
    check_segments::<K>(test, small);
    check_rows::<K>(test, small);
    check_mergepath::<K>(test, small);
    check_wide_values::<K>(test, small);
}

#[test]
fn u16_operations() {
    check_all::<u16>("u16_operations", false);
}

#[test]
fn i16_operations() {
    check_all::<i16>("i16_operations", false);
}

#[test]
fn f16_operations() {
    check_all::<f16>("f16_operations", false);
}

#[test]
fn bf16_operations() {
    check_all::<bf16>("bf16_operations", false);
}

#[test]
fn u8_operations() {
    check_all::<u8>("u8_operations", false);
}

#[test]
fn i8_operations() {
    check_all::<i8>("i8_operations", false);
}

/// Both widen and narrow kernels (16- and 8-bit words) on small inputs: what
/// `compute-sanitizer --tool memcheck` runs (`gpu_narrow small`).
#[test]
fn small_inputs() {
    check_all::<f16>("small_inputs", true);
    check_all::<i8>("small_inputs", true);
}
