//! The mergepath kernels (see the module doc of `mergepath` for the passes and the
//! stability rule). Shared memory holds one tile of elements; a thread's `ITEMS`
//! elements live in a register array indexed only inside [`gpu::unroll`].
use super::{BLOCK, LOG_BLOCK, Window, block_co_ranks, block_range, merge_window, take_a};
use crate::gpu;
use crate::key::SortKey;
use crate::search::co_rank;

/// Reads element `x` of the shared-memory tile (`tile` is always the dynamic shared
/// memory). 4- and 8-byte elements go through 32-bit shared addresses
/// (`ld.shared`), wider records through the generic volatile path.
#[inline(always)]
unsafe fn lds<T: SortKey>(tile: *const T, x: u32) -> T {
    let addr = gpu::smem_base() + x * size_of::<T>() as u32;
    unsafe {
        match size_of::<T>() {
            4 => core::mem::transmute_copy(&gpu::lds_u32(addr)),
            8 => core::mem::transmute_copy(&gpu::lds_u64(addr)),
            _ => gpu::load_shared_element(tile.add(x as usize)),
        }
    }
}

/// Writes element `x` of the shared-memory tile (`tile` is always the dynamic shared
/// memory), through 32-bit shared addresses for 4- and 8-byte elements.
#[inline(always)]
unsafe fn sts<T: SortKey>(tile: *mut T, x: u32, v: T) {
    let addr = gpu::smem_base() + x * size_of::<T>() as u32;
    unsafe {
        match size_of::<T>() {
            4 => gpu::sts_u32(addr, core::mem::transmute_copy(&v)),
            8 => gpu::sts_u64(addr, core::mem::transmute_copy(&v)),
            _ => *tile.add(x as usize) = v,
        }
    }
}

/// Sorts `v[0..valid]` stably by odd-even transposition (`valid` rounds of adjacent
/// compare-swaps, swapping only on strict `>`); `v[valid..]` is left alone.
#[inline(always)]
fn sort_registers<T: SortKey, const N: usize>(v: &mut [T; N], valid: usize, desc: bool) {
    gpu::unroll::<N>(|round| {
        gpu::unroll::<N>(|k| {
            if k % 2 == round % 2 && k + 1 < N && k + 1 < valid && v[k + 1].ord_bits(desc) < v[k].ord_bits(desc) {
                v.swap(k, k + 1);
            }
        });
    });
}

/// Merges `N` outputs of the pair `A = tile[a0 .. a0 + a_len]`,
/// `B = tile[a0 + a_len .. a0 + a_len + b_len]` (contiguous in shared memory) starting
/// at diagonal `diag` into `out`. The thread's split comes from the co-rank; then each
/// step takes by [`take_a`] and loads one new head (index clamped into the pair, so
/// steps past the pair's end read valid memory and produce outputs nobody stores).
/// With `POS`, `pos[k]` gets the tile slot (counted from `a0`) output `k` came from.
#[inline(always)]
unsafe fn merge_from_tile<T: SortKey, const N: usize, const POS: bool>(
    tile: *const T,
    a0: u32,
    a_len: u32,
    b_len: u32,
    diag: u32,
    desc: bool,
    out: &mut [T; N],
    pos: &mut [u32; N],
) {
    let a = |x: u64| unsafe { lds(tile, a0 + x as u32) }.ord_bits(desc);
    let b = |x: u64| unsafe { lds(tile, a0 + a_len + x as u32) }.ord_bits(desc);
    let mut i = co_rank(diag as u64, a_len as u64, b_len as u64, a, b) as u32;
    let mut j = diag - i;
    let last = a_len + b_len - 1;
    if !gpu::carry_by_value::<T>() {
        // Wide records: carry the heads' keys and positions, read each record once
        // when it is output (record-valued heads end up in local memory).
        let key = |x: u32| unsafe { lds(tile, a0 + x.min(last)) }.ord_bits(desc);
        let (mut ak, mut bk) = (key(i), key(a_len + j));
        gpu::unroll::<N>(|k| {
            let from_a = take_a(i, a_len, j, b_len, ak, bk);
            let at = if from_a { i } else { a_len + j };
            out[k] = unsafe { lds(tile, a0 + at.min(last)) };
            if POS {
                pos[k] = at;
            }
            i += from_a as u32;
            j += !from_a as u32;
            if k + 1 < N {
                let v = key(at + 1);
                ak = if from_a { v } else { ak };
                bk = if from_a { bk } else { v };
            }
        });
        return;
    }
    unsafe {
        let mut ah = lds(tile, a0 + i.min(last));
        let mut bh = lds(tile, a0 + (a_len + j).min(last));
        gpu::unroll::<N>(|k| {
            let from_a = take_a(i, a_len, j, b_len, ah.ord_bits(desc), bh.ord_bits(desc));
            out[k] = if from_a { ah } else { bh };
            if POS {
                pos[k] = if from_a { i } else { a_len + j };
            }
            if from_a {
                i += 1;
            } else {
                j += 1;
            }
            if k + 1 < N {
                let next = if from_a { i } else { a_len + j };
                let v = lds(tile, a0 + next.min(last));
                // Two value selects: an `if` that assigns one of two heads becomes a
                // store through a selected pointer, which puts both heads in local
                // memory.
                ah = if from_a { v } else { ah };
                bh = if from_a { bh } else { v };
            }
        });
    }
}

