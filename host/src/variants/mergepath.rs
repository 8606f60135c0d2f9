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
use kernels::mergepath::{
    self as mp, BlockSort, BlockSortKv, Merge, MergeKv, MergepathKernels, MergepathKvKernels, PairMerge, PairMergeKv,
    PairPartition, Partition,
};
use kernels::params::{DevPtr, Direction, Kernel};

use super::launch::{blocks, one_thread_per_item, require_entry};
use super::scratch::Scratch;
use crate::device::{DeviceBuffer, Gpu};
use crate::element::{Element, Key};
use crate::error::{Error, Result};
use crate::options::{Order, SortOptions};
use crate::tuning::Tuning;

/// Sorts `buf` by the merge-path merge sort, moving the elements whole through every
/// pass (records too). Stable. The `mergepath` variant sends the records that
/// `sorts_by_key` names to the record path instead.
pub fn sort<T: Element>(gpu: &Gpu, buf: &mut DeviceBuffer<T>, opts: &SortOptions) -> Result<()> {
    if crate::element::is_narrow::<T>() {
        // 16- and 8-bit keys: their wide words sorted ([`super::widen`]).
        return super::widen::with_wide(gpu, buf, |wide| sort_any::<u32, u32>(gpu, wide, None, opts.order));
    }
    sort_any::<T, u32>(gpu, buf, None, opts.order)
}

/// Whether the `mergepath` variant sorts `n` elements of `T` as (key bits, index) pairs
/// by this sort and then gathers them (`variants/records.rs`): records (`Entity`)
/// longer than one tile. Moving 8 bytes per element through every pass instead of 20
/// measured 3x faster at 2^24 (H100, 2026-11-23; docs/history.md, mergepath: "Sentinels, whole-tile bodies, co-ranks in the merge"). A single tile is sorted whole in one
/// launch.
pub(crate) fn sorts_by_key<T: Element>(n: usize) -> bool {
    T::RECORD_KEY.is_some() && n as u64 > mp::tile(size_of::<T>() as u32) as u64
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
pub fn sort_pairs<K: Key, V: Element>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: &mut DeviceBuffer<V>,
    order: Order,
) -> Result<()> {
    if keys.len() != values.len() {
        return Err(Error::LengthMismatch { keys: keys.len(), values: values.len() });
    }
    if crate::element::is_narrow::<K>() {
        // 16- and 8-bit keys: their wide words sorted with the values ([`super::widen`]).
        return super::widen::with_wide(gpu, keys, |wide| sort_pairs::<u32, V>(gpu, wide, values, order));
    }
    let unsupported = || {
        Error::BadArgument(format!(
            "mergepath sorts pairs of a key and a 4- or 8-byte value, not {} and {} bytes",
            K::NAME,
            size_of::<V>()
        ))
    };
    // The kernels move values as words of their size.
    let v = values.dev_ptr();
    match size_of::<V>() {
        4 => sort_any::<K, u32>(gpu, keys, Some(v.cast()), order),
        8 => sort_any::<K, u64>(gpu, keys, Some(v.cast()), order),
        _ => Err(unsupported()),
    }
}

/// The block sort and merge kernels of one sort: of keys alone, or of keys that carry
/// one value word `W` each.
enum Passes<T, W> {
    Keys { block_sort: Kernel<BlockSort<T>>, merge: Kernel<Merge<T>> },
    Pairs { block_sort: Kernel<BlockSortKv<T, W>>, merge: Kernel<MergeKv<T, W>> },
}

