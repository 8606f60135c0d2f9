//! The mergepath kernels (see the module doc of `mergepath` for the passes and the
//! stability rule). Shared memory holds one tile of elements; a thread's `ITEMS`
//! elements live in a register array indexed only inside [`unroll`](crate::block::unroll).
//!
//! Here: the element forms ([`Item`]), the values that travel with keys ([`Values`])
//! and the agents that the entries (declared in `entries.rs` with their parameter
//! structs) run. A thread's merge from the tile and the stores of a sorted tile are in
//! `tile`, the block sorts (cluster included) in `block_sort`, the global passes
//! (partitions, merges) in `pass`; shared-memory access by slot, the register sorts and
//! the generic tile stores are block primitives ([`crate::block`]).
use super::{
    BLOCK, BlockSort, BlockSortKv, Merge, MergeKv, PairMerge, PairMergeKv, Window, block_co_ranks, block_range,
    merge_window, take_a,
};
use crate::block::network;
use crate::gpu;
use crate::key::{Entity, SortKey, Word};
use crate::search::{co_rank, co_rank_probe, co_rank_range, guided_narrow, guided_probe, many_way_search};

/// `$body` compiled for both values of the constant `$name`, run with `$name` =
/// `$cond`: a kernel body specialised by a runtime flag. E.g. a whole tile (every block
/// but the last) runs a copy without a bound test per element (the load and store loops
/// are a fifth of the merge kernel's instructions otherwise), and the key-value
/// kernels' value steps fold away in the key-only copies.
macro_rules! with_const_bool {
    ($cond:expr, $name:ident => $body:expr) => {
        if $cond {
            const $name: bool = true;
            $body
        } else {
            const $name: bool = false;
            $body
        }
    };
}

mod block_sort;
mod pass;
mod tile;

use block_sort::block_sort;
pub(super) use block_sort::cluster_block_sort;
use pass::{merge, merge_pair};
pub(super) use pass::{partition, partition_pair};

/// The form an element takes inside the kernels. Primitive keys are turned into their
/// order bits (direction included) as they are read from global memory and back as
/// they are written, so every comparison in the register sort, the co-rank searches
/// and the merges is one unsigned compare of a word (no per-comparison transform,
/// and the register sort's compare-swaps become min/max). Records stay records and
/// compare through [`SortKey::ord_bits`].
pub(super) trait Item: SortKey {
    /// What shared memory and registers hold.
    type W: Copy;
    /// What the merges compare.
    type K: Ord + Copy;
    /// The order masks of the requested direction, already at the word's width
    /// ([`crate::key::BitOrder::masks`]); nothing for records.
    type M: Copy;
    fn masks(desc: bool) -> Self::M;
    fn enc(self, masks: Self::M) -> Self::W;
    fn dec(w: Self::W, masks: Self::M) -> Self;
    fn key(w: Self::W, desc: bool) -> Self::K;
    /// The word written after each pair of runs in shared memory: the largest key
    /// (see [`super::round_sentinel`]). Records do not use sentinels (their merge
    /// tests both ends).
    fn sentinel() -> Self::W;
}

macro_rules! primitive_item {
    ($t:ty, $w:ty) => {
        impl Item for $t {
            type W = $w;
            type K = $w;
            type M = ($w, $w);
            #[inline(always)]
            fn masks(desc: bool) -> ($w, $w) {
                let (pos, neg) = match <$t as SortKey>::BIT_ORDER {
                    Some(order) => order.masks(8 * size_of::<$t>() as u32, desc),
                    None => (0, 0),
                };
                (<$w>::from_u64(pos), <$w>::from_u64(neg))
            }
            #[inline(always)]
            fn enc(self, m: ($w, $w)) -> $w {
                let raw: $w = unsafe { core::mem::transmute_copy(&self) };
                raw.ordered(m.0, m.1)
            }
            #[inline(always)]
            fn dec(w: $w, m: ($w, $w)) -> Self {
                unsafe { core::mem::transmute_copy(&w.raw(m.0, m.1)) }
            }
            #[inline(always)]
            fn key(w: $w, _desc: bool) -> $w {
                w
            }
            #[inline(always)]
            fn sentinel() -> $w {
                <$w as Word>::MAX
            }
        }
    };
}
primitive_item!(u32, u32);
primitive_item!(i32, u32);
primitive_item!(f32, u32);
primitive_item!(u64, u64);
primitive_item!(i64, u64);
primitive_item!(f64, u64);

impl Item for Entity {
    type W = Entity;
    type K = u32;
    type M = ();
    #[inline(always)]
    fn masks(_: bool) {}
    #[inline(always)]
    fn enc(self, _: ()) -> Entity {
        self
    }
    #[inline(always)]
    fn dec(w: Entity, _: ()) -> Entity {
        w
    }
    #[inline(always)]
    fn sentinel() -> Entity {
        Entity { distance_from_player: 0.0, id: 0, position: [0.0; 3] }
    }
    #[inline(always)]
    fn key(w: Entity, desc: bool) -> u32 {
        w.ord_bits(desc)
    }
}

/// What travels with the keys through the block sort and the merges: nothing
/// ([`NoValues`], the key-only kernels) or one 4- or 8-byte value per key
/// ([`ValuesAt`]), staged in shared memory after the key tile
/// ([`super::kv_values_offset`]) and gathered by the tile slot each output key came
/// from, so keys and values both leave coalesced. One kernel body serves both: every
/// value step is behind the constant [`Values::ON`] and folds away without values.
trait Values: Copy {
    type V: Copy;
    const ON: bool;
    /// The values from element `i` on.
    unsafe fn add(self, i: u64) -> Self;
    /// The first value's address (null without values).
    fn ptr(self) -> *mut Self::V;
}

