//! The multi-GPU sample sort (`MultiGpuSorter`) against the CPU reference: every key
//! type, both orders, every distribution, sizes from 0 up, pairs (stability), balance
//! under skew, device parts of any lengths, bad arguments, and a peer that stops
//! answering. Needs two GPUs and the NCCL library: skips with a message otherwise,
//! and fails instead when `SORT_REQUIRE_GPUS=2` says the run has them. The one-GPU
//! test needs one GPU (`SORT_REQUIRE_GPU=1` makes it fail without).
mod common;

use std::io::Write;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use host::testing::inputs::{Random, generate};
use host::testing::verify;
use host::{Distribution, Element, Entity, Error, Exchange, MultiGpuSorter, Order, Pipeline, SortOptions, Sorter};

const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];

/// The sorter over GPUs 0 and 1, shared by the tests of this binary (one NCCL
/// communicator pair) and tuned by the environment's `SORT_*` variables (as
/// `common::gpu_sorter`), or `None` after printing why the test is skipped.
fn two_gpus(test: &str) -> Option<std::sync::MutexGuard<'static, MultiGpuSorter>> {
    static SORTER: OnceLock<Result<Mutex<MultiGpuSorter>, String>> = OnceLock::new();
    let opened = SORTER.get_or_init(|| {
        let s = MultiGpuSorter::new_tuned(&[0, 1], host::Tuning::from_env()).map_err(|e| e.to_string())?;
        s.connect().map_err(|e| e.to_string())?;
        Ok(Mutex::new(s))
    });
    match opened {
        Ok(s) => {
            let mut s = s.lock().unwrap_or_else(|p| p.into_inner());
            // A test that chose a pipeline and failed leaves no trace in the others.
            s.set_pipeline(Pipeline::Auto);
            s.set_exchange(Exchange::Auto);
            s.set_exchange_chunks(host::testing::multi_gpu::DEFAULT_CHUNKS);
            Some(s)
        }
        Err(e) => {
            if std::env::var("SORT_REQUIRE_GPUS").is_ok_and(|v| v.parse::<usize>().is_ok_and(|n| n >= 2)) {
                panic!("{test}: SORT_REQUIRE_GPUS asks for 2 GPUs but: {e}");
            }
            host::testing::skipped(test, &format!("needs 2 GPUs and NCCL ({e})"));
            None
        }
    }
}

/// Sorts `input` over the GPUs as a host slice and checks it against the CPU sort;
/// returns the keys each GPU held.
fn check_keys<K: host::Key>(s: &MultiGpuSorter, input: &[K], order: Order, what: &str) -> Vec<u64> {
    let mut out = input.to_vec();
    let r = s
        .sort(&mut out, &SortOptions::default().order(order))
        .unwrap_or_else(|e| panic!("{what} {} n={} {order}: {e}", K::NAME, input.len()));
    if let Err(m) = verify::check(input, &out, order, false) {
        panic!("{what} {} n={} {order}: {m}", K::NAME, input.len());
    }
    assert_eq!(r.held.iter().sum::<u64>(), input.len() as u64);
    r.held
}

/// Pairs with index values: the values must be the CPU's stable argsort.
fn check_pairs<K: host::Key>(s: &MultiGpuSorter, input: &[K], order: Order, what: &str) {
    let n = input.len();
    let mut keys = input.to_vec();
    let mut idx: Vec<u32> = (0..n as u32).collect();
    s.sort_pairs(&mut keys, &mut idx, &SortOptions::default().order(order))
        .unwrap_or_else(|e| panic!("{what} {} n={n} {order}: {e}", K::NAME));
    let mut want: Vec<u32> = (0..n as u32).collect();
    let bits = |i: u32| input[i as usize].ord_bits(order.is_descending()).into();
    want.sort_by_key(|&i| bits(i)); // stable
    if idx != want {
        let at = idx.iter().zip(&want).position(|(a, b)| a != b);
        panic!("{what} {} n={n} {order}: values differ from the stable argsort first at {at:?}", K::NAME);
    }
    let kb: Vec<u64> = keys.iter().map(|k| k.ord_bits(false).into()).collect();
    let wb: Vec<u64> = want.iter().map(|&i| input[i as usize].ord_bits(false).into()).collect();
    assert!(kb == wb, "{what} {} n={n} {order}: keys do not match their values", K::NAME);
}

