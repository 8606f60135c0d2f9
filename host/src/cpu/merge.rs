//! The building blocks every CPU merge sort shares: the stable two-way merge, the
//! insertion sort that forms short initial runs, and the key they compare.
//!
//! Everything compares order bits (`ord_bits`), never a comparator closure: one
//! integer compare per step, and `DESC` is a constant so the `!` folds away.
use kernels::SortKey;

/// The key of `x` for the direction `DESC`.
#[inline(always)]
pub(crate) fn key<T: SortKey, const DESC: bool>(x: &T) -> T::Bits {
    x.ord_bits(DESC)
}

/// Stable merge of the sorted runs `a` and `b` into `out` (`out.len() == a.len() +
/// b.len()`); on equal keys the element of `a` goes first.
///
/// Bidirectional: one chain of steps fills `out` from the front with the smallest
/// elements while another fills it from the back with the largest, in the same loop.
/// Each step's loads depend on the previous step's compare, so a single chain is
/// latency-bound; two independent chains run in parallel on one core. Each chain on
/// its own is an exact stable merge of its half of the output, so they need no
/// coordination.
#[inline]
pub(crate) fn merge<T: SortKey, const DESC: bool>(a: &[T], b: &[T], out: &mut [T]) {
    assert_eq!(a.len() + b.len(), out.len(), "merge output has the wrong length");
    let (na, nb, half) = (a.len(), b.len(), out.len() / 2);
    let (pa, pb, po) = (a.as_ptr(), b.as_ptr(), out.as_mut_ptr());
    // Front chain: `a[..i]` and `b[..j]` are in `out[..i + j]`.
    let (mut i, mut j) = (0, 0);
    // Back chain: `a[ia..]` and `b[jb..]` are in `out[ia + jb..]`.
    let (mut ia, mut jb) = (na, nb);
    // SAFETY: the loop condition keeps every read in bounds (`i < na`, `j < nb`,
    // `ia > 0`, `jb > 0`) and every write inside `out` (`i + j < half <= ia + jb - 1`).
    // Branch-free bodies: which side advances depends on the data, so a branch would
    // mispredict about half the time on random keys; a select and two adds never do.
    unsafe {
        while i + j < half && i < na && j < nb && ia > 0 && jb > 0 {
            let (x, y) = (pa.add(i), pb.add(j));
            let take_b = key::<T, DESC>(&*y) < key::<T, DESC>(&*x);
            *po.add(i + j) = *(if take_b { y } else { x });
            i += !take_b as usize;
            j += take_b as usize;

            let (x, y) = (pa.add(ia - 1), pb.add(jb - 1));
            // Strict: on equal keys the back takes `b`'s element, which comes later.
            let take_a = key::<T, DESC>(&*y) < key::<T, DESC>(&*x);
            *po.add(ia + jb - 1) = *(if take_a { x } else { y });
            ia -= take_a as usize;
            jb -= !take_a as usize;
        }
    }
    // One chain stopped early (a run ran out at its end, or the front is done): each
    // finishes its part alone.
    merge_front::<T, DESC>(&a[i..], &b[j..], &mut out[i + j..half]);
    merge_back::<T, DESC>(&a[..ia], &b[..jb], &mut out[half..ia + jb]);
}

/// Fills `out` with the first `out.len()` elements of the stable merge of `a` and `b`.
fn merge_front<T: SortKey, const DESC: bool>(a: &[T], b: &[T], out: &mut [T]) {
    let (mut i, mut j) = (0, 0);
    while i + j < out.len() && i < a.len() && j < b.len() {
        let take_b = key::<T, DESC>(&b[j]) < key::<T, DESC>(&a[i]);
        out[i + j] = if take_b { b[j] } else { a[i] };
        i += !take_b as usize;
        j += take_b as usize;
    }
    // At most one run has elements left for the rest of `out`.
    let k = i + j;
    let rest = out.len() - k;
    if i < a.len() && rest > 0 {
        out[k..].copy_from_slice(&a[i..i + rest]);
    } else if rest > 0 {
        out[k..].copy_from_slice(&b[j..j + rest]);
    }
}

/// Fills `out` with the last `out.len()` elements of the stable merge of `a` and `b`.
fn merge_back<T: SortKey, const DESC: bool>(a: &[T], b: &[T], out: &mut [T]) {
    let (mut ia, mut jb) = (a.len(), b.len());
    let base = ia + jb - out.len();
    while ia + jb > base && ia > 0 && jb > 0 {
        let take_a = key::<T, DESC>(&b[jb - 1]) < key::<T, DESC>(&a[ia - 1]);
        out[ia + jb - 1 - base] = if take_a { a[ia - 1] } else { b[jb - 1] };
        ia -= take_a as usize;
        jb -= !take_a as usize;
    }
    let rest = ia + jb - base;
    if ia > 0 && rest > 0 {
        out[..rest].copy_from_slice(&a[ia - rest..ia]);
    } else if rest > 0 {
        out[..rest].copy_from_slice(&b[jb - rest..jb]);
    }
}

/// Stable insertion sort: quadratic, but the fastest way to sort the few elements of
/// an initial run (no scratch, no recursion).
#[inline]
pub(crate) fn insertion_sort<T: SortKey, const DESC: bool>(v: &mut [T]) {
    for i in 1..v.len() {
        let x = v[i];
        let kx = key::<T, DESC>(&x);
        let mut j = i;
        // Strict `<`: an element never passes an equal one, which keeps the sort stable.
        while j > 0 && kx < key::<T, DESC>(&v[j - 1]) {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = x;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernels::key::Entity;

    fn e(d: f32, id: u32) -> Entity {
        Entity { distance_from_player: d, id, position: [0.0; 3] }
    }

    #[test]
    fn merge_is_stable_and_complete() {
        let a = [e(1.0, 0), e(2.0, 1), e(2.0, 2), e(5.0, 3)];
        let b = [e(0.5, 4), e(2.0, 5), e(9.0, 6)];
        let mut out = [Entity::default(); 7];
        merge::<_, false>(&a, &b, &mut out);
        let ids: Vec<u32> = out.iter().map(|x| x.id).collect();
        assert_eq!(ids, [4, 0, 1, 2, 5, 3, 6]);
        let (ad, bd) = ([e(5.0, 0), e(2.0, 1)], [e(5.0, 2), e(1.0, 3)]);
        let mut out = [Entity::default(); 4];
        merge::<_, true>(&ad, &bd, &mut out);
        assert_eq!(out.iter().map(|x| x.id).collect::<Vec<_>>(), [0, 2, 1, 3]);
        let mut none: [u32; 0] = [];
        merge::<u32, false>(&[], &[], &mut none);
    }

    #[test]
    fn insertion_sort_is_stable() {
        let mut v = [e(3.0, 0), e(1.0, 1), e(3.0, 2), e(1.0, 3), e(2.0, 4)];
        insertion_sort::<_, false>(&mut v);
        assert_eq!(v.iter().map(|x| x.id).collect::<Vec<_>>(), [1, 3, 4, 0, 2]);
        insertion_sort::<_, true>(&mut v);
        assert_eq!(v.iter().map(|x| x.id).collect::<Vec<_>>(), [0, 2, 4, 1, 3]);
    }
}