/// Writes this thread's `N` consecutive outputs (first one at `first`) to the tile,
/// those below `count` only.
#[inline(always)]
unsafe fn store_blocked<T: SortKey, const N: usize>(tile: *mut T, first: u32, count: u32, v: &[T; N]) {
    gpu::unroll::<N>(|k| {
        if first + (k as u32) < count {
            unsafe { sts(tile, first + k as u32, v[k]) };
        }
    });
}

/// Copies `count` elements of the tile to `dst`, `BLOCK` consecutive ones per step
/// (coalesced).
#[inline(always)]
unsafe fn store_striped<T: SortKey, const N: usize>(tile: *const T, dst: *mut T, count: u32) {
    let t = gpu::thread_idx();
    gpu::unroll::<N>(|k| {
        let x = k as u32 * BLOCK + t;
        if x < count {
            unsafe { *dst.add(x as usize) = lds(tile, x) };
        }
    });
}

/// Block sort: sorts each tile of `ITEMS * BLOCK` elements of `src` into the same
/// tile of `dst` (which may be `src`: a block reads its whole tile before writing).
#[inline(always)]
unsafe fn block_sort<T: SortKey, const N: usize>(src: *const T, dst: *mut T, n: u64, descending: u32) {
    let desc = descending != 0;
    let t = gpu::thread_idx();
    let tile = gpu::dyn_smem::<T>();
    let (start, count) = block_range(gpu::block_idx() as u64, BLOCK * N as u32, n);
    unsafe {
        let src = src.add(start as usize);
        gpu::unroll::<N>(|k| {
            let x = k as u32 * BLOCK + t;
            if x < count {
                sts(tile, x, *src.add(x as usize));
            }
        });
        gpu::sync_threads();
        let first = t * N as u32;
        let valid = count.saturating_sub(first).min(N as u32) as usize;
        let mut v = [lds(tile, first.min(count - 1)); N];
        gpu::unroll::<N>(|k| v[k] = lds(tile, (first + k as u32).min(count - 1)));
        if valid == N {
            sort_registers(&mut v, N, desc);
        } else {
            sort_registers(&mut v, valid, desc);
        }
        // Round r merges runs of N << r elements (runs of 2^r threads' outputs).
        let mut r = 0;
        while r < LOG_BLOCK && ((N as u32) << r) < count {
            gpu::sync_threads();
            store_blocked(tile, first, count, &v);
            gpu::sync_threads();
            if first < count {
                let w: Window<u32> = merge_window(t, r, N as u32, count);
                merge_from_tile::<T, N, false>(tile, w.start, w.a_len, w.b_len, w.diag, desc, &mut v, &mut [0; N]);
            }
            r += 1;
        }
        gpu::sync_threads();
        store_blocked(tile, first, count, &v);
        gpu::sync_threads();
        store_striped::<T, N>(tile, dst.add(start as usize), count);
    }
}

