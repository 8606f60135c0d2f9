extern crate std;
use super::*;
use std::vec::Vec;

/// The whole top-k as the kernels compute it, on order bits (`width` bits), with
/// candidate buffer `cap` (`None`: everything): histogram and select passes, the
/// compaction tile by tile with its status words, then the stable sort of the
/// candidates. Returns the indices of the first `k`.
fn simulate(ord: &[u64], width: u32, k: u64, cap: Option<u64>) -> Vec<u32> {
    let n = ord.len() as u64;
    let state = match cap {
        None => State::everything(n),
        Some(cap) => {
            let mut s = State::default();
            for p in 0..passes(width) {
                if s.done {
                    break;
                }
                let (shift, bits) = pass_digit(width, p);
                let mut hist = [0u64; DIGITS as usize];
                for &o in ord.iter().filter(|&&o| matches_prefix(o, width, p, s.prefix)) {
                    hist[((o >> shift) & ((1 << bits) - 1)) as usize] += 1;
                }
                let mut below = 0;
                let mut next = None;
                for (d, &c) in hist.iter().enumerate() {
                    if s.holds_kth(k, below, c) {
                        assert!(next.is_none(), "one bucket holds the k-th key");
                        next = Some(s.step(d as u32, below, c, bits, width, k, cap));
                    }
                    below += c;
                }
                s = next.expect("some bucket holds the k-th key");
            }
            assert!(s.done);
            assert!(s.out() <= cap, "candidates {} fit the buffer {cap}", s.out());
            s
        }
    };
    // Compaction: tiles of `tile` keys (small, to cross many tiles), each publishing
    // its counts and adding its predecessors' as the look-back does.
    let tile = 37usize;
    let mut words: Vec<u64> = Vec::new();
    let mut out = std::vec![u32::MAX; state.out() as usize];
    for (t, chunk) in ord.chunks(tile).enumerate() {
        let (mut pb, mut pe) = (0u64, 0u64);
        for &w in words.iter().rev() {
            let (flag, b, e) = status::unpack(w);
            pb += b;
            pe += e;
            if flag == status::PREFIX {
                break;
            }
        }
        pe = pe.min(state.quota);
        let (mut b, mut e) = (0u64, 0u64);
        for (j, &o) in chunk.iter().enumerate() {
            let c = state.classify(o, width);
            if c.is_gt() {
                continue;
            }
            let at = position(c.is_lt(), pb + b, (pe + e).min(state.quota), state.quota);
            if let Some(at) = at {
                out[at as usize] = (t * tile + j) as u32;
            }
            if c.is_lt() { b += 1 } else { e += 1 }
        }
        let w = status::pack(status::PREFIX, pb + b, (pe + e).min(state.quota));
        assert_eq!(status::unpack(w), (status::PREFIX, pb + b, (pe + e).min(state.quota)));
        // Alternate prefix and aggregate words, as a look-back may find them.
        words.push(if t % 3 == 1 { status::pack(status::AGGREGATE, b, e) } else { w });
    }
    assert!(out.iter().all(|&i| i != u32::MAX), "every candidate slot written");
    assert!(out.windows(2).all(|w| w[0] < w[1]), "candidates in index order");
    out.sort_by_key(|&i| ord[i as usize]); // stable
    out.truncate(k as usize);
    out
}

fn reference(ord: &[u64], k: usize) -> Vec<u32> {
    let mut idx: Vec<u32> = (0..ord.len() as u32).collect();
    idx.sort_by_key(|&i| ord[i as usize]);
    idx.truncate(k);
    idx
}

fn lcg(state: &mut u64) -> u64 {
    *state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    *state >> 11 ^ *state << 31
}

#[test]
fn select_then_compact_equals_stable_sort() {
    let mut seed = 7u64;
    for width in [32u32, 64] {
        let mask = if width == 32 { u32::MAX as u64 } else { u64::MAX };
        let n = 5000usize;
        let inputs: Vec<(&str, Vec<u64>)> = std::vec![
            ("uniform", (0..n).map(|_| lcg(&mut seed) & mask).collect()),
            ("equal", std::vec![mask / 3; n]),
            ("few", (0..n).map(|_| [0, 5, mask, 1 << (width - 1)][(lcg(&mut seed) % 4) as usize]).collect()),
            ("sorted", (0..n as u64).collect()),
            ("reverse", (0..n as u64).rev().map(|i| i << (width - 13)).collect()),
            ("low bits", (0..n).map(|_| lcg(&mut seed) % 3).collect()),
            ("top bits", (0..n).map(|_| (lcg(&mut seed) % 5) << (width - 3)).collect()),
        ];
        for (name, ord) in &inputs {
            for k in [1u64, 2, 10, 100, 999, 4999, 5000] {
                // Small buffers force several passes, and exhaust the bits on ties.
                for cap in [Some(k.max(1) + 50), Some(2 * k), Some(k), None] {
                    let got = simulate(ord, width, k, cap);
                    assert_eq!(got, reference(ord, k as usize), "{name} width {width} k {k} cap {cap:?}");
                }
            }
        }
    }
}

#[test]
fn pass_digits_cover_the_key_from_the_top() {
    for width in [32u32, 64] {
        let mut next_end = width;
        for p in 0..passes(width) {
            let (shift, bits) = pass_digit(width, p);
            assert!((1..=DIGIT_BITS).contains(&bits));
            assert_eq!(shift + bits, next_end);
            next_end = shift;
        }
        assert_eq!(next_end, 0);
    }
    assert_eq!(passes(32), 3);
    assert!(passes(64) <= MAX_PASSES);
}

#[test]
fn capacity_selects_only_when_it_pays() {
    assert_eq!(capacity(1 << 26, 100), Some(MIN_CAP));
    assert_eq!(capacity(1 << 26, 1 << 20), Some(1 << 21));
    assert_eq!(capacity(MIN_CAP * 4, 1), None);
    assert_eq!(capacity(1000, 1), None);
    // On the select path `k` stays below 2^29: the before count fits its 30 bits.
    assert!(capacity(u32::MAX as u64, 1 << 29).is_none());
}

#[test]
fn positions_skip_boundary_keys_past_the_quota() {
    assert_eq!(position(true, 3, 10, 4), Some(7));
    assert_eq!(position(false, 3, 2, 4), Some(5));
    assert_eq!(position(false, 3, 4, 4), None);
    assert_eq!(State { before: 3, equal: 9, quota: 4, ..State::default() }.out(), 7);
    let w = status::pack(status::AGGREGATE, (1 << 30) - 1, u32::MAX as u64);
    assert_eq!(status::unpack(w), (status::AGGREGATE, (1 << 30) - 1, u32::MAX as u64));
}