const SIZES: &[usize] = &[0, 1, 2, 3, 1000, 4097, 65_537, (1 << 20) + 13];

fn every_case<K: Random + host::Key>(test: &str) {
    let Some(s) = two_gpus(test) else { return };
    for &n in SIZES {
        for dist in Distribution::ALL.iter().copied() {
            let input: Vec<K> = generate(n, dist, n as u64 ^ 0x6d);
            for order in ORDERS {
                check_keys(&s, &input, order, &format!("{test} {dist}"));
            }
        }
    }
}

#[test]
fn keys_u32() {
    every_case::<u32>("keys_u32");
}

#[test]
fn keys_i32() {
    every_case::<i32>("keys_i32");
}

#[test]
fn keys_f32() {
    every_case::<f32>("keys_f32");
}

#[test]
fn keys_u64() {
    every_case::<u64>("keys_u64");
}

#[test]
fn keys_i64() {
    every_case::<i64>("keys_i64");
}

#[test]
fn keys_f64() {
    every_case::<f64>("keys_f64");
}

#[test]
fn special_floats() {
    let Some(s) = two_gpus("special_floats") else { return };
    let mut v: Vec<f32> = vec![f32::NAN, -f32::NAN, -0.0, 0.0, f32::INFINITY, f32::NEG_INFINITY, 1.0, -1.0];
    v = v.iter().cycle().take(100_003).copied().collect();
    for order in ORDERS {
        check_keys(&s, &v, order, "special_floats");
    }
}

#[test]
fn pairs_are_stable() {
    let Some(s) = two_gpus("pairs_are_stable") else { return };
    for &n in &[0usize, 1, 5, 4097, 300_001] {
        for dist in [Distribution::Uniform, Distribution::FewUnique, Distribution::Equal, Distribution::Sorted] {
            for order in ORDERS {
                check_pairs::<u32>(&s, &generate(n, dist, 3), order, &format!("pairs {dist}"));
                check_pairs::<f64>(&s, &generate(n, dist, 4), order, &format!("pairs {dist}"));
            }
        }
    }
    // u64 values move with their keys too.
    let keys: Vec<i32> = generate(100_000, Distribution::FewUnique, 9);
    let mut k = keys.clone();
    let mut v: Vec<u64> = (0..keys.len() as u64).map(|i| i << 32 | 7).collect();
    s.sort_pairs(&mut k, &mut v, &SortOptions::default()).unwrap();
    let mut want: Vec<u64> = (0..keys.len() as u64).collect();
    want.sort_by_key(|&i| keys[i as usize]);
    assert_eq!(v.iter().map(|x| x >> 32).collect::<Vec<_>>(), want);
    assert!(v.iter().all(|x| x & 0xffff_ffff == 7));
    // Wider values (20-byte records) take the re-sort path.
    let mut k = keys.clone();
    let mut e: Vec<Entity> =
        (0..keys.len()).map(|i| Entity { distance_from_player: i as f32, ..Entity::default() }).collect();
    s.sort_pairs(&mut k, &mut e, &SortOptions::default()).unwrap();
    assert_eq!(e.iter().map(|x| x.distance_from_player as u64).collect::<Vec<_>>(), want);
}

