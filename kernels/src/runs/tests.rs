extern crate std;
use super::*;
use std::vec::Vec;

/// A small deterministic generator.
fn lcg(state: &mut u64) -> u64 {
    *state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    *state >> 33
}

/// The `inf` parameter of `f64` keys (`float`) or integer keys.
fn inf_of(float: bool) -> u64 {
    if float { f64::INFINITY.to_bits() } else { 0 }
}

/// Runs by a simple loop: each run's first key and its length.
fn reference(keys: &[u64], float: bool) -> (Vec<u64>, Vec<u32>) {
    let (mut heads, mut counts): (Vec<u64>, Vec<u32>) = (Vec::new(), Vec::new());
    for (i, &k) in keys.iter().enumerate() {
        if i > 0 && same(k, keys[i - 1], inf_of(float)) {
            *counts.last_mut().unwrap() += 1;
        } else {
            heads.push(k);
            counts.push(1);
        }
    }
    (heads, counts)
}

/// The encoding as the kernel does it, with tiles of `tile` keys made of items of 32
/// lanes: heads, item carries (tile offsets, [`TileCarry`]) folded into the tile's,
/// the tiles' published through their status words, then the writes of each head.
fn simulate(keys: &[u64], float: bool, tile: usize) -> (Vec<u64>, Vec<u32>) {
    let n = keys.len();
    let tiles = n.div_ceil(tile);
    let mut out_keys = std::vec![u64::MAX; n];
    let mut out_counts = std::vec![u32::MAX; n];
    let head = |g: usize| g == 0 || !same(keys[g], keys[g - 1], inf_of(float));
    let mut words = std::vec![[0u64; 2]; tiles];
    let mut runs = 0;
    for t in 0..tiles {
        let (start, end) = (t * tile, ((t + 1) * tile).min(n));
        let mut in_tile = TileCarry::default();
        for item in (start..end).step_by(32) {
            let mask = (0..32).filter(|&l| item + l < end && head(item + l)).fold(0u32, |m, l| m | 1 << l);
            in_tile = in_tile.then(TileCarry::of_item(mask, (item - start) as u32));
        }
        let tile_carry = in_tile.global(start as u64);
        words[t] = status::pack(status::AGGREGATE, tile_carry);
        // The look-back: nearest first, aggregates until an inclusive prefix.
        let mut before = Carry::default();
        for p in (0..t).rev() {
            let (flag, c) = status::unpack(words[p]);
            assert_ne!(flag, 0);
            before = c.then(before);
            if flag == status::PREFIX {
                break;
            }
        }
        words[t] = status::pack(status::PREFIX, before.then(tile_carry));
        let mut run = before;
        for (g, &key) in keys.iter().enumerate().take(end).skip(start) {
            if head(g) {
                let r = run.runs as usize;
                out_keys[r] = key;
                if r > 0 {
                    out_counts[r - 1] = (g as u64 - (run.last - 1)) as u32;
                }
                run = run.then(Carry { runs: 1, last: g as u64 + 1 });
            }
        }
        if end == n {
            out_counts[run.runs as usize - 1] = (n as u64 - (run.last - 1)) as u32;
            runs = run.runs as usize;
        }
    }
    out_keys.truncate(runs);
    out_counts.truncate(runs);
    (out_keys, out_counts)
}

