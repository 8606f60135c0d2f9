//! The radix kernels (see the module docs for the passes).
use super::params::{ArgBack, CopyBack, Fused, Hist, PackedSweep, Small, Sweep, UnpackBack};
use super::*;
use crate::block::WARP;
use crate::block::rank::{RankSmem, rank_by_digit, rank_tile};
use crate::block::scan::warp_inclusive_sum_u64;
use crate::block::smem::{lds_at, sts_at};
use crate::block::tile::{block_striped, load_striped, warp_striped};
use crate::block::unroll;
use crate::gpu;
use crate::key::Word;
use crate::nan::nan_mapped;

/// How a pass takes the digit of a raw key: the digit of its order bits
/// (`raw.ordered(pos, neg).digit(shift, mask)`). With `SAME` (integers: one order mask
/// for either sign) that is [`same_mask_digit`]: a shift and one three-input logic op
/// a key, with no test of the sign bit, where the order bits and then the digit took
/// five instructions. Keys whose masks differ keep the order bits first: with both masks'
/// digits held in registers the 64-, 16- and 8-bit and the packed passes spilled.
#[derive(Clone, Copy)]
struct DigitOf<K> {
    shift: u32,
    mask: u32,
    pos: K,
    neg: K,
}

impl<K: Word> DigitOf<K> {
    #[inline(always)]
    fn of<const SAME: bool>(self, raw: K) -> u32 {
        if SAME {
            // The mask's digit veiled: seen through, the compiler folded the XOR back
            // before the shift (an XOR, a shift and a mask a key).
            same_mask_digit(raw, self.shift, self.mask, gpu::veiled_u32(self.pos.digit(self.shift, self.mask)))
        } else {
            raw.ordered(self.pos, self.neg).digit(self.shift, self.mask)
        }
    }
}

/// What a digit pass knows of its keys' order masks (`onesweep`'s `MASKS`): nothing
/// until it runs (each way of a tile instantiated twice, the masks compared at run
/// time), or that they are equal (integers; the argsort's order bits, masks zero),
/// one way. A kernel that holds one way needs fewer registers: the argsort kernels'
/// spills went 228 -> 84 bytes with one, the integer pair kernel's 140 -> 88 (H200,
/// 2026-11-29). (A kernel of float pairs' way alone spilled nothing and was 1%
/// slower: float keys keep `MASKS_EITHER`.)
pub(crate) const MASKS_EITHER: u8 = 0;
pub(crate) const MASKS_EQUAL: u8 = 1;

