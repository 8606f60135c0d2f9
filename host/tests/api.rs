//! Library behaviour that needs no GPU: CPU fallback, errors instead of panics.
mod common;

use host::{Backend, Error, Order, SortOptions, Sorter, Variant};

#[test]
fn cpu_backend_sorts_and_says_so() {
    let sorter = Sorter::cpu();
    let mut v = vec![3u32, 1, 2];
    let ran = sorter.sort(&mut v, &SortOptions::new(Variant::Naive).order(Order::Descending)).unwrap();
    assert_eq!(v, [3, 2, 1]);
    assert!(matches!(ran, Backend::Cpu(_)));
}

#[test]
fn fallback_always_sorts() {
    let sorter = Sorter::with_fallback();
    let mut v: Vec<f32> = vec![2.0, -0.0, 0.0, f32::NAN, -f32::NAN, f32::NEG_INFINITY];
    sorter.sort(&mut v, &SortOptions::default()).unwrap();
    let bits: Vec<u32> = v.iter().map(|x| x.to_bits()).collect();
    let mut expect = [2.0f32, -0.0, 0.0, f32::NAN, -f32::NAN, f32::NEG_INFINITY];
    expect.sort_by(f32::total_cmp);
    assert_eq!(bits, expect.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
}

#[test]
fn device_calls_without_device_are_errors() {
    let sorter = Sorter::cpu();
    assert!(matches!(sorter.upload(&[1u32]), Err(Error::NoDevice(_))));
}

/// Every backend refuses the same block sizes (what runs on the CPU runs on a GPU).
#[test]
fn bad_block_size_is_an_error_on_every_backend() {
    for sorter in [Sorter::cpu(), Sorter::with_fallback()] {
        let mut v = vec![1u32, 0];
        for bad in [0, 16, 33, 100, 2048, u32::MAX] {
            let r = sorter.sort(&mut v, &SortOptions::new(Variant::Naive).block_size(bad));
            assert!(matches!(r, Err(Error::BadArgument(_))), "block size {bad} on {}: {r:?}", sorter.backend());
            assert_eq!(v, [1, 0], "data left alone");
        }
        for good in [32, 256, 1024] {
            sorter.sort(&mut v, &SortOptions::new(Variant::Naive).block_size(good)).unwrap();
        }
        assert_eq!(v, [0, 1]);
    }
}

#[test]
fn too_large_allocation_is_out_of_memory() {
    let Some(sorter) = common::gpu_sorter("out_of_memory") else {
        return;
    };
    let gpu = sorter.gpu().unwrap();
    let (_, total) = gpu.mem_info().unwrap();
    let r = gpu.alloc::<u64>((total / 8 + 1) as usize);
    assert!(matches!(r, Err(Error::OutOfMemory { .. })), "{r:?}");
}

/// Segment `i` of `input` sorted by the CPU reference, everything else as it was.
fn segments_by_reference<T: host::Element>(input: &[T], offsets: &[usize], order: Order) -> Vec<T> {
    let mut want = input.to_vec();
    for w in offsets.windows(2) {
        host::testing::cpu::reference_sort(&mut want[w[0]..w[1]], order);
    }
    want
}

fn bits_of<T: host::Element>(v: &[T]) -> Vec<u64> {
    v.iter().map(|x| x.bits().into()).collect()
}

fn check_cpu_segments<T: host::testing::inputs::Random + host::Key>() {
    let n = 20_000;
    let input: Vec<T> = host::testing::inputs::generate(n, host::Distribution::FewUnique, 9);
    let mut offsets = host::testing::inputs::segment_offsets(n - 100, 200, 3);
    offsets.iter_mut().for_each(|o| *o += 50); // keys 0..50 and n-50.. are outside
    offsets.insert(100, offsets[100]); // an empty segment
    offsets.push(n - 50 + 1); // one of length 1
    offsets.push(n - 10); // one long enough for the CPU's parallel sort if it were larger
    for order in [Order::Ascending, Order::Descending] {
        let mut got = input.clone();
        let ran = Sorter::cpu().sort_segments(&mut got, &offsets, &SortOptions::default().order(order)).unwrap();
        assert!(matches!(ran, Backend::Cpu(_)));
        assert_eq!(bits_of(&got), bits_of(&segments_by_reference(&input, &offsets, order)), "{} {order}", T::NAME);
    }
}

#[test]
fn cpu_segmented_sort_equals_the_reference_per_segment() {
    check_cpu_segments::<u32>();
    check_cpu_segments::<i32>();
    check_cpu_segments::<f32>();
    check_cpu_segments::<u64>();
    check_cpu_segments::<i64>();
    check_cpu_segments::<f64>();
    // A segment past the CPU's long-segment threshold, and special floats.
    let specials = [f64::NAN, -f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0, -0.0, 1.0, -1.0];
    let input: Vec<f64> = (0..200_000).map(|i| specials[i * 7 % 8] * (i % 5) as f64).collect();
    let offsets = [3, 10, 150_000, 199_999];
    let mut got = input.clone();
    Sorter::cpu().sort_segments(&mut got, &offsets, &SortOptions::default()).unwrap();
    assert_eq!(bits_of(&got), bits_of(&segments_by_reference(&input, &offsets, Order::Ascending)));
}

#[test]
fn segmented_sort_bad_arguments_are_errors_and_leave_keys_alone() {
    for sorter in [Sorter::cpu(), Sorter::with_fallback()] {
        let keys = vec![5u32, 4, 3, 2, 1];
        let opts = SortOptions::default();
        for bad in [&[0, 3, 2][..], &[0, 6], &[6], &[2, 1, 5], &[0, 5, 4]] {
            let mut k = keys.clone();
            let r = sorter.sort_segments(&mut k, bad, &opts);
            assert!(matches!(r, Err(Error::BadArgument(_))), "{bad:?}: {r:?}");
            assert_eq!(k, keys, "{bad:?}");
        }
        // Records (`Entity`) are not `Key`s: passing them here does not compile.
        // No segments, empty input, empty segments: nothing to do.
        let mut k = keys.clone();
        for ok in [&[][..], &[3], &[2, 2, 2], &[5, 5]] {
            sorter.sort_segments(&mut k, ok, &opts).unwrap();
            assert_eq!(k, keys, "{ok:?}");
        }
        let mut empty: Vec<u64> = vec![];
        sorter.sort_segments(&mut empty, &[0, 0], &opts).unwrap();
        sorter.sort_segments(&mut k, &[0, 5], &opts).unwrap();
        assert_eq!(k, [1, 2, 3, 4, 5]);
    }
}

/// The order the library promises, written with std's comparisons only: integers by
/// value, floats by IEEE 754 total order.
trait TotalOrder: host::Key {
    fn total(&self, other: &Self) -> std::cmp::Ordering;
}

macro_rules! total_order {
    ($cmp:ident: $($t:ty),*) => {$(
        impl TotalOrder for $t {
            fn total(&self, other: &Self) -> std::cmp::Ordering {
                self.$cmp(other)
            }
        }
    )*};
}
total_order!(cmp: u32, i32, u64, i64);
total_order!(total_cmp: f32, f64);

/// The oracle of a stable per-segment pair sort: std's stable `sort_by` of each
/// segment's (key, value) pairs by [`TotalOrder`], reversed for descending (a reversed
/// comparison keeps equal keys in input order); everything outside the segments as it
/// was.
fn pairs_by_std_sort<T: TotalOrder>(keys: &[T], vals: &[u32], offsets: &[usize], order: Order) -> (Vec<T>, Vec<u32>) {
    let (mut k, mut v) = (keys.to_vec(), vals.to_vec());
    for w in offsets.windows(2) {
        let mut seg: Vec<(T, u32)> = keys[w[0]..w[1]].iter().copied().zip(vals[w[0]..w[1]].iter().copied()).collect();
        seg.sort_by(|a, b| if order.is_descending() { b.0.total(&a.0) } else { a.0.total(&b.0) });
        for (j, (key, val)) in seg.into_iter().enumerate() {
            (k[w[0] + j], v[w[0] + j]) = (key, val);
        }
    }
    (k, v)
}

#[test]
fn cpu_segmented_pairs_are_stable_per_segment() {
    fn one<T: TotalOrder>(keys: Vec<T>) {
        let n = keys.len();
        let vals: Vec<u32> = (0..n as u32).collect();
        let mut offsets = host::testing::inputs::segment_offsets(n - 20, 50, 8);
        offsets.iter_mut().for_each(|o| *o += 10); // keys 0..10 and n-10.. are outside
        for order in [Order::Ascending, Order::Descending] {
            let (mut k, mut v) = (keys.clone(), vals.clone());
            Sorter::cpu().sort_segments_pairs(&mut k, &mut v, &offsets, &SortOptions::default().order(order)).unwrap();
            let (wk, wv) = pairs_by_std_sort(&keys, &vals, &offsets, order);
            assert_eq!(bits_of(&k), bits_of(&wk), "{} {order}", T::NAME);
            assert_eq!(v, wv, "{} {order}", T::NAME);
        }
    }
    fn few_unique<T: host::testing::inputs::Random>(seed: u64) -> Vec<T> {
        host::testing::inputs::generate(10_000, host::Distribution::FewUnique, seed)
    }
    one::<u32>(few_unique(4));
    one::<i32>(few_unique(5));
    one::<u64>(few_unique(6));
    one::<i64>(few_unique(7));
    // Floats with NaNs of both signs, infinities and both zeros among the repeats, where
    // total order differs from `<`.
    let specials = [f64::NAN, -f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0, -0.0, 1.5, -1.5];
    let floats: Vec<f64> = few_unique::<f64>(8)
        .into_iter()
        .enumerate()
        .map(|(i, x)| if i % 3 == 0 { specials[i % 8] } else { x })
        .collect();
    one::<f32>(floats.iter().map(|&x| x as f32).collect());
    one::<f64>(floats);
}

#[test]
fn segmented_pairs_bad_arguments_are_errors_and_leave_data_alone() {
    for sorter in [Sorter::cpu(), Sorter::with_fallback()] {
        let keys = vec![5u32, 4, 3, 2, 1];
        let vals = vec![0u32, 1, 2, 3, 4];
        let opts = SortOptions::default();
        for (bad, vlen) in [(&[0, 3, 2][..], 5), (&[0, 6], 5), (&[0, 5], 4), (&[0, 5], 6)] {
            let (mut k, mut v) = (keys.clone(), vals.clone());
            v.resize(vlen, 9);
            let v0 = v.clone();
            let r = sorter.sort_segments_pairs(&mut k, &mut v, bad, &opts);
            let expected = if vlen == 5 {
                matches!(r, Err(Error::BadArgument(_)))
            } else {
                matches!(r, Err(Error::LengthMismatch { keys: 5, values }) if values == vlen)
            };
            assert!(expected, "{bad:?} {vlen}: {r:?}");
            assert_eq!((k, v), (keys.clone(), v0), "{bad:?}");
        }
        // Records (`Entity`) are not `Key`s: passing them here does not compile.
    }
}

/// `sort_into` leaves its source as it was and fills the destination with the sorted
/// copy, on every backend; a destination of another length is an error that touches
/// neither slice.
#[test]
fn sort_into_sorts_a_copy_and_refuses_other_lengths() {
    for sorter in [Sorter::cpu(), Sorter::with_fallback()] {
        let src = vec![3.5f32, -0.0, f32::NAN, -7.25, 0.0, 3.5];
        let mut dst = vec![1.0f32; 6];
        sorter.sort_into(&src, &mut dst, &SortOptions::default().order(Order::Descending)).unwrap();
        let mut want = src.clone();
        sorter.sort(&mut want, &SortOptions::default().order(Order::Descending)).unwrap();
        assert_eq!(
            dst.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            want.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        );
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&src), bits(&[3.5, -0.0, f32::NAN, -7.25, 0.0, 3.5]), "the source is unchanged");
        let mut short = vec![9.0f32; 5];
        let r = sorter.sort_into(&src, &mut short, &SortOptions::default());
        assert!(matches!(r, Err(Error::BadArgument(_))), "{r:?}");
        assert_eq!(short, [9.0; 5]);
    }
}

