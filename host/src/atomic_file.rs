//! Outputs that never lose or damage data.
//!
//! A regular file (or a name that does not exist yet) is written to a temporary file in
//! the destination's directory, so that the final rename stays on one file system and
//! is atomic, and renamed over the destination on [`AtomicFile::commit`]; dropped
//! uncommitted (an error or a panic half way through), the temporary file is removed
//! and the old destination is untouched. The replacement keeps the permission bits of
//! the file it replaces (and its owner and group when run as root).
//!
//! Other outputs are written in place, never renamed over: standard output, character
//! and block devices (`/dev/null`), FIFOs and sockets, and files reached through
//! `/proc` (`/dev/stdout`, `/dev/fd/N`). An error half way through such an output
//! leaves what was written (a reader of a pipe has seen it already).
//!
//! Symbolic links are followed: the temporary file goes beside the link's final target
//! and is renamed over the target, so the link stays a link (as with `sort -o` or
//! `cp`). Hard links are broken: the rename gives the name a new file, and the other
//! names of the old file keep the old contents.
//!
//! Every temporary file is registered while it exists; [`clean_up_on_signals`] makes
//! SIGINT, SIGTERM and SIGHUP remove them before the process ends.
use std::ffi::OsString;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

use crate::error::{Error, Result};

/// A file being written; see the module docs.
pub struct AtomicFile {
    /// The output as the caller named it (for messages).
    dest: PathBuf,
    kind: Kind,
    file: Option<BufWriter<File>>,
}

enum Kind {
    /// Written to `tmp`, renamed over `target` (the destination with its symbolic links
    /// resolved) on commit.
    Replace { target: PathBuf, tmp: PathBuf, keep: Option<Owner>, renamed: bool },
    /// Written in place: a stream, a device or a `/proc` file.
    Direct,
}

/// Permission bits, owner and group of the file a commit replaces.
#[derive(Clone, Copy)]
struct Owner {
    mode: u32,
    uid: u32,
    gid: u32,
}

fn io_error(context: String) -> impl FnOnce(std::io::Error) -> Error {
    move |source| Error::Io { context, source }
}

/// Longest file name most Linux file systems take (`NAME_MAX`).
const NAME_MAX: usize = 255;

/// Symbolic links followed before giving up (as the kernel's `ELOOP` limit).
const MAX_LINKS: usize = 40;

/// Where an output path leads.
enum Target {
    /// A regular file, or nothing yet: replace atomically. `keep` is the existing
    /// file's owner and mode.
    Replace { target: PathBuf, keep: Option<Owner> },
    /// Write in place (`truncate`: a regular file reached through `/proc`).
    Direct { truncate: bool },
}

fn classify(dest: &Path) -> Result<Target> {
    let shown = dest.display();
    let bytes = dest.as_os_str().as_bytes();
    if bytes.is_empty() {
        return Err(Error::BadArgument("the output name is empty".into()));
    }
    let meta = std::fs::metadata(dest);
    if matches!(&meta, Ok(m) if m.is_dir()) {
        return Err(Error::BadArgument(format!("output {shown} is a directory")));
    }
    // `Path` drops a trailing slash ("out/" has the file name "out"); the kernel does
    // not, and a rename to "out/" would fail only after the whole sort.
    if bytes.ends_with(b"/") || bytes.ends_with(b"/.") || dest.file_name().is_none() {
        return Err(Error::BadArgument(format!("output {shown} names a directory, not a file")));
    }
    match meta {
        Ok(m) if m.is_file() => {
            let (target, via_proc) = resolve_links(dest)?;
            if via_proc {
                // `/dev/stdout` and friends: a file another process opened for us.
                return Ok(Target::Direct { truncate: true });
            }
            Ok(Target::Replace { target, keep: Some(Owner { mode: m.mode() & 0o7777, uid: m.uid(), gid: m.gid() }) })
        }
        Ok(m) => {
            let t = m.file_type();
            if t.is_char_device() || t.is_block_device() || t.is_fifo() || t.is_socket() {
                Ok(Target::Direct { truncate: false })
            } else {
                Err(Error::BadArgument(format!("output {shown} is not a regular file, device or FIFO")))
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            // Nothing there, or a symbolic link to a name that does not exist yet.
            Ok(Target::Replace { target: resolve_links(dest)?.0, keep: None })
        }
        Err(e) => Err(Error::Io { context: format!("cannot write output {shown}"), source: e }),
    }
}

/// `path` with the symbolic links of its last component followed (the directories on
/// the way stay as they are: the rename happens in the final target's directory), and
/// whether the way passed through `/proc` (whose links name open files, not places).
fn resolve_links(path: &Path) -> Result<(PathBuf, bool)> {
    let mut p = path.to_path_buf();
    let mut via_proc = false;
    for _ in 0..MAX_LINKS {
        via_proc |= p.starts_with("/proc");
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let to =
                    std::fs::read_link(&p).map_err(io_error(format!("cannot follow the link {}", path.display())))?;
                p = match p.parent() {
                    Some(dir) if to.is_relative() => dir.join(to),
                    _ => to,
                };
            }
            _ => return Ok((p, via_proc)),
        }
    }
    Err(Error::BadArgument(format!("output {}: too many levels of symbolic links", path.display())))
}

