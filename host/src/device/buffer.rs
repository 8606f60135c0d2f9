//! Device memory the caller holds: [`DeviceBuffer`] (typed elements, the unit every
//! launcher works on) and [`PlainAlloc`] (a `cuMemAlloc` allocation that peers can
//! reach).
use std::marker::PhantomData;
use std::mem::ManuallyDrop;

use cudarc::driver::{CudaSlice, DevicePtr};
use kernels::params::DevPtr;

use super::Gpu;
use crate::error::{DriverContext, Error, Result};

impl Gpu {
    /// Device memory from `cuMemAlloc` rather than the stream-ordered pool: peer
    /// access enabled by [`Gpu::enable_peer_access`] covers it (pool memory would need
    /// the pool's own access rights, so a peer copy of it is staged through the host).
    pub(crate) fn alloc_plain(&self, bytes: usize) -> Result<PlainAlloc<'_>> {
        self.ctx.bind_to_thread().call("cuCtxSetCurrent")?;
        // SAFETY: a plain allocation in this (current) context, freed by `PlainAlloc`.
        let ptr = unsafe { cudarc::driver::result::malloc_sync(bytes.max(1)) }.call("cuMemAlloc")?;
        Ok(PlainAlloc { gpu: self, ptr })
    }
}

/// A `cuMemAlloc` allocation ([`Gpu::alloc_plain`]), freed on drop.
pub(crate) struct PlainAlloc<'a> {
    gpu: &'a Gpu,
    pub ptr: u64,
}

impl Drop for PlainAlloc<'_> {
    fn drop(&mut self) {
        let _ = self.gpu.synchronize("freeing");
        if self.gpu.ctx.bind_to_thread().is_ok() {
            // SAFETY: `ptr` came from `cuMemAlloc` in this context and is freed once.
            let _ = unsafe { cudarc::driver::result::free_sync(self.ptr) };
        }
    }
}

/// Elements of type `T` in device memory, owned. Kernels receive its address as a
/// plain `u64` ([`DeviceBuffer::ptr`]).
pub struct DeviceBuffer<T> {
    /// Taken in `drop` (freed, or leaked when not `owned`) and in `into_cuda_slice`.
    pub(super) raw: ManuallyDrop<CudaSlice<u8>>,
    pub(super) len: usize,
    /// Whether dropping the buffer frees its memory. `false` only for memory the caller
    /// lends ([`Gpu::borrow_device_memory`]): the flag travels with the memory, so a
    /// sort that swaps a buffer's storage for a new allocation (a gather that cannot
    /// work in place) drops the lent memory without freeing it. Such buffers are only
    /// reachable through [`BorrowedBuffer`](super::BorrowedBuffer), which never hands
    /// them out by value or by `&mut`, so [`DeviceBuffer::into_cuda_slice`] only ever
    /// sees owned memory.
    pub(super) owned: bool,
    pub(super) _elem: PhantomData<T>,
}

impl<T> DeviceBuffer<T> {
    /// A buffer that owns `raw` (freed on drop).
    pub(super) fn owning(raw: CudaSlice<u8>, len: usize) -> DeviceBuffer<T> {
        DeviceBuffer { raw: ManuallyDrop::new(raw), len, owned: true, _elem: PhantomData }
    }

    /// The same memory and length as elements of `U`, which must have `T`'s size
    /// (`u32` indices handed out as the `Index` type `u32`).
    pub(crate) fn cast<U>(self) -> DeviceBuffer<U> {
        assert_eq!(size_of::<T>(), size_of::<U>(), "a device buffer cast between element sizes");
        let mut me = ManuallyDrop::new(self);
        // SAFETY: `me` is never dropped, so its `raw` is taken once, here.
        let raw = unsafe { ManuallyDrop::take(&mut me.raw) };
        DeviceBuffer { raw: ManuallyDrop::new(raw), len: me.len, owned: me.owned, _elem: PhantomData }
    }
}

