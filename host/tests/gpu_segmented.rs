//! The segmented sort on the GPU against the CPU reference, segment by segment: every
//! key type, both orders, segment lengths around every bin limit and the tile kernel's
//! windows, offsets from the host and on the device. Skips without a device (see
//! `common::gpu_sorter`).
mod common;

use common::gpu_sorter;
use host::testing::cpu;
use host::testing::inputs::{Random, generate, segment_offsets};
use host::testing::variants::{radix, segmented};
use host::{Distribution, Order, SortOptions, Sorter};
use rayon::prelude::*;

const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];

/// Offsets from `first` with the given segment lengths.
fn offsets_of(first: usize, lens: &[usize]) -> Vec<usize> {
    let mut o = vec![first];
    for &l in lens {
        o.push(o.last().unwrap() + l);
    }
    o
}

/// Sorts `input`'s segments on the GPU (through `Sorter`, through the device entry
/// point on the whole buffer, and with the offsets on the device as `u64` and `u32`)
/// and compares the bits with the CPU reference of each segment; keys outside the
/// segments must be untouched.
fn check<T: host::Key>(s: &Sorter, input: &[T], offsets: &[usize], order: Order, what: &str) {
    let mut want = input.to_vec();
    for w in offsets.windows(2) {
        cpu::reference_sort(&mut want[w[0]..w[1]], order);
    }
    let bits = |v: &[T]| -> Vec<u64> { v.iter().map(|x| x.bits().into()).collect() };
    let want = bits(&want);
    let first_bad = |got: &[u64]| got.iter().zip(&want).position(|(a, b)| a != b);

    let mut got = input.to_vec();
    s.sort_segments(&mut got, offsets, &SortOptions::default().order(order))
        .unwrap_or_else(|e| panic!("{what} {} {order}: {e}", T::NAME));
    if let Some(i) = first_bad(&bits(&got)) {
        panic!("{what} {} {order}: Sorter::sort_segments differs first at {i}", T::NAME);
    }

    let gpu = s.gpu().unwrap();
    let mut buf = gpu.upload(input).unwrap();
    segmented::sort_segments(gpu, &mut buf, offsets, order).unwrap_or_else(|e| panic!("{what} device: {e}"));
    if let Some(i) = first_bad(&bits(&buf.to_vec(gpu).unwrap())) {
        panic!("{what} {} {order}: device sort_segments differs first at {i}", T::NAME);
    }

    let opts = SortOptions::default().order(order);
    let mut buf = gpu.upload(input).unwrap();
    let off64 = gpu.upload(&offsets.iter().map(|&o| o as u64).collect::<Vec<_>>()).unwrap();
    s.sort_segments_device(&mut buf, &off64, &opts).unwrap_or_else(|e| panic!("{what} u64 offsets: {e}"));
    if let Some(i) = first_bad(&bits(&buf.to_vec(gpu).unwrap())) {
        panic!("{what} {} {order}: sort_segments_device (u64 offsets) differs first at {i}", T::NAME);
    }
    let mut buf = gpu.upload(input).unwrap();
    let off32 = gpu.upload(&offsets.iter().map(|&o| o as u32).collect::<Vec<_>>()).unwrap();
    s.sort_segments_device(&mut buf, &off32, &opts).unwrap_or_else(|e| panic!("{what} u32 offsets: {e}"));
    if let Some(i) = first_bad(&bits(&buf.to_vec(gpu).unwrap())) {
        panic!("{what} {} {order}: sort_segments_device (u32 offsets) differs first at {i}", T::NAME);
    }
}

