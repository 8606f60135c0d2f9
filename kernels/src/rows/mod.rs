//! `rows`: the small kernels that turn a row-major matrix (`rows` x `cols`) into the
//! segmented sort's input and its output into row-wise results, so that
//! `sort_rows`, `argsort_rows` and `top_k_rows` need no host arrays:
//!
//! - `rows_offsets` ([`RowOffsets`]): the segment offsets `i * cols`, `i = 0..=rows`.
//! - `rows_iota` ([`RowIota`]): `idx[i] = i % cols`, each key's index within its row
//!   (the values of a row-wise argsort, as `torch.argsort(dim=-1)` returns them).
//! - `rows_take_*` ([`RowTake`]): the first `k` keys and indices of every sorted row,
//!   packed as a `rows` x `k` matrix (top-k of each row).
use crate::params::{DevPtr, EntryLayout, Kernel};

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

/// The take of keys of word `Self`.
pub trait RowKernels: crate::key::Word {
    const TAKE: Kernel<RowTake<Self>>;
}

impl RowKernels for u32 {
    const TAKE: Kernel<RowTake<u32>> = rows_take_u32;
}

impl RowKernels for u64 {
    const TAKE: Kernel<RowTake<u64>> = rows_take_u64;
}

/// Every entry of this module.
pub const KERNELS: &[EntryLayout] =
    &[rows_offsets.layout(), rows_iota.layout(), rows_take_u32.layout(), rows_take_u64.layout()];

#[cfg(target_arch = "nvptx64")]
mod device;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn take_reads_the_first_k_of_each_row() {
        let (rows, cols, k) = (3u32, 5u32, 2u32);
        let got: [u64; 6] = core::array::from_fn(|g| take_source(g as u64, cols, k));
        assert_eq!(got, [0, 1, 5, 6, 10, 11]);
        assert_eq!(take_source((rows * k - 1) as u64, cols, k), 11);
    }
}
