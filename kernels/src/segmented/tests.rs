//! The segmented sort's bins and descriptors, its tags through the CPU model of the
//! warp network ([`crate::block::warp_sort`]), and a CPU model of the bin and tile
//! kernels (the same portable functions, the device's steps in the same order).
extern crate std;
use super::*;
use crate::block::warp_sort;
use crate::radix;
use std::vec::Vec;

#[test]
fn bins_split_at_the_warp_and_block_limits() {
    for kb in [4u32, 8] {
        let block_max = radix::small_max(kb, 0);
        assert_eq!(bin(0, kb, 0), Bin::Skip);
        assert_eq!(bin(1, kb, 0), Bin::Skip);
        assert_eq!(bin(2, kb, 0), Bin::Tile);
        assert_eq!(bin(TILE_SEG_MAX, kb, 0), Bin::Tile);
        assert_eq!(bin(TILE_SEG_MAX + 1, kb, 0), Bin::Warp);
        assert_eq!(bin(WARP_MAX, kb, 0), Bin::Warp);
        assert_eq!(bin(WARP_MAX + 1, kb, 0), Bin::Block);
        assert_eq!(bin(block_max, kb, 0), Bin::Block);
        assert_eq!(bin(block_max + 1, kb, 0), Bin::Large);
        assert_eq!(bin(u64::MAX, kb, 0), Bin::Large);
        // Every block segment fits a descriptor and the one-block kernel's u32 count.
        assert!(block_max < 1 << (64 - START_BITS));
        let pairs_max = radix::small_max(kb, 4);
        assert_eq!(bin(pairs_max, kb, 4), Bin::Block);
        assert_eq!(bin(pairs_max + 1, kb, 4), Bin::Large);
        assert_eq!(bin(WARP_MAX, kb, 4), Bin::Warp);
        // Each list's worst case holds every segment of its bin.
        for b in [Bin::Tile, Bin::Warp, Bin::Block, Bin::Large] {
            let min = bin_min_len(b, block_max);
            assert_eq!(bin_with(min, block_max), b);
            assert_ne!(bin_with(min - 1, block_max), b);
        }
    }
    assert_eq!(bin_capacity(1000, 7, 33), 7);
    assert_eq!(bin_capacity(1000, 700, 33), 30);
    // A tile-bin segment that starts in a tile's owned range ends inside its window.
    assert_eq!(TILE_STRIDE - 1 + TILE_SEG_MAX, TILE as u64 - 1);
    assert_eq!(tile_span_bounds(tile_span(TILE_STRIDE as u32 - 1, TILE)), (TILE_STRIDE as u32 - 1, TILE));
    assert_ne!(tile_span(TILE_STRIDE as u32 - 1, TILE), NOT_OWNED);
    // The largest mark is the first segment; no segment marks 0.
    assert!(first_mark(3) > first_mark(4));
    assert_ne!(first_mark(u32::MAX - 1), 0);
    assert_eq!(first_of_mark(first_mark(12345)), 12345);
    // Tile indices of the largest buffers stay below the bin kernel's "no tile".
    assert!(tiles(1 << START_BITS) < u32::MAX as u64);
}

#[test]
fn descriptors_round_trip() {
    for (start, len) in [(0u64, 2u64), (5, 512), ((1 << START_BITS) - 1, radix::small_max(8, 0)), (1 << 31, 7680)] {
        assert_eq!(unpack(pack(start, len)), (start, len as u32));
    }
}

#[test]
fn warp_items_is_the_shortest_power_of_two_network() {
    assert_eq!(warp_items(2), 1);
    assert_eq!(warp_items(32), 1);
    assert_eq!(warp_items(33), 2);
    assert_eq!(warp_items(64), 2);
    assert_eq!(warp_items(65), 4);
    assert_eq!(warp_items(257), 16);
    assert_eq!(warp_items(WARP_MAX as u32), WARP_ITEMS_MAX);
    for len in 2..=WARP_MAX as u32 {
        let i = warp_items(len);
        assert!(i.is_power_of_two() && 32 * i >= len && (i == 1 || 16 * i < len), "{len}");
    }
}

