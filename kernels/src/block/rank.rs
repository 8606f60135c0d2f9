//! Ranks inside a warp and a tile: a lane's rank among the lanes of a ballot, and the
//! stable ranking of a tile's items by a small digit (the warp-level multi-split).

/// Whether [`rank_by_digit`] packs two warps' counters into one word (16 bits each)
/// for digits of `bins` bins: with 2,048 bins, 12 warps' counters take 96 KiB as
/// words and 48 KiB packed. The tile must hold fewer than 2^16 items.
pub const fn packed_counters(bins: u32) -> bool {
    bins > 256
}

/// Shared-memory bytes of [`rank_by_digit`]'s counters for `warps` warps (an even
/// number where packed) and `bins` bins.
pub const fn counter_bytes(warps: u32, bins: u32) -> u32 {
    if packed_counters(bins) { 2 * warps * bins } else { 4 * warps * bins }
}

/// Number of lanes below `lane` whose bit is set in `mask`.
#[inline(always)]
pub const fn lane_rank(mask: u32, lane: u32) -> u32 {
    (mask & ((1u32 << lane) - 1)).count_ones()
}

#[cfg(target_arch = "nvptx64")]
pub use device::*;

#[cfg(target_arch = "nvptx64")]
mod device {
    use super::packed_counters;
    use crate::block::WARP;
    use crate::block::scan::block_exclusive_sum_u32;
    use crate::block::unroll;
    use crate::gpu;

    /// The lanes of the warp whose digit `d` (below `BINS`: 256 or 2,048) equals this
    /// lane's: the warp-level multi-split's ballots, one per bit (on an H100 the
    /// `match.any` instruction, feature `rank-match-any`, made the whole sort 25-30%
    /// slower).
    #[inline(always)]
    pub fn same_digit_lanes<const BINS: u32>(d: u32) -> u32 {
        if cfg!(feature = "rank-match-any") {
            gpu::match_any_u32(d)
        } else if BINS > 256 {
            gpu::match_low11(d)
        } else {
            gpu::match_low8(d)
        }
    }

    /// Shared-memory addresses used by [`rank_by_digit`].
    #[derive(Clone, Copy)]
    pub struct RankSmem {
        /// [`counter_bytes`](crate::block::rank::counter_bytes): per-warp digit
        /// counters, then offsets.
        pub warp_digits: u32,
        /// [`SCAN_SMEM`](crate::block::scan::SCAN_SMEM) bytes for the block scan.
        pub scan: u32,
        /// `BINS` words: where each digit's run starts in the tile (written here).
        pub digit_start: u32,
    }

    /// Ranks the tile's items by their digit, below `BINS` (`digit(k)` of item `k`,
    /// computed twice rather than held in `ITEMS` registers), stably: item `k` of lane
    /// `l` of warp `w` (warp-striped, see
    /// [`warp_striped`](crate::block::tile::warp_striped)) gets its position in the
    /// tile sorted by digit, ties kept in tile order.
    ///
    /// How: every warp counts its digits (shared atomics; with more than 256 bins two
    /// warps share each word, a 16-bit half each, [`packed_counters`]); each thread owns `OWN`
    /// consecutive digits (`tid * OWN ..`, those below `BINS`), turns the counts of each
    /// into per-warp offsets and the tile's total, calls `on_total(j, d, total)` for
    /// its `j`-th digit `d` (the radix sort publishes it for the look-back there,
    /// before any item is ranked), and a block scan over the threads' sums gives
    /// `digit_start`; then each warp walks its items in order, finding the lanes with
    /// the same digit ([`same_digit_lanes`]) and advancing its counter of that digit by
    /// their number. `place(k, rank)` receives each item's rank as soon as it is known
    /// (so a caller that stores the item at once need not hold every rank in
    /// registers).
    ///
    /// Every thread must call it with the block's `blockDim.x` threads (a multiple of
    /// 32, at least `BINS / OWN`). Ends with a barrier (the counters may be reused
    /// after it).
    #[inline(always)]
    pub unsafe fn rank_by_digit<const ITEMS: usize, const BINS: u32, const OWN: usize>(
        digit: impl Fn(usize) -> u32,
        smem: RankSmem,
        mut on_total: impl FnMut(usize, u32, u32),
        mut place: impl FnMut(usize, u32),
    ) {
        let tid = gpu::thread_idx();
        let warp = tid / WARP;
        let warps = gpu::block_dim() / WARP;
        let packed = packed_counters(BINS);
        // This warp's counter of digit `d` is word `mine + 4 * d`, its half `half`.
        let (rows, mine, half) = if packed {
            (warps / 2, smem.warp_digits + (warp / 2) * 4 * BINS, 16 * (warp & 1))
        } else {
            (warps, smem.warp_digits + warp * 4 * BINS, 0)
        };
        let first = tid * OWN as u32;
        unsafe {
            let mut i = tid;
            while i < rows * BINS {
                gpu::sts_u32(smem.warp_digits + 4 * i, 0);
                i += gpu::block_dim();
            }
            gpu::sync_threads();
            unroll::<ITEMS>(|k| gpu::reds_add_u32(mine + 4 * digit(k), 1 << half));
            gpu::sync_threads();
            // Each owned digit: exclusive prefix over the warps, and the tile total.
            let mut totals = [0u32; OWN];
            let mut sum = 0;
            unroll::<OWN>(|j| {
                let d = first + j as u32;
                if d < BINS {
                    let mut total = 0;
                    for r in 0..rows {
                        let a = smem.warp_digits + 4 * (r * BINS + d);
                        let c = gpu::lds_u32(a);
                        if packed {
                            let (lo, hi) = (c & 0xffff, c >> 16);
                            gpu::sts_u32(a, total | (total + lo) << 16);
                            total += lo + hi;
                        } else {
                            gpu::sts_u32(a, total);
                            total += c;
                        }
                    }
                    on_total(j, d, total);
                    totals[j] = total;
                    sum += total;
                }
            });
            let (mut start, _) = block_exclusive_sum_u32(sum, smem.scan);
            unroll::<OWN>(|j| {
                let d = first + j as u32;
                if d < BINS {
                    gpu::sts_u32(smem.digit_start + 4 * d, start);
                    // No carry between the halves: every offset is below the tile's
                    // length, at most 2^16 (`packed_counters`).
                    let add = if packed { start | start << 16 } else { start };
                    for r in 0..rows {
                        let a = smem.warp_digits + 4 * (r * BINS + d);
                        gpu::sts_u32(a, gpu::lds_u32(a) + add);
                    }
                    start += totals[j];
                }
            });
            gpu::sync_threads();
            let below = gpu::lanemask_lt();
            unroll::<ITEMS>(|k| {
                let d = digit(k);
                let peers = same_digit_lanes::<BINS>(d);
                let a = mine + 4 * d;
                let base = if packed { (gpu::lds_u32(a) >> half) & 0xffff } else { gpu::lds_u32(a) };
                gpu::sync_warp();
                if peers & below == 0 {
                    // The lowest lane of the group moves the warp's counter past it
                    // (packed: an add, since the other warp of the word may be
                    // moving its half at the same time).
                    if packed {
                        gpu::reds_add_u32(a, peers.count_ones() << half);
                    } else {
                        gpu::sts_u32(a, base + peers.count_ones());
                    }
                }
                gpu::sync_warp();
                place(k, base + (peers & below).count_ones());
            });
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
