//! Row-wise sorts of a row-major matrix (`rows` x `cols`), as `torch.sort`,
//! `torch.argsort` and `torch.topk` along the last dimension do. Everything stays on
//! the device: the row offsets and column indices are made there
//! (`kernels/src/rows/`). Rows up to the radix sort's one-block limit (7,680 32-bit
//! keys) are sorted by one launch of `rows_sort_*`, a block per row on the smallest
//! tile that holds it (no offsets, no bin kernel; argsort makes the columns in
//! registers and writes no keys; top-k writes the first `k` of each row; float keys
//! under NaN-last order are ranked by their canonical bits and moved with their own);
//! longer rows are the segments of the segmented sort
//! ([`super::segmented`]). Top-k of longer rows, for `k` up to
//! [`kernels::topk::FAST_K_MAX`], is one launch of `topk_rows`: one block per row
//! narrows it by a radix select on `(order bits, column)` and sorts the survivors
//! (the top-k module's one-block finish); larger `k`, and float keys under NaN-last
//! order (whose NaN payloads the sort's canonical-copy route keeps), sort the rows and
//! keep the first `k` of each.
use kernels::params::DevPtr;
use kernels::rows::{self as rk, RowIota, RowKernels, RowOffsets, RowSort, RowTake};
use kernels::topk::{self as tk, FinishRows, TopkKernels};

use super::launch::{blocks, one_thread_per_item};
use crate::device::{DeviceBuffer, Gpu};
use crate::element::Key;
use crate::error::{Error, Result};
use crate::options::KeyOrder;

/// Checks that `len` elements are a `rows` x `cols` matrix whose offsets and column
/// indices fit `u32` (at most `u32::MAX` elements).
pub fn check_shape(len: usize, rows: usize, cols: usize) -> Result<()> {
    if rows.checked_mul(cols) != Some(len) {
        return Err(Error::BadArgument(format!("{len} elements are not a {rows} x {cols} matrix")));
    }
    Error::check_u32_indices("a row-wise sort", len)
}

/// The segment offsets of the rows, `i * cols` for `i = 0..=rows`, made on the device.
fn row_offsets(gpu: &Gpu, rows: usize, cols: usize) -> Result<DeviceBuffer<u32>> {
    let offsets = gpu.alloc::<u32>(rows + 1)?;
    let p = RowOffsets { offsets: offsets.dev_ptr(), rows: rows as u32, cols: cols as u32 };
    gpu.launch(kernels::rows::rows_offsets, one_thread_per_item(rows as u64 + 1, 256, 0)?, &p)?;
    Ok(offsets)
}

/// Each element's column, `i % cols`, made on the device.
fn column_indices(gpu: &Gpu, n: usize, cols: usize) -> Result<DeviceBuffer<u32>> {
    let idx = gpu.alloc::<u32>(n)?;
    if n > 0 {
        let p = RowIota { idx: idx.dev_ptr(), n: n as u64, cols: cols as u32 };
        gpu.launch(kernels::rows::rows_iota, one_thread_per_item(n as u64, 256, 0)?, &p)?;
    }
    Ok(idx)
}

/// The row sort's tile for rows of `cols` keys `K` in `order`, with their columns
/// when `idx`, if the row sort takes them: rows longer than the segmented sort's warp
/// bin ([`kernels::segmented::WARP_MAX`], whose tile and warp kernels sort short rows
/// faster: 65,536 x 256 f32 rows 0.164 ms there, 1.725 ms on the row sort's smallest
/// tile, H100, 2026-11-27) up to the one-block limit.
fn row_tile<K: Key>(cols: usize, idx: bool) -> Option<usize> {
    if cols as u64 <= kernels::segmented::WARP_MAX {
        return None;
    }
    rk::row_tile(cols as u64, size_of::<K>() as u32, idx)
}

