//! The CPU sorts a study compares, each timed the same way on the same input.
use std::collections::HashMap;

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::measure::{Timing, time_cpu};
use crate::{Element, Order, cpu};

/// A CPU sort measured by the studies. All sort ascending by the order bits, so they
/// do the same work; only ours and rayon's take a thread count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CpuSort {
    /// [`cpu::parallel_merge_sort`], the subject of the studies.
    ParallelMerge,
    RayonParSort,
    RayonParSortUnstable,
    StdSort,
    StdSortUnstable,
    /// [`cpu::recursive_merge_sort`], the Pisa report's sequential baseline.
    RecursiveMerge,
    /// [`cpu::bottom_up_merge_sort`], its iterative form.
    BottomUpMerge,
}

impl CpuSort {
    /// The sorts that take a thread count.
    pub const PARALLEL: [CpuSort; 3] = [CpuSort::ParallelMerge, CpuSort::RayonParSort, CpuSort::RayonParSortUnstable];
    /// The single-threaded comparison rows.
    pub const SEQUENTIAL: [CpuSort; 4] =
        [CpuSort::StdSort, CpuSort::StdSortUnstable, CpuSort::RecursiveMerge, CpuSort::BottomUpMerge];

    pub fn name(self) -> &'static str {
        match self {
            CpuSort::ParallelMerge => "parallel-merge",
            CpuSort::RayonParSort => "rayon-par_sort",
            CpuSort::RayonParSortUnstable => "rayon-par_sort_unstable",
            CpuSort::StdSort => "std-sort",
            CpuSort::StdSortUnstable => "std-sort_unstable",
            CpuSort::RecursiveMerge => "recursive-merge",
            CpuSort::BottomUpMerge => "bottom-up-merge",
        }
    }
}

/// Rayon pools with exactly the requested number of threads, built once per study so
/// that building them is never timed.
#[derive(Default)]
pub struct Pools(HashMap<usize, rayon::ThreadPool>);

impl Pools {
    fn get(&mut self, threads: usize) -> Result<&rayon::ThreadPool> {
        use std::collections::hash_map::Entry;
        match self.0.entry(threads) {
            Entry::Occupied(e) => Ok(e.into_mut()),
            Entry::Vacant(e) => {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .map_err(|err| Error::BadArgument(format!("cannot start {threads} rayon threads: {err}")))?;
                Ok(e.insert(pool))
            }
        }
    }
}

/// Times `sort` on `threads` threads (ignored by the sequential sorts): one warm-up,
/// then `repeats` runs on fresh copies of `input` (see [`time_cpu`]).
pub fn measure<T: Element>(
    sort: CpuSort,
    input: &[T],
    threads: usize,
    repeats: usize,
    pools: &mut Pools,
) -> Result<Timing<T>> {
    let key = |x: &T| x.bits();
    let timing = match sort {
        CpuSort::ParallelMerge => {
            let mut failure = None;
            let t = time_cpu(input, repeats, |v| {
                if let Err(e) = cpu::parallel_merge_sort(v, Order::Ascending, threads) {
                    failure.get_or_insert(e);
                }
            });
            if let Some(e) = failure {
                return Err(e);
            }
            t
        }
        CpuSort::RayonParSort => {
            let pool = pools.get(threads)?;
            time_cpu(input, repeats, |v| pool.install(|| v.par_sort_by_key(key)))
        }
        CpuSort::RayonParSortUnstable => {
            let pool = pools.get(threads)?;
            time_cpu(input, repeats, |v| pool.install(|| v.par_sort_unstable_by_key(key)))
        }
        CpuSort::StdSort => time_cpu(input, repeats, |v| v.sort_by_key(key)),
        CpuSort::StdSortUnstable => time_cpu(input, repeats, |v| v.sort_unstable_by_key(key)),
        CpuSort::RecursiveMerge => time_cpu(input, repeats, |v| cpu::recursive_merge_sort(v, Order::Ascending)),
        CpuSort::BottomUpMerge => time_cpu(input, repeats, |v| cpu::bottom_up_merge_sort(v, Order::Ascending)),
    };
    Ok(timing)
}
