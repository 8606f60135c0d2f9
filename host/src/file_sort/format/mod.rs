//! Reading and writing element files: raw little-endian binary, or text with one
//! element per line ([`text`]).
use std::fs::File;
use std::path::Path;

use rayon::prelude::*;

use super::output::{SizedOutput, WriteMode};
use crate::Element;
use crate::atomic_file::AtomicFile;
use crate::error::{Error, Result};

/// How elements are stored in a file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Format {
    /// Raw little-endian elements back to back (an [`Entity`](crate::Entity) is its 20-byte
    /// `#[repr(C)]` layout); the file length must be a multiple of the element size.
    #[default]
    Binary,
    /// One element per line in decimal (floats also `inf`, `-inf`, `NaN`, `-NaN`;
    /// see [`TextElement`]); blank lines are skipped. An entity is `distance id x y z`.
    /// NaN payloads do not survive text, NaN signs do.
    Text,
}

impl Format {
    /// The format a command uses: `--text`, else `--format`, else by the file name
    /// (`.txt`, `.csv`, `.tsv`: text; anything else: binary).
    pub fn choose(text: bool, format: Option<Format>, path: &Path) -> Format {
        if text {
            return Format::Text;
        }
        format.unwrap_or_else(|| Format::from_name(path))
    }

    /// Text for `.txt`, `.csv` and `.tsv` (any case), binary otherwise.
    pub fn from_name(path: &Path) -> Format {
        let ext = path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase());
        match ext.as_deref() {
            Some("txt" | "csv" | "tsv") => Format::Text,
            _ => Format::Binary,
        }
    }
}

/// Whether the start of a file looks like numbers in text, one per line (for the
/// hint in the "not a multiple of the element size" error).
pub(super) fn looks_like_text(path: &Path) -> bool {
    let mut head = [0u8; 4096];
    let Ok(mut f) = File::open(path) else { return false };
    let n = std::io::Read::read(&mut f, &mut head).unwrap_or(0);
    let head = &head[..n];
    n > 0 && head.contains(&b'\n') && head.iter().all(|&b| b.is_ascii_digit() || b" \t\r\n+-.eEinfaINFA".contains(&b))
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Format::Binary => "binary",
            Format::Text => "text",
        })
    }
}

mod text;

pub use text::*;

fn open(path: &Path) -> Result<File> {
    File::open(path).map_err(|source| Error::Io { context: format!("cannot read input {}", path.display()), source })
}

/// Number of elements in a binary file, or [`Error::BadInput`] if its length is not a
/// multiple of the element size.
pub fn binary_len<T: Element>(path: &Path) -> Result<usize> {
    let bytes = open(path)?
        .metadata()
        .map_err(|source| Error::Io { context: format!("reading {}", path.display()), source })?
        .len();
    let size = size_of::<T>() as u64;
    if bytes % size != 0 {
        let hint = if looks_like_text(path) { "; it looks like text: add --text" } else { "" };
        return Err(Error::BadInput(format!(
            "{} is {bytes} bytes, not a multiple of {size} (the size of one {}): not a binary {} file{hint}",
            path.display(),
            T::NAME,
            T::NAME
        )));
    }
    Ok((bytes / size) as usize)
}

/// Reads a binary file in pieces of at most `piece` elements (the last one shorter),
/// checking its length first.
pub struct BinaryReader<T> {
    file: File,
    path: std::path::PathBuf,
    left: usize,
    piece: usize,
    /// Byte offset of the next piece.
    offset: u64,
    _elem: std::marker::PhantomData<T>,
}

impl<T: Element> BinaryReader<T> {
    /// Opens `path` for pieces of at most `piece` elements (at least 1); a file whose
    /// length is not a whole number of elements is [`Error::BadInput`].
    pub fn open(path: &Path, piece: usize) -> Result<BinaryReader<T>> {
        let left = binary_len::<T>(path)?;
        Ok(BinaryReader {
            file: open(path)?,
            path: path.to_path_buf(),
            left,
            piece: piece.max(1),
            offset: 0,
            _elem: Default::default(),
        })
    }

    /// Elements not read yet.
    pub fn remaining(&self) -> usize {
        self.left
    }

    /// The next piece, or `None` at the end.
    pub fn next_piece(&mut self) -> Result<Option<Vec<T>>> {
        if self.left == 0 {
            return Ok(None);
        }
        use std::os::unix::fs::FileExt;
        let len = self.left.min(self.piece);
        let mut v = vec![T::zeroed(); len];
        // Positioned reads of 4 MiB slices on several threads: page-cache bandwidth
        // rather than one thread's `read`.
        const SLICE: usize = 4 << 20;
        let at = self.offset;
        bytemuck::cast_slice_mut::<T, u8>(&mut v)
            .par_chunks_mut(SLICE)
            .enumerate()
            .try_for_each(|(i, piece)| self.file.read_exact_at(piece, at + (i * SLICE) as u64))
            .map_err(|source| Error::Io { context: format!("reading {}", self.path.display()), source })?;
        self.offset += (len * size_of::<T>()) as u64;
        self.left -= len;
        Ok(Some(v))
    }
}

