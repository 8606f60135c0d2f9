//! The searchsorted kernels (see the module docs).
use super::*;
use crate::block::WARP;
use crate::block::smem::{lds, sts};
use crate::block::unroll;
use crate::gpu;
use crate::search::{co_rank_probe, many_way_search};

/// Order bits of the key at `p[i]`.
#[inline(always)]
unsafe fn ord_at<K: Word>(p: *const K, i: u64, pos: K, neg: K) -> K {
    unsafe { (*p.add(i as usize)).ordered(pos, neg) }
}

/// The answer `v` of sorted query `i`: at `out[positions[i]]`, or `out[i]` without
/// positions (a null pointer; the same for the whole launch, so the branch is uniform).
#[inline(always)]
unsafe fn store(out: *mut u64, positions: *mut u32, i: u64, v: u64) {
    unsafe {
        let at = if positions.is_null() { i } else { *positions.add(i as usize) as u64 };
        *out.add(at as usize) = v;
    }
}

/// One warp per split: `splits[t] = split(diagonal(t), ..)` by a 32-way search.
#[inline(always)]
pub unsafe fn partition<K: Word + Ord>(p: Partition<K>) {
    let Partition { sorted, n, queries, m, pos, neg, right, splits, count } = p;
    let (sorted, queries, splits) = (sorted.get(), queries.get(), splits.get());
    let right = right != 0;
    let t = gpu::global_idx() / WARP as u64;
    if t >= count {
        return; // warp-uniform
    }
    let lane = gpu::lane_id();
    let d = diagonal(t, n, m);
    let (lo, hi) = split_range(d, n, m);
    let s = many_way_search(lo, hi, WARP, |lo, hi| {
        let at = co_rank_probe(lo, hi, lane, WARP);
        let pred = unsafe { precedes(ord_at(sorted, at, pos, neg), ord_at(queries, d - 1 - at, pos, neg), right) };
        gpu::ballot(pred).count_ones()
    });
    if lane == 0 {
        unsafe { *splits.add(t as usize) = s };
    }
}

/// Order bits of `src[first + x]` for this thread's block-striped places
/// `x = j * MERGE_BLOCK + tid` below `count` (others zero), all loads in flight
/// together.
#[inline(always)]
unsafe fn load_places<K: Word>(src: *const K, first: u64, count: u32, pos: K, neg: K) -> [K; MERGE_ITEMS as usize] {
    let tid = gpu::thread_idx();
    let mut v = [K::ZERO; MERGE_ITEMS as usize];
    unroll::<{ MERGE_ITEMS as usize }>(|j| {
        let x = j as u32 * MERGE_BLOCK + tid;
        if x < count {
            v[j] = unsafe { ord_at(src, first + x as u64, pos, neg) };
        }
    });
    v
}

/// Stores [`load_places`]'s elements below `count` at shared-memory slots `at + x`.
#[inline(always)]
unsafe fn store_places<K: Word>(v: &[K; MERGE_ITEMS as usize], at: u32, count: u32) {
    let tid = gpu::thread_idx();
    unroll::<{ MERGE_ITEMS as usize }>(|j| {
        let x = j as u32 * MERGE_BLOCK + tid;
        if x < count {
            unsafe { sts(0, at + x, v[j]) };
        }
    });
}

/// Block `t`'s merge tile ([`tile_ranges`]: `(k0, kn, q0, qn)`) with its keys in shared
/// memory from slot 0 (every key load before any store; the barrier is the caller's).
#[inline(always)]
unsafe fn tile_keys<K: Word>(p: &Merge<K>) -> (u64, u32, u64, u32) {
    let (splits, t) = (p.splits.get(), gpu::block_idx() as u64);
    unsafe {
        let (s0, s1) = (*splits.add(t as usize), *splits.add(t as usize + 1));
        let (k0, kn, q0, qn) = tile_ranges(t, p.n, p.m, s0, s1);
        store_places(&load_places(p.sorted.get(), k0, kn, p.pos, p.neg), 0, kn);
        (k0, kn, q0, qn)
    }
}

