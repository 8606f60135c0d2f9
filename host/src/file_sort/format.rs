//! Reading and writing element files: raw little-endian binary, or text with one
//! element per line.
use std::fs::File;
use std::io::Read;
use std::path::Path;

use rayon::prelude::*;

use crate::atomic_file::AtomicFile;
use crate::error::{Error, Result};
use crate::{Element, Entity};

/// How elements are stored in a file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Format {
    /// Raw little-endian elements back to back (an [`Entity`] is its 20-byte
    /// `#[repr(C)]` layout); the file length must be a multiple of the element size.
    #[default]
    Binary,
    /// One element per line in decimal (floats also `inf`, `-inf`, `NaN`); blank lines
    /// are skipped. An entity is `distance id x y z`.
    Text,
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Format::Binary => "binary",
            Format::Text => "text",
        })
    }
}

/// Elements that have a one-line text form. Floats are written in the shortest form
/// that reads back to the same value (NaN payloads and signs are not kept).
pub trait TextElement: Element {
    fn parse_text(s: &str) -> Option<Self>;
    fn write_text(&self, out: &mut String);
}

macro_rules! text_via_display {
    ($($t:ty),*) => {$(
        impl TextElement for $t {
            fn parse_text(s: &str) -> Option<Self> {
                s.parse().ok()
            }
            fn write_text(&self, out: &mut String) {
                use std::fmt::Write as _;
                let _ = write!(out, "{self}");
            }
        }
    )*};
}
text_via_display!(u32, i32, f32, u64, i64, f64);

impl TextElement for Entity {
    fn parse_text(s: &str) -> Option<Self> {
        let mut it = s.split_whitespace();
        let mut f32_field = || it.next()?.parse::<f32>().ok();
        let distance_from_player = f32_field()?;
        let id = it.next()?.parse().ok()?;
        let mut f32_field = || it.next()?.parse::<f32>().ok();
        let position = [f32_field()?, f32_field()?, f32_field()?];
        it.next().is_none().then_some(Entity { distance_from_player, id, position })
    }

    fn write_text(&self, out: &mut String) {
        use std::fmt::Write as _;
        let [x, y, z] = self.position;
        let _ = write!(out, "{} {} {x} {y} {z}", self.distance_from_player, self.id);
    }
}

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
        return Err(Error::BadInput(format!(
            "{} is {bytes} bytes, not a multiple of {size} (the size of one {}): not a binary {} file",
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
    _elem: std::marker::PhantomData<T>,
}

impl<T: Element> BinaryReader<T> {
    pub fn open(path: &Path, piece: usize) -> Result<BinaryReader<T>> {
        let left = binary_len::<T>(path)?;
        Ok(BinaryReader {
            file: open(path)?,
            path: path.to_path_buf(),
            left,
            piece: piece.max(1),
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
        let len = self.left.min(self.piece);
        let mut v = vec![T::zeroed(); len];
        self.file
            .read_exact(bytemuck::cast_slice_mut(&mut v))
            .map_err(|source| Error::Io { context: format!("reading {}", self.path.display()), source })?;
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
    let mut bytes = Vec::new();
    open(path)?
        .read_to_end(&mut bytes)
        .map_err(|source| Error::Io { context: format!("reading {}", path.display()), source })?;
    let lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    let parsed: Vec<Option<T>> = lines
        .par_iter()
        .enumerate()
        .map(|(i, line)| {
            let text = std::str::from_utf8(line).map_err(|_| i)?.trim();
            if text.is_empty() { Ok(None) } else { T::parse_text(text).map(Some).ok_or(i) }
        })
        .collect::<std::result::Result<_, usize>>()
        .map_err(|i| {
            let shown: String = String::from_utf8_lossy(lines[i]).trim().chars().take(60).collect();
            Error::BadInput(format!("{}: line {}: `{shown}` is not a {}", path.display(), i + 1, T::NAME))
        })?;
    Ok(parsed.into_iter().flatten().collect())
}

/// Reads a whole file of either format.
pub fn read_file<T: TextElement>(path: &Path, format: Format) -> Result<Vec<T>> {
    match format {
        Format::Binary => read_binary(path),
        Format::Text => read_text(path),
    }
}

/// Appends `data` to `out` in `format`.
pub fn write_elements<T: TextElement>(out: &mut AtomicFile, data: &[T], format: Format) -> Result<()> {
    match format {
        Format::Binary => out.write_all(bytemuck::cast_slice(data)),
        Format::Text => {
            // Formatting is the slow part: do it in parallel, a block at a time.
            for block in data.chunks(1 << 20) {
                let text: String = block
                    .par_chunks(1 << 14)
                    .map(|c| {
                        let mut s = String::with_capacity(c.len() * 12);
                        for x in c {
                            x.write_text(&mut s);
                            s.push('\n');
                        }
                        s
                    })
                    .collect();
                out.write_all(text.as_bytes())?;
            }
            Ok(())
        }
    }
}

/// Writes `data` to `path` atomically.
pub fn write_file<T: TextElement>(path: &Path, data: &[T], format: Format) -> Result<()> {
    let mut f = AtomicFile::create(path)?;
    write_elements(&mut f, data, format)?;
    f.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(name: &str) -> std::path::PathBuf {
        std::env::temp_dir().join(format!("host-format-{name}-{}", std::process::id()))
    }

    #[test]
    fn text_round_trips_every_kind_of_value() {
        let p = tmp("floats.txt");
        let v = [1.5f64, -0.0, f64::INFINITY, f64::NEG_INFINITY, 1e-310, f64::MAX, 0.1 + 0.2];
        write_file(&p, &v, Format::Text).unwrap();
        let back: Vec<f64> = read_text(&p).unwrap();
        assert_eq!(v.map(f64::to_bits).to_vec(), back.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
        let e = [Entity { distance_from_player: 2.5, id: 7, position: [1.0, -2.0, 3.25] }];
        write_file(&p, &e, Format::Text).unwrap();
        assert_eq!(read_text::<Entity>(&p).unwrap(), e);
        std::fs::remove_file(&p).unwrap();
    }

    #[test]
    fn text_errors_name_the_line() {
        let p = tmp("bad.txt");
        std::fs::write(&p, "1\n\n  2 \n-3\n4\n").unwrap();
        let e = read_text::<u32>(&p).unwrap_err().to_string();
        assert!(e.ends_with("line 4: `-3` is not a u32"), "{e}");
        assert_eq!(read_text::<i32>(&p).unwrap(), [1, 2, -3, 4]);
        std::fs::remove_file(&p).unwrap();
    }

    #[test]
    fn binary_length_must_fit_the_type() {
        let p = tmp("odd.bin");
        std::fs::write(&p, [0u8; 20]).unwrap();
        assert!(matches!(read_binary::<u64>(&p), Err(Error::BadInput(_))));
        let mut r = BinaryReader::<u32>::open(&p, 3).unwrap();
        let sizes: Vec<usize> = std::iter::from_fn(|| r.next_piece().unwrap()).map(|v| v.len()).collect();
        assert_eq!(sizes, [3, 2]);
        std::fs::remove_file(&p).unwrap();
        assert!(matches!(read_binary::<u32>(&p), Err(Error::Io { .. })));
    }
}
