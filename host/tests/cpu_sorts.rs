//! Every CPU sort against the reference: all key types, the shared size list plus odd
//! random sizes, both orders, stability (Entity with few unique keys carries its input
//! index as id), and thread counts that don't divide n, exceed n, or are 1.
mod common;

use host::testing::inputs::{Random, generate};
use host::testing::{cpu, verify};
use host::{Distribution, Element, Entity, Error, KeyType, Order, SortKey, with_key_type};

/// Sizes that no power of two or thread count divides, on top of `common::SIZES`.
const RANDOM_SIZES: &[usize] = &[5, 17, 94, 613, 2_731, 33_333, 129_001];

const THREADS: &[usize] = &[1, 2, 3, 4, 7, 16, 33];

fn dist_for<T: Element>() -> Distribution {
    // Few unique keys make equal keys common, so stability is really exercised.
    if T::NAME == Entity::NAME { Distribution::FewUnique } else { Distribution::Uniform }
}

fn check<T: Random + Element>(name: &str, n: usize, order: Order, dist: Distribution, sort: impl Fn(&mut [T])) {
    let input: Vec<T> = generate(n, dist, n as u64 ^ 0xc0ffee);
    let mut out = input.clone();
    sort(&mut out);
    if let Err(m) = verify::check(&input, &out, order, true) {
        panic!("{name} {} n={n} {order} {dist}: {m}", T::NAME);
    }
}

fn all_sorts_of<T: Random + Element>(n: usize, threads: &[usize]) {
    let dist = dist_for::<T>();
    for order in [Order::Ascending, Order::Descending] {
        check::<T>("recursive", n, order, dist, |v| cpu::recursive_merge_sort(v, order));
        check::<T>("bottom-up", n, order, dist, |v| cpu::bottom_up_merge_sort(v, order));
        check::<T>("cpu::sort", n, order, dist, |v| cpu::sort(v, order));
        for &t in threads {
            let name = format!("parallel/{t}");
            check::<T>(&name, n, order, dist, |v| cpu::parallel_merge_sort(v, order, t).unwrap());
        }
    }
}

#[test]
fn every_type_every_size() {
    let sizes = common::SIZES.iter().chain(RANDOM_SIZES).copied().filter(|&n| n < 1 << 20);
    for n in sizes {
        for &kt in KeyType::ALL {
            with_key_type!(kt, T => all_sorts_of::<T>(n, THREADS), wide => unreachable!("KeyType::ALL holds no wide keys"));
        }
    }
}

#[test]
fn every_type_large() {
    for &kt in KeyType::ALL {
        with_key_type!(kt, T => all_sorts_of::<T>((1 << 20) + 13, &[1, 3, 16]), wide => unreachable!("KeyType::ALL holds no wide keys"));
    }
}

#[test]
fn every_distribution() {
    for &dist in Distribution::ALL {
        for order in [Order::Ascending, Order::Descending] {
            for t in [1, 5, 8] {
                check::<u32>("parallel", 100_003, order, dist, |v| cpu::parallel_merge_sort(v, order, t).unwrap());
                check::<Entity>("parallel", 100_003, order, dist, |v| cpu::parallel_merge_sort(v, order, t).unwrap());
            }
            check::<Entity>("recursive", 100_003, order, dist, |v| cpu::recursive_merge_sort(v, order));
            check::<Entity>("bottom-up", 100_003, order, dist, |v| cpu::bottom_up_merge_sort(v, order));
        }
    }
}

#[test]
fn more_threads_than_elements() {
    for n in 0..40 {
        for t in [n + 1, 2 * n + 3, 1000] {
            check::<Entity>("parallel", n, Order::Ascending, Distribution::FewUnique, |v| {
                cpu::parallel_merge_sort(v, Order::Ascending, t).unwrap()
            });
        }
    }
}

#[test]
fn floats_in_total_order() {
    let special = [f64::NAN, -f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, 0.0, 1.0, -1.0, f64::MIN_POSITIVE];
    let input: Vec<f64> = (0..5000).map(|i| special[i * 7 % special.len()]).collect();
    for t in [1, 2, 5] {
        for order in [Order::Ascending, Order::Descending] {
            let mut out = input.clone();
            cpu::parallel_merge_sort(&mut out, order, t).unwrap();
            verify::check(&input, &out, order, true).unwrap();
        }
    }
}

#[test]
fn zero_threads_is_a_bad_argument() {
    let mut v = vec![3u32, 1, 2];
    let r = cpu::parallel_merge_sort(&mut v, Order::Ascending, 0);
    assert!(matches!(r, Err(Error::BadArgument(_))), "{r:?}");
    assert_eq!(v, [3, 1, 2], "a rejected call must leave the data alone");
}

#[test]
fn concurrent_sorts_with_the_same_thread_count() {
    // Sorts running at once must not share threads in a way that deadlocks, and must
    // each come out right.
    std::thread::scope(|s| {
        for i in 0..4u64 {
            s.spawn(move || {
                for round in 0..5 {
                    let input: Vec<Entity> = generate(50_000 + round, Distribution::FewUnique, i * 10 + round as u64);
                    let mut out = input.clone();
                    cpu::parallel_merge_sort(&mut out, Order::Descending, 2).unwrap();
                    verify::check(&input, &out, Order::Descending, true).unwrap();
                }
            });
        }
    });
}
