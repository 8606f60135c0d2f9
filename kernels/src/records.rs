//! Records of any size sorted by a key field: the order bits of each record's key and
//! its index are sorted as pairs (by the radix sort), then the records are permuted by
//! a gather.
//!
//! * `record_keys_k32` / `record_keys_k64`: `bits[i]` = order bits of the 4- or 8-byte
//!   key at byte `key_offset` of record `i`, `idx[i] = i`. Keys that are not naturally
//!   aligned in memory are assembled from bytes (the host says which, see
//!   [`key_is_aligned`]).
//! * `gather_b1`, `gather_b4`, `gather_b8`, `gather_b16`: `dst` record `i` = `src`
//!   record `idx[i]`, one thread per lane of [`lane_bytes`] bytes, so that consecutive
//!   threads store consecutive lanes (coalesced) and wide records move in 16-byte
//!   loads and stores.

/// Widest lane (1, 4, 8 or 16 bytes) that divides the record size and the alignment of
/// both buffers: the gather moves records in lanes of that many bytes.
pub const fn lane_bytes(record_bytes: u64, src_addr: u64, dst_addr: u64) -> u32 {
    let mut lane = 16;
    while lane > 1 {
        let l = lane as u64;
        if record_bytes.is_multiple_of(l) && src_addr.is_multiple_of(l) && dst_addr.is_multiple_of(l) {
            return lane;
        }
        lane = if lane == 16 {
            8
        } else if lane == 8 {
            4
        } else {
            1
        };
    }
    1
}

/// Whether the key of `key_bytes` at `key_offset` of every record is naturally aligned
/// (so the key kernel loads it as one word) in a buffer starting at `base_addr`.
pub const fn key_is_aligned(record_bytes: u64, key_offset: u64, key_bytes: u64, base_addr: u64) -> bool {
    record_bytes.is_multiple_of(key_bytes)
        && key_offset.is_multiple_of(key_bytes)
        && base_addr.is_multiple_of(key_bytes)
}

/// The little-endian word of `N` bytes at `bytes` (what an unaligned key reads as).
#[inline(always)]
pub fn le_word<const N: usize>(bytes: [u8; N]) -> u64 {
    let mut w = 0u64;
    let mut i = N;
    while i > 0 {
        i -= 1;
        w = (w << 8) | bytes[i] as u64;
    }
    w
}

/// [`le_word`] of a slice of at most 8 bytes (host side).
pub fn le_word_slice(bytes: &[u8]) -> u64 {
    bytes.iter().rev().fold(0u64, |w, &b| (w << 8) | b as u64)
}

#[cfg(target_arch = "nvptx64")]
mod device {
    use crate::gpu;
    use crate::radix::Word;

    /// See the module docs. `aligned`: [`super::key_is_aligned`] (uniform branch).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn record_keys<K: Word, const N: usize>(
        src: *const u8,
        record_bytes: u64,
        key_offset: u64,
        aligned: u32,
        n: u64,
        pos: K,
        neg: K,
        bits: *mut K,
        idx: *mut u32,
    ) {
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
                gpu::unroll::<N>(|j| b[j] = *at.add(j));
                K::from_u64(super::le_word(b))
            };
            *bits.add(i as usize) = raw.ordered(pos, neg);
            *idx.add(i as usize) = i as u32;
        }
    }

    #[unsafe(no_mangle)]
    #[allow(clippy::too_many_arguments)]
    pub unsafe extern "ptx-kernel" fn record_keys_k32(
        src: *const u8,
        record_bytes: u64,
        key_offset: u64,
        aligned: u32,
        n: u64,
        pos: u32,
        neg: u32,
        bits: *mut u32,
        idx: *mut u32,
    ) {
        unsafe { record_keys::<u32, 4>(src, record_bytes, key_offset, aligned, n, pos, neg, bits, idx) }
    }

    #[unsafe(no_mangle)]
    #[allow(clippy::too_many_arguments)]
    pub unsafe extern "ptx-kernel" fn record_keys_k64(
        src: *const u8,
        record_bytes: u64,
        key_offset: u64,
        aligned: u32,
        n: u64,
        pos: u64,
        neg: u64,
        bits: *mut u64,
        idx: *mut u32,
    ) {
        unsafe { record_keys::<u64, 8>(src, record_bytes, key_offset, aligned, n, pos, neg, bits, idx) }
    }

    /// How a lane moves: a plain copy, or (16 bytes) one vector load and store.
    trait Lane: Copy {
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

    /// `dst` lane `g` = lane `g % lanes` of `src` record `idx[g / lanes]`.
    #[inline(always)]
    unsafe fn gather<L: Lane>(src: *const L, dst: *mut L, idx: *const u32, n: u64, lanes: u64) {
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

    macro_rules! gather_entries {
        ($($name:ident: $lane:ty),*) => {$(
            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn $name(
                src: *const $lane, dst: *mut $lane, idx: *const u32, n: u64, lanes: u64,
            ) {
                unsafe { gather(src, dst, idx, n, lanes) }
            }
        )*};
    }
    gather_entries!(gather_b1: u8, gather_b4: u32, gather_b8: u64, gather_b16: [u32; 4]);

    /// `idx[i] = i`: the values of an argsort on the device.
    #[unsafe(no_mangle)]
    pub unsafe extern "ptx-kernel" fn iota_u32(idx: *mut u32, n: u64) {
        let i = gpu::global_idx();
        if i < n {
            unsafe { *idx.add(i as usize) = i as u32 };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_are_the_widest_that_divide_size_and_both_addresses() {
        assert_eq!(lane_bytes(32, 0, 256), 16);
        assert_eq!(lane_bytes(20, 0, 256), 4);
        assert_eq!(lane_bytes(24, 0, 256), 8);
        assert_eq!(lane_bytes(32, 8, 256), 8);
        assert_eq!(lane_bytes(32, 0, 4), 4);
        assert_eq!(lane_bytes(7, 0, 0), 1);
        assert_eq!(lane_bytes(6, 0, 0), 1);
        assert_eq!(lane_bytes(16, 2, 0), 1);
    }

    #[test]
    fn key_alignment_needs_size_offset_and_base() {
        assert!(key_is_aligned(32, 4, 4, 256));
        assert!(!key_is_aligned(32, 2, 4, 256));
        assert!(!key_is_aligned(20, 8, 8, 256));
        assert!(key_is_aligned(24, 16, 8, 256));
        assert!(!key_is_aligned(24, 16, 8, 4));
    }

    #[test]
    fn unaligned_keys_read_little_endian() {
        assert_eq!(le_word([0x78, 0x56, 0x34, 0x12]), 0x1234_5678);
        let x = -3.5f64;
        assert_eq!(le_word(x.to_le_bytes()), x.to_bits());
        assert_eq!(le_word_slice(&x.to_le_bytes()), x.to_bits());
        assert_eq!(le_word_slice(&[1, 2]), 0x0201);
    }
}
