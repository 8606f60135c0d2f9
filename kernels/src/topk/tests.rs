extern crate std;
use super::*;
use std::vec::Vec;

/// The exact path's histogram and select passes on order bits (`width` bits) for
/// candidate buffer `cap`: the state once selecting is done.
fn select(ord: &[u64], width: u32, k: u64, cap: u64) -> State {
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

/// The whole top-k as the kernels compute it, on order bits (`width` bits), with
/// candidate buffer `cap` (`None`: everything): histogram and select passes, the
/// compaction tile by tile with its status words, then the stable sort of the
/// candidates. Returns the indices of the first `k`.
fn simulate(ord: &[u64], width: u32, k: u64, cap: Option<u64>) -> Vec<u32> {
    let n = ord.len() as u64;
    let state = match cap {
        None => State::everything(n),
        Some(cap) => select(ord, width, k, cap),
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

/// `topk_finish` as the kernel computes it, on candidates `(order bits, index)` of
/// `width`-bit keys, all below `2^(top - 32)` in their order bits: narrows by
/// composite digits until at most [`SORT_MAX`] are kept, gathers them, sorts them and
/// returns the indices of the first `k`.
fn finish_model(cands: &[(u64, u32)], width: u32, top: u32, k: u64) -> Vec<u32> {
    let comp: Vec<u128> = cands.iter().map(|&(o, i)| composite(o, i)).collect();
    let total = width + 32;
    let mut s = Narrow::new(total, top, comp.len() as u64);
    let mut want = k;
    while !s.fits() {
        let (shift, bits) = s.next_digit();
        assert!(bits > 0, "the select ends before the bits do");
        let mut hist = [0u64; DIGITS as usize];
        for &c in comp.iter().filter(|&&c| s.matches(c)) {
            hist[((c >> shift) as u32 & ((1 << bits) - 1)) as usize] += 1;
        }
        let mut below = 0;
        let mut next = None;
        for (d, &c) in hist.iter().enumerate() {
            if below < want && want <= below + c {
                next = Some((d as u32, below, c));
            }
            below += c;
        }
        let (d, below, c) = next.expect("a bucket holds the k-th candidate");
        s = s.step(d, below, c);
        want -= below;
    }
    let mut kept: Vec<u128> = comp.iter().copied().filter(|&c| s.keeps(c)).collect();
    assert_eq!(kept.len() as u64, s.before + s.matching, "kept = before + matching");
    assert!(kept.len() <= SORT_MAX as usize);
    kept.sort();
    kept.iter().take(k as usize).map(|&c| c as u32).collect()
}

/// The sampled path as the kernels compute it: the threshold from the samples, the
/// candidates at or below it (in a scrambled order, as the filter's atomics leave
/// them), then either `topk_finish` on them or, when their count is outside
/// `k..=cap`, the exact path with the same buffer. Returns the indices and whether
/// the sample held.
fn sampled_model(ord: &[u64], width: u32, k: u64, plan: SamplePlan) -> (Vec<u32>, bool) {
    let n = ord.len() as u64;
    let mut samples: Vec<u64> = (0..plan.samples).map(|i| ord[sample_position(i, plan.samples, n) as usize]).collect();
    let positions: Vec<u64> = (0..plan.samples).map(|i| sample_position(i, plan.samples, n)).collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]) && *positions.last().unwrap() < n);
    samples.sort();
    let t = samples[plan.rank as usize - 1];
    let mut cands: Vec<(u64, u32)> =
        ord.iter().enumerate().filter(|&(_, &o)| o <= t).map(|(i, &o)| (o, i as u32)).collect();
    let count = cands.len() as u64;
    if (k..=plan.cap).contains(&count) {
        // Any order: the atomics of the filter's warps.
        let mut seed = count;
        for i in (1..cands.len()).rev() {
            cands.swap(i, (lcg(&mut seed) % (i as u64 + 1)) as usize);
        }
        return (finish_model(&cands, width, bit_length(t) + 32, k), true);
    }
    // The exact path (its select and compaction as `simulate` models them), then
    // `topk_finish` on its candidates.
    let exact = simulate_candidates(ord, width, k, plan.cap);
    let cands: Vec<(u64, u32)> = exact.iter().map(|&i| (ord[i as usize], i)).collect();
    (finish_model(&cands, width, width + 32, k), false)
}