/// `len` elements of a [`DeviceBuffer`] from element `at`, shared and never freed
/// ([`Gpu::view`]): what an operation that takes a buffer runs on for a part of a
/// longer one (top-k of each 2^31-key part of an array past 2^32 keys). Borrows the
/// buffer it views, so the memory outlives it.
pub(crate) struct DeviceView<'a, T> {
    buf: DeviceBuffer<T>,
    _of: PhantomData<&'a DeviceBuffer<T>>,
}

impl<T> std::ops::Deref for DeviceView<'_, T> {
    type Target = DeviceBuffer<T>;
    fn deref(&self) -> &DeviceBuffer<T> {
        &self.buf
    }
}

impl Gpu {
    /// A view of `buf[at..at + len]` ([`DeviceView`]); [`Error::BadArgument`] past its end.
    pub(crate) fn view<'a, T: bytemuck::Pod>(
        &self,
        buf: &'a DeviceBuffer<T>,
        at: usize,
        len: usize,
    ) -> Result<DeviceView<'a, T>> {
        if at.checked_add(len).is_none_or(|end| end > buf.len()) {
            return Err(Error::BadArgument(format!("a view of {len} elements from {at} of a buffer of {}", buf.len())));
        }
        Ok(DeviceView { buf: self.lent(buf.ptr_at(at), len), _of: PhantomData })
    }
}

impl<T> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        // SAFETY: `raw` is taken once: here, or in `into_cuda_slice`, which forgets `self`.
        let raw = unsafe { ManuallyDrop::take(&mut self.raw) };
        if self.owned {
            drop(raw); // cudarc frees it, ordered on its stream
        } else {
            raw.leak(); // the caller's memory: release cudarc's handle, never the memory
        }
    }
}

