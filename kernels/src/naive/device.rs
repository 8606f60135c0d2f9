//! The naive merge pass on the device (see the module docs).
use super::MergePass;
use crate::gpu;
use crate::key::SortKey;

/// One pass of the basic rank merge: every thread moves one element.
#[inline(always)]
pub unsafe fn merge_pass<T: SortKey>(p: MergePass<T>) {
    let MergePass { src, dst, n, log_chunk, direction } = p;
    let (src, dst) = (src.get(), dst.get());
    let i = gpu::global_idx();
    if i >= n {
        return;
    }
    let desc = direction.is_descending();
    unsafe {
        let t = super::merge_target(i, n, log_chunk, |j| (*src.add(j as usize)).ord_bits(desc));
        *dst.add(t as usize) = *src.add(i as usize);
    }
}
