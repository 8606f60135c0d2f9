//! NCCL, through cudarc's `nccl` module (the library is loaded at run time, like the
//! driver): communicators for the GPUs of this process, and the all-to-all exchange as
//! grouped point-to-point sends and receives, waited for by a watchdog so that a peer
//! that never answers is an [`Error::Communication`] after a bounded time, not a hang.
use std::sync::Arc;
use std::time::{Duration, Instant};

use cudarc::driver::CudaStream;

use cudarc::driver::sys::{CUresult, cuStreamQuery};
use cudarc::nccl::{Comm, group_end, group_start};

use crate::device::{DeviceBuffer, Gpu};
use crate::error::{Error, Result};

/// Whether the NCCL library can be loaded. cudarc panics when it is missing, so every
/// entry point asks this first.
pub fn library_present() -> bool {
    // SAFETY: only tries to open the library by its candidate names.
    unsafe { cudarc::nccl::sys::is_culib_present() }
}

/// The error for a missing NCCL library, with how to make one findable.
pub fn missing_library() -> Error {
    Error::Communication(
        "the NCCL library is not installed or not on the library path: cudarc opens `libnccl.so` \
         (pip's nvidia-nccl-cu12 ships `nvidia/nccl/lib/libnccl.so.2`: add a `libnccl.so` symlink \
         to it in a directory on LD_LIBRARY_PATH)"
            .into(),
    )
}

fn nccl_err(what: &str, e: cudarc::nccl::result::NcclError) -> Error {
    Error::Communication(format!("{what}: {e:?}"))
}

/// One communicator per GPU (`ncclCommInitAll`), each queuing on its GPU's stream in
/// `streams` (the exchange streams, which the sort orders with its kernels by events).
pub fn communicators(streams: &[Arc<CudaStream>]) -> Result<Vec<Comm>> {
    if !library_present() {
        return Err(missing_library());
    }
    Comm::from_devices(streams.to_vec()).map_err(|e| nccl_err("ncclCommInitAll", e))
}

/// A piece of the exchange: `len` elements from element `from` of GPU `src`'s send
/// buffer to element `at` of GPU `dst`'s receive buffer.
#[derive(Clone, Copy, Debug)]
pub struct Piece {
    /// Sending GPU (its index among the sorter's GPUs, the NCCL rank).
    pub src: usize,
    /// Receiving GPU (index, rank).
    pub dst: usize,
    /// First element in `src`'s send buffer.
    pub from: usize,
    /// First element in `dst`'s receive buffer.
    pub at: usize,
    /// Number of elements.
    pub len: usize,
}

/// What one exchange moves: for each GPU a send buffer and a receive buffer of one
/// element type (keys, or values). Several lanes share the pieces and one NCCL group.
pub struct Lane<'a, T> {
    /// Each GPU's send buffer, by GPU index.
    pub send: &'a [DeviceBuffer<T>],
    /// Each GPU's receive buffer, by GPU index.
    pub recv: &'a mut [DeviceBuffer<T>],
}

/// A [`Lane`] with its element type erased, so keys and values of different types go in
/// one group.
pub trait ErasedLane {
    /// Queues piece `p` (with `src == dst`) as a device copy on `gpu`'s stream.
    fn copy_local(&mut self, gpu: &Gpu, p: &Piece) -> Result<()>;
    /// Queues the send of piece `p` on `comm` (the source's communicator), inside
    /// the caller's NCCL group.
    fn send(&self, comm: &Comm, p: &Piece) -> std::result::Result<(), cudarc::nccl::result::NcclError>;
    /// Queues the receive of piece `p` on `comm` (the destination's communicator),
    /// inside the caller's NCCL group.
    fn recv(&mut self, comm: &Comm, p: &Piece) -> std::result::Result<(), cudarc::nccl::result::NcclError>;
}

