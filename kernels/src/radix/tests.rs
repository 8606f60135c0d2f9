//! The radix sort's index math, and a CPU model of its passes (tiles, look-back,
//! portions, plan, copy-back) built on the same functions the kernels use.
extern crate std;
use super::*;
use crate::key::{BitOrder, Word, ordered_u64};
use std::vec;
use std::vec::Vec;

/// Whether 64-bit keys fit [`MAX_PASSES`] at this digit width (not at the 7- and 6-bit
/// widths of the `digit-bits-*` experiments, which sort 32-bit keys only).
fn wide_keys_fit() -> bool {
    passes(0, 64) <= MAX_PASSES
}

#[test]
fn passes_and_digits_cover_the_bit_range() {
    let d = DIGIT_BITS;
    assert_eq!(passes(0, 32), 32u32.div_ceil(d));
    assert_eq!(passes(0, 64), 64u32.div_ceil(d));
    assert_eq!(passes(0, 1), 1);
    assert_eq!(passes(3, 20), 17u32.div_ceil(d));
    // A whole digit, then the last pass's remainder.
    assert_eq!(pass_digit(0, 32, 2), (2 * d, (1 << d) - 1));
    let last = passes(3, 20) - 1;
    assert_eq!(pass_digit(3, 20, last), (3 + last * d, (1 << (17 - last * d)) - 1));
    if d == 8 {
        assert_eq!((passes(0, 32), passes(0, 64), passes(3, 20)), (4, 8, 3));
        assert_eq!((pass_digit(0, 32, 3), pass_digit(3, 20, 2)), ((24, 0xff), (19, 0x1)));
    }
    assert!(passes(0, 32) <= MAX_PASSES);
    for (b, e) in [(0u32, 32u32), (0, 64), (5, 17), (31, 32), (0, 9)] {
        let mut covered = 0u64;
        for p in 0..passes(b, e) {
            let (shift, mask) = pass_digit(b, e, p);
            let bits = (mask as u64) << shift;
            assert_eq!(covered & bits, 0);
            covered |= bits;
        }
        let want = if e == 64 { u64::MAX << b } else { ((1u64 << e) - 1) & !((1u64 << b) - 1) };
        assert_eq!(covered, want, "{b}..{e}");
    }
}

/// [`same_mask_digit`] (the digit passes' digits of integer keys) against the digit of
/// the order bits, for every integer order, both directions, every width and bit range
/// the passes take.
#[test]
fn same_mask_digits_are_the_order_bits_digits() {
    fn check<K: Word>(keys: &[K], width: u32) {
        for order in [BitOrder::Unsigned, BitOrder::Signed] {
            for descending in [false, true] {
                let (pos, neg) = order.masks(width, descending);
                assert_eq!(pos, neg, "{order:?}: integers have one mask for either sign");
                let (pos, neg) = (K::from_u64(pos), K::from_u64(neg));
                for (begin, end) in [(0, width), (3, width - 1), (width / 2, width)] {
                    for p in 0..passes(begin, end) {
                        let (shift, mask) = pass_digit(begin, end, p);
                        for &k in keys {
                            assert_eq!(
                                same_mask_digit(k, shift, mask, pos.digit(shift, mask)),
                                k.ordered(pos, neg).digit(shift, mask),
                                "{order:?} desc={descending} key {:#x} shift {shift}",
                                k.to_u64()
                            );
                        }
                    }
                }
            }
        }
    }
    let mut s = 7u64;
    let raw: Vec<u64> = (0..500).map(|_| lcg(&mut s)).chain([0, 1, u64::MAX, 1 << 63, (1 << 63) - 1]).collect();
    check::<u64>(&raw, 64);
    check::<u32>(&raw.iter().map(|&k| (k >> 7) as u32).chain([1 << 31, u32::MAX]).collect::<Vec<_>>(), 32);
    check::<u16>(&raw.iter().map(|&k| (k >> 11) as u16).chain([1 << 15, u16::MAX]).collect::<Vec<_>>(), 16);
    check::<u8>(&raw.iter().map(|&k| (k >> 13) as u8).chain([1 << 7, u8::MAX]).collect::<Vec<_>>(), 8);
}

#[test]
fn plan_skips_trivial_passes_and_tracks_the_buffer() {
    let p = plan(4, |_| false);
    assert_eq!(&p[..4], &[PLAN_FROM_A, PLAN_FROM_B, PLAN_FROM_A, PLAN_FROM_B]);
    assert_eq!(p[MAX_PASSES as usize], PLAN_FROM_A);
    let p = plan(4, |p| p == 1);
    assert_eq!(&p[..4], &[PLAN_FROM_A, PLAN_SKIP, PLAN_FROM_B, PLAN_FROM_A]);
    assert_eq!(p[MAX_PASSES as usize], PLAN_FROM_B);
    let p = plan(8, |_| true);
    assert!(p[..8].iter().all(|&e| e == PLAN_SKIP));
    assert_eq!(p[MAX_PASSES as usize], PLAN_FROM_A);
}

