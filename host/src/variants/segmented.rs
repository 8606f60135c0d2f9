//! The segmented sort: many independent segments of one device buffer in a few
//! launches (kernels and bins: `kernels/src/segmented/mod.rs`).
//!
//! Launches per call, however many segments: one upload of the descriptors, one warp
//! kernel for every segment of 2..=512 keys, one block kernel for every segment up to
//! the radix one-block limit, and for longer segments either a radix sort each (a
//! few launches each) or, when there are many, two pair sorts of all of them at once
//! between a gather and a scatter ([`kernels::segmented::batch_large`]).
use kernels::params::DevPtr;
use kernels::radix::{self as rk, Smem};
use kernels::segmented::{
    self as sk, Bin, BlockSort, BlockSortPairs, LargeCopy, SegmentedKernels, WarpSort, WarpSortPairs,
};

use super::launch::blocks;
use super::scratch::Scratch;
use crate::device::{DeviceBuffer, Gpu};
use crate::element::Key;
use crate::error::{Error, Result};
use crate::options::Order;

/// Checks that `offsets` describe segments of a buffer of `len` elements: non-decreasing,
/// the last at most `len` (fewer than two offsets: no segments).
pub fn check_offsets(len: usize, offsets: &[usize]) -> Result<()> {
    if let Some(i) = offsets.windows(2).position(|w| w[0] > w[1]) {
        return Err(Error::BadArgument(format!(
            "segment offsets must be non-decreasing: offsets[{i}] = {} > offsets[{}] = {}",
            offsets[i],
            i + 1,
            offsets[i + 1]
        )));
    }
    match offsets.last() {
        Some(&last) if last > len => {
            Err(Error::BadArgument(format!("the last segment offset {last} is past the {len} keys")))
        }
        _ => Ok(()),
    }
}

/// The segments of each bin: descriptors of the warp bin, then of the block bin, and
/// the `(start, len)` of each large segment.
#[derive(Debug, Default, PartialEq, Eq)]
struct Bins {
    descs: Vec<u64>,
    warp: usize,
    large: Vec<(usize, usize)>,
}

impl Bins {
    /// Bins valid `offsets` (see [`check_offsets`]) for keys of `key_bytes` bytes with
    /// values of `value_bytes` (0: none).
    fn of(offsets: &[usize], key_bytes: u32, value_bytes: u32) -> Bins {
        // One pass, no regrowth: this loop is timed with the sort (tens of thousands
        // of segments per call).
        let mut warp = Vec::with_capacity(offsets.len());
        let mut block = Vec::new();
        let mut large = Vec::new();
        for w in offsets.windows(2) {
            let (start, len) = (w[0], w[1] - w[0]);
            match sk::bin(len as u64, key_bytes, value_bytes) {
                Bin::Skip => {}
                Bin::Warp => warp.push(sk::pack(start as u64, len as u64)),
                Bin::Block => block.push(sk::pack(start as u64, len as u64)),
                Bin::Large => large.push((start, len)),
            }
        }
        let n_warp = warp.len();
        warp.append(&mut block);
        Bins { descs: warp, warp: n_warp, large }
    }

    fn block(&self) -> usize {
        self.descs.len() - self.warp
    }
}

/// How many segments of `offsets` go to the warp kernel, the block kernel and the radix
/// sort, for keys of `key_bytes` bytes with values of `value_bytes` (0: keys only;
/// segments of 0 or 1 keys go nowhere).
pub fn bin_counts(offsets: &[usize], key_bytes: usize, value_bytes: usize) -> (usize, usize, usize) {
    let bins = Bins::of(offsets, key_bytes as u32, value_bytes as u32);
    (bins.warp, bins.block(), bins.large.len())
}

/// Sorts each segment `buf[offsets[i]..offsets[i + 1]]` in `order`, leaving the keys
/// outside `offsets[0]..offsets[S]` alone. Primitive keys only. Queued on the
/// device's stream. Errors ([`Error::BadArgument`]) leave `buf` untouched.
pub fn sort_segments<K: Key>(gpu: &Gpu, buf: &mut DeviceBuffer<K>, offsets: &[usize], order: Order) -> Result<()> {
    run(gpu, buf, None, offsets, order)
}

/// [`sort_segments`] of keys with a `u32` value each (an index, an id): values move
/// with their keys, and equal keys keep their input order (stable), so the result
/// equals a stable sort of each segment's pairs.
pub fn sort_segments_pairs<K: Key>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: &mut DeviceBuffer<u32>,
    offsets: &[usize],
    order: Order,
) -> Result<()> {
    if keys.len() != values.len() {
        return Err(Error::LengthMismatch { keys: keys.len(), values: values.len() });
    }
    run(gpu, keys, Some(values), offsets, order)
}

