//! The sample positions of the splitter kernels.
use super::*;

#[test]
fn samples_are_inside_and_increasing() {
    for n in 1..200u64 {
        for max in [1u64, 2, 3, 7, 64, 4096] {
            let s = sample_count(n, max);
            assert!(s >= 1 && s <= n.min(max));
            let mut last = None;
            for i in 0..s {
                let p = sample_position(i, s, n);
                assert!(p < n, "n {n} s {s} i {i}");
                assert!(last.is_none_or(|l| p > l), "positions strictly increase");
                last = Some(p);
            }
            if n <= max {
                assert_eq!(s, n);
            }
        }
    }
    // Jittered positions: inside their slice, increasing, every key when all are
    // sampled.
    for n in 1..300u64 {
        for max in [1u64, 3, 64, 4096] {
            let s = sample_count(n, max);
            let mut last = None;
            for i in 0..s {
                let p = jittered_position(i, s, n);
                assert!(p >= i * n / s && p < (i + 1) * n / s, "n {n} s {s} i {i}");
                assert!(last.is_none_or(|l| p > l));
                last = Some(p);
                if s == n {
                    assert_eq!(p, i);
                }
            }
        }
    }
    // No overflow near the top of the range.
    let n = u64::MAX / 2;
    let last = sample_position(4095, 4096, n);
    assert!(last < n && last > n - n / 4096);
}
