//! The merge sort's index math and its entries (this file), a CPU model of its whole
//! pass structure (block sort with per-thread register sorts and co-rank merge rounds,
//! partitions, global merges, ping-pong) on small tiles, built on the same functions
//! the kernels use (`model`), and the sampled co-rank search against the plain one
//! (`search`).
extern crate std;
use super::*;
use crate::key::Entity;
use std::vec;
use std::vec::Vec;

mod model;
mod search;

/// Element of the models: (key, input position).
type E = (u32, u32);

#[test]
fn passes_and_tiles() {
    assert_eq!(items(4), 33);
    assert_eq!(items(8), 19);
    assert_eq!(items(20), 7);
    assert_eq!(tile(4), 8448);
    assert_eq!(tile(8), 4864);
    assert_eq!((kv_items(4), kv_items(8)), (19, 13));
    assert_eq!((tile_for(4, 0), tile_for(4, 4), tile_for(8, 8)), (8448, 4864, 3328));
    // A block-sort run of the widest sort (a cluster's) is past 2^16 keys, so 2^24 and
    // 2^28 keys take 8 and 12 global passes (9 and 13 at width 4, 14 at width 2).
    assert!(tile(4) * sort_width(4, 0) >= 1 << 16);
    assert_eq!(global_passes(1 << 24, tile(4) * sort_width(4, 0)), 8);
    assert_eq!(global_passes(1 << 28, tile(4) * sort_width(4, 0)), 12);
    assert_eq!(global_passes(1 << 24, tile(4) * 4), 9);
    assert_eq!(global_passes(1 << 28, tile(4) * 4), 13);
    assert_eq!(global_passes(1 << 28, tile(4) * narrower_sort_width(4, 0, 4)), 14);
    // 8-byte keys: 19 per thread, four tiles a wide block sort, the same pass counts.
    assert_eq!(global_passes(1 << 24, tile(8) * sort_width(8, 0)), 10);
    assert_eq!(global_passes(1 << 28, tile(8) * sort_width(8, 0)), 14);
    for b in [4, 8, 20] {
        assert!(tile(b).is_multiple_of(MAX_SAMPLE) && tile_for(b, 4).is_multiple_of(MAX_SAMPLE));
    }
    for b in [4, 8, 20] {
        assert!(smem_bytes(b) <= 48 * 1024, "{b}-byte tile fits the default shared memory");
    }
    for k in [4, 8] {
        assert!(kv_values_offset(k).is_multiple_of(8), "8-byte values are aligned after {k}-byte keys");
        assert!(kv_values_offset(k) >= slots(BLOCK, kv_items(k)) * k, "values after the keys");
        assert_eq!(tiles_smem_bytes(1, k, 0), smem_bytes(k), "one tile of {k}-byte keys is a merge's");
        for v in [4, 8] {
            assert_eq!(tiles_smem_bytes(1, k, v), kv_smem_bytes(k, v), "one tile of pairs is a merge's");
            // Three blocks per SM (the key-value kernels' launch bounds) in the 227 KB
            // an H100 SM gives to blocks that opt in past 48 KB.
            assert!(3 * kv_smem_bytes(k, v) <= 227 * 1024, "{k}-byte keys with {v}-byte values fit");
        }
    }
    let t = 100;
    assert_eq!(global_passes(0, t), 0);
    assert_eq!(global_passes(1, t), 0);
    assert_eq!(global_passes(100, t), 0);
    assert_eq!(global_passes(101, t), 1);
    assert_eq!(global_passes(200, t), 1);
    assert_eq!(global_passes(201, t), 2);
    assert_eq!(global_passes(400, t), 2);
    assert_eq!(global_passes(401, t), 3);
    // Past 2^32 elements: 64-bit counts.
    assert_eq!(global_passes(3 << 32, 3840), 22);
    for n in [1u64, 99, 100, 101, 1000, 123_457, 1 << 40] {
        // After the passes one run covers everything, and one pass fewer would not.
        let p = global_passes(n, t);
        assert!((t as u64) << p >= n, "{n}");
        assert!(p == 0 || (t as u64) << (p - 1) < n, "{n}");
    }
    assert_eq!(block_range(0, 100, 250), (0, 100));
    assert_eq!(block_range(2, 100, 250), (200, 50));
    assert_eq!(block_range(1 << 33, 3840, u64::MAX), ((1 << 33) * 3840, 3840));
}

