//! Stable partition of one GPU's keys (and values) by the splitters of the multi-GPU
//! sample sort (`host::multi_gpu`, partition-first pipeline): element `i` of the part
//! goes to part [`part_of`] of its order bits and position, and the parts are written
//! one after another, each in input order (so the sorts that follow stay stable).
//!
//! Two launches over the same tiles of [`TILE`] keys, with a device-wide scan of the
//! counts between them:
//! * `partition_count_<t>`: `counts[b * tiles + tile]` = keys of the tile in part `b`;
//! * the exclusive scan of the `p * tiles` counts gives every (part, tile) its output
//!   offset, parts first: exactly a stable partition's layout;
//! * `partition_starts`: the `p + 1` offsets where the parts start (and the total),
//!   copied together for the host, which sizes the exchange by them;
//! * `partition_scatter_<t>[_v32|_v64]`: each tile ranks its keys by part, warp by
//!   warp with ballots (lanes of one part write consecutive addresses, so the stores
//!   of a warp are a few contiguous runs), and writes keys and values.
//!
//! The splitters arrive as `(bits, threshold)` pairs already specialised to the GPU
//! (see [`part_of`]), so a tie with a splitter is one comparison of positions.
//!
//! The kernels' parameters ([`Count`], [`Scatter`], [`ScatterKv`], [`Starts`]) and
//! entries are declared here, the host's handles are [`PartitionKernels`] and
//! [`PartitionKvKernels`] (primitive keys only) and [`partition_starts`]; the kernel
//! bodies are in `device.rs`.
use crate::key::{Entity, SortKey};
use crate::params::{DevPtr, Direction, EntryLayout, Kernel, entry_count, entry_list, layout_of};

/// Most parts (GPUs) a partition serves; more GPUs use the sort-first pipeline.
pub const MAX_PARTS: u32 = 8;
/// Threads per block.
pub const BLOCK: u32 = 256;
/// Keys per thread.
pub const ITEMS: u32 = 8;
/// Keys per tile (a block works through several, [`blocks_per_sm`]).
pub const TILE: u32 = BLOCK * ITEMS;
/// Shared memory of both kernels: the splitters (`2 * (MAX_PARTS - 1)` words of 8
/// bytes), then per warp and part a `u32` counter and a `u64` output base.
pub const SMEM_BYTES: u32 = 8 * 2 * MAX_PARTS + (BLOCK / 32) * MAX_PARTS * (4 + 8);

/// Blocks per SM that a kernel is launched with (each block works through many tiles):
/// four, but three for the scatter of 8-byte keys, which spills at four's 64 registers.
pub const fn blocks_per_sm(scatter: bool, key_bytes: u32) -> u32 {
    if scatter && key_bytes > 4 { 3 } else { 4 }
}

/// Tiles of a partition of `n` keys.
pub const fn tiles(n: u64) -> u64 {
    n.div_ceil(TILE as u64)
}

/// The part of the element with order bits `bits` at position `pos` of GPU `rank`'s
/// input, given the splitters `(bits, rank, pos)` (in increasing order) as
/// `(bits, threshold)` pairs for this rank ([`threshold`]): the number of splitters the
/// element is not below, in the `(bits, rank, position)` order.
pub fn part_of(bits: u64, pos: u64, cuts: &[(u64, u64)]) -> u32 {
    cuts.iter().map(|&(b, t)| not_below(bits, pos, b, t) as u32).sum()
}

/// Whether the element with order bits `bits` at position `pos` is not below the
/// splitter `(b, t)` of [`part_of`].
#[inline(always)]
pub const fn not_below(bits: u64, pos: u64, b: u64, t: u64) -> bool {
    bits > b || (bits == b && pos >= t)
}