/// The split encoding as its three kernels do it, with tiles of `warps` warps of
/// `items` vector items of `V` keys a lane ([`vector`]): `count` makes each item's
/// mask words from the lanes' head bits placed by [`vector::nibble_shift`], and the
/// tile's carry; `scan` the carry before each tile and the last run's length; `write`
/// the warps' carries from their masks alone, then each warp's heads in rounds of 32,
/// head `h` found by [`vector::first_above`] and [`vector::nth_set_bit`], its run
/// starting at head `h - 1` (keys read only at heads).
fn simulate_split<const V: usize>(keys: &[u64], float: bool, warps: usize, items: usize) -> (Vec<u64>, Vec<u32>) {
    let n = keys.len();
    let words = items * V; // per warp
    assert!(words <= 32, "a lane holds one mask word of its warp");
    let tile = warps * words * 32;
    let tiles = n.div_ceil(tile);
    let head = |g: usize| g == 0 || !same(keys[g], keys[g - 1], inf_of(float));
    // The carry of a warp's words, as the kernels' `warp_carry` makes it.
    let warp_carry = |ws: &[u32], first: u32| {
        let runs = ws.iter().map(|w| w.count_ones()).sum();
        let last = match ws.iter().rposition(|&w| w != 0) {
            Some(q) => first + 32 * q as u32 + (31 - ws[q].leading_zeros()) + 1,
            None => 0,
        };
        TileCarry { runs, last }
    };
    // count
    let mut masks = std::vec![0u32; tiles * warps * words];
    let mut carries = std::vec![TileCarry::default(); tiles];
    for t in 0..tiles {
        let (start, end) = (t * tile, ((t + 1) * tile).min(n));
        for w in 0..warps {
            let first = w * words * 32;
            let ws = &mut masks[(t * warps + w) * words..][..words];
            for j in 0..items {
                for lane in 0..32u32 {
                    for i in 0..V {
                        let o = first + (j * 32 + lane as usize) * V + i;
                        if start + o < end && head(start + o) {
                            // Lane `lane`'s group ORs its bits into word `m` of the item.
                            let m = lane as usize / (32 / V);
                            ws[j * V + m] |= 1 << (vector::nibble_shift(lane, V as u32) + i as u32);
                        }
                    }
                }
            }
            carries[t] = carries[t].then(warp_carry(ws, first as u32));
        }
    }
    // scan
    let mut before = std::vec![Carry::default(); tiles];
    let mut acc = Carry::default();
    for t in 0..tiles {
        before[t] = acc;
        acc = acc.then(carries[t].global((t * tile) as u64));
    }
    let runs = acc.runs as usize;
    let mut out_keys = std::vec![u64::MAX; n];
    let mut out_counts = std::vec![u32::MAX; n];
    if runs > 0 {
        out_counts[runs - 1] = (n as u64 - (acc.last - 1)) as u32;
    }
    // write
    for t in 0..tiles {
        let start = (t * tile) as u64;
        let mut run = TileCarry::default(); // the warps before
        for w in 0..warps {
            let first = (w * words * 32) as u32;
            let mut ws = [0u32; 32];
            ws[..words].copy_from_slice(&masks[(t * warps + w) * words..][..words]);
            let carry = warp_carry(&ws, first);
            let incl: Vec<u32> =
                ws.iter().scan(0, |a, w| Some(std::mem::replace(a, *a + w.count_ones()) + w.count_ones())).collect();
            let mut prev = if run.last != 0 { start + run.last as u64 - 1 } else { before[t].last.wrapping_sub(1) };
            for h in 0..carry.runs {
                let q = vector::first_above(h, |x| incl[x as usize]);
                let bit = vector::nth_set_bit(ws[q as usize], h - (incl[q as usize] - ws[q as usize].count_ones()));
                let g = start + (first + 32 * q + bit) as u64;
                let r = (before[t].runs + (run.runs + h) as u64) as usize;
                out_keys[r] = keys[g as usize];
                if r > 0 {
                    out_counts[r - 1] = (g - prev) as u32;
                }
                prev = g;
            }
            run = run.then(carry);
        }
    }
    out_keys.truncate(runs);
    out_counts.truncate(runs);
    (out_keys, out_counts)
}

/// The mask words the lanes' shifted head bits make are the plain head masks of the
/// item's keys in order (bit `t` of word `m`: key `32 m + t`), for every vector width.
#[test]
fn lane_bits_make_masks_in_key_order() {
    for v in [1u32, 2, 4, 8, 16] {
        for lane in 0..32 {
            for i in 0..v {
                let key = v * lane + i; // the item's key that lane `lane` holds at place `i`
                let (word, bit) = (lane / (32 / v), vector::nibble_shift(lane, v) + i);
                assert_eq!((word, bit), (key / 32, key % 32), "v={v} lane={lane} i={i}");
            }
        }
    }
}

