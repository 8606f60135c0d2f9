//! Sorting slices in place with one method call, in the spirit of rayon's
//! `ParallelSliceMut`: `keys.gpu_sort()?`, `records.gpu_sort_by_key(|r| r.score)?`.
//! They use one process-wide [`Sorter::with_fallback`] ([`shared_sorter`]): the first
//! CUDA device if there is one, the CPU otherwise.
use std::sync::OnceLock;

use crate::by_key::RecordKey;
use crate::element::{Element, Key};
use crate::error::Result;
use crate::options::SortOptions;
use crate::sorter::{Backend, Sorter};
use crate::tuning::Tuning;
use crate::variants::searchsorted::Side;

/// The process-wide sorter behind [`GpuSliceExt`], opened on first use (loading the
/// kernels once) with the measured defaults unless [`init_shared_sorter`] came first.
pub fn shared_sorter() -> &'static Sorter {
    SHARED.get_or_init(Sorter::with_fallback)
}

static SHARED: OnceLock<Sorter> = OnceLock::new();

/// Opens the process-wide sorter ([`shared_sorter`]) with `tuning`
/// ([`Sorter::with_fallback_tuned`]), if it is not open yet: call it before the first
/// [`GpuSliceExt`] method. Returns whether this call opened it; `false`: it was open
/// already and keeps its tuning (compare `shared_sorter().tuning()`).
///
/// ```
/// use host::{GpuSliceExt, Tuning, init_shared_sorter, shared_sorter};
///
/// let mut tuning = Tuning::default();
/// tuning.sync_launches = true;
/// assert!(init_shared_sorter(tuning.clone()));
/// assert!(!init_shared_sorter(Tuning::default()));
/// assert_eq!(shared_sorter().tuning(), &tuning);
/// let mut keys = vec![3u32, 1, 2];
/// keys.gpu_sort()?;
/// # Ok::<(), host::Error>(())
/// ```
pub fn init_shared_sorter(tuning: Tuning) -> bool {
    let mut opened = false;
    SHARED.get_or_init(|| {
        opened = true;
        Sorter::with_fallback_tuned(tuning)
    });
    opened
}

/// GPU sorting methods on slices, each on the process-wide [`shared_sorter`].
///
/// ```
/// use host::GpuSliceExt;
/// use host::{Order, SortOptions};
///
/// let mut keys = vec![3.5f64, -2.0, 10.0, 0.0];
/// keys.gpu_sort()?;
/// assert_eq!(keys, [-2.0, 0.0, 3.5, 10.0]);
/// keys.gpu_sort_with(&SortOptions::default().order(Order::Descending))?;
/// assert_eq!(keys, [10.0, 3.5, 0.0, -2.0]);
/// assert_eq!([30u32, 10, 20].gpu_argsort()?, [1, 2, 0]);
/// let (largest, at) = [4i64, 9, -1, 9].gpu_top_k(2, &SortOptions::default().order(Order::Descending))?;
/// assert_eq!((largest, at), (vec![9, 9], vec![1, 3]));
/// assert_eq!([3u32, 1, 3].gpu_unique_counts()?, (vec![1, 3], vec![1, 2]));
/// assert_eq!([1.0f64, 2.0, 2.0].gpu_searchsorted(&[2.0], host::Side::Right)?, [3]);
///
/// #[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
/// #[repr(C)]
/// struct Hit { score: f32, doc: u32 }
/// let mut hits = vec![Hit { score: 0.5, doc: 7 }, Hit { score: 0.9, doc: 3 }];
/// let ran_on = hits.gpu_sort_by_key(|h| h.score)?;
/// assert_eq!(hits[0].doc, 7);
/// println!("sorted on {ran_on}");
/// # Ok::<(), host::Error>(())
/// ```
pub trait GpuSliceExt<T> {
    /// Sorts ascending with the default options (the radix sort on a GPU).
    fn gpu_sort(&mut self) -> Result<Backend>
    where
        T: Element;
    /// Sorts as `opts` asks ([`Sorter::sort`]).
    fn gpu_sort_with(&mut self, opts: &SortOptions) -> Result<Backend>
    where
        T: Element;
    /// Sorts records by a computed key, stably, ascending ([`Sorter::sort_by_key`]).
    fn gpu_sort_by_key<K: RecordKey, F: Fn(&T) -> K + Sync + Send>(&mut self, key: F) -> Result<Backend>
    where
        T: bytemuck::Pod + Send + Sync;
    /// The stable ascending sorting permutation ([`Sorter::argsort`]).
    fn gpu_argsort(&self) -> Result<Vec<u32>>
    where
        T: Key;
    /// The `k` smallest keys (all of them if `k` exceeds the length), ascending, with
    /// their indices ([`Sorter::top_k`]; the largest with `SortOptions::order`).
    fn gpu_top_k(&self, k: usize, opts: &SortOptions) -> Result<(Vec<T>, Vec<u32>)>
    where
        T: Key;
    /// The distinct values, ascending, and how often each occurs
    /// ([`Sorter::unique_counts`]).
    fn gpu_unique_counts(&self) -> Result<(Vec<T>, Vec<u32>)>
    where
        T: Key;
    /// For each query, the number of this (ascending) slice's keys before it
    /// ([`Sorter::searchsorted`]).
    fn gpu_searchsorted(&self, queries: &[T], side: Side) -> Result<Vec<u64>>
    where
        T: Key;
}

impl<T> GpuSliceExt<T> for [T] {
    fn gpu_sort(&mut self) -> Result<Backend>
    where
        T: Element,
    {
        shared_sorter().sort(self, &SortOptions::default())
    }

    fn gpu_sort_with(&mut self, opts: &SortOptions) -> Result<Backend>
    where
        T: Element,
    {
        shared_sorter().sort(self, opts)
    }

    fn gpu_sort_by_key<K: RecordKey, F: Fn(&T) -> K + Sync + Send>(&mut self, key: F) -> Result<Backend>
    where
        T: bytemuck::Pod + Send + Sync,
    {
        shared_sorter().sort_by_key(self, key, &SortOptions::default())
    }

    fn gpu_argsort(&self) -> Result<Vec<u32>>
    where
        T: Key,
    {
        shared_sorter().argsort(self, &SortOptions::default())
    }

    fn gpu_top_k(&self, k: usize, opts: &SortOptions) -> Result<(Vec<T>, Vec<u32>)>
    where
        T: Key,
    {
        shared_sorter().top_k(self, k, opts)
    }

    fn gpu_unique_counts(&self) -> Result<(Vec<T>, Vec<u32>)>
    where
        T: Key,
    {
        shared_sorter().unique_counts(self)
    }

    fn gpu_searchsorted(&self, queries: &[T], side: Side) -> Result<Vec<u64>>
    where
        T: Key,
    {
        shared_sorter().searchsorted(self, queries, side)
    }
}
