//! Checks a sort's output against its input: ordered, a permutation of the input
//! (nothing lost, nothing duplicated, compared bit for bit), and, where the variant
//! promises it, stable.
use crate::{Element, Index, Key, KeyOrder, cpu};

/// Why an output is wrong, with the first offending index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch(pub String);

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Mismatch {}

/// What [`check`] verified, for printing.
#[derive(Debug, Clone, Copy)]
pub struct Checked {
    /// Whether stability was checked too (equal keys in input order).
    pub stable: bool,
}

impl std::fmt::Display for Checked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ok (ordered, permutation of the input")?;
        if self.stable {
            write!(f, ", stable")?;
        }
        write!(f, ")")
    }
}

/// Verifies `output` as a sort of `input` in `order` (NaN-last order too); with
/// `stable`, also that equal keys kept their input order (the output must then equal
/// the stable reference).
pub fn check<T: Element>(
    input: &[T],
    output: &[T],
    order: impl Into<KeyOrder>,
    stable: bool,
) -> Result<Checked, Mismatch> {
    let order = order.into();
    if input.len() != output.len() {
        return Err(Mismatch(format!("output has {} elements, input {}", output.len(), input.len())));
    }
    if let Some(i) = output.windows(2).position(|w| order.sort_bits(&w[0]) > order.sort_bits(&w[1])) {
        let o = order.order;
        return Err(Mismatch(format!("not ordered ({o}) at index {i}: {:?} then {:?}", output[i], output[i + 1])));
    }
    let mut expect = input.to_vec();
    if order.nan_last_for::<T>() {
        // std's stable sort by NaN-last bits (NaNs of any bits are equal).
        expect.sort_by_key(|x| order.sort_bits(x));
    } else {
        cpu::reference_sort(&mut expect, order.order);
    }
    if stable {
        if let Some(i) = first_difference(&expect, output) {
            return Err(Mismatch(format!(
                "differs from the stable reference at index {i}: expected {:?}, got {:?} \
                 (lost/duplicated elements or equal keys out of input order)",
                expect[i], output[i]
            )));
        }
    } else {
        // Same multiset: both sorted by (key, raw bytes) must be identical.
        let mut got = output.to_vec();
        let by_key_then_bytes = |a: &T, b: &T| {
            order.sort_bits(a).cmp(&order.sort_bits(b)).then_with(|| bytemuck::bytes_of(a).cmp(bytemuck::bytes_of(b)))
        };
        expect.sort_by(by_key_then_bytes);
        got.sort_by(by_key_then_bytes);
        if let Some(i) = first_difference(&expect, &got) {
            return Err(Mismatch(format!(
                "not a permutation of the input: element {:?} expected, {:?} found in its place",
                expect[i], got[i]
            )));
        }
    }
    Ok(Checked { stable })
}

/// Order-independent fingerprint of a multiset of elements: equal for any two
/// permutations of the same elements, different (with overwhelming probability) when an
/// element is lost, duplicated or altered. Linear time and parallel, for inputs too large
/// to sort a reference copy of.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Fingerprint {
    /// Number of elements.
    pub len: u64,
    sum: u64,
    xor: u64,
}

impl Fingerprint {
    /// The fingerprint of `data` (each element's bytes hashed; computed on all
    /// cores).
    pub fn of<T: bytemuck::Pod + Sync>(data: &[T]) -> Fingerprint {
        use rayon::prelude::*;
        let (sum, xor) = data
            .par_iter()
            .map(|x| {
                let h = bytemuck::bytes_of(x).chunks(8).fold(0x243F_6A88_85A3_08D3u64, |h, c| {
                    let mut w = [0u8; 8];
                    w[..c.len()].copy_from_slice(c);
                    crate::inputs::splitmix64(h ^ u64::from_le_bytes(w))
                });
                (h, crate::inputs::splitmix64(h))
            })
            .reduce(|| (0, 0), |a, b| (a.0.wrapping_add(b.0), a.1 ^ b.1));
        Fingerprint { len: data.len() as u64, sum, xor }
    }

    /// The fingerprint of the union of two multisets (for data seen in pieces).
    pub fn combine(self, o: Fingerprint) -> Fingerprint {
        Fingerprint { len: self.len + o.len, sum: self.sum.wrapping_add(o.sum), xor: self.xor ^ o.xor }
    }
}

/// Linear-time check for very large outputs: `output` is ordered and has the same
/// [`Fingerprint`] as the input. Does not check stability.
pub fn check_large<T: Element>(input: &[T], output: &[T], order: impl Into<KeyOrder>) -> Result<(), Mismatch> {
    use rayon::prelude::*;
    let order = order.into();
    if let Some(i) = output.par_windows(2).position_any(|w| order.sort_bits(&w[0]) > order.sort_bits(&w[1])) {
        let o = order.order;
        return Err(Mismatch(format!("not ordered ({o}) at index {i}: {:?} then {:?}", output[i], output[i + 1])));
    }
    let (a, b) = (Fingerprint::of(input), Fingerprint::of(output));
    if a != b {
        return Err(Mismatch(format!(
            "not a permutation of the input (fingerprints differ: {} vs {} elements)",
            a.len, b.len
        )));
    }
    Ok(())
}

/// Whether `perm` sorts `keys` in `order`, ties in any order (an unstable argsort):
/// a permutation of `0..n` whose keys have, place by place, the order bits of the keys
/// of `reference`, a known sorting permutation (the stable one).
pub fn is_sorting_permutation<K: Key, I: Index>(keys: &[K], perm: &[I], reference: &[u32], order: KeyOrder) -> bool {
    let n = keys.len();
    if perm.len() != n || reference.len() != n {
        return false;
    }
    let mut seen = vec![false; n];
    perm.iter().zip(reference).all(|(&p, &r)| {
        let p = p.to_u64() as usize;
        p < n
            && !std::mem::replace(&mut seen[p], true)
            && order.sort_bits(&keys[p]) == order.sort_bits(&keys[r as usize])
    })
}