/// Selecting a warp's `h`-th head: the word by its prefix count, the bit in the word,
/// against a scan of the bits in order.
#[test]
fn heads_selected_in_order() {
    let mut state = 5;
    for round in 0..300 {
        let density = round % 6; // 0: no heads .. 5: every key
        let ws: Vec<u32> = (0..32)
            .map(|_| (0..32).filter(|_| density == 5 || lcg(&mut state) % 6 < density).fold(0u32, |w, b| w | 1 << b))
            .collect();
        let incl: Vec<u32> = ws
            .iter()
            .scan(0, |a, w| {
                *a += w.count_ones();
                Some(*a)
            })
            .collect();
        let heads: Vec<u32> = (0..1024).filter(|&o| ws[o / 32] >> (o % 32) & 1 != 0).map(|o| o as u32).collect();
        for (h, &o) in heads.iter().enumerate() {
            let q = vector::first_above(h as u32, |x| incl[x as usize]);
            let k = h as u32 - (incl[q as usize] - ws[q as usize].count_ones());
            assert_eq!(32 * q + vector::nth_set_bit(ws[q as usize], k), o, "round={round} h={h}");
        }
    }
}

/// The split encoding's tile shapes: one mask word a lane at most, 16-byte vectors.
#[test]
fn split_tiles_fit_a_lane_per_mask_word() {
    for bytes in [1u32, 2, 4, 8] {
        let v = split_vector(bytes);
        assert_eq!(v * bytes, VECTOR_BYTES);
        assert!(split_items(bytes) * v <= crate::block::WARP);
        assert_eq!(split_tile(bytes), BLOCK * split_items(bytes) * v);
        assert_eq!(split_mask_words(bytes), WARPS * split_items(bytes) * v);
    }
    assert_eq!(split_tile(4), 8192);
    assert_eq!(split_tile(8), 4096);
    assert_eq!(split_tiles(8193, 4), 2);
}

#[test]
fn split_encoding_matches_the_loop() {
    let mut state = 11;
    for n in [0usize, 1, 2, 31, 32, 33, 100, 257, 1000, 4099] {
        for range in [1u64, 2, 5, 1000, u64::MAX] {
            let mut keys: Vec<u64> = (0..n).map(|_| lcg(&mut state) % range.max(1)).collect();
            if range == u64::MAX {
                keys = (0..n as u64).collect(); // all distinct
            }
            keys.sort();
            let want = reference(&keys, false);
            // Tiles of 64 to 8,192 keys: one or several warps and items, every vector width.
            for (warps, items) in [(1, 1), (1, 2), (2, 3), (3, 2)] {
                let at = |got| assert_eq!(got, want, "n={n} range={range} warps={warps} items={items}");
                at(simulate_split::<1>(&keys, false, warps, items));
                at(simulate_split::<2>(&keys, false, warps, items));
                at(simulate_split::<4>(&keys, false, warps, items));
                at(simulate_split::<8>(&keys, false, warps, items));
                at(simulate_split::<16>(&keys, false, warps, 2.min(items)));
            }
            at_kernel_shape(&keys, &want);
        }
    }
}

/// The split encoding at the kernels' own shape for 4-byte keys.
fn at_kernel_shape(keys: &[u64], want: &(Vec<u64>, Vec<u32>)) {
    const V: usize = split_vector(4) as usize;
    let got = simulate_split::<V>(keys, false, WARPS as usize, split_items(4) as usize);
    assert_eq!(&got, want, "n={}", keys.len());
}

/// The split encoding at the kernels' shape around its tile edges (8,192 keys):
/// runs crossing tiles, one run, all distinct.
#[test]
fn split_encoding_at_kernel_tiles() {
    let mut state = 3;
    for n in [8191usize, 8192, 8193, 16384 + 129, 3 * 8192 - 1] {
        for range in [1u64, 3, 40, 5000, u64::MAX] {
            let mut keys: Vec<u64> = (0..n).map(|_| lcg(&mut state) % range).collect();
            if range == u64::MAX {
                keys = (0..n as u64).collect();
            }
            keys.sort();
            at_kernel_shape(&keys, &reference(&keys, false));
        }
    }
}

#[test]
fn encoding_matches_the_loop() {
    let mut state = 7;
    for n in [0usize, 1, 2, 31, 32, 33, 100, 257, 1000, 4099] {
        for range in [1u64, 2, 5, 1000, u64::MAX] {
            let mut keys: Vec<u64> = (0..n).map(|_| lcg(&mut state) % range.max(1)).collect();
            if range == u64::MAX {
                keys = (0..n as u64).collect(); // all distinct
            }
            keys.sort();
            for tile in [32, 64, 96, 1024] {
                assert_eq!(simulate(&keys, false, tile), reference(&keys, false), "n={n} range={range} tile={tile}");
            }
        }
    }
}

