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
//! Each sub-array is sorted by std's stable sort on the order bits: it is cache-aware
//! (a bottom-up merge sort of a sub-array larger than L2 streams it through L3 once
//! per pass, which 16 threads at once turn into the bottleneck) and was 1.6x faster
//! than our own merge sorts on one thread at 10M keys.
//!
//! The threads step through the levels together, separated by a barrier; the data and
//! one scratch buffer take turns as source and destination (ping-pong), so no level
//! copies or allocates. They come from a rayon pool of exactly the requested size,
//! kept for later sorts, because starting threads per sort cost ~2 ms on the 16-core
//! test machine.
use std::collections::HashMap;
use std::marker::PhantomData;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use kernels::search::co_rank;

use super::merge::{key, merge};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::options::Order;

/// Sorts `data` stably with exactly `threads` threads (fewer when there are fewer
/// elements than threads: extra threads would only get empty sub-arrays).
pub fn parallel_merge_sort<T: Element>(data: &mut [T], order: Order, threads: usize) -> Result<()> {
    if threads == 0 {
        return Err(Error::BadArgument("the thread count must be at least 1".into()));
    }
    if order.is_descending() { sort_with::<T, true>(data, threads) } else { sort_with::<T, false>(data, threads) }
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

fn sort_with<T: Element, const DESC: bool>(data: &mut [T], threads: usize) -> Result<()> {
    let n = data.len();
    let p = threads.min(n);
    if p <= 1 {
        data.sort_by_key(key::<T, DESC>);
        return Ok(());
    }
    // Uninitialised: each thread's first act is to copy its sub-array into its part
    // of the scratch, which initialises all of it in parallel (and takes the page
    // faults there) instead of zeroing it on this thread first.
    let mut scratch: Vec<T> = Vec::with_capacity(n);
    let bufs = [Shared::new(data), Shared::from_raw(scratch.as_mut_ptr(), n)];
    let barrier = SpinBarrier::new(p);
    let work = |t: usize| {
        // SAFETY: the phase discipline of `Shared` (see `sort_thread`), and every
        // scratch range is written through a raw pointer before any slice covers it.
        unsafe { sort_thread::<T, DESC>(&bufs, &barrier, n, p, t) }
    };
    on_threads(p, &work)
}

/// Thread `t`'s part of the sort: its sub-array, then its output range at every level.
///
/// # Safety
/// Every one of the `p` threads of the sort calls this at the same time with its own
/// `t`, the same buffers and the same barrier, and nothing else touches the buffers
/// meanwhile. `bufs[1]` may be uninitialised.
unsafe fn sort_thread<T: Element, const DESC: bool>(
    bufs: &[Shared<'_, T>; 2],
    barrier: &SpinBarrier,
    n: usize,
    p: usize,
    t: usize,
) {
    let start = |c: usize| sub_array_start(n, p, c.min(p));
    let own = start(t)..start(t + 1);
    let levels = levels(p);
    // Phase 1 touches only this thread's sub-array in both buffers. The sorted run
    // goes to the buffer from which `levels` ping-pong passes end in the data.
    let mut src = (levels % 2) as usize;
    unsafe {
        std::ptr::copy_nonoverlapping(bufs[0].ptr.add(own.start), bufs[1].ptr.add(own.start), own.len());
        bufs[src].get_mut(own.clone()).sort_by_key(key::<T, DESC>);
    }
    // Then, at each level, every thread reads only the source buffer and writes only
    // its own range of the destination; the barrier separates the levels.
    for level in 0..levels {
        barrier.wait();
        // Sub-arrays g0 .. g0 + group merge into the run that holds this thread's
        // output range.
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

/// Runs `work(0) .. work(p - 1)` at the same time, one per thread of a pool of exactly
/// `p` threads, and returns when all are done.
///
/// Pools of up to the machine's thread count are kept for later sorts; a larger count,
/// or a pool another sort is using right now, gets a pool for this call only. One sort
/// at a time per pool matters: `work` blocks in a barrier, and two broadcasts
/// interleaved over the same threads could each hold threads the other waits for.
fn on_threads(p: usize, work: &(dyn Fn(usize) + Sync)) -> Result<()> {
    type Pools = Mutex<HashMap<usize, Arc<Mutex<rayon::ThreadPool>>>>;
    static POOLS: OnceLock<Pools> = OnceLock::new();
    let build = || {
        rayon::ThreadPoolBuilder::new()
            .num_threads(p)
            .thread_name(|i| format!("merge-sort-{i}"))
            .build()
            .map_err(|e| Error::BadArgument(format!("cannot start {p} threads: {e}")))
    };
    let kept = if p <= super::available_threads() {
        let mut pools = POOLS.get_or_init(Pools::default).lock().unwrap_or_else(|e| e.into_inner());
        match pools.get(&p) {
            Some(pool) => Some(pool.clone()),
            None => {
                let pool = Arc::new(Mutex::new(build()?));
                pools.insert(p, pool.clone());
                Some(pool)
            }
        }
    } else {
        None
    };
    let run = |pool: &rayon::ThreadPool| {
        pool.broadcast(|ctx| work(ctx.index()));
    };
    match kept.as_ref().and_then(|pool| pool.try_lock().ok()) {
        Some(pool) => run(&pool),
        None => run(&build()?),
    }
    Ok(())
}

/// A barrier for threads that each own a core: waiting spins (a level's work is a few
/// milliseconds at most, so sleeping and waking through the OS would cost more), and
/// yields after a while so that oversubscribed runs still progress.
struct SpinBarrier {
    threads: usize,
    arrived: AtomicUsize,
    generation: AtomicUsize,
}

impl SpinBarrier {
    fn new(threads: usize) -> Self {
        SpinBarrier { threads, arrived: AtomicUsize::new(0), generation: AtomicUsize::new(0) }
    }

    /// Returns once all threads have called it; everything a thread wrote before its
    /// call is visible to every thread after it.
    fn wait(&self) {
        let generation = self.generation.load(Ordering::Acquire);
        // AcqRel: the last arrival acquires every earlier arrival's writes (the
        // fetch_adds form one release sequence) and publishes them all with the
        // generation bump below.
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.threads {
            self.arrived.store(0, Ordering::Relaxed);
            self.generation.fetch_add(1, Ordering::Release);
            return;
        }
        let mut spins = 0u32;
        while self.generation.load(Ordering::Acquire) == generation {
            if spins < 1 << 12 {
                std::hint::spin_loop();
                spins += 1;
            } else {
                std::thread::yield_now();
            }
        }
    }
}

/// One of the sort's two buffers, shared by its threads.
///
/// The threads access it by ranges under a phase discipline: while a phase runs, no
/// range that any thread writes is read or written by another thread; phases are
/// separated by a barrier (or by joining the threads). Slices cover only initialised
/// elements.
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

    /// A buffer of `len` elements at `ptr`, possibly uninitialised: the caller keeps the
    /// allocation alive for `'a` and initialises each range before `get` or `get_mut`
    /// covers it.
    fn from_raw(ptr: *mut T, len: usize) -> Self {
        Shared { ptr, len, _buf: PhantomData }
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
