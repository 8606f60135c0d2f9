//! The block sorts: one block's tile (or a wide block's run of tiles), and the cluster
//! block sort whose two blocks merge their tiles through distributed shared memory.
use super::pass::group_search;
use super::tile::*;
use super::*;
use crate::block::smem::{lds, lds_cluster_at, sts};
use crate::block::tile::store_blocked;
use crate::block::unroll;
use crate::params::Direction;

/// Block sort: sorts each tile of `ITEMS * TB` elements (`TB` threads: [`BLOCK`], or a
/// multiple for the wide block sorts) of `src` into the same tile of `dst` (which may
/// be `src`: a block reads its whole tile before writing),
/// values (if any) from `vsrc` to `vdst` with their keys: the register sort swaps
/// values with their keys (adjacent swaps on strict `>`: stable), and every merge
/// round gathers them by the tile slots its outputs came from.
///
/// Every block but the last holds a whole tile; those run a copy of the kernel body
/// compiled with `FULL`, without a bound test per element (the load and store loops
/// are a fifth of the merge kernel's instructions otherwise).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn block_sort<T: Item, P: Values, const N: usize, const TB: u32>(
    src: *const T,
    vsrc: P,
    dst: *mut T,
    vdst: P,
    samples: *mut T,
    n: u64,
    direction: Direction,
) {
    let (start, count) = block_range(gpu::block_idx() as u64, TB * N as u32, n);
    unsafe {
        with_const_bool!(count == TB * N as u32, FULL => {
            block_sort_tile::<T, P, N, FULL, TB>(src, vsrc, dst, vdst, samples, start, count, direction)
        })
    }
}

/// [`block_sort`] of the tile of `count` elements at `start`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn block_sort_tile<T: Item, P: Values, const N: usize, const FULL: bool, const TB: u32>(
    src: *const T,
    vsrc: P,
    dst: *mut T,
    vdst: P,
    samples: *mut T,
    start: u64,
    count: u32,
    direction: Direction,
) {
    let m = T::masks(direction.is_descending());
    unsafe {
        let (v, vals) = sort_tile::<T, P, N, FULL, TB>(src, vsrc, start, count, direction);
        store_tile::<T, P, N, FULL, TB>(&v, &vals, dst, vdst, samples, start, count, m);
    }
}

/// Cluster block sort (keys alone): the two blocks of a cluster (`TB` threads each)
/// sort one run of two tiles of `TB * N` elements. Each block sorts its tile as
/// [`block_sort`] does; then a cluster round merges the two tiles held in the blocks'
/// shared memory ([`cluster_pair_round`]), and each block stores its tile of the run.
/// A second block past the data's end (the last cluster may be partial) takes part in
/// the cluster barriers alone. (Clusters of four, with a second round that gathered
/// from all four blocks, measured slower: see [`crate::mergepath::sort_width`].)
#[inline(always)]
pub(in crate::mergepath) unsafe fn cluster_block_sort<T: Item, const N: usize, const TB: u32>(p: BlockSort<T>) {
    gpu::grid_dependency_wait();
    let BlockSort { src, dst, samples, n, direction } = p;
    let (src, dst, samples) = (src.get(), dst.get(), samples.get());
    const CL: u32 = 2;
    let tile = TB * N as u32;
    let b = gpu::block_idx() as u64;
    let rank = (b % CL as u64) as u32;
    let base = (b - rank as u64) * tile as u64;
    // The cluster's elements (the host launches no cluster past the data) and this
    // block's tile among them.
    let cc = (n - base).min((CL * tile) as u64) as u32;
    let count = cc.saturating_sub(rank * tile).min(tile);
    let start = base + (rank * tile) as u64;
    let m = T::masks(direction.is_descending());
    unsafe {
        let mut v = [T::sentinel(); N];
        // Whole, partial or no tile, tested in this order (not `with_const_bool!` under
        // `count > 0`, which reorders the kernel's blocks: these are the measured ones).
        if count == tile {
            v = sort_tile::<T, NoValues, N, true, TB>(src, NoValues, start, count, direction).0;
        } else if count > 0 {
            v = sort_tile::<T, NoValues, N, false, TB>(src, NoValues, start, count, direction).0;
        }
        cluster_pair_round::<T, N, TB>(&mut v, rank, tile, cc, count, direction.is_descending());
        let nv = [0u32; N];
        if count == tile {
            store_tile::<T, NoValues, N, true, TB>(&v, &nv, dst, NoValues, samples, start, count, m);
        } else if count > 0 {
            store_tile::<T, NoValues, N, false, TB>(&v, &nv, dst, NoValues, samples, start, count, m);
        }
    }
}

