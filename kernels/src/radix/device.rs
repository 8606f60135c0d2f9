//! The radix kernels (see the module docs for the passes).
use super::params::{CopyBack, Hist, PackedSweep, Small, Sweep, UnpackBack};
use super::*;
use crate::block::WARP;
use crate::block::rank::{RankSmem, rank_by_digit};
use crate::block::scan::block_exclusive_sum_u64;
use crate::block::smem::{lds_at, sts_at};
use crate::block::tile::{block_striped, load_striped, warp_striped};
use crate::block::unroll;
use crate::gpu;
use crate::key::Word;

/// Digit of warp-striped item `k`, below `BINS`; items past `valid` get `BINS - 1`,
/// at or above every real digit, so they rank after every key of the tile. The one
/// place where the tile kernels turn a raw key into its digit.
#[inline(always)]
fn digit_of<K: Word, const I: usize, const BINS: u32>(
    keys: &[K; I],
    k: usize,
    valid: u32,
    shift: u32,
    mask: u32,
    pos: K,
    neg: K,
) -> u32 {
    let (warp, lane) = (gpu::thread_idx() / WARP, gpu::lane_id());
    let o = warp_striped(warp, k as u32, lane, I as u32);
    if o < valid { keys[k].ordered(pos, neg).digit(shift, mask) } else { BINS - 1 }
}

/// Loads the `valid` pairs at `keys[start..]`, `vals[start..]` warp-striped, `I` per
/// thread, packed as `key << 32 | value` (see [`Packing`]); every load is issued before
/// any word is built.
#[inline(always)]
unsafe fn load_packed<W: Word, const I: usize>(keys: *const u32, vals: *const u32, start: u64, valid: u32) -> [W; I] {
    let ks = unsafe { load_striped::<u32, I>(keys, start, valid) };
    let vs = unsafe { load_striped::<u32, I>(vals, start, valid) };
    let mut out = [W::ZERO; I];
    unroll::<I>(|k| out[k] = W::from_u64((ks[k] as u64) << 32 | vs[k] as u64));
    out
}

/// `(a, b)` or `(b, a)`: selected by value, not by indexing an array, which would put
/// the pointers in local memory and turn every global access into a generic one.
#[inline(always)]
fn pick<P>(swap: bool, a: P, b: P) -> (P, P) {
    if swap { (b, a) } else { (a, b) }
}

fn rank_smem(base: u32, s: &Smem) -> RankSmem {
    RankSmem { warp_digits: base + s.warp_digits, scan: base + s.scan, digit_start: base + s.digit_start }
}

/// Keys of each of this thread's `OWN` digits (`first + j`, those below `BINS`) in
/// all tiles before `tile` (of this launch), from their status words: walks back,
/// summing aggregates, until a tile that published its inclusive prefix. Each step
/// reads [`look_back_window`] tiles of every digit not yet done (independent loads, so one step
/// costs one memory latency), then uses them nearest first and stops at the first
/// tile that has published nothing yet, which the next step reads again. Tile 0
/// always publishes a prefix, so the walk ends. `tile` > 0.
#[inline(always)]
unsafe fn look_back<const BINS: u32, const OWN: usize>(status: *const u32, tile: u32, first: u32) -> [u32; OWN] {
    let mut sum = [0u32; OWN];
    let mut next = [tile; OWN]; // tiles next-1, next-2, ... remain to be read
    let mut done = [false; OWN];
    unroll::<OWN>(|j| done[j] = first + j as u32 >= BINS);
    let window = look_back_window(OWN);
    loop {
        let mut w = [[0u32; MAX_WINDOW]; OWN];
        unroll::<OWN>(|j| {
            unroll::<MAX_WINDOW>(|i| {
                if !done[j] && i < window && (i as u32) < next[j] {
                    let at = (next[j] - 1 - i as u32) * BINS + first + j as u32;
                    w[j][i] = unsafe { gpu::ld_relaxed_u32(status.add(at as usize)) };
                }
            })
        });
        let mut all = true;
        unroll::<OWN>(|j| {
            if !done[j] {
                let mut used = 0u32;
                let mut prefix = false;
                unroll::<MAX_WINDOW>(|i| {
                    if !prefix && i < window && used == i as u32 && (i as u32) < next[j] {
                        let flag = w[j][i] & FLAG_MASK;
                        if flag != 0 {
                            sum[j] += w[j][i] & VALUE_MASK;
                            used += 1;
                            prefix = flag == FLAG_PREFIX;
                        }
                    }
                });
                done[j] = prefix;
                next[j] -= used;
                all &= prefix;
            }
        });
        if all {
            return sum;
        }
    }
}