#[test]
fn windows_cover_pairs_and_units() {
    // Every unit's window is the pair of runs holding it, and consecutive units of a
    // pair have consecutive diagonals.
    for len in [1u64, 7, 8, 9, 31, 64, 100, 257] {
        for log_run in 0..6 {
            for unit_len in [1u64, 3, 4] {
                let units = len.div_ceil(unit_len);
                for u in 0..units {
                    let w = merge_window(u, log_run, unit_len, len);
                    let run = unit_len << log_run;
                    assert_eq!(w.start % (2 * run), 0);
                    assert!(w.start <= u * unit_len && u * unit_len < w.start + w.a_len + w.b_len);
                    assert_eq!(w.diag, u * unit_len - w.start);
                    assert!(w.a_len <= run && w.b_len <= run);
                    assert!(w.b_len == 0 || w.a_len == run);
                    assert_eq!(w.start + w.a_len + w.b_len, (w.start + 2 * run).min(len));
                }
            }
        }
    }
    // 32-bit in-tile version agrees with the 64-bit one.
    for u in 0..200u32 {
        let a = merge_window(u, 3, 15u32, 3000);
        let b = merge_window(u as u64, 3, 15u64, 3000);
        assert_eq!(
            (a.start as u64, a.a_len as u64, a.b_len as u64, a.diag as u64),
            (b.start, b.a_len, b.b_len, b.diag)
        );
    }
    // Windows past 2^32 elements.
    let unit = 5_000_003u64;
    let w = merge_window(unit, 4, 3840, 5_000_010 * 3840);
    assert_eq!(w.start, (unit >> 5 << 5) * 3840);
    assert_eq!(w.diag, (unit % 32) * 3840);
    assert_eq!((w.a_len, w.b_len), (10 * 3840, 0), "the last pair: A cut short, no B");
    let w = merge_window(unit, 2, 3840, 5_000_010 * 3840);
    assert_eq!((w.start, w.a_len, w.b_len, w.diag), (5_000_000 * 3840, 4 * 3840, 4 * 3840, 3 * 3840));
}

#[test]
fn width_and_partition_lanes_by_size() {
    // 132 SMs: a whole warp per co-rank up to 64 co-ranks per SM, 8 lanes beyond.
    assert_eq!(partition_lanes(64 * 132, 132), 32);
    assert_eq!(partition_lanes(64 * 132 + 1, 132), 8);
    assert_eq!(partition_lanes(tiles(1 << 28, tile(4)), 132), 8);
    assert_eq!(partition_lanes(tiles(1 << 24, tile(4)), 132), 32);
    // Width 8 of 4-byte keys alone (clusters of 2 blocks) from 1.75 waves of its blocks,
    // width 4 from 1.5 waves, then 2, then 1.
    assert_eq!((sort_width(4, 0), narrower_sort_width(4, 0, 8)), (8, 4));
    assert_eq!((narrower_sort_width(4, 0, 4), narrower_sort_width(4, 0, 2)), (2, 1));
    let quarters = |w| sort_width_min_quarter_waves(4, 0, w);
    assert_eq!((quarters(8), quarters(4), quarters(2)), (7, 6, 4));
    assert_eq!((cluster_ctas(16), cluster_ctas(8), cluster_ctas(4), cluster_ctas(1)), (4, 2, 1, 1));
    assert_eq!((block_tiles(16), block_tiles(8), block_tiles(4), block_tiles(2)), (4, 4, 4, 2));
    assert_eq!((sort_width(8, 0), narrower_sort_width(8, 0, 4), sort_width_min_quarter_waves(8, 0, 4)), (4, 1, 4));
    assert_eq!(narrower_sort_width(4, 4, 4), 1, "pairs have no width-2 kernels");
    // Both lane counts have their partition.
    assert_eq!(partition_kernel::<u64>(partition_lanes(1, 132)).map(|k| k.name()), Some("mergepath_partition_u64"));
    assert_eq!(
        partition_kernel::<f32>(partition_lanes(1 << 20, 132)).map(|k| k.name()),
        Some("mergepath_partition_l8_f32")
    );
    assert!(partition_kernel::<u32>(16).is_none());
}

#[test]
fn take_a_prefers_the_left_run_on_ties() {
    assert!(take_a(0, 1, 0, 1, 5, 5));
    assert!(!take_a(0, 1, 0, 1, 6, 5));
    assert!(take_a(0, 1, 1, 1, 9, 0), "B exhausted");
    assert!(!take_a(1, 1, 0, 1, 0, 9), "A exhausted");
}