#[test]
fn into_plans_read_the_input_once_and_never_write_it() {
    let (l, a, b, m) = (PLAN_LOAD_SPLIT, PLAN_FROM_A, PLAN_FROM_B, MAX_PASSES as usize);
    // input -> B, B -> A, A -> B, B -> A: the result in A.
    let p = into_plan(4, |_| false);
    assert_eq!(&p[..4], &[a | l, b, a, b]);
    assert_eq!(p[m], a);
    assert_eq!(route(p[0]), (Buf::Caller, Buf::B));
    // Skipped passes: the first that runs reads the input; an odd count ends in B.
    let p = into_plan(4, |p| p == 0 || p == 2);
    assert_eq!(&p[..4], &[PLAN_SKIP, a | l, PLAN_SKIP, b]);
    assert_eq!(p[m], a);
    let p = into_plan(4, |p| p != 3);
    assert_eq!(&p[..4], &[PLAN_SKIP, PLAN_SKIP, PLAN_SKIP, a | l]);
    assert_eq!(p[m], b);
    // Every pass trivial: pass 0 copies the input into B, the copy-back into A.
    for np in 1..=MAX_PASSES {
        let p = into_plan(np, |_| true);
        assert_eq!(p[0], a | l);
        assert!(p[1..np as usize].iter().all(|&e| e == PLAN_SKIP));
        assert_eq!(p[m], b);
    }
    // Otherwise the plain plan, with the flag on its first pass.
    for np in 1..=MAX_PASSES {
        for skip in 0..(1u32 << np) - 1 {
            let (p, q) = (into_plan(np, |p| skip >> p & 1 != 0), plan(np, |p| skip >> p & 1 != 0));
            let first = (0..np as usize).find(|&i| q[i] != PLAN_SKIP).unwrap();
            let want: std::vec::Vec<u32> =
                q.iter().enumerate().map(|(i, &e)| if i == first { e | l } else { e }).collect();
            assert_eq!(&p[..], &want[..], "{np} passes, skipped {skip:b}");
        }
    }
}

#[test]
fn packed_plans_pack_on_the_first_pass_and_unpack_on_the_last() {
    let (l, s) = (PLAN_LOAD_SPLIT, PLAN_STORE_SPLIT);
    let (a, b, m) = (PLAN_FROM_A, PLAN_FROM_B, MAX_PASSES as usize);
    // Through: split -> B, B -> A, A -> B, B -> split; the result in the caller's arrays.
    let p = packed_plan(4, |_| false, Packing::Through);
    assert_eq!(&p[..4], &[a | l, b, a, b | s]);
    assert_eq!(p[m], a);
    assert_eq!(route(p[0]), (Buf::Caller, Buf::B));
    assert_eq!(route(p[1]), (Buf::B, Buf::A));
    assert_eq!(route(p[3]), (Buf::B, Buf::Caller));
    // Skipped passes carry no flags; the flags follow the passes that run.
    let p = packed_plan(4, |p| p == 0 || p == 3, Packing::Through);
    assert_eq!(&p[..4], &[PLAN_SKIP, a | l, b | s, PLAN_SKIP]);
    assert_eq!(p[m], a);
    // One pass: packed into B, unpacked by the copy-back.
    let p = packed_plan(4, |p| p != 2, Packing::Through);
    assert_eq!(&p[..4], &[PLAN_SKIP, PLAN_SKIP, a | l, PLAN_SKIP]);
    assert_eq!(p[m], b);
    // No pass: the caller's arrays are the result.
    let p = packed_plan(4, |_| true, Packing::Through);
    assert!(p[..4].iter().all(|&e| e == PLAN_SKIP));
    assert_eq!(p[m], a);
    // Alternate: every pass packs or unpacks; an odd count leaves the result in B.
    let p = packed_plan(4, |_| false, Packing::Alternate);
    assert_eq!(&p[..4], &[a | l, b | s, a | l, b | s]);
    assert_eq!(p[m], a);
    let p = packed_plan(4, |p| p == 1, Packing::Alternate);
    assert_eq!(&p[..4], &[a | l, PLAN_SKIP, b | s, a | l]);
    assert_eq!(p[m], b);
    // Split is the plain plan.
    for np in 1..=MAX_PASSES {
        assert_eq!(packed_plan(np, |p| p % 3 == 1, Packing::Split), plan(np, |p| p % 3 == 1));
    }
    for v in 0..3 {
        assert_eq!(Packing::from_u32(v) as u32, v);
    }
}

