//! Top-k selection on the device: the first `k` keys of the stable sort of a device
//! buffer and their input indices, by a radix select and a compaction
//! (`kernels/src/topk/` describes the kernels), then the radix sort of the few
//! candidates.
//!
//! Launches: a memset of the control block and of the tile status words; when
//! selecting pays ([`kernels::topk::capacity`]), a histogram and a one-block select per
//! 11-bit digit (3 for 32-bit keys, 6 for 64-bit; those after the decisive one return
//! at once, so the host never waits between them); one compaction; then **one
//! device-to-host read** of the candidate count, and the radix sort of the candidate
//! pairs ([`super::radix::sort_pairs`]). For uniform 32-bit keys one digit suffices
//! up to about 2^27 keys (2^n / 2048 candidates).
use kernels::key::Word;
use kernels::params::DevPtr;
use kernels::topk::{self as tk, Compact, Hist, Select, State, TopkKernels, ctrl};

use super::launch::blocks;
use super::scratch::Scratch;
use crate::device::{DeviceBuffer, Gpu};
use crate::element::Key;
use crate::error::{Error, Result};
use crate::options::Order;

/// Histogram blocks per SM ([`crate::Tuning::topk_hist_blocks_per_sm`], which says why
/// two; at least one).
fn hist_blocks_per_sm(gpu: &Gpu) -> u64 {
    gpu.tuning().topk_hist_blocks_per_sm.max(1)
}

/// The first `min(k, n)` elements of the stable sort of `keys` in `order` (ascending:
/// the `k` smallest; descending: the `k` largest), and the input index of each: ties
/// go to the lowest index, exactly `argsort(keys)[..k]` and the keys there. Returns
/// two new device buffers of `min(k, n)` elements each; `keys` is not modified.
/// Queued on the device's stream, with one wait (for the candidate count) when
/// selecting.
///
/// `k > n` returns all `n` keys sorted; `k = 0` or `n = 0` returns empty buffers.
/// Primitive keys only ([`Error::BadArgument`] for records); at most `u32::MAX` keys
/// (the indices are `u32`). Floats in IEEE 754 total order.
pub fn top_k<K: Key>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    k: usize,
    order: Order,
) -> Result<(DeviceBuffer<K>, DeviceBuffer<u32>)> {
    let bit_order = K::KEY_ORDER;
    let n = keys.len();
    Error::check_u32_indices("top-k", n)?;
    let kk = k.min(n);
    if kk == 0 {
        return Ok((gpu.alloc(0)?, gpu.alloc(0)?));
    }
    let width = 8 * size_of::<K>() as u32;
    // The kernels move a key as the unsigned word of its width, `K::Bits`.
    let (pos, neg) = bit_order.masks(width, order.is_descending());
    let (pos, neg) = (K::Bits::from_u64(pos), K::Bits::from_u64(neg));
    let (hist_kernel, compact_kernel) = (<K::Bits as TopkKernels>::HIST, <K::Bits as TopkKernels>::COMPACT);
    let cap = tk::capacity(n as u64, kk as u64);
    let out_len = cap.unwrap_or(n as u64) as usize;
    let mut out_keys = gpu.alloc::<K>(out_len)?;
    let mut out_idx = gpu.alloc::<u32>(out_len)?;

    let tiles = (n as u64).div_ceil(tk::COMPACT_TILE as u64) as usize;
    let mut scratch = Scratch::take(gpu, &[ctrl::WORDS as usize, 2 * tiles])?;
    let [ctrl_buf, status] = &mut scratch.bufs[..] else { unreachable!("two buffers") };
    ctrl_buf.zero_prefix(gpu, ctrl::WORDS as usize)?;
    status.zero_prefix(gpu, 2 * tiles)?;
    let (ctrl_ptr, status_ptr): (DevPtr<u64>, DevPtr<u64>) = (ctrl_buf.dev_ptr().cast(), status.dev_ptr().cast());
    let (keys_ptr, n64): (DevPtr<K::Bits>, u64) = (keys.dev_ptr().cast(), n as u64);

    match cap {
        Some(cap) => {
            let sms = gpu.info().multiprocessors as u64;
            let grid =
                n64.div_ceil(tk::HIST_BLOCK as u64 * tk::HIST_ITEMS as u64).clamp(1, sms * hist_blocks_per_sm(gpu));
            let hist_cfg = blocks(grid, tk::HIST_BLOCK, tk::HIST_SMEM)?;
            let select_cfg = blocks(1, tk::SELECT_BLOCK, kernels::block::scan::SCAN_SMEM)?;
            for pass in 0..tk::passes(width) {
                let hist = Hist { keys: keys_ptr, n: n64, pos, neg, pass, ctrl: ctrl_ptr };
                gpu.launch(hist_kernel, hist_cfg, &hist)?;
                gpu.launch(tk::SELECT, select_cfg, &Select { ctrl: ctrl_ptr, pass, width, k: kk as u64, cap })?;
            }
        }
        None => {
            let s = State::everything(n64);
            let words = [1, s.used as u64, s.prefix, s.before, s.equal, s.quota, s.out()];
            ctrl_buf.write_at(gpu, 0, bytemuck::cast_slice(&words))?;
        }
    }

    let cfg = blocks(tiles as u64, tk::COMPACT_BLOCK, tk::COMPACT_SMEM)?;
    let compact = Compact {
        keys: keys_ptr,
        n: n64,
        pos,
        neg,
        ctrl: ctrl_ptr,
        status: status_ptr,
        out_keys: out_keys.dev_ptr().cast(),
        out_idx: out_idx.dev_ptr(),
    };
    gpu.launch(compact_kernel, cfg, &compact)?;
    let candidates = match cap {
        Some(_) => {
            let mut out = [0u32; 2];
            ctrl_buf.read_at(gpu, 2 * ctrl::OUT as usize, &mut out)?;
            u64::from_le_bytes(bytemuck::cast(out)) as usize
        }
        None => n,
    };
    drop(scratch);
    if candidates < kk || candidates > out_len {
        return Err(Error::BadArgument(format!(
            "top-k: {candidates} candidates for k = {kk} in a buffer of {out_len} (a bug: please report)"
        )));
    }
    out_keys.truncate(candidates);
    out_idx.truncate(candidates);
    super::radix::sort_pairs(gpu, &mut out_keys, &mut out_idx, order, None)?;
    out_keys.truncate(kk);
    out_idx.truncate(kk);
    Ok((out_keys, out_idx))
}