/// Whether `path` names this process's standard output.
pub(crate) fn is_stdout(path: &Path) -> bool {
    ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"].iter().any(|p| path == Path::new(p))
        || path == Path::new(&format!("/proc/{}/fd/1", std::process::id()))
}

/// The temporary name for a file named `name`: `.NAME.PID-N.tmp`, with `NAME` cut so
/// that the whole fits `NAME_MAX` whenever `name` itself does.
fn temp_name(name: &std::ffi::OsStr, pid: u32, unique: u64) -> OsString {
    let suffix = format!(".{pid}-{unique}.tmp");
    let room = NAME_MAX.saturating_sub(1 + suffix.len());
    let name = name.as_bytes();
    let mut out = Vec::with_capacity(NAME_MAX);
    out.push(b'.');
    out.extend_from_slice(&name[..name.len().min(room)]);
    out.extend_from_slice(suffix.as_bytes());
    OsString::from_vec(out)
}

impl AtomicFile {
    /// Prepares the output `dest`: creates the temporary file beside it, or opens it
    /// for writing in place (see the module docs). Fails at once, before any work is
    /// done, when the destination's directory is missing or not writable, or `dest`
    /// is a directory or ends with a slash.
    pub fn create(dest: &Path) -> Result<AtomicFile> {
        match classify(dest)? {
            // Standard output by name: the stream itself, so that an appending
            // redirection (`>>`) keeps what it has.
            Target::Direct { .. } if is_stdout(dest) => {
                let mut f = AtomicFile::stdout()?;
                f.dest = dest.to_path_buf();
                Ok(f)
            }
            Target::Direct { truncate } => {
                let file = OpenOptions::new()
                    .write(true)
                    .truncate(truncate)
                    .open(dest)
                    .map_err(io_error(format!("cannot write output {}", dest.display())))?;
                Ok(AtomicFile::direct(dest.to_path_buf(), file))
            }
            Target::Replace { target, keep } => AtomicFile::replacing(dest, target, keep),
        }
    }

    /// Writes to standard output (in place).
    pub fn stdout() -> Result<AtomicFile> {
        use std::os::fd::AsFd;
        let fd = std::io::stdout()
            .as_fd()
            .try_clone_to_owned()
            .map_err(io_error("cannot write to standard output".into()))?;
        Ok(AtomicFile::direct(PathBuf::from("standard output"), File::from(fd)))
    }

    fn direct(dest: PathBuf, file: File) -> AtomicFile {
        AtomicFile { dest, kind: Kind::Direct, file: Some(BufWriter::with_capacity(1 << 22, file)) }
    }

