//! Value parsers of the numeric arguments: every number is range-checked while the
//! command line is parsed, on any machine, with a message that names the range, so no
//! value reaches the library in a form that overflows, allocates without bound or is
//! refused only later on a GPU.
use crate::KeyType;

/// The error of a command that sorts primitive keys ([`crate::Key`]: pairs, argsort,
/// top-k, segments, several GPUs) asked for a record type; `what` names the command.
pub fn records_refused(what: &str, kt: KeyType) -> crate::Error {
    if kt.is_wide() {
        return kt.wide_refused(what);
    }
    crate::Error::BadArgument(format!(
        "{what}: primitive keys only (the 32-, 64-, 16- and 8-bit types), not {kt} records"
    ))
}

/// Accepts `16777216`, `1<<24`, `2^24`, `16M`, `1G` (binary multiples) or `10_000_019`.
pub fn parse_count(s: &str) -> Result<usize, String> {
    let t = s.trim().replace('_', "");
    let bad = || format!("`{s}` is not a count (examples: 1000, 2^24, 1<<20, 16M)");
    if let Some((a, b)) = t.split_once("<<") {
        let (a, b): (usize, u32) = (a.trim().parse().map_err(|_| bad())?, b.trim().parse().map_err(|_| bad())?);
        // a * 2^b: zero for a = 0 whatever b, else b below a's leading zeros.
        return if a == 0 {
            Ok(0)
        } else {
            (b < usize::BITS && b <= a.leading_zeros()).then(|| a << b).ok_or_else(bad)
        };
    }
    if let Some((a, b)) = t.split_once('^') {
        let (a, b): (usize, u32) = (a.trim().parse().map_err(|_| bad())?, b.trim().parse().map_err(|_| bad())?);
        return a.checked_pow(b).ok_or_else(bad);
    }
    let (digits, mult) = match t.chars().last() {
        Some('K' | 'k') => (&t[..t.len() - 1], 1usize << 10),
        Some('M' | 'm') => (&t[..t.len() - 1], 1 << 20),
        Some('G' | 'g') => (&t[..t.len() - 1], 1 << 30),
        _ => (&t[..], 1),
    };
    digits.parse::<usize>().ok().and_then(|d| d.checked_mul(mult)).ok_or_else(bad)
}

/// The program's command line as clap derives it, with the value lists shortened:
/// where clap would describe each possible value on a line of its own (variants,
/// element types, input distributions, in every subcommand's help), the help names
/// the values on one line and points to `host list`, which describes them once.
pub fn short_value_lists(cmd: clap::Command) -> clap::Command {
    cmd.mut_args(|arg| {
        let values = arg.get_possible_values();
        if !values.iter().any(|v| v.get_help().is_some()) {
            return arg;
        }
        let names: Vec<&str> = values.iter().filter(|v| !v.is_hide_set()).map(|v| v.get_name()).collect();
        let list = format!("[possible values: {}; `host list` describes them]", names.join(", "));
        let with_list = |help: Option<&clap::builder::StyledStr>| match help {
            Some(h) => format!("{h}\n{list}"),
            None => list.clone(),
        };
        let arg = match arg.get_long_help().map(|h| with_list(Some(h))) {
            Some(long) => arg.long_help(long),
            None => arg,
        };
        let help = with_list(arg.get_help());
        arg.hide_possible_values(true).help(help)
    })
    .mut_subcommands(short_value_lists)
}

/// [`parse_count`] within `range`, or a message naming the range.
fn count_in(s: &str, range: std::ops::RangeInclusive<usize>, what: &str) -> Result<usize, String> {
    let n = parse_count(s)?;
    if range.contains(&n) {
        Ok(n)
    } else if *range.end() == usize::MAX {
        Err(format!("{what} must be at least {}", range.start()))
    } else {
        Err(format!("{what} must be from {} to {}", range.start(), range.end()))
    }
}

/// Most timed repeats or warm-up runs of one measurement: far more than any median
/// needs, and few enough that their times fit in memory and their count in a `usize`
/// with the warm-up added.
pub const MAX_REPEAT: usize = 1_000_000;

/// Timed repeats: 1 to [`MAX_REPEAT`].
pub fn parse_repeat(s: &str) -> Result<usize, String> {
    count_in(s, 1..=MAX_REPEAT, "the number of repeats")
}

/// Untimed warm-up runs: 0 to [`MAX_REPEAT`].
pub fn parse_warmup(s: &str) -> Result<usize, String> {
    count_in(s, 0..=MAX_REPEAT, "the number of warm-up runs")
}

/// Threads per block, checked as every backend checks it ([`crate::options::check_block_size`]):
/// a power of two from 32 to 1024, like `256` or `2^9`.
pub fn parse_block_size(s: &str) -> Result<u32, String> {
    let b = parse_count(s)?;
    let b = u32::try_from(b).map_err(|_| format!("block size {b} must be a power of two between 32 and 1024"))?;
    crate::options::check_block_size(b).map_err(|e| match e {
        crate::Error::BadArgument(m) => m,
        other => other.to_string(),
    })?;
    Ok(b)
}

