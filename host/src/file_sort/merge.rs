//! Stable k-way merge of sorted runs on the CPU, in parallel.
//!
//! Parallelism comes from cutting the key space, not the output: sample splitter keys,
//! and for each run find where each splitter's keys begin. Part `j` then holds, from
//! every run, exactly the elements whose keys lie between splitters `j` and `j + 1`, so
//! the parts merge independently and concatenate to the full result. All copies of a
//! key fall into one part, which keeps the merge stable (ties go to the earlier run).
//! Many duplicates only make the parts uneven, never wrong.
use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rayon::prelude::*;

use crate::Element;

/// Merges `runs` (each sorted by `ord_bits(descending)`) into `out`, whose length must
/// be the runs' total. Equal keys keep run order, then their order within the run.
/// The whole-output merge, the reference of the tests of the merges that write parts.
#[cfg(test)]
pub fn merge_runs<T: Element>(runs: &[&[T]], descending: bool, out: &mut [T]) {
    let total: usize = runs.iter().map(|r| r.len()).sum();
    assert_eq!(total, out.len(), "merge output length");
    let cuts = cuts(runs, descending, rayon::current_num_threads() * 4);
    let mut outs = Vec::with_capacity(cuts.len() - 1);
    let mut rest = out;
    for w in cuts.windows(2) {
        let (head, tail) = rest.split_at_mut(part_len(w));
        outs.push((w, head));
        rest = tail;
    }
    outs.into_par_iter().for_each(|(w, out)| merge_sequential(&part(runs, w), descending, out));
}

/// [`merge_runs`] without a whole-output buffer: the output is cut into parts of about
/// `part_bytes` (by key, as [`merge_runs`] cuts it, so a run of equal keys stays in one
/// part), several threads merge a part each into a buffer of its own and hand it to
/// `sink(offset, part)` (`offset`: the part's first position in the output), in no
/// particular order. Writing parts to a file this way overlaps merging with writing.
/// Stops at the first error `sink` returns.
pub fn merge_runs_into<T: Element, E: Send>(
    runs: &[&[T]],
    descending: bool,
    part_bytes: usize,
    sink: impl Fn(usize, &[T]) -> Result<(), E> + Sync,
) -> Result<(), E> {
    let total: usize = runs.iter().map(|r| r.len()).sum();
    let parts = (rayon::current_num_threads() * 4).max((total * size_of::<T>()).div_ceil(part_bytes.max(1)));
    cuts(runs, descending, parts).par_windows(2).try_for_each(|w| {
        let mut out = vec![T::zeroed(); part_len(w)];
        merge_sequential(&part(runs, w), descending, &mut out);
        // The part starts after everything before its cut in every run.
        sink(w[0].iter().sum(), &out)
    })
}

/// [`merge_runs`] into `sink`, in output order, with bounded memory: the output is cut
/// by key into parts of about `part_bytes` (as [`merge_runs_into`] cuts it), a batch of
/// parts (one per thread) is merged in parallel, and the parts go to `sink` one after
/// another. A part that many equal keys make much larger than asked is merged on one
/// thread into pieces of `part_bytes`. Stops at the first error `sink` returns.
pub fn merge_runs_ordered<T: Element, E>(
    runs: &[&[T]],
    descending: bool,
    part_bytes: usize,
    mut sink: impl FnMut(&[T]) -> Result<(), E>,
) -> Result<(), E> {
    let nonempty: Vec<&[T]> = runs.iter().copied().filter(|r| !r.is_empty()).collect();
    if nonempty.len() <= 1 {
        return match nonempty.first() {
            Some(r) => r.chunks(part_bytes.div_ceil(size_of::<T>()).max(1)).try_for_each(sink),
            None => Ok(()),
        };
    }
    let total: usize = nonempty.iter().map(|r| r.len()).sum();
    let part_elems = (part_bytes / size_of::<T>()).max(1);
    let threads = rayon::current_num_threads();
    let cuts = cuts(&nonempty, descending, (total.div_ceil(part_elems)).max(threads * 4));
    let windows: Vec<&[Vec<usize>]> = cuts.windows(2).collect();
    for batch in windows.chunks(threads) {
        // Parts far beyond the asked size (equal keys) are left for the loop below.
        let merged: Vec<Option<Vec<T>>> = batch
            .par_iter()
            .map(|w| {
                (part_len(w) <= 2 * part_elems).then(|| {
                    let mut out = vec![T::zeroed(); part_len(w)];
                    merge_sequential(&part(&nonempty, w), descending, &mut out);
                    out
                })
            })
            .collect();
        for (w, m) in batch.iter().zip(merged) {
            match m {
                Some(out) => sink(&out)?,
                None => merge_bounded(&part(&nonempty, w), descending, part_elems, &mut sink)?,
            }
        }
    }
    Ok(())
}

