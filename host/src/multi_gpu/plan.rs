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
    let p = lens.len();
    let total: u64 = lens.iter().sum();
    let targets: Vec<f64> = (1..p).map(|t| total as f64 * t as f64 / p as f64).collect();
    splitters_at(samples, lens, &targets)
}

/// The splitters at which the keys before them reach each of `targets` (non-decreasing
/// counts of keys), from samples as [`choose_splitters`] takes them (which is this
/// with the targets `t * n / p`).
pub fn splitters_at(samples: &[Vec<(u64, u64)>], lens: &[u64], targets: &[f64]) -> Vec<Splitter> {
    let p = lens.len();
    let weight: Vec<f64> = samples.iter().zip(lens).map(|(s, &n)| n as f64 / s.len().max(1) as f64).collect();
    // Each GPU's samples are in `(bits, pos)` order, so a p-way merge visits all of
    // them in `(bits, rank, pos)` order without sorting.
    let mut head = vec![0usize; p];
    let next = |head: &[usize]| -> Option<usize> {
        (0..p).filter(|&r| head[r] < samples[r].len()).min_by_key(|&r| (samples[r][head[r]].0, r))
    };
    let sample = |r: usize, i: usize| Splitter { bits: samples[r][i].0, rank: r, pos: samples[r][i].1 };
    let mut out = Vec::with_capacity(targets.len());
    let mut before = 0f64;
    let mut cur = next(&head);
    for &target in targets {
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
        let send_offsets = counts
            .iter()
            .map(|row| {
                row.iter()
                    .scan(0u64, |acc, &c| {
                        let at = *acc;
                        *acc += c;
                        Some(at)
                    })
                    .collect()
            })
            .collect();
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

/// Bits of the digit by which the top-bits pipeline partitions each part by default:
/// one radix pass of the stable sort ([`top_bits`]).
pub const TOP_DIGIT_BITS: u32 = 8;

/// The order bits `(begin, end)` by which the top-bits pipeline sorts each part stably
/// before the exchange, from order bits sampled from all parts, for keys of `width`
/// bits: the `digit` (e.g. [`TOP_DIGIT_BITS`]) highest bits in which the samples differ, and every bit
/// above them. The samples agree on the bits above, so the radix sort usually finds
/// those digits constant and skips their passes (a key that differs there still lands
/// in its place: the sort covers the bits). The part is then grouped by `ord >> begin`,
/// and every key of a group shares its bits from `begin` up. All samples equal: the top
/// digit.
pub fn top_bits(sampled: &[u64], width: u32, digit: u32) -> (u32, u32) {
    let mask = if width >= 64 { u64::MAX } else { (1u64 << width) - 1 };
    let (and, or) = sampled.iter().fold((u64::MAX, 0u64), |(a, o), &b| (a & b, o | b));
    let varying = (and ^ or) & mask;
    let top = if sampled.is_empty() || varying == 0 { width } else { 64 - varying.leading_zeros() };
    let digit = digit.clamp(1, width);
    (top.max(digit) - digit, width)
}

/// The bucket edges of the top-bits partition by `bits` ([`top_bits`] with `digit`):
/// the order-bit values `common + d << begin` for each digit `d` (`common`: the sampled
/// keys' shared bits above the digit, `sampled_and` being the AND of their order bits), those strictly
/// between 0 and `2^width`, increasing. Between two edges, and below the first and above
/// the last, lies one bucket: a contiguous range of every part grouped by `ord >> begin`
/// (a bucket beside the digit's range may hold keys that differ above it: unsampled
/// outliers). Each part's count of keys below an edge is a binary search.
pub fn top_edges(sampled_and: u64, (begin, end): (u32, u32), width: u32, digit: u32) -> Vec<u64> {
    let digit_end = (begin + digit).min(end);
    let base = sampled_and as u128 & !((1u128 << digit_end) - 1);
    let limit = 1u128 << width;
    (0..=1u128 << (digit_end - begin))
        .map(|d| base + (d << begin))
        .filter(|&v| v > 0 && v < limit)
        .map(|v| v as u64)
        .collect()
}

/// Where the top-bits pipeline cuts for the boundary between GPU `t - 1` and GPU `t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TopCut {
    /// At bucket edge `k` (the index into each part's `below` counts): every GPU cuts
    /// its part there.
    At(usize),
    /// Inside a bucket: each part's range of the bucket is sorted fully and the cut is
    /// placed by samples of those ranges ([`splitters_at`]).
    Inside {
        /// The bucket, between edges `bucket` and `bucket + 1`.
        bucket: usize,
        /// Keys of the bucket, in the stable order, before the cut.
        rank: u64,
    },
}

/// The `p - 1` cuts of the top-bits pipeline from `below[g]`: GPU `g`'s count of keys
/// below each bucket edge, from `0` (first) to its part's length (last), non-decreasing.
/// Cut `t` wants `t * n / p` keys before it; an edge within `tolerance` keys of that is
/// taken (nothing more to do), otherwise the cut goes inside the bucket that holds the
/// target. Buckets are small for spread keys (uniform 2^30 keys on 2 GPUs: 2^22 keys
/// each, a half bucket is 0.4% of `n / p`), so a tolerance of about 1% of `n / p` makes
/// cuts inside a bucket the exception of skewed keys. `tolerance` below `n / (2p)` keeps
/// the cuts in order.
pub fn top_cuts(below: &[Vec<u64>], tolerance: u64) -> Vec<TopCut> {
    let p = below.len();
    let edges = below.iter().map(|b| b.len()).min().unwrap_or(0);
    let global: Vec<u128> = (0..edges).map(|k| below.iter().map(|b| b[k] as u128).sum()).collect();
    let total = global.last().copied().unwrap_or(0);
    (1..p)
        .map(|t| {
            let target = total * t as u128 / p as u128;
            // The last edge at or below the target (edge 0 is 0).
            let k = global.partition_point(|&c| c <= target).saturating_sub(1);
            if target - global[k] <= tolerance as u128 {
                TopCut::At(k)
            } else if k + 1 < edges && global[k + 1] - target <= tolerance as u128 {
                TopCut::At(k + 1)
            } else {
                TopCut::Inside { bucket: k, rank: (target - global[k]) as u64 }
            }
        })
        .collect()
}

/// The default tolerance of [`top_cuts`] for `n` keys over `p` GPUs: 1/128 of `n / p`.
pub fn top_tolerance(n: u64, p: usize) -> u64 {
    n / p.max(1) as u64 / 128
}

/// One piece of the top-bits exchange: `len` keys from position `from` of GPU `src`'s
/// partitioned part to position `at` of GPU `dst`'s receive buffer, all of one bucket,
/// sent in exchange chunk `chunk`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BucketPiece {
    /// Sending GPU.
    pub src: usize,
    /// Receiving GPU.
    pub dst: usize,
    /// First key in the sender's part.
    pub from: u64,
    /// First key in the receiver's buffer.
    pub at: u64,
    /// Keys.
    pub len: u64,
    /// The exchange chunk the piece travels in.
    pub chunk: usize,
}

