//! Page-locked host memory ([`PinnedBuffer`]): the staging buffers of the file sort's
//! asynchronous copies.
use std::sync::Arc;

use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaContext, CudaStream};

use super::{DeviceBuffer, Gpu};
use crate::error::{DriverContext, Error, Result};

/// Page-locked host memory for asynchronous copies between a file and the device (the
/// file sort's staging buffers), with an event marking the end of the last copy that
/// used it: [`PinnedBuffer::host_mut`] waits for that copy, so the CPU never touches
/// bytes a copy is still moving.
pub struct PinnedBuffer {
    ptr: *mut u8,
    len: usize,
    event: cudarc::driver::CudaEvent,
    ctx: Arc<CudaContext>,
    /// `Some`: memory of this process's own allocation (this layout), registered with
    /// the driver ([`PinnedBuffer::new_huge`]); `None`: the driver's `cuMemHostAlloc`.
    own: Option<std::alloc::Layout>,
}

/// The size of a transparent huge page on x86-64 and the pages [`PinnedBuffer::new_huge`]
/// asks for.
const HUGE_PAGE: usize = 2 << 20;

/// How long [`PinnedBuffer::host_mut_soon`] polls before it sleeps: past the device
/// work that small read-backs wait for (tens to hundreds of microseconds), short
/// enough that a long wait costs a CPU core little.
const POLL_LIMIT: std::time::Duration = std::time::Duration::from_millis(2);

// SAFETY: the buffer is plain host memory owned by this value; access goes through
// `&mut self` after the event is waited for.
unsafe impl Send for PinnedBuffer {}

impl PinnedBuffer {
    /// `len` bytes of pinned, CPU-cached memory (not write-combined: the CPU reads
    /// downloads back from it).
    pub fn new(gpu: &Gpu, len: usize) -> Result<PinnedBuffer> {
        gpu.ctx.bind_to_thread().call("cuCtxSetCurrent")?;
        let event = gpu.ctx.new_event(Some(CUevent_flags::CU_EVENT_BLOCKING_SYNC)).call("cuEventCreate")?;
        let ptr = unsafe { cudarc::driver::result::malloc_host(len.max(1), 0) }
            .map_err(|e| gpu.map_oom(e, len as u64, "cuMemHostAlloc"))? as *mut u8;
        Ok(PinnedBuffer { ptr, len, event, ctx: gpu.ctx.clone(), own: None })
    }

    /// [`PinnedBuffer::new`] in 2 MiB pages: memory of this process's own, aligned to
    /// and advised into transparent huge pages (`madvise(MADV_HUGEPAGE)`), faulted in,
    /// then registered with the driver (`cuMemHostRegister`), which then pins and maps
    /// 512 times fewer pages than for `cuMemHostAlloc`'s 4 KiB ones. Where the kernel
    /// gives no huge pages it is the same work as [`PinnedBuffer::new`].
    pub fn new_huge(gpu: &Gpu, len: usize) -> Result<PinnedBuffer> {
        let size = len.max(1).next_multiple_of(HUGE_PAGE);
        let layout = std::alloc::Layout::from_size_align(size, HUGE_PAGE)
            .map_err(|_| Error::BadArgument(format!("{len} bytes of page-locked memory")))?;
        // SAFETY: `layout` has a nonzero size.
        let ptr = unsafe { std::alloc::alloc(layout) };
        if ptr.is_null() {
            return Err(Error::OutOfMemory { needed: size as u64, free: 0 });
        }
        // SAFETY: `ptr..ptr + size` is this allocation; advice and one write per 4 KiB
        // page (the smallest page) fault it in before the driver pins it.
        unsafe {
            libc::madvise(ptr.cast(), size, libc::MADV_HUGEPAGE);
            for at in (0..size).step_by(4096) {
                ptr.add(at).write_volatile(0);
            }
        }
        let free = |e: Error| {
            // SAFETY: allocated above with `layout`, not registered.
            unsafe { std::alloc::dealloc(ptr, layout) };
            e
        };
        gpu.ctx.bind_to_thread().call("cuCtxSetCurrent").map_err(free)?;
        let event =
            gpu.ctx.new_event(Some(CUevent_flags::CU_EVENT_BLOCKING_SYNC)).call("cuEventCreate").map_err(free)?;
        // SAFETY: the range is this live allocation, unregistered until the drop.
        let r = unsafe { cudarc::driver::sys::cuMemHostRegister_v2(ptr.cast(), size, 0) };
        if r != cudarc::driver::sys::CUresult::CUDA_SUCCESS {
            return Err(free(gpu.map_oom(cudarc::driver::DriverError(r), size as u64, "cuMemHostRegister")));
        }
        Ok(PinnedBuffer { ptr, len, event, ctx: gpu.ctx.clone(), own: Some(layout) })
    }

