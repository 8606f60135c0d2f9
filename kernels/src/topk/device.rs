//! The top-k kernels (see the module docs for the passes).
use super::*;
use crate::block::WARP;
use crate::block::scan::{SCAN_SMEM, block_exclusive_sum_u32, warp_inclusive_sum_u32, warp_sum_u32, warp_sum_u64};
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
    gpu::grid_dependency_wait();
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
    gpu::grid_dependency_wait();
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
    let tile_len = COMPACT_BLOCK * I as u32;
    let base = gpu::smem_base();
    let tid = gpu::thread_idx();
    let ctrl32 = ctrl as *mut u32;
    let tiles = n.div_ceil(tile_len as u64);
    gpu::grid_dependency_wait();
    unsafe {
        if *ctrl.add(ctrl::FINISHED as usize) != 0 {
            return; // the sampled path wrote the answer
        }
        let s = load_state(ctrl);
        // Each block takes tiles until none is left: launched with a grid smaller than
        // the tiles (the sampled path's fallback), a launch that is not needed costs
        // few blocks. Every tile is taken after all lower ones (one counter), so the
        // look-back never waits for a tile that no running block holds.
        loop {
            if tid == 0 {
                gpu::sts_u32(base, gpu::atomic_add_u32(ctrl32.add(ctrl::TILE_COUNTER as usize), 1));
            }
            gpu::sync_threads();
            let tile = gpu::lds_u32(base);
            if tile as u64 >= tiles {
                return; // block-uniform
            }
            compact_tile::<K, I>(keys, n, pos, neg, &s, words, out_keys, out_idx, tile);
        }
    }
}

