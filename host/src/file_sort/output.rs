//! Writing an output of known size from many threads at once.
//!
//! Buffered `pwrite`s to one file serialise on the file's lock in the kernel, so 16
//! threads write into the page cache no faster than one (~2-3.5 GB/s). Mapping the
//! file and copying into the mapping runs the copies in parallel, and the page faults
//! that bring the file's pages in can happen ahead of time, on other threads, while
//! the data is still being read and sorted ([`SizedOutput::populate_in_background`]).
//!
//! Space is reserved with `fallocate` before the file is mapped, so a full disk is an
//! error here and never a `SIGBUS` in a copy. Where the file system cannot reserve
//! space or map the file, the output falls back to positioned writes.
use std::fs::File;
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileExt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread::JoinHandle;

use rayon::prelude::*;

use crate::atomic_file::AtomicFile;
use crate::error::{Error, Result};

/// Bytes each thread copies, writes (here) or reads (the pipeline's input) at a time.
pub(super) const IO_SLICE: usize = 1 << 20;
/// Bytes one `madvise(MADV_POPULATE_WRITE)` call faults in (short, so that other
/// threads' `mmap`s, which wait for the address-space lock each call holds, are not
/// held up long; threads doing it: [`crate::Tuning::file_populate_threads`]).
const POPULATE_SLICE: usize = 2 << 20;

/// `MADV_POPULATE_WRITE` (Linux 5.14); older kernels answer `EINVAL`, and the copies
/// then take the page faults themselves.
const MADV_POPULATE_WRITE: libc::c_int = 23;

/// How the file sort's output is written ([`crate::Tuning::file_write`] overrides
/// the default of each kind of output).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteMode {
    /// Copies into a shared mapping of the file (after reserving its space).
    Mapped,
    /// `pwrite`s of 1 MiB from several threads.
    Positioned,
}

impl WriteMode {
    /// The mode `tuning` asks for, or `default`: mapped for binary outputs, positioned
    /// for text ([`crate::Tuning::file_write`] says why).
    pub(crate) fn tuned(tuning: &crate::Tuning, default: WriteMode) -> WriteMode {
        tuning.file_write.unwrap_or(default)
    }
}

fn io(context: &str) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io { context: context.to_string(), source }
}

/// A shared, writable mapping of `len` bytes of a file from offset `start` (page
/// aligned); unmapped on drop, after the populating threads have stopped.
struct Mapping {
    addr: usize,
    len: usize,
    stop: Arc<AtomicBool>,
    populating: Vec<JoinHandle<()>>,
}

impl Mapping {
    fn new(file: &File, start: u64, len: usize) -> std::io::Result<Mapping> {
        // SAFETY: a fresh mapping of a file we hold open; nothing else maps it. (Aligned
        // to 2 MiB with `MADV_HUGEPAGE` it was slower: 2026-11-24; docs/history.md, "File sort".)
        let addr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                start as libc::off_t,
            )
        };
        if addr == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Mapping { addr: addr as usize, len, stop: Arc::new(AtomicBool::new(false)), populating: Vec::new() })
    }

    fn stop_populating(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.populating.drain(..) {
            let _ = t.join();
        }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        self.stop_populating();
        // SAFETY: our mapping; no thread touches it any more.
        unsafe { libc::munmap(self.addr as *mut libc::c_void, self.len) };
    }
}

/// The next `len` bytes of an [`AtomicFile`], sized up front, written in any order from
/// any number of threads by [`SizedOutput::write_at`].
pub struct SizedOutput<'a> {
    file: &'a File,
    /// File offset of byte 0 of the output.
    at: u64,
    len: usize,
    /// The mapping and the offset of byte 0 in it (the mapping starts on a page).
    map: Option<(Mapping, usize)>,
}

