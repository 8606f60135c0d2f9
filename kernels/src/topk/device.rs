//! The top-k kernels (see the module docs for the passes).
use super::*;
use crate::block::WARP;
use crate::block::scan::{block_exclusive_sum_u32, warp_sum_u32, warp_sum_u64};
use crate::block::tile::{load_striped, warp_striped};
use crate::block::unroll;
use crate::gpu;
use crate::key::Word;

/// The select state as the select kernels left it.
#[inline(always)]
unsafe fn load_state(ctrl: *const u64) -> State {
    unsafe {
        State {
            done: *ctrl.add(ctrl::DONE as usize) != 0,
            used: *ctrl.add(ctrl::USED as usize) as u32,
            prefix: *ctrl.add(ctrl::PREFIX as usize),
            before: *ctrl.add(ctrl::BEFORE as usize),
            equal: *ctrl.add(ctrl::EQUAL as usize),
            quota: *ctrl.add(ctrl::QUOTA as usize),
        }
    }
}

/// Counts the digit of pass `pass` of every key with the prefix decided so far.
#[inline(always)]
pub unsafe fn histogram<K: Word>(p: Hist<K>) {
    let Hist { keys, n, pos, neg, pass, ctrl } = p;
    let (keys, ctrl) = (keys.get(), ctrl.get());
    let width = 8 * K::BYTES;
    let (shift, bits) = pass_digit(width, pass);
    let base = gpu::smem_base();
    let tid = gpu::thread_idx();
    let bd = gpu::block_dim();
    unsafe {
        if *ctrl.add(ctrl::DONE as usize) != 0 {
            return;
        }
        let prefix = *ctrl.add(ctrl::PREFIX as usize);
        let mut i = tid;
        while i < DIGITS {
            gpu::sts_u32(base + 4 * i, 0);
            i += bd;
        }
        gpu::sync_threads();
        let stride = gpu::grid_dim() as u64 * bd as u64;
        // All HIST_ITEMS loads are issued before any key is counted, so that their
        // latencies overlap; consecutive threads read consecutive keys.
        let step = stride * HIST_ITEMS as u64;
        let mut first = gpu::block_idx() as u64 * bd as u64 * HIST_ITEMS as u64 + tid as u64;
        while first < n {
            let mut ks = [K::ZERO; HIST_ITEMS];
            let mut valid = [false; HIST_ITEMS];
            unroll::<HIST_ITEMS>(|j| {
                let i = first + (j as u64) * bd as u64;
                if i < n {
                    ks[j] = *keys.add(i as usize);
                    valid[j] = true;
                }
            });
            unroll::<HIST_ITEMS>(|j| {
                let ord = ks[j].ordered(pos, neg);
                if valid[j] && matches_prefix(ord.to_u64(), width, pass, prefix) {
                    let d = ord.digit(shift, (1 << bits) - 1);
                    gpu::reds_add_u32(base + 4 * d, 1);
                }
            });
            first += step;
        }
        gpu::sync_threads();
        let hist = (ctrl as *mut u32).add((ctrl::HIST + pass * DIGITS) as usize);
        let mut d = tid;
        while d < DIGITS {
            let c = gpu::lds_u32(base + 4 * d);
            if c != 0 {
                gpu::red_add_u32(hist.add(d as usize), c);
            }
            d += bd;
        }
    }
}

