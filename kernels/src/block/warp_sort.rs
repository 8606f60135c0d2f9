//! The bitonic sorting network over a warp's registers: `32 * I` elements, `I` items
//! per lane, in one of two layouts ([`element`]):
//!
//! - *striped*: element `k * 32 + lane` in item `k` of `lane` (loads and stores
//!   straight from memory are coalesced). Strides below 32 exchange across lanes by
//!   shuffles (30 to 35 of the 36 to 45 steps of 256 to 512 elements), larger ones
//!   swap inside a lane.
//! - *blocked*: element `lane * I + k`. Strides below `I` swap inside a lane, larger
//!   ones shuffle: only the 15 steps of strides `I` to `16 * I`. Callers load striped
//!   (coalesced) and put the sorted result back in striped order through shared
//!   memory, which costs more than the shuffles it saves for 32-bit keys alone.
//!
//! [`keeps_min`] is the whole network's direction rule, [`network`] its steps and
//! [`in_lane`] / [`across`] the partner of a step in either layout, which the CPU
//! model in the tests runs as the kernel does.
//!
//! A network is not stable: equal elements may swap. Use it where equal elements are
//! indistinguishable (order bits alone, or tagged with their positions).

/// The bitonic network's direction rule: in the step of merge size `size` (a power of
/// two, 2..=N) and stride `j` (`size / 2` down to 1), element `e` and its partner
/// `e ^ j` are ordered so that `e` ends with the smaller of the two exactly when this
/// is true (ascending blocks of `size` where `e & size == 0`, descending otherwise;
/// the lower index of a pair takes the block's first element). The last merge
/// (`size == N`) is ascending everywhere.
#[inline(always)]
pub const fn keeps_min(e: u32, size: u32, j: u32) -> bool {
    (e & size == 0) == (e & j == 0)
}

/// Steps `(size, j)` of the bitonic network over `2^log_n` elements, in order.
pub fn network(log_n: u32) -> impl Iterator<Item = (u32, u32)> {
    (0..log_n).flat_map(move |m| (0..=m).map(move |t| (2u32 << m, 1u32 << (m - t))))
}

/// The element held in item `k` of `lane` of a network with `items` items per lane,
/// in the blocked or the striped layout.
#[inline(always)]
pub const fn element(lane: u32, k: u32, items: u32, blocked: bool) -> u32 {
    if blocked { lane * items + k } else { k * 32 + lane }
}

/// The step of stride `j` pairs item `k` with item `k ^ in_lane(..)` of the same lane
/// when this is not 0, and otherwise with item `k` of lane `lane ^ across(..)`.
#[inline(always)]
pub const fn in_lane(j: u32, items: u32, blocked: bool) -> u32 {
    if blocked {
        if j < items { j } else { 0 }
    } else if j >= 32 {
        j / 32
    } else {
        0
    }
}

/// The lane distance of a step of stride `j` that pairs lanes (see [`in_lane`]).
#[inline(always)]
pub const fn across(j: u32, items: u32, blocked: bool) -> u32 {
    if blocked { j / items } else { j }
}

#[cfg(target_arch = "nvptx64")]
pub use device::*;

#[cfg(target_arch = "nvptx64")]
mod device {
    use super::{across, element, in_lane, keeps_min};
    use crate::block::unroll;
    use crate::gpu;

    /// An element of the warp network: compared as a whole, moved between lanes.
    pub trait NetItem: Copy + Ord {
        /// Above every real element: the padding past a segment's end.
        const MAX: Self;
        /// This element of lane `src` (every lane of the warp must call it).
        fn shfl(self, src: u32) -> Self;
    }

    impl NetItem for u32 {
        const MAX: u32 = u32::MAX;
        #[inline(always)]
        fn shfl(self, src: u32) -> u32 {
            gpu::shfl_idx_u32(self, src)
        }
    }

    impl NetItem for u64 {
        const MAX: u64 = u64::MAX;
        #[inline(always)]
        fn shfl(self, src: u32) -> u64 {
            gpu::shfl_idx_u64(self, src)
        }
    }

    /// A 64-bit key's order bits and its position: tuples compare field by field.
    impl NetItem for (u64, u32) {
        const MAX: (u64, u32) = (u64::MAX, u32::MAX);
        #[inline(always)]
        fn shfl(self, src: u32) -> (u64, u32) {
            (gpu::shfl_idx_u64(self.0, src), gpu::shfl_idx_u32(self.1, src))
        }
    }

    /// Sorts the warp's `32 * I` elements in `keys` of each lane, in the blocked layout
    /// when `BLOCKED` and the striped one otherwise ([`element`]), ascending: the steps of [`network`](super::network) (which the CPU model
    /// checks), written out so that every `(size, j)` is a constant. A stride known
    /// only at run time would make the partner of a register step a computed index and
    /// put `keys` in local memory; nested `unroll` closures this large are not inlined
    /// by LLVM.
    #[inline(always)]
    pub fn warp_bitonic<K: NetItem, const I: usize, const BLOCKED: bool>(keys: &mut [K; I]) {
        let lane = gpu::lane_id();
        let log_n = (32 * I).trailing_zeros();
        macro_rules! stage {
            ($m:literal: $($t:literal)*) => {
                if $m < log_n {
                    $( bitonic_step::<K, I, BLOCKED>(keys, 2 << $m, 1 << ($m - $t), lane); )*
                }
            };
        }
        stage!(0: 0);
        stage!(1: 0 1);
        stage!(2: 0 1 2);
        stage!(3: 0 1 2 3);
        stage!(4: 0 1 2 3 4);
        stage!(5: 0 1 2 3 4 5);
        stage!(6: 0 1 2 3 4 5 6);
        stage!(7: 0 1 2 3 4 5 6 7);
        stage!(8: 0 1 2 3 4 5 6 7 8);
        const { assert!(32 * I <= 1 << 9, "stages cover networks of up to 512 elements") };
    }

