//! Independent check of a sorted file against its input (`host check-file`): the
//! output is ordered, and input and output hold the same multiset of elements.
//!
//! The multiset comparison uses an order-independent fingerprint: the element count
//! and two wrapping 64-bit sums of differently seeded hashes of each element's bytes.
//! A lost, duplicated or altered element changes the sums except with probability
//! about 2^-128. Binary files are streamed in blocks, so checking needs little memory.
use std::path::Path;

use rayon::prelude::*;

use super::format::{self, BinaryReader, Format, TextElement};
use crate::error::{Error, Result};
use crate::inputs::splitmix64;
use crate::{Element, KeyType, Order};

/// Order-independent summary of a multiset of elements.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fingerprint {
    pub count: u64,
    pub sum_a: u64,
    pub sum_b: u64,
}

impl Fingerprint {
    pub fn of<T: Element>(data: &[T]) -> Fingerprint {
        data.par_chunks(1 << 16)
            .map(|c| {
                let mut f = Fingerprint::default();
                for x in c {
                    f.add(bytemuck::bytes_of(x));
                }
                f
            })
            .reduce(Fingerprint::default, Fingerprint::combine)
    }

    fn add(&mut self, bytes: &[u8]) {
        let (mut a, mut b) = (0x243F_6A88_85A3_08D3u64, 0x1319_8A2E_0370_7344u64);
        for word in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..word.len()].copy_from_slice(word);
            let w = u64::from_le_bytes(w);
            a = splitmix64(a ^ w);
            b = splitmix64(b.wrapping_add(w).rotate_left(17));
        }
        self.count += 1;
        self.sum_a = self.sum_a.wrapping_add(a);
        self.sum_b = self.sum_b.wrapping_add(b);
    }

    pub fn combine(self, o: Fingerprint) -> Fingerprint {
        Fingerprint {
            count: self.count + o.count,
            sum_a: self.sum_a.wrapping_add(o.sum_a),
            sum_b: self.sum_b.wrapping_add(o.sum_b),
        }
    }
}

impl std::fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} elements, {:016x}{:016x}", self.count, self.sum_a, self.sum_b)
    }
}

/// A successful check.
#[derive(Clone, Copy, Debug)]
pub struct CheckReport {
    pub fingerprint: Fingerprint,
    pub order: Order,
}

impl std::fmt::Display for CheckReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ok: ordered ({}), same multiset as the input (fingerprint {})", self.order, self.fingerprint)
    }
}

/// Fingerprint of a file's elements and, if `order` is given, the index of the first
/// element that is out of that order.
struct Scan {
    fingerprint: Fingerprint,
    first_unordered: Option<usize>,
}

const BLOCK: usize = 1 << 24;

fn scan<T: TextElement>(path: &Path, format: Format, order: Option<Order>) -> Result<Scan> {
    let mut s = Scan { fingerprint: Fingerprint::default(), first_unordered: None };
    let mut prev: Option<T> = None;
    let mut offset = 0usize;
    let mut visit = |block: &[T]| {
        s.fingerprint = s.fingerprint.combine(Fingerprint::of(block));
        if let (Some(order), None) = (order, s.first_unordered) {
            let desc = order.is_descending();
            let out_of_order = |a: &T, b: &T| a.ord_bits(desc) > b.ord_bits(desc);
            if let (Some(p), Some(first)) = (&prev, block.first())
                && out_of_order(p, first)
            {
                s.first_unordered = Some(offset - 1);
            } else if let Some(i) = block.par_windows(2).position_first(|w| out_of_order(&w[0], &w[1])) {
                s.first_unordered = Some(offset + i);
            }
        }
        prev = block.last().copied().or(prev);
        offset += block.len();
    };
    match format {
        Format::Binary => {
            let mut r = BinaryReader::<T>::open(path, BLOCK)?;
            while let Some(block) = r.next_piece()? {
                visit(&block);
            }
        }
        Format::Text => visit(&format::read_text::<T>(path)?),
    }
    Ok(s)
}

/// Checks that `output` is `input` sorted in `order`. A failed check is
/// [`Error::BadInput`] saying what is wrong.
pub fn check_files(
    key_type: KeyType,
    format: Format,
    input: &Path,
    output: &Path,
    order: Order,
) -> Result<CheckReport> {
    crate::with_key_type!(key_type, T => {
        let (a, b) = rayon::join(|| scan::<T>(input, format, None), || scan::<T>(output, format, Some(order)));
        let (a, b) = (a?, b?);
        if let Some(i) = b.first_unordered {
            return Err(Error::BadInput(format!(
                "{} is not ordered ({order}): elements {i} and {} are out of order",
                output.display(),
                i + 1
            )));
        }
        if a.fingerprint != b.fingerprint {
            return Err(Error::BadInput(format!(
                "{} does not hold the same elements as {}: fingerprints {} vs {}",
                output.display(),
                input.display(),
                b.fingerprint,
                a.fingerprint
            )));
        }
        Ok(CheckReport { fingerprint: b.fingerprint, order })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprint_ignores_order_but_sees_changes() {
        let a = [1u64, 2, 3, 3];
        assert_eq!(Fingerprint::of(&a), Fingerprint::of(&[3u64, 1, 3, 2]));
        assert_ne!(Fingerprint::of(&a), Fingerprint::of(&[1u64, 2, 3]));
        assert_ne!(Fingerprint::of(&a), Fingerprint::of(&[1u64, 2, 3, 4]));
        assert_ne!(Fingerprint::of(&a), Fingerprint::of(&[1u64, 2, 2, 3]));
        // Swapping values between two elements must show even if the sums of the raw
        // values agree.
        assert_ne!(Fingerprint::of(&[1u32, 4]), Fingerprint::of(&[2u32, 3]));
    }

    #[test]
    fn check_finds_disorder_across_blocks_and_lost_elements() {
        let dir = std::env::temp_dir();
        let (inp, out) = (
            dir.join(format!("host-check-in-{}", std::process::id())),
            dir.join(format!("host-check-out-{}", std::process::id())),
        );
        let input: Vec<u32> = (0..(BLOCK + 10) as u32).rev().collect();
        format::write_file(&inp, &input, Format::Binary).unwrap();
        let mut sorted = input.clone();
        sorted.sort();
        format::write_file(&out, &sorted, Format::Binary).unwrap();
        check_files(KeyType::U32, Format::Binary, &inp, &out, Order::Ascending).unwrap();
        let e = check_files(KeyType::U32, Format::Binary, &inp, &out, Order::Descending).unwrap_err().to_string();
        assert!(e.contains("elements 0 and 1"), "{e}");
        // Disorder exactly at the block boundary.
        sorted.swap(BLOCK - 1, BLOCK);
        format::write_file(&out, &sorted, Format::Binary).unwrap();
        let e = check_files(KeyType::U32, Format::Binary, &inp, &out, Order::Ascending).unwrap_err().to_string();
        assert!(e.contains(&format!("elements {} and {}", BLOCK - 1, BLOCK)), "{e}");
        sorted.swap(BLOCK - 1, BLOCK);
        sorted[5] = sorted[4];
        format::write_file(&out, &sorted, Format::Binary).unwrap();
        let e = check_files(KeyType::U32, Format::Binary, &inp, &out, Order::Ascending).unwrap_err().to_string();
        assert!(e.contains("same elements"), "{e}");
        std::fs::remove_file(&inp).unwrap();
        std::fs::remove_file(&out).unwrap();
    }
}
