//! The segmented sort's bins and descriptors, and its tags through the CPU model of the
//! warp network ([`crate::block::warp_sort`]).
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
