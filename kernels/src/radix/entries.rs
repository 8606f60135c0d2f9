//! The radix kernels' parameters and entries ([`crate::params`]): one struct per kernel,
//! the entries of each key and value width, and [`Widths`], the handles of one width
//! that the host picks at run time.
//!
//! Keys move as raw words, `u32` or `u64` (`K`), values likewise (`V`; keys-alone
//! entries take `V = u32` and null value pointers). The masks `pos` / `neg` turn raw
//! bits into order bits ([`crate::key::BitOrder::masks`], descending order included).
use super::Word;
#[cfg(target_arch = "nvptx64")]
use super::{MID_ITEMS, SHORT_ITEMS, device, items};
#[cfg(target_arch = "nvptx64")]
use crate::gpu;
use crate::params::{DevPtr, EntryLayout, Kernel};

crate::kernel_params! {
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
    }
    /// Declares an entry taking [`Hist`].
    entries hist_entry;
}

crate::kernel_params! {
    /// One digit pass over one portion of tiles (`radix_onesweep`): buffers A and B of
    /// the keys and of the values (the plan says which is read), the digit `(order bits
    /// >> shift) & mask`, and this launch's place among the sort's launches.
    pub struct Sweep<K, V> {
        pub keys_a: DevPtr<K>,
        pub keys_b: DevPtr<K>,
        pub vals_a: DevPtr<V>,
        pub vals_b: DevPtr<V>,
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

crate::kernel_params! {
    /// The digit pass of a packed sort of `u32` keys with `u32` values
    /// ([`super::Packing`]): `packed_a` / `packed_b` are the packed scratch buffers A and
    /// B, `keys` / `vals` the caller's arrays; `shift` and the masks apply to the packed
    /// word (the key's shift plus 32, its masks shifted up by 32), ranked as a 64-bit
    /// key on tiles of [`super::packed_tile`].
    pub struct PackedSweep {
        pub keys: DevPtr<u32>,
        pub vals: DevPtr<u32>,
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
    }
    /// Declares an entry taking [`PackedSweep`].
    entries packed_sweep_entry;
}

crate::kernel_params! {
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

crate::kernel_params! {
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

crate::kernel_params! {
    /// When the plan left the sorted keys (and values) in the scratch buffers, copies
    /// them to the caller's, as words (`radix_copy_back`); otherwise returns at once.
    pub struct CopyBack {
        pub keys_b: DevPtr<u32>,
        pub keys_a: DevPtr<u32>,
        pub key_words: u64,
        pub vals_b: DevPtr<u32>,
        pub vals_a: DevPtr<u32>,
        pub val_words: u64,
        pub ctrl: DevPtr<u64>,
    }
    /// Declares an entry taking [`CopyBack`].
    entries copy_back_entry;
}

/// The tile kernels of one key and value width: the digit pass on full and on short
/// tiles, and the one-block sort on its three tile sizes.
#[derive(Clone, Copy, Debug)]
pub struct Widths<K, V> {
    pub sweep: Kernel<Sweep<K, V>>,
    pub sweep_short: Kernel<Sweep<K, V>>,
    pub small: Kernel<Small<K, V>>,
    pub small_short: Kernel<Small<K, V>>,
    pub small_mid: Kernel<Small<K, V>>,
}

impl<K: Word, V: Word> Widths<K, V> {
    const fn layouts(&self) -> [EntryLayout; 5] {
        [
            self.sweep.layout(),
            self.sweep_short.layout(),
            self.small.layout(),
            self.small_short.layout(),
            self.small_mid.layout(),
        ]
    }
}

/// Keys per thread of the full tile of keys `$k` with values `$v` (if `$pairs`).
#[cfg(target_arch = "nvptx64")]
macro_rules! full_items {
    ($k:ty, $v:ty, $pairs:expr) => {
        items(<$k as Word>::BYTES, if $pairs { <$v as Word>::BYTES } else { 0 })
    };
}

/// The tile kernels of one key / value width (`$pairs`: with values) and their
/// [`Widths`], named after `$suffix` (`K32_V64` for `radix_onesweep_k32_v64`, ...).
macro_rules! width_entries {
    ($k:ty, $v:ty, $pairs:expr, $suffix:ident) => {
        paste::paste! {
            sweep_entry!([<radix_onesweep_ $suffix>] { K = $k, V = $v } |p| {
                gpu::grid_dependency_wait();
                device::sweep::<$k, $v, $pairs, { full_items!($k, $v, $pairs) as usize }>(p)
            });
            sweep_entry!([<radix_onesweep_short_ $suffix>] { K = $k, V = $v } |p| {
                gpu::grid_dependency_wait();
                device::sweep::<$k, $v, $pairs, { SHORT_ITEMS as usize }>(p)
            });
            small_entry!([<radix_small_ $suffix>] { K = $k, V = $v } |p| {
                gpu::grid_dependency_wait();
                device::small_entry::<$k, $v, $pairs, { full_items!($k, $v, $pairs) as usize }>(p)
            });
            small_entry!([<radix_small_short_ $suffix>] { K = $k, V = $v } |p| {
                gpu::grid_dependency_wait();
                device::small_entry::<$k, $v, $pairs, { SHORT_ITEMS as usize }>(p)
            });
            small_entry!([<radix_small_mid_ $suffix>] { K = $k, V = $v } |p| {
                gpu::grid_dependency_wait();
                device::small_entry::<$k, $v, $pairs, { MID_ITEMS as usize }>(p)
            });
            #[doc = concat!("The tile kernels of `", stringify!($suffix), "`.")]
            pub const [<$suffix:upper>]: Widths<$k, $v> = Widths {
                sweep: [<radix_onesweep_ $suffix>],
                sweep_short: [<radix_onesweep_short_ $suffix>],
                small: [<radix_small_ $suffix>],
                small_short: [<radix_small_short_ $suffix>],
                small_mid: [<radix_small_mid_ $suffix>],
            };
        }
    };
}
width_entries!(u32, u32, false, k32);
width_entries!(u32, u32, true, k32_v32);
width_entries!(u32, u64, true, k32_v64);
width_entries!(u64, u32, false, k64);
width_entries!(u64, u32, true, k64_v32);
width_entries!(u64, u64, true, k64_v64);

packed_sweep_entry!(
    radix_onesweep_packed_k32_v32 {} | p | {
        gpu::grid_dependency_wait();
        device::packed_sweep(p)
    }
);

hist_entry!(radix_hist_k32 { K = u32 } |p| {
    gpu::grid_dependency_wait();
    device::histogram(p)
});
hist_entry!(radix_hist_k64 { K = u64 } |p| {
    gpu::grid_dependency_wait();
    device::histogram(p)
});

unpack_back_entry!(
    radix_unpack_back {} | p | {
        gpu::grid_dependency_wait();
        device::unpack_back(p)
    }
);

copy_back_entry!(
    radix_copy_back {} | p | {
        gpu::grid_dependency_wait();
        device::copy_back(p)
    }
);

/// The histogram kernel of keys `K`.
pub trait HistKernel: Word {
    const HIST: Kernel<Hist<Self>>;
}

impl HistKernel for u32 {
    const HIST: Kernel<Hist<u32>> = radix_hist_k32;
}

impl HistKernel for u64 {
    const HIST: Kernel<Hist<u64>> = radix_hist_k64;
}

/// Every radix entry.
pub const KERNELS: &[EntryLayout] = &{
    let w = [K32.layouts(), K32_V32.layouts(), K32_V64.layouts(), K64.layouts(), K64_V32.layouts(), K64_V64.layouts()];
    let mut all = [radix_hist_k32.layout(); 35];
    let mut i = 0;
    while i < 30 {
        all[i] = w[i / 5][i % 5];
        i += 1;
    }
    all[30] = radix_hist_k32.layout();
    all[31] = radix_hist_k64.layout();
    all[32] = radix_onesweep_packed_k32_v32.layout();
    all[33] = radix_unpack_back.layout();
    all[34] = radix_copy_back.layout();
    all
};
