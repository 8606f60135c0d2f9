//! `mergepath`: the stable merge-path merge sort (kernels and the stability rule are
//! described in `kernels/src/mergepath/mod.rs`).
//!
//! Launches per sort of `n` elements in tiles of `T = kernels::mergepath::tile`:
//! one block sort (every tile, or every run of `w` tiles for inputs of a wave of wide
//! blocks or more, `kernels::mergepath::sort_width`, sorted in shared memory; for
//! 4-byte keys alone on Hopper, runs of 8 tiles sorted by clusters of two blocks), then
//! for each of the `ceil(log2(n / (w T)))` global passes a merge (every block writes
//! exactly `T` outputs), preceded by a partition (one co-rank per block) unless the
//! merge runs in about one wave, when its blocks find their co-ranks themselves
//! (`kernels::mergepath::co_ranks_in_merge`). Passes ping-pong between the caller's
//! buffer and one scratch buffer; the block sort writes to whichever buffer makes the
//! last pass end in the caller's (no copy-back). Every block sort and merge also
//! writes the first and last element of each chunk of 128 elements (4-byte keys) or
//! 64 (`kernels::mergepath::sample_stride`), where the next pass's co-rank searches
//! look first. Device memory besides the input: `n` elements, twice `n / 64` or
//! `n / 32` sample elements and one `u64` per tile.
use kernels::mergepath as mp;

use super::launch::{blocks, kernel_name, one_thread_per_item};
use super::scratch::Scratch;
use crate::device::{DeviceBuffer, Gpu};
use crate::error::Result;
use crate::{Element, SortOptions, launch};

/// Sorts `buf` by the merge-path merge sort (the `mergepath` variant). Stable.
///
/// Records (`Entity`) longer than one tile are sorted as (key bits, index) pairs by
/// this sort, then gathered (`variants::records`): moving 8 bytes per element through
/// every pass instead of 20 measured 3x faster at 2^24 (docs/PERFLOG.md). A single
/// tile is sorted whole in one launch.
pub fn sort<T: Element>(gpu: &Gpu, buf: &mut DeviceBuffer<T>, opts: &SortOptions) -> Result<()> {
    if let Some(field) = super::records::record_field::<T>()
        && buf.len() as u64 > mp::tile(size_of::<T>() as u32) as u64
    {
        return super::records::sort_by_field_with(gpu, buf, field, opts.order, super::records::PairSort::Mergepath);
    }
    sort_any::<T, u32>(gpu, buf, None, opts.order)
}

/// Device bytes [`sort_pairs`] of `n` keys of `kb` bytes with values of `vb` bytes
/// needs besides its input (the scratch of [`sort_any`]).
pub(crate) fn pairs_scratch_bytes(n: usize, kb: u32, vb: u32) -> u64 {
    4 * scratch_words(n as u64, kb, vb).iter().sum::<usize>() as u64
}

/// The 32-bit words of [`sort_any`]'s scratch buffers for `n` keys of `kb` bytes with
/// values of `vb` bytes (0: keys alone): the other key buffer, two sample buffers, the
/// other value buffer (at least one word) and one `u64` co-rank per tile.
fn scratch_words(n: u64, kb: u32, vb: u32) -> [usize; 5] {
    let words = |elems: u64, bytes: u32| (elems * bytes as u64).div_ceil(4) as usize;
    let samples = words(mp::sample_slots(n, kb), kb);
    [words(n, kb), samples, samples, words(n, vb).max(1), 2 * mp::tiles(n, mp::tile_for(kb, vb)) as usize]
}

/// Sorts `keys` and moves each of `values` (4 or 8 bytes each, as many as keys) with
/// its key, stably (equal keys keep their input order): the merge-path sort of pairs.
pub fn sort_pairs<K: Element, V: Element>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: &mut DeviceBuffer<V>,
    order: crate::Order,
) -> Result<()> {
    if keys.len() != values.len() {
        return Err(crate::Error::BadArgument(format!("{} keys but {} values", keys.len(), values.len())));
    }
    if !matches!(size_of::<V>(), 4 | 8) || K::BIT_ORDER.is_none() {
        return Err(crate::Error::BadArgument(format!(
            "mergepath sorts pairs of a primitive key and a 4- or 8-byte value, not {} and {} bytes",
            K::NAME,
            size_of::<V>()
        )));
    }
    sort_any(gpu, keys, Some(values), order)
}