/// Predecessor tiles whose status words one look-back step reads per digit: eight
/// when a thread owns one digit, four when it owns several (all their loads go out
/// together, so a step still costs one latency). With 2,048 bins and two tiles per
/// step a 2^24-key pass took 4.3x as long as with 256 bins (H200, ncu: 12 warps per
/// SM at 0.36 instructions per cycle per scheduler, 2.2x the instructions).
const fn look_back_window(own: usize) -> usize {
    if own == 1 { MAX_WINDOW } else { 4 }
}

/// The widest look-back window.
const MAX_WINDOW: usize = 8;

/// The parameters of one digit-pass launch (see the kernel entries).
#[derive(Clone, Copy)]
struct Pass<K, V> {
    /// Buffers A and B of the items (keys, or packed pairs) and of the values.
    keys_a: *mut K,
    keys_b: *mut K,
    vals_a: *mut V,
    vals_b: *mut V,
    /// Split sorts routed through two scratch buffers: the caller's keys and values,
    /// read by a pass whose plan entry has `PLAN_LOAD_SPLIT` and written by one with
    /// `PLAN_STORE_SPLIT` (null otherwise).
    keys_c: *mut K,
    vals_c: *mut V,
    /// Packed sorts: the caller's split arrays.
    split_keys: *mut u32,
    split_vals: *mut u32,
    n: u64,
    first_tile: u64,
    tiles: u32,
    shift: u32,
    mask: u32,
    pos: K,
    neg: K,
    pass: u32,
    launch: u32,
    portion: u32,
    status: *mut u32,
    status_tiles: u32,
    ctrl: *mut u64,
}

/// One digit pass over one portion of tiles: takes a tile, clears the next launch's
/// status words, and unless the plan skips this pass sorts the tile ([`sweep_tile`]).
/// Buffers A and B are `keys_a`/`vals_a` and `keys_b`/`vals_b`; the plan entry says
/// which is read ([`route`]). With `PACKED` the items are `key << 32 | value` words
/// (`K` = `u64`, ranked as 64-bit keys on the key half by `shift` and the masks), A and B are packed scratch, and the plan may say to load from or store to the caller's split
/// arrays instead: each of those ways is its own instantiation of [`sweep_tile`], so
/// none carries the others' pointers and branches.
#[inline(always)]
unsafe fn onesweep<
    K: Word,
    V: Word,
    const PAIRS: bool,
    const PACKED: bool,
    const I: usize,
    const BINS: u32,
    const OWN: usize,
>(
    p: Pass<K, V>,
) {
    let digits = Digits { bits: BINS.trailing_zeros() };
    let s = if PACKED {
        Smem::packed_digits(digits)
    } else {
        Smem::onesweep_digits(K::BYTES, if PAIRS { V::BYTES } else { 0 }, digits)
    };
    let base = gpu::smem_base();
    let tid = gpu::thread_idx();
    let ctrl32 = p.ctrl as *mut u32;
    unsafe {
        let plan = *ctrl32.add((ctrl::PLAN + p.pass) as usize);
        let words = p.status_tiles as usize * BINS as usize;
        let (cur, other) =
            if p.launch & 1 == 0 { (p.status, p.status.add(words)) } else { (p.status.add(words), p.status) };
        if tid == 0 {
            gpu::sts_u32(
                base + s.tile_id,
                gpu::atomic_add_u32(ctrl32.add((ctrl::counters(BINS) + p.launch) as usize), 1),
            );
        }
        gpu::sync_threads();
        let tile = gpu::lds_u32(base + s.tile_id);
        // The next launch's status words (its buffer was used two launches ago).
        let mut d = tid;
        while d < BINS {
            let mut t = tile;
            while t < p.status_tiles {
                *other.add((t * BINS + d) as usize) = 0;
                t += p.tiles;
            }
            d += BLOCK;
        }
        if plan == PLAN_SKIP {
            return;
        }
        if !PACKED {
            return sweep_tile::<K, V, PAIRS, false, false, I, BINS, OWN>(&p, &s, plan, tile, cur);
        }
        // A pass never both loads and stores the caller's arrays (`packed_plan`).
        match route(plan) {
            (Buf::Caller, _) => sweep_tile::<K, V, false, true, false, I, BINS, OWN>(&p, &s, plan, tile, cur),
            (_, Buf::Caller) => sweep_tile::<K, V, false, false, true, I, BINS, OWN>(&p, &s, plan, tile, cur),
            _ => sweep_tile::<K, V, false, false, false, I, BINS, OWN>(&p, &s, plan, tile, cur),
        }
    }
}

