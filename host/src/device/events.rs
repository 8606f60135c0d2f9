//! Timing with CUDA events: [`Gpu::time_ms`], and the events the file pipeline and
//! the multi-GPU sort record between their phases.
use cudarc::driver::CudaStream;
use cudarc::driver::sys::CUevent_flags;

use super::Gpu;
use crate::error::{DriverContext, Result};

impl Gpu {
    /// Times `work` on the stream with CUDA events; returns milliseconds.
    pub fn time_ms(&self, work: impl FnOnce() -> Result<()>) -> Result<f64> {
        let start = timing_event(&self.stream)?;
        work()?;
        let end = timing_event(&self.stream)?;
        self.synchronize("timed work")?;
        Ok(seconds_between(&start, &end)? * 1e3)
    }
}

/// An event with timing, recorded now on `stream`: it completes when the stream
/// reaches this point.
pub(crate) fn timing_event(stream: &CudaStream) -> Result<cudarc::driver::CudaEvent> {
    stream.record_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).call("cuEventRecord")
}

/// Seconds from timing event `a` to `b` (both completed).
pub(crate) fn seconds_between(a: &cudarc::driver::CudaEvent, b: &cudarc::driver::CudaEvent) -> Result<f64> {
    Ok(a.elapsed_ms(b).call("cuEventElapsedTime")? as f64 / 1e3)
}