#[test]
fn layouts_fit_and_counts_fit_status_words() {
    for (kb, vb) in [(4, 0), (4, 4), (4, 8), (8, 0), (8, 4), (8, 8), (2, 0), (2, 4), (1, 0), (1, 4)] {
        let t = tile(kb, vb);
        assert!(portion_tiles(t) * t as u64 <= VALUE_MASK as u64);
        for s in [Smem::onesweep(kb, vb), Smem::small(kb, vb)] {
            assert!(s.bytes <= 227 * 1024, "{kb}/{vb}: {s:?}");
            assert_eq!(s.keys % 16, 0);
            assert!(s.scan + crate::block::scan::SCAN_SMEM <= s.digit_start);
            assert!(s.warp_digits + 4 * WARPS * DIGITS <= s.keys);
        }
    }
    // The packed pass's blocks per SM share an H100 SM's 228 KiB (1 KiB reserved each).
    let packed = Smem::packed();
    assert!(portion_tiles(packed_tile()) * packed_tile() as u64 <= VALUE_MASK as u64);
    assert!((packed.bytes + 1024) * PACKED_BLOCKS_PER_SM <= 228 * 1024, "{packed:?}");
    assert_eq!(packed.ranks - packed.keys, 8 * packed_tile());
    // The u32 keys-only tile kernel stays within the default 48 KiB.
    const {
        assert!(Smem::onesweep(4, 0).bytes <= 48 * 1024);
        assert!(ctrl::U32_AREA.is_multiple_of(2));
        assert!(ctrl::carry(MAX_PASSES - 1, 1, DIGITS - 1) < ctrl::U32_AREA / 2);
    }
}

#[test]
fn histogram_layout_fits_one_block_per_sm() {
    const {
        assert!(hist::FLAGS + 4 * (1 + MAX_PASSES) <= hist::SCAN);
        assert!(hist::SCAN + crate::scan::SMEM_BYTES <= hist::COUNTERS);
        assert!(hist::COUNTERS.is_multiple_of(128));
        assert!(hist::MAX_KEYS_PER_BLOCK < 1 << 32);
    }
    for np in 1..=MAX_PASSES {
        let s = hist::slots(np);
        assert!(s.is_power_of_two() && s <= 32);
        // At most two lanes of a warp per bank and per word.
        assert!(s >= 16, "{np} passes: {s} slots");
        assert!(4 * np * DIGITS * s <= hist::COUNTER_BYTES);
        // One block per SM: an H100 block may opt in to 227 KiB.
        assert!(hist::smem(np) <= 227 * 1024);
    }
    if DIGIT_BITS == 8 {
        assert_eq!(hist::slots(4), 32);
        assert_eq!(hist::slots(5), 16);
        assert_eq!(hist::smem(MAX_PASSES), hist::COUNTERS + hist::COUNTER_BYTES);
    }
}

#[test]
fn histogram_lanes_spread_over_banks() {
    let bank = |word: u32| (hist::COUNTERS / 4 + word) % 32;
    let mut seed = 3;
    for np in 1..=MAX_PASSES {
        let s = hist::slots(np);
        // Any digits of a warp's 32 keys: each bank takes at most 32 / s lanes, and two
        // lanes share a word only when their digits and their lanes modulo s agree.
        for t in 0..200 {
            let p = t % np;
            let digits: Vec<u32> =
                (0..32).map(|_| if t % 2 == 0 { lcg(&mut seed) as u32 % DIGITS } else { 7 }).collect();
            let words: Vec<u32> = (0..32).map(|l| hist::slot(p * DIGITS + digits[l as usize], s, l)).collect();
            let mut per_bank = [0u32; 32];
            for &w in &words {
                assert!(w < np * DIGITS * s);
                per_bank[bank(w) as usize] += 1;
            }
            assert!(per_bank.iter().all(|&c| c <= 32 / s), "{np} passes: {per_bank:?}");
        }
        // The sum: at every step a warp's 32 counters read 32 banks, and each counter
        // reads each of its words once.
        let counters = np * DIGITS;
        for first in (0..counters).step_by(32) {
            for i in 0..s {
                let mut seen = [false; 32];
                for lane in 0..32.min(counters - first) {
                    let b = bank(hist::slot(first + lane, s, hist::sum_slot(i, s, lane))) as usize;
                    assert!(!seen[b], "{np} passes, step {i}: bank {b} twice");
                    seen[b] = true;
                }
            }
        }
        for lane in 0..32 {
            let mut read: Vec<u32> = (0..s).map(|i| hist::sum_slot(i, s, lane)).collect();
            read.sort();
            assert_eq!(read, (0..s).collect::<Vec<_>>());
        }
    }
}

