//! The tile loads and the copy-back of 16- and 8-bit keys (`_k16`, `_k8` entries).
//!
//! A warp-striped tile of 2-byte keys loaded one key per instruction moves 64 bytes a
//! warp-instruction, and ptxas may schedule each key's digit arithmetic between the
//! loads, so that every load waits for the one before (docs/history.md, "16- and 8-bit
//! keys"). The staged load ([`load_tile`]) reads each warp's run of the tile as 16-byte
//! vectors into shared memory and takes the warp-striped items from there: a few loads,
//! all issued before any key is used, since every use is behind the warp barrier.
//!
//! The copy-back copies bytes: 16-byte vectors where the caller's buffer and the
//! scratch buffer share their alignment modulo 16 (the host offsets the scratch
//! buffer so that they do), single bytes for the prefix before the first aligned
//! vector and the tail after the last.
use super::{BLOCK, STAGED_STEPS, STAGED_VECTOR, staged_load};
use crate::block::WARP;
use crate::block::smem::lds_at;
use crate::block::tile::load_striped;
use crate::block::unroll;
use crate::gpu;
use crate::key::Word;

const VEC: u32 = STAGED_VECTOR;
const MAX_VEC_STEPS: usize = STAGED_STEPS as usize;

/// Whether the staged load is built in: the default, and off in the
/// `narrow-plain-load` experiment (one key per load instruction).
const STAGED: bool = !cfg!(feature = "narrow-plain-load");

/// Loads the `valid` keys at `src[start..]` warp-striped, `I` per thread, as
/// [`load_striped`] does. Keys of a whole tile (`valid` = `BLOCK * I`) of a shape that
/// [`staged_load`] takes, at a 16-byte aligned address, go through the warp's share of the
/// shared-memory staging area at byte `stage` (`BLOCK * I * K::BYTES` bytes, free until
/// the block's next barrier); anything else is loaded key by key.
#[inline(always)]
pub(super) unsafe fn load_tile<K: Word, const I: usize>(src: *const K, start: u64, valid: u32, stage: u32) -> [K; I] {
    let kb = K::BYTES;
    let run_bytes = WARP * I as u32 * kb;
    let vecs = run_bytes / VEC;
    let whole = valid == BLOCK * I as u32;
    // The tile's first key: the tile (BLOCK * I keys) is a whole number of vectors,
    // so every warp's run starts aligned when the tile does.
    let first = unsafe { src.add(start as usize) } as usize;
    if !STAGED || !staged_load(kb, I as u32) || !whole || first % VEC as usize != 0 {
        return unsafe { load_striped::<K, I>(src, start, valid) };
    }
    let (warp, lane) = (gpu::thread_idx() / WARP, gpu::lane_id());
    let run = (first + (warp * run_bytes) as usize) as *const [u32; 4];
    let stage = stage + warp * run_bytes;
    let mut v = [[0u32; 4]; MAX_VEC_STEPS];
    unroll::<MAX_VEC_STEPS>(|j| {
        let x = j as u32 * WARP + lane;
        if x < vecs {
            v[j] = unsafe { gpu::ld_global_v4_u32(run.add(x as usize)) };
        }
    });
    unroll::<MAX_VEC_STEPS>(|j| {
        let x = j as u32 * WARP + lane;
        if x < vecs {
            let a = stage + x * VEC;
            unsafe {
                gpu::sts_u64(a, v[j][0] as u64 | (v[j][1] as u64) << 32);
                gpu::sts_u64(a + 8, v[j][2] as u64 | (v[j][3] as u64) << 32);
            }
        }
    });
    gpu::sync_warp();
    let mut out = [K::ZERO; I];
    unroll::<I>(|k| out[k] = unsafe { lds_at::<K>(stage + (k as u32 * WARP + lane) * kb) });
    out
}

/// Copies `bytes` bytes from `from` to `to`, all threads of the grid together, as
/// 16-byte vectors between a byte prefix and a byte tail when both addresses have the
/// same remainder modulo 16 (byte by byte otherwise).
#[inline(always)]
unsafe fn copy_bytes(from: *const u8, to: *mut u8, bytes: u64) {
    let stride = gpu::grid_dim() as u64 * gpu::block_dim() as u64;
    let me = gpu::global_idx();
    let mis = to as u64 % VEC as u64;
    let (head, vecs) = if from as u64 % VEC as u64 == mis {
        let head = ((VEC as u64 - mis) % VEC as u64).min(bytes);
        (head, (bytes - head) / VEC as u64)
    } else {
        (bytes, 0)
    };
    let body = head + vecs * VEC as u64;
    // Vectors: four a thread per step, all loaded before any is stored.
    const STEP: u64 = 4;
    let (vf, vt) = unsafe { (from.add(head as usize) as *const [u32; 4], to.add(head as usize) as *mut [u32; 4]) };
    let mut i = me;
    while i < vecs {
        let mut w = [[0u32; 4]; STEP as usize];
        unroll::<{ STEP as usize }>(|j| {
            let x = i + j as u64 * stride;
            if x < vecs {
                w[j] = unsafe { gpu::ld_global_v4_u32(vf.add(x as usize)) };
            }
        });
        unroll::<{ STEP as usize }>(|j| {
            let x = i + j as u64 * stride;
            if x < vecs {
                unsafe { gpu::st_global_v4_u32(vt.add(x as usize), w[j]) };
            }
        });
        i += STEP * stride;
    }
    // The prefix and the tail (and everything, when the alignments differ).
    let mut i = me;
    while i < head {
        unsafe { *to.add(i as usize) = *from.add(i as usize) };
        i += stride;
    }
    let mut i = body + me;
    while i < bytes {
        unsafe { *to.add(i as usize) = *from.add(i as usize) };
        i += stride;
    }
}

/// The copy-back of narrow keys ([`super::CopyBack`] with `key_words` keys of `K` and
/// `val_words` `u32` values): when the plan left the result in the scratch buffers,
/// copies keys and values back by [`copy_bytes`].
#[inline(always)]
pub(super) unsafe fn copy_back<K: Word>(p: super::CopyBack<K>) {
    let super::CopyBack { keys_b, keys_a, key_words, vals_b, vals_a, val_words, ctrl } = p;
    unsafe {
        if !super::device::result_in_b(ctrl.get()) {
            return;
        }
        copy_bytes(keys_b.get() as *const u8, keys_a.get() as *mut u8, key_words * K::BYTES as u64);
        copy_bytes(vals_b.get() as *const u8, vals_a.get() as *mut u8, val_words * 4);
    }
}
