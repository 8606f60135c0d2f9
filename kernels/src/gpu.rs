//! Thin, inlined wrappers over the NVPTX intrinsics (thread ids, barriers, shared
//! memory). Only compiled for `nvptx64`.
use core::arch::nvptx;

#[inline(always)]
pub fn thread_idx() -> u32 {
    unsafe { nvptx::_thread_idx_x() as u32 }
}

#[inline(always)]
pub fn block_idx() -> u32 {
    unsafe { nvptx::_block_idx_x() as u32 }
}

#[inline(always)]
pub fn block_dim() -> u32 {
    unsafe { nvptx::_block_dim_x() as u32 }
}

#[inline(always)]
pub fn grid_dim() -> u32 {
    unsafe { nvptx::_grid_dim_x() as u32 }
}

/// Global thread index, 64-bit so that arrays past 2^31 elements index correctly.
#[inline(always)]
pub fn global_idx() -> u64 {
    block_idx() as u64 * block_dim() as u64 + thread_idx() as u64
}

/// `__syncthreads()`: every thread of the block must reach it.
#[inline(always)]
pub fn sync_threads() {
    unsafe { nvptx::_syncthreads() }
}

/// `__syncthreads_or(pred)`: a barrier of the whole block that also tells every
/// thread whether `pred` held on any of them.
#[inline(always)]
pub fn sync_threads_or(pred: bool) -> bool {
    let any: u32;
    unsafe {
        core::arch::asm!(
            "{{ .reg .pred p, q; setp.ne.u32 p, {i}, 0; bar.red.or.pred q, 0, p; selp.u32 {o}, 1, 0, q; }}",
            i = in(reg32) pred as u32,
            o = out(reg32) any,
            options(nostack)
        )
    };
    any != 0
}

// The block's dynamic shared memory (size given at launch). Declared once for the
// whole module; every kernel that uses shared memory views it through `dyn_smem`.
core::arch::global_asm!(".extern .shared .align 16 .b8 DYN_SMEM[];");

/// Generic pointer to the start of the block's dynamic shared memory.
#[inline(always)]
pub fn dyn_smem<T>() -> *mut T {
    let p: u64;
    unsafe {
        core::arch::asm!("cvta.shared.u64 {p}, DYN_SMEM;", p = out(reg64) p, options(nomem, nostack, pure));
    }
    p as *mut T
}

/// Lane of this thread in its warp (0..32).
#[inline(always)]
pub fn lane_id() -> u32 {
    thread_idx() & 31
}

/// Atomically adds `v` to the `u32` at global address `p`; returns the old value.
#[inline(always)]
pub unsafe fn atomic_add_u32(p: *mut u32, v: u32) -> u32 {
    let old: u32;
    unsafe {
        core::arch::asm!("atom.global.add.u32 {o}, [{p}], {v};", o = out(reg32) old, p = in(reg64) p, v = in(reg32) v);
    }
    old
}

/// Atomically adds `v` to the `u64` at global address `p`; returns the old value.
#[inline(always)]
pub unsafe fn atomic_add_u64(p: *mut u64, v: u64) -> u64 {
    let old: u64;
    unsafe {
        core::arch::asm!("atom.global.add.u64 {o}, [{p}], {v};", o = out(reg64) old, p = in(reg64) p, v = in(reg64) v);
    }
    old
}

/// `__shfl_up_sync(0xffffffff, v, delta)`: the value of lane `lane - delta` (own value
/// for lanes below `delta`). Every lane of the warp must call it.
#[inline(always)]
pub fn shfl_up_u32(v: u32, delta: u32) -> u32 {
    let r: u32;
    unsafe {
        core::arch::asm!("shfl.sync.up.b32 {r}, {v}, {d}, 0, 0xffffffff;", r = out(reg32) r, v = in(reg32) v, d = in(reg32) delta);
    }
    r
}