/// Every GPU ends within 10% of n / p however skewed the keys (ties are split by
/// input position).
#[test]
fn balanced_under_skew() {
    let Some(s) = two_gpus("balanced_under_skew") else { return };
    let n = 1 << 22;
    let cases: Vec<(&str, Vec<u32>)> = vec![
        ("all equal", vec![5; n]),
        ("two values", (0..n as u32).map(|i| i & 1).collect()),
        ("few unique", generate(n, Distribution::FewUnique, 1)),
        ("sorted", generate(n, Distribution::Sorted, 1)),
        ("reverse", generate(n, Distribution::Reverse, 1)),
        ("one outlier", (0..n as u32).map(|i| if i == 77 { u32::MAX } else { 1 }).collect()),
        // Periods at and near the sampling stride (n / 2 / 4096 = 512 keys per sample
        // slice): the partition-first pipeline's jittered samples still see them whole.
        ("period 512", (0..n as u32).map(|i| i % 512).collect()),
        ("period 1024", (0..n as u32).map(|i| i % 1024).collect()),
        ("period 500", (0..n as u32).map(|i| i % 500).collect()),
    ];
    let mut s = s;
    for pipeline in [Pipeline::SortFirst, Pipeline::PartitionFirst] {
        s.set_pipeline(pipeline);
        for (name, keys) in &cases {
            for order in ORDERS {
                let mut out = keys.clone();
                let r = s.sort(&mut out, &SortOptions::default().order(order)).unwrap();
                // The jittered samples of unsorted parts see these inputs well enough
                // that no fallback is needed.
                assert_eq!(r.pipeline, pipeline, "{name} {order}: fell back: {r:?}");
                let held = check_keys(&s, keys, order, name);
                for h in &held {
                    let ideal = n as f64 / 2.0;
                    assert!(
                        (*h as f64 - ideal).abs() <= 0.1 * ideal,
                        "{name} {} {order}: held {held:?}",
                        pipeline.name()
                    );
                }
            }
        }
    }
}

/// Both pipelines, chosen explicitly, give the sorted keys and stable pairs; the
/// partition-first one runs where it serves and refuses where it does not.
#[test]
fn both_pipelines() {
    let Some(mut s) = two_gpus("both_pipelines") else { return };
    for pipeline in [Pipeline::SortFirst, Pipeline::PartitionFirst] {
        s.set_pipeline(pipeline);
        for &n in &[0usize, 1, 4095, 4097, 1 << 19, (1 << 20) + 3] {
            for dist in [Distribution::Uniform, Distribution::FewUnique, Distribution::Reverse] {
                for order in ORDERS {
                    let what = format!("{} {dist}", pipeline.name());
                    let input: Vec<u64> = generate(n, dist, 11);
                    let mut out = input.clone();
                    let r = s.sort(&mut out, &SortOptions::default().order(order)).unwrap();
                    assert_eq!(r.pipeline, pipeline, "{what} n {n}: {r:?}");
                    verify::check(&input, &out, order, false).unwrap_or_else(|m| panic!("{what} n {n}: {m}"));
                    check_pairs::<f32>(&s, &generate(n, dist, 12), order, &what);
                }
            }
        }
    }
    let mut k: Vec<u32> = generate(1000, Distribution::Uniform, 1);
    let mut e = vec![Entity::default(); 1000];
    assert!(
        matches!(s.sort_pairs(&mut k, &mut e, &SortOptions::default()), Err(Error::BadArgument(_))),
        "partition first takes 4- and 8-byte values only"
    );
    s.set_pipeline(Pipeline::Auto);
    let r = s.sort_pairs(&mut k, &mut e, &SortOptions::default()).unwrap();
    assert_eq!(r.pipeline, Pipeline::SortFirst, "auto: sort first");
    let r = s.sort(&mut k, &SortOptions::default()).unwrap();
    assert_eq!(r.pipeline, Pipeline::SortFirst, "auto: sort first");
}

/// Device parts of any lengths (one empty) come back as the sorted ranges.
#[test]
fn uneven_device_parts() {
    let Some(s) = two_gpus("uneven_device_parts") else { return };
    let gpus = s.gpus();
    for (a, b) in [(0usize, 1000usize), (1000, 0), (1, 500_000), (300_000, 7), (0, 0)] {
        let x: Vec<u64> = generate(a, Distribution::Uniform, 1);
        let y: Vec<u64> = generate(b, Distribution::FewUnique, 2);
        let mut parts = vec![gpus[0].upload(&x).unwrap(), gpus[1].upload(&y).unwrap()];
        let r = s.sort_device(&mut parts, &SortOptions::default()).unwrap();
        let got = s.gather(&parts).unwrap();
        let mut want: Vec<u64> = x.iter().chain(&y).copied().collect();
        want.sort();
        assert_eq!(got, want, "parts of {a} and {b}");
        assert_eq!(r.held, vec![parts[0].len() as u64, parts[1].len() as u64]);
    }
}