#[test]
fn large_segments_are_found_and_batched() {
    let starts = [0u64, 8000, 8000 + 9000, 8000 + 9000 + 7681];
    let total = starts[3] + 10_000;
    let at = |i: u32| starts[i as usize];
    for p in [0, 1, 7999, 8000, 8001, 16_999, 17_000, 24_680, 24_681, total - 1] {
        let seg = large_segment_of(p, 4, at);
        assert!(starts[seg as usize] <= p && (seg == 3 || p < starts[seg as usize + 1]), "{p} -> {seg}");
    }
    assert_eq!(segment_index_bits(2), 1);
    assert_eq!(segment_index_bits(3), 2);
    assert_eq!(segment_index_bits(4), 2);
    assert_eq!(segment_index_bits(5), 3);
    assert_eq!(segment_index_bits(1 << 20), 20);
    assert!(!batch_large(1, 1 << 30));
    assert!(batch_large(245, 245 * 8000));
    assert!(!batch_large(2, 1 << 24));
}

#[test]
fn tags_sort_by_key_then_position() {
    assert!(tag_u32(5, 9) < tag_u32(6, 0));
    assert!(tag_u32(5, 0) < tag_u32(5, 1));
    assert!(tag_u32(u32::MAX, WARP_MAX as u32 - 1) < u64::MAX);
    // The warp network on tags is a stable sort of the keys.
    let keys: Vec<u32> = (0..300u32).map(|i| (i * 7) % 5).collect();
    let tags: Vec<u64> = keys.iter().enumerate().map(|(i, &k)| tag_u32(k, i as u32)).collect();
    let sorted = warp_sort::tests::model(&tags, 16, u64::MAX);
    let mut want: Vec<usize> = (0..keys.len()).collect();
    want.sort_by_key(|&i| keys[i]);
    assert_eq!(sorted.iter().map(|t| (*t as u32) as usize).collect::<Vec<_>>(), want);
}

/// The bin kernel's `first` list and the tile kernel on the CPU: sorts the tile-bin
/// segments of `keys` (with `vals`) as the device does, every other segment by a
/// stable sort; returns how many segments the tiles sorted.
fn model(keys: &mut [u32], vals: &mut [u32], offsets: &[u64]) -> usize {
    let n = keys.len() as u64;
    let segments = offsets.len() - 1;
    // The bin kernel: each tile's first segment, and the other bins.
    let mut first = std::vec![0u32; tiles(n) as usize];
    for i in 0..segments {
        let (start, end) = (offsets[i], offsets[i + 1]);
        if bin_with(end - start, 7680) == Bin::Tile {
            let t = tile_of(start) as usize;
            first[t] = first[t].max(first_mark(i as u32));
        } else {
            let (s, e) = (start as usize, end as usize);
            let mut idx: Vec<usize> = (s..e).collect();
            idx.sort_by_key(|&j| keys[j]);
            let (k, v): (Vec<u32>, Vec<u32>) = idx.iter().map(|&j| (keys[j], vals[j])).unzip();
            keys[s..e].copy_from_slice(&k);
            vals[s..e].copy_from_slice(&v);
        }
    }
    // The tile kernel, block by block (blocks never touch each other's keys).
    let mut sorted = 0;
    for t in 0..tiles(n) {
        let base = t * TILE_STRIDE;
        let mark = first[t as usize];
        if mark == 0 {
            continue;
        }
        let mut spans = [NOT_OWNED; TILE as usize];
        let owned_end = base + TILE_STRIDE;
        let mut chunk = first_of_mark(mark) as usize;
        loop {
            for i in chunk..(chunk + TILE_BLOCK as usize).min(segments) {
                let s = offsets[i];
                if s < owned_end && bin_with(offsets[i + 1] - s, u64::MAX) == Bin::Tile {
                    let (sr, er) = ((s - base) as u32, (offsets[i + 1] - base) as u32);
                    assert!(er <= TILE, "tile {t}: segment {i} leaves the window");
                    for q in sr..er {
                        assert_eq!(spans[q as usize], NOT_OWNED, "tile {t}: position {q} owned twice");
                        spans[q as usize] = tile_span(sr, er);
                    }
                    sorted += 1;
                }
            }
            chunk += TILE_BLOCK as usize;
            if chunk >= segments || offsets[chunk] >= owned_end {
                break;
            }
        }
        let owned: Vec<u32> = (0..TILE).filter(|&o| spans[o as usize] != NOT_OWNED).collect();
        let ords: Vec<u32> =
            (0..TILE).map(|o| if base + (o as u64) < n { keys[(base + o as u64) as usize] } else { 0 }).collect();
        let (k0, v0) = (keys.to_vec(), vals.to_vec());
        let mut written = std::vec![false; TILE as usize];
        for &o in &owned {
            let (s, e) = tile_span_bounds(spans[o as usize]);
            let r = rank_in_segment(|j| ords[j as usize], s, e, o, ords[o as usize]);
            let dst = s + r;
            assert!(dst < e && !written[dst as usize], "tile {t}: rank of {o} collides");
            written[dst as usize] = true;
            keys[(base + dst as u64) as usize] = k0[(base + o as u64) as usize];
            vals[(base + dst as u64) as usize] = v0[(base + o as u64) as usize];
        }
    }
    sorted
}