/// One thread's merge (as [`merge_sequential`]) into pieces of at most `piece` elements
/// handed to `sink` in order.
fn merge_bounded<T: Element, E>(
    runs: &[&[T]],
    descending: bool,
    piece: usize,
    sink: &mut impl FnMut(&[T]) -> Result<(), E>,
) -> Result<(), E> {
    let mut pos = vec![0usize; runs.len()];
    // (key, run) as a min-heap: the lower run index wins ties, for stability.
    let mut heap: BinaryHeap<Reverse<(T::Bits, usize)>> = runs
        .iter()
        .enumerate()
        .filter(|(_, r)| !r.is_empty())
        .map(|(r, run)| Reverse((run[0].ord_bits(descending), r)))
        .collect();
    let mut out = Vec::with_capacity(piece);
    while let Some(Reverse((_, r))) = heap.pop() {
        // Everything of run `r` up to the next run's head (ties included, as `r` is
        // the earlier run when keys are equal) goes out at once.
        let next = heap.peek().map(|Reverse(h)| *h);
        let run = runs[r];
        let end = match next {
            None => run.len(),
            Some((k, s)) => pos[r] + run[pos[r]..].partition_point(|x| (x.ord_bits(descending), r) <= (k, s)),
        };
        let mut at = pos[r];
        while at < end {
            let take = (end - at).min(piece - out.len());
            out.extend_from_slice(&run[at..at + take]);
            at += take;
            if out.len() == piece {
                sink(&out)?;
                out.clear();
            }
        }
        pos[r] = end;
        if let Some(x) = run.get(end) {
            heap.push(Reverse((x.ord_bits(descending), r)));
        }
    }
    if !out.is_empty() {
        sink(&out)?;
    }
    Ok(())
}

/// Where a parallel merge cuts each run: `cuts[j][r]` is the start in run `r` of part
/// `j` (the keys at or above splitter `j - 1`), with a last row of the run lengths.
/// One part (no splitters) for fewer than 2^16 elements, one run or `parts < 2`.
fn cuts<T: Element>(runs: &[&[T]], descending: bool, parts: usize) -> Vec<Vec<usize>> {
    let mut cuts: Vec<Vec<usize>> = vec![vec![0; runs.len()]];
    let total: usize = runs.iter().map(|r| r.len()).sum();
    if total >= 1 << 16 && runs.len() >= 2 && parts >= 2 {
        for s in &splitters(runs, descending, parts) {
            cuts.push(runs.iter().map(|r| r.partition_point(|x| x.ord_bits(descending) < *s)).collect());
        }
    }
    cuts.push(runs.iter().map(|r| r.len()).collect());
    cuts
}

/// Elements of the part between two rows of [`cuts`].
fn part_len(w: &[Vec<usize>]) -> usize {
    w[0].iter().zip(&w[1]).map(|(a, b)| b - a).sum()
}

/// The pieces of each run in the part between two rows of [`cuts`].
fn part<'a, T>(runs: &[&'a [T]], w: &[Vec<usize>]) -> Vec<&'a [T]> {
    runs.iter().enumerate().map(|(r, run)| &run[w[0][r]..w[1][r]]).collect()
}

