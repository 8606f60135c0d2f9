//! Device memory the caller owns (a PyTorch tensor's, a CuPy array's), lent to the
//! library for the length of a call: [`Gpu::borrow_device_memory`] and
//! [`BorrowedBuffer`]. The library sorts it in place and never frees it, also when a
//! sort fails half-way or swaps a buffer's storage for its own allocation.
//!
//! Besides the sort in place, the operations whose results the caller allocates write
//! them straight into lent memory: argsort as `u64` indices, the pair sort of lent keys
//! and values, searchsorted; [`BorrowedBuffer::widen_from`] writes a library's `u32`
//! results (run lengths, indices) as `u64`.
use std::mem::ManuallyDrop;

use cudarc::driver::sys::{CUmemorytype, CUpointer_attribute, CUresult, cuPointerGetAttributes};

use super::{DeviceBuffer, Gpu};
use crate::element::{Element, Key};
use crate::error::{DriverContext, Error, Result};
use crate::options::{KeyOrder, NanOrder, SortOptions, Ties};
use crate::sorter::Sorter;
use crate::variants;
use crate::variants::searchsorted::{QueryOrder, Side};

/// `len` elements of `T` at a device address the caller owns, seen as a
/// [`DeviceBuffer`] that is never freed by the library (made by
/// [`Gpu::borrow_device_memory`]). Only a shared view of the buffer is handed out
/// ([`BorrowedBuffer::buffer`]), so the lent memory cannot leave this value; the
/// operations that write it ([`BorrowedBuffer::sort`], [`BorrowedBuffer::sort_pairs`],
/// [`BorrowedBuffer::copy_from`], the `_into` forms' outputs,
/// [`BorrowedBuffer::widen_from`]) leave their result at the caller's address;
/// [`BorrowedBuffer::argsort`] and [`BorrowedBuffer::top_k`] read it.
pub struct BorrowedBuffer<'a, T: bytemuck::Pod> {
    gpu: &'a Gpu,
    /// The caller's address: where results must end up.
    addr: u64,
    buf: DeviceBuffer<T>,
}