/// Whether `op` on rows of `cols` keys `K` in NaN-last order is one launch of the row
/// sort or of `topk_rows`, which rank float keys by their canonical bits as they read
/// them: then NaN-last order costs what total order costs. Otherwise (sorts and
/// argsorts of rows of at most [`kernels::segmented::WARP_MAX`] keys or past the
/// one-block sort, 16- and 8-bit keys, top-k of more than [`tk::FAST_K_MAX`] keys of
/// rows past the one-block sort) NaN-last order sorts a canonical copy.
pub fn nan_last_in_one_launch<K: Key>(cols: usize, op: crate::RowOp) -> bool {
    if crate::element::is_narrow::<K>() {
        return false;
    }
    match op {
        crate::RowOp::Sort => row_tile::<K>(cols, false).is_some(),
        crate::RowOp::Argsort => row_tile::<K>(cols, true).is_some(),
        crate::RowOp::TopK(k) => {
            let kk = k.min(cols);
            top_k_row_tile::<K>(cols, kk).is_some() || fast_top_k(kk)
        }
    }
}

/// The row sort's tile for the top `kk` keys of rows of `cols` keys, if the row sort
/// takes them rather than `topk_rows`: for `kk <= FAST_K_MAX` only up to
/// [`ROW_SORT_TOP_K_MAX`] columns, where it beat `topk_rows`.
fn top_k_row_tile<K: Key>(cols: usize, kk: usize) -> Option<usize> {
    row_tile::<K>(cols, true).filter(|_| !fast_top_k(kk) || cols <= ROW_SORT_TOP_K_MAX)
}

/// Whether the top `kk` keys of a row can come from `topk_rows` (one launch, no sort):
/// `kk <= FAST_K_MAX`, in either order.
fn fast_top_k(kk: usize) -> bool {
    kk as u64 <= tk::FAST_K_MAX
}

/// The row sort of tile `tile` (from [`row_tile`]) of the `rows` x `cols` matrix
/// `keys`: the first `keep` keys of each sorted row written to the `rows` x `keep`
/// matrix `dst` (may be `keys` when `keep == cols`; null: keys not written), their
/// columns to `idx` when given. Float keys under NaN-last order are ranked by their
/// canonical bits and written with their own (NaN payloads and zero signs kept), in
/// the same one launch.
fn row_sort<K: Key>(
    gpu: &Gpu,
    tile: usize,
    keys: &DeviceBuffer<K>,
    dst: DevPtr<K>,
    idx: Option<DevPtr<u32>>,
    (rows, cols, keep): (usize, usize, usize),
    order: KeyOrder,
) -> Result<()> {
    let nan_inf = if order.nan_last_for::<K>() { super::nan::inf_bits::<K>("a NaN-last row sort")? } else { 0 };
    let kb = size_of::<K>() as u32;
    let with_idx = idx.is_some();
    let (_, _, smem) = rk::row_smem(kb, with_idx, rk::row_items(tile, kb, with_idx));
    let (pos, neg) = K::KEY_ORDER.masks(8 * kb, order.order.is_descending());
    let entries = if with_idx { <K::Bits as RowKernels>::SORT_IDX } else { <K::Bits as RowKernels>::SORT };
    let kernel = entries[tile];
    let word = <K::Bits as kernels::key::Word>::from_u64;
    let p = RowSort::<K::Bits> {
        src: keys.dev_ptr().cast(),
        dst: dst.cast(),
        idx: idx.unwrap_or(DevPtr::NULL),
        cols: cols as u32,
        keep: keep as u32,
        pos: word(pos),
        neg: word(neg),
        nan_inf: word(nan_inf),
    };
    gpu.set_max_dynamic_smem(kernel.name(), smem)?;
    gpu.launch(kernel, blocks(rows as u64, kernels::radix::BLOCK, smem)?, &p)
}