#[test]
fn passes_alternate_direction_and_reuse_l2_by_size() {
    // The block sort runs forward, so pass 0 runs backward, then they alternate.
    let dirs: Vec<u32> = (0..5).map(|p| pass_flags(p, true, false)).collect();
    assert_eq!(dirs, [PASS_REVERSED, 0, PASS_REVERSED, 0, PASS_REVERSED]);
    assert_eq!(pass_flags(0, false, false), 0);
    assert_eq!(pass_flags(1, true, true), PASS_STREAMING);
    assert_eq!(pass_flags(2, true, true), PASS_REVERSED | PASS_STREAMING);
    // An H100's 50 MB of L2: u32 keys at 2^22 (both buffers fit), 2^24, 2^25.
    let l2 = 50 * 1024 * 1024;
    assert_eq!(l2_reuse(4 << 22, l2), (false, false));
    assert_eq!(l2_reuse(4 << 24, l2), (true, true));
    assert_eq!(l2_reuse(4 << 25, l2), (true, false));
    assert_eq!(l2_reuse(8 << 28, l2), (true, false));
}

/// Every width that [`sort_width`] picks, and each narrower one it falls back to, has
/// its block sort (keys alone, and with each value word) for every key type,
/// launch-bounded at its block's threads, in the cluster table exactly when its blocks
/// form clusters, with its tiles in Hopper's shared memory. (That the PTX has every
/// handle is `host`'s `kernel_boundary` test.)
#[test]
fn every_sort_width_has_its_block_sort() {
    fn widths(kb: u32, vb: u32) -> Vec<u32> {
        let mut w = sort_width(kb, vb);
        let mut all = vec![w];
        while w > 1 {
            let next = narrower_sort_width(kb, vb, w);
            assert!(next < w, "{kb}-byte keys, {vb}-byte values: width {w} narrows to {next}");
            w = next;
            all.push(w);
        }
        all
    }
    fn check(name: &str, w: u32, kb: u32, vb: u32) {
        assert!(w.is_power_of_two(), "{name}: width {w}");
        let cluster = CLUSTER_KERNELS.iter().find(|c| c.0 == name).map_or(1, |c| c.1);
        assert_eq!(cluster, cluster_ctas(w), "{name}: cluster");
        let bound = crate::LAUNCH_BOUNDS.iter().find(|b| b.0 == name);
        assert_eq!(bound.map(|b| b.1), Some(BLOCK * block_tiles(w)), "{name}: launch bounds");
        assert!(tiles_smem_bytes(block_tiles(w), kb, vb) <= SMEM_OPTIN_SM90, "{name}: shared memory");
    }
    /// The wide block sorts (above width 1) of keys `T` alone.
    fn keys<T: MergepathKernels>() -> usize {
        let kb = size_of::<T>() as u32;
        let all = widths(kb, 0);
        for &w in &all {
            let kernel = block_sort_kernel::<T>(w);
            let kernel = kernel.unwrap_or_else(|| panic!("{}: no block sort of width {w}", T::NAME));
            check(kernel.name(), w, kb, 0);
        }
        all.len() - 1
    }
    /// The wide block sorts of keys `K` with value words `V`.
    fn pairs<K: MergepathKernels + MergepathKvKernels<V>, V>() -> usize {
        let (kb, vb) = (size_of::<K>() as u32, size_of::<V>() as u32);
        let all = widths(kb, vb);
        for &w in &all {
            let kernel = block_sort_kv_kernel::<K, V>(w);
            let kernel = kernel.unwrap_or_else(|| panic!("{} v{}: no block sort of width {w}", K::NAME, 8 * vb));
            check(kernel.name(), w, kb, vb);
        }
        all.len() - 1
    }
    let alone = keys::<u32>() + keys::<i32>() + keys::<f32>() + keys::<u64>() + keys::<i64>() + keys::<f64>();
    let v32 = pairs::<u32, u32>() + pairs::<i32, u32>() + pairs::<f32, u32>();
    let v32 = v32 + pairs::<u64, u32>() + pairs::<i64, u32>() + pairs::<f64, u32>();
    let v64 = pairs::<u32, u64>() + pairs::<i32, u64>() + pairs::<f32, u64>();
    let v64 = v64 + pairs::<u64, u64>() + pairs::<i64, u64>() + pairs::<f64, u64>();
    // 4-byte keys alone (widths 8, 4 and 2), 8-byte keys alone, every key + u32,
    // 8-byte keys + u64.
    assert_eq!((alone, v32, v64), (9 + 3, 6, 3), "the wide kernels the measurements chose");
    assert_eq!(sort_width(4, 8), 1, "a 4-byte-key tile with 8-byte values does not fit at width 4");
    assert_eq!(keys::<Entity>(), 0, "records keep the 256-thread block sort");
    assert!(block_sort_kv_kernel::<Entity, u32>(1).is_none(), "records have no key-value kernels");
}
