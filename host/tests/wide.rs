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

/// Top-k of `keys` on the CPU backend against the reference's first `k` indices, for
/// `k` = 0, 1, a middle value, n - 1, n and past n.
fn check_top_k<K: WideKey>(keys: &[K], mid: usize, order: Order) -> Result<(), TestCaseError> {
    let s = Sorter::cpu();
    let opts = SortOptions::default().order(order);
    let want = reference_perm(keys, order.is_descending());
    let n = keys.len();
    for k in [0, 1, mid.min(n), n.saturating_sub(1), n, n + 1, n + 1000] {
        let (top, at) = s.top_k_wide(keys, k, &opts).unwrap();
        let k = k.min(n);
        prop_assert_eq!(&at[..], &want[..k], "top-{} indices of {} n={} {}", k, K::NAME, n, order);
        prop_assert!(top == permuted(keys, &want[..k]), "top-{k} keys of {} n={n} {order}", K::NAME);
    }
    Ok(())
}

/// Offsets from segment lengths: a gap of `before` keys, the segments, then the rest
/// of the keys outside them.
fn offsets_of(before: usize, lens: &[usize]) -> Vec<usize> {
    let mut offsets = vec![before];
    for &l in lens {
        offsets.push(offsets.last().unwrap() + l);
    }
    offsets
}

/// The reference segmented sort: each segment's stable sorting permutation by the
/// keys' `Ord` (std's stable sort), as a permutation of all positions (those outside
/// the segments fixed).
fn reference_segments_perm<K: WideKey>(keys: &[K], offsets: &[usize], descending: bool) -> Vec<u32> {
    let mut perm: Vec<u32> = (0..keys.len() as u32).collect();
    for w in offsets.windows(2) {
        let local = reference_perm(&keys[w[0]..w[1]], descending);
        for (i, p) in local.into_iter().enumerate() {
            perm[w[0] + i] = w[0] as u32 + p;
        }
    }
    perm
}

/// The GPU path's segmented permutation computed on the CPU: the LSD passes over the
/// order words of the segments' whole range, then one more stable pass by each
/// position's segment number (the count of non-empty segments starting at or before
/// it), as a permutation of all positions.
fn segments_replay<K: WideKey>(keys: &[K], offsets: &[usize], descending: bool) -> Vec<u32> {
    let mut perm: Vec<u32> = (0..keys.len() as u32).collect();
    let (Some(&first), Some(&last)) = (offsets.first(), offsets.last()) else { return perm };
    let mut local = lsd_over_words(&keys[first..last], descending);
    let starts: Vec<usize> = offsets.windows(2).filter(|w| w[1] > w[0]).map(|w| w[0] - first).collect();
    local.sort_by_key(|&p| starts.partition_point(|&s| s <= p as usize));
    for (i, p) in local.into_iter().enumerate() {
        perm[first + i] = (first + p as usize) as u32;
    }
    perm
}

/// The segmented sorts of `keys` in segments of `lens` after `before` keys on the CPU
/// backend (keys alone, and with their indices as values: stability) against the
/// reference, and the GPU design replayed.
fn check_segments<K: WideKey>(keys: &[K], before: usize, lens: &[usize], order: Order) -> Result<(), TestCaseError> {
    let offsets = offsets_of(before, lens);
    prop_assume!(*offsets.last().unwrap() <= keys.len());
    let s = Sorter::cpu();
    let opts = SortOptions::default().order(order);
    let want = reference_segments_perm(keys, &offsets, order.is_descending());
    let ctx = format!("{} n={} {} segments {order}", K::NAME, keys.len(), lens.len());
    prop_assert_eq!(&segments_replay(keys, &offsets, order.is_descending()), &want, "replay of {}", ctx);

    let mut sorted = keys.to_vec();
    prop_assert!(matches!(s.sort_segments_wide(&mut sorted, &offsets, &opts), Ok(Backend::Cpu(_))));
    prop_assert!(sorted == permuted(keys, &want), "keys of {ctx}");

    let (mut k, mut v) = (keys.to_vec(), (0..keys.len() as u32).collect::<Vec<_>>());
    s.sort_segments_pairs_wide(&mut k, &mut v, &offsets, &opts).unwrap();
    prop_assert!(k == permuted(keys, &want), "keys of pairs of {ctx}");
    prop_assert_eq!(&v, &want, "values (stability) of {}", ctx);
    Ok(())
}

