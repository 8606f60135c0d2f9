//! What a file sort reports while it works: messages, and the progress of its phases
//! in bytes, for a progress bar or log lines (the CLI's `host sort` draws them).
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The steps of a file sort, in order; some are skipped (a sort that fits memory has
/// no merge, a merge writes as it goes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Reading the input (and sorting the chunks read so far, when there are several).
    Read,
    /// Sorting what was read last.
    Sort,
    /// Merging sorted chunks into the output.
    Merge,
    /// Writing the output.
    Write,
}

impl Phase {
    /// The name the progress bar shows (`"read"`, `"sort"`, `"merge"`, `"write"`).
    pub fn name(self) -> &'static str {
        match self {
            Phase::Read => "read",
            Phase::Sort => "sort",
            Phase::Merge => "merge",
            Phase::Write => "write",
        }
    }
}

impl std::fmt::Display for Phase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Receives a file sort's progress, on the thread that called the sort. Only
/// `message` is required: any `FnMut(&str)` is a `Progress` that prints messages.
pub trait Progress {
    /// A line describing what the sort is doing.
    fn message(&mut self, msg: &str);
    /// A phase starts; `total` is its work in bytes where known.
    fn phase(&mut self, _phase: Phase, _total: Option<u64>) {}
    /// Bytes of the current phase done so far.
    fn position(&mut self, _done: u64) {}
}

impl<F: FnMut(&str)> Progress for F {
    fn message(&mut self, msg: &str) {
        self(msg)
    }
}

/// A byte count shared between a worker thread and the thread reporting progress.
#[derive(Clone, Default)]
pub struct Counter(Arc<AtomicU64>);

impl Counter {
    pub fn add(&self, bytes: u64) {
        self.0.fetch_add(bytes, Ordering::Relaxed);
    }

    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}