/// One block: finds the bucket of pass `pass` that holds the `k`-th key and advances
/// the state ([`State::step`]).
#[inline(always)]
pub unsafe fn select(p: Select) {
    let Select { ctrl, pass, width, k, cap } = p;
    let ctrl = ctrl.get();
    let tid = gpu::thread_idx();
    unsafe {
        let s = load_state(ctrl);
        if s.done {
            return;
        }
        let (_, bits) = pass_digit(width, pass);
        let hist = (ctrl as *const u32).add((ctrl::HIST + pass * DIGITS) as usize);
        let mut c = [0u32; SELECT_BUCKETS as usize];
        let mut sum = 0u32;
        unroll::<{ SELECT_BUCKETS as usize }>(|j| {
            c[j] = *hist.add((tid * SELECT_BUCKETS + j as u32) as usize);
            sum += c[j];
        });
        // Every thread read the state above; the scan's barriers order those reads
        // before the one write below.
        let (excl, _) = block_exclusive_sum_u32(sum, gpu::smem_base());
        let mut below = excl as u64;
        unroll::<{ SELECT_BUCKETS as usize }>(|j| {
            let count = c[j] as u64;
            if s.holds_kth(k, below, count) {
                let d = tid * SELECT_BUCKETS + j as u32;
                let t = s.step(d, below, count, bits, width, k, cap);
                *ctrl.add(ctrl::USED as usize) = t.used as u64;
                *ctrl.add(ctrl::PREFIX as usize) = t.prefix;
                *ctrl.add(ctrl::BEFORE as usize) = t.before;
                *ctrl.add(ctrl::EQUAL as usize) = t.equal;
                *ctrl.add(ctrl::QUOTA as usize) = t.quota;
                *ctrl.add(ctrl::OUT as usize) = t.out();
                *ctrl.add(ctrl::DONE as usize) = t.done as u64;
            }
            below += count;
        });
    }
}

/// `(before, boundary)` keys of all tiles before `tile`, the boundary count capped at
/// `quota`, from their status words (warp 0 only, all its lanes): each step reads the
/// 32 nearest unread predecessors at once; it uses them if every one up to the nearest
/// inclusive prefix (or all 32 aggregates) has published, and reads them again if
/// not. Tile 0 publishes a prefix at once, so the walk ends.
#[inline(always)]
unsafe fn look_back(words: *const u64, tile: u32, quota: u64) -> (u64, u64) {
    let lane = gpu::lane_id();
    let (mut before, mut equal) = (0u64, 0u64);
    let mut next = tile; // tiles next-1, next-2, ... remain
    loop {
        let w = if lane < next {
            unsafe { gpu::ld_relaxed_u64(words.add((next - 1 - lane) as usize)) }
        } else {
            status::PREFIX // before tile 0: nothing
        };
        let (flag, b, e) = status::unpack(w);
        let prefixes = gpu::ballot(flag == status::PREFIX);
        let waiting = gpu::ballot(flag == 0);
        if prefixes != 0 {
            let nearest = prefixes.trailing_zeros();
            let upto = u32::MAX >> (31 - nearest); // lanes 0..=nearest
            if waiting & upto == 0 {
                let mine = lane <= nearest;
                before += warp_sum_u64(if mine { b } else { 0 });
                equal += warp_sum_u64(if mine { e } else { 0 });
                return (before, equal.min(quota));
            }
        } else if waiting == 0 {
            before += warp_sum_u64(b);
            equal = (equal + warp_sum_u64(e)).min(quota);
            next -= WARP;
        }
    }
}