#[test]
fn bad_arguments() {
    let Some(s) = two_gpus("bad_arguments") else { return };
    let gpus = s.gpus();
    let opts = SortOptions::default();
    let one = vec![gpus[0].upload(&[1u32, 2]).unwrap()];
    let mut one = one;
    assert!(matches!(s.sort_device(&mut one, &opts), Err(Error::BadArgument(_))), "one buffer for two GPUs");
    let mut swapped = vec![gpus[1].upload(&[3u32]).unwrap(), gpus[0].upload(&[1u32]).unwrap()];
    assert!(matches!(s.sort_device(&mut swapped, &opts), Err(Error::BadArgument(_))), "buffers on the wrong GPUs");
    let mut k = vec![1u32, 2, 3];
    let mut v = vec![1u32, 2];
    assert!(matches!(s.sort_pairs(&mut k, &mut v, &opts), Err(Error::LengthMismatch { keys: 3, values: 2 })));
    assert_eq!(k, [1, 2, 3], "unchanged on error");
    // Records (`Entity`) are not `Key`s: passing them here does not compile.
    assert!(matches!(MultiGpuSorter::new(&[0, 0]), Err(Error::BadArgument(_))));
    assert!(matches!(MultiGpuSorter::new(&[0, 99]), Err(Error::NoDevice(_))));
    assert!(matches!(MultiGpuSorter::new(&[]), Err(Error::BadArgument(_))));
}

/// A peer that never sends or receives: the sort fails with a communication error
/// within the timeout (plus the abort), the host data is unchanged, and the next sort
/// (new communicators) works.
#[test]
fn silent_peer_is_an_error_not_a_hang() {
    let Some(mut s) = two_gpus("silent_peer_is_an_error_not_a_hang") else { return };
    // Only NCCL's exchange waits for a peer; the copy engines do not.
    s.set_exchange(Exchange::Nccl);
    s.set_exchange_timeout(Duration::from_secs(2));
    let input: Vec<u32> = generate(1 << 20, Distribution::Uniform, 5);
    let mut data = input.clone();
    s.silence_rank_in_next_exchange(1);
    let t = Instant::now();
    let r = s.sort(&mut data, &SortOptions::default());
    let took = t.elapsed();
    assert!(matches!(r, Err(Error::Communication(_))), "got {r:?}");
    assert!(took < Duration::from_secs(20), "took {took:?}");
    assert_eq!(data, input, "host data unchanged on error");
    let _ = writeln!(std::io::stderr(), "silent peer: {} after {took:?}", r.unwrap_err());
    s.set_exchange_timeout(host::testing::multi_gpu::DEFAULT_EXCHANGE_TIMEOUT);
    check_keys(&s, &input, Order::Ascending, "after a failed exchange");
}

/// Sorts `input` (keys, and pairs with index values) with `s` as it is set and
/// returns the keys' bits, the values and where the GPUs' ranges start.
fn outcome<K: host::Key>(
    s: &MultiGpuSorter,
    input: &[K],
    order: Order,
    want: Exchange,
) -> (Vec<u64>, Vec<u32>, Vec<u64>) {
    let opts = SortOptions::default().order(order);
    let mut keys = input.to_vec();
    let r = s.sort(&mut keys, &opts).unwrap_or_else(|e| panic!("{} n={} {order}: {e}", want.name(), input.len()));
    if s.len() > 1 {
        assert_eq!(r.exchange, want, "n={} {order}: {r:?}", input.len());
    }
    let mut pk = input.to_vec();
    let mut idx: Vec<u32> = (0..input.len() as u32).collect();
    let rp = s.sort_pairs(&mut pk, &mut idx, &opts).unwrap();
    assert_eq!(rp.held, r.held, "pairs and keys split alike");
    let bits: Vec<u64> = keys.iter().map(|k| k.ord_bits(false).into()).collect();
    let pbits: Vec<u64> = pk.iter().map(|k| k.ord_bits(false).into()).collect();
    assert!(bits == pbits, "the pairs' keys are the keys' sort");
    (bits, idx, r.held)
}