/// The exact path's candidates (indices, in index order) for buffer `cap`: the keys
/// before the selected prefix and the quota of keys equal to it.
fn simulate_candidates(ord: &[u64], width: u32, k: u64, cap: u64) -> Vec<u32> {
    let s = select(ord, width, k, cap);
    let mut equal = 0;
    let mut out = Vec::new();
    for (i, &o) in ord.iter().enumerate() {
        match s.classify(o, width) {
            core::cmp::Ordering::Less => out.push(i as u32),
            core::cmp::Ordering::Equal => {
                if equal < s.quota {
                    out.push(i as u32);
                }
                equal += 1;
            }
            core::cmp::Ordering::Greater => {}
        }
    }
    assert_eq!(out.len() as u64, s.out());
    assert!(out.len() as u64 <= cap);
    out
}

/// Inputs of `n` keys of `width` bits that a strided sample reads well or badly.
fn inputs(n: usize, width: u32, seed: &mut u64) -> Vec<(&'static str, Vec<u64>)> {
    let mask = if width == 32 { u32::MAX as u64 } else { u64::MAX };
    let top = |x: u64| x << (width - 16) & mask;
    std::vec![
        ("uniform", (0..n).map(|_| lcg(seed) & mask).collect()),
        ("equal", std::vec![mask / 3; n]),
        ("few", (0..n).map(|_| [0, 5, mask, 1 << (width - 1)][(lcg(seed) % 4) as usize]).collect()),
        ("sorted", (0..n as u64).collect()),
        ("reverse", (0..n as u64).rev().map(|i| i << (width - 20)).collect()),
        // The smallest keys all where no sample looks: the last ones.
        (
            "smallest last",
            (0..n).map(|i| if i + 3000 >= n { (n - i) as u64 } else { top(1 + lcg(seed) % 1000) }).collect()
        ),
        // Every 1,000th key small: the samples (stride n / samples) may all miss them.
        (
            "strided small",
            (0..n).map(|i| if i % 1000 == 999 { i as u64 } else { top(100 + lcg(seed) % 1000) }).collect()
        ),
        // Many keys equal to the threshold the sample picks.
        ("ties at threshold", (0..n).map(|i| if i % 7 == 0 { lcg(seed) % 1000 } else { 1000 }).collect()),
    ]
}

#[test]
fn sampled_path_equals_stable_sort() {
    let mut seed = 11u64;
    for width in [32u32, 64] {
        for n in [DIRECT_MAX as usize + 1, 200_003] {
            for (name, ord) in &inputs(n, width, &mut seed) {
                for k in [1u64, 2, 100, 1000, FAST_K_MAX] {
                    let Some(plan) = sample_plan(n as u64, k) else { continue };
                    let (got, _) = sampled_model(ord, width, k, plan);
                    assert_eq!(got, reference(ord, k as usize), "{name} width {width} n {n} k {k} {plan:?}");
                }
            }
        }
    }
}

#[test]
fn sample_holds_on_random_keys_and_falls_back_on_ties() {
    let mut seed = 5u64;
    let n = 1 << 20;
    let ord: Vec<u64> = (0..n).map(|_| lcg(&mut seed) & u32::MAX as u64).collect();
    for k in [1u64, 100, 1000] {
        let plan = sample_plan(n as u64, k).expect("2^20 keys sample well");
        assert!(sampled_model(&ord, 32, k, plan).1, "k {k}: random keys keep the fast path");
    }
    // All keys equal: every key is at or below any threshold, past the buffer.
    let equal = std::vec![7u64; n];
    let plan = sample_plan(n as u64, 100).unwrap();
    let (got, held) = sampled_model(&equal, 32, 100, plan);
    assert!(!held);
    assert_eq!(got, (0..100).collect::<Vec<u32>>());
}

#[test]
fn direct_finish_equals_stable_sort() {
    let mut seed = 3u64;
    for width in [32u32, 64] {
        for n in [1usize, 2, 31, 4096, 4097, 10_000] {
            for (name, ord) in &inputs(n.max(3001), width, &mut seed) {
                let ord = &ord[..n];
                for k in [1u64, 2, 100, 1000, FAST_K_MAX] {
                    let k = k.min(n as u64);
                    let cands: Vec<(u64, u32)> = ord.iter().enumerate().map(|(i, &o)| (o, i as u32)).collect();
                    let got = finish_model(&cands, width, width + 32, k);
                    assert_eq!(got, reference(ord, k as usize), "{name} width {width} n {n} k {k}");
                }
            }
        }
    }
}