/// Writes `(key, index)` of this tile's candidates at their places in index order.
#[inline(always)]
pub unsafe fn compact<K: Word, const I: usize>(p: Compact<K>) {
    let Compact { keys, n, pos, neg, ctrl, status: words, out_keys, out_idx } = p;
    let (keys, ctrl, words) = (keys.get(), ctrl.get(), words.get());
    let (out_keys, out_idx) = (out_keys.get(), out_idx.get());
    let width = 8 * K::BYTES;
    let tile_len = COMPACT_BLOCK * I as u32;
    let base = gpu::smem_base();
    let (tid, lane) = (gpu::thread_idx(), gpu::lane_id());
    let warp = tid / WARP;
    let ctrl32 = ctrl as *mut u32;
    unsafe {
        if tid == 0 {
            gpu::sts_u32(base, gpu::atomic_add_u32(ctrl32.add(ctrl::TILE_COUNTER as usize), 1));
        }
        gpu::sync_threads();
        let tile = gpu::lds_u32(base);
        let s = load_state(ctrl);
        let start = tile as u64 * tile_len as u64;
        let valid = core::cmp::min(tile_len as u64, n - start) as u32;
        // Warp-striped: coalesced loads, and (warp, item, lane) is index order.
        // Every load is issued before any key is classified: the ballots below are
        // not moved across by the compiler, so a load-then-ballot loop waits out one
        // memory latency per item (ncu: 8 of 20 cycles per instruction stalled on
        // L1TEX, 17% of DRAM bandwidth).
        let ks = load_striped::<K, I>(keys, start, valid);
        let (mut is_before, mut is_equal) = (0u32, 0u32);
        unroll::<I>(|j| {
            let o = warp_striped(warp, j as u32, lane, I as u32);
            let mut c = core::cmp::Ordering::Greater;
            if o < valid {
                c = s.classify(ks[j].ordered(pos, neg).to_u64(), width);
            }
            is_before |= (c.is_lt() as u32) << j;
            is_equal |= (c.is_eq() as u32) << j;
        });
        // The warp's counts by one sum of the lanes' bit counts (both 16-bit halves of
        // one word: at most 32 x 16 each), not two ballots per item.
        let both = warp_sum_u32(is_equal.count_ones() << 16 | is_before.count_ones());
        let (warp_before, warp_equal) = (both & 0xffff, both >> 16);
        // Counts of a tile fit 16 bits: one scan carries both.
        let packed = if lane == 0 { warp_equal << 16 | warp_before } else { 0 };
        let (excl, total) = block_exclusive_sum_u32(packed, base + 16);
        let warp_off = gpu::shfl_idx_u32(excl, 0);
        let (tile_before, tile_equal) = ((total & 0xffff) as u64, (total >> 16) as u64);
        let my_status = words.add(tile as usize);
        if tile == 0 {
            if tid == 0 {
                gpu::st_relaxed_u64(my_status, status::pack(status::PREFIX, tile_before, tile_equal.min(s.quota)));
                gpu::sts_u32(base + 4, 0);
                gpu::sts_u32(base + 8, 0);
            }
        } else {
            if tid == 0 {
                gpu::st_relaxed_u64(my_status, status::pack(status::AGGREGATE, tile_before, tile_equal));
            }
            if warp == 0 {
                let (b, e) = look_back(words, tile, s.quota);
                if lane == 0 {
                    let w = status::pack(status::PREFIX, b + tile_before, (e + tile_equal).min(s.quota));
                    gpu::st_relaxed_u64(my_status, w);
                    // b < k < 2^29 and e <= quota <= u32::MAX
                    gpu::sts_u32(base + 4, b as u32);
                    gpu::sts_u32(base + 8, e as u32);
                }
            }
        }
        gpu::sync_threads();
        if warp_before + warp_equal == 0 {
            return; // warp-uniform: no candidates here (most warps, for a small k)
        }
        let (pb, pe) = (gpu::lds_u32(base + 4) as u64, gpu::lds_u32(base + 8) as u64);
        let below = gpu::lanemask_lt();
        let (mut rb, mut re) = ((warp_off & 0xffff) as u64, (warp_off >> 16) as u64);
        unroll::<I>(|j| {
            let (b, e) = (is_before >> j & 1 != 0, is_equal >> j & 1 != 0);
            let (mb, me) = (gpu::ballot(b), gpu::ballot(e));
            if b || e {
                let lb = rb + (mb & below).count_ones() as u64;
                let le = re + (me & below).count_ones() as u64;
                if let Some(at) = position(b, pb + lb, pe + le, s.quota) {
                    let o = warp_striped(warp, j as u32, lane, I as u32);
                    *out_keys.add(at as usize) = ks[j];
                    *out_idx.add(at as usize) = (start + o as u64) as u32;
                }
            }
            rb += mb.count_ones() as u64;
            re += me.count_ones() as u64;
        });
    }
}
