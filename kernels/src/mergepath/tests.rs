//! The merge sort's index math, and a CPU model of its whole pass structure (block
//! sort with per-thread register sorts and co-rank merge rounds, partitions, global
//! merges, ping-pong) on small tiles, built on the same functions the kernels use.
extern crate std;
use super::*;
use crate::search::co_rank;
use std::vec;
use std::vec::Vec;

#[test]
fn passes_and_tiles() {
    assert_eq!(items(4), 33);
    assert_eq!(items(8), 19);
    assert_eq!(items(20), 7);
    assert_eq!(tile(4), 8448);
    assert_eq!(tile(8), 4864);
    assert_eq!((kv_items(4), kv_items(8)), (19, 13));
    assert_eq!((tile_for(4, 0), tile_for(4, 4), tile_for(8, 8)), (8448, 4864, 3328));
    // A block-sort run of the widest sort (a cluster's) is past 2^16 keys, so 2^24 and
    // 2^28 keys take 8 and 12 global passes (9 and 13 at width 4, 14 at width 2).
    assert!(tile(4) * sort_width(4, 0) >= 1 << 16);
    assert_eq!(global_passes(1 << 24, tile(4) * sort_width(4, 0)), 8);
    assert_eq!(global_passes(1 << 28, tile(4) * sort_width(4, 0)), 12);
    assert_eq!(global_passes(1 << 24, tile(4) * 4), 9);
    assert_eq!(global_passes(1 << 28, tile(4) * 4), 13);
    assert_eq!(global_passes(1 << 28, tile(4) * narrower_sort_width(4, 0, 4)), 14);
    // 8-byte keys: 19 per thread, four tiles a wide block sort, the same pass counts.
    assert_eq!(global_passes(1 << 24, tile(8) * sort_width(8, 0)), 10);
    assert_eq!(global_passes(1 << 28, tile(8) * sort_width(8, 0)), 14);
    for b in [4, 8, 20] {
        assert!(tile(b).is_multiple_of(MAX_SAMPLE) && tile_for(b, 4).is_multiple_of(MAX_SAMPLE));
    }
    for b in [4, 8, 20] {
        assert!(smem_bytes(b) <= 48 * 1024, "{b}-byte tile fits the default shared memory");
    }
    for k in [4, 8] {
        assert!(kv_values_offset(k).is_multiple_of(8), "8-byte values are aligned after {k}-byte keys");
        assert!(kv_values_offset(k) >= slots(BLOCK, kv_items(k)) * k, "values after the keys");
        assert_eq!(tiles_smem_bytes(1, k, 0), smem_bytes(k), "one tile of {k}-byte keys is a merge's");
        for v in [4, 8] {
            assert_eq!(tiles_smem_bytes(1, k, v), kv_smem_bytes(k, v), "one tile of pairs is a merge's");
            // Three blocks per SM (the key-value kernels' launch bounds) in the 227 KB
            // an H100 SM gives to blocks that opt in past 48 KB.
            assert!(3 * kv_smem_bytes(k, v) <= 227 * 1024, "{k}-byte keys with {v}-byte values fit");
        }
    }
    let t = 100;
    assert_eq!(global_passes(0, t), 0);
    assert_eq!(global_passes(1, t), 0);
    assert_eq!(global_passes(100, t), 0);
    assert_eq!(global_passes(101, t), 1);
    assert_eq!(global_passes(200, t), 1);
    assert_eq!(global_passes(201, t), 2);
    assert_eq!(global_passes(400, t), 2);
    assert_eq!(global_passes(401, t), 3);
    // Past 2^32 elements: 64-bit counts.
    assert_eq!(global_passes(3 << 32, 3840), 22);
    for n in [1u64, 99, 100, 101, 1000, 123_457, 1 << 40] {
        // After the passes one run covers everything, and one pass fewer would not.
        let p = global_passes(n, t);
        assert!((t as u64) << p >= n, "{n}");
        assert!(p == 0 || (t as u64) << (p - 1) < n, "{n}");
    }
    assert_eq!(block_range(0, 100, 250), (0, 100));
    assert_eq!(block_range(2, 100, 250), (200, 50));
    assert_eq!(block_range(1 << 33, 3840, u64::MAX), ((1 << 33) * 3840, 3840));
}

