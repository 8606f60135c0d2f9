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