fn run<K: Key>(
    gpu: &Gpu,
    buf: &mut DeviceBuffer<K>,
    values: Option<&mut DeviceBuffer<u32>>,
    offsets: &[usize],
    order: Order,
) -> Result<()> {
    let bit_order = K::KEY_ORDER;
    check_offsets(buf.len(), offsets)?;
    if buf.len() as u64 >= 1 << sk::START_BITS {
        return Err(Error::TooManyElements {
            what: "a segmented sort".into(),
            max: (1 << sk::START_BITS) - 1,
            len: buf.len() as u64,
        });
    }
    let kb = size_of::<K>() as u32;
    let vals = values.map(|v| v.dev_ptr());
    let vb = if vals.is_some() { 4 } else { 0 };
    let bins = Bins::of(offsets, kb, vb);
    let masks = bit_order.masks(8 * kb, order.is_descending());
    // The kernels move a key as the unsigned word of its width, `K::Bits`.
    sort_bins::<K::Bits>(gpu, buf.dev_ptr().cast(), vals, &bins, masks, Smem::small(kb, vb).bytes)?;
    let total: usize = bins.large.iter().map(|l| l.1).sum();
    if vals.is_none() && sk::batch_large(bins.large.len() as u64, total as u64) {
        return sort_large_together(gpu, buf, &bins.large, total, order);
    }
    for &(start, len) in &bins.large {
        let v = vals.map(|v| (4, v.offset(start as u64).addr()));
        super::radix::sort_at::<K>(gpu, buf.ptr_at(start), v, len, bit_order, order)?;
    }
    Ok(())
}

/// Sorts the segments of the warp and block bins of `keys` (words `W`), with their
/// values when given, in the order of the key masks `masks` (`(pos, neg)`);
/// `block_smem` is the block kernel's shared memory.
fn sort_bins<W: SegmentedKernels>(
    gpu: &Gpu,
    keys: DevPtr<W>,
    vals: Option<DevPtr<u32>>,
    bins: &Bins,
    masks: (u64, u64),
    block_smem: u32,
) -> Result<()> {
    if bins.descs.is_empty() {
        return Ok(());
    }
    let (pos, neg) = (W::from_u64(masks.0), W::from_u64(masks.1));
    let mut scratch = Scratch::take(gpu, &[2 * bins.descs.len()])?;
    let descs = &mut scratch.bufs[0];
    descs.write_at(gpu, 0, bytemuck::cast_slice(&bins.descs))?;
    let warp_descs: DevPtr<u64> = descs.dev_ptr().cast();
    if bins.warp > 0 {
        let (descs, count) = (warp_descs, bins.warp as u32);
        let cfg = blocks(count.div_ceil(sk::WARPS) as u64, sk::WARP_BLOCK, 0)?;
        match vals {
            None => gpu.launch(W::WARP_SORT, cfg, &WarpSort { keys, descs, count, pos, neg })?,
            Some(vals) => gpu.launch(W::WARP_SORT_PAIRS, cfg, &WarpSortPairs { keys, vals, descs, count, pos, neg })?,
        }
    }
    if bins.block() > 0 {
        let descs = warp_descs.offset(bins.warp as u64);
        let cfg = blocks(bins.block() as u64, rk::BLOCK, block_smem)?;
        match vals {
            None => {
                gpu.set_max_dynamic_smem(W::BLOCK_SORT.name(), block_smem)?;
                gpu.launch(W::BLOCK_SORT, cfg, &BlockSort { keys, descs, pos, neg })?
            }
            Some(vals) => {
                gpu.set_max_dynamic_smem(W::BLOCK_SORT_PAIRS.name(), block_smem)?;
                gpu.launch(W::BLOCK_SORT_PAIRS, cfg, &BlockSortPairs { keys, vals, descs, pos, neg })?
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
    fn bins_keep_order_and_split_at_the_limits() {
        let block_max = rk::small_max(4, 0) as usize;
        let lens = [0, 1, 2, 512, 513, block_max, block_max + 1, 3];
        let mut offsets = vec![10];
        for l in lens {
            offsets.push(offsets.last().unwrap() + l);
        }
        let b = Bins::of(&offsets, 4, 0);
        let p = |s: usize, l: usize| sk::pack(s as u64, l as u64);
        let o = &offsets;
        assert_eq!(b.descs, [p(o[2], 2), p(o[3], 512), p(o[7], 3), p(o[4], 513), p(o[5], block_max)]);
        assert_eq!((b.warp, b.block()), (3, 2));
        assert_eq!(b.large, [(o[6], block_max + 1)]);
        assert_eq!(bin_counts(&offsets, 4, 0), (3, 2, 1));
        // 64-bit keys: the one-block limit is higher.
        assert_eq!(bin_counts(&offsets, 8, 0), (3, 3, 0));
        // Pairs of 64-bit keys: a lower one-block limit (7,680).
        let b = Bins::of(&offsets, 8, 4);
        assert_eq!((b.warp, b.block(), b.large.len()), (3, 2, 1));
    }
}
