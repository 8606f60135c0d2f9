//! Row-wise sorts of a row-major matrix on the CPU: one row per task, the same order
//! bits (and NaN-last order) as every sort of this library.
use rayon::prelude::*;

use crate::element::Element;
use crate::options::KeyOrder;

/// The stable sorting permutation of each row of `keys` (`cols` > 0 columns), as
/// column indices.
pub fn argsort_rows<K: Element>(keys: &[K], cols: usize, order: KeyOrder) -> Vec<u32> {
    let mut idx = vec![0u32; keys.len()];
    idx.par_chunks_mut(cols).zip(keys.par_chunks(cols)).for_each(|(idx, row)| {
        idx.iter_mut().enumerate().for_each(|(j, v)| *v = j as u32);
        idx.sort_by_key(|&j| order.sort_bits(&row[j as usize]));
    });
    idx
}

/// The first `min(k, cols)` of each row's stable sort, keys and columns, as
/// `rows` x `min(k, cols)` matrices.
pub fn top_k_rows<K: Element>(keys: &[K], cols: usize, k: usize, order: KeyOrder) -> (Vec<K>, Vec<u32>) {
    let kk = k.min(cols);
    if kk == 0 {
        return (Vec::new(), Vec::new());
    }
    let per_row: Vec<(Vec<K>, Vec<u32>)> =
        keys.par_chunks(cols).map(|row| crate::sorter::cpu_top_k(row, kk, order)).collect();
    per_row.into_iter().fold((Vec::new(), Vec::new()), |(mut ks, mut is), (k, i)| {
        ks.extend(k);
        is.extend(i);
        (ks, is)
    })
}