impl<'a> SizedOutput<'a> {
    /// Extends `out` by `len` bytes at its current end (nothing written through its
    /// buffer may follow until this is dropped) and prepares them for writing in
    /// `mode`. A full disk is reported here, before any data is written.
    pub fn new(out: &'a mut AtomicFile, len: usize, mode: WriteMode) -> Result<SizedOutput<'a>> {
        use std::io::Seek;
        let file = out.file()?;
        let at = (&*file).stream_position().map_err(io("sizing the output file"))?;
        file.set_len(at + len as u64).map_err(io("sizing the output file"))?;
        SizedOutput::range(file, at, len, mode)
    }

    /// The `len` bytes from offset `at` of `file` (open for reading and writing, and
    /// already that long), prepared for writing in `mode`: how each process of a sort
    /// over ranks writes its range of the one output.
    pub fn range(file: &'a File, at: u64, len: usize, mode: WriteMode) -> Result<SizedOutput<'a>> {
        let mut o = SizedOutput { file, at, len, map: None };
        if mode == WriteMode::Mapped && len > 0 {
            o.map = o.try_map()?;
        }
        Ok(o)
    }

    /// Reserves the space and maps it; `None` where the file system does neither
    /// (the positioned writes then do the work), an error when the disk is full.
    fn try_map(&self) -> Result<Option<(Mapping, usize)>> {
        // SAFETY: plain system call on our open file.
        let r = unsafe { libc::fallocate(self.file.as_raw_fd(), 0, self.at as libc::off_t, self.len as libc::off_t) };
        if r != 0 {
            let e = std::io::Error::last_os_error();
            return match e.raw_os_error() {
                Some(libc::ENOSPC) | Some(libc::EDQUOT) | Some(libc::EFBIG) => {
                    Err(Error::Io { context: format!("reserving {} bytes for the output file", self.len), source: e })
                }
                _ => Ok(None),
            };
        }
        // SAFETY: sysconf has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(1) as u64;
        let start = self.at / page * page;
        let skip = (self.at - start) as usize;
        Ok(Mapping::new(self.file, start, skip + self.len).ok().map(|m| (m, skip)))
    }

    /// Whether the output is written through a mapping.
    pub fn is_mapped(&self) -> bool {
        self.map.is_some()
    }

    /// Starts `threads` threads that fault the mapping's pages in, front to back, so
    /// that the copies of [`write_at`](Self::write_at) find them present. They stop
    /// when the output is dropped. Does nothing for positioned writes.
    pub fn populate_in_background(&mut self, threads: usize) {
        let Some((map, _)) = self.map.as_mut() else { return };
        let next = Arc::new(AtomicUsize::new(0));
        for _ in 0..threads {
            let (next, stop, addr, len) = (next.clone(), map.stop.clone(), map.addr, map.len);
            // Populating is only a head start: without a thread the copies fault the
            // pages in themselves.
            let spawned = std::thread::Builder::new().spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let from = next.fetch_add(POPULATE_SLICE, Ordering::Relaxed);
                    if from >= len {
                        break;
                    }
                    // SAFETY: within the mapping, which outlives this thread (its
                    // drop joins it); the advice changes no data.
                    let r = unsafe {
                        libc::madvise(
                            (addr + from) as *mut libc::c_void,
                            POPULATE_SLICE.min(len - from),
                            MADV_POPULATE_WRITE,
                        )
                    };
                    if r != 0 {
                        break; // an old kernel: the copies fault the pages in
                    }
                }
            });
            match spawned {
                Ok(t) => map.populating.push(t),
                Err(_) => break,
            }
        }
    }

    /// Writes `bytes` at output offset `offset`, slices of [`IO_SLICE`] on several threads.
    ///
    /// # Safety
    /// Writes that may run at the same time (from several threads) must cover
    /// disjoint ranges: through the mapping they are plain memory copies.
    pub unsafe fn write_at(&self, offset: usize, bytes: &[u8]) -> Result<()> {
        assert!(offset + bytes.len() <= self.len, "write past the sized output");
        match &self.map {
            Some((map, skip)) => {
                let dst = map.addr + skip + offset;
                bytes.par_chunks(IO_SLICE).enumerate().for_each(|(j, piece)| {
                    // SAFETY: inside the mapping (checked above); concurrent writes
                    // cover disjoint ranges (the caller's contract); the space is
                    // reserved, so no fault fails.
                    unsafe {
                        std::ptr::copy_nonoverlapping(piece.as_ptr(), (dst + j * IO_SLICE) as *mut u8, piece.len())
                    }
                });
                Ok(())
            }
            None => bytes
                .par_chunks(IO_SLICE)
                .enumerate()
                .try_for_each(|(j, piece)| self.file.write_all_at(piece, self.at + (offset + j * IO_SLICE) as u64))
                .map_err(io("writing the output file")),
        }
    }

    /// Unmaps and leaves the file's position at the end of the output. (Unmapping on a
    /// thread of its own was measured no faster: the next `munmap` of any thread, such
    /// as freeing a large buffer, waits for it.)
    pub fn finish(mut self) -> Result<()> {
        use std::io::Seek;
        self.map = None;
        let mut f = self.file;
        f.seek(std::io::SeekFrom::Start(self.at + self.len as u64)).map_err(io("writing the output file"))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_back(mode: WriteMode, prefix: &[u8], len: usize, populate: bool) -> Vec<u8> {
        static CALL: AtomicUsize = AtomicUsize::new(0);
        let call = CALL.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("host-output-{call}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let dest = dir.join("out.bin");
        let mut out = AtomicFile::create(&dest).unwrap();
        out.write_all(prefix).unwrap();
        let data: Vec<u8> = (0..len).map(|i| (i * 7 + i / 4093) as u8).collect();
        {
            let mut o = SizedOutput::new(&mut out, len, mode).unwrap();
            if populate {
                o.populate_in_background(crate::Tuning::default().file_populate_threads);
            }
            // Out of order and in uneven pieces, as the pipelines write.
            let cut = (len / 3 + 1).min(len);
            // SAFETY: one write at a time.
            unsafe {
                o.write_at(cut, &data[cut..]).unwrap();
                o.write_at(0, &data[..cut]).unwrap();
            }
            o.finish().unwrap();
        }
        out.write_all(b"end").unwrap();
        out.commit_with(false).unwrap();
        let got = std::fs::read(&dest).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let mut want = prefix.to_vec();
        want.extend_from_slice(&data);
        want.extend_from_slice(b"end");
        assert_eq!(got.len(), want.len());
        assert!(got == want, "{mode:?}: the file differs from what was written");
        got
    }

    #[test]
    fn both_modes_write_every_byte_at_its_place() {
        // An unaligned start (after 5 buffered bytes), several slices and a ragged end.
        for mode in [WriteMode::Mapped, WriteMode::Positioned] {
            for populate in [false, true] {
                read_back(mode, b"12345", 3 * IO_SLICE + 4097, populate);
                read_back(mode, b"", 100, populate);
            }
        }
    }

    #[test]
    fn an_empty_output_maps_nothing() {
        read_back(WriteMode::Mapped, b"ab", 0, true);
    }

    #[test]
    fn the_usual_file_systems_are_mapped() {
        // Where the temp directory is on one of these, the fast path must be taken
        // (not silently the fall-back); elsewhere the test says what it found.
        const MAPPABLE: [i64; 5] = [0xEF53, 0x0102_1994, 0x5846_5342, 0x9123_683E, 0x794C_7630];
        let dir = std::env::temp_dir().join(format!("host-output-mapped-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut out = AtomicFile::create(&dir.join("o.bin")).unwrap();
        let mapped = SizedOutput::new(&mut out, 1 << 16, WriteMode::Mapped).unwrap().is_mapped();
        drop(out);
        // SAFETY: statfs fills the zeroed struct; the path is NUL-terminated.
        let kind = unsafe {
            let mut st: libc::statfs = std::mem::zeroed();
            let c = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()).unwrap();
            libc::statfs(c.as_ptr(), &mut st);
            st.f_type as i64
        };
        std::fs::remove_dir_all(&dir).unwrap();
        if MAPPABLE.contains(&kind) {
            assert!(mapped, "file system {kind:#x} should reserve space and map");
        } else {
            eprintln!("note: file system {kind:#x} of the temp directory: mapped = {mapped}");
        }
    }
}