    fn replacing(dest: &Path, target: PathBuf, keep: Option<Owner>) -> Result<AtomicFile> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let name = target.file_name().expect("classify checked the file name").to_os_string();
        let dir = target.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        loop {
            let unique = COUNTER.fetch_add(1, Ordering::Relaxed);
            let tmp = dir.join(temp_name(&name, std::process::id(), unique));
            // Readable too: a shared writable mapping of the file needs both. A file
            // that replaces another is private until it gets that file's mode at commit.
            let opened = temporaries::create(&tmp, |p| {
                OpenOptions::new()
                    .read(true)
                    .write(true)
                    .create_new(true)
                    .mode(if keep.is_some() { 0o600 } else { 0o666 })
                    .open(p)
            });
            match opened {
                Ok(file) => {
                    return Ok(AtomicFile {
                        dest: dest.to_path_buf(),
                        kind: Kind::Replace { target, tmp, keep, renamed: false },
                        file: Some(BufWriter::with_capacity(1 << 22, file)),
                    });
                }
                // Left by another process with the same id (a container's pid 1, a
                // crash): take the next name.
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(Error::Io { context: format!("cannot write output {}", dest.display()), source: e });
                }
            }
        }
    }

    /// The output as named by the caller.
    pub fn dest(&self) -> &Path {
        &self.dest
    }

    /// Whether the output can be sized and written at any offset ([`AtomicFile::file`]):
    /// true for a temporary file, false for outputs written in place.
    pub fn is_seekable(&self) -> bool {
        matches!(self.kind, Kind::Replace { .. })
    }

    /// The directory the temporary file is in (`None` for outputs written in place).
    pub fn directory(&self) -> Option<&Path> {
        match &self.kind {
            Kind::Replace { tmp, .. } => tmp.parent(),
            Kind::Direct => None,
        }
    }

    /// The temporary file that [`AtomicFile::commit`] renames into place (`None` for
    /// outputs written in place): other processes writing parts of the output at
    /// their offsets open it by this name.
    pub fn temp_path(&self) -> Option<&Path> {
        match &self.kind {
            Kind::Replace { tmp, .. } => Some(tmp),
            Kind::Direct => None,
        }
    }

    /// Writes `bytes` to the output.
    pub fn write_all(&mut self, bytes: &[u8]) -> Result<()> {
        let dest = &self.dest;
        self.file
            .as_mut()
            .expect("written after commit")
            .write_all(bytes)
            .map_err(io_error(format!("writing {}", dest.display())))
    }

    /// The file, for positioned writes from several threads (`FileExt::write_all_at`)
    /// after `set_len`; anything written through the buffer is flushed first. Only for
    /// seekable outputs ([`AtomicFile::is_seekable`]).
    pub fn file(&mut self) -> Result<&File> {
        if !self.is_seekable() {
            return Err(Error::BadArgument(format!(
                "{} is written in place, in order: it has no offsets to write at",
                self.dest.display()
            )));
        }
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
    /// file, as with `sort -o`, `cp` or numpy's `tofile`. On any error the temporary
    /// file is removed and the destination keeps its old contents.
    pub fn commit_with(mut self, sync: bool) -> Result<()> {
        let context = format!("writing {}", self.dest.display());
        let file = self.file.take().expect("committed twice");
        let file = file.into_inner().map_err(|e| Error::Io { context: context.clone(), source: e.into_error() })?;
        match &mut self.kind {
            Kind::Direct => {
                // Streams and devices have nothing to sync (fsync fails on a pipe).
                if sync && file.metadata().is_ok_and(|m| m.is_file()) {
                    file.sync_all().map_err(io_error(context))?;
                }
                Ok(())
            }
            Kind::Replace { target, tmp, keep, renamed } => {
                if let Some(k) = keep {
                    keep_owner_and_mode(&file, *k).map_err(io_error(context.clone()))?;
                }
                if sync {
                    file.sync_all().map_err(io_error(context.clone()))?;
                }
                drop(file);
                temporaries::rename(tmp, target).map_err(io_error(context))?;
                *renamed = true;
                Ok(())
            }
        }
    }
}

/// Gives the new file the replaced file's owner and group (only root may, and only
/// then is it tried) and permission bits (after the owner: `chown` clears set-id bits).
fn keep_owner_and_mode(file: &File, keep: Owner) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::PermissionsExt;
    // SAFETY: plain system calls on our open file.
    if unsafe { libc::geteuid() } == 0 && unsafe { libc::fchown(file.as_raw_fd(), keep.uid, keep.gid) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    file.set_permissions(std::fs::Permissions::from_mode(keep.mode))
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
        // Close before removing, then remove whatever was not renamed into place: a
        // failed flush, sync or rename leaves no temporary file either.
        drop(self.file.take());
        if let Kind::Replace { tmp, renamed: false, .. } = &self.kind {
            temporaries::remove(tmp);
        }
    }
}

/// Writes `bytes` to `dest` atomically (see [`AtomicFile`]).
pub fn write_atomic(dest: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = AtomicFile::create(dest)?;
    f.write_all(bytes)?;
    f.commit()
}

/// Makes SIGINT, SIGTERM and SIGHUP remove every temporary output file of this
/// process before it ends, by the same signal (so a shell reports 130, 143 or 129);
/// and makes a write past `RLIMIT_FSIZE` an error (`EFBIG`) instead of `SIGXFSZ`
/// killing the process with its temporary files in place. For programs: a library
/// does not take signals over by itself. Calling it again does nothing.
pub fn clean_up_on_signals() -> Result<()> {
    static INSTALLED: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    INSTALLED
        .get_or_init(|| {
            use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
            // SAFETY: setting a signal's disposition to "ignore" has no preconditions.
            unsafe { libc::signal(libc::SIGXFSZ, libc::SIG_IGN) };
            let mut signals =
                signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]).map_err(|e| e.to_string())?;
            std::thread::Builder::new()
                .name("signal-cleanup".into())
                .spawn(move || {
                    if let Some(sig) = signals.forever().next() {
                        // Held until the end: no temporary file is created after this.
                        let _held = temporaries::remove_all();
                        // SAFETY: back to the default action, then the signal again:
                        // the process ends as if it had never been caught.
                        unsafe {
                            libc::signal(sig, libc::SIG_DFL);
                            libc::raise(sig);
                        }
                        std::process::exit(128 + sig);
                    }
                })
                .map(drop)
                .map_err(|e| e.to_string())
        })
        .clone()
        .map_err(|e| Error::BadArgument(format!("cannot handle signals: {e}")))
}