/// `__shfl_xor_sync(0xffffffff, v, mask)`: the value of lane `lane ^ mask`. Every lane
/// of the warp must call it.
#[inline(always)]
pub fn shfl_xor_u32(v: u32, mask: u32) -> u32 {
    let r: u32;
    unsafe {
        core::arch::asm!("shfl.sync.bfly.b32 {r}, {v}, {m}, 31, 0xffffffff;", r = out(reg32) r, v = in(reg32) v, m = in(reg32) mask);
    }
    r
}

/// `__shfl_sync(0xffffffff, v, src_lane)`. Every lane of the warp must call it.
#[inline(always)]
pub fn shfl_idx_u32(v: u32, src_lane: u32) -> u32 {
    let r: u32;
    unsafe {
        core::arch::asm!("shfl.sync.idx.b32 {r}, {v}, {s}, 31, 0xffffffff;", r = out(reg32) r, v = in(reg32) v, s = in(reg32) src_lane);
    }
    r
}

/// `__threadfence()`: orders this thread's global writes before its later ones as seen
/// by the whole device.
#[inline(always)]
pub fn thread_fence() {
    unsafe { core::arch::asm!("membar.gl;") }
}

/// `__shfl_up_sync` for 64-bit values (two 32-bit shuffles). Every lane must call it.
#[inline(always)]
pub fn shfl_up_u64(v: u64, delta: u32) -> u64 {
    let lo = shfl_up_u32(v as u32, delta);
    let hi = shfl_up_u32((v >> 32) as u32, delta);
    (hi as u64) << 32 | lo as u64
}

/// `__shfl_sync` for 64-bit values. Every lane must call it.
#[inline(always)]
pub fn shfl_idx_u64(v: u64, src_lane: u32) -> u64 {
    let lo = shfl_idx_u32(v as u32, src_lane);
    let hi = shfl_idx_u32((v >> 32) as u32, src_lane);
    (hi as u64) << 32 | lo as u64
}

/// `__ballot_sync(0xffffffff, pred)`: bit `i` is lane `i`'s `pred`. Every lane must
/// call it. (Rust's NVPTX inline asm has no predicate register class, so the
/// predicate lives in a scoped PTX register.) The asm may touch memory as far as the
/// compiler knows, so no load is moved above it: issue a tile's loads before its
/// ballots, or every item waits out its own load latency.
#[inline(always)]
pub fn ballot(pred: bool) -> u32 {
    let r: u32;
    unsafe {
        core::arch::asm!(
            "{{ .reg .pred %bp; setp.ne.u32 %bp, {v}, 0; vote.sync.ballot.b32 {r}, %bp, 0xffffffff; }}",
            r = out(reg32) r,
            v = in(reg32) pred as u32,
        );
    }
    r
}

/// [`ballot`] among the `LANES` lanes (a power of two, at most 32) of this lane's group
/// of the warp (lanes `g * LANES ..`): bit `i` is lane `g * LANES + i`'s predicate. Only
/// that group's lanes need to call it, all of them.
#[inline(always)]
pub fn ballot_group<const LANES: u32>(pred: bool) -> u32 {
    const { assert!(LANES.is_power_of_two() && LANES <= 32) };
    if LANES == 32 {
        return ballot(pred);
    }
    let first = lane_id() & !(LANES - 1);
    let group = u32::MAX >> (32 - LANES);
    let r: u32;
    unsafe {
        core::arch::asm!(
            "{{ .reg .pred %bp; setp.ne.u32 %bp, {v}, 0; vote.sync.ballot.b32 {r}, %bp, {m}; }}",
            r = out(reg32) r,
            v = in(reg32) pred as u32,
            m = in(reg32) group << first,
        );
    }
    (r >> first) & group
}

/// Reads a whole element from **shared memory** into registers. A multi-word element
/// (`Entity`, 20 bytes) read with a plain load and swapped ends up in a stack slot
/// (local memory) after LLVM's optimisations; a volatile read keeps it in registers.
/// Not for global memory: volatile global loads skip the L1 cache (on an H100 the
/// bottom-up merge sort went from 5.4 s to over 7.5 s per 2^24 keys with them).
#[inline(always)]
pub unsafe fn load_shared_element<T: Copy>(p: *const T) -> T {
    unsafe { p.read_volatile() }
}

