//! Top-k selection on the device: the first `k` keys of the stable sort of a device
//! buffer and their input indices (`kernels/src/topk/` describes the kernels). The path
//! comes from [`kernels::topk::plan`]:
//!
//! - **Direct** (`k <= 2048`, `n <= 2^16`): one launch of `topk_finish` on the input.
//! - **Sampled** (`k <= 2048`, larger `n`): `topk_gather`, `topk_sample`,
//!   `topk_filter` (the one read of the input; it also zeroes the fallback's state, so
//!   there is no memset) and `topk_finish`; behind them the exact path's launches
//!   (below, with the compaction on a grid of a few blocks per SM and `topk_finish` in
//!   place of the host's sort), which return at once unless the sample missed. No
//!   wait on the host.
//! - **Exact** (larger `k`): as follows.
//!
//! Exact launches: a memset of the control block and of the tile status words; when
//! selecting pays ([`kernels::topk::capacity`]), a histogram and a one-block select per
//! 11-bit digit (3 for 32-bit keys, 6 for 64-bit; those after the decisive one return
//! at once, so the host never waits between them); one compaction; then **one
//! device-to-host read** of the candidate count, and the radix sort of the candidate
//! pairs ([`super::radix::sort_pairs`]). For uniform 32-bit keys one digit suffices
//! up to about 2^27 keys (2^n / 2048 candidates).
use kernels::key::Word;
use kernels::params::DevPtr;
use kernels::topk::{
    self as tk, Compact, Filter, Finish, Gather, Hist, Path, Sample, SamplePlan, Select, State, TopkKernels, ctrl,
};

use super::launch::blocks;
use super::scratch::Scratch;
use crate::device::{DeviceBuffer, Gpu};
use crate::element::Key;
use crate::error::{Error, Result};
use crate::options::{KeyOrder, Order};

/// Histogram blocks per SM ([`crate::Tuning::topk_hist_blocks_per_sm`], which says why
/// two; at least one).
fn hist_blocks_per_sm(gpu: &Gpu) -> u64 {
    gpu.tuning().topk_hist_blocks_per_sm.max(1)
}

/// The first `min(k, n)` elements of the stable sort of `keys` in `order` (ascending:
/// the `k` smallest; descending: the `k` largest), and the input index of each: ties
/// go to the lowest index, exactly `argsort(keys)[..k]` and the keys there. Returns
/// two new device buffers of `min(k, n)` elements each; `keys` is not modified.
/// Queued on the device's stream; the exact path (`k` above 2,048, or keys not on a
/// 16-byte boundary) waits once for its candidate count.
///
/// `k > n` returns all `n` keys sorted; `k = 0` or `n = 0` returns empty buffers.
/// Primitive keys only ([`Error::BadArgument`] for records); at most `u32::MAX` keys
/// (the indices are `u32`). Floats in IEEE 754 total order, or NaN-last ([`KeyOrder`]:
/// NaN the largest value, as in `torch.topk`), which selects on a NaN-canonical copy
/// and gathers the keys' own bits by the indices ([`super::nan`]).
pub fn top_k<K: Key>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    k: usize,
    order: impl Into<KeyOrder>,
) -> Result<(DeviceBuffer<K>, DeviceBuffer<u32>)> {
    top_k_on(gpu, keys, k, order, PathChoice::Planned)
}

/// [`top_k`] with indices of `I`: `u32` (at most `u32::MAX` keys), or `u64`, which
/// also takes arrays of 2^32 keys or more. Those are cut into parts of
/// [`PART_KEYS`]; each part's top-k (its candidates, which hold every key of the
/// answer that lies in the part) is stored with its indices placed in the array, and
/// the candidates, in index order, are sorted stably by key and the first `k` kept.
/// Past 2^32 keys the candidates (`k` from each part) must be fewer than 2^32
/// ([`Error::TooManyElements`] otherwise: an argsort is the tool for such a `k`).
pub fn top_k_indexed<K: Key, I: super::radix::Index>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    k: usize,
    order: impl Into<KeyOrder>,
) -> Result<(DeviceBuffer<K>, DeviceBuffer<I>)> {
    let order = order.into();
    let wide = size_of::<I>() == 8;
    if keys.len() > u32::MAX as usize {
        if !wide {
            return Err(Error::past_u32_indices("top-k", keys.len()));
        }
        let (top, idx) = top_k_by_parts(gpu, keys, k, order, PART_KEYS)?;
        return Ok((top, idx.cast()));
    }
    let (top, idx) = top_k(gpu, keys, k, order)?;
    if !wide {
        return Ok((top, idx.cast()));
    }
    let out = gpu.alloc::<u64>(idx.len())?;
    super::records::widen_indices(gpu, idx.ptr(), out.ptr(), idx.len() as u64, 0)?;
    Ok((top, out.cast()))
}

