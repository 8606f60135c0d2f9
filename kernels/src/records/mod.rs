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
//! * `iota_u32`: `idx[i] = i`, the values of an argsort on the device (the radix
//!   launcher's, `host::variants::radix`); `iota_u64` the same as `u64`, for arrays of
//!   2^32 keys or more.
//! * `widen_u32_u64`: `dst[i] = base + src[i]` as u64: u32 indices or counts written as
//!   the int64 a caller's array holds (`host::BorrowedBuffer::widen_from`), one read of
//!   4 bytes and one write of 8 per element, instead of a copy and a separate widening;
//!   `base` places the indices of a part of a longer array (top-k past 2^32 keys).
//!
//! The kernels' parameters and entries are declared here; the bodies of the key and
//! gather kernels are in `device.rs`.

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

use crate::params::{DevPtr, EntryLayout, Kernel};

crate::params::kernel_params! {
    /// `bits[i]` = order bits (by the masks `pos` / `neg`) of the key of `K` at byte
    /// `key_offset` of record `i` of `src`, `idx[i] = i` (`record_keys`). `aligned`:
    /// [`key_is_aligned`] (one branch for the whole launch).
    pub struct RecordKeys<K> {
        pub src: DevPtr<u8>,
        pub record_bytes: u64,
        pub key_offset: u64,
        pub aligned: u32,
        pub n: u64,
        pub pos: K,
        pub neg: K,
        pub bits: DevPtr<K>,
        pub idx: DevPtr<u32>,
    }
    /// Declares an entry taking [`RecordKeys`].
    entries record_keys_entry;
}

crate::params::kernel_params! {
    /// `dst` record `i` = `src` record `idx[i]`, moved in `lanes` lanes of `L` per
    /// record (`gather`; `n` records).
    pub struct Gather<L> {
        pub src: DevPtr<L>,
        pub dst: DevPtr<L>,
        pub idx: DevPtr<u32>,
        pub n: u64,
        pub lanes: u64,
    }
    /// Declares an entry taking [`Gather`].
    entries gather_entry;
}

impl Gather<u8> {
    /// The same gather with lanes of `L` (`lanes` must count lanes of `L`).
    pub fn in_lanes<L>(self) -> Gather<L> {
        Gather { src: self.src.cast(), dst: self.dst.cast(), idx: self.idx, n: self.n, lanes: self.lanes }
    }
}

crate::params::kernel_params! {
    /// `idx[i] = i` for `i < n` (`iota_u32`): the values of an argsort on the device.
    pub struct Iota {
        pub idx: DevPtr<u32>,
        pub n: u64,
    }
    /// Declares an entry taking [`Iota`].
    entries iota_entry;
}

crate::params::kernel_params! {
    /// `idx[i] = i` for `i < n` (`iota_u64`): an argsort's values past 2^32 keys.
    pub struct Iota64 {
        pub idx: DevPtr<u64>,
        pub n: u64,
    }
    /// Declares an entry taking [`Iota64`].
    entries iota64_entry;
}

crate::params::kernel_params! {
    /// `dst[i] = base + src[i] as u64` for `i < n` (`widen_u32_u64`).
    pub struct Widen {
        pub src: DevPtr<u32>,
        pub dst: DevPtr<u64>,
        pub n: u64,
        pub base: u64,
    }
    /// Declares an entry taking [`Widen`].
    entries widen_entry;
}

record_keys_entry!(record_keys_k32 { K = u32 } |p| device::record_keys::<u32, 4>(p));
record_keys_entry!(record_keys_k64 { K = u64 } |p| device::record_keys::<u64, 8>(p));
gather_entry!(gather_b1 { L = u8 } |p| device::gather(p));
gather_entry!(gather_b4 { L = u32 } |p| device::gather(p));
gather_entry!(gather_b8 { L = u64 } |p| device::gather(p));
gather_entry!(gather_b16 { L = [u32; 4] } |p| device::gather(p));
iota_entry!(
    iota_u32 {} | p | {
        let i = crate::gpu::global_idx();
        if i < p.n {
            *p.idx.get().add(i as usize) = i as u32;
        }
    }
);

iota64_entry!(
    iota_u64 {} | p | {
        let i = crate::gpu::global_idx();
        if i < p.n {
            *p.idx.get().add(i as usize) = i;
        }
    }
);

widen_entry!(
    widen_u32_u64 {} | p | {
        let i = crate::gpu::global_idx();
        if i < p.n {
            *p.dst.get().add(i as usize) = p.base + *p.src.get().add(i as usize) as u64;
        }
    }
);

/// The key extraction of keys `K`.
pub trait RecordKeysKernel: crate::key::Word {
    const RECORD_KEYS: Kernel<RecordKeys<Self>>;
}

impl RecordKeysKernel for u32 {
    const RECORD_KEYS: Kernel<RecordKeys<u32>> = record_keys_k32;
}

impl RecordKeysKernel for u64 {
    const RECORD_KEYS: Kernel<RecordKeys<u64>> = record_keys_k64;
}

/// Every entry of this module.
pub const KERNELS: &[EntryLayout] = &[
    record_keys_k32.layout(),
    record_keys_k64.layout(),
    gather_b1.layout(),
    gather_b4.layout(),
    gather_b8.layout(),
    gather_b16.layout(),
    iota_u32.layout(),
    iota_u64.layout(),
    widen_u32_u64.layout(),
];

#[cfg(target_arch = "nvptx64")]
mod device;

#[cfg(test)]
mod tests;
