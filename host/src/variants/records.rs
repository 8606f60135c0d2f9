//! Records of any size and layout sorted on the GPU by a key field (kernels in
//! `kernels/src/records/`): the order bits of each record's key and its index are
//! sorted as pairs (by the radix sort, or by the merge-path sort for the `mergepath`
//! variant: [`PairSort`]), then the records are permuted by a gather in the
//! widest lanes (16, 8, 4 or 1 bytes) their size and alignment allow. Stable.
//!
//! This is the record path, and it sits above the pair sorts it uses: `radix` and
//! `mergepath` sort primitive keys (alone, or with values of 4 or 8 bytes) and know
//! nothing of records. Record types such as [`crate::Entity`] come here from the
//! variants' dispatch (`variants::sort`, through `sort_by_own_key`), and so do pairs
//! whose values are wider than 8 bytes ([`sort_pairs`]).
use kernels::SortKey;
use kernels::key::BitOrder;
use kernels::params::DevPtr;
use kernels::records::{self, Gather, RecordKeys, RecordKeysKernel, key_is_aligned, lane_bytes};

use super::{mergepath, radix};
use crate::device::{DeviceBuffer, Gpu};
use crate::element::{Element, Key};
use crate::error::{Error, Result};
use crate::key_type::KeyType;
use crate::options::{Order, SortOptions};

/// Where a record's sort key lives: a primitive key of `key_type` at byte `offset`
/// (little-endian, as Rust lays out its fields; any alignment).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyField {
    /// Byte offset of the key within the record.
    pub offset: usize,
    /// The key's type: a primitive one ([`KeyType::Entity`] is refused).
    pub key_type: KeyType,
}

impl KeyField {
    /// The key of `key_type` at byte `offset` of each record.
    pub fn new(offset: usize, key_type: KeyType) -> KeyField {
        KeyField { offset, key_type }
    }

    /// The key's width in bytes and how its raw bits map to order bits;
    /// [`Error::BadArgument`] for a key type that is itself a record.
    fn encoding(&self) -> Result<(usize, BitOrder)> {
        let order = match self.key_type {
            KeyType::U32 | KeyType::U64 => BitOrder::Unsigned,
            KeyType::I32 | KeyType::I64 => BitOrder::Signed,
            KeyType::F32 | KeyType::F64 => BitOrder::Float,
            KeyType::Entity => {
                return Err(Error::BadArgument("a key field is a primitive type, not an entity".into()));
            }
            KeyType::U128 | KeyType::I128 | KeyType::Bytes(_) => {
                return Err(Error::Unsupported {
                    option: self.key_type.name(),
                    by: "a record's key field".into(),
                    hint: "key fields are 32- or 64-bit keys; sort records by a wide key with \
                           `Sorter::sort_by_wide_key`",
                });
            }
            // The key extraction moves 4- and 8-byte fields.
            KeyType::U16 | KeyType::I16 | KeyType::F16 | KeyType::Bf16 | KeyType::U8 | KeyType::I8 => {
                return Err(Error::Unsupported {
                    option: self.key_type.name(),
                    by: "a record's key field".into(),
                    hint: "key fields are 32- or 64-bit keys; sort the 16- or 8-bit keys with their record indices \
                           (`argsort`) and gather",
                });
            }
        };
        Ok((self.key_type.size(), order))
    }

    /// Checks the field against records of `record_bytes` bytes.
    pub fn check(&self, record_bytes: usize) -> Result<()> {
        let (bytes, _) = self.encoding()?;
        if record_bytes == 0 || self.offset.checked_add(bytes).is_none_or(|end| end > record_bytes) {
            return Err(Error::BadArgument(format!(
                "a {} key at byte {} does not fit in records of {record_bytes} bytes",
                self.key_type, self.offset
            )));
        }
        Ok(())
    }
}

/// The key field of a record type that has one ([`SortKey::RECORD_KEY`], e.g.
/// [`crate::Entity`]'s distance); `None` for primitive keys.
pub fn record_field<T: SortKey>() -> Option<KeyField> {
    let (offset, bit_order) = T::RECORD_KEY?;
    let key_type = match (size_of::<T::Bits>(), bit_order) {
        (4, BitOrder::Unsigned) => KeyType::U32,
        (4, BitOrder::Signed) => KeyType::I32,
        (4, BitOrder::Float) => KeyType::F32,
        (_, BitOrder::Unsigned) => KeyType::U64,
        (_, BitOrder::Signed) => KeyType::I64,
        (_, BitOrder::Float) => KeyType::F64,
    };
    Some(KeyField::new(offset, key_type))
}

/// Which stable sort orders the (key bits, index) pairs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PairSort {
    /// The radix sort (`radix`): the fastest.
    Radix,
    /// The merge-path merge sort (`mergepath`), for the `mergepath` variant's records.
    Mergepath,
}

