//! The mergepath kernels (see the module doc of `mergepath` for the passes and the
//! stability rule). Shared memory holds one tile of elements; a thread's `ITEMS`
//! elements live in a register array indexed only inside [`gpu::unroll`].
//!
//! Here: the element forms ([`Item`]), the values that travel with keys ([`Values`])
//! and the entry points. The tile primitives (shared-memory access, the register sort,
//! a thread's merge from the tile, the stores) are in `tile`, the block sorts (cluster
//! included) in `block_sort`, the global passes (partitions, merges) in `pass`.
use super::{BLOCK, Window, block_co_ranks, block_range, merge_window, take_a};
use crate::block::network;
use crate::gpu;
use crate::key::{Entity, SortKey};
use crate::radix::Word;
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

use block_sort::{block_sort, cluster_block_sort};
use pass::{merge, merge_pair, partition, partition_pair};

/// The form an element takes inside the kernels. Primitive keys are turned into their
/// order bits (direction included) as they are read from global memory and back as
/// they are written, so every comparison in the register sort, the co-rank searches
/// and the merges is one unsigned compare of a word (no per-comparison transform,
/// and the register sort's compare-swaps become min/max). Records stay records and
/// compare through [`SortKey::ord_bits`].
trait Item: SortKey {
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

macro_rules! mergepath_kv_entries {
    ($t:ty, $suffix:ident) => {
        mergepath_kv_entries!(@value $t, $suffix, u32, v32);
        mergepath_kv_entries!(@value $t, $suffix, u64, v64);
    };
    (@value $t:ty, $suffix:ident, $v:ty, $vs:ident) => {
        paste::paste! {
            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn [<mergepath_pair_merge_kv_ $suffix _ $vs>](
                a: *const $t, b: *const $t, va: *const $v, vb: *const $v, dst: *mut $t, vdst: *mut $v,
                parts: *const u64, a_len: u64, b_len: u64, descending: u32,
            ) {
                gpu::grid_dependency_wait();
                const N: usize = super::kv_items(size_of::<$t>() as u32) as usize;
                let (va, vb, vdst) = (ValuesAt(va as *mut $v), ValuesAt(vb as *mut $v), ValuesAt(vdst));
                unsafe { merge_pair::<$t, _, N>(a, b, va, vb, dst, vdst, parts, a_len, b_len, descending) }
            }

            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn [<mergepath_block_sort_kv_ $suffix _ $vs>](
                src: *const $t, vsrc: *const $v, dst: *mut $t, vdst: *mut $v, samples: *mut $t, n: u64,
                descending: u32,
            ) {
                gpu::grid_dependency_wait();
                const N: usize = super::kv_items(size_of::<$t>() as u32) as usize;
                let (vsrc, vdst) = (ValuesAt(vsrc as *mut $v), ValuesAt(vdst));
                unsafe { block_sort::<$t, _, N, BLOCK>(src, vsrc, dst, vdst, samples, n, descending) }
            }

            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn [<mergepath_merge_kv_ $suffix _ $vs>](
                src: *const $t, vsrc: *const $v, dst: *mut $t, vdst: *mut $v, samples_in: *const $t,
                samples: *mut $t, parts: *const u64, n: u64, log_run: u32, flags: u32, descending: u32,
            ) {
                gpu::grid_dependency_wait();
                const N: usize = super::kv_items(size_of::<$t>() as u32) as usize;
                let (vsrc, vdst) = (ValuesAt(vsrc as *mut $v), ValuesAt(vdst));
                unsafe {
                    merge::<$t, _, N>(src, vsrc, dst, vdst, samples_in, samples, parts, n, log_run, flags, descending)
                }
            }
        }
    };
}
/// The wide block sorts (`mergepath_block_sort_x<w>_*`): `w` merge tiles per block of
/// `w * BLOCK` threads, at the widths of [`super::sort_width`] (checked by a host test
/// against the PTX's entries).
macro_rules! mergepath_wide_entries {
    (keys $t:ty, $suffix:ident, $w:literal) => {
        paste::paste! {
            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn [<mergepath_block_sort_x $w _ $suffix>](
                src: *const $t, dst: *mut $t, samples: *mut $t, n: u64, descending: u32,
            ) {
                gpu::grid_dependency_wait();
                const N: usize = super::items(size_of::<$t>() as u32) as usize;
                unsafe { block_sort::<$t, _, N, { BLOCK * $w }>(src, NoValues, dst, NoValues, samples, n, descending) }
            }
        }
    };
    (pairs $t:ty, $suffix:ident, $v:ty, $vs:ident, $w:literal) => {
        paste::paste! {
            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn [<mergepath_block_sort_kv_x $w _ $suffix _ $vs>](
                src: *const $t, vsrc: *const $v, dst: *mut $t, vdst: *mut $v, samples: *mut $t, n: u64,
                descending: u32,
            ) {
                gpu::grid_dependency_wait();
                const N: usize = super::kv_items(size_of::<$t>() as u32) as usize;
                let (vsrc, vdst) = (ValuesAt(vsrc as *mut $v), ValuesAt(vdst));
                unsafe { block_sort::<$t, _, N, { BLOCK * $w }>(src, vsrc, dst, vdst, samples, n, descending) }
            }
        }
    };
}
mergepath_wide_entries!(keys u32, u32, 2);
mergepath_wide_entries!(keys i32, i32, 2);
mergepath_wide_entries!(keys f32, f32, 2);
mergepath_wide_entries!(keys u32, u32, 4);
mergepath_wide_entries!(keys i32, i32, 4);
mergepath_wide_entries!(keys f32, f32, 4);
mergepath_wide_entries!(keys u64, u64, 4);
mergepath_wide_entries!(keys i64, i64, 4);
mergepath_wide_entries!(keys f64, f64, 4);
mergepath_wide_entries!(pairs u32, u32, u32, v32, 4);
mergepath_wide_entries!(pairs i32, i32, u32, v32, 4);
mergepath_wide_entries!(pairs f32, f32, u32, v32, 4);
mergepath_wide_entries!(pairs u64, u64, u32, v32, 4);
mergepath_wide_entries!(pairs i64, i64, u32, v32, 4);
mergepath_wide_entries!(pairs f64, f64, u32, v32, 4);
mergepath_wide_entries!(pairs u64, u64, u64, v64, 4);
mergepath_wide_entries!(pairs i64, i64, u64, v64, 4);
mergepath_wide_entries!(pairs f64, f64, u64, v64, 4);

/// The cluster block sorts (`mergepath_block_sort_x8_*`): clusters of two blocks of
/// `4 * BLOCK` threads ([`super::cluster_ctas`]), each cluster one run of 8 merge
/// tiles ([`cluster_block_sort`]).
macro_rules! mergepath_cluster_entries {
    ($t:ty, $suffix:ident, $w:literal) => {
        paste::paste! {
            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn [<mergepath_block_sort_x $w _ $suffix>](
                src: *const $t, dst: *mut $t, samples: *mut $t, n: u64, descending: u32,
            ) {
                gpu::grid_dependency_wait();
                const N: usize = super::items(size_of::<$t>() as u32) as usize;
                const { assert!(super::cluster_ctas($w) == 2, "clusters of two blocks") };
                unsafe { cluster_block_sort::<$t, N, { BLOCK * super::block_tiles($w) }>(src, dst, samples, n, descending) }
            }
        }
    };
}
mergepath_cluster_entries!(u32, u32, 8);
mergepath_cluster_entries!(i32, i32, 8);
mergepath_cluster_entries!(f32, f32, 8);

mergepath_kv_entries!(u32, u32);
mergepath_kv_entries!(i32, i32);
mergepath_kv_entries!(f32, f32);
mergepath_kv_entries!(u64, u64);
mergepath_kv_entries!(i64, i64);
mergepath_kv_entries!(f64, f64);

macro_rules! mergepath_entries {
    ($t:ty, $suffix:ident) => {
        paste::paste! {
            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn [<mergepath_block_sort_ $suffix>](
                src: *const $t, dst: *mut $t, samples: *mut $t, n: u64, descending: u32,
            ) {
                gpu::grid_dependency_wait();
                const N: usize = super::items(size_of::<$t>() as u32) as usize;
                unsafe { block_sort::<$t, _, N, BLOCK>(src, NoValues, dst, NoValues, samples, n, descending) }
            }

            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn [<mergepath_partition_ $suffix>](
                src: *const $t, samples: *const $t, parts: *mut u64, n: u64, tile: u32, log_run: u32,
                descending: u32,
            ) {
                gpu::grid_dependency_wait();
                unsafe { partition::<$t, 32>(src, samples, parts, n, tile, log_run, descending) }
            }

            /// The partition for passes of many co-ranks, 8 lanes each (`partition_lanes`).
            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn [<mergepath_partition_l8_ $suffix>](
                src: *const $t, samples: *const $t, parts: *mut u64, n: u64, tile: u32, log_run: u32,
                descending: u32,
            ) {
                gpu::grid_dependency_wait();
                unsafe { partition::<$t, 8>(src, samples, parts, n, tile, log_run, descending) }
            }

            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn [<mergepath_pair_partition_ $suffix>](
                a: *const $t, b: *const $t, parts: *mut u64, a_len: u64, b_len: u64, tile: u32, descending: u32,
            ) {
                gpu::grid_dependency_wait();
                unsafe { partition_pair::<$t>(a, b, parts, a_len, b_len, tile, descending) }
            }

            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn [<mergepath_pair_merge_ $suffix>](
                a: *const $t, b: *const $t, dst: *mut $t, parts: *const u64, a_len: u64, b_len: u64, descending: u32,
            ) {
                gpu::grid_dependency_wait();
                const N: usize = super::items(size_of::<$t>() as u32) as usize;
                unsafe { merge_pair::<$t, _, N>(a, b, NoValues, NoValues, dst, NoValues, parts, a_len, b_len, descending) }
            }

            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn [<mergepath_merge_ $suffix>](
                src: *const $t, dst: *mut $t, samples_in: *const $t, samples: *mut $t, parts: *const u64, n: u64,
                log_run: u32, flags: u32, descending: u32,
            ) {
                gpu::grid_dependency_wait();
                const N: usize = super::items(size_of::<$t>() as u32) as usize;
                let (s_in, p) = (samples_in, parts);
                unsafe { merge::<$t, _, N>(src, NoValues, dst, NoValues, s_in, samples, p, n, log_run, flags, descending) }
            }
        }
    };
}
crate::for_each_key_type!(mergepath_entries);
