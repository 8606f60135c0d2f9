//! The record kernels: key extraction and gather (see the module docs; `iota_u32`'s
//! one-line body is written in its entry).
use super::{Gather, RecordKeys};
use crate::block::unroll;
use crate::gpu;
use crate::key::Word;

/// See [`RecordKeys`] and the module docs.
#[inline(always)]
pub(super) unsafe fn record_keys<K: Word, const N: usize>(p: RecordKeys<K>) {
    let RecordKeys { src, record_bytes, key_offset, aligned, n, pos, neg, bits, idx } = p;
    let (src, bits, idx): (*const u8, *mut K, *mut u32) = (src.get(), bits.get(), idx.get());
    let i = gpu::global_idx();
    if i >= n {
        return;
    }
    unsafe {
        let at = src.add((i * record_bytes + key_offset) as usize);
        let raw = if aligned != 0 {
            *(at as *const K)
        } else {
            let mut b = [0u8; N];
            unroll::<N>(|j| b[j] = *at.add(j));
            K::from_u64(super::le_word(b))
        };
        *bits.add(i as usize) = raw.ordered(pos, neg);
        *idx.add(i as usize) = i as u32;
    }
}

/// How a lane moves: a plain copy, or (16 bytes) one vector load and store.
pub(super) trait Lane: Copy {
    unsafe fn copy(src: *const Self, dst: *mut Self);
}
macro_rules! plain_lanes {
    ($($t:ty),*) => {$(
        impl Lane for $t {
            #[inline(always)]
            unsafe fn copy(src: *const Self, dst: *mut Self) {
                unsafe { *dst = *src }
            }
        }
    )*};
}
plain_lanes!(u8, u32, u64);
impl Lane for [u32; 4] {
    #[inline(always)]
    unsafe fn copy(src: *const Self, dst: *mut Self) {
        unsafe { gpu::st_global_v4_u32(dst, gpu::ld_global_v4_u32(src)) }
    }
}

/// `dst` lane `g` = lane `g % lanes` of `src` record `idx[g / lanes]` ([`Gather`]).
#[inline(always)]
pub(super) unsafe fn gather<L: Lane>(p: Gather<L>) {
    let Gather { src, dst, idx, n, lanes } = p;
    let (src, dst, idx): (*const L, *mut L, *const u32) = (src.get(), dst.get(), idx.get());
    let g = gpu::global_idx();
    if g < n * lanes {
        let i = g / lanes;
        let lane = g - i * lanes;
        unsafe {
            let from = *idx.add(i as usize) as u64 * lanes + lane;
            L::copy(src.add(from as usize), dst.add(g as usize));
        }
    }
}