/// Segment lengths: mostly tiny (0 to 3 keys: empty segments and many ties of
/// neighbours), some longer.
fn segment_lens() -> impl Strategy<Value = Vec<usize>> {
    proptest::collection::vec(prop_oneof![4 => 0usize..4, 1 => 4usize..300], 0..60)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn integer_top_k_is_the_argsort_prefix(n in 0usize..2000, mid in 0usize..2000, p in pattern(), o in order(), seed in any::<u64>()) {
        check_top_k(&wide_keys::<u128>(n, p, seed), mid, o)?;
        check_top_k(&wide_keys::<i128>(n, p, seed), mid, o)?;
    }

    #[test]
    fn byte_string_top_k_is_the_argsort_prefix(n in 0usize..2000, mid in 0usize..2000, p in pattern(), o in order(), seed in any::<u64>()) {
        check_top_k(&wide_keys::<[u8; 16]>(n, p, seed), mid, o)?;
        check_top_k(&wide_keys::<[u8; 20]>(n, p, seed), mid, o)?;
        check_top_k(&wide_keys::<[u8; 32]>(n, p, seed), mid, o)?;
        check_top_k(&wide_keys::<[u8; 3]>(n, p, seed), mid, o)?;
        check_top_k(&wide_keys::<[u8; 9]>(n, p, seed), mid, o)?;
    }

    #[test]
    fn segments_sort_each_stably(
        lens in segment_lens(),
        before in 0usize..5,
        after in 0usize..5,
        p in pattern(),
        o in order(),
        seed in any::<u64>(),
    ) {
        let n = before + lens.iter().sum::<usize>() + after;
        check_segments(&wide_keys::<u128>(n, p, seed), before, &lens, o)?;
        check_segments(&wide_keys::<i128>(n, p, seed), before, &lens, o)?;
        check_segments(&wide_keys::<[u8; 20]>(n, p, seed), before, &lens, o)?;
        check_segments(&wide_keys::<[u8; 5]>(n, p, seed), before, &lens, o)?;
    }
}

#[test]
fn top_k_ties_go_to_the_lowest_index() {
    let s = Sorter::cpu();
    let keys = wide_keys::<[u8; 11]>(3000, Pattern::FewUnique, 4);
    for order in [Order::Ascending, Order::Descending] {
        let opts = SortOptions::default().order(order);
        let (top, at) = s.top_k_wide(&keys, 500, &opts).unwrap();
        // Sixteen distinct keys in 3000: the 500 are ties of one or two keys.
        assert!((1..at.len()).all(|i| top[i - 1] != top[i] || at[i - 1] < at[i]));
        assert_eq!(at, reference_perm(&keys, order.is_descending())[..500]);
    }
    let equal = vec![7u128; 100];
    assert_eq!(s.top_k_wide(&equal, 5, &SortOptions::default()).unwrap().1, [0, 1, 2, 3, 4]);
    let desc = SortOptions::default().order(Order::Descending);
    assert_eq!(s.top_k_wide(&equal, 5, &desc).unwrap().1, [0, 1, 2, 3, 4]);
}

#[test]
fn segments_of_every_shape() {
    let n = 5000;
    let keys = wide_keys::<i128>(n, Pattern::FewUnique, 8);
    let shapes: Vec<(usize, Vec<usize>)> = vec![
        (0, vec![n]),        // one segment, all the keys
        (0, vec![]),         // no segment
        (0, vec![0; 10]),    // empty segments only
        (17, vec![n - 40]),  // one segment, keys outside on both sides
        (0, vec![1; n]),     // segments of one key
        (0, vec![2; n / 2]), // pairs
        (3, [0, 5, 0, 0, 700, 1, 0, 2000, 3].to_vec()),
    ];
    for (before, lens) in shapes {
        for order in [Order::Ascending, Order::Descending] {
            check_segments(&keys, before, &lens, order).unwrap();
        }
    }
    // A segment longer than the CPU's parallel threshold, with and without values.
    let long = wide_keys::<[u8; 24]>(150_000, Pattern::SharedPrefix, 2);
    check_segments(&long, 10, &[100, 149_000, 7], Order::Descending).unwrap();
}

#[test]
fn options_and_offsets_a_wide_segmented_sort_refuses() {
    let s = Sorter::cpu();
    let keys = wide_keys::<[u8; 17]>(10, Pattern::Random, 1);
    let mut k = keys.clone();
    let bad = |e: Result<Backend, Error>| matches!(e, Err(Error::BadArgument(_)));
    assert!(bad(s.sort_segments_wide(&mut k, &[0, 5, 3], &SortOptions::default())));
    assert!(bad(s.sort_segments_wide(&mut k, &[0, 11], &SortOptions::default())));
    let bits = SortOptions::default().key_bits(0, 8);
    assert!(matches!(s.sort_segments_wide(&mut k, &[0, 10], &bits), Err(Error::Unsupported { .. })));
    let mut v = vec![0u64; 10];
    assert!(bad(s.sort_segments_pairs_wide(&mut k, &mut v, &[2, 1], &SortOptions::default())));
    let mut short = vec![0u64; 9];
    assert!(matches!(
        s.sort_segments_pairs_wide(&mut k, &mut short, &[0, 10], &SortOptions::default()),
        Err(Error::LengthMismatch { .. })
    ));
    assert_eq!(k, keys);
    assert!(matches!(s.top_k_wide(&keys, 3, &bits), Err(Error::Unsupported { .. })));
    // The variant is not used by top-k and the segmented sort (as for primitive keys).
    let quick = SortOptions::new(Variant::Quick);
    assert_eq!(s.top_k_wide(&keys, 3, &quick).unwrap().1, reference_perm(&keys, false)[..3]);
    assert!(s.sort_segments_wide(&mut k, &[0, 10], &quick).is_ok());
}
