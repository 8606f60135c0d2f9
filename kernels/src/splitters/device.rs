//! The splitter kernels' bodies (see the module doc of `splitters`), each taking its
//! entry's parameter struct.
use super::{Bounds, Samples};
use crate::gpu;
use crate::key::SortKey;
use crate::search::{count_less, count_less_eq};

/// `splitter_samples_*`: sample `i` at [`super::sample_position`].
#[inline(always)]
pub(super) unsafe fn samples<T: SortKey>(p: Samples<T>) {
    let Samples { keys, n, count: samples, direction, out } = p;
    let (keys, out) = (keys.get(), out.get());
    let i = gpu::global_idx();
    if i >= samples {
        return;
    }
    unsafe {
        let k = *keys.add(super::sample_position(i, samples, n) as usize);
        *out.add(i as usize) = k.ord_bits(direction.is_descending()).into();
    }
}

/// `splitter_samples_jittered_*`: sample `i` at [`super::jittered_position`], with its
/// position.
#[inline(always)]
pub(super) unsafe fn jittered<T: SortKey>(p: Samples<T>) {
    let Samples { keys, n, count: samples, direction, out } = p;
    let (keys, out) = (keys.get(), out.get());
    let i = gpu::global_idx();
    if i >= samples {
        return;
    }
    unsafe {
        let at = super::jittered_position(i, samples, n);
        *out.add(2 * i as usize) = (*keys.add(at as usize)).ord_bits(direction.is_descending()).into();
        *out.add(2 * i as usize + 1) = at;
    }
}

/// `splitter_bounds_*`: the bounds of splitter `s` by binary searches of the sorted
/// part.
#[inline(always)]
pub(super) unsafe fn bounds<T: SortKey>(p: Bounds<T>) {
    let Bounds { keys, n, splitters, count, direction, out } = p;
    let (keys, splitters, out) = (keys.get(), splitters.get(), out.get());
    let s = gpu::global_idx();
    if s >= count {
        return;
    }
    let desc = direction.is_descending();
    unsafe {
        let key = *splitters.add(s as usize);
        let at = |j: u64| -> u64 { (*keys.add(j as usize)).ord_bits(desc).into() };
        *out.add(2 * s as usize) = count_less(n, key, at);
        *out.add(2 * s as usize + 1) = count_less_eq(n, key, at);
    }
}
