//! The row kernels' bodies that are more than one line (see the module docs).
use super::{RowTake, take_source};
use crate::gpu;

/// See [`RowTake`].
#[inline(always)]
pub(super) unsafe fn take<K: Copy>(p: RowTake<K>) {
    let g = gpu::global_idx();
    if g < p.rows as u64 * p.k as u64 {
        let from = take_source(g, p.cols, p.k) as usize;
        unsafe {
            *p.dst.get().add(g as usize) = *p.src.get().add(from);
            *p.dst_idx.get().add(g as usize) = *p.src_idx.get().add(from);
        }
    }
}
