//! The host-kernel boundary: each kernel's parameters are one `#[repr(C)]` struct,
//! declared once with `kernel_params!` in the portable half of its family, which both
//! sides compile. The host fills that struct and launches it through one typed call
//! (`host`'s `Gpu::launch`, given a [`Kernel`] handle); the device entry receives the
//! same fields and rebuilds the struct for the kernel body.
//!
//! # Why the entries take the fields, not the struct
//!
//! rustc's `ptx-kernel` ABI passes a struct by value as one byte array
//! (`.param .align 8 .b8 name_param_0[N]`, an `[N/8 x i64]` in LLVM), which the driver
//! fills from the same bytes as a C struct. But LLVM then no longer knows that the
//! pointers inside it address global memory, and every load and store through them
//! becomes a generic one (`ld.b32` where a pointer parameter gives `ld.global.b32`).
//! So `kernel_params!` writes each entry's parameter list from the struct's fields,
//! in order: the PTX of an entry is exactly what hand-written parameters gave, and a
//! C struct's layout is the layout of the parameter buffer of those parameters, so the
//! two agree field by field. `host`'s tests check every entry of the PTX against its
//! struct's [`KernelParams::FIELDS`] (names of the entries, offsets and sizes of the
//! parameters), and the probe `params_abi_probe` keeps the finding above checked.
use core::marker::PhantomData;

/// The device address of `T`s: a pointer on the device, the address as a `u64` on the
/// host. On both sides it is passed and stored exactly as a pointer (`.param .u64`).
#[repr(transparent)]
pub struct DevPtr<T> {
    #[cfg(target_arch = "nvptx64")]
    ptr: *mut T,
    #[cfg(not(target_arch = "nvptx64"))]
    addr: u64,
    _elem: PhantomData<fn() -> T>,
}

impl<T> Clone for DevPtr<T> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for DevPtr<T> {}

impl<T> core::fmt::Debug for DevPtr<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "DevPtr({:#x})", self.addr())
    }
}

impl<T> PartialEq for DevPtr<T> {
    fn eq(&self, other: &Self) -> bool {
        self.addr() == other.addr()
    }
}

impl<T> Eq for DevPtr<T> {}

impl<T> DevPtr<T> {
    /// No buffer (address 0), for parameters a kernel does not read in that launch.
    pub const NULL: DevPtr<T> = DevPtr::from_addr(0);

    /// The device address `addr` as a pointer to `T`s.
    #[inline(always)]
    pub const fn from_addr(addr: u64) -> DevPtr<T> {
        DevPtr {
            #[cfg(target_arch = "nvptx64")]
            ptr: core::ptr::without_provenance_mut(addr as usize),
            #[cfg(not(target_arch = "nvptx64"))]
            addr,
            _elem: PhantomData,
        }
    }

    /// The address.
    #[inline(always)]
    pub fn addr(self) -> u64 {
        #[cfg(target_arch = "nvptx64")]
        {
            self.ptr as u64
        }
        #[cfg(not(target_arch = "nvptx64"))]
        {
            self.addr
        }
    }

    /// The same address, as `U`s.
    #[inline(always)]
    pub const fn cast<U>(self) -> DevPtr<U> {
        DevPtr {
            #[cfg(target_arch = "nvptx64")]
            ptr: self.ptr.cast(),
            #[cfg(not(target_arch = "nvptx64"))]
            addr: self.addr,
            _elem: PhantomData,
        }
    }

    /// The address `count` elements further.
    #[inline(always)]
    pub fn offset(self, count: u64) -> DevPtr<T> {
        DevPtr::from_addr(self.addr() + count * size_of::<T>() as u64)
    }
}

#[cfg(target_arch = "nvptx64")]
impl<T> DevPtr<T> {
    /// The pointer, for the kernel body.
    #[inline(always)]
    pub fn get(self) -> *mut T {
        self.ptr
    }
}

/// The sort direction on the device: one encoding for every kernel that compares keys
/// (`0` ascending, `1` descending; the radix kernels take it as XOR masks, see
/// [`crate::key::BitOrder::masks`]).
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Direction(u32);

impl Direction {
    pub const ASCENDING: Direction = Direction(0);
    pub const DESCENDING: Direction = Direction(1);

    #[inline(always)]
    pub const fn new(descending: bool) -> Direction {
        Direction(descending as u32)
    }

    #[inline(always)]
    pub fn is_descending(self) -> bool {
        self.0 != 0
    }
}

/// One parameter of a kernel: the struct field it comes from, its offset in the
/// parameter buffer and its size in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    pub name: &'static str,
    pub offset: usize,
    pub size: usize,
}

/// Most parameters of one kernel.
pub const MAX_PARAMS: usize = 24;

