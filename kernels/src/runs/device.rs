//! The run kernels (see the module docs).
use super::*;
use crate::block::WARP;
use crate::block::scan::{warp_sum_u32, warp_sum_u64};
use crate::block::tile::{load_striped, warp_striped};
use crate::block::unroll;
use crate::gpu;

/// `__shfl_up_sync` of a key word: one shuffle for words of up to 4 bytes, two for 8.
#[inline(always)]
fn shfl_up<W: Word>(v: W, delta: u32) -> W {
    if W::BYTES <= 4 {
        W::from_u64(gpu::shfl_up_u32(v.to_u64() as u32, delta) as u64)
    } else {
        W::from_u64(gpu::shfl_up_u64(v.to_u64(), delta))
    }
}

/// `__shfl_sync` of a key word.
#[inline(always)]
fn shfl_idx<W: Word>(v: W, lane: u32) -> W {
    if W::BYTES <= 4 {
        W::from_u64(gpu::shfl_idx_u32(v.to_u64() as u32, lane) as u64)
    } else {
        W::from_u64(gpu::shfl_idx_u64(v.to_u64(), lane))
    }
}

/// The carry of the tiles `next - 1 - lane` and before, of lanes `0..=upto` (nearest
/// first): the runs add up; the last head is that of the nearest tile with one.
#[inline(always)]
fn window(c: Carry, upto: u32) -> Carry {
    let mine = gpu::lane_id() <= upto;
    let runs = warp_sum_u64(if mine { c.runs } else { 0 });
    let with_head = gpu::ballot(mine && c.last != 0);
    let last = if with_head != 0 { gpu::shfl_idx_u64(c.last, with_head.trailing_zeros()) } else { 0 };
    Carry { runs, last }
}

/// `nanosleep`: lets the warp's SM sub-partition issue other warps' loads for about
/// `ns` nanoseconds.
#[inline(always)]
fn nanosleep(ns: u32) {
    unsafe { core::arch::asm!("nanosleep.u32 {t};", t = in(reg32) ns, options(nomem, nostack)) };
}

/// The carry of all tiles before `tile` from their status words (warp 0 only, all its
/// lanes). Each round loads the [`LOOK_BACK`] nearest unread predecessors at once
/// (lane `l` of slot `k` holds tile `next - 1 - 32 k - l`), then walks them 32 at a
/// time: it stops at the nearest inclusive prefix if every tile up to it has
/// published, takes 32 aggregates and goes on, or reads again from where it stands
/// if a tile has not published yet, after sleeping `backoff` ns (0: at once), so that
/// waiting warps do not flood the L2 with status reads while the tiles they wait for
/// load their keys. Tile 0 publishes a prefix at once, so the walk ends.
#[inline(always)]
unsafe fn look_back(words: *const u64, tile: u32, backoff: u32) -> Carry {
    const SLOTS: usize = (LOOK_BACK / WARP) as usize;
    let lane = gpu::lane_id();
    let mut acc = Carry::default(); // the tiles already walked (nearer ones)
    let mut next = tile; // tiles next-1, next-2, ... remain
    loop {
        let mut seen = [(0u64, Carry::default()); SLOTS];
        unroll::<SLOTS>(|k| {
            let off = k as u32 * WARP + lane;
            seen[k] = if off < next {
                let at = 2 * (next - 1 - off) as usize;
                unsafe { status::unpack([gpu::ld_relaxed_u64(words.add(at)), gpu::ld_relaxed_u64(words.add(at + 1))]) }
            } else {
                (status::PREFIX, Carry::default()) // before tile 0: nothing
            };
        });
        // Walked with static indices (a dynamic index put `seen` in local memory);
        // `stop` is warp-uniform, so every lane runs the same ballots.
        let (mut stop, mut found) = (false, None);
        unroll::<SLOTS>(|k| {
            if stop {
                return;
            }
            let (flag, c) = seen[k];
            let prefixes = gpu::ballot(flag == status::PREFIX);
            let waiting = gpu::ballot(flag == 0);
            if prefixes != 0 {
                let nearest = prefixes.trailing_zeros();
                let upto = u32::MAX >> (31 - nearest); // lanes 0..=nearest
                if waiting & upto == 0 {
                    found = Some(window(c, nearest).then(acc));
                }
                stop = true; // done, or read again from `next`
            } else if waiting == 0 {
                acc = window(c, WARP - 1).then(acc);
                next -= WARP;
            } else {
                stop = true;
            }
        });
        if let Some(c) = found {
            return c;
        }
        // `next` did not move past the tile that stopped the walk only when one of
        // them had not published: wait before reading again.
        if stop && backoff != 0 {
            nanosleep(backoff);
        }
    }
}

