//! The text form of elements: one per line, floats in the shortest form that reads
//! back to the same value ([`TextElement`]), the tally of values a parse could not
//! hold as written ([`TextLosses`]), and the parallel line parser ([`parse_text`]).
use rayon::prelude::*;

use crate::{Element, Entity};

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
/// [`write_elements`](super::write_elements) reads back bit for bit except for NaN payloads, and two reads of
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
    /// Whether nothing was lost.
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
/// [`read_text`](super::read_text) and text [`read_file`](super::read_file)) since the last call, which resets them. The
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

/// The half-precision floats: parsed as `f64` and rounded once more to the type (a
/// text exactly halfway between two `f16` values after an earlier rounding to `f64`
/// can round the other way, which needs more than 17 significant digits), written as
/// their `f32` value's shortest text, which parses back to the same bits (every `f16`
/// and `bf16` is exactly an `f32`). Losses are counted on the final value.
macro_rules! text_halves {
    ($($t:ty),*) => {$(
        impl TextElement for $t {
            #[inline]
            fn parse_bytes(line: &[u8], losses: &mut TextLosses) -> Option<Self> {
                let s = std::str::from_utf8(line.trim_ascii()).ok()?;
                let v = <$t>::from_f64(s.parse::<f64>().ok()?);
                // Classified as the f32 of the same value (and class, but subnormal
                // and zero: those follow the half type's own range).
                match v.classify() {
                    std::num::FpCategory::Subnormal => losses.to_subnormal += 1,
                    std::num::FpCategory::Zero => {
                        let mut mantissa = s.bytes().take_while(|&b| b != b'e' && b != b'E');
                        losses.to_zero += mantissa.any(|b| (b'1'..=b'9').contains(&b)) as u64;
                    }
                    std::num::FpCategory::Infinite => {
                        losses.overflowed += s.bytes().any(|b| b.is_ascii_digit()) as u64
                    }
                    _ => {}
                }
                Some(v)
            }
            fn write_text(&self, out: &mut String) {
                let x = self.to_f32();
                // `to_f32` keeps the sign and NaN-ness, so the text names the same class.
                write_float(x, out)
            }
        }
    )*};
}
text_halves!(half::f16, half::bf16);

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
text_integers!(u32, i32, u64, i64, u16, i16, u8, i8);

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