impl<T: bytemuck::Pod> DeviceBuffer<T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Takes over a cudarc device slice without copying it (the library then owns
    /// and frees the memory). The slice must belong to `gpu`'s context
    /// ([`Error::BadArgument`] otherwise); work queued on the slice's own stream is
    /// ordered before the library's (a stream wait, not a host wait).
    pub fn from_cuda_slice(gpu: &Gpu, slice: CudaSlice<T>) -> Result<DeviceBuffer<T>> {
        if slice.context().cu_ctx() != gpu.ctx.cu_ctx() {
            return Err(Error::BadArgument(format!(
                "the device buffer belongs to another CUDA context (device {}) than the sorter's (device {})",
                slice.ordinal(),
                gpu.info.ordinal
            )));
        }
        if slice.stream().cu_stream() != gpu.stream.cu_stream() {
            gpu.stream.join(slice.stream()).call("cuStreamWaitEvent")?;
        }
        let len = slice.len();
        let bytes = len * size_of::<T>();
        if bytes == 0 {
            return gpu.alloc(0);
        }
        let ptr = slice.leak();
        // SAFETY: `ptr` is the leaked allocation of `bytes` bytes, now owned here.
        let raw = unsafe { gpu.stream.upgrade_device_ptr::<u8>(ptr, bytes) };
        Ok(DeviceBuffer::owning(raw, len))
    }

    /// Gives the memory back as a cudarc slice, without copying (on the library's
    /// stream; the sort's queued work is ordered before anything the caller queues
    /// on that stream).
    pub fn into_cuda_slice(self) -> CudaSlice<T> {
        let mut this = ManuallyDrop::new(self);
        // SAFETY: `this` is never dropped, so `raw` is taken once. Every buffer a
        // caller holds by value is owned (see `owned`).
        let raw = unsafe { ManuallyDrop::take(&mut this.raw) };
        let stream = raw.stream().clone();
        let len = this.len;
        let ptr = raw.leak();
        // SAFETY: the allocation holds at least `len` elements of `T` (zero-length
        // buffers keep a 1-byte allocation, and a 0-element slice reads nothing).
        unsafe { stream.upgrade_device_ptr::<T>(ptr, len) }
    }

    /// Shortens the buffer to its first `len` elements (no effect if it is not
    /// longer); the allocation is kept. For results whose length is known only once
    /// the device has computed it.
    pub fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    /// Device address of the first element.
    pub fn ptr(&self) -> u64 {
        let (p, _sync) = self.raw.device_ptr(self.raw.stream());
        p
    }

    /// The buffer as a kernel parameter.
    pub fn dev_ptr(&self) -> DevPtr<T> {
        DevPtr::from_addr(self.ptr())
    }

    /// Device address of element `i` (may be one past the end).
    pub fn ptr_at(&self, i: usize) -> u64 {
        self.ptr() + (i * size_of::<T>()) as u64
    }

    /// Copies `data` into the buffer, in order on `gpu`'s stream; `data` is free to be
    /// changed when it returns. `data` must have exactly [`len`](Self::len) elements
    /// ([`Error::BadArgument`] otherwise). From [`crate::Tuning::host_stage_min_bytes`]
    /// on, the copy goes through the device's page-locked staging buffers, filled on
    /// several threads while the one before is copied (several times the driver's
    /// rate for pageable memory).
    pub fn copy_from_host(&mut self, gpu: &Gpu, data: &[T]) -> Result<()> {
        if data.len() != self.len {
            return Err(Error::BadArgument(format!(
                "copying {} elements into a device buffer of {}",
                data.len(),
                self.len
            )));
        }
        if self.len > 0 {
            let bytes: &[u8] = bytemuck::cast_slice(data);
            if bytes.len() >= gpu.tuning().host_stage_min_bytes {
                return super::staging::upload_slice(gpu, self, bytes);
            }
            let mut dst = self.raw.slice_mut(..bytes.len());
            gpu.stream.memcpy_htod(bytes, &mut dst).call("cuMemcpyHtoD")?;
        }
        Ok(())
    }

    /// Copies the buffer into `out` and waits for the copy (and all work queued before
    /// it). `out` must have exactly [`len`](Self::len) elements ([`Error::BadArgument`]
    /// otherwise). Large copies go through staging buffers, as
    /// [`DeviceBuffer::copy_from_host`]'s.
    pub fn copy_to_host(&self, gpu: &Gpu, out: &mut [T]) -> Result<()> {
        if out.len() != self.len {
            return Err(Error::BadArgument(format!(
                "copying a device buffer of {} elements into {}",
                self.len,
                out.len()
            )));
        }
        if self.len > 0 {
            let bytes: &mut [u8] = bytemuck::cast_slice_mut(out);
            let n = bytes.len();
            if n >= gpu.tuning().host_stage_min_bytes {
                super::staging::download_slice(gpu, self, bytes)?;
                return gpu.synchronize("device-to-host copy");
            }
            gpu.stream.memcpy_dtoh(&self.raw.slice(..n), bytes).call("cuMemcpyDtoH")?;
        }
        gpu.synchronize("device-to-host copy")
    }

    /// The buffer's elements in a new `Vec`, after all work queued before the copy
    /// ([`DeviceBuffer::copy_to_host`]).
    pub fn to_vec(&self, gpu: &Gpu) -> Result<Vec<T>> {
        let mut v = vec![T::zeroed(); self.len];
        self.copy_to_host(gpu, &mut v)?;
        Ok(v)
    }

    /// Copies `data` into elements `at..at + data.len()` (a prefix or window of the
    /// buffer, for work lists that change size between launches).
    pub fn write_at(&mut self, gpu: &Gpu, at: usize, data: &[T]) -> Result<()> {
        let (lo, hi) = self.byte_window(at, data.len())?;
        if hi > lo {
            let mut dst = self.raw.slice_mut(lo..hi);
            gpu.stream.memcpy_htod(bytemuck::cast_slice::<T, u8>(data), &mut dst).call("cuMemcpyHtoD")?;
        }
        Ok(())
    }

    /// Copies elements `at..at + out.len()` to `out`, waiting for queued work.
    pub fn read_at(&self, gpu: &Gpu, at: usize, out: &mut [T]) -> Result<()> {
        let (lo, hi) = self.byte_window(at, out.len())?;
        if hi > lo {
            gpu.stream
                .memcpy_dtoh(&self.raw.slice(lo..hi), bytemuck::cast_slice_mut::<T, u8>(out))
                .call("cuMemcpyDtoH")?;
        }
        gpu.synchronize("device-to-host copy")
    }

    /// Device address of bytes `at..at + len`, checked against this buffer and
    /// against a host buffer of `host_len` bytes.
    pub(super) fn byte_range(&self, at: usize, len: usize, host_len: usize) -> Result<u64> {
        let bytes = self.len * size_of::<T>();
        match at.checked_add(len) {
            Some(end) if end <= bytes && len <= host_len => Ok(self.ptr() + at as u64),
            _ => Err(Error::BadArgument(format!(
                "bytes {at}..{at}+{len} of a {bytes}-byte device buffer through a {host_len}-byte host buffer"
            ))),
        }
    }

    fn byte_window(&self, at: usize, len: usize) -> Result<(usize, usize)> {
        match at.checked_add(len) {
            Some(end) if end <= self.len => Ok((at * size_of::<T>(), end * size_of::<T>())),
            _ => Err(Error::BadArgument(format!(
                "elements {at}..{at}+{len} are outside a device buffer of {}",
                self.len
            ))),
        }
    }

    /// Sets every byte of the buffer to zero (queued on the stream).
    pub fn zero(&mut self, gpu: &Gpu) -> Result<()> {
        gpu.stream.memset_zeros(&mut *self.raw).call("cuMemsetD8Async")
    }

    /// Sets the first `len` elements to zero (queued on the stream).
    pub fn zero_prefix(&mut self, gpu: &Gpu, len: usize) -> Result<()> {
        let (lo, hi) = self.byte_window(0, len)?;
        if hi > lo {
            gpu.stream.memset_zeros(&mut self.raw.slice_mut(lo..hi)).call("cuMemsetD8Async")?;
        }
        Ok(())
    }

    /// Device-to-device copy of all of `src` into `self` (same length).
    pub fn copy_from_device(&mut self, gpu: &Gpu, src: &DeviceBuffer<T>) -> Result<()> {
        if src.len != self.len {
            return Err(Error::BadArgument("device copy between buffers of different lengths".into()));
        }
        if self.len > 0 {
            let n = self.len * size_of::<T>();
            gpu.stream.memcpy_dtod(&src.raw.slice(..n), &mut self.raw.slice_mut(..n)).call("cuMemcpyDtoD")?;
        }
        Ok(())
    }
}