/// The peer-copy exchange, by the copy engines and by the SMs' stores, in any number of
/// chunks gives the NCCL exchange's result bit for bit (keys, stable values, each
/// GPU's share), and the CPU's.
fn exchanges_agree<K: Random + host::Key>(s: &mut MultiGpuSorter, sizes: &[usize], what: &str) {
    for &n in sizes {
        for dist in [Distribution::Uniform, Distribution::FewUnique, Distribution::Equal, Distribution::Sorted] {
            let input: Vec<K> = generate(n, dist, n as u64 ^ 0x5eed);
            for order in ORDERS {
                s.set_exchange(Exchange::Nccl);
                let want = outcome(s, &input, order, Exchange::Nccl);
                check_pairs::<K>(s, &input, order, &format!("{what} nccl {dist}"));
                for exchange in [Exchange::PeerCopy, Exchange::PeerStore] {
                    for chunks in [1usize, 3, 8] {
                        s.set_exchange(exchange);
                        s.set_exchange_chunks(chunks);
                        let got = outcome(s, &input, order, exchange);
                        let how = exchange.name();
                        assert!(
                            got == want,
                            "{what} {} n={n} {dist} {order}: {how}, {chunks} chunks differ from NCCL",
                            K::NAME
                        );
                    }
                }
            }
        }
    }
    s.set_exchange(Exchange::Auto);
    s.set_exchange_chunks(host::testing::multi_gpu::DEFAULT_CHUNKS);
}

#[test]
fn peer_copies_match_nccl() {
    let Some(mut s) = two_gpus("peer_copies_match_nccl") else { return };
    let sizes = [0usize, 1, 2, 3, 1000, 4097, (1 << 20) + 13];
    exchanges_agree::<u32>(&mut s, &sizes, "2 GPUs");
    exchanges_agree::<f64>(&mut s, &[5, 65_537], "2 GPUs");
    exchanges_agree::<i64>(&mut s, &[300_001], "2 GPUs");
    // Auto takes the copy engines where the GPUs reach each other (NVLink machines).
    let mut k: Vec<u32> = generate(10_000, Distribution::Uniform, 3);
    let r = s.sort(&mut k, &SortOptions::default()).unwrap();
    let _ = writeln!(std::io::stderr(), "auto exchange on these GPUs: {:?}", r.exchange);
    // 20-byte values go through NCCL under Auto, and are refused with copies asked for.
    let mut e = vec![Entity::default(); 10_000];
    let r = s.sort_pairs(&mut k, &mut e, &SortOptions::default()).unwrap();
    assert_eq!(r.exchange, Exchange::Nccl);
    for exchange in [Exchange::PeerCopy, Exchange::PeerStore] {
        s.set_exchange(exchange);
        assert!(matches!(s.sort_pairs(&mut k, &mut e, &SortOptions::default()), Err(Error::BadArgument(_))));
    }
    s.set_exchange(Exchange::Auto);
}

/// Every GPU of the host (at least 3; `SORT_REQUIRE_GPUS=3` or more makes it fail
/// without): the peer copies and stores against NCCL and the CPU, and the balance of
/// a skewed input.
#[test]
fn all_gpus_peer_copies_match_nccl() {
    let need = std::env::var("SORT_REQUIRE_GPUS").ok().and_then(|v| v.parse::<usize>().ok()).unwrap_or(0);
    let present = MultiGpuSorter::device_count().unwrap_or(0);
    if present < 3 {
        assert!(need < 3, "SORT_REQUIRE_GPUS={need} but {present} GPUs present");
        host::testing::skipped("all_gpus_peer_copies_match_nccl", &format!("needs 3 GPUs or more, {present} present"));
        return;
    }
    // The two-GPU tests' sorter must not be in use by another test at the same time
    // (the tests share GPUs 0 and 1).
    let _two = two_gpus("all_gpus_peer_copies_match_nccl");
    let mut s = MultiGpuSorter::all_tuned(host::Tuning::from_env()).unwrap();
    exchanges_agree::<u32>(&mut s, &[0, 3, 4097, (1 << 21) + 5], &format!("{present} GPUs"));
    exchanges_agree::<f32>(&mut s, &[65_537], &format!("{present} GPUs"));
    let n = 1 << 22;
    let skew: Vec<u32> = (0..n as u32).map(|i| if i % 3 == 0 { 7 } else { i % 5 }).collect();
    let held = check_keys(&s, &skew, Order::Ascending, "skewed, all GPUs");
    let ideal = n as f64 / present as f64;
    assert!(held.iter().all(|&h| (h as f64 - ideal).abs() <= 0.1 * ideal), "held {held:?}");
}