impl<T: Element + MergepathKvKernels<W>, W: Copy + 'static> Passes<T, W> {
    /// The kernels with block-sort width `w`, with values or without.
    fn new(with_values: bool, w: u32) -> Result<Passes<T, W>> {
        Ok(if with_values {
            Passes::Pairs {
                block_sort: require_entry::<T, _>(
                    mp::block_sort_kv_kernel::<T, W>(w),
                    "mergepath key-value block sort",
                )?,
                merge: require_entry::<T, _>(<T as MergepathKvKernels<W>>::MERGE_KV, "mergepath key-value merge")?,
            }
        } else {
            Passes::Keys {
                block_sort: require_entry::<T, _>(mp::block_sort_kernel::<T>(w), "mergepath block sort")?,
                merge: <T as MergepathKernels>::MERGE,
            }
        })
    }

    /// The entries' names: the block sort's, the merge's.
    fn names(&self) -> [&'static str; 2] {
        match self {
            Passes::Keys { block_sort, merge } => [block_sort.name(), merge.name()],
            Passes::Pairs { block_sort, merge } => [block_sort.name(), merge.name()],
        }
    }

    /// Launches the block sort of `keys`, the values (if any) moving from `vsrc` to
    /// `vdst`.
    fn block_sort(
        &self,
        gpu: &Gpu,
        cfg: cudarc::driver::LaunchConfig,
        keys: BlockSort<T>,
        vsrc: DevPtr<W>,
        vdst: DevPtr<W>,
    ) -> Result<()> {
        match *self {
            Passes::Keys { block_sort, .. } => gpu.launch(block_sort, cfg, &keys),
            Passes::Pairs { block_sort, .. } => {
                let BlockSort { src, dst, samples, n, direction } = keys;
                gpu.launch(block_sort, cfg, &BlockSortKv { src, vsrc, dst, vdst, samples, n, direction })
            }
        }
    }

    /// Launches the merge of `keys`, the values (if any) moving from `vsrc` to `vdst`.
    fn merge(
        &self,
        gpu: &Gpu,
        cfg: cudarc::driver::LaunchConfig,
        keys: Merge<T>,
        vsrc: DevPtr<W>,
        vdst: DevPtr<W>,
    ) -> Result<()> {
        match *self {
            Passes::Keys { merge, .. } => gpu.launch(merge, cfg, &keys),
            Passes::Pairs { merge, .. } => {
                let Merge { src, dst, samples_in, samples, parts, n, log_run, flags, direction } = keys;
                let kv = MergeKv { src, vsrc, dst, vdst, samples_in, samples, parts, n, log_run, flags, direction };
                gpu.launch(merge, cfg, &kv)
            }
        }
    }
}

