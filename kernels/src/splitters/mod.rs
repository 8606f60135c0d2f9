//! Splitters of the multi-GPU sample sort (`host::multi_gpu`): each GPU's sorted part
//! is sampled at regular positions, the host picks the splitters from all samples, and
//! each GPU counts how many of its keys fall before each splitter.
//!
//! Keys are exchanged with the host as their order bits ([`crate::SortKey::ord_bits`],
//! widened to `u64`), so the host compares every key type and both orders the same way.
//!
//! * `splitter_samples_<t>`: `out[i]` = order bits of the key at [`sample_position`]
//!   `(i, samples, n)`, one thread per sample.
//! * `splitter_bounds_<t>`: for each splitter `s`, `out[2s]` = keys `< s` and
//!   `out[2s + 1]` = keys `<= s` (order bits; the part is sorted), one thread per
//!   splitter.
//! * `splitter_samples_jittered_<t>`: for an *unsorted* part (the partition-first
//!   pipeline), `out[2i]` = order bits and `out[2i + 1]` = position of the key at
//!   [`jittered_position`]`(i, samples, n)`: one key from each of `samples` equal
//!   slices, at a pseudo-random place inside it, so that data repeating with the
//!   slices' period is not sampled at one phase of it.

/// Position of sample `i` of `samples` taken from a sorted part of `n` keys: the middle
/// of the `i`-th of `samples` equal slices, so samples stand for equal shares of the
/// part. Requires `i < samples <= n`.
pub const fn sample_position(i: u64, samples: u64, n: u64) -> u64 {
    ((2 * i as u128 + 1) * n as u128 / (2 * samples as u128)) as u64
}

/// Position of sample `i` of `samples` taken from an unsorted part of `n` keys: inside
/// the `i`-th of `samples` equal slices, at a place that a hash of `(i, n)` picks
/// (deterministic, so runs repeat). Requires `i < samples <= n`; positions increase
/// with `i`, and with `samples == n` every key is sampled.
pub const fn jittered_position(i: u64, samples: u64, n: u64) -> u64 {
    let lo = (i as u128 * n as u128 / samples as u128) as u64;
    let hi = ((i as u128 + 1) * n as u128 / samples as u128) as u64;
    lo + mix(i ^ n.rotate_left(32)) % (hi - lo)
}

/// SplitMix64's finaliser: a well-spread hash of `x`.
const fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Samples taken from a part of `n` keys when at most `max` are wanted: every key of a
/// small part (so a tiny part is sampled exactly), `max` otherwise.
pub const fn sample_count(n: u64, max: u64) -> u64 {
    if n < max { n } else { max }
}

#[cfg(target_arch = "nvptx64")]
mod device {
    use crate::gpu;
    use crate::key::SortKey;
    use crate::search::{count_less, count_less_eq};

    #[inline(always)]
    unsafe fn samples<T: SortKey>(keys: *const T, n: u64, samples: u64, descending: u32, out: *mut u64) {
        let i = gpu::global_idx();
        if i >= samples {
            return;
        }
        unsafe {
            let k = *keys.add(super::sample_position(i, samples, n) as usize);
            *out.add(i as usize) = k.ord_bits(descending != 0).into();
        }
    }

    #[inline(always)]
    unsafe fn jittered<T: SortKey>(keys: *const T, n: u64, samples: u64, descending: u32, out: *mut u64) {
        let i = gpu::global_idx();
        if i >= samples {
            return;
        }
        unsafe {
            let at = super::jittered_position(i, samples, n);
            *out.add(2 * i as usize) = (*keys.add(at as usize)).ord_bits(descending != 0).into();
            *out.add(2 * i as usize + 1) = at;
        }
    }

    #[inline(always)]
    unsafe fn bounds<T: SortKey>(
        keys: *const T,
        n: u64,
        splitters: *const u64,
        count: u64,
        descending: u32,
        out: *mut u64,
    ) {
        let s = gpu::global_idx();
        if s >= count {
            return;
        }
        let desc = descending != 0;
        unsafe {
            let key = *splitters.add(s as usize);
            let at = |j: u64| -> u64 { (*keys.add(j as usize)).ord_bits(desc).into() };
            *out.add(2 * s as usize) = count_less(n, key, at);
            *out.add(2 * s as usize + 1) = count_less_eq(n, key, at);
        }
    }

    macro_rules! splitter_entries {
        ($t:ty, $suffix:ident) => {
            paste::paste! {
                #[unsafe(no_mangle)]
                pub unsafe extern "ptx-kernel" fn [<splitter_samples_ $suffix>](
                    keys: *const $t, n: u64, count: u64, descending: u32, out: *mut u64,
                ) {
                    unsafe { samples::<$t>(keys, n, count, descending, out) }
                }

                #[unsafe(no_mangle)]
                pub unsafe extern "ptx-kernel" fn [<splitter_samples_jittered_ $suffix>](
                    keys: *const $t, n: u64, count: u64, descending: u32, out: *mut u64,
                ) {
                    unsafe { jittered::<$t>(keys, n, count, descending, out) }
                }

                #[unsafe(no_mangle)]
                pub unsafe extern "ptx-kernel" fn [<splitter_bounds_ $suffix>](
                    keys: *const $t, n: u64, splitters: *const u64, count: u64, descending: u32, out: *mut u64,
                ) {
                    unsafe { bounds::<$t>(keys, n, splitters, count, descending, out) }
                }
            }
        };
    }
    crate::for_each_key_type!(splitter_entries);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_are_inside_and_increasing() {
        for n in 1..200u64 {
            for max in [1u64, 2, 3, 7, 64, 4096] {
                let s = sample_count(n, max);
                assert!(s >= 1 && s <= n.min(max));
                let mut last = None;
                for i in 0..s {
                    let p = sample_position(i, s, n);
                    assert!(p < n, "n {n} s {s} i {i}");
                    assert!(last.is_none_or(|l| p > l), "positions strictly increase");
                    last = Some(p);
                }
                if n <= max {
                    assert_eq!(s, n);
                }
            }
        }
        // Jittered positions: inside their slice, increasing, every key when all are
        // sampled.
        for n in 1..300u64 {
            for max in [1u64, 3, 64, 4096] {
                let s = sample_count(n, max);
                let mut last = None;
                for i in 0..s {
                    let p = jittered_position(i, s, n);
                    assert!(p >= i * n / s && p < (i + 1) * n / s, "n {n} s {s} i {i}");
                    assert!(last.is_none_or(|l| p > l));
                    last = Some(p);
                    if s == n {
                        assert_eq!(p, i);
                    }
                }
            }
        }
        // No overflow near the top of the range.
        let n = u64::MAX / 2;
        let last = sample_position(4095, 4096, n);
        assert!(last < n && last > n - n / 4096);
    }
}
