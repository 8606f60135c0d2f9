//! Fuzz tests of the readers of untrusted files: the text parser (`parse_text`, every
//! element type), the binary reader (`BinaryReader`, `read_binary`) and the record
//! sort that `host sort --record-size` runs on a file's bytes. Each takes arbitrary
//! bytes, or text built from the fragments numbers are made of, and compares with an
//! oracle written with std alone: no panic, the same elements or the same first bad
//! line, and what is written reads back.
//!
//! `cargo test` runs one round of cases; `SORT_FUZZ_SECONDS=N` keeps each test going
//! for N seconds (the fuzz step of `.ci/run`). A failing case is saved under
//! `host/fuzz-regressions/` (commit it with its fix) and replayed first from then on.
mod common;

use host::KeyField;
use host::testing::file_format::{self as format, BinaryReader, TextElement};
use host::{Entity, Error, KeyType, Order, SortOptions, Sorter};
use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, TestCaseError, TestRunner};

/// Runs `test` on `cases` cases of `strategy`, in more rounds while `SORT_FUZZ_SECONDS`
/// last where that is set ([`host::testing::fuzz_rounds`]). Failures are saved to and
/// replayed from `regressions` (relative to `host/`, where cargo runs tests).
fn fuzz<S: Strategy>(
    name: &str,
    regressions: &'static str,
    cases: u32,
    strategy: S,
    test: impl Fn(S::Value) -> Result<(), TestCaseError>,
) {
    host::testing::fuzz_rounds(name, || {
        let config = Config {
            cases,
            failure_persistence: Some(Box::new(FileFailurePersistence::Direct(regressions))),
            ..Config::default()
        };
        if let Err(e) = TestRunner::new(config).run(&strategy, &test) {
            panic!("{name}: {e}");
        }
    });
}

/// Text lines made of what numbers (and near misses) are made of, with now and then
/// an arbitrary byte, blank lines and `\r\n` ends.
fn number_text() -> impl Strategy<Value = Vec<u8>> {
    let fragment = prop_oneof![
        4 => "[0-9]{1,12}".prop_map(String::into_bytes),
        1 => "9{20,45}".prop_map(String::into_bytes),
        2 => prop::sample::select(vec![
            "-", "+", ".", "e", "E", "e-", "e+", "e400", "e-400", "e39", "e-46", "e308", "e-324", "nan", "NaN", "-nan",
            "inf", "-inf", "Infinity", "infinit", "0x", "_", " ", "\t", "\r", "\x0b", "\x0c", "١", "é", "\u{a0}", "0",
            "00", "4294967295", "4294967296", "18446744073709551615", "-9223372036854775808", "2147483648",
            "3.4028235e38", "3.4028236e38", "1.17549435e-38", "1e-45", "5e-324", "2.2250738585072014e-308",
        ])
        .prop_map(|s: &str| s.as_bytes().to_vec()),
        1 => any::<u8>().prop_map(|b| vec![b]),
    ];
    let line = prop::collection::vec(fragment, 0..6).prop_map(|f| f.concat());
    let end = prop::sample::select(vec![&b"\n"[..], b"\n", b"\n", b"\r\n", b"\n\n"]);
    prop::collection::vec((line, end), 0..40)
        .prop_map(|lines| lines.into_iter().flat_map(|(l, e)| l.into_iter().chain(e.iter().copied())).collect())
}

/// Entity lines: five fields of number fragments, sometimes four or six.
fn entity_text() -> impl Strategy<Value = Vec<u8>> {
    let field = prop_oneof![
        3 => "-?[0-9]{1,9}(\\.[0-9]{1,6})?(e-?[0-9]{1,3})?",
        1 => prop::sample::select(vec!["nan", "-NaN", "inf", "-inf", "4294967296", "-1", "x", "1e39", "1e-50"])
            .prop_map(String::from),
    ];
    let line = prop::collection::vec(field, 4..7).prop_map(|f| f.join(" "));
    prop::collection::vec(line, 0..20).prop_map(|l| l.into_iter().map(|l| l + "\n").collect::<String>().into_bytes())
}

/// The oracle of one line: std's `str::parse` of the trimmed line (an entity: of its
/// five fields); and the element's float fields, each with whether it is subnormal in
/// its own type.
trait StdParse: TextElement {
    fn std_parse(line: &str) -> Option<Self>;
    fn floats(&self) -> Vec<(f64, bool)> {
        Vec::new()
    }
}

macro_rules! std_parse {
    ($($t:ty),*) => {$(
        impl StdParse for $t {
            fn std_parse(line: &str) -> Option<Self> {
                line.parse().ok()
            }
        }
    )*};
}
std_parse!(u32, i32, u64, i64);

impl StdParse for f32 {
    fn std_parse(line: &str) -> Option<Self> {
        line.parse().ok()
    }
    fn floats(&self) -> Vec<(f64, bool)> {
        vec![(f64::from(*self), self.is_subnormal())]
    }
}