/// Partition of one global pass: `parts[b]` = co-rank of block `b`'s first output in
/// its pair of runs of `tile << log_run` elements.
#[inline(always)]
unsafe fn partition<T: SortKey>(src: *const T, parts: *mut u64, n: u64, tile: u32, log_run: u32, descending: u32) {
    let b = gpu::global_idx();
    if b >= super::tiles(n, tile) {
        return;
    }
    let w = merge_window(b, log_run, tile as u64, n);
    unsafe {
        let a = src.add(w.start as usize);
        partition_window(a, a.add(w.a_len as usize), parts, b, w, descending)
    }
}

/// Partition of the merge of two given runs, `A` = `a[..a_len]` and `B` = `bb[..b_len]`
/// (anywhere in memory; [`super::pair_window`]).
#[inline(always)]
unsafe fn partition_pair<T: SortKey>(
    a: *const T,
    bb: *const T,
    parts: *mut u64,
    a_len: u64,
    b_len: u64,
    tile: u32,
    descending: u32,
) {
    let b = gpu::global_idx();
    if b >= super::tiles(a_len + b_len, tile) {
        return;
    }
    unsafe { partition_window(a, bb, parts, b, super::pair_window(b, tile, a_len, b_len), descending) }
}

/// `parts[b]` = co-rank of the diagonal `w.diag` in the pair of runs of `w`, whose
/// `A` starts at `a` and `B` at `bb`.
#[inline(always)]
unsafe fn partition_window<T: SortKey>(
    a: *const T,
    bb: *const T,
    parts: *mut u64,
    b: u64,
    w: Window<u64>,
    descending: u32,
) {
    let desc = descending != 0;
    unsafe {
        let i = co_rank(
            w.diag,
            w.a_len,
            w.b_len,
            |x| (*a.add(x as usize)).ord_bits(desc),
            |x| (*bb.add(x as usize)).ord_bits(desc),
        );
        *parts.add(b as usize) = i;
    }
}

/// Merge of one global pass: block `b` writes outputs `b * tile ..` of the pairwise
/// merge of runs of `tile << log_run` elements from `src` to `dst`.
#[inline(always)]
unsafe fn merge<T: SortKey, const N: usize>(
    src: *const T,
    dst: *mut T,
    parts: *const u64,
    n: u64,
    log_run: u32,
    descending: u32,
) {
    let tile_len = BLOCK * N as u32;
    let b = gpu::block_idx() as u64;
    let w = merge_window(b, log_run, tile_len as u64, n);
    unsafe {
        let a = src.add(w.start as usize);
        merge_block::<T, N>(a, a.add(w.a_len as usize), dst, parts, b, n, w, descending)
    }
}

/// Merge of two given runs, `A` = `a[..a_len]` and `B` = `bb[..b_len]` (anywhere in
/// memory; [`super::pair_window`]): block `b` writes outputs `b * tile ..` of `dst`.
#[inline(always)]
unsafe fn merge_pair<T: SortKey, const N: usize>(
    a: *const T,
    bb: *const T,
    dst: *mut T,
    parts: *const u64,
    a_len: u64,
    b_len: u64,
    descending: u32,
) {
    let tile_len = BLOCK * N as u32;
    let b = gpu::block_idx() as u64;
    let w = super::pair_window(b, tile_len, a_len, b_len);
    unsafe { merge_block::<T, N>(a, bb, dst, parts, b, a_len + b_len, w, descending) }
}