/// Writes run `r`'s length: a `u32` at `out[r]`, or with `wide` a `u64` at `out`
/// seen as `u64`s (for callers whose counts are int64, which then need no widening
/// pass); nothing where `out` is null (no counts asked for).
#[inline(always)]
unsafe fn write_count(out: *mut u32, wide: u32, r: usize, len: u64) {
    unsafe {
        if out.is_null() {
            return;
        }
        if wide != 0 {
            *(out as *mut u64).add(r) = len;
        } else {
            *out.add(r) = len as u32;
        }
    }
}

/// Flags the heads of one tile, finds the carry before it, and writes its runs.
#[inline(always)]
pub unsafe fn encode<K: Word + PartialEq, const I: usize>(p: Encode<K>) {
    let Encode { keys, n, inf, backoff, wide_counts, ctrl, status: words, out_keys, out_counts } = p;
    let (keys, ctrl, words) = (keys.get(), ctrl.get(), words.get());
    let (out_keys, out_counts) = (out_keys.get(), out_counts.get());
    let base = gpu::smem_base();
    let (tid, lane) = (gpu::thread_idx(), gpu::lane_id());
    let warp = tid / WARP;
    // Shared memory: [0] tile id, [16..32] the tile's exclusive carry, [32..] the warps'
    // carries, then each warp's head masks (one word an item: kept across the
    // look-back in shared memory, not in registers).
    let warp_slot = |w: u32| base + 32 + 8 * w;
    let mask_slot = |j: usize| base + 32 + 8 * WARPS + 4 * (warp * I as u32 + j as u32);
    let item_base = |j: usize| warp_striped(warp, j as u32, 0, I as u32); // tile offset
    unsafe {
        if tid == 0 {
            gpu::sts_u32(base, gpu::atomic_add_u32((ctrl as *mut u32).add(ctrl::TILE_COUNTER as usize), 1));
        }
        gpu::sync_threads();
        let tile = gpu::lds_u32(base);
        let tile_len = BLOCK * I as u32;
        let start = tile as u64 * tile_len as u64;
        let valid = core::cmp::min(tile_len as u64, n - start) as u32;
        let warp_first = item_base(0);
        // The key before the warp's first (lane 0 only), loaded with the tile so that
        // no ballot waits for it.
        let g0 = start + warp_first as u64;
        let mut before = K::ZERO;
        if lane == 0 && g0 > 0 && warp_first < valid {
            before = *keys.add(g0 as usize - 1);
        }
        let ks = load_striped::<K, I>(keys, start, valid);

        // Pass 1: one ballot of heads per item (warp-uniform masks), and the warp's
        // carry from them.
        let mut carry = TileCarry::default();
        let mut prev_last = before; // lane 31's key of the previous item
        unroll::<I>(|j| {
            let up = shfl_up(ks[j], 1);
            let prev = if lane == 0 { prev_last } else { up };
            let o = item_base(j) + lane;
            let head = o < valid && ((start == 0 && o == 0) || !same(ks[j], prev, inf));
            let mask = gpu::ballot(head);
            if lane == 0 {
                gpu::sts_u32(mask_slot(j), mask);
            }
            carry = carry.then(TileCarry::of_item(mask, item_base(j)));
            prev_last = shfl_idx(ks[j], WARP - 1);
        });
        if lane == 0 {
            gpu::sts_u32(warp_slot(warp), carry.runs);
            gpu::sts_u32(warp_slot(warp) + 4, carry.last);
        }
        gpu::sync_threads();

        // The tile's carry (warp 0): the warps' carries in order, then the look-back.
        if warp == 0 {
            let mut tile_carry = TileCarry::default();
            for w in 0..WARPS {
                tile_carry = tile_carry
                    .then(TileCarry { runs: gpu::lds_u32(warp_slot(w)), last: gpu::lds_u32(warp_slot(w) + 4) });
            }
            let tile_carry = tile_carry.global(start);
            let my_status = words.add(2 * tile as usize);
            let publish = |flag: u64, c: Carry| {
                let [a, b] = status::pack(flag, c);
                gpu::st_relaxed_u64(my_status, a);
                gpu::st_relaxed_u64(my_status.add(1), b);
            };
            let before_tile = if tile == 0 {
                if lane == 0 {
                    publish(status::PREFIX, tile_carry);
                }
                Carry::default()
            } else {
                if lane == 0 {
                    publish(status::AGGREGATE, tile_carry);
                }
                let c = look_back(words, tile, backoff);
                if lane == 0 {
                    publish(status::PREFIX, c.then(tile_carry));
                }
                c
            };
            if lane == 0 {
                gpu::sts_u64(base + 16, before_tile.runs);
                gpu::sts_u64(base + 24, before_tile.last);
                if start + valid as u64 == n {
                    // The tile of the last key: the last run's length and the count.
                    let all = before_tile.then(tile_carry);
                    write_count(out_counts, wide_counts, all.runs as usize - 1, n - (all.last - 1));
                    *ctrl.add(ctrl::RUNS as usize) = all.runs;
                }
            }
        }
        gpu::sync_threads();

        // Pass 2: each head writes its key and the length of the run before it.
        if carry.runs == 0 {
            return; // warp-uniform: no head in this warp
        }
        let before_tile = Carry { runs: gpu::lds_u64(base + 16), last: gpu::lds_u64(base + 24) };
        let mut run = TileCarry::default(); // the tile's heads before this item
        for w in 0..warp {
            run = run.then(TileCarry { runs: gpu::lds_u32(warp_slot(w)), last: gpu::lds_u32(warp_slot(w) + 4) });
        }
        let below = gpu::lanemask_lt();
        unroll::<I>(|j| {
            let mask = gpu::lds_u32(mask_slot(j));
            if mask >> lane & 1 != 0 {
                let lower = mask & below;
                let r = before_tile.runs + (run.runs + lower.count_ones()) as u64;
                let o = item_base(j) + lane;
                let g = start + o as u64;
                // Read again (an L1 or L2 hit) rather than kept in registers across the
                // look-back.
                *out_keys.add(r as usize) = *keys.add(g as usize);
                if r > 0 {
                    let prev = if lower != 0 {
                        start + (item_base(j) + 31 - lower.leading_zeros()) as u64
                    } else if run.last != 0 {
                        start + run.last as u64 - 1
                    } else {
                        before_tile.last - 1
                    };
                    write_count(out_counts, wide_counts, r as usize - 1, g - prev);
                }
            }
            run = run.then(TileCarry::of_item(mask, item_base(j)));
        });
    }
}