/// Whether a merge loop should carry its run heads of type `T` by value (one load
/// per element) or carry their indices and re-read the element (from L1 or shared
/// memory) when storing it. Elements up to 8 bytes stay in registers; a 20-byte
/// `Entity` carried by value has its payload kept in local memory by LLVM.
#[inline(always)]
pub const fn carry_by_value<T>() -> bool {
    size_of::<T>() <= 8
}

// ---------------------------------------------------------------------------------
// Shared memory through 32-bit shared-window addresses. Generic pointers into shared
// memory cost an address conversion per access; the radix kernels' hot loops (digit
// counters, tile staging) use these instead.

/// Shared-window address of the start of the block's dynamic shared memory.
#[inline(always)]
pub fn smem_base() -> u32 {
    let a: u32;
    unsafe { core::arch::asm!("mov.u32 {a}, DYN_SMEM;", a = out(reg32) a, options(nomem, nostack, pure)) };
    a
}

/// Loads the `u32` at shared address `addr`.
#[inline(always)]
pub unsafe fn lds_u32(addr: u32) -> u32 {
    let v: u32;
    unsafe {
        core::arch::asm!("ld.shared.u32 {v}, [{a}];", v = out(reg32) v, a = in(reg32) addr, options(readonly, nostack))
    };
    v
}

/// Stores `v` at shared address `addr`.
#[inline(always)]
pub unsafe fn sts_u32(addr: u32, v: u32) {
    unsafe { core::arch::asm!("st.shared.u32 [{a}], {v};", a = in(reg32) addr, v = in(reg32) v, options(nostack)) };
}

/// Loads the byte at shared address `addr`, zero-extended.
#[inline(always)]
pub unsafe fn lds_u8(addr: u32) -> u32 {
    let v: u32;
    unsafe {
        core::arch::asm!("ld.shared.u8 {v}, [{a}];", v = out(reg32) v, a = in(reg32) addr, options(readonly, nostack))
    };
    v
}

/// Stores the low 8 bits of `v` at shared address `addr`.
#[inline(always)]
pub unsafe fn sts_u8(addr: u32, v: u32) {
    unsafe { core::arch::asm!("st.shared.u8 [{a}], {v};", a = in(reg32) addr, v = in(reg32) v, options(nostack)) };
}

/// Loads the `u16` at shared address `addr` (2-byte aligned), zero-extended.
#[inline(always)]
pub unsafe fn lds_u16(addr: u32) -> u32 {
    let v: u32;
    unsafe {
        core::arch::asm!("ld.shared.u16 {v}, [{a}];", v = out(reg32) v, a = in(reg32) addr, options(readonly, nostack))
    };
    v
}

/// Stores the low 16 bits of `v` at shared address `addr` (2-byte aligned).
#[inline(always)]
pub unsafe fn sts_u16(addr: u32, v: u32) {
    unsafe { core::arch::asm!("st.shared.u16 [{a}], {v};", a = in(reg32) addr, v = in(reg32) v, options(nostack)) };
}

/// Loads the `u64` at shared address `addr` (8-byte aligned).
#[inline(always)]
pub unsafe fn lds_u64(addr: u32) -> u64 {
    let v: u64;
    unsafe {
        core::arch::asm!("ld.shared.u64 {v}, [{a}];", v = out(reg64) v, a = in(reg32) addr, options(readonly, nostack))
    };
    v
}

/// Stores `v` at shared address `addr` (8-byte aligned).
#[inline(always)]
pub unsafe fn sts_u64(addr: u32, v: u64) {
    unsafe { core::arch::asm!("st.shared.u64 [{a}], {v};", a = in(reg32) addr, v = in(reg64) v, options(nostack)) };
}

/// Adds `v` to the `u32` at shared address `addr` (no result: `red`).
#[inline(always)]
pub unsafe fn reds_add_u32(addr: u32, v: u32) {
    unsafe {
        core::arch::asm!("red.shared.add.u32 [{a}], {v};", a = in(reg32) addr, v = in(reg32) v, options(nostack))
    };
}

