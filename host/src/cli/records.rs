//! `host bench-records`: records of any size sorted by a key field on the GPU (key
//! extraction, (key, index) pair sort, gather), timed on device-resident data.
use crate::inputs::generate;
use crate::measure::{gkeys_per_s, time_rounds};
use crate::variants::records::{self, KeyField};
use crate::{Distribution, KeyType, Order, SortOptions, Sorter, with_key_type};
use clap::Args;

use crate::cli::args::{parse_index_count, parse_record_size, parse_repeat};

/// Time the GPU sort of records by a key field: median of the repeats, CUDA events
/// around the sort only (key extraction, pair sort and gather), the input restored
/// before each repeat (untimed). The last output is checked against the CPU backend.
///
/// Example: host bench-records --record-size 32 --key-type u32 --n 2^20,2^24
#[derive(Args, Debug, Clone)]
pub struct RecordsArgs {
    /// Bytes per record.
    #[arg(long, default_value_t = 32, value_parser = parse_record_size)]
    record_size: usize,
    /// Byte offset of the key in each record.
    #[arg(long, default_value_t = 0)]
    key_offset: usize,
    /// Type of the key field (primitive types only).
    #[arg(long, value_enum, default_value_t = KeyType::U32)]
    key_type: KeyType,
    /// Record counts (comma-separated; each like 1000, 2^24, 1<<20 or 16M = 2^24; at most
    /// 2^32 - 1, records are sorted through u32 indices).
    #[arg(long, value_delimiter = ',', value_parser = parse_index_count, default_value = "2^20,2^24")]
    n: Vec<usize>,
    /// Input distribution of the keys.
    #[arg(long, value_enum, default_value_t = Distribution::Uniform)]
    dist: Distribution,
    /// Sort direction.
    #[arg(long, value_enum, default_value_t = Order::Ascending)]
    order: Order,
    /// Timed repeats (1 to 1000000).
    #[arg(long, default_value_t = 10, value_parser = parse_repeat)]
    repeat: usize,
    /// Skip the CPU check of the last output.
    #[arg(long)]
    no_check: bool,
}

pub fn bench_records(args: &RecordsArgs) -> crate::Result<bool> {
    let field = KeyField::new(args.key_offset, args.key_type);
    field.check(args.record_size)?;
    // The records, and their sorted copy for the check.
    for &n in &args.n {
        let bytes = n.checked_mul(args.record_size).ok_or_else(|| {
            crate::Error::BadArgument(format!(
                "{n} records of {} bytes are more bytes than can be counted",
                args.record_size
            ))
        })?;
        crate::inputs::ensure_host_memory::<u8>(bytes, 2)?;
    }
    let sorter = Sorter::new_tuned(super::tuning().clone())?;
    let gpu = sorter.gpu().expect("Sorter::new has a GPU");
    println!("device: {} ({})", gpu.info(), gpu.kernels_summary());
    println!(
        "{:>8} {:>6} {:<5} {:>12} {:>10} {:>10} {:>11} {:>8}  check",
        "record B", "key at", "key", "n", "median ms", "min ms", "Grec/s", "GB/s"
    );
    let mut ok = true;
    for &n in &args.n {
        let input = random_records(n, args.record_size, field, args.dist);
        let src = gpu.upload(&input)?;
        let mut buf = gpu.alloc::<u8>(input.len())?;
        let stats = time_rounds(args.repeat, || {
            buf.copy_from_device(gpu, &src)?;
            gpu.time_ms(|| records::sort_bytes_by_field(gpu, &mut buf, args.record_size, field, args.order))
        })?;
        let check = if args.no_check {
            "skipped"
        } else {
            let got = buf.to_vec(gpu)?;
            let mut want = input.clone();
            Sorter::cpu().sort_records_by_field(
                &mut want,
                args.record_size,
                field,
                &SortOptions::default().order(args.order),
            )?;
            if got == want { "ok" } else { "FAILED" }
        };
        ok &= check != "FAILED";
        // Bytes the records move: read and written once by the gather.
        let gbs = 2.0 * input.len() as f64 / (stats.median_ms * 1e6);
        println!(
            "{:>8} {:>6} {:<5} {:>12} {:>10.3} {:>10.3} {:>11.2} {:>8.0}  {check}",
            args.record_size,
            args.key_offset,
            args.key_type.name(),
            n,
            stats.median_ms,
            stats.min_ms,
            gkeys_per_s(n, stats.median_ms),
            gbs
        );
    }
    Ok(ok)
}

/// `n` records of random bytes with keys from `dist` in the key field.
fn random_records(n: usize, record_size: usize, field: KeyField, dist: Distribution) -> Vec<u8> {
    let words: Vec<u64> = generate(n * record_size.div_ceil(8), Distribution::Uniform, 7);
    let mut bytes: Vec<u8> = bytemuck::cast_slice::<u64, u8>(&words)[..n * record_size].to_vec();
    let kb = field.key_type.size();
    let keys: Vec<u8> = with_key_type!(field.key_type, K => {
        let k: Vec<K> = generate(n, dist, 42);
        bytemuck::cast_slice(&k).to_vec()
    }, wide W => {
        let k: Vec<W> = crate::inputs::generate_wide(n, dist, 42);
        bytemuck::cast_slice(&k).to_vec()
    });
    for (r, k) in bytes.chunks_mut(record_size).zip(keys.chunks(kb)) {
        r[field.offset..field.offset + kb].copy_from_slice(k);
    }
    bytes
}
