//! `file_sort` on the GPU: chunked sorts (device budget forced small) with every
//! variant, checked against the CPU reference. Skips without a device.
mod common;

use host::file_sort::{self, FileSortOptions, Format, format};
use host::inputs::generate;
use host::{Distribution, KeyType, Order, SortOptions, Variant, cpu};

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
