//! The partition's part order, launch bounds and tiles.
use super::*;

#[test]
fn parts_follow_the_order_with_ties_by_rank_and_position() {
    // Splitters (10, rank 1, pos 5) and (20, rank 0, pos 3), seen from rank 1.
    let cuts = [(10, threshold(1, 1, 5)), (20, threshold(1, 0, 3))];
    assert_eq!(part_of(9, 100, &cuts), 0);
    assert_eq!(part_of(10, 4, &cuts), 0, "equal bits, own rank, before the splitter");
    assert_eq!(part_of(10, 5, &cuts), 1, "equal bits, own rank, at the splitter");
    assert_eq!(part_of(20, 0, &cuts), 2, "equal bits, splitter of a lower rank: after it");
    assert_eq!(part_of(u64::MAX, 0, &cuts), 2);
    // Seen from rank 0, a tie with rank 1's splitter comes before it.
    assert_eq!(part_of(10, u64::MAX - 1, &[(10, threshold(0, 1, 5))]), 0);
    assert_eq!(part_of(5, 0, &[]), 0, "one part");
}

#[test]
fn launch_bounds_name_every_kernel_once() {
    for (i, (name, block, per_sm)) in LAUNCH_BOUNDS.iter().enumerate() {
        assert_eq!(*block, BLOCK);
        // partition_<kind>_<key type>[_v<bits>]
        let key = name.split('_').nth(2).expect("a key type");
        let key_bytes = if key.ends_with("64") { 8 } else { 4 };
        let want = blocks_per_sm(name.starts_with("partition_scatter"), key_bytes);
        assert_eq!(*per_sm, want, "{name}");
        assert!(LAUNCH_BOUNDS[..i].iter().all(|(n, _, _)| n != name));
    }
    // Every count and scatter is bounded (`partition_starts` runs one small block).
    for entry in KERNELS.iter().filter(|e| e.name != partition_starts.name()) {
        assert!(LAUNCH_BOUNDS.iter().any(|b| b.0 == entry.name), "{} has no launch bounds", entry.name);
    }
    assert_eq!(KERNELS.len(), LAUNCH_BOUNDS.len() + 1);
}

#[test]
fn shared_memory_fits_and_tiles_round_up() {
    const { assert!(SMEM_BYTES <= 48 * 1024) };
    assert_eq!(tiles(0), 0);
    assert_eq!(tiles(1), 1);
    assert_eq!(tiles(TILE as u64), 1);
    assert_eq!(tiles(TILE as u64 + 1), 2);
}