/// The histogram's schedule on the CPU: which keys each block counts (whole steps
/// grid-strided, then the partial one), into lane-striped words, summed as the
/// kernel sums them.
#[test]
fn histogram_model_counts_every_key_once() {
    let mut seed = 11;
    for kb in [4u32, 8] {
        let step = hist::step(kb);
        for (n, max_blocks) in [(1u64, 1u64), (step - 1, 4), (step, 4), (5 * step + 77, 3), (70_000, 132)] {
            let width = 8 * kb;
            let keys: Vec<u64> = (0..n).map(|_| lcg(&mut seed) >> (64 - width)).collect();
            let (begin, end) = (0, width);
            let np = passes(begin, end);
            let s = hist::slots(np);
            let grid = hist::grid(n, kb, max_blocks);
            let (items, bd) = (hist::items(kb) as u64, HIST_BLOCK as u64);
            assert_eq!(step, items * bd);
            let whole = n / step;
            let mut global = vec![0u64; (np * DIGITS) as usize];
            for block in 0..grid {
                let mut words = vec![0u32; (np * DIGITS * s) as usize];
                let mut count = |first: u64| {
                    for tid in 0..bd {
                        for j in 0..items {
                            let i = first + tid + j * bd;
                            if i < n {
                                for p in 0..np {
                                    let (shift, mask) = pass_digit(begin, end, p);
                                    let d = (keys[i as usize] >> shift) as u32 & mask;
                                    words[hist::slot(p * DIGITS + d, s, tid as u32 % 32) as usize] += 1;
                                }
                            }
                        }
                    }
                };
                let mut at = block;
                while at < whole {
                    count(at * step);
                    at += grid;
                }
                if at == whole && whole * step < n {
                    count(at * step);
                }
                // Counter `c` is summed by thread `c % blockDim`, whose lane is `c % 32`.
                for (c, g) in global.iter_mut().enumerate() {
                    let c = c as u32;
                    *g += (0..s)
                        .map(|i| words[hist::slot(c, s, hist::sum_slot(i, s, c % 32)) as usize] as u64)
                        .sum::<u64>();
                }
            }
            for p in 0..np {
                let (shift, mask) = pass_digit(begin, end, p);
                let mut want = vec![0u64; DIGITS as usize];
                for &k in &keys {
                    want[((k >> shift) as u32 & mask) as usize] += 1;
                }
                let got = &global[(p * DIGITS) as usize..((p + 1) * DIGITS) as usize];
                assert_eq!(got, &want[..], "kb {kb} n {n} pass {p}");
            }
        }
    }
}

#[test]
fn histogram_blocks_never_count_2_pow_32_keys() {
    for kb in [4u32, 8] {
        let step = hist::step(kb);
        for max_blocks in [1u64, 2, 132, 1056] {
            for n in [0u64, 1, step, 1 << 31, (1 << 32) + 5, 1 << 36, 1 << 44] {
                let grid = hist::grid(n, kb, max_blocks);
                let steps = n.div_ceil(step);
                assert!(grid >= 1);
                let most = steps.div_ceil(grid) * step;
                assert!(most <= hist::MAX_KEYS_PER_BLOCK, "n {n} max {max_blocks}: grid {grid}");
                assert!(grid <= steps.max(1), "no block without a step");
                if steps <= max_blocks * (hist::MAX_KEYS_PER_BLOCK / step) {
                    assert_eq!(grid, steps.clamp(1, max_blocks), "the plain clamp below the bound");
                }
            }
        }
    }
}

