//! The sample sort's decisions, as plain functions of the samples and counts: which
//! splitters, where each GPU cuts its sorted part, and who sends what to whom. The GPU
//! path ([`super::MultiGpuSorter`]) and the CPU model in the tests use these same
//! functions.
//!
//! **Order with ties.** Every key is ordered by `(order bits, rank, position)`: its
//! order bits ([`kernels::SortKey::ord_bits`]), then the GPU it started on, then its
//! position in that GPU's *sorted* part. The local sorts are stable, so among equal
//! keys the position in the sorted part is the input order, and ranks hold consecutive
//! ranges of the input: this order is the stable sort's order, and no two keys are
//! equal in it. So splitters taken from it split runs of duplicates anywhere, and a
//! single repeated key still spreads evenly over the GPUs.

use kernels::splitters::{sample_count, sample_position};

/// Samples of a sorted part of `n` keys at [`sample_position`], from their order bits.
pub fn sorted_samples(bits: &[u64], n: u64) -> Vec<(u64, u64)> {
    let c = bits.len() as u64;
    bits.iter().enumerate().map(|(i, &b)| (b, sample_position(i as u64, c, n))).collect()
}

/// One sample, or a splitter: a key's place in the `(bits, rank, pos)` order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Splitter {
    /// Order bits of the key (ascending: what the sort puts first is smallest).
    pub bits: u64,
    /// GPU whose sorted part holds the key.
    pub rank: usize,
    /// Position of the key in that sorted part.
    pub pos: u64,
}

/// Samples wanted from a part of `n` keys when each GPU gives at most `max`.
pub fn samples_of(n: u64, max: u64) -> u64 {
    sample_count(n, max)
}

/// The `p - 1` splitters of `p` GPUs, from each GPU's samples: `samples[r]` holds
/// `(order bits, position)` of keys of GPU `r`'s part of `lens[r]` keys, in increasing
/// `(bits, position)` order (a sorted part's samples at [`sample_position`] are; an
/// unsorted part's are sorted by the caller).
///
/// Each sample stands for `lens[r] / samples[r].len()` keys (the parts may differ in
/// size); splitter `t` is the first sample, in the `(bits, rank, pos)` order, at which
/// the keys counted so far reach `t / p` of all keys. With samples of sorted parts each
/// GPU's count of keys below a splitter is then off by less than one sample's share of
/// its part, so GPU `t` ends with `n / p` keys give or take `sum_r lens[r] /
/// samples[r].len()`; samples of unsorted parts make that an estimate.
pub fn choose_splitters(samples: &[Vec<(u64, u64)>], lens: &[u64]) -> Vec<Splitter> {
    choose_bucket_splitters(samples, lens, lens.len())
}

/// [`choose_splitters`] for `buckets` key ranges instead of one per GPU: splitter `t`
/// reaches `t / buckets` of all keys. With `buckets = p * chunks`, splitter `j *
/// chunks` is exactly [`choose_splitters`]' splitter `j` (the same sample walk, the
/// same rounded target), so every GPU ends with the same keys either way; the ones
/// between cut each GPU's range into the chunks that the peer-copy exchange moves and
/// merges one after another.
pub fn choose_bucket_splitters(samples: &[Vec<(u64, u64)>], lens: &[u64], buckets: usize) -> Vec<Splitter> {
    let p = lens.len();
    let total: u64 = lens.iter().sum();
    let weight: Vec<f64> = samples.iter().zip(lens).map(|(s, &n)| n as f64 / s.len().max(1) as f64).collect();
    // Each GPU's samples are in `(bits, pos)` order, so a p-way merge visits all of
    // them in `(bits, rank, pos)` order without sorting.
    let mut head = vec![0usize; p];
    let next = |head: &[usize]| -> Option<usize> {
        (0..p).filter(|&r| head[r] < samples[r].len()).min_by_key(|&r| (samples[r][head[r]].0, r))
    };
    let sample = |r: usize, i: usize| Splitter { bits: samples[r][i].0, rank: r, pos: samples[r][i].1 };
    let mut out = Vec::with_capacity(buckets.saturating_sub(1));
    let mut before = 0f64;
    let mut cur = next(&head);
    for t in 1..buckets {
        let target = total as f64 * t as f64 / buckets as f64;
        // A sample sits in the middle of the keys it stands for; stop at the first
        // whose middle reaches the target, or at the last sample.
        while let Some(r) = cur {
            if before + weight[r] / 2.0 >= target {
                break;
            }
            head[r] += 1;
            match next(&head) {
                Some(n) => {
                    before += weight[r];
                    cur = Some(n);
                }
                None => {
                    head[r] -= 1;
                    break;
                }
            }
        }
        out.push(match cur {
            Some(r) => sample(r, head[r]),
            // No keys at all: every cut is 0.
            None => Splitter { bits: 0, rank: 0, pos: 0 },
        });
    }
    out
}

