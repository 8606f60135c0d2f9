//! The row-wise API on the CPU backend against per-row models: `sort_rows`,
//! `argsort_rows` (column indices) and `top_k_rows` of integer and float matrices
//! (NaN-last too), and the shape checks.
mod nan;

use host::{Error, Order, SortOptions, Sorter};
use nan::{bits_of, nan_last_argsort, nan_zoo_f32};

fn stable_argsort_i64(row: &[i64], desc: bool) -> Vec<u32> {
    let mut p: Vec<u32> = (0..row.len() as u32).collect();
    p.sort_by(|&a, &b| {
        let o = row[a as usize].cmp(&row[b as usize]);
        if desc { o.reverse() } else { o }
    });
    p
}

fn ints(n: usize, seed: u64) -> Vec<i64> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (s >> 40) as i64 % 7 - 3
        })
        .collect()
}

#[test]
fn rows_match_per_row_stable_sorts() {
    let s = Sorter::cpu();
    for (rows, cols) in [(1, 1), (3, 5), (7, 64), (2, 1000), (5, 0), (0, 4)] {
        let m = ints(rows * cols, (rows * 31 + cols) as u64);
        for order in [Order::Ascending, Order::Descending] {
            let opts = SortOptions::default().order(order);
            let want_p: Vec<u32> =
                m.chunks(cols.max(1)).flat_map(|r| stable_argsort_i64(r, order.is_descending())).collect();
            let want: Vec<i64> =
                want_p.iter().enumerate().map(|(i, &c)| m[i / cols.max(1) * cols + c as usize]).collect();
            let mut got = m.clone();
            s.sort_rows(&mut got, rows, cols, &opts).unwrap();
            assert_eq!(got, want, "{rows}x{cols} {order}");
            assert_eq!(s.argsort_rows(&m, rows, cols, &opts).unwrap(), want_p, "{rows}x{cols} {order}");
            for k in [0, 1, 3, cols, cols + 2] {
                let kk = k.min(cols);
                let (tk, ti) = s.top_k_rows(&m, rows, cols, k, &opts).unwrap();
                let (mut wk, mut wi) = (Vec::new(), Vec::new());
                for r in 0..rows {
                    wk.extend_from_slice(&want[r * cols..r * cols + kk]);
                    wi.extend_from_slice(&want_p[r * cols..r * cols + kk]);
                }
                assert_eq!((tk, ti), (wk, wi), "{rows}x{cols} top-{k} {order}");
            }
        }
    }
}

#[test]
fn float_rows_take_nan_last_order() {
    let s = Sorter::cpu();
    let (rows, cols) = (6, 333);
    let m = nan_zoo_f32(rows * cols, 9);
    for order in [Order::Ascending, Order::Descending] {
        let opts = SortOptions::default().order(order).nan_last();
        let want_p: Vec<u32> = m.chunks(cols).flat_map(|r| nan_last_argsort(r, order.is_descending())).collect();
        let want: Vec<f32> = want_p.iter().enumerate().map(|(i, &c)| m[i / cols * cols + c as usize]).collect();
        let mut got = m.clone();
        s.sort_rows(&mut got, rows, cols, &opts).unwrap();
        assert_eq!(bits_of(&got), bits_of(&want), "{order}");
        assert_eq!(s.argsort_rows(&m, rows, cols, &opts).unwrap(), want_p, "{order}");
        let (tk, ti) = s.top_k_rows(&m, rows, cols, 50, &opts).unwrap();
        let pick = |v: &[f32]| -> Vec<f32> { v.chunks(cols).flat_map(|r| r[..50].to_vec()).collect() };
        assert_eq!(bits_of(&tk), bits_of(&pick(&want)), "{order}");
        assert_eq!(ti, want_p.chunks(cols).flat_map(|r| r[..50].to_vec()).collect::<Vec<_>>(), "{order}");
    }
}

#[test]
fn bad_shapes_are_errors() {
    let s = Sorter::cpu();
    let mut m = vec![1u32, 2, 3];
    assert!(matches!(s.sort_rows(&mut m, 2, 2, &SortOptions::default()), Err(Error::BadArgument(_))));
    assert!(matches!(s.argsort_rows(&m, 1, 2, &SortOptions::default()), Err(Error::BadArgument(_))));
    assert!(matches!(s.top_k_rows(&m, usize::MAX, 2, 1, &SortOptions::default()), Err(Error::BadArgument(_))));
    assert!(matches!(
        s.top_k_rows(&m, 1, 3, 1, &SortOptions::default().key_bits(0, 8)),
        Err(Error::Unsupported { .. })
    ));
}