/// The work of [`onesweep`] on tile `tile` of a pass that runs: load (from the split
/// arrays, packing, with `LOAD_SPLIT`), rank by digit, publish the counts and look
/// back (`status`: this launch's status words), scatter (to the split arrays,
/// unpacking, with `STORE_SPLIT`), then the values of a `PAIRS` pass.
#[inline(always)]
unsafe fn sweep_tile<
    K: Word,
    V: Word,
    const PAIRS: bool,
    const LOAD_SPLIT: bool,
    const STORE_SPLIT: bool,
    const I: usize,
    const BINS: u32,
    const OWN: usize,
>(
    p: &Pass<K, V>,
    s: &Smem,
    plan: u32,
    tile: u32,
    status: *mut u32,
) {
    let tile_len = BLOCK * I as u32;
    let base = gpu::smem_base();
    let tid = gpu::thread_idx();
    let (n, shift, mask, pos, neg) = (p.n, p.shift, p.mask, p.pos, p.neg);
    unsafe {
        let from_b = plan & PLAN_FROM_B != 0;
        let (src, dst) = pick(from_b, p.keys_a, p.keys_b);
        // A split sort routed through two scratch buffers reads or writes the caller's
        // keys on its first and last passes (the packed pass does so in its `LOAD_SPLIT`
        // and `STORE_SPLIT` forms, whose plan entries never reach these branches).
        let (load_caller, store_caller) = (plan & PLAN_LOAD_SPLIT != 0, plan & PLAN_STORE_SPLIT != 0);
        let src = if !LOAD_SPLIT && load_caller { p.keys_c } else { src };
        let dst = if !STORE_SPLIT && store_caller { p.keys_c } else { dst };
        let start = (p.first_tile + tile as u64) * tile_len as u64;
        let valid = core::cmp::min(tile_len as u64, n - start) as u32;
        let ks = if LOAD_SPLIT {
            load_packed::<K, I>(p.split_keys, p.split_vals, start, valid)
        } else {
            load_striped::<K, I>(src, start, valid)
        };
        let my_status = status.add((tile * BINS) as usize);
        // This thread's digits (`first + j`, [`Digits::owned`]) and their tile counts.
        let first = tid * OWN as u32;
        let mut totals = [0u32; OWN];
        let digit = |k| digit_of::<K, I, BINS>(&ks, k, valid, shift, mask, pos, neg);
        let (warp, lane) = (tid / WARP, gpu::lane_id());
        rank_by_digit::<I, BINS, OWN>(
            digit,
            rank_smem(base, s),
            |j, d, t| {
                let total = if d == BINS - 1 { t - (tile_len - valid) } else { t };
                totals[j] = total;
                let flag = if tile == 0 { FLAG_PREFIX } else { FLAG_AGGREGATE };
                gpu::st_relaxed_u32(my_status.add(d as usize), flag | total);
            },
            |k, r| {
                sts_at::<K>(base + s.keys + r * K::BYTES, ks[k]);
                if PAIRS {
                    gpu::sts_u16(base + s.ranks + 2 * warp_striped(warp, k as u32, lane, I as u32), r);
                }
            },
        );
        let before = if tile > 0 { look_back::<BINS, OWN>(status, tile, first) } else { [0u32; OWN] };
        let parity = p.portion & 1;
        unroll::<OWN>(|j| {
            let d = first + j as u32;
            if d < BINS {
                let (before, total) = (before[j], totals[j]);
                if tile > 0 {
                    gpu::st_relaxed_u32(my_status.add(d as usize), FLAG_PREFIX | (before + total));
                }
                let carry_in = *p.ctrl.add(ctrl::carry(BINS, p.pass, parity, d) as usize);
                let run_start = gpu::lds_u32(base + s.digit_start + 4 * d);
                gpu::sts_u64(base + s.global_base + 8 * d, (carry_in + before as u64).wrapping_sub(run_start as u64));
                if tile == p.tiles - 1 {
                    *p.ctrl.add(ctrl::carry(BINS, p.pass, parity ^ 1, d) as usize) = carry_in + (before + total) as u64;
                }
            }
        });
        gpu::sync_threads();
        let mut dig = [0u32; I];
        unroll::<I>(|k| {
            let i = block_striped(tid, k as u32, BLOCK);
            if i < valid {
                let key = lds_at::<K>(base + s.keys + i * K::BYTES);
                let d = key.ordered(pos, neg).digit(shift, mask);
                dig[k] = d;
                let at = gpu::lds_u64(base + s.global_base + 8 * d).wrapping_add(i as u64);
                if STORE_SPLIT {
                    let w = key.to_u64();
                    *p.split_keys.add(at as usize) = (w >> 32) as u32;
                    *p.split_vals.add(at as usize) = w as u32;
                } else {
                    *dst.add(at as usize) = key;
                }
            }
        });
        if PAIRS {
            let (vsrc, vdst) = pick(from_b, p.vals_a, p.vals_b);
            let vsrc = if load_caller { p.vals_c } else { vsrc };
            let vdst = if store_caller { p.vals_c } else { vdst };
            let vs = load_striped::<V, I>(vsrc, start, valid);
            gpu::sync_threads();
            unroll::<I>(|k| {
                let r = gpu::lds_u16(base + s.ranks + 2 * warp_striped(warp, k as u32, lane, I as u32));
                sts_at::<V>(base + s.vals + r * V::BYTES, vs[k]);
            });
            gpu::sync_threads();
            unroll::<I>(|k| {
                let i = block_striped(tid, k as u32, BLOCK);
                if i < valid {
                    let v = lds_at::<V>(base + s.vals + i * V::BYTES);
                    let at = gpu::lds_u64(base + s.global_base + 8 * dig[k]).wrapping_add(i as u64);
                    *vdst.add(at as usize) = v;
                }
            });
        }
    }
}

