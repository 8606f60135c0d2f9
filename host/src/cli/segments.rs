//! `host bench-segments`: the segmented sort of many random-length segments, timed on
//! the GPU.
use crate::inputs::{Random, generate, segment_offsets};
use crate::measure::{Stats, gkeys_per_s, time_rounds};
use crate::variants::segmented;
use crate::{Distribution, Error, Key, KeyType, Order, Sorter, cpu, with_key};
use clap::Args;

use crate::cli::args::{check_host_memory, parse_index_count, parse_repeat, parse_segments, records_refused};

/// Time the segmented sort on the GPU: `n` keys in `segments` segments whose lengths
/// are uniform in 0..=2n/segments (the last one takes the rest), median of the
/// repeats, CUDA events around the sort of keys and offsets already on the device
/// (`sort_segments_device`, as CUB's `DeviceSegmentedSort` is timed: binning on the
/// device and every launch; the offsets are uploaded once, untimed), the input
/// restored before each repeat (untimed).
///
/// Example: host bench-segments --type u32 --n 2^24 --segments 2^16 --check
#[derive(Args, Debug, Clone)]
pub struct SegmentsArgs {
    /// Key types (comma-separated; primitive types only).
    #[arg(long = "type", value_enum, value_delimiter = ',', default_value = "u32")]
    key_types: Vec<KeyType>,
    /// Keys in all (like 1000, 2^24, 1<<20 or 16M = 2^24; at most 2^32 - 1, the values of
    /// `--pairs` are u32 indices).
    #[arg(long, value_parser = parse_index_count, default_value = "2^24")]
    n: usize,
    /// Number of segments (comma-separated list to sweep the mean length; each from 1
    /// to `--n`).
    #[arg(long, value_delimiter = ',', value_parser = parse_segments, default_value = "2^16")]
    segments: Vec<usize>,
    /// Input distribution of the keys.
    #[arg(long, value_enum, default_value_t = Distribution::Uniform)]
    dist: Distribution,
    /// Sort direction.
    #[arg(long, value_enum, default_value_t = Order::Ascending)]
    order: Order,
    /// Seed of the keys and the segment lengths.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Timed repeats after one warm-up (1 to 1000000).
    #[arg(long, default_value_t = 10, value_parser = parse_repeat)]
    repeat: usize,
    /// Check the last output against the CPU's segmented sort.
    #[arg(long)]
    check: bool,
    /// Sort pairs: a u32 value (the key's index) with each key, stably.
    #[arg(long)]
    pairs: bool,
}

pub fn bench_segments(args: &SegmentsArgs) -> crate::Result<bool> {
    if let Some(&s) = args.segments.iter().find(|&&s| s > args.n.max(1)) {
        return Err(Error::BadArgument(format!("{s} segments of {} keys: at most one segment per key", args.n)));
    }
    // Keys, values and their sorted copies.
    check_host_memory(&args.key_types, &[args.n], 4)?;
    let sorter = Sorter::new_tuned(super::tuning().clone())?;
    let gpu = sorter.gpu().expect("Sorter::new has a GPU");
    println!("device: {}", gpu.info());
    println!(
        "{:<6} {:>10} {:>9} {:>22} {:>10} {:>10} {:>9}  check",
        "type", "n", "segments", "tile/warp/block/radix", "median ms", "min ms", "Gkeys/s"
    );
    println!("(timed: sort_segments_device, keys and u32 offsets already on the device)");
    if args.pairs {
        println!("(pairs: a u32 value per key)");
    }
    let mut ok = true;
    for &kt in &args.key_types {
        for &segments in &args.segments {
            let offsets = segment_offsets(args.n, segments, args.seed);
            let bins = segmented::bin_counts(&offsets, kt.size(), if args.pairs { 4 } else { 0 });
            match with_key!(kt, K => one::<K>(&sorter, &offsets, args), else Err(records_refused("segments", kt))) {
                Ok((stats, check)) => {
                    ok &= check != "FAILED";
                    println!(
                        "{:<6} {:>10} {:>9} {:>22} {:>10.3} {:>10.3} {:>9.2}  {check}",
                        kt.name(),
                        args.n,
                        segments,
                        format!("{}/{}/{}/{}", bins[0], bins[1], bins[2], bins[3]),
                        stats.median_ms,
                        stats.min_ms,
                        gkeys_per_s(args.n, stats.median_ms)
                    );
                }
                Err(e) => {
                    ok = false;
                    println!("{:<6} {:>10} {:>9}  error: {e}", kt.name(), args.n, segments);
                }
            }
        }
    }
    Ok(ok)
}

fn one<K: Key + Random>(
    sorter: &Sorter,
    offsets: &[usize],
    args: &SegmentsArgs,
) -> crate::Result<(Stats, &'static str)> {
    let gpu = sorter.gpu().expect("GPU sorter");
    let keys: Vec<K> = generate(args.n, args.dist, args.seed);
    let vals: Vec<u32> = (0..args.n as u32).collect();
    let (k0, v0) = (gpu.upload(&keys)?, gpu.upload(&vals)?);
    // `--n` is at most 2^32 - 1, so the offsets fit u32.
    let dev_offsets = gpu.upload(&offsets.iter().map(|&o| o as u32).collect::<Vec<_>>())?;
    let (mut k, mut v) = (gpu.alloc::<K>(args.n)?, gpu.alloc::<u32>(args.n)?);
    let stats = time_rounds(args.repeat, || {
        k.copy_from_device(gpu, &k0)?;
        v.copy_from_device(gpu, &v0)?;
        gpu.time_ms(|| {
            if args.pairs {
                segmented::sort_segments_device_pairs(gpu, &mut k, &mut v, &dev_offsets, args.order)
            } else {
                segmented::sort_segments_device(gpu, &mut k, &dev_offsets, args.order)
            }
        })
    })?;
    let check = if args.check {
        let got = k.to_vec(gpu)?;
        let same_keys = |want: &[K]| got.iter().zip(want).all(|(a, b)| a.bits() == b.bits());
        let ok = if args.pairs {
            let (mut want, mut want_v) = (keys, vals);
            cpu::sort_segments_pairs(&mut want, &mut want_v, offsets, args.order);
            same_keys(&want) && v.to_vec(gpu)? == want_v
        } else {
            let mut want = keys;
            cpu::sort_segments(&mut want, offsets, args.order);
            same_keys(&want)
        };
        if ok { "ok" } else { "FAILED" }
    } else {
        "skipped"
    };
    Ok((stats, check))
}
