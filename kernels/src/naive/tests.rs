//! CPU runs of the naive merge passes, element by element, as the kernel runs them.
extern crate std;
use super::*;
use std::vec::Vec;

/// Runs every pass on the CPU with `merge_target`, as the GPU does.
fn simulate(mut v: Vec<(u32, usize)>) -> Vec<(u32, usize)> {
    let n = v.len() as u64;
    for log_chunk in 0..pass_count(n) {
        let mut out = v.clone();
        let mut written = std::vec![false; v.len()];
        for i in 0..n {
            let t = merge_target(i, n, log_chunk, |j| v[j as usize].0) as usize;
            assert!(!written[t], "two elements sent to {t}");
            written[t] = true;
            out[t] = v[i as usize];
        }
        v = out;
    }
    v
}

#[test]
fn any_length_sorts_stably() {
    let mut state = 7u64;
    for n in (0..300usize).chain([511, 512, 513, 1000, 1023, 1025]) {
        let input: Vec<(u32, usize)> = (0..n)
            .map(|i| {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                (((state >> 40) % 17) as u32, i)
            })
            .collect();
        let mut expect = input.clone();
        expect.sort_by_key(|e| e.0);
        assert_eq!(simulate(input), expect, "n = {n}");
    }
}

#[test]
fn pass_counts() {
    assert_eq!(pass_count(0), 0);
    assert_eq!(pass_count(1), 0);
    assert_eq!(pass_count(2), 1);
    assert_eq!(pass_count(3), 2);
    assert_eq!(pass_count(256), 8);
    assert_eq!(pass_count(257), 9);
    assert_eq!(pass_count(1 << 40), 40);
}