/// Adds `v` to the `u32` at shared address `addr`; returns the old value.
#[inline(always)]
pub unsafe fn atomic_add_shared_u32(addr: u32, v: u32) -> u32 {
    let old: u32;
    unsafe {
        core::arch::asm!("atom.shared.add.u32 {o}, [{a}], {v};", o = out(reg32) old, a = in(reg32) addr, v = in(reg32) v, options(nostack))
    };
    old
}

/// Adds `v` to the `u64` at global address `p` (no result: `red`).
#[inline(always)]
pub unsafe fn red_add_u64(p: *mut u64, v: u64) {
    unsafe { core::arch::asm!("red.global.add.u64 [{p}], {v};", p = in(reg64) p, v = in(reg64) v, options(nostack)) };
}

/// Relaxed, device-scope load of a `u32` in global memory: re-read from the point of
/// coherence on every call (for flags that other blocks of the same launch publish).
#[inline(always)]
pub unsafe fn ld_relaxed_u32(p: *const u32) -> u32 {
    let v: u32;
    unsafe {
        core::arch::asm!("ld.relaxed.gpu.global.u32 {v}, [{p}];", v = out(reg32) v, p = in(reg64) p, options(nostack))
    };
    v
}

/// Relaxed, device-scope store of a `u32` to global memory (pairs with
/// [`ld_relaxed_u32`]; the value and its flag share the word, so no fence is needed).
#[inline(always)]
pub unsafe fn st_relaxed_u32(p: *mut u32, v: u32) {
    unsafe {
        core::arch::asm!("st.relaxed.gpu.global.u32 [{p}], {v};", p = in(reg64) p, v = in(reg32) v, options(nostack))
    };
}

/// Relaxed, system-scope store of a `u32` to global memory: a word of page-locked
/// host memory that the host polls while the launch runs.
#[inline(always)]
pub unsafe fn st_relaxed_sys_u32(p: *mut u32, v: u32) {
    unsafe {
        core::arch::asm!("st.relaxed.sys.global.u32 [{p}], {v};", p = in(reg64) p, v = in(reg32) v, options(nostack))
    };
}

/// [`ld_relaxed_u32`] for a `u64` (a flag and two counts in one word).
#[inline(always)]
pub unsafe fn ld_relaxed_u64(p: *const u64) -> u64 {
    let v: u64;
    unsafe {
        core::arch::asm!("ld.relaxed.gpu.global.u64 {v}, [{p}];", v = out(reg64) v, p = in(reg64) p, options(nostack))
    };
    v
}

/// [`st_relaxed_u32`] for a `u64`.
#[inline(always)]
pub unsafe fn st_relaxed_u64(p: *mut u64, v: u64) {
    unsafe {
        core::arch::asm!("st.relaxed.gpu.global.u64 [{p}], {v};", p = in(reg64) p, v = in(reg64) v, options(nostack))
    };
}

/// Adds `v` to the `u32` at global address `p` (no result: `red`).
#[inline(always)]
pub unsafe fn red_add_u32(p: *mut u32, v: u32) {
    unsafe { core::arch::asm!("red.global.add.u32 [{p}], {v};", p = in(reg64) p, v = in(reg32) v, options(nostack)) };
}

/// One 16-byte vector load from global memory (`p` 16-byte aligned): rustc splits a
/// 16-byte aligned struct copy into two 8-byte loads.
#[inline(always)]
pub unsafe fn ld_global_v4_u32(p: *const [u32; 4]) -> [u32; 4] {
    let (a, b, c, d): (u32, u32, u32, u32);
    unsafe {
        core::arch::asm!(
            "ld.global.v4.u32 {{{a}, {b}, {c}, {d}}}, [{p}];",
            a = out(reg32) a, b = out(reg32) b, c = out(reg32) c, d = out(reg32) d, p = in(reg64) p,
            options(nostack, readonly)
        )
    };
    [a, b, c, d]
}