/// Key `i` of a 16-byte vector of keys `K` (little-endian: key 0 in the low bytes).
#[inline(always)]
fn vector_key<K: Word>(v: [u32; 4], i: usize) -> K {
    if K::BYTES == 8 {
        K::from_u64(v[2 * i] as u64 | (v[2 * i + 1] as u64) << 32)
    } else {
        let at = i * K::BYTES as usize;
        K::from_u64((v[at / 4] >> (8 * (at % 4))) as u64)
    }
}

/// The carry of a warp's keys (tile offsets from `first`) from its head-mask words,
/// word `q` (keys `32 q..`) in lane `q`: every lane gets it.
#[inline(always)]
fn warp_carry(mine: u32, first: u32) -> TileCarry {
    let runs = warp_sum_u32(mine.count_ones());
    let with_head = gpu::ballot(mine != 0);
    // `with_head` is warp-uniform, so every lane takes the same branch.
    let last = if with_head != 0 {
        let q = 31 - with_head.leading_zeros();
        let w = gpu::shfl_idx_u32(mine, q);
        first + 32 * q + (31 - w.leading_zeros()) + 1
    } else {
        0
    };
    TileCarry { runs, last }
}

/// The split encoding's first pass: the heads of one tile as mask words and the tile's
/// carry (see [`Count`]). Every key is read once, `I` 16-byte vectors of `V` keys a
/// thread, all loads in flight together; no wait on other blocks.
#[inline(always)]
pub unsafe fn count<K: Word + PartialEq, const I: usize, const V: usize>(p: Count<K>) {
    let Count { keys, n, inf, masks, tile_carries } = p;
    let (keys, masks, tile_carries) = (keys.get(), masks.get(), tile_carries.get());
    let base = gpu::smem_base();
    let (tid, lane) = (gpu::thread_idx(), gpu::lane_id());
    let warp = tid / WARP;
    const { assert!(I * V <= WARP as usize, "one mask word a lane") };
    let group = WARP / V as u32; // lanes per mask word
    // Tile offset of item `j` of the warp.
    let item0 = |j: usize| (warp * I as u32 + j as u32) * WARP * V as u32;
    unsafe {
        let tile = gpu::block_idx();
        let tile_len = BLOCK * (I * V) as u32;
        let start = tile as u64 * tile_len as u64;
        let valid = core::cmp::min(tile_len as u64, n - start) as u32;
        // The key before the warp's first (lane 0 only), loaded with the tile.
        let warp_first = item0(0);
        let g0 = start + warp_first as u64;
        let mut before = K::ZERO;
        if lane == 0 && g0 > 0 && warp_first < valid {
            before = *keys.add(g0 as usize - 1);
        }
        // Whole vectors by one 16-byte load (the tile starts at a multiple of 16
        // bytes); in the last tile, the vector that holds the last key key by key.
        let mut ks = [[K::ZERO; V]; I];
        let vector_at = |o: u32| keys.add((start + o as u64) as usize) as *const [u32; 4];
        if valid == tile_len {
            unroll::<I>(|j| {
                let v = gpu::ld_global_v4_u32(vector_at(item0(j) + V as u32 * lane));
                unroll::<V>(|i| ks[j][i] = vector_key(v, i));
            });
        } else {
            unroll::<I>(|j| {
                let o = item0(j) + V as u32 * lane;
                if o + V as u32 <= valid {
                    let v = gpu::ld_global_v4_u32(vector_at(o));
                    unroll::<V>(|i| ks[j][i] = vector_key(v, i));
                } else {
                    unroll::<V>(|i| {
                        if o + (i as u32) < valid {
                            ks[j][i] = *keys.add((start + o as u64) as usize + i);
                        }
                    });
                }
            });
        }
        // Each lane's head bits, ORed across its group of lanes into the item's mask
        // words (see [`vector`]); lane `V j + m` keeps word `m` of item `j`, so that the
        // warp's words are its keys' masks in order, stored by one coalesced write.
        let mut prev_last = before; // lane 31's last key of the previous item
        let mut mine = 0u32;
        unroll::<I>(|j| {
            let up = shfl_up(ks[j][V - 1], 1);
            let first_prev = if lane == 0 { prev_last } else { up };
            let mut bits = 0u32;
            unroll::<V>(|i| {
                let prev = if i == 0 { first_prev } else { ks[j][i - 1] };
                let o = item0(j) + V as u32 * lane + i as u32;
                let head = o < valid && ((start == 0 && o == 0) || !same(ks[j][i], prev, inf));
                bits |= (head as u32) << i;
            });
            let mut word = bits << vector::nibble_shift(lane, V as u32);
            let mut d = 1;
            while d < group {
                word |= gpu::shfl_xor_u32(word, d);
                d *= 2;
            }
            let kept = gpu::shfl_idx_u32(word, (lane % V as u32) * group);
            if lane / V as u32 == j as u32 {
                mine = kept;
            }
            prev_last = shfl_idx(ks[j][V - 1], WARP - 1);
        });
        if lane < (I * V) as u32 {
            *masks.add((tile * WARPS + warp) as usize * I * V + lane as usize) = mine;
        }
        let carry = warp_carry(mine, warp_first);
        if lane == 0 {
            gpu::sts_u32(base + 8 * warp, carry.runs);
            gpu::sts_u32(base + 8 * warp + 4, carry.last);
        }
        gpu::sync_threads();
        if tid == 0 {
            let mut c = TileCarry::default();
            for w in 0..WARPS {
                c = c.then(TileCarry { runs: gpu::lds_u32(base + 8 * w), last: gpu::lds_u32(base + 8 * w + 4) });
            }
            *tile_carries.add(2 * tile as usize) = c.runs;
            *tile_carries.add(2 * tile as usize + 1) = c.last;
        }
    }
}