#[test]
fn plans_choose_paths_and_buffers() {
    assert_eq!(plan(1, 1, true), Path::Direct);
    assert_eq!(plan(DIRECT_MAX, FAST_K_MAX, false), Path::Direct);
    assert_eq!(plan(1 << 26, FAST_K_MAX + 1, true), Path::Exact);
    assert_eq!(plan(1 << 26, 100, false), Path::Exact, "the filter needs 16-byte aligned keys");
    let Path::Sampled(p) = plan(1 << 26, 100, true) else { panic!("2^26 keys, k = 100 sample") };
    // 16,384 samples, one per 4,096 keys: the 5th smallest, ~20,000 candidates expected.
    assert_eq!((p.samples, p.rank), (16384, 5));
    assert!(p.cap >= 20 * 4096 && p.cap <= 40 * 4096, "{p:?}");
    for n in [(1u64 << 16) + 1, 100_000, 1 << 20, 1 << 26, 1 << 30, u32::MAX as u64] {
        for k in [1u64, 10, 100, 1000, FAST_K_MAX] {
            let Some(p) = sample_plan(n, k) else { continue };
            let s = p.samples as f64;
            assert!(p.rank >= 1 && p.rank <= p.samples);
            assert!(p.cap >= 2 * k && p.cap <= n / 8);
            // The odds, computed exactly, are within the bound.
            let lambda = k as f64 * s / n as f64;
            assert!(exact_at_least(lambda, p.rank as u64) <= FAIL_ODDS, "n {n} k {k} {p:?}");
            let mu = p.cap as f64 * s / n as f64;
            assert!(exact_below(mu, p.rank as u64) <= FAIL_ODDS * 1.01, "n {n} k {k} {p:?}");
            // And the rank is the least that is: one less would miss too often.
            if p.rank > 1 {
                assert!(exact_at_least(lambda, p.rank as u64 - 1) > FAIL_ODDS / 3.0, "n {n} k {k} {p:?}");
            }
        }
    }
    // Large k of few keys: a rank of hundreds of samples, past the bounds' range.
    assert_eq!(sample_plan(DIRECT_MAX + 1, FAST_K_MAX), None);
}

fn exact_below(mu: f64, m: u64) -> f64 {
    (0..m).map(|i| (-mu + i as f64 * mu.ln() - ln_factorial(i)).exp()).sum()
}

fn exact_at_least(lambda: f64, m: u64) -> f64 {
    (m..m + 2000).map(|i| (-lambda + i as f64 * lambda.ln() - ln_factorial(i)).exp()).sum()
}

fn ln_factorial(i: u64) -> f64 {
    (1..=i).map(|j| (j as f64).ln()).sum()
}

#[test]
fn poisson_bounds_are_upper_bounds() {
    for lambda in [0.001, 0.02, 0.5, 1.0, 3.7, 20.0, 150.0] {
        for m in [1u64, 2, 5, 10, 30, 100, 300] {
            let exact = exact_at_least(lambda, m);
            assert!(poisson_at_least(lambda, m) >= exact * (1.0 - 1e-9) - 1e-15, "{lambda} {m}");
            let below = exact_below(lambda, m);
            assert!(poisson_below(lambda, m) >= below * (1.0 - 1e-9), "{lambda} {m}");
        }
    }
}

#[test]
fn narrow_skips_the_bits_above_the_threshold() {
    let s = Narrow::new(64, 53, 20_000);
    assert_eq!(s.used, 11);
    assert_eq!(s.next_digit(), (42, 11));
    assert!(!s.fits());
    let t = s.step(3, 90, 12);
    assert_eq!((t.used, t.prefix, t.before, t.matching), (22, 3, 90, 12));
    assert!(t.fits());
    assert!(t.keeps(composite(2 << 10, 0)) && t.keeps(composite(3 << 10 | 1023, 7)));
    assert!(!t.keeps(composite(4 << 10, 0)));
    assert_eq!(bit_length(0), 0);
    assert_eq!(bit_length(1 << 20), 21);
}
