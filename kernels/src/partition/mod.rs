//! Stable partition of one GPU's keys (and values) by the splitters of the multi-GPU
//! sample sort (`host::multi_gpu`, partition-first pipeline): element `i` of the part
//! goes to part [`part_of`] of its order bits and position, and the parts are written
//! one after another, each in input order (so the sorts that follow stay stable).
//!
//! Two launches over the same tiles of [`TILE`] keys, with a device-wide scan of the
//! counts between them:
//! * `partition_count_<t>`: `counts[b * tiles + tile]` = keys of the tile in part `b`;
//! * the exclusive scan of the `p * tiles` counts gives every (part, tile) its output
//!   offset, parts first: exactly a stable partition's layout;
//! * `partition_starts`: the `p + 1` offsets where the parts start (and the total),
//!   copied together for the host, which sizes the exchange by them;
//! * `partition_scatter_<t>[_v32|_v64]`: each tile ranks its keys by part, warp by
//!   warp with ballots (lanes of one part write consecutive addresses, so the stores
//!   of a warp are a few contiguous runs), and writes keys and values.
//!
//! The splitters arrive as `(bits, threshold)` pairs already specialised to the GPU
//! (see [`part_of`]), so a tie with a splitter is one comparison of positions.

/// Most parts (GPUs) a partition serves; more GPUs use the sort-first pipeline.
pub const MAX_PARTS: u32 = 8;
/// Threads per block.
pub const BLOCK: u32 = 256;
/// Keys per thread.
pub const ITEMS: u32 = 8;
/// Keys per tile (a block works through several, [`blocks_per_sm`]).
pub const TILE: u32 = BLOCK * ITEMS;
/// Shared memory of both kernels: the splitters (`2 * (MAX_PARTS - 1)` words of 8
/// bytes), then per warp and part a `u32` counter and a `u64` output base.
pub const SMEM_BYTES: u32 = 8 * 2 * MAX_PARTS + (BLOCK / 32) * MAX_PARTS * (4 + 8);

/// Launch bounds (see [`crate::LAUNCH_BOUNDS`]): [`blocks_per_sm`] blocks per SM, so
/// that while one block waits at a barrier the others' loads and stores keep memory
/// busy.
pub const LAUNCH_BOUNDS: &[(&str, u32, u32)] = &{
    const NAMES: [&str; 24] = [
        "partition_count_u32",
        "partition_count_i32",
        "partition_count_f32",
        "partition_count_u64",
        "partition_count_i64",
        "partition_count_f64",
        "partition_scatter_u32",
        "partition_scatter_i32",
        "partition_scatter_f32",
        "partition_scatter_u64",
        "partition_scatter_i64",
        "partition_scatter_f64",
        "partition_scatter_u32_v32",
        "partition_scatter_i32_v32",
        "partition_scatter_f32_v32",
        "partition_scatter_u64_v32",
        "partition_scatter_i64_v32",
        "partition_scatter_f64_v32",
        "partition_scatter_u32_v64",
        "partition_scatter_i32_v64",
        "partition_scatter_f32_v64",
        "partition_scatter_u64_v64",
        "partition_scatter_i64_v64",
        "partition_scatter_f64_v64",
    ];
    let mut out = [("", 0, 0); 24];
    let mut i = 0;
    while i < 24 {
        // Names 6..24 are the scatters, in groups of six key types whose last three
        // have 8-byte keys.
        let wide_scatter = i >= 6 && (i % 6) >= 3;
        out[i] = (NAMES[i], BLOCK, blocks_per_sm(i >= 6, if wide_scatter { 8 } else { 4 }));
        i += 1;
    }
    out
};

/// Blocks per SM that a kernel is launched with (each block works through many tiles):
/// four, but three for the scatter of 8-byte keys, which spills at four's 64 registers.
pub const fn blocks_per_sm(scatter: bool, key_bytes: u32) -> u32 {
    if scatter && key_bytes > 4 { 3 } else { 4 }
}

/// Tiles of a partition of `n` keys.
pub const fn tiles(n: u64) -> u64 {
    n.div_ceil(TILE as u64)
}

