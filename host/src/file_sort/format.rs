//! Reading and writing element files: raw little-endian binary, or text with one
//! element per line.
use std::fs::File;
use std::path::Path;

use rayon::prelude::*;

use super::output::{SizedOutput, WriteMode};
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

/// Elements that have a one-line text form. Floats are written in the shortest form
/// that reads back to the same value (NaN payloads and signs are not kept).
pub trait TextElement: Element {
    fn parse_text(s: &str) -> Option<Self>;
    fn write_text(&self, out: &mut String);
    /// Parses one line's bytes (surrounding whitespace allowed).
    fn parse_bytes(line: &[u8]) -> Option<Self> {
        Self::parse_text(std::str::from_utf8(line).ok()?.trim())
    }
}

macro_rules! text_floats {
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
text_floats!(f32, f64);

/// "00" to "99": the two-digit groups integers are formatted with.
const DIGIT_PAIRS: &[u8; 200] = b"\
0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// Integers: parsed and formatted by hand (the hot loop of a text file sort), with
/// the same accepted syntax as `str::parse` (an optional sign, decimal digits) and
/// overflow checked.
macro_rules! text_integers {
    ($($t:ty),*) => {$(
        impl TextElement for $t {
            fn parse_text(s: &str) -> Option<Self> {
                Self::parse_bytes(s.as_bytes())
            }
            fn write_text(&self, out: &mut String) {
                let mut buf = [0u8; 24];
                let mut i = buf.len();
                let neg = *self < 0 as $t;
                // Digits of the magnitude, two at a time from the last, in `u64`
                // arithmetic (division by a constant becomes a multiplication; `u128`
                // division is a library call): `unsigned_abs` keeps MIN exact, and
                // every magnitude fits 64 bits.
                let mut m = (*self as i128).unsigned_abs() as u64;
                while m >= 100 {
                    let d = (m % 100) as usize * 2;
                    m /= 100;
                    i -= 2;
                    buf[i..i + 2].copy_from_slice(&DIGIT_PAIRS[d..d + 2]);
                }
                if m >= 10 {
                    let d = m as usize * 2;
                    i -= 2;
                    buf[i..i + 2].copy_from_slice(&DIGIT_PAIRS[d..d + 2]);
                } else {
                    i -= 1;
                    buf[i] = b'0' + m as u8;
                }
                if neg {
                    i -= 1;
                    buf[i] = b'-';
                }
                out.push_str(std::str::from_utf8(&buf[i..]).expect("ASCII digits"));
            }
            #[inline]
            fn parse_bytes(line: &[u8]) -> Option<Self> {
                let line = line.trim_ascii();
                let unsigned = (0 as $t).checked_sub(1).is_none();
                let (neg, digits) = match line.first()? {
                    b'-' if unsigned => return None, // as str::parse: no sign but `+`
                    b'-' => (true, &line[1..]),
                    b'+' => (false, &line[1..]),
                    _ => (false, line),
                };
                if digits.is_empty() {
                    return None;
                }
                // Accumulate negatively so that MIN parses without overflow.
                let mut v: $t = 0;
                for &d in digits {
                    let d = d.wrapping_sub(b'0');
                    if d > 9 {
                        return None;
                    }
                    v = v.checked_mul(10)?;
                    v = if neg { v.checked_sub(d as $t)? } else { v.checked_add(d as $t)? };
                }
                Some(v)
            }
        }
    )*};
}
text_integers!(u32, i32, u64, i64);

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

/// Parses one element per line (blank lines skipped), in parallel: the text is cut
/// into blocks at line ends, each block parsed straight into its own vector, and the
/// vectors concatenated. On failure, the 1-based number and bytes of the first bad
/// line.
pub fn parse_text<T: TextElement>(bytes: &[u8]) -> std::result::Result<Vec<T>, (usize, &[u8])> {
    const BLOCK: usize = 1 << 20;
    let mut cuts = vec![0];
    while *cuts.last().unwrap() < bytes.len() {
        let from = cuts.last().unwrap() + BLOCK;
        let cut = if from >= bytes.len() {
            bytes.len()
        } else {
            bytes[from..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |p| from + p + 1)
        };
        cuts.push(cut);
    }
    // Per block: the elements, or the index of the first bad line in the block.
    let blocks: Vec<std::result::Result<Vec<T>, usize>> = cuts
        .par_windows(2)
        .map(|w| {
            let block = &bytes[w[0]..w[1]];
            let mut out = Vec::with_capacity(block.len() / 8);
            for (i, line) in block.split(|&b| b == b'\n').enumerate() {
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                match T::parse_bytes(line) {
                    Some(x) => out.push(x),
                    None => return Err(i),
                }
            }
            Ok(out)
        })
        .collect();
    let mut total = 0;
    for (b, r) in blocks.iter().enumerate() {
        match r {
            Ok(v) => total += v.len(),
            Err(i) => {
                let start = cuts[b];
                let line = bytes[..start].iter().filter(|&&c| c == b'\n').count() + i + 1;
                let text = bytes[start..].split(|&c| c == b'\n').nth(*i).unwrap_or(&[]);
                return Err((line, text));
            }
        }
    }
    let mut out: Vec<T> = Vec::with_capacity(total);
    for v in blocks.into_iter().flatten() {
        out.extend_from_slice(&v);
    }
    Ok(out)
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
        Format::Binary => write_binary_parallel(out, bytemuck::cast_slice(data)),
        Format::Text => write_text(out, data, TEXT_BLOCK),
    }
}