/// The sort of keys, with values when `values` is given: one block sort, then per pass
/// a partition and a merge (the `_kv_` kernels when values come along).
fn sort_any<T: Element, V: Element>(
    gpu: &Gpu,
    buf: &mut DeviceBuffer<T>,
    values: Option<&mut DeviceBuffer<V>>,
    order: crate::Order,
) -> Result<()> {
    let n = buf.len() as u64;
    if n <= 1 {
        return Ok(());
    }
    let (bytes, vbytes) = (size_of::<T>() as u32, size_of::<V>() as u32);
    // Value bytes per key in the kernels' shared memory (0: keys alone).
    let vb = if values.is_some() { vbytes } else { 0 };
    let tile = mp::tile_for(bytes, vb);
    let tiles = mp::tiles(n, tile);
    let desc = order.is_descending() as u32;

    let merge = match values {
        None => kernel_name::<T>("mergepath_merge"),
        Some(_) => format!("mergepath_merge_kv_{}_v{}", T::NAME, 8 * vbytes),
    };
    // The block sort: `mp::sort_width` merge tiles per block for inputs of a wave of
    // wide blocks or more, where the device's shared memory allows.
    // Widths of clusters (`mp::cluster_ctas`) need the sm_90 cubin; each block of
    // one holds `mp::block_tiles(w)` tiles.
    let fits = |w: u32| {
        (mp::cluster_ctas(w) == 1 || gpu.runs_clusters())
            && mp::tiles_smem_bytes(mp::block_tiles(w), bytes, vb) <= gpu.info().shared_mem_per_block_optin
    };
    let wide = if T::BIT_ORDER.is_some() {
        // `SORT_MERGEPATH_WIDTH` (4 or 2, for 4-byte keys alone) caps the width, to
        // measure.
        let widest = mp::sort_width(bytes, vb).min(crate::tuning::knob("SORT_MERGEPATH_WIDTH").unwrap_or(u32::MAX));
        sort_width(n, tile, (bytes, vb), widest, gpu.info().multiprocessors, fits)
    } else {
        1
    };
    let cluster = mp::cluster_ctas(wide);
    let tiles_per_block = mp::block_tiles(wide);
    let (sort_threads, sort_smem) = (mp::BLOCK * tiles_per_block, mp::tiles_smem_bytes(tiles_per_block, bytes, vb));
    let x = if wide == 1 { String::new() } else { format!("x{wide}_") };
    let block_sort = match values {
        None => format!("mergepath_block_sort_{x}{}", T::NAME),
        Some(_) => format!("mergepath_block_sort_kv_{x}{}_v{}", T::NAME, 8 * vbytes),
    };
    // The merges hold one tile and keep their block's two co-ranks after it.
    let merge_smem = mp::pass_smem_bytes(mp::tiles_smem_bytes(1, bytes, vb));
    for (name, bytes) in [(&block_sort, sort_smem), (&merge, merge_smem)] {
        gpu.set_max_dynamic_smem(name, bytes)?;
    }
    // The block sort leaves runs of `wide` tiles: the passes start at that width.
    let first_log_run = wide.trailing_zeros();
    let passes = mp::global_passes(n, tile * wide);

    let data = buf.ptr();
    let vdata = values.as_ref().map_or(0, |v| v.ptr());
    let sort_cfg = blocks(mp::tiles(n, tile * wide) * cluster as u64, sort_threads, sort_smem)?;
    if passes == 0 {
        return match values {
            None => launch!(gpu, block_sort, sort_cfg, &data, &data, &0u64, &n, &desc),
            Some(_) => launch!(gpu, block_sort, sort_cfg, &data, &vdata, &data, &vdata, &0u64, &n, &desc),
        };
    }

    // Scratch from the device's cache; out of memory fails here, before any launch.
    let scratch = Scratch::take(gpu, &scratch_words(n, bytes, vb))?;
    let [data_b, samples_a, samples_b, values_b, parts] = &scratch.bufs[..] else { unreachable!("five buffers") };
    // Small inputs: each merge block finds its own co-ranks (null `parts`); otherwise a
    // partition kernel per pass finds them first (`mp::co_ranks_in_merge`).
    let in_merge = mp::co_ranks_in_merge(tiles, gpu.info().multiprocessors, in_merge_tiles_per_sm(bytes, vb));
    let parts = if in_merge { 0 } else { parts.ptr() };
    // Lanes per co-rank by the pass's co-rank count (`mp::partition_lanes`);
    // `SORT_MERGEPATH_PARTITION_LANES` (8 or 32) overrides it, to measure.
    let lanes = match crate::tuning::knob::<u32>("SORT_MERGEPATH_PARTITION_LANES") {
        Some(l @ (8 | 32)) => l,
        _ => mp::partition_lanes(tiles, gpu.info().multiprocessors),
    };
    let partition = kernel_name::<T>(if lanes == 8 { "mergepath_partition_l8" } else { "mergepath_partition" });
    let part_cfg = one_thread_per_item(mp::partition_threads(tiles, lanes), mp::PARTITION_BLOCK, 0)?;
    // The samples of the block sort's output go to `samples[0]`; pass `p` reads
    // `samples[p & 1]` and writes `samples[(p + 1) & 1]` (none after the last pass).
    let samples = [samples_a.ptr(), samples_b.ptr()];
    // `bufs[0]` is the caller's; the block sort writes `bufs[first]`, pass `p` reads
    // `bufs[first ^ (p & 1)]`, and the last pass writes `bufs[0]`. Values alike.
    let bufs = [data, data_b.ptr()];
    let vbufs = [vdata, values_b.ptr()];
    let first = mp::block_sort_to_scratch(passes) as usize;
    match values {
        None => launch!(gpu, block_sort, sort_cfg, &data, &bufs[first], &samples[0], &n, &desc)?,
        Some(_) => {
            launch!(gpu, block_sort, sort_cfg, &data, &vdata, &bufs[first], &vbufs[first], &samples[0], &n, &desc)?
        }
    }
    let merge_cfg = blocks(tiles, mp::BLOCK, merge_smem)?;
    // L2 reuse between passes by the buffer's size (`mp::l2_reuse`); the knobs
    // `SORT_MERGEPATH_REVERSE` and `SORT_MERGEPATH_STREAM` (0 / 1) override it, to measure.
    let (rev, stream) = mp::l2_reuse(n * (bytes + vb) as u64, gpu.info().l2_bytes as u64);
    let reversed = crate::tuning::switch("SORT_MERGEPATH_REVERSE", rev);
    let streaming = crate::tuning::switch("SORT_MERGEPATH_STREAM", stream);
    for p in 0..passes {
        // Pass `p` merges runs of `tile << log_run`.
        let log_run = first_log_run + p;
        let from = first ^ (p as usize & 1);
        let (src, dst) = (bufs[from], bufs[from ^ 1]);
        let (vsrc, vdst) = (vbufs[from], vbufs[from ^ 1]);
        let s_in = samples[p as usize & 1];
        let s_out = if p + 1 < passes { samples[(p as usize + 1) & 1] } else { 0 };
        let flags = mp::pass_flags(p, reversed, streaming);
        if !in_merge {
            launch!(gpu, partition, part_cfg, &src, &s_in, &parts, &n, &tile, &log_run, &desc)?;
        }
        match values {
            None => launch!(gpu, merge, merge_cfg, &src, &dst, &s_in, &s_out, &parts, &n, &log_run, &flags, &desc)?,
            Some(_) => launch!(
                gpu, merge, merge_cfg, &src, &vsrc, &dst, &vdst, &s_in, &s_out, &parts, &n, &log_run, &flags, &desc
            )?,
        }
    }
    drop(scratch);
    Ok(())
}