/// The kernels' passes on the CPU: `tile` keys per tile, `portion` tiles per launch,
/// pairs moved as `packing` says (the buffers each pass reads and writes come from
/// [`route`], as in the kernel; a packed pair is modelled as the pair itself).
/// Returns the keys and values as the kernels leave them in the caller's buffers.
/// `into` (split only): a sort from `keys` / `vals` into an output buffer A
/// ([`into_plan`]); the result is A's, and the input must be left as it was.
#[allow(clippy::too_many_arguments)]
fn model(
    keys: &[u64],
    vals: &[u64],
    width: u32,
    masks: (u64, u64),
    begin: u32,
    end: u32,
    tile: u64,
    portion: u64,
    packing: Packing,
    into: bool,
) -> (Vec<u64>, Vec<u64>) {
    assert!(!into || packing == Packing::Split, "sorts into A are split sorts");
    let n = keys.len() as u64;
    let ord = |k: u64| {
        let sign = 1u64 << (width - 1);
        let (pos, neg) = masks;
        let o = k ^ if k & sign != 0 { neg } else { pos };
        if width < 64 { o & ((1u64 << width) - 1) } else { o }
    };
    let np = passes(begin, end);
    let mut hist = vec![[0u64; 256]; np as usize];
    for &k in keys {
        for p in 0..np {
            let (s, m) = pass_digit(begin, end, p);
            hist[p as usize][((ord(k) >> s) as u32 & m) as usize] += 1;
        }
    }
    let trivial = |p: u32| hist[p as usize].contains(&n);
    let pl = if into { into_plan(np, trivial) } else { packed_plan(np, trivial, packing) };
    // Buffers: the caller's, then scratch; which of them are the kernel's A and B. A
    // sort into A: the input, then A (poisoned: nothing may read it unwritten) and B.
    let z = |fill: u64| (vec![fill; n as usize], vec![fill; n as usize]);
    let mut bufs = [(keys.to_vec(), vals.to_vec()), z(if into { u64::MAX } else { 0 }), z(0)];
    let index = |b: Buf| match (b, packing) {
        (Buf::Caller, _) => 0,
        (Buf::A, Packing::Split) if into => 1,
        (Buf::B, Packing::Split) if into => 2,
        (Buf::A, Packing::Split) => 0,
        (Buf::B, Packing::Split) | (_, Packing::Alternate) | (Buf::A, Packing::Through) => 1,
        (Buf::B, Packing::Through) => 2,
    };
    for p in 0..np {
        let e = pl[p as usize];
        if e == PLAN_SKIP {
            continue;
        }
        let (shift, mask) = pass_digit(begin, end, p);
        let digit = |k: u64| (ord(k) >> shift) as u32 & mask;
        let mut carry = [[0u64; 256]; 2];
        let mut acc = 0;
        for d in 0..256 {
            carry[0][d] = acc;
            acc += hist[p as usize][d];
        }
        let (from, to) = route(e);
        let (src, dst) = (index(from), index(to));
        assert_ne!(src, dst, "pass {p} of {pl:?} reads the buffer it writes");
        let total_tiles = n.div_ceil(tile);
        let (_, portion) = balanced_portions(total_tiles, portion);
        let mut first = 0;
        let mut q = 0usize;
        while first < total_tiles {
            let tiles = (total_tiles - first).min(portion);
            let mut status = vec![[0u32; 256]; tiles as usize];
            for t in 0..tiles {
                let start = (first + t) * tile;
                let valid = tile.min(n - start);
                // Items past the end carry digit 255 and rank last, as in the kernel.
                let ds: Vec<u32> =
                    (0..tile).map(|o| if o < valid { digit(bufs[src].0[(start + o) as usize]) } else { 255 }).collect();
                let mut counts = [0u32; 256];
                for &d in &ds {
                    counts[d as usize] += 1;
                }
                let mut run_start = [0u32; 256];
                let mut a = 0;
                for d in 0..256 {
                    run_start[d] = a;
                    a += counts[d];
                }
                counts[255] -= (tile - valid) as u32;
                for d in 0..256 {
                    status[t as usize][d] = if t == 0 { FLAG_PREFIX } else { FLAG_AGGREGATE } | counts[d];
                }
                for d in 0..256 {
                    let mut before = 0u32;
                    if t > 0 {
                        let mut u = t - 1;
                        loop {
                            let w = status[u as usize][d];
                            assert_ne!(w & FLAG_MASK, 0, "a predecessor published nothing");
                            before += w & VALUE_MASK;
                            if w & FLAG_MASK == FLAG_PREFIX {
                                break;
                            }
                            u -= 1;
                        }
                        assert!(before + counts[d] <= VALUE_MASK);
                        status[t as usize][d] = FLAG_PREFIX | (before + counts[d]);
                    }
                    let base = carry[q & 1][d] + before as u64;
                    let mut r = 0u64;
                    for o in 0..valid {
                        if ds[o as usize] == d as u32 {
                            let from = (start + o) as usize;
                            let to = (base + r) as usize;
                            let (k, v) = (bufs[src].0[from], bufs[src].1[from]);
                            bufs[dst].0[to] = k;
                            bufs[dst].1[to] = v;
                            r += 1;
                        }
                    }
                    if t == tiles - 1 {
                        carry[(q & 1) ^ 1][d] = carry[q & 1][d] + (before + counts[d]) as u64;
                    }
                }
            }
            first += tiles;
            q += 1;
        }
    }
    // The copy-back (or, packed, the unpacking copy-back) moves a result left in B.
    let at = if pl[MAX_PASSES as usize] == PLAN_FROM_B { index(Buf::B) } else { index(Buf::A) };
    if into {
        assert!(bufs[0].0 == keys && bufs[0].1 == vals, "a sort into A wrote its input");
        assert!(bufs[at].1.iter().all(|&v| v != u64::MAX), "an output element left unwritten");
        let [_, a, b] = bufs;
        return if at == 2 { b } else { a };
    }
    let at = if pl[MAX_PASSES as usize] == PLAN_FROM_B { index(Buf::B) } else { 0 };
    bufs.swap(0, at);
    let [a, ..] = bufs;
    a
}

fn lcg(s: &mut u64) -> u64 {
    *s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    *s ^ (*s >> 29)
}