/// The addresses of a parameter struct's fields, in order, as `cuLaunchKernel` takes
/// them (`void **kernelParams`); valid while the struct is borrowed.
pub type ArgPtrs = ([*mut core::ffi::c_void; MAX_PARAMS], usize);

/// A kernel's parameter struct, implemented by `kernel_params!` alone.
///
/// # Safety
/// [`FIELDS`](Self::FIELDS) lists every field in declaration order with its offset
/// and size, the struct is `#[repr(C)]`, and [`arg_ptrs`](Self::arg_ptrs) points at
/// those fields in that order: the device entries' parameter lists are made from the
/// same field list.
pub unsafe trait KernelParams: Copy + 'static {
    const FIELDS: &'static [Field];

    /// The fields' addresses, for the launch.
    fn arg_ptrs(&self) -> ArgPtrs;
}

/// A kernel entry whose parameters are `P`. Made only by the entry macros that
/// `kernel_params!` defines, next to the entry itself, so the name and the
/// parameter type cannot disagree.
pub struct Kernel<P> {
    name: &'static str,
    _params: PhantomData<fn(P)>,
}

impl<P> Clone for Kernel<P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P> Copy for Kernel<P> {}

impl<P> core::fmt::Debug for Kernel<P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name)
    }
}

impl<P> Kernel<P> {
    /// Used by the entry macros only.
    #[doc(hidden)]
    pub const fn declared(name: &'static str) -> Kernel<P> {
        Kernel { name, _params: PhantomData }
    }

    /// The entry's name in the PTX.
    pub const fn name(self) -> &'static str {
        self.name
    }
}

impl<P: KernelParams> Kernel<P> {
    /// The entry's name and parameter layout, for the test that checks them against
    /// the PTX.
    pub const fn layout(self) -> EntryLayout {
        EntryLayout { name: self.name, fields: P::FIELDS }
    }
}

/// An entry's name and parameter layout.
#[derive(Clone, Copy, Debug)]
pub struct EntryLayout {
    pub name: &'static str,
    pub fields: &'static [Field],
}

/// The layout of an entry that some types have and others not (`None` for those).
pub const fn layout_of<P: KernelParams>(kernel: Option<Kernel<P>>) -> Option<EntryLayout> {
    match kernel {
        Some(k) => Some(k.layout()),
        None => None,
    }
}

/// The number of entries in `groups` (its `Some`s): the length of [`entry_list`].
pub const fn entry_count(groups: &[&[Option<EntryLayout>]]) -> usize {
    let (mut n, mut g) = (0, 0);
    while g < groups.len() {
        let mut i = 0;
        while i < groups[g].len() {
            n += groups[g][i].is_some() as usize;
            i += 1;
        }
        g += 1;
    }
    n
}

/// The entries of `groups` one after another, leaving out the `None`s, as an array of
/// `N` = [`entry_count`]`(groups)`, in a constant: a family's list of entries built
/// from its traits, one group per kind of entry (that entry of each type, `None` for
/// the types without it).
pub const fn entry_list<const N: usize>(groups: &[&[Option<EntryLayout>]]) -> [EntryLayout; N] {
    let mut out = [EntryLayout { name: "", fields: &[] }; N];
    let (mut n, mut g) = (0, 0);
    while g < groups.len() {
        let mut i = 0;
        while i < groups[g].len() {
            if let Some(layout) = groups[g][i] {
                out[n] = layout;
                n += 1;
            }
            i += 1;
        }
        g += 1;
    }
    assert!(n == N, "N is entry_count(groups)");
    out
}

