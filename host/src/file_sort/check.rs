//! Independent check of a sorted file against its input (`host check-file`): the
//! output is ordered, and input and output hold the same multiset of elements.
//!
//! The multiset comparison uses [`crate::verify::Fingerprint`], combined over blocks:
//! both files are streamed (either may be a pipe), so checking needs little memory
//! whatever the file size.
use rayon::prelude::*;

use super::format::{Format, TextElement};
use super::source::{ElementReader, Input};
use crate::error::{Error, Result};
use crate::verify::Fingerprint;
use crate::{KeyType, Order};

/// A successful check.
#[derive(Clone, Copy, Debug)]
pub struct CheckReport {
    /// Fingerprint of the checked file's elements (equal to the input's).
    pub fingerprint: Fingerprint,
    /// The order the elements were found in.
    pub order: Order,
}

impl std::fmt::Display for CheckReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "ok: {} elements, ordered ({}), same multiset as the input (by fingerprint)",
            self.fingerprint.len, self.order
        )
    }
}

/// Fingerprint of a file's elements and, if `order` is given, the index of the first
/// element that is out of that order.
struct Scan {
    fingerprint: Fingerprint,
    first_unordered: Option<usize>,
}

const BLOCK: usize = 1 << 24;

fn scan<T: TextElement>(input: &Input, format: Format, order: Option<Order>) -> Result<Scan> {
    let mut s = Scan { fingerprint: Fingerprint::default(), first_unordered: None };
    let mut prev: Option<T> = None;
    let mut offset = 0usize;
    let mut r = ElementReader::<T>::open(input, format)?;
    r.set_text_block(BLOCK);
    while let Some(block) = r.next_piece(BLOCK)? {
        s.fingerprint = s.fingerprint.combine(Fingerprint::of(&block));
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
    }
    Ok(s)
}

/// Checks that `output` is `input` sorted in `order`. A failed check is
/// [`Error::BadInput`] saying what is wrong.
pub fn check_files(
    key_type: KeyType,
    format: Format,
    input: impl Into<Input>,
    output: impl Into<Input>,
    order: Order,
) -> Result<CheckReport> {
    let (input, output) = (input.into(), output.into());
    if input == Input::Stdin && output == Input::Stdin {
        return Err(Error::BadArgument("only one of the two files can be standard input".into()));
    }
    // A missing file is named with its role (the readers call every file input).
    for (file, role) in [(&input, "input"), (&output, "output")] {
        if let Input::Path(path) = file {
            std::fs::metadata(path)
                .map_err(|source| Error::Io { context: format!("cannot read {role} {}", path.display()), source })?;
        }
    }
    let (input, output) = (&input, &output);
    crate::with_key_type!(key_type, T => {
        let (a, b) = rayon::join(|| scan::<T>(input, format, None), || scan::<T>(output, format, Some(order)));
        let (a, b) = (a?, b?);
        if let Some(i) = b.first_unordered {
            return Err(Error::BadInput(format!(
                "{output} is not ordered ({order}): elements {i} and {} are out of order",
                i + 1
            )));
        }
        if a.fingerprint != b.fingerprint {
            return Err(Error::BadInput(format!(
                "{output} does not hold the same elements as {input} (fingerprints differ; {} vs {} elements)",
                b.fingerprint.len,
                a.fingerprint.len
            )));
        }
        Ok(CheckReport { fingerprint: b.fingerprint, order })
    }, wide W => super::wide::check::<W>(input, output, format, order))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::file_sort::format;

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
        std::fs::remove_file(&out).unwrap();
        let e = check_files(KeyType::U32, Format::Binary, &inp, &out, Order::Ascending).unwrap_err().to_string();
        assert!(e.starts_with("cannot read output") && e.contains("host-check-out"), "{e}");
        std::fs::remove_file(&inp).unwrap();
        let e = check_files(KeyType::U32, Format::Binary, &inp, &out, Order::Ascending).unwrap_err().to_string();
        assert!(e.starts_with("cannot read input") && e.contains("host-check-in"), "{e}");
    }
}