/// [`check`] for pairs: `u32` values (input positions), compared with a stable sort
/// of each segment's pairs on the CPU.
fn check_pairs<T: host::Key>(s: &Sorter, keys: &[T], offsets: &[usize], order: Order, what: &str) {
    let vals: Vec<u32> = (0..keys.len() as u32).collect();
    let desc = order.is_descending();
    let (mut wk, mut wv) = (keys.to_vec(), vals.clone());
    for w in offsets.windows(2) {
        let mut idx: Vec<usize> = (w[0]..w[1]).collect();
        idx.sort_by_key(|&i| keys[i].ord_bits(desc)); // stable
        for (j, i) in idx.into_iter().enumerate() {
            (wk[w[0] + j], wv[w[0] + j]) = (keys[i], vals[i]);
        }
    }
    let bits = |v: &[T]| -> Vec<u64> { v.iter().map(|x| x.bits().into()).collect() };
    let (mut k, mut v) = (keys.to_vec(), vals.clone());
    s.sort_segments_pairs(&mut k, &mut v, offsets, &SortOptions::default().order(order))
        .unwrap_or_else(|e| panic!("{what} pairs {} {order}: {e}", T::NAME));
    if let Some(i) = bits(&k).iter().zip(bits(&wk)).position(|(a, b)| *a != b) {
        panic!("{what} pairs {} {order}: keys differ first at {i}", T::NAME);
    }
    if let Some(i) = v.iter().zip(&wv).position(|(a, b)| a != b) {
        panic!("{what} pairs {} {order}: values differ first at {i} (stability?)", T::NAME);
    }
    // The device API, offsets on the device.
    let gpu = s.gpu().unwrap();
    let (mut k, mut v) = (gpu.upload(keys).unwrap(), gpu.upload(&vals).unwrap());
    let off = gpu.upload(&offsets.iter().map(|&o| o as u32).collect::<Vec<_>>()).unwrap();
    s.sort_segments_device_pairs(&mut k, &mut v, &off, &SortOptions::default().order(order))
        .unwrap_or_else(|e| panic!("{what} device pairs {} {order}: {e}", T::NAME));
    if bits(&k.to_vec(gpu).unwrap()) != bits(&wk) || v.to_vec(gpu).unwrap() != wv {
        panic!("{what} device pairs {} {order}: differs from the stable sort", T::NAME);
    }
}

/// [`check_pairs`] for every key type and both orders, keys of `dist`.
fn check_pairs_every_type(s: &Sorter, lens: &[usize], pad: usize, dist: Distribution, what: &str) {
    fn one<T: Random + host::Key>(s: &Sorter, lens: &[usize], pad: usize, dist: Distribution, what: &str) {
        let offsets = offsets_of(pad, lens);
        let n = offsets.last().unwrap() + pad;
        let input: Vec<T> = generate(n, dist, n as u64 ^ 0xa17);
        for order in ORDERS {
            check_pairs(s, &input, &offsets, order, what);
        }
    }
    one::<u32>(s, lens, pad, dist, what);
    one::<i32>(s, lens, pad, dist, what);
    one::<f32>(s, lens, pad, dist, what);
    one::<u64>(s, lens, pad, dist, what);
    one::<i64>(s, lens, pad, dist, what);
    one::<f64>(s, lens, pad, dist, what);
}

/// [`check`] for every key type and both orders, keys of `dist`, with `pad` keys
/// before the first segment and after the last.
fn check_every_type(s: &Sorter, lens: &[usize], pad: usize, dist: Distribution, what: &str) {
    fn one<T: Random + host::Key>(s: &Sorter, lens: &[usize], pad: usize, dist: Distribution, what: &str) {
        let offsets = offsets_of(pad, lens);
        let n = offsets.last().unwrap() + pad;
        let input: Vec<T> = generate(n, dist, n as u64 ^ 0x5e9);
        for order in ORDERS {
            check(s, &input, &offsets, order, what);
        }
    }
    one::<u32>(s, lens, pad, dist, what);
    one::<i32>(s, lens, pad, dist, what);
    one::<f32>(s, lens, pad, dist, what);
    one::<u64>(s, lens, pad, dist, what);
    one::<i64>(s, lens, pad, dist, what);
    one::<f64>(s, lens, pad, dist, what);
}

/// Lengths around every limit: the warp networks (32, 64, ..., 512), the block sort's
/// short tier, the one-block limits of 32- and 64-bit keys.
fn boundary_lengths() -> Vec<usize> {
    let mut v = vec![0, 1, 2, 3];
    for limit in [32, 64, 128, 256, 512, radix::small_max(4, 0) as usize / 5, radix::small_max(4, 0) as usize] {
        v.extend([limit - 1, limit, limit + 1]);
    }
    let b64 = radix::small_max(8, 0) as usize;
    v.extend([b64 - 1, b64, b64 + 1, 2 * b64 + 5]);
    v
}

