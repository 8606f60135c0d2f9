//! Block-level building blocks shared by the tile-based sorts (radix, quick, scan):
//! where a thread's items sit in its tile, block-wide scans, and ranking a tile's items
//! by a small digit.
//!
//! The index math is plain Rust, tested on the host; the device parts (under
//! `target_arch = "nvptx64"`) use shared memory through 32-bit shared addresses
//! (`gpu::lds_u32` and friends).

pub mod network;

/// Calls `f(0)`, `f(1)`, ..., `f(N - 1)` fully unrolled (up to 64), so that arrays
/// indexed by the argument stay in registers. LLVM's unroller gives up on large loop
/// bodies, and a per-item array indexed in a rolled loop lands in local memory.
#[inline(always)]
pub fn unroll<const N: usize>(mut f: impl FnMut(usize)) {
    macro_rules! steps {
        ($($k:literal)*) => { $( if $k < N { f($k) } )* };
    }
    const { assert!(N <= 64, "unroll supports at most 64 steps") };
    steps!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
           32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63);
}

/// Threads of a warp.
pub const WARP: u32 = 32;

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

/// Number of lanes below `lane` whose bit is set in `mask`.
#[inline(always)]
pub const fn lane_rank(mask: u32, lane: u32) -> u32 {
    (mask & ((1u32 << lane) - 1)).count_ones()
}

/// Shared memory of `block_exclusive_sum_u32`: 33 words.
pub const SCAN_SMEM: u32 = 33 * 4;

#[cfg(target_arch = "nvptx64")]
pub use device::*;

#[cfg(target_arch = "nvptx64")]
mod device {
    use super::{SCAN_SMEM, WARP};
    use crate::gpu;

    /// Exclusive prefix sum of one `u64` per thread across the block; returns
    /// `(this thread's exclusive sum, block total)`. Every thread must call it;
    /// `blockDim.x` must be a multiple of 32. `smem` points to 33 free shared `u64`s,
    /// which may be reused once this returns (it ends with a barrier).
    #[inline(always)]
    pub unsafe fn block_exclusive_sum_u64(v: u64, smem: *mut u64) -> (u64, u64) {
        let lane = gpu::lane_id();
        let warp = gpu::thread_idx() / 32;
        let warps = gpu::block_dim() / 32;
        let incl = gpu::warp_inclusive_sum_u64(v);
        unsafe {
            if lane == 31 {
                *smem.add(warp as usize) = incl;
            }
            gpu::sync_threads();
            if warp == 0 {
                let t = if lane < warps { *smem.add(lane as usize) } else { 0 };
                let ti = gpu::warp_inclusive_sum_u64(t);
                // Lane 31 reads slot 31 before anyone writes slots (shuffles above
                // synchronise the warp), so overwriting in place is safe.
                *smem.add(lane as usize) = ti - t;
                if lane == 31 {
                    *smem.add(32) = ti;
                }
            }
            gpu::sync_threads();
            let r = (*smem.add(warp as usize) + incl - v, *smem.add(32));
            gpu::sync_threads();
            r
        }
    }

    /// Exclusive prefix sum of one `u32` per thread across the block; returns
    /// `(this thread's exclusive sum, block total)`. Every thread must call it;
    /// `blockDim.x` must be a multiple of 32 and at most 1024. `scan` is the shared
    /// address of [`SCAN_SMEM`] free bytes, reusable once this returns (it ends with a
    /// barrier).
    #[inline(always)]
    pub unsafe fn block_exclusive_sum_u32(v: u32, scan: u32) -> (u32, u32) {
        let _ = SCAN_SMEM;
        let lane = gpu::lane_id();
        let warp = gpu::thread_idx() / WARP;
        let warps = gpu::block_dim() / WARP;
        let incl = gpu::warp_inclusive_sum_u32(v);
        unsafe {
            if lane == WARP - 1 {
                gpu::sts_u32(scan + 4 * warp, incl);
            }
            gpu::sync_threads();
            if warp == 0 {
                let t = if lane < warps { gpu::lds_u32(scan + 4 * lane) } else { 0 };
                let ti = gpu::warp_inclusive_sum_u32(t);
                // Every lane read its slot before the shuffles, which converge the warp.
                gpu::sts_u32(scan + 4 * lane, ti - t);
                if lane == WARP - 1 {
                    gpu::sts_u32(scan + 4 * WARP, ti);
                }
            }
            gpu::sync_threads();
            let r = (gpu::lds_u32(scan + 4 * warp) + incl - v, gpu::lds_u32(scan + 4 * WARP));
            gpu::sync_threads();
            r
        }
    }