/// Sorts `n <= BLOCK * I` keys (and values) in one block: every pass ranks the tile in
/// shared memory and reloads it in rank order. `I` may be below [`items`] (the
/// segmented sort runs shorter segments with fewer items per thread, in the same
/// [`Smem::small`] layout); launched with [`BLOCK`] threads.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) unsafe fn small<K: Word, V: Word, const PAIRS: bool, const I: usize>(
    keys: *mut K,
    vals: *mut V,
    n: u32,
    begin: u32,
    end: u32,
    pos: K,
    neg: K,
) {
    let s = Smem::small(K::BYTES, if PAIRS { V::BYTES } else { 0 });
    let base = gpu::smem_base();
    let (warp, lane) = (gpu::thread_idx() / WARP, gpu::lane_id());
    unsafe {
        let mut ks = load_striped::<K, I>(keys, 0, n);
        let mut vs = if PAIRS { load_striped::<V, I>(vals, 0, n) } else { [V::ZERO; I] };
        for p in 0..passes(begin, end) {
            let (shift, mask) = pass_digit(begin, end, p);
            let digit = |k| digit_of::<K, I, DIGITS>(&ks, k, n, shift, mask, pos, neg);
            rank_by_digit::<I, DIGITS, NARROW_OWN>(
                digit,
                rank_smem(base, &s),
                |_, _, _| {},
                |k, r| {
                    sts_at::<K>(base + s.keys + r * K::BYTES, ks[k]);
                    if PAIRS {
                        sts_at::<V>(base + s.vals + r * V::BYTES, vs[k]);
                    }
                },
            );
            gpu::sync_threads();
            unroll::<I>(|k| {
                let o = warp_striped(warp, k as u32, lane, I as u32);
                ks[k] = lds_at::<K>(base + s.keys + o * K::BYTES);
                if PAIRS {
                    vs[k] = lds_at::<V>(base + s.vals + o * V::BYTES);
                }
            });
            gpu::sync_threads();
        }
        unroll::<I>(|k| {
            let o = warp_striped(warp, k as u32, lane, I as u32);
            if o < n {
                *keys.add(o as usize) = ks[k];
                if PAIRS {
                    *vals.add(o as usize) = vs[k];
                }
            }
        });
    }
}