#[test]
fn segmented_trivial_segments() {
    let Some(s) = gpu_sorter("segmented_trivial_segments") else { return };
    check_every_type(s, &[0; 100], 7, Distribution::Uniform, "all empty");
    check_every_type(s, &[1; 1000], 3, Distribution::Uniform, "all length 1");
    check_every_type(s, &[], 5, Distribution::Uniform, "one offset");
}

#[test]
fn segmented_boundary_lengths_every_type() {
    let Some(s) = gpu_sorter("segmented_boundary_lengths_every_type") else { return };
    let lens = boundary_lengths();
    // Each length alone (nothing else in its launch), then all of them in one call.
    lens.par_iter().for_each(|&l| {
        check_every_type(s, &[l], 9, Distribution::Uniform, &format!("one segment of {l}"));
    });
    check_every_type(s, &lens, 0, Distribution::Uniform, "boundary mix");
    let mut reversed = lens.clone();
    reversed.reverse();
    check_every_type(s, &reversed, 33, Distribution::FewUnique, "boundary mix, few unique");
}

#[test]
fn segmented_mixtures() {
    let Some(s) = gpu_sorter("segmented_mixtures") else { return };
    // Many tiny, small, medium and a few large segments interleaved.
    let mut lens = Vec::new();
    for i in 0..3000usize {
        lens.push(match i % 10 {
            0..=3 => i % 33,
            4..=6 => 33 + (i * 37) % 480,
            7 | 8 => 513 + (i * 101) % 7000,
            _ if i % 1000 == 9 => 20_000 + i,
            _ => i % 7,
        });
    }
    check_every_type(s, &lens, 17, Distribution::Uniform, "mixture");
    check_every_type(s, &lens, 0, Distribution::Equal, "mixture, all keys equal");
}

#[test]
fn segmented_one_huge_segment() {
    let Some(s) = gpu_sorter("segmented_one_huge_segment") else { return };
    check_every_type(s, &[(1 << 20) + 7], 11, Distribution::Uniform, "one huge segment");
    check_every_type(s, &[3, (1 << 20) + 7, 300, 5000], 0, Distribution::FewUnique, "huge among small");
}

#[test]
fn segmented_many_large_segments() {
    let Some(s) = gpu_sorter("segmented_many_large_segments") else { return };
    // Hundreds of segments past the one-block limit (sorted together), between short ones.
    let lens: Vec<usize> = (0..600).map(|i| if i % 2 == 0 { 7681 + (i * 7919) % 30_000 } else { i % 700 }).collect();
    check_every_type(s, &lens, 5, Distribution::Uniform, "many large segments");
    check_every_type(s, &lens[..40], 0, Distribution::TwoValues, "many large segments, two values");
    // Two long ones: one radix sort each.
    check_every_type(s, &[(1 << 19) + 1, 3, (1 << 19) + 3], 1, Distribution::Uniform, "two long segments");
}

#[test]
fn segmented_random_lengths_mean_256() {
    let Some(s) = gpu_sorter("segmented_random_lengths_mean_256") else { return };
    let n = 1 << 20;
    let offsets = segment_offsets(n, n / 256, 1);
    let lens: Vec<usize> = offsets.windows(2).map(|w| w[1] - w[0]).collect();
    check_every_type(s, &lens, 0, Distribution::Uniform, "random lengths, mean 256");
}