    /// Size in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The bytes, once the last copy using them has finished.
    pub fn host_mut(&mut self) -> Result<&mut [u8]> {
        self.event.synchronize().call("cuEventSynchronize")?;
        // SAFETY: no copy is in flight (waited above) and `&mut self` is exclusive.
        Ok(unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) })
    }

    /// [`PinnedBuffer::host_mut`] for a small read-back that the host needs before it
    /// can queue more work (a flag, a count): the copy's end is polled for up to 2 ms
    /// before the blocking wait. The blocking wait sleeps until the driver's interrupt
    /// wakes the thread, and meanwhile the device can run out of queued work; these
    /// read-backs arrive after microseconds to a few hundred of device work.
    pub fn host_mut_soon(&mut self) -> Result<&mut [u8]> {
        let start = std::time::Instant::now();
        while !self.event.try_is_complete().call("cuEventQuery")? {
            if start.elapsed() > POLL_LIMIT {
                return self.host_mut();
            }
            std::hint::spin_loop();
        }
        // SAFETY: the copy has finished (queried above) and `&mut self` is exclusive.
        Ok(unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) })
    }

    /// Queues a copy of the first `len` bytes to byte `at` of `dst` on the stream.
    pub fn upload<T: bytemuck::Pod>(
        &mut self,
        gpu: &Gpu,
        len: usize,
        dst: &mut DeviceBuffer<T>,
        at: usize,
    ) -> Result<()> {
        let dst_ptr = dst.byte_range(at, len, self.len)?;
        gpu.ctx.bind_to_thread().call("cuCtxSetCurrent")?;
        // SAFETY: `len` bytes fit both buffers (checked); the event keeps the host side
        // from being reused before the copy ends.
        unsafe {
            let src = std::slice::from_raw_parts(self.ptr, len);
            cudarc::driver::result::memcpy_htod_async(dst_ptr, src, gpu.stream.cu_stream())
                .call("cuMemcpyHtoDAsync")?;
        }
        self.event.record(&gpu.stream).call("cuEventRecord")
    }

    /// Queues a copy of `len` bytes from byte `at` of `src` into the first `len` bytes.
    pub fn download<T: bytemuck::Pod>(
        &mut self,
        gpu: &Gpu,
        src: &DeviceBuffer<T>,
        at: usize,
        len: usize,
    ) -> Result<()> {
        self.download_on(gpu, &gpu.stream, src, at, len)
    }

    /// [`PinnedBuffer::download`] queued on `stream` (another stream of the device's
    /// context, e.g. one forked from its stream, so that the device's stream goes on
    /// without waiting for the copy).
    pub fn download_on<T: bytemuck::Pod>(
        &mut self,
        gpu: &Gpu,
        stream: &CudaStream,
        src: &DeviceBuffer<T>,
        at: usize,
        len: usize,
    ) -> Result<()> {
        let src_ptr = src.byte_range(at, len, self.len)?;
        gpu.ctx.bind_to_thread().call("cuCtxSetCurrent")?;
        // SAFETY: as in `upload`.
        unsafe {
            let dst = std::slice::from_raw_parts_mut(self.ptr, len);
            cudarc::driver::result::memcpy_dtoh_async(dst, src_ptr, stream.cu_stream()).call("cuMemcpyDtoHAsync")?;
        }
        self.event.record(stream).call("cuEventRecord")
    }
}

/// A word of device memory on its way to page-locked memory: a flag or a count that
/// the host needs before it can queue more work, copied in stream order and read by
/// [`PendingWord::read`] (polled, [`PinnedBuffer::host_mut_soon`]).
pub(crate) struct PendingWord(PinnedBuffer);

impl PendingWord {
    /// Queues the copy of word `index` of `buf` on the device's stream (after the
    /// work queued so far).
    pub(crate) fn queue(gpu: &Gpu, buf: &DeviceBuffer<u32>, index: usize) -> Result<PendingWord> {
        let mut pinned = gpu.take_pinned(4)?;
        match pinned.download(gpu, buf, 4 * index, 4) {
            Ok(()) => Ok(PendingWord(pinned)),
            Err(e) => {
                gpu.give_back_pinned(pinned);
                Err(e)
            }
        }
    }