/// Keys per part of a top-k past 2^32 keys ([`top_k_indexed`]): below 2^32 (each
/// part's indices are `u32`), a multiple of 16 keys so that every part starts as
/// aligned as the array (the sampled path wants 16-byte aligned keys).
pub const PART_KEYS: usize = 1 << 31;

/// [`top_k_indexed`] by parts of `part_keys` keys (a multiple of 16, below 2^32)
/// whatever `n`: so that tests reach the path of 2^32 keys or more with small inputs.
#[doc(hidden)]
pub fn top_k_in_parts<K: Key>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    k: usize,
    order: impl Into<KeyOrder>,
    part_keys: usize,
) -> Result<(DeviceBuffer<K>, DeviceBuffer<u64>)> {
    if part_keys == 0 || !part_keys.is_multiple_of(16) || part_keys > u32::MAX as usize {
        return Err(Error::BadArgument(format!("top-k parts of {part_keys} keys: a multiple of 16 below 2^32")));
    }
    top_k_by_parts(gpu, keys, k, order.into(), part_keys)
}

/// [`top_k_indexed`] of 2^32 keys or more, by parts of `part_keys` keys.
fn top_k_by_parts<K: Key>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    k: usize,
    order: KeyOrder,
    part_keys: usize,
) -> Result<(DeviceBuffer<K>, DeviceBuffer<u64>)> {
    let n = keys.len();
    let parts: Vec<(usize, usize)> = (0..n).step_by(part_keys).map(|at| (at, part_keys.min(n - at))).collect();
    let m: usize = parts.iter().map(|&(_, len)| k.min(len)).sum();
    if m > u32::MAX as usize {
        return Err(Error::TooManyElements {
            what: format!(
                "top-k candidates ({k} from each part of {part_keys} of {n} keys; an argsort sorts them all)"
            ),
            max: u32::MAX as u64,
            len: m as u64,
        });
    }
    let kk = k.min(n);
    if kk == 0 {
        return Ok((gpu.alloc(0)?, gpu.alloc(0)?));
    }
    let (cand_keys, cand_idx) = (gpu.alloc::<K>(m)?, gpu.alloc::<u64>(m)?);
    let mut at = 0;
    for &(start, len) in &parts {
        let part = gpu.view(keys, start, len)?;
        let (top, idx) = top_k(gpu, &part, k, order)?;
        let got = top.len();
        gpu.copy_raw(cand_keys.ptr_at(at), top.ptr(), (got * size_of::<K>()) as u64)?;
        super::records::widen_indices(gpu, idx.ptr(), cand_idx.ptr_at(at), got as u64, start as u64)?;
        at += got;
    }
    // The candidates are in index order, so the stable sort keeps ties by index.
    let mut perm = gpu.alloc::<u32>(m)?;
    super::radix::argsort_ordered_into(gpu, &cand_keys, &mut perm, order, None, crate::options::Ties::Stable)?;
    perm.truncate(kk);
    let (mut out_keys, mut out_idx) = (gpu.alloc::<K>(kk)?, gpu.alloc::<u64>(kk)?);
    super::records::gather_from(gpu, &cand_keys, &mut out_keys, &perm)?;
    super::records::gather_from(gpu, &cand_idx, &mut out_idx, &perm)?;
    Ok((out_keys, out_idx))
}

/// Which path [`top_k_on`] takes: the planned one ([`kernels::topk::plan`]) or, to
/// compare them, always the exact one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathChoice {
    /// The path [`kernels::topk::plan`] chooses.
    Planned,
    /// The exact path (radix select, compaction, radix sort of the candidates).
    Exact,
}

/// [`top_k`] on the path `choice` says (the results are the same on every path).
pub fn top_k_on<K: Key>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    k: usize,
    order: impl Into<KeyOrder>,
    choice: PathChoice,
) -> Result<(DeviceBuffer<K>, DeviceBuffer<u32>)> {
    let order = order.into();
    if crate::element::is_narrow::<K>() {
        // 16- and 8-bit keys: the top-k of their wide words ([`super::widen`]).
        Error::check_u32_indices("top-k", keys.len())?;
        let wide = super::widen::widen(gpu, keys, order)?;
        let (top, idx) = top_k_total::<u32>(gpu, &wide, k, order.order, choice)?;
        let from = super::widen::KeysFrom::returned(keys, &top, &idx, order);
        let out = super::widen::narrow(gpu, from, idx.len())?;
        return Ok((out, idx));
    }
    if !order.nan_last_for::<K>() {
        return top_k_total(gpu, keys, k, order.order, choice);
    }
    // NaN-last: the top-k of the canonical copy (every NaN the largest key, all equal,
    // ties to the lowest index as always), then the keys' own bits by the indices.
    Error::check_u32_indices("top-k", keys.len())?;
    let copy = super::nan::canonical_copy(gpu, keys)?;
    let (mut out_keys, out_idx) = top_k_total(gpu, &copy, k, order.order, choice)?;
    super::records::gather_from(gpu, keys, &mut out_keys, &out_idx)?;
    Ok((out_keys, out_idx))
}