/// Sorts each row of the row-major `rows` x `cols` matrix `buf` in `order`, in place.
pub fn sort_rows<K: Key>(
    gpu: &Gpu,
    buf: &mut DeviceBuffer<K>,
    rows: usize,
    cols: usize,
    order: impl Into<KeyOrder>,
) -> Result<()> {
    let order = order.into();
    check_shape(buf.len(), rows, cols)?;
    if rows == 0 || cols <= 1 {
        return Ok(());
    }
    if crate::element::is_narrow::<K>() {
        if order.nan_last_for::<K>() {
            // The segmented sort gathers the keys' own bits by their positions.
            let offsets = row_offsets(gpu, rows, cols)?;
            return super::segmented::sort_segments_device(gpu, buf, &offsets, order);
        }
        // 16- and 8-bit keys: their wide words sorted ([`super::widen`]).
        return super::widen::with_wide(gpu, buf, |wide| sort_rows::<u32>(gpu, wide, rows, cols, order.order));
    }
    if let Some(tile) = row_tile::<K>(cols, false) {
        let at = buf.dev_ptr();
        return row_sort::<K>(gpu, tile, &*buf, at, None, (rows, cols, cols), order);
    }
    let offsets = row_offsets(gpu, rows, cols)?;
    super::segmented::sort_segments_device(gpu, buf, &offsets, order)
}

/// The stable sorting permutation of each row of `keys` (left unchanged): a new
/// `rows` x `cols` matrix of column indices (`torch.argsort(dim=-1, stable=True)`).
pub fn argsort_rows<K: Key>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    rows: usize,
    cols: usize,
    order: impl Into<KeyOrder>,
) -> Result<DeviceBuffer<u32>> {
    let order = order.into();
    check_shape(keys.len(), rows, cols)?;
    if crate::element::is_narrow::<K>() {
        // 16- and 8-bit keys: the columns of their wide words' sort ([`super::widen`]).
        let wide = super::widen::widen(gpu, keys, order)?;
        return argsort_rows::<u32>(gpu, &wide, rows, cols, order.order);
    }
    if rows > 0
        && cols > 1
        && let Some(tile) = row_tile::<K>(cols, true)
    {
        let idx = gpu.alloc::<u32>(keys.len())?;
        row_sort::<K>(gpu, tile, keys, DevPtr::NULL, Some(idx.dev_ptr()), (rows, cols, cols), order)?;
        return Ok(idx);
    }
    Ok(sorted_rows_with_columns(gpu, keys, rows, cols, order)?.1)
}

/// A copy of `keys` sorted row by row in `order`, with the column each key came from.
fn sorted_rows_with_columns<K: Key>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    rows: usize,
    cols: usize,
    order: KeyOrder,
) -> Result<(DeviceBuffer<K>, DeviceBuffer<u32>)> {
    if rows > 0
        && cols > 1
        && let Some(tile) = row_tile::<K>(cols, true)
    {
        let sorted = gpu.alloc::<K>(keys.len())?;
        let idx = gpu.alloc::<u32>(keys.len())?;
        row_sort::<K>(gpu, tile, keys, sorted.dev_ptr(), Some(idx.dev_ptr()), (rows, cols, cols), order)?;
        return Ok((sorted, idx));
    }
    let mut sorted = gpu.alloc::<K>(keys.len())?;
    sorted.copy_from_device(gpu, keys)?;
    let mut idx = column_indices(gpu, keys.len(), cols)?;
    if rows > 0 && cols > 1 {
        let offsets = row_offsets(gpu, rows, cols)?;
        super::segmented::sort_segments_device_pairs(gpu, &mut sorted, &mut idx, &offsets, order)?;
    }
    Ok((sorted, idx))
}

/// The widest rows whose top-k for `k <= FAST_K_MAX` goes through the row sort rather
/// than `topk_rows` (the 11-key tile). H100, f32, k = 50, ms (2026-11-27): 4,096 x
/// 4,096 0.309 against 2.39, 16,384 x 1,024 0.499 against 1.81, 8,192 x 600 0.246
/// against 0.897, but 2,048 x 7,680 0.349 against 0.150; widths between 4,224 and
/// 7,680 were not measured.
const ROW_SORT_TOP_K_MAX: usize = (kernels::radix::BLOCK * rk::ROW_ITEMS[2]) as usize;