/// One 16-byte vector store to global memory (`p` 16-byte aligned).
#[inline(always)]
pub unsafe fn st_global_v4_u32(p: *mut [u32; 4], v: [u32; 4]) {
    unsafe {
        core::arch::asm!(
            "st.global.v4.u32 [{p}], {{{a}, {b}, {c}, {d}}};",
            p = in(reg64) p, a = in(reg32) v[0], b = in(reg32) v[1], c = in(reg32) v[2], d = in(reg32) v[3],
            options(nostack)
        )
    };
}

/// Stores the 1-, 2-, 4- or 8-byte word `v` at global address `addr`, an address held
/// as a number (from shared memory, say): a plain store through a pointer made from it
/// would be a generic store, which first checks the address's space.
#[inline(always)]
pub unsafe fn st_global_word<W: crate::key::Word>(addr: u64, v: W) {
    let x = v.to_u64();
    unsafe {
        match W::BYTES {
            1 => {
                core::arch::asm!("st.global.u8 [{a}], {x};", a = in(reg64) addr, x = in(reg32) x as u32, options(nostack))
            }
            2 => {
                core::arch::asm!("st.global.u16 [{a}], {x};", a = in(reg64) addr, x = in(reg32) x as u32, options(nostack))
            }
            4 => {
                core::arch::asm!("st.global.u32 [{a}], {x};", a = in(reg64) addr, x = in(reg32) x as u32, options(nostack))
            }
            _ => core::arch::asm!("st.global.u64 [{a}], {x};", a = in(reg64) addr, x = in(reg64) x, options(nostack)),
        }
    }
}

/// Loads the `T` at global address `p` as *streaming* data (`ld.global.cs`: the line
/// is allocated evict-first in L1 and L2), for data read for the last time: a merge
/// pass reads its input once and then overwrites it two passes later, while its output
/// is read by the next pass. Evict-first input lines leave L2 to the freshly written
/// output, which the next pass reads first (it runs its blocks in the other direction).
/// 4- and 8-byte `T` only; wider ones load plainly.
#[inline(always)]
pub unsafe fn ld_global_cs<T: Copy>(p: *const T) -> T {
    unsafe {
        match size_of::<T>() {
            4 => {
                let v: u32;
                core::arch::asm!("ld.global.cs.u32 {v}, [{p}];", v = out(reg32) v, p = in(reg64) p, options(nostack, readonly));
                core::mem::transmute_copy(&v)
            }
            8 => {
                let v: u64;
                core::arch::asm!("ld.global.cs.u64 {v}, [{p}];", v = out(reg64) v, p = in(reg64) p, options(nostack, readonly));
                core::mem::transmute_copy(&v)
            }
            _ => *p,
        }
    }
}

/// Volatile load of a `u64` in global memory (bypasses a stale L1 line).
#[inline(always)]
pub unsafe fn ld_volatile_u64(p: *const u64) -> u64 {
    let v: u64;
    unsafe {
        core::arch::asm!("ld.volatile.global.u64 {v}, [{p}];", v = out(reg64) v, p = in(reg64) p, options(nostack))
    };
    v
}

/// `__match_any_sync(0xffffffff, v)`: the lanes of the warp whose `v` equals this
/// lane's. Every lane must call it.
#[inline(always)]
pub fn match_any_u32(v: u32) -> u32 {
    let r: u32;
    unsafe {
        core::arch::asm!("match.any.sync.b32 {r}, {v}, 0xffffffff;", r = out(reg32) r, v = in(reg32) v, options(nomem, nostack))
    };
    r
}

/// Bit mask of the lanes below this one.
#[inline(always)]
pub fn lanemask_lt() -> u32 {
    let r: u32;
    unsafe { core::arch::asm!("mov.u32 {r}, %lanemask_lt;", r = out(reg32) r, options(nomem, nostack, pure)) };
    r
}

/// `__syncwarp()`: orders the warp's shared-memory accesses on either side of it.
#[inline(always)]
pub fn sync_warp() {
    unsafe { core::arch::asm!("bar.warp.sync 0xffffffff;", options(nostack)) };
}