/// The part of the element with order bits `bits` at position `pos` of GPU `rank`'s
/// input, given the splitters `(bits, rank, pos)` (in increasing order) as
/// `(bits, threshold)` pairs for this rank ([`threshold`]): the number of splitters the
/// element is not below, in the `(bits, rank, position)` order.
pub fn part_of(bits: u64, pos: u64, cuts: &[(u64, u64)]) -> u32 {
    cuts.iter().map(|&(b, t)| not_below(bits, pos, b, t) as u32).sum()
}

/// Whether the element with order bits `bits` at position `pos` is not below the
/// splitter `(b, t)` of [`part_of`].
#[inline(always)]
pub const fn not_below(bits: u64, pos: u64, b: u64, t: u64) -> bool {
    bits > b || (bits == b && pos >= t)
}

/// The position from which an element of GPU `rank` with the splitter's bits is not
/// below splitter `(rank_s, pos_s)`: every position for a higher rank, none for a lower.
pub const fn threshold(rank: usize, rank_s: usize, pos_s: u64) -> u64 {
    if rank < rank_s {
        u64::MAX
    } else if rank > rank_s {
        0
    } else {
        pos_s
    }
}

#[cfg(target_arch = "nvptx64")]
mod device {
    use super::{BLOCK, ITEMS, MAX_PARTS, TILE, not_below};
    use crate::block::{WARP, warp_striped};
    use crate::gpu;
    use crate::key::SortKey;

    const WARPS: u32 = BLOCK / WARP;
    const CUTS: u32 = 0;
    const COUNTERS: u32 = 8 * 2 * MAX_PARTS;
    const BASES: u32 = COUNTERS + 4 * WARPS * MAX_PARTS;
    const N: usize = ITEMS as usize;

    /// Loads the splitters into shared memory; ends with a barrier.
    #[inline(always)]
    unsafe fn setup(cuts: *const u64, parts: u32) {
        let (tid, smem) = (gpu::thread_idx(), gpu::smem_base());
        unsafe {
            if tid < 2 * (parts - 1) {
                gpu::sts_u64(smem + CUTS + 8 * tid, *cuts.add(tid as usize));
            }
            gpu::sync_threads();
        }
    }

    /// Position in the input of item `k` of this thread in tile `tile` (warp-striped).
    #[inline(always)]
    fn position(tile: u64, k: u32) -> u64 {
        let (warp, lane) = (gpu::thread_idx() / WARP, gpu::lane_id());
        tile * TILE as u64 + warp_striped(warp, k, lane, ITEMS) as u64
    }

    /// This thread's keys of tile `tile` (any valid key stands in past the end; n > 0
    /// when launched).
    #[inline(always)]
    unsafe fn load<K: SortKey>(keys: *const K, n: u64, tile: u64) -> [K; N] {
        let mut ks = [unsafe { *keys }; N];
        gpu::unroll::<N>(|k| {
            let at = position(tile, k as u32);
            if at < n {
                ks[k] = unsafe { *keys.add(at as usize) };
            }
        });
        ks
    }

    /// The parts of this thread's keys of tile `tile` (`parts`, one past the last, for
    /// items past the end).
    #[inline(always)]
    unsafe fn parts_of<K: SortKey>(ks: &[K; N], tile: u64, n: u64, parts: u32, desc: bool) -> [u32; N] {
        let smem = gpu::smem_base();
        let mut ps = [parts; N];
        gpu::unroll::<N>(|k| {
            let at = position(tile, k as u32);
            if at < n {
                let bits: u64 = ks[k].ord_bits(desc).into();
                let mut p = 0;
                let mut s = 0;
                while s + 1 < parts {
                    let (b, t) =
                        unsafe { (gpu::lds_u64(smem + CUTS + 16 * s), gpu::lds_u64(smem + CUTS + 16 * s + 8)) };
                    p += not_below(bits, at, b, t) as u32;
                    s += 1;
                }
                ps[k] = p;
            }
        });
        ps
    }