/// Block `b`'s tile of outputs (of `n` in all) of the merge whose window is `w` (its
/// `A` at `a`, its `B` at `bb`), given the co-ranks in `parts`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn merge_block<T: SortKey, const N: usize>(
    a: *const T,
    bb: *const T,
    dst: *mut T,
    parts: *const u64,
    b: u64,
    n: u64,
    w: Window<u64>,
    descending: u32,
) {
    let desc = descending != 0;
    let t = gpu::thread_idx();
    let tile_len = BLOCK * N as u32;
    let tile = gpu::dyn_smem::<T>();
    let (start, count) = block_range(b, tile_len, n);
    unsafe {
        let (i0, i1) = block_co_ranks(&w, count, *parts.add(b as usize), || *parts.add(b as usize + 1));
        let j0 = w.diag - i0;
        let la = (i1 - i0) as u32;
        let lb = count - la;
        // A's window then B's window, contiguous in the tile.
        let a_src = a.add(i0 as usize);
        let b_src = bb.add(j0 as usize);
        gpu::unroll::<N>(|k| {
            let x = k as u32 * BLOCK + t;
            if x < count {
                // Select the address, not the element (a selected record goes
                // through local memory).
                let p = if x < la { a_src.add(x as usize) } else { b_src.add((x - la) as usize) };
                sts(tile, x, *p);
            }
        });
        gpu::sync_threads();
        let first = t * N as u32;
        let mut v = [lds(tile, 0); N];
        if first < count {
            merge_from_tile::<T, N, false>(tile, 0, la, lb, first, desc, &mut v, &mut [0; N]);
        }
        gpu::sync_threads();
        store_blocked(tile, first, count, &v);
        gpu::sync_threads();
        store_striped::<T, N>(tile, dst.add(start as usize), count);
    }
}

/// Element `x` of a shared-memory array of 4- or 8-byte words at byte `off` of the
/// dynamic shared memory.
#[inline(always)]
unsafe fn lds_word<V: SortKey>(off: u32, x: u32) -> V {
    let addr = gpu::smem_base() + off + x * size_of::<V>() as u32;
    unsafe {
        if size_of::<V>() == 8 {
            core::mem::transmute_copy(&gpu::lds_u64(addr))
        } else {
            core::mem::transmute_copy(&gpu::lds_u32(addr))
        }
    }
}

/// Writes element `x` of a shared-memory array of 4- or 8-byte words at byte `off`.
#[inline(always)]
unsafe fn sts_word<V: SortKey>(off: u32, x: u32, v: V) {
    let addr = gpu::smem_base() + off + x * size_of::<V>() as u32;
    unsafe {
        if size_of::<V>() == 8 {
            gpu::sts_u64(addr, core::mem::transmute_copy(&v))
        } else {
            gpu::sts_u32(addr, core::mem::transmute_copy(&v))
        }
    }
}

/// [`merge_pair`] of keys with a 4- or 8-byte value each: `A` = keys `a[..a_len]` with
/// values `va`, `B` = keys `bb[..b_len]` with values `vb`. The keys merge as in
/// [`merge_block`]; each output remembers which tile slot it came from, and the values
/// are then loaded into a second shared-memory array (after the key tile) and
/// gathered by those slots, so both leave coalesced. Stable like the key merge.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn merge_pair_kv<T: SortKey, V: SortKey, const N: usize>(
    a: *const T,
    bb: *const T,
    va: *const V,
    vb: *const V,
    dst: *mut T,
    vdst: *mut V,
    parts: *const u64,
    a_len: u64,
    b_len: u64,
    descending: u32,
) {
    let desc = descending != 0;
    let t = gpu::thread_idx();
    let tile_len = BLOCK * N as u32;
    let tile = gpu::dyn_smem::<T>();
    let voff = tile_len * size_of::<T>() as u32;
    let b = gpu::block_idx() as u64;
    let n = a_len + b_len;
    let w = super::pair_window(b, tile_len, a_len, b_len);
    let (start, count) = block_range(b, tile_len, n);
    unsafe {
        let (i0, i1) = block_co_ranks(&w, count, *parts.add(b as usize), || *parts.add(b as usize + 1));
        let j0 = w.diag - i0;
        let la = (i1 - i0) as u32;
        let lb = count - la;
        let (a_src, b_src) = (a.add(i0 as usize), bb.add(j0 as usize));
        let (va_src, vb_src) = (va.add(i0 as usize), vb.add(j0 as usize));
        gpu::unroll::<N>(|k| {
            let x = k as u32 * BLOCK + t;
            if x < count {
                let p = if x < la { a_src.add(x as usize) } else { b_src.add((x - la) as usize) };
                sts(tile, x, *p);
                let q = if x < la { va_src.add(x as usize) } else { vb_src.add((x - la) as usize) };
                sts_word(voff, x, *q);
            }
        });
        gpu::sync_threads();
        let first = t * N as u32;
        let mut v = [lds(tile, 0); N];
        let mut pos = [0u32; N];
        if first < count {
            merge_from_tile::<T, N, true>(tile, 0, la, lb, first, desc, &mut v, &mut pos);
        }
        let mut vals = [lds_word::<V>(voff, 0); N];
        gpu::unroll::<N>(|k| {
            if first + (k as u32) < count {
                vals[k] = lds_word::<V>(voff, pos[k]);
            }
        });
        gpu::sync_threads();
        store_blocked(tile, first, count, &v);
        gpu::unroll::<N>(|k| {
            if first + (k as u32) < count {
                sts_word(voff, first + k as u32, vals[k]);
            }
        });
        gpu::sync_threads();
        store_striped::<T, N>(tile, dst.add(start as usize), count);
        let vdst = vdst.add(start as usize);
        gpu::unroll::<N>(|k| {
            let x = k as u32 * BLOCK + t;
            if x < count {
                *vdst.add(x as usize) = lds_word::<V>(voff, x);
            }
        });
    }
}