/// One tile of [`compact`]: publishes its counts, looks back, writes its candidates.
/// Ends with a barrier-free tail; the caller's next barrier orders this tile's reads of
/// the shared words before the next tile's writes.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn compact_tile<K: Word, const I: usize>(
    keys: *const K,
    n: u64,
    pos: K,
    neg: K,
    s: &State,
    words: *mut u64,
    out_keys: *mut K,
    out_idx: *mut u32,
    tile: u32,
) {
    let width = 8 * K::BYTES;
    let tile_len = COMPACT_BLOCK * I as u32;
    let base = gpu::smem_base();
    let (tid, lane) = (gpu::thread_idx(), gpu::lane_id());
    let warp = tid / WARP;
    unsafe {
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

/// Every thread of a block of `DIGITS / 2` threads: the bucket of the [`DIGITS`]
/// counters at shared address `hist` that holds the `want`-th counted key (1-based,
/// `want` at most their sum), the keys in lower buckets and its count, through three
/// shared words at `words` (the block scan uses `scan`).
#[inline(always)]
unsafe fn find_bucket(hist: u32, scan: u32, words: u32, want: u32) -> (u32, u32, u32) {
    let tid = gpu::thread_idx();
    unsafe {
        let (c0, c1) = (gpu::lds_u32(hist + 8 * tid), gpu::lds_u32(hist + 8 * tid + 4));
        // Its barriers also order every thread's reads of `words` (the last call's)
        // before the one write below.
        let (excl, _) = block_exclusive_sum_u32(c0 + c1, scan);
        let found = if excl < want && want <= excl + c0 {
            Some((2 * tid, excl, c0))
        } else if excl + c0 < want && want <= excl + c0 + c1 {
            Some((2 * tid + 1, excl + c0, c1))
        } else {
            None
        };
        if let Some((d, below, count)) = found {
            gpu::sts_u32(words, d);
            gpu::sts_u32(words + 4, below);
            gpu::sts_u32(words + 8, count);
        }
        gpu::sync_threads();
        (gpu::lds_u32(words), gpu::lds_u32(words + 4), gpu::lds_u32(words + 8))
    }
}

/// Zeroes the [`DIGITS`] counters at shared address `hist` (a block of `DIGITS / 2`
/// threads) and waits for the block.
#[inline(always)]
unsafe fn zero_hist(hist: u32) {
    let tid = gpu::thread_idx();
    unsafe {
        gpu::sts_u64(hist + 8 * tid, 0);
        gpu::sync_threads();
    }
}

/// The order bits of the sampled keys, one per thread.
#[inline(always)]
pub unsafe fn gather<K: Word>(p: Gather<K>) {
    gpu::grid_dependency_wait();
    let Gather { keys, n, pos, neg, samples, ords } = p;
    let (keys, ords) = (keys.get(), ords.get());
    let i = gpu::global_idx();
    if i < samples as u64 {
        unsafe {
            *ords.add(i as usize) =
                (*keys.add(sample_position(i as u32, samples, n) as usize)).ordered(pos, neg).to_u64()
        };
    }
}

/// The threshold: the `rank`-th smallest of the sampled order bits, by a radix select
/// over the samples held in registers.
#[inline(always)]
pub unsafe fn sample(p: Sample) {
    gpu::grid_dependency_wait();
    let Sample { ords, samples, rank, width, ctrl } = p;
    let (ords, ctrl) = (ords.get(), ctrl.get());
    let tid = gpu::thread_idx();
    let base = gpu::smem_base();
    let (hist, scan) = (base, base + 4 * DIGITS);
    let words = scan + SCAN_SMEM;
    unsafe {
        let mut ord = [0u64; SAMPLE_ITEMS];
        unroll::<SAMPLE_ITEMS>(|j| {
            let i = j as u32 * SAMPLE_BLOCK + tid;
            if i < samples {
                ord[j] = *ords.add(i as usize);
            }
        });
        let (mut prefix, mut want, mut used) = (0u64, rank, 0u32);
        while used < width {
            let bits = if width - used < DIGIT_BITS { width - used } else { DIGIT_BITS };
            let shift = width - used - bits;
            zero_hist(hist);
            unroll::<SAMPLE_ITEMS>(|j| {
                let i = j as u32 * SAMPLE_BLOCK + tid;
                if i < samples && (used == 0 || ord[j] >> (width - used) == prefix) {
                    gpu::reds_add_u32(hist + 4 * ((ord[j] >> shift) as u32 & ((1 << bits) - 1)), 1);
                }
            });
            gpu::sync_threads();
            let (d, below, _) = find_bucket(hist, scan, words, want);
            prefix = prefix << bits | d as u64;
            want -= below;
            used += bits;
        }
        if tid == 0 {
            for w in 0..ctrl::HIST / 2 {
                *ctrl.add(w as usize) = 0;
            }
            *ctrl.add(ctrl::THRESHOLD as usize) = prefix;
        }
    }
}

/// Keys per 16-byte vector.
const fn per_vector<K: Word>() -> usize {
    16 / K::BYTES as usize
}

/// Key `e` of a 16-byte vector of `K`s.
#[inline(always)]
fn vector_key<K: Word>(v: &[u32; 4], e: usize) -> K {
    if K::BYTES == 4 { K::from_u64(v[e] as u64) } else { K::from_u64(v[2 * e] as u64 | (v[2 * e + 1] as u64) << 32) }
}

/// Reserves places for the warp's candidates (`count` of this lane's) with one atomic
/// add to `counter` per warp; returns this lane's first place. Every lane must call it.
#[inline(always)]
unsafe fn reserve(counter: *mut u64, count: u32) -> u64 {
    let incl = warp_inclusive_sum_u32(count);
    let total = gpu::shfl_idx_u32(incl, WARP - 1);
    let mut first = 0u64;
    if gpu::lane_id() == 0 {
        first = unsafe { gpu::atomic_add_u64(counter, total as u64) };
    }
    gpu::shfl_idx_u64(first, 0) + (incl - count) as u64
}

/// Writes `(key, index)` of every key at or below the threshold to the candidate
/// buffer (its first `cap` places) and counts them all.
#[inline(always)]
pub unsafe fn filter<K: Word>(p: Filter<K>) {
    gpu::grid_dependency_wait();
    let Filter { keys, n, pos, neg, ctrl, cap, out_keys, out_idx, status, tiles } = p;
    let (keys, ctrl, out_keys, out_idx, status) = (keys.get(), ctrl.get(), out_keys.get(), out_idx.get(), status.get());
    let per = per_vector::<K>();
    let (tid, lane, bd) = (gpu::thread_idx(), gpu::lane_id(), gpu::block_dim());
    unsafe {
        // The exact fallback's zeroed state: its histograms and tile status words.
        let threads = gpu::grid_dim() as u64 * bd as u64;
        let hist_words = (ctrl::WORDS - ctrl::HIST) as u64 / 2;
        let mut i = gpu::global_idx();
        while i < hist_words + tiles {
            if i < hist_words {
                *ctrl.add((ctrl::HIST / 2) as usize + i as usize) = 0;
            } else {
                *status.add((i - hist_words) as usize) = 0;
            }
            i += threads;
        }
        let t = *ctrl.add(ctrl::THRESHOLD as usize);
        let counter = ctrl.add(ctrl::FAST_COUNT as usize);
        let keep = |key: K| key.ordered(pos, neg).to_u64() <= t;
        let vectors = keys as *const [u32; 4];
        let nvec = n / per as u64;
        let step = gpu::grid_dim() as u64 * bd as u64 * FILTER_ITEMS as u64;
        let mut first = gpu::block_idx() as u64 * bd as u64 * FILTER_ITEMS as u64 + tid as u64;
        // Warp-uniform bound: every lane takes part in the warp's ballot and reservation.
        while first - (lane as u64) < nvec {
            let mut v = [[0u32; 4]; FILTER_ITEMS];
            unroll::<FILTER_ITEMS>(|j| {
                let i = first + (j as u64) * bd as u64;
                if i < nvec {
                    v[j] = gpu::ld_global_v4_u32(vectors.add(i as usize));
                }
            });
            let mut mask = 0u32;
            unroll::<FILTER_ITEMS>(|j| {
                let i = first + (j as u64) * bd as u64;
                unroll::<4>(|e| {
                    if e < per && i < nvec && keep(vector_key::<K>(&v[j], e)) {
                        mask |= 1 << (j * per + e);
                    }
                });
            });
            if gpu::ballot(mask != 0) != 0 {
                let mut at = reserve(counter, mask.count_ones());
                unroll::<FILTER_ITEMS>(|j| {
                    let i = first + (j as u64) * bd as u64;
                    unroll::<4>(|e| {
                        if e < per && mask >> (j * per + e) & 1 != 0 {
                            if at < cap {
                                *out_keys.add(at as usize) = vector_key::<K>(&v[j], e);
                                *out_idx.add(at as usize) = (i * per as u64 + e as u64) as u32;
                            }
                            at += 1;
                        }
                    });
                });
            }
            first += step;
        }
        // The last `n % per` keys: warp 0 of block 0.
        if gpu::block_idx() == 0 && tid < WARP {
            let i = nvec * per as u64 + lane as u64;
            let mut key = K::ZERO;
            let hit = i < n && {
                key = *keys.add(i as usize);
                keep(key)
            };
            if gpu::ballot(hit) != 0 {
                let at = reserve(counter, hit as u32);
                if hit && at < cap {
                    *out_keys.add(at as usize) = key;
                    *out_idx.add(at as usize) = i as u32;
                }
            }
        }
    }
}

/// Calls `f(composite)` for every candidate `i < count` of this thread (block-strided),
/// eight candidates' loads in flight: one block reading from memory is bound by how
/// many loads wait at once (four gave ~16 GB/s on an H100: 57 us for 2^16 keys).
#[inline(always)]
unsafe fn each_candidate<K: Word, const NAN: bool>(
    keys: *const K,
    idx: *const u32,
    (pos, neg, nan_inf): (K, K, K),
    count: u64,
    mut f: impl FnMut(u128),
) {
    const AHEAD: usize = 8;
    let (tid, bd) = (gpu::thread_idx() as u64, gpu::block_dim() as u64);
    let mut first = tid;
    while first < count {
        let mut ks = [K::ZERO; AHEAD];
        let mut ids = [0u32; AHEAD];
        unroll::<AHEAD>(|j| {
            let i = first + j as u64 * bd;
            if i < count {
                unsafe {
                    ks[j] = *keys.add(i as usize);
                    ids[j] = if idx.is_null() { i as u32 } else { *idx.add(i as usize) };
                }
            }
        });
        unroll::<AHEAD>(|j| {
            if first + (j as u64) * bd < count {
                // NaN-last order: ranked by the canonical bits (`nan_mapped`).
                let key = if NAN { crate::nan::nan_mapped(ks[j], nan_inf) } else { ks[j] };
                f(composite(key.ordered(pos, neg).to_u64(), ids[j]));
            }
        });
        first += AHEAD as u64 * bd;
    }
}

/// [`FinishRows`]: [`finish`] of the whole row `block_idx` (its positions are the
/// column indices), into that row of the outputs; float keys in NaN-last order where
/// `nan_inf` is set, by a body of their own (chosen once a block, so that total order
/// keeps its code).
#[inline(always)]
pub unsafe fn finish_rows<K: Word>(p: FinishRows<K>) {
    let row = gpu::block_idx() as u64;
    let FinishRows { keys, cols, k, pos, neg, nan_inf, out_keys, out_idx } = p;
    let f = Finish {
        keys: keys.offset(row * cols),
        idx: DevPtr::NULL,
        len: cols,
        stage: finish::ALL,
        k,
        pos,
        neg,
        ctrl: DevPtr::NULL,
        out_keys: out_keys.offset(row * k),
        out_idx: out_idx.offset(row * k),
    };
    unsafe { if nan_inf.to_u64() != 0 { finish_in::<K, true>(f, nan_inf) } else { finish_in::<K, false>(f, K::ZERO) } }
}

/// The first `k` candidates by composite key, written in order ([`Finish`]).
#[inline(always)]
pub unsafe fn finish<K: Word>(p: Finish<K>) {
    unsafe { finish_in::<K, false>(p, K::ZERO) }
}

/// [`finish`], with `NAN`: float keys ranked by their canonical bits in NaN-last order
/// (`nan_inf`: the `+inf` bits, see [`crate::nan::nan_mapped`]) and written with
/// their own bits, read again from the input by index. `NAN` only on the whole input
/// (stage [`finish::ALL`]), whose indices are positions in `keys`.
#[inline(always)]
unsafe fn finish_in<K: Word, const NAN: bool>(p: Finish<K>, nan_inf: K) {
    gpu::grid_dependency_wait();
    let Finish { keys, idx, len, stage, k, pos, neg, ctrl, out_keys, out_idx } = p;
    let (keys, idx, ctrl, out_keys, out_idx) = (keys.get(), idx.get(), ctrl.get(), out_keys.get(), out_idx.get());
    let total = 8 * K::BYTES + 32;
    let tid = gpu::thread_idx();
    let base = gpu::smem_base();
    let (hist, ords, ids) = (base, base, base + 8 * SORT_MAX);
    let scan = base + FINISH_SORT_BYTES;
    let words = scan + SCAN_SMEM;
    unsafe {
        let (count, top) = match stage {
            finish::FAST => {
                let c = *ctrl.add(ctrl::FAST_COUNT as usize);
                if c < k || c > len {
                    return; // the sample missed: the exact path runs next
                }
                (c, bit_length(*ctrl.add(ctrl::THRESHOLD as usize)) + 32)
            }
            finish::EXACT => {
                if *ctrl.add(ctrl::FINISHED as usize) != 0 {
                    return;
                }
                (*ctrl.add(ctrl::OUT as usize), total)
            }
            _ => (len, total),
        };
        // Narrow to at most SORT_MAX candidates that include the first k.
        let mut s = Narrow::new(total, top, count);
        let mut want = k;
        while !s.fits() {
            let (shift, bits) = s.next_digit();
            zero_hist(hist);
            each_candidate::<K, NAN>(keys, idx, (pos, neg, nan_inf), count, |c| {
                if s.matches(c) {
                    gpu::reds_add_u32(hist + 4 * ((c >> shift) as u32 & ((1 << bits) - 1)), 1);
                }
            });
            gpu::sync_threads();
            // Counts fit u32: at most `count`, below 2^32.
            let (d, below, n_d) = find_bucket(hist, scan, words, want as u32);
            s = s.step(d, below as u64, n_d as u64);
            want -= below as u64;
        }
        // Gather the kept candidates into shared memory (any order), pad to a power
        // of two with the largest composite, sort.
        let counter = words + 12;
        if tid == 0 {
            gpu::sts_u32(counter, 0);
        }
        gpu::sync_threads();
        each_candidate::<K, NAN>(keys, idx, (pos, neg, nan_inf), count, |c| {
            if s.keeps(c) {
                let at = gpu::atomic_add_shared_u32(counter, 1);
                gpu::sts_u64(ords + 8 * at, (c >> 32) as u64);
                gpu::sts_u32(ids + 4 * at, c as u32);
            }
        });
        let kept = (s.before + s.matching) as u32;
        let size = kept.next_power_of_two();
        let mut i = kept + tid;
        while i < size {
            gpu::sts_u64(ords + 8 * i, u64::MAX);
            gpu::sts_u32(ids + 4 * i, u32::MAX);
            i += FINISH_BLOCK;
        }
        gpu::sync_threads();
        bitonic_sort(ords, ids, size);
        let mut i = tid as u64;
        while i < k {
            let ord = gpu::lds_u64(ords + 8 * i as u32);
            let id = gpu::lds_u32(ids + 4 * i as u32);
            // NaN-last: the key's own bits (its NaN payload, its zero's sign).
            *out_keys.add(i as usize) = if NAN { *keys.add(id as usize) } else { K::from_u64(ord).raw(pos, neg) };
            *out_idx.add(i as usize) = id;
            i += FINISH_BLOCK as u64;
        }
        if stage == finish::FAST && tid == 0 {
            // The exact path's kernels read these and return at once.
            *ctrl.add(ctrl::FINISHED as usize) = 1;
            *ctrl.add(ctrl::DONE as usize) = 1;
        }
    }
}

/// Sorts the `size` (a power of two, at most [`SORT_MAX`]) pairs of shared arrays
/// `ords` (`u64`) and `ids` (`u32`) ascending by `(ord, id)`: a bitonic network, one
/// barrier per step. Starts and ends with the block synchronised.
#[inline(always)]
unsafe fn bitonic_sort(ords: u32, ids: u32, size: u32) {
    let tid = gpu::thread_idx();
    let mut block = 2;
    while block <= size {
        let mut stride = block / 2;
        while stride > 0 {
            let mut t = tid;
            while t < size / 2 {
                let lo = 2 * t - (t & (stride - 1));
                let hi = lo + stride;
                unsafe {
                    let (a, b) = (gpu::lds_u64(ords + 8 * lo), gpu::lds_u64(ords + 8 * hi));
                    let (ia, ib) = (gpu::lds_u32(ids + 4 * lo), gpu::lds_u32(ids + 4 * hi));
                    let ascending = (lo & block) == 0;
                    if ((a, ia) > (b, ib)) == ascending {
                        gpu::sts_u64(ords + 8 * lo, b);
                        gpu::sts_u64(ords + 8 * hi, a);
                        gpu::sts_u32(ids + 4 * lo, ib);
                        gpu::sts_u32(ids + 4 * hi, ia);
                    }
                }
                t += FINISH_BLOCK;
            }
            gpu::sync_threads();
            stride /= 2;
        }
        block *= 2;
    }
}