/// Merge tiles per block of the block sort for `n` elements in merge tiles of `tile`
/// (keys of `kb` bytes with values of `vb`) on `sms` SMs: the widest of `widest`
/// (`mp::sort_width`) and the widths with kernels below it (`mp::narrower_sort_width`,
/// down to 1) whose tile `fits` the device's shared memory and whose blocks number at
/// least `mp::sort_width_min_quarter_waves` quarters of `sms` (below that, narrower
/// blocks spread the sort over more SMs), times `SORT_MERGEPATH_WIDE_MIN_PER_SM`
/// (default 1). `SORT_MERGEPATH_WIDE=0` keeps the 256-thread block sort everywhere.
fn sort_width(n: u64, tile: u32, (kb, vb): (u32, u32), widest: u32, sms: u32, fits: impl Fn(u32) -> bool) -> u32 {
    let on = crate::tuning::switch("SORT_MERGEPATH_WIDE", true);
    let per_sm: u64 = crate::tuning::knob("SORT_MERGEPATH_WIDE_MIN_PER_SM").unwrap_or(1);
    let mut w = if on { widest } else { 1 };
    while w > 1 {
        let quarters = mp::sort_width_min_quarter_waves(kb, vb, w) * per_sm * sms as u64;
        // Blocks of the width's kernel (one run of `w` tiles per cluster of them).
        let blocks = mp::tiles(n, tile * w) * mp::cluster_ctas(w) as u64;
        if fits(w) && 4 * blocks >= quarters {
            break;
        }
        w = mp::narrower_sort_width(kb, vb, w);
    }
    w
}

