//! `file_sort` on the GPU: chunked sorts (device budget forced small) with every
//! variant, the pipelined path, and the staged copies of host slices that share its
//! staging buffers, checked against the CPU reference. Skips without a device.
mod common;

use host::file_sort::{self, FileSortOptions, Format};
use host::testing::cpu;
use host::testing::file_format as format;
use host::testing::inputs::generate;
use host::{Distribution, KeyType, Order, SortOptions, Variant};

#[test]
fn chunked_gpu_sort_with_every_variant() {
    let Some(sorter) = common::gpu_sorter("chunked_gpu_sort_with_every_variant") else { return };
    let d = std::env::temp_dir().join(format!("host-gpu-file-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let (inp, out) = (d.join("in.bin"), d.join("out.bin"));
    let n = (1 << 22) + 77;
    let data: Vec<u32> = generate(n, Distribution::Uniform, 5);
    format::write_file(&inp, &data, Format::Binary).unwrap();
    for &variant in Variant::ALL {
        for order in [Order::Ascending, Order::Descending] {
            let opts = FileSortOptions {
                sort: SortOptions::new(variant).order(order),
                max_device_bytes: Some(3 * (4 << 20)),
                ..FileSortOptions::new(KeyType::U32, Format::Binary)
            };
            let r = file_sort::sort_file(sorter, &inp, &out, &opts, &mut |_| {}).unwrap();
            assert_eq!((r.elements, r.chunks), (n, 5), "{variant} {order}");
            let mut expect = data.clone();
            cpu::reference_sort(&mut expect, order);
            assert!(format::read_binary::<u32>(&out).unwrap() == expect, "{variant} {order}: wrong output");
        }
    }
    std::fs::remove_dir_all(&d).unwrap();
}

/// The pipelined path (file streamed through pinned staging buffers into the device
/// and back): every key type, both orders, sizes from 1 element to many chunks, with
/// staging buffers small enough that chunks and buffer reuse are exercised, and the
/// default path through `sort_file` on a file larger than one 64 MiB stage.
#[test]
fn pipelined_file_sort_every_type_and_stage_pattern() {
    let Some(sorter) = common::gpu_sorter("pipelined_file_sort_every_type_and_stage_pattern") else { return };
    let d = std::env::temp_dir().join(format!("host-gpu-pipe-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let (inp, out) = (d.join("in.bin"), d.join("out.bin"));
    fn one<T: host::testing::inputs::Random + host::file_sort::TextElement>(
        sorter: &host::Sorter,
        inp: &std::path::Path,
        out: &std::path::Path,
        n: usize,
        stage: usize,
        stages: usize,
        order: Order,
    ) {
        let data: Vec<T> = generate(n, Distribution::FewUnique, n as u64);
        format::write_file(inp, &data, Format::Binary).unwrap();
        let mut file = host::file_sort::AtomicFile::create(out).unwrap();
        let opts = SortOptions::default().order(order);
        host::testing::file_pipeline::sort_binary_staged::<T>(
            sorter,
            inp,
            n,
            &mut file,
            &opts,
            stage,
            stages,
            u64::MAX,
        )
        .unwrap();
        file.commit_with(false).unwrap();
        let mut expect = data.clone();
        cpu::reference_sort(&mut expect, order);
        let got = format::read_binary::<T>(out).unwrap();
        assert!(
            bytemuck::cast_slice::<T, u8>(&got) == bytemuck::cast_slice::<T, u8>(&expect),
            "{} n={n} stage {stage} x{stages} {order}",
            T::NAME
        );
    }
    for (n, stage, stages) in [
        (1, 4096, 3),
        (2, 4, 3),
        (1000, 4096, 3),
        (100_003, 4096, 3),
        (100_003, 40_000, 1),
        (100_003, 40_000, 2),
        (300_007, 1 << 20, 4),
    ] {
        for order in [Order::Ascending, Order::Descending] {
            one::<u32>(sorter, &inp, &out, n, stage, stages, order);
            one::<i64>(sorter, &inp, &out, n, stage, stages, order);
            one::<f32>(sorter, &inp, &out, n, stage, stages, order);
            one::<f64>(sorter, &inp, &out, n, stage, stages, order);
            one::<host::Entity>(sorter, &inp, &out, n, stage, stages, order);
        }
    }
    // Through `sort_file`, the default stages: 2^25 + 3 u32 is two full 64 MiB stages and a bit.
    let n = (1 << 25) + 3;
    let data: Vec<u32> = generate(n, Distribution::Uniform, 11);
    format::write_file(&inp, &data, Format::Binary).unwrap();
    let opts = FileSortOptions::new(KeyType::U32, Format::Binary);
    let r = file_sort::sort_file(sorter, &inp, &out, &opts, &mut |_| {}).unwrap();
    assert!(r.pipelined && r.elements == n, "{r:?}");
    let mut expect = data;
    cpu::reference_sort(&mut expect, Order::Ascending);
    assert!(format::read_binary::<u32>(&out).unwrap() == expect, "sort_file pipelined: wrong output");
    std::fs::remove_dir_all(&d).unwrap();
}

/// Host slices copied to and from the device through the staging buffers (the file
/// pipeline's, kept by the device): every copy staged, in buffers that split the data
/// at odd byte offsets, one buffer or several, copies queued back to back, and the
/// slice sorts (in place and into another slice) and round trips equal to the data
/// and the CPU's sort.
#[test]
fn host_slices_staged_through_pinned_buffers() {
    let Some(sorters) = common::tuned_sorters(
        "host_slices_staged_through_pinned_buffers",
        &[
            ("three 65,540-byte staging buffers", |t| {
                t.host_stage_min_bytes = 0;
                t.file_stage_bytes = 65_540;
                t.file_stages = 3;
            }),
            ("one 4,098-byte staging buffer", |t| {
                t.host_stage_min_bytes = 0;
                t.file_stage_bytes = 4_098;
                t.file_stages = 1;
            }),
            ("the default threshold", |_| {}),
        ],
    ) else {
        return;
    };
    for (name, sorter) in &sorters {
        let gpu = sorter.gpu().expect("a GPU sorter");
        for n in [1usize, 3, 2_049, 32_771, 200_003, (1 << 21) + 5] {
            let data: Vec<u16> = generate(n, Distribution::Uniform, n as u64);
            let other: Vec<u16> = generate(n, Distribution::Uniform, n as u64 + 1);
            let mut buf = gpu.upload(&data).unwrap();
            assert!(buf.to_vec(gpu).unwrap() == data, "{name}, {n}: round trip");
            // The second copy reuses the kept buffers at once; the first's reads of
            // them must have ended (the sort reads what the last copy left).
            let mut second = gpu.upload(&other).unwrap();
            buf.copy_from_host(gpu, &data).unwrap();
            second.copy_from_host(gpu, &other).unwrap();
            assert!(second.to_vec(gpu).unwrap() == other, "{name}, {n}: copy after a copy");
            assert!(buf.to_vec(gpu).unwrap() == data, "{name}, {n}: the first buffer");
            let wide: Vec<u32> = generate(n, Distribution::Uniform, 7);
            for order in [Order::Ascending, Order::Descending] {
                let mut sorted = wide.clone();
                sorter.sort(&mut sorted, &SortOptions::default().order(order)).unwrap();
                let mut expect = wide.clone();
                cpu::reference_sort(&mut expect, order);
                assert!(sorted == expect, "{name}, {n}, {order}: sort of a host slice");
                let mut into = vec![0u32; n];
                sorter.sort_into(&wide, &mut into, &SortOptions::default().order(order)).unwrap();
                assert!(into == expect, "{name}, {n}, {order}: sort of a host slice into another");
            }
        }
    }
}
