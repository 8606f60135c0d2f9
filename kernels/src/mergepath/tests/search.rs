//! The partitions' sampled co-rank search, modelled with its lanes run in turn: exact
//! against the plain co-rank, and short.
use super::*;
use crate::search::co_rank;

std::thread_local! {
    /// Coarse rounds run by [`model_sampled_co_rank`] on this thread.
    static ROUNDS: core::cell::Cell<u64> = const { core::cell::Cell::new(0) };
}

fn sample_slots_at(n: u64, stride: u64) -> u64 {
    2 * n.div_ceil(stride)
}

/// The samples a kernel writes with `src` (`store_striped`), at chunks of `stride`: slot
/// `2c` chunk `c`'s first key, `2c + 1` its last (`u32::MAX` where a partial last chunk
/// has none).
pub(super) fn model_samples(src: &[E], stride: u64) -> Vec<u32> {
    let mut samples = vec![u32::MAX; sample_slots_at(src.len() as u64, stride) as usize];
    for (x, e) in src.iter().enumerate() {
        let x = x as u64;
        if x.is_multiple_of(stride) {
            samples[2 * (x / stride) as usize] = e.0;
        }
        if x % stride == stride - 1 {
            samples[2 * (x / stride) as usize + 1] = e.0;
        }
    }
    samples
}

/// The partition kernel's search with its `ways` lanes run in turn: first among the
/// chunk boundaries in `samples` (stride `stride`), then in `src` itself.
pub(super) fn model_sampled_co_rank(src: &[E], samples: &[u32], w: &Window<u64>, stride: u64, ways: u32) -> u64 {
    use crate::search::{co_rank_probe, co_rank_range, guided_narrow, guided_probe, many_way_search};
    let (a, bb, k) = (w.start, w.start + w.a_len, w.diag);
    let (mut lo, mut hi) = co_rank_range(k, w.a_len, w.b_len);
    if w.b_len > 0 {
        let (c0, c1) = coarse_range(lo, hi, stride);
        let before = |c: u64| {
            assert!((c0..c1).contains(&c), "probe {c} outside [{c0}, {c1})");
            let (ga, gb) = (a + stride * c, bb + k - 1 - stride * c);
            assert_eq!((ga % stride, gb % stride), (0, stride - 1), "probes sit on chunk ends");
            samples[2 * (ga / stride) as usize] <= samples[2 * (gb / stride) as usize + 1]
        };
        let (mut s0, mut s1) = (c0, c1);
        if let Some(guess) = coarse_guess(k, w.a_len, w.b_len, (c0, c1), stride) {
            let trues = (0..ways).filter(|&lane| before(guided_probe(c0, c1, guess, lane, ways))).count() as u32;
            (s0, s1) = guided_narrow(c0, c1, guess, trues, ways);
            ROUNDS.with(|r| r.set(r.get() + 1));
        }
        let cf = many_way_search(s0, s1, ways, |l, h| {
            ROUNDS.with(|r| r.set(r.get() + 1));
            (0..ways).filter(|&lane| before(co_rank_probe(l, h, lane, ways))).count() as u32
        });
        (lo, hi) = refine_range(lo, hi, stride, c0, c1, cf);
    }
    // What the kernels rely on to finish in one round: the coarse search leaves at
    // most one chunk, and an empty `B` leaves `[k, k]`.
    assert!(hi - lo <= stride, "at most one chunk left: [{lo}, {hi}]");
    // The kernels' `a_before_partner`.
    let before = |x: u64| src[(a + x) as usize].0 <= src[(bb + k - 1 - x) as usize].0;
    // The chunk's round: every candidate at once, the trues counted (the kernels' stride
    // is `sample_stride`, `stride / ways` candidates a lane).
    let mut trues = 0;
    for lane in 0..ways {
        for i in 0..(stride as u32).div_ceil(ways) {
            let x = chunk_candidate(lo, lane, i, ways);
            if x < hi && before(x) {
                trues += 1;
            }
        }
    }
    lo + trues
}