/// [`model`] against a stable sort of each segment; `lens` from offset `pad`, `pad`
/// keys after.
fn check_model(lens: &[u64], pad: u64, seed: u32) {
    let mut offsets = std::vec![pad];
    for &l in lens {
        offsets.push(offsets.last().unwrap() + l);
    }
    let n = (offsets.last().unwrap() + pad) as usize;
    // Few distinct keys, so that stability shows in the values.
    let mut x = seed | 1;
    let mut keys: Vec<u32> = (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x % 7
        })
        .collect();
    let mut vals: Vec<u32> = (0..n as u32).collect();
    let (mut wk, mut wv) = (keys.clone(), vals.clone());
    for w in offsets.windows(2) {
        let (s, e) = (w[0] as usize, w[1] as usize);
        let mut idx: Vec<usize> = (s..e).collect();
        idx.sort_by_key(|&j| keys[j]);
        for (j, &i) in idx.iter().enumerate() {
            (wk[s + j], wv[s + j]) = (keys[i], vals[i]);
        }
    }
    let tiny = lens.iter().filter(|&&l| bin_with(l, 7680) == Bin::Tile).count();
    assert_eq!(model(&mut keys, &mut vals, &offsets), tiny, "every tile-bin segment is owned once");
    assert_eq!(keys, wk);
    assert_eq!(vals, wv);
}

#[test]
fn tiles_sort_every_tiny_segment_once() {
    // Lengths 0..=33: runs of segments per tile, straddling the windows.
    let lens: Vec<u64> = (0..5000u64).map(|i| (i * 7919 + i / 3) % 34).collect();
    check_model(&lens, 0, 1);
    check_model(&lens, 5, 2);
    let stride = TILE_STRIDE;
    let max = TILE_SEG_MAX;
    // The longest tile segment starting on a tile's last owned key, on the next tile's
    // first key, and one before the last.
    for start in [stride - 1, stride, stride - 2, 2 * stride - 1] {
        check_model(&[start, max, max, 7, max, 1, max], 0, 3);
        check_model(&[max; 100], start, 4);
    }
    // All empty; runs of empty segments in one tile; one huge segment among tiny ones.
    check_model(&[0; 3000], 3, 5);
    let lens: Vec<u64> = (0..5000).map(|i| if i % 1000 == 999 { 20 } else { 0 }).collect();
    check_model(&lens, 1, 6);
    let mut lens: Vec<u64> = (0..300).map(|i| i % 33).collect();
    lens.push(100_003);
    lens.extend((0..300).map(|i| (i * 7) % 33));
    check_model(&lens, 2, 7);
}

#[test]
fn ranks_are_a_stable_sort() {
    let ords = [5u32, 3, 5, 1, 3, 5];
    let ranks: Vec<u32> = (0..6).map(|o| rank_in_segment(|j| ords[j as usize], 0, 6, o, ords[o as usize])).collect();
    assert_eq!(ranks, [3, 1, 4, 0, 2, 5]);
    // A sub-range: positions are window positions.
    assert_eq!(rank_in_segment(|j| ords[j as usize], 2, 5, 4, 3), 1);
}