/// The cluster round of [`cluster_block_sort`]: merges the two blocks' sorted tiles
/// (`A`, block 0's, and `B`, block 1's: `cc` elements in all) into one run, block
/// `rank` producing its own tile of it (`count` outputs, thread `t`'s `N` of them in
/// `v` on entry and on return). The blocks store their outputs; after a cluster barrier
/// warp 0 of each finds the co-rank `i` of the diagonal `tile` (how many of block 0's
/// outputs come from `A`) by a 32-way search over both blocks' shared memory. Then
/// only the `tile - i` elements each block needs from the other move
/// ([`crate::mergepath::pair_swap`]): block 0 receives the head of `B` after its `A[..i]`, block 1
/// the tail of `A` before its `B[tile - i..]`, read from the partner's shared memory
/// (coalesced) into registers; after a second barrier (both have read) they are
/// stored, and each block merges its two parts as a block-sort round does.
#[inline(always)]
pub(super) unsafe fn cluster_pair_round<T: Item, const N: usize, const TB: u32>(
    v: &mut [T::W; N],
    rank: u32,
    tile: u32,
    cc: u32,
    count: u32,
    desc: bool,
) {
    let t = gpu::thread_idx();
    let first = t * N as u32;
    let size = size_of::<T::W>() as u32;
    let base = gpu::smem_base();
    // A word after the tile and its sentinel slot: the co-rank.
    let meta = base + (tile + 2) * size;
    let remote = |slot: u32, block: u32| -> T::W { unsafe { lds_cluster_at(base + slot * size, block) } };
    // `B`'s length (0: the data ends in block 0, which then holds its whole run).
    let b_len = cc.saturating_sub(tile);
    unsafe {
        if count > 0 {
            gpu::sync_threads();
            store_blocked::<_, N, false>(0, first, count, 0, v);
        }
        gpu::cluster_sync();
        if count > 0 && b_len > 0 {
            if t < 32 {
                let (lo, hi) = co_rank_range(tile as u64, tile as u64, b_len as u64);
                let i = group_search::<32>(lo, hi, |x| {
                    let x = x as u32;
                    T::key(remote(x, 0), desc) <= T::key(remote(tile - 1 - x, 1), desc)
                }) as u32;
                if gpu::lane_id() == 0 {
                    gpu::sts_u32(meta, i);
                }
            }
            gpu::sync_threads();
            let i = gpu::lds_u32(meta);
            let (src, dst, a, m) = crate::mergepath::pair_swap(rank, i, tile);
            // Slots `k * TB + t` computed here, not hoisted to hold registers through
            // the sort (the kernel spilled 1 KB so).
            let t = gpu::opaque_u32(t);
            // What moves, `m` elements, into registers: in three groups, each skipped
            // as a whole past `m` (a block-wide test), so that a group's loads issue
            // back to back (under a bound test each, each load waited out its latency
            // alone); slots past `m` in a group read the last one again.
            const { assert!(N <= 3 * GROUP) };
            const GROUP: usize = 11;
            unroll::<3>(|g| {
                if ((g * GROUP) as u32) * TB < m {
                    unroll::<GROUP>(|j| {
                        let k = g * GROUP + j;
                        if k < N {
                            let e = (k as u32 * TB + t).min(m - 1);
                            v[k] = remote(src + e, 1 - rank);
                        }
                    });
                }
            });
            gpu::cluster_sync();
            let t = gpu::opaque_u32(t);
            unroll::<N>(|k| {
                let e = k as u32 * TB + t;
                if e < m {
                    sts(0, dst + e, v[k]);
                }
            });
            if t == 0 {
                sts(0, count, T::sentinel());
            }
            gpu::sync_threads();
            if first < count {
                let mut pos = [0u32; N];
                merge_from_tile::<T, N, false, false>(0, 0, a, count - a, first, desc, v, &mut pos);
            }
        } else {
            gpu::cluster_sync();
        }
    }
}

