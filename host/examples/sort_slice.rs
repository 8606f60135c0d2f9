//! Sort a slice of random keys on the GPU (or the CPU without one) and check it.
//!
//! `cargo run -p host --release --example sort_slice -- 16777216`
use host::testing::inputs::generate;
use host::testing::verify;
use host::{Distribution, Order, SortOptions, Sorter, Variant};

fn main() -> Result<(), host::Error> {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1 << 20);
    let input: Vec<f32> = generate(n, Distribution::Uniform, 7);
    let mut keys = input.clone();
    let opts = SortOptions::new(Variant::default()).order(Order::Ascending);
    let t = std::time::Instant::now();
    let backend = Sorter::with_fallback().sort(&mut keys, &opts)?;
    println!("sorted {n} f32 on {backend} in {:.1} ms (transfers included)", t.elapsed().as_secs_f64() * 1e3);
    match verify::check(&input, &keys, opts.order, false) {
        Ok(c) => println!("check: {c}"),
        Err(m) => println!("check FAILED: {m}"),
    }
    Ok(())
}