    /// Runs `body(tile, keys)` for tiles `blockIdx.x, + gridDim.x, ...` below `tiles`,
    /// with the next tile's keys loaded before the current one is processed, so that a
    /// block's next loads are in flight while it waits at a tile's barriers. (Measured
    /// no faster than one tile per block on an H200: both kernels are bound by their
    /// instructions per key, not by memory; `docs/PERFLOG.md`, sixth session.)
    #[inline(always)]
    unsafe fn for_each_tile<K: SortKey>(keys: *const K, n: u64, tiles: u64, mut body: impl FnMut(u64, &[K; N])) {
        let step = gpu::grid_dim() as u64;
        let mut tile = gpu::block_idx() as u64;
        if tile >= tiles {
            return;
        }
        let mut next = unsafe { load(keys, n, tile) };
        loop {
            let ks = next;
            let following = tile + step;
            if following < tiles {
                next = unsafe { load(keys, n, following) };
            }
            body(tile, &ks);
            if following >= tiles {
                break;
            }
            tile = following;
        }
    }

    /// `partition_count_<t>`.
    #[inline(always)]
    pub unsafe fn count<K: SortKey>(
        keys: *const K,
        n: u64,
        tiles: u64,
        cuts: *const u64,
        parts: u32,
        desc: u32,
        counts: *mut u64,
    ) {
        let (tid, smem) = (gpu::thread_idx(), gpu::smem_base());
        let (warp, lane) = (tid / WARP, gpu::lane_id());
        unsafe {
            setup(cuts, parts);
            for_each_tile(keys, n, tiles, |tile, ks| {
                let ps = parts_of(ks, tile, n, parts, desc != 0);
                // Lane b counts the warp's keys of part b: one ballot per part and item.
                let mut mine = 0u32;
                gpu::unroll::<N>(|k| {
                    let mut b = 0;
                    while b < parts {
                        let c = gpu::ballot(ps[k] == b).count_ones();
                        mine += if lane == b { c } else { 0 };
                        b += 1;
                    }
                });
                if lane < parts {
                    gpu::sts_u32(smem + COUNTERS + 4 * (warp * MAX_PARTS + lane), mine);
                }
                gpu::sync_threads();
                if tid < parts {
                    let mut total = 0u64;
                    for w in 0..WARPS {
                        total += gpu::lds_u32(smem + COUNTERS + 4 * (w * MAX_PARTS + tid)) as u64;
                    }
                    *counts.add((tid as u64 * tiles + tile) as usize) = total;
                }
                gpu::sync_threads();
            });
        }
    }