/// `sort_pairs_into` gives `sort_pairs`' result, which is the CPU's stable one
/// (NaN-last and total order, NaNs and both zeros among the keys, values of 4 and 8
/// bytes), without touching its inputs, on every backend; outputs of other lengths
/// are errors that touch nothing.
#[test]
fn sort_pairs_into_sorts_copies_and_refuses_other_lengths() {
    let n = 5_003;
    let keys: Vec<f32> = (0..n)
        .map(|i| match i % 7 {
            0 => f32::NAN,
            1 => -0.0,
            2 => 0.0,
            3 => -f32::NAN,
            _ => ((i * 7919) % 101) as f32 - 50.0,
        })
        .collect();
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    let wide: Vec<u64> = (0..n as u64).map(|i| i * 3 + 1).collect();
    let narrow: Vec<u32> = (0..n as u32).map(|i| i % 251).collect();
    for sorter in [Sorter::cpu(), Sorter::with_fallback()] {
        for opts in [SortOptions::default().nan_last().order(Order::Descending), SortOptions::default()] {
            let (mut k, mut v) = (keys.clone(), wide.clone());
            sorter.sort_pairs(&mut k, &mut v, &opts).unwrap();
            let (mut want_k, mut want_v) = (keys.clone(), wide.clone());
            Sorter::cpu().sort_pairs(&mut want_k, &mut want_v, &opts).unwrap();
            assert_eq!((bits(&k), &v), (bits(&want_k), &want_v), "{opts:?}: the CPU's stable result");
            let (mut ko, mut vo) = (vec![0f32; n], vec![0u64; n]);
            sorter.sort_pairs_into(&keys, &wide, &mut ko, &mut vo, &opts).unwrap();
            assert_eq!((bits(&ko), &vo), (bits(&k), &v), "{opts:?}: u64 values");
            let (mut k4, mut v4) = (keys.clone(), narrow.clone());
            sorter.sort_pairs(&mut k4, &mut v4, &opts).unwrap();
            let (mut ko4, mut vo4) = (vec![0f32; n], vec![0u32; n]);
            sorter.sort_pairs_into(&keys, &narrow, &mut ko4, &mut vo4, &opts).unwrap();
            assert_eq!((bits(&ko4), &vo4), (bits(&k4), &v4), "{opts:?}: u32 values");
            // The values follow their keys: each value's key is where it went.
            for (key, value) in ko.iter().zip(&vo) {
                assert_eq!(key.to_bits(), keys[((value - 1) / 3) as usize].to_bits());
            }
        }
        assert_eq!(bits(&keys[..4]), bits(&[f32::NAN, -0.0, 0.0, -f32::NAN]), "the keys are unchanged");
        let (mut short, mut vo) = (vec![0f32; n - 1], vec![0u64; n]);
        let r = sorter.sort_pairs_into(&keys, &wide, &mut short, &mut vo, &SortOptions::default());
        assert!(matches!(r, Err(Error::BadArgument(_))), "{r:?}");
        assert!(vo.iter().all(|&x| x == 0));
        let r = sorter.sort_pairs_into(&keys, &wide[1..], &mut short, &mut vo[1..], &SortOptions::default());
        assert!(matches!(r, Err(Error::LengthMismatch { .. })), "{r:?}");
    }
}