#[test]
fn model_sorts_stably_with_portions_and_skipped_passes() {
    let mut seed = 7;
    let widths = [
        (32u32, BitOrder::Unsigned),
        (32, BitOrder::Float),
        (64, BitOrder::Signed),
        (16, BitOrder::Float),
        (8, BitOrder::Signed),
    ];
    for &(width, order) in &widths {
        if width == 64 && !wide_keys_fit() {
            continue;
        }
        for desc in [false, true] {
            for &(n, tile, portion) in
                &[(0u64, 8u64, 3u64), (1, 8, 3), (37, 8, 3), (100, 16, 2), (1000, 24, 5), (999, 32, 1000)]
            {
                for (begin, end, spread) in
                    [(0, width, u64::MAX), (0, width, 3), (4, width - 3, u64::MAX), (0, width, 0)]
                {
                    let keys: Vec<u64> = (0..n)
                        .map(|_| {
                            let r = lcg(&mut seed);
                            let r = if spread == u64::MAX { r } else { r % (spread + 1) };
                            if width < 64 { r & ((1u64 << width) - 1) } else { r }
                        })
                        .collect();
                    let vals: Vec<u64> = (0..n).collect();
                    let masks = order.masks(width, desc);
                    let field = |x: u64| {
                        let o = match width {
                            32 => crate::key::ordered_u32(x as u32, masks.0 as u32, masks.1 as u32) as u64,
                            16 => (x as u16).ordered(masks.0 as u16, masks.1 as u16) as u64,
                            8 => (x as u8).ordered(masks.0 as u8, masks.1 as u8) as u64,
                            _ => ordered_u64(x, masks.0, masks.1),
                        };
                        let span = end - begin;
                        if span == 64 { o } else { (o >> begin) & ((1u64 << span) - 1) }
                    };
                    let mut expect: Vec<u64> = (0..n).collect();
                    expect.sort_by_key(|&i| field(keys[i as usize]));
                    let ek: Vec<u64> = expect.iter().map(|&i| keys[i as usize]).collect();
                    // Packing is for 32-bit keys with 32-bit values only.
                    let packings: &[Packing] = if width < 32 {
                        &[Packing::Split]
                    } else {
                        &[Packing::Split, Packing::Alternate, Packing::Through]
                    };
                    let modes = packings.iter().map(|&p| (p, false)).chain([(Packing::Split, true)]);
                    for (packing, into) in modes {
                        let (k, v) = model(&keys, &vals, width, masks, begin, end, tile, portion, packing, into);
                        let what = std::format!(
                            "w{width} {order:?} desc {desc} n {n} tile {tile}x{portion} bits {begin}..{end} \
                             {packing:?} into {into}"
                        );
                        assert_eq!(v, expect, "{what}: values (stability)");
                        assert_eq!(k, ek, "{what}: keys");
                    }
                }
            }
        }
    }
}

#[test]
fn portions_are_balanced() {
    for max in [1u64, 2, 3, 7, 139_810] {
        for total in (0..50u64).chain([139_809, 139_810, 139_811, 279_620, 279_621, 1 << 20]) {
            let (portions, per) = balanced_portions(total, max);
            if total == 0 {
                assert_eq!((portions, per), (0, 0));
                continue;
            }
            assert!(per <= max && per >= 1, "total {total} max {max}");
            assert_eq!(portions, total.div_ceil(max), "fewest portions");
            assert!(portions * per >= total && (portions - 1) * per < total, "covers exactly {portions} launches");
            // The last portion is at most `portions - 1` tiles short of the others.
            assert!(total - (portions - 1) * per + portions > per);
        }
    }
    // 2^30 u32 keys: two halves, not one portion and a single tile.
    let t = (1u64 << 30).div_ceil(tile(4, 0) as u64);
    assert_eq!(balanced_portions(t, portion_tiles(tile(4, 0))), (2, t.div_ceil(2)));
}

#[test]
fn digit_passes_use_short_tiles_up_to_the_limit() {
    let short = BLOCK * SHORT_ITEMS;
    assert_eq!(onesweep_tile(SHORT_ONESWEEP_MAX, 4, 0, SHORT_ONESWEEP_MAX), short);
    assert_eq!(onesweep_tile(SHORT_ONESWEEP_MAX + 1, 4, 0, SHORT_ONESWEEP_MAX), tile(4, 0));
    assert_eq!(onesweep_tile(10_000, 8, 8, 0), tile(8, 8));
    // Short tiles are never longer than the full ones (the staging area is sized
    // for those).
    for (kb, vb) in [(4, 0), (4, 4), (4, 8), (8, 0), (8, 4), (8, 8)] {
        assert!(short <= tile(kb, vb));
    }
}

/// The fused kernels: items ascending, each entry bounded at three blocks per SM, whose
/// shared memory (histogram counters or tile, whichever is larger) three blocks share
/// on an H100 SM (228 KiB, 1 KiB reserved per block), and whose largest input is one
/// look-back portion.
#[test]
fn fused_kernels_fit_three_blocks_per_sm() {
    fn check<K: FusedKernel>() {
        let kb = K::BYTES;
        for (list, vb, per_sm) in [(K::FUSED, 0, FUSED_BLOCKS_PER_SM), (K::FUSED_PAIRS, 4, FUSED_PAIRS_BLOCKS_PER_SM)] {
            let items: Vec<u32> = list.iter().map(|f| f.0).collect();
            assert!(items.windows(2).all(|w| w[0] < w[1]), "{items:?}");
            for &(i, kernel) in list {
                check_one(kernel.name(), kb, vb, i, per_sm);
            }
        }
    }
    fn check_one(name: &str, kb: u32, vb: u32, i: u32, per_sm: u32) {
        let bound = LAUNCH_BOUNDS.iter().find(|b| b.0 == name).expect("launch bounds");
        assert_eq!((bound.1, bound.2), (BLOCK, per_sm), "{name}");
        let smem = fused_smem(kb, vb, i);
        assert!((smem + 1024) * per_sm <= 228 * 1024, "{name}: {smem}");
        assert!(Smem::onesweep_items(kb, vb, i).bytes <= smem);
        let np = passes(0, 8 * kb);
        assert!(hist::COUNTERS + 4 * np * DIGITS * fused_slots(kb) <= smem);
        assert!(fused_slots(kb).is_power_of_two() && fused_slots(kb) <= 32);
        let tiles = FUSED_MAX.div_ceil((BLOCK * i) as u64);
        assert_eq!(balanced_portions(tiles, portion_tiles(BLOCK * i)).0, 1);
        // The histogram step loads whole keys.
        assert!(fused_hist_items(kb) >= 1);
    }
    check::<u32>();
    check::<u64>();
    assert!(<u16 as FusedKernel>::FUSED.is_empty() && <u8 as FusedKernel>::FUSED.is_empty());
    assert!(!<u32 as FusedKernel>::FUSED_PAIRS.is_empty() && <u64 as FusedKernel>::FUSED_PAIRS.is_empty());
    // Barrier `j` waits for `j` arrivals of every block plus the histogram's release.
    assert_eq!((fused_barrier(1, 396), fused_barrier(2, 396), fused_barrier(6, 7)), (397, 793, 43));
}

