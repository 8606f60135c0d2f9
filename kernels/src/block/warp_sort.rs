//! The bitonic sorting network over a warp's registers: `32 * I` elements, element
//! `k * 32 + lane` in item `k` of `lane` (*striped*: coalesced loads and stores). Strides
//! below 32 exchange across lanes by shuffles, larger strides swap inside a lane's
//! registers; [`keeps_min`] is the whole network's direction rule and [`network`] its
//! steps, which the CPU model in the tests runs in the kernel's own layout.
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

#[cfg(target_arch = "nvptx64")]
pub use device::*;

#[cfg(target_arch = "nvptx64")]
mod device {
    use super::keeps_min;
    use crate::block::WARP;
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

    /// Sorts the warp's `32 * I` elements, element `k * 32 + lane` in `keys[k]` of
    /// `lane`, ascending: the steps of [`network`](super::network) (which the CPU model
    /// checks), written out so that every `(size, j)` is a constant. A stride known
    /// only at run time would make the partner of a register step a computed index and
    /// put `keys` in local memory; nested `unroll` closures this large are not inlined
    /// by LLVM.
    #[inline(always)]
    pub fn warp_bitonic<K: NetItem, const I: usize>(keys: &mut [K; I]) {
        let lane = gpu::lane_id();
        let log_n = (32 * I).trailing_zeros();
        macro_rules! stage {
            ($m:literal: $($t:literal)*) => {
                if $m < log_n {
                    $( bitonic_step::<K, I>(keys, 2 << $m, 1 << ($m - $t), lane); )*
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

    /// One step of the network: pairs at stride `j` inside merges of `size`. Strides of a
    /// warp or more pair two items of the same lane; smaller ones pair lanes.
    #[inline(always)]
    fn bitonic_step<K: NetItem, const I: usize>(keys: &mut [K; I], size: u32, j: u32, lane: u32) {
        if j >= WARP {
            let jj = (j / WARP) as usize;
            unroll::<I>(|k| {
                if k & jj == 0 {
                    let (a, b) = (keys[k], keys[k | jj]);
                    let (lo, hi) = (core::cmp::min(a, b), core::cmp::max(a, b));
                    let min_first = keeps_min(k as u32 * WARP + lane, size, j);
                    (keys[k], keys[k | jj]) = if min_first { (lo, hi) } else { (hi, lo) };
                }
            });
        } else {
            unroll::<I>(|k| {
                let other = keys[k].shfl(lane ^ j);
                let mine = keys[k];
                keys[k] = if keeps_min(k as u32 * WARP + lane, size, j) {
                    core::cmp::min(mine, other)
                } else {
                    core::cmp::max(mine, other)
                };
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

    /// The warp network on the CPU, in the kernel's layout: `lanes[lane][k]` is element
    /// `k * 32 + lane` (`keys` padded with `pad` up to `32 * items`); strides of 32 and
    /// more pair items of one lane, smaller ones pair lanes (a shuffle reads the partner's
    /// value before anything is written). Returns the first `keys.len()` elements.
    pub(crate) fn model<T: Copy + Ord>(keys: &[T], items: usize, pad: T) -> Vec<T> {
        let n = 32 * items;
        assert!(keys.len() <= n && n.is_power_of_two());
        let mut lanes = vec![vec![pad; items]; 32];
        for (e, &k) in keys.iter().enumerate() {
            lanes[e % 32][e / 32] = k;
        }
        for (size, j) in network(n.trailing_zeros()) {
            if j >= 32 {
                let jj = (j / 32) as usize;
                for lane in 0..32u32 {
                    for k in (0..items).filter(|k| k & jj == 0) {
                        let l = &mut lanes[lane as usize];
                        let (lo, hi) = (l[k].min(l[k | jj]), l[k].max(l[k | jj]));
                        let e = k as u32 * 32 + lane;
                        (l[k], l[k | jj]) = if keeps_min(e, size, j) { (lo, hi) } else { (hi, lo) };
                    }
                }
            } else {
                let before = lanes.clone();
                for lane in 0..32u32 {
                    for k in 0..items {
                        let (mine, other) = (before[lane as usize][k], before[(lane ^ j) as usize][k]);
                        let e = k as u32 * 32 + lane;
                        lanes[lane as usize][k] = if keeps_min(e, size, j) { mine.min(other) } else { mine.max(other) };
                    }
                }
            }
        }
        (0..keys.len()).map(|e| lanes[e % 32][e / 32]).collect()
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
        for items in [1usize, 2, 4, 8, 16] {
            for len in 2..=32 * items {
                for modulus in [2u64, 17, 1 << 32] {
                    let keys: Vec<u32> = (0..len).map(|_| (next() % modulus) as u32).collect();
                    let mut want = keys.clone();
                    want.sort_unstable();
                    assert_eq!(model(&keys, items, u32::MAX), want, "len {len} items {items} mod {modulus}");
                }
            }
        }
        // Padding is the largest value: keys equal to it still sort (they tie with it).
        let keys: Vec<u32> = (0..100).map(|i| if i % 3 == 0 { u32::MAX } else { 100 - i }).collect();
        let mut want = keys.clone();
        want.sort_unstable();
        assert_eq!(model(&keys, 4, u32::MAX), want);
    }
}