impl StdParse for f64 {
    fn std_parse(line: &str) -> Option<Self> {
        line.parse().ok()
    }
    fn floats(&self) -> Vec<(f64, bool)> {
        vec![(*self, self.is_subnormal())]
    }
}

impl StdParse for Entity {
    fn std_parse(line: &str) -> Option<Self> {
        let f: Vec<&str> = line.split_ascii_whitespace().collect();
        let [d, id, x, y, z] = f[..] else { return None };
        let position = [x.parse().ok()?, y.parse().ok()?, z.parse().ok()?];
        Some(Entity { distance_from_player: d.parse().ok()?, id: id.parse().ok()?, position })
    }
    fn floats(&self) -> Vec<(f64, bool)> {
        let [x, y, z] = self.position;
        [self.distance_from_player, x, y, z].iter().flat_map(StdParse::floats).collect()
    }
}

/// `parse_text` against the line-by-line oracle; on success, the elements written as
/// text read back bit for bit (text-born NaNs are the parser's own), and the loss
/// counts agree with the values.
fn parses_like_std<T: StdParse>(bytes: &[u8]) -> Result<(), TestCaseError> {
    let mut want = Vec::new();
    let mut bad = None;
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let trimmed = line.trim_ascii();
        if trimmed.is_empty() {
            continue;
        }
        match std::str::from_utf8(trimmed).ok().and_then(T::std_parse) {
            Some(x) => want.push(x),
            None => {
                bad = Some((i + 1, line));
                break;
            }
        }
    }
    let got = format::parse_text_with_losses::<T>(bytes);
    match (got, bad) {
        (Err(e), Some(b)) => prop_assert_eq!(e, b, "{}: first bad line", T::NAME),
        (Err(e), None) => prop_assert!(false, "{}: refused line {} ({:?}) that std parses", T::NAME, e.0, e.1),
        (Ok(_), Some(b)) => prop_assert!(false, "{}: accepted line {} ({:?}) that std refuses", T::NAME, b.0, b.1),
        (Ok((got, losses)), None) => {
            let bits = |v: &[T]| v.iter().map(|x| bytemuck::bytes_of(x).to_vec()).collect::<Vec<_>>();
            prop_assert_eq!(bits(&got), bits(&want), "{}", T::NAME);
            let mut text = String::new();
            for x in &got {
                x.write_text(&mut text);
                text.push('\n');
            }
            let back = format::parse_text::<T>(text.as_bytes()).map_err(|e| {
                TestCaseError::fail(format!("{}: written line {} ({:?}) does not parse", T::NAME, e.0, e.1))
            })?;
            prop_assert_eq!(bits(&back), bits(&got), "{} written as {:?}", T::NAME, text);
            let floats: Vec<(f64, bool)> = got.iter().flat_map(StdParse::floats).collect();
            let infinite = floats.iter().filter(|x| x.0.is_infinite()).count() as u64;
            let zero = floats.iter().filter(|x| x.0 == 0.0).count() as u64;
            let subnormal = floats.iter().filter(|x| x.1).count() as u64;
            prop_assert!(losses.overflowed <= infinite && losses.to_zero <= zero, "{}: {:?}", T::NAME, losses);
            prop_assert_eq!(losses.to_subnormal, subnormal, "{}", T::NAME);
        }
    }
    Ok(())
}

fn every_type(bytes: &[u8]) -> Result<(), TestCaseError> {
    parses_like_std::<u32>(bytes)?;
    parses_like_std::<i32>(bytes)?;
    parses_like_std::<u64>(bytes)?;
    parses_like_std::<i64>(bytes)?;
    parses_like_std::<f32>(bytes)?;
    parses_like_std::<f64>(bytes)?;
    parses_like_std::<Entity>(bytes)
}

#[test]
fn fuzz_text_parser() {
    fuzz("fuzz_text_parser", "fuzz-regressions/text_parser.txt", 256, number_text(), |b| every_type(&b));
}

#[test]
fn fuzz_text_parser_bytes() {
    let bytes = prop::collection::vec(any::<u8>(), 0..300);
    fuzz("fuzz_text_parser_bytes", "fuzz-regressions/text_parser_bytes.txt", 256, bytes, |b| every_type(&b));
}

#[test]
fn fuzz_text_parser_entities() {
    fuzz("fuzz_text_parser_entities", "fuzz-regressions/text_parser_entities.txt", 256, entity_text(), |b| {
        parses_like_std::<Entity>(&b)
    });
}

/// Text past the parser's 1 MiB blocks: a bad line anywhere is reported with its
/// number, whichever block it falls in.
#[test]
fn fuzz_text_parser_across_blocks() {
    let strategy = (50_000usize..400_000, prop::option::of(0usize..400_000), 0usize..3);
    fuzz("fuzz_text_parser_across_blocks", "fuzz-regressions/text_blocks.txt", 8, strategy, |(n, bad, blank)| {
        let mut text: Vec<u8> = Vec::new();
        for i in 0..n {
            if i % 7 == 0 {
                text.extend(std::iter::repeat_n(b'\n', blank));
            }
            if Some(i) == bad {
                text.extend_from_slice(b"12x\n");
            } else {
                text.extend_from_slice(format!("{}\n", i * 7919).as_bytes());
            }
        }
        parses_like_std::<u64>(&text)
    });
}

