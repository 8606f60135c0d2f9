//! `rows`: the small kernels that turn a row-major matrix (`rows` x `cols`) into the
//! segmented sort's input and its output into row-wise results, so that
//! `sort_rows`, `argsort_rows` and `top_k_rows` need no host arrays:
//!
//! - `rows_offsets` ([`RowOffsets`]): the segment offsets `i * cols`, `i = 0..=rows`.
//! - `rows_iota` ([`RowIota`]): `idx[i] = i % cols`, each key's index within its row
//!   (the values of a row-wise argsort, as `torch.argsort(dim=-1)` returns them).
//! - `rows_take_*` ([`RowTake`]): the first `k` keys and indices of every sorted row,
//!   packed as a `rows` x `k` matrix (top-k of each row).
//! - `rows_sort_*` ([`RowSort`]): the sort itself for rows of at most
//!   [`crate::radix::small_max`] keys, one block per row (no bin kernel: every row has
//!   the same length). The block runs the radix one-block sort (8-bit digits, each pass
//!   ranked by the warp multi-split `block::rank::rank_by_digit` and staged in shared
//!   memory) on a tile of [`row_items`] keys per thread, the fewest that hold a row.
//!   Each tile size is its own entry with its own launch bounds ([`LAUNCH_BOUNDS`]):
//!   the segmented sort's block kernel takes every tile size in one entry, so its
//!   registers are those of the largest (167 for 32-bit keys: one 384-thread block per
//!   SM, every barrier idling the SM), while a 4,096-key row needs 11 keys per thread.
//!   The index entries (`_idx`) carry each key's column through the passes (made in
//!   registers, never read) and write it out: the stable sorting permutation of the
//!   row, as `torch.argsort(dim=-1, stable=True)`; their keys output may be null.
use crate::params::{DevPtr, EntryLayout, Kernel};
use crate::radix::{BLOCK, Smem};

crate::params::kernel_params! {
    /// `offsets[i] = i * cols` for `i <= rows`: one thread per offset.
    pub struct RowOffsets {
        pub offsets: DevPtr<u32>,
        pub rows: u32,
        pub cols: u32,
    }
    /// Declares an entry taking [`RowOffsets`].
    entries row_offsets_entry;
}

crate::params::kernel_params! {
    /// `idx[i] = i % cols` for `i < n`.
    pub struct RowIota {
        pub idx: DevPtr<u32>,
        pub n: u64,
        pub cols: u32,
    }
    /// Declares an entry taking [`RowIota`].
    entries row_iota_entry;
}

crate::params::kernel_params! {
    /// Element `j < k` of row `r` of the sorted matrix (`src`, `src_idx`: `rows` x
    /// `cols`) to element `r * k + j` of `dst`, `dst_idx`: one thread per output.
    pub struct RowTake<K> {
        pub src: DevPtr<K>,
        pub src_idx: DevPtr<u32>,
        pub dst: DevPtr<K>,
        pub dst_idx: DevPtr<u32>,
        pub rows: u32,
        pub cols: u32,
        pub k: u32,
    }
    /// Declares an entry taking [`RowTake`].
    entries row_take_entry;
}

crate::params::kernel_params! {
    /// `rows_sort_*`: block `b` sorts row `b` of the row-major matrix `src` (`cols`
    /// keys a row, at most the entry's tile of [`BLOCK`] x its items) stably in the
    /// order of the masks `pos`, `neg` ([`crate::key::BitOrder::masks`]), and writes
    /// its first `keep` keys (`keep <= cols`; all of them for a sort, `k` for top-k)
    /// to row `b` of the `rows` x `keep` matrix `dst` (`src` itself for an in-place
    /// sort; null: not written) and, in the `_idx` entries, their columns to row `b`
    /// of `idx`. `nan_inf` not 0 (the `+inf` bits of the keys' float format): NaN-last
    /// order, each key ranked by its canonical bits ([`crate::nan::nan_mapped`]) and
    /// moved and written with its own (NaN payloads and zero signs kept).
    pub struct RowSort<K> {
        pub src: DevPtr<K>,
        pub dst: DevPtr<K>,
        pub idx: DevPtr<u32>,
        pub cols: u32,
        pub keep: u32,
        pub pos: K,
        pub neg: K,
        pub nan_inf: K,
    }
    /// Declares an entry taking [`RowSort`].
    entries row_sort_entry;
}

/// Items per thread of the row sort's smaller tiles; the largest tile is the radix
/// one-block sort's ([`crate::radix::items`]). 11 holds a 4,096-key row in 4,224
/// slots (the radix sort's 12-item middle tile would rank 4,608).
pub const ROW_ITEMS: [u32; 4] = [4, 8, 11, 16];

/// Number of row-sort tiles: [`ROW_ITEMS`] and the full one.
pub const ROW_TILES: usize = ROW_ITEMS.len() + 1;

/// The row sort's tile (an index below [`ROW_TILES`]) for rows of `cols` keys of `kb`
/// bytes, with column indices when `idx`: the smallest that holds a row; `None` when
/// none does (longer rows than [`crate::radix::small_max`]).
pub const fn row_tile(cols: u64, kb: u32, idx: bool) -> Option<usize> {
    let mut t = 0;
    while t < ROW_TILES {
        if cols <= (BLOCK * row_items(t, kb, idx)) as u64 {
            return Some(t);
        }
        t += 1;
    }
    None
}

