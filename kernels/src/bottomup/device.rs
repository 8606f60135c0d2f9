//! The bottom-up merge pass on the device (see the module docs).
use super::SlicePass;
use crate::gpu;
use crate::key::SortKey;

/// One pass: thread `t` merges slices `t * per_thread ..` of width `1 << log_width`
/// from `src` into `dst`.
#[inline(always)]
pub unsafe fn pass<T: SortKey>(p: SlicePass<T>) {
    let SlicePass { src, dst, n, log_width, per_thread, direction } = p;
    let (src, dst) = (src.get(), dst.get());
    let desc = direction.is_descending();
    let t = gpu::global_idx();
    unsafe {
        if gpu::carry_by_value::<T>() {
            let load = |x: u64| {
                let v = *src.add(x as usize);
                (v.ord_bits(desc), v)
            };
            super::thread_pass(t, n, log_width, per_thread, load, |o, v| *dst.add(o as usize) = v);
        } else {
            let load = |x: u64| ((*src.add(x as usize)).ord_bits(desc), x);
            let store = |o: u64, x: u64| *dst.add(o as usize) = *src.add(x as usize);
            super::thread_pass(t, n, log_width, per_thread, load, store);
        }
    }
}
