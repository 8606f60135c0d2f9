//! Scratch space of one sort, taken from the device's cache ([`Gpu::take_scratch`]) and
//! given back once the sort's work is queued: a repeated sort allocates nothing and
//! makes no driver call before its first launch.
use crate::device::{DeviceBuffer, Gpu};
use crate::error::{Error, Result};

/// Buffers of `u32` words, in the order they were asked for.
pub(crate) struct Scratch {
    pub bufs: Vec<DeviceBuffer<u32>>,
}

impl Scratch {
    /// Buffers of at least the given numbers of words (0 gets a 1-word placeholder).
    /// Out of memory is reported for the whole request, and nothing is kept taken.
    pub fn take(gpu: &Gpu, words: &[usize]) -> Result<Scratch> {
        let mut bufs = Vec::with_capacity(words.len());
        for &w in words {
            match gpu.take_scratch(w.max(1)) {
                Ok(b) => bufs.push(b),
                Err(e) => {
                    for b in bufs {
                        gpu.give_back_scratch(b);
                    }
                    return Err(match e {
                        Error::OutOfMemory { free, .. } => {
                            Error::OutOfMemory { needed: words.iter().map(|&w| w as u64 * 4).sum(), free }
                        }
                        e => e,
                    });
                }
            }
        }
        Ok(Scratch { bufs })
    }

    /// Returns the buffers to the device's cache (call once the work using them is
    /// queued).
    pub fn give_back(self, gpu: &Gpu) {
        for b in self.bufs {
            gpu.give_back_scratch(b);
        }
    }
}
