//! Records by key on the CPU backend (runs everywhere): `sort_by_key` with computed
//! and pair keys, `sort_records_by_field` over raw bytes, the slice extension trait,
//! and bad arguments. The GPU versions are in `gpu_records.rs`.
mod common;

use host::KeyField;
use host::{Distribution, Error, GpuSliceExt, KeyType, Order, SortOptions, Sorter};

const KEY_TYPES: [KeyType; 6] = [KeyType::U32, KeyType::I32, KeyType::F32, KeyType::U64, KeyType::I64, KeyType::F64];

#[test]
fn field_sort_matches_the_reference_for_every_layout_type_and_order() {
    let cpu = Sorter::cpu();
    for kt in KEY_TYPES {
        for (rb, off) in common::record_layouts(kt.size()) {
            for (n, dist) in [(0, Distribution::Uniform), (1, Distribution::Uniform), (777, Distribution::FewUnique)] {
                for order in [Order::Ascending, Order::Descending] {
                    let input = common::random_records(n, rb, off, kt, dist);
                    let mut out = input.clone();
                    cpu.sort_records_by_field(
                        &mut out,
                        rb,
                        KeyField::new(off, kt),
                        &SortOptions::default().order(order),
                    )
                    .unwrap();
                    let want = common::reference_records(&input, rb, off, kt, order);
                    assert!(out == want, "{kt} records of {rb} bytes, key at {off}, n={n} {order}");
                }
            }
        }
    }
}

#[test]
fn sort_by_key_is_stable_with_pair_keys() {
    #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
    #[repr(C)]
    struct Row {
        group: i32,
        score: f32,
        id: u32,
    }
    let rows: Vec<Row> =
        (0..5000u32).map(|i| Row { group: (i % 7) as i32 - 3, score: ((i * 37) % 11) as f32 * 0.5, id: i }).collect();
    for order in [Order::Ascending, Order::Descending] {
        let mut got = rows.clone();
        Sorter::cpu().sort_by_key(&mut got, |r| (r.group, r.score), &SortOptions::default().order(order)).unwrap();
        let mut want = rows.clone();
        want.sort_by(|a, b| {
            let o = a.group.cmp(&b.group).then(a.score.total_cmp(&b.score));
            if order.is_descending() { o.reverse() } else { o }
        });
        assert_eq!(got, want, "{order}");
    }
}

#[test]
fn extension_trait_sorts_like_the_sorter() {
    let mut v: Vec<i64> = host::testing::inputs::generate(10_000, Distribution::Uniform, 5);
    let mut want = v.clone();
    want.sort();
    v.gpu_sort().unwrap();
    assert_eq!(v, want);
    let p = [5.0f32, -1.0, 5.0, 2.0].gpu_argsort().unwrap();
    assert_eq!(p, [1, 3, 0, 2]);
}

#[test]
fn bad_fields_are_errors_and_leave_the_data_alone() {
    let cpu = Sorter::cpu();
    let input: Vec<u8> = (0..60).collect();
    let cases = [
        (12, KeyField::new(9, KeyType::U32)),
        (12, KeyField::new(5, KeyType::U64)),
        (12, KeyField::new(usize::MAX - 1, KeyType::U32)),
        (12, KeyField::new(0, KeyType::Entity)),
        (0, KeyField::new(0, KeyType::U32)),
        (7, KeyField::new(0, KeyType::U32)),
    ];
    for (rb, field) in cases {
        let mut data = input.clone();
        let r = cpu.sort_records_by_field(&mut data, rb, field, &SortOptions::default());
        assert!(matches!(r, Err(Error::BadArgument(_))), "{rb} {field:?}: {r:?}");
        assert_eq!(data, input);
    }
}
