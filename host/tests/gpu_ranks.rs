//! One process per GPU (`host rank-sort`, `host::RankGroup`): N processes of the
//! program sort a file together and the result must be the one-process
//! `MultiGpuSorter`'s over N GPUs byte for byte, with the same range on each rank;
//! a rank killed mid-sort must fail the others with a communication error within
//! the timeout and leave no output. Needs N GPUs and NCCL: skips with a message
//! otherwise, and fails instead when `SORT_REQUIRE_GPUS` is at least N.
mod program;

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use host::testing::inputs::{Random, generate};
use host::{Distribution, Element, Key, MultiGpuSorter, Order, SortKey, SortOptions};
use program::{host_bin, s, scratch_dir, text};

/// Whether this machine has `n` GPUs and NCCL; otherwise skips `test` (or panics when
/// `SORT_REQUIRE_GPUS` says it should have them).
fn have_gpus(test: &str, n: usize) -> bool {
    let present = MultiGpuSorter::device_count().unwrap_or(0);
    let nccl = host::testing::multi_gpu::nccl::library_present();
    if present >= n && nccl {
        return true;
    }
    let why = format!("needs {n} GPUs and NCCL ({present} GPUs, NCCL {})", if nccl { "found" } else { "missing" });
    if std::env::var("SORT_REQUIRE_GPUS").is_ok_and(|v| v.parse::<usize>().is_ok_and(|r| r >= n)) {
        panic!("{test}: SORT_REQUIRE_GPUS={}: {why}", std::env::var("SORT_REQUIRE_GPUS").unwrap());
    }
    host::testing::skipped(test, &why);
    false
}

