//! Run-length encoding and `unique` on the CPU, with the device's definition of equal
//! keys ([`kernels::runs::same`]: bits, or canonical bits for floats).
use kernels::key::BitOrder;
use kernels::runs::canonical_bits;
use rayon::prelude::*;

use crate::element::Key;
use crate::options::Order;

/// From this many keys on, the encoding runs on every thread (chunks encoded apart,
/// then joined where a run crosses a chunk boundary).
const PARALLEL_FROM: usize = 1 << 16;

/// Whether `a` and `b` are one value for the run operations: the device's rule
/// ([`kernels::runs::same`]) on the key's own width.
fn same<K: Key>(a: &K, b: &K) -> bool {
    let (a, b) = (word_of(a), word_of(b));
    if K::KEY_ORDER == BitOrder::Float { canonical_word::<K>(a) == canonical_word::<K>(b) } else { a == b }
}

/// [`canonical_bits`] of the raw bits of float key `K`: every NaN the positive quiet
/// NaN, `-0.0` as `+0.0`. The device's rule covers 32 and 64 bits; the 16-bit floats
/// (`f16`, `bf16`: one width, two exponent places) get the same rule here from their
/// significand width.
fn canonical_word<K: Key>(raw: u64) -> u64 {
    let width = 8 * size_of::<K>() as u32;
    if width >= 32 {
        return canonical_bits(raw, width);
    }
    let sign = 1u64 << (width - 1);
    let inf = kernels::key::float_inf_bits(width, K::MANTISSA_BITS);
    let abs = raw & (sign - 1);
    if abs > inf {
        // The quiet NaN: exponent all ones, the significand's top bit.
        inf | 1 << (K::MANTISSA_BITS - 1)
    } else if abs == 0 {
        0
    } else {
        raw
    }
}

/// The canonical key of `k` (itself for integers; see [`canonical_bits`]).
pub fn canonical<K: Key>(k: K) -> K {
    if K::KEY_ORDER != BitOrder::Float {
        return k;
    }
    let bytes = canonical_word::<K>(word_of(&k)).to_le_bytes();
    bytemuck::pod_read_unaligned(&bytes[..size_of::<K>()])
}

/// The raw bits of a primitive key as a `u64` (little-endian hosts, as the device).
fn word_of<K: Key>(k: &K) -> u64 {
    let mut w = [0u8; 8];
    w[..size_of::<K>()].copy_from_slice(bytemuck::bytes_of(k));
    u64::from_le_bytes(w)
}

/// The runs of one slice, sequentially: each run's first key and its length.
fn encode_seq<K: Key>(keys: &[K]) -> (Vec<K>, Vec<u32>) {
    let (mut heads, mut counts) = (Vec::new(), Vec::new());
    for (i, k) in keys.iter().enumerate() {
        if i > 0 && same(k, &keys[i - 1]) {
            *counts.last_mut().expect("a run is open") += 1;
        } else {
            heads.push(*k);
            counts.push(1u32);
        }
    }
    (heads, counts)
}

/// Each run of equal adjacent keys as its first key and its length (at most `u32::MAX`
/// keys in all: the caller checks).
pub fn run_length_encode<K: Key>(keys: &[K]) -> (Vec<K>, Vec<u32>) {
    if keys.len() < PARALLEL_FROM {
        return encode_seq(keys);
    }
    let chunk = keys.len().div_ceil(rayon::current_num_threads() * 4).max(PARALLEL_FROM / 4);
    let parts: Vec<(Vec<K>, Vec<u32>)> = keys.par_chunks(chunk).map(encode_seq).collect();
    let (mut heads, mut counts) = (Vec::new(), Vec::new());
    let mut last: Option<K> = None;
    for (h, c) in parts {
        // A chunk whose first run continues the previous chunk's last one.
        let skip = match (last, h.first()) {
            (Some(prev), Some(first)) if same(&prev, first) => {
                *counts.last_mut().expect("a run is open") += c[0];
                1
            }
            _ => 0,
        };
        last = h.last().copied().or(last);
        heads.extend_from_slice(&h[skip..]);
        counts.extend_from_slice(&c[skip..]);
    }
    (heads, counts)
}

/// The sorted distinct values of `keys` (canonical keys for floats) and their counts.
pub fn unique_counts<K: Key>(keys: &[K]) -> (Vec<K>, Vec<u32>) {
    let mut sorted: Vec<K> = keys.par_iter().map(|&k| canonical(k)).collect();
    super::sort(&mut sorted, Order::Ascending);
    run_length_encode(&sorted)
}
