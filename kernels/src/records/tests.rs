//! The record kernels' portable half: lane widths, key alignment and the byte order
//! of unaligned keys.
use super::*;

#[test]
fn lanes_are_the_widest_that_divide_size_and_both_addresses() {
    assert_eq!(lane_bytes(32, 0, 256), 16);
    assert_eq!(lane_bytes(20, 0, 256), 4);
    assert_eq!(lane_bytes(24, 0, 256), 8);
    assert_eq!(lane_bytes(32, 8, 256), 8);
    assert_eq!(lane_bytes(32, 0, 4), 4);
    assert_eq!(lane_bytes(7, 0, 0), 1);
    assert_eq!(lane_bytes(6, 0, 0), 1);
    assert_eq!(lane_bytes(16, 2, 0), 1);
}

#[test]
fn key_alignment_needs_size_offset_and_base() {
    assert!(key_is_aligned(32, 4, 4, 256));
    assert!(!key_is_aligned(32, 2, 4, 256));
    assert!(!key_is_aligned(20, 8, 8, 256));
    assert!(key_is_aligned(24, 16, 8, 256));
    assert!(!key_is_aligned(24, 16, 8, 4));
}

#[test]
fn unaligned_keys_read_little_endian() {
    assert_eq!(le_word([0x78, 0x56, 0x34, 0x12]), 0x1234_5678);
    let x = -3.5f64;
    assert_eq!(le_word(x.to_le_bytes()), x.to_bits());
    assert_eq!(le_word_slice(&x.to_le_bytes()), x.to_bits());
    assert_eq!(le_word_slice(&[1, 2]), 0x0201);
}