/// One step of the histogram: keys `first + j * blockDim` for `j < I`
/// (consecutive threads read consecutive keys), loaded before any is counted so that
/// their latencies overlap; with `FULL` the step lies inside the input and has no bound
/// tests. Each thread adds to its lane's word of a counter ([`hist::slot`]).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn count_step<K: Word, const NP: usize, const I: usize, const FULL: bool, const BINS: u32>(
    keys: *const K,
    first: u64,
    n: u64,
    pos: K,
    neg: K,
    counters: u32,
    slots: u32,
    shifts: &[u32; NP],
    masks: &[u32; NP],
) {
    let bd = gpu::block_dim() as usize;
    let lane = gpu::lane_id();
    let at = unsafe { keys.add(first as usize) };
    // Keys `j < valid` lie inside the input: one count rather than a flag per key,
    // which left the partial step short of registers (spills at 1024 threads).
    let valid = if FULL || first >= n { 0 } else { (n - first).div_ceil(bd as u64).min(I as u64) as usize };
    let mut ks = [K::ZERO; I];
    unroll::<I>(|j| {
        if FULL || j < valid {
            ks[j] = unsafe { *at.add(j * bd) }.ordered(pos, neg);
        }
    });
    unroll::<NP>(|p| {
        unroll::<I>(|j| {
            if FULL || j < valid {
                let counter = p as u32 * BINS + ks[j].digit(shifts[p], masks[p]);
                unsafe { gpu::reds_add_u32(counters + 4 * hist::slot(counter, slots, lane), 1) };
            }
        })
    });
}

/// This block's digit counts of all `NP` passes, added to the global ones: clears its
/// counters, counts whole steps of `blockDim * I` keys grid-strided without
/// bound tests, then the one partial step (if any) by the block whose turn it is, and
/// sums each counter's words. Every thread of the block must call it.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn count_digits<K: Word, const NP: usize, const I: usize, const BINS: u32>(
    keys: *const K,
    n: u64,
    begin: u32,
    end: u32,
    pos: K,
    neg: K,
    counters: u32,
    ctrl: *mut u64,
) {
    let slots = const { hist::slots(NP as u32, BINS) };
    let counter_count = NP as u32 * BINS;
    let digits = Digits { bits: BINS.trailing_zeros() };
    let (tid, bd) = (gpu::thread_idx(), gpu::block_dim());
    unsafe {
        let mut i = tid;
        while i < counter_count * slots {
            gpu::sts_u32(counters + 4 * i, 0);
            i += bd;
        }
        gpu::sync_threads();
        let mut shifts = [0u32; NP];
        let mut masks = [0u32; NP];
        unroll::<NP>(|p| (shifts[p], masks[p]) = digits.pass_digit(begin, end, p as u32));
        let per_step = bd as u64 * I as u64;
        let whole = n / per_step;
        let mut step = gpu::block_idx() as u64;
        // One argument list for the whole-step and the partial-step bodies.
        macro_rules! count_step_at {
            ($full:literal) => {
                count_step::<K, NP, I, $full, BINS>(
                    keys,
                    step * per_step + tid as u64,
                    n,
                    pos,
                    neg,
                    counters,
                    slots,
                    &shifts,
                    &masks,
                )
            };
        }
        while step < whole {
            count_step_at!(true);
            step += gpu::grid_dim() as u64;
        }
        if step == whole && whole * per_step < n {
            count_step_at!(false);
        }
        gpu::sync_threads();
        // No overflow: a block reads at most 2^31 keys (`hist::grid`), so neither a
        // word nor a counter's sum reaches 2^32.
        let lane = gpu::lane_id();
        let mut j = tid;
        while j < counter_count {
            let mut c = 0u32;
            for i in 0..slots {
                c += gpu::lds_u32(counters + 4 * hist::slot(j, slots, hist::sum_slot(i, slots, lane)));
            }
            if c != 0 {
                gpu::red_add_u64(ctrl.add(ctrl::hist(BINS, 0, j) as usize), c as u64);
            }
            j += bd;
        }
    }
}

