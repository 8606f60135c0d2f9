//! The segmented sort: many independent segments of one device buffer in a few
//! launches (kernels and bins: `kernels/src/segmented/mod.rs`).
//!
//! The offsets stay on the device ([`sort_segments_device`]; the host-slice functions
//! upload them first). Launches per call, however many segments: one kernel bins the
//! segments on the device, then one tile kernel for every segment of 2..=32 keys, one
//! warp kernel for every segment up to 512 keys and one block kernel for every segment
//! up to the radix one-block limit, each reading its work count from device memory.
//! The host reads back only the bin kernel's four counts and, when short, its list of
//! long segments, on a stream forked right after the bin kernel (so the sorting
//! kernels do not wait for the copies): to report bad offsets, to launch the kernels
//! that wait for the counts (by default the block kernel: a grid for its list, none
//! for an empty one, where a worst-case grid would cost ~10 us; the others are
//! launched for the worst case before), and to sort longer segments, if any, with
//! either a radix sort each (a few launches each) or, when there are many, two pair
//! sorts of all of them at once between a gather and a scatter
//! ([`kernels::segmented::batch_large`]).

use kernels::params::DevPtr;
use kernels::radix::{self as rk, Smem};
use kernels::segmented::{
    self as sk, Bin, BinSegments, BlockSort, BlockSortPairs, LargeCopy, OffsetKernels, SegmentedKernels, TileSort,
    TileSorter, WarpSort, WarpSortPairs,
};

pub use kernels::segmented::{TILE_SEG_MAX, TILE_STRIDE};

use super::launch::{blocks, one_thread_per_item};
use super::scratch::Scratch;
use crate::device::{DeviceBuffer, Gpu};
use crate::element::Key;
use crate::error::{DriverContext, Error, Result};
use crate::options::{KeyOrder, Order};

mod sealed {
    pub trait Sealed {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
}

/// The word of segment offsets on the device: `u32` (up to 2^32 - 1 keys) or `u64`.
pub trait SegmentOffset: bytemuck::Pod + OffsetKernels + sealed::Sealed {}
impl SegmentOffset for u32 {}
impl SegmentOffset for u64 {}

/// Checks that `offsets` describe segments of a buffer of `len` elements: non-decreasing,
/// the last at most `len` (fewer than two offsets: no segments).
pub fn check_offsets(len: usize, offsets: &[usize]) -> Result<()> {
    if let Some(i) = offsets.windows(2).position(|w| w[0] > w[1]) {
        return Err(decreasing(i, offsets[i] as u64, offsets[i + 1] as u64));
    }
    match offsets.last() {
        Some(&last) if last > len => Err(past_the_keys(last as u64, len)),
        _ => Ok(()),
    }
}

/// Device offsets read back to the host and checked ([`check_offsets`]) against a
/// buffer of `len` elements, for the sorts that plan their work on the host.
pub fn read_offsets<O: SegmentOffset>(gpu: &Gpu, offsets: &DeviceBuffer<O>, len: usize) -> Result<Vec<usize>> {
    let words = offsets.to_vec(gpu)?;
    let mut host = Vec::with_capacity(words.len());
    for w in words {
        let o = w.to_u64();
        host.push(usize::try_from(o).map_err(|_| past_the_keys(o, len))?);
    }
    check_offsets(len, &host)?;
    Ok(host)
}

fn decreasing(i: usize, a: u64, b: u64) -> Error {
    Error::BadArgument(format!("segment offsets must be non-decreasing: offsets[{i}] = {a} > offsets[{}] = {b}", i + 1))
}

fn past_the_keys(offset: u64, len: usize) -> Error {
    Error::BadArgument(format!("the segment offset {offset} is past the {len} keys"))
}

/// How many segments of `offsets` go to the tile, warp and block kernels and the radix
/// sort, for keys of `key_bytes` bytes with values of `value_bytes` (0: keys only;
/// segments of 0 or 1 keys go nowhere): the host's model of the bin kernel.
pub fn bin_counts(offsets: &[usize], key_bytes: usize, value_bytes: usize) -> [usize; 4] {
    let mut counts = [0; 4];
    for w in offsets.windows(2) {
        match sk::bin((w[1] - w[0]) as u64, key_bytes as u32, value_bytes as u32) {
            Bin::Skip => {}
            Bin::Tile => counts[0] += 1,
            Bin::Warp => counts[1] += 1,
            Bin::Block => counts[2] += 1,
            Bin::Large => counts[3] += 1,
        }
    }
    counts
}

/// Sorts each segment `buf[offsets[i]..offsets[i + 1]]` in `order`, leaving the keys
/// outside `offsets[0]..offsets[S]` alone. Primitive keys only. The offsets are
/// checked, uploaded and sorted by as in [`sort_segments_device`]. Errors
/// ([`Error::BadArgument`]) leave `buf` untouched.
pub fn sort_segments<K: Key>(
    gpu: &Gpu,
    buf: &mut DeviceBuffer<K>,
    offsets: &[usize],
    order: impl Into<KeyOrder>,
) -> Result<()> {
    let order = order.into();
    check_offsets(buf.len(), offsets)?;
    with_device_offsets(gpu, offsets, |o| match o {
        DeviceOffsets::U32(o) => run(gpu, buf, None, o, order),
        DeviceOffsets::U64(o) => run(gpu, buf, None, o, order),
    })
}

/// [`sort_segments`] of keys with a `u32` value each (an index, an id): values move
/// with their keys, and equal keys keep their input order (stable), so the result
/// equals a stable sort of each segment's pairs.
pub fn sort_segments_pairs<K: Key>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: &mut DeviceBuffer<u32>,
    offsets: &[usize],
    order: impl Into<KeyOrder>,
) -> Result<()> {
    let order = order.into();
    if keys.len() != values.len() {
        return Err(Error::LengthMismatch { keys: keys.len(), values: values.len() });
    }
    check_offsets(keys.len(), offsets)?;
    with_device_offsets(gpu, offsets, |o| match o {
        DeviceOffsets::U32(o) => run(gpu, keys, Some(values), o, order),
        DeviceOffsets::U64(o) => run(gpu, keys, Some(values), o, order),
    })
}

