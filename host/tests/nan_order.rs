//! NaN-last order (`SortOptions::nan_last`) on the CPU backend against the model of
//! numpy's and torch's order (`nan/mod.rs`), bit for bit: sort, pairs, argsort,
//! top-k, segments and rows, both directions, NaNs of both signs and several payloads,
//! both zeros and the infinities. Total order stays the default.
mod nan;

use host::{NanOrder, Order, SortOptions, Sorter};
use nan::{bits_of, nan_last_argsort, nan_zoo_f32, nan_zoo_f64};

const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];

fn gather<T: Copy>(v: &[T], p: &[u32]) -> Vec<T> {
    p.iter().map(|&i| v[i as usize]).collect()
}

fn check_sorts<F: nan::Float + host::Key>(input: &[F], what: &str) {
    let s = Sorter::cpu();
    for order in ORDERS {
        let opts = SortOptions::default().order(order).nan_last();
        let want_p = nan_last_argsort(input, order.is_descending());
        let want = gather(input, &want_p);

        let mut got = input.to_vec();
        s.sort(&mut got, &opts).unwrap();
        assert_eq!(bits_of(&got), bits_of(&want), "{what} sort {order}");

        assert_eq!(s.argsort(input, &opts).unwrap(), want_p, "{what} argsort {order}");

        let (mut k, mut v) = (input.to_vec(), (0..input.len() as u32).collect::<Vec<_>>());
        s.sort_pairs(&mut k, &mut v, &opts).unwrap();
        assert_eq!((bits_of(&k), &v), (bits_of(&want), &want_p), "{what} pairs {order}");

        for kk in [0, 1, 7, input.len() / 2, input.len() + 3] {
            let (tk, ti) = s.top_k(input, kk, &opts).unwrap();
            let m = kk.min(input.len());
            assert_eq!((bits_of(&tk), &ti[..]), (bits_of(&want[..m]), &want_p[..m]), "{what} top-{kk} {order}");
        }

        // Segments: three uneven ones and keys outside them.
        let n = input.len();
        if n < 4 {
            continue;
        }
        let offsets = [1, n / 3, n / 3 + 1, n - 1];
        let mut seg_want = input.to_vec();
        for w in offsets.windows(2) {
            let p = nan_last_argsort(&input[w[0]..w[1]], order.is_descending());
            seg_want[w[0]..w[1]].copy_from_slice(&gather(&input[w[0]..w[1]], &p));
        }
        let mut got = input.to_vec();
        s.sort_segments(&mut got, &offsets, &opts).unwrap();
        assert_eq!(bits_of(&got), bits_of(&seg_want), "{what} segments {order}");
        let (mut k, mut v) = (input.to_vec(), (0..n as u32).collect::<Vec<_>>());
        s.sort_segments_pairs(&mut k, &mut v, &offsets, &opts).unwrap();
        assert_eq!(bits_of(&k), bits_of(&seg_want), "{what} segment pairs {order}");
        assert_eq!(
            gather(input, &v).iter().map(|x| bits_of(&[*x])).collect::<Vec<_>>(),
            seg_want.iter().map(|x| bits_of(&[*x])).collect::<Vec<_>>(),
            "{what} segment pair values {order}"
        );
    }
}

#[test]
fn nan_last_matches_the_numpy_model_bit_for_bit() {
    for (n, seed) in [(1, 1), (2, 2), (37, 3), (1000, 4), (20_000, 5)] {
        check_sorts(&nan_zoo_f32(n, seed), &format!("f32 n={n}"));
        check_sorts(&nan_zoo_f64(n, seed), &format!("f64 n={n}"));
    }
}

#[test]
fn nan_last_is_stable_among_nans_of_any_payload() {
    let nans: Vec<f32> = [0x7fc0_0000u32, 0xffc0_0000, 0x7f80_0001, 0xffff_ffff, 0x7fc0_0001]
        .iter()
        .map(|&b| f32::from_bits(b))
        .collect();
    let input = [nans[0], 1.0, nans[1], -0.0, nans[2], f32::INFINITY, nans[3], 0.0, nans[4]];
    let mut got = input.to_vec();
    Sorter::cpu().sort(&mut got, &SortOptions::default().nan_last()).unwrap();
    assert_eq!(got[..4].iter().map(|x| x.to_bits()).collect::<Vec<_>>(), [0x8000_0000, 0, 1f32.to_bits(), 0x7f80_0000]);
    assert_eq!(bits_of(&got[4..]), bits_of(&nans), "NaNs in input order, bits kept");
    let mut got = input.to_vec();
    Sorter::cpu().sort(&mut got, &SortOptions::default().nan_last().order(Order::Descending)).unwrap();
    assert_eq!(bits_of(&got[..5]), bits_of(&nans), "descending: NaNs first, in input order");
}

#[test]
fn total_order_stays_the_default() {
    assert_eq!(SortOptions::default().nan, NanOrder::Total);
    let neg_nan = f32::from_bits(0xffc0_0000);
    let mut v = vec![1.0f32, neg_nan, f32::NAN];
    Sorter::cpu().sort(&mut v, &SortOptions::default()).unwrap();
    assert_eq!(v.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), [0xffc0_0000, 1f32.to_bits(), 0x7fc0_0000]);
    // Integers ignore the NaN order.
    let mut ints = vec![3i32, -1, 2];
    Sorter::cpu().sort(&mut ints, &SortOptions::default().nan_last()).unwrap();
    assert_eq!(ints, [-1, 2, 3]);
}