/// With one GPU the multi-GPU sorter is the radix sort: the same bits.
#[test]
fn one_gpu_is_the_radix_sort() {
    let Some(single) = common::gpu_sorter("one_gpu_is_the_radix_sort") else { return };
    let s = MultiGpuSorter::new(&[0]).unwrap();
    for n in [0usize, 1, 7681, 1 << 20] {
        for order in ORDERS {
            let input: Vec<f32> = generate(n, Distribution::Uniform, 8);
            let mut a = input.clone();
            let mut b = input.clone();
            let r = s.sort(&mut a, &SortOptions::default().order(order)).unwrap();
            single.sort(&mut b, &SortOptions::default().order(order)).unwrap();
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&a), bits(&b), "n {n} {order}");
            assert_eq!(r.held, vec![n as u64]);
        }
    }
    let _: &Sorter = single;
}

/// The merge of what a GPU receives, on one GPU: any number of sorted runs (rounds of
/// pairwise merges, a leftover run copied), empty runs included, both orders. (Which of
/// two equal keys comes first is the CPU model's business in `kernels`; here equal keys
/// are equal words.)
#[test]
fn merge_of_many_runs() {
    use host::testing::variants::mergepath;
    let Some(sorter) = common::gpu_sorter("merge_of_many_runs") else { return };
    let gpu = sorter.gpu().expect("a GPU sorter");
    let mut state = 99u64;
    let mut rnd = move |m: u64| {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 33) % m
    };
    for runs in 1..=9usize {
        for order in ORDERS {
            let lens: Vec<u64> = (0..runs).map(|r| if r == 2 { 0 } else { rnd(70_000) }).collect();
            let mut all: Vec<i64> = Vec::new();
            for &len in &lens {
                let mut run: Vec<i64> = (0..len).map(|_| rnd(1000) as i64 - 500).collect();
                run.sort();
                if order.is_descending() {
                    run.reverse();
                }
                all.extend(run);
            }
            let mut want = all.clone();
            want.sort();
            if order.is_descending() {
                want.reverse();
            }
            let merged = mergepath::merge_runs(gpu, gpu.upload(&all).unwrap(), &lens, order).unwrap();
            assert_eq!(merged.to_vec(gpu).unwrap(), want, "{runs} runs {lens:?} {order}");
            // With values: each key's input position, which must come out in stable
            // order (runs are in input order, equal keys keep it).
            let keys = gpu.upload(&all).unwrap();
            let idx: Vec<u32> = (0..all.len() as u32).collect();
            let vals = gpu.upload(&idx).unwrap();
            let mut at = 0usize;
            let (mut rk, mut rv) = (Vec::new(), Vec::new());
            for &len in &lens {
                rk.push(mergepath::Run { ptr: keys.ptr_at(at), len });
                rv.push(vals.ptr_at(at));
                at += len as usize;
            }
            let (mk, mv) = mergepath::merge_run_list_pairs::<i64, u32>(gpu, &rk, &rv, order).unwrap();
            let mut want_idx = idx.clone();
            if order.is_descending() {
                want_idx.sort_by_key(|&i| std::cmp::Reverse(all[i as usize]));
            } else {
                want_idx.sort_by_key(|&i| all[i as usize]);
            }
            assert_eq!(mk.to_vec(gpu).unwrap(), want, "kv keys, {runs} runs {order}");
            assert_eq!(mv.to_vec(gpu).unwrap(), want_idx, "kv values (stable), {runs} runs {order}");
        }
    }
}

/// The partition-first pipeline's partition kernels on one GPU against the CPU model
/// (`kernels::partition::part_of`): every part in input order, values carried, sizes
/// right, for 2, 3 and 8 parts, both orders, ragged tails and ties at a splitter.
#[test]
fn partition_kernels_on_one_gpu() {
    let Some(sorter) = common::gpu_sorter("partition_kernels_on_one_gpu") else { return };
    let gpu = sorter.gpu().expect("a GPU sorter");
    partition_case::<u32, u32>(gpu, &[0, 1, 2047, 2048, 2049, 100_003, 1 << 20]);
    partition_case::<f64, u64>(gpu, &[1, 4097, 300_001]);
    partition_case::<i64, u32>(gpu, &[5000, 65_536]);
}

