//! `Sorter::top_k` without a GPU: the CPU fallback against the stable argsort, and
//! bad inputs as documented results or errors, never panics.
use host::testing::cpu_top_k;
use host::testing::inputs::{Random, generate};
use host::{Distribution, Error, Order, SortOptions, Sorter};

/// `argsort(keys)[..k]` and the keys there: the definition of top-k.
fn reference<K: host::Key>(keys: &[K], k: usize, order: Order) -> (Vec<u64>, Vec<u32>) {
    let perm = Sorter::cpu().argsort(keys, &SortOptions::default().order(order)).unwrap();
    let idx: Vec<u32> = perm.into_iter().take(k).collect();
    (idx.iter().map(|&i| keys[i as usize].bits().into()).collect(), idx)
}

fn check<K: host::Key>(keys: &[K], k: usize, order: Order, what: &str) {
    let (ks, idx) = Sorter::cpu().top_k(keys, k, &SortOptions::default().order(order)).unwrap();
    let bits: Vec<u64> = ks.iter().map(|x| x.bits().into()).collect();
    let (rb, ri) = reference(keys, k, order);
    assert_eq!(idx, ri, "{what} n={} k={k} {order}", keys.len());
    assert_eq!(bits, rb, "{what} n={} k={k} {order}", keys.len());
}

fn every_case<K: Random + host::Key>() {
    for &dist in Distribution::ALL {
        for n in [0usize, 1, 2, 7, 1000, 4097] {
            let keys: Vec<K> = generate(n, dist, n as u64 + 11);
            for k in [0, 1, 2, 100, n.saturating_sub(1), n, n + 5] {
                for order in [Order::Ascending, Order::Descending] {
                    check(&keys, k, order, &format!("{} {dist}", K::NAME));
                }
            }
        }
    }
}

#[test]
fn cpu_top_k_is_the_head_of_the_stable_argsort() {
    every_case::<u32>();
    every_case::<i32>();
    every_case::<f32>();
    every_case::<u64>();
    every_case::<i64>();
    every_case::<f64>();
}

#[test]
fn cpu_top_k_special_floats() {
    let specials = [f32::NAN, -f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0, 1.0, -1.0];
    let keys: Vec<f32> = (0..500).map(|i| specials[(i * 7 + i / 13) % specials.len()]).collect();
    let wide: Vec<f64> = keys.iter().map(|&x| x as f64).collect();
    for k in [1, 3, 64, 65, 499, 500] {
        for order in [Order::Ascending, Order::Descending] {
            check(&keys, k, order, "f32 specials");
            check(&wide, k, order, "f64 specials");
        }
    }
    // -NaN is the smallest in total order, +NaN the largest.
    let (lo, _) = cpu_top_k(&keys, 1, Order::Ascending);
    assert!(lo[0].is_nan() && lo[0].is_sign_negative());
    let (hi, _) = cpu_top_k(&keys, 1, Order::Descending);
    assert!(hi[0].is_nan() && hi[0].is_sign_positive());
}

#[test]
fn top_k_bad_inputs_are_results_or_errors() {
    let s = Sorter::with_fallback();
    let opts = SortOptions::default();
    assert_eq!(s.top_k::<u32>(&[], 5, &opts).unwrap(), (vec![], vec![]));
    assert_eq!(s.top_k(&[3u32, 1], 0, &opts).unwrap(), (vec![], vec![]));
    assert_eq!(s.top_k(&[3i64, -1, 2], 99, &opts).unwrap(), (vec![-1, 2, 3], vec![1, 2, 0]));
    // Records (`Entity`) are not `Key`s: passing them here does not compile.
    let r = s.top_k(&[1u32, 2], 1, &opts.clone().key_bits(0, 8));
    assert!(matches!(r, Err(Error::Unsupported { option: "key bits", .. })), "{r:?}");
}

/// Top-k and argsort with `u64` indices on the CPU backend equal their `u32` forms:
/// every k, both orders, NaN-last floats.
#[test]
fn cpu_u64_indices_equal_the_u32_ones() {
    let cpu = Sorter::cpu();
    for n in [0usize, 1, 1000, 4097] {
        let keys: Vec<f32> = generate(n, Distribution::FewUnique, n as u64 ^ 3);
        for order in [Order::Ascending, Order::Descending] {
            for opts in [SortOptions::default().order(order), SortOptions::default().order(order).nan_last()] {
                for k in [0, 1, 100, n, n + 1] {
                    let (k32, i32) = cpu.top_k(&keys, k, &opts).unwrap();
                    let (k64, i64): (Vec<f32>, Vec<u64>) = cpu.top_k_indexed(&keys, k, &opts).unwrap();
                    assert_eq!(i64, i32.iter().map(|&i| i as u64).collect::<Vec<_>>(), "n={n} k={k} {order}");
                    assert!(k64.iter().zip(&k32).all(|(a, b)| a.to_bits() == b.to_bits()), "n={n} k={k} {order}");
                }
                let p32 = cpu.argsort(&keys, &opts).unwrap();
                let mut p64 = vec![0u64; n];
                cpu.argsort_into(&keys, &mut p64, &opts).unwrap();
                assert_eq!(p64, p32.iter().map(|&i| i as u64).collect::<Vec<_>>(), "argsort n={n} {order}");
            }
        }
    }
}
