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

/// The split encoding as its three kernels do it, with tiles of `tile` keys (a multiple
/// of 32): `count` makes each tile's head masks (one word per 32 keys) and carry,
/// `scan` the carry before each tile and the last run's length, `write` the heads from
/// the masks alone (keys read only at heads).
fn simulate_split(keys: &[u64], float: bool, tile: usize) -> (Vec<u64>, Vec<u32>) {
    let n = keys.len();
    let tiles = n.div_ceil(tile);
    let words = tile / 32;
    let head = |g: usize| g == 0 || !same(keys[g], keys[g - 1], inf_of(float));
    // count
    let mut masks = std::vec![0u32; tiles * words];
    let mut carries = std::vec![TileCarry::default(); tiles];
    for t in 0..tiles {
        let (start, end) = (t * tile, ((t + 1) * tile).min(n));
        for w in 0..words {
            let item = start + 32 * w;
            let mask = (0..32).filter(|&l| item + l < end && head(item + l)).fold(0u32, |m, l| m | 1 << l);
            masks[t * words + w] = mask;
            carries[t] = carries[t].then(TileCarry::of_item(mask, 32 * w as u32));
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
        let start = t * tile;
        let mut run = TileCarry::default();
        for w in 0..words {
            let mask = masks[t * words + w];
            for lane in 0..32u32 {
                if mask >> lane & 1 == 0 {
                    continue;
                }
                let lower = mask & ((1u32 << lane) - 1);
                let r = before[t].runs as usize + (run.runs + lower.count_ones()) as usize;
                let g = start + 32 * w + lane as usize;
                out_keys[r] = keys[g];
                if r > 0 {
                    let prev = if lower != 0 {
                        start + 32 * w + 31 - lower.leading_zeros() as usize
                    } else if run.last != 0 {
                        start + run.last as usize - 1
                    } else {
                        before[t].last as usize - 1
                    };
                    out_counts[r - 1] = (g - prev) as u32;
                }
            }
            run = run.then(TileCarry::of_item(mask, 32 * w as u32));
        }
    }
    out_keys.truncate(runs);
    out_counts.truncate(runs);
    (out_keys, out_counts)
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
            for tile in [32, 64, 96, 1024] {
                assert_eq!(
                    simulate_split(&keys, false, tile),
                    reference(&keys, false),
                    "n={n} range={range} tile={tile}"
                );
            }
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
