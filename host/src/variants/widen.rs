//! The 16- and 8-bit keys on the 32-bit kernels (`kernels/src/widen/`): every GPU
//! operation but the radix sort (which has kernels of their width) widens narrow keys
//! into `u32` words whose unsigned order is the key's order, runs its `u32` kernels on
//! them, and writes the keys it returns back at their width: from the wide words in
//! IEEE 754 total order, gathered from the input by the positions it found under
//! NaN-last order (so NaN payloads and zero signs are kept).
//!
//! Costs: one pass reading `b` and writing 4 bytes a key (`b` = 2 or 1) before the
//! operation, one pass over the keys returned after it; the operation itself moves
//! 4-byte words, as it does for `u32` keys. NaN-last order adds the NaN-canonical copy
//! of the narrow keys ([`super::nan::canonical_copy`]) before widening.
use kernels::key::Word;
use kernels::params::DevPtr;
use kernels::widen::{self as wk, Narrow, Widen, WidenKernels};

use super::launch::one_thread_per_item;
use crate::device::{DeviceBuffer, Gpu};
use crate::element::{Element, is_narrow};
use crate::error::{Error, Result};
use crate::options::KeyOrder;

/// Threads per block of the widen and narrow kernels.
const BLOCK: u32 = 256;

/// Keys `K`'s ascending masks, as the kernels take them (low bits); records have no
/// narrow keys ([`is_narrow`]) and are refused before these are used.
fn masks<K: Element>() -> (u32, u32) {
    let order = K::BIT_ORDER.unwrap_or(kernels::key::BitOrder::Unsigned);
    let (pos, neg) = order.masks(8 * size_of::<K>() as u32, false);
    (pos as u32, neg as u32)
}

/// The error for a key that is not narrow (the callers check [`is_narrow`]).
fn not_narrow<K: Element>() -> Error {
    Error::BadArgument(format!("widening takes 16- and 8-bit keys, not {}", K::NAME))
}

/// The wide words of the narrow keys `keys` ([`kernels::widen::widen_bits`]): a new
/// buffer of `keys.len()` `u32`s whose unsigned order is `keys`' order in IEEE 754
/// total order or, when `order` is NaN-last for `K`, in NaN-last order (the words of
/// their NaN-canonical copy: every NaN one largest value, both zeros one).
pub fn widen<K: Element>(gpu: &Gpu, keys: &DeviceBuffer<K>, order: KeyOrder) -> Result<DeviceBuffer<u32>> {
    if order.nan_last_for::<K>() {
        let copy = super::nan::canonical_copy(gpu, keys)?;
        return widen_total(gpu, &copy);
    }
    widen_total(gpu, keys)
}

/// [`widen`] in IEEE 754 total order.
fn widen_total<K: Element>(gpu: &Gpu, keys: &DeviceBuffer<K>) -> Result<DeviceBuffer<u32>> {
    if !is_narrow::<K>() {
        return Err(not_narrow::<K>());
    }
    let n = keys.len();
    let wide = gpu.alloc::<u32>(n)?;
    let order = K::BIT_ORDER.unwrap_or(kernels::key::BitOrder::Unsigned);
    widen_at(gpu, keys.ptr(), wide.ptr(), n, size_of::<K>(), order)?;
    Ok(wide)
}

/// The wide words ([`kernels::widen::widen_bits`]) of the `n` narrow keys of
/// `key_bytes` (2 or 1) at device address `src`, ordered by `bit_order`, into the `n`
/// `u32`s at `dst`. Queued.
pub(crate) fn widen_at(
    gpu: &Gpu,
    src: u64,
    dst: u64,
    n: usize,
    key_bytes: usize,
    bit_order: kernels::key::BitOrder,
) -> Result<()> {
    fn launch<N: WidenKernels>(gpu: &Gpu, src: u64, dst: u64, n: usize, (pos, neg): (u64, u64)) -> Result<()> {
        let p = Widen::<N> {
            src: DevPtr::from_addr(src),
            dst: DevPtr::from_addr(dst),
            n: n as u64,
            pos: pos as u32,
            neg: neg as u32,
        };
        gpu.launch(N::WIDEN, one_thread_per_item(n as u64, BLOCK, 0)?, &p)
    }
    if n == 0 {
        return Ok(());
    }
    let masks = bit_order.masks(8 * key_bytes as u32, false);
    match key_bytes {
        2 => launch::<u16>(gpu, src, dst, n, masks),
        1 => launch::<u8>(gpu, src, dst, n, masks),
        _ => Err(Error::BadArgument(format!("widening takes 16- and 8-bit keys, not {key_bytes}-byte ones"))),
    }
}