/// Sorts each segment `keys[offsets[i]..offsets[i + 1]]` in `order`, the offsets on the
/// device (as CUB's `DeviceSegmentedSort` takes them). Queued on the device's stream;
/// the host waits only for the bin kernel's counts (bad offsets, long segments).
/// Bad offsets (decreasing, or past the keys) are [`Error::BadArgument`] and leave
/// `keys` untouched. At most 2^32 - 2 segments.
pub fn sort_segments_device<K: Key, O: SegmentOffset>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    offsets: &DeviceBuffer<O>,
    order: impl Into<KeyOrder>,
) -> Result<()> {
    run(gpu, keys, None, offsets, order.into())
}

/// [`sort_segments_device`] of keys with a `u32` value each, stably (see
/// [`sort_segments_pairs`]).
pub fn sort_segments_device_pairs<K: Key, O: SegmentOffset>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: &mut DeviceBuffer<u32>,
    offsets: &DeviceBuffer<O>,
    order: impl Into<KeyOrder>,
) -> Result<()> {
    if keys.len() != values.len() {
        return Err(Error::LengthMismatch { keys: keys.len(), values: values.len() });
    }
    run(gpu, keys, Some(values), offsets, order.into())
}

/// Offsets uploaded in the narrowest word that holds them.
enum DeviceOffsets {
    U32(DeviceBuffer<u32>),
    U64(DeviceBuffer<u64>),
}

/// Runs `f` on `offsets` uploaded (none when there are no segments).
fn with_device_offsets(gpu: &Gpu, offsets: &[usize], f: impl FnOnce(&DeviceOffsets) -> Result<()>) -> Result<()> {
    if offsets.len() < 2 {
        return Ok(());
    }
    let dev = if offsets.last().is_some_and(|&l| l <= u32::MAX as usize) {
        DeviceOffsets::U32(gpu.upload(&offsets.iter().map(|&o| o as u32).collect::<Vec<_>>())?)
    } else {
        DeviceOffsets::U64(gpu.upload(&offsets.iter().map(|&o| o as u64).collect::<Vec<_>>())?)
    };
    f(&dev)
}

