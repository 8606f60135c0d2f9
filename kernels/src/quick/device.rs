//! The quicksort kernels: pivots, counts, scatter, and the finishing sort (see the
//! module docs for the level).
use core::mem::MaybeUninit;

use super::*;
use crate::block::WARP;
use crate::block::rank::lane_rank;
use crate::block::scan::block_exclusive_sum_u64;
use crate::block::tile::warp_striped;
use crate::gpu;
use crate::key::SortKey;

#[inline(always)]
unsafe fn seg_table(segs: *const u64, nseg: u64) -> SegTable<impl Fn(u64) -> u64 + Copy> {
    SegTable { nseg, at: move |i: u64| unsafe { *segs.add(i as usize) } }
}

/// Block `s` picks the pivot of segment `s`; `blockDim.x == SAMPLES`, shared
/// memory `SAMPLES` elements.
pub unsafe fn pivots<T: SortKey>(p: Pivots<T>) {
    let Pivots { src, segs, nseg, pivots, direction, salt } = p;
    let (src, segs, pivots) = (src.get(), segs.get(), pivots.get());
    let desc = direction.is_descending();
    let s = gpu::block_idx() as u64;
    let i = gpu::thread_idx();
    let table = unsafe { seg_table(segs, nseg) };
    let start = table.start(s);
    let smem = gpu::dyn_smem::<T>();
    unsafe {
        let x = *src.add(sample_position(start, table.len(s), i, mix64(salt ^ start)) as usize);
        *smem.add(i as usize) = x;
        gpu::sync_threads();
        if sample_rank(i, x.ord_bits(desc), |j| (*smem.add(j as usize)).ord_bits(desc)) == SAMPLES / 2 {
            *pivots.add(s as usize) = x;
        }
    }
}

/// Thread 0 finds the block's segment and shares it (slot 0 of shared memory).
#[inline(always)]
unsafe fn block_segment<F: Fn(u64) -> u64>(table: &SegTable<F>, smem: *mut u64) -> u64 {
    unsafe {
        if gpu::thread_idx() == 0 {
            *smem = table.segment_of_block(gpu::block_idx() as u64);
        }
        gpu::sync_threads();
        *smem
    }
}

/// Pass 2: per-block counts of elements before and after the pivot. Shared memory:
/// 34 `u64`s.
pub unsafe fn count<T: SortKey, const I: usize>(params: Count<T>) {
    let Count { src, segs, nseg, pivots, counts, nblocks, direction } = params;
    let (src, segs, pivots, counts) = (src.get(), segs.get(), pivots.get(), counts.get());
    let desc = direction.is_descending();
    let b = gpu::block_idx() as u64;
    let table = unsafe { seg_table(segs, nseg) };
    let smem = gpu::dyn_smem::<u64>();
    let s = unsafe { block_segment(&table, smem) };
    let tile = gpu::block_dim() as u64 * I as u64;
    let off = (b - table.first_block(s)) * tile;
    let base = table.start(s) + off;
    let tile_len = core::cmp::min(tile, table.len(s) - off);
    let p = unsafe { (*pivots.add(s as usize)).ord_bits(desc) };
    let (warp, lane) = (gpu::thread_idx() / WARP, gpu::lane_id());
    let (mut lt, mut gt) = (0u64, 0u64);
    for k in 0..I as u32 {
        let o = warp_striped(warp, k, lane, I as u32) as u64;
        if o < tile_len {
            let key = unsafe { (*src.add((base + o) as usize)).ord_bits(desc) };
            lt += (key < p) as u64;
            gt += (key > p) as u64;
        }
    }
    // Block sums of both counters in one scan (a block counts < 2^32 of each).
    let (_, total) = unsafe { block_exclusive_sum_u64(lt | gt << 32, smem.add(1)) };
    if gpu::thread_idx() == 0 {
        unsafe {
            *counts.add(b as usize) = total & 0xffff_ffff;
            *counts.add((nblocks + b) as usize) = total >> 32;
        }
    }
}