impl PairSort {
    /// Device bytes the pair sort of `n` keys of `kb` bytes with `u32` indices needs
    /// besides its input.
    fn scratch_bytes(self, tuning: &crate::tuning::Tuning, n: usize, kb: u32) -> u64 {
        match self {
            PairSort::Radix => radix::pairs_scratch_bytes(tuning, n, kb, 4),
            PairSort::Mergepath => mergepath::pairs_scratch_bytes(n, kb, 4),
        }
    }

    /// Sorts (key bits, index) pairs ascending, stably.
    fn sort<K: Key>(self, gpu: &Gpu, keys: &mut DeviceBuffer<K>, idx: &mut DeviceBuffer<u32>) -> Result<()> {
        match self {
            PairSort::Radix => radix::sort_pairs(gpu, keys, idx, Order::Ascending, None),
            PairSort::Mergepath => mergepath::sort_pairs(gpu, keys, idx, Order::Ascending),
        }
    }
}

/// Sorts a buffer of a record type by its own key field ([`record_field`], e.g.
/// [`crate::Entity`]'s distance), its (key bits, index) pairs sorted by `pairs`: how
/// the `radix` variant sorts records, and `mergepath` those longer than one tile.
pub(crate) fn sort_by_own_key<T: Element>(
    gpu: &Gpu,
    buf: &mut DeviceBuffer<T>,
    opts: &SortOptions,
    pairs: PairSort,
) -> Result<()> {
    if opts.key_bits.is_some() {
        return Err(Error::key_bits_of_record(T::NAME));
    }
    let Some(field) = record_field::<T>() else {
        return Err(Error::BadArgument(format!("{} records have no key field to sort by", T::NAME)));
    };
    sort_by_field_with(gpu, buf, field, opts.order, pairs)
}

/// Sorts `keys` and permutes `values` the same way (stable: equal keys keep their
/// order, and so do their values), values of any element type. Keys are the primitive
/// types. Values of 4 or 8 bytes move with their keys ([`radix::sort_pairs`]; 8-byte
/// values of 16- and 8-bit keys are gathered like records); wider ones (records) stay
/// where they are while (key, index) pairs are sorted, and are
/// then gathered (at most 2^32 - 1 of them).
pub fn sort_pairs<K: Key, V: Element>(
    gpu: &Gpu,
    keys: &mut DeviceBuffer<K>,
    values: &mut DeviceBuffer<V>,
    order: Order,
    key_bits: Option<(u32, u32)>,
) -> Result<()> {
    // The radix passes move 8-byte values with 32- and 64-bit keys only; 16- and 8-bit
    // keys take 8-byte values through (key, index) pairs and a gather, as records do.
    if size_of::<V>() == 4 || (size_of::<V>() == 8 && size_of::<K>() >= 4) {
        return radix::sort_pairs(gpu, keys, values, order, key_bits);
    }
    if keys.len() != values.len() {
        return Err(Error::LengthMismatch { keys: keys.len(), values: values.len() });
    }
    radix::check_bits::<K>(key_bits, 8 * size_of::<K>() as u32)?;
    let n = keys.len();
    if n > u32::MAX as usize || !size_of::<V>().is_multiple_of(4) {
        return Err(Error::BadArgument(format!("values of {} bytes for {n} keys", size_of::<V>())));
    }
    check_free(
        gpu,
        (n * (4 + size_of::<V>())) as u64 + radix::pairs_scratch_bytes(gpu.tuning(), n, size_of::<K>() as u32, 4),
    )?;
    let idx: Vec<u32> = (0..n as u32).collect();
    let mut idx = gpu.upload(&idx)?;
    let mut out = gpu.alloc::<V>(n)?;
    radix::sort_pairs(gpu, keys, &mut idx, order, key_bits)?;
    gather(gpu, values, &mut out, &idx)?;
    std::mem::swap(values, &mut out);
    Ok(())
}

/// Sorts the records of `buf` by `field`, stably, in `order`. The sorted records land
/// in a new buffer that replaces `buf`'s storage (the gather cannot work in place).
/// At most 2^32 - 1 records.
pub fn sort_by_field<R: bytemuck::Pod>(
    gpu: &Gpu,
    buf: &mut DeviceBuffer<R>,
    field: KeyField,
    order: Order,
) -> Result<()> {
    sort_by_field_with(gpu, buf, field, order, PairSort::Radix)
}

