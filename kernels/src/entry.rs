//! Kernel entry points: thin `extern "ptx-kernel"` wrappers, one per algorithm step
//! and element type, named `<step>_<type suffix>` (see `SortKey::NAME`). Pointers are
//! raw device addresses; lengths and indices are 64-bit.
use crate::gpu;
use crate::key::SortKey;

/// One pass of the basic rank merge (`naive`): every thread moves one element.
#[inline(always)]
unsafe fn naive_merge_pass<T: SortKey>(src: *const T, dst: *mut T, n: u64, log_chunk: u32, descending: u32) {
    let i = gpu::global_idx();
    if i >= n {
        return;
    }
    let desc = descending != 0;
    unsafe {
        let t = crate::naive::merge_target(i, n, log_chunk, |j| (*src.add(j as usize)).ord_bits(desc));
        *dst.add(t as usize) = *src.add(i as usize);
    }
}

macro_rules! naive_entry {
    ($t:ty, $suffix:ident) => {
        paste::paste! {
            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn [<naive_merge_pass_ $suffix>](
                src: *const $t, dst: *mut $t, n: u64, log_chunk: u32, descending: u32,
            ) {
                unsafe { naive_merge_pass::<$t>(src, dst, n, log_chunk, descending) }
            }
        }
    };
}
crate::for_each_key_type!(naive_entry);
