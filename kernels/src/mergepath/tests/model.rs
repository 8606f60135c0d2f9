//! A CPU model of the merge sort's whole pass structure on small tiles: the block sort
//! (register sorts, co-rank merge rounds, sentinels), the global passes (partitions
//! and merges, ping-pong), the merge of two given runs and the cluster round.
use super::search::{model_sampled_co_rank, model_samples};
use super::*;
use crate::search::co_rank;

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

/// The cluster block sort's round (`cluster_pair_round` in `device/block_sort.rs`) on small tiles:
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