/// [`sort_by_field`] with the pairs sorted by `pairs`.
pub fn sort_by_field_with<R: bytemuck::Pod>(
    gpu: &Gpu,
    buf: &mut DeviceBuffer<R>,
    field: KeyField,
    order: Order,
    pairs: PairSort,
) -> Result<()> {
    field.check(size_of::<R>())?;
    let n = buf.len();
    if n <= 1 {
        return Ok(());
    }
    let mut out = gpu.alloc::<R>(0)?;
    sort_raw(gpu, buf.ptr(), n, size_of::<R>(), field, order, pairs, &mut |bytes| {
        out = gpu.alloc::<R>(bytes / size_of::<R>())?;
        Ok(out.ptr())
    })?;
    std::mem::swap(buf, &mut out);
    Ok(())
}

/// [`sort_by_field`] for records whose size is known at run time: `buf` holds
/// `buf.len() / record_bytes` records of `record_bytes` bytes.
pub fn sort_bytes_by_field(
    gpu: &Gpu,
    buf: &mut DeviceBuffer<u8>,
    record_bytes: usize,
    field: KeyField,
    order: Order,
) -> Result<()> {
    field.check(record_bytes)?;
    if !buf.len().is_multiple_of(record_bytes) {
        return Err(Error::BadArgument(format!(
            "{} bytes are not a whole number of {record_bytes}-byte records",
            buf.len()
        )));
    }
    let n = buf.len() / record_bytes;
    if n <= 1 {
        return Ok(());
    }
    let mut out = gpu.alloc::<u8>(0)?;
    sort_raw(gpu, buf.ptr(), n, record_bytes, field, order, PairSort::Radix, &mut |bytes| {
        out = gpu.alloc::<u8>(bytes)?;
        Ok(out.ptr())
    })?;
    std::mem::swap(buf, &mut out);
    Ok(())
}

/// The order bits of the key `field` of one record's bytes, widened to 64 bits (the
/// CPU's view of what `record_keys_k32/k64` compute).
pub fn key_order_bits(record: &[u8], field: KeyField, descending: bool) -> Result<u64> {
    let (bytes, bit_order) = field.encoding()?;
    field.check(record.len())?;
    let raw = kernels::records::le_word_slice(&record[field.offset..field.offset + bytes]);
    let (pos, neg) = bit_order.masks(8 * bytes as u32, descending);
    let sign = 1u64 << (8 * bytes - 1);
    Ok(raw ^ if raw & sign != 0 { neg } else { pos })
}

/// [`sort_by_field`] over raw bytes: `n` records of `record_bytes` at device address
/// `src`; `alloc_out(bytes)` allocates the output and returns its address (called once
/// the scratch buffers are known to fit).
#[allow(clippy::too_many_arguments)]
fn sort_raw(
    gpu: &Gpu,
    src: u64,
    n: usize,
    record_bytes: usize,
    field: KeyField,
    order: Order,
    pairs: PairSort,
    alloc_out: &mut dyn FnMut(usize) -> Result<u64>,
) -> Result<()> {
    let (key_bytes, bit_order) = field.encoding()?;
    Error::check_u32_indices("a sort by key", n)?;
    let bytes = n * record_bytes;
    let needed = (n * (key_bytes + 4) + bytes) as u64 + pairs.scratch_bytes(gpu.tuning(), n, key_bytes as u32);
    check_free(gpu, needed)?;
    let idx = gpu.alloc::<u32>(n)?;
    let aligned = key_is_aligned(record_bytes as u64, field.offset as u64, key_bytes as u64, src) as u32;
    let (pos, neg) = bit_order.masks(8 * key_bytes as u32, order.is_descending());
    // The key bits are sorted as unsigned words: the masks above already made them
    // ascend in the requested order.
    if key_bytes == 4 {
        sort_keys::<u32>(gpu, src, n, record_bytes, field.offset, aligned, (pos, neg), idx, pairs, alloc_out)
    } else {
        sort_keys::<u64>(gpu, src, n, record_bytes, field.offset, aligned, (pos, neg), idx, pairs, alloc_out)
    }
}

/// Extracts the keys (of `K`) with their indices, sorts them as pairs and gathers the
/// records (the part of [`sort_raw`] after the checks).
#[allow(clippy::too_many_arguments)]
fn sort_keys<K: RecordKeysKernel + Key>(
    gpu: &Gpu,
    src: u64,
    n: usize,
    record_bytes: usize,
    key_offset: usize,
    aligned: u32,
    (pos, neg): (u64, u64),
    mut idx: DeviceBuffer<u32>,
    pairs: PairSort,
    alloc_out: &mut dyn FnMut(usize) -> Result<u64>,
) -> Result<()> {
    let mut keys = gpu.alloc::<K>(n)?;
    let p = RecordKeys {
        src: DevPtr::from_addr(src),
        record_bytes: record_bytes as u64,
        key_offset: key_offset as u64,
        aligned,
        n: n as u64,
        pos: K::from_u64(pos),
        neg: K::from_u64(neg),
        bits: keys.dev_ptr(),
        idx: idx.dev_ptr(),
    };
    gpu.launch(K::RECORD_KEYS, super::launch::one_thread_per_item(n as u64, 256, 0)?, &p)?;
    pairs.sort(gpu, &mut keys, &mut idx)?;
    let dst = alloc_out(n * record_bytes)?;
    gather_raw(gpu, src, dst, n, record_bytes, &idx)
}

