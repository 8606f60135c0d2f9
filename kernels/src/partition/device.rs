//! The partition kernels' bodies (see the module doc of `partition`), each taking its
//! entry's parameter struct.
use super::{BLOCK, Count, ITEMS, MAX_PARTS, Scatter, ScatterKv, Starts, TILE, not_below};
use crate::block::WARP;
use crate::block::tile::warp_striped;
use crate::block::unroll;
use crate::gpu;
use crate::key::SortKey;
use crate::params::Direction;

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
    unroll::<N>(|k| {
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
    unroll::<N>(|k| {
        let at = position(tile, k as u32);
        if at < n {
            let bits: u64 = ks[k].ord_bits(desc).into();
            let mut p = 0;
            let mut s = 0;
            while s + 1 < parts {
                let (b, t) = unsafe { (gpu::lds_u64(smem + CUTS + 16 * s), gpu::lds_u64(smem + CUTS + 16 * s + 8)) };
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
/// instructions per key, not by memory; 2026-11-23, docs/history.md, "Several GPUs".)
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
pub(super) unsafe fn count<K: SortKey>(p: Count<K>) {
    let Count { keys, n, tiles, cuts, parts, direction, counts } = p;
    let (keys, cuts, counts) = (keys.get(), cuts.get(), counts.get());
    let (tid, smem) = (gpu::thread_idx(), gpu::smem_base());
    let (warp, lane) = (tid / WARP, gpu::lane_id());
    unsafe {
        setup(cuts, parts);
        for_each_tile(keys, n, tiles, |tile, ks| {
            let ps = parts_of(ks, tile, n, parts, direction.is_descending());
            // Lane b counts the warp's keys of part b: one ballot per part and item.
            let mut mine = 0u32;
            unroll::<N>(|k| {
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
unsafe fn scatter<K: SortKey, V: Copy, const VALUES: bool>(
    keys: *const K,
    values: *const V,
    n: u64,
    tiles: u64,
    cuts: *const u64,
    parts: u32,
    direction: Direction,
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
            let ps = parts_of(ks, tile, n, parts, direction.is_descending());
            // Rank of each item among its warp's items of the same part: lane b
            // keeps the warp's running count of part b, and every lane learns the
            // count of its own part by a shuffle from that lane.
            let mut run = 0u32;
            let mut ranked = [0u32; N];
            unroll::<N>(|k| {
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
            unroll::<N>(|k| {
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

/// `partition_scatter_<t>`: keys alone.
#[inline(always)]
pub(super) unsafe fn scatter_keys<K: SortKey>(p: Scatter<K>) {
    let Scatter { keys, n, tiles, cuts, parts, direction, offsets, out_keys } = p;
    let (keys, cuts, offsets, out_keys) = (keys.get(), cuts.get(), offsets.get(), out_keys.get());
    unsafe {
        scatter::<K, u32, false>(
            keys,
            core::ptr::null(),
            n,
            tiles,
            cuts,
            parts,
            direction,
            offsets,
            out_keys,
            core::ptr::null_mut(),
        )
    }
}

/// `partition_scatter_<t>_v<bits>`: keys and their values.
#[inline(always)]
pub(super) unsafe fn scatter_kv<K: SortKey, V: Copy>(p: ScatterKv<K, V>) {
    let ScatterKv { keys, values, n, tiles, cuts, parts, direction, offsets, out_keys, out_values } = p;
    let (keys, values, cuts, offsets) = (keys.get(), values.get(), cuts.get(), offsets.get());
    let (out_keys, out_values) = (out_keys.get(), out_values.get());
    unsafe { scatter::<K, V, true>(keys, values, n, tiles, cuts, parts, direction, offsets, out_keys, out_values) }
}

/// `partition_starts`: `out[b]` = `offsets[b * tiles]` for `b <= parts`, one thread
/// each (where each part starts, and the total).
#[inline(always)]
pub(super) unsafe fn starts(p: Starts) {
    let Starts { offsets, tiles, parts, out } = p;
    let (offsets, out) = (offsets.get(), out.get());
    let b = gpu::thread_idx();
    if b <= parts {
        unsafe { *out.add(b as usize) = *offsets.add((b as u64 * tiles) as usize) };
    }
}