#[test]
fn segmented_special_floats() {
    let Some(s) = gpu_sorter("segmented_special_floats") else { return };
    let specials = [f32::NAN, -f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0, 1.0, -1.0, f32::MIN_POSITIVE];
    let lens = [5, 40, 300, 2000, 9000, 20_000];
    let offsets = offsets_of(1, &lens);
    let n = offsets.last().unwrap() + 1;
    let input: Vec<f32> = (0..n).map(|i| specials[(i * 7 + i / 13) % specials.len()]).collect();
    let input64: Vec<f64> = input.iter().map(|&x| x as f64).collect();
    for order in ORDERS {
        check(s, &input, &offsets, order, "special floats");
        check(s, &input64, &offsets, order, "special floats");
        check_pairs(s, &input, &offsets, order, "special floats");
        check_pairs(s, &input64, &offsets, order, "special floats");
    }
    // Tiny segments of specials: the tile kernel's network (32-bit keys alone) and
    // rank (pairs, 64-bit keys), each network size.
    let lens: Vec<usize> = (0..4000usize).map(|i| (i * 7919 + i / 7) % 33).collect();
    let offsets = offsets_of(3, &lens);
    let n = offsets.last().unwrap() + 3;
    let input: Vec<f32> = (0..n).map(|i| specials[(i * 5 + i / 11) % specials.len()]).collect();
    let input64: Vec<f64> = input.iter().map(|&x| x as f64).collect();
    for order in ORDERS {
        check(s, &input, &offsets, order, "tiny segments of special floats");
        check(s, &input64, &offsets, order, "tiny segments of special floats");
        check_pairs(s, &input, &offsets, order, "tiny segments of special floats");
        check_pairs(s, &input64, &offsets, order, "tiny segments of special floats");
    }
}

#[test]
fn segmented_tiles_many_per_block() {
    let Some(s) = gpu_sorter("segmented_tiles_many_per_block") else { return };
    // 2^23 keys in segments of mean 16: over 4,000 tiles, more than the tile kernel's
    // grid has blocks on any current device (16 per SM), so blocks sort several tiles
    // in turn and reuse their shared memory.
    let n = 1 << 23;
    let offsets = segment_offsets(n, n / 16, 5);
    for order in ORDERS {
        let input: Vec<u32> = generate(n, Distribution::Uniform, 77);
        check(s, &input, &offsets, order, "2^23 keys, mean 16");
        let input: Vec<f32> = generate(n, Distribution::FewUnique, 78);
        check_pairs(s, &input, &offsets, order, "2^23 keys, mean 16");
    }
}

#[test]
fn segmented_pairs_stable() {
    let Some(s) = gpu_sorter("segmented_pairs_stable") else { return };
    let mut lens = boundary_lengths();
    // The pairs one-block limits (8,832 for 32-bit keys, 7,680 for 64-bit ones).
    for (kb, vb) in [(4, 4), (8, 4)] {
        let m = radix::small_max(kb, vb) as usize;
        lens.extend([m - 1, m, m + 1]);
    }
    // Few distinct keys: stability shows in the values.
    check_pairs_every_type(s, &lens, 7, Distribution::FewUnique, "boundary lengths");
    check_pairs_every_type(s, &lens, 0, Distribution::TwoValues, "boundary lengths, two values");
    let n = 1 << 18;
    let offsets = segment_offsets(n, n / 256, 2);
    let lens: Vec<usize> = offsets.windows(2).map(|w| w[1] - w[0]).collect();
    check_pairs_every_type(s, &lens, 0, Distribution::FewUnique, "random lengths, mean 256");
    check_pairs_every_type(s, &[0, 1, 2, 0, 1], 3, Distribution::Uniform, "tiny");
}

#[test]
fn segmented_tiny_segments_share_tiles() {
    let Some(s) = gpu_sorter("segmented_tiny_segments_share_tiles") else { return };
    // Lengths 0..=33 (mean about 16): many segments per tile window, runs straddling
    // the windows, and 33 (the warp bin) between them.
    let lens: Vec<usize> = (0..20_000usize).map(|i| (i * 7919 + i / 3) % 34).collect();
    check_every_type(s, &lens, 5, Distribution::Uniform, "lengths 0..=33");
    check_every_type(s, &lens[..3000], 0, Distribution::FewUnique, "lengths 0..=33, few unique");
    check_pairs_every_type(s, &lens[..5000], 3, Distribution::FewUnique, "lengths 0..=33");
    let n = 1 << 20;
    let offsets = segment_offsets(n, n / 16, 3);
    let lens: Vec<usize> = offsets.windows(2).map(|w| w[1] - w[0]).collect();
    check_every_type(s, &lens, 0, Distribution::Uniform, "random lengths, mean 16");
}

