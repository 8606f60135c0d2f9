//! Where a file sort reads from and writes to: a path or a standard stream, and the
//! reading of elements from either in pieces of bounded size.
//!
//! A regular file has a size: binary files are checked against it before any work
//! and read with positioned reads on several threads. Anything else (a pipe, a FIFO,
//! a character device, a `/proc` file) is read sequentially to its end; its size is
//! never taken from its metadata, which says 0 for all of them.
use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::budget;
use super::format::{Format, TextElement, looks_like_text, parse_text};
use super::progress::Counter;
use crate::error::{Error, Result};

/// Bytes per read-ahead advice ([`Input::read_ahead`]): within the smallest common
/// read-ahead window, so that no part of the file is skipped.
const READ_AHEAD_STEP: u64 = 64 << 10;

/// What a file sort reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A file: regular, or a FIFO, device or `/proc` file (read as a stream).
    Path(PathBuf),
    /// Standard input, read as a stream.
    Stdin,
}

/// Where a file sort writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    /// A file, replaced atomically, or written in place if it is a device or FIFO
    /// ([`crate::file_sort::AtomicFile`]).
    Path(PathBuf),
    /// Standard output, written in place.
    Stdout,
}

impl Input {
    /// A command-line argument: `-` is standard input, anything else a path.
    pub fn from_arg(arg: &Path) -> Input {
        if arg.as_os_str() == "-" { Input::Stdin } else { Input::Path(arg.to_path_buf()) }
    }

    /// The path, if it is one.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Input::Path(p) => Some(p),
            Input::Stdin => None,
        }
    }

    /// Asks the kernel, on a thread of its own, to read the first `max_bytes` of a
    /// regular file into the page cache (`posix_fadvise(WILLNEED)`), so that a cold
    /// file streams from the disk while the caller does other work first (the CLI
    /// creates the CUDA context, ~0.2 s). Advice only: a stream, a missing file or a
    /// refusal changes nothing, and the sort reads the file as always.
    pub fn read_ahead(&self, max_bytes: u64) {
        let Some(path) = self.path().map(Path::to_path_buf) else { return };
        let spawned = std::thread::Builder::new().name("read-ahead".into()).spawn(move || {
            use std::os::fd::AsRawFd;
            use std::os::unix::fs::OpenOptionsExt;
            // Regular files only, asked before opening: opening a FIFO would take the
            // writer's pairing from the sort (and block). Non-blocking in case the path
            // changed in between.
            if !std::fs::metadata(&path).is_ok_and(|m| m.is_file()) {
                return;
            }
            let Ok(file) = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(&path) else {
                return;
            };
            let Ok(meta) = file.metadata() else { return };
            if !meta.is_file() {
                return;
            }
            // One advice reads at most the device's read-ahead window (128 KiB by
            // default; Linux caps each WILLNEED there), so the file is advised a window
            // at a time: each call queues its reads and returns, paced by the disk.
            let len = meta.len().min(max_bytes);
            for at in (0..len).step_by(READ_AHEAD_STEP as usize) {
                let Ok(off) = libc::off_t::try_from(at) else { return };
                // SAFETY: a valid descriptor, owned by `file` for the whole call.
                let r = unsafe {
                    libc::posix_fadvise(
                        file.as_raw_fd(),
                        off,
                        READ_AHEAD_STEP as libc::off_t,
                        libc::POSIX_FADV_WILLNEED,
                    )
                };
                if r != 0 {
                    return;
                }
            }
        });
        // Without a thread there is no read-ahead, and nothing else changes.
        drop(spawned);
    }
}

impl Output {
    /// A command-line argument: `-` is standard output, anything else a path.
    pub fn from_arg(arg: &Path) -> Output {
        if arg.as_os_str() == "-" { Output::Stdout } else { Output::Path(arg.to_path_buf()) }
    }

    /// The path, if it is one.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Output::Path(p) => Some(p),
            Output::Stdout => None,
        }
    }

    /// Whether this is standard output, by `-` or by name (`/dev/stdout`): a
    /// program's own messages then belong on standard error.
    pub fn is_stdout(&self) -> bool {
        match self {
            Output::Stdout => true,
            Output::Path(p) => crate::atomic_file::is_stdout(p),
        }
    }

    /// Opens the output for writing ([`crate::file_sort::AtomicFile`]).
    pub fn create(&self) -> Result<crate::file_sort::AtomicFile> {
        match self {
            Output::Path(p) => crate::file_sort::AtomicFile::create(p),
            Output::Stdout => crate::file_sort::AtomicFile::stdout(),
        }
    }
}

impl std::fmt::Display for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Input::Path(p) => write!(f, "{}", p.display()),
            Input::Stdin => f.write_str("standard input"),
        }
    }
}