/// One merge tile per block: its keys into shared memory, then each query's binary
/// search among them.
#[inline(always)]
pub unsafe fn merge<K: Word + Ord>(p: Merge<K>) {
    let (queries, out, positions) = (p.queries.get(), p.out.get(), p.positions.get());
    let right = p.right != 0;
    let tid = gpu::thread_idx();
    unsafe {
        let (k0, kn, q0, qn) = tile_keys(&p);
        gpu::sync_threads();
        // The queries after the barrier (not held in registers with the keys).
        let qs = load_places(queries, q0, qn, p.pos, p.neg);
        unroll::<{ MERGE_ITEMS as usize }>(|j| {
            let x = j as u32 * MERGE_BLOCK + tid;
            if x < qn {
                let r = crate::search::count_before(kn, qs[j], right, |i| lds::<K>(0, i));
                store(out, positions, q0 + x as u64, k0 + r as u64);
            }
        });
    }
}

/// One merge tile per block, as [`merge`], but each thread answers consecutive queries
/// ([`thread_queries`]) from shared memory: a binary search for the first, a galloping
/// search from the answer before for each next one ([`gallop_count`]).
#[inline(always)]
pub unsafe fn gallop<K: Word + Ord>(p: Merge<K>) {
    let (queries, out, positions) = (p.queries.get(), p.out.get(), p.positions.get());
    let right = p.right != 0;
    let tid = gpu::thread_idx();
    unsafe {
        let (k0, kn, q0, qn) = tile_keys(&p);
        // The queries after the keys (coalesced loads), as many as fit.
        let fit = core::cmp::min(qn, TILE - kn);
        store_places(&load_places(queries, q0, fit, p.pos, p.neg), kn, fit);
        gpu::sync_threads();
        let (first, end) = thread_queries(tid, kn, qn);
        let mut r = 0u32;
        let mut x = first;
        while x < end {
            let q = lds::<K>(0, kn + x);
            r = if x == first {
                crate::search::count_before(kn, q, right, |i| lds::<K>(0, i))
            } else {
                gallop_count(r, kn, q, right, |i| lds::<K>(0, i))
            };
            store(out, positions, q0 + x as u64, k0 + r as u64);
            x += 1;
        }
    }
}

/// Unsorted queries: the samples into shared memory, then per query a search among
/// them and one in the key range they leave, [`SEARCH_ITEMS`] queries in lockstep.
#[inline(always)]
pub unsafe fn search<K: Word + Ord>(p: Search<K>) {
    let Search { sorted, n, queries, m, pos, neg, right, out } = p;
    let (sorted, queries, out) = (sorted.get(), queries.get(), out.get());
    let right = right != 0;
    let tid = gpu::thread_idx();
    const I: usize = SEARCH_ITEMS;
    let (st, sc) = (stride(n), samples(n));
    unsafe {
        let mut s = tid;
        while s < sc {
            sts(0, s, ord_at(sorted, s as u64 * st, pos, neg));
            s += SEARCH_BLOCK;
        }
        gpu::sync_threads();
        let chunk = (SEARCH_BLOCK as usize * I) as u64;
        let mut first = gpu::block_idx() as u64 * chunk;
        while first < m {
            let mut qs = [K::ZERO; I];
            let mut live = [false; I];
            unroll::<I>(|j| {
                let x = first + (j as u32 * SEARCH_BLOCK + tid) as u64;
                if x < m {
                    qs[j] = ord_at(queries, x, pos, neg);
                    live[j] = true;
                }
            });
            let top_len = live.map(|l| if l { sc as u64 } else { 0 });
            let c = lockstep_count([0; I], top_len, &qs, right, |i| lds::<K>(0, i as u32));
            let mut lo = [0u64; I];
            let mut len = [0u64; I];
            unroll::<I>(|j| {
                if live[j] {
                    let (a, b) = after_samples(c[j] as u32, n);
                    lo[j] = a;
                    len[j] = b - a;
                }
            });
            let r = lockstep_count(lo, len, &qs, right, |i| ord_at(sorted, i, pos, neg));
            unroll::<I>(|j| {
                if live[j] {
                    let x = first + (j as u32 * SEARCH_BLOCK + tid) as u64;
                    *out.add(x as usize) = r[j];
                }
            });
            first += gpu::grid_dim() as u64 * chunk;
        }
    }
}