#[test]
fn segmented_tile_network_sizes() {
    let Some(s) = gpu_sorter("segmented_tile_network_sizes") else { return };
    // A thread sorts a tiny segment with 8, 16 or 32 inputs, the smallest that holds
    // its warp's longest segment: runs where every warp takes each size, and one
    // segment of each limit among shorter ones.
    for (lo, hi) in [(2usize, 8usize), (7, 16), (9, 16), (15, 32), (17, 32), (2, 3)] {
        let lens: Vec<usize> = (0..6000).map(|i| lo + (i * 7919) % (hi - lo + 1)).collect();
        check_every_type(s, &lens, 1, Distribution::Uniform, &format!("lengths {lo}..={hi}"));
        check_pairs_every_type(s, &lens, 0, Distribution::FewUnique, &format!("lengths {lo}..={hi}"));
    }
    for limit in [8usize, 9, 16, 17, 32] {
        let lens: Vec<usize> = (0..3000).map(|i| if i % 97 == 0 { limit } else { 2 + i % 6 }).collect();
        check_every_type(s, &lens, 0, Distribution::FewUnique, &format!("one of {limit} per 97"));
    }
}

#[test]
fn segmented_tile_limits() {
    let Some(s) = gpu_sorter("segmented_tile_limits") else { return };
    let (stride, max) = (segmented::TILE_STRIDE as usize, segmented::TILE_SEG_MAX as usize);
    // Segments of the longest tile length starting on a tile's last owned key (so
    // ending on its window's last key), on the next tile's first key, and one before.
    for start in [stride - 1, stride, stride - 2, 2 * stride - 1] {
        let lens = [start, max, max, 7, max, 1, max];
        check_every_type(s, &lens, 0, Distribution::Uniform, &format!("tile limit at {start}"));
    }
    // One huge segment among tiny ones (tiles inside it own nothing).
    let mut lens: Vec<usize> = (0..500).map(|i| i % 33).collect();
    lens.push((1 << 20) + 3);
    lens.extend((0..500).map(|i| (i * 7) % 33));
    check_every_type(s, &lens, 2, Distribution::Uniform, "huge among tiny");
    check_pairs_every_type(s, &lens, 0, Distribution::FewUnique, "huge among tiny");
    // Empty segments by the thousand in one tile.
    let lens: Vec<usize> = (0..5000).map(|i| if i % 1000 == 999 { 20 } else { 0 }).collect();
    check_every_type(s, &lens, 1, Distribution::Uniform, "runs of empty segments");
}

#[test]
fn segmented_device_offsets_are_checked() {
    let Some(s) = gpu_sorter("segmented_device_offsets_are_checked") else { return };
    let gpu = s.gpu().unwrap();
    let input: Vec<u32> = (0..100u32).rev().collect();
    let opts = SortOptions::default();
    for (offsets, says) in [
        (vec![0u64, 10, 5, 20], "offsets[1] = 10 > offsets[2] = 5"),
        (vec![0, 40, 101], "101 is past the 100 keys"),
        (vec![0, 3, 30, 2, 100], "offsets[2] = 30 > offsets[3] = 2"),
    ] {
        let mut buf = gpu.upload(&input).unwrap();
        let off = gpu.upload(&offsets).unwrap();
        let e = s.sort_segments_device(&mut buf, &off, &opts).unwrap_err().to_string();
        assert!(e.contains(says), "{offsets:?}: {e}");
        assert_eq!(buf.to_vec(gpu).unwrap(), input, "{offsets:?}: keys changed");
        let mut vals = gpu.upload(&input).unwrap();
        let e = s.sort_segments_device_pairs(&mut buf, &mut vals, &off, &opts).unwrap_err().to_string();
        assert!(e.contains(says), "{offsets:?} pairs: {e}");
        assert_eq!(buf.to_vec(gpu).unwrap(), input, "{offsets:?} pairs: keys changed");
    }
    // Fewer than two offsets: no segments.
    let mut buf = gpu.upload(&input).unwrap();
    s.sort_segments_device(&mut buf, &gpu.upload(&[7u32]).unwrap(), &opts).unwrap();
    assert_eq!(buf.to_vec(gpu).unwrap(), input);
}