impl Gpu {
    /// Lends `len` elements of `T` at device address `ptr` to the library, without a
    /// copy and without taking ownership: dropping the returned buffer never frees the
    /// memory. Checked here: `ptr` is device memory of this GPU (the driver's pointer
    /// attributes), the `len` elements lie inside one allocation, and `ptr` is aligned
    /// for `T`; otherwise [`Error::BadArgument`].
    ///
    /// Work on the buffer is queued on [`Gpu::stream`]: order it after the caller's
    /// pending writes and before the caller's later reads (a stream wait on an event,
    /// or a synchronisation), as the Python bindings do with the stream that
    /// `__cuda_array_interface__` names.
    ///
    /// # Safety
    ///
    /// The memory must belong to this GPU's context (PyTorch and CuPy allocate in the
    /// device's primary context, which [`Gpu::open`] uses too), stay allocated until the
    /// returned [`BorrowedBuffer`] is dropped *and* the work queued on it has finished,
    /// and not be written by anyone else in that time except in stream order.
    pub unsafe fn borrow_device_memory<T: bytemuck::Pod>(&self, ptr: u64, len: usize) -> Result<BorrowedBuffer<'_, T>> {
        let bytes = len
            .checked_mul(size_of::<T>())
            .ok_or_else(|| Error::BadArgument(format!("{len} elements overflow the address space")))?;
        if bytes == 0 {
            // Nothing to read or write: an owned empty buffer, whatever `ptr` is.
            return Ok(BorrowedBuffer { gpu: self, addr: 0, buf: self.alloc(0)? });
        }
        if !ptr.is_multiple_of(align_of::<T>() as u64) {
            return Err(Error::BadArgument(format!(
                "device address {ptr:#x} is not aligned for {}-byte elements",
                align_of::<T>()
            )));
        }
        self.check_device_range(ptr, bytes as u64)?;
        Ok(BorrowedBuffer { gpu: self, addr: ptr, buf: self.lent(ptr, len) })
    }

    /// A non-owning [`DeviceBuffer`] over `len` elements at `ptr`.
    pub(super) fn lent<T: bytemuck::Pod>(&self, ptr: u64, len: usize) -> DeviceBuffer<T> {
        // SAFETY: the range was checked by `borrow_device_memory`; `owned: false` makes
        // the drop leak cudarc's handle instead of freeing the memory.
        let raw = unsafe { self.stream.upgrade_device_ptr::<u8>(ptr, len * size_of::<T>()) };
        DeviceBuffer { raw: ManuallyDrop::new(raw), len, owned: false, _elem: std::marker::PhantomData }
    }

    /// Checks that `bytes` bytes at `ptr` are device memory of this GPU, inside one
    /// allocation: the driver's pointer attributes, all four in one call.
    fn check_device_range(&self, ptr: u64, bytes: u64) -> Result<()> {
        self.ctx.bind_to_thread().call("cuCtxSetCurrent")?;
        let not_device = |why: String| Error::BadArgument(format!("{ptr:#x} is not device memory of this GPU: {why}"));
        let (mut memory_type, mut ordinal, mut start, mut size) = (0u32, -1i32, 0u64, 0u64);
        let mut attrs = [
            CUpointer_attribute::CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
            CUpointer_attribute::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
            CUpointer_attribute::CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
            CUpointer_attribute::CU_POINTER_ATTRIBUTE_RANGE_SIZE,
        ];
        let mut data: [*mut std::ffi::c_void; 4] =
            [(&raw mut memory_type).cast(), (&raw mut ordinal).cast(), (&raw mut start).cast(), (&raw mut size).cast()];
        // SAFETY: each `data` entry points to a value of its attribute's type (a
        // memory type and an ordinal are 4-byte ints, the range's start and size
        // 8-byte addresses), and the driver only reads `ptr` as a number.
        let r = unsafe { cuPointerGetAttributes(4, attrs.as_mut_ptr(), data.as_mut_ptr(), ptr) };
        if r != CUresult::CUDA_SUCCESS {
            return Err(not_device(format!("the driver does not know the address ({r:?})")));
        }
        // An address the driver does not know reads as memory type 0.
        if memory_type == 0 {
            return Err(not_device("the driver does not know the address".into()));
        }
        if memory_type != CUmemorytype::CU_MEMORYTYPE_DEVICE as u32 {
            return Err(not_device(format!("memory type {memory_type} (host memory?)")));
        }
        if ordinal as i64 != self.info.ordinal as i64 {
            return Err(not_device(format!("it is on device {ordinal}, this GPU is device {}", self.info.ordinal)));
        }
        if ptr.checked_add(bytes).is_none_or(|end| end > start.saturating_add(size)) {
            return Err(Error::BadArgument(format!(
                "{bytes} bytes at {ptr:#x} run past the end of their allocation ({size} bytes at {start:#x})"
            )));
        }
        Ok(())
    }
}