#[test]
fn windows_cover_pairs_and_units() {
    // Every unit's window is the pair of runs holding it, and consecutive units of a
    // pair have consecutive diagonals.
    for len in [1u64, 7, 8, 9, 31, 64, 100, 257] {
        for log_run in 0..6 {
            for unit_len in [1u64, 3, 4] {
                let units = len.div_ceil(unit_len);
                for u in 0..units {
                    let w = merge_window(u, log_run, unit_len, len);
                    let run = unit_len << log_run;
                    assert_eq!(w.start % (2 * run), 0);
                    assert!(w.start <= u * unit_len && u * unit_len < w.start + w.a_len + w.b_len);
                    assert_eq!(w.diag, u * unit_len - w.start);
                    assert!(w.a_len <= run && w.b_len <= run);
                    assert!(w.b_len == 0 || w.a_len == run);
                    assert_eq!(w.start + w.a_len + w.b_len, (w.start + 2 * run).min(len));
                }
            }
        }
    }
    // 32-bit in-tile version agrees with the 64-bit one.
    for u in 0..200u32 {
        let a = merge_window(u, 3, 15u32, 3000);
        let b = merge_window(u as u64, 3, 15u64, 3000);
        assert_eq!(
            (a.start as u64, a.a_len as u64, a.b_len as u64, a.diag as u64),
            (b.start, b.a_len, b.b_len, b.diag)
        );
    }
    // Windows past 2^32 elements.
    let unit = 5_000_003u64;
    let w = merge_window(unit, 4, 3840, 5_000_010 * 3840);
    assert_eq!(w.start, (unit >> 5 << 5) * 3840);
    assert_eq!(w.diag, (unit % 32) * 3840);
    assert_eq!((w.a_len, w.b_len), (10 * 3840, 0), "the last pair: A cut short, no B");
    let w = merge_window(unit, 2, 3840, 5_000_010 * 3840);
    assert_eq!((w.start, w.a_len, w.b_len, w.diag), (5_000_000 * 3840, 4 * 3840, 4 * 3840, 3 * 3840));
}

#[test]
fn width_and_partition_lanes_by_size() {
    // 132 SMs: a whole warp per co-rank up to 64 co-ranks per SM, 8 lanes beyond.
    assert_eq!(partition_lanes(64 * 132, 132), 32);
    assert_eq!(partition_lanes(64 * 132 + 1, 132), 8);
    assert_eq!(partition_lanes(tiles(1 << 28, tile(4)), 132), 8);
    assert_eq!(partition_lanes(tiles(1 << 24, tile(4)), 132), 32);
    // Width 8 of 4-byte keys alone (clusters of 2 blocks) from 1.75 waves of its blocks,
    // width 4 from 1.5 waves, then 2, then 1.
    assert_eq!((sort_width(4, 0), narrower_sort_width(4, 0, 8)), (8, 4));
    assert_eq!((narrower_sort_width(4, 0, 4), narrower_sort_width(4, 0, 2)), (2, 1));
    let quarters = |w| sort_width_min_quarter_waves(4, 0, w);
    assert_eq!((quarters(8), quarters(4), quarters(2)), (7, 6, 4));
    assert_eq!((cluster_ctas(16), cluster_ctas(8), cluster_ctas(4), cluster_ctas(1)), (4, 2, 1, 1));
    assert_eq!((block_tiles(16), block_tiles(8), block_tiles(4), block_tiles(2)), (4, 4, 4, 2));
    assert_eq!((sort_width(8, 0), narrower_sort_width(8, 0, 4), sort_width_min_quarter_waves(8, 0, 4)), (4, 1, 4));
    assert_eq!(narrower_sort_width(4, 4, 4), 1, "pairs have no width-2 kernels");
}