/// Keys of GPU `rank`'s sorted part that come before `s` in the `(bits, rank, pos)`
/// order, given that part's counts of keys with bits `< s.bits` (`less`) and `<=
/// s.bits` (`less_eq`): keys equal to the splitter's go before it from lower ranks, after
/// it from higher ranks, and on the splitter's own GPU those before its position.
pub fn cut(rank: usize, s: &Splitter, less: u64, less_eq: u64) -> u64 {
    use std::cmp::Ordering::*;
    match rank.cmp(&s.rank) {
        Less => less_eq,
        Equal => s.pos.clamp(less, less_eq),
        Greater => less,
    }
}

/// `counts[i][j]`: keys GPU `i` sends GPU `j`, from each GPU's cuts (`cuts[i]`: the `p -
/// 1` cut positions of GPU `i`'s sorted part of `lens[i]` keys). Cuts are made
/// non-decreasing and at most `lens[i]`, so the counts always add up to the parts.
pub fn send_counts(cuts: &[Vec<u64>], lens: &[u64]) -> Vec<Vec<u64>> {
    cuts.iter()
        .zip(lens)
        .map(|(c, &n)| {
            let mut prev = 0;
            let mut row = Vec::with_capacity(c.len() + 1);
            for &x in c {
                let x = x.clamp(prev, n);
                row.push(x - prev);
                prev = x;
            }
            row.push(n - prev);
            row
        })
        .collect()
}

/// The splitters as GPU `rank`'s partition kernels take them: `(bits, threshold)` of
/// each, flattened ([`kernels::partition::part_of`]).
pub fn cuts_for(rank: usize, splitters: &[Splitter]) -> Vec<u64> {
    splitters.iter().flat_map(|s| [s.bits, kernels::partition::threshold(rank, s.rank, s.pos)]).collect()
}

/// Keys each GPU ends with when GPU `i` sends GPU `j` `counts[i][j]` keys (its own
/// piece included).
pub fn received_totals(counts: &[Vec<u64>]) -> Vec<u64> {
    (0..counts.len()).map(|j| counts.iter().map(|row| row[j]).sum()).collect()
}

/// Whether the parts a partition by sampled splitters produced are balanced enough to
/// keep (`received[j]`: keys GPU `j` would end with): within 5% of `n / p`, plus the
/// sampling bound of sorted parts (`sum lens[r] / samples[r] + 1`, what the sort-first
/// pipeline guarantees). Otherwise the sort falls back to sorting first, whose splitters
/// are exact, so no input ends further than the 10% from even.
pub fn balanced_enough(received: &[u64], lens: &[u64], samples: &[u64]) -> bool {
    let n: u64 = lens.iter().sum();
    let ideal = n as f64 / received.len().max(1) as f64;
    let slack = 1.0 + lens.iter().zip(samples).map(|(&l, &c)| l as f64 / c.max(1) as f64).sum::<f64>();
    received.iter().all(|&r| (r as f64 - ideal).abs() <= 0.05 * ideal + slack)
}