/// The sort of keys, with their values (words `W`) when `values` is given: one block
/// sort, then per pass a partition and a merge (the `_kv_` kernels when values come
/// along).
fn sort_any<T: Element + MergepathKvKernels<W>, W: Copy + 'static>(
    gpu: &Gpu,
    buf: &mut DeviceBuffer<T>,
    values: Option<DevPtr<W>>,
    order: Order,
) -> Result<()> {
    let n = buf.len() as u64;
    if n <= 1 {
        return Ok(());
    }
    let bytes = size_of::<T>() as u32;
    // Value bytes per key in the kernels' shared memory (0: keys alone).
    let vb = if values.is_some() { size_of::<W>() as u32 } else { 0 };
    let tile = mp::tile_for(bytes, vb);
    let tiles = mp::tiles(n, tile);
    let direction: Direction = order.into();

    // The block sort: `mp::sort_width` merge tiles per block for inputs of a wave of
    // wide blocks or more, where the device's shared memory allows.
    // Widths of clusters (`mp::cluster_ctas`) need the sm_90 cubin; each block of
    // one holds `mp::block_tiles(w)` tiles.
    let fits = |w: u32| {
        (mp::cluster_ctas(w) == 1 || gpu.runs_clusters())
            && mp::tiles_smem_bytes(mp::block_tiles(w), bytes, vb) <= gpu.info().shared_mem_per_block_optin
    };
    let wide = if T::BIT_ORDER.is_some() {
        // `Tuning::mergepath_width` (4 or 2, for 4-byte keys alone) caps the width, to
        // measure: the widest supported width within the cap (1 for a cap of 0).
        let cap = gpu.tuning().mergepath_width.unwrap_or(u32::MAX);
        let mut widest = mp::sort_width(bytes, vb);
        while widest > 1 && widest > cap {
            widest = mp::narrower_sort_width(bytes, vb, widest);
        }
        sort_width(gpu.tuning(), n, tile, (bytes, vb), widest, gpu.info().multiprocessors, fits)
    } else {
        1
    };
    let cluster = mp::cluster_ctas(wide);
    let tiles_per_block = mp::block_tiles(wide);
    let (sort_threads, sort_smem) = (mp::BLOCK * tiles_per_block, mp::tiles_smem_bytes(tiles_per_block, bytes, vb));
    let kernels = Passes::<T, W>::new(values.is_some(), wide)?;
    // The merges hold one tile and keep their block's two co-ranks after it.
    let merge_smem = mp::pass_smem_bytes(mp::tiles_smem_bytes(1, bytes, vb));
    for (name, bytes) in kernels.names().into_iter().zip([sort_smem, merge_smem]) {
        gpu.set_max_dynamic_smem(name, bytes)?;
    }
    // The block sort leaves runs of `wide` tiles: the passes start at that width.
    let first_log_run = wide.trailing_zeros();
    let passes = mp::global_passes(n, tile * wide);

    let data = buf.dev_ptr();
    let vdata = values.unwrap_or(DevPtr::NULL);
    let sort_cfg = blocks(mp::tiles(n, tile * wide) * cluster as u64, sort_threads, sort_smem)?;
    if passes == 0 {
        let keys = BlockSort { src: data, dst: data, samples: DevPtr::NULL, n, direction };
        return kernels.block_sort(gpu, sort_cfg, keys, vdata, vdata);
    }

    // Scratch from the device's cache; out of memory fails here, before any launch.
    let scratch = Scratch::take(gpu, &scratch_words(n, bytes, vb))?;
    let [data_b, samples_a, samples_b, values_b, parts] = &scratch.bufs[..] else { unreachable!("five buffers") };
    // Small inputs: each merge block finds its own co-ranks (null `parts`); otherwise a
    // partition kernel per pass finds them first (`mp::co_ranks_in_merge`).
    let in_merge =
        mp::co_ranks_in_merge(tiles, gpu.info().multiprocessors, in_merge_tiles_per_sm(gpu.tuning(), bytes, vb));
    let parts = if in_merge { DevPtr::NULL } else { parts.dev_ptr().cast::<u64>() };
    // Lanes per co-rank by the pass's co-rank count (`mp::partition_lanes`);
    // `Tuning::mergepath_partition_lanes` (8 or 32) overrides it, to measure.
    let lanes = match gpu.tuning().mergepath_partition_lanes {
        Some(l @ (8 | 32)) => l,
        _ => mp::partition_lanes(tiles, gpu.info().multiprocessors),
    };
    let partition = require_entry::<T, _>(mp::partition_kernel::<T>(lanes), "mergepath partition")?;
    let part_cfg = one_thread_per_item(mp::partition_threads(tiles, lanes), mp::PARTITION_BLOCK, 0)?;
    // The samples of the block sort's output go to `samples[0]`; pass `p` reads
    // `samples[p & 1]` and writes `samples[(p + 1) & 1]` (none after the last pass).
    let samples = [samples_a.dev_ptr().cast::<T>(), samples_b.dev_ptr().cast::<T>()];
    // `bufs[0]` is the caller's; the block sort writes `bufs[first]`, pass `p` reads
    // `bufs[first ^ (p & 1)]`, and the last pass writes `bufs[0]`. Values alike.
    let bufs = [data, data_b.dev_ptr().cast::<T>()];
    let vbufs = [vdata, values_b.dev_ptr().cast::<W>()];
    let first = mp::block_sort_to_scratch(passes) as usize;
    let keys = BlockSort { src: data, dst: bufs[first], samples: samples[0], n, direction };
    kernels.block_sort(gpu, sort_cfg, keys, vdata, vbufs[first])?;
    let merge_cfg = blocks(tiles, mp::BLOCK, merge_smem)?;
    // L2 reuse between passes by the buffer's size (`mp::l2_reuse`); the knobs
    // `Tuning::mergepath_reverse` and `Tuning::mergepath_stream` override it, to measure.
    let (rev, stream) = mp::l2_reuse(n * (bytes + vb) as u64, gpu.info().l2_bytes as u64);
    let reversed = gpu.tuning().mergepath_reverse.unwrap_or(rev);
    let streaming = gpu.tuning().mergepath_stream.unwrap_or(stream);
    for p in 0..passes {
        // Pass `p` merges runs of `tile << log_run`.
        let log_run = first_log_run + p;
        let from = first ^ (p as usize & 1);
        let (src, dst) = (bufs[from], bufs[from ^ 1]);
        let (vsrc, vdst) = (vbufs[from], vbufs[from ^ 1]);
        let samples_in = samples[p as usize & 1];
        let samples_out = if p + 1 < passes { samples[(p as usize + 1) & 1] } else { DevPtr::NULL };
        let flags = mp::pass_flags(p, reversed, streaming);
        if !in_merge {
            gpu.launch(
                partition,
                part_cfg,
                &Partition { src, samples: samples_in, parts, n, tile, log_run, direction },
            )?;
        }
        let keys = Merge { src, dst, samples_in, samples: samples_out, parts, n, log_run, flags, direction };
        kernels.merge(gpu, merge_cfg, keys, vsrc, vdst)?;
    }
    drop(scratch);
    Ok(())
}