    /// One step of the network: pairs at stride `j` inside merges of `size`, in the
    /// same lane or across lanes as [`in_lane`] says.
    #[inline(always)]
    fn bitonic_step<K: NetItem, const I: usize, const BLOCKED: bool>(keys: &mut [K; I], size: u32, j: u32, lane: u32) {
        let e = |k: usize| element(lane, k as u32, I as u32, BLOCKED);
        let jj = in_lane(j, I as u32, BLOCKED) as usize;
        if jj != 0 {
            unroll::<I>(|k| {
                if k & jj == 0 {
                    let (a, b) = (keys[k], keys[k | jj]);
                    let (lo, hi) = (core::cmp::min(a, b), core::cmp::max(a, b));
                    (keys[k], keys[k | jj]) = if keeps_min(e(k), size, j) { (lo, hi) } else { (hi, lo) };
                }
            });
        } else {
            let src = lane ^ across(j, I as u32, BLOCKED);
            unroll::<I>(|k| {
                let other = keys[k].shfl(src);
                let mine = keys[k];
                keys[k] =
                    if keeps_min(e(k), size, j) { core::cmp::min(mine, other) } else { core::cmp::max(mine, other) };
            });
        }
    }
}

/// The CPU model of the network, which the segmented sort's tests also run.
#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    extern crate std;
    use std::vec;
    use std::vec::Vec;

    /// The warp network on the CPU, in the kernel's layout (blocked or striped,
    /// [`element`]): `lanes[lane][k]` holds that element (`keys` padded with `pad` up to
    /// `32 * items`), each step pairs as [`in_lane`] and [`across`] say (a shuffle reads
    /// the partner's value before anything is written). Returns the first `keys.len()`
    /// elements.
    pub(crate) fn model<T: Copy + Ord>(keys: &[T], items: usize, blocked: bool, pad: T) -> Vec<T> {
        let n = 32 * items;
        assert!(keys.len() <= n && n.is_power_of_two());
        let at = |lane: usize, k: usize| element(lane as u32, k as u32, items as u32, blocked) as usize;
        let mut lanes = vec![vec![pad; items]; 32];
        for (lane, l) in lanes.iter_mut().enumerate() {
            for (k, v) in l.iter_mut().enumerate() {
                if let Some(&key) = keys.get(at(lane, k)) {
                    *v = key;
                }
            }
        }
        for (size, j) in network(n.trailing_zeros()) {
            let jj = in_lane(j, items as u32, blocked) as usize;
            let before = lanes.clone();
            for lane in 0..32 {
                for k in 0..items {
                    let e = at(lane, k) as u32;
                    let (mine, other) = if jj != 0 {
                        (before[lane][k], before[lane][k ^ jj])
                    } else {
                        (before[lane][k], before[lane ^ across(j, items as u32, blocked) as usize][k])
                    };
                    // The partner of `e` is `e ^ j` in either case.
                    lanes[lane][k] = if keeps_min(e, size, j) { mine.min(other) } else { mine.max(other) };
                }
            }
        }
        let mut out = vec![pad; n];
        for (lane, l) in lanes.iter().enumerate() {
            for (k, &v) in l.iter().enumerate() {
                out[at(lane, k)] = v;
            }
        }
        out.truncate(keys.len());
        out
    }

    #[test]
    fn network_steps_are_the_bitonic_schedule() {
        let steps: Vec<_> = network(3).collect();
        assert_eq!(steps, [(2, 1), (4, 2), (4, 1), (8, 4), (8, 2), (8, 1)]);
        assert_eq!(network(9).count(), 45);
    }

    #[test]
    fn warp_network_sorts_every_length_and_item_count() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for blocked in [false, true] {
            for items in [1usize, 2, 4, 8, 16] {
                for len in 2..=32 * items {
                    for modulus in [2u64, 17, 1 << 32] {
                        let keys: Vec<u32> = (0..len).map(|_| (next() % modulus) as u32).collect();
                        let mut want = keys.clone();
                        want.sort_unstable();
                        let got = model(&keys, items, blocked, u32::MAX);
                        assert_eq!(got, want, "len {len} items {items} mod {modulus} blocked {blocked}");
                    }
                }
            }
        }
        // Padding is the largest value: keys equal to it still sort (they tie with it).
        let keys: Vec<u32> = (0..100).map(|i| if i % 3 == 0 { u32::MAX } else { 100 - i }).collect();
        let mut want = keys.clone();
        want.sort_unstable();
        assert_eq!(model(&keys, 4, false, u32::MAX), want);
        assert_eq!(model(&keys, 4, true, u32::MAX), want);
    }
}
