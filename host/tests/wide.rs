//! Wide keys (`u128`, `i128`, `[u8; N]`) on the CPU backend against std's stable sort
//! by the keys' `Ord`, and the GPU's algorithm (LSD over the 64-bit order words, one
//! stable sort per word) replayed on the CPU against the same reference: property
//! tests over every input pattern, size and order.
mod common;

use common::wide::{Pattern, permuted, reference_perm, wide_keys};
use host::{Backend, Error, Order, SortOptions, Sorter, Variant, WideKey};
use proptest::prelude::*;

/// The GPU path's permutation computed on the CPU: start from `0..n`, then for each
/// order word from the least significant, a stable sort of the permutation by that
/// word of its keys (descending: by the word's complement, as the radix sort's masks
/// do). Checks the order words and the LSD design without a device.
fn lsd_over_words<K: WideKey>(keys: &[K], descending: bool) -> Vec<u32> {
    let mut perm: Vec<u32> = (0..keys.len() as u32).collect();
    for word in (0..K::WORDS).rev() {
        perm.sort_by_key(|&i| {
            let w = keys[i as usize].order_word(word);
            if descending { !w } else { w }
        });
    }
    perm
}

fn check<K: WideKey>(keys: &[K], order: Order) -> Result<(), TestCaseError> {
    let s = Sorter::cpu();
    let opts = SortOptions::default().order(order);
    let want = reference_perm(keys, order.is_descending());
    prop_assert_eq!(&lsd_over_words(keys, order.is_descending()), &want, "LSD over words of {}", K::NAME);

    let mut sorted = keys.to_vec();
    prop_assert!(matches!(s.sort_wide(&mut sorted, &opts), Ok(Backend::Cpu(_))));
    prop_assert!(sorted == permuted(keys, &want), "sort of {}", K::NAME);
    prop_assert_eq!(&s.argsort_wide(keys, &opts).unwrap(), &want);

    let (mut k, mut v) = (keys.to_vec(), (0..keys.len() as u64).map(|i| i * 3).collect::<Vec<_>>());
    s.sort_pairs_wide(&mut k, &mut v, &opts).unwrap();
    prop_assert!(k == permuted(keys, &want));
    prop_assert!(v.iter().copied().eq(want.iter().map(|&i| i as u64 * 3)), "stable u64 pairs of {}", K::NAME);
    Ok(())
}

fn pattern() -> impl Strategy<Value = Pattern> {
    proptest::sample::select(Pattern::ALL.to_vec())
}

fn order() -> impl Strategy<Value = Order> {
    prop_oneof![Just(Order::Ascending), Just(Order::Descending)]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn integers_sort_as_std(n in 0usize..3000, p in pattern(), o in order(), seed in any::<u64>()) {
        check(&wide_keys::<u128>(n, p, seed), o)?;
        check(&wide_keys::<i128>(n, p, seed), o)?;
    }

    #[test]
    fn byte_strings_sort_as_std(n in 0usize..3000, p in pattern(), o in order(), seed in any::<u64>()) {
        check(&wide_keys::<[u8; 16]>(n, p, seed), o)?;
        check(&wide_keys::<[u8; 20]>(n, p, seed), o)?;
        check(&wide_keys::<[u8; 32]>(n, p, seed), o)?;
        check(&wide_keys::<[u8; 3]>(n, p, seed), o)?;
    }
}

#[test]
fn i128_negatives_and_extremes() {
    let keys = [5i128, -1, i128::MIN, 0, i128::MAX, -(1 << 64), 1 << 64, -1, i128::MIN + 1];
    let mut s = keys;
    Sorter::cpu().sort_wide(&mut s, &SortOptions::default()).unwrap();
    assert_eq!(s, [i128::MIN, i128::MIN + 1, -(1 << 64), -1, -1, 0, 5, 1 << 64, i128::MAX]);
    assert_eq!(lsd_over_words(&keys, false), reference_perm(&keys, false));
}

#[test]
fn sort_by_wide_key_is_stable() {
    let names = wide_keys::<[u8; 12]>(5000, Pattern::FewUnique, 9);
    let mut rows: Vec<(u32, [u8; 12])> = names.iter().enumerate().map(|(i, &n)| (i as u32, n)).collect();
    #[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
    #[repr(C)]
    struct Row {
        id: u32,
        name: [u8; 12],
    }
    let mut recs: Vec<Row> = rows.iter().map(|&(id, name)| Row { id, name }).collect();
    let desc = SortOptions::default().order(Order::Descending);
    Sorter::cpu().sort_by_wide_key(&mut recs, |r| r.name, &desc).unwrap();
    rows.sort_by_key(|r| std::cmp::Reverse(r.1));
    assert!(recs.iter().map(|r| (r.id, r.name)).eq(rows.iter().copied()));
}

#[test]
fn options_a_wide_sort_refuses() {
    let s = Sorter::cpu();
    let keys = wide_keys::<u128>(10, Pattern::Random, 1);
    let mut k = keys.clone();
    assert!(matches!(s.sort_wide(&mut k, &SortOptions::default().key_bits(0, 8)), Err(Error::Unsupported { .. })));
    assert!(matches!(s.argsort_wide(&k, &SortOptions::new(Variant::Quick)), Err(Error::Unsupported { .. })));
    let mut v = vec![0u32; 9];
    assert!(matches!(s.sort_pairs_wide(&mut k, &mut v, &SortOptions::default()), Err(Error::LengthMismatch { .. })));
    assert_eq!(k, keys);
}
