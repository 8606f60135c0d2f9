//! Where a thread's items sit in its block's tile, and the cooperative loads and
//! stores that move a tile between global and shared memory.
//!
//! Two arrangements: *warp-striped* (each warp owns a run of the tile and reads it 32
//! elements at a time: coalesced loads, and the order of `(warp, item, lane)` is the
//! order of the tile) and *block-striped* (step `k` of the block covers `block`
//! consecutive elements, one per thread: coalesced stores of a tile staged in shared
//! memory). The store of a thread's *consecutive* items (a merge's outputs) goes
//! through shared memory and leaves block-striped.
use super::WARP;

/// Offset inside its tile of item `k` of lane `lane` of warp `warp`, in the
/// *warp-striped* arrangement: each warp owns `32 * items` consecutive elements and
/// reads them 32 at a time, so loads are coalesced, and the order `(warp, k, lane)` is
/// the order of the elements in the tile (what makes a warp-by-warp ranking stable).
#[inline(always)]
pub const fn warp_striped(warp: u32, k: u32, lane: u32, items: u32) -> u32 {
    (warp * items + k) * WARP + lane
}

/// Offset of item `k` of thread `t` in the *block-striped* arrangement: step `k` of the
/// block covers `block` consecutive elements, one per thread (coalesced stores of a
/// tile staged in shared memory).
#[inline(always)]
pub const fn block_striped(t: u32, k: u32, block: u32) -> u32 {
    k * block + t
}

#[cfg(target_arch = "nvptx64")]
pub use device::*;

#[cfg(target_arch = "nvptx64")]
mod device {
    use super::{WARP, warp_striped};
    use crate::block::smem::{lds, sts};
    use crate::block::unroll;
    use crate::gpu;
    use crate::key::Word;

    /// Loads the `valid` words at `src[start..]` warp-striped, `I` per thread
    /// ([`warp_striped`]); items past the end are zero.
    #[inline(always)]
    pub unsafe fn load_striped<W: Word, const I: usize>(src: *const W, start: u64, valid: u32) -> [W; I] {
        let (warp, lane) = (gpu::thread_idx() / WARP, gpu::lane_id());
        let mut out = [W::ZERO; I];
        unroll::<I>(|k| {
            let o = warp_striped(warp, k as u32, lane, I as u32);
            if o < valid {
                out[k] = unsafe { *src.add((start + o as u64) as usize) };
            }
        });
        out
    }

    /// Writes this thread's `N` consecutive outputs (first one at position `first`, slot
    /// `first + shift`) to the shared-memory array at byte `tile` ([`lds`]), those at
    /// positions below `count` only (all of them with `FULL`: a whole tile).
    #[inline(always)]
    pub unsafe fn store_blocked<W: Copy, const N: usize, const FULL: bool>(
        tile: u32,
        first: u32,
        count: u32,
        shift: u32,
        v: &[W; N],
    ) {
        unroll::<N>(|k| {
            if FULL || first + (k as u32) < count {
                unsafe { sts(tile, first + shift + k as u32, v[k]) };
            }
        });
    }

    /// Copies `count` elements of the shared-memory array at byte `tile` to `dst` as
    /// they are, `TB` (the block's threads) consecutive ones per step: block-striped,
    /// coalesced.
    #[inline(always)]
    pub unsafe fn copy_striped<V: Copy, const N: usize, const FULL: bool, const TB: u32>(
        tile: u32,
        dst: *mut V,
        count: u32,
    ) {
        let t = gpu::thread_idx();
        unroll::<N>(|k| {
            let x = k as u32 * TB + t;
            if FULL || x < count {
                unsafe { *dst.add(x as usize) = lds::<V>(tile, x) };
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warp_striped_covers_the_tile_in_order() {
        let (warps, items) = (3u32, 5u32);
        let mut seen = [false; 3 * 5 * 32];
        let mut last = None;
        for w in 0..warps {
            for k in 0..items {
                for l in 0..WARP {
                    let o = warp_striped(w, k, l, items) as usize;
                    assert!(!seen[o]);
                    seen[o] = true;
                    // (warp, k, lane) order is tile order: what makes ranking stable.
                    assert!(last.is_none_or(|p| p < o));
                    last = Some(o);
                }
            }
        }
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn block_striped_steps_cover_the_block() {
        assert_eq!(block_striped(5, 0, 384), 5);
        assert_eq!(block_striped(5, 2, 384), 773);
    }
}