/// The one-process sorter over GPUs `0..world`, opened once per binary (opening one
/// and connecting its GPUs takes a second or two).
fn one_process(world: usize) -> std::sync::MutexGuard<'static, MultiGpuSorter> {
    static SORTERS: std::sync::Mutex<Vec<(usize, &'static std::sync::Mutex<MultiGpuSorter>)>> =
        std::sync::Mutex::new(Vec::new());
    let mut all = SORTERS.lock().unwrap();
    let found = all.iter().find(|(w, _)| *w == world).map(|(_, s)| *s);
    let sorter = found.unwrap_or_else(|| {
        let s = MultiGpuSorter::new(&(0..world).collect::<Vec<_>>()).unwrap();
        let s: &'static std::sync::Mutex<MultiGpuSorter> = Box::leak(Box::new(std::sync::Mutex::new(s)));
        all.push((world, s));
        s
    });
    drop(all);
    sorter.lock().unwrap_or_else(|p| p.into_inner())
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Runs `host <args>` as `world` ranks on this host (extra environment `env`), waits
/// for all (killing them past `limit`); returns each rank's outcome and the time until
/// the last ended.
fn run_ranks(world: usize, args: &[&str], env: &[(&str, String)], limit: Duration) -> (Vec<Output>, Duration) {
    let port = free_port().to_string();
    let start = Instant::now();
    let children: Vec<Child> = (0..world)
        .map(|r| {
            let mut c = Command::new(host_bin());
            c.args(args)
                .env("RANK", r.to_string())
                .env("WORLD_SIZE", world.to_string())
                .env("MASTER_ADDR", "127.0.0.1")
                .env("MASTER_PORT", &port)
                .env_remove("LOCAL_RANK")
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            for (k, v) in env {
                c.env(k, v);
            }
            c.spawn().unwrap()
        })
        .collect();
    let mut outputs = Vec::new();
    for mut c in children {
        while c.try_wait().unwrap().is_none() && start.elapsed() < limit {
            std::thread::sleep(Duration::from_millis(20));
        }
        if start.elapsed() >= limit {
            let _ = c.kill();
        }
        outputs.push(c.wait_with_output().unwrap());
    }
    (outputs, start.elapsed())
}

fn report(outs: &[Output]) -> String {
    outs.iter()
        .enumerate()
        .map(|(r, o)| format!("rank {r}: {}\nstdout: {}stderr: {}", o.status, text(&o.stdout), text(&o.stderr)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The keys each rank says it wrote (`rank R/W: N T keys, ...`).
fn held(outs: &[Output]) -> Vec<u64> {
    outs.iter()
        .map(|o| {
            let out = text(&o.stdout);
            let line = out.lines().find(|l| l.starts_with("rank ")).unwrap_or_else(|| panic!("no rank line: {out}"));
            line.split(": ").nth(1).and_then(|w| w.split(' ').next()).and_then(|w| w.parse().ok()).unwrap()
        })
        .collect()
}

/// Writes `input` to a file, sorts it with `world` ranks and compares the output with
/// `MultiGpuSorter` over GPUs `0..world` byte for byte, and the ranges too.
fn check_file<K: Key + Random>(world: usize, dir: &Path, n: usize, dist: Distribution, order: Order) {
    check_file_staged::<K>(world, dir, n, dist, order, &[]);
}

/// [`check_file`] with `env` set for every rank (e.g. small staging buffers, so that a
/// rank's share crosses many of them).
fn check_file_staged<K: Key + Random>(
    world: usize,
    dir: &Path,
    n: usize,
    dist: Distribution,
    order: Order,
    env: &[(&str, String)],
) {
    let what = format!("{world} ranks, {} n={n} {dist} {order} {env:?}", K::NAME);
    let input: Vec<K> = generate(n, dist, 7 + n as u64);
    let (inp, out) = (dir.join(format!("in-{world}-{n}.bin")), dir.join(format!("out-{world}-{n}.bin")));
    std::fs::write(&inp, bytemuck::cast_slice::<K, u8>(&input)).unwrap();
    let args = ["rank-sort", "--type", K::NAME, "--order", &order.to_string(), "-i", s(&inp), "-o", s(&out)];
    let (outs, _) = run_ranks(world, &args, env, Duration::from_secs(120));
    assert!(outs.iter().all(|o| o.status.success()), "{what}:\n{}", report(&outs));
    let got = std::fs::read(&out).unwrap();

    let sorter = one_process(world);
    let mut want = input.clone();
    let r = sorter.sort(&mut want, &SortOptions::default().order(order)).unwrap();
    assert!(got == bytemuck::cast_slice::<K, u8>(&want), "{what}: the output differs from the one-process sort");
    assert_eq!(held(&outs), r.held, "{what}: ranges differ from the one-process sort's");
    std::fs::remove_file(&inp).unwrap();
    std::fs::remove_file(&out).unwrap();
}

fn sorts_files_like_one_process(world: usize) {
    let test = format!("ranks_sort_files_like_one_process_{world}");
    if !have_gpus(&test, world) {
        return;
    }
    let dir = scratch_dir("gpu_ranks", &test);
    check_file::<u32>(world, &dir, 3_000_017, Distribution::Uniform, Order::Ascending);
    check_file::<u64>(world, &dir, 1_000_003, Distribution::FewUnique, Order::Descending);
    check_file::<f32>(world, &dir, 777_777, Distribution::Equal, Order::Ascending);
    check_file::<u32>(world, &dir, world - 1, Distribution::Uniform, Order::Ascending);
    // Each rank's share through many staging buffers of 65,540 bytes (8,192 u64 keys
    // and a half: cut to whole keys), two at a time, read and written in pieces.
    let small = [("SORT_FILE_STAGE_BYTES", "65540".to_string()), ("SORT_FILE_STAGES", "2".to_string())];
    check_file_staged::<u64>(world, &dir, 1_000_003, Distribution::Uniform, Order::Descending, &small);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ranks_sort_files_like_one_process_2() {
    sorts_files_like_one_process(2);
}

#[test]
fn ranks_sort_files_like_one_process_4() {
    sorts_files_like_one_process(4);
}

/// The device-resident sort's own check (each rank against the CPU's stable sort of the
/// whole input, bit for bit), on skewed keys.
#[test]
fn ranks_device_sort_checks_against_the_cpu() {
    let world = 4.min(MultiGpuSorter::device_count().unwrap_or(0)).max(2);
    if !have_gpus("ranks_device_sort_checks_against_the_cpu", world) {
        return;
    }
    for (ty, dist) in [("u32", "two-values"), ("f64", "uniform"), ("i32", "few-unique")] {
        let args = ["rank-sort", "--type", ty, "--dist", dist, "--n", "2000003", "--repeat", "1", "--check"];
        let (outs, _) = run_ranks(world, &args, &[], Duration::from_secs(120));
        assert!(outs.iter().all(|o| o.status.success()), "{ty} {dist}:\n{}", report(&outs));
        assert!(text(&outs[0].stdout).contains("check: ok on every rank"), "{}", report(&outs));
    }
}

/// A rank killed during the sort (before the exchange), or after it (before writing):
/// the others end with a communication error within the timeout and no output (nor a
/// temporary file) appears.
#[test]
fn a_killed_rank_fails_the_others_in_time() {
    let world = 4.min(MultiGpuSorter::device_count().unwrap_or(0)).max(2);
    if !have_gpus("a_killed_rank_fails_the_others_in_time", world) {
        return;
    }
    let dir = scratch_dir("gpu_ranks", "killed");
    let inp = dir.join("in.bin");
    std::fs::write(&inp, bytemuck::cast_slice::<u32, u8>(&generate::<u32>(1 << 20, Distribution::Uniform, 3))).unwrap();
    let out = dir.join("out.bin");
    let timeout = 5.0;
    for step in ["exchange", "write"] {
        let env = [("SORT_RANKS_TIMEOUT", timeout.to_string()), ("SORT_RANKS_TEST_DIE", format!("1:{step}"))];
        let args = ["rank-sort", "-i", s(&inp), "-o", s(&out)];
        let (outs, took) = run_ranks(world, &args, &env, Duration::from_secs(60));
        let what = format!("killed at {step}:\n{}", report(&outs));
        eprintln!("{world} ranks, rank 1 killed at {step}: all ended after {took:?}\n{}", report(&outs));
        assert!(outs.iter().all(|o| !o.status.success()), "{what}");
        for (r, o) in outs.iter().enumerate().filter(|(r, _)| *r != 1) {
            let err = text(&o.stderr);
            assert!(err.contains("multi-GPU communication") && err.contains(&format!("rank {r}")), "{what}");
        }
        // Start-up, the timeout (each rank waits at most one step's timeout, twice for
        // rank 0's decision) and tear-down.
        assert!(took < Duration::from_secs_f64(3.0 * timeout + 20.0), "{what}\ntook {took:?}");
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(left, [std::ffi::OsString::from("in.bin")], "{what}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Without `RANK` and `WORLD_SIZE` the command says what it needs (no GPU needed).
#[test]
fn rank_sort_without_its_environment_is_a_clear_error() {
    let out = Command::new(host_bin())
        .args(["rank-sort", "--n", "10"])
        .env_remove("RANK")
        .env_remove("WORLD_SIZE")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains("RANK is not set") && err.contains("scripts/sort-ranks.sh"), "{err}");
    let out = Command::new(host_bin()).args(["rank-sort"]).env("RANK", "3").env("WORLD_SIZE", "2").output().unwrap();
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("RANK=3 is not below WORLD_SIZE=2"), "{}", text(&out.stderr));
}

/// Set in the processes `ranks_sort_pairs_stably` starts as its ranks: where each
/// writes what it ends with.
const CHILD_DIR: &str = "GPU_RANKS_CHILD_DIR";

/// The pairs' input: few distinct keys (long runs of ties), values = input positions.
fn pairs_input<V: Element + TryFrom<usize>>(n: usize) -> (Vec<u32>, Vec<V>) {
    let keys: Vec<u32> = generate(n, Distribution::FewUnique, 11);
    let values = (0..n).map(|i| V::try_from(i).ok().unwrap()).collect();
    (keys, values)
}

/// One rank of `ranks_sort_pairs_stably`: sorts its shard of the pairs with
/// `RankGroup::sort_pairs_device` and writes its keys and values.
fn pairs_rank<V: Element + TryFrom<usize>>(dir: &Path, n: usize, order: Order) {
    let cfg = host::RankConfig::from_env().unwrap();
    let mut group = host::RankGroup::join(&cfg, host::Tuning::from_env()).unwrap();
    let (keys, values) = pairs_input::<V>(n);
    let s = host::ranks::shard(n as u64, cfg.rank, cfg.world);
    let (a, b) = (s.start as usize, s.end as usize);
    let gpu = group.gpu().clone();
    let mut k = gpu.upload(&keys[a..b]).unwrap();
    let mut v = gpu.upload(&values[a..b]).unwrap();
    let r = group.sort_pairs_device(&mut k, &mut v, &SortOptions::default().order(order)).unwrap();
    assert_eq!(k.len() as u64, r.held[cfg.rank]);
    let name = |what: &str| dir.join(format!("{what}-{}-{}.bin", V::NAME, cfg.rank));
    std::fs::write(name("keys"), bytemuck::cast_slice::<u32, u8>(&k.to_vec(&gpu).unwrap())).unwrap();
    std::fs::write(name("values"), bytemuck::cast_slice::<V, u8>(&v.to_vec(&gpu).unwrap())).unwrap();
}

/// Pairs over `world` ranks started from this test binary: the ranks' concatenated
/// keys and values are the CPU's stable sort (values are the input positions) and
/// `MultiGpuSorter::sort_pairs`' result, byte for byte.
fn check_pairs<V: Element + TryFrom<usize> + PartialEq>(world: usize, dir: &Path, n: usize, order: Order) {
    let what = format!("{world} ranks, u32 keys with {} values, n={n} {order}", V::NAME);
    let exe = std::env::current_exe().unwrap();
    let args = ["ranks_sort_pairs_stably", "--exact", "--nocapture", "--test-threads=1"];
    let port = free_port().to_string();
    let children: Vec<Child> = (0..world)
        .map(|r| {
            Command::new(&exe)
                .args(args)
                .env("RANK", r.to_string())
                .env("WORLD_SIZE", world.to_string())
                .env("MASTER_ADDR", "127.0.0.1")
                .env("MASTER_PORT", &port)
                .env(CHILD_DIR, dir)
                .env("GPU_RANKS_CHILD_CASE", format!("{}:{n}:{order}", V::NAME))
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let outs: Vec<Output> = children.into_iter().map(|c| c.wait_with_output().unwrap()).collect();
    assert!(outs.iter().all(|o| o.status.success()), "{what}:\n{}", report(&outs));
    let (mut keys, mut values) = (Vec::new(), Vec::new());
    for r in 0..world {
        keys.extend(std::fs::read(dir.join(format!("keys-{}-{r}.bin", V::NAME))).unwrap());
        values.extend(std::fs::read(dir.join(format!("values-{}-{r}.bin", V::NAME))).unwrap());
    }
    let (input, idx) = pairs_input::<V>(n);
    let mut order_of: Vec<usize> = (0..n).collect();
    let desc = order.is_descending();
    order_of.sort_by_key(|&i| input[i].ord_bits(desc)); // stable
    let want_keys: Vec<u32> = order_of.iter().map(|&i| input[i]).collect();
    let want_values: Vec<V> = order_of.iter().map(|&i| idx[i]).collect();
    assert!(keys == bytemuck::cast_slice::<u32, u8>(&want_keys), "{what}: keys differ from the stable sort");
    assert!(values == bytemuck::cast_slice::<V, u8>(&want_values), "{what}: values differ from the stable sort");
    let sorter = one_process(world);
    let (mut k1, mut v1) = (input.clone(), idx.clone());
    sorter.sort_pairs(&mut k1, &mut v1, &SortOptions::default().order(order)).unwrap();
    assert!(k1 == want_keys && v1 == want_values, "{what}: MultiGpuSorter differs from the stable sort");
}

#[test]
fn ranks_sort_pairs_stably() {
    if let Some(dir) = std::env::var_os(CHILD_DIR) {
        let case = std::env::var("GPU_RANKS_CHILD_CASE").unwrap();
        let mut parts = case.split(':');
        let (ty, n, order) = (parts.next().unwrap(), parts.next().unwrap(), parts.next().unwrap());
        let (n, order) = (n.parse().unwrap(), if order == "desc" { Order::Descending } else { Order::Ascending });
        match ty {
            "u32" => pairs_rank::<u32>(Path::new(&dir), n, order),
            _ => pairs_rank::<u64>(Path::new(&dir), n, order),
        }
        return;
    }
    let world = 4.min(MultiGpuSorter::device_count().unwrap_or(0)).max(2);
    if !have_gpus("ranks_sort_pairs_stably", world) {
        return;
    }
    let dir = scratch_dir("gpu_ranks", "pairs");
    check_pairs::<u32>(world, &dir, 1_234_567, Order::Ascending);
    check_pairs::<u64>(world, &dir, 654_321, Order::Descending);
    std::fs::remove_dir_all(&dir).unwrap();
}
