//! The external half of the file sort: sorted runs written to temporary files, and
//! their merge with bounded buffers, like GNU sort.
//!
//! Run files are anonymous (`O_TMPFILE`, or unlinked as soon as created where the
//! file system cannot), so they disappear with the process however it ends, even by
//! `SIGKILL`. They hold raw elements whatever the input format (text is parsed once).
//!
//! The merge reads every run through a buffer of its own and works in rounds. A
//! round may emit everything up to the *bound*: the least (key, run index) among the
//! last buffered elements of the runs that still have unread data. Nothing unread
//! sorts before it, so merging the buffered elements up to it (in parallel,
//! [`merge::merge_runs_ordered`]) is exact, and ties still go to the earlier run. The
//! run that set the bound empties its buffer, so every round makes progress. More
//! runs than the buffers allow are first merged in groups of consecutive runs (which
//! keeps the merge stable) into fewer, longer runs.
use std::fs::File;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::budget;
use super::merge;
use crate::Element;
use crate::error::{Error, Result};

/// The smallest read buffer of a run in the merge; the budget divided by this (and
/// by two: buffers and merged parts) is the most runs merged at once.
const MIN_RUN_BUFFER: u64 = 1 << 20;

/// Bytes each thread reads at a time from a run file.
const READ_SLICE: usize = 4 << 20;

/// A sorted run in a temporary file.
pub struct RunFile {
    file: File,
    len: usize,
}

impl RunFile {
    /// Elements in the run.
    pub fn len(&self) -> usize {
        self.len
    }
}

/// Where runs go, and how much space they may take there.
pub struct Spill {
    dir: PathBuf,
    /// Temporary space the runs may take (`None`: worked out at the first run).
    space: Option<u64>,
    /// What is left of it when no space was given.
    halve: bool,
    /// Bytes in run files now, and at most at any time.
    used: u64,
    peak: u64,
}

impl Spill {
    /// Runs in `dir`, at most `space` bytes of them at a time; by default the free
    /// space less a reserve ([`budget::default_temp_space`]), halved when `halve` (the
    /// output is written to the same file system while the runs are still there).
    pub fn new(dir: PathBuf, space: Option<u64>, halve: bool) -> Spill {
        Spill { dir, space, halve, used: 0, peak: 0 }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Bytes the run files took at most at any one time.
    pub fn peak_bytes(&self) -> u64 {
        self.peak
    }

    /// The temporary space the runs may take.
    pub fn space(&mut self) -> Result<u64> {
        if let Some(s) = self.space {
            return Ok(s);
        }
        let s = budget::default_temp_space(&self.dir)? / if self.halve { 2 } else { 1 };
        self.space = Some(s);
        Ok(s)
    }

    /// Whether `bytes` more fit the temporary space.
    fn fits(&mut self, bytes: u64) -> Result<bool> {
        Ok(self.used.saturating_add(bytes) <= self.space()?)
    }

    /// A new, empty run file.
    fn create(&mut self) -> Result<RunWriter> {
        let file = tempfile::tempfile_in(&self.dir).map_err(|source| Error::Io {
            context: format!("cannot create a temporary file in {}", self.dir.display()),
            source,
        })?;
        Ok(RunWriter { file, len: 0 })
    }

    /// Writes `run` to a new run file, or fails with `too_large()` when it would pass
    /// the temporary space.
    pub fn write<T: Element>(&mut self, run: &[T], too_large: impl FnOnce(u64) -> Error) -> Result<RunFile> {
        let bytes = size_of_val(run) as u64;
        if !self.fits(bytes)? {
            return Err(too_large(self.space()?));
        }
        let mut w = self.create()?;
        w.append(run, self)?;
        Ok(w.finish())
    }

    fn account(&mut self, bytes: u64) {
        self.used += bytes;
        self.peak = self.peak.max(self.used);
    }

    /// Gives back the space of a run file that was merged.
    fn release(&mut self, run: RunFile, elem: usize) {
        self.used = self.used.saturating_sub((run.len * elem) as u64);
    }
}

/// A run file being written.
struct RunWriter {
    file: File,
    len: usize,
}

impl RunWriter {
    fn append<T: Element>(&mut self, part: &[T], spill: &mut Spill) -> Result<()> {
        self.file.write_all(bytemuck::cast_slice(part)).map_err(|source| Error::Io {
            context: format!("writing a temporary file in {}", spill.dir.display()),
            source,
        })?;
        self.len += part.len();
        spill.account(size_of_val(part) as u64);
        Ok(())
    }