/// Up to `parts - 1` distinct, increasing keys taken from evenly spaced samples of
/// every run.
fn splitters<T: Element>(runs: &[&[T]], descending: bool, parts: usize) -> Vec<T::Bits> {
    let per_run = 8 * parts;
    let mut sample: Vec<T::Bits> = runs
        .iter()
        .filter(|r| !r.is_empty())
        .flat_map(|r| (0..per_run).map(move |i| r[i * r.len() / per_run].ord_bits(descending)))
        .collect();
    sample.sort_unstable();
    let mut s: Vec<T::Bits> = (1..parts).map(|j| sample[j * sample.len() / parts]).collect();
    s.dedup();
    s
}

/// One thread's merge: a copy, a two-way merge, or a heap over the run heads.
pub fn merge_sequential<T: Element>(runs: &[&[T]], descending: bool, out: &mut [T]) {
    let runs: Vec<&[T]> = runs.iter().copied().filter(|r| !r.is_empty()).collect();
    match runs.as_slice() {
        [] => {}
        [a] => out.copy_from_slice(a),
        [a, b] => merge_two(a, b, descending, out),
        _ => {
            let mut pos = vec![0usize; runs.len()];
            // (key, run) as a min-heap: the lower run index wins ties, for stability.
            let mut heap: BinaryHeap<Reverse<(T::Bits, usize)>> =
                runs.iter().enumerate().map(|(r, run)| Reverse((run[0].ord_bits(descending), r))).collect();
            for slot in out.iter_mut() {
                let Reverse((_, r)) = heap.pop().expect("runs hold as many elements as out");
                *slot = runs[r][pos[r]];
                pos[r] += 1;
                if let Some(x) = runs[r].get(pos[r]) {
                    heap.push(Reverse((x.ord_bits(descending), r)));
                }
            }
        }
    }
}