/// A run of one bucket's keys in a receive buffer: sorting each segment on its own
/// finishes the sort ([`bucket_layout`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    /// First key in the receive buffer.
    pub at: u64,
    /// Keys.
    pub len: u64,
    /// The exchange chunk whose arrival completes it.
    pub chunk: usize,
}

/// Where the top-bits pipeline's keys go, placed by bucket.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BucketLayout {
    /// Every piece with keys, own pieces (`src == dst`) included.
    pub pieces: Vec<BucketPiece>,
    /// Each GPU's segments, in order: one per bucket it receives keys of.
    pub segments: Vec<Vec<Segment>>,
    /// Keys each GPU receives (its own included).
    pub received: Vec<u64>,
}

/// The placement of the top-bits exchange by bucket: GPU `j` receives its buckets in
/// order, each bucket's keys from GPU `0, 1, ..` one after another (the stable order of
/// equal keys), so that each bucket is a segment of its receive buffer and sorting the
/// segments each on its own is the whole sort: the top bits of a bucket's keys are
/// equal (the radix sort skips their digits) and no merge is needed. `below[i]`: GPU
/// `i`'s keys below each bucket edge ([`top_cuts`]); `cuts[i]`: the `p - 1` cut
/// positions in GPU `i`'s part (clamped to be non-decreasing, as [`send_counts`]).
/// Each GPU's segments are grouped into `chunks` exchange chunks of about equal keys,
/// in order, so a GPU can sort the segments of a chunk while later chunks travel.
pub fn bucket_layout(below: &[Vec<u64>], cuts: &[Vec<u64>], chunks: usize) -> BucketLayout {
    let p = below.len();
    let chunks = chunks.max(1);
    let edges = below.iter().map(|b| b.len()).min().unwrap_or(0);
    // Each GPU's range for destination `j`: bounds[i][j]..bounds[i][j + 1].
    let bounds: Vec<Vec<u64>> = (0..p)
        .map(|i| {
            let len = below[i].last().copied().unwrap_or(0);
            let mut b = vec![0u64];
            let mut prev = 0;
            for &c in &cuts[i] {
                prev = c.clamp(prev, len);
                b.push(prev);
            }
            b.push(len);
            b
        })
        .collect();
    let mut pieces = Vec::new();
    let mut segments = vec![Vec::new(); p];
    let mut received = vec![0u64; p];
    for j in 0..p {
        let mut at = 0u64;
        for k in 0..edges.saturating_sub(1) {
            let start = at;
            for i in 0..p {
                let lo = below[i][k].max(bounds[i][j]);
                let hi = below[i][k + 1].min(bounds[i][j + 1]);
                if hi > lo {
                    pieces.push(BucketPiece { src: i, dst: j, from: lo, at, len: hi - lo, chunk: 0 });
                    at += hi - lo;
                }
            }
            if at > start {
                segments[j].push(Segment { at: start, len: at - start, chunk: 0 });
            }
        }
        received[j] = at;
    }
    // Chunk of a segment: where it starts in its receive buffer.
    for (j, segs) in segments.iter_mut().enumerate() {
        for s in segs.iter_mut() {
            s.chunk = ((s.at as u128 * chunks as u128 / received[j].max(1) as u128) as usize).min(chunks - 1);
        }
    }
    for x in &mut pieces {
        let segs = &segments[x.dst];
        let i = segs.partition_point(|s| s.at + s.len <= x.at);
        x.chunk = segs[i].chunk;
    }
    BucketLayout { pieces, segments, received }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The whole sample sort on the CPU with the functions the GPU path uses: `parts`
    /// are each GPU's input (order bits, input index); returns what each GPU ends with.
    fn model(parts: &[Vec<(u64, u64)>], max_samples: u64) -> Vec<Vec<(u64, u64)>> {
        let p = parts.len();
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
        let splitters = choose_splitters(&samples, &lens);
        assert_eq!(splitters.len(), p - 1);
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

    /// The top-bits pipeline on the CPU with the functions the GPU path uses: samples of
    /// the unsorted parts, each part sorted stably by its top bits, the bucket counts
    /// below each edge, the cuts; buckets holding a cut are sorted fully in each part
    /// and cut by samples of those ranges; the pieces in rank order, each GPU's keys
    /// sorted stably. Returns what each GPU ends with and how many keys were re-sorted
    /// to place cuts inside buckets.
    fn top_model(parts: &[Vec<(u64, u64)>], max_samples: u64, width: u32, digit: u32) -> (Vec<Vec<(u64, u64)>>, u64) {
        use kernels::splitters::jittered_position;
        let p = parts.len();
        let lens: Vec<u64> = parts.iter().map(|s| s.len() as u64).collect();
        let sampled: Vec<u64> = parts
            .iter()
            .flat_map(|s| {
                let (n, c) = (s.len() as u64, samples_of(s.len() as u64, max_samples));
                (0..c).map(move |i| s[jittered_position(i, c, n) as usize].0)
            })
            .collect();
        let bits = top_bits(&sampled, width, digit);
        let and = sampled.iter().fold(u64::MAX, |a, &b| a & b);
        let mut sorted: Vec<Vec<(u64, u64)>> = parts
            .iter()
            .map(|s| {
                let mut s = s.clone();
                s.sort_by_key(|e| e.0 >> bits.0); // stable, as the radix sort by `bits`
                s
            })
            .collect();
        let edges = top_edges(and, bits, width, digit);
        let below: Vec<Vec<u64>> = sorted
            .iter()
            .map(|s| {
                let mut b = vec![0];
                b.extend(edges.iter().map(|&v| s.partition_point(|e| e.0 < v) as u64));
                b.push(s.len() as u64);
                b
            })
            .collect();
        let n: u64 = lens.iter().sum();
        let top = top_cuts(&below, top_tolerance(n, p));
        let mut cuts = vec![vec![0u64; p - 1]; p];
        let mut resorted = 0;
        let mut t = 0;
        while t < top.len() {
            match top[t] {
                TopCut::At(k) => {
                    for g in 0..p {
                        cuts[g][t] = below[g][k];
                    }
                    t += 1;
                }
                TopCut::Inside { bucket, .. } => {
                    let same: Vec<usize> = (t..top.len())
                        .take_while(|&u| matches!(top[u], TopCut::Inside { bucket: b, .. } if b == bucket))
                        .collect();
                    let ranks: Vec<f64> = same
                        .iter()
                        .map(|&u| match top[u] {
                            TopCut::Inside { rank, .. } => rank as f64,
                            TopCut::At(_) => unreachable!(),
                        })
                        .collect();
                    let starts: Vec<u64> = (0..p).map(|g| below[g][bucket]).collect();
                    let blens: Vec<u64> = (0..p).map(|g| below[g][bucket + 1] - starts[g]).collect();
                    let mut samples = Vec::new();
                    for g in 0..p {
                        let range = &mut sorted[g][starts[g] as usize..(starts[g] + blens[g]) as usize];
                        range.sort_by_key(|e| e.0);
                        resorted += blens[g];
                        let c = samples_of(blens[g], max_samples);
                        let b: Vec<u64> = (0..c).map(|i| range[sample_position(i, c, blens[g]) as usize].0).collect();
                        samples.push(sorted_samples(&b, blens[g]));
                    }
                    for (sp, &u) in splitters_at(&samples, &blens, &ranks).iter().zip(&same) {
                        for g in 0..p {
                            let range = &sorted[g][starts[g] as usize..(starts[g] + blens[g]) as usize];
                            let less = range.partition_point(|e| e.0 < sp.bits) as u64;
                            let less_eq = range.partition_point(|e| e.0 <= sp.bits) as u64;
                            cuts[g][u] = starts[g] + cut(g, sp, less, less_eq);
                        }
                    }
                    t += same.len();
                }
            }
        }
        let layout = bucket_layout(&below, &cuts, 3);
        let mut out: Vec<Vec<(u64, u64)>> = layout.received.iter().map(|&r| vec![(0, 0); r as usize]).collect();
        for x in &layout.pieces {
            let (from, at, len) = (x.from as usize, x.at as usize, x.len as usize);
            out[x.dst][at..at + len].copy_from_slice(&sorted[x.src][from..from + len]);
        }
        for (j, segs) in layout.segments.iter().enumerate() {
            let mut chunk = 0;
            for s in segs {
                assert!(s.chunk >= chunk && s.chunk < 3, "chunks in order");
                chunk = s.chunk;
                // The receiver's stable sort of each segment on its own.
                out[j][s.at as usize..(s.at + s.len) as usize].sort_by_key(|e| e.0);
            }
            assert_eq!(segs.iter().map(|s| s.len).sum::<u64>(), layout.received[j]);
        }
        assert_eq!(layout.received, received_totals(&send_counts(&cuts, &lens)), "as many keys as the cuts say");
        (out, resorted)
    }

    /// [`skewed_cases`] and keys that a top digit splits badly: Zipf-like small values,
    /// uniform 32-bit keys, keys sharing their high half.
    fn top_cases(n: usize) -> Vec<(&'static str, Vec<u64>, u32)> {
        let mut state = 11u64;
        let mut rnd = move || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            state >> 11
        };
        let mut cases: Vec<(&'static str, Vec<u64>, u32)> =
            skewed_cases(n).into_iter().map(|(name, keys)| (name, keys, 64)).collect();
        let zipf: Vec<u64> = (0..n).map(|_| (1u64 << (rnd() % 20)) / (1 + rnd() % 7)).collect();
        let uniform32: Vec<u64> = (0..n).map(|_| rnd() >> 21).collect();
        let high_half: Vec<u64> = (0..n).map(|_| 0xdead_beef_0000_0000 | (rnd() % 1000)).collect();
        cases.push(("zipf-like", zipf.clone(), 32));
        cases.push(("uniform u32", uniform32, 32));
        cases.push(("shared high half", high_half, 64));
        cases.push(("zipf-like 64", zipf, 64));
        cases
    }

    #[test]
    fn top_bits_is_the_stable_sort_and_balanced() {
        let n = 60_000usize;
        for (name, keys, width) in &top_cases(n) {
            for p in [2usize, 3, 4, 8] {
                for (max_samples, digit) in [(4096u64, TOP_DIGIT_BITS), (64, TOP_DIGIT_BITS), (4096, 16)] {
                    let parts = split(keys, p);
                    let (out, _) = top_model(&parts, max_samples, *width, digit);
                    let got: Vec<(u64, u64)> = out.iter().flatten().copied().collect();
                    assert!(got == stable_sort_of(&parts), "{name} p {p} s {max_samples}: not the stable sort");
                    let ideal = n as f64 / p as f64;
                    for o in &out {
                        let off = (o.len() as f64 - ideal).abs();
                        assert!(off <= 0.05 * ideal, "{name} p {p} s {max_samples}: {} keys, ideal {ideal}", o.len());
                    }
                }
            }
        }
    }

    #[test]
    fn top_bits_resorts_nothing_for_spread_keys() {
        let mut state = 5u64;
        let keys: Vec<u64> = (0..200_000)
            .map(|_| {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                state >> 32
            })
            .collect();
        for p in [2usize, 4] {
            let (_, resorted) = top_model(&split(&keys, p), 4096, 32, TOP_DIGIT_BITS);
            assert_eq!(resorted, 0, "p {p}: uniform keys are cut at bucket edges");
        }
        // One value: the cut goes inside the only bucket.
        let (_, resorted) = top_model(&split(&[9; 1000], 2), 4096, 32, TOP_DIGIT_BITS);
        assert_eq!(resorted, 1000);
    }

    #[test]
    fn top_bits_rules() {
        assert_eq!(top_bits(&[0x1234_0000, 0x12ff_0000], 32, 8), (16, 32), "samples differ in bits 16..24");
        assert_eq!(top_bits(&[5, 5, 5], 32, 8), (24, 32), "all equal: the top digit");
        assert_eq!(top_bits(&[], 64, 8), (56, 64));
        assert_eq!(top_bits(&[0, 1], 32, 8), (0, 32), "only bit 0 varies");
        assert_eq!(top_bits(&[0, u64::MAX], 64, 8), (56, 64));
        let edges = top_edges(0x1234_0000, (16, 32), 32, 8);
        assert_eq!(edges.len(), 257, "one edge below each of the 256 digits and one above the last");
        assert_eq!((edges[0], edges[256]), (0x1200_0000, 0x1300_0000));
        assert_eq!(top_edges(0, (24, 32), 32, 8).len(), 255, "0 and 2^32 are no edges");
        let edges = top_edges(0x1234_5600, (8, 32), 32, 8);
        assert_eq!(edges.first(), Some(&0x1234_0000));
        assert_eq!(edges.last(), Some(&0x1235_0000));
        assert_eq!(edges.len(), 257);
        assert!(top_edges(0xffff_ffff_ffff_ffff, (56, 64), 64, 8).iter().all(|&e| e >> 56 != 0), "no overflow");
        assert_eq!(top_bits(&[0x1234_0000, 0x12ff_0000], 32, 16), (8, 32), "a 16-bit digit");
        assert_eq!(
            top_edges(0x1234_0000, (8, 32), 32, 16).len(),
            (1 << 16) + 1,
            "each 16-bit digit's lower edge, and the last's upper"
        );
        // Two GPUs, edges 0 | 10 | 20 | 30 (below counts per GPU).
        let below = vec![vec![0, 5, 8, 15], vec![0, 5, 7, 15]];
        assert_eq!(top_cuts(&below, 0), vec![TopCut::At(2)], "15 of 30 keys below edge 2");
        let below = vec![vec![0, 5, 12, 15], vec![0, 5, 10, 15]];
        assert_eq!(top_cuts(&below, 0), vec![TopCut::Inside { bucket: 1, rank: 5 }]);
        assert_eq!(top_cuts(&below, 5), vec![TopCut::At(1)], "an edge within the tolerance");
        let below = vec![vec![0, 0, 100, 100], vec![0, 0, 100, 100], vec![0, 0, 100, 100]];
        assert_eq!(
            top_cuts(&below, 1),
            vec![TopCut::Inside { bucket: 1, rank: 100 }, TopCut::Inside { bucket: 1, rank: 200 }],
            "one bucket holds every key: both cuts inside it"
        );
        assert_eq!(top_cuts(&[vec![0, 0], vec![0, 0]], 0), vec![TopCut::At(1)], "no keys: the last edge");
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