/// Pass 4: moves every element of the block's tile to its part of the segment in
/// `dst`; the first block of each segment also stores the segment's three counts in
/// `seg_counts[3s..3s+3]`. Shared memory: 34 `u64`s.
///
/// Inlined by force: taking its parameters as one struct, it is inlined later than it
/// was with them as separate arguments, and LLVM then arranges the block plan's
/// arithmetic differently (other instructions, same work). The count kernel, in
/// contrast, keeps its code only when left to LLVM's inliner.
#[inline(always)]
pub unsafe fn scatter<T: SortKey, const I: usize>(params: Scatter<T>) {
    let Scatter { src, dst, segs, nseg, pivots, scanned, nblocks, seg_counts, direction } = params;
    let (src, dst, segs, pivots) = (src.get(), dst.get(), segs.get(), pivots.get());
    let (scanned, seg_counts) = (scanned.get(), seg_counts.get());
    let desc = direction.is_descending();
    let b = gpu::block_idx() as u64;
    let table = unsafe { seg_table(segs, nseg) };
    let smem = gpu::dyn_smem::<u64>();
    let s = unsafe { block_segment(&table, smem) };
    let tile = gpu::block_dim() as u64 * I as u64;
    let e = |i: u64| unsafe { *scanned.add(i as usize) };
    let plan = block_plan(b, nblocks, s, &table, tile, e);
    if b == table.first_block(s) && gpu::thread_idx() == 0 {
        let totals = segment_totals(nblocks, s, &table, &e);
        for (j, t) in totals.iter().enumerate() {
            unsafe { *seg_counts.add(3 * s as usize + j) = *t };
        }
    }
    let p = unsafe { (*pivots.add(s as usize)).ord_bits(desc) };
    let (warp, lane) = (gpu::thread_idx() / WARP, gpu::lane_id());

    // Ballots of one step of 32 consecutive elements: (less, greater, valid).
    // Computed twice (to count, then to place) rather than kept in per-item
    // arrays, which LLVM would put in local memory; the second read of the tile
    // hits the cache.
    let step = |k: u32| {
        let o = warp_striped(warp, k, lane, I as u32) as u64;
        let valid = o < plan.tile_len;
        let (mut lt, mut gt, mut x) = (false, false, MaybeUninit::<T>::uninit());
        if valid {
            let v = unsafe { *src.add((plan.tile_start + o) as usize) };
            let key = v.ord_bits(desc);
            lt = key < p;
            gt = key > p;
            x = MaybeUninit::new(v);
        }
        let (lt, gt, valid) = (gpu::ballot(lt), gpu::ballot(gt), gpu::ballot(valid));
        (lt, valid & !(lt | gt), gt, x)
    };
    let mut warp_counts = 0u64;
    for k in 0..I as u32 {
        let (lt, eq, gt, _) = step(k);
        warp_counts += pack3(lt.count_ones() as u64, eq.count_ones() as u64, gt.count_ones() as u64);
    }
    // Lane 0 stands for its warp: its exclusive sum is what earlier warps write.
    let mine = if lane == 0 { warp_counts } else { 0 };
    let (excl, _) = unsafe { block_exclusive_sum_u64(mine, smem.add(1)) };
    let [mut lt_at, mut eq_at, mut gt_at] = unpack3(gpu::shfl_idx_u64(excl, 0));
    lt_at += plan.less;
    eq_at += plan.equal;
    gt_at += plan.greater;
    for k in 0..I as u32 {
        let (lt, eq, gt, x) = step(k);
        let bit = 1u32 << lane;
        let to = if lt & bit != 0 {
            Some(lt_at + lane_rank(lt, lane) as u64)
        } else if gt & bit != 0 {
            Some(gt_at + lane_rank(gt, lane) as u64)
        } else if eq & bit != 0 {
            Some(eq_at + lane_rank(eq, lane) as u64)
        } else {
            None
        };
        if let Some(to) = to {
            unsafe { *dst.add(to as usize) = x.assume_init() };
        }
        lt_at += lt.count_ones() as u64;
        gt_at += gt.count_ones() as u64;
        eq_at += eq.count_ones() as u64;
    }
}

/// Block `b` finishes entry `b` of the list: sorts its part in shared memory
/// (`small_max` elements) with the bitonic network and writes it to `buf`, or copies
/// an ordered part from `scratch` to `buf`.
pub unsafe fn finish<T: SortKey>(params: Finish<T>) {
    let Finish { buf, scratch, entries, direction } = params;
    let (buf, scratch, entries) = (buf.get(), scratch.get(), entries.get());
    let desc = direction.is_descending();
    let b = gpu::block_idx() as usize;
    let e = unsafe { FinishEntry::decode([*entries.add(2 * b), *entries.add(2 * b + 1)]) };
    let (tid, bd) = (gpu::thread_idx() as u64, gpu::block_dim() as u64);
    let src = if e.from_scratch { scratch } else { buf };
    let (src, out) = unsafe { (src.add(e.start as usize), buf.add(e.start as usize)) };
    if e.copy_only {
        if e.from_scratch {
            let mut i = tid;
            while i < e.len {
                unsafe { *out.add(i as usize) = *src.add(i as usize) };
                i += bd;
            }
        }
        return;
    }
    let smem = gpu::dyn_smem::<T>();
    let len = e.len as u32;
    let mut i = tid as u32;
    while i < len {
        unsafe { *smem.add(i as usize) = *src.add(i as usize) };
        i += bd as u32;
    }
    gpu::sync_threads();
    let p = len.next_power_of_two();
    let mut k = 2;
    while k <= p {
        let mut j = k / 2;
        while j >= 1 {
            let mut c = tid as u32;
            while c < p / 2 {
                let (lo, hi) = crate::block::network::bitonic_comparator(c, k, j);
                if hi < len {
                    unsafe {
                        let (a, z) = (*smem.add(lo as usize), *smem.add(hi as usize));
                        if z.ord_bits(desc) < a.ord_bits(desc) {
                            *smem.add(lo as usize) = z;
                            *smem.add(hi as usize) = a;
                        }
                    }
                }
                c += bd as u32;
            }
            gpu::sync_threads();
            j /= 2;
        }
        k *= 2;
    }
    let mut i = tid as u32;
    while i < len {
        unsafe { *out.add(i as usize) = *smem.add(i as usize) };
        i += bd as u32;
    }
}