impl<T: bytemuck::Pod> BorrowedBuffer<'_, T> {
    /// The lent memory, for reading (a source of [`BorrowedBuffer::copy_from`], a
    /// kernel's input). It stays the caller's memory: only shared access is given out.
    pub fn buffer(&self) -> &DeviceBuffer<T> {
        &self.buf
    }

    /// Copies all of `src` into the lent memory (same length, queued on the stream).
    pub fn copy_from(&mut self, src: &DeviceBuffer<T>) -> Result<()> {
        self.buf.copy_from_device(self.gpu, src)
    }

    /// Sorts the lent memory in place with `sorter` ([`Sorter::sort_device`]: queued,
    /// not waited for), which must be on this buffer's device. A variant that sorts
    /// into new memory has its result copied back to the caller's address; on error the
    /// memory holds an unspecified permutation of partial results, and is still the
    /// caller's.
    pub fn sort(&mut self, sorter: &Sorter, opts: &SortOptions) -> Result<()>
    where
        T: Element,
    {
        self.check_sorter(sorter)?;
        let sorted = sorter.sort_device(&mut self.buf, opts);
        let restored = self.restore();
        sorted.and(restored)
    }

    /// Sorts the lent `src` into the lent memory ([`Sorter::sort_device_into`]: `src`
    /// is only read, the radix sort's first pass reads it and its last lands here, no
    /// copy of the input; queued, not waited for). `src` may be this very memory (in
    /// place), and must not otherwise overlap it. On error the memory holds
    /// unspecified keys, and is still the caller's.
    pub fn sort_from(&mut self, src: &BorrowedBuffer<'_, T>, sorter: &Sorter, opts: &SortOptions) -> Result<()>
    where
        T: Element,
    {
        self.check_sorter(sorter)?;
        src.check_sorter(sorter)?;
        let sorted = sorter.sort_device_into(&src.buf, &mut self.buf, opts);
        let restored = self.restore();
        sorted.and(restored)
    }

    /// The stable sorting permutation of the lent keys (as [`Sorter::argsort`], the
    /// radix sort; float keys in NaN-last order through their canonical copy,
    /// [`variants::nan`]) in a new device buffer; queued, not waited for. At most
    /// 2^32 - 1 keys.
    pub fn argsort(&self, sorter: &Sorter, order: impl Into<KeyOrder>) -> Result<DeviceBuffer<u32>>
    where
        T: Key,
    {
        let order = order.into();
        let gpu = self.check_sorter(sorter)?;
        Error::check_u32_indices("argsort", self.buf.len())?;
        if order.nan_last_for::<T>() {
            variants::nan::argsort(gpu, &self.buf, order.order, None)
        } else {
            variants::radix::argsort(gpu, &self.buf, order.order, None)
        }
    }

    /// Writes the stable sorting permutation of the lent keys into `out` (lent memory of
    /// the same length) as indices of `I`: `u64` for a caller's int64 result, `u32`.
    /// The sort's last pass writes the indices there at their width
    /// ([`variants::radix::argsort_into`]), so nothing is copied or widened after it.
    /// Queued, not waited for. `u32` indices take at most 2^32 - 1 keys, `u64` any
    /// number.
    pub fn argsort_into<I: variants::radix::Index>(
        &self,
        sorter: &Sorter,
        order: impl Into<KeyOrder>,
        out: &mut BorrowedBuffer<'_, I>,
    ) -> Result<()>
    where
        T: Key,
    {
        self.argsort_ties_into(sorter, order.into(), out, Ties::Stable)
    }

    /// [`BorrowedBuffer::argsort_into`] whose equal keys may come out in any order
    /// ([`Ties::Any`]: `torch.argsort(stable=False)`); 32- and 16-bit keys take the argsort
    /// whose first pass ranks ties in any order, which is faster. Queued, not waited
    /// for.
    pub fn argsort_unstable_into<I: variants::radix::Index>(
        &self,
        sorter: &Sorter,
        order: impl Into<KeyOrder>,
        out: &mut BorrowedBuffer<'_, I>,
    ) -> Result<()>
    where
        T: Key,
    {
        self.argsort_ties_into(sorter, order.into(), out, Ties::Any)
    }

    fn argsort_ties_into<I: variants::radix::Index>(
        &self,
        sorter: &Sorter,
        order: KeyOrder,
        out: &mut BorrowedBuffer<'_, I>,
        ties: Ties,
    ) -> Result<()>
    where
        T: Key,
    {
        let gpu = self.check_sorter(sorter)?;
        out.check_sorter(sorter)?;
        check_lengths("argsort", self.buf.len(), "indices", out.buf.len())?;
        if self.overlaps(out) {
            return Err(Error::BadArgument("argsort: the indices overlap the keys".into()));
        }
        if self.buf.is_empty() {
            return Ok(());
        }
        variants::radix::argsort_ordered_into(gpu, &self.buf, &mut out.buf, order, None, ties)
    }

    /// Sorts the lent keys and the lent `values` in place as pairs (as
    /// [`Sorter::sort_pairs`], the radix sort: stable, values of 4 or 8 bytes move with
    /// their keys; float keys in NaN-last order: the permutation of their canonical
    /// copy, then a gather of keys and values by it); queued, not waited for. The keys
    /// and values must not overlap. On error both hold unspecified permutations of
    /// partial results.
    pub fn sort_pairs<V: Element>(
        &mut self,
        values: &mut BorrowedBuffer<'_, V>,
        sorter: &Sorter,
        order: impl Into<KeyOrder>,
    ) -> Result<()>
    where
        T: Key,
    {
        let order = order.into();
        let gpu = self.check_sorter(sorter)?;
        values.check_sorter(sorter)?;
        if self.buf.len() != values.buf.len() {
            return Err(Error::LengthMismatch { keys: self.buf.len(), values: values.buf.len() });
        }
        if self.overlaps(values) {
            return Err(Error::BadArgument("sort_pairs: the values overlap the keys".into()));
        }
        if self.buf.is_empty() {
            return Ok(());
        }
        if order.nan_last_for::<T>() {
            let perm = variants::nan::argsort(gpu, &self.buf, order.order, None)?;
            gather_in_place(gpu, &mut self.buf, &perm)?;
            return gather_in_place(gpu, &mut values.buf, &perm);
        }
        let sorted = variants::radix::sort_pairs(gpu, &mut self.buf, &mut values.buf, order.order, None);
        let restored = self.restore().and(values.restore());
        sorted.and(restored)
    }

    /// Sorts each row of the lent row-major `rows` x `cols` matrix in place
    /// ([`Sorter::sort_rows_device`]: `torch.sort(x, dim=-1, stable=True)`); queued,
    /// not waited for.
    pub fn sort_rows(&mut self, sorter: &Sorter, rows: usize, cols: usize, order: impl Into<KeyOrder>) -> Result<()>
    where
        T: Key,
    {
        let gpu = self.check_sorter(sorter)?;
        let sorted = variants::rows::sort_rows(gpu, &mut self.buf, rows, cols, order);
        sorted.and(self.restore())
    }

    /// Writes the stable sorting permutation of each row of the lent row-major `rows` x
    /// `cols` matrix (column indices, [`Sorter::argsort_rows_device`]) into `out`
    /// (lent memory of the same length) as `u64`: the `u32` permutation widened by one
    /// pass ([`BorrowedBuffer::widen_from`]). Queued, not waited for.
    pub fn argsort_rows_into(
        &self,
        sorter: &Sorter,
        rows: usize,
        cols: usize,
        order: impl Into<KeyOrder>,
        out: &mut BorrowedBuffer<'_, u64>,
    ) -> Result<()>
    where
        T: Key,
    {
        let gpu = self.check_sorter(sorter)?;
        out.check_sorter(sorter)?;
        check_lengths("argsort_rows", self.buf.len(), "indices", out.buf.len())?;
        if self.overlaps(out) {
            return Err(Error::BadArgument("argsort_rows: the indices overlap the keys".into()));
        }
        let perm = variants::rows::argsort_rows(gpu, &self.buf, rows, cols, order)?;
        out.widen_from(&perm)
    }

    /// The first `min(k, cols)` keys of each row's stable sort in `order` and their
    /// columns ([`Sorter::top_k_rows_device`]: `torch.topk(x, k, dim=-1)`), in new
    /// device buffers; queued, not waited for.
    pub fn top_k_rows(
        &self,
        sorter: &Sorter,
        rows: usize,
        cols: usize,
        k: usize,
        order: impl Into<KeyOrder>,
    ) -> Result<(DeviceBuffer<T>, DeviceBuffer<u32>)>
    where
        T: Key,
    {
        let gpu = self.check_sorter(sorter)?;
        variants::rows::top_k_rows(gpu, &self.buf, rows, cols, k, order)
    }

    /// For each of the lent `queries`, where it falls in these lent keys (ascending in
    /// the sort's order), written into `out` ([`Sorter::searchsorted_device`]; `order`
    /// says whether the queries are ascending: the merge path). Floats compare by
    /// `nan`: [`NanOrder::Total`] by their bits' total order, [`NanOrder::Last`] as
    /// numpy compares them (every NaN above `+inf`, all NaNs equal, `-0.0 == +0.0`;
    /// the keys must be ascending in that order), by a search of canonical copies of
    /// keys and queries ([`variants::runs::canonical_copy`]). Queued, not waited for.
    #[allow(clippy::too_many_arguments)]
    pub fn searchsorted_into(
        &self,
        sorter: &Sorter,
        queries: &BorrowedBuffer<'_, T>,
        side: Side,
        order: QueryOrder,
        nan: NanOrder,
        out: &mut BorrowedBuffer<'_, u64>,
    ) -> Result<()>
    where
        T: Key,
    {
        let gpu = self.check_sorter(sorter)?;
        queries.check_sorter(sorter)?;
        out.check_sorter(sorter)?;
        check_lengths("searchsorted", queries.buf.len(), "results", out.buf.len())?;
        if out.overlaps(self) || out.overlaps(queries) {
            return Err(Error::BadArgument("searchsorted: the results overlap the keys or the queries".into()));
        }
        if KeyOrder::new(crate::Order::Ascending, nan).nan_last_for::<T>() {
            let keys = variants::runs::canonical_copy(gpu, &self.buf)?;
            let queries = variants::runs::canonical_copy(gpu, &queries.buf)?;
            return variants::searchsorted::searchsorted_into(gpu, &keys, &queries, side, order, &mut out.buf);
        }
        variants::searchsorted::searchsorted_into(gpu, &self.buf, &queries.buf, side, order, &mut out.buf)
    }

    /// The first `min(k, n)` keys of the stable sort in `order` and their indices (as
    /// [`Sorter::top_k`]), in new device buffers; queued, not waited for.
    pub fn top_k(
        &self,
        sorter: &Sorter,
        k: usize,
        order: impl Into<KeyOrder>,
    ) -> Result<(DeviceBuffer<T>, DeviceBuffer<u32>)>
    where
        T: Key,
    {
        self.top_k_indexed(sorter, k, order)
    }

    /// [`BorrowedBuffer::top_k`] with indices of `I` (as [`Sorter::top_k_indexed`]:
    /// `u64` indices take 2^32 keys or more).
    pub fn top_k_indexed<I: variants::radix::Index>(
        &self,
        sorter: &Sorter,
        k: usize,
        order: impl Into<KeyOrder>,
    ) -> Result<(DeviceBuffer<T>, DeviceBuffer<I>)>
    where
        T: Key,
    {
        let gpu = self.check_sorter(sorter)?;
        variants::topk::top_k_indexed(gpu, &self.buf, k, order)
    }

    /// Run-length encodes the lent keys ([`Sorter::run_length_encode_device`]: the
    /// first key of each run of equal adjacent keys, and with `out_counts` the run's
    /// length as `u64`) straight into lent outputs at least as long as the keys, and
    /// returns the number of runs, the length of the results at their start: one
    /// kernel and one read of that number, which waits for the device. That with
    /// `consecutive`; without, the distinct values and their counts
    /// ([`Sorter::unique_counts_device`]: a canonical copy of the keys sorted, then
    /// encoded).
    pub fn unique_into(
        &self,
        sorter: &Sorter,
        consecutive: bool,
        out_keys: &mut BorrowedBuffer<'_, T>,
        out_counts: Option<&mut BorrowedBuffer<'_, u64>>,
    ) -> Result<usize>
    where
        T: Key,
    {
        let gpu = self.check_sorter(sorter)?;
        out_keys.check_sorter(sorter)?;
        if out_keys.overlaps(self) {
            return Err(Error::BadArgument("unique: the output keys overlap the input".into()));
        }
        if let Some(c) = &out_counts {
            c.check_sorter(sorter)?;
            if c.overlaps(self) || c.overlaps(out_keys) {
                return Err(Error::BadArgument("unique: the counts overlap the keys".into()));
            }
        }
        let counts = out_counts.map(|c| &mut c.buf);
        if consecutive {
            variants::runs::run_length_encode_into_wide(gpu, &self.buf, &mut out_keys.buf, counts)
        } else {
            variants::runs::unique_counts_into_wide(gpu, &self.buf, &mut out_keys.buf, counts)
        }
    }

    /// Whether the lent keys hold a NaN or `-0.0` (float keys; `false` for others):
    /// the keys whose NaN-last order differs from their IEEE total order
    /// ([`variants::nan::has_nan_or_negative_zero`]: one pass over the keys and one
    /// read of a flag, which waits for the device).
    pub fn has_nan_or_negative_zero(&self, sorter: &Sorter) -> Result<bool>
    where
        T: Key,
    {
        let gpu = self.check_sorter(sorter)?;
        variants::nan::has_nan_or_negative_zero(gpu, &self.buf)
    }

    /// Whether the lent bytes of `self` and `other` share an address.
    fn overlaps<U: bytemuck::Pod>(&self, other: &BorrowedBuffer<'_, U>) -> bool {
        let (a, b) = ((self.addr, self.bytes()), (other.addr, other.bytes()));
        a.1 > 0 && b.1 > 0 && a.0 < b.0 + b.1 && b.0 < a.0 + a.1
    }

    fn bytes(&self) -> u64 {
        (self.buf.len() * size_of::<T>()) as u64
    }

    /// `sorter`'s device, if it is this buffer's.
    fn check_sorter<'s>(&self, sorter: &'s Sorter) -> Result<&'s Gpu> {
        match sorter.gpu() {
            Some(gpu) if self.buf.belongs_to(gpu) => Ok(gpu),
            _ => Err(Error::BadArgument(format!(
                "the sorter ({}) is not on the device of the borrowed memory (device {})",
                sorter.backend(),
                self.gpu.info.ordinal
            ))),
        }
    }

    /// Brings the result back to the caller's address if a sort replaced the buffer's
    /// storage (the replaced, lent buffer was dropped without freeing the memory).
    fn restore(&mut self) -> Result<()> {
        let at = self.buf.ptr();
        if self.buf.is_empty() || at == self.addr {
            return Ok(());
        }
        let bytes = (self.buf.len() * size_of::<T>()) as u64;
        self.gpu.copy_raw(self.addr, at, bytes)?;
        // The result's allocation is freed in stream order, after the copy.
        self.buf = self.gpu.lent(self.addr, self.buf.len());
        Ok(())
    }
}