/// Merge tiles per block of the block sort for `n` elements in merge tiles of `tile`
/// (keys of `kb` bytes with values of `vb`) on `sms` SMs: the widest of `widest`
/// (`mp::sort_width`) and the widths with kernels below it (`mp::narrower_sort_width`,
/// down to 1) whose tile `fits` the device's shared memory and whose blocks number at
/// least `mp::sort_width_min_quarter_waves` quarters of `sms` (below that, narrower
/// blocks spread the sort over more SMs), times `Tuning::mergepath_wide_min_per_sm`
/// (default 1). `Tuning::mergepath_wide` off keeps the 256-thread block sort everywhere.
fn sort_width(
    tuning: &Tuning,
    n: u64,
    tile: u32,
    (kb, vb): (u32, u32),
    widest: u32,
    sms: u32,
    fits: impl Fn(u32) -> bool,
) -> u32 {
    let on = tuning.mergepath_wide;
    let per_sm: u64 = tuning.mergepath_wide_min_per_sm;
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
/// `Tuning::mergepath_in_merge_per_sm` overrides it, for tuning; 0 = never).
fn in_merge_tiles_per_sm(tuning: &Tuning, key_bytes: u32, value_bytes: u32) -> u32 {
    tuning.mergepath_in_merge_per_sm.unwrap_or(mp::co_ranks_in_merge_per_sm(key_bytes, value_bytes))
}

/// A sorted run in device memory on the merging GPU: its address and its length in
/// elements.
#[derive(Clone, Copy, Debug)]
pub struct Run {
    /// Device address of the run's first element.
    pub ptr: u64,
    /// Elements in the run.
    pub len: u64,
}

/// Merges the consecutive sorted runs of `src` (their lengths in `runs`, summing to
/// `src.len()`) into one sorted buffer, stably: among equal keys an earlier run's come
/// first. See [`merge_run_list`]; `src` is freed once the merge has read it.
pub fn merge_runs<T: Element>(gpu: &Gpu, src: DeviceBuffer<T>, runs: &[u64], order: Order) -> Result<DeviceBuffer<T>> {
    let n = src.len() as u64;
    if runs.iter().sum::<u64>() != n {
        return Err(Error::BadArgument(format!("runs of {runs:?} elements in a buffer of {n}")));
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
pub fn merge_run_list<T: Element>(gpu: &Gpu, runs: &[Run], order: Order) -> Result<DeviceBuffer<T>> {
    let n = runs.iter().map(|r| r.len).sum::<u64>() as usize;
    let out = gpu.alloc::<T>(n)?;
    merge_lists::<T, u32, u32>(gpu, runs, None, order, (out.ptr(), 0))?;
    Ok(out)
}

/// [`merge_run_list`] into `dst` (the address of room for all the runs' elements on
/// `gpu`, not overlapping them) instead of a new buffer: the multi-GPU sort merges
/// each chunk it receives into its place in one result.
pub fn merge_run_list_into<T: Element>(gpu: &Gpu, runs: &[Run], dst: u64, order: Order) -> Result<()> {
    merge_lists::<T, u32, u32>(gpu, runs, None, order, (dst, 0))
}

/// [`merge_run_list`] of keys that carry a 4- or 8-byte value each: `values[r]` is the
/// address of run `r`'s values (as many as its keys). Returns the merged keys and
/// values.
pub fn merge_run_list_pairs<K: Element, V: Element>(
    gpu: &Gpu,
    runs: &[Run],
    values: &[u64],
    order: Order,
) -> Result<(DeviceBuffer<K>, DeviceBuffer<V>)> {
    let unsupported = || {
        Error::BadArgument(format!(
            "a key-value merge takes 4- or 8-byte values, one address per run ({} for {} runs)",
            values.len(),
            runs.len()
        ))
    };
    if values.len() != runs.len() || !matches!(size_of::<V>(), 4 | 8) {
        return Err(unsupported());
    }
    let n = runs.iter().map(|r| r.len).sum::<u64>() as usize;
    let (k, v) = (gpu.alloc::<K>(n)?, gpu.alloc::<V>(n)?);
    merge_run_list_pairs_into::<K, V>(gpu, runs, values, (k.ptr(), v.ptr()), order)?;
    Ok((k, v))
}

/// [`merge_run_list_pairs`] into `dst` (the addresses of room for the keys and the
/// values, as [`merge_run_list_into`]).
pub fn merge_run_list_pairs_into<K: Element, V: Element>(
    gpu: &Gpu,
    runs: &[Run],
    values: &[u64],
    dst: (u64, u64),
    order: Order,
) -> Result<()> {
    if values.len() != runs.len() {
        return Err(Error::BadArgument(format!(
            "a key-value merge takes one value address per run ({} for {} runs)",
            values.len(),
            runs.len()
        )));
    }
    // The kernels move values as words of their size.
    match size_of::<V>() {
        4 => merge_lists::<K, V, u32>(gpu, runs, Some(values), order, dst),
        8 => merge_lists::<K, V, u64>(gpu, runs, Some(values), order, dst),
        b => Err(Error::BadArgument(format!("a key-value merge takes 4- or 8-byte values, not {b}"))),
    }
}

/// [`merge_run_list`] of keys alone (`values` `None`) or of keys with values of type
/// `V`, which the kernels move as words `W` of `V`'s size, into `dst` (the addresses
/// of the keys' and the values' room; the values' unused without values).
fn merge_lists<K: Element + MergepathKvKernels<W>, V: Element, W: Copy + 'static>(
    gpu: &Gpu,
    runs: &[Run],
    values: Option<&[u64]>,
    order: Order,
    dst: (u64, u64),
) -> Result<()> {
    // (keys, values) of each non-empty run.
    let mut runs: Vec<(Run, u64)> =
        runs.iter().enumerate().filter(|(_, r)| r.len > 0).map(|(i, r)| (*r, values.map_or(0, |v| v[i]))).collect();
    let n: u64 = runs.iter().map(|r| r.0.len).sum();
    let (kb, vb) = (size_of::<K>() as u32, size_of::<V>() as u32);
    let tile = mp::tile_for(kb, if values.is_some() { vb } else { 0 });
    let direction: Direction = order.into();
    let partition = <K as MergepathKernels>::PAIR_PARTITION;
    let merge = <K as MergepathKernels>::PAIR_MERGE;
    let merge_kv = match values {
        Some(_) => {
            Some(require_entry::<K, _>(<K as MergepathKvKernels<W>>::PAIR_MERGE_KV, "mergepath key-value merge")?)
        }
        None => None,
    };
    let (merge_name, smem) = match merge_kv {
        Some(kv) => (kv.name(), mp::kv_smem_bytes(kb, vb)),
        None => (merge.name(), mp::smem_bytes(kb)),
    };
    gpu.set_max_dynamic_smem(merge_name, smem)?;
    // Rounds alternate between buffers 0 and 1; the last round must write buffer 0
    // (the result), so an even number of rounds starts in buffer 1.
    let rounds = if runs.len() <= 1 { 1 } else { 64 - (runs.len() as u64 - 1).leading_zeros() };
    // Buffer 0 is `dst`; buffer 1 (scratch) only when there is more than one round.
    let scratch_k = if rounds > 1 { Some(gpu.alloc::<K>(n as usize)?) } else { None };
    let scratch_v = match (rounds > 1, values) {
        (true, Some(_)) => Some(gpu.alloc::<V>(n as usize)?),
        _ => None,
    };
    let kbufs = [dst.0, scratch_k.as_ref().map_or(0, |b| b.ptr())];
    let vbufs = [dst.1, scratch_v.as_ref().map_or(0, |b| b.ptr())];
    let parts = gpu.alloc::<u64>((mp::tiles(n, tile) + runs.len() as u64) as usize)?;
    let mut to = (rounds % 2 == 0) as usize;
    for _ in 0..rounds {
        let mut at = 0u64;
        let mut next = Vec::with_capacity(runs.len().div_ceil(2));
        for pair in runs.chunks(2) {
            let out = kbufs[to] + at * kb as u64;
            let vout = if values.is_some() { vbufs[to] + at * vb as u64 } else { 0 };
            match *pair {
                [(ra, va), (rb, vb_)] => {
                    let t = mp::tiles(ra.len + rb.len, tile);
                    let (a, b, parts) = (DevPtr::from_addr(ra.ptr), DevPtr::from_addr(rb.ptr), parts.dev_ptr());
                    let (a_len, b_len) = (ra.len, rb.len);
                    let part_cfg = one_thread_per_item(
                        mp::partition_threads(t, mp::PAIR_PARTITION_LANES),
                        mp::PARTITION_BLOCK,
                        0,
                    )?;
                    gpu.launch(partition, part_cfg, &PairPartition { a, b, parts, a_len, b_len, tile, direction })?;
                    let cfg = blocks(t, mp::BLOCK, smem)?;
                    let dst = DevPtr::from_addr(out);
                    match merge_kv {
                        Some(kv) => {
                            let (va, vb, vdst) =
                                (DevPtr::from_addr(va), DevPtr::from_addr(vb_), DevPtr::from_addr(vout));
                            let p = PairMergeKv { a, b, va, vb, dst, vdst, parts, a_len, b_len, direction };
                            gpu.launch(kv, cfg, &p)?;
                        }
                        None => gpu.launch(merge, cfg, &PairMerge { a, b, dst, parts, a_len, b_len, direction })?,
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
    // The scratch buffers are freed in stream order, after the kernels that read them.
    Ok(())
}