/// Largest number of tiles per SM whose merges find their own co-ranks, for keys of
/// `key_bytes` with values of `value_bytes` (0: keys alone;
/// `SORT_MERGEPATH_IN_MERGE_PER_SM` overrides it, for tuning; 0 = never).
fn in_merge_tiles_per_sm(key_bytes: u32, value_bytes: u32) -> u32 {
    crate::tuning::knob("SORT_MERGEPATH_IN_MERGE_PER_SM")
        .unwrap_or(mp::co_ranks_in_merge_per_sm(key_bytes, value_bytes))
}

/// A sorted run in device memory on the merging GPU: its address and its length in
/// elements.
#[derive(Clone, Copy, Debug)]
pub struct Run {
    pub ptr: u64,
    pub len: u64,
}

/// Merges the consecutive sorted runs of `src` (their lengths in `runs`, summing to
/// `src.len()`) into one sorted buffer, stably: among equal keys an earlier run's come
/// first. See [`merge_run_list`]; `src` is freed once the merge has read it.
pub fn merge_runs<T: Element>(
    gpu: &Gpu,
    src: DeviceBuffer<T>,
    runs: &[u64],
    order: crate::Order,
) -> Result<DeviceBuffer<T>> {
    let n = src.len() as u64;
    if runs.iter().sum::<u64>() != n {
        return Err(crate::Error::BadArgument(format!("runs of {runs:?} elements in a buffer of {n}")));
    }
    if runs.iter().filter(|&&r| r > 0).count() <= 1 {
        return Ok(src);
    }
    let list: Vec<Run> = runs
        .iter()
        .scan(0u64, |at, &len| {
            let r = Run { ptr: src.ptr_at(*at as usize), len };
            *at += len;
            Some(r)
        })
        .collect();
    merge_run_list::<T>(gpu, &list, order)
}