#[test]
fn float_runs_join_zeros_and_nans() {
    let f = |x: f64| x.to_bits();
    let nan_payload = f64::NAN.to_bits() | 5;
    let keys =
        [f(-f64::NAN), (-f64::NAN).to_bits() | 3, f(-1.0), f(-0.0), f(0.0), f(0.0), f(2.0), f(f64::NAN), nan_payload];
    let (heads, counts) = reference(&keys, true);
    assert_eq!(counts, [2, 1, 3, 1, 2]);
    assert_eq!(heads, [f(-f64::NAN), f(-1.0), f(-0.0), f(2.0), f(f64::NAN)]);
    assert_eq!(simulate_split::<4>(&keys, true, 1, 1), (heads.clone(), counts.clone()));
    assert_eq!(simulate(&keys, true, 32), (heads, counts));
    // As integers, every bit pattern is its own value.
    assert_eq!(reference(&keys, false).1, [1, 1, 1, 1, 2, 1, 1, 1]);
}

#[test]
fn canonical_bits_of_f32_and_f64() {
    for x in [1.5f32, -2.0, f32::INFINITY, f32::NEG_INFINITY, f32::MIN_POSITIVE, -f32::MIN_POSITIVE, 0.0] {
        assert_eq!(canonical_bits(x.to_bits() as u64, 32), x.to_bits() as u64, "{x}");
    }
    assert_eq!(canonical_bits((-0.0f32).to_bits() as u64, 32), 0);
    for nan in [f32::NAN.to_bits(), (-f32::NAN).to_bits(), 0x7f80_0001, 0xffff_ffff] {
        assert_eq!(canonical_bits(nan as u64, 32), f32::NAN.to_bits() as u64, "{nan:#x}");
    }
    for x in [1.5f64, -2.0, f64::INFINITY, f64::NEG_INFINITY, f64::MIN_POSITIVE, 0.0] {
        assert_eq!(canonical_bits(x.to_bits(), 64), x.to_bits(), "{x}");
    }
    assert_eq!(canonical_bits((-0.0f64).to_bits(), 64), 0);
    for nan in [f64::NAN.to_bits(), (-f64::NAN).to_bits(), 0x7ff0_0000_0000_0001, u64::MAX] {
        assert_eq!(canonical_bits(nan, 64), f64::NAN.to_bits(), "{nan:#x}");
    }
}

/// The equality of 16-bit floats takes their format's `+inf`: `f16`'s `0x7c01` is a
/// NaN (equal to every NaN), `bf16`'s is a finite value.
#[test]
fn sixteen_bit_float_equality_by_format() {
    let (f16_inf, bf16_inf) = (0x7c00u16, 0x7f80u16);
    assert!(same(0x7c01u16, 0xfe00, f16_inf));
    assert!(!same(0x7c01u16, 0xfe00, bf16_inf));
    assert!(same(0x8000u16, 0, bf16_inf) && same(0x8000u16, 0, f16_inf));
    assert!(!same(0x8000u16, 0, 0), "integers compare bits");
    assert!(same(0xffu8, 0xff, 0) && !same(1u8, 2, 0));
}

#[test]
fn status_words_need_both_flags() {
    let c = Carry { runs: 12, last: 99 };
    assert_eq!(status::unpack(status::pack(status::PREFIX, c)), (status::PREFIX, c));
    let [a, _] = status::pack(status::PREFIX, c);
    let [_, b] = status::pack(status::AGGREGATE, c);
    assert_eq!(status::unpack([a, b]).0, 0, "one word of each state is not a state");
    assert_eq!(status::unpack([0, 0]).0, 0);
}

#[test]
fn carry_is_associative() {
    let cs = [Carry { runs: 0, last: 0 }, Carry { runs: 2, last: 5 }, Carry { runs: 1, last: 9 }, Carry::default()];
    for a in cs {
        for b in cs {
            for c in cs {
                assert_eq!(a.then(b).then(c), a.then(b.then(c)));
            }
        }
    }
}