#[test]
fn take_a_prefers_the_left_run_on_ties() {
    assert!(take_a(0, 1, 0, 1, 5, 5));
    assert!(!take_a(0, 1, 0, 1, 6, 5));
    assert!(take_a(0, 1, 1, 1, 9, 0), "B exhausted");
    assert!(!take_a(1, 1, 0, 1, 0, 9), "A exhausted");
}

/// Element of the model: (key, input position).
type E = (u32, u32);

/// The sentinel word after each pair of runs (the kernels' `Item::sentinel`); its
/// position is never looked at.
const SENTINEL: E = (u32::MAX, u32::MAX);
/// What shared-memory slots hold before anything is written there.
const GARBAGE: E = (7, 0xdead);

/// The kernel's sequential merge over the pair `tile[a0..a0 + a_len + b_len]` followed
/// by its sentinel: `n_out` outputs from diagonal `diag`. Like the kernel it tests only
/// `A`'s end, and reads one slot past the previous head (indexing panics where the
/// kernel would read outside its shared memory).
fn model_merge(tile: &[E], a0: usize, a_len: u32, b_len: u32, diag: u32, n_out: usize) -> Vec<E> {
    model_merge_checked(tile, a0, a_len, b_len, diag, n_out, false, &mut Vec::new())
}

/// [`model_merge`], or with `check_b` (a dense block-sort round) without a sentinel:
/// the step then tests `B`'s end too, and the slot after `B` holds whatever is there.
/// Every slot it reads is pushed to `reads`.
#[allow(clippy::too_many_arguments)]
fn model_merge_checked(
    tile: &[E],
    a0: usize,
    a_len: u32,
    b_len: u32,
    diag: u32,
    n_out: usize,
    check_b: bool,
    reads: &mut Vec<usize>,
) -> Vec<E> {
    if !check_b {
        assert_eq!(tile[a0 + (a_len + b_len) as usize], SENTINEL, "the pair's sentinel");
    }
    let b_end = a0 + (a_len + b_len) as usize;
    let probed = std::cell::RefCell::new(Vec::new());
    let key = |x: u32| {
        probed.borrow_mut().push(a0 + x as usize);
        tile[a0 + x as usize].0
    };
    let i = co_rank(diag, a_len, b_len, key, |x| key(a_len + x));
    reads.extend(probed.take());
    let a_end = a0 + a_len as usize;
    let (mut pa, mut pb) = (a0 + i as usize, a_end + (diag - i) as usize);
    reads.extend([pa, pb]);
    let (mut ah, mut bh) = (tile[pa], tile[pb]);
    let mut out = Vec::new();
    for k in 0..n_out {
        let from_a = pa < a_end && (ah.0 <= bh.0 || (check_b && pb >= b_end));
        out.push(if from_a { ah } else { bh });
        let at = if from_a { pa } else { pb };
        if from_a {
            pa += 1;
        } else {
            pb += 1;
        }
        if k + 1 < n_out {
            let v = tile[at + 1];
            reads.push(at + 1);
            if from_a {
                ah = v;
            } else {
                bh = v;
            }
        }
    }
    out
}

/// Thread `t`'s store before block-sort round `r`: its outputs at their slots and the
/// sentinel its outputs end, as the kernel's `store_round`. Every slot written is
/// pushed to `writes`.
fn model_store_round(smem: &mut [E], v: &[E], t: u32, items: u32, count: u32, r: u32, writes: &mut Vec<usize>) {
    let first = t * items;
    for (k, e) in v.iter().enumerate() {
        let x = first + k as u32;
        if x < count {
            let slot = (x + round_shift(t, r)) as usize;
            smem[slot] = *e;
            writes.push(slot);
        }
    }
    if let Some(slot) = round_sentinel(t, items, count, r) {
        smem[slot as usize] = SENTINEL;
        writes.push(slot as usize);
    }
}

