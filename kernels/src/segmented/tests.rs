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
            let min = bin_min_len(b, TILE_SEG_MAX, block_max);
            assert_eq!(bin_with(min, TILE_SEG_MAX, block_max), b);
            assert_ne!(bin_with(min - 1, TILE_SEG_MAX, block_max), b);
        }
    }
    // Without the tile bin, the warp bin starts at two keys.
    let block_max = radix::small_max(4, 0);
    assert_eq!(tile_max(false), TILE_SEG_MAX);
    assert_eq!(bin_with(1, tile_max(true), block_max), Bin::Skip);
    assert_eq!(bin_with(2, tile_max(true), block_max), Bin::Warp);
    assert_eq!(bin_with(TILE_SEG_MAX, tile_max(true), block_max), Bin::Warp);
    assert_eq!(bin_min_len(Bin::Warp, tile_max(true), block_max), 2);
    assert_eq!(bin_with(WARP_MAX + 1, tile_max(true), block_max), Bin::Block);
    // The tiny segments go to the warp kernel only where the mean segment is long.
    let n = 1u64 << 24;
    assert!(!tiny_in_warp(n, 1 << 20));
    assert!(!tiny_in_warp(n, n / TINY_IN_WARP_MEAN));
    assert!(tiny_in_warp(n, n / (TINY_IN_WARP_MEAN + 1)));
    assert!(tiny_in_warp(n, 1 << 16));
    assert!(tiny_in_warp(n, 1 << 12));
    assert!(tiny_in_warp(n, 0));
    assert_eq!(bin_capacity(1000, 7, 33), 7);
    assert_eq!(bin_capacity(1000, 700, 33), 30);
    // A tile-bin segment that starts in a tile's owned range ends inside its window.
    assert_eq!(TILE_STRIDE - 1 + TILE_SEG_MAX, TILE as u64 - 1);
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
fn tile_list_slots_cover_each_listed_segment_once() {
    for (short, long) in [(0, 0), (1, 0), (0, 1), (5, 7), (TILE_LIST, 0), (0, TILE_LIST), (600, 424), (1000, 8)] {
        let mut seen = std::vec![0u8; TILE_LIST as usize];
        (0..short).for_each(|w| seen[tile_list_slot(false, w) as usize] |= 1);
        (0..long).for_each(|w| seen[tile_list_slot(true, w) as usize] |= 2);
        assert!(seen.iter().all(|&b| b != 3), "{short} + {long}: a slot listed twice");
        for j in 0..short + long {
            let slot = tile_sorted_slot(j, short, long) as usize;
            assert_eq!(seen[slot], if j < short { 1 } else { 2 }, "{short} + {long}: sorted {j} at slot {slot}");
            seen[slot] = 0;
        }
        assert!(seen.iter().all(|&b| b == 0), "{short} + {long}: a listed segment not sorted");
    }
    for (s, len) in [(0, 2), (2015, 32), (1000, 17)] {
        assert_eq!(tile_entry_bounds(tile_entry(s, len)), (s, len));
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
fn warp_classes_are_network_sizes_longest_first() {
    for (len, class) in [(2, 4), (32, 4), (33, 3), (64, 3), (65, 2), (128, 2), (129, 1), (256, 1), (257, 0), (512, 0)] {
        assert_eq!(warp_class(len), class, "{len}");
        assert_eq!(WARP_ITEMS_MAX >> class, warp_items(len));
        assert_eq!(warp_region(len, false), 0);
    }
    // The bin kernel's lists on the CPU: every warp-bin segment in its class's region,
    // within the region's capacity, and the warp kernel's walk over the regions takes
    // each once, the longest class first (in the bin kernel's order within a class).
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for (n, mean) in [(1u64 << 16, 16u64), (1 << 16, 256), (1 << 16, 512), (100_000, 40), (5000, 3000)] {
        for tiny in [false, true] {
            for by_class in [false, true] {
                let mut lens = Vec::new();
                let mut left = n;
                while left > 0 {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let l = (x % (2 * mean + 1)).min(left);
                    lens.push(l);
                    left -= l;
                }
                let segments = lens.len() as u64;
                let tmax = tile_max(tiny);
                let regions = warp_regions(n, segments, tiny, by_class);
                let mut count = [0u32; WARP_CLASSES];
                let mut list = std::vec![u64::MAX; regions[WARP_CLASSES] as usize];
                let mut want = std::vec![Vec::new(); WARP_CLASSES];
                for (i, &l) in lens.iter().enumerate() {
                    if bin_with(l, tmax, 7680) == Bin::Warp {
                        let c = warp_region(l as u32, by_class);
                        let slot = regions[c] + count[c] as u64;
                        assert!(slot < regions[c + 1], "class {c} of n {n} mean {mean} overflows");
                        list[slot as usize] = i as u64;
                        count[c] += 1;
                        want[warp_class(l as u32)].push(i as u64);
                    }
                }
                let start: [u32; WARP_CLASSES] = core::array::from_fn(|c| regions[c] as u32);
                let total: u32 = count.iter().sum();
                let walk: Vec<u64> =
                    (0..total).map(|w| list[warp_list_slot(w, |c| count[c], |c| start[c]) as usize]).collect();
                if by_class {
                    assert_eq!(walk, want.concat(), "n {n} mean {mean} tiny {tiny}");
                } else {
                    let mut sorted = walk.clone();
                    sorted.sort_unstable();
                    let mut all = want.concat();
                    all.sort_unstable();
                    assert_eq!(sorted, all);
                }
                assert_eq!(want[4].is_empty(), !tiny || lens.iter().all(|&l| !(2..=TILE_SEG_MAX).contains(&l)));
            }
        }
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
    let mut want: Vec<usize> = (0..keys.len()).collect();
    want.sort_by_key(|&i| keys[i]);
    // Striped (the bitonic network) and blocked (its all-ascending form).
    let striped = warp_sort::tests::model(&tags, 16, false, u64::MAX);
    let blocked = warp_sort::tests::model_ascending(&tags, 16, u64::MAX);
    for sorted in [striped, blocked] {
        assert_eq!(sorted.iter().map(|t| (*t as u32) as usize).collect::<Vec<_>>(), want);
    }
    // The layouts: 64-bit keys and pairs blocked, 32-bit keys alone striped.
    assert_eq!(warp_blocked_from(8, false), 1);
    assert_eq!(warp_blocked_from(4, true), 1);
    assert_eq!(warp_blocked_from(4, false), WARP_K32_BLOCKED_FROM);
}

/// The bin kernel's `first` list and the tile kernel with `sorter` on the CPU: sorts
/// the tile-bin segments of `keys` (with `vals` for the rank sorter; the network sorts
/// keys alone and leaves them) as the device does, every other segment by a stable
/// sort; returns how many segments the tiles sorted.
fn model(keys: &mut [u32], vals: &mut [u32], offsets: &[u64], sorter: TileSorter) -> usize {
    let block = tile_block(sorter) as usize;
    let n = keys.len() as u64;
    let segments = offsets.len() - 1;
    // The bin kernel: each tile's first segment, and the other bins.
    let mut first = std::vec![0u32; tiles(n) as usize];
    for i in 0..segments {
        let (start, end) = (offsets[i], offsets[i + 1]);
        if bin_with(end - start, TILE_SEG_MAX, 7680) == Bin::Tile {
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
        // Each round of the device's loop: thread `tid` takes segment `chunk + tid`,
        // as `(window position, length)`, length 0 when not an owned tile segment.
        let owned_end = base + TILE_STRIDE;
        let mut rounds: Vec<Vec<(u32, u32)>> = Vec::new();
        let mut chunk = first_of_mark(mark) as usize;
        loop {
            let round = (chunk..chunk + block)
                .map(|i| {
                    if i >= segments {
                        return (0, 0);
                    }
                    let s = offsets[i];
                    if s < owned_end && bin_with(offsets[i + 1] - s, TILE_SEG_MAX, u64::MAX) == Bin::Tile {
                        ((s - base) as u32, (offsets[i + 1] - s) as u32)
                    } else {
                        (0, 0)
                    }
                })
                .collect();
            rounds.push(round);
            chunk += block;
            if chunk >= segments || offsets[chunk] >= owned_end {
                break;
            }
        }
        // Each owned position's segment `(s, e)`, in window positions.
        let mut spans = [None; TILE as usize];
        for &(s, len) in rounds.iter().flatten() {
            assert!(s + len <= TILE, "tile {t}: segment at {s} leaves the window");
            for q in s..s + len {
                assert!(spans[q as usize].is_none(), "tile {t}: position {q} owned twice");
                spans[q as usize] = Some((s, s + len));
            }
            sorted += (len > 0) as usize;
        }
        // The network sorter's bit marks: the owned positions exactly.
        let mut marks = [0u32; (TILE / 32) as usize + 1];
        for &(s, len) in rounds.iter().flatten() {
            let bits = owned_bits(s, len);
            let w = (s / 32) as usize;
            assert_eq!(marks[w] & bits as u32, 0, "tile {t}: marks of the segment at {s} overlap");
            assert_eq!(marks[w + 1] & (bits >> 32) as u32, 0, "tile {t}: marks of the segment at {s} overlap");
            marks[w] |= bits as u32;
            marks[w + 1] |= (bits >> 32) as u32;
        }
        assert_eq!(marks[(TILE / 32) as usize], 0, "tile {t}: a mark past the window");
        for (o, span) in spans.iter().enumerate() {
            assert_eq!(marks[o / 32] >> (o % 32) & 1 != 0, span.is_some(), "tile {t}: mark of {o}");
        }
        // Only owned positions are loaded and stored.
        let owned: Vec<usize> = (0..TILE as usize).filter(|&o| spans[o].is_some()).collect();
        let mut ords = [0u32; TILE as usize];
        let mut vs = [0u32; TILE as usize];
        for &o in &owned {
            (ords[o], vs[o]) = (keys[base as usize + o], vals[base as usize + o]);
        }
        match sorter {
            TileSorter::Network => {
                // The list of owned segments of two keys or more: short ones from the
                // front, long ones from the back (in the order the rounds find them;
                // on the device, in the order of the warps' atomics).
                let mut list = [u32::MAX; TILE_LIST as usize];
                let (mut short, mut long) = (0u32, 0u32);
                for &(s, len) in rounds.iter().flatten().filter(|w| w.1 >= 2) {
                    let is_long = len > TILE_SHORT_MAX;
                    let count = if is_long { &mut long } else { &mut short };
                    let slot = tile_list_slot(is_long, *count) as usize;
                    assert_eq!(list[slot], u32::MAX, "tile {t}: list slot {slot} written twice");
                    list[slot] = tile_entry(s, len);
                    *count += 1;
                }
                assert!(short + long <= TILE_LIST, "tile {t}: {short} + {long} listed segments");
                let sorted: Vec<(u32, u32)> = (0..short + long)
                    .map(|j| tile_entry_bounds(list[tile_sorted_slot(j, short, long) as usize]))
                    .collect();
                for (j, &(_, len)) in sorted.iter().enumerate() {
                    assert_eq!(len > TILE_SHORT_MAX, j as u32 >= short, "tile {t}: entry {j} out of its part");
                }
                // Each warp of each round of the block's threads over the list.
                for warp in sorted.chunks(32) {
                    let longest = warp.iter().map(|w| w.1).max().unwrap();
                    for &(s, len) in warp {
                        match tile_network(longest) {
                            8 => sort_tile_segment::<8>(&mut ords, s, len),
                            16 => sort_tile_segment::<16>(&mut ords, s, len),
                            _ => sort_tile_segment::<32>(&mut ords, s, len),
                        }
                    }
                }
                for &o in &owned {
                    keys[base as usize + o] = ords[o];
                }
            }
            TileSorter::Rank => {
                let mut written = [false; TILE as usize];
                for &o in &owned {
                    let (s, e) = spans[o].unwrap();
                    let r = rank_in_segment(|j| ords[j as usize], s, e, o as u32, ords[o]);
                    let dst = (s + r) as usize;
                    assert!(dst < e as usize && !written[dst], "tile {t}: rank of {o} collides");
                    written[dst] = true;
                    (keys[base as usize + dst], vals[base as usize + dst]) = (ords[o], vs[o]);
                }
            }
        }
    }
    sorted
}

/// The network sorter's sort of one segment (`len` keys at window position `s`) with
/// the network of `N` inputs.
fn sort_tile_segment<const N: usize>(ords: &mut [u32], s: u32, len: u32) {
    assert!(len as usize <= N);
    let v = sort_padded::<u32, N>(len, u32::MAX, |j| ords[(s + j) as usize]);
    ords[s as usize..(s + len) as usize].copy_from_slice(&v[..len as usize]);
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
    let tiny = lens.iter().filter(|&&l| bin_with(l, TILE_SEG_MAX, 7680) == Bin::Tile).count();
    let (k0, v0) = (keys.clone(), vals.clone());
    assert_eq!(model(&mut keys, &mut vals, &offsets, TileSorter::Rank), tiny, "every tile-bin segment is owned once");
    assert_eq!(keys, wk);
    assert_eq!(vals, wv);
    // The network sorts keys alone (equal keys are indistinguishable).
    let (mut keys, mut vals) = (k0, v0);
    assert_eq!(model(&mut keys, &mut vals, &offsets, TileSorter::Network), tiny);
    assert_eq!(keys, wk);
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
fn tile_networks_sort_every_length() {
    assert_eq!(tile_network(0), 8);
    assert_eq!(tile_network(8), 8);
    assert_eq!(tile_network(9), 16);
    assert_eq!(tile_network(16), 16);
    assert_eq!(tile_network(17), 32);
    assert_eq!(tile_network(TILE_SEG_MAX as u32), 32);
    fn check<const N: usize>(seed: &mut u64) {
        for len in 0..=N as u32 {
            for modulus in [1u64, 3, 1 << 32] {
                let keys: Vec<u32> = (0..len)
                    .map(|_| {
                        *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                        ((*seed >> 32) % modulus) as u32
                    })
                    .collect();
                // Keys alone, padded with the largest key, which real keys may equal.
                let mut want = keys.clone();
                want.sort_unstable();
                let got = sort_padded::<u32, N>(len, u32::MAX, |j| keys[j as usize]);
                assert_eq!(&got[..len as usize], &want[..], "N {N} len {len}");
                // 64-bit keys tagged with positions: a stable sort.
                let got = sort_padded::<(u64, u32), N>(len, (u64::MAX, u32::MAX), |j| (keys[j as usize] as u64, j));
                let mut want: Vec<u32> = (0..len).collect();
                want.sort_by_key(|&j| keys[j as usize]);
                assert_eq!(got[..len as usize].iter().map(|t| t.1).collect::<Vec<_>>(), want, "N {N} len {len}");
            }
        }
    }
    let mut seed = 7;
    check::<8>(&mut seed);
    check::<16>(&mut seed);
    check::<32>(&mut seed);
}

#[test]
fn ranks_are_a_stable_sort() {
    let ords = [5u32, 3, 5, 1, 3, 5];
    let ranks: Vec<u32> = (0..6).map(|o| rank_in_segment(|j| ords[j as usize], 0, 6, o, ords[o as usize])).collect();
    assert_eq!(ranks, [3, 1, 4, 0, 2, 5]);
    // A sub-range: positions are window positions.
    assert_eq!(rank_in_segment(|j| ords[j as usize], 2, 5, 4, 3), 1);
}

#[test]
fn tile_sorters_by_case() {
    // The network for 32-bit keys alone; the rank for pairs and 64-bit keys.
    assert_eq!(tile_sorter(4, false), TileSorter::Network);
    assert_eq!(tile_sorter(4, true), TileSorter::Rank);
    assert_eq!(tile_sorter(8, false), TileSorter::Rank);
    assert_eq!(tile_sorter(8, true), TileSorter::Rank);
    for s in [TileSorter::Rank, TileSorter::Network] {
        assert_eq!(tile_sorter_of(s as u32), s);
        // Whole rounds of loads and stores cover the window.
        assert_eq!(TILE % tile_block(s), 0);
    }
    assert_eq!(tile_span_bounds(tile_span(TILE_STRIDE as u32 - 1, TILE)), (TILE_STRIDE as u32 - 1, TILE));
    assert_ne!(tile_span(TILE_STRIDE as u32 - 1, TILE), NOT_OWNED);
}