/// The first `min(k, cols)` keys of each row's stable sort in `order` and their
/// columns: two new `rows` x `min(k, cols)` matrices (`torch.topk(x, k, dim=-1)`,
/// ties to the lowest column, sorted).
pub fn top_k_rows<K: Key>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    rows: usize,
    cols: usize,
    k: usize,
    order: impl Into<KeyOrder>,
) -> Result<(DeviceBuffer<K>, DeviceBuffer<u32>)> {
    let order = order.into();
    check_shape(keys.len(), rows, cols)?;
    if crate::element::is_narrow::<K>() {
        // 16- and 8-bit keys: the top-k of their wide words' rows ([`super::widen`]);
        // under NaN-last order the keys' own bits by row and column.
        let wide = super::widen::widen(gpu, keys, order)?;
        let (top, idx) = top_k_rows::<u32>(gpu, &wide, rows, cols, k, order.order)?;
        let keep = k.min(cols);
        let from = if order.nan_last_for::<K>() {
            super::widen::KeysFrom::Gather { keys, idx: &idx, keep: keep.max(1), cols }
        } else {
            super::widen::KeysFrom::Wide(&top)
        };
        let out = super::widen::narrow(gpu, from, idx.len())?;
        return Ok((out, idx));
    }
    let kk = k.min(cols);
    let out_keys = gpu.alloc::<K>(rows * kk)?;
    let out_idx = gpu.alloc::<u32>(rows * kk)?;
    if rows == 0 || kk == 0 {
        return Ok((out_keys, out_idx));
    }
    // Rows that the row sort takes: sorted, and only the first `kk` of each written.
    if let Some(tile) = top_k_row_tile::<K>(cols, kk) {
        row_sort::<K>(gpu, tile, keys, out_keys.dev_ptr(), Some(out_idx.dev_ptr()), (rows, cols, kk), order)?;
        return Ok((out_keys, out_idx));
    }
    if fast_top_k(kk) {
        // NaN-last float keys ranked by their canonical bits and written with their own.
        let nan_inf = if order.nan_last_for::<K>() { super::nan::inf_bits::<K>("a NaN-last row top-k")? } else { 0 };
        let width = 8 * size_of::<K>() as u32;
        let (pos, neg) = K::KEY_ORDER.masks(width, order.order.is_descending());
        let word = <K::Bits as kernels::key::Word>::from_u64;
        let p = FinishRows::<K::Bits> {
            keys: keys.dev_ptr().cast(),
            cols: cols as u64,
            k: kk as u64,
            pos: word(pos),
            neg: word(neg),
            nan_inf: word(nan_inf),
            out_keys: out_keys.dev_ptr().cast(),
            out_idx: out_idx.dev_ptr(),
        };
        let kernel = <K::Bits as TopkKernels>::FINISH_ROWS;
        gpu.set_max_dynamic_smem(kernel.name(), tk::FINISH_SMEM)?;
        gpu.launch(kernel, blocks(rows as u64, tk::FINISH_BLOCK, tk::FINISH_SMEM)?, &p)?;
        return Ok((out_keys, out_idx));
    }
    let (sorted, idx) = sorted_rows_with_columns(gpu, keys, rows, cols, order)?;
    let p = RowTake::<K::Bits> {
        src: sorted.dev_ptr().cast(),
        src_idx: idx.dev_ptr(),
        dst: out_keys.dev_ptr().cast(),
        dst_idx: out_idx.dev_ptr(),
        rows: rows as u32,
        cols: cols as u32,
        k: kk as u32,
    };
    gpu.launch(<K::Bits as RowKernels>::TAKE, one_thread_per_item((rows * kk) as u64, 256, 0)?, &p)?;
    Ok((out_keys, out_idx))
}