/// The fused sort takes the fewest items per thread whose tiles fit one round of the
/// resident blocks, the largest tile when none does, the forced choice when it can
/// run, and never a kernel the device cannot hold.
#[test]
fn fused_choice_fits_one_round_of_resident_blocks() {
    // An H100: 132 SMs, three blocks each.
    let h100 = [(4, 396u64), (8, 396), (12, 396), (20, 396)];
    let tile = |i: u32| (BLOCK * i) as u64;
    assert_eq!(fused_choice(396 * tile(4), &h100, None), Some(0));
    assert_eq!(fused_choice(396 * tile(4) + 1, &h100, None), Some(1));
    assert_eq!(fused_choice(1 << 20, &h100, None), Some(1)); // 342 tiles of 3,072
    assert_eq!(fused_choice(396 * tile(20) + 1, &h100, None), Some(3));
    assert_eq!(fused_choice(1 << 22, &h100, None), Some(3));
    assert_eq!(fused_choice(1 << 20, &h100, Some(12)), Some(2));
    assert_eq!(fused_choice(1 << 20, &h100, Some(5)), Some(1));
    let partly = [(4, 0u64), (8, 300), (12, 0)];
    assert_eq!(fused_choice(1000, &partly, None), Some(1));
    assert_eq!(fused_choice(1 << 22, &partly, None), Some(1));
    assert_eq!(fused_choice(1 << 22, &partly, Some(12)), Some(1));
    assert_eq!(fused_choice(1000, &[(4, 0), (8, 0)], None), None);
}

#[test]
fn one_block_sorts_use_the_smallest_tile_that_holds_the_input() {
    for (kb, vb) in [(4, 0), (4, 4), (4, 8), (8, 0), (8, 4), (8, 8)] {
        for n in [2, short_max(), short_max() + 1, mid_max(), mid_max() + 1, small_max(kb, vb)] {
            let i = small_items(n, kb, vb);
            assert!(n <= (BLOCK * i) as u64, "{n} keys fit {i} items per thread");
            assert!(i <= items(kb, vb));
            assert!(i == SHORT_ITEMS || n > short_max());
            assert!(i != items(kb, vb) || n > mid_max() || MID_ITEMS >= items(kb, vb));
        }
    }
}

/// A CPU model of the argsort passes ([`Packing::Through`] with the index made by the
/// first pass that runs and written alone by the last, then [`arg_finish`]): for every
/// pattern of skipped passes, the indices end as the stable sorting permutation.
#[test]
fn argsort_plans_leave_the_permutation_in_the_output() {
    let keys: Vec<u32> = (0..300u32).map(|i| i.wrapping_mul(2_654_435_761) >> 7).collect();
    for skip in 0u32..16 {
        // Keys with the digits of the skipped passes zeroed: those passes are trivial.
        let mask = (0..4).filter(|p| skip & (1 << p) == 0).fold(0u32, |m, p| m | 0xff << (8 * p));
        let keys: Vec<u32> = keys.iter().map(|k| k & mask).collect();
        let plan = packed_plan(4, |p| skip & (1 << p) != 0, Packing::Through);
        let (mut a, mut b) = (vec![0u64; keys.len()], vec![0u64; keys.len()]);
        let mut out = vec![u64::MAX; keys.len()];
        for p in 0..4u32 {
            let e = plan[p as usize];
            if e == PLAN_SKIP {
                continue;
            }
            let src: Vec<u64> = match route(e).0 {
                Buf::Caller => keys.iter().enumerate().map(|(i, &k)| (k as u64) << 32 | i as u64).collect(),
                Buf::A => a.clone(),
                Buf::B => b.clone(),
            };
            // One stable counting pass on the key half's digit.
            let (shift, digit_mask) = pass_digit(0, 32, p);
            let mut sorted = src.clone();
            sorted.sort_by_key(|w| ((w >> 32) as u32 >> shift) & digit_mask);
            match route(e).1 {
                Buf::Caller => out.iter_mut().zip(&sorted).for_each(|(o, w)| *o = w & 0xffff_ffff),
                Buf::A => a = sorted,
                Buf::B => b = sorted,
            }
        }
        match arg_finish(&plan, 4) {
            ArgFinish::Nothing => {}
            ArgFinish::Iota => out.iter_mut().enumerate().for_each(|(i, o)| *o = i as u64),
            ArgFinish::FromB => out.iter_mut().zip(&b).for_each(|(o, w)| *o = w & 0xffff_ffff),
        }
        let mut want: Vec<u64> = (0..keys.len() as u64).collect();
        want.sort_by_key(|&i| keys[i as usize]);
        assert_eq!(out, want, "skipped passes {skip:04b}");
    }
}