/// A sorter runs by the tuning it was opened with, on every backend; on a GPU the
/// device knobs decide how the kernels were loaded and launched (forced PTX, no
/// dependent launches, a launch-by-launch check), and sorting still works under them.
#[test]
fn sorters_carry_their_tuning_to_the_device() {
    let mut tuning = host::Tuning::default();
    tuning.force_ptx = true;
    tuning.pdl = false;
    tuning.sync_launches = true;
    tuning.file_stages = 2;
    assert_eq!(Sorter::cpu_tuned(tuning.clone()).tuning(), &tuning);
    assert_eq!(Sorter::cpu().tuning(), &host::Tuning::default());
    let sorter = Sorter::with_fallback_tuned(tuning.clone());
    assert_eq!(sorter.tuning(), &tuning);
    let mut v: Vec<u64> = (0..100_000u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
    let mut want = v.clone();
    want.sort();
    sorter.sort(&mut v, &SortOptions::default()).unwrap();
    assert_eq!(v, want);
    if let Some(gpu) = sorter.gpu() {
        assert_eq!(gpu.tuning(), &tuning);
        assert_eq!(gpu.module_source(), &host::ModuleSource::Ptx, "force_ptx loads the PTX");
        assert!(!gpu.kernels_summary().contains("dependents"), "pdl off: {}", gpu.kernels_summary());
        // The PTX file is read when the module is loaded: a missing one fails the open.
        let mut missing = host::Tuning::default();
        missing.ptx_file = Some(std::env::temp_dir().join("no-such-kernels.ptx"));
        let r = Sorter::new_tuned(missing);
        assert!(matches!(r, Err(Error::Io { .. })), "{:?}", r.err());
    }
}
