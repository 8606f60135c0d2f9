//! `peer_store`: the multi-GPU sort's exchange by the SMs (`host::multi_gpu`,
//! `Exchange::PeerStore`). A GPU copies each of its pieces straight into another GPU's
//! receive buffer with loads from its own memory and stores to the peer's (peer access
//! over NVLink), one launch per piece on the stream of that pair.
//!
//! Why stores: with four GPUs exchanging at once the copy engines moved 764-920 GB/s
//! over all GPUs (4 x H200, NVLink NV18 every pair, 2026-11-29), where kernels storing
//! 16-byte vectors into the peers moved 1,368 GB/s (NCCL's all-to-all, one process per
//! GPU, 1,342). With two GPUs the copy engines are the faster (782 against 723 GB/s).
//!
//! The stores are 16-byte vectors: the link is bound by how many store requests it
//! carries, and the same kernel storing 4-byte words moved 546 GB/s between two H200s
//! where the vectors moved 723. A piece of 4- or 8-byte keys starts at any key of the
//! sorted part and lands at any key of the receive buffer, so the two addresses agree
//! modulo 16 bytes only by chance: the destination decides ([`split`]): up to three
//! words before its first 16-byte boundary and after its last are stored alone, every
//! vector between them is loaded as four words (one vector load where the source is
//! aligned too) and stored as one.
use crate::params::{DevPtr, EntryLayout};

/// Vectors a thread loads before it stores them: with two blocks of [`BLOCK`] threads
/// an SM, 32 KiB in flight per SM, enough to cover the link's latency.
pub const UNROLL: u64 = 4;

/// Threads per block of [`peer_store_words`].
pub const BLOCK: u32 = 256;

crate::params::kernel_params! {
    /// `dst[i] = src[i]` for the `words` 4-byte words (both 4-byte aligned): `src` in
    /// the launching GPU's memory, `dst` in memory it reaches (another GPU's, with peer
    /// access), stored as 16-byte vectors where `dst` allows ([`split`]).
    pub struct PeerStore {
        pub src: DevPtr<u32>,
        pub dst: DevPtr<u32>,
        pub words: u64,
    }
    /// Declares an entry taking [`PeerStore`].
    entries peer_store_entry;
}

/// How a copy of `words` words to byte address `dst` (4-byte aligned) is cut: `head`
/// words stored alone up to `dst`'s first 16-byte boundary, then `vectors` vectors of
/// four words, then `tail` words alone (`head + 4 * vectors + tail == words`).
#[inline(always)]
pub const fn split(dst: u64, words: u64) -> (u64, u64, u64) {
    let to_boundary = ((16 - (dst & 15)) & 15) / 4;
    let head = if to_boundary < words { to_boundary } else { words };
    let vectors = (words - head) / 4;
    (head, vectors, words - head - 4 * vectors)
}

/// The vector thread `t` of `threads` copies in step `step`, slot `j` (`j < UNROLL`):
/// each warp's vectors of one slot are contiguous.
#[inline(always)]
pub const fn step_index(step: u64, t: u64, threads: u64, j: u64) -> u64 {
    step * UNROLL * threads + t + j * threads
}

peer_store_entry!(
    peer_store_words {} | p | {
        use crate::gpu;
        let threads = gpu::grid_dim() as u64 * gpu::block_dim() as u64;
        let t = gpu::global_idx();
        let (src, dst, words) = (p.src.get(), p.dst.get(), p.words);
        let (head, vectors, tail) = split(dst as u64, words);
        if t < head {
            *dst.add(t as usize) = *src.add(t as usize);
        }
        let body = head + 4 * vectors;
        if t < tail {
            *dst.add((body + t) as usize) = *src.add((body + t) as usize);
        }
        let (vsrc, vdst) = (src.add(head as usize), dst.add(head as usize));
        let src_aligned = vsrc as u64 & 15 == 0;
        let mut step = 0u64;
        while step_index(step, t, threads, 0) < vectors {
            let mut v = [[0u32; 4]; UNROLL as usize];
            for (j, w) in v.iter_mut().enumerate() {
                let i = step_index(step, t, threads, j as u64);
                if i < vectors {
                    let at = vsrc.add(4 * i as usize);
                    *w = if src_aligned {
                        gpu::ld_global_v4_u32(at as *const [u32; 4])
                    } else {
                        [*at, *at.add(1), *at.add(2), *at.add(3)]
                    };
                }
            }
            for (j, w) in v.iter().enumerate() {
                let i = step_index(step, t, threads, j as u64);
                if i < vectors {
                    gpu::st_global_v4_u32(vdst.add(4 * i as usize) as *mut [u32; 4], *w);
                }
            }
            step += 1;
        }
    }
);

/// Every entry of this module.
pub const KERNELS: &[EntryLayout] = &[peer_store_words.layout()];

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec;

    /// Every word below `words` is copied exactly once, whatever the destination's
    /// alignment and the grid: the head, the vectors of the steps and the tail tile
    /// `0..words`, and every vector starts on a 16-byte boundary of the destination.
    #[test]
    fn every_word_is_stored_once() {
        for dst in [0x1000u64, 0x1004, 0x1008, 0x100c] {
            for threads in [1u64, 32, 256, 33 * 256] {
                let big = [threads * UNROLL * 4 - 1, threads * UNROLL * 4 + 5, 3 * threads * UNROLL * 4 + 2];
                for words in [0u64, 1, 2, 3, 4, 5, 7, 8, 15, 16, 17].into_iter().chain(big) {
                    let (head, vectors, tail) = split(dst, words);
                    assert!(head < 4 && tail < 4, "dst {dst:#x} words {words}");
                    assert!(vectors == 0 || (dst + 4 * head) % 16 == 0, "dst {dst:#x} words {words}");
                    let mut seen = vec![0u8; words as usize];
                    for w in (0..head).chain(head + 4 * vectors..words) {
                        seen[w as usize] += 1;
                    }
                    for t in 0..threads {
                        let mut step = 0;
                        while step_index(step, t, threads, 0) < vectors {
                            for j in 0..UNROLL {
                                let i = step_index(step, t, threads, j);
                                if i < vectors {
                                    for w in 0..4 {
                                        seen[(head + 4 * i + w) as usize] += 1;
                                    }
                                }
                            }
                            step += 1;
                        }
                    }
                    assert!(seen.iter().all(|&c| c == 1), "dst {dst:#x} threads {threads} words {words}");
                }
            }
        }
    }
}