/// The segmented sort in `order`. Float keys under NaN-last order are sorted through
/// their NaN-canonical copy ([`super::nan`]): the copy is sorted in total order with
/// each key's position, and the keys (and values) are gathered from where they were,
/// which keeps NaN payloads (two more buffers of `n` words and a gather each). 16- and
/// 8-bit keys sort their wide words ([`super::widen`]), the canonical copy's under
/// NaN-last order.
fn run<K: Key, O: SegmentOffset>(
    gpu: &Gpu,
    buf: &mut DeviceBuffer<K>,
    values: Option<&mut DeviceBuffer<u32>>,
    offsets: &DeviceBuffer<O>,
    order: KeyOrder,
) -> Result<()> {
    let narrow = crate::element::is_narrow::<K>();
    if !order.nan_last_for::<K>() || offsets.len() < 2 {
        if narrow && offsets.len() >= 2 {
            // 16- and 8-bit keys: their wide words sorted ([`super::widen`]), the keys
            // written back from them.
            return super::widen::with_wide(gpu, buf, |wide| {
                run_total::<u32, O>(gpu, wide, values, offsets, order.order)
            });
        }
        return run_total(gpu, buf, values, offsets, order.order);
    }
    let n = buf.len();
    Error::check_u32_indices("a NaN-last segmented sort", n)?;
    let mut at = gpu.alloc::<u32>(n)?;
    if n > 0 {
        let iota = kernels::records::Iota { idx: at.dev_ptr(), n: n as u64 };
        gpu.launch(kernels::records::iota_u32, one_thread_per_item(n as u64, 256, 0)?, &iota)?;
    }
    let mut sorted = if narrow {
        // 16- and 8-bit floats: the wide words of their canonical copy sorted with the
        // positions ([`super::widen`]); the keys are gathered below as for the others.
        let mut wide = super::widen::widen(gpu, buf, order)?;
        run_total::<u32, O>(gpu, &mut wide, Some(&mut at), offsets, order.order)?;
        gpu.alloc::<K>(n)?
    } else {
        let mut copy = super::nan::canonical_copy(gpu, buf)?;
        run_total(gpu, &mut copy, Some(&mut at), offsets, order.order)?;
        copy
    };
    super::records::gather_from(gpu, buf, &mut sorted, &at)?;
    buf.copy_from_device(gpu, &sorted)?;
    if let Some(values) = values {
        let mut moved = gpu.alloc::<u32>(n)?;
        super::records::gather_from(gpu, values, &mut moved, &at)?;
        values.copy_from_device(gpu, &moved)?;
    }
    Ok(())
}