/// Items per thread of row-sort tile `t` for keys of `kb` bytes (with indices: `idx`).
pub const fn row_items(t: usize, kb: u32, idx: bool) -> u32 {
    if t < ROW_ITEMS.len() { ROW_ITEMS[t] } else { crate::radix::items(kb, if idx { 4 } else { 0 }) }
}

/// Shared memory of the row sort with `items` keys of `kb` bytes per thread (and
/// their `u32` columns when `idx`): the radix tile head (digit counters, scan), then
/// the ranked keys, then the ranked columns. Returns `(keys, columns, bytes)`.
pub const fn row_smem(kb: u32, idx: bool, items: u32) -> (u32, u32, u32) {
    let keys = Smem::small(kb, 0).keys;
    let cols = keys + BLOCK * items * kb;
    (keys, cols, cols + if idx { BLOCK * items * 4 } else { 0 })
}

/// Blocks per SM that the row sort's launch bounds ask of tile `t`: the register cap
/// ptxas gets is 65,536 / (384 x blocks) (4: 42, 3: 56, 2: 85, 1: 170).
pub const fn row_blocks_per_sm(t: usize, kb: u32, idx: bool) -> u32 {
    let words = row_items(t, kb, idx) * (kb / 4 + if idx { 1 } else { 0 });
    let more = cfg!(feature = "rows-more-blocks") as u32;
    more + if words <= 8 {
        4
    } else if words <= 16 {
        3
    } else if words <= 24 {
        2
    } else {
        1
    }
}

/// Where output `g` of a take of `k` per row of `cols` columns comes from.
#[inline(always)]
pub const fn take_source(g: u64, cols: u32, k: u32) -> u64 {
    (g / k as u64) * cols as u64 + g % k as u64
}

row_offsets_entry!(
    rows_offsets {} | p | {
        let i = crate::gpu::global_idx();
        if i <= p.rows as u64 {
            *p.offsets.get().add(i as usize) = i as u32 * p.cols;
        }
    }
);
row_iota_entry!(
    rows_iota {} | p | {
        let i = crate::gpu::global_idx();
        if i < p.n {
            *p.idx.get().add(i as usize) = (i % p.cols as u64) as u32;
        }
    }
);
row_take_entry!(rows_take_u32 { K = u32 } |p| device::take(p));
row_take_entry!(rows_take_u64 { K = u64 } |p| device::take(p));

/// Declares the row-sort entries of key word `$k` (`$kb` bytes): keys only and with
/// columns, one per tile.
macro_rules! row_sort_entries {
    ($k:ty, $kb:literal, $suffix:ident) => {
        paste::paste! {
            row_sort_entry!([<rows_sort_ $suffix _t0>] { K = $k } |p| device::sort_row::<$k, false, { row_items(0, $kb, false) as usize }>(p));
            row_sort_entry!([<rows_sort_ $suffix _t1>] { K = $k } |p| device::sort_row::<$k, false, { row_items(1, $kb, false) as usize }>(p));
            row_sort_entry!([<rows_sort_ $suffix _t2>] { K = $k } |p| device::sort_row::<$k, false, { row_items(2, $kb, false) as usize }>(p));
            row_sort_entry!([<rows_sort_ $suffix _t3>] { K = $k } |p| device::sort_row::<$k, false, { row_items(3, $kb, false) as usize }>(p));
            row_sort_entry!([<rows_sort_ $suffix _t4>] { K = $k } |p| device::sort_row::<$k, false, { row_items(4, $kb, false) as usize }>(p));
            row_sort_entry!([<rows_sort_ $suffix _t0_idx>] { K = $k } |p| device::sort_row::<$k, true, { row_items(0, $kb, true) as usize }>(p));
            row_sort_entry!([<rows_sort_ $suffix _t1_idx>] { K = $k } |p| device::sort_row::<$k, true, { row_items(1, $kb, true) as usize }>(p));
            row_sort_entry!([<rows_sort_ $suffix _t2_idx>] { K = $k } |p| device::sort_row::<$k, true, { row_items(2, $kb, true) as usize }>(p));
            row_sort_entry!([<rows_sort_ $suffix _t3_idx>] { K = $k } |p| device::sort_row::<$k, true, { row_items(3, $kb, true) as usize }>(p));
            row_sort_entry!([<rows_sort_ $suffix _t4_idx>] { K = $k } |p| device::sort_row::<$k, true, { row_items(4, $kb, true) as usize }>(p));
            impl RowKernels for $k {
                const TAKE: Kernel<RowTake<$k>> = [<rows_take_ $suffix>];
                const SORT: [Kernel<RowSort<$k>>; ROW_TILES] = [
                    [<rows_sort_ $suffix _t0>],
                    [<rows_sort_ $suffix _t1>],
                    [<rows_sort_ $suffix _t2>],
                    [<rows_sort_ $suffix _t3>],
                    [<rows_sort_ $suffix _t4>],
                ];
                const SORT_IDX: [Kernel<RowSort<$k>>; ROW_TILES] = [
                    [<rows_sort_ $suffix _t0_idx>],
                    [<rows_sort_ $suffix _t1_idx>],
                    [<rows_sort_ $suffix _t2_idx>],
                    [<rows_sort_ $suffix _t3_idx>],
                    [<rows_sort_ $suffix _t4_idx>],
                ];
            }
        }
    };
}
row_sort_entries!(u32, 4, u32);
row_sort_entries!(u64, 8, u64);