fn first_difference<T: Element>(a: &[T], b: &[T]) -> Option<usize> {
    let ab: &[u8] = bytemuck::cast_slice(a);
    let bb: &[u8] = bytemuck::cast_slice(b);
    if ab == bb {
        return None;
    }
    let byte = ab.iter().zip(bb).position(|(x, y)| x != y).unwrap_or(0);
    Some(byte / size_of::<T>())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Entity, NanOrder, Order};

    #[test]
    fn nan_last_outputs_are_checked_in_nan_last_order() {
        let (neg_nan, nan) = (f32::from_bits(0xffc0_0000), f32::from_bits(0x7fc0_0001));
        let input = [nan, 1.0, neg_nan, -2.0];
        let last = KeyOrder::new(Order::Ascending, NanOrder::Last);
        check(&input, &[-2.0, 1.0, nan, neg_nan], last, true).unwrap();
        check_large(&input, &[-2.0, 1.0, neg_nan, nan], last).unwrap();
        // NaNs keep their input order in a stable NaN-last sort.
        assert!(check(&input, &[-2.0, 1.0, neg_nan, nan], last, true).is_err());
        // Total order puts -NaN first: that output is not NaN-last order, and back.
        assert!(check(&input, &[neg_nan, -2.0, 1.0, nan], last, false).is_err());
        assert!(check(&input, &[-2.0, 1.0, nan, neg_nan], Order::Ascending, false).is_err());
    }

    fn e(d: f32, id: u32) -> Entity {
        Entity { distance_from_player: d, id, position: [0.0; 3] }
    }

    #[test]
    fn accepts_correct_sorts() {
        let input = [3u32, 1, 2, 1];
        check(&input, &[1, 1, 2, 3], Order::Ascending, true).unwrap();
        check(&input, &[3, 2, 1, 1], Order::Descending, true).unwrap();
    }

    #[test]
    fn rejects_unordered_lost_and_duplicated() {
        let input = [3u32, 1, 2];
        assert!(check(&input, &[1, 3, 2], Order::Ascending, false).is_err());
        assert!(check(&input, &[1, 2, 2], Order::Ascending, false).is_err());
        assert!(check(&input, &[1, 2], Order::Ascending, false).is_err());
    }

    #[test]
    fn sorting_permutations_may_order_ties_freely_but_nothing_else() {
        let keys = [5u32, 1, 5, 3];
        let (asc, desc) = (KeyOrder::from(Order::Ascending), KeyOrder::from(Order::Descending));
        let stable = [1u32, 3, 0, 2];
        assert!(is_sorting_permutation(&keys, &stable, &stable, asc));
        assert!(is_sorting_permutation(&keys, &[1u64, 3, 2, 0], &stable, asc));
        assert!(!is_sorting_permutation(&keys, &[3u32, 1, 0, 2], &stable, asc), "out of order");
        assert!(!is_sorting_permutation(&keys, &[1u32, 3, 0, 0], &stable, asc), "an index twice");
        assert!(!is_sorting_permutation(&keys, &[1u32, 3, 0, 4], &stable, asc), "an index past the end");
        assert!(!is_sorting_permutation(&keys, &[1u32, 3, 0], &stable, asc), "too short");
        assert!(is_sorting_permutation(&keys, &[2u32, 0, 3, 1], &[0, 2, 3, 1], desc));
        // NaN-last order: NaNs of any payload are one key, -0.0 is +0.0.
        let (nan, other_nan) = (f32::NAN, f32::from_bits(0xffc0_0042));
        let floats = [nan, 0.0, other_nan, -0.0];
        let last = KeyOrder::new(Order::Ascending, crate::NanOrder::Last);
        assert!(is_sorting_permutation(&floats, &[3u32, 1, 2, 0], &[1, 3, 0, 2], last));
        assert!(!is_sorting_permutation(&floats, &[0u32, 1, 2, 3], &[1, 3, 0, 2], last));
    }

    #[test]
    fn stability_is_checked_only_when_promised() {
        let input = [e(1.0, 0), e(1.0, 1)];
        let swapped = [e(1.0, 1), e(1.0, 0)];
        assert!(check(&input, &swapped, Order::Ascending, true).is_err());
        check(&input, &swapped, Order::Ascending, false).unwrap();
    }

    #[test]
    fn fingerprint_check_catches_loss_duplication_and_disorder() {
        let input: Vec<u32> = (0..1000).map(|i| (i * 7919) % 1000).collect();
        let mut sorted = input.clone();
        sorted.sort();
        check_large(&input, &sorted, Order::Ascending).unwrap();
        let mut dup = sorted.clone();
        dup[10] = dup[11];
        assert!(check_large(&input, &dup, Order::Ascending).is_err());
        let mut swapped = sorted.clone();
        swapped.swap(3, 4);
        assert!(check_large(&input, &swapped, Order::Ascending).is_err());
        assert!(check_large(&input, &sorted[1..], Order::Ascending).is_err());
        assert_eq!(Fingerprint::of(&input), Fingerprint::of(&sorted));
    }

    #[test]
    fn payload_corruption_is_caught() {
        let input = [e(1.0, 0), e(2.0, 1)];
        assert!(check(&input, &[e(1.0, 0), e(2.0, 7)], Order::Ascending, false).is_err());
    }
}
