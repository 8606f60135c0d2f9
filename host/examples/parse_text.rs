//! Times the text parser of `host sort --text` on a file already in memory: the
//! median and minimum of several parses of the same bytes, in MB/s and elements/s.
//!
//! `cargo run -p host --release --example parse_text -- f32 keys.txt [repeats]`
use host::testing::file_format::parse_text;
use host::{KeyType, with_key_type};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [ty, path, rest @ ..] = args.as_slice() else {
        return Err("usage: parse_text TYPE FILE [REPEATS]".into());
    };
    let key_type: KeyType = clap::ValueEnum::from_str(ty, true)?;
    if key_type.is_wide() {
        return Err(format!("{ty} keys have no text format").into());
    }
    let repeats: usize = rest.first().map_or(Ok(9), |r| r.parse())?;
    let bytes = std::fs::read(path)?;
    let mut times = Vec::new();
    let mut elements = 0;
    for _ in 0..repeats.max(1) {
        let t = std::time::Instant::now();
        elements = with_key_type!(key_type, T => parse_text::<T>(&bytes).map(|v| v.len()), wide => unreachable!("refused above"))
            .map_err(|(line, _)| format!("line {line} does not parse as {ty}"))?;
        times.push(t.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    let (median, min) = (times[times.len() / 2], times[0]);
    println!(
        "{path}: {elements} {ty} from {:.1} MB: median {:.1} ms, min {:.1} ms ({:.0} MB/s, {:.1} M elements/s at the median)",
        bytes.len() as f64 / 1e6,
        median * 1e3,
        min * 1e3,
        bytes.len() as f64 / 1e6 / median,
        elements as f64 / 1e6 / median
    );
    Ok(())
}
