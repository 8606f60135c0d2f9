//! Output files that appear complete or not at all: written to a temporary file in
//! the destination's directory (so the final rename stays on one file system and is
//! atomic), renamed over the destination on [`AtomicFile::commit`], removed if dropped
//! uncommitted (an error or a panic half way through leaves nothing behind).
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Result};

/// A file being written; see the module docs.
pub struct AtomicFile {
    dest: PathBuf,
    tmp: PathBuf,
    file: Option<BufWriter<File>>,
}

fn io_error(context: String) -> impl FnOnce(std::io::Error) -> Error {
    move |source| Error::Io { context, source }
}

impl AtomicFile {
    /// Creates the temporary file next to `dest`. Fails at once (before any work is
    /// done) when the destination's directory is missing or not writable, or `dest`
    /// is a directory.
    pub fn create(dest: &Path) -> Result<AtomicFile> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        if dest.is_dir() {
            return Err(Error::BadArgument(format!("output {} is a directory", dest.display())));
        }
        let name = dest
            .file_name()
            .ok_or_else(|| Error::BadArgument(format!("output {} names no file", dest.display())))?
            .to_string_lossy();
        let dir = dest.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let unique = COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(".{name}.{}-{unique}.tmp", std::process::id()));
        // Readable too: a shared writable mapping of the file needs both.
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(io_error(format!("cannot write output {}", dest.display())))?;
        Ok(AtomicFile { dest: dest.to_path_buf(), tmp, file: Some(BufWriter::with_capacity(1 << 22, file)) })
    }

    /// Writes `bytes` to the temporary file.
    pub fn write_all(&mut self, bytes: &[u8]) -> Result<()> {
        let dest = &self.dest;
        self.file
            .as_mut()
            .expect("written after commit")
            .write_all(bytes)
            .map_err(io_error(format!("writing {}", dest.display())))
    }

    /// The file, for positioned writes from several threads (`FileExt::write_all_at`)
    /// after `set_len`; anything written through the buffer is flushed first.
    pub fn file(&mut self) -> Result<&File> {
        let context = format!("writing {}", self.dest.display());
        let w = self.file.as_mut().expect("written after commit");
        w.flush().map_err(io_error(context))?;
        Ok(w.get_ref())
    }

    /// Flushes, syncs (the data is on disk before the name appears) and renames the
    /// temporary file over the destination.
    pub fn commit(self) -> Result<()> {
        self.commit_with(true)
    }

    /// Flushes and renames, syncing the data to disk first only with `sync`. Without
    /// it the replacement is still atomic for readers (they see the old file or the
    /// whole new one), but a power loss right after may leave an empty or partial
    /// file, as with `sort -o`, `cp` or numpy's `tofile`.
    pub fn commit_with(mut self, sync: bool) -> Result<()> {
        let context = format!("writing {}", self.dest.display());
        let file = self.file.take().expect("committed twice");
        let file = file.into_inner().map_err(|e| Error::Io { context: context.clone(), source: e.into_error() })?;
        if sync {
            file.sync_all().map_err(io_error(context.clone()))?;
        }
        drop(file);
        std::fs::rename(&self.tmp, &self.dest).map_err(io_error(context))
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file.as_mut().expect("written after commit").write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.as_mut().expect("written after commit").flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = std::fs::remove_file(&self.tmp);
        } else if self.tmp.exists() && !self.dest.exists() {
            // The rename failed: don't leave the temporary file behind either.
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Writes `bytes` to `dest` atomically (see [`AtomicFile`]).
pub fn write_atomic(dest: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = AtomicFile::create(dest)?;
    f.write_all(bytes)?;
    f.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch_dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("host-atomic-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn entries(d: &Path) -> Vec<String> {
        let mut v: Vec<String> =
            std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        v.sort();
        v
    }

    #[test]
    fn commit_replaces_and_drop_leaves_nothing() {
        let d = scratch_dir("commit");
        let dest = d.join("out.bin");
        std::fs::write(&dest, b"old").unwrap();
        {
            let mut f = AtomicFile::create(&dest).unwrap();
            f.write_all(b"half").unwrap();
            // Dropped uncommitted: as if an error happened mid-way.
        }
        assert_eq!(std::fs::read(&dest).unwrap(), b"old");
        assert_eq!(entries(&d), ["out.bin"]);
        write_atomic(&dest, b"new").unwrap();
        assert_eq!(std::fs::read(&dest).unwrap(), b"new");
        assert_eq!(entries(&d), ["out.bin"]);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn unwritable_destinations_fail_early() {
        let d = scratch_dir("bad");
        assert!(matches!(AtomicFile::create(&d.join("missing/out.bin")), Err(Error::Io { .. })));
        assert!(matches!(AtomicFile::create(&d), Err(Error::BadArgument(_))));
        std::fs::remove_dir_all(&d).unwrap();
    }
}