#[test]
fn narrow_tiles_take_the_staged_load_and_wide_ones_do_not() {
    for (kb, vb) in [(2, 0), (2, 4), (1, 0), (1, 4)] {
        for i in [items(kb, vb), SHORT_ITEMS] {
            assert!(staged_load(kb, i), "{kb}-byte keys, {vb}-byte values, {i} items");
        }
        // Tiles are whole vectors: every tile (and warp run) of an aligned buffer is.
        assert_eq!(tile(kb, vb) * kb % STAGED_VECTOR, 0);
    }
    for (kb, vb) in [(4, 0), (4, 4), (8, 0), (8, 8)] {
        assert!(!staged_load(kb, items(kb, vb)), "{kb}-byte keys load key by key");
    }
    // Past STAGED_STEPS vectors a lane: 25 2-byte keys are 100 vectors a warp run.
    assert!(staged_load(2, 24) && !staged_load(2, 25));
}

#[test]
fn buckets_plans_run_the_top_pass_alone_and_leave_no_copy_back() {
    let m = MAX_PASSES as usize;
    for passes in [2u32, 3, 4, 8] {
        for into in [false, true] {
            let p = buckets_plan(passes, into);
            let top = passes as usize - 1;
            assert!(p[..top].iter().all(|&e| e == PLAN_SKIP), "{passes} passes: only the top one runs");
            assert_eq!(route(p[top]), (if into { Buf::Caller } else { Buf::A }, Buf::B));
            assert_eq!(p[m], PLAN_BUCKETS);
            assert_ne!(p[m], PLAN_FROM_B, "the copy-back must leave the bucket kernel's result alone");
        }
    }
    assert!(buckets_fit(4, 7680, 7680));
    assert!(!buckets_fit(4, 7681, 7680));
    assert!(!buckets_fit(4, 1, 0), "not asked for");
    assert!(!buckets_fit(1, 1, 7680), "one pass is the whole sort");
}

/// The plan by buckets sorts as the digit passes do: a stable pass on the top digit
/// (of [`pass_digit`] over `begin..end`), then each group stably by bits
/// `begin..shift` alone, gives the stable sort by bits `begin..end`, for every order
/// and bit range (the groups' keys differ only below the top digit).
#[test]
fn model_of_the_buckets_plan_is_the_stable_sort() {
    let mut seed = 11;
    let ranges = [(0u32, 32u32), (0, 64), (3, 20), (8, 64), (0, 9), (5, 13)];
    for (begin, end) in ranges {
        for (order, descending) in [(BitOrder::Unsigned, false), (BitOrder::Signed, true), (BitOrder::Float, false)] {
            let width = if end > 32 { 64 } else { 32 };
            let (pos, neg) = order.masks(width, descending);
            let field = |k: u64| {
                let bits =
                    if width == 64 { k.ordered(pos, neg) } else { (k as u32).ordered(pos as u32, neg as u32) as u64 };
                let span = end - begin;
                (bits >> begin) & if span == 64 { u64::MAX } else { (1 << span) - 1 }
            };
            // Few distinct values, so that ties and stability matter.
            let keys: Vec<(u64, usize)> = (0..5_000)
                .map(|i| {
                    let r = lcg(&mut seed);
                    let k = (r % 997).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                    let k = if width == 64 { k } else { k >> 32 };
                    (k, i)
                })
                .collect();
            let np = passes(begin, end);
            let (shift, mask) = pass_digit(begin, end, np - 1);
            let top = |k: u64| (field(k) >> (shift - begin)) & mask as u64;
            let lower = |k: u64| field(k) & ((1u64 << (shift - begin)) - 1);
            let mut by_top = keys.clone();
            by_top.sort_by_key(|&(k, _)| top(k));
            let mut model = Vec::new();
            for d in 0..=mask as u64 {
                let mut group: Vec<_> = by_top.iter().copied().filter(|&(k, _)| top(k) == d).collect();
                group.sort_by_key(|&(k, _)| lower(k));
                model.extend(group);
            }
            let mut want = keys.clone();
            want.sort_by_key(|&(k, _)| field(k));
            assert_eq!(model, want, "bits {begin}..{end}, {order:?}, descending {descending}");
        }
    }
}