impl std::fmt::Display for Output {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Output::Path(p) => write!(f, "{}", p.display()),
            Output::Stdout => f.write_str("standard output"),
        }
    }
}

macro_rules! from_paths {
    ($t:ident) => {
        impl From<&Path> for $t {
            fn from(p: &Path) -> $t {
                $t::Path(p.to_path_buf())
            }
        }
        impl From<&PathBuf> for $t {
            fn from(p: &PathBuf) -> $t {
                $t::Path(p.clone())
            }
        }
        impl From<PathBuf> for $t {
            fn from(p: PathBuf) -> $t {
                $t::Path(p)
            }
        }
        impl From<&$t> for $t {
            fn from(x: &$t) -> $t {
                x.clone()
            }
        }
    };
}
from_paths!(Input);
from_paths!(Output);

/// Bytes each thread reads at a time from a regular file.
const READ_SLICE: usize = 4 << 20;

/// An open input.
pub struct Source {
    file: File,
    name: String,
    /// The size of a regular file; `None` for a stream.
    size: Option<u64>,
    /// Bytes read so far.
    offset: u64,
    eof: bool,
    /// Bytes read, for progress reports from another thread.
    counter: Counter,
}

impl Source {
    /// Opens `input`. A missing or unreadable input, or a directory, fails here.
    pub fn open(input: &Input) -> Result<Source> {
        let name = input.to_string();
        let cannot = |source| Error::Io { context: format!("cannot read input {name}"), source };
        let file = match input {
            Input::Path(p) => File::open(p).map_err(cannot)?,
            Input::Stdin => {
                use std::os::fd::AsFd;
                File::from(std::io::stdin().as_fd().try_clone_to_owned().map_err(cannot)?)
            }
        };
        let meta = file.metadata().map_err(cannot)?;
        if meta.is_dir() {
            return Err(Error::BadArgument(format!("input {name} is a directory")));
        }
        // Standard input is read as a stream even when it is a regular file: its
        // position may not be at the start.
        let size = (meta.is_file() && *input != Input::Stdin).then_some(meta.len());
        Ok(Source { file, name, size, offset: 0, eof: false, counter: Counter::default() })
    }

    /// Whether the end has been reached.
    pub fn at_end(&self) -> bool {
        self.eof || self.size.is_some_and(|s| self.offset >= s)
    }

    /// Fills `buf` from the current position; fewer bytes only at the end.
    pub fn fill(&mut self, buf: &mut [u8]) -> Result<usize> {
        let n = match self.size {
            Some(size) => {
                let n = buf.len().min(size.saturating_sub(self.offset) as usize);
                let at = self.offset;
                let (file, counter) = (&self.file, &self.counter);
                buf[..n]
                    .par_chunks_mut(READ_SLICE)
                    .enumerate()
                    .try_for_each(|(i, piece)| {
                        file.read_exact_at(piece, at + (i * READ_SLICE) as u64)?;
                        counter.add(piece.len() as u64);
                        Ok(())
                    })
                    .map_err(|source| Error::Io { context: format!("reading {}", self.name), source })?;
                n
            }
            None => {
                let mut n = 0;
                while n < buf.len() {
                    match self.file.read(&mut buf[n..]) {
                        Ok(0) => {
                            self.eof = true;
                            break;
                        }
                        Ok(k) => {
                            n += k;
                            self.counter.add(k as u64);
                        }
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(source) => return Err(Error::Io { context: format!("reading {}", self.name), source }),
                    }
                }
                n
            }
        };
        self.offset += n as u64;
        Ok(n)
    }
}

/// Longest text line accepted: far more than any number needs, so that a file that
/// is not text (or `/dev/zero`) fails at once instead of being buffered.
const MAX_LINE: usize = 64 << 10;

/// Reads elements of either format in pieces of a chosen size.
pub struct ElementReader<T> {
    src: Source,
    format: Format,
    /// Elements of a regular binary file.
    len: Option<usize>,
    /// Text: the unfinished last line of the previous block, the elements parsed
    /// beyond the previous piece, and the lines before the carried one.
    carry: Vec<u8>,
    pending: Vec<T>,
    pending_from: usize,
    lines: usize,
    /// Text bytes read per block.
    text_block: usize,
}

impl<T: TextElement> ElementReader<T> {
    /// Opens `input`. A regular binary file whose length is not a whole number of
    /// elements fails here, before any work.
    pub fn open(input: &Input, format: Format) -> Result<ElementReader<T>> {
        let src = Source::open(input)?;
        let len = match (format, src.size) {
            (Format::Binary, Some(bytes)) => Some(whole_elements::<T>(&src.name, bytes, input.path())?),
            _ => None,
        };
        Ok(ElementReader {
            src,
            format,
            len,
            carry: Vec::new(),
            pending: Vec::new(),
            pending_from: 0,
            lines: 0,
            text_block: 16 << 20,
        })
    }