/// The smallest device memory budget of `host sort`: a third of it is the largest
/// chunk, and chunks much smaller than this only add merge work (a million chunks took
/// 11 s to merge where one took 0.02 s).
pub const MIN_DEVICE_BYTES: usize = 1 << 20;

/// A device memory budget in bytes, like `512M` or `2G`: at least [`MIN_DEVICE_BYTES`].
pub fn parse_device_bytes(s: &str) -> Result<usize, String> {
    count_in(s, MIN_DEVICE_BYTES..=usize::MAX, "the device memory budget (bytes)")
}

/// Element counts of commands that number the elements with `u32` indices (pairs with
/// index values, argsort, top-k, records): at most 2^32 - 1.
pub fn parse_index_count(s: &str) -> Result<usize, String> {
    count_in(s, 0..=u32::MAX as usize, "the number of elements (indexed by u32)")
}

/// A record size in bytes: at least 1.
pub fn parse_record_size(s: &str) -> Result<usize, String> {
    count_in(s, 1..=usize::MAX, "the record size")
}

/// A number of segments: at least 1 (at most one per key is checked with the keys).
pub fn parse_segments(s: &str) -> Result<usize, String> {
    count_in(s, 1..=usize::MAX, "the number of segments")
}

/// Most threads of a CPU study: rayon's limit on a thread pool.
pub fn parse_threads(s: &str) -> Result<usize, String> {
    count_in(s, 1..=rayon::max_num_threads(), "the number of threads")
}

/// Input copies a benchmark rotates through: 0 (automatic) to
/// [`crate::measure::MAX_ROTATION`].
pub fn parse_buffers(s: &str) -> Result<usize, String> {
    count_in(s, 0..=crate::measure::MAX_ROTATION, "the number of input copies")
}

/// A positive, finite number of milliseconds.
pub fn parse_millis(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(ms) if ms.is_finite() && ms > 0.0 => Ok(ms),
        _ => Err(format!("`{s}` is not a positive number of milliseconds")),
    }
}