/// The lanes of the warp whose low 8 bits of `v` equal this lane's: one ballot per bit,
/// each inverted in the lanes whose bit is clear, ANDed together (the warp-level
/// multi-split). Written as one PTX block so that each bit costs a predicate test,
/// a vote and a predicated NOT (LLVM's select form took twice the instructions); the
/// eight masks are combined by three-input `lop3`s in a tree (four instructions, two
/// deep) rather than seven dependent `and`s, which ptxas kept as two-input operations.
/// Every lane must call it.
#[inline(always)]
pub fn match_low8(v: u32) -> u32 {
    let r: u32;
    unsafe {
        core::arch::asm!(
            "{{ .reg .pred %mp; .reg .b32 %mt, %m0, %m1, %m2, %m3, %m4, %m5, %m6, %m7;",
            "and.b32 %mt, {v}, 1; setp.ne.u32 %mp, %mt, 0; vote.sync.ballot.b32 %m0, %mp, 0xffffffff; @!%mp not.b32 %m0, %m0;",
            "and.b32 %mt, {v}, 2; setp.ne.u32 %mp, %mt, 0; vote.sync.ballot.b32 %m1, %mp, 0xffffffff; @!%mp not.b32 %m1, %m1;",
            "and.b32 %mt, {v}, 4; setp.ne.u32 %mp, %mt, 0; vote.sync.ballot.b32 %m2, %mp, 0xffffffff; @!%mp not.b32 %m2, %m2;",
            "and.b32 %mt, {v}, 8; setp.ne.u32 %mp, %mt, 0; vote.sync.ballot.b32 %m3, %mp, 0xffffffff; @!%mp not.b32 %m3, %m3;",
            "and.b32 %mt, {v}, 16; setp.ne.u32 %mp, %mt, 0; vote.sync.ballot.b32 %m4, %mp, 0xffffffff; @!%mp not.b32 %m4, %m4;",
            "and.b32 %mt, {v}, 32; setp.ne.u32 %mp, %mt, 0; vote.sync.ballot.b32 %m5, %mp, 0xffffffff; @!%mp not.b32 %m5, %m5;",
            "and.b32 %mt, {v}, 64; setp.ne.u32 %mp, %mt, 0; vote.sync.ballot.b32 %m6, %mp, 0xffffffff; @!%mp not.b32 %m6, %m6;",
            "and.b32 %mt, {v}, 128; setp.ne.u32 %mp, %mt, 0; vote.sync.ballot.b32 %m7, %mp, 0xffffffff; @!%mp not.b32 %m7, %m7;",
            "lop3.b32 %m0, %m0, %m1, %m2, 0x80; lop3.b32 %m3, %m3, %m4, %m5, 0x80; lop3.b32 %m0, %m0, %m3, %m6, 0x80;",
            "and.b32 {r}, %m0, %m7; }}",
            v = in(reg32) v,
            r = out(reg32) r,
            options(nomem, nostack),
        );
    }
    r
}

/// Start of a kernel that may be launched as a *programmatic dependent* of the
/// previous kernel in its stream (Hopper's PDL; `host::device` decides per kernel):
/// waits until the previous grid has completed and its writes are visible
/// (`griddepcontrol.wait`; at once when there is no programmatic dependency). Such a
/// kernel's launch is processed, and its blocks placed, while the previous grid's last
/// blocks still run, so it starts as that grid ends instead of a launch later. Call it
/// first in the entry, before any global memory access: `xtask` checks that in the
/// PTX, and the host launches as dependents only entries that have it.
///
/// No kernel triggers its dependents early (`griddepcontrol.launch_dependents`): they
/// then launch as its last blocks exit. Measured on an H100 (docs/history.md, 2026-11-25): an early trigger at the start of every block gained up to 3% at 2^22 keys
/// but lost up to 20% where a grid is smaller than the GPU (2^20 keys), because the
/// dependents' blocks were placed on the SMs left free at that moment, packed several
/// to an SM.
///
/// The instruction needs PTX 7.8 and sm_90, and the PTX is built for sm_70, so it is
/// written as a comment tagged [`crate::PDL_MARK`], which the sm_90 build uncomments
/// (`xtask::ptx::for_sm90`). Elsewhere (other GPUs, the JIT path) it stays a comment.
#[inline(always)]
pub fn grid_dependency_wait() {
    // Not `nomem`: the asm is a compiler barrier for memory accesses, so no load of
    // the previous grid's output is hoisted above the wait.
    unsafe { core::arch::asm!("// sort-pdl: griddepcontrol.wait;", options(nostack)) }
}

