//! Library behaviour that needs no GPU: CPU fallback, errors instead of panics.
mod common;

use host::{Backend, Error, Order, SortOptions, Sorter, Variant};

#[test]
fn cpu_backend_sorts_and_says_so() {
    let sorter = Sorter::cpu();
    let mut v = vec![3u32, 1, 2];
    let ran = sorter.sort(&mut v, &SortOptions::new(Variant::Naive).order(Order::Descending)).unwrap();
    assert_eq!(v, [3, 2, 1]);
    assert!(matches!(ran, Backend::Cpu(_)));
}

#[test]
fn fallback_always_sorts() {
    let sorter = Sorter::with_fallback();
    let mut v: Vec<f32> = vec![2.0, -0.0, 0.0, f32::NAN, -f32::NAN, f32::NEG_INFINITY];
    sorter.sort(&mut v, &SortOptions::default()).unwrap();
    let bits: Vec<u32> = v.iter().map(|x| x.to_bits()).collect();
    let mut expect = [2.0f32, -0.0, 0.0, f32::NAN, -f32::NAN, f32::NEG_INFINITY];
    expect.sort_by(f32::total_cmp);
    assert_eq!(bits, expect.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
}

#[test]
fn device_calls_without_device_are_errors() {
    let sorter = Sorter::cpu();
    assert!(matches!(sorter.upload(&[1u32]), Err(Error::NoDevice(_))));
}

#[test]
fn bad_block_size_is_an_error_not_a_panic() {
    let Some(sorter) = common::gpu_sorter("bad_block_size") else {
        return;
    };
    let mut v = vec![1u32, 0];
    for bad in [0, 33, 2048] {
        let r = sorter.sort(&mut v, &SortOptions::new(Variant::Naive).block_size(bad));
        assert!(matches!(r, Err(Error::BadArgument(_))), "block size {bad}: {r:?}");
    }
}

#[test]
fn too_large_allocation_is_out_of_memory() {
    let Some(sorter) = common::gpu_sorter("out_of_memory") else {
        return;
    };
    let gpu = sorter.gpu().unwrap();
    let (_, total) = gpu.mem_info().unwrap();
    let r = gpu.alloc::<u64>((total / 8 + 1) as usize);
    assert!(matches!(r, Err(Error::OutOfMemory { .. })), "{r:?}");
}