/// Records which warp touched each shared-memory slot in a whole tile's warp-local
/// rounds ([`warp_local_round`]: the kernel orders them by warp barriers alone), and
/// fails when a second warp touches one.
struct WarpSlots(Vec<Option<u32>>);

impl WarpSlots {
    fn touch(&mut self, warp: u32, slots: &[usize], what: &str) {
        for &s in slots {
            let owner = self.0[s].get_or_insert(warp);
            assert_eq!(*owner, warp, "{what}: slot {s} of warp {owner} touched by warp {warp}");
        }
    }
}

/// The block sort of one tile of `threads * items` slots holding `tile.len()` elements,
/// in a shared memory of [`slots`] elements laid out as the kernel's.
fn model_block_sort(tile: &mut [E], threads: u32, items: u32) {
    let count = tile.len() as u32;
    let mut smem = vec![GARBAGE; slots(threads, items) as usize];
    let mut regs: Vec<Vec<E>> = (0..threads)
        .map(|t| {
            let first = t * items;
            let valid = count.saturating_sub(first).min(items) as usize;
            let mut v: Vec<E> = (0..items).map(|k| tile[(first + k).min(count - 1) as usize]).collect();
            // Odd-even transposition on the valid prefix.
            for round in 0..items as usize {
                for k in 0..items as usize {
                    if k % 2 == round % 2 && k + 1 < valid && v[k + 1].0 < v[k].0 {
                        v.swap(k, k + 1);
                    }
                }
            }
            v
        })
        .collect();
    let log_threads = threads.trailing_zeros();
    let full = count == threads * items;
    let mut owners = WarpSlots(vec![None; smem.len()]);
    let mut r = 0;
    while r < log_threads && (items << r) < count {
        let warp_local = full && warp_local_round(r);
        for (t, v) in regs.iter().enumerate() {
            let mut writes = Vec::new();
            model_store_round(&mut smem, v, t as u32, items, count, r, &mut writes);
            if warp_local {
                owners.touch(t as u32 / 32, &writes, "store");
            }
        }
        for (t, v) in regs.iter_mut().enumerate() {
            let t = t as u32;
            if t * items < count {
                let w = merge_window(t, r, items, count);
                let a0 = (w.start + round_shift(t, r)) as usize;
                let mut reads = Vec::new();
                *v = model_merge_checked(
                    &smem,
                    a0,
                    w.a_len,
                    w.b_len,
                    w.diag,
                    items as usize,
                    dense_round(r),
                    &mut reads,
                );
                if warp_local {
                    owners.touch(t / 32, &reads, "merge");
                }
            }
        }
        r += 1;
    }
    for (t, v) in regs.iter().enumerate() {
        for (k, e) in v.iter().enumerate() {
            let x = t * items as usize + k;
            if x < count as usize {
                tile[x] = *e;
            }
        }
    }
}

/// Block `b` of a global merge over the window `w` (given every block's co-rank in
/// `parts`): loads its two input windows and the sentinel and writes its tile of
/// outputs.
fn model_block_merge(src: &[E], dst: &mut [E], parts: &[u64], b: u64, w: Window<u64>, threads: u32, items: u32) {
    let tile = threads * items;
    let n = src.len() as u64;
    let (start, count) = block_range(b, tile, n);
    let (i0, i1) = block_co_ranks(&w, count, parts[b as usize], || parts[b as usize + 1]);
    let j0 = w.diag - i0;
    let la = (i1 - i0) as u32;
    let lb = count - la;
    let a = (w.start + i0) as usize;
    let bs = (w.start + w.a_len + j0) as usize;
    let mut smem = vec![GARBAGE; slots(threads, items) as usize];
    smem[..la as usize].copy_from_slice(&src[a..a + la as usize]);
    smem[la as usize..count as usize].copy_from_slice(&src[bs..bs + lb as usize]);
    smem[count as usize] = SENTINEL;
    let out = model_merge_pair(&smem, la, count, threads, items);
    dst[start as usize..(start + count as u64) as usize].copy_from_slice(&out);
}

