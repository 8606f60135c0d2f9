//! Device data from and to cudarc without copies, on the caller's stream: a
//! `CudaSlice` sorted by `Sorter::sort_device` and handed back, keys and values through
//! `variants::radix::sort_pairs`, and a slice queued on another stream. Skips without
//! a device (see `common::gpu_sorter`).
mod common;

use host::testing::inputs::generate;
use host::testing::variants::radix;
use host::{DeviceBuffer, Distribution, Gpu, Order, SortOptions, Sorter};

#[test]
fn cudarc_slices_sort_in_place_on_the_callers_stream() {
    if common::gpu_sorter("cudarc_slices_sort_in_place_on_the_callers_stream").is_none() {
        return;
    }
    let ctx = cudarc::driver::CudaContext::new(0).unwrap();
    let stream = ctx.new_stream().unwrap();
    let sorter = Sorter::from_gpu(Gpu::with_stream(stream.clone()).unwrap());
    let gpu = sorter.gpu().unwrap();
    for n in [0usize, 1, 1000, 7681, 1 << 20] {
        let keys: Vec<f32> = generate(n, Distribution::Uniform, n as u64);
        let slice = stream.clone_htod(&keys).unwrap();
        let mut buf = DeviceBuffer::from_cuda_slice(gpu, slice).unwrap();
        sorter.sort_device(&mut buf, &SortOptions::default().order(Order::Descending)).unwrap();
        let back = buf.into_cuda_slice();
        let got = stream.clone_dtoh(&back).unwrap();
        let mut want = keys.clone();
        want.sort_by(|a, b| b.total_cmp(a));
        assert_eq!(got.len(), n);
        assert!(got.iter().zip(&want).all(|(a, b)| a.to_bits() == b.to_bits()), "n={n}");
    }
    // Pairs, and a slice whose upload was queued on another stream of the context.
    let other = ctx.new_stream().unwrap();
    let n = 300_007;
    let keys: Vec<u64> = generate(n, Distribution::FewUnique, 9);
    let vals: Vec<u32> = (0..n as u32).collect();
    let mut k = DeviceBuffer::from_cuda_slice(gpu, other.clone_htod(&keys).unwrap()).unwrap();
    let mut v = DeviceBuffer::from_cuda_slice(gpu, stream.clone_htod(&vals).unwrap()).unwrap();
    radix::sort_pairs(gpu, &mut k, &mut v, Order::Ascending, None).unwrap();
    let (gk, gv) = (k.to_vec(gpu).unwrap(), v.to_vec(gpu).unwrap());
    let mut want: Vec<(u64, u32)> = keys.iter().copied().zip(vals).collect();
    want.sort_by_key(|p| p.0); // stable
    assert_eq!(gk, want.iter().map(|p| p.0).collect::<Vec<_>>());
    assert_eq!(gv, want.iter().map(|p| p.1).collect::<Vec<_>>());
}
