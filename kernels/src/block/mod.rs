//! Block-level building blocks that the tile-based kernels share, one file per concern:
//!
//! * [`tile`]: where a thread's items sit in its tile (warp-striped, block-striped) and
//!   the cooperative loads and stores of a tile;
//! * `smem` (device only): elements and words in shared memory by 32-bit shared
//!   address;
//! * [`scan`]: warp and block prefix sums;
//! * [`rank`]: ranking a tile's items by a small digit, and a lane's rank among its
//!   warp's lanes;
//! * [`network`]: sorting networks over a thread's registers and the bitonic
//!   comparators over a tile or an array;
//! * [`warp_sort`]: the bitonic network over a warp's registers, lanes exchanging by
//!   shuffles.
//!
//! The index math is plain Rust, tested on the host; the device parts (under
//! `target_arch = "nvptx64"`) use shared memory through 32-bit shared addresses
//! (`gpu::lds_u32` and friends).

pub mod network;
pub mod rank;
pub mod scan;
#[cfg(target_arch = "nvptx64")]
pub mod smem;
pub mod tile;
pub mod warp_sort;

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