/// Digit counts of every pass of `BINS` bins, then (last block) the offsets and the
/// plan; also clears the first launch's status words.
#[inline(always)]
pub(crate) unsafe fn histogram<K: Word, const BINS: u32>(p: Hist<K>) {
    let Hist { keys, n, begin, end, pos, neg, ctrl, status, status_words, packing } = p;
    let (keys, ctrl, status): (*const K, *mut u64, *mut u32) = (keys.get(), ctrl.get(), status.get());
    let base = gpu::smem_base();
    let flags = base + hist::FLAGS;
    let counters = base + hist::COUNTERS;
    let tid = gpu::thread_idx();
    let bd = gpu::block_dim();
    let digits = Digits { bits: BINS.trailing_zeros() };
    let np = digits.passes(begin, end);
    let ctrl32 = ctrl as *mut u32;
    unsafe {
        if tid < 16 {
            gpu::sts_u32(flags + 4 * tid, 0);
        }
        let stride = gpu::grid_dim() as u64 * bd as u64;
        // The pass count as a constant, so the per-pass shifts and masks sit in
        // registers and the per-key work is a shift, a mask and a shared add per pass.
        macro_rules! count {
            ($i:expr; $($np:literal)*) => {
                match np {
                    $($np => count_digits::<K, $np, { $i as usize }, BINS>(keys, n, begin, end, pos, neg, counters, ctrl),)*
                    _ => {}
                }
            };
        }
        // `I` is `hist::items(K::BYTES)`, which the host's grid assumes.
        if BINS > DIGITS && K::BYTES == 4 {
            count!(hist::items(4); 1 2 3);
        } else if BINS > DIGITS {
            count!(hist::items(8); 1 2 3 4 5 6);
        } else if K::BYTES == 4 && DIGIT_BITS == 8 {
            count!(hist::items(4); 1 2 3 4);
        } else if K::BYTES == 4 {
            count!(hist::items(4); 1 2 3 4 5 6 7 8);
        } else {
            count!(hist::items(8); 1 2 3 4 5 6 7 8);
        }
        let mut j = gpu::global_idx();
        while j < status_words {
            *status.add(j as usize) = 0;
            j += stride;
        }
        // The last block to get here sees every block's counts.
        gpu::thread_fence();
        gpu::sync_threads();
        if tid == 0 {
            let done = gpu::atomic_add_u32(ctrl32.add(ctrl::DONE as usize), 1);
            gpu::sts_u32(flags, (done + 1 == gpu::grid_dim()) as u32);
        }
        gpu::sync_threads();
        if gpu::lds_u32(flags) == 0 {
            return;
        }
        gpu::thread_fence();
        // Each thread scans `own` consecutive digits (all of them with the block's
        // `HIST_BLOCK` threads).
        let own = BINS.div_ceil(HIST_BLOCK);
        let first = tid * own;
        for p in 0..np {
            let count = |d: u32| gpu::ld_volatile_u64(ctrl.add(ctrl::hist(BINS, p, d) as usize));
            let mut sum = 0u64;
            for d in first..(first + own).min(BINS) {
                let c = count(d);
                sum += c;
                if c == n {
                    gpu::sts_u32(flags + 4 + 4 * p, 1);
                }
            }
            let (mut excl, _) = block_exclusive_sum_u64(sum, gpu::dyn_smem::<u8>().add(hist::SCAN as usize).cast());
            for d in first..(first + own).min(BINS) {
                *ctrl.add(ctrl::carry(BINS, p, 0, d) as usize) = excl;
                excl += count(d);
            }
        }
        gpu::sync_threads();
        if tid == 0 {
            let plan = packed_plan(np, |p| gpu::lds_u32(flags + 4 + 4 * p) != 0, Packing::from_u32(packing));
            for (p, e) in plan.iter().enumerate() {
                *ctrl32.add(ctrl::PLAN as usize + p) = *e;
            }
        }
    }
}

/// The digit pass of keys `K` with values `V` (if `PAIRS`), `I` keys per thread,
/// digits of `BINS` bins (`OWN`: [`Digits::owned`]).
#[inline(always)]
pub(crate) unsafe fn sweep<K: Word, V: Word, const PAIRS: bool, const I: usize, const BINS: u32, const OWN: usize>(
    p: Sweep<K, V>,
) {
    let Sweep {
        keys_a,
        keys_b,
        vals_a,
        vals_b,
        keys_c,
        vals_c,
        n,
        first_tile,
        tiles,
        shift,
        mask,
        pos,
        neg,
        pass,
        launch,
        portion,
        status,
        status_tiles,
        ctrl,
    } = p;
    let (split_keys, split_vals) = (core::ptr::null_mut(), core::ptr::null_mut());
    let p = Pass {
        keys_a: keys_a.get(),
        keys_b: keys_b.get(),
        vals_a: vals_a.get(),
        vals_b: vals_b.get(),
        keys_c: keys_c.get(),
        vals_c: vals_c.get(),
        split_keys,
        split_vals,
        n,
        first_tile,
        tiles,
        shift,
        mask,
        pos,
        neg,
        pass,
        launch,
        portion,
        status: status.get(),
        status_tiles,
        ctrl: ctrl.get(),
    };
    unsafe { onesweep::<K, V, PAIRS, false, I, BINS, OWN>(p) }
}