fn merge_two<T: Element>(a: &[T], b: &[T], descending: bool, out: &mut [T]) {
    let (mut i, mut j) = (0, 0);
    for slot in out.iter_mut() {
        // Take from `a` on ties: it is the earlier run.
        let take_a = j == b.len() || (i < a.len() && a[i].ord_bits(descending) <= b[j].ord_bits(descending));
        if take_a {
            *slot = a[i];
            i += 1;
        } else {
            *slot = b[j];
            j += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inputs::generate;
    use crate::{Distribution, Entity, Order, cpu};

    /// `input` cut into runs of `run_len`, each sorted in `order` (the input of a merge).
    fn sorted_runs(input: &[Entity], run_len: usize, order: Order) -> Vec<Vec<Entity>> {
        let mut runs: Vec<Vec<Entity>> = input.chunks(run_len).map(|c| c.to_vec()).collect();
        for r in &mut runs {
            cpu::reference_sort(r, order);
        }
        runs
    }

    /// Sorted runs of `input` cut every `run_len`, merged, must equal the stable sort.
    fn check(input: &[Entity], run_len: usize, desc: bool) {
        let order = if desc { Order::Descending } else { Order::Ascending };
        let runs = sorted_runs(input, run_len.max(1), order);
        let refs: Vec<&[Entity]> = runs.iter().map(|r| r.as_slice()).collect();
        let mut out = vec![Entity::default(); input.len()];
        merge_runs(&refs, desc, &mut out);
        let mut expect = input.to_vec();
        cpu::reference_sort(&mut expect, order);
        assert!(out == expect, "n={} run_len={run_len} desc={desc}", input.len());
    }

    /// [`merge_runs_into`] hands over parts that tile the output and, put in place,
    /// are the stable merge.
    #[test]
    fn merges_into_parts_that_tile_the_output() {
        for dist in [Distribution::Uniform, Distribution::FewUnique, Distribution::Equal] {
            let input: Vec<Entity> = generate(300_007, dist, 4);
            for (run_len, part_bytes) in [(100_000, 1 << 16), (30_011, 1 << 20), (1 << 20, 1 << 12), (7, 1 << 30)] {
                for desc in [false, true] {
                    let order = if desc { Order::Descending } else { Order::Ascending };
                    let runs = sorted_runs(&input, run_len, order);
                    let refs: Vec<&[Entity]> = runs.iter().map(|r| r.as_slice()).collect();
                    let out = std::sync::Mutex::new(vec![None; input.len()]);
                    merge_runs_into(&refs, desc, part_bytes, |at, piece| {
                        let mut out = out.lock().unwrap();
                        for (slot, x) in out[at..at + piece.len()].iter_mut().zip(piece) {
                            assert!(slot.is_none(), "position {at} written twice");
                            *slot = Some(*x);
                        }
                        Ok::<(), ()>(())
                    })
                    .unwrap();
                    let out: Vec<Entity> =
                        out.into_inner().unwrap().into_iter().map(|x| x.expect("unwritten")).collect();
                    let mut expect = input.clone();
                    cpu::reference_sort(&mut expect, order);
                    assert!(out == expect, "{dist} run_len={run_len} part_bytes={part_bytes} desc={desc}");
                }
            }
        }
        // The first error stops the merge and comes back.
        let input: Vec<Entity> = generate(200_000, Distribution::Uniform, 5);
        let runs: Vec<&[Entity]> = input.chunks(50_000).collect();
        assert_eq!(merge_runs_into(&runs, false, 1 << 16, |_, _| Err("disk full")), Err("disk full"));
        assert_eq!(merge_runs_into::<Entity, ()>(&[], false, 1 << 16, |_, _| Ok(())), Ok(()));
    }

    /// [`merge_runs_ordered`] hands over the stable merge in order, in pieces no
    /// larger than asked, also where equal keys make one part hold everything.
    #[test]
    fn ordered_merge_is_the_stable_merge_in_bounded_pieces() {
        for dist in [Distribution::Uniform, Distribution::Equal, Distribution::TwoValues] {
            let input: Vec<Entity> = generate(200_003, dist, 7);
            for (run_len, part_bytes) in [(50_000, 1 << 14), (70_001, 1 << 20), (1 << 20, 1 << 12), (7, 1 << 16)] {
                for desc in [false, true] {
                    let order = if desc { Order::Descending } else { Order::Ascending };
                    let runs = sorted_runs(&input, run_len, order);
                    let refs: Vec<&[Entity]> = runs.iter().map(|r| r.as_slice()).collect();
                    let mut out = Vec::new();
                    let mut largest = 0;
                    merge_runs_ordered(&refs, desc, part_bytes, |piece| {
                        largest = largest.max(piece.len());
                        out.extend_from_slice(piece);
                        Ok::<(), ()>(())
                    })
                    .unwrap();
                    let mut expect = input.clone();
                    cpu::reference_sort(&mut expect, order);
                    assert!(out == expect, "{dist} run_len={run_len} part_bytes={part_bytes} desc={desc}");
                    assert!(largest * size_of::<Entity>() <= 2 * part_bytes.max(size_of::<Entity>()), "{largest}");
                }
            }
        }
        let input: Vec<u32> = generate(100_000, Distribution::Uniform, 5);
        let runs: Vec<&[u32]> = input.chunks(30_000).collect();
        assert_eq!(merge_runs_ordered(&runs, false, 1 << 12, |_| Err("disk full")), Err("disk full"));
    }

    #[test]
    fn merges_stably_for_any_run_count() {
        for dist in [Distribution::Uniform, Distribution::FewUnique, Distribution::Equal, Distribution::Sorted] {
            let input: Vec<Entity> = generate(200_003, dist, 9);
            for run_len in [1 << 20, 100_000, 30_011, 4096, 7] {
                check(&input, run_len, false);
            }
            check(&input, 65_536, true);
        }
        check(&[], 4, false);
        let small: Vec<Entity> = generate(1000, Distribution::TwoValues, 1);
        check(&small, 3, true);
    }
}