/// No values: the key-only kernels.
#[derive(Clone, Copy)]
struct NoValues;

impl Values for NoValues {
    type V = u32;
    const ON: bool = false;
    #[inline(always)]
    unsafe fn add(self, _: u64) -> Self {
        self
    }
    #[inline(always)]
    fn ptr(self) -> *mut u32 {
        core::ptr::null_mut()
    }
}

/// One `V` per key, at this address (source or destination).
#[derive(Clone, Copy)]
struct ValuesAt<V>(*mut V);

impl<V: Copy> Values for ValuesAt<V> {
    type V = V;
    const ON: bool = true;
    #[inline(always)]
    unsafe fn add(self, i: u64) -> Self {
        ValuesAt(unsafe { self.0.add(i as usize) })
    }
    #[inline(always)]
    fn ptr(self) -> *mut V {
        self.0
    }
}

// The agents of the entries that share a kernel body between keys alone and keys
// with values: each takes its entry's parameter struct, waits for the previous grid
// (`gpu::grid_dependency_wait`) and runs the body with [`NoValues`] or [`ValuesAt`].
// (The other agents, `cluster_block_sort`, `partition` and `partition_pair`, take
// their structs themselves.)

/// `mergepath_block_sort_*` and the wide block sorts: `N` keys per thread, `TB`
/// threads per block.
#[inline(always)]
pub(super) unsafe fn block_sort_keys<T: Item, const N: usize, const TB: u32>(p: BlockSort<T>) {
    gpu::grid_dependency_wait();
    let BlockSort { src, dst, samples, n, direction } = p;
    unsafe { block_sort::<T, _, N, TB>(src.get(), NoValues, dst.get(), NoValues, samples.get(), n, direction) }
}

/// `mergepath_block_sort_kv_*` and the wide ones: [`block_sort_keys`] with values.
#[inline(always)]
pub(super) unsafe fn block_sort_kv<K: Item, V: Copy, const N: usize, const TB: u32>(p: BlockSortKv<K, V>) {
    gpu::grid_dependency_wait();
    let BlockSortKv { src, vsrc, dst, vdst, samples, n, direction } = p;
    let (vsrc, vdst) = (ValuesAt(vsrc.get()), ValuesAt(vdst.get()));
    unsafe { block_sort::<K, _, N, TB>(src.get(), vsrc, dst.get(), vdst, samples.get(), n, direction) }
}

/// `mergepath_merge_*`: the merge of a global pass, `N` keys per thread.
#[inline(always)]
pub(super) unsafe fn merge_keys<T: Item, const N: usize>(p: Merge<T>) {
    gpu::grid_dependency_wait();
    let Merge { src, dst, samples_in, samples, parts, n, log_run, flags, direction } = p;
    let (s_in, p) = (samples_in.get(), parts.get());
    let (src, dst, samples) = (src.get(), dst.get(), samples.get());
    unsafe { merge::<T, _, N>(src, NoValues, dst, NoValues, s_in, samples, p, n, log_run, flags, direction) }
}

/// `mergepath_merge_kv_*`: [`merge_keys`] with values.
#[inline(always)]
pub(super) unsafe fn merge_kv<K: Item, V: Copy, const N: usize>(p: MergeKv<K, V>) {
    gpu::grid_dependency_wait();
    let MergeKv { src, vsrc, dst, vdst, samples_in, samples, parts, n, log_run, flags, direction } = p;
    let (vsrc, vdst) = (ValuesAt(vsrc.get()), ValuesAt(vdst.get()));
    let (src, dst, samples_in, samples, parts) = (src.get(), dst.get(), samples_in.get(), samples.get(), parts.get());
    unsafe { merge::<K, _, N>(src, vsrc, dst, vdst, samples_in, samples, parts, n, log_run, flags, direction) }
}

/// `mergepath_pair_merge_*`: the merge of two given runs, `N` keys per thread.
#[inline(always)]
pub(super) unsafe fn pair_merge_keys<T: Item, const N: usize>(p: PairMerge<T>) {
    gpu::grid_dependency_wait();
    let PairMerge { a, b, dst, parts, a_len, b_len, direction } = p;
    let (a, b, dst, parts) = (a.get(), b.get(), dst.get(), parts.get());
    unsafe { merge_pair::<T, _, N>(a, b, NoValues, NoValues, dst, NoValues, parts, a_len, b_len, direction) }
}

/// `mergepath_pair_merge_kv_*`: [`pair_merge_keys`] with values.
#[inline(always)]
pub(super) unsafe fn pair_merge_kv<K: Item, V: Copy, const N: usize>(p: PairMergeKv<K, V>) {
    gpu::grid_dependency_wait();
    let PairMergeKv { a, b, va, vb, dst, vdst, parts, a_len, b_len, direction } = p;
    let (va, vb, vdst) = (ValuesAt(va.get()), ValuesAt(vb.get()), ValuesAt(vdst.get()));
    let (a, b, dst, parts) = (a.get(), b.get(), dst.get(), parts.get());
    unsafe { merge_pair::<K, _, N>(a, b, va, vb, dst, vdst, parts, a_len, b_len, direction) }
}