/// Inclusive scan of one [`Carry`] a lane across the warp (`then` in lane order).
#[inline(always)]
fn warp_scan_carry(mut c: Carry) -> Carry {
    let lane = gpu::lane_id();
    let mut d = 1;
    while d < WARP {
        let up = Carry { runs: gpu::shfl_up_u64(c.runs, d), last: gpu::shfl_up_u64(c.last, d) };
        if lane >= d {
            c = up.then(c);
        }
        d <<= 1;
    }
    c
}

/// The split encoding's second pass, one block: the carries before every tile, in
/// rounds of [`SCAN_BLOCK`] consecutive tiles (thread `t` takes tile `t` of the round,
/// so that a warp's loads and stores are coalesced), then the number of runs and the
/// last run's length. Each round's loads are issued during the round before.
///
/// Why striped: with 8 consecutive tiles a thread, a warp's loads and stores touched 32
/// lines each; ncu (H200, 2026-11-28, 2^26 u32 keys: 8,192 tiles) counted 47,106 L2
/// sectors against 7,938 ideal, warps stalled on the load/store queue
/// (`lg_throttle`) and on their loads, 32.6 us for a kernel of 355 active cycles a SM.
#[inline(always)]
pub unsafe fn scan(p: Scan) {
    let Scan { tile_carries, tiles, n, before, tile_len, ctrl, wide_counts, out_counts } = p;
    let (tile_carries, before, ctrl, out_counts) = (tile_carries.get(), before.get(), ctrl.get(), out_counts.get());
    let base = gpu::smem_base();
    let (tid, lane) = (gpu::thread_idx(), gpu::lane_id());
    let warp = tid / WARP;
    let tile_len = tile_len as u64;
    let total_slot = base + 16 * (SCAN_BLOCK / WARP);
    // The tile carry of tile `b` (both words in one load) as a [`Carry`] of all keys;
    // past the last tile, none (the index clamped: the load is always made). An asm
    // load, so that LLVM cannot sink it under the bounds test.
    let load = |b: u64| unsafe {
        let w = gpu::ld_global_cs::<u64>(tile_carries.add(2 * core::cmp::min(b, tiles - 1) as usize) as *const u64);
        let c = TileCarry { runs: w as u32, last: (w >> 32) as u32 }.global(b * tile_len);
        if b < tiles { c } else { Carry::default() }
    };
    let mut acc = Carry::default(); // every round before this one
    let mut first = 0u64;
    unsafe {
        let mut next = if tiles > 0 { load(tid as u64) } else { Carry::default() };
        while first < tiles {
            let b = first + tid as u64;
            let mine = next;
            next = load(b + SCAN_BLOCK as u64);
            let incl = warp_scan_carry(mine);
            if lane == WARP - 1 {
                gpu::sts_u64(base + 16 * warp, incl.runs);
                gpu::sts_u64(base + 16 * warp + 8, incl.last);
            }
            gpu::sync_threads();
            if warp == 0 {
                let w = Carry { runs: gpu::lds_u64(base + 16 * lane), last: gpu::lds_u64(base + 16 * lane + 8) };
                let wi = warp_scan_carry(w);
                // Each lane rewrites only the slot it read. Exclusive: the warps before, then the round's total in the last slot.
                let ex = Carry { runs: gpu::shfl_up_u64(wi.runs, 1), last: gpu::shfl_up_u64(wi.last, 1) };
                let ex = if lane == 0 { Carry::default() } else { ex };
                gpu::sts_u64(base + 16 * lane, ex.runs);
                gpu::sts_u64(base + 16 * lane + 8, ex.last);
                if lane == WARP - 1 {
                    gpu::sts_u64(total_slot, wi.runs);
                    gpu::sts_u64(total_slot + 8, wi.last);
                }
            }
            gpu::sync_threads();
            let warp_before = Carry { runs: gpu::lds_u64(base + 16 * warp), last: gpu::lds_u64(base + 16 * warp + 8) };
            let lane_before = Carry { runs: gpu::shfl_up_u64(incl.runs, 1), last: gpu::shfl_up_u64(incl.last, 1) };
            let lane_before = if lane == 0 { Carry::default() } else { lane_before };
            let run = acc.then(warp_before).then(lane_before);
            if b < tiles {
                *before.add(2 * b as usize) = run.runs;
                *before.add(2 * b as usize + 1) = run.last;
            }
            acc = acc.then(Carry { runs: gpu::lds_u64(total_slot), last: gpu::lds_u64(total_slot + 8) });
            gpu::sync_threads(); // the slots are written again next round
            first += SCAN_BLOCK as u64;
        }
        if tid == 0 && acc.runs > 0 {
            write_count(out_counts, wide_counts, acc.runs as usize - 1, n - (acc.last - 1));
            *ctrl.add(ctrl::RUNS as usize) = acc.runs;
        }
    }
}