macro_rules! mergepath_kv_entries {
    ($t:ty, $suffix:ident) => {
        paste::paste! {
            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn [<mergepath_pair_merge_kv_ $suffix _v32>](
                a: *const $t, b: *const $t, va: *const u32, vb: *const u32, dst: *mut $t, vdst: *mut u32,
                parts: *const u64, a_len: u64, b_len: u64, descending: u32,
            ) {
                const N: usize = super::items(size_of::<$t>() as u32) as usize;
                unsafe { merge_pair_kv::<$t, u32, N>(a, b, va, vb, dst, vdst, parts, a_len, b_len, descending) }
            }

            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn [<mergepath_pair_merge_kv_ $suffix _v64>](
                a: *const $t, b: *const $t, va: *const u64, vb: *const u64, dst: *mut $t, vdst: *mut u64,
                parts: *const u64, a_len: u64, b_len: u64, descending: u32,
            ) {
                const N: usize = super::items(size_of::<$t>() as u32) as usize;
                unsafe { merge_pair_kv::<$t, u64, N>(a, b, va, vb, dst, vdst, parts, a_len, b_len, descending) }
            }
        }
    };
}
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
                src: *const $t, dst: *mut $t, n: u64, descending: u32,
            ) {
                const N: usize = super::items(size_of::<$t>() as u32) as usize;
                unsafe { block_sort::<$t, N>(src, dst, n, descending) }
            }

            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn [<mergepath_partition_ $suffix>](
                src: *const $t, parts: *mut u64, n: u64, log_run: u32, descending: u32,
            ) {
                unsafe { partition::<$t>(src, parts, n, super::tile(size_of::<$t>() as u32), log_run, descending) }
            }

            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn [<mergepath_pair_partition_ $suffix>](
                a: *const $t, b: *const $t, parts: *mut u64, a_len: u64, b_len: u64, descending: u32,
            ) {
                unsafe { partition_pair::<$t>(a, b, parts, a_len, b_len, super::tile(size_of::<$t>() as u32), descending) }
            }

            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn [<mergepath_pair_merge_ $suffix>](
                a: *const $t, b: *const $t, dst: *mut $t, parts: *const u64, a_len: u64, b_len: u64, descending: u32,
            ) {
                const N: usize = super::items(size_of::<$t>() as u32) as usize;
                unsafe { merge_pair::<$t, N>(a, b, dst, parts, a_len, b_len, descending) }
            }

            #[unsafe(no_mangle)]
            pub unsafe extern "ptx-kernel" fn [<mergepath_merge_ $suffix>](
                src: *const $t, dst: *mut $t, parts: *const u64, n: u64, log_run: u32, descending: u32,
            ) {
                const N: usize = super::items(size_of::<$t>() as u32) as usize;
                unsafe { merge::<$t, N>(src, dst, parts, n, log_run, descending) }
            }
        }
    };
}
crate::for_each_key_type!(mergepath_entries);