/// Digit of warp-striped item `k`; items past `valid` get 255, above every real
/// digit, so they rank after every key of the tile.
#[inline(always)]
fn digit_of<K: Word, const I: usize, const SAME: bool>(keys: &[K; I], k: usize, valid: u32, of: DigitOf<K>) -> u32 {
    let (warp, lane) = (gpu::thread_idx() / WARP, gpu::lane_id());
    let o = warp_striped(warp, k as u32, lane, I as u32);
    if o < valid { of.of::<SAME>(keys[k]) } else { DIGITS - 1 }
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

/// Loads the `valid` keys `KW` (`u32` or `u16`) at `keys[start..]` warp-striped, `I`
/// per thread, each packed with its position as `key << 32 | position` (an argsort's
/// first pass: the value is made, not read; the key mapped by [`nan_mapped`] with
/// `nan_inf`, then to its order bits by `order`, the key's `(pos, neg)` masks, and
/// zero-extended: an argsort stores no key, so its words carry order bits and every
/// pass ranks them as unsigned, [`onesweep`]); every load is issued before any word
/// is built.
/// With `carry` the low half is the key's own bits instead of its position
/// ([`CARRY_K16`]).
#[inline(always)]
unsafe fn load_arg<KW: Word, W: Word, const I: usize>(
    keys: *const KW,
    start: u64,
    valid: u32,
    nan_inf: u32,
    order: (u32, u32),
    carry: bool,
) -> [W; I] {
    let raw = unsafe { load_striped::<KW, I>(keys, start, valid) };
    let mut ks = raw;
    if nan_inf != 0 {
        let inf = KW::from_u64(nan_inf as u64);
        unroll::<I>(|k| ks[k] = nan_mapped(ks[k], inf));
    }
    let (pos, neg) = (KW::from_u64(order.0 as u64), KW::from_u64(order.1 as u64));
    unroll::<I>(|k| ks[k] = ks[k].ordered(pos, neg));
    let (warp, lane) = (gpu::thread_idx() / WARP, gpu::lane_id());
    // Below 2^32 keys (the host's check): positions fit 32 bits, and item `k`'s is
    // this thread's first plus `k` warp widths, so one register holds them all.
    let first = start as u32 + warp_striped(warp, 0, lane, I as u32);
    let mut out = [W::ZERO; I];
    if carry {
        unroll::<I>(|k| out[k] = W::from_u64(ks[k].to_u64() << 32 | raw[k].to_u64()));
    } else {
        unroll::<I>(|k| out[k] = W::from_u64(ks[k].to_u64() << 32 | (first + k as u32 * WARP) as u64));
    }
    out
}

/// `ARG` of the packed passes that sort 16-bit float keys by their NaN-last canonical
/// bits carrying each key's own bits in the value half: the last pass stores the keys
/// themselves (`V` = `u16`), NaN payloads and zero signs kept, with no argsort and
/// gather ([`packed_sweep`]).
pub(crate) const CARRY_K16: u32 = 0x102;

/// `(a, b)` or `(b, a)`: selected by value, not by indexing an array, which would put
/// the pointers in local memory and turn every global access into a generic one.
#[inline(always)]
fn pick<P>(swap: bool, a: P, b: P) -> (P, P) {
    if swap { (b, a) } else { (a, b) }
}

fn rank_smem(base: u32, s: &Smem) -> RankSmem {
    RankSmem { warp_digits: base + s.warp_digits, scan: base + s.scan, digit_start: base + s.digit_start }
}

/// Predecessor tiles whose status words one look-back step reads at once.
const LOOK_BACK_WINDOW: usize = 8;

/// Keys of digit `d` in all tiles before `tile` (of this launch), from their status
/// words: walks back, summing aggregates, until a tile that published its inclusive
/// prefix. Reads [`LOOK_BACK_WINDOW`] tiles per step (independent loads, so one step
/// costs one memory latency), then uses them nearest first and stops at the first
/// tile that has published nothing yet, which the next step reads again. Tile 0
/// always publishes a prefix, so the walk ends.
#[inline(always)]
unsafe fn look_back(status: *const u32, tile: u32, d: u32) -> u32 {
    let mut sum = 0u32;
    let mut next = tile; // tiles next-1, next-2, ... remain to be read
    loop {
        let mut w = [0u32; LOOK_BACK_WINDOW];
        unroll::<LOOK_BACK_WINDOW>(|j| {
            if (j as u32) < next {
                w[j] = unsafe { gpu::ld_relaxed_u32(status.add(((next - 1 - j as u32) * DIGITS + d) as usize)) };
            }
        });
        let mut used = 0u32;
        let mut done = false;
        unroll::<LOOK_BACK_WINDOW>(|j| {
            if !done && used == j as u32 && (j as u32) < next {
                let flag = w[j] & FLAG_MASK;
                if flag != 0 {
                    sum += w[j] & VALUE_MASK;
                    used += 1;
                    done = flag == FLAG_PREFIX;
                }
            }
        });
        if done {
            return sum;
        }
        next -= used;
    }
}

/// The parameters of one digit-pass launch (see the kernel entries).
#[derive(Clone, Copy)]
struct Pass<K, V> {
    /// Buffers A and B of the items (keys, or packed pairs) and of the values.
    keys_a: *mut K,
    keys_b: *mut K,
    vals_a: *mut V,
    vals_b: *mut V,
    /// Packed sorts: the caller's split arrays (an argsort's keys: `u32` or, `ARG` = 2, `u16`).
    split_keys: *mut u32,
    split_vals: *mut u32,
    /// Split sorts into A: the caller's input, read by the first pass that runs
    /// (`PLAN_LOAD_SPLIT` on a split pass, [`super::into_plan`]); null otherwise.
    in_keys: *const K,
    in_vals: *const V,
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
    /// The argsort's first pass: the `+inf` bits of `f32` keys mapped to NaN-last
    /// order as they are loaded ([`load_arg`]); 0 otherwise.
    nan_inf: u32,
}

/// One digit pass over one portion of tiles: takes a tile, clears the next launch's
/// status words, and unless the plan skips this pass sorts the tile ([`sweep_tile`]).
/// Buffers A and B are `keys_a`/`vals_a` and `keys_b`/`vals_b`; the plan entry says
/// which is read ([`route`]). With `PACKED` the items are `key << 32 | value` words
/// (`K` = `u64`, ranked as 64-bit keys on the key half by `shift` and the masks), A and B are packed scratch, and the plan may say to load from or store to the caller's split
/// arrays instead: each of those ways is its own instantiation of [`sweep_tile`], so
/// none carries the others' pointers and branches. With `ARG` (an argsort, `PACKED`
/// too: the bytes of its keys, 4 or 2; 0 for other sorts) the split load reads keys of
/// that width (`split_keys` then points to them) and makes each value from the key's
/// position, and the split store writes only the values, as `V` (`split_vals` then
/// points to `V`s).
#[inline(always)]
unsafe fn onesweep<
    K: Word,
    V: Word,
    const PAIRS: bool,
    const PACKED: bool,
    const ARG: u32,
    const ANY_ORDER: bool,
    const MASKS: u8,
    const I: usize,
>(
    p: Pass<K, V>,
) {
    let s = if PACKED { Smem::packed() } else { Smem::onesweep(K::BYTES, if PAIRS { V::BYTES } else { 0 }) };
    let base = gpu::smem_base();
    let tid = gpu::thread_idx();
    let ctrl32 = p.ctrl as *mut u32;
    unsafe {
        let plan = *ctrl32.add((ctrl::PLAN + p.pass) as usize);
        let words = p.status_tiles as usize * DIGITS as usize;
        let (cur, other) =
            if p.launch & 1 == 0 { (p.status, p.status.add(words)) } else { (p.status.add(words), p.status) };
        if tid == 0 {
            gpu::sts_u32(base + s.tile_id, gpu::atomic_add_u32(ctrl32.add((ctrl::COUNTERS + p.launch) as usize), 1));
        }
        gpu::sync_threads();
        let tile = gpu::lds_u32(base + s.tile_id);
        // The next launch's status words (its buffer was used two launches ago).
        if tid < DIGITS {
            let mut t = tile;
            while t < p.status_tiles {
                *other.add((t * DIGITS + tid) as usize) = 0;
                t += p.tiles;
            }
        }
        if plan == PLAN_SKIP {
            return;
        }
        // Integer keys (one order mask for either sign) take digits without a sign
        // test ([`DigitOf`]): each way below is instantiated twice. For 32- and 16-bit
        // keys and the packed pair and argsort words. Not for 64-bit and 8-bit keys:
        // there ptxas held the tile's digits from the count to the ranking and spilled
        // 20-36 bytes, for no gain to measure. The packed pair pass spills too (140
        // bytes) and still gained 2% at 2^28 (H200, 2026-11-29).
        //
        // An argsort stores only the indices, so its first pass maps each key to its
        // order bits as it loads it ([`load_arg`], with the key half of the masks) and
        // every pass ranks the words as unsigned keys: float keys too take digits
        // without the sign test, and the argsort kernels hold one way of ranking, not
        // two (spills 228 -> 84 bytes). f32 argsorts 10% faster, u32 and i32 2% at
        // 2^28 (H200, 2026-11-29).
        let order = ((p.pos.to_u64() >> 32) as u32, (p.neg.to_u64() >> 32) as u32);
        let p = if ARG != 0 { Pass { pos: K::ZERO, neg: K::ZERO, ..p } } else { p };
        let same =
            MASKS == MASKS_EQUAL || (K::BYTES == 4 || K::BYTES == 2 || PACKED) && p.pos.to_u64() == p.neg.to_u64();
        macro_rules! tile {
            ($pairs:expr, $load_split:expr, $store_split:expr, $arg:expr, $any:expr) => {
                if same {
                    sweep_tile::<K, V, $pairs, $load_split, $store_split, $arg, $any, true, I>(
                        &p, &s, plan, tile, cur, order,
                    )
                } else {
                    sweep_tile::<K, V, $pairs, $load_split, $store_split, $arg, $any, false, I>(
                        &p, &s, plan, tile, cur, order,
                    )
                }
            };
        }
        if !PACKED {
            return tile!(PAIRS, false, false, 0, ANY_ORDER);
        }
        // A pass never both loads and stores the caller's arrays (`packed_plan`).
        match route(plan) {
            // Ties in any order on the load of an argsort that asks for no stability
            // (`ANY_ORDER`, set by argsort entries only): the first pass that runs,
            // whose ties are ordered by a later pass or are equal keys, whose order
            // the caller left free.
            (Buf::Caller, _) => tile!(false, true, false, ARG, ANY_ORDER),
            (_, Buf::Caller) => tile!(false, false, true, ARG, false),
            _ => tile!(false, false, false, 0, false),
        }
    }
}

/// The body of [`onesweep`] on tile `tile`, for the fused kernels (shared memory laid
/// out as `s`): clears the next launch's status words of this tile, and unless the plan
/// skips the pass sorts it. [`onesweep`] keeps its own copy, which reads the plan before
/// it takes a tile (the load overlaps the atomic); sharing this one made its passes
/// 0.3-0.6% slower at 2^24 and 2^28 keys (H100, 2026-11-28).
#[inline(always)]
unsafe fn onesweep_tile<K: Word, V: Word, const PAIRS: bool, const PACKED: bool, const ARG: u32, const I: usize>(
    p: Pass<K, V>,
    s: &Smem,
    tile: u32,
) {
    let tid = gpu::thread_idx();
    let ctrl32 = p.ctrl as *mut u32;
    unsafe {
        let plan = *ctrl32.add((ctrl::PLAN + p.pass) as usize);
        let words = p.status_tiles as usize * DIGITS as usize;
        let (cur, other) =
            if p.launch & 1 == 0 { (p.status, p.status.add(words)) } else { (p.status.add(words), p.status) };
        // The next launch's status words (its buffer was used two launches ago).
        if tid < DIGITS {
            let mut t = tile;
            while t < p.status_tiles {
                *other.add((t * DIGITS + tid) as usize) = 0;
                t += p.tiles;
            }
        }
        if plan == PLAN_SKIP {
            return;
        }
        if !PACKED {
            return sweep_tile::<K, V, PAIRS, false, false, 0, false, false, I>(&p, s, plan, tile, cur, (0, 0));
        }
        // A pass never both loads and stores the caller's arrays (`packed_plan`).
        match route(plan) {
            (Buf::Caller, _) => {
                sweep_tile::<K, V, false, true, false, ARG, false, false, I>(&p, s, plan, tile, cur, (0, 0))
            }
            (_, Buf::Caller) => {
                sweep_tile::<K, V, false, false, true, ARG, false, false, I>(&p, s, plan, tile, cur, (0, 0))
            }
            _ => sweep_tile::<K, V, false, false, false, 0, false, false, I>(&p, s, plan, tile, cur, (0, 0)),
        }
    }
}

/// The work of [`onesweep`] on tile `tile` of a pass that runs: load (from the split
/// arrays, packing, with `LOAD_SPLIT`), rank by digit, publish the counts and look
/// back (`status`: this launch's status words), scatter (to the split arrays,
/// unpacking, with `STORE_SPLIT`), then the values of a `PAIRS` pass. `ARG`: the
/// split load and store of an argsort ([`onesweep`]), whose load maps the keys to
/// their order bits by the masks `order`.
#[inline(always)]
unsafe fn sweep_tile<
    K: Word,
    V: Word,
    const PAIRS: bool,
    const LOAD_SPLIT: bool,
    const STORE_SPLIT: bool,
    const ARG: u32,
    const ANY_ORDER: bool,
    const SAME: bool,
    const I: usize,
>(
    p: &Pass<K, V>,
    s: &Smem,
    plan: u32,
    tile: u32,
    status: *mut u32,
    order: (u32, u32),
) {
    let tile_len = BLOCK * I as u32;
    let base = gpu::smem_base();
    let tid = gpu::thread_idx();
    let n = p.n;
    let of = DigitOf { shift: p.shift, mask: p.mask, pos: p.pos, neg: p.neg };
    unsafe {
        let from_b = plan & PLAN_FROM_B != 0;
        let (src, dst) = pick(from_b, p.keys_a, p.keys_b);
        // A split pass flagged to load from the caller reads the input of a sort into
        // A (packed passes so flagged take the `LOAD_SPLIT` instantiation instead).
        let from_input = !LOAD_SPLIT && !STORE_SPLIT && plan & PLAN_LOAD_SPLIT != 0;
        let src = if from_input { p.in_keys as *mut K } else { src };
        let start = (p.first_tile + tile as u64) * tile_len as u64;
        let valid = core::cmp::min(tile_len as u64, n - start) as u32;
        // Keys alone, stored into B or A: `global_base` holds the runs' addresses.
        let direct = !PAIRS && !STORE_SPLIT;
        let ks = if LOAD_SPLIT && (ARG == 2 || ARG == CARRY_K16) {
            load_arg::<u16, K, I>(p.split_keys as *const u16, start, valid, p.nan_inf, order, ARG == CARRY_K16)
        } else if LOAD_SPLIT && ARG != 0 {
            load_arg::<u32, K, I>(p.split_keys, start, valid, p.nan_inf, order, false)
        } else if LOAD_SPLIT {
            load_packed::<K, I>(p.split_keys, p.split_vals, start, valid)
        } else {
            super::narrow::load_tile::<K, I>(src, start, valid, base + s.keys)
        };
        let my_status = status.add((tile * DIGITS) as usize);
        let mut total = 0u32;
        let digit = |k| digit_of::<K, I, SAME>(&ks, k, valid, of);
        let (warp, lane) = (tid / WARP, gpu::lane_id());
        rank_tile::<I, DIGITS, ANY_ORDER>(
            digit,
            rank_smem(base, s),
            |d, t| {
                total = if d == DIGITS - 1 { t - (tile_len - valid) } else { t };
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
        if tid < DIGITS {
            let d = tid;
            let mut before = 0u32;
            if tile > 0 {
                before = look_back(status, tile, d);
                gpu::st_relaxed_u32(my_status.add(d as usize), FLAG_PREFIX | (before + total));
            }
            let parity = p.portion & 1;
            let carry_in = *p.ctrl.add(ctrl::carry(p.pass, parity, d) as usize);
            let run_start = gpu::lds_u32(base + s.digit_start + 4 * d);
            let offset = (carry_in + before as u64).wrapping_sub(run_start as u64);
            // A keys-only store into `dst` takes the run's address in place of its
            // position: one multiply-add a key where the position took three
            // instructions (u32 keys 2.5% faster at 2^28, H200, 2026-11-29).
            let word = if direct { (dst as u64).wrapping_add(offset.wrapping_mul(K::BYTES as u64)) } else { offset };
            gpu::sts_u64(base + s.global_base + 8 * d, word);
            if tile == p.tiles - 1 {
                *p.ctrl.add(ctrl::carry(p.pass, parity ^ 1, d) as usize) = carry_in + (before + total) as u64;
            }
        }
        gpu::sync_threads();
        let mut dig = [0u32; I];
        unroll::<I>(|k| {
            let i = block_striped(tid, k as u32, BLOCK);
            if i < valid {
                let key = lds_at::<K>(base + s.keys + i * K::BYTES);
                let d = of.of::<SAME>(key);
                dig[k] = d;
                let run = gpu::lds_u64(base + s.global_base + 8 * d);
                let at = run.wrapping_add(i as u64);
                if direct {
                    gpu::st_global_word(run.wrapping_add(i as u64 * K::BYTES as u64), key);
                } else if STORE_SPLIT && ARG != 0 {
                    *(p.split_vals as *mut V).add(at as usize) = V::from_u64(key.to_u64() & 0xffff_ffff);
                } else if STORE_SPLIT {
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
            let vsrc = if from_input { p.in_vals as *mut V } else { vsrc };
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
    unsafe { small_into::<K, V, PAIRS, I>(keys, vals, keys, vals, n, begin, end, pos, neg) }
}

/// [`small`] from `src_keys` / `src_vals` into `keys` / `vals` (the same arrays: in
/// place).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn small_into<K: Word, V: Word, const PAIRS: bool, const I: usize>(
    src_keys: *const K,
    src_vals: *const V,
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
        let mut ks = load_striped::<K, I>(src_keys, 0, n);
        let mut vs = if PAIRS { load_striped::<V, I>(src_vals, 0, n) } else { [V::ZERO; I] };
        for p in 0..passes(begin, end) {
            let (shift, mask) = pass_digit(begin, end, p);
            let of = DigitOf { shift, mask, pos, neg };
            let digit = |k| digit_of::<K, I, false>(&ks, k, n, of);
            rank_by_digit::<I, DIGITS>(
                digit,
                rank_smem(base, &s),
                |_, _| {},
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
unsafe fn count_step<
    K: Word,
    const NP: usize,
    const I: usize,
    const FULL: bool,
    const SAME: bool,
    const CHECK_INF: u64,
>(
    keys: *const K,
    first: u64,
    n: u64,
    nan_inf: K,
    pos: K,
    neg: K,
    counters: u32,
    slots: u32,
    shifts: &[u32; NP],
    masks: &[u32; NP],
) -> bool {
    let bd = gpu::block_dim() as usize;
    let lane = gpu::lane_id();
    let at = unsafe { keys.add(first as usize) };
    // Keys `j < valid` lie inside the input: one count rather than a flag per key,
    // which left the partial step short of registers (spills at 1024 threads).
    let valid = if FULL || first >= n { 0 } else { (n - first).div_ceil(bd as u64).min(I as u64) as usize };
    let mut ks = [K::ZERO; I];
    let mut found = false;
    unroll::<I>(|j| {
        if FULL || j < valid {
            let raw = unsafe { *at.add(j * bd) };
            if CHECK_INF != 0 {
                found |= crate::nan::is_nan_or_negative_zero(raw, K::from_u64(CHECK_INF));
            }
            let raw = nan_mapped(raw, nan_inf);
            // `SAME`: one mask for either sign (integers), so no test of the sign bit.
            ks[j] = raw.ordered(pos, if SAME { pos } else { neg });
        }
    });
    unroll::<NP>(|p| {
        unroll::<I>(|j| {
            if FULL || j < valid {
                let counter = p as u32 * DIGITS + ks[j].digit(shifts[p], masks[p]);
                unsafe { gpu::reds_add_u32(counters + 4 * hist::slot(counter, slots, lane), 1) };
            }
        })
    });
    found
}

/// This block's digit counts of all `NP` passes, added to the global ones (`SLOTS`
/// words per counter, [`hist::slot`]): clears its counters, counts whole steps of `blockDim * I` keys grid-strided without
/// bound tests, then the one partial step (if any) by the block whose turn it is, and
/// sums each counter's words. Every thread of the block must call it.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn count_digits<
    K: Word,
    const NP: usize,
    const I: usize,
    const SLOTS: u32,
    const WHOLE: bool,
    const SAME: bool,
    const CHECK_INF: u64,
>(
    keys: *const K,
    n: u64,
    nan_inf: K,
    begin: u32,
    end: u32,
    pos: K,
    neg: K,
    counters: u32,
    ctrl: *mut u64,
) {
    let slots = SLOTS;
    let counter_count = NP as u32 * DIGITS;
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
        // `WHOLE`: every bit of the key, in passes of whole digits, so each pass's shift
        // and mask are constants (a byte's extraction and no mask register a pass).
        unroll::<NP>(|p| {
            (shifts[p], masks[p]) =
                if WHOLE { (p as u32 * DIGIT_BITS, DIGITS - 1) } else { pass_digit(begin, end, p as u32) }
        });
        let per_step = bd as u64 * I as u64;
        let whole = n / per_step;
        let mut step = gpu::block_idx() as u64;
        // One argument list for the whole-step and the partial-step bodies.
        let mut found = false;
        macro_rules! count_step_at {
            ($full:literal) => {
                found |= count_step::<K, NP, I, $full, SAME, CHECK_INF>(
                    keys,
                    step * per_step + tid as u64,
                    n,
                    nan_inf,
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
        if found {
            // Every writer stores the same value: no atomic needed.
            *(ctrl as *mut u32).add(ctrl::NAN_FOUND as usize) = 1;
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
                gpu::red_add_u64(ctrl.add((ctrl::HIST + j) as usize), c as u64);
            }
            j += bd;
        }
    }
}

/// Digit counts of every pass over bits `begin..end` of the `n` keys at `keys`, added
/// to the control block's (every thread of every block calls it; the counters start at
/// `counters`). `FUSED`: the fused kernels' histogram ([`fused_hist_items`] keys a
/// thread a step, [`fused_slots`] words a counter), else the histogram kernel's
/// ([`hist::items`], [`hist::slots`], which the host's grid assumes). `nan_inf`: as in
/// [`histogram`].
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn count_passes<K: Word, const FUSED: bool, const CHECK_INF: u64>(
    keys: *const K,
    n: u64,
    nan_inf: K,
    begin: u32,
    end: u32,
    pos: K,
    neg: K,
    counters: u32,
    ctrl: *mut u64,
) {
    let np = passes(begin, end);
    // The pass count as a constant, so the per-pass shifts and masks sit in
    // registers and the per-key work is a shift, a mask and a shared add per pass.
    // The histogram kernel's sorts of keys of up to 32 bits by every bit (the usual
    // sort) take their own instantiations: constant shifts, and for integers (one order
    // mask for either sign) no sign test a key; the fused kernels keep one (their
    // registers are tight).
    let whole = !FUSED && begin == 0 && end == 8 * K::BYTES;
    let same = pos.to_u64() == neg.to_u64();
    macro_rules! count {
        ($kb:literal, $fused:literal; $($np:literal)*) => {
            match np {
                $($np => unsafe {
                    const I: usize = count_items($kb, $fused);
                    const S: u32 = count_slots($kb, $np, $fused);
                    // Not for 64-bit keys: their eight constant passes spilled (240
                    // bytes of stack at the 64 registers of 1,024 threads).
                    const WHOLE: bool = !$fused && $kb <= 4 && $np * DIGIT_BITS == 8 * $kb;
                    if WHOLE && whole && same {
                        count_digits::<K, $np, I, S, true, true, CHECK_INF>(
                            keys, n, nan_inf, begin, end, pos, neg, counters, ctrl,
                        )
                    } else if WHOLE && whole {
                        count_digits::<K, $np, I, S, true, false, CHECK_INF>(
                            keys, n, nan_inf, begin, end, pos, neg, counters, ctrl,
                        )
                    } else {
                        count_digits::<K, $np, I, S, false, false, CHECK_INF>(
                            keys, n, nan_inf, begin, end, pos, neg, counters, ctrl,
                        )
                    }
                },)*
                _ => {}
            }
        };
    }
    macro_rules! count_widths {
        ($fused:literal) => {
            if K::BYTES == 4 && DIGIT_BITS == 8 {
                count!(4, $fused; 1 2 3 4);
            } else if K::BYTES == 4 {
                count!(4, $fused; 1 2 3 4 5 6 7 8);
            } else if K::BYTES == 2 {
                count!(2, $fused; 1 2 3);
            } else if K::BYTES == 1 {
                count!(1, $fused; 1 2);
            } else {
                count!(8, $fused; 1 2 3 4 5 6 7 8);
            }
        };
    }
    if FUSED {
        count_widths!(true);
    } else {
        count_widths!(false);
    }
}

/// Keys a thread loads per histogram step ([`count_passes`]).
const fn count_items(kb: u32, fused: bool) -> usize {
    (if fused { fused_hist_items(kb) } else { hist::items(kb) }) as usize
}

/// Words per histogram counter ([`count_passes`]) with `np` passes.
const fn count_slots(kb: u32, np: u32, fused: bool) -> u32 {
    if fused { fused_slots(kb) } else { hist::slots(np) }
}

/// The end of the histogram, by one block once every block's counts are in the control
/// block: each pass's exclusive digit offsets (`carry` of parity 0) and the plan
/// (trivial passes skipped, `packing` applied; `into` != 0: a sort into another buffer,
/// [`super::into_plan`]). Smem flags at `hist::FLAGS` (one per
/// pass from word 1), the scan's at `hist::SCAN`. Every thread of the block calls it.
///
/// The block scans `blockDim / DIGITS` passes at once (every pass of 32-bit keys in
/// one round of the histogram's 1,024 threads): their counts are loaded together, and
/// each pass's digits are scanned by its own warps, with the warps' totals scanned in
/// segments of one pass. One memory round trip and one scan a round, where a pass at
/// a time took one of each per pass at the end of every sort.
#[inline(always)]
unsafe fn offsets_and_plan(ctrl: *mut u64, n: u64, np: u32, packing: u32, into: u32, buckets: u32) {
    // Warps per pass, which the segmented scan of the warps' totals assumes.
    const SEGMENT: u32 = DIGITS / WARP;
    let base = gpu::smem_base();
    let flags = base + hist::FLAGS;
    let tid = gpu::thread_idx();
    let (warp, lane) = (tid / WARP, gpu::lane_id());
    let warps = gpu::block_dim() / WARP;
    let per_round = gpu::block_dim() / DIGITS;
    let ctrl32 = ctrl as *mut u32;
    unsafe {
        let totals: *mut u64 = gpu::dyn_smem::<u8>().add(hist::SCAN as usize).cast();
        if tid < 16 {
            gpu::sts_u32(flags + 4 * tid, 0);
        }
        gpu::thread_fence();
        let mut first = 0;
        while first < np {
            let (p, d) = (first + tid / DIGITS, tid % DIGITS);
            let mine = tid / DIGITS < per_round && p < np;
            let c = if mine { gpu::ld_volatile_u64(ctrl.add((ctrl::HIST + p * DIGITS + d) as usize)) } else { 0 };
            let incl = warp_inclusive_sum_u64(c);
            if lane == WARP - 1 {
                *totals.add(warp as usize) = incl;
            }
            gpu::sync_threads();
            if warp == 0 {
                let t = if lane < warps { *totals.add(lane as usize) } else { 0 };
                let mut v = t;
                let mut step = 1;
                while step < SEGMENT {
                    let up = gpu::shfl_up_u64(v, step);
                    if lane % SEGMENT >= step {
                        v += up;
                    }
                    step <<= 1;
                }
                // Every lane read its slot before the shuffles, which converge the warp.
                *totals.add(lane as usize) = v - t;
            }
            gpu::sync_threads();
            if mine {
                *ctrl.add(ctrl::carry(p, 0, d) as usize) = *totals.add(warp as usize) + incl - c;
                if c == n {
                    gpu::sts_u32(flags + 4 + 4 * p, 1);
                }
                if p + 1 == np && c > buckets as u64 {
                    gpu::sts_u32(flags + BUCKET_TOO_LARGE, 1);
                }
            }
            gpu::sync_threads();
            first += per_round;
        }
        if tid == 0 {
            let trivial = |p| gpu::lds_u32(flags + 4 + 4 * p) != 0;
            let largest = if gpu::lds_u32(flags + BUCKET_TOO_LARGE) != 0 { u64::MAX } else { 0 };
            let plan = if buckets_fit(np, largest, buckets) {
                buckets_plan(np, into != 0)
            } else if into != 0 {
                into_plan(np, trivial)
            } else {
                packed_plan(np, trivial, Packing::from_u32(packing))
            };
            for (p, e) in plan.iter().enumerate() {
                *ctrl32.add(ctrl::PLAN as usize + p) = *e;
            }
        }
    }
}

/// The histogram's shared-memory flag (in bytes from `hist::FLAGS`, after the
/// passes' trivial flags) that a group of the top digit holds more keys than the
/// bucket kernel takes ([`offsets_and_plan`]).
const BUCKET_TOO_LARGE: u32 = 4 + 4 * MAX_PASSES;

/// Digit counts of every pass, then (last block) the offsets and the plan; also
/// clears the first launch's status words. `NAN_INF`: the `+inf` bits of float keys
/// counted as their canonical bits ([`nan_mapped`]: an argsort in NaN-last order),
/// 0 for keys counted as they are. A constant, so that the plain histograms stay as
/// they were (the map in the same kernel made them spill).
#[inline(always)]
pub(crate) unsafe fn histogram<K: Word, const NAN_INF: u64>(p: Hist<K>) {
    unsafe { histogram_body::<K, NAN_INF, 0>(p) }
}

/// [`histogram`] of keys counted as they are that also sets
/// [`ctrl::NAN_FOUND`] if one of them is a NaN or `-0.0` of the float format whose
/// `+inf` has bits `CHECK_INF` ([`crate::nan::is_nan_or_negative_zero`]): the
/// NaN-last sort's check, made by the read the histogram makes anyway.
#[inline(always)]
pub(crate) unsafe fn histogram_checking<K: Word, const CHECK_INF: u64>(p: Hist<K>) {
    unsafe { histogram_body::<K, 0, CHECK_INF>(p) }
}

#[inline(always)]
unsafe fn histogram_body<K: Word, const NAN_INF: u64, const CHECK_INF: u64>(p: Hist<K>) {
    let Hist { keys, n, begin, end, pos, neg, ctrl, status, status_words, packing, into, verdict, buckets } = p;
    let nan_inf = K::from_u64(NAN_INF);
    let (keys, ctrl, status): (*const K, *mut u64, *mut u32) = (keys.get(), ctrl.get(), status.get());
    let base = gpu::smem_base();
    let flags = base + hist::FLAGS;
    let counters = base + hist::COUNTERS;
    let tid = gpu::thread_idx();
    let bd = gpu::block_dim();
    let ctrl32 = ctrl as *mut u32;
    unsafe {
        count_passes::<K, false, CHECK_INF>(keys, n, nan_inf, begin, end, pos, neg, counters, ctrl);
        let stride = gpu::grid_dim() as u64 * bd as u64;
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
        gpu::sync_threads();
        offsets_and_plan(ctrl, n, passes(begin, end), packing, into, buckets);
        if CHECK_INF != 0 && tid == 0 && verdict.addr() != 0 {
            // Every block's flag is in: each stored it before its fence and arrival.
            let found = gpu::ld_relaxed_u32(ctrl32.add(ctrl::NAN_FOUND as usize)) != 0;
            gpu::st_relaxed_sys_u32(verdict.get(), 1 + found as u32);
        }
    }
}

/// Waits, in every thread of the block, until the arrival counter at `counter` reaches
/// `target`: the grid-wide barrier of the fused kernels, whose blocks are all resident.
/// The block's global writes before it are visible to every block after it (a fence
/// before the arrival, another after the wait, as CUDA's grid synchronisation does).
/// `arrive`: whether this block adds its arrival (the release of the histogram's
/// barrier adds one more, [`fused`]).
#[inline(always)]
unsafe fn grid_wait(counter: *mut u32, target: u32, arrive: bool) {
    unsafe {
        gpu::sync_threads();
        if gpu::thread_idx() == 0 {
            gpu::thread_fence();
            if arrive {
                gpu::red_add_u32(counter, 1);
            }
            while gpu::ld_relaxed_u32(counter) < target {}
            gpu::thread_fence();
        }
        gpu::sync_threads();
    }
}

/// The fused sort ([`Fused`], [`FUSED_MAX`]): in one launch of blocks that are all
/// resident, the histogram (every block counts its share; the last to arrive at the
/// first barrier computes the offsets and the plan, then releases the others), each
/// digit pass on tiles of `I` keys a thread (block `b` takes tiles `b, b + grid, ...`),
/// a barrier after each, and the copy-back when the plan left the result in buffer B
/// (with [`Fused::clean`], the control block left zeroed first: [`leave_clean`]).
/// Barrier `j` (1 after the histogram, `p + 2` after pass `p`) waits for the counter
/// to reach [`fused_barrier`]`(j, grid)`.
#[inline(always)]
pub(crate) unsafe fn fused<K: Word, V: Word, const PAIRS: bool, const I: usize>(f: Fused<K, V>) {
    let Fused { keys_a, keys_b, vals_a, vals_b, n, begin, end, pos, neg, status, status_tiles, ctrl, clean } = f;
    let (keys_a, keys_b, vals_a, vals_b) = (keys_a.get(), keys_b.get(), vals_a.get(), vals_b.get());
    let (status, ctrl) = (status.get(), ctrl.get());
    let base = gpu::smem_base();
    let tid = gpu::thread_idx();
    let grid = gpu::grid_dim();
    let ctrl32 = ctrl as *mut u32;
    let counter = unsafe { ctrl32.add(ctrl::BARRIER as usize) };
    let np = passes(begin, end);
    unsafe {
        count_passes::<K, true, 0>(keys_a, n, K::ZERO, begin, end, pos, neg, base + hist::COUNTERS, ctrl);
        // Status words of pass 0.
        let status_words = status_tiles as u64 * DIGITS as u64;
        let stride = grid as u64 * gpu::block_dim() as u64;
        let mut j = gpu::global_idx();
        while j < status_words {
            *status.add(j as usize) = 0;
            j += stride;
        }
        // Barrier 1; the last block to arrive writes the offsets and the plan first.
        gpu::sync_threads();
        if tid == 0 {
            gpu::thread_fence();
            let arrived = gpu::atomic_add_u32(counter, 1) + 1;
            gpu::sts_u32(base + hist::FLAGS, (arrived == grid) as u32);
        }
        gpu::sync_threads();
        if gpu::lds_u32(base + hist::FLAGS) != 0 {
            gpu::sync_threads();
            offsets_and_plan(ctrl, n, np, Packing::Split as u32, 0, 0);
            gpu::sync_threads();
            if tid == 0 {
                gpu::thread_fence();
                gpu::red_add_u32(counter, 1);
            }
        }
        grid_wait(counter, fused_barrier(1, grid), false);

        let s = Smem::onesweep_items(K::BYTES, if PAIRS { V::BYTES } else { 0 }, I as u32);
        for pass in 0..np {
            let (shift, mask) = pass_digit(begin, end, pass);
            let p = Pass {
                keys_a,
                keys_b,
                vals_a,
                vals_b,
                split_keys: core::ptr::null_mut(),
                split_vals: core::ptr::null_mut(),
                in_keys: core::ptr::null(),
                in_vals: core::ptr::null(),
                n,
                first_tile: 0,
                tiles: status_tiles,
                shift,
                mask,
                pos,
                neg,
                pass,
                launch: pass,
                portion: 0,
                status,
                status_tiles,
                ctrl,
                nan_inf: 0,
            };
            let mut tile = gpu::block_idx();
            while tile < status_tiles {
                onesweep_tile::<K, V, PAIRS, false, 0, I>(p, &s, tile);
                gpu::sync_threads();
                tile += grid;
            }
            if pass + 1 < np || result_in_b(ctrl) {
                grid_wait(counter, fused_barrier(pass + 2, grid), true);
            }
        }
        let copy = result_in_b(ctrl);
        if clean != 0 {
            leave_clean(ctrl, np);
        }
        if copy {
            copy_strided(keys_b, keys_a, n);
            if PAIRS {
                copy_strided(vals_b, vals_a, n);
            }
        }
    }
}

/// The end of a fused kernel that leaves its control block zeroed ([`Fused::clean`]):
/// each block counts itself out once it reads the block no more, and the last one
/// zeroes the digit counts of the `np` passes and the two counters. Every block is past
/// every barrier by then, so nothing reads them any more.
#[inline(always)]
unsafe fn leave_clean(ctrl: *mut u64, np: u32) {
    let base = gpu::smem_base();
    let tid = gpu::thread_idx();
    let ctrl32 = ctrl as *mut u32;
    unsafe {
        gpu::sync_threads();
        if tid == 0 {
            gpu::thread_fence();
            let out = gpu::atomic_add_u32(ctrl32.add(ctrl::EXIT as usize), 1) + 1;
            gpu::sts_u32(base + hist::FLAGS, (out == gpu::grid_dim()) as u32);
        }
        gpu::sync_threads();
        if gpu::lds_u32(base + hist::FLAGS) == 0 {
            return;
        }
        gpu::thread_fence();
        let mut i = tid;
        while i < np * DIGITS {
            *ctrl.add((ctrl::HIST + i) as usize) = 0;
            i += gpu::block_dim();
        }
        if tid == 0 {
            *ctrl32.add(ctrl::BARRIER as usize) = 0;
            *ctrl32.add(ctrl::EXIT as usize) = 0;
        }
    }
}

/// The digit pass of keys `K` with values `V` (if `PAIRS`), `I` keys per thread.
#[inline(always)]
pub(crate) unsafe fn sweep<K: Word, V: Word, const PAIRS: bool, const ANY_ORDER: bool, const I: usize>(p: Sweep<K, V>) {
    let Sweep {
        keys_a,
        keys_b,
        vals_a,
        vals_b,
        keys_in,
        vals_in,
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
        split_keys,
        split_vals,
        in_keys: keys_in.get(),
        in_vals: vals_in.get(),
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
        nan_inf: 0,
    };
    unsafe { onesweep::<K, V, PAIRS, false, 0, ANY_ORDER, MASKS_EITHER, I>(p) }
}

/// The digit pass over packed words ([`PackedSweep`]) of a pair sort (`KW` = `V` =
/// `u32`, `ARG` = 0: the caller's split keys and values are loaded and stored) or,
/// with `ARG` = the bytes of `KW` (`u32` or `u16` keys), of an argsort (the values are
/// made from positions by the first pass and only the indices, of `V`, stored by the
/// last), or with `ARG` = [`CARRY_K16`] (`KW` = `V` = `u16`) of the sort of 16-bit
/// float keys that carries the keys as the values. `ANY_ORDER` (argsorts only): the
/// first pass ranks ties in any order, an argsort whose equal keys may come out in
/// any order.
#[inline(always)]
pub(crate) unsafe fn packed_sweep<KW: Word, V: Word, const ARG: u32, const MASKS: u8, const ANY_ORDER: bool>(
    p: PackedSweep<KW, V>,
) {
    const {
        assert!(if ARG == 0 {
            KW::BYTES == 4
        } else if ARG == CARRY_K16 {
            KW::BYTES == 2 && V::BYTES == 2
        } else {
            ARG == KW::BYTES && (ARG == 4 || ARG == 2)
        })
    };
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
        nan_inf,
    } = p;
    const I: usize = PACKED_ITEMS as usize;
    let (vals_a, vals_b): (*mut V, *mut V) = (core::ptr::null_mut(), core::ptr::null_mut());
    let p = Pass {
        keys_a: packed_a.get(),
        keys_b: packed_b.get(),
        vals_a,
        vals_b,
        split_keys: keys.get() as *mut u32,
        split_vals: vals.get() as *mut u32,
        in_keys: core::ptr::null(),
        in_vals: core::ptr::null(),
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
        nan_inf,
    };
    unsafe { onesweep::<u64, V, false, true, ARG, ANY_ORDER, MASKS, I>(p) }
}

/// [`ArgBack`]: the indices of an argsort whose plan ran fewer than two passes
/// ([`arg_finish`]). With `CARRY` the keys of the in-place sort of [`CARRY_K16`]
/// instead: no pass ran, they are in order where they are; one ran, the low halves of
/// its words are the keys.
#[inline(always)]
pub(crate) unsafe fn arg_back<IDX: Word, const CARRY: bool>(p: ArgBack<IDX>) {
    let ArgBack { packed_b, idx, n, passes, ctrl } = p;
    let (packed_b, idx, ctrl): (*const u64, *mut IDX, *const u32) = (packed_b.get(), idx.get(), ctrl.get().cast());
    let mut plan = [PLAN_SKIP; MAX_PASSES as usize];
    let passes = passes.min(MAX_PASSES);
    for (p, e) in plan.iter_mut().enumerate().take(passes as usize) {
        *e = unsafe { *ctrl.add(ctrl::PLAN as usize + p) };
    }
    let finish = arg_finish(&plan, passes);
    if finish == ArgFinish::Nothing || CARRY && finish == ArgFinish::Iota {
        return;
    }
    let stride = gpu::grid_dim() as u64 * gpu::block_dim() as u64;
    let mut i = gpu::global_idx();
    while i < n {
        let v = if finish == ArgFinish::Iota { i } else { unsafe { *packed_b.add(i as usize) & 0xffff_ffff } };
        unsafe { *idx.add(i as usize) = IDX::from_u64(v) };
        i += stride;
    }
}

/// The one-block sort entry ([`Small`]), `I` keys per thread.
#[inline(always)]
pub(crate) unsafe fn small_entry<K: Word, V: Word, const PAIRS: bool, const I: usize>(p: Small<K, V>) {
    let Small { keys, vals, n, begin, end, pos, neg } = p;
    unsafe { small::<K, V, PAIRS, I>(keys.get(), vals.get(), n, begin, end, pos, neg) }
}

/// [`Buckets`]: under the plan by buckets ([`buckets_plan`]), block `b` sorts the top
/// digit's groups `b, b + grid, ...` from buffer B into A, each by the one-block sort
/// on the smallest of its tiles that holds the group ([`small_items`]; the group's
/// size is uniform across the block, so every thread reaches the same barriers). The
/// top digit's pass was stable and each group's sort is, so the result is the stable
/// sort's. Under another plan this is the copy-back ([`copy_back`]).
#[inline(always)]
pub(crate) unsafe fn buckets<K: Word, V: Word, const PAIRS: bool, const FULL: usize>(p: Buckets<K, V>) {
    let Buckets { keys_a, keys_b, vals_a, vals_b, n, begin, end, pos, neg, ctrl } = p;
    let (keys_a, keys_b, vals_a, vals_b, ctrl): (*mut K, *mut K, *mut V, *mut V, *const u64) =
        (keys_a.get(), keys_b.get(), vals_a.get(), vals_b.get(), ctrl.get());
    unsafe {
        let result = *(ctrl as *const u32).add((ctrl::PLAN + MAX_PASSES) as usize);
        if result != PLAN_BUCKETS {
            if result == PLAN_FROM_B {
                copy_strided(keys_b, keys_a, n);
                if PAIRS {
                    copy_strided(vals_b, vals_a, n);
                }
            }
            return;
        }
        let top = passes(begin, end) - 1;
        let (shift, mask) = pass_digit(begin, end, top);
        let vb = if PAIRS { V::BYTES } else { 0 };
        let mut d = gpu::block_idx();
        while d <= mask {
            let count = *ctrl.add((ctrl::HIST + top * DIGITS + d) as usize);
            let start = *ctrl.add(ctrl::carry(top, 0, d) as usize) as usize;
            let (kb, ka) = (keys_b.add(start), keys_a.add(start));
            let (vb_, va) = if PAIRS { (vals_b.add(start), vals_a.add(start)) } else { (vals_b, vals_a) };
            let c = count as u32;
            match small_items(count, K::BYTES, vb) {
                SHORT_ITEMS => {
                    small_into::<K, V, PAIRS, { SHORT_ITEMS as usize }>(kb, vb_, ka, va, c, begin, shift, pos, neg)
                }
                MID_ITEMS => {
                    small_into::<K, V, PAIRS, { MID_ITEMS as usize }>(kb, vb_, ka, va, c, begin, shift, pos, neg)
                }
                _ => small_into::<K, V, PAIRS, FULL>(kb, vb_, ka, va, c, begin, shift, pos, neg),
            }
            // The next group reuses the shared memory.
            gpu::sync_threads();
            d += gpu::grid_dim();
        }
    }
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

/// Whether the plan left the sort's result in scratch buffer B.
#[inline(always)]
pub(super) unsafe fn result_in_b(ctrl: *const u64) -> bool {
    unsafe { *(ctrl as *const u32).add((ctrl::PLAN + MAX_PASSES) as usize) == PLAN_FROM_B }
}

/// Calls `f(i)` for `i < n`, grid-strided, when the plan left the result in scratch
/// buffer B; otherwise does nothing (the usual case: the copy-back kernels then only
/// read the plan).
#[inline(always)]
unsafe fn for_each_copied_back(ctrl: *const u64, n: u64, mut f: impl FnMut(usize)) {
    if unsafe { !result_in_b(ctrl) } {
        return;
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
pub(crate) unsafe fn copy_back<K: Word>(p: CopyBack<K>) {
    let CopyBack { keys_b, keys_a, key_words, vals_b, vals_a, val_words, ctrl } = p;
    let (keys_b, keys_a, vals_b, vals_a, ctrl): (*const K, *mut K, *const u32, *mut u32, *const u64) =
        (keys_b.get(), keys_a.get(), vals_b.get(), vals_a.get(), ctrl.get());
    unsafe {
        if !result_in_b(ctrl) {
            return;
        }
        copy_strided(keys_b, keys_a, key_words);
        copy_strided(vals_b, vals_a, val_words);
    }
}

/// Words copied per thread and step by [`copy_strided`]: the launch keeps a few
/// blocks an SM (it usually copies nothing), so each thread has several loads in
/// flight before it stores (one word at a time, a 2 GiB copy-back ran at ~0.5 TB/s).
const COPY_UNROLL: u64 = 8;

/// Copies `n` words from `src` to `dst`, grid-strided, [`COPY_UNROLL`] loads before
/// their stores.
#[inline(always)]
unsafe fn copy_strided<W: Word>(src: *const W, dst: *mut W, n: u64) {
    let stride = gpu::grid_dim() as u64 * gpu::block_dim() as u64;
    let mut base = gpu::global_idx() as u64;
    while base < n {
        let mut v = [W::ZERO; COPY_UNROLL as usize];
        for (j, w) in v.iter_mut().enumerate() {
            let i = base + j as u64 * stride;
            if i < n {
                *w = unsafe { *src.add(i as usize) };
            }
        }
        for (j, w) in v.iter().enumerate() {
            let i = base + j as u64 * stride;
            if i < n {
                unsafe { *dst.add(i as usize) = *w };
            }
        }
        base += COPY_UNROLL * stride;
    }
}