/// The split encoding's last pass: the heads of one tile from its masks (`W` words a
/// warp), each writing its key (the only keys read) and the length of the run before
/// it. Lane `l` of round `u` takes the warp's head `32 u + l` ([`vector::first_above`],
/// [`vector::nth_set_bit`]), so that a round's writes are consecutive; the key loads
/// of [`WRITE_ROUNDS`] rounds are in flight together.
#[inline(always)]
pub unsafe fn write<K: Word, const W: usize>(p: Write<K>) {
    let Write { keys, masks, before, wide_counts, out_keys, out_counts } = p;
    let (keys, masks, before, out_keys, out_counts) =
        (keys.get(), masks.get(), before.get(), out_keys.get(), out_counts.get());
    let base = gpu::smem_base();
    let (tid, lane) = (gpu::thread_idx(), gpu::lane_id());
    let warp = tid / WARP;
    const R: usize = WRITE_ROUNDS;
    unsafe {
        let tile = gpu::block_idx();
        let start = tile as u64 * (BLOCK as usize * W) as u64;
        let warp_first = warp * W as u32 * WARP;
        let mine = if lane < W as u32 { *masks.add((tile * WARPS + warp) as usize * W + lane as usize) } else { 0 };
        let before_tile = Carry { runs: *before.add(2 * tile as usize), last: *before.add(2 * tile as usize + 1) };
        let carry = warp_carry(mine, warp_first);
        if lane == 0 {
            gpu::sts_u32(base + 8 * warp, carry.runs);
            gpu::sts_u32(base + 8 * warp + 4, carry.last);
        }
        gpu::sync_threads();
        let runs = carry.runs;
        if runs == 0 {
            return; // warp-uniform: no head in this warp
        }
        let mut run = TileCarry::default();
        for w in 0..warp {
            run = run.then(TileCarry { runs: gpu::lds_u32(base + 8 * w), last: gpu::lds_u32(base + 8 * w + 4) });
        }
        let first_rank = before_tile.runs + run.runs as u64;
        // Where the run before the warp's first head starts (unused when that head is
        // the first of all, rank 0).
        let mut prev = if run.last != 0 { start + run.last as u64 - 1 } else { before_tile.last.wrapping_sub(1) };
        let incl = crate::block::scan::warp_inclusive_sum_u32(mine.count_ones());
        let excl = incl - mine.count_ones();
        let mut h0 = 0;
        while h0 < runs {
            let mut g = [0u64; R];
            let mut ks = [K::ZERO; R];
            unroll::<R>(|u| {
                let h = h0 + 32 * u as u32 + lane;
                if h0 + 32 * (u as u32) < runs {
                    // Warp-uniform: every lane shuffles.
                    let q = vector::first_above(core::cmp::min(h, runs - 1), |x| gpu::shfl_idx_u32(incl, x));
                    let (w, below) = (gpu::shfl_idx_u32(mine, q), gpu::shfl_idx_u32(excl, q));
                    if h < runs {
                        let bit = vector::nth_set_bit(w, h - below);
                        g[u] = start + (warp_first + 32 * q + bit) as u64;
                        ks[u] = *keys.add(g[u] as usize);
                    }
                }
            });
            unroll::<R>(|u| {
                let h = h0 + 32 * u as u32 + lane;
                if h0 + 32 * (u as u32) < runs {
                    let up = gpu::shfl_up_u64(g[u], 1);
                    let from = if lane == 0 { prev } else { up };
                    if h < runs {
                        let r = first_rank + h as u64;
                        *out_keys.add(r as usize) = ks[u];
                        if r > 0 {
                            write_count(out_counts, wide_counts, r as usize - 1, g[u] - from);
                        }
                    }
                    prev = gpu::shfl_idx_u64(g[u], WARP - 1);
                }
            });
            h0 += 32 * R as u32;
        }
    }
}
