//! The radix kernels' parameters ([`crate::params`]): one struct per kernel.
//!
//! Keys move as raw words, `u32` or `u64` (`K`), values likewise (`V`; keys-alone
//! entries take `V = u32` and null value pointers). The masks `pos` / `neg` turn raw
//! bits into order bits ([`crate::key::BitOrder::masks`], descending order included).
use crate::params::DevPtr;

crate::params::kernel_params! {
    /// The histogram kernel (`radix_hist`): digit counts of every pass over bits
    /// `begin..end`, then (last block) the digit offsets and the plan.
    pub struct Hist<K> {
        pub keys: DevPtr<K>,
        pub n: u64,
        pub begin: u32,
        pub end: u32,
        pub pos: K,
        pub neg: K,
        /// The control block ([`super::ctrl`]), zeroed before the launch.
        pub ctrl: DevPtr<u64>,
        /// The first onesweep launch's status words, cleared here.
        pub status: DevPtr<u32>,
        pub status_words: u64,
        /// The sort's [`super::Packing`], for the plan.
        pub packing: u32,
        /// 1: a split sort from the caller's input into buffer A ([`super::into_plan`];
        /// the digit passes' `keys_in` / `vals_in`); 0: in place.
        pub into: u32,
        /// The checking histograms (`radix_hist_check_f32`, `_f64`): a word of
        /// page-locked host memory the last block sets, once every block has counted,
        /// to 1 (no NaN or `-0.0` seen) or 2 (one seen), so that the host polls it
        /// with no copy between the histogram and the first pass. Null: none.
        pub verdict: DevPtr<u32>,
        /// Split sorts: the most keys the bucket kernel sorts in one block
        /// ([`super::buckets_plan`]), which the plan takes when every group of the
        /// top digit holds at most that many; 0: the plan by digit passes only.
        pub buckets: u32,
    }
    /// Declares an entry taking [`Hist`].
    entries hist_entry;
}

crate::params::kernel_params! {
    /// One digit pass over one portion of tiles (`radix_onesweep`): buffers A and B of
    /// the keys and of the values (the plan says which is read), the digit `(order bits
    /// >> shift) & mask`, and this launch's place among the sort's launches.
    pub struct Sweep<K, V> {
        pub keys_a: DevPtr<K>,
        pub keys_b: DevPtr<K>,
        pub vals_a: DevPtr<V>,
        pub vals_b: DevPtr<V>,
        /// A sort into A ([`super::into_plan`]): the caller's input, which the first
        /// pass that runs reads instead of A (null otherwise).
        pub keys_in: DevPtr<K>,
        pub vals_in: DevPtr<V>,
        pub n: u64,
        pub first_tile: u64,
        pub tiles: u32,
        pub shift: u32,
        pub mask: u32,
        pub pos: K,
        pub neg: K,
        pub pass: u32,
        /// Launches before this one in the sort (selects the status words and the tile
        /// counter).
        pub launch: u32,
        pub portion: u32,
        pub status: DevPtr<u32>,
        pub status_tiles: u32,
        pub ctrl: DevPtr<u64>,
    }
    /// Declares an entry taking [`Sweep`].
    entries sweep_entry;
}

crate::params::kernel_params! {
    /// The fused sort (`radix_fused`, [`super::FUSED_MAX`]): the histogram, every digit
    /// pass over bits `begin..end` and the copy-back in one launch of blocks that are
    /// all resident, separated by grid-wide barriers. Buffers A (the caller's) and B
    /// (scratch) of the keys and values, as in [`Sweep`]; `status`: two buffers of
    /// `status_tiles * 256` words (`status_tiles`: the tiles of one pass).
    pub struct Fused<K, V> {
        pub keys_a: DevPtr<K>,
        pub keys_b: DevPtr<K>,
        pub vals_a: DevPtr<V>,
        pub vals_b: DevPtr<V>,
        pub n: u64,
        pub begin: u32,
        pub end: u32,
        pub pos: K,
        pub neg: K,
        pub status: DevPtr<u32>,
        pub status_tiles: u32,
        /// The control block ([`super::ctrl`]), zeroed before the launch.
        pub ctrl: DevPtr<u64>,
        /// Not 0: leave the control block zeroed again at the end (its digit counts,
        /// barrier and exit counters; the rest is written before it is read), so
        /// that the next fused sort can use it without a memset.
        pub clean: u32,
    }
    /// Declares an entry taking [`Fused`].
    entries fused_entry;
}