/// The position from which an element of GPU `rank` with the splitter's bits is not
/// below splitter `(rank_s, pos_s)`: every position for a higher rank, none for a lower.
pub const fn threshold(rank: usize, rank_s: usize, pos_s: u64) -> u64 {
    if rank < rank_s {
        u64::MAX
    } else if rank > rank_s {
        0
    } else {
        pos_s
    }
}

crate::params::kernel_params! {
    /// `partition_count_<t>`: the keys of each tile of `keys[..n]` in each part, by the
    /// splitters `cuts` (`parts - 1` flattened `(bits, threshold)` pairs).
    pub struct Count<K> {
        pub keys: DevPtr<K>,
        pub n: u64,
        /// [`tiles`]`(n)`.
        pub tiles: u64,
        pub cuts: DevPtr<u64>,
        pub parts: u32,
        pub direction: Direction,
        /// `counts[b * tiles + tile]` = keys of `tile` in part `b`.
        pub counts: DevPtr<u64>,
    }
    /// Declares an entry taking [`Count`].
    entries count_entry;
}

crate::params::kernel_params! {
    /// `partition_scatter_<t>`: writes the keys of each part to `out_keys`, from the
    /// part's offset of each tile on, in input order.
    pub struct Scatter<K> {
        pub keys: DevPtr<K>,
        pub n: u64,
        pub tiles: u64,
        pub cuts: DevPtr<u64>,
        pub parts: u32,
        pub direction: Direction,
        /// The exclusive scan of [`Count::counts`].
        pub offsets: DevPtr<u64>,
        pub out_keys: DevPtr<K>,
    }
    /// Declares an entry taking [`Scatter`].
    entries scatter_entry;
}

crate::params::kernel_params! {
    /// `partition_scatter_<t>_v<bits>`: [`Scatter`] of keys with one value word `V`
    /// each, moved from `values` to `out_values`.
    pub struct ScatterKv<K, V> {
        pub keys: DevPtr<K>,
        pub values: DevPtr<V>,
        pub n: u64,
        pub tiles: u64,
        pub cuts: DevPtr<u64>,
        pub parts: u32,
        pub direction: Direction,
        /// As [`Scatter::offsets`].
        pub offsets: DevPtr<u64>,
        pub out_keys: DevPtr<K>,
        pub out_values: DevPtr<V>,
    }
    /// Declares an entry taking [`ScatterKv`].
    entries scatter_kv_entry;
}

crate::params::kernel_params! {
    /// `partition_starts`: `out[b]` = `offsets[b * tiles]` for `b <= parts` (where each
    /// part starts, and the total).
    pub struct Starts {
        /// As [`Scatter::offsets`].
        pub offsets: DevPtr<u64>,
        pub tiles: u64,
        pub parts: u32,
        pub out: DevPtr<u64>,
    }
    /// Declares an entry taking [`Starts`].
    entries starts_entry;
}

starts_entry!(partition_starts {} | p | device::starts(p));

/// The key-only partition entries of an element type: primitive keys have them,
/// records (`Entity`) none.
pub trait PartitionKernels: SortKey + PartitionKvKernels<u32> + PartitionKvKernels<u64> {
    const COUNT: Option<Kernel<Count<Self>>>;
    const SCATTER: Option<Kernel<Scatter<Self>>>;
}

/// The scatter of keys whose values travel as `V` (`u32` for 4-byte values, `u64` for
/// 8-byte ones): primitive keys have it, records none.
pub trait PartitionKvKernels<V>: SortKey {
    const SCATTER_KV: Option<Kernel<ScatterKv<Self, V>>>;
}

