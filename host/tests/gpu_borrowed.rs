//! Device memory another library owns, lent to the library (`Gpu::borrow_device_memory`,
//! as the Python bindings lend a tensor's): sorted in place at the caller's address,
//! also by a sort that swaps in storage of its own (records), read by argsort and
//! top-k, never freed, on success
//! or on error; bad addresses and lengths are refused. Skips without a device (see
//! `common::gpu_sorter`).
mod common;

use cudarc::driver::result;
use host::testing::inputs::generate;
use host::{Distribution, Entity, Error, Gpu, Order, SortOptions, Variant};

/// Memory from `cuMemAlloc`, as a caller (PyTorch's allocator) would own it, holding
/// `data`. The test frees it itself: a double free there would fail.
fn caller_memory<T: bytemuck::Pod>(gpu: &Gpu, data: &[T]) -> u64 {
    gpu.stream().context().bind_to_thread().unwrap();
    let bytes = size_of_val(data).max(1);
    let ptr = unsafe { result::malloc_sync(bytes) }.unwrap();
    unsafe { result::memcpy_htod_sync(ptr, data) }.unwrap();
    ptr
}

fn read_back<T: bytemuck::Pod>(gpu: &Gpu, ptr: u64, len: usize) -> Vec<T> {
    gpu.synchronize("test").unwrap();
    let mut out = vec![T::zeroed(); len];
    unsafe { result::memcpy_dtoh_sync(&mut out, ptr) }.unwrap();
    out
}

/// Frees the caller's memory: fails if the library freed it already.
fn free_caller_memory(gpu: &Gpu, ptr: u64) {
    gpu.synchronize("test").unwrap();
    unsafe { result::free_sync(ptr) }.expect("the caller's memory was freed by the library");
}

#[test]
fn borrowed_memory_sorts_in_place_and_stays_the_callers() {
    let Some(sorter) = common::gpu_sorter("borrowed_memory_sorts_in_place_and_stays_the_callers") else {
        return;
    };
    let gpu = sorter.gpu().unwrap();
    for n in [1usize, 1000, 300_007] {
        let keys: Vec<f32> = generate(n, Distribution::Uniform, n as u64);
        let ptr = caller_memory(gpu, &keys);
        {
            let mut view = unsafe { gpu.borrow_device_memory::<f32>(ptr, n) }.unwrap();
            view.sort(sorter, &SortOptions::default().order(Order::Descending)).unwrap();
        }
        let mut want = keys.clone();
        want.sort_by(|a, b| b.total_cmp(a));
        let got: Vec<f32> = read_back(gpu, ptr, n);
        assert!(got.iter().zip(&want).all(|(a, b)| a.to_bits() == b.to_bits()), "n={n}");
        free_caller_memory(gpu, ptr);
    }

    // Argsort and top-k read the lent keys and leave them as they were.
    let n = 200_003;
    let keys: Vec<i64> = generate(n, Distribution::FewUnique, 7);
    let ptr = caller_memory(gpu, &keys);
    {
        let view = unsafe { gpu.borrow_device_memory::<i64>(ptr, n) }.unwrap();
        let perm = view.argsort(sorter, Order::Descending).unwrap().to_vec(gpu).unwrap();
        let mut want: Vec<u32> = (0..n as u32).collect();
        want.sort_by(|&a, &b| keys[b as usize].cmp(&keys[a as usize])); // stable
        assert_eq!(perm, want);
        let (top, at) = view.top_k(sorter, 100, Order::Ascending).unwrap();
        let mut up: Vec<u32> = (0..n as u32).collect();
        up.sort_by_key(|&i| keys[i as usize]);
        assert_eq!(at.to_vec(gpu).unwrap(), up[..100]);
        assert_eq!(top.to_vec(gpu).unwrap(), up[..100].iter().map(|&i| keys[i as usize]).collect::<Vec<_>>());
    }
    assert_eq!(read_back::<i64>(gpu, ptr, n), keys);
    free_caller_memory(gpu, ptr);

    // Records sort by a gather into new memory that replaces the buffer's storage: the
    // result must come back to the caller's address.
    let n = 5_001;
    let dist: Vec<f32> = generate(n, Distribution::FewUnique, 3);
    let ents: Vec<Entity> = dist
        .iter()
        .enumerate()
        .map(|(i, &d)| Entity { distance_from_player: d, id: i as u32, position: [0.0; 3] })
        .collect();
    let ptr = caller_memory(gpu, &ents);
    {
        let mut view = unsafe { gpu.borrow_device_memory::<Entity>(ptr, n) }.unwrap();
        view.sort(sorter, &SortOptions::new(Variant::Radix)).unwrap();
    }
    let mut want = ents.clone();
    want.sort_by(|a, b| a.distance_from_player.total_cmp(&b.distance_from_player)); // stable
    let got: Vec<Entity> = read_back(gpu, ptr, n);
    assert_eq!(got.iter().map(|e| e.id).collect::<Vec<_>>(), want.iter().map(|e| e.id).collect::<Vec<_>>());
    free_caller_memory(gpu, ptr);

    // A sort that fails leaves the memory to its owner, unchanged.
    let keys: Vec<u32> = generate(4096, Distribution::Uniform, 5);
    let ptr = caller_memory(gpu, &keys);
    {
        let mut view = unsafe { gpu.borrow_device_memory::<u32>(ptr, keys.len()) }.unwrap();
        let refused = view.sort(sorter, &SortOptions::new(Variant::Naive).key_bits(0, 8));
        assert!(matches!(refused, Err(Error::Unsupported { .. })), "{refused:?}");
        // A copy between two lent buffers lands at the destination's address.
        let mut dst_keys = vec![0u32; keys.len()];
        dst_keys[0] = 1;
        let dst = caller_memory(gpu, &dst_keys);
        {
            let mut to = unsafe { gpu.borrow_device_memory::<u32>(dst, keys.len()) }.unwrap();
            to.copy_from(view.buffer()).unwrap();
        }
        assert_eq!(read_back::<u32>(gpu, dst, keys.len()), keys);
        free_caller_memory(gpu, dst);
    }
    assert_eq!(read_back::<u32>(gpu, ptr, keys.len()), keys);
    free_caller_memory(gpu, ptr);
}