/// [`run`] in IEEE 754 total order.
fn run_total<K: Key, O: SegmentOffset>(
    gpu: &Gpu,
    buf: &mut DeviceBuffer<K>,
    values: Option<&mut DeviceBuffer<u32>>,
    offsets: &DeviceBuffer<O>,
    order: Order,
) -> Result<()> {
    let segments = offsets.len().saturating_sub(1);
    if segments == 0 {
        return Ok(());
    }
    if segments > u32::MAX as usize - 1 {
        return Err(Error::TooManyElements {
            what: "segments of a segmented sort".into(),
            max: u32::MAX as u64 - 1,
            len: segments as u64,
        });
    }
    let n = buf.len() as u64;
    if n >= 1 << sk::START_BITS {
        return Err(Error::TooManyElements { what: "a segmented sort".into(), max: (1 << sk::START_BITS) - 1, len: n });
    }
    let bit_order = K::KEY_ORDER;
    let kb = size_of::<K>() as u32;
    let vals = values.map(|v| v.dev_ptr());
    let vb = if vals.is_some() { 4 } else { 0 };
    let block_max = rk::small_max(kb, vb);
    let tiny_in_warp = gpu.tuning().segmented_tiny_in_warp.unwrap_or(sk::tiny_in_warp(n, segments as u64));
    let tile_max = sk::tile_max(tiny_in_warp);
    let cap = |bin| sk::bin_capacity(n, segments as u64, sk::bin_min_len(bin, tile_max, block_max)) as usize;
    let (warp_cap, block_cap, large_cap) = (cap(Bin::Warp), cap(Bin::Block), cap(Bin::Large));
    let by_class = gpu.tuning().segmented_warp_by_class.unwrap_or(sk::tiny_in_warp(n, segments as u64));
    let warp_list = sk::warp_regions(n, segments as u64, tiny_in_warp, by_class)[sk::WARP_CLASSES] as usize;
    let tiles = sk::tiles(n) as usize;
    let mut scratch = Scratch::take(gpu, &[sk::COUNTS + tiles, 2 * warp_list, 2 * block_cap, 4 * large_cap])?;
    scratch.bufs[0].zero_prefix(gpu, sk::COUNTS + tiles)?;
    let ptr = |i: usize| scratch.bufs[i].dev_ptr();
    let counts = ptr(0);
    let first = counts.offset(sk::COUNTS as u64);
    let (warp, block, large) = (ptr(1).cast::<u64>(), ptr(2).cast::<u64>(), ptr(3).cast::<u64>());
    let bin = BinSegments {
        offsets: offsets.dev_ptr(),
        segments: segments as u32,
        n,
        tiny_in_warp: tiny_in_warp as u32,
        block_max,
        warp_by_class: by_class as u32,
        counts,
        first,
        warp,
        block,
        large,
    };
    gpu.launch(O::BIN, one_thread_per_item(segments as u64, sk::BIN_BLOCK, sk::BIN_SMEM)?, &bin)?;
    // The copies back go on a stream forked after the bin kernel where the tuning says
    // so: the sorting kernels queued below then start right after the bin kernel
    // instead of after the copies.
    let side =
        if gpu.tuning().segmented_readback_beside { Some(gpu.stream().fork().call("cuStreamCreate")?) } else { None };
    let copies = side.as_ref().unwrap_or(gpu.stream());
    let mut readback = gpu.take_pinned(4 * sk::COUNTS)?;
    readback.download_on(gpu, copies, &scratch.bufs[0], 0, 4 * sk::COUNTS)?;
    // The large list too, when small, so that the host queues the large segments'
    // sorts while the device still sorts the other bins, instead of reading the list
    // once they are done: 2^24 u32 keys in 2^12 segments (237 large) 0.658 -> 0.588 ms,
    // in 2^20 (one large) 0.286 -> 0.267 ms (H100, 2026-11-27).
    let large_bytes = 16 * large_cap;
    let large_early = if large_cap > 0 && large_bytes <= LARGE_EARLY_MAX_BYTES {
        let mut list = gpu.take_pinned(large_bytes)?;
        list.download_on(gpu, copies, &scratch.bufs[3], 0, large_bytes)?;
        Some(list)
    } else {
        None
    };
    let masks = bit_order.masks(8 * kb, order.is_descending());
    // The kernels move a key as the unsigned word of its width, `K::Bits`.
    let keys: DevPtr<K::Bits> = buf.dev_ptr().cast();
    let bins = Lists {
        counts,
        first,
        warp,
        block,
        warp_cap,
        block_cap,
        tiles: if tiny_in_warp { 0 } else { tiles },
        n,
        block_smem: Smem::small(kb, vb).bytes,
    };
    sort_bins::<K::Bits, O>(gpu, keys, vals, offsets, &bins, masks, Phase::BeforeCounts)?;
    // Waits for the bin kernel only: the device goes on with the kernels above.
    let got: [u32; sk::COUNTS] = bytemuck::pod_read_unaligned(&readback.host_mut_soon()?[..4 * sk::COUNTS]);
    gpu.give_back_pinned(readback);
    if got[sk::COUNT_BAD] != 0 {
        let i = segments - got[sk::COUNT_BAD] as usize;
        let mut pair = [O::zeroed(); 2];
        offsets.read_at(gpu, i, &mut pair)?;
        let (a, b) = (pair[0].to_u64(), pair[1].to_u64());
        return Err(if b < a { decreasing(i, a, b) } else { past_the_keys(b, buf.len()) });
    }
    sort_bins::<K::Bits, O>(gpu, keys, vals, offsets, &bins, masks, Phase::AfterCounts(got))?;
    let count = got[sk::COUNT_LARGE] as usize;
    let mut words = vec![0u32; 4 * count];
    match large_early {
        Some(mut list) => {
            // At most `large_cap` segments: the bin kernel drops longer lists' slots
            // only for bad offsets, reported above.
            let got = list.host_mut_soon()?.get(..16 * count).map(|b| words.copy_from_slice(bytemuck::cast_slice(b)));
            gpu.give_back_pinned(list);
            got.ok_or_else(|| {
                Error::BadArgument(format!("the bin kernel listed {count} large segments, room for {large_cap}"))
            })?;
        }
        None if count > 0 => scratch.bufs[3].read_at(gpu, 0, &mut words)?,
        None => {}
    }
    if count == 0 {
        return Ok(());
    }
    let ends: &[u64] = bytemuck::cast_slice(&words);
    let large: Vec<(usize, usize)> = ends.chunks(2).map(|c| (c[0] as usize, (c[1] - c[0]) as usize)).collect();
    drop(scratch);
    let total: usize = large.iter().map(|l| l.1).sum();
    if vals.is_none() && sk::batch_large(large.len() as u64, total as u64) {
        return sort_large_together(gpu, buf, &large, total, order);
    }
    for &(start, len) in &large {
        let v = vals.map(|v| (4, v.offset(start as u64).addr()));
        super::radix::sort_at::<K>(gpu, buf.ptr_at(start), v, len, bit_order, order)?;
    }
    Ok(())
}