/// Declares a kernel's parameter struct and a macro that declares its entries.
///
/// ```ignore
/// kernel_params! {
///     /// One pass of the basic rank merge.
///     pub struct MergePass<T> {
///         pub src: DevPtr<T>,
///         pub n: u64,
///     }
///     /// Declares an entry taking [`MergePass`].
///     entries merge_pass_entry;
/// }
/// merge_pass_entry!(naive_merge_pass_u32 { T = u32 } |p| device::merge_pass(p));
/// ```
///
/// The struct is `#[repr(C)]`, `Copy`, and implements [`KernelParams`]. Each use of
/// the entry macro declares, on the device, the entry `naive_merge_pass_u32` with the
/// struct's fields as its parameters (the generic parameters bound as given), which
/// rebuilds the struct as `p` and runs the body; and, on both sides, the constant
/// `naive_merge_pass_u32: Kernel<MergePass<u32>>` that the host launches.
macro_rules! kernel_params {
    (@with_dollar ($d:tt)
        $(#[$meta:meta])*
        pub struct $name:ident $(<$($g:ident),+>)? {
            $( $(#[$fmeta:meta])* pub $field:ident : $ty:ty ),+ $(,)?
        }
        $(#[$mmeta:meta])*
        entries $entry_macro:ident;
    ) => {
        $(#[$meta])*
        #[repr(C)]
        pub struct $name $(<$($g),+>)? {
            $( $(#[$fmeta])* pub $field: $ty ),+
        }

        impl $(<$($g: Copy),+>)? Clone for $name $(<$($g),+>)? {
            #[inline(always)]
            fn clone(&self) -> Self {
                *self
            }
        }

        impl $(<$($g: Copy),+>)? Copy for $name $(<$($g),+>)? {}

        // SAFETY: `#[repr(C)]`; the fields are listed and pointed at in declaration
        // order, from the same list the entries' parameters are made of.
        unsafe impl $(<$($g: Copy + 'static),+>)? $crate::params::KernelParams for $name $(<$($g),+>)? {
            const FIELDS: &'static [$crate::params::Field] = &[$(
                $crate::params::Field {
                    name: stringify!($field),
                    offset: core::mem::offset_of!(Self, $field),
                    size: core::mem::size_of::<$ty>(),
                }
            ),+];

            #[inline(always)]
            fn arg_ptrs(&self) -> $crate::params::ArgPtrs {
                const COUNT: usize = [$(stringify!($field)),+].len();
                const { assert!(COUNT <= $crate::params::MAX_PARAMS, "too many kernel parameters") };
                let mut ptrs = [core::ptr::null_mut(); $crate::params::MAX_PARAMS];
                let mut i = 0;
                $(
                    ptrs[i] = (&self.$field as *const $ty).cast_mut().cast();
                    i += 1;
                )+
                (ptrs, i)
            }
        }

        $(#[$mmeta])*
        macro_rules! $entry_macro {
            ($d entry:ident { $d($d gen:ident = $d arg:ty),* $d(,)? } |$d p:ident| $d body:expr) => {
                #[cfg(target_arch = "nvptx64")]
                #[allow(non_snake_case)]
                mod $d entry {
                    // The fields' types are written where the struct was declared;
                    // the boundary's own types are in scope wherever entries are.
                    #[allow(unused_imports)]
                    use super::*;
                    #[allow(unused_imports)]
                    use $crate::params::{DevPtr, Direction};
                    $d(#[allow(dead_code)] type $d gen = $d arg;)*
                    #[unsafe(no_mangle)]
                    #[allow(clippy::too_many_arguments)]
                    pub unsafe extern "ptx-kernel" fn $d entry($($field: $ty),+) {
                        let $d p = $name { $($field),+ };
                        #[allow(unused_unsafe)]
                        unsafe {
                            $d body
                        }
                    }
                }
                #[allow(non_upper_case_globals)]
                pub const $d entry: $crate::params::Kernel<$name<$d($d arg),*>> =
                    $crate::params::Kernel::declared(stringify!($d entry));
            };
        }
        #[allow(unused_imports)]
        pub(crate) use $entry_macro;
    };
    ($($body:tt)*) => {
        $crate::params::kernel_params!(@with_dollar ($) $($body)*);
    };
}

/// The families name the macro by this module's path.
pub(crate) use kernel_params;

/// Checks the finding of the module docs in every PTX build: an entry that takes a
/// struct by value gets one byte-array parameter of the struct's size, and its loads
/// through a pointer inside are generic (`host`'s PTX tests read this entry).
#[cfg(target_arch = "nvptx64")]
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn params_abi_probe(p: AbiProbe) {
    let i = crate::gpu::global_idx();
    if i < p.n {
        // SAFETY: the probe is compiled, never launched.
        unsafe { *p.data.get().add(i as usize) += p.add };
    }
}

/// The struct `params_abi_probe` takes by value: 8 + 8 + 4 bytes, padded to 24.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct AbiProbe {
    pub data: DevPtr<u32>,
    pub n: u64,
    pub add: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: EntryLayout = EntryLayout { name: "a", fields: &[] };
    const B: EntryLayout = EntryLayout { name: "b", fields: &[] };
    const C: EntryLayout = EntryLayout { name: "c", fields: &[] };
    const GROUPS: &[&[Option<EntryLayout>]] = &[&[Some(A), None], &[], &[None, Some(B), Some(C)]];

    #[test]
    fn entry_list_keeps_the_present_entries_in_order() {
        const LIST: [EntryLayout; entry_count(GROUPS)] = entry_list(GROUPS);
        let names: [&str; 3] = LIST.map(|l| l.name);
        assert_eq!(names, ["a", "b", "c"]);
        assert_eq!(entry_count(&[&[None]]), 0);
    }
}