/// The temporary files of this process that exist now. Each is created, renamed and
/// removed under the lock, so a signal's clean-up sees every one of them.
mod temporaries {
    use super::*;

    static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

    fn live() -> MutexGuard<'static, Vec<PathBuf>> {
        LIVE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(super) fn create(path: &Path, open: impl FnOnce(&Path) -> std::io::Result<File>) -> std::io::Result<File> {
        let mut live = live();
        let f = open(path)?;
        live.push(path.to_path_buf());
        Ok(f)
    }

    pub(super) fn rename(from: &Path, to: &Path) -> std::io::Result<()> {
        let mut live = live();
        std::fs::rename(from, to)?;
        live.retain(|p| p != from);
        Ok(())
    }

    pub(super) fn remove(path: &Path) {
        let mut live = live();
        let _ = std::fs::remove_file(path);
        live.retain(|p| p != path);
    }

    /// Removes them all and returns the lock, for the caller to hold until it ends.
    pub(super) fn remove_all() -> MutexGuard<'static, Vec<PathBuf>> {
        let mut live = live();
        for p in live.drain(..) {
            let _ = std::fs::remove_file(&p);
        }
        live
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

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
        let slash = PathBuf::from(format!("{}/new/", d.display()));
        let e = AtomicFile::create(&slash).err().expect("a trailing slash is refused").to_string();
        assert!(e.contains("names a directory"), "{e}");
        assert!(matches!(AtomicFile::create(Path::new("")), Err(Error::BadArgument(_))));
        assert!(entries(&d).is_empty());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_refused_rename_leaves_no_temporary_file() {
        // The destination becomes a non-empty directory before the commit: the rename
        // fails, the temporary file goes, the directory stays.
        let d = scratch_dir("refused");
        let dest = d.join("out.bin");
        let mut f = AtomicFile::create(&dest).unwrap();
        f.write_all(b"data").unwrap();
        std::fs::create_dir(&dest).unwrap();
        std::fs::write(dest.join("inside"), b"kept").unwrap();
        assert!(matches!(f.commit_with(false), Err(Error::Io { .. })));
        assert_eq!(entries(&d), ["out.bin"]);
        assert_eq!(std::fs::read(dest.join("inside")).unwrap(), b"kept");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn long_names_get_short_temporary_names() {
        let d = scratch_dir("long");
        let dest = d.join("x".repeat(NAME_MAX));
        write_atomic(&dest, b"long").unwrap();
        assert_eq!(std::fs::read(&dest).unwrap(), b"long");
        assert_eq!(entries(&d).len(), 1);
        let t = temp_name(std::ffi::OsStr::new(&"é".repeat(200)), u32::MAX, u64::MAX);
        assert!(t.len() <= NAME_MAX && t.as_bytes().starts_with(b".\xc3\xa9"), "{t:?}");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn replacing_keeps_the_mode_and_follows_links() {
        let d = scratch_dir("mode");
        let real = d.join("real.bin");
        std::fs::write(&real, b"old").unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
        let link = d.join("link.bin");
        std::os::unix::fs::symlink("real.bin", &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link stays a link");
        assert_eq!(std::fs::read(&real).unwrap(), b"new");
        assert_eq!(std::fs::metadata(&real).unwrap().mode() & 0o7777, 0o640);
        // A link to a name that does not exist yet creates the target.
        let dangling = d.join("dangling.bin");
        std::os::unix::fs::symlink("made.bin", &dangling).unwrap();
        write_atomic(&dangling, b"made").unwrap();
        assert_eq!(std::fs::read(d.join("made.bin")).unwrap(), b"made");
        assert_eq!(entries(&d), ["dangling.bin", "link.bin", "made.bin", "real.bin"]);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn devices_are_written_in_place() {
        let null = Path::new("/dev/null");
        let before = std::fs::metadata(null).unwrap();
        let mut f = AtomicFile::create(null).unwrap();
        assert!(!f.is_seekable() && f.file().is_err());
        f.write_all(b"gone").unwrap();
        f.commit().unwrap();
        let after = std::fs::metadata(null).unwrap();
        assert!(after.file_type().is_char_device());
        assert_eq!((before.ino(), before.rdev()), (after.ino(), after.rdev()), "/dev/null was replaced");
    }
}
