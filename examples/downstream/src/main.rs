//! Sorts a million pseudo-random `u32` keys with `host` on whatever is there (the GPU
//! when there is one, the CPU otherwise), checks them against `slice::sort`, and says
//! where they were sorted.
use host::{SortOptions, Sorter};

fn main() -> Result<(), host::Error> {
    let mut keys = pseudo_random(1_000_000);
    let mut expected = keys.clone();
    expected.sort_unstable();
    let sorter = Sorter::with_fallback();
    let ran_on = sorter.sort(&mut keys, &SortOptions::default())?;
    if keys != expected {
        eprintln!("downstream: the keys sorted on {ran_on} differ from slice::sort's");
        std::process::exit(1);
    }
    println!("downstream: sorted {} u32 keys on {ran_on}: same as slice::sort", keys.len());
    Ok(())
}

/// SplitMix64 keys: reproducible without a random-number crate.
fn pseudo_random(n: usize) -> Vec<u32> {
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    (0..n)
        .map(|_| {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49eb_00d1_33eb);
            (z ^ (z >> 31)) as u32
        })
        .collect()
}
