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
pub fn merge_runs<T: Element>(runs: &[&[T]], descending: bool, out: &mut [T]) {
    let total: usize = runs.iter().map(|r| r.len()).sum();
    assert_eq!(total, out.len(), "merge output length");
    let parts = rayon::current_num_threads() * 4;
    if total < 1 << 16 || runs.len() < 2 || parts < 2 {
        merge_sequential(runs, descending, out);
        return;
    }
    let splitters = splitters(runs, descending, parts);
    // cuts[j][r]: start in run r of the keys >= splitters[j - 1] (0 for j = 0).
    let mut cuts: Vec<Vec<usize>> = vec![vec![0; runs.len()]];
    for s in &splitters {
        cuts.push(runs.iter().map(|r| r.partition_point(|x| x.ord_bits(descending) < *s)).collect());
    }
    cuts.push(runs.iter().map(|r| r.len()).collect());
    let mut outs = Vec::with_capacity(cuts.len() - 1);
    let mut rest = out;
    for w in cuts.windows(2) {
        let len: usize = w[0].iter().zip(&w[1]).map(|(a, b)| b - a).sum();
        let (head, tail) = rest.split_at_mut(len);
        outs.push((w, head));
        rest = tail;
    }
    outs.into_par_iter().for_each(|(w, out)| {
        let part: Vec<&[T]> = runs.iter().enumerate().map(|(r, run)| &run[w[0][r]..w[1][r]]).collect();
        merge_sequential(&part, descending, out);
    });
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

    /// Sorted runs of `input` cut at `cuts`, merged, must equal the stable sort.
    fn check(input: &[Entity], run_len: usize, desc: bool) {
        let order = if desc { Order::Descending } else { Order::Ascending };
        let mut runs: Vec<Vec<Entity>> = input.chunks(run_len.max(1)).map(|c| c.to_vec()).collect();
        for r in &mut runs {
            cpu::reference_sort(r, order);
        }
        let refs: Vec<&[Entity]> = runs.iter().map(|r| r.as_slice()).collect();
        let mut out = vec![Entity::default(); input.len()];
        merge_runs(&refs, desc, &mut out);
        let mut expect = input.to_vec();
        cpu::reference_sort(&mut expect, order);
        assert!(out == expect, "n={} run_len={run_len} desc={desc}", input.len());
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