    /// The word, once its copy has finished; the page-locked buffer goes back to the
    /// device's cache.
    pub(crate) fn read(mut self, gpu: &Gpu) -> Result<u32> {
        let word = self.0.host_mut_soon().map(|b| u32::from_ne_bytes([b[0], b[1], b[2], b[3]]));
        gpu.give_back_pinned(self.0);
        word
    }
}

/// A word of page-locked host memory that a kernel sets while the host polls it: a
/// verdict the host needs before it queues more work, with no copy in the stream
/// between that kernel and the next (which would keep the next from starting as the
/// first's dependent launch). Zero until the kernel writes it.
pub(crate) struct HostWord<'a> {
    buf: Option<PinnedBuffer>,
    gpu: &'a Gpu,
}

impl<'a> HostWord<'a> {
    /// A zeroed word from the device's cache of page-locked buffers.
    pub(crate) fn new(gpu: &'a Gpu) -> Result<HostWord<'a>> {
        let mut buf = gpu.take_pinned(4)?;
        buf.host_mut()?[..4].fill(0);
        Ok(HostWord { buf: Some(buf), gpu })
    }

    /// The word's device address (the host's, under unified addressing).
    pub(crate) fn dev_ptr(&self) -> Result<kernels::params::DevPtr<u32>> {
        let ptr = self.buf.as_ref().expect("a word until waited for").ptr;
        let mut dev: cudarc::driver::sys::CUdeviceptr = 0;
        // SAFETY: `ptr` is live page-locked memory of this context.
        let r = unsafe { cudarc::driver::sys::cuMemHostGetDevicePointer_v2(&mut dev, ptr.cast(), 0) };
        if r != cudarc::driver::sys::CUresult::CUDA_SUCCESS {
            return Err(Error::Driver { call: "cuMemHostGetDevicePointer", source: cudarc::driver::DriverError(r) });
        }
        Ok(kernels::params::DevPtr::from_addr(dev))
    }

    /// The word once a kernel has set it: polled for up to 2 ms, then the stream is
    /// waited for and the word read once more (0: the queued work never set it).
    pub(crate) fn wait(mut self) -> Result<u32> {
        let buf = self.buf.take().expect("a word until waited for");
        let word = buf.ptr as *const u32;
        // SAFETY: 4 live bytes; the device writes them, so every read is volatile.
        let read = || unsafe { word.read_volatile() };
        let start = std::time::Instant::now();
        let mut v = read();
        while v == 0 && start.elapsed() <= POLL_LIMIT {
            std::hint::spin_loop();
            v = read();
        }
        let synced = if v == 0 { self.gpu.synchronize("a verdict from the device") } else { Ok(()) };
        if v == 0 {
            v = read();
        }
        self.keep_or_leak(buf, synced.is_ok());
        synced.map(|()| v)
    }

    /// Gives `buf` back to the cache once nothing queued can still write it (`done`);
    /// otherwise leaks it rather than free memory the device may yet write.
    fn keep_or_leak(&self, buf: PinnedBuffer, done: bool) {
        if done {
            self.gpu.give_back_pinned(buf);
        } else {
            std::mem::forget(buf);
        }
    }
}

impl Drop for HostWord<'_> {
    fn drop(&mut self) {
        // Not waited for (an error on the way): the queued kernel may still write it.
        if let Some(buf) = self.buf.take() {
            let done = self.gpu.synchronize("a verdict from the device").is_ok();
            self.keep_or_leak(buf, done);
        }
    }
}

impl Drop for PinnedBuffer {
    fn drop(&mut self) {
        let _ = self.event.synchronize();
        let _ = self.ctx.bind_to_thread();
        match self.own {
            // SAFETY: registered and allocated with `layout` by `new_huge`; no copy
            // uses it any more (waited above).
            Some(layout) => unsafe {
                cudarc::driver::sys::cuMemHostUnregister(self.ptr.cast());
                std::alloc::dealloc(self.ptr, layout);
            },
            None => {
                let _ = unsafe { cudarc::driver::result::free_host(self.ptr as *mut std::ffi::c_void) };
            }
        }
    }
}
