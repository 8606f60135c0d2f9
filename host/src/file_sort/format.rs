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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Format {
    /// Raw little-endian elements back to back (an [`Entity`] is its 20-byte
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

/// Elements that have a one-line text form.
///
/// Integers are plain decimal. Floats are written in the shortest decimal that parses
/// back to the same value, positional or scientific, whichever is shorter (`0.1`,
/// `100`, `1e3`, `1.5e-7`), and `inf`, `-inf`, `NaN`, `-NaN` for the special values.
/// Parsing accepts what `str::parse` does: an optional sign, digits with an optional
/// point and exponent, and `inf`, `infinity` and `nan` in any case.
///
/// A NaN keeps its sign through text but not its payload: every NaN reads back as the
/// parser's quiet NaN of its sign (`f32::NAN` or its negation). So text written by
/// [`write_elements`] reads back bit for bit except for NaN payloads, and two reads of
/// text that names the same values give the same bits (which is what
/// `host check-file` compares between a text input and its sorted text output).
pub trait TextElement: Element {
    /// Parses one line's bytes (surrounding ASCII whitespace allowed). Floats that the
    /// type cannot hold as written (out of range, or too close to zero) still parse,
    /// and are counted in `losses`.
    fn parse_bytes(line: &[u8], losses: &mut TextLosses) -> Option<Self>;
    /// Appends the element's text, without a line end.
    fn write_text(&self, out: &mut String);
    /// [`TextElement::parse_bytes`] of one string, not counting losses.
    fn parse_text(s: &str) -> Option<Self> {
        Self::parse_bytes(s.as_bytes(), &mut TextLosses::default())
    }
}

/// Parsed floats whose value is not the one their text names because the type's range
/// ends: `1e400` overflows to `inf` (as f32 or f64); `1e-50` as f32 underflows to 0;
/// `1e-40` as f32 is a subnormal number, with fewer significant bits than the text
/// gives. Counted rather than refused, so that every text a float parser accepts sorts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TextLosses {
    /// Finite text that parsed to an infinity.
    pub overflowed: u64,
    /// Text of a non-zero value that parsed to zero.
    pub to_zero: u64,
    /// Text that parsed to a subnormal number.
    pub to_subnormal: u64,
}

impl TextLosses {
    pub fn is_empty(&self) -> bool {
        *self == TextLosses::default()
    }

    fn add(&mut self, o: &TextLosses) {
        self.overflowed += o.overflowed;
        self.to_zero += o.to_zero;
        self.to_subnormal += o.to_subnormal;
    }

    /// Counts `v`, just parsed from `text`, if the type could not hold the value.
    #[inline]
    fn note<F: TextFloat>(&mut self, v: F, text: &str) {
        match v.classify() {
            std::num::FpCategory::Normal | std::num::FpCategory::Nan => {}
            // `inf` and `infinity` have no digits; any other text of an infinity is a
            // finite number out of range.
            std::num::FpCategory::Infinite => self.overflowed += text.bytes().any(|b| b.is_ascii_digit()) as u64,
            std::num::FpCategory::Zero => {
                let mut mantissa = text.bytes().take_while(|&b| b != b'e' && b != b'E');
                self.to_zero += mantissa.any(|b| (b'1'..=b'9').contains(&b)) as u64;
            }
            std::num::FpCategory::Subnormal => self.to_subnormal += 1,
        }
    }
}

/// `3 values overflowed to ±inf, 2 underflowed to 0, 1 to a subnormal`.
impl std::fmt::Display for TextLosses {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts = [
            (self.overflowed, "overflowed to ±inf"),
            (self.to_zero, "underflowed to 0"),
            (self.to_subnormal, if self.to_zero > 0 { "to a subnormal" } else { "underflowed to a subnormal" }),
        ];
        let mut first = true;
        for (count, what) in parts.into_iter().filter(|p| p.0 > 0) {
            if first {
                write!(f, "{count} value{} {what}", if count == 1 { "" } else { "s" })?;
                first = false;
            } else {
                write!(f, ", {count} {what}")?;
            }
        }
        Ok(())
    }
}

/// The process-wide tally of [`TextLosses`] that [`parse_text`] adds to.
static LOSSES: [std::sync::atomic::AtomicU64; 3] = [const { std::sync::atomic::AtomicU64::new(0) }; 3];

/// The [`TextLosses`] of every [`parse_text`] in this process (and so of every
/// [`read_text`] and text [`read_file`]) since the last call, which resets them. The
/// command-line program reports them once per command.
pub fn take_text_losses() -> TextLosses {
    use std::sync::atomic::Ordering::Relaxed;
    let [o, z, s] = &LOSSES;
    TextLosses { overflowed: o.swap(0, Relaxed), to_zero: z.swap(0, Relaxed), to_subnormal: s.swap(0, Relaxed) }
}