/// Where each GPU's pieces start: `(send_offsets[i][j], recv_offsets[j][i])` (element
/// offsets into GPU `i`'s sorted part and GPU `j`'s receive buffer) and each GPU's
/// received total. GPU `j` receives from `0, 1, .., p - 1` in that order, so its buffer
/// holds the sorted runs in rank order (the stable order of equal keys). Without
/// `with_own`, a GPU's own piece gets no room in its receive buffer (the merge reads it
/// where it is).
pub struct Layout {
    /// `send_offsets[i][j]`: where the piece GPU `i` sends to GPU `j` starts in `i`'s
    /// sorted part.
    pub send_offsets: Vec<Vec<u64>>,
    /// `recv_offsets[j][i]`: where the piece from GPU `i` lands in GPU `j`'s receive
    /// buffer.
    pub recv_offsets: Vec<Vec<u64>>,
    /// Elements each GPU's receive buffer holds.
    pub received: Vec<u64>,
}

impl Layout {
    /// The layout of `counts[i][j]` elements going from GPU `i` to GPU `j`; `with_own`
    /// gives each GPU's own piece room in its receive buffer too.
    pub fn new(counts: &[Vec<u64>], with_own: bool) -> Layout {
        let p = counts.len();
        let send_offsets = counts.iter().map(|row| prefix_sums(row)).collect();
        let mut recv_offsets = vec![vec![0u64; p]; p];
        let mut received = vec![0u64; p];
        for j in 0..p {
            for i in 0..p {
                recv_offsets[j][i] = received[j];
                if with_own || i != j {
                    received[j] += counts[i][j];
                }
            }
        }
        Layout { send_offsets, recv_offsets, received }
    }
}

/// Where the pieces of the chunked peer-copy exchange go. Bucket `b = j * chunks + c`
/// is chunk `c` of GPU `j`'s key range; `counts[i][b]` keys of GPU `i`'s sorted part
/// fall in it. GPU `j` receives chunk after chunk, each chunk's pieces in rank order
/// (its own piece is read where it is), and merges chunk `c` into its result at
/// `out_offsets[j][c]`: the chunks are consecutive key ranges, so the merged chunks
/// side by side are GPU `j`'s whole range, in the same order as one merge of
/// everything.
pub struct Chunked {
    /// Chunks per GPU.
    pub chunks: usize,
    /// `send_offsets[i][b]`: where GPU `i`'s piece of bucket `b` starts in its sorted
    /// part.
    pub send_offsets: Vec<Vec<u64>>,
    /// `recv_offsets[j][c][i]`: where GPU `i`'s piece of chunk `c` lands in GPU `j`'s
    /// receive buffer (unused for `i == j`).
    pub recv_offsets: Vec<Vec<Vec<u64>>>,
    /// Elements each GPU's receive buffer holds (its own pieces not included).
    pub received: Vec<u64>,
    /// `out_offsets[j][c]`: where chunk `c`'s merged keys start in GPU `j`'s result.
    pub out_offsets: Vec<Vec<u64>>,
    /// Keys each GPU ends with.
    pub held: Vec<u64>,
}

impl Chunked {
    /// The layout of `counts[i][b]` (`p` rows of `p * chunks` buckets).
    pub fn new(counts: &[Vec<u64>], chunks: usize) -> Chunked {
        let p = counts.len();
        let chunks = chunks.max(1);
        debug_assert!(counts.iter().all(|row| row.len() == p * chunks));
        let send_offsets = counts.iter().map(|row| prefix_sums(row)).collect();
        let mut recv_offsets = vec![vec![vec![0u64; p]; chunks]; p];
        let mut out_offsets = vec![vec![0u64; chunks]; p];
        let mut received = vec![0u64; p];
        let mut held = vec![0u64; p];
        for j in 0..p {
            for c in 0..chunks {
                out_offsets[j][c] = held[j];
                for i in 0..p {
                    let len = counts[i][j * chunks + c];
                    recv_offsets[j][c][i] = received[j];
                    held[j] += len;
                    if i != j {
                        received[j] += len;
                    }
                }
            }
        }
        Chunked { chunks, send_offsets, recv_offsets, received, out_offsets, held }
    }