/// Where [`narrow`] takes the keys it writes.
pub enum KeysFrom<'a, K> {
    /// From the wide words ([`kernels::widen::narrow_bits`]), one per key.
    Wide(&'a DeviceBuffer<u32>),
    /// Gathered from the row-major `keys`, whose rows are `cols` keys long, by the
    /// columns `idx`, whose rows are `keep` long: output `i` is the key of row
    /// `i / keep` at column `idx[i]`. One row (`keep = idx.len()`) gathers by flat
    /// positions.
    Gather {
        /// The operation's input.
        keys: &'a DeviceBuffer<K>,
        /// The columns (flat positions for one row) of the keys returned.
        idx: &'a DeviceBuffer<u32>,
        /// Positions per row of `idx` (at least 1).
        keep: usize,
        /// Keys per row of `keys`.
        cols: usize,
    },
}

impl<'a, K> KeysFrom<'a, K> {
    /// Keys gathered from `keys` at the flat positions `idx`.
    pub fn positions(keys: &'a DeviceBuffer<K>, idx: &'a DeviceBuffer<u32>) -> KeysFrom<'a, K> {
        KeysFrom::Gather { keys, idx, keep: idx.len().max(1), cols: 0 }
    }

    /// The keys an operation returns with positions `idx` of `keys` under `order`:
    /// from the wide words `wide` in total order, gathered under NaN-last order.
    pub fn returned(
        keys: &'a DeviceBuffer<K>,
        wide: &'a DeviceBuffer<u32>,
        idx: &'a DeviceBuffer<u32>,
        order: KeyOrder,
    ) -> KeysFrom<'a, K>
    where
        K: Element,
    {
        if order.nan_last_for::<K>() { KeysFrom::positions(keys, idx) } else { KeysFrom::Wide(wide) }
    }
}

/// Writes the narrow keys of `from` into `dst` (as many as `dst` holds).
pub fn narrow_into<K: Element>(gpu: &Gpu, from: KeysFrom<'_, K>, dst: &mut DeviceBuffer<K>) -> Result<()> {
    let n = dst.len();
    let (wide, gather, idx, keep, cols) = match from {
        KeysFrom::Wide(wide) => {
            if wide.len() < n {
                return Err(Error::BadArgument(format!("{} wide keys narrowed into {n}", wide.len())));
            }
            (wide.dev_ptr(), 0, DevPtr::NULL, 1, 0)
        }
        KeysFrom::Gather { keys, idx, keep, cols } => {
            if idx.len() < n || keep == 0 {
                return Err(Error::BadArgument(format!("{} positions gathered into {n} keys", idx.len())));
            }
            (DevPtr::NULL, keys.ptr(), idx.dev_ptr(), keep as u64, cols as u64)
        }
    };
    if n == 0 {
        return Ok(());
    }
    let (pos, neg) = masks::<K>();
    fn launch<N: WidenKernels>(gpu: &Gpu, p: Narrow<N>) -> Result<()> {
        gpu.launch(N::NARROW, one_thread_per_item(p.n, BLOCK, 0)?, &p)
    }
    let (n, dst_addr) = (n as u64, dst.ptr());
    let gather_addr = gather;
    macro_rules! narrow_params {
        ($w:ty) => {
            Narrow::<$w> {
                wide,
                gather: DevPtr::from_addr(gather_addr),
                idx,
                dst: DevPtr::from_addr(dst_addr),
                n,
                keep,
                cols,
                pos,
                neg,
            }
        };
    }
    match size_of::<K>() {
        2 if is_narrow::<K>() => launch::<u16>(gpu, narrow_params!(u16)),
        1 if is_narrow::<K>() => launch::<u8>(gpu, narrow_params!(u8)),
        _ => Err(not_narrow::<K>()),
    }
}