/// 2^26 u32 keys in two parts, with and without values: for profiling the kernels
/// (`ncu --kernel-name regex:partition ... gpu_multi --ignored partition_large`).
#[test]
#[ignore]
fn partition_large() {
    let Some(sorter) = common::gpu_sorter("partition_large") else { return };
    let gpu = sorter.gpu().expect("a GPU sorter");
    let keys: Vec<u32> = generate(1 << 26, Distribution::Uniform, 3);
    let k = gpu.upload(&keys).unwrap();
    let v = gpu.upload(&(0..keys.len() as u32).collect::<Vec<_>>()).unwrap();
    let cuts = [u32::MAX as u64 / 2, 0];
    for _ in 0..3 {
        let (_, _, sends) =
            host::testing::multi_gpu::partition_on_gpu::<u32, u32>(gpu, &k, None, &cuts, Order::Ascending).unwrap();
        assert_eq!(sends.iter().sum::<u64>(), keys.len() as u64);
        host::testing::multi_gpu::partition_on_gpu::<u32, u32>(gpu, &k, Some(&v), &cuts, Order::Ascending).unwrap();
    }
}

fn partition_case<K: Random + host::Key, V: Element + TryFrom<u64>>(gpu: &host::Gpu, sizes: &[usize])
where
    <V as TryFrom<u64>>::Error: std::fmt::Debug,
{
    use kernels::partition::{part_of, threshold};
    for &n in sizes {
        for dist in [Distribution::Uniform, Distribution::FewUnique] {
            let keys: Vec<K> = generate(n, dist, n as u64 + 17);
            let idx: Vec<V> = (0..n as u64).map(|i| V::try_from(i).unwrap()).collect();
            for order in ORDERS {
                let desc = order.is_descending();
                let bits: Vec<u64> = keys.iter().map(|k| k.ord_bits(desc).into()).collect();
                let mut sorted = bits.clone();
                sorted.sort();
                for parts in [2usize, 3, 8] {
                    // Splitters at keys of the input (so ties at a splitter occur), each
                    // from a made-up rank before, at or after this GPU's.
                    let mut cuts = Vec::new();
                    for t in 1..parts {
                        let b = sorted.get((t * n / parts).min(n.saturating_sub(1))).copied().unwrap_or(0);
                        cuts.push((b, threshold(1, t % 3, (t * n / parts) as u64)));
                    }
                    let flat: Vec<u64> = cuts.iter().flat_map(|&(b, t)| [b, t]).collect();
                    let mut want = vec![Vec::new(); parts];
                    for (i, &b) in bits.iter().enumerate() {
                        want[part_of(b, i as u64, &cuts) as usize].push(i);
                    }
                    let (k, v) = (gpu.upload(&keys).unwrap(), gpu.upload(&idx).unwrap());
                    let (pk, pv, sends) =
                        host::testing::multi_gpu::partition_on_gpu::<K, V>(gpu, &k, Some(&v), &flat, order).unwrap();
                    let what = format!("{} n {n} {dist} {order} {parts} parts", K::NAME);
                    assert_eq!(sends, want.iter().map(|w| w.len() as u64).collect::<Vec<_>>(), "{what}: sizes");
                    let order_idx: Vec<usize> = want.concat();
                    let got_k = pk.to_vec(gpu).unwrap();
                    let got_v = pv.unwrap().to_vec(gpu).unwrap();
                    let want_v: Vec<V> = order_idx.iter().map(|&i| idx[i]).collect();
                    assert!(
                        bytemuck::cast_slice::<V, u8>(&got_v) == bytemuck::cast_slice::<V, u8>(&want_v),
                        "{what}: values (stable order)"
                    );
                    let kb = |x: &[K]| x.iter().map(|k| k.ord_bits(false).into()).collect::<Vec<u64>>();
                    let want_k: Vec<K> = order_idx.iter().map(|&i| keys[i]).collect();
                    assert_eq!(kb(&got_k), kb(&want_k), "{what}: keys");
                    let (kk, none, _) =
                        host::testing::multi_gpu::partition_on_gpu::<K, V>(gpu, &k, None, &flat, order).unwrap();
                    assert!(none.is_none());
                    assert_eq!(kb(&kk.to_vec(gpu).unwrap()), kb(&want_k), "{what}: keys alone");
                }
            }
        }
    }
}