/// [`top_k_on`] in IEEE 754 total order.
fn top_k_total<K: Key>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    k: usize,
    order: Order,
    choice: PathChoice,
) -> Result<(DeviceBuffer<K>, DeviceBuffer<u32>)> {
    let n = keys.len();
    Error::check_u32_indices("top-k", n)?;
    let kk = k.min(n);
    if kk == 0 {
        return Ok((gpu.alloc(0)?, gpu.alloc(0)?));
    }
    let aligned = keys.ptr().is_multiple_of(16);
    match (choice, tk::plan(n as u64, kk as u64, aligned)) {
        (PathChoice::Planned, Path::Direct) => direct(gpu, keys, kk, order),
        (PathChoice::Planned, Path::Sampled(plan)) => sampled(gpu, keys, kk, order, plan),
        _ => exact(gpu, keys, kk, order),
    }
}

/// The order masks of `K` in `order`, as the key words the kernels move (`K::Bits`).
pub(super) fn masks<K: Key>(order: Order) -> (K::Bits, K::Bits) {
    let width = 8 * size_of::<K>() as u32;
    let (pos, neg) = K::KEY_ORDER.masks(width, order.is_descending());
    (K::Bits::from_u64(pos), K::Bits::from_u64(neg))
}

/// Launches `topk_finish` (one block; its shared memory is above the default).
fn launch_finish<K: Key>(gpu: &Gpu, p: &Finish<K::Bits>) -> Result<()> {
    let kernel = <K::Bits as TopkKernels>::FINISH;
    gpu.set_max_dynamic_smem(kernel.name(), tk::FINISH_SMEM)?;
    gpu.launch(kernel, blocks(1, tk::FINISH_BLOCK, tk::FINISH_SMEM)?, p)
}

/// The direct path: `topk_finish` on the whole input.
fn direct<K: Key>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    kk: usize,
    order: Order,
) -> Result<(DeviceBuffer<K>, DeviceBuffer<u32>)> {
    let (pos, neg) = masks::<K>(order);
    let out_keys = gpu.alloc::<K>(kk)?;
    let out_idx = gpu.alloc::<u32>(kk)?;
    let finish = Finish {
        keys: keys.dev_ptr().cast(),
        idx: DevPtr::NULL,
        len: keys.len() as u64,
        stage: tk::finish::ALL,
        k: kk as u64,
        pos,
        neg,
        ctrl: DevPtr::NULL,
        out_keys: out_keys.dev_ptr().cast(),
        out_idx: out_idx.dev_ptr(),
    };
    launch_finish::<K>(gpu, &finish)?;
    Ok((out_keys, out_idx))
}