    /// `partition_scatter_<t>[_v<bits>]`: `offsets` are the scanned counts.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn scatter<K: SortKey, V: Copy, const VALUES: bool>(
        keys: *const K,
        values: *const V,
        n: u64,
        tiles: u64,
        cuts: *const u64,
        parts: u32,
        desc: u32,
        offsets: *const u64,
        out_keys: *mut K,
        out_values: *mut V,
    ) {
        let (tid, smem) = (gpu::thread_idx(), gpu::smem_base());
        let (warp, lane) = (tid / WARP, gpu::lane_id());
        let below = gpu::lanemask_lt();
        unsafe {
            setup(cuts, parts);
            for_each_tile(keys, n, tiles, |tile, ks| {
                // Thread b's offset of part b for this tile, loaded before anything
                // waits on it.
                let first = if tid < parts { *offsets.add((tid as u64 * tiles + tile) as usize) } else { 0 };
                let ps = parts_of(ks, tile, n, parts, desc != 0);
                // Rank of each item among its warp's items of the same part: lane b
                // keeps the warp's running count of part b, and every lane learns the
                // count of its own part by a shuffle from that lane.
                let mut run = 0u32;
                let mut ranked = [0u32; N];
                gpu::unroll::<N>(|k| {
                    let p = ps[k];
                    let before = gpu::shfl_idx_u32(run, p & 31);
                    let mut b = 0;
                    while b < parts {
                        let m = gpu::ballot(p == b);
                        if p == b {
                            ranked[k] = before + (m & below).count_ones();
                        }
                        run += if lane == b { m.count_ones() } else { 0 };
                        b += 1;
                    }
                });
                if lane < parts {
                    gpu::sts_u32(smem + COUNTERS + 4 * (warp * MAX_PARTS + lane), run);
                }
                gpu::sync_threads();
                // Thread b: where each warp's items of part b start in the output.
                if tid < parts {
                    let mut at = first;
                    for w in 0..WARPS {
                        let c = gpu::lds_u32(smem + COUNTERS + 4 * (w * MAX_PARTS + tid));
                        gpu::sts_u64(smem + BASES + 8 * (w * MAX_PARTS + tid), at);
                        at += c as u64;
                    }
                }
                gpu::sync_threads();
                gpu::unroll::<N>(|k| {
                    let p = ps[k];
                    if p < parts {
                        let dest = gpu::lds_u64(smem + BASES + 8 * (warp * MAX_PARTS + p)) + ranked[k] as u64;
                        *out_keys.add(dest as usize) = ks[k];
                        if VALUES {
                            *out_values.add(dest as usize) = *values.add(position(tile, k as u32) as usize);
                        }
                    }
                });
                // The counters and bases are reused by the next tile.
                gpu::sync_threads();
            });
        }
    }

    macro_rules! partition_entries {
        ($t:ty, $suffix:ident) => {
            paste::paste! {
                #[unsafe(no_mangle)]
                pub unsafe extern "ptx-kernel" fn [<partition_count_ $suffix>](
                    keys: *const $t, n: u64, tiles: u64, cuts: *const u64, parts: u32, desc: u32, counts: *mut u64,
                ) {
                    unsafe { count::<$t>(keys, n, tiles, cuts, parts, desc, counts) }
                }

                #[unsafe(no_mangle)]
                pub unsafe extern "ptx-kernel" fn [<partition_scatter_ $suffix>](
                    keys: *const $t, n: u64, tiles: u64, cuts: *const u64, parts: u32, desc: u32,
                    offsets: *const u64, out_keys: *mut $t,
                ) {
                    unsafe {
                        scatter::<$t, u32, false>(
                            keys, core::ptr::null(), n, tiles, cuts, parts, desc, offsets, out_keys,
                            core::ptr::null_mut(),
                        )
                    }
                }

                #[unsafe(no_mangle)]
                pub unsafe extern "ptx-kernel" fn [<partition_scatter_ $suffix _v32>](
                    keys: *const $t, values: *const u32, n: u64, tiles: u64, cuts: *const u64, parts: u32,
                    desc: u32, offsets: *const u64, out_keys: *mut $t, out_values: *mut u32,
                ) {
                    unsafe {
                        scatter::<$t, u32, true>(keys, values, n, tiles, cuts, parts, desc, offsets, out_keys, out_values)
                    }
                }

                #[unsafe(no_mangle)]
                pub unsafe extern "ptx-kernel" fn [<partition_scatter_ $suffix _v64>](
                    keys: *const $t, values: *const u64, n: u64, tiles: u64, cuts: *const u64, parts: u32,
                    desc: u32, offsets: *const u64, out_keys: *mut $t, out_values: *mut u64,
                ) {
                    unsafe {
                        scatter::<$t, u64, true>(keys, values, n, tiles, cuts, parts, desc, offsets, out_keys, out_values)
                    }
                }
            }
        };
    }
    /// `partition_starts`: `out[b]` = `offsets[b * tiles]` for `b <= parts`, one thread
    /// each (where each part starts, and the total).
    #[unsafe(no_mangle)]
    pub unsafe extern "ptx-kernel" fn partition_starts(offsets: *const u64, tiles: u64, parts: u32, out: *mut u64) {
        let b = gpu::thread_idx();
        if b <= parts {
            unsafe { *out.add(b as usize) = *offsets.add((b as u64 * tiles) as usize) };
        }
    }

    partition_entries!(u32, u32);
    partition_entries!(i32, i32);
    partition_entries!(f32, f32);
    partition_entries!(u64, u64);
    partition_entries!(i64, i64);
    partition_entries!(f64, f64);
}

#[cfg(test)]
mod tests {
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
    }

    #[test]
    fn shared_memory_fits_and_tiles_round_up() {
        const { assert!(SMEM_BYTES <= 48 * 1024) };
        assert_eq!(tiles(0), 0);
        assert_eq!(tiles(1), 1);
        assert_eq!(tiles(TILE as u64), 1);
        assert_eq!(tiles(TILE as u64 + 1), 2);
    }
}