fn publish_losses(l: &TextLosses) {
    use std::sync::atomic::Ordering::Relaxed;
    if !l.is_empty() {
        let [o, z, s] = &LOSSES;
        o.fetch_add(l.overflowed, Relaxed);
        z.fetch_add(l.to_zero, Relaxed);
        s.fetch_add(l.to_subnormal, Relaxed);
    }
}

/// `f32` and `f64`, for the float text functions.
trait TextFloat: ryu::Float + std::str::FromStr + Copy {
    fn classify(self) -> std::num::FpCategory;
    fn is_sign_negative(self) -> bool;
}

macro_rules! text_floats {
    ($($t:ty),*) => {$(
        impl TextFloat for $t {
            fn classify(self) -> std::num::FpCategory {
                <$t>::classify(self)
            }
            fn is_sign_negative(self) -> bool {
                <$t>::is_sign_negative(self)
            }
        }

        impl TextElement for $t {
            #[inline]
            fn parse_bytes(line: &[u8], losses: &mut TextLosses) -> Option<Self> {
                parse_float(std::str::from_utf8(line.trim_ascii()).ok()?, losses)
            }
            fn write_text(&self, out: &mut String) {
                write_float(*self, out)
            }
        }
    )*};
}
text_floats!(f32, f64);

#[inline]
fn parse_float<F: TextFloat>(s: &str, losses: &mut TextLosses) -> Option<F> {
    let v: F = s.parse().ok()?;
    losses.note(v, s);
    Some(v)
}

/// Appends the shortest text of `x` that parses back to it (see [`TextElement`]).
fn write_float<F: TextFloat>(x: F, out: &mut String) {
    match x.classify() {
        std::num::FpCategory::Nan => out.push_str(if x.is_sign_negative() { "-NaN" } else { "NaN" }),
        std::num::FpCategory::Infinite => out.push_str(if x.is_sign_negative() { "-inf" } else { "inf" }),
        _ => push_shortest(ryu::Buffer::new().format_finite(x), out),
    }
}

/// Rewrites ryu's text of a finite float (the shortest digits that parse back to it,
/// laid out as `1234.0`, `0.001234`, `1.5e-7` or `1e30`) in the shorter of positional
/// and scientific notation, positional on a tie, without ryu's `.0` after integers:
/// `1234`, `0.001234`, `1.5e-7`, `1e30`, `-0`.
fn push_shortest(ryu: &str, out: &mut String) {
    let (negative, s) = match ryu.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, ryu),
    };
    let (mantissa, mut pow) = match s.split_once('e') {
        Some((m, e)) => (m, e.parse::<i32>().unwrap_or(0)),
        None => (s, 0),
    };
    // The value is `digits` (as an integer) times 10^pow.
    let mut buf = [0u8; 32];
    let mut n = 0;
    let mut after_point = false;
    for b in mantissa.bytes() {
        if b == b'.' {
            after_point = true;
        } else if n < buf.len() {
            buf[n] = b;
            n += 1;
            pow -= after_point as i32;
        }
    }
    let digits = &buf[..n];
    let lead = digits.iter().take_while(|&&d| d == b'0').count();
    let trail = digits[lead..].iter().rev().take_while(|&&d| d == b'0').count();
    let digits = &digits[lead..n - trail];
    pow += trail as i32;
    if negative {
        out.push('-');
    }
    let push = |out: &mut String, d: &[u8]| d.iter().for_each(|&b| out.push(b as char));
    let len = digits.len() as i32;
    if len == 0 {
        out.push('0');
        return;
    }
    let exp = pow + len - 1;
    let exp_width = exp.unsigned_abs().checked_ilog10().unwrap_or(0) as i32 + 1 + (exp < 0) as i32;
    let scientific = len + (len > 1) as i32 + 1 + exp_width;
    let positional = if pow >= 0 {
        len + pow
    } else if -pow < len {
        len + 1
    } else {
        2 - pow
    };
    if scientific < positional {
        push(out, &digits[..1]);
        if len > 1 {
            out.push('.');
            push(out, &digits[1..]);
        }
        use std::fmt::Write as _;
        let _ = write!(out, "e{exp}");
    } else if pow >= 0 {
        push(out, digits);
        (0..pow).for_each(|_| out.push('0'));
    } else if -pow < len {
        let point = (len + pow) as usize;
        push(out, &digits[..point]);
        out.push('.');
        push(out, &digits[point..]);
    } else {
        out.push_str("0.");
        (0..-pow - len).for_each(|_| out.push('0'));
        push(out, digits);
    }
}

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
            fn parse_bytes(line: &[u8], _: &mut TextLosses) -> Option<Self> {
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
    fn parse_bytes(line: &[u8], losses: &mut TextLosses) -> Option<Self> {
        let mut it = std::str::from_utf8(line).ok()?.split_ascii_whitespace();
        let mut f32_field = |losses: &mut TextLosses| parse_float::<f32>(it.next()?, losses);
        let distance_from_player = f32_field(losses)?;
        let id = it.next()?.parse().ok()?;
        let mut f32_field = |losses: &mut TextLosses| parse_float::<f32>(it.next()?, losses);
        let position = [f32_field(losses)?, f32_field(losses)?, f32_field(losses)?];
        it.next().is_none().then_some(Entity { distance_from_player, id, position })
    }

    fn write_text(&self, out: &mut String) {
        use std::fmt::Write as _;
        let [x, y, z] = self.position;
        write_float(self.distance_from_player, out);
        let _ = write!(out, " {} ", self.id);
        write_float(x, out);
        out.push(' ');
        write_float(y, out);
        out.push(' ');
        write_float(z, out);
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

/// The 1-based number and the bytes of the first line of a text that does not parse.
pub type BadLine<'a> = (usize, &'a [u8]);

/// Parses one element per line (blank lines skipped), in parallel: the text is cut
/// into blocks at line ends, each block parsed straight into its own vector, and the
/// vectors concatenated. On failure, the 1-based number and bytes of the first bad
/// line. Floats the type cannot hold as written are added to the tally that
/// [`take_text_losses`] reads.
pub fn parse_text<T: TextElement>(bytes: &[u8]) -> std::result::Result<Vec<T>, BadLine<'_>> {
    let (out, losses) = parse_text_with_losses(bytes)?;
    publish_losses(&losses);
    Ok(out)
}