/// `dst[i] = src[idx[i]]` for records of `R`, in the widest lanes that fit.
pub fn gather<R: bytemuck::Pod>(
    gpu: &Gpu,
    src: &DeviceBuffer<R>,
    dst: &mut DeviceBuffer<R>,
    idx: &DeviceBuffer<u32>,
) -> Result<()> {
    if src.len() != idx.len() || dst.len() != idx.len() {
        return Err(Error::BadArgument(format!(
            "gather of {} records by {} indices into {}",
            src.len(),
            idx.len(),
            dst.len()
        )));
    }
    gather_raw(gpu, src.ptr(), dst.ptr(), idx.len(), size_of::<R>(), idx)
}

/// `dst[i] = src[idx[i]]` for the `dst.len()` = `idx.len()` indices, each below
/// `src.len()` (the caller's promise: top-k and NaN-last sorts gather by the indices
/// a sort returned).
pub(crate) fn gather_from<R: bytemuck::Pod>(
    gpu: &Gpu,
    src: &DeviceBuffer<R>,
    dst: &mut DeviceBuffer<R>,
    idx: &DeviceBuffer<u32>,
) -> Result<()> {
    gather_from_at(gpu, src, 0, dst, idx)
}

/// [`gather_from`] of the records from `from` on: `dst[i] = src[from + idx[i]]`, each
/// index below `src.len() - from` (the caller's promise: the segmented sort of wide
/// keys gathers a range by the indices its sort returned).
pub(crate) fn gather_from_at<R: bytemuck::Pod>(
    gpu: &Gpu,
    src: &DeviceBuffer<R>,
    from: usize,
    dst: &mut DeviceBuffer<R>,
    idx: &DeviceBuffer<u32>,
) -> Result<()> {
    if dst.len() != idx.len() || from > src.len() {
        return Err(Error::BadArgument(format!(
            "gather of {} indices into {} records from record {from} of {}",
            idx.len(),
            dst.len(),
            src.len()
        )));
    }
    gather_raw(gpu, src.ptr_at(from), dst.ptr(), idx.len(), size_of::<R>(), idx)
}

/// `dst[i] = base + src[i]` as `u64` for `i < n` (`kernels::records::widen_u32_u64`):
/// `u32` indices written as `u64`, those of a part of a longer array placed by `base`.
/// Queued.
pub(crate) fn widen_indices(gpu: &Gpu, src: u64, dst: u64, n: u64, base: u64) -> Result<()> {
    if n == 0 {
        return Ok(());
    }
    let cfg = super::launch::one_thread_per_item(n, 256, 0)?;
    let p = records::Widen { src: DevPtr::from_addr(src), dst: DevPtr::from_addr(dst), n, base };
    gpu.launch(records::widen_u32_u64, cfg, &p)
}

fn gather_raw(gpu: &Gpu, src: u64, dst: u64, n: usize, record_bytes: usize, idx: &DeviceBuffer<u32>) -> Result<()> {
    if n == 0 || record_bytes == 0 {
        return Ok(());
    }
    let lane = lane_bytes(record_bytes as u64, src, dst);
    let lanes = (record_bytes / lane as usize) as u64;
    let cfg = super::launch::one_thread_per_item(n as u64 * lanes, 256, 0)?;
    let p = Gather::<u8> {
        src: DevPtr::from_addr(src),
        dst: DevPtr::from_addr(dst),
        idx: idx.dev_ptr(),
        n: n as u64,
        lanes,
    };
    match lane {
        16 => gpu.launch(records::gather_b16, cfg, &p.in_lanes()),
        8 => gpu.launch(records::gather_b8, cfg, &p.in_lanes()),
        4 => gpu.launch(records::gather_b4, cfg, &p.in_lanes()),
        _ => gpu.launch(records::gather_b1, cfg, &p),
    }
}

/// [`Error::OutOfMemory`] unless `needed` bytes of device memory are free (counting
/// what the memory pool keeps: [`Gpu::free_mem_for`]).
fn check_free(gpu: &Gpu, needed: u64) -> Result<()> {
    let (free, _) = gpu.free_mem_for(needed)?;
    if needed > free { Err(Error::OutOfMemory { needed, free }) } else { Ok(()) }
}