/// Refuses element counts this machine cannot hold: `copies` arrays of each of `ns`
/// elements of each of `types`, before anything is generated (a count like `1<<62`
/// would otherwise fail inside the allocator).
pub fn check_host_memory(types: &[KeyType], ns: &[usize], copies: usize) -> crate::Result<()> {
    for &kt in types {
        if let Some(&n) = ns.iter().max() {
            crate::inputs::ensure_host_bytes(n, kt.size(), copies)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn counts() {
        assert_eq!(parse_count("1000"), Ok(1000));
        assert_eq!(parse_count("10_000_019"), Ok(10_000_019));
        assert_eq!(parse_count("2^24"), Ok(1 << 24));
        assert_eq!(parse_count("1<<20"), Ok(1 << 20));
        assert_eq!(parse_count("16M"), Ok(16 << 20));
        assert_eq!(parse_count(" 3k "), Ok(3 << 10));
        assert_eq!(parse_count("1<<63"), Ok(1 << 63));
        assert_eq!(parse_count("0<<100"), Ok(0));
        assert_eq!(parse_count("0^0"), Ok(1));
        for bad in ["-5", "abc", "1<<70", "1<<64", "2^64", "3^41", "17179869184G", "", "M", "<<", "^", "1.5", "1e3"] {
            assert!(parse_count(bad).is_err(), "{bad:?}");
        }
    }

    /// What `parse_count` must return: the same grammar (atoms parsed by std),
    /// computed in u128 and then fitted to usize.
    fn count_oracle(s: &str) -> Option<usize> {
        let t = s.trim().replace('_', "");
        let atom = |a: &str| a.trim().parse::<usize>().ok().map(|v| v as u128);
        let value: u128 = if let Some((a, b)) = t.split_once("<<") {
            let (a, b) = (atom(a)?, b.trim().parse::<u32>().ok()?);
            if a == 0 { 0 } else { a.checked_mul(1u128.checked_shl(b)?)? }
        } else if let Some((a, b)) = t.split_once('^') {
            atom(a)?.checked_pow(b.trim().parse::<u32>().ok()?)?
        } else {
            let shift = match t.chars().last() {
                Some('K' | 'k') => 10,
                Some('M' | 'm') => 20,
                Some('G' | 'g') => 30,
                _ => 0,
            };
            let digits = if shift == 0 { &t[..] } else { &t[..t.len() - 1] };
            digits.parse::<usize>().ok().map(|v| v as u128)? << shift
        };
        usize::try_from(value).ok()
    }

    /// Strings made of what counts are made of, and any character now and then.
    fn count_text() -> impl Strategy<Value = String> {
        let fragment = prop_oneof![
            4 => "[0-9]{1,22}",
            3 => prop::sample::select(vec![
                "<<", "^", "K", "k", "M", "m", "G", "g", "_", " ", "+", "-", "0", "1", "2", "63", "64", "65", "4294967295",
                "18446744073709551615", "18446744073709551616", "\t", "١",
            ])
            .prop_map(String::from),
            1 => any::<char>().prop_map(String::from),
        ];
        prop::collection::vec(fragment, 0..6).prop_map(|f| f.concat())
    }

    /// `parse_count` and every range-checked parser built on it, on arbitrary text: no
    /// panic, the oracle's value, and each range honoured.
    #[test]
    fn fuzz_count_parser() {
        use proptest::test_runner::{Config, FileFailurePersistence, TestRunner};
        let check = |s: String| -> Result<(), TestCaseError> {
            let n = parse_count(&s).ok();
            prop_assert_eq!(n, count_oracle(&s), "{:?}", s);
            let within = |lo: usize, hi: usize| n.is_some_and(|n| (lo..=hi).contains(&n));
            prop_assert_eq!(parse_repeat(&s).is_ok(), within(1, MAX_REPEAT));
            prop_assert_eq!(parse_warmup(&s).is_ok(), within(0, MAX_REPEAT));
            prop_assert_eq!(parse_device_bytes(&s).is_ok(), within(MIN_DEVICE_BYTES, usize::MAX));
            prop_assert_eq!(parse_index_count(&s).is_ok(), within(0, u32::MAX as usize));
            prop_assert_eq!(parse_record_size(&s).is_ok(), within(1, usize::MAX));
            prop_assert_eq!(parse_buffers(&s).is_ok(), within(0, crate::measure::MAX_ROTATION));
            let block = n.is_some_and(|n| n.is_power_of_two() && (32..=1024).contains(&n));
            prop_assert_eq!(parse_block_size(&s).is_ok(), block, "{:?}", s);
            let _ = parse_millis(&s);
            Ok(())
        };
        crate::testing::fuzz_rounds("fuzz_count_parser", || {
            let config = Config {
                cases: 2048,
                failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
                    "fuzz-regressions/count_parser.txt",
                ))),
                ..Config::default()
            };
            if let Err(e) = TestRunner::new(config).run(&count_text(), check) {
                panic!("fuzz_count_parser: {e}");
            }
        });
    }

    #[test]
    fn ranges_are_checked_with_the_range_in_the_message() {
        assert_eq!(parse_repeat("1"), Ok(1));
        assert_eq!(parse_repeat("1M"), Err("the number of repeats must be from 1 to 1000000".into()));
        assert!(parse_repeat("0").unwrap_err().contains("from 1 to 1000000"));
        assert!(parse_repeat("18446744073709551615").is_err());
        assert_eq!(parse_warmup("0"), Ok(0));
        assert_eq!(parse_block_size("2^9"), Ok(512));
        for bad in ["100", "16", "0", "2048", "4294967296", "1<<40"] {
            let e = parse_block_size(bad).unwrap_err();
            assert!(e.contains("power of two between 32 and 1024"), "{bad}: {e}");
        }
        assert_eq!(parse_device_bytes("1M"), Ok(1 << 20));
        assert!(parse_device_bytes("12").unwrap_err().contains("at least 1048576"));
        assert_eq!(
            parse_index_count("2^32"),
            Err("the number of elements (indexed by u32) must be from 0 to 4294967295".into())
        );
        assert_eq!(parse_index_count("4294967295"), Ok(u32::MAX as usize));
        assert_eq!(parse_record_size("0"), Err("the record size must be at least 1".into()));
        assert!(parse_segments("0").is_err() && parse_segments("1") == Ok(1));
        assert!(parse_threads("0").is_err() && parse_threads("1<<62").is_err() && parse_threads("8") == Ok(8));
        assert!(parse_buffers("257").is_err() && parse_buffers("256") == Ok(256));
        assert_eq!(parse_millis("2.5"), Ok(2.5));
        for bad in ["0", "-1", "NaN", "inf", "x"] {
            assert!(parse_millis(bad).is_err(), "{bad}");
        }
    }

    /// Every subcommand's help names the variants once, without their descriptions.
    #[test]
    fn value_lists_are_one_line_pointing_to_list() {
        #[derive(clap::Parser)]
        struct Cli {
            #[arg(long, value_enum, default_value_t = crate::Variant::default())]
            variant: crate::Variant,
            #[arg(long, value_enum, default_value_t = crate::Order::Ascending)]
            order: crate::Order,
        }
        let mut cmd = short_value_lists(<Cli as clap::CommandFactory>::command());
        let help = cmd.render_long_help().to_string();
        assert!(help.contains("[possible values: radix, mergepath, naive,"), "{help}");
        assert!(help.contains("`host list` describes them]"), "{help}");
        assert!(!help.contains("Onesweep"), "{help}");
        // Values without descriptions keep clap's own short list.
        assert!(help.contains("[possible values: asc, desc]"), "{help}");
    }

    #[test]
    fn impossible_sizes_are_refused_before_allocating() {
        let e = check_host_memory(&[KeyType::U32, KeyType::Entity], &[10, 1 << 62], 2).unwrap_err();
        assert!(matches!(e, crate::Error::BadArgument(_)), "{e}");
        check_host_memory(&[KeyType::F64], &[1000, 0], 3).unwrap();
    }
}