/// The take and the row sorts of keys of word `Self`.
pub trait RowKernels: crate::key::Word {
    const TAKE: Kernel<RowTake<Self>>;
    /// The row sort per tile ([`row_tile`]), keys only.
    const SORT: [Kernel<RowSort<Self>>; ROW_TILES];
    /// The row sort per tile, writing each key's column too.
    const SORT_IDX: [Kernel<RowSort<Self>>; ROW_TILES];
}

/// Every entry of this module.
pub const KERNELS: &[EntryLayout] = &layouts();

const fn layouts() -> [EntryLayout; 4 + 4 * ROW_TILES] {
    let mut out = [rows_offsets.layout(); 4 + 4 * ROW_TILES];
    out[1] = rows_iota.layout();
    out[2] = rows_take_u32.layout();
    out[3] = rows_take_u64.layout();
    let mut t = 0;
    while t < ROW_TILES {
        out[4 + t] = <u32 as RowKernels>::SORT[t].layout();
        out[4 + ROW_TILES + t] = <u32 as RowKernels>::SORT_IDX[t].layout();
        out[4 + 2 * ROW_TILES + t] = <u64 as RowKernels>::SORT[t].layout();
        out[4 + 3 * ROW_TILES + t] = <u64 as RowKernels>::SORT_IDX[t].layout();
        t += 1;
    }
    out
}

/// Launch bounds (see [`crate::LAUNCH_BOUNDS`]) of the row sorts: [`BLOCK`] threads,
/// [`row_blocks_per_sm`] blocks.
pub const LAUNCH_BOUNDS: &[(&str, u32, u32)] = &row_bounds();

const fn row_bounds() -> [(&'static str, u32, u32); 4 * ROW_TILES] {
    let mut out = [("", 0, 0); 4 * ROW_TILES];
    let mut t = 0;
    while t < ROW_TILES {
        out[t] = (<u32 as RowKernels>::SORT[t].name(), BLOCK, row_blocks_per_sm(t, 4, false));
        out[ROW_TILES + t] = (<u32 as RowKernels>::SORT_IDX[t].name(), BLOCK, row_blocks_per_sm(t, 4, true));
        out[2 * ROW_TILES + t] = (<u64 as RowKernels>::SORT[t].name(), BLOCK, row_blocks_per_sm(t, 8, false));
        out[3 * ROW_TILES + t] = (<u64 as RowKernels>::SORT_IDX[t].name(), BLOCK, row_blocks_per_sm(t, 8, true));
        t += 1;
    }
    out
}

#[cfg(target_arch = "nvptx64")]
mod device;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_tiles_hold_their_rows() {
        for (kb, idx) in [(4, false), (4, true), (8, false), (8, true)] {
            let vb = if idx { 4 } else { 0 };
            let max = crate::radix::small_max(kb, vb);
            assert_eq!(row_tile(max, kb, idx), Some(ROW_TILES - 1));
            assert_eq!(row_tile(max + 1, kb, idx), None);
            let mut last = 0;
            for cols in [1, 2, 1536, 1537, 4096, 4224, 4225, 6144, max] {
                let t = row_tile(cols, kb, idx).unwrap();
                // The smallest tile that holds the row, and never a smaller one for a longer row.
                assert!(cols <= (BLOCK * row_items(t, kb, idx)) as u64);
                assert!(t == 0 || cols > (BLOCK * row_items(t - 1, kb, idx)) as u64);
                assert!(t >= last);
                last = t;
            }
        }
        assert_eq!(row_items(row_tile(4096, 4, false).unwrap(), 4, false), 11);
    }

    #[test]
    fn row_smem_fits_the_blocks_asked_for() {
        for (kb, idx) in [(4, false), (4, true), (8, false), (8, true)] {
            for t in 0..ROW_TILES {
                let (keys, cols, bytes) = row_smem(kb, idx, row_items(t, kb, idx));
                assert!(keys < cols && cols <= bytes);
                // An H100 SM has 228 KiB of shared memory (1 KiB of it per block reserved).
                assert!(row_blocks_per_sm(t, kb, idx) * (bytes + 1024) <= 228 * 1024, "{kb} {idx} {t}");
            }
        }
    }

    #[test]
    fn take_reads_the_first_k_of_each_row() {
        let (rows, cols, k) = (3u32, 5u32, 2u32);
        let got: [u64; 6] = core::array::from_fn(|g| take_source(g as u64, cols, k));
        assert_eq!(got, [0, 1, 5, 6, 10, 11]);
        assert_eq!(take_source((rows * k - 1) as u64, cols, k), 11);
    }
}