/// The shared-memory address `addr` (this block's window, as [`smem_base`] gives) in
/// block `rank` of this block's cluster: distributed shared memory (Hopper,
/// `mapa.shared::cluster`). Cluster instructions need sm_90, so like
/// [`grid_dependency_wait`] they are written as comments tagged [`crate::PDL_MARK`],
/// which the sm_90 build uncomments; kernels that use them run only from the sm_90
/// cubin (the host launches them only there).
#[inline(always)]
unsafe fn cluster_addr(addr: u32, rank: u32) -> u32 {
    let r: u32;
    unsafe {
        core::arch::asm!(
            "// sort-pdl: mapa.shared::cluster.u32 {r}, {a}, {k};",
            r = out(reg32) r, a = in(reg32) addr, k = in(reg32) rank,
            options(nomem, nostack, pure)
        )
    };
    r
}

/// Reads the u32 at shared address `addr` of block `rank` of the cluster (see
/// [`cluster_addr`]).
#[inline(always)]
pub unsafe fn lds_cluster_u32(addr: u32, rank: u32) -> u32 {
    let v: u32;
    unsafe {
        let r = cluster_addr(addr, rank);
        core::arch::asm!("// sort-pdl: ld.shared::cluster.u32 {v}, [{r}];", v = out(reg32) v, r = in(reg32) r, options(readonly, nostack))
    };
    v
}

/// Reads the u64 at shared address `addr` of block `rank` of the cluster (see
/// [`cluster_addr`]).
#[inline(always)]
pub unsafe fn lds_cluster_u64(addr: u32, rank: u32) -> u64 {
    let v: u64;
    unsafe {
        let r = cluster_addr(addr, rank);
        core::arch::asm!("// sort-pdl: ld.shared::cluster.u64 {v}, [{r}];", v = out(reg64) v, r = in(reg32) r, options(readonly, nostack))
    };
    v
}

/// A barrier of every thread of every block of the cluster; the shared-memory writes
/// before it are visible to the whole cluster's reads after it (`barrier.cluster`,
/// release on arrival, acquire on the wait). Tagged as [`cluster_addr`] is.
#[inline(always)]
pub fn cluster_sync() {
    // Not `nomem`: a compiler barrier for memory accesses, as `sync_threads` is.
    unsafe {
        core::arch::asm!(
            "// sort-pdl: barrier.cluster.arrive.aligned;",
            "// sort-pdl: barrier.cluster.wait.aligned;",
            options(nostack)
        )
    }
}

/// `x`, as a value the compiler cannot see through: expressions of it are computed
/// where they are written, not hoisted out of a loop (where, one per unrolled step,
/// they would hold registers across the whole loop) or shared between the loop's
/// copies.
#[inline(always)]
pub fn opaque_u32(x: u32) -> u32 {
    let r: u32;
    unsafe { core::arch::asm!("mov.u32 {r}, {x};", r = out(reg32) r, x = in(reg32) x, options(nomem, nostack)) };
    r
}

/// `x`, as a value whose making the compiler cannot see, though it may still share,
/// hoist or drop it (unlike [`opaque_u32`]): keeps the compiler from folding the
/// arithmetic that made `x` into the arithmetic that uses it.
#[inline(always)]
pub fn veiled_u32(x: u32) -> u32 {
    let r: u32;
    unsafe { core::arch::asm!("mov.u32 {r}, {x};", r = out(reg32) r, x = in(reg32) x, options(pure, nomem, nostack)) };
    r
}
