//! The CPU backend and the reference every GPU result is checked against.
//!
//! - [`reference_sort`]: std's stable sort, kept independent of everything below so
//!   that verification never trusts the code it checks.
//! - [`recursive_merge_sort`], [`bottom_up_merge_sort`]: the sequential baselines of
//!   the Pisa report.
//! - [`parallel_merge_sort`]: the parallel merge sort with a chosen thread count;
//!   [`sort`] (the fallback of `Sorter`) runs it with every available thread.
mod merge;
mod parallel;
mod sequential;

pub use parallel::{parallel_merge_sort, sub_array_start};
pub use sequential::{bottom_up_merge_sort, recursive_merge_sort};

use crate::{Element, Order};

/// Below this many elements per thread, spawning a thread costs more than it saves.
const MIN_PER_THREAD: usize = 1 << 15;

/// The reference: std's stable sort on the order bits. Equal keys keep their input
/// order, so for stable variants the GPU result must equal this exactly.
pub fn reference_sort<T: Element>(data: &mut [T], order: Order) {
    let desc = order.is_descending();
    data.sort_by_key(|x| x.ord_bits(desc));
}

/// Threads of this machine that the CPU backend may use.
pub fn available_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |c| c.get())
}

/// Threads [`sort`] uses for `n` elements: all available ones, but none with less
/// than `MIN_PER_THREAD` elements to sort.
pub fn default_threads(n: usize) -> usize {
    available_threads().min(n.div_ceil(MIN_PER_THREAD)).max(1)
}

/// The CPU backend's sort: stable parallel merge sort on [`default_threads`] threads.
pub fn sort<T: Element>(data: &mut [T], order: Order) {
    parallel_merge_sort(data, order, default_threads(data.len())).expect("default_threads is never 0");
}