/// The largest large list read back with the counts (4,096 segments).
const LARGE_EARLY_MAX_BYTES: usize = 1 << 16;

/// The bin kernel's outputs the sorting kernels read, and their worst-case sizes.
struct Lists {
    counts: DevPtr<u32>,
    first: DevPtr<u32>,
    warp: DevPtr<u64>,
    block: DevPtr<u64>,
    warp_cap: usize,
    block_cap: usize,
    /// Tiles of the tile kernel (0: not launched, the warp kernel takes the tiny
    /// segments).
    tiles: usize,
    /// Keys in the buffer.
    n: u64,
    /// The block kernel's shared memory.
    block_smem: u32,
}

/// Which sorting kernels wait for the bin kernel's counts (see
/// [`crate::Tuning::segmented_after_counts`]) for `segments` segments of `n` keys in
/// all, by their mean length: the kernels whose list is likely empty, as long as the
/// kernels before them keep the device busy while the host reads the counts. H100,
/// 2^24 u32 keys, each setting forced (2026-11-28), ms for 0 / 1 / 2: in 2^20
/// segments (mean 16, all in the tile bin) 0.196 / 0.187 / 0.179, in 2^16 (mean 256,
/// warp bin) 0.260 / 0.249 / 0.284, in 2^12 (mean 4096, block bin) 0.574 / 0.617 /
/// 0.625.
pub fn after_counts(n: u64, segments: u64) -> u32 {
    let mean = n / segments.max(1);
    if mean <= sk::TILE_SEG_MAX {
        2
    } else if mean <= sk::WARP_MAX {
        1
    } else {
        0
    }
}

/// The warp list's length in the bin kernel's counts: its classes' together.
fn warp_count(got: &[u32; sk::COUNTS]) -> u64 {
    got[sk::COUNT_WARP..sk::COUNT_WARP + sk::WARP_CLASSES].iter().map(|&c| c as u64).sum()
}

/// When [`sort_bins`] is called: before the host has the bin kernel's counts (it
/// launches for the worst case), or after, with them.
#[derive(Clone, Copy)]
enum Phase {
    BeforeCounts,
    AfterCounts([u32; sk::COUNTS]),
}