/// Appends `data` as text, `block` elements at a time. Formatting is the slow part:
/// pieces of a block are formatted in parallel, then copied to their places in
/// parallel ([`SizedOutput`]).
fn write_text<T: TextElement>(out: &mut AtomicFile, data: &[T], block: usize) -> Result<()> {
    let mode = WriteMode::from_env(WriteMode::Positioned);
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
fn write_binary_parallel(out: &mut AtomicFile, bytes: &[u8]) -> Result<()> {
    if bytes.len() < 4 << 20 || !out.is_seekable() {
        return out.write_all(bytes);
    }
    let o = SizedOutput::new(out, bytes.len(), WriteMode::from_env(WriteMode::Mapped))?;
    // SAFETY: the only write.
    unsafe { o.write_at(0, bytes)? };
    o.finish()
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
    fn text_written_in_many_blocks_reads_back() {
        // Blocks smaller than a formatting piece and not dividing the data: every block
        // is appended after the last through its own sized output.
        let data: Vec<i64> = (0..100_003i64).map(|i| (i * 7919 % 200_001) - 100_000).collect();
        let path = tmp("blocks.txt");
        let mut f = AtomicFile::create(&path).unwrap();
        f.write_all(b"").unwrap();
        write_text(&mut f, &data, 9_999).unwrap();
        f.commit_with(false).unwrap();
        let want: String = data.iter().map(|x| format!("{x}\n")).collect();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), want);
        assert_eq!(read_file::<i64>(&path, Format::Text).unwrap(), data);
        std::fs::remove_file(&path).unwrap();
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
    fn integer_text_matches_str_parse_and_display() {
        fn check<T: TextElement + std::str::FromStr + std::fmt::Display + PartialEq + std::fmt::Debug>(s: &str) {
            assert_eq!(T::parse_bytes(s.as_bytes()), s.trim().parse::<T>().ok(), "{s:?} as {}", T::NAME);
            if let Ok(x) = s.trim().parse::<T>() {
                let mut out = String::new();
                x.write_text(&mut out);
                assert_eq!(out, x.to_string());
            }
        }
        let mut cases: Vec<String> = [
            "0",
            "-0",
            "+0",
            "+7",
            "-7",
            "9",
            "10",
            "-10",
            "99",
            "-99",
            "100",
            "101",
            "-1000",
            "  42 ",
            "\t-1\r",
            "",
            "-",
            "+",
            "--1",
            "1-",
            "1 2",
            "0x10",
            "١",
            "4294967295",
            "4294967296",
            "-2147483648",
            "-2147483649",
            "2147483647",
            "2147483648",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "-9223372036854775809",
            "9223372036854775807",
            "00000000000000000000000000012",
            "1e3",
            "1.0",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..2000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            cases.push(((x as i64) >> (x % 64)).to_string());
            cases.push((x >> (x % 64)).to_string());
        }
        for c in &cases {
            check::<u32>(c);
            check::<i32>(c);
            check::<u64>(c);
            check::<i64>(c);
        }
    }

    #[test]
    fn parse_text_reports_the_first_bad_line_across_blocks() {
        let mut text: String = (0..300_000).map(|i| format!("{i}\n")).collect();
        assert_eq!(parse_text::<u32>(text.as_bytes()).unwrap().len(), 300_000);
        text.push_str("\n  \nnope\n5\n");
        let (line, bad) = parse_text::<u32>(text.as_bytes()).unwrap_err();
        assert_eq!((line, bad), (300_003, &b"nope"[..]));
        assert_eq!(parse_text::<i64>(b"").unwrap(), Vec::<i64>::new());
        assert_eq!(parse_text::<i64>(b"3\n-1").unwrap(), [3, -1]);
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
    fn format_follows_the_file_name_and_text_gets_a_hint() {
        assert_eq!(Format::from_name(Path::new("a/keys.TXT")), Format::Text);
        assert_eq!(Format::from_name(Path::new("k.csv")), Format::Text);
        assert_eq!(Format::from_name(Path::new("k.bin")), Format::Binary);
        assert_eq!(Format::from_name(Path::new("k")), Format::Binary);
        assert_eq!(Format::choose(true, Some(Format::Binary), Path::new("k.bin")), Format::Text);
        assert_eq!(Format::choose(false, Some(Format::Binary), Path::new("k.txt")), Format::Binary);
        assert_eq!(Format::choose(false, None, Path::new("k.tsv")), Format::Text);
        let p = tmp("looks-text.dat");
        std::fs::write(&p, "12\n-7\n30\n").unwrap(); // 9 bytes
        let e = read_binary::<u32>(&p).unwrap_err().to_string();
        assert!(e.ends_with("it looks like text: add --text"), "{e}");
        std::fs::write(&p, [1u8, 2, 3, 200, 7]).unwrap();
        let e = read_binary::<u32>(&p).unwrap_err().to_string();
        assert!(!e.contains("--text"), "{e}");
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
