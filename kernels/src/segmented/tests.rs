//! The segmented sort's bins and descriptors, and a CPU model of the warp network in
//! the kernel's own layout (lanes x striped items), built on [`network`] and
//! [`keeps_min`].
extern crate std;
use super::*;
use crate::radix;
use std::vec::Vec;

#[test]
fn bins_split_at_the_warp_and_block_limits() {
    for kb in [4u32, 8] {
        let block_max = radix::small_max(kb, 0);
        assert_eq!(bin(0, kb, 0), Bin::Skip);
        assert_eq!(bin(1, kb, 0), Bin::Skip);
        assert_eq!(bin(2, kb, 0), Bin::Warp);
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
    }
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
fn network_steps_are_the_bitonic_schedule() {
    let steps: Vec<_> = network(3).collect();
    assert_eq!(steps, [(2, 1), (4, 2), (4, 1), (8, 4), (8, 2), (8, 1)]);
    assert_eq!(network(9).count(), 45);
}

/// The warp kernel on the CPU: `lanes[lane][k]` is element `k * 32 + lane`; strides
/// of 32 and more pair items of one lane, smaller ones pair lanes (a shuffle reads the
/// partner's value before anything is written).
fn warp_sort_model(keys: &[u32], items: usize) -> Vec<u32> {
    let n = 32 * items;
    assert!(keys.len() <= n);
    let mut lanes = [[u32::MAX; WARP_ITEMS_MAX as usize]; 32];
    for (e, &k) in keys.iter().enumerate() {
        lanes[e % 32][e / 32] = k;
    }
    for (size, j) in network(n.trailing_zeros()) {
        if j >= 32 {
            let jj = (j / 32) as usize;
            for lane in 0..32u32 {
                for k in (0..items).filter(|k| k & jj == 0) {
                    let l = &mut lanes[lane as usize];
                    let (lo, hi) = (l[k].min(l[k | jj]), l[k].max(l[k | jj]));
                    let e = k as u32 * 32 + lane;
                    (l[k], l[k | jj]) = if keeps_min(e, size, j) { (lo, hi) } else { (hi, lo) };
                }
            }
        } else {
            let before = lanes;
            for lane in 0..32u32 {
                for k in 0..items {
                    let (mine, other) = (before[lane as usize][k], before[(lane ^ j) as usize][k]);
                    let e = k as u32 * 32 + lane;
                    lanes[lane as usize][k] = if keeps_min(e, size, j) { mine.min(other) } else { mine.max(other) };
                }
            }
        }
    }
    (0..keys.len()).map(|e| lanes[e % 32][e / 32]).collect()
}

#[test]
fn warp_network_sorts_every_length_and_item_count() {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for len in 2..=WARP_MAX as usize {
        let items = warp_items(len as u32) as usize;
        for modulus in [2u64, 17, 1 << 32] {
            let keys: Vec<u32> = (0..len).map(|_| (next() % modulus) as u32).collect();
            let mut want = keys.clone();
            want.sort_unstable();
            assert_eq!(warp_sort_model(&keys, items), want, "len {len} items {items} mod {modulus}");
        }
    }
    // Padding is the largest value: keys equal to it still sort (they tie with it).
    let keys: Vec<u32> = (0..100).map(|i| if i % 3 == 0 { u32::MAX } else { 100 - i }).collect();
    let mut want = keys.clone();
    want.sort_unstable();
    assert_eq!(warp_sort_model(&keys, 4), want);
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
    let sorted = warp_sort_model_u64(&tags, 16);
    let mut want: Vec<usize> = (0..keys.len()).collect();
    want.sort_by_key(|&i| keys[i]);
    assert_eq!(sorted.iter().map(|t| (*t as u32) as usize).collect::<Vec<_>>(), want);
}

/// [`warp_sort_model`] on 64-bit elements (the tags).
fn warp_sort_model_u64(keys: &[u64], items: usize) -> Vec<u64> {
    let n = 32 * items;
    let mut lanes = [[u64::MAX; WARP_ITEMS_MAX as usize]; 32];
    for (e, &k) in keys.iter().enumerate() {
        lanes[e % 32][e / 32] = k;
    }
    for (size, j) in network(n.trailing_zeros()) {
        let before = lanes;
        for lane in 0..32u32 {
            for k in 0..items {
                let e = k as u32 * 32 + lane;
                let p = (e ^ j) as usize;
                let (mine, other) = (before[lane as usize][k], before[p % 32][p / 32]);
                lanes[lane as usize][k] = if keeps_min(e, size, j) { mine.min(other) } else { mine.max(other) };
            }
        }
    }
    (0..keys.len()).map(|e| lanes[e % 32][e / 32]).collect()
}