/// Merges sorted runs lying anywhere in `gpu`'s memory (each must stay valid until the
/// queued work has run) into one new sorted buffer, stably: among equal keys an earlier
/// run's come first. Pairs of neighbouring runs are merged by merge path (every block
/// writes one tile, whatever the run lengths) in `ceil(log2(runs))` rounds; the first
/// round reads the runs where they are (so two runs cost one pass and no copy), later
/// rounds ping-pong between the output and one more buffer. Used by the multi-GPU sort
/// for a GPU's own part and what it received.
pub fn merge_run_list<T: Element>(gpu: &Gpu, runs: &[Run], order: crate::Order) -> Result<DeviceBuffer<T>> {
    Ok(merge_lists::<T, u32>(gpu, runs, None, order)?.0)
}

/// [`merge_run_list`] of keys that carry a 4- or 8-byte value each: `values[r]` is the
/// address of run `r`'s values (as many as its keys). Returns the merged keys and
/// values.
pub fn merge_run_list_pairs<K: Element, V: Element>(
    gpu: &Gpu,
    runs: &[Run],
    values: &[u64],
    order: crate::Order,
) -> Result<(DeviceBuffer<K>, DeviceBuffer<V>)> {
    if !matches!(size_of::<V>(), 4 | 8) || values.len() != runs.len() {
        return Err(crate::Error::BadArgument(format!(
            "a key-value merge takes 4- or 8-byte values, one address per run ({} for {} runs)",
            values.len(),
            runs.len()
        )));
    }
    let (k, v) = merge_lists::<K, V>(gpu, runs, Some(values), order)?;
    Ok((k, v.expect("values were given")))
}

fn merge_lists<K: Element, V: Element>(
    gpu: &Gpu,
    runs: &[Run],
    values: Option<&[u64]>,
    order: crate::Order,
) -> Result<(DeviceBuffer<K>, Option<DeviceBuffer<V>>)> {
    // (keys, values) of each non-empty run.
    let mut runs: Vec<(Run, u64)> =
        runs.iter().enumerate().filter(|(_, r)| r.len > 0).map(|(i, r)| (*r, values.map_or(0, |v| v[i]))).collect();
    let n: u64 = runs.iter().map(|r| r.0.len).sum();
    let (kb, vb) = (size_of::<K>() as u32, size_of::<V>() as u32);
    let tile = mp::tile_for(kb, if values.is_some() { vb } else { 0 });
    let desc = order.is_descending() as u32;
    let partition = kernel_name::<K>("mergepath_pair_partition");
    let (merge, smem) = match values {
        None => (kernel_name::<K>("mergepath_pair_merge"), mp::smem_bytes(kb)),
        Some(_) => (format!("mergepath_pair_merge_kv_{}_v{}", K::NAME, 8 * vb), mp::kv_smem_bytes(kb, vb)),
    };
    gpu.set_max_dynamic_smem(&merge, smem)?;
    // Rounds alternate between buffers 0 and 1; the last round must write buffer 0
    // (the result), so an even number of rounds starts in buffer 1.
    let rounds = if runs.len() <= 1 { 1 } else { 64 - (runs.len() as u64 - 1).leading_zeros() };
    let count = if rounds > 1 { 2 } else { 1 };
    let mut kbufs = (0..count).map(|_| gpu.alloc::<K>(n as usize)).collect::<Result<Vec<_>>>()?;
    let mut vbufs = match values {
        Some(_) => (0..count).map(|_| gpu.alloc::<V>(n as usize)).collect::<Result<Vec<_>>>()?,
        None => Vec::new(),
    };
    let parts = gpu.alloc::<u64>((mp::tiles(n, tile) + runs.len() as u64) as usize)?;
    let mut to = (rounds % 2 == 0) as usize;
    for _ in 0..rounds {
        let mut at = 0u64;
        let mut next = Vec::with_capacity(runs.len().div_ceil(2));
        for pair in runs.chunks(2) {
            let out = kbufs[to].ptr_at(at as usize);
            let vout = vbufs.get(to).map_or(0, |b| b.ptr_at(at as usize));
            match *pair {
                [(a, va), (b, vb_)] => {
                    let t = mp::tiles(a.len + b.len, tile);
                    let p = parts.ptr();
                    let (a_len, b_len) = (a.len, b.len);
                    let part_cfg = one_thread_per_item(
                        mp::partition_threads(t, mp::PAIR_PARTITION_LANES),
                        mp::PARTITION_BLOCK,
                        0,
                    )?;
                    launch!(gpu, partition, part_cfg, &a.ptr, &b.ptr, &p, &a_len, &b_len, &tile, &desc)?;
                    let cfg = blocks(t, mp::BLOCK, smem)?;
                    if values.is_some() {
                        launch!(gpu, merge, cfg, &a.ptr, &b.ptr, &va, &vb_, &out, &vout, &p, &a_len, &b_len, &desc)?;
                    } else {
                        launch!(gpu, merge, cfg, &a.ptr, &b.ptr, &out, &p, &a_len, &b_len, &desc)?;
                    }
                }
                [(a, va)] => {
                    gpu.copy_raw(out, a.ptr, a.len * kb as u64)?;
                    if values.is_some() {
                        gpu.copy_raw(vout, va, a.len * vb as u64)?;
                    }
                }
                _ => unreachable!("chunks of two"),
            }
            let len = pair.iter().map(|r| r.0.len).sum::<u64>();
            next.push((Run { ptr: out, len }, vout));
            at += len;
        }
        runs = next;
        to ^= 1;
    }
    debug_assert_eq!(to, 1, "the last round wrote buffer 0");
    let keys = kbufs.swap_remove(0);
    let vals = if vbufs.is_empty() { None } else { Some(vbufs.swap_remove(0)) };
    Ok((keys, vals))
}

