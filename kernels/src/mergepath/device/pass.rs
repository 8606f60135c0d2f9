//! The global passes: the partition kernels' co-rank searches over samples and global
//! memory, and the merge of a pass (or of two given runs) block by block.
use super::tile::*;
use super::*;
use crate::block::smem::{lds, sts};
use crate::block::unroll;
use crate::mergepath::{PairPartition, Partition};
use crate::params::Direction;

/// Co-rank of the diagonal `k` of the pair `w` of a global pass (over `src`), found by
/// a group of `LANES` lanes of a warp (the result is the same in each): first among the chunk
/// boundaries in `samples` (written with `src`; see [`crate::mergepath::sample_stride`]), then in one
/// round over `src` itself ([`chunk_co_rank`]). With `GUIDED` (the partition
/// kernels) the coarse search starts with a round around the likely answer
/// ([`crate::mergepath::coarse_guess`]); the in-merge searches keep plain rounds, since the guided
/// round's code in the merge kernels cost the key-value merges registers and 1-6% at
/// every size (2026-11-25; docs/history.md, mergepath: "Look-ahead co-ranks, a guided search, 19 keys for 8-byte keys").
#[inline(always)]
pub(super) unsafe fn pass_co_rank<T: SortKey, const GUIDED: bool, const LANES: u32>(
    src: *const T,
    samples: *const T,
    w: &Window<u64>,
    k: u64,
    desc: bool,
) -> u64 {
    let lanes = LANES;
    let lane = gpu::lane_id() % LANES;
    let stride = sample_stride::<T>() as u64;
    let (a, bb) = (w.start, w.start + w.a_len);
    let (mut lo, mut hi) = co_rank_range(k, w.a_len, w.b_len);
    if w.b_len > 0 {
        let (c0, c1) = crate::mergepath::coarse_range(lo, hi, stride);
        // Chunk candidate `c`: is `a[stride * c]` among the first `k` outputs? (Read from
        // the samples: a chunk's first element of `A`, its partner a chunk's last of `B`.)
        let before = |c: u64| {
            let (ga, gb) = (a + stride * c, bb + k - 1 - stride * c);
            unsafe {
                (*samples.add((2 * (ga / stride)) as usize)).ord_bits(desc)
                    <= (*samples.add((2 * (gb / stride) + 1) as usize)).ord_bits(desc)
            }
        };
        let (mut s0, mut s1) = (c0, c1);
        if GUIDED && let Some(guess) = crate::mergepath::coarse_guess(k, w.a_len, w.b_len, (c0, c1), stride) {
            let trues = gpu::ballot_group::<LANES>(before(guided_probe(c0, c1, guess, lane, lanes))).count_ones();
            (s0, s1) = guided_narrow(c0, c1, guess, trues, lanes);
        }
        let cf = group_search::<LANES>(s0, s1, before);
        (lo, hi) = crate::mergepath::refine_range(lo, hi, stride, c0, c1, cf);
    }
    // At most one chunk is left: with `B` non-empty the coarse search leaves one
    // ([`crate::mergepath::refine_range`]), with `B` empty the range is `[k, k]`.
    unsafe { chunk_co_rank::<T, LANES>(src.add(a as usize), src.add(bb as usize), k, lo, hi, desc) }
}

/// Co-rank of the diagonal `k` in the merge of `A` (at `a`) and `B` (at `bb`) among the
/// at most [`sample_stride`] candidates `[lo, hi)` a coarse search left (the answer in
/// `[lo, hi]`), in one round: each lane of the group tests `stride / LANES` of them
/// ([`crate::mergepath::chunk_candidate`]), all its loads issued before the ballots; the trues of
/// the monotone predicate are the candidates before the answer.
#[inline(always)]
pub(super) unsafe fn chunk_co_rank<T: SortKey, const LANES: u32>(
    a: *const T,
    bb: *const T,
    k: u64,
    lo: u64,
    hi: u64,
    desc: bool,
) -> u64 {
    const MAX_PER_LANE: usize = (crate::mergepath::MAX_SAMPLE / 8) as usize;
    let per_lane = const { sample_stride::<T>() / LANES };
    const { assert!(sample_stride::<T>() / LANES <= MAX_PER_LANE as u32, "a chunk's candidates per lane") };
    let lane = gpu::lane_id() % LANES;
    let mut before = [false; MAX_PER_LANE];
    unroll::<MAX_PER_LANE>(|i| {
        let x = crate::mergepath::chunk_candidate(lo, lane, i as u32, LANES);
        if (i as u32) < per_lane && x < hi {
            before[i] = unsafe { a_before_partner(a, bb, k, x, desc) };
        }
    });
    let mut trues = 0;
    unroll::<MAX_PER_LANE>(|i| {
        if (i as u32) < per_lane {
            trues += gpu::ballot_group::<LANES>(before[i]).count_ones() as u64;
        }
    });
    lo + trues
}

