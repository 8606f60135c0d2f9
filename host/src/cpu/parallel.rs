//! Parallel merge sort with a chosen number of threads (the Pisa report's CPU
//! algorithm, without its sequential tail).
//!
//! The report splits the input into one sub-array per thread (sizes differing by at
//! most one), sorts them in parallel, then merges them pairwise on one thread: its
//! profile names those final merges as the bottleneck. Here every merge level is
//! parallel too: each thread owns the same output range at every level and finds,
//! by a co-rank binary search, which part of the two input runs lands there. So all
//! threads do equal work from start to finish, with no thread idle in the last levels.
//!
//! The threads are spawned once per sort and step through the levels together,
//! separated by a barrier; the data and one scratch buffer take turns as source and
//! destination (ping-pong), so no level copies or allocates.
use std::marker::PhantomData;
use std::ops::Range;
use std::sync::Barrier;
use std::thread;

use kernels::search::co_rank;

use super::merge::{key, merge};
use super::sequential::bottom_up;
use crate::error::{Error, Result};
use crate::{Element, Order};

/// Sorts `data` stably with exactly `threads` threads (fewer when there are fewer
/// elements than threads: extra threads would only get empty sub-arrays).
pub fn parallel_merge_sort<T: Element>(data: &mut [T], order: Order, threads: usize) -> Result<()> {
    if threads == 0 {
        return Err(Error::BadArgument("the thread count must be at least 1".into()));
    }
    if order.is_descending() {
        sort_with::<T, true>(data, threads);
    } else {
        sort_with::<T, false>(data, threads);
    }
    Ok(())
}

/// Start of sub-array `t` of `p` over `n` elements: the first `n % p` sub-arrays get
/// one element more than the others, so sizes differ by at most one.
pub fn sub_array_start(n: usize, p: usize, t: usize) -> usize {
    t * (n / p) + t.min(n % p)
}

/// Merge levels needed to combine `p` runs pairwise into one: ceil(log2 p).
fn levels(p: usize) -> u32 {
    usize::BITS - p.saturating_sub(1).leading_zeros()
}

fn sort_with<T: Element, const DESC: bool>(data: &mut [T], threads: usize) {
    let n = data.len();
    let p = threads.min(n);
    let mut scratch = bytemuck::zeroed_vec::<T>(n);
    if p <= 1 {
        bottom_up::<T, DESC>(data, &mut scratch, false);
        return;
    }
    let bufs = [Shared::new(data), Shared::new(&mut scratch)];
    let barrier = Barrier::new(p);
    let work = |t: usize| {
        // SAFETY: the phase discipline of `Shared`: in the first phase each thread
        // touches only its own sub-array; within a level every thread reads only the
        // source buffer and writes only its own range of the destination; a barrier
        // separates consecutive phases.
        unsafe { sort_thread::<T, DESC>(&bufs, &barrier, n, p, t) }
    };
    let work = &work;
    thread::scope(|s| {
        for t in 1..p {
            s.spawn(move || work(t));
        }
        work(0);
    });
}

/// Thread `t`'s part of the sort: its sub-array, then its output range at every level.
///
/// # Safety
/// Every one of the `p` threads of the sort calls this with its own `t`, the same
/// buffers and the same barrier, and nothing else touches the buffers meanwhile.
unsafe fn sort_thread<T: Element, const DESC: bool>(
    bufs: &[Shared<'_, T>; 2],
    barrier: &Barrier,
    n: usize,
    p: usize,
    t: usize,
) {
    let start = |c: usize| sub_array_start(n, p, c.min(p));
    let own = start(t)..start(t + 1);
    let levels = levels(p);
    // Sort the sub-array into the buffer from which `levels` ping-pong passes end in
    // the data.
    let mut src = (levels % 2) as usize;
    unsafe {
        bottom_up::<T, DESC>(bufs[0].get_mut(own.clone()), bufs[1].get_mut(own.clone()), src == 1);
    }
    for level in 0..levels {
        barrier.wait();
        // At this level sub-arrays g0 .. g0 + group merge into one run, the one that
        // contains this thread's output range.
        let group = 2usize << level;
        let g0 = t / group * group;
        let (lo, mid, hi) = (start(g0), start(g0 + group / 2), start(g0 + group));
        let (a, b) = unsafe { bufs[src].get(lo..hi) }.split_at(mid - lo);
        let (k0, k1) = (own.start - lo, own.end - lo);
        let split = |k: usize| {
            let a_at = |i: u64| key::<T, DESC>(&a[i as usize]);
            let b_at = |j: u64| key::<T, DESC>(&b[j as usize]);
            co_rank(k as u64, a.len() as u64, b.len() as u64, a_at, b_at) as usize
        };
        let (i0, i1) = (split(k0), split(k1));
        let out = unsafe { bufs[1 - src].get_mut(own.clone()) };
        merge::<T, DESC>(&a[i0..i1], &b[k0 - i0..k1 - i1], out);
        src = 1 - src;
    }
}

/// One of the sort's two buffers, shared by its threads.
///
/// The threads access it by ranges under a phase discipline: while a phase runs, no
/// range that any thread writes is read or written by another thread; phases are
/// separated by a barrier (or by joining the threads).
struct Shared<'a, T> {
    ptr: *mut T,
    len: usize,
    _buf: PhantomData<&'a mut [T]>,
}

// SAFETY: `Shared` is a `&mut [T]` handed to several threads; the phase discipline
// above is what keeps their accesses apart.
unsafe impl<T: Send + Sync> Sync for Shared<'_, T> {}

impl<'a, T> Shared<'a, T> {
    fn new(buf: &'a mut [T]) -> Self {
        Shared { ptr: buf.as_mut_ptr(), len: buf.len(), _buf: PhantomData }
    }

    /// # Safety
    /// No thread writes any of `r` while the slice lives.
    unsafe fn get(&self, r: Range<usize>) -> &[T] {
        assert!(r.start <= r.end && r.end <= self.len);
        unsafe { std::slice::from_raw_parts(self.ptr.add(r.start), r.len()) }
    }

    /// # Safety
    /// No other thread reads or writes any of `r` while the slice lives.
    #[allow(clippy::mut_from_ref)]
    unsafe fn get_mut(&self, r: Range<usize>) -> &mut [T] {
        assert!(r.start <= r.end && r.end <= self.len);
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(r.start), r.len()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sub_arrays_cover_and_differ_by_at_most_one() {
        for n in [0usize, 1, 7, 100, 1001] {
            for p in 1..=12 {
                let sizes: Vec<usize> =
                    (0..p).map(|t| sub_array_start(n, p, t + 1) - sub_array_start(n, p, t)).collect();
                assert_eq!(sub_array_start(n, p, 0), 0);
                assert_eq!(sizes.iter().sum::<usize>(), n);
                assert!(sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1, "n {n} p {p}");
            }
        }
    }

    #[test]
    fn level_counts() {
        let got: Vec<u32> = [1, 2, 3, 4, 5, 8, 9, 16].iter().map(|&p| levels(p)).collect();
        assert_eq!(got, [0, 1, 2, 2, 3, 3, 4, 4]);
    }

    #[test]
    fn zero_threads_is_an_error() {
        let mut v = vec![2u32, 1];
        assert!(matches!(parallel_merge_sort(&mut v, Order::Ascending, 0), Err(Error::BadArgument(_))));
    }
}