crate::params::kernel_params! {
    /// The digit pass over packed words `key << 32 | value` ([`super::Packing`]) of a
    /// pair sort of `u32` keys with `u32` values (`K` = `V` = `u32`) or of an argsort
    /// of `u32` or `u16` keys (`K`; `V` = `u32` or `u64`, the indices): `packed_a` /
    /// `packed_b` are the packed scratch buffers A and B, `keys` the caller's keys;
    /// `vals` the caller's values, or an argsort's output, only written (by its last
    /// pass, the index half of each word, as `V`: its first pass makes each value from
    /// the key's position and packs the key's order bits, zero-extended to 32 bits).
    /// `shift` and the masks apply to the packed word (the key's shift plus 32, its
    /// masks shifted up by 32), ranked as a 64-bit key on tiles of
    /// [`super::packed_tile`]. `nan_inf` (argsorts; the `+inf` bits of the float
    /// format of `K`'s width, 0: off): the first pass packs each key's canonical bits
    /// (every NaN the largest NaN, `-0.0` as `+0.0`: [`crate::nan::canonical_word`]),
    /// so the order is NaN-last order with no copy of the keys (the histogram counts
    /// the same bits: `radix_hist_nan_f32`, `_f16`, `_bf16`).
    pub struct PackedSweep<K, V> {
        pub keys: DevPtr<K>,
        pub vals: DevPtr<V>,
        pub packed_a: DevPtr<u64>,
        pub packed_b: DevPtr<u64>,
        pub n: u64,
        pub first_tile: u64,
        pub tiles: u32,
        pub shift: u32,
        pub mask: u32,
        pub pos: u64,
        pub neg: u64,
        pub pass: u32,
        pub launch: u32,
        pub portion: u32,
        pub status: DevPtr<u32>,
        pub status_tiles: u32,
        pub ctrl: DevPtr<u64>,
        pub nan_inf: u32,
    }
    /// Declares an entry taking [`PackedSweep`].
    entries packed_sweep_entry;
}

crate::params::kernel_params! {
    /// After the passes of an argsort ([`PackedSweep`]): writes the indices the passes did
    /// not write ([`super::arg_finish`]): `idx[i] = i` when every pass was skipped, the
    /// index half of `packed_b[i]` when one pass ran; otherwise returns at once.
    pub struct ArgBack<I> {
        pub packed_b: DevPtr<u64>,
        pub idx: DevPtr<I>,
        pub n: u64,
        pub passes: u32,
        pub ctrl: DevPtr<u64>,
    }
    /// Declares an entry taking [`ArgBack`].
    entries arg_back_entry;
}

crate::params::kernel_params! {
    /// The one-block sort of at most [`super::small_max`] keys (`radix_small`) over bits
    /// `begin..end`.
    pub struct Small<K, V> {
        pub keys: DevPtr<K>,
        pub vals: DevPtr<V>,
        pub n: u32,
        pub begin: u32,
        pub end: u32,
        pub pos: K,
        pub neg: K,
    }
    /// Declares an entry taking [`Small`].
    entries small_entry;
}

crate::params::kernel_params! {
    /// The last launch of a split sort that may take the plan by buckets
    /// ([`super::buckets_plan`], `radix_buckets`), in place of the copy-back: with that
    /// plan, block `b` sorts the groups `b, b + grid, ...` of the top digit (pass
    /// `passes(begin, end) - 1`) from buffer B into A by bits `begin..` that digit's
    /// shift, each in one block, group `d` where the top pass's offsets put it
    /// (`ctrl::carry(top, 0, d)`: the pass ran as one launch, so no later portion
    /// overwrote them); with a plan that left the result in B, copies the `n` keys (and
    /// values) back to A; otherwise returns at once.
    pub struct Buckets<K, V> {
        pub keys_a: DevPtr<K>,
        pub keys_b: DevPtr<K>,
        pub vals_a: DevPtr<V>,
        pub vals_b: DevPtr<V>,
        pub n: u64,
        pub begin: u32,
        pub end: u32,
        pub pos: K,
        pub neg: K,
        pub ctrl: DevPtr<u64>,
    }
    /// Declares an entry taking [`Buckets`].
    entries buckets_entry;
}

crate::params::kernel_params! {
    /// When the plan of a packed sort left the sorted pairs packed in scratch buffer B,
    /// unpacks them into the caller's arrays (`radix_unpack_back`); otherwise returns
    /// at once.
    pub struct UnpackBack {
        pub packed_b: DevPtr<u64>,
        pub keys: DevPtr<u32>,
        pub vals: DevPtr<u32>,
        pub n: u64,
        pub ctrl: DevPtr<u64>,
    }
    /// Declares an entry taking [`UnpackBack`].
    entries unpack_back_entry;
}

crate::params::kernel_params! {
    /// When the plan left the sorted keys (and values) in the scratch buffers, copies
    /// them to the caller's (`radix_copy_back`); otherwise returns at once. `K`: the
    /// unit of `key_words`, `u32` for 4- and 8-byte keys, the key itself for narrower
    /// ones (whose count need not fill whole `u32` words).
    pub struct CopyBack<K> {
        pub keys_b: DevPtr<K>,
        pub keys_a: DevPtr<K>,
        pub key_words: u64,
        pub vals_b: DevPtr<u32>,
        pub vals_a: DevPtr<u32>,
        pub val_words: u64,
        pub ctrl: DevPtr<u64>,
    }
    /// Declares an entry taking [`CopyBack`].
    entries copy_back_entry;
}
