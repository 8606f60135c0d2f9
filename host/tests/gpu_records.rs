//! Records by key on the GPU against the CPU reference: the field sort and gather of
//! `variants::records` (every key type, aligned and unaligned layouts, lanes of 1 to 16
//! bytes, sizes around the radix one-block limit), `sort_by_key` with pair keys, and
//! the typed device entry point. Skips without a device (see `common::gpu_sorter`).
mod common;

use common::gpu_sorter;
use host::testing::variants::records::{self, KeyField};
use host::{Distribution, KeyType, Order, SortOptions};

const KEY_TYPES: [KeyType; 6] = [KeyType::U32, KeyType::I32, KeyType::F32, KeyType::U64, KeyType::I64, KeyType::F64];

#[test]
fn gpu_field_sort_every_type_layout_and_size() {
    let Some(s) = gpu_sorter("gpu_field_sort_every_type_layout_and_size") else { return };
    for kt in KEY_TYPES {
        for (rb, off) in common::record_layouts(kt.size()) {
            for (n, dist) in [
                (0, Distribution::Uniform),
                (1, Distribution::Uniform),
                (2, Distribution::Reverse),
                (1000, Distribution::FewUnique),
                (7681, Distribution::Uniform),
                (100_003, Distribution::FewUnique),
            ] {
                for order in [Order::Ascending, Order::Descending] {
                    let input = common::random_records(n, rb, off, kt, dist);
                    let mut out = input.clone();
                    s.sort_records_by_field(&mut out, rb, KeyField::new(off, kt), &SortOptions::default().order(order))
                        .unwrap_or_else(|e| panic!("{kt} {rb}/{off} n={n}: {e}"));
                    let want = common::reference_records(&input, rb, off, kt, order);
                    assert!(out == want, "{kt} records of {rb} bytes, key at {off}, n={n} {dist} {order}");
                }
            }
        }
    }
}

#[test]
fn gpu_field_sort_2p20_plus_13_all_distributions() {
    let Some(s) = gpu_sorter("gpu_field_sort_2p20_plus_13_all_distributions") else { return };
    let n = (1 << 20) + 13;
    for &dist in Distribution::ALL {
        for (kt, rb, off) in [(KeyType::U32, 32, 4), (KeyType::F64, 40, 3), (KeyType::I32, 13, 6)] {
            let input = common::random_records(n, rb, off, kt, dist);
            let mut out = input.clone();
            let opts = SortOptions::default().order(Order::Descending);
            s.sort_records_by_field(&mut out, rb, KeyField::new(off, kt), &opts).unwrap();
            assert!(out == common::reference_records(&input, rb, off, kt, Order::Descending), "{kt} {rb}/{off} {dist}");
        }
    }
}

#[test]
fn gpu_sort_by_key_pairs_and_typed_device_records() {
    let Some(s) = gpu_sorter("gpu_sort_by_key_pairs_and_typed_device_records") else { return };
    #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
    #[repr(C)]
    struct Row {
        group: u32,
        score: f32,
        id: u64,
        pad: [u32; 4],
    }
    let rows: Vec<Row> = (0..300_001u64)
        .map(|i| Row { group: (i % 13) as u32, score: ((i * 37) % 101) as f32 - 50.0, id: i, pad: [i as u32; 4] })
        .collect();
    for order in [Order::Ascending, Order::Descending] {
        let mut got = rows.clone();
        s.sort_by_key(&mut got, |r| (r.group, r.score), &SortOptions::default().order(order)).unwrap();
        let mut want = rows.clone();
        want.sort_by(|a, b| {
            let o = a.group.cmp(&b.group).then(a.score.total_cmp(&b.score));
            if order.is_descending() { o.reverse() } else { o }
        });
        assert_eq!(got, want, "pairs {order}");
        // The same rows by `score` alone, records moved on the device (16-byte lanes).
        let gpu = s.gpu().unwrap();
        let mut buf = gpu.upload(&rows).unwrap();
        records::sort_by_field(gpu, &mut buf, KeyField::new(4, KeyType::F32), order).unwrap();
        let mut want = rows.clone();
        want.sort_by(
            |a, b| if order.is_descending() { b.score.total_cmp(&a.score) } else { a.score.total_cmp(&b.score) },
        );
        assert_eq!(buf.to_vec(gpu).unwrap(), want, "typed device records {order}");
    }
}
