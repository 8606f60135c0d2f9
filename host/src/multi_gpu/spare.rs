//! Memory for the exchange and the merge of sort first, mapped while the local sort
//! runs ([`Spare`]), and fitted to the exact sizes once the splitters are known
//! ([`fitted`]).
use crate::device::DeviceBuffer;
use crate::error::{Error, Result};

/// Buffers for what a GPU (of a [`super::MultiGpuSorter`] or a rank of a
/// [`crate::RankGroup`]) receives and what it ends holding, allocated while its local
/// sort runs, at sizes estimated from its part. Taken from the memory pool, a
/// buffer of 2 GiB maps fresh memory when the pool holds no free block that large (4-5
/// ms of host time on an H200, 2026-11-29, the whole of the 2^30-key two-rank sort's
/// merge time beyond its 1.4 ms of kernels); after the local sort it came between the
/// exchange and the merge, with the device idle. A buffer that turns out too short is
/// replaced by one of the exact size ([`fitted`]).
pub(crate) struct Spare<K, V> {
    pub(crate) recv_keys: Option<DeviceBuffer<K>>,
    pub(crate) recv_values: Option<DeviceBuffer<V>>,
    pub(crate) held_keys: Option<DeviceBuffer<K>>,
    pub(crate) held_values: Option<DeviceBuffer<V>>,
}

impl<K, V> Default for Spare<K, V> {
    fn default() -> Self {
        Spare { recv_keys: None, recv_values: None, held_keys: None, held_values: None }
    }
}

/// The buffer, or `None` where the device lacks the memory.
fn unless_short<T>(r: Result<DeviceBuffer<T>>) -> Result<Option<DeviceBuffer<T>>> {
    match r {
        Ok(b) => Ok(Some(b)),
        Err(Error::OutOfMemory { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

impl<K: bytemuck::Pod, V: bytemuck::Pod> Spare<K, V> {
    /// Room for one of `p` GPUs whose part has `n` keys (and values, `pairs`): the
    /// others' pieces of a balanced split (`n - n / p`, which values of other
    /// widths than 4 and 8 bytes receive with the own piece: `n`), and the `n` keys it
    /// holds after the merge, each with 1/32 more for the splitters' imbalance. Memory
    /// the device does not have is left to the exchange and the merge to ask for.
    pub(crate) fn reserve(gpu: &crate::Gpu, n: usize, p: usize, pairs: bool) -> Result<Spare<K, V>> {
        let slack = |len: usize| len.saturating_add(len / 32).saturating_add(1 << 16);
        let kv_merge = matches!(size_of::<V>(), 4 | 8);
        let recv = slack(if pairs && !kv_merge { n } else { n - n / p });
        let held = slack(n);
        let mut spare = Spare { recv_keys: unless_short(gpu.alloc::<K>(recv))?, ..Spare::default() };
        if pairs {
            spare.recv_values = unless_short(gpu.alloc::<V>(recv))?;
        }
        // The records path sorts what it received in place: no merged buffer.
        if !pairs || kv_merge {
            spare.held_keys = unless_short(gpu.alloc::<K>(held))?;
            if pairs {
                spare.held_values = unless_short(gpu.alloc::<V>(held))?;
            }
        }
        Ok(spare)
    }
}

/// `spare` shortened to `len` elements if it holds that many, else a new buffer of
/// `len` (the spare freed first).
pub(crate) fn fitted<T: bytemuck::Pod>(
    gpu: &crate::Gpu,
    spare: Option<DeviceBuffer<T>>,
    len: usize,
) -> Result<DeviceBuffer<T>> {
    match spare {
        Some(mut b) if b.len() >= len => {
            b.truncate(len);
            Ok(b)
        }
        other => {
            drop(other);
            gpu.alloc::<T>(len)
        }
    }
}