/// A block's merge of the pair its shared memory holds (`A` in slots `..a_len`, `B`
/// after it up to `count`, the sentinel at `count`): each thread's sequential merge of
/// all its `items` outputs from its diagonal, as the kernels run it (a thread whose
/// outputs pass `count` reads on past the sentinel, which must stay inside `smem`),
/// those below `count` kept.
fn model_merge_pair(smem: &[E], a_len: u32, count: u32, threads: u32, items: u32) -> Vec<E> {
    let mut out = Vec::new();
    for t in 0..threads {
        let first = t * items;
        if first < count {
            let merged = model_merge(smem, 0, a_len, count - a_len, first, items as usize);
            out.extend(merged.into_iter().take((count - first) as usize));
        }
    }
    out
}

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
fn model_samples(src: &[E], stride: u64) -> Vec<u32> {
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
fn model_sampled_co_rank(src: &[E], samples: &[u32], w: &Window<u64>, stride: u64, ways: u32) -> u64 {
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

/// The whole sort: block sort (`wide` merge tiles per block of `wide * threads`
/// threads, as the wide block sorts), then per pass a partition and a merge of every
/// block, ping-ponging between two buffers.
fn model_sort(data: &mut Vec<E>, threads: u32, items: u32, wide: u32) {
    let n = data.len() as u64;
    if n <= 1 {
        return;
    }
    let tile = threads * items;
    for b in 0..tiles(n, tile * wide) {
        let (start, count) = block_range(b, tile * wide, n);
        model_block_sort(&mut data[start as usize..start as usize + count as usize], threads * wide, items);
    }
    // Buffer 0 is the caller's, 1 the scratch: where the block sort left the tiles and
    // where every pass writes, as the host launches them.
    let passes = global_passes(n, tile * wide);
    let mut at = block_sort_to_scratch(passes) as usize;
    let mut src = data.clone();
    let mut dst = vec![(0, 0); n as usize];
    let blocks = tiles(n, tile);
    for p in (0..passes).map(|p| p + wide.trailing_zeros()) {
        // The samples the block sort or the previous pass wrote with `src`, at the
        // stride of one tile (the GPU's is SAMPLE; any divisor of the tile works).
        let stride = tile as u64;
        let samples = model_samples(&src, stride);
        let parts: Vec<u64> = (0..blocks)
            .map(|b| {
                let w = merge_window(b, p, tile as u64, n);
                let (a, bb) = (w.start as usize, (w.start + w.a_len) as usize);
                let i = co_rank(w.diag, w.a_len, w.b_len, |x| src[a + x as usize].0, |x| src[bb + x as usize].0);
                assert_eq!(model_sampled_co_rank(&src, &samples, &w, stride, 8), i, "pass {p} block {b}");
                i
            })
            .collect();
        // Blocks in the order the GPU places them (`pass_flags`): each reads only `src`
        // and writes only its own tile of `dst`, so the order cannot change the result.
        let reversed = pass_flags(p - wide.trailing_zeros(), true, false) & PASS_REVERSED != 0;
        for b in (0..blocks).map(|b| if reversed { blocks - 1 - b } else { b }) {
            let w = merge_window(b, p, tile as u64, n);
            // The co-ranks a merge block finds itself for small inputs (`pass_co_ranks`):
            // those of its first output and of the one after its last, the pair's end
            // without a search. They must be the partition kernel's.
            let count = block_range(b, tile, n).1 as u64;
            let end = w.diag + count;
            let i1 = if end == w.a_len + w.b_len {
                w.a_len
            } else {
                model_sampled_co_rank(&src, &samples, &Window { diag: end, ..w }, stride, 32)
            };
            assert_eq!(
                (parts[b as usize], i1),
                block_co_ranks(&w, count as u32, parts[b as usize], || parts[b as usize + 1])
            );
            model_block_merge(&src, &mut dst, &parts, b, w, threads, items);
        }
        core::mem::swap(&mut src, &mut dst);
        at ^= 1;
    }
    assert_eq!(at, 0, "the result ends in the caller's buffer");
    *data = src;
}

#[test]
fn model_sorts_stably_for_every_small_shape() {
    let mut state = 7u64;
    let mut rnd = |m: u32| {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((state >> 33) % m as u64) as u32
    };
    // Blocks of 32 threads and more reach the rounds with sentinels (pairs of a warp
    // or more); smaller ones have dense rounds only (`dense_round`).
    let shapes =
        [(1u32, 1u32, 1u32), (1, 3, 1), (2, 1, 1), (4, 3, 1), (4, 4, 1), (8, 5, 1), (2, 7, 1), (64, 3, 1), (128, 2, 1)];
    // The wide block sorts: 2 and 4 merge tiles per block.
    let wide = [(1, 3, 2), (2, 1, 4), (4, 3, 2), (4, 3, 4), (2, 7, 4), (32, 1, 2), (16, 3, 4)];
    for (threads, items, wide) in shapes.into_iter().chain(wide) {
        let tile = (threads * items) as usize;
        let mut sizes: Vec<usize> = (0..=3 * tile * wide as usize + 2).collect();
        sizes.extend([7 * tile + 1, 8 * tile, 9 * tile - 1, 33 * tile + 5]);
        for n in sizes {
            for range in [2u32, 5, 1000] {
                // The largest value is the sentinel's: real keys equal to it must still
                // merge stably.
                let mut data: Vec<E> = (0..n as u32)
                    .map(|i| (rnd(range), i))
                    .map(|(k, i)| (if k + 1 == range { u32::MAX } else { k }, i))
                    .collect();
                let mut want = data.clone();
                want.sort_by_key(|e| e.0);
                model_sort(&mut data, threads, items, wide);
                assert_eq!(data, want, "threads {threads} items {items} wide {wide} n {n} range {range}");
            }
        }
    }
}

#[test]
fn model_sorts_descending_by_inverted_bits() {
    // Descending = ascending on `!bits`; ties keep input order.
    let mut data: Vec<E> = (0..500u32).map(|i| (!((i * 37) % 11), i)).collect();
    let mut want = data.clone();
    want.sort_by_key(|e| e.0);
    model_sort(&mut data, 4, 5, 1);
    assert_eq!(data, want);
}

/// The merge of two runs of any lengths (the multi-GPU sort's merge of what each GPU
/// received), block by block as the `mergepath_pair_*` kernels do it.
#[test]
fn model_merges_two_runs_of_any_lengths() {
    let mut state = 11u64;
    let mut rnd = |m: u32| {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((state >> 33) % m as u64) as u32
    };
    let (threads, items) = (4u32, 3u32);
    let tile = threads * items;
    for a_len in [0u64, 1, 5, 12, 13, 40, 97] {
        for b_len in [0u64, 1, 11, 12, 25, 64] {
            for range in [2u32, 1000] {
                let mut key = |m: u32| {
                    let v = rnd(m);
                    if v + 1 == m { u32::MAX } else { v }
                };
                let mut a: Vec<E> = (0..a_len as u32).map(|i| (key(range), i)).collect();
                let mut b: Vec<E> = (0..b_len as u32).map(|i| (key(range), a_len as u32 + i)).collect();
                a.sort_by_key(|e| e.0);
                b.sort_by_key(|e| e.0);
                let src: Vec<E> = a.iter().chain(&b).copied().collect();
                let n = a_len + b_len;
                let blocks = tiles(n, tile);
                let parts: Vec<u64> = (0..blocks)
                    .map(|blk| {
                        let w = pair_window(blk, tile, a_len, b_len);
                        co_rank(w.diag, a_len, b_len, |x| src[x as usize].0, |x| src[(a_len + x) as usize].0)
                    })
                    .collect();
                let mut dst = vec![(0, 0); n as usize];
                for blk in 0..blocks {
                    model_block_merge(
                        &src,
                        &mut dst,
                        &parts,
                        blk,
                        pair_window(blk, tile, a_len, b_len),
                        threads,
                        items,
                    );
                }
                let mut want = src.clone();
                want.sort_by_key(|e| e.0); // stable: A's elements first among equal keys
                assert_eq!(dst, want, "a {a_len} b {b_len} range {range}");
            }
        }
    }
}

#[test]
fn passes_alternate_direction_and_reuse_l2_by_size() {
    // The block sort runs forward, so pass 0 runs backward, then they alternate.
    let dirs: Vec<u32> = (0..5).map(|p| pass_flags(p, true, false)).collect();
    assert_eq!(dirs, [PASS_REVERSED, 0, PASS_REVERSED, 0, PASS_REVERSED]);
    assert_eq!(pass_flags(0, false, false), 0);
    assert_eq!(pass_flags(1, true, true), PASS_STREAMING);
    assert_eq!(pass_flags(2, true, true), PASS_REVERSED | PASS_STREAMING);
    // An H100's 50 MB of L2: u32 keys at 2^22 (both buffers fit), 2^24, 2^25.
    let l2 = 50 * 1024 * 1024;
    assert_eq!(l2_reuse(4 << 22, l2), (false, false));
    assert_eq!(l2_reuse(4 << 24, l2), (true, true));
    assert_eq!(l2_reuse(4 << 25, l2), (true, false));
    assert_eq!(l2_reuse(8 << 28, l2), (true, false));
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

/// The cluster block sort's round (`cluster_pair_round` in `device.rs`) on small tiles:
/// both blocks' tiles sorted, then the co-rank of the diagonal `tile`, the exchange of
/// [`pair_swap`] (each block reads the other's slots as they were before the round),
/// the sentinel after each block's pair, and its threads' sequential merges. The two
/// tiles must end as one stable run for every tile shape and element count (a partial
/// second block, or none).
#[test]
fn cluster_round_merges_the_two_tiles_of_a_cluster() {
    let mut state = 11u64;
    let mut rnd = |m: u32| {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((state >> 33) % m as u64) as u32
    };
    for (threads, items) in [(1u32, 3u32), (4, 3), (8, 5), (2, 1), (32, 3)] {
        let tile = threads * items;
        for cc in 1..=2 * tile {
            for range in [2u32, 1000] {
                let input: Vec<E> = (0..cc).map(|i| (rnd(range), i)).collect();
                let sorted = |lo: u32, hi: u32| {
                    let mut t = input[lo.min(cc) as usize..hi.min(cc) as usize].to_vec();
                    t.sort_by_key(|e| e.0);
                    t
                };
                // The blocks' slots as they stored their tiles.
                let before = [sorted(0, tile), sorted(tile, 2 * tile)];
                let b_len = cc.saturating_sub(tile);
                let mut out = before.clone();
                if b_len > 0 {
                    let (a, b) = (&before[0], &before[1]);
                    let i = co_rank(tile, tile, b_len, |x| a[x as usize].0, |x| b[x as usize].0);
                    for rank in 0..2u32 {
                        let count = before[rank as usize].len() as u32;
                        let (src, dst, a_len, m) = pair_swap(rank, i, tile);
                        let mut local = vec![GARBAGE; slots(threads, items) as usize];
                        local[..count as usize].copy_from_slice(&before[rank as usize]);
                        let partner = &before[1 - rank as usize];
                        local[dst as usize..(dst + m) as usize]
                            .copy_from_slice(&partner[src as usize..(src + m) as usize]);
                        local[count as usize] = SENTINEL;
                        out[rank as usize] = model_merge_pair(&local, a_len, count, threads, items);
                    }
                }
                let mut want = input.clone();
                want.sort_by_key(|e| e.0);
                assert_eq!(out.concat(), want, "threads {threads} items {items} count {cc} range {range}");
            }
        }
    }
}