/// Arbitrary files through the binary reader, in pieces of any size.
#[test]
fn fuzz_binary_reader() {
    fn one<T: host::Element>(bytes: &[u8], piece: usize) -> Result<(), TestCaseError> {
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), bytes).unwrap();
        let size = size_of::<T>();
        let reader = BinaryReader::<T>::open(file.path(), piece);
        if !bytes.len().is_multiple_of(size) {
            prop_assert!(matches!(reader, Err(Error::BadInput(_))), "{} of {} bytes", T::NAME, bytes.len());
            prop_assert!(matches!(format::read_binary::<T>(file.path()), Err(Error::BadInput(_))));
            return Ok(());
        }
        let mut reader = reader.map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(reader.remaining(), bytes.len() / size);
        let mut read = Vec::new();
        while let Some(p) = reader.next_piece().map_err(|e| TestCaseError::fail(e.to_string()))? {
            prop_assert!(!p.is_empty() && p.len() <= piece.max(1), "piece of {} for {piece}", p.len());
            read.extend_from_slice(bytemuck::cast_slice::<T, u8>(&p));
        }
        prop_assert_eq!(&read[..], bytes);
        let whole = format::read_binary::<T>(file.path()).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(bytemuck::cast_slice::<T, u8>(&whole), bytes);
        Ok(())
    }
    // Few cases per round: every piece is a parallel read, slow on a busy machine.
    let piece = prop_oneof![0usize..4, 4usize..64, Just(usize::MAX)];
    let strategy = (prop::collection::vec(any::<u8>(), 0..300), piece);
    fuzz("fuzz_binary_reader", "fuzz-regressions/binary_reader.txt", 32, strategy, |(bytes, piece)| {
        one::<u32>(&bytes, piece)?;
        one::<u64>(&bytes, piece)?;
        one::<Entity>(&bytes, piece)
    });
}

/// Arbitrary bytes sorted as records of any size by a key field anywhere (the file
/// contents of `host sort --record-size`): refused with an error when the field or
/// the length does not fit (or the key is a 16- or 8-bit one: key fields are 32- or
/// 64-bit), else the stable sort by the typed key (`common::reference_records`,
/// std's comparisons).
#[test]
fn fuzz_record_sort() {
    let record_size = prop_oneof![8 => 1usize..48, 1 => Just(0usize), 1 => Just(usize::MAX)];
    let offset = prop_oneof![8 => 0usize..48, 1 => Just(usize::MAX - 3)];
    let key_type = prop::sample::select(KeyType::ALL.to_vec());
    let order = prop::sample::select(vec![Order::Ascending, Order::Descending]);
    // Mostly whole records (a random length is rarely a multiple of the size), few
    // distinct key bytes (ties, for stability), sometimes a byte more or less.
    let records = (record_size, 0usize..40, prop_oneof![6 => Just(0isize), 1 => Just(1), 1 => Just(-1)]);
    let bytes_and_size = records.prop_flat_map(|(size, count, extra)| {
        let len = size.saturating_mul(count).min(2000).saturating_add_signed(extra);
        let byte = prop_oneof![3 => 0u8..3, 1 => any::<u8>()];
        (prop::collection::vec(byte, len..=len), Just(size))
    });
    let strategy = (bytes_and_size, offset, key_type, order);
    fuzz(
        "fuzz_record_sort",
        "fuzz-regressions/record_sort.txt",
        256,
        strategy,
        |((bytes, size), offset, kt, order)| {
            let mut sorted = bytes.clone();
            let field = KeyField::new(offset, kt);
            let r = Sorter::cpu().sort_records_by_field(&mut sorted, size, field, &SortOptions::default().order(order));
            if kt.is_narrow() {
                // Key fields are 32- or 64-bit keys: a 16- or 8-bit field is refused
                // before anything else is looked at.
                prop_assert!(matches!(r, Err(Error::Unsupported { .. })), "{kt} at {offset} in {size}: {r:?}");
                prop_assert_eq!(sorted, bytes, "left alone on error");
                return Ok(());
            }
            let fits = kt != KeyType::Entity
                && size > 0
                && offset.checked_add(kt.size()).is_some_and(|end| end <= size)
                && bytes.len().is_multiple_of(size);
            if !fits {
                prop_assert!(matches!(r, Err(Error::BadArgument(_))), "{kt} at {offset} in {size}: {r:?}");
                prop_assert_eq!(sorted, bytes, "left alone on error");
                return Ok(());
            }
            prop_assert!(r.is_ok(), "{kt} at {offset} in {size}: {r:?}");
            prop_assert_eq!(sorted, common::reference_records(&bytes, size, offset, kt, order));
            Ok(())
        },
    );
}
