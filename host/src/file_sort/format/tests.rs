use super::*;
use crate::Entity;

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
            assert_eq!(back.to_bits(), if v.is_sign_negative() { (-f64::NAN).to_bits() } else { f64::NAN.to_bits() });
        } else {
            assert_eq!(back.to_bits(), bits, "{t}");
            assert_eq!(shape(&t), shape(&std_shortest(format!("{v}"), format!("{v:e}"))), "{bits:#x}");
        }
        let v = f32::from_bits(bits as u32);
        let t = text_of(v);
        let back = f32::parse_text(&t).unwrap_or_else(|| panic!("{t} does not parse"));
        if v.is_nan() {
            assert_eq!(back.to_bits(), if v.is_sign_negative() { (-f32::NAN).to_bits() } else { f32::NAN.to_bits() });
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

/// Every `f16` and `bf16` that is not a NaN reads back from its text to the same bits;
/// a NaN keeps its sign; out-of-range text is counted against the half type's range;
/// the narrow integers refuse text out of their range.
#[test]
fn half_float_and_narrow_integer_text() {
    for bits in 0..=u16::MAX {
        let (h, b) = (half::f16::from_bits(bits), half::bf16::from_bits(bits));
        let back = half::f16::parse_text(&text_of(h)).unwrap();
        if h.is_nan() {
            assert!(back.is_nan() && back.is_sign_negative() == h.is_sign_negative(), "f16 {bits:#x}");
        } else {
            assert_eq!(back.to_bits(), bits, "f16 {bits:#x}: {}", text_of(h));
        }
        let back = half::bf16::parse_text(&text_of(b)).unwrap();
        if b.is_nan() {
            assert!(back.is_nan() && back.is_sign_negative() == b.is_sign_negative(), "bf16 {bits:#x}");
        } else {
            assert_eq!(back.to_bits(), bits, "bf16 {bits:#x}: {}", text_of(b));
        }
    }
    let (v, l) = parse_text_with_losses::<half::f16>(b"1e6\n-70000\n1e-9\n1e-6\n1.5\ninf\n").unwrap();
    assert_eq!(v.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), [0x7c00, 0xfc00, 0, 0x0011, 0x3e00, 0x7c00]);
    assert_eq!(l, TextLosses { overflowed: 2, to_zero: 1, to_subnormal: 1 });
    let (_, l) = parse_text_with_losses::<half::bf16>(b"1e6\n1e-9\n1e39\n").unwrap();
    assert_eq!(l, TextLosses { overflowed: 1, to_zero: 0, to_subnormal: 0 });
    assert_eq!(i8::parse_text("-128"), Some(i8::MIN));
    assert_eq!(i8::parse_text("128"), None);
    assert_eq!(u16::parse_text("65535"), Some(u16::MAX));
    assert_eq!(u16::parse_text("65536"), None);
    assert_eq!(u8::parse_text("-1"), None);
}