#[test]
fn borrowing_refuses_what_is_not_device_memory_of_the_gpu() {
    let Some(sorter) = common::gpu_sorter("borrowing_refuses_what_is_not_device_memory_of_the_gpu") else {
        return;
    };
    let gpu = sorter.gpu().unwrap();
    let host_keys = vec![3u32; 64];
    let on_host = unsafe { gpu.borrow_device_memory::<u32>(host_keys.as_ptr() as u64, 64) };
    assert!(matches!(on_host, Err(Error::BadArgument(_))), "{on_host:?}");
    let ptr = caller_memory(gpu, &host_keys);
    let past_end = unsafe { gpu.borrow_device_memory::<u32>(ptr, 65) };
    assert!(matches!(past_end, Err(Error::BadArgument(_))), "{past_end:?}");
    let misaligned = unsafe { gpu.borrow_device_memory::<u32>(ptr + 2, 8) };
    assert!(matches!(misaligned, Err(Error::BadArgument(_))), "{misaligned:?}");
    let inside = unsafe { gpu.borrow_device_memory::<u32>(ptr + 4, 63) };
    assert!(inside.is_ok(), "{inside:?}");
    drop(inside);
    // No elements: nothing is read, whatever the address.
    assert!(unsafe { gpu.borrow_device_memory::<u64>(1, 0) }.is_ok());
    free_caller_memory(gpu, ptr);
}