impl<T: bytemuck::Pod> DeviceBuffer<T> {
    /// Copies `len` elements of `src` from element `from` to element `at` of this
    /// buffer (stream-ordered, device to device).
    pub fn copy_range_from(
        &mut self,
        gpu: &Gpu,
        at: usize,
        src: &DeviceBuffer<T>,
        from: usize,
        len: usize,
    ) -> Result<()> {
        if at.checked_add(len).is_none_or(|e| e > self.len) || from.checked_add(len).is_none_or(|e| e > src.len) {
            return Err(Error::BadArgument(format!(
                "device copy of {len} elements from {from} of {} to {at} of {}",
                src.len, self.len
            )));
        }
        if len > 0 {
            let s = size_of::<T>();
            gpu.stream
                .memcpy_dtod(
                    &src.raw.slice(from * s..(from + len) * s),
                    &mut self.raw.slice_mut(at * s..(at + len) * s),
                )
                .call("cuMemcpyDtoD")?;
        }
        Ok(())
    }

    /// The bytes of elements `range` (for the multi-GPU exchange).
    pub(crate) fn byte_view(&self, range: std::ops::Range<usize>) -> cudarc::driver::CudaView<'_, u8> {
        let s = size_of::<T>();
        self.raw.slice(range.start * s..range.end * s)
    }

    /// The bytes of elements `range`, writable.
    pub(crate) fn byte_view_mut(&mut self, range: std::ops::Range<usize>) -> cudarc::driver::CudaViewMut<'_, u8> {
        let s = size_of::<T>();
        self.raw.slice_mut(range.start * s..range.end * s)
    }

    /// Whether the buffer lives in `gpu`'s context.
    pub(crate) fn belongs_to(&self, gpu: &Gpu) -> bool {
        self.raw.context().cu_ctx() == gpu.ctx.cu_ctx()
    }
}

impl<T> std::fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DeviceBuffer<{}>[{}]", std::any::type_name::<T>(), self.len)
    }
}
