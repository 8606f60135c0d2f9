//! Scratch space of one sort, taken from the device's cache ([`Gpu::take_scratch`]) and
//! given back when the guard drops: a repeated sort allocates nothing and makes no
//! driver call before its first launch, and an error half way through (a `?` between
//! taking and the last launch) still returns the buffers to the cache.
use crate::device::{DeviceBuffer, Gpu};
use crate::error::{Error, Result};

/// Buffers of `u32` words, in the order they were asked for, given back to `gpu`'s
/// cache on drop. Dropping once the work using them is queued is enough: every
/// operation is ordered on the device's one stream, so the next user's kernels run
/// after this sort's.
pub(crate) struct Scratch<'g> {
    gpu: &'g Gpu,
    pub bufs: Vec<DeviceBuffer<u32>>,
}

impl<'g> Scratch<'g> {
    /// Buffers of at least the given numbers of words (0 gets a 1-word placeholder).
    /// Out of memory is reported for the whole request, and nothing is kept taken.
    pub fn take(gpu: &'g Gpu, words: &[usize]) -> Result<Scratch<'g>> {
        let mut scratch = Scratch { gpu, bufs: Vec::with_capacity(words.len()) };
        for &w in words {
            match gpu.take_scratch(w.max(1)) {
                Ok(b) => scratch.bufs.push(b),
                // `scratch` drops here, giving back what was taken.
                Err(Error::OutOfMemory { free, .. }) => {
                    return Err(Error::OutOfMemory { needed: words.iter().map(|&w| w as u64 * 4).sum(), free });
                }
                Err(e) => return Err(e),
            }
        }
        Ok(scratch)
    }
}

impl Drop for Scratch<'_> {
    fn drop(&mut self) {
        for b in self.bufs.drain(..) {
            self.gpu.give_back_scratch(b);
        }
    }
}