#[test]
fn one_round_finishes_a_chunk() {
    // After the coarse search at most a stride of candidates is left, which one round
    // of a group of lanes covers, each candidate once.
    for stride in [sample_stride(4), sample_stride(8), sample_stride(20)] {
        assert!(stride <= MAX_SAMPLE && stride.is_power_of_two(), "{stride}");
        for lanes in [8u32, 16, 32] {
            let mut probes: Vec<u64> =
                (0..lanes).flat_map(|l| (0..stride / lanes).map(move |i| chunk_candidate(100, l, i, lanes))).collect();
            probes.sort();
            assert_eq!(probes, (100..100 + stride as u64).collect::<Vec<_>>(), "{lanes} lanes");
        }
    }
}

/// The sampled co-rank search, guided round included, against the plain co-rank on two
/// long runs of every shape (random, sorted, reversed, few distinct keys, one run much
/// shorter), at every diagonal of a grid, with groups of 8, 16 and 32 lanes; and the
/// guided round's use: on random keys the coarse search takes at most three rounds, on
/// sorted or reversed runs two (the guided one and the one that sees the range is done).
#[test]
fn guided_co_rank_search_is_exact_and_short() {
    for key_bytes in [4, 8] {
        guided_search_at(sample_stride(key_bytes) as u64);
    }
}

/// [`guided_co_rank_search_is_exact_and_short`] at samples of `stride`.
fn guided_search_at(stride: u64) {
    let mut state = 7u64;
    let mut rnd = |m: u64| {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 33) % m
    };
    let shapes = ["random", "sorted", "reversed", "few", "short"];
    for shape in shapes {
        // Runs start at multiples of every stride, as runs of whole tiles do.
        let (a_len, b_len) = if shape == "short" { (40_960u64, 3_001u64) } else { (40_960, 40_960) };
        let mut a: Vec<u32> = (0..a_len).map(|_| rnd(1 << 30) as u32).collect();
        let mut b: Vec<u32> = (0..b_len).map(|_| rnd(1 << 30) as u32).collect();
        if shape == "few" {
            a.iter_mut().chain(b.iter_mut()).for_each(|x| *x %= 3);
        }
        a.sort();
        b.sort();
        if shape == "sorted" {
            b.iter_mut().for_each(|x| *x |= 1 << 31);
        }
        if shape == "reversed" {
            a.iter_mut().for_each(|x| *x |= 1 << 31);
        }
        let src: Vec<E> = a.iter().chain(&b).enumerate().map(|(i, &x)| (x, i as u32)).collect();
        let n = src.len() as u64;
        let samples = model_samples(&src, stride);
        let w0 = Window { start: 0u64, a_len, b_len, diag: 0 };
        for ways in [8, 16, 32] {
            let mut most = 0;
            // Diagonals at chunk ends, as the kernels' (tiles are whole chunks).
            for diag in
                (0..=n).step_by(3 * stride as usize).chain([stride, n / 2 / stride * stride, n / stride * stride])
            {
                let w = Window { diag, ..w0 };
                let i = co_rank(diag, a_len, b_len, |x| src[x as usize].0, |x| src[(a_len + x) as usize].0);
                ROUNDS.with(|r| r.set(0));
                assert_eq!(
                    model_sampled_co_rank(&src, &samples, &w, stride, ways),
                    i,
                    "{shape} diag {diag} ways {ways} stride {stride}"
                );
                most = most.max(ROUNDS.with(|r| r.get()));
            }
            match shape {
                "random" => assert!(most <= 3, "{shape}, {ways} ways: {most} coarse rounds"),
                "sorted" | "reversed" => assert!(most <= 2, "{shape}, {ways} ways: {most} coarse rounds"),
                _ => assert!(most <= 4, "{shape}, {ways} ways: {most} coarse rounds"),
            }
        }
    }
}
