//! Keep data on the device: upload once, sort there, time it with CUDA events, read it
//! back. Needs a GPU; says so and exits cleanly without one.
//!
//! `cargo run -p host --release --example device_data`
use host::testing::inputs::generate;
use host::testing::measure::gkeys_per_s;
use host::{Distribution, SortOptions, Sorter};

fn main() -> Result<(), host::Error> {
    let sorter = Sorter::with_fallback();
    let Some(gpu) = sorter.gpu() else {
        println!("this example needs a GPU; {}", sorter.backend());
        return Ok(());
    };
    let n = 1 << 24;
    let keys: Vec<u64> = generate(n, Distribution::Uniform, 3);
    let mut buf = sorter.upload(&keys)?;
    let opts = SortOptions::default();
    // The first sort loads and JIT-compiles kernels: keep it out of the timing.
    let mut warm = sorter.upload(&keys[..1024])?;
    sorter.sort_device(&mut warm, &opts)?;
    let ms = gpu.time_ms(|| sorter.sort_device(&mut buf, &opts))?;
    let sorted = buf.to_vec(gpu)?;
    assert!(sorted.windows(2).all(|w| w[0] <= w[1]));
    println!("{} on {}: {ms:.3} ms, {:.2} Gkeys/s", opts.variant, gpu.info(), gkeys_per_s(n, ms));
    Ok(())
}
