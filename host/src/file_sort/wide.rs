//! Files of wide keys (`u128`, `i128`, `bytesN`; [`WideKey`]): binary records of the
//! key's width, sorted, generated and checked in memory.
//!
//! The chunked sorts, run files and text formats of the primitive types are built on
//! [`Element`](crate::Element)s; a wide key is sorted whole by
//! [`Sorter::sort_wide`], so a file of them must fit the host memory budget (the keys
//! and the sort's copy). A larger input fails with [`Error::TooLarge`] before anything
//! is written, and the output is replaced only once the sort is done
//! ([`AtomicFile`](crate::file_sort::AtomicFile)), like every file sort.
use std::time::Instant;

use super::source::{Input, Output, read_all_bytes};
use super::{FileSortOptions, FileSortReport, Format, GenOptions, Phase, Progress, budget};
use crate::error::{Error, Result};
use crate::{Distribution, Order, Sorter, WideKey};

/// Copies of the keys a sort in memory holds at once: the bytes read, the keys (an
/// aligned copy) and the sort's scratch.
const COPIES: u64 = 3;

fn binary_only<K: WideKey>(format: Format) -> Result<()> {
    match format {
        Format::Binary => Ok(()),
        _ => Err(Error::Unsupported {
            option: "text files",
            by: format!("a sort of {} keys", K::NAME),
            hint: "wide keys are read and written as binary records of the key's width (--format binary)",
        }),
    }
}

/// The keys in `bytes` (a whole number of them, or [`Error::BadInput`]).
fn keys_of<K: WideKey>(bytes: &[u8], name: &str) -> Result<Vec<K>> {
    let size = size_of::<K>();
    if !bytes.len().is_multiple_of(size) {
        return Err(Error::BadInput(format!(
            "{name} is {} bytes, not a multiple of {size} (the size of one {} key): not a binary file of them",
            bytes.len(),
            K::NAME
        )));
    }
    Ok(bytemuck::pod_collect_to_vec(bytes))
}

/// Reads all of `input` as `K` keys within `memory` bytes of budget.
fn read_keys<K: WideKey>(input: &Input, memory: u64) -> Result<Vec<K>> {
    let bytes = read_all_bytes(input, memory / COPIES)?;
    keys_of(&bytes, &input.to_string())
}

/// [`super::sort_stream`] for a wide key type.
pub(super) fn sort<K: WideKey>(
    sorter: &Sorter,
    input: &Input,
    output: &Output,
    opts: &FileSortOptions,
    progress: &mut dyn Progress,
) -> Result<FileSortReport> {
    let start = Instant::now();
    binary_only::<K>(opts.format)?;
    let memory = budget::host_memory(opts.memory)?;
    // Fail on an unwritable output before reading.
    let mut out = output.create()?;
    progress.message(&format!("reading {input} as {} keys, sorted in memory on {}", K::NAME, sorter.backend()));
    progress.phase(Phase::Read, None);
    let mut keys: Vec<K> = read_keys(input, memory)?;
    let read_s = start.elapsed().as_secs_f64();
    progress.phase(Phase::Sort, Some(size_of_val(keys.as_slice()) as u64));
    let t = Instant::now();
    let backend = sorter.sort_wide(&mut keys, &opts.sort)?;
    let sort_s = t.elapsed().as_secs_f64();
    let bytes: &[u8] = bytemuck::cast_slice(&keys);
    progress.phase(Phase::Write, Some(bytes.len() as u64));
    let t = Instant::now();
    out.write_all(bytes)?;
    out.commit_with(opts.fsync)?;
    progress.position(bytes.len() as u64);
    Ok(FileSortReport {
        elements: keys.len(),
        chunks: 1,
        backend,
        pipelined: false,
        read_s,
        upload_s: 0.0,
        sort_s,
        download_s: 0.0,
        merge_s: 0.0,
        write_s: t.elapsed().as_secs_f64(),
        total_s: start.elapsed().as_secs_f64(),
        spilled_runs: 0,
        temp_bytes: 0,
    })
}

/// [`super::generate_to`] for a wide key type: the random shapes in bounded pieces,
/// the sorted ones (a sort of the uniform keys) in memory.
pub(super) fn generate<K: WideKey>(
    output: &Output,
    format: Format,
    n: usize,
    dist: Distribution,
    seed: u64,
    opts: &GenOptions,
    progress: &mut dyn Progress,
) -> Result<()> {
    binary_only::<K>(format)?;
    let memory = budget::host_memory(opts.memory)?;
    let size = size_of::<K>() as u64;
    let total = (n as u64).checked_mul(size);
    let mut out = output.create()?;
    if let Some(dir) = out.directory() {
        budget::ensure_disk_room(dir, total, &format!("{n} {} keys", K::NAME))?;
    }
    let total = total.unwrap_or(u64::MAX);
    progress.phase(Phase::Write, Some(total));
    if matches!(dist, Distribution::Sorted | Distribution::Reverse | Distribution::OrganPipe) {
        if total.saturating_mul(2) > memory {
            return Err(budget::too_large(&format!("{n} {dist} {} keys", K::NAME), total, memory, None));
        }
        let keys: Vec<K> = crate::inputs::generate_wide(n, dist, seed);
        out.write_all(bytemuck::cast_slice(&keys))?;
    } else {
        let piece = ((64 << 20) / size).min(memory / 4 / size).max(1) as usize;
        let mut at = 0;
        while at < n {
            let end = (at + piece).min(n);
            let keys: Vec<K> = crate::inputs::generate_wide_range(at..end, dist, seed);
            out.write_all(bytemuck::cast_slice(&keys))?;
            at = end;
            progress.position(at as u64 * size);
        }
    }
    out.commit()
}

/// [`super::check_files`] for a wide key type: `output` holds `input`'s keys in
/// `order` (both read into memory).
pub(super) fn check<K: WideKey>(
    input: &Input,
    output: &Input,
    format: Format,
    order: Order,
) -> Result<super::CheckReport> {
    binary_only::<K>(format)?;
    let memory = budget::default_memory_budget();
    let (a, b) = rayon::join(|| read_keys::<K>(input, memory / 2), || read_keys::<K>(output, memory / 2));
    let (mut a, b) = (a?, b?);
    let out_of_order = |x: &K, y: &K| if order.is_descending() { x < y } else { x > y };
    if let Some(i) = b.windows(2).position(|w| out_of_order(&w[0], &w[1])) {
        return Err(Error::BadInput(format!(
            "{output} is not ordered ({order}): elements {i} and {} are out of order",
            i + 1
        )));
    }
    {
        use rayon::prelude::*;
        a.par_sort_unstable();
    }
    let same =
        a.len() == b.len() && if order.is_descending() { a.iter().eq(b.iter().rev()) } else { a.iter().eq(b.iter()) };
    if !same {
        return Err(Error::BadInput(format!(
            "{output} does not hold the same elements as {input} ({} vs {} {} keys)",
            b.len(),
            a.len(),
            K::NAME
        )));
    }
    Ok(super::CheckReport { fingerprint: crate::verify::Fingerprint::of(&b), order })
}