/// Sorts the tile of `count` elements at `start` of `src` (values from `vsrc`) in the
/// block: returns thread `t`'s outputs `t * N ..` of the sorted tile (and their values),
/// in registers; shared memory holds a copy of the last round's input.
#[inline(always)]
pub(super) unsafe fn sort_tile<T: Item, P: Values, const N: usize, const FULL: bool, const TB: u32>(
    src: *const T,
    vsrc: P,
    start: u64,
    count: u32,
    direction: Direction,
) -> ([T::W; N], [P::V; N]) {
    let desc = direction.is_descending();
    let m = T::masks(desc);
    let t = gpu::thread_idx();
    let tile = 0; // the key tile starts the dynamic shared memory
    let voff = crate::mergepath::kv_values_offset_in(TB, size_of::<T>() as u32);
    let count = if FULL { TB * N as u32 } else { count };
    unsafe {
        let (src, vsrc) = (src.add(start as usize), vsrc.add(start).ptr());
        unroll::<N>(|k| {
            let x = k as u32 * TB + t;
            if FULL || x < count {
                sts(tile, x, (*src.add(x as usize)).enc(m));
                if P::ON {
                    sts(voff, x, *vsrc.add(x as usize));
                }
            }
        });
        gpu::sync_threads();
        let first = t * N as u32;
        let valid = count.saturating_sub(first).min(N as u32) as usize;
        let mut v = [lds(tile, first.min(count - 1)); N];
        let mut vals: [P::V; N] = [core::mem::zeroed(); N];
        let by_slot = P::ON && TB > BLOCK && size_of::<T::W>() == 4;
        unroll::<N>(|k| {
            v[k] = lds(tile, (first + k as u32).min(count - 1));
            if P::ON && !by_slot {
                vals[k] = lds::<P::V>(voff, (first + k as u32).min(count - 1));
            }
        });
        if by_slot {
            // 4-byte keys with values, in the wide block sorts: sort the words (key <<
            // 32 | slot), which are distinct, so the network's order is the stable one
            // (equal keys by slot), then gather each value from the shared slot its
            // key came from (98 comparators for 19 instead of 171 compare-swaps that
            // also swap values). Slots past the data get the largest key, after every
            // valid one. Measured on an H100 (2026-11-25; docs/history.md, mergepath: "Pairs by slot, value merges at 4 blocks per SM"):
            // u32 + u32 pairs +0.3-0.9% from 2^22 up (the wide kernels), but -3.7% at
            // 2^20 in the 256-thread kernel, which keeps the transposition.
            let mut ks = [0u64; N];
            unroll::<N>(|k| {
                let key: u32 = if k < valid { core::mem::transmute_copy(&v[k]) } else { u32::MAX };
                ks[k] = ((key as u64) << 32) | k as u64;
            });
            network::sort_by_key(&mut ks, |w| w);
            unroll::<N>(|k| {
                v[k] = core::mem::transmute_copy(&((ks[k] >> 32) as u32));
                vals[k] = lds::<P::V>(voff, first + ks[k] as u32);
            });
        } else if P::ON {
            network::transposition_sort(&mut v, valid, |w| T::key(w, desc), |k| vals.swap(k, k + 1));
        } else if gpu::carry_by_value::<T::W>() {
            // Primitive keys alone: equal keys are equal words, so the network's
            // instability cannot be seen. Slots past the data get the largest word,
            // which sorts last (those slots are never stored).
            unroll::<N>(|k| {
                if k >= valid {
                    v[k] = T::sentinel();
                }
            });
            network::sort_by_key(&mut v, |w| T::key(w, desc));
        } else if valid == N {
            // Records, whole rows with a constant count: the transposition unrolls
            // without tests. (The value kernels keep one copy: they are at their
            // register bound.)
            network::transposition_sort(&mut v, N, |w| T::key(w, desc), |_| {});
        } else {
            network::transposition_sort(&mut v, valid, |w| T::key(w, desc), |_| {});
        }
        // Round r merges runs of N << r elements (runs of 2^r threads' outputs).
        let mut r = 0;
        while r < TB.trailing_zeros() && ((N as u32) << r) < count {
            // A whole tile's rounds within a warp wait for the warp alone (the first
            // round's stores still wait for the block: they overwrite slots other warps
            // read the tile's rows from).
            let warp_local = FULL && crate::mergepath::warp_local_round(r);
            if warp_local && r > 0 {
                gpu::sync_warp();
            } else {
                gpu::sync_threads();
            }
            let pair = store_round::<T, N, FULL>(tile, t, count, r, &v);
            if P::ON {
                store_blocked::<_, N, FULL>(voff, first, count, pair, &vals);
            }
            if warp_local {
                gpu::sync_warp();
            } else {
                gpu::sync_threads();
            }
            if FULL || first < count {
                let w: Window<u32> = merge_window(t, r, N as u32, count);
                let a0 = w.start + pair;
                let mut pos = [0u32; N];
                let (a, b, d) = (w.a_len, w.b_len, w.diag);
                with_const_bool!(P::ON, POS => with_const_bool!(crate::mergepath::dense_round(r), DENSE => {
                    merge_from_tile::<T, N, POS, DENSE>(tile, a0, a, b, d, desc, &mut v, &mut pos)
                }));
                if P::ON {
                    unroll::<N>(|k| vals[k] = lds::<P::V>(voff, a0 + pos[k]));
                }
            }
            r += 1;
        }
        (v, vals)
    }
}
