//! Ranks inside a warp and a tile: a lane's rank among the lanes of a ballot, and the
//! stable ranking of a tile's items by a small digit (the warp-level multi-split).

/// Number of lanes below `lane` whose bit is set in `mask`.
#[inline(always)]
pub const fn lane_rank(mask: u32, lane: u32) -> u32 {
    (mask & ((1u32 << lane) - 1)).count_ones()
}

#[cfg(target_arch = "nvptx64")]
pub use device::*;

#[cfg(target_arch = "nvptx64")]
mod device {
    use crate::block::WARP;
    use crate::block::scan::block_exclusive_sum_u32;
    use crate::block::unroll;
    use crate::gpu;

    /// The lanes of the warp whose 8-bit `d` equals this lane's: the warp-level
    /// multi-split's eight ballots, one per bit (on an H100 the `match.any`
    /// instruction, feature `rank-match-any`, made the whole sort 25-30% slower; masks
    /// built by shared-memory ORs 9-16% slower on an H200: docs/history.md, radix).
    #[inline(always)]
    pub fn same_digit_lanes(d: u32) -> u32 {
        if cfg!(feature = "rank-match-any") { gpu::match_any_u32(d) } else { gpu::match_low8(d) }
    }

    /// Shared-memory addresses used by [`rank_by_digit`].
    #[derive(Clone, Copy)]
    pub struct RankSmem {
        /// `warps * BINS` words: per-warp digit counters, then offsets.
        pub warp_digits: u32,
        /// [`SCAN_SMEM`](crate::block::scan::SCAN_SMEM) bytes for the block scan.
        pub scan: u32,
        /// `BINS` words: where each digit's run starts in the tile (written here).
        pub digit_start: u32,
    }

    /// Ranks the tile's items by their digit, below `BINS` (at most 256; `digit(k)` of
    /// item `k`, computed twice rather than held in `ITEMS` registers), stably: item
    /// `k` of lane `l` of warp `w` (warp-striped, see
    /// [`warp_striped`](crate::block::tile::warp_striped)) gets its position in the
    /// tile sorted by digit, ties kept in tile order.
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
    /// 32, at least `BINS`). The counters are read until the last item is placed: a
    /// barrier must come before they are reused.
    #[inline(always)]
    pub unsafe fn rank_by_digit<const ITEMS: usize, const BINS: u32>(
        digit: impl Fn(usize) -> u32,
        smem: RankSmem,
        on_total: impl FnMut(u32, u32),
        place: impl FnMut(usize, u32),
    ) {
        unsafe { rank_tile::<ITEMS, BINS, false>(digit, smem, on_total, place) }
    }

    /// [`rank_by_digit`], or with `ANY_ORDER` with ties in any order: once the
    /// counters hold each warp's first rank of each digit, an item's rank is the value
    /// its atomic increment of its digit's counter returns, so no lanes are matched,
    /// and items of one digit in one warp step take their ranks in whatever order the
    /// increments land. `ANY_ORDER` only where that cannot show: the first digit pass
    /// of keys sorted by all their bits, where items of equal digits are either
    /// ordered by a later pass or are the same key. Same calls and barrier rule as
    /// [`rank_by_digit`].
    #[inline(always)]
    pub unsafe fn rank_tile<const ITEMS: usize, const BINS: u32, const ANY_ORDER: bool>(
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
            unroll::<ITEMS>(|k| gpu::reds_add_u32(mine + 4 * digit(k), 1));
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
            if ANY_ORDER {
                unroll::<ITEMS>(|k| place(k, gpu::atomic_add_shared_u32(mine + 4 * digit(k), 1)));
                return;
            }
            let below = gpu::lanemask_lt();
            unroll::<ITEMS>(|k| {
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
    fn lane_rank_counts_the_lanes_below() {
        assert_eq!(lane_rank(0b1011_0110, 5), 3);
        assert_eq!(lane_rank(0b1011, 3), 2);
        assert_eq!(lane_rank(u32::MAX, 31), 31);
        assert_eq!(lane_rank(u32::MAX, 0), 0);
    }
}