/// The digit pass of a packed sort ([`PackedSweep`]), digits of `BINS` bins.
#[inline(always)]
pub(crate) unsafe fn packed_sweep<const BINS: u32, const OWN: usize>(p: PackedSweep) {
    let PackedSweep {
        keys,
        vals,
        packed_a,
        packed_b,
        n,
        first_tile,
        tiles,
        shift,
        mask,
        pos,
        neg,
        pass,
        launch,
        portion,
        status,
        status_tiles,
        ctrl,
    } = p;
    const I: usize = PACKED_ITEMS as usize;
    let (keys_a, keys_b, split_keys, split_vals) = (packed_a.get(), packed_b.get(), keys.get(), vals.get());
    let (vals_a, vals_b): (*mut u32, *mut u32) = (core::ptr::null_mut(), core::ptr::null_mut());
    let p = Pass {
        keys_a,
        keys_b,
        vals_a,
        vals_b,
        keys_c: core::ptr::null_mut(),
        vals_c: core::ptr::null_mut(),
        split_keys,
        split_vals,
        n,
        first_tile,
        tiles,
        shift,
        mask,
        pos,
        neg,
        pass,
        launch,
        portion,
        status: status.get(),
        status_tiles,
        ctrl: ctrl.get(),
    };
    unsafe { onesweep::<u64, u32, false, true, I, BINS, OWN>(p) }
}

/// The one-block sort entry ([`Small`]), `I` keys per thread.
#[inline(always)]
pub(crate) unsafe fn small_entry<K: Word, V: Word, const PAIRS: bool, const I: usize>(p: Small<K, V>) {
    let Small { keys, vals, n, begin, end, pos, neg } = p;
    unsafe { small::<K, V, PAIRS, I>(keys.get(), vals.get(), n, begin, end, pos, neg) }
}

/// [`UnpackBack`]: unpacks the pairs when the plan left them packed in buffer B.
#[inline(always)]
pub(crate) unsafe fn unpack_back(p: UnpackBack) {
    let UnpackBack { packed_b, keys, vals, n, ctrl } = p;
    let (packed_b, keys, vals, ctrl): (*const u64, *mut u32, *mut u32, *const u64) =
        (packed_b.get(), keys.get(), vals.get(), ctrl.get());
    unsafe {
        for_each_copied_back(ctrl, n, |i| {
            let w = *packed_b.add(i);
            *keys.add(i) = (w >> 32) as u32;
            *vals.add(i) = w as u32;
        })
    }
}

/// Calls `f(i)` for `i < n`, grid-strided, when the plan left the result in scratch
/// buffer B; otherwise does nothing (the usual case: the copy-back kernels then only
/// read the plan).
#[inline(always)]
unsafe fn for_each_copied_back(ctrl: *const u64, n: u64, mut f: impl FnMut(usize)) {
    unsafe {
        if *(ctrl as *const u32).add((ctrl::PLAN + MAX_PASSES) as usize) != PLAN_FROM_B {
            return;
        }
    }
    let stride = gpu::grid_dim() as u64 * gpu::block_dim() as u64;
    let mut i = gpu::global_idx();
    while i < n {
        f(i as usize);
        i += stride;
    }
}

/// [`CopyBack`]: copies the result back when the plan left it in the scratch buffers.
#[inline(always)]
pub(crate) unsafe fn copy_back(p: CopyBack) {
    let CopyBack { keys_b, keys_a, key_words, vals_b, vals_a, val_words, ctrl } = p;
    let (keys_b, keys_a, vals_b, vals_a, ctrl): (*const u32, *mut u32, *const u32, *mut u32, *const u64) =
        (keys_b.get(), keys_a.get(), vals_b.get(), vals_a.get(), ctrl.get());
    let key_words = key_words as usize;
    unsafe {
        for_each_copied_back(ctrl, key_words as u64 + val_words, |i| {
            if i < key_words {
                *keys_a.add(i) = *keys_b.add(i);
            } else {
                *vals_a.add(i - key_words) = *vals_b.add(i - key_words);
            }
        })
    }
}