    /// Elements in all (a regular binary file), if known before reading.
    pub fn known_len(&self) -> Option<usize> {
        self.len
    }

    /// Input bytes in all (a regular file), if known.
    pub fn size(&self) -> Option<u64> {
        self.src.size
    }

    /// Input bytes read so far.
    #[cfg(feature = "cli")]
    pub fn bytes_read(&self) -> u64 {
        self.src.offset
    }

    pub fn name(&self) -> &str {
        &self.src.name
    }

    /// Counts the bytes read into `counter` (read from another thread for progress).
    pub fn count_into(&mut self, counter: Counter) {
        self.src.counter = counter;
    }

    /// Whether the whole input has been read (the pieces parsed from it may still be
    /// waiting).
    pub fn at_end(&self) -> bool {
        self.src.at_end() && self.carry.is_empty() && self.pending_from >= self.pending.len()
    }

    /// Reads text in blocks of about `bytes` (the elements parsed from one block
    /// beyond a piece wait for the next piece, so this bounds that extra memory).
    pub fn set_text_block(&mut self, bytes: usize) {
        self.text_block = bytes.clamp(4 << 10, 16 << 20);
    }

    /// The next piece of at most `max` elements (fewer only at the end), or `None`
    /// at the end.
    pub fn next_piece(&mut self, max: usize) -> Result<Option<Vec<T>>> {
        let max = max.max(1);
        let piece = match (self.format, self.src.size) {
            (Format::Binary, Some(_)) => self.next_regular_binary(max)?,
            (Format::Binary, None) => self.next_binary_stream(max)?,
            (Format::Text, _) => self.next_text(max)?,
        };
        Ok(if piece.is_empty() { None } else { Some(piece) })
    }

    fn next_regular_binary(&mut self, max: usize) -> Result<Vec<T>> {
        let left = ((self.src.size.unwrap_or(0) - self.src.offset) / size_of::<T>() as u64) as usize;
        let mut v: Vec<T> = budget::zeroed_vec(left.min(max))?;
        self.src.fill(bytemuck::cast_slice_mut(&mut v))?;
        Ok(v)
    }

    fn next_binary_stream(&mut self, max: usize) -> Result<Vec<T>> {
        let size = size_of::<T>();
        let mut v: Vec<T> = Vec::new();
        let mut filled = 0; // bytes
        while !self.src.eof && v.len() < max {
            // Grow by doubling (from 64 KiB): a short stream takes little memory.
            let grow = v.len().max((64 << 10) / size).min(max - v.len());
            v.try_reserve_exact(grow).map_err(|_| Error::HostOutOfMemory {
                needed: ((v.len() + grow) * size) as u64,
                available: budget::memory_room().0,
            })?;
            v.resize(v.len() + grow, T::zeroed());
            let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut v);
            filled += self.src.fill(&mut bytes[filled..])?;
        }
        if filled % size != 0 {
            return Err(Error::BadInput(format!(
                "{} ended after {} bytes, not a multiple of {size} (the size of one {}): not a binary {} stream",
                self.src.name,
                self.src.offset,
                T::NAME,
                T::NAME
            )));
        }
        v.truncate(filled / size);
        Ok(v)
    }

    fn next_text(&mut self, max: usize) -> Result<Vec<T>> {
        let mut out: Vec<T> = Vec::new();
        while out.len() < max {
            if self.pending_from < self.pending.len() {
                let take = (max - out.len()).min(self.pending.len() - self.pending_from);
                if out.is_empty() && take == self.pending.len() && self.pending_from == 0 {
                    out = std::mem::take(&mut self.pending);
                } else {
                    out.try_reserve(take).map_err(|_| Error::HostOutOfMemory {
                        needed: ((out.len() + take) * size_of::<T>()) as u64,
                        available: budget::memory_room().0,
                    })?;
                    out.extend_from_slice(&self.pending[self.pending_from..self.pending_from + take]);
                    self.pending_from += take;
                }
                continue;
            }
            self.pending = Vec::new();
            self.pending_from = 0;
            if self.src.eof && self.carry.is_empty() {
                break;
            }
            self.pending = self.next_text_block()?;
        }
        Ok(out)
    }

    /// Parses the next block of whole lines (the last line without its newline at
    /// the end of the input).
    fn next_text_block(&mut self) -> Result<Vec<T>> {
        let mut buf = std::mem::take(&mut self.carry);
        let start = buf.len();
        buf.try_reserve_exact(self.text_block).map_err(|_| Error::HostOutOfMemory {
            needed: (start + self.text_block) as u64,
            available: budget::memory_room().0,
        })?;
        buf.resize(start + self.text_block, 0);
        let got = self.src.fill(&mut buf[start..])?;
        buf.truncate(start + got);
        if got < self.text_block {
            self.src.eof = true;
        }
        let cut = if self.src.eof {
            buf.len()
        } else {
            match buf.iter().rposition(|&b| b == b'\n') {
                Some(p) => p + 1,
                None => {
                    if buf.len() > MAX_LINE {
                        let shown: String = String::from_utf8_lossy(&buf[..60]).chars().take(60).collect();
                        return Err(Error::BadInput(format!(
                            "{}: line {}: longer than {} bytes (`{}...`): not a {}",
                            self.src.name,
                            self.lines + 1,
                            MAX_LINE,
                            shown.escape_debug(),
                            T::NAME
                        )));
                    }
                    self.carry = buf;
                    return Ok(Vec::new());
                }
            }
        };
        let parsed = parse_text::<T>(&buf[..cut]).map_err(|(line, text)| {
            let shown: String = String::from_utf8_lossy(text).trim().chars().take(60).collect();
            Error::BadInput(format!("{}: line {}: `{shown}` is not a {}", self.src.name, self.lines + line, T::NAME))
        })?;
        self.lines += buf[..cut].iter().filter(|&&b| b == b'\n').count();
        self.carry = buf[cut..].to_vec();
        Ok(parsed)
    }
}