    /// The lanes of the warp whose 8-bit `d` equals this lane's: the warp-level
    /// multi-split's eight ballots, one per bit (on an H100 the `match.any`
    /// instruction, feature `rank-match-any`, made the whole sort 25-30% slower).
    #[inline(always)]
    pub fn same_digit_lanes(d: u32) -> u32 {
        if cfg!(feature = "rank-match-any") { gpu::match_any_u32(d) } else { gpu::match_low8(d) }
    }

    /// Shared-memory addresses used by [`rank_by_digit`].
    #[derive(Clone, Copy)]
    pub struct RankSmem {
        /// `warps * BINS` words: per-warp digit counters, then offsets.
        pub warp_digits: u32,
        /// [`SCAN_SMEM`] bytes for the block scan.
        pub scan: u32,
        /// `BINS` words: where each digit's run starts in the tile (written here).
        pub digit_start: u32,
    }

    /// Ranks the tile's items by their digit, below `BINS` (at most 256; `digit(k)` of
    /// item `k`, computed twice rather than held in `ITEMS` registers), stably: item
    /// `k` of lane `l` of warp `w` (warp-striped, see [`super::warp_striped`]) gets its
    /// position in the tile sorted by digit, ties kept in tile order.
    ///
    /// How: every warp counts its digits (shared atomics); thread `d < BINS` turns the
    /// counts of digit `d` into per-warp offsets and the tile's total of `d`, calls
    /// `on_total(d, total)` (the radix sort publishes it for the look-back there, before
    /// any item is ranked), and a block scan over digits gives `digit_start`; then each
    /// warp walks its items in order, finding the lanes with the same digit
    /// ([`same_digit_lanes`]) and advancing its counter of that digit by their number.
    /// `place(k, rank)` receives each item's rank as soon as it is known (so a caller
    /// that stores the item at once need not hold every rank in registers).
    ///
    /// Every thread must call it with the block's `blockDim.x` threads (a multiple of
    /// 32, at least `BINS`). Ends with a barrier (the counters may be reused after it).
    #[inline(always)]
    pub unsafe fn rank_by_digit<const ITEMS: usize, const BINS: u32>(
        digit: impl Fn(usize) -> u32,
        smem: RankSmem,
        mut on_total: impl FnMut(u32, u32),
        mut place: impl FnMut(usize, u32),
    ) {
        let tid = gpu::thread_idx();
        let (warp, lane) = (tid / WARP, gpu::lane_id());
        let warps = gpu::block_dim() / WARP;
        let mine = smem.warp_digits + warp * 4 * BINS;
        unsafe {
            let mut i = tid;
            while i < warps * BINS {
                gpu::sts_u32(smem.warp_digits + 4 * i, 0);
                i += gpu::block_dim();
            }
            gpu::sync_threads();
            gpu::unroll::<ITEMS>(|k| gpu::reds_add_u32(mine + 4 * digit(k), 1));
            gpu::sync_threads();
            // Thread d: exclusive prefix of digit d over the warps, and d's tile total.
            let mut total = 0;
            if tid < BINS {
                for w in 0..warps {
                    let a = smem.warp_digits + 4 * (w * BINS + tid);
                    let c = gpu::lds_u32(a);
                    gpu::sts_u32(a, total);
                    total += c;
                }
                on_total(tid, total);
            }
            let (start, _) = block_exclusive_sum_u32(total, smem.scan);
            if tid < BINS {
                gpu::sts_u32(smem.digit_start + 4 * tid, start);
                for w in 0..warps {
                    let a = smem.warp_digits + 4 * (w * BINS + tid);
                    gpu::sts_u32(a, gpu::lds_u32(a) + start);
                }
            }
            gpu::sync_threads();
            let below = gpu::lanemask_lt();
            gpu::unroll::<ITEMS>(|k| {
                let d = digit(k);
                let peers = same_digit_lanes(d);
                let a = mine + 4 * d;
                let base = gpu::lds_u32(a);
                gpu::sync_warp();
                if peers & below == 0 {
                    // The lowest lane of the group moves the warp's counter past it.
                    gpu::sts_u32(a, base + peers.count_ones());
                }
                gpu::sync_warp();
                place(k, base + (peers & below).count_ones());
            });
            let _ = lane;
        }
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
    fn block_striped_and_lane_rank() {
        assert_eq!(block_striped(5, 0, 384), 5);
        assert_eq!(block_striped(5, 2, 384), 773);
        assert_eq!(lane_rank(0b1011_0110, 5), 3);
        assert_eq!(lane_rank(u32::MAX, 31), 31);
        assert_eq!(lane_rank(u32::MAX, 0), 0);
    }
}
