//! Splitters of the multi-GPU sample sort (`host::multi_gpu`): each GPU's sorted part
//! is sampled at regular positions, the host picks the splitters from all samples, and
//! each GPU counts how many of its keys fall before each splitter.
//!
//! Keys are exchanged with the host as their order bits ([`crate::SortKey::ord_bits`],
//! widened to `u64`), so the host compares every key type and both orders the same way.
//!
//! * `splitter_samples_<t>`: `out[i]` = order bits of the key at [`sample_position`]
//!   `(i, samples, n)`, one thread per sample.
//! * `splitter_bounds_<t>`: for each splitter `s`, `out[2s]` = keys `< s` and
//!   `out[2s + 1]` = keys `<= s` (order bits; the part is sorted), one thread per
//!   splitter.
//! * `splitter_samples_jittered_<t>`: for an *unsorted* part (the partition-first
//!   pipeline), `out[2i]` = order bits and `out[2i + 1]` = position of the key at
//!   [`jittered_position`]`(i, samples, n)`: one key from each of `samples` equal
//!   slices, at a pseudo-random place inside it, so that data repeating with the
//!   slices' period is not sampled at one phase of it.
//!
//! The kernels' parameters ([`Samples`], [`Bounds`]) and entries are declared here, the
//! host's handles are [`SplitterKernels`]; the kernel bodies are in `device.rs`.
use crate::key::SortKey;
use crate::params::{DevPtr, Direction, EntryLayout, Kernel, entry_count, entry_list};

/// Position of sample `i` of `samples` taken from a sorted part of `n` keys: the middle
/// of the `i`-th of `samples` equal slices, so samples stand for equal shares of the
/// part. Requires `i < samples <= n`.
pub const fn sample_position(i: u64, samples: u64, n: u64) -> u64 {
    ((2 * i as u128 + 1) * n as u128 / (2 * samples as u128)) as u64
}

/// Position of sample `i` of `samples` taken from an unsorted part of `n` keys: inside
/// the `i`-th of `samples` equal slices, at a place that a hash of `(i, n)` picks
/// (deterministic, so runs repeat). Requires `i < samples <= n`; positions increase
/// with `i`, and with `samples == n` every key is sampled.
pub const fn jittered_position(i: u64, samples: u64, n: u64) -> u64 {
    let lo = (i as u128 * n as u128 / samples as u128) as u64;
    let hi = ((i as u128 + 1) * n as u128 / samples as u128) as u64;
    lo + mix(i ^ n.rotate_left(32)) % (hi - lo)
}

/// SplitMix64's finaliser: a well-spread hash of `x`.
const fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Samples taken from a part of `n` keys when at most `max` are wanted: every key of a
/// small part (so a tiny part is sampled exactly), `max` otherwise.
pub const fn sample_count(n: u64, max: u64) -> u64 {
    if n < max { n } else { max }
}

crate::params::kernel_params! {
    /// The samples of one GPU's part of `n` keys (`splitter_samples_*` of a sorted part,
    /// `splitter_samples_jittered_*` of an unsorted one), one thread per sample.
    pub struct Samples<T> {
        pub keys: DevPtr<T>,
        pub n: u64,
        /// Samples to take ([`sample_count`]).
        pub count: u64,
        pub direction: Direction,
        /// The samples' order bits (`out[i]`; jittered: `out[2i]`, with the position
        /// at `out[2i + 1]`).
        pub out: DevPtr<u64>,
    }
    /// Declares an entry taking [`Samples`].
    entries samples_entry;
}

crate::params::kernel_params! {
    /// How many keys of a sorted part of `n` keys are below, and not above, each of
    /// `count` splitters (`splitter_bounds_*`), one thread per splitter.
    pub struct Bounds<T> {
        pub keys: DevPtr<T>,
        pub n: u64,
        /// The splitters' order bits.
        pub splitters: DevPtr<u64>,
        pub count: u64,
        pub direction: Direction,
        /// `out[2s]` = keys `<` splitter `s`, `out[2s + 1]` = keys `<=` it.
        pub out: DevPtr<u64>,
    }
    /// Declares an entry taking [`Bounds`].
    entries bounds_entry;
}

/// The splitter entries of an element type (every element type has them).
pub trait SplitterKernels: SortKey {
    /// The samples of a sorted part.
    const SAMPLES: Kernel<Samples<Self>>;
    /// The samples of an unsorted part, with their positions.
    const SAMPLES_JITTERED: Kernel<Samples<Self>>;
    const BOUNDS: Kernel<Bounds<Self>>;
}

macro_rules! splitter_entries {
    ($t:ty, $suffix:ident) => {
        paste::paste! {
            samples_entry!([<splitter_samples_ $suffix>] { T = $t } |p| device::samples::<$t>(p));
            samples_entry!([<splitter_samples_jittered_ $suffix>] { T = $t } |p| device::jittered::<$t>(p));
            bounds_entry!([<splitter_bounds_ $suffix>] { T = $t } |p| device::bounds::<$t>(p));
            impl SplitterKernels for $t {
                const SAMPLES: Kernel<Samples<$t>> = [<splitter_samples_ $suffix>];
                const SAMPLES_JITTERED: Kernel<Samples<$t>> = [<splitter_samples_jittered_ $suffix>];
                const BOUNDS: Kernel<Bounds<$t>> = [<splitter_bounds_ $suffix>];
            }
        }
    };
}
crate::key::for_each_key_type!(splitter_entries);

/// Every splitter entry.
pub const KERNELS: &[EntryLayout] = &entry_list::<{ entry_count(ENTRIES) }>(ENTRIES);

/// Each kind of entry of every element type.
const ENTRIES: &[&[Option<EntryLayout>]] = &[
    &crate::key::each_element_type!(|T| Some(<T as SplitterKernels>::SAMPLES.layout())),
    &crate::key::each_element_type!(|T| Some(<T as SplitterKernels>::SAMPLES_JITTERED.layout())),
    &crate::key::each_element_type!(|T| Some(<T as SplitterKernels>::BOUNDS.layout())),
];

#[cfg(target_arch = "nvptx64")]
mod device;

#[cfg(test)]
mod tests;