impl<T: bytemuck::Pod> ErasedLane for Lane<'_, T> {
    fn copy_local(&mut self, gpu: &Gpu, p: &Piece) -> Result<()> {
        self.recv[p.dst].copy_range_from(gpu, p.at, &self.send[p.src], p.from, p.len)
    }

    fn send(&self, comm: &Comm, p: &Piece) -> std::result::Result<(), cudarc::nccl::result::NcclError> {
        comm.send(&self.send[p.src].byte_view(p.from..p.from + p.len), p.dst as i32)
    }

    fn recv(&mut self, comm: &Comm, p: &Piece) -> std::result::Result<(), cudarc::nccl::result::NcclError> {
        comm.recv(&mut self.recv[p.dst].byte_view_mut(p.at..p.at + p.len), p.src as i32).map(|_| ())
    }
}

/// Queues every piece of every lane: a device copy when it stays on its GPU, otherwise
/// an NCCL send on the source's communicator and the matching receive on the
/// destination's, all in one NCCL group (so no send waits for a receive posted later
/// in program order). Pieces of rank `silent` are left out (a test's stand-in for a
/// failed peer).
pub fn queue_exchange(
    gpus: &[Gpu],
    comms: &[Comm],
    lanes: &mut [&mut dyn ErasedLane],
    pieces: &[Piece],
    silent: Option<usize>,
) -> Result<()> {
    for lane in lanes.iter_mut() {
        for p in pieces.iter().filter(|p| p.src == p.dst && p.len > 0) {
            lane.copy_local(&gpus[p.dst], p)?;
        }
    }
    let remote: Vec<&Piece> = pieces.iter().filter(|p| p.src != p.dst && p.len > 0).collect();
    if remote.is_empty() {
        return Ok(());
    }
    group_start().map_err(|e| nccl_err("ncclGroupStart", e))?;
    let queued = (|| {
        for lane in lanes.iter_mut() {
            for p in remote.iter().filter(|p| silent != Some(p.src)) {
                lane.send(&comms[p.src], p).map_err(|e| nccl_err("ncclSend", e))?;
            }
            for p in remote.iter().filter(|p| silent != Some(p.dst)) {
                lane.recv(&comms[p.dst], p).map_err(|e| nccl_err("ncclRecv", e))?;
            }
        }
        Ok(())
    })();
    // The group must be closed whatever happened inside it.
    let ended = group_end().map_err(|e| nccl_err("ncclGroupEnd", e));
    queued.and(ended.map(|_| ()))
}

/// Waits until each GPU's stream in `streams` (one per GPU) has finished its queued
/// work, or `timeout` has passed (`Ok(false)`). A fault on a stream is an error at once.
pub fn wait_all(gpus: &[Gpu], streams: &[Arc<CudaStream>], timeout: Duration) -> Result<bool> {
    let start = Instant::now();
    let mut done = vec![false; gpus.len()];
    loop {
        for ((g, stream), d) in gpus.iter().zip(streams).zip(done.iter_mut()) {
            if *d {
                continue;
            }
            // SAFETY: the stream is alive (held by the caller); querying has no side effects.
            match unsafe { cuStreamQuery(stream.cu_stream()) } {
                CUresult::CUDA_SUCCESS => *d = true,
                CUresult::CUDA_ERROR_NOT_READY => {}
                other => {
                    return Err(Error::Communication(format!(
                        "GPU {} failed during the exchange: {other:?}",
                        g.info().ordinal
                    )));
                }
            }
        }
        if done.iter().all(|&d| d) {
            return Ok(true);
        }
        let waited = start.elapsed();
        if waited >= timeout {
            return Ok(false);
        }
        // Spin briefly (exchanges take milliseconds), then sleep so a hung peer costs
        // no CPU.
        if waited < Duration::from_millis(2) {
            std::hint::spin_loop();
        } else {
            std::thread::sleep(Duration::from_micros(50));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without the library (the CI machine has none) creating communicators is a clear
    /// error, not cudarc's panic.
    #[test]
    fn missing_library_is_an_error() {
        if library_present() {
            crate::testing::skipped("missing_library_is_an_error", "this machine has NCCL");
            return;
        }
        match communicators(&[]) {
            Err(Error::Communication(m)) => assert!(m.contains("libnccl.so"), "{m}"),
            other => panic!("expected a communication error, got {:?}", other.map(|c| c.len())),
        }
    }
}