/// Reads a whole binary file.
pub fn read_binary<T: Element>(path: &Path) -> Result<Vec<T>> {
    let mut r = BinaryReader::<T>::open(path, usize::MAX)?;
    Ok(r.next_piece()?.unwrap_or_default())
}

/// Reads a text file; the first line that doesn't parse is reported with its number.
pub fn read_text<T: TextElement>(path: &Path) -> Result<Vec<T>> {
    let bytes = read_all_parallel(path)?;
    parse_text(&bytes).map_err(|(line, text)| {
        let shown: String = String::from_utf8_lossy(text).trim().chars().take(60).collect();
        Error::BadInput(format!("{}: line {line}: `{shown}` is not a {}", path.display(), T::NAME))
    })
}

/// The whole file, read by several threads at once (positioned reads of 4 MiB slices
/// into one buffer: page-cache bandwidth rather than one thread's `read`).
fn read_all_parallel(path: &Path) -> Result<Vec<u8>> {
    use std::os::unix::fs::FileExt;
    let file = open(path)?;
    let len =
        file.metadata().map_err(|source| Error::Io { context: format!("reading {}", path.display()), source })?.len();
    let mut bytes = vec![0u8; len as usize];
    const SLICE: usize = 4 << 20;
    bytes
        .par_chunks_mut(SLICE)
        .enumerate()
        .try_for_each(|(i, piece)| file.read_exact_at(piece, (i * SLICE) as u64))
        .map_err(|source| Error::Io { context: format!("reading {}", path.display()), source })?;
    Ok(bytes)
}

/// Reads a whole file of either format.
pub fn read_file<T: TextElement>(path: &Path, format: Format) -> Result<Vec<T>> {
    match format {
        Format::Binary => read_binary(path),
        Format::Text => read_text(path),
    }
}

/// Appends `data` to `out` in `format`, written as `tuning` says
/// ([`crate::Tuning::file_write`]).
pub fn write_elements<T: TextElement>(
    out: &mut AtomicFile,
    data: &[T],
    format: Format,
    tuning: &crate::Tuning,
) -> Result<()> {
    match format {
        Format::Binary => write_binary_parallel(out, bytemuck::cast_slice(data), tuning),
        Format::Text => write_text(out, data, TEXT_BLOCK, tuning),
    }
}

/// Appends `data` as text, `block` elements at a time. Formatting is the slow part:
/// pieces of a block are formatted in parallel, then copied to their places in
/// parallel ([`SizedOutput`]).
fn write_text<T: TextElement>(out: &mut AtomicFile, data: &[T], block: usize, tuning: &crate::Tuning) -> Result<()> {
    let mode = WriteMode::tuned(tuning, WriteMode::Positioned);
    for block in data.chunks(block) {
        if !out.is_seekable() {
            // A stream or device: the formatted pieces go out in order.
            let pieces: Vec<String> = block.par_chunks(1 << 14).map(format_text).collect();
            for p in &pieces {
                out.write_all(p.as_bytes())?;
            }
            continue;
        }
        let pieces: Vec<String> = block.par_chunks(1 << 14).map(format_text).collect();
        let mut offsets = Vec::with_capacity(pieces.len());
        let mut len = 0;
        for p in &pieces {
            offsets.push(len);
            len += p.len();
        }
        let o = SizedOutput::new(out, len, mode)?;
        // SAFETY: each piece has its own range (offsets are the running sum of lengths).
        pieces.par_iter().zip(offsets).try_for_each(|(p, at)| unsafe { o.write_at(at, p.as_bytes()) })?;
        o.finish()?;
    }
    Ok(())
}

/// `data` as text, one element per line.
fn format_text<T: TextElement>(data: &[T]) -> String {
    let mut s = String::with_capacity(data.len() * 12);
    for x in data {
        x.write_text(&mut s);
        s.push('\n');
    }
    s
}

/// Elements formatted as text before their bytes are written (bounds the extra memory
/// to ~100 MB of text).
const TEXT_BLOCK: usize = 1 << 22;

/// Appends `bytes` from several threads ([`SizedOutput`]: one thread's `write` into the
/// page cache runs at a fraction of what the machine can).
fn write_binary_parallel(out: &mut AtomicFile, bytes: &[u8], tuning: &crate::Tuning) -> Result<()> {
    if bytes.len() < 4 << 20 || !out.is_seekable() {
        return out.write_all(bytes);
    }
    let o = SizedOutput::new(out, bytes.len(), WriteMode::tuned(tuning, WriteMode::Mapped))?;
    // SAFETY: the only write.
    unsafe { o.write_at(0, bytes)? };
    o.finish()
}

/// Writes `data` to `path` atomically (as [`crate::Tuning::default`] writes).
pub fn write_file<T: TextElement>(path: &Path, data: &[T], format: Format) -> Result<()> {
    let mut f = AtomicFile::create(path)?;
    write_elements(&mut f, data, format, &crate::Tuning::default())?;
    f.commit()
}

#[cfg(test)]
mod tests;