/// The sampled path, with the exact path queued behind it as its fallback. The
/// kernels zero their own state (no memset), and the first launches are queued before
/// the outputs are allocated, so the device starts at once.
fn sampled<K: Key>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    kk: usize,
    order: Order,
    plan: SamplePlan,
) -> Result<(DeviceBuffer<K>, DeviceBuffer<u32>)> {
    let n = keys.len();
    let n64 = n as u64;
    let width = 8 * size_of::<K>() as u32;
    let (pos, neg) = masks::<K>(order);
    let cap = plan.cap as usize;
    let tiles = n64.div_ceil(tk::COMPACT_TILE as u64);
    let key_words = size_of::<K>() / 4;
    let words = [ctrl::WORDS as usize, 2 * tiles as usize, cap * key_words, cap, 2 * plan.samples as usize];
    let mut scratch = Scratch::take(gpu, &words)?;
    let [ctrl_buf, status, cand_keys, cand_idx, ords] = &mut scratch.bufs[..] else { unreachable!("five buffers") };
    let ctrl_ptr: DevPtr<u64> = ctrl_buf.dev_ptr().cast();
    let status: DevPtr<u64> = status.dev_ptr().cast();
    let keys_ptr: DevPtr<K::Bits> = keys.dev_ptr().cast();
    let (cand_keys, cand_idx): (DevPtr<K::Bits>, DevPtr<u32>) = (cand_keys.dev_ptr().cast(), cand_idx.dev_ptr());
    let ords: DevPtr<u64> = ords.dev_ptr().cast();
    let sms = gpu.info().multiprocessors as u64;

    let gather = Gather { keys: keys_ptr, n: n64, pos, neg, samples: plan.samples, ords };
    let grid = (plan.samples as u64).div_ceil(tk::GATHER_BLOCK as u64);
    gpu.launch(<K::Bits as TopkKernels>::GATHER, blocks(grid, tk::GATHER_BLOCK, 0)?, &gather)?;
    let sample = Sample { ords, samples: plan.samples, rank: plan.rank, width, ctrl: ctrl_ptr };
    gpu.launch(tk::SAMPLE, blocks(1, tk::SAMPLE_BLOCK, tk::SAMPLE_SMEM)?, &sample)?;
    let filter = Filter {
        keys: keys_ptr,
        n: n64,
        pos,
        neg,
        ctrl: ctrl_ptr,
        cap: plan.cap,
        out_keys: cand_keys,
        out_idx: cand_idx,
        status,
        tiles,
    };
    let per_block = tk::FILTER_BLOCK as u64 * tk::FILTER_ITEMS as u64 * 16 / size_of::<K>() as u64;
    let grid = n64.div_ceil(per_block).clamp(1, sms * tk::FILTER_BLOCKS_PER_SM as u64);
    gpu.launch(<K::Bits as TopkKernels>::FILTER, blocks(grid, tk::FILTER_BLOCK, 0)?, &filter)?;

    let out_keys = gpu.alloc::<K>(kk)?;
    let out_idx = gpu.alloc::<u32>(kk)?;
    let mut finish = Finish {
        keys: cand_keys,
        idx: cand_idx,
        len: plan.cap,
        stage: tk::finish::FAST,
        k: kk as u64,
        pos,
        neg,
        ctrl: ctrl_ptr,
        out_keys: out_keys.dev_ptr().cast(),
        out_idx: out_idx.dev_ptr(),
    };
    launch_finish::<K>(gpu, &finish)?;

    // The fallback: each launch returns at once once the answer is written.
    select_passes::<K>(gpu, keys_ptr, n64, pos, neg, ctrl_ptr, width, kk as u64, plan.cap)?;
    let compact =
        Compact { keys: keys_ptr, n: n64, pos, neg, ctrl: ctrl_ptr, status, out_keys: cand_keys, out_idx: cand_idx };
    let grid = tiles.min(sms * COMPACT_FALLBACK_BLOCKS_PER_SM);
    gpu.launch(<K::Bits as TopkKernels>::COMPACT, blocks(grid, tk::COMPACT_BLOCK, tk::COMPACT_SMEM)?, &compact)?;
    finish.stage = tk::finish::EXACT;
    launch_finish::<K>(gpu, &finish)?;
    drop(scratch);
    Ok((out_keys, out_idx))
}

/// Blocks per SM of the sampled path's fallback compaction (the compaction's launch
/// bound): each takes tiles until none is left.
const COMPACT_FALLBACK_BLOCKS_PER_SM: u64 = 2;

/// The histogram and select launches of every digit (those after the decisive one
/// return at once).
#[allow(clippy::too_many_arguments)]
pub(super) fn select_passes<K: Key>(
    gpu: &Gpu,
    keys: DevPtr<K::Bits>,
    n: u64,
    pos: K::Bits,
    neg: K::Bits,
    ctrl: DevPtr<u64>,
    width: u32,
    k: u64,
    cap: u64,
) -> Result<()> {
    let sms = gpu.info().multiprocessors as u64;
    let grid = n.div_ceil(tk::HIST_BLOCK as u64 * tk::HIST_ITEMS as u64).clamp(1, sms * hist_blocks_per_sm(gpu));
    let hist_cfg = blocks(grid, tk::HIST_BLOCK, tk::HIST_SMEM)?;
    let select_cfg = blocks(1, tk::SELECT_BLOCK, kernels::block::scan::SCAN_SMEM)?;
    for pass in 0..tk::passes(width) {
        let hist = Hist { keys, n, pos, neg, pass, ctrl };
        gpu.launch(<K::Bits as TopkKernels>::HIST, hist_cfg, &hist)?;
        gpu.launch(tk::SELECT, select_cfg, &Select { ctrl, pass, width, k, cap })?;
    }
    Ok(())
}

/// The exact path: radix select, compaction, one read of the candidate count, the
/// radix sort of the candidates.
fn exact<K: Key>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    kk: usize,
    order: Order,
) -> Result<(DeviceBuffer<K>, DeviceBuffer<u32>)> {
    let n = keys.len();
    let width = 8 * size_of::<K>() as u32;
    let (pos, neg) = masks::<K>(order);
    let compact_kernel = <K::Bits as TopkKernels>::COMPACT;
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
        Some(cap) => select_passes::<K>(gpu, keys_ptr, n64, pos, neg, ctrl_ptr, width, kk as u64, cap)?,
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