    fn finish(self) -> RunFile {
        RunFile { file: self.file, len: self.len }
    }
}

/// A run being merged: its file and the buffered elements not yet emitted.
struct Cursor<T> {
    run: RunFile,
    /// Elements read from the file so far.
    read: usize,
    buf: Vec<T>,
    /// First element of `buf` not yet emitted.
    pos: usize,
}

impl<T: Element> Cursor<T> {
    fn buffered(&self) -> &[T] {
        &self.buf[self.pos..]
    }

    fn file_done(&self) -> bool {
        self.read == self.run.len
    }

    /// Moves what is left to the front and reads up to `cap` elements in all.
    fn refill(&mut self, cap: usize) -> Result<()> {
        self.buf.drain(..self.pos);
        self.pos = 0;
        let have = self.buf.len();
        let take = cap.saturating_sub(have).min(self.run.len - self.read);
        if take == 0 {
            return Ok(());
        }
        self.buf.try_reserve_exact(take).map_err(|_| Error::HostOutOfMemory {
            needed: ((have + take) * size_of::<T>()) as u64,
            available: budget::memory_room().0,
        })?;
        self.buf.resize(have + take, T::zeroed());
        let at = (self.read * size_of::<T>()) as u64;
        let file = &self.run.file;
        bytemuck::cast_slice_mut::<T, u8>(&mut self.buf[have..])
            .par_chunks_mut(READ_SLICE)
            .enumerate()
            .try_for_each(|(i, piece)| file.read_exact_at(piece, at + (i * READ_SLICE) as u64))
            .map_err(|source| Error::Io { context: "reading a temporary file".into(), source })?;
        self.read += take;
        Ok(())
    }
}

/// Merges the sorted `runs` (in input order) into `sink`, stably, with about
/// `memory` bytes of buffers; `merged(bytes)` is told the output bytes done so far.
pub fn merge_files<T: Element>(
    runs: Vec<RunFile>,
    descending: bool,
    memory: u64,
    spill: &mut Spill,
    sink: &mut dyn FnMut(&[T]) -> Result<()>,
    merged: &mut dyn FnMut(u64),
) -> Result<()> {
    let fan_in = ((memory / 2 / MIN_RUN_BUFFER) as usize).max(2);
    let mut runs = runs;
    while runs.len() > fan_in {
        // One pass: consecutive groups into one run each.
        let mut next = Vec::with_capacity(runs.len().div_ceil(fan_in));
        let mut it = runs.into_iter().peekable();
        while it.peek().is_some() {
            let group: Vec<RunFile> = it.by_ref().take(fan_in).collect();
            let bytes: u64 = group.iter().map(|r| (r.len * size_of::<T>()) as u64).sum();
            if !spill.fits(bytes)? {
                return Err(Error::TooLarge(format!(
                    "merging the sorted runs needs {} more of temporary space in {} than --max-temp-bytes leaves; \
                     give the sort more memory (--memory) or space",
                    crate::Bytes(bytes),
                    spill.dir.display()
                )));
            }
            let mut w = spill.create()?;
            merge_group(group, descending, memory, spill, &mut |part: &[T], spill: &mut Spill| w.append(part, spill))?;
            next.push(w.finish());
        }
        runs = next;
    }
    let mut done = 0u64;
    merge_group(runs, descending, memory, spill, &mut |part: &[T], _: &mut Spill| {
        sink(part)?;
        done += size_of_val(part) as u64;
        merged(done);
        Ok(())
    })
}

/// One merge of `runs` (few enough for their buffers to fit `memory`) into `sink`;
/// their files are given back to `spill` as they are finished.
fn merge_group<T: Element>(
    runs: Vec<RunFile>,
    descending: bool,
    memory: u64,
    spill: &mut Spill,
    sink: &mut dyn FnMut(&[T], &mut Spill) -> Result<()>,
) -> Result<()> {
    let k = runs.len().max(1);
    // Half the memory for the buffers, half for the merged parts.
    let per_run = ((memory / 2 / k as u64) / size_of::<T>() as u64).max(1) as usize;
    let part_bytes = ((memory / 2) as usize / rayon::current_num_threads().max(1) / 2).max(size_of::<T>());
    let mut cursors: Vec<Cursor<T>> =
        runs.into_iter().map(|run| Cursor { run, read: 0, buf: Vec::new(), pos: 0 }).collect();
    loop {
        for c in &mut cursors {
            if !c.file_done() && c.buffered().len() < per_run.div_ceil(2) {
                c.refill(per_run)?;
            }
        }
        if cursors.iter().all(|c| c.buffered().is_empty() && c.file_done()) {
            break;
        }
        // The bound: the least (last buffered key, run) among runs with unread data.
        let bound = cursors
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.file_done())
            .filter_map(|(i, c)| c.buffered().last().map(|x| (x.ord_bits(descending), i)))
            .min();
        let pieces: Vec<&[T]> = cursors
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let b = c.buffered();
                match bound {
                    None => b,
                    Some(bound) => &b[..b.partition_point(|x| (x.ord_bits(descending), i) <= bound)],
                }
            })
            .collect();
        let taken: Vec<usize> = pieces.iter().map(|p| p.len()).collect();
        merge::merge_runs_ordered(&pieces, descending, part_bytes, |part| sink(part, spill))?;
        for (c, t) in cursors.iter_mut().zip(taken) {
            c.pos += t;
        }
        // Finished runs give their space back (a later merge pass may need it).
        let (done, left): (Vec<_>, Vec<_>) =
            cursors.into_iter().partition(|c| c.file_done() && c.buffered().is_empty());
        for c in done {
            spill.release(c.run, size_of::<T>());
        }
        cursors = left;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inputs::generate;
    use crate::{Distribution, Entity, Order, cpu};

    fn spill() -> Spill {
        Spill::new(std::env::temp_dir(), Some(1 << 30), false)
    }

    /// Runs of `input` cut at `run_len`, spilled and merged with `memory` bytes of
    /// buffers: the stable sort, whatever the number of passes.
    fn check(input: &[Entity], run_len: usize, memory: u64, desc: bool) {
        let order = if desc { Order::Descending } else { Order::Ascending };
        let mut s = spill();
        let runs: Vec<RunFile> = input
            .chunks(run_len)
            .map(|c| {
                let mut c = c.to_vec();
                cpu::reference_sort(&mut c, order);
                s.write(&c, |_| unreachable!("space enough")).unwrap()
            })
            .collect();
        let mut out = Vec::new();
        let mut last = 0;
        let mut sink = |p: &[Entity]| {
            out.extend_from_slice(p);
            Ok(())
        };
        merge_files(runs, desc, memory, &mut s, &mut sink, &mut |d| last = d).unwrap();
        let mut expect = input.to_vec();
        cpu::reference_sort(&mut expect, order);
        assert!(out == expect, "n={} run_len={run_len} memory={memory} desc={desc}", input.len());
        assert_eq!(last, size_of_val(input) as u64);
        assert_eq!(s.used, 0, "every run's space given back");
    }

    #[test]
    fn spilled_runs_merge_stably_in_one_or_more_passes() {
        for dist in [Distribution::Uniform, Distribution::FewUnique, Distribution::Equal, Distribution::Sorted] {
            let input: Vec<Entity> = generate(100_003, dist, 3);
            // One pass with roomy buffers; small buffers (many rounds); 2 runs at a time
            // (several passes: 12 runs, fan-in 2).
            check(&input, 10_000, 64 << 20, false);
            check(&input, 10_000, 64 << 20, true);
            check(&input, 9_999, 4 << 20, false);
            check(&input, 9_000, 4096, true);
        }
        check(&[], 5, 1 << 20, false);
    }

    #[test]
    fn runs_past_the_temporary_space_are_refused() {
        let mut s = Spill::new(std::env::temp_dir(), Some(100), false);
        let a = s.write(&[1u32; 20], |_| unreachable!()).unwrap();
        assert_eq!((a.len(), s.used), (20, 80));
        let e = s.write(&[1u32; 6], |space| Error::TooLarge(format!("space {space}"))).err().unwrap();
        assert_eq!(e.to_string(), "space 100");
    }
}