/// The co-ranks `(i0, i1)` of block `b`'s first output and of the output after its
/// last (`count` outputs; the window `w` of its pair), searched inside the merge
/// kernel by warps 0 and 1 at once ([`pass_co_rank`]; the pair's end needs no search)
/// and shared through the 16 bytes at byte `at` of the dynamic shared memory. This
/// replaces a partition kernel per pass: the searches of one block overlap the merging
/// of the others on the SM, and a pass is one launch. Inlined, it makes
/// `mergepath_merge_kv_u32_*` spill 32 bytes; not inlined (a call in the kernel), every
/// merge measured 2-5% slower, so it stays inlined (2026-11-23; docs/history.md, mergepath: "Sentinels, whole-tile bodies, co-ranks in the merge").
#[inline(always)]
pub(super) unsafe fn pass_co_ranks<T: SortKey>(
    src: *const T,
    samples: *const T,
    w: &Window<u64>,
    count: u32,
    at: u32,
    desc: bool,
) -> (u64, u64) {
    let warp = gpu::thread_idx() / 32;
    unsafe {
        if warp < 2 {
            let k = w.diag + warp as u64 * count as u64;
            let i =
                if k == w.a_len + w.b_len { w.a_len } else { pass_co_rank::<_, false, 32>(src, samples, w, k, desc) };
            if gpu::lane_id() == 0 {
                sts::<u64>(at, warp, i);
            }
        }
        gpu::sync_threads();
        (lds::<u64>(at, 0), lds::<u64>(at, 1))
    }
}

/// Partition of one global pass (for large inputs, see [`crate::mergepath::co_ranks_in_merge`]):
/// `parts[b]` = co-rank of block `b`'s first output in its pair of runs of
/// `tile << log_run` elements. `LANES` lanes per block (a group of the warp);
/// `samples` are those written with `src`.
#[inline(always)]
pub(in crate::mergepath) unsafe fn partition<T: SortKey, const LANES: u32>(p: Partition<T>) {
    gpu::grid_dependency_wait();
    let Partition { src, samples, parts, n, tile, log_run, direction } = p;
    let (src, samples, parts) = (src.get(), samples.get(), parts.get());
    let b = gpu::global_idx() / LANES as u64;
    if b >= crate::mergepath::tiles(n, tile) {
        return;
    }
    let w = merge_window(b, log_run, tile as u64, n);
    let i = unsafe { pass_co_rank::<_, true, LANES>(src, samples, &w, w.diag, direction.is_descending()) };
    if gpu::lane_id() % LANES == 0 {
        unsafe { *parts.add(b as usize) = i };
    }
}

/// Partition of the merge of two given runs, `A` = `a[..a_len]` and `B` = `bb[..b_len]`
/// (anywhere in memory; [`crate::mergepath::pair_window`]). [`crate::mergepath::PAIR_PARTITION_LANES`] lanes
/// per block.
#[inline(always)]
pub(in crate::mergepath) unsafe fn partition_pair<T: SortKey>(p: PairPartition<T>) {
    gpu::grid_dependency_wait();
    let PairPartition { a, b: bb, parts, a_len, b_len, tile, direction } = p;
    let (a, bb, parts) = (a.get(), bb.get(), parts.get());
    const LANES: u32 = crate::mergepath::PAIR_PARTITION_LANES;
    let b = gpu::global_idx() / LANES as u64;
    if b >= crate::mergepath::tiles(a_len + b_len, tile) {
        return;
    }
    let w = crate::mergepath::pair_window(b, tile, a_len, b_len);
    let (lo, hi) = co_rank_range(w.diag, a_len, b_len);
    let i = unsafe { co_rank_search::<T, LANES>(a, bb, w.diag, lo, hi, direction.is_descending()) };
    if gpu::lane_id() % LANES == 0 {
        unsafe { *parts.add(b as usize) = i };
    }
}

/// The co-ranks of block `b` in a global pass: from the partition kernel's `parts`, or
/// (`parts` null, small inputs: [`crate::mergepath::co_ranks_in_merge`]) searched by the block
/// itself ([`pass_co_ranks`]).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn global_co_ranks<T: SortKey>(
    src: *const T,
    samples: *const T,
    parts: *const u64,
    b: u64,
    w: &Window<u64>,
    count: u32,
    at: u32,
    desc: bool,
) -> (u64, u64) {
    unsafe {
        if parts.is_null() {
            pass_co_ranks(src, samples, w, count, at, desc)
        } else {
            block_co_ranks(w, count, *parts.add(b as usize), || *parts.add(b as usize + 1))
        }
    }
}