/// A new buffer of the narrow keys of `from`, `len` of them.
pub fn narrow<K: Element>(gpu: &Gpu, from: KeysFrom<'_, K>, len: usize) -> Result<DeviceBuffer<K>> {
    let mut out = gpu.alloc::<K>(len)?;
    narrow_into(gpu, from, &mut out)?;
    Ok(out)
}

/// Runs `sort` on the wide words of the narrow keys `buf` in IEEE 754 total order and
/// writes the keys back from them: an in-place operation of `u32` keys (sorts) made
/// one of narrow keys.
pub fn with_wide<K: Element>(
    gpu: &Gpu,
    buf: &mut DeviceBuffer<K>,
    sort: impl FnOnce(&mut DeviceBuffer<u32>) -> Result<()>,
) -> Result<()> {
    let mut wide = widen_total(gpu, buf)?;
    sort(&mut wide)?;
    narrow_into(gpu, KeysFrom::Wide(&wide), buf)
}

/// The narrow key of the wide word `wide` read back to the host.
pub fn narrow_word<K: Element>(wide: u32) -> Result<K> {
    let (pos, neg) = masks::<K>();
    let raw = match size_of::<K>() {
        2 if is_narrow::<K>() => wk::narrow_bits::<u16>(wide, pos as u16, neg as u16).to_u64(),
        1 if is_narrow::<K>() => wk::narrow_bits::<u8>(wide, pos as u8, neg as u8).to_u64(),
        _ => return Err(not_narrow::<K>()),
    };
    Ok(bytemuck::pod_read_unaligned(&raw.to_le_bytes()[..size_of::<K>()]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::{bf16, f16};

    /// The host's narrowing of a wide word agrees with the key order of every type:
    /// widening on the CPU (the kernels' portable function) and narrowing back is the
    /// identity, and wide words compare as the keys do.
    #[test]
    fn narrow_word_inverts_the_widening_in_key_order() {
        fn check<K: Element + PartialEq>(keys: &[K]) {
            let (pos, neg) = masks::<K>();
            let wide: Vec<u32> = keys
                .iter()
                .map(|k| {
                    let raw = bytemuck::bytes_of(k).iter().rev().fold(0u64, |a, &b| a << 8 | b as u64);
                    match size_of::<K>() {
                        2 => wk::widen_bits::<u16>(raw as u16, pos as u16, neg as u16),
                        _ => wk::widen_bits::<u8>(raw as u8, pos as u8, neg as u8),
                    }
                })
                .collect();
            for (k, &w) in keys.iter().zip(&wide) {
                let back: K = narrow_word(w).unwrap();
                assert_eq!(bytemuck::bytes_of(&back), bytemuck::bytes_of(k), "{}", K::NAME);
            }
            for a in keys.iter().zip(&wide) {
                for b in keys.iter().zip(&wide) {
                    assert_eq!(a.0.bits().cmp(&b.0.bits()), a.1.cmp(b.1), "{}", K::NAME);
                }
            }
        }
        check::<u16>(&[0, 1, 0x7fff, 0x8000, u16::MAX]);
        check::<i16>(&[i16::MIN, -1, 0, 1, i16::MAX]);
        check::<u8>(&[0, 1, 0x7f, 0x80, u8::MAX]);
        check::<i8>(&[i8::MIN, -1, 0, 1, i8::MAX]);
        let f = |x: f32| f16::from_f32(x);
        check::<f16>(&[
            f16::NAN,
            -f16::NAN,
            f16::NEG_INFINITY,
            f(-1.5),
            f(-0.0),
            f(0.0),
            f(1e-7),
            f16::MAX,
            f16::INFINITY,
        ]);
        let b = |x: f32| bf16::from_f32(x);
        check::<bf16>(&[bf16::NAN, -bf16::NAN, bf16::NEG_INFINITY, b(-1.5), b(-0.0), b(0.0), b(1e-40), bf16::MAX]);
        assert!(narrow_word::<u32>(7).is_err());
    }
}