impl BorrowedBuffer<'_, u64> {
    /// Writes `src` (same length, on this device) into the lent memory, each `u32`
    /// widened to `u64`: one kernel that reads 4 bytes and writes 8 per element
    /// (`kernels::records::widen_u32_u64`). Queued, not waited for.
    pub fn widen_from(&mut self, src: &DeviceBuffer<u32>) -> Result<()> {
        check_lengths("widening", src.len(), "results", self.buf.len())?;
        if !src.belongs_to(self.gpu) {
            return Err(Error::BadArgument("widening: the source is not on the device of the borrowed memory".into()));
        }
        let n = src.len() as u64;
        if n == 0 {
            return Ok(());
        }
        variants::records::widen_indices(self.gpu, src.ptr(), self.buf.ptr(), n, 0)
    }
}

/// `buf[i] = buf[perm[i]]` for every `i`, through a new buffer (the gather cannot work
/// in place); `buf` keeps its address.
fn gather_in_place<R: bytemuck::Pod>(gpu: &Gpu, buf: &mut DeviceBuffer<R>, perm: &DeviceBuffer<u32>) -> Result<()> {
    let mut gathered = gpu.alloc::<R>(buf.len())?;
    variants::records::gather_from(gpu, buf, &mut gathered, perm)?;
    buf.copy_from_device(gpu, &gathered)
}

/// Refuses an output whose length is not the input's.
fn check_lengths(what: &str, len: usize, output: &str, out_len: usize) -> Result<()> {
    if len != out_len {
        return Err(Error::BadArgument(format!("{what} of {len} elements into {out_len} {output}")));
    }
    Ok(())
}

impl<T: bytemuck::Pod> std::fmt::Debug for BorrowedBuffer<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "BorrowedBuffer<{}>[{}] at {:#x}", std::any::type_name::<T>(), self.buf.len(), self.addr)
    }
}