macro_rules! partition_entries {
    ($t:ty, $suffix:ident) => {
        paste::paste! {
            count_entry!([<partition_count_ $suffix>] { K = $t } |p| device::count::<$t>(p));
            scatter_entry!([<partition_scatter_ $suffix>] { K = $t } |p| device::scatter_keys::<$t>(p));
            scatter_kv_entry!([<partition_scatter_ $suffix _v32>] { K = $t, V = u32 } |p| device::scatter_kv::<$t, u32>(p));
            scatter_kv_entry!([<partition_scatter_ $suffix _v64>] { K = $t, V = u64 } |p| device::scatter_kv::<$t, u64>(p));
            impl PartitionKernels for $t {
                const COUNT: Option<Kernel<Count<$t>>> = Some([<partition_count_ $suffix>]);
                const SCATTER: Option<Kernel<Scatter<$t>>> = Some([<partition_scatter_ $suffix>]);
            }
            impl PartitionKvKernels<u32> for $t {
                const SCATTER_KV: Option<Kernel<ScatterKv<$t, u32>>> = Some([<partition_scatter_ $suffix _v32>]);
            }
            impl PartitionKvKernels<u64> for $t {
                const SCATTER_KV: Option<Kernel<ScatterKv<$t, u64>>> = Some([<partition_scatter_ $suffix _v64>]);
            }
        }
    };
}
partition_entries!(u32, u32);
partition_entries!(i32, i32);
partition_entries!(f32, f32);
partition_entries!(u64, u64);
partition_entries!(i64, i64);
partition_entries!(f64, f64);

/// Records are not partitioned (the multi-GPU sort takes primitive keys).
impl PartitionKernels for Entity {
    const COUNT: Option<Kernel<Count<Entity>>> = None;
    const SCATTER: Option<Kernel<Scatter<Entity>>> = None;
}

impl<V> PartitionKvKernels<V> for Entity {
    const SCATTER_KV: Option<Kernel<ScatterKv<Entity, V>>> = None;
}

/// Every partition entry.
pub const KERNELS: &[EntryLayout] = &entry_list::<{ entry_count(ENTRIES) }>(ENTRIES);

/// Each kind of entry of every element type (`None` where a type has none).
const ENTRIES: &[&[Option<EntryLayout>]] = &[
    &crate::key::each_element_type!(|T| layout_of(<T as PartitionKernels>::COUNT)),
    &crate::key::each_element_type!(|T| layout_of(<T as PartitionKernels>::SCATTER)),
    &crate::key::each_element_type!(|T| layout_of(<T as PartitionKvKernels<u32>>::SCATTER_KV)),
    &crate::key::each_element_type!(|T| layout_of(<T as PartitionKvKernels<u64>>::SCATTER_KV)),
    &[Some(partition_starts.layout())],
];

/// The launch bounds of the count and scatter kernels of the key types `$t`.
macro_rules! launch_bounds {
    ($($t:ty),*) => {
        [
            $(bound(<$t as PartitionKernels>::COUNT, false, size_of::<$t>()),)*
            $(bound(<$t as PartitionKernels>::SCATTER, true, size_of::<$t>()),)*
            $(bound(<$t as PartitionKvKernels<u32>>::SCATTER_KV, true, size_of::<$t>()),)*
            $(bound(<$t as PartitionKvKernels<u64>>::SCATTER_KV, true, size_of::<$t>()),)*
        ]
    };
}

/// Launch bounds (see [`crate::LAUNCH_BOUNDS`]) of the count and scatter kernels:
/// [`blocks_per_sm`] blocks per SM, so that while one block waits at a barrier the
/// others' loads and stores keep memory busy.
pub const LAUNCH_BOUNDS: &[(&str, u32, u32)] = &launch_bounds!(u32, i32, f32, u64, i64, f64);

/// The launch bounds of `kernel` (a scatter or not, of keys of `key_bytes`), which
/// exists.
const fn bound<P>(kernel: Option<Kernel<P>>, scatter: bool, key_bytes: usize) -> (&'static str, u32, u32) {
    match kernel {
        Some(k) => (k.name(), BLOCK, blocks_per_sm(scatter, key_bytes as u32)),
        None => panic!("a launch bound of a kernel that does not exist"),
    }
}

#[cfg(target_arch = "nvptx64")]
mod device;

#[cfg(test)]
mod tests;