/// The merge-path predicate of candidate `x` on diagonal `k`: is `A[x]` among the
/// first `k` outputs, i.e. `A[x] <= B[k - 1 - x]` (ties go to `A`)? True for a prefix of
/// the candidates; the co-rank is the first false one.
#[inline(always)]
pub(super) unsafe fn a_before_partner<T: SortKey>(a: *const T, bb: *const T, k: u64, x: u64, desc: bool) -> bool {
    unsafe { (*a.add(x as usize)).ord_bits(desc) <= (*bb.add((k - 1 - x) as usize)).ord_bits(desc) }
}

/// Co-rank of the diagonal `k` in the merge of `A` (at `a`) and `B` (at `bb`), known to
/// lie in `[lo, hi]`, found by a group of `LANES` lanes of a warp (the result is the same
/// in each): each round they probe `LANES` evenly spaced candidates at once
/// ([`co_rank_probe`]) and a ballot narrows the range about `LANES + 1`-fold (5 rounds of
/// a warp for 2^23 candidates, where a binary search takes 23 dependent global loads).
/// For ranges without samples (the partition of two given runs); after a coarse search
/// over samples, [`chunk_co_rank`] finishes in one round.
#[inline(always)]
pub(super) unsafe fn co_rank_search<T: SortKey, const LANES: u32>(
    a: *const T,
    bb: *const T,
    k: u64,
    lo: u64,
    hi: u64,
    desc: bool,
) -> u64 {
    group_search::<LANES>(lo, hi, |x| unsafe { a_before_partner(a, bb, k, x, desc) })
}

/// The first candidate in `[lo, hi)` whose predicate `before` is false (`hi` if none;
/// `before` true for a prefix), found by a group of `LANES` lanes of a warp (the result
/// is the same in each): each round they test `LANES` evenly spaced candidates at once
/// ([`co_rank_probe`]) and a ballot narrows the range about `LANES + 1`-fold
/// ([`many_way_search`]). The co-rank searches over global memory, over samples and
/// over a cluster's shared memory all run on it.
#[inline(always)]
pub(super) fn group_search<const LANES: u32>(lo: u64, hi: u64, before: impl Fn(u64) -> bool) -> u64 {
    let lane = gpu::lane_id() % LANES;
    many_way_search(lo, hi, LANES, |l, h| {
        gpu::ballot_group::<LANES>(before(co_rank_probe(l, h, lane, LANES))).count_ones()
    })
}

/// Merge of one global pass: block `b` writes outputs `b * tile ..` of the pairwise
/// merge of runs of `tile << log_run` elements from `src` to `dst` (and the values
/// of `vsrc` to `vdst` with their keys).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn merge<T: Item, P: Values, const N: usize>(
    src: *const T,
    vsrc: P,
    dst: *mut T,
    vdst: P,
    samples_in: *const T,
    samples: *mut T,
    parts: *const u64,
    n: u64,
    log_run: u32,
    flags: u32,
    direction: Direction,
) {
    // [`crate::mergepath::PASS_REVERSED`]: the blocks run from the last tile down, so that the tiles
    // the previous pass wrote last (still in L2) are read first.
    let reversed = flags & crate::mergepath::PASS_REVERSED != 0;
    let b = if reversed { gpu::grid_dim() - 1 - gpu::block_idx() } else { gpu::block_idx() } as u64;
    let stream = flags & crate::mergepath::PASS_STREAMING != 0;
    let w = merge_window(b, log_run, (BLOCK * N as u32) as u64, n);
    let (kb, vb) = (size_of::<T>() as u32, size_of::<P::V>() as u32);
    let at = crate::mergepath::co_ranks_offset(if P::ON {
        crate::mergepath::kv_smem_bytes(kb, vb)
    } else {
        crate::mergepath::smem_bytes(kb)
    });
    let co_ranks =
        |count| unsafe { global_co_ranks(src, samples_in, parts, b, &w, count, at, direction.is_descending()) };
    unsafe {
        let (a, va) = (src.add(w.start as usize), vsrc.add(w.start));
        let (bb, vb) = (a.add(w.a_len as usize), va.add(w.a_len));
        merge_block::<T, P, N>(a, bb, va, vb, dst, vdst, samples, co_ranks, b, n, w, stream, direction)
    }
}

/// Merge of two given runs, `A` = `a[..a_len]` and `B` = `bb[..b_len]` (anywhere in
/// memory; [`crate::mergepath::pair_window`]) with their values `va`, `vb`: block `b` writes
/// outputs `b * tile ..` of `dst` (and `vdst`).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn merge_pair<T: Item, P: Values, const N: usize>(
    a: *const T,
    bb: *const T,
    va: P,
    vb: P,
    dst: *mut T,
    vdst: P,
    parts: *const u64,
    a_len: u64,
    b_len: u64,
    direction: Direction,
) {
    let b = gpu::block_idx() as u64;
    let w = crate::mergepath::pair_window(b, BLOCK * N as u32, a_len, b_len);
    let null = core::ptr::null_mut();
    let co_ranks = |count| unsafe { block_co_ranks(&w, count, *parts.add(b as usize), || *parts.add(b as usize + 1)) };
    unsafe { merge_block::<T, P, N>(a, bb, va, vb, dst, vdst, null, co_ranks, b, a_len + b_len, w, false, direction) }
}