#[cfg(test)]
mod tests {
    use kernels::mergepath as mp;

    /// Every width `mp::sort_width` picks above 1 has its kernel in the embedded PTX,
    /// launch-bounded at that many threads, and its tile fits Hopper's shared memory.
    #[test]
    fn every_wide_block_sort_exists_and_fits() {
        let entries = xtask::ptx::entry_points(crate::device::PTX);
        let mut wide = 0;
        for (key, kb) in [("u32", 4), ("i32", 4), ("f32", 4), ("u64", 8), ("i64", 8), ("f64", 8)] {
            for vb in [0u32, 4, 8] {
                let mut w = mp::sort_width(kb, vb);
                while w > 1 {
                    assert!(w.is_power_of_two(), "{key} v{vb}: width {w}");
                    wide += 1;
                    let name = match vb {
                        0 => format!("mergepath_block_sort_x{w}_{key}"),
                        _ => format!("mergepath_block_sort_kv_x{w}_{key}_v{}", 8 * vb),
                    };
                    assert!(entries.contains(&name), "{name} is not an entry of the PTX");
                    // Widths above 4 are clusters of blocks of 4 tiles.
                    let cluster = mp::cluster_ctas(w);
                    assert_eq!(crate::device::kernel_cluster_ctas(&name), cluster, "{name}: cluster");
                    let bound = kernels::LAUNCH_BOUNDS.iter().find(|b| b.0 == name);
                    assert_eq!(bound.map(|b| b.1), Some(mp::BLOCK * mp::block_tiles(w)), "{name}: launch bounds");
                    let smem = mp::tiles_smem_bytes(mp::block_tiles(w), kb, vb);
                    assert!(smem <= mp::SMEM_OPTIN_SM90, "{name}: shared memory");
                    let next = mp::narrower_sort_width(kb, vb, w);
                    assert!(next < w, "{key} v{vb}: width {w} narrows to {next}");
                    w = next;
                }
            }
        }
        // 4-byte keys alone (widths 8, 4 and 2), 8-byte keys alone, u32-class keys +
        // u32, 8-byte keys + both.
        assert_eq!(wide, 9 + 3 + 3 + 6, "the wide kernels the measurements chose");
        assert_eq!(mp::sort_width(4, 8), 1, "a 4-byte-key tile with 8-byte values does not fit at width 4");
        assert_eq!(mp::sort_width(20, 0), 1, "records keep the 256-thread block sort");
    }
}