/// Launches the tile, warp and block kernels on the bin kernel's lists, for keys of
/// words `W` (with their values when given) in the order of the key masks `masks`
/// (`(pos, neg)`): in `phase`, those [`crate::Tuning::segmented_after_counts`] puts
/// there. A kernel launched after the counts gets a grid for its list's length, and
/// none when the list is empty; one launched before, a grid for the worst case.
fn sort_bins<W: SegmentedKernels, O: SegmentOffset>(
    gpu: &Gpu,
    keys: DevPtr<W>,
    vals: Option<DevPtr<u32>>,
    offsets: &DeviceBuffer<O>,
    bins: &Lists,
    masks: (u64, u64),
    phase: Phase,
) -> Result<()> {
    let late = gpu.tuning().segmented_after_counts.unwrap_or(after_counts(bins.n, offsets.len() as u64 - 1));
    // The longest list each kernel may find in this phase (0: not launched now).
    let cap = |worst: usize, count: fn(&[u32; sk::COUNTS]) -> u64, after: bool| match phase {
        Phase::BeforeCounts if !after => worst,
        Phase::AfterCounts(got) if after => (count(&got) as usize).min(worst),
        _ => 0,
    };
    let warp_cap = cap(bins.warp_cap, warp_count, late >= 2);
    let block_cap = cap(bins.block_cap, |got| got[sk::COUNT_BLOCK] as u64, late >= 1);
    let (pos, neg) = (W::from_u64(masks.0), W::from_u64(masks.1));
    let counts = bins.counts;
    let segments = (offsets.len() - 1) as u32;
    let tile = TileSort {
        keys,
        vals: vals.unwrap_or(DevPtr::NULL),
        offsets: offsets.dev_ptr(),
        segments,
        n: bins.n,
        counts,
        first: bins.first,
        pos,
        neg,
    };
    // Grid-stride kernels, not one block per possible segment or tile (most of a
    // worst-case grid may find no work). The tile kernel's blocks fill the device. The
    // warp and block kernels get about one segment per warp or block where the
    // segments allow: with fewer blocks each looping over more segments, 2^16 segments
    // of 2^24 keys took 2.4x as long for 64-bit networks (H100, 2026-11-27: u64 keys
    // 2.39 ms with 8 blocks per SM, 0.99 ms with 64), while an empty grid of 64 blocks
    // per SM costs 10-25 us.
    let sms = gpu.info().multiprocessors as u64;
    let pairs = vals.is_some();
    let sorter = match sk::tile_sorter(W::BYTES, pairs) {
        TileSorter::Network if gpu.tuning().segmented_tile_rank => TileSorter::Rank,
        s => s,
    };
    let threads = sk::tile_block(sorter);
    // Blocks of 2,048 threads per SM in all, whatever the sorter's block size.
    let per_sm = (2048 / threads) as u64;
    if matches!(phase, Phase::BeforeCounts) && bins.tiles > 0 {
        let cfg = blocks((bins.tiles as u64).min(sms * per_sm), threads, sk::tile_smem(sorter, W::BYTES))?;
        gpu.launch(O::tile_sort::<W>(pairs, sorter), cfg, &tile)?;
    }
    if warp_cap > 0 {
        let descs = bins.warp;
        let grid =
            (warp_cap as u64).div_ceil(sk::WARPS as u64).min(sms * gpu.tuning().segmented_warp_blocks_per_sm.max(1));
        let cfg = blocks(grid, sk::WARP_BLOCK, sk::warp_smem(W::BYTES, pairs))?;
        match vals {
            None => {
                // 32-bit keys alone: blocked for every segment where the tuning says so.
                let blocked = gpu.tuning().segmented_warp_blocked;
                let kernel = if blocked { W::WARP_SORT_BLOCKED } else { W::WARP_SORT };
                gpu.launch(kernel, cfg, &WarpSort { keys, descs, counts, pos, neg })?
            }
            Some(vals) => {
                gpu.launch(W::WARP_SORT_PAIRS, cfg, &WarpSortPairs { keys, vals, descs, counts, pos, neg })?
            }
        }
    }
    if block_cap > 0 {
        let (descs, smem) = (bins.block, bins.block_smem);
        let grid = (block_cap as u64).min(sms * gpu.tuning().segmented_block_blocks_per_sm.max(1));
        // A block per possible segment: the entries without the grid-stride loop (the
        // looping 32-bit pairs entry spills 76 bytes; u32 pairs in 2^12 segments of
        // 2^24 keys 0.573 -> 0.549 ms, H100, 2026-11-27).
        let once = grid == block_cap as u64;
        let cfg = blocks(grid, rk::BLOCK, smem)?;
        match vals {
            None => {
                let kernel = if once { W::BLOCK_SORT_ONCE } else { W::BLOCK_SORT };
                gpu.set_max_dynamic_smem(kernel.name(), smem)?;
                gpu.launch(kernel, cfg, &BlockSort { keys, descs, counts, pos, neg })?
            }
            Some(vals) => {
                let kernel = if once { W::BLOCK_SORT_PAIRS_ONCE } else { W::BLOCK_SORT_PAIRS };
                gpu.set_max_dynamic_smem(kernel.name(), smem)?;
                gpu.launch(kernel, cfg, &BlockSortPairs { keys, vals, descs, counts, pos, neg })?
            }
        }
    }
    Ok(())
}