    /// Keys GPU `i` sends GPU `j` in chunk `c` (its own piece when `i == j`).
    pub fn count(&self, counts: &[Vec<u64>], i: usize, j: usize, c: usize) -> u64 {
        counts[i][j * self.chunks + c]
    }
}

fn prefix_sums(xs: &[u64]) -> Vec<u64> {
    xs.iter()
        .scan(0u64, |acc, &c| {
            let at = *acc;
            *acc += c;
            Some(at)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Each GPU's part in the models: `(key bits, origin)` pairs.
    type Part = Vec<(u64, u64)>;

    /// The steps both exchanges share, on the CPU with the GPU path's functions: each
    /// GPU's part sorted (stably, as the radix sort), sampled, `buckets` key ranges
    /// chosen from the samples, and each part cut at the splitters. Returns the sorted
    /// parts and the keys each GPU sends to each bucket.
    fn sort_and_cut(parts: &[Vec<(u64, u64)>], max_samples: u64, buckets: usize) -> (Vec<Part>, Vec<Vec<u64>>) {
        let sorted: Vec<Vec<(u64, u64)>> = parts
            .iter()
            .map(|part| {
                let mut s = part.clone();
                s.sort_by_key(|e| e.0); // stable, as the radix sort
                s
            })
            .collect();
        let lens: Vec<u64> = sorted.iter().map(|s| s.len() as u64).collect();
        let samples: Vec<Vec<(u64, u64)>> = sorted
            .iter()
            .map(|s| {
                let n = s.len() as u64;
                let c = samples_of(n, max_samples);
                let bits: Vec<u64> = (0..c).map(|i| s[sample_position(i, c, n) as usize].0).collect();
                sorted_samples(&bits, n)
            })
            .collect();
        let splitters = choose_bucket_splitters(&samples, &lens, buckets);
        assert_eq!(splitters.len(), buckets - 1);
        let cuts: Vec<Vec<u64>> = sorted
            .iter()
            .enumerate()
            .map(|(r, s)| {
                splitters
                    .iter()
                    .map(|sp| {
                        let less = s.partition_point(|e| e.0 < sp.bits) as u64;
                        let less_eq = s.partition_point(|e| e.0 <= sp.bits) as u64;
                        cut(r, sp, less, less_eq)
                    })
                    .collect()
            })
            .collect();
        let counts = send_counts(&cuts, &lens);
        (sorted, counts)
    }

    /// The whole sample sort on the CPU with the functions the GPU path uses: `parts`
    /// are each GPU's input (order bits, input index); returns what each GPU ends with.
    fn model(parts: &[Vec<(u64, u64)>], max_samples: u64) -> Vec<Vec<(u64, u64)>> {
        let p = parts.len();
        // `choose_splitters` is `choose_bucket_splitters` with one bucket per GPU.
        let (sorted, counts) = sort_and_cut(parts, max_samples, p);
        let layout = Layout::new(&counts, true);
        (0..p)
            .map(|j| {
                let mut got = Vec::with_capacity(layout.received[j] as usize);
                for i in 0..p {
                    let from = layout.send_offsets[i][j] as usize;
                    got.extend_from_slice(&sorted[i][from..from + counts[i][j] as usize]);
                }
                got.sort_by_key(|e| e.0); // the stable merge of the runs in rank order
                got
            })
            .collect()
    }

    /// The chunked peer-copy exchange on the CPU with the functions the GPU path uses:
    /// `p * chunks` buckets, the pieces laid out by [`Chunked`], each chunk merged
    /// (stably, runs in rank order) into its place in the GPU's result.
    fn chunked_model(parts: &[Vec<(u64, u64)>], max_samples: u64, chunks: usize) -> Vec<Vec<(u64, u64)>> {
        let p = parts.len();
        let (sorted, counts) = sort_and_cut(parts, max_samples, p * chunks);
        let layout = Chunked::new(&counts, chunks);
        (0..p)
            .map(|j| {
                let mut out = vec![(u64::MAX, u64::MAX); layout.held[j] as usize];
                let mut recv = vec![(u64::MAX, u64::MAX); layout.received[j] as usize];
                for c in 0..chunks {
                    for i in (0..p).filter(|&i| i != j) {
                        let (from, len) =
                            (layout.send_offsets[i][j * chunks + c] as usize, layout.count(&counts, i, j, c));
                        let at = layout.recv_offsets[j][c][i] as usize;
                        recv[at..at + len as usize].copy_from_slice(&sorted[i][from..from + len as usize]);
                    }
                }
                for c in 0..chunks {
                    let mut runs = Vec::new();
                    for i in 0..p {
                        let len = layout.count(&counts, i, j, c) as usize;
                        if i == j {
                            let from = layout.send_offsets[j][j * chunks + c] as usize;
                            runs.extend_from_slice(&sorted[j][from..from + len]);
                        } else {
                            let at = layout.recv_offsets[j][c][i] as usize;
                            runs.extend_from_slice(&recv[at..at + len]);
                        }
                    }
                    runs.sort_by_key(|e| e.0); // the stable merge of the runs in rank order
                    let at = layout.out_offsets[j][c] as usize;
                    out[at..at + runs.len()].copy_from_slice(&runs);
                }
                out
            })
            .collect()
    }

    /// The partition-first pipeline on the CPU with the functions the GPU path uses:
    /// samples of the unsorted parts at jittered positions, the splitters, a stable
    /// partition of each part by `part_of`, the pieces in rank order, each GPU's keys
    /// sorted stably. `None` when `balanced_enough` rejects the split (the GPU path
    /// then sorts first).
    fn partition_model(parts: &[Vec<(u64, u64)>], max_samples: u64) -> Option<Vec<Vec<(u64, u64)>>> {
        use kernels::partition::part_of;
        use kernels::splitters::jittered_position;
        let p = parts.len();
        let lens: Vec<u64> = parts.iter().map(|s| s.len() as u64).collect();
        let counts: Vec<u64> = lens.iter().map(|&n| samples_of(n, max_samples)).collect();
        let samples: Vec<Vec<(u64, u64)>> = parts
            .iter()
            .zip(&counts)
            .map(|(s, &c)| {
                let n = s.len() as u64;
                let mut v: Vec<(u64, u64)> = (0..c)
                    .map(|i| {
                        let at = jittered_position(i, c, n);
                        (s[at as usize].0, at)
                    })
                    .collect();
                v.sort();
                v
            })
            .collect();
        let splitters = choose_splitters(&samples, &lens);
        let pieces: Vec<Vec<Vec<(u64, u64)>>> = parts
            .iter()
            .enumerate()
            .map(|(r, s)| {
                let flat = cuts_for(r, &splitters);
                let cuts: Vec<(u64, u64)> = flat.chunks(2).map(|c| (c[0], c[1])).collect();
                let mut out = vec![Vec::new(); p];
                for (i, e) in s.iter().enumerate() {
                    out[part_of(e.0, i as u64, &cuts) as usize].push(*e);
                }
                out
            })
            .collect();
        let sizes: Vec<Vec<u64>> = pieces.iter().map(|row| row.iter().map(|x| x.len() as u64).collect()).collect();
        if !balanced_enough(&received_totals(&sizes), &lens, &counts) {
            return None;
        }
        Some(
            (0..p)
                .map(|j| {
                    let mut got: Vec<(u64, u64)> = (0..p).flat_map(|i| pieces[i][j].iter().copied()).collect();
                    got.sort_by_key(|e| e.0);
                    got
                })
                .collect(),
        )
    }

    /// Inputs of `n` keys that are hard to split evenly: duplicates, order, an
    /// outlier, and periods near and at the sampling stride (a sample in the middle of
    /// each slice would see one value only).
    fn skewed_cases(n: usize) -> Vec<(&'static str, Vec<u64>)> {
        let mut state = 7u64;
        let mut rnd = move || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            state >> 11
        };
        vec![
            ("all equal", vec![7; n]),
            ("two values", (0..n).map(|i| (i % 2) as u64).collect()),
            ("few unique", (0..n).map(|_| rnd() % 5).collect()),
            ("sorted", (0..n as u64).collect()),
            ("reverse", (0..n as u64).rev().collect()),
            ("one outlier", (0..n).map(|i| if i == n / 2 { u64::MAX } else { 3 }).collect()),
            ("random", (0..n).map(|_| rnd()).collect()),
            ("period 12", (0..n).map(|i| (i % 12) as u64).collect()),
            ("period 24", (0..n).map(|i| (i % 24) as u64).collect()),
            ("period 4096", (0..n).map(|i| (i % 4096) as u64).collect()),
            ("sawtooth", (0..n).map(|i| (i % 1000) as u64 * 1000 + (i / 1000) as u64).collect()),
        ]
    }

    #[test]
    fn partition_first_is_the_stable_sort_and_balanced() {
        let n = 100_000usize;
        for (name, keys) in &skewed_cases(n) {
            for p in [2usize, 3, 4, 8] {
                let parts = split(keys, p);
                let out = partition_model(&parts, 4096).unwrap_or_else(|| panic!("{name} p {p}: fell back"));
                let got: Vec<(u64, u64)> = out.iter().flatten().copied().collect();
                assert!(got == stable_sort_of(&parts), "{name} p {p}: not the stable sort");
                let ideal = n as f64 / p as f64;
                for o in &out {
                    assert!((o.len() as f64 - ideal).abs() <= 0.1 * ideal, "{name} p {p}: {}", o.len());
                }
            }
        }
    }

    fn split(keys: &[u64], p: usize) -> Vec<Vec<(u64, u64)>> {
        let n = keys.len();
        (0..p).map(|r| (r * n / p..(r + 1) * n / p).map(|i| (keys[i], i as u64)).collect()).collect()
    }

    /// What every pipeline must produce from `parts`: their (key, input position)
    /// elements in the stable order of the keys.
    fn stable_sort_of(parts: &[Vec<(u64, u64)>]) -> Vec<(u64, u64)> {
        let mut all: Vec<(u64, u64)> = parts.iter().flatten().copied().collect();
        all.sort_by_key(|e| e.0);
        all
    }

    /// The concatenation is the stable sort, and each GPU holds `n / p` keys within
    /// the sampling bound.
    fn check(parts: &[Vec<(u64, u64)>], max_samples: u64) -> Vec<usize> {
        let p = parts.len();
        let out = model(parts, max_samples);
        let want = stable_sort_of(parts);
        let got: Vec<(u64, u64)> = out.iter().flatten().copied().collect();
        assert_eq!(got, want, "not the stable sort");
        let n: usize = want.len();
        let slack: f64 = parts
            .iter()
            .map(|s| {
                let c = samples_of(s.len() as u64, max_samples).max(1);
                s.len() as f64 / c as f64
            })
            .sum::<f64>()
            + 1.0;
        for (j, o) in out.iter().enumerate() {
            let ideal = n as f64 / p as f64;
            assert!(
                (o.len() as f64 - ideal).abs() <= slack,
                "GPU {j} holds {} keys, ideal {ideal}, slack {slack}",
                o.len()
            );
        }
        out.iter().map(|o| o.len()).collect()
    }

    #[test]
    fn skewed_inputs_stay_balanced() {
        let n = 100_000usize;
        for (name, keys) in &skewed_cases(n) {
            for p in [2usize, 3, 4, 8] {
                for max_samples in [4096u64, 64] {
                    let sizes = check(&split(keys, p), max_samples);
                    // The bound: every GPU within 10% of n / p.
                    for s in &sizes {
                        let ideal = n as f64 / p as f64;
                        assert!((*s as f64 - ideal).abs() <= 0.1 * ideal, "{name} p {p} s {max_samples}: {sizes:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn chunked_skewed_inputs_match_unchunked() {
        let n = 20_000usize;
        for (name, keys) in &skewed_cases(n) {
            for p in [2usize, 4] {
                for chunks in [2usize, 4, 8] {
                    let parts = split(keys, p);
                    assert!(chunked_model(&parts, 4096, chunks) == model(&parts, 4096), "{name} p {p} chunks {chunks}");
                }
            }
        }
    }

    #[test]
    fn uneven_and_empty_parts() {
        let parts = vec![
            (0..1000u64).map(|i| (i % 13, i)).collect::<Vec<_>>(),
            vec![],
            (1000..1010u64).map(|i| (i % 13, i)).collect(),
            (1010..5000u64).map(|i| (5, i)).collect(),
        ];
        check(&parts, 16);
        check(&[vec![], vec![]], 16);
        check(&[vec![(1, 0)], vec![]], 16);
        check(&[vec![], vec![(1, 0)]], 16);
        check(&[vec![(2, 0)], vec![(1, 1)], vec![(0, 2)]], 16);
    }

    #[test]
    fn cut_rule() {
        let s = Splitter { bits: 5, rank: 1, pos: 12 };
        assert_eq!(cut(0, &s, 10, 20), 20, "lower ranks: equal keys go before");
        assert_eq!(cut(1, &s, 10, 20), 12, "own rank: before its position");
        assert_eq!(cut(2, &s, 10, 20), 10, "higher ranks: equal keys go after");
        assert_eq!(send_counts(&[vec![3, 2, 9]], &[8]), vec![vec![3, 0, 5, 0]], "clamped and monotone");
        let l = Layout::new(&[vec![1, 2], vec![3, 4]], true);
        assert_eq!(l.send_offsets, vec![vec![0, 1], vec![0, 3]]);
        assert_eq!(l.recv_offsets, vec![vec![0, 1], vec![0, 2]]);
        assert_eq!(l.received, vec![4, 6]);
        let l = Layout::new(&[vec![1, 2], vec![3, 4]], false);
        assert_eq!(l.recv_offsets, vec![vec![0, 0], vec![0, 2]]);
        assert_eq!(l.received, vec![3, 2]);
    }

    proptest! {
        #[test]
        fn partition_model_is_the_stable_sort(
            keys in prop::collection::vec(0u64..40, 0..600),
            p in 1usize..6,
            max_samples in 1u64..50,
        ) {
            let parts = split(&keys, p);
            if let Some(out) = partition_model(&parts, max_samples) {
                let got: Vec<(u64, u64)> = out.into_iter().flatten().collect();
                prop_assert_eq!(got, stable_sort_of(&parts));
            }
        }

        /// Chunks change where the pieces travel, not what each GPU ends with.
        #[test]
        fn chunked_model_is_the_unchunked_result(
            keys in prop::collection::vec(0u64..40, 0..600),
            p in 1usize..6,
            max_samples in 1u64..50,
            chunks in 1usize..6,
        ) {
            let parts = split(&keys, p);
            prop_assert_eq!(chunked_model(&parts, max_samples, chunks), model(&parts, max_samples));
        }

        #[test]
        fn model_is_the_stable_sort(
            keys in prop::collection::vec(0u64..40, 0..600),
            p in 1usize..6,
            max_samples in 1u64..50,
        ) {
            let parts = split(&keys, p);
            let out = model(&parts, max_samples);
            let got: Vec<(u64, u64)> = out.into_iter().flatten().collect();
            prop_assert_eq!(got, stable_sort_of(&parts));
        }
    }
}