/// The operations whose outputs the caller allocates write into lent memory: argsort as
/// u64 indices, the pair sort of lent keys and values in place, searchsorted, and the
/// widening of u32 results; overlapping and mismatched outputs are refused.
#[test]
fn results_are_written_into_lent_outputs() {
    let Some(sorter) = common::gpu_sorter("results_are_written_into_lent_outputs") else {
        return;
    };
    let gpu = sorter.gpu().unwrap();
    for n in [1usize, 4097, 300_007] {
        let keys: Vec<f32> = generate(n, Distribution::FewUnique, n as u64);
        let mut up: Vec<u32> = (0..n as u32).collect();
        up.sort_by(|&a, &b| keys[a as usize].total_cmp(&keys[b as usize])); // stable
        let kp = caller_memory(gpu, &keys);
        let ip = caller_memory(gpu, &vec![u64::MAX; n]);
        {
            let view = unsafe { gpu.borrow_device_memory::<f32>(kp, n) }.unwrap();
            let mut idx = unsafe { gpu.borrow_device_memory::<u64>(ip, n) }.unwrap();
            view.argsort_into(sorter, Order::Ascending, &mut idx).unwrap();
        }
        assert_eq!(read_back::<u64>(gpu, ip, n), up.iter().map(|&i| i as u64).collect::<Vec<_>>(), "n={n}");
        assert_eq!(read_back::<f32>(gpu, kp, n), keys);

        // Pairs: the lent keys and values sorted in place, values with their keys.
        let values: Vec<u64> = (0..n as u64).map(|i| i * 3 + 1).collect();
        let vp = caller_memory(gpu, &values);
        {
            let mut k = unsafe { gpu.borrow_device_memory::<f32>(kp, n) }.unwrap();
            let mut v = unsafe { gpu.borrow_device_memory::<u64>(vp, n) }.unwrap();
            k.sort_pairs(&mut v, sorter, Order::Ascending).unwrap();
        }
        let sorted_keys: Vec<f32> = up.iter().map(|&i| keys[i as usize]).collect();
        assert_eq!(read_back::<f32>(gpu, kp, n), sorted_keys);
        assert_eq!(read_back::<u64>(gpu, vp, n), up.iter().map(|&i| values[i as usize]).collect::<Vec<_>>());

        // Searchsorted of unsorted queries in the now sorted keys, into lent memory.
        let queries: Vec<f32> = generate(n, Distribution::FewUnique, n as u64 + 1);
        let qp = caller_memory(gpu, &queries);
        {
            let sorted = unsafe { gpu.borrow_device_memory::<f32>(kp, n) }.unwrap();
            let q = unsafe { gpu.borrow_device_memory::<f32>(qp, n) }.unwrap();
            let mut out = unsafe { gpu.borrow_device_memory::<u64>(ip, n) }.unwrap();
            sorted
                .searchsorted_into(
                    sorter,
                    &q,
                    host::Side::Right,
                    host::QueryOrder::Unsorted,
                    host::NanOrder::Total,
                    &mut out,
                )
                .unwrap();
            // Results over the queries are refused (queries read from the results' memory).
            let q_over = unsafe { gpu.borrow_device_memory::<f32>(ip, n) }.unwrap();
            let refused = sorted.searchsorted_into(
                sorter,
                &q_over,
                host::Side::Left,
                host::QueryOrder::Unsorted,
                host::NanOrder::Total,
                &mut out,
            );
            assert!(matches!(refused, Err(Error::BadArgument(_))), "{refused:?}");
        }
        let want: Vec<u64> =
            queries.iter().map(|q| sorted_keys.partition_point(|k| k.total_cmp(q).is_le()) as u64).collect();
        assert_eq!(read_back::<u64>(gpu, ip, n), want);
        for p in [kp, ip, vp, qp] {
            free_caller_memory(gpu, p);
        }
    }

    // Widening: u32 values past 2^31 stay positive.
    let small: Vec<u32> = vec![0, 1, u32::MAX, 1 << 31, 7];
    let wp = caller_memory(gpu, &[0u64; 5]);
    {
        let mut wide = unsafe { gpu.borrow_device_memory::<u64>(wp, 5) }.unwrap();
        wide.widen_from(&gpu.upload(&small).unwrap()).unwrap();
        let short = wide.widen_from(&gpu.upload(&small[..4]).unwrap());
        assert!(matches!(short, Err(Error::BadArgument(_))), "{short:?}");
    }
    assert_eq!(read_back::<u64>(gpu, wp, 5), small.iter().map(|&x| x as u64).collect::<Vec<_>>());
    free_caller_memory(gpu, wp);

    // Pairs whose lengths differ, or whose values overlap the keys, are refused.
    let kp = caller_memory(gpu, &[0u32; 64]);
    {
        let mut k = unsafe { gpu.borrow_device_memory::<u32>(kp, 32) }.unwrap();
        let mut v = unsafe { gpu.borrow_device_memory::<u32>(kp + 64, 31) }.unwrap();
        assert!(matches!(k.sort_pairs(&mut v, sorter, Order::Ascending), Err(Error::LengthMismatch { .. })));
        let mut over = unsafe { gpu.borrow_device_memory::<u32>(kp + 64, 32) }.unwrap();
        assert!(matches!(k.sort_pairs(&mut over, sorter, Order::Ascending), Err(Error::BadArgument(_))));
    }
    free_caller_memory(gpu, kp);
}