/// Sorts the `large` segments (`(start, len)`, `total` keys, at least two) together:
/// gather them into one buffer with their segment indices, sort stably by key, then
/// stably by segment index, scatter back (see `kernels/src/segmented/mod.rs`).
fn sort_large_together<K: Key>(
    gpu: &Gpu,
    buf: &mut DeviceBuffer<K>,
    large: &[(usize, usize)],
    total: usize,
    order: Order,
) -> Result<()> {
    let count = large.len() as u32;
    let mut table: Vec<u64> = large.iter().map(|l| l.0 as u64).collect();
    let mut at = 0u64;
    for &(_, len) in large {
        table.push(at);
        at += len as u64;
    }
    let table = gpu.upload(&table)?;
    let mut concat = gpu.alloc::<K>(total)?;
    let mut ids = gpu.alloc::<u32>(total)?;
    let total = total as u64;
    let cfg = super::launch::one_thread_per_item(total, 256, 0)?;
    // The copies between `buf` and `concat`, as key words (see `run`).
    let copy = |concat: &DeviceBuffer<K>, ids: &DeviceBuffer<u32>| LargeCopy::<K::Bits> {
        keys: buf.dev_ptr().cast(),
        concat: concat.dev_ptr().cast(),
        ids: ids.dev_ptr(),
        table: table.dev_ptr(),
        count,
        total,
    };
    let (gather, scatter) = (<K::Bits as SegmentedKernels>::GATHER, <K::Bits as SegmentedKernels>::SCATTER);
    gpu.launch(gather, cfg, &copy(&concat, &ids))?;
    super::radix::sort_pairs(gpu, &mut concat, &mut ids, order, None)?;
    let bits = (0, sk::segment_index_bits(count));
    super::radix::sort_pairs(gpu, &mut ids, &mut concat, Order::Ascending, Some(bits))?;
    // The pair sorts may have swapped the buffers' storage: take the pointers again.
    gpu.launch(scatter, cfg, &copy(&concat, &ids))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_checked() {
        assert!(check_offsets(0, &[]).is_ok());
        assert!(check_offsets(0, &[0]).is_ok());
        assert!(check_offsets(5, &[1, 1, 3, 5]).is_ok());
        assert!(check_offsets(5, &[7]).is_err());
        assert!(check_offsets(5, &[0, 3, 2]).is_err());
        assert!(check_offsets(5, &[0, 6]).is_err());
    }

    #[test]
    fn bins_split_at_the_limits() {
        let block_max = rk::small_max(4, 0) as usize;
        let lens = [0, 1, 2, 32, 33, 512, 513, block_max, block_max + 1, 3];
        let mut offsets = vec![10];
        for l in lens {
            offsets.push(offsets.last().unwrap() + l);
        }
        assert_eq!(bin_counts(&offsets, 4, 0), [3, 2, 2, 1]);
        // 64-bit keys: the one-block limit is higher.
        assert_eq!(bin_counts(&offsets, 8, 0), [3, 2, 3, 0]);
        // Pairs of 64-bit keys: a lower one-block limit (7,680).
        assert_eq!(bin_counts(&offsets, 8, 4), [3, 2, 2, 1]);
    }

    #[test]
    fn kernels_wait_for_the_counts_by_mean_length() {
        let n = 1u64 << 24;
        assert_eq!(after_counts(n, 1 << 20), 2);
        assert_eq!(after_counts(n, n / sk::TILE_SEG_MAX), 2);
        assert_eq!(after_counts(n, n / (sk::TILE_SEG_MAX + 1)), 1);
        assert_eq!(after_counts(n, 1 << 16), 1);
        assert_eq!(after_counts(n, n / sk::WARP_MAX), 1);
        assert_eq!(after_counts(n, 1 << 12), 0);
        assert_eq!(after_counts(n, 0), 0);
    }

    #[test]
    fn bad_offsets_say_where() {
        let e = check_offsets(5, &[0, 3, 2]).unwrap_err().to_string();
        assert!(e.contains("offsets[1] = 3 > offsets[2] = 2"), "{e}");
        let e = check_offsets(5, &[0, 6]).unwrap_err().to_string();
        assert!(e.contains("6 is past the 5 keys"), "{e}");
    }
}