/// Elements in a binary file of `bytes` bytes, or [`Error::BadInput`] if that is not a
/// whole number (with a hint when the file looks like text).
pub fn whole_elements<T: crate::Element>(name: &str, bytes: u64, path: Option<&Path>) -> Result<usize> {
    let size = size_of::<T>() as u64;
    if !bytes.is_multiple_of(size) {
        let hint = if path.is_some_and(looks_like_text) { "; it looks like text: add --text" } else { "" };
        return Err(Error::BadInput(format!(
            "{name} is {bytes} bytes, not a multiple of {size} (the size of one {}): not a binary {} file{hint}",
            T::NAME,
            T::NAME
        )));
    }
    usize::try_from(bytes / size)
        .map_err(|_| Error::BadInput(format!("{name} holds more elements than this machine can count")))
}

/// Reads a whole input into memory, or fails with [`Error::TooLarge`] when it holds
/// more than `limit` bytes of elements (up front for a regular binary file, as soon
/// as reading passes the limit for anything else): for the sorts that work in memory.
#[cfg(feature = "cli")]
pub fn read_all<T: TextElement>(input: &Input, format: Format, limit: u64) -> Result<Vec<T>> {
    let mut r = ElementReader::<T>::open(input, format)?;
    let max = (limit / size_of::<T>() as u64).min(usize::MAX as u64 - 1) as usize;
    if let Some(n) = r.known_len()
        && n > max
    {
        return Err(budget::too_large(&r.src.name, (n * size_of::<T>()) as u64, limit, None));
    }
    r.set_text_block((limit / 16).min(usize::MAX as u64) as usize);
    let all = r.next_piece(max)?.unwrap_or_default();
    if r.next_piece(1)?.is_some() {
        return Err(budget::too_large(&r.src.name, r.bytes_read(), limit, None));
    }
    Ok(all)
}

/// Reads a whole input's bytes, or fails with [`Error::TooLarge`] past `limit`.
pub fn read_all_bytes(input: &Input, limit: u64) -> Result<Vec<u8>> {
    let mut src = Source::open(input)?;
    let limit = limit.min(usize::MAX as u64 - 1) as usize;
    if let Some(size) = src.size {
        if size > limit as u64 {
            return Err(budget::too_large(&src.name, size, limit as u64, None));
        }
        let mut v: Vec<u8> = budget::zeroed_vec(size as usize)?;
        src.fill(&mut v)?;
        return Ok(v);
    }
    let mut v: Vec<u8> = Vec::new();
    let mut filled = 0;
    while !src.eof {
        if filled == limit + 1 {
            return Err(budget::too_large(&src.name, src.offset, limit as u64, None));
        }
        let grow = v.len().max(64 << 10).min(limit + 1 - v.len());
        v.try_reserve_exact(grow).map_err(|_| Error::HostOutOfMemory {
            needed: (v.len() + grow) as u64,
            available: budget::memory_room().0,
        })?;
        v.resize(v.len() + grow, 0);
        filled += src.fill(&mut v[filled..])?;
    }
    v.truncate(filled);
    Ok(v)
}