/// [`parse_text`], returning the losses of this text instead of adding them to the
/// process-wide tally.
pub fn parse_text_with_losses<T: TextElement>(bytes: &[u8]) -> std::result::Result<(Vec<T>, TextLosses), BadLine<'_>> {
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
    // Per block: the elements and their losses, or the index of the first bad line in
    // the block.
    let blocks: Vec<std::result::Result<(Vec<T>, TextLosses), usize>> = cuts
        .par_windows(2)
        .map(|w| {
            let block = &bytes[w[0]..w[1]];
            let mut out = Vec::with_capacity(block.len() / 8);
            let mut losses = TextLosses::default();
            for (i, line) in block.split(|&b| b == b'\n').enumerate() {
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                match T::parse_bytes(line, &mut losses) {
                    Some(x) => out.push(x),
                    None => return Err(i),
                }
            }
            Ok((out, losses))
        })
        .collect();
    let mut total = 0;
    let mut losses = TextLosses::default();
    for (b, r) in blocks.iter().enumerate() {
        match r {
            Ok((v, l)) => {
                total += v.len();
                losses.add(l);
            }
            Err(i) => {
                let start = cuts[b];
                let line = bytes[..start].iter().filter(|&&c| c == b'\n').count() + i + 1;
                let text = bytes[start..].split(|&c| c == b'\n').nth(*i).unwrap_or(&[]);
                return Err((line, text));
            }
        }
    }
    let mut out: Vec<T> = Vec::with_capacity(total);
    for (v, _) in blocks.into_iter().flatten() {
        out.extend_from_slice(&v);
    }
    Ok((out, losses))
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
        write_text(&mut f, &data, 9_999, &crate::Tuning::default()).unwrap();
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

    fn text_of<T: TextElement>(x: T) -> String {
        let mut s = String::new();
        x.write_text(&mut s);
        s
    }

    /// Both of std's shortest round-trip forms (`{}` positional, `{:e}` scientific),
    /// the shorter one, positional on a tie: what the float text must be.
    fn std_shortest(positional: String, scientific: String) -> String {
        if scientific.len() < positional.len() { scientific } else { positional }
    }

    #[test]
    fn floats_are_written_in_the_shorter_notation() {
        let cases: [(f64, &str); 19] = [
            (1e300, "1e300"),
            (0.1, "0.1"),
            (100.0, "100"),
            (1000.0, "1e3"),
            (1234.0, "1234"),
            (1.5e-7, "1.5e-7"),
            (0.001, "1e-3"),
            (0.01, "0.01"),
            (-0.0, "-0"),
            (0.0, "0"),
            (-2.5, "-2.5"),
            (123456789.0, "123456789"),
            (0.1 + 0.2, "0.30000000000000004"),
            (f64::MIN_POSITIVE, "2.2250738585072014e-308"),
            (5e-324, "5e-324"),
            (f64::MAX, "1.7976931348623157e308"),
            (2.25e10, "2.25e10"),
            (f64::NEG_INFINITY, "-inf"),
            (f64::INFINITY, "inf"),
        ];
        for (x, want) in cases {
            assert_eq!(text_of(x), want, "{x:?}");
        }
        assert_eq!(text_of(f32::MAX), "3.4028235e38");
        assert_eq!(text_of(f32::from_bits(1)), "1e-45");
        assert_eq!(text_of(0.1f32), "0.1");
        assert_eq!(text_of(16_777_216f32), "16777216");
        assert_eq!(text_of(f64::NAN), "NaN");
        assert_eq!(text_of(-f64::NAN), "-NaN");
        assert_eq!(text_of(-f32::NAN), "-NaN");
        let e = Entity { distance_from_player: 1e-7, id: 4_000_000_000, position: [-f32::NAN, f32::INFINITY, -0.0] };
        assert_eq!(text_of(e), "1e-7 4000000000 -NaN inf -0");
    }

    /// Length and notation of a float's text: std and ryu agree on both, not always on
    /// the last digit where two shortest digit strings are equally near (3065919.25 as
    /// f32 is `3065919.2` by ryu and `3065919.3` by std).
    fn shape(t: &str) -> (usize, bool) {
        (t.len(), t.contains('e'))
    }

    /// Random bit patterns (every exponent, NaNs with payloads, subnormals): the text
    /// is as short as std's shortest form and reads back to the same bits; a NaN to
    /// the parser's NaN of the same sign.
    #[test]
    fn float_text_reads_back_to_the_same_bits() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..200_000 {
            let bits = next();
            let v = f64::from_bits(bits);
            let t = text_of(v);
            let back = f64::parse_text(&t).unwrap_or_else(|| panic!("{t} does not parse"));
            if v.is_nan() {
                assert_eq!(
                    back.to_bits(),
                    if v.is_sign_negative() { (-f64::NAN).to_bits() } else { f64::NAN.to_bits() }
                );
            } else {
                assert_eq!(back.to_bits(), bits, "{t}");
                assert_eq!(shape(&t), shape(&std_shortest(format!("{v}"), format!("{v:e}"))), "{bits:#x}");
            }
            let v = f32::from_bits(bits as u32);
            let t = text_of(v);
            let back = f32::parse_text(&t).unwrap_or_else(|| panic!("{t} does not parse"));
            if v.is_nan() {
                assert_eq!(
                    back.to_bits(),
                    if v.is_sign_negative() { (-f32::NAN).to_bits() } else { f32::NAN.to_bits() }
                );
            } else {
                assert_eq!(back.to_bits(), bits as u32, "{t}");
                assert_eq!(shape(&t), shape(&std_shortest(format!("{v}"), format!("{v:e}"))), "{:#x}", bits as u32);
            }
        }
    }

    #[test]
    fn special_float_text_keeps_the_nan_sign() {
        let pos = |s: &str| (f64::parse_text(s).map(f64::to_bits), f32::parse_text(s).map(f32::to_bits));
        for s in ["NaN", "+NaN", "nan", "NAN", " nan\r"] {
            assert_eq!(pos(s), (Some(f64::NAN.to_bits()), Some(f32::NAN.to_bits())), "{s:?}");
        }
        for s in ["-NaN", "-nan", "-NAN"] {
            assert_eq!(pos(s), (Some((-f64::NAN).to_bits()), Some((-f32::NAN).to_bits())), "{s:?}");
        }
        for s in ["inf", "+inf", "Infinity", "INF", "infinity"] {
            assert_eq!(pos(s), (Some(f64::INFINITY.to_bits()), Some(f32::INFINITY.to_bits())), "{s:?}");
        }
        for s in ["-inf", "-Infinity"] {
            assert_eq!(pos(s), (Some(f64::NEG_INFINITY.to_bits()), Some(f32::NEG_INFINITY.to_bits())), "{s:?}");
        }
        for s in ["nan(1)", "infinit", "+-1", "1e", "e5", "0x10", "1_0", "--nan", ""] {
            assert_eq!(pos(s), (None, None), "{s:?}");
        }
        // A NaN payload does not survive text; its sign does.
        for bits in [0x7fc0_0001u32, 0x7f80_0001, 0xffc0_1234, 0xff80_0001] {
            let back = f32::parse_text(&text_of(f32::from_bits(bits))).unwrap();
            assert!(back.is_nan() && back.is_sign_negative() == (bits >> 31 == 1), "{bits:#x}");
            assert_eq!(back.to_bits(), if bits >> 31 == 1 { (-f32::NAN).to_bits() } else { f32::NAN.to_bits() });
        }
    }

    #[test]
    fn floats_out_of_range_are_counted() {
        let text = b"1e400\n-1e400\n1e-50\n-1e-50\n1e-40\ninf\n-Infinity\n0\n-0.000e-999\n1.5\nnan\n";
        let (v, l) = parse_text_with_losses::<f32>(text).unwrap();
        assert_eq!(v.len(), 11);
        assert_eq!(l, TextLosses { overflowed: 2, to_zero: 2, to_subnormal: 1 });
        assert_eq!(l.to_string(), "2 values overflowed to ±inf, 2 underflowed to 0, 1 to a subnormal");
        let (_, l) = parse_text_with_losses::<f64>(text).unwrap();
        assert_eq!(l, TextLosses { overflowed: 2, to_zero: 0, to_subnormal: 0 });
        assert!(l.to_string() == "2 values overflowed to ±inf" && !l.is_empty());
        let (_, l) = parse_text_with_losses::<f64>(b"1e-400\n1e-310\n").unwrap();
        assert_eq!(l.to_string(), "1 value underflowed to 0, 1 to a subnormal");
        let (_, l) = parse_text_with_losses::<f64>(b"1e-310\n").unwrap();
        assert_eq!(l.to_string(), "1 value underflowed to a subnormal");
        let e = b"1e39 7 1e-50 0 1\n";
        let (_, l) = parse_text_with_losses::<Entity>(e).unwrap();
        assert_eq!(l, TextLosses { overflowed: 1, to_zero: 1, to_subnormal: 0 });
        let (_, l) = parse_text_with_losses::<u32>(b"1\n2\n").unwrap();
        assert!(l.is_empty());
    }

    /// `host check-file` compares the fingerprints of a text input and its sorted text
    /// output: every spelling of a value, NaNs of either sign included, must read as
    /// the same bits on both sides, and the sorted output must stay ordered.
    #[test]
    fn sorted_text_has_the_fingerprint_of_its_input() {
        use crate::verify::Fingerprint;
        let input = "nan\n-NaN\n+nan\n-nan\nNAN\n1e400\n-1e400\n-0\n0\n1e-50\n-1e-50\n1e-310\n2.5\n\
                     -infinity\nInf\n1E3\n.5\n5.\n";
        for desc in [false, true] {
            let data: Vec<f64> = parse_text(input.as_bytes()).unwrap();
            let mut sorted = data.clone();
            sorted.sort_by(|a, b| if desc { b.total_cmp(a) } else { a.total_cmp(b) });
            let mut text = String::new();
            for x in &sorted {
                x.write_text(&mut text);
                text.push('\n');
            }
            let back: Vec<f64> = parse_text(text.as_bytes()).unwrap();
            assert_eq!(Fingerprint::of(&back), Fingerprint::of(&data), "{text}");
            let out_of_order = if desc { std::cmp::Ordering::Less } else { std::cmp::Ordering::Greater };
            assert!(back.windows(2).all(|w| w[0].total_cmp(&w[1]) != out_of_order), "{text}");
            let f32s: Vec<f32> = parse_text(input.as_bytes()).unwrap();
            let mut text = String::new();
            for x in &f32s {
                x.write_text(&mut text);
                text.push('\n');
            }
            assert_eq!(Fingerprint::of(&parse_text::<f32>(text.as_bytes()).unwrap()), Fingerprint::of(&f32s));
        }
        // Payload NaNs written as text are the canonical NaN of their sign thereafter.
        let payloads = [f64::from_bits(0x7ff8_0000_0000_0001), f64::from_bits(0xfff0_0000_0000_0001), 1.0];
        let mut text = String::new();
        for x in payloads {
            x.write_text(&mut text);
            text.push('\n');
        }
        assert_eq!(text, "NaN\n-NaN\n1\n");
        let once: Vec<f64> = parse_text(text.as_bytes()).unwrap();
        assert_eq!(
            once.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            [f64::NAN.to_bits(), (-f64::NAN).to_bits(), 1f64.to_bits()]
        );
    }

    #[test]
    fn integer_text_matches_str_parse_and_display() {
        fn check<T: TextElement + std::str::FromStr + std::fmt::Display + PartialEq + std::fmt::Debug>(s: &str) {
            assert_eq!(T::parse_text(s), s.trim().parse::<T>().ok(), "{s:?} as {}", T::NAME);
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