/// Block `b`'s tile of outputs (of `n` in all) of the merge whose window is `w` (its
/// `A` at `a` with values `va`, its `B` at `bb` with values `vb`), given
/// `co_ranks(count)`, the co-ranks of its first output and of the one after its last
/// ([`block_co_ranks`]); writes the samples of its outputs unless `samples` is null.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn merge_block<T: Item, P: Values, const N: usize>(
    a: *const T,
    bb: *const T,
    va: P,
    vb: P,
    dst: *mut T,
    vdst: P,
    samples: *mut T,
    co_ranks: impl FnOnce(u32) -> (u64, u64),
    b: u64,
    n: u64,
    w: Window<u64>,
    stream: bool,
    direction: Direction,
) {
    let (start, count) = block_range(b, BLOCK * N as u32, n);
    let co = co_ranks(count);
    let out = (dst, vdst, samples);
    unsafe {
        with_const_bool!(count == BLOCK * N as u32, FULL => with_const_bool!(stream, STREAM => {
            merge_block_tile::<T, P, N, FULL, STREAM>(a, bb, va, vb, out, co, start, count, w, direction)
        }))
    }
}

/// [`merge_block`] of the tile of `count` outputs at `start` (see
/// [`block_sort`](fn@super::block_sort) for `FULL`). The keys merge with per-thread
/// co-ranks in shared memory; each output remembers the tile slot it came from, and the
/// values are gathered by those slots.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn merge_block_tile<T: Item, P: Values, const N: usize, const FULL: bool, const STREAM: bool>(
    a: *const T,
    bb: *const T,
    va: P,
    vb: P,
    (dst, vdst, samples): (*mut T, P, *mut T),
    (i0, i1): (u64, u64),
    start: u64,
    count: u32,
    w: Window<u64>,
    direction: Direction,
) {
    let desc = direction.is_descending();
    let m = T::masks(desc);
    let t = gpu::thread_idx();
    let tile = 0; // the key tile starts the dynamic shared memory
    let voff = crate::mergepath::kv_values_offset(size_of::<T>() as u32);
    let count = if FULL { BLOCK * N as u32 } else { count };
    unsafe {
        let j0 = w.diag - i0;
        let la = (i1 - i0) as u32;
        let lb = count - la;
        // A's window then B's window, contiguous in the tile.
        let (a_src, b_src) = (a.add(i0 as usize), bb.add(j0 as usize));
        let (va_src, vb_src) = (va.add(i0).ptr(), vb.add(j0).ptr());
        unroll::<N>(|k| {
            let x = k as u32 * BLOCK + t;
            if FULL || x < count {
                // Select the address, not the element (a selected record goes
                // through local memory).
                let p = if x < la { a_src.add(x as usize) } else { b_src.add((x - la) as usize) };
                sts(tile, x, load_input::<_, STREAM>(p).enc(m));
                if P::ON {
                    let q = if x < la { va_src.add(x as usize) } else { vb_src.add((x - la) as usize) };
                    sts(voff, x, load_input::<_, STREAM>(q));
                }
            }
        });
        if t == 0 {
            sts(tile, count, T::sentinel());
        }
        gpu::sync_threads();
        let first = t * N as u32;
        let mut v = [lds(tile, 0); N];
        let mut pos = [0u32; N];
        let mut vals: [P::V; N] = [core::mem::zeroed(); N];
        if FULL || first < count {
            with_const_bool!(P::ON, POS => merge_from_tile::<T, N, POS, false>(tile, 0, la, lb, first, desc, &mut v, &mut pos));
        }
        if P::ON {
            unroll::<N>(|k| {
                if FULL || first + (k as u32) < count {
                    vals[k] = lds::<P::V>(voff, pos[k]);
                }
            });
        }
        store_tile::<T, P, N, FULL, BLOCK>(&v, &vals, dst, vdst, samples, start, count, m);
    }
}

/// Loads an element of a merge's input, with `STREAM` as last-use data
/// ([`gpu::ld_global_cs`], see [`crate::mergepath::PASS_STREAMING`]).
#[inline(always)]
pub(super) unsafe fn load_input<T: Copy, const STREAM: bool>(p: *const T) -> T {
    unsafe { if STREAM { gpu::ld_global_cs(p) } else { *p } }
}
