//! The command-line program end to end: `sort`, `check-file`, `gen` and `bench`,
//! including their errors. Runs the `host` binary (or `$HOST_BIN`, which the GPU
//! bundle's script sets); commands without `--cpu` use the GPU where there is one.
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use host::file_sort::Format;
use host::testing::cpu;
use host::testing::file_format as format;
use host::testing::inputs::generate;
use host::{Distribution, Entity, Order, Sorter};

mod program;
use program::{host_bin, ok, s, text};

fn host(args: &[&str]) -> Output {
    Command::new(host_bin()).args(args).output().expect("running the host binary")
}

/// A fresh scratch directory per test.
fn dir(test: &str) -> PathBuf {
    program::scratch_dir("cli", test)
}

/// A failed command: non-zero exit and exactly one `error: ...` line on stderr.
fn fails(out: &Output) -> String {
    assert!(!out.status.success(), "should have failed:\n{}", text(&out.stdout));
    let err = text(&out.stderr);
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error: ")).collect();
    assert_eq!(errors.len(), 1, "one error line expected in:\n{err}");
    errors[0].to_string()
}

/// Files in `d` other than `keep`: temporaries must not be left behind.
fn strays(d: &Path, keep: &[&Path]) -> Vec<String> {
    std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !keep.contains(&p.as_path()))
        .map(|p| p.display().to_string())
        .collect()
}

#[test]
fn records_sort_by_a_key_field_and_bad_sizes_fail_cleanly() {
    let d = dir("records");
    let (inp, out) = (d.join("in.bin"), d.join("out.bin"));
    // 12-byte records: a tag word, an i32 key at byte 4, the record's index.
    let keys: Vec<i32> = generate(5_003, Distribution::FewUnique, 3);
    let mut bytes = Vec::new();
    for (i, k) in keys.iter().enumerate() {
        bytes.extend_from_slice(&0xabcd_u32.to_le_bytes());
        bytes.extend_from_slice(&k.to_le_bytes());
        bytes.extend_from_slice(&(i as u32).to_le_bytes());
    }
    std::fs::write(&inp, &bytes).unwrap();
    let args = ["sort", "--cpu", "--record-size", "12", "--key-offset", "4", "--type", "i32", "--order", "desc"];
    let stdout = ok(&host(&[&args[..], &["-i", s(&inp), "-o", s(&out)]].concat()));
    assert!(stdout.contains("sorted 5003 records of 12 bytes"), "{stdout}");
    let sorted = std::fs::read(&out).unwrap();
    let rows: Vec<(i32, u32)> = sorted
        .chunks(12)
        .map(|r| (i32::from_le_bytes(r[4..8].try_into().unwrap()), u32::from_le_bytes(r[8..].try_into().unwrap())))
        .collect();
    let mut want: Vec<(i32, u32)> = keys.iter().enumerate().map(|(i, &k)| (k, i as u32)).collect();
    want.sort_by_key(|r| std::cmp::Reverse(r.0)); // stable: equal keys keep their input order
    assert_eq!(rows, want);
    // A file that is not whole records, and a key past the record's end: one error, no output.
    std::fs::remove_file(&out).unwrap();
    let e = fails(&host(&["sort", "--cpu", "--record-size", "7", "-i", s(&inp), "-o", s(&out)]));
    assert!(e.contains("7-byte records"), "{e}");
    let e = fails(&host(&["sort", "--cpu", "--record-size", "12", "--key-offset", "9", "-i", s(&inp), "-o", s(&out)]));
    assert!(e.contains("does not fit"), "{e}");
    assert!(strays(&d, &[&inp]).is_empty());
}

#[test]
fn argsort_writes_the_stable_permutation_in_both_formats() {
    let d = dir("argsort");
    let (inp, out) = (d.join("in.txt"), d.join("perm.txt"));
    std::fs::write(&inp, "30\n-4\n12\n-4\n").unwrap();
    ok(&host(&["sort", "--cpu", "--argsort", "--type", "i64", "-i", s(&inp), "-o", s(&out)]));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "1\n3\n2\n0\n");
    ok(&host(&["sort", "--cpu", "--argsort", "--type", "i64", "--order", "desc", "-i", s(&inp), "-o", s(&out)]));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "0\n2\n1\n3\n");
    let (bin, pbin) = (d.join("in.bin"), d.join("perm.bin"));
    let keys: Vec<f32> = vec![2.5, -1.0, 2.5, 0.0];
    std::fs::write(&bin, bytemuck::cast_slice::<f32, u8>(&keys)).unwrap();
    ok(&host(&["sort", "--cpu", "--argsort", "--type", "f32", "-i", s(&bin), "-o", s(&pbin)]));
    assert_eq!(std::fs::read(&pbin).unwrap(), bytemuck::cast_slice::<u32, u8>(&[1, 3, 0, 2]));
    let e = fails(&host(&["sort", "--cpu", "--argsort", "--type", "entity", "-i", s(&bin), "-o", s(&d.join("x"))]));
    assert!(e.contains("entity"), "{e}");
    assert!(strays(&d, &[&inp, &out, &bin, &pbin]).is_empty());
}

#[test]
fn binary_sort_on_cpu_and_check_file() {
    let d = dir("binary");
    let (inp, out) = (d.join("in.bin"), d.join("out.bin"));
    let data: Vec<u64> = generate(200_001, Distribution::Uniform, 1);
    format::write_file(&inp, &data, Format::Binary).unwrap();
    let stdout = ok(&host(&["sort", "--cpu", "--type", "u64", "--order", "desc", "-i", s(&inp), "-o", s(&out)]));
    assert!(stdout.contains("on CPU") && stdout.contains("1 chunk;"), "{stdout}");
    let mut expect = data.clone();
    cpu::reference_sort(&mut expect, Order::Descending);
    assert_eq!(format::read_binary::<u64>(&out).unwrap(), expect);
    let check = ok(&host(&["check-file", "--type", "u64", "--order", "desc", "-i", s(&inp), "-o", s(&out)]));
    assert!(check.starts_with("ok: 200001 elements, ordered (desc)"), "{check}");
    // The other order, and a file that lost an element, are caught.
    fails(&host(&["check-file", "--type", "u64", "-i", s(&inp), "-o", s(&out)]));
    format::write_file(&out, &expect[1..], Format::Binary).unwrap();
    let e = fails(&host(&["check-file", "--type", "u64", "--order", "desc", "-i", s(&inp), "-o", s(&out)]));
    assert!(e.contains("same elements"), "{e}");
    assert!(strays(&d, &[&inp, &out]).is_empty());
}

/// A raw binary file of 16-bit keys (every `f16` bit pattern, an odd count) sorted
/// by `--type f16` (on the GPU where there is one) equals `sort_by(total_cmp)` bit for
/// bit, and `check-file` agrees; `gen` and `--check` run for every narrow type.
#[test]
fn half_float_binary_file_and_narrow_types() {
    let d = dir("half");
    let (inp, out) = (d.join("in.bin"), d.join("out.bin"));
    let bits: Vec<u16> = (0..=u16::MAX).chain(0..1001).map(|i| i.wrapping_mul(40_503)).collect();
    let keys: Vec<host::f16> = bits.iter().map(|&b| host::f16::from_bits(b)).collect();
    format::write_file(&inp, &keys, Format::Binary).unwrap();
    ok(&host(&["sort", "--type", "f16", "--order", "desc", "-i", s(&inp), "-o", s(&out)]));
    let mut expect = keys.clone();
    expect.sort_by(|a, b| b.total_cmp(a));
    let got: Vec<host::f16> = format::read_binary(&out).unwrap();
    assert!(got.iter().map(|x| x.to_bits()).eq(expect.iter().map(|x| x.to_bits())), "f16 file not in total order");
    let check = ok(&host(&["check-file", "--type", "f16", "--order", "desc", "-i", s(&inp), "-o", s(&out)]));
    assert!(check.starts_with("ok: 66537 elements"), "{check}");
    for t in ["u16", "i16", "f16", "bf16", "u8", "i8"] {
        let stdout = ok(&host(&["--type", t, "--n", "100003", "--check", "--repeat", "1", "--order", "desc"]));
        assert!(stdout.contains(&format!("type {t}")), "{t}: {stdout}");
        let g = d.join(format!("{t}.bin"));
        ok(&host(&["gen", "-o", s(&g), "--n", "1001", "--type", t]));
        let bytes = if t.ends_with('8') { 1001 } else { 2002 };
        assert_eq!(std::fs::metadata(&g).unwrap().len(), bytes, "{t}");
    }
}

/// Wide keys on the command line: `host --type` sorts and checks generated keys of
/// each wide type; `gen`, `sort` (on the GPU where there is one) and `check-file`
/// round-trip binary files of 10-byte strings and `i128`s, equal to the standard
/// library's sort; text, a ragged file and the commands of primitive keys are
/// refused with one clear error, leaving the previous output alone.
#[test]
fn wide_keys_sort_generate_and_check() {
    let d = dir("wide");
    for (t, dist) in [("u128", "uniform"), ("i128", "two-values"), ("bytes10", "few-unique"), ("bytes32", "reverse")] {
        for order in ["asc", "desc"] {
            let stdout =
                ok(&host(&["--type", t, "--n", "30011", "--dist", dist, "--order", order, "--check", "--repeat", "1"]));
            assert!(stdout.contains(&format!("type {t}")) && stdout.contains("check:      ok"), "{t}: {stdout}");
        }
    }
    let (inp, out) = (d.join("in.bin"), d.join("out.bin"));
    ok(&host(&["gen", "--type", "bytes10", "--n", "50001", "--dist", "few-unique", "-o", s(&inp)]));
    assert_eq!(std::fs::metadata(&inp).unwrap().len(), 500_010);
    ok(&host(&["sort", "--type", "bytes10", "--order", "desc", "-i", s(&inp), "-o", s(&out)]));
    let mut want: Vec<[u8; 10]> = bytemuck::pod_collect_to_vec(&std::fs::read(&inp).unwrap());
    want.sort_by(|a, b| b.cmp(a));
    assert_eq!(std::fs::read(&out).unwrap(), bytemuck::cast_slice::<[u8; 10], u8>(&want), "bytes10 descending");
    let check = ok(&host(&["check-file", "--type", "bytes10", "--order", "desc", "-i", s(&inp), "-o", s(&out)]));
    assert!(check.starts_with("ok: 50001 elements, ordered (desc)"), "{check}");
    // The wrong order and a lost key are caught.
    fails(&host(&["check-file", "--type", "bytes10", "-i", s(&inp), "-o", s(&out)]));
    std::fs::write(&out, &bytemuck::cast_slice::<[u8; 10], u8>(&want)[10..]).unwrap();
    let e = fails(&host(&["check-file", "--type", "bytes10", "--order", "desc", "-i", s(&inp), "-o", s(&out)]));
    assert!(e.contains("same elements"), "{e}");

    let signed: Vec<i128> = (0..20_011i128).map(|i| (i * 0x9E37_79B9_7F4A_7C15) ^ -(i << 90)).collect();
    std::fs::write(&inp, bytemuck::cast_slice::<i128, u8>(&signed)).unwrap();
    ok(&host(&["sort", "--cpu", "--type", "i128", "-i", s(&inp), "-o", s(&out)]));
    let mut want = signed.clone();
    want.sort();
    let got: Vec<i128> = bytemuck::pod_collect_to_vec(&std::fs::read(&out).unwrap());
    assert_eq!(got, want, "i128 ascending");

    std::fs::write(&out, b"previous").unwrap();
    let ragged = d.join("ragged.bin");
    std::fs::write(&ragged, [7u8; 33]).unwrap();
    let e = fails(&host(&["sort", "--type", "u128", "-i", s(&ragged), "-o", s(&out)]));
    assert!(e.contains("33 bytes, not a multiple of 16"), "{e}");
    let e = fails(&host(&["sort", "--type", "u128", "--text", "-i", s(&inp), "-o", s(&out)]));
    assert!(e.contains("binary"), "{e}");
    let e = fails(&host(&["sort", "--type", "u128", "--gpus", "2", "-i", s(&inp), "-o", s(&out)]));
    assert!(e.contains("wide keys"), "{e}");
    let e = fails(&host(&["sort", "--type", "bytes16", "--argsort", "-i", s(&inp), "-o", s(&out)]));
    assert!(e.contains("wide keys"), "{e}");
    fails(&host(&["--type", "bytes33", "--n", "10"]));
    fails(&host(&["--type", "bytes0", "--n", "10"]));
    assert_eq!(std::fs::read(&out).unwrap(), b"previous", "a failed sort must not touch the output");
    assert!(strays(&d, &[&inp, &out, &ragged]).is_empty(), "temporary files left behind");
}

#[test]
fn chunked_sort_is_complete_and_stable() {
    // Without --cpu this is the GPU's chunked path where there is a GPU.
    let d = dir("chunked");
    let (inp, out) = (d.join("in.bin"), d.join("out.bin"));
    let data: Vec<Entity> = generate(300_007, Distribution::FewUnique, 2);
    format::write_file(&inp, &data, Format::Binary).unwrap();
    let budget = (3 * 20 * 40_000).to_string();
    let stdout = ok(&host(&[
        "sort",
        "--type",
        "entity",
        "--stable",
        "--max-device-bytes",
        &budget,
        "-i",
        s(&inp),
        "-o",
        s(&out),
    ]));
    assert!(stdout.contains(" 8 chunks;"), "{stdout}");
    let mut expect = data.clone();
    cpu::reference_sort(&mut expect, Order::Ascending);
    assert!(format::read_binary::<Entity>(&out).unwrap() == expect, "not the stable sort of the input");
    // The smallest budget (many runs), and sorting a file onto itself.
    let stdout = ok(&host(&["sort", "--type", "entity", "--max-device-bytes", "1M", "-i", s(&inp), "-o", s(&inp)]));
    assert!(stdout.contains(" 18 chunks;"), "{stdout}");
    assert!(format::read_binary::<Entity>(&inp).unwrap() == expect);
    assert!(strays(&d, &[&inp, &out]).is_empty());
}

#[test]
fn text_round_trips() {
    let d = dir("text");
    let (inp, out) = (d.join("in.txt"), d.join("out.txt"));
    std::fs::write(&inp, "3.5\n-2\n\ninf\n-0\n1e-5\n-inf\n0\n2.25e10\n100\n1000\n").unwrap();
    let stdout = ok(&host(&["sort", "--text", "--type", "f64", "-i", s(&inp), "-o", s(&out)]));
    assert!(stdout.contains("sorted 10 f64 (text"), "{stdout}");
    // The shorter of positional and scientific notation.
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "-inf\n-2\n-0\n0\n1e-5\n3.5\n100\n1e3\n2.25e10\ninf\n");
    // Generated text through gen, sort (chunked, descending) and check-file.
    let (gen_in, gen_out) = (d.join("gen.txt"), d.join("gen-sorted.txt"));
    ok(&host(&["gen", "--text", "--type", "i32", "--n", "900_007", "-o", s(&gen_in)]));
    let args = ["sort", "--text", "--type", "i32", "--order", "desc", "--max-device-bytes", "1M"];
    let stdout = ok(&host(&[&args[..], &["-i", s(&gen_in), "-o", s(&gen_out)]].concat()));
    assert!(stdout.contains(" 11 chunks;"), "{stdout}");
    ok(&host(&["check-file", "--text", "--type", "i32", "--order", "desc", "-i", s(&gen_in), "-o", s(&gen_out)]));
    let mut expect: Vec<i32> = generate(900_007, Distribution::Uniform, 42);
    expect.sort_by(|a, b| b.cmp(a));
    assert_eq!(format::read_text::<i32>(&gen_out).unwrap(), expect);
}

/// Floats of every spelling through `sort --text` and `check-file`: the output is
/// ordered with the NaNs' signs kept, checks against its input, and values out of the
/// type's range are reported once per command.
#[test]
fn text_floats_sort_and_check_whatever_their_spelling() {
    let d = dir("text-floats");
    let (inp, out) = (d.join("in.txt"), d.join("out.txt"));
    let floats = "nan\n-NaN\n+nan\n-nan\nNAN\n1e400\n-1e400\ninfinity\n-Inf\n-0\n0\n1e-50\n-1e-50\n1e-40\n\
                2.5\n1E3\n.5\n5.\n+7\n1e300\n";
    std::fs::write(&inp, floats).unwrap();
    for order in ["asc", "desc"] {
        for ty in ["f32", "f64"] {
            let sort = host(&["sort", "--cpu", "--text", "--type", ty, "--order", order, "-i", s(&inp), "-o", s(&out)]);
            ok(&sort);
            let check = host(&["check-file", "--text", "--type", ty, "--order", order, "-i", s(&inp), "-o", s(&out)]);
            assert!(ok(&check).starts_with("ok: 20 elements"), "{ty} {order}");
            let sorted = std::fs::read_to_string(&out).unwrap();
            let (first, last) = (sorted.lines().next().unwrap(), sorted.lines().last().unwrap());
            assert_eq!(
                (first, last),
                if order == "asc" { ("-NaN", "NaN") } else { ("NaN", "-NaN") },
                "{ty}:\n{sorted}"
            );
            assert!(!sorted.contains("0000000000"), "{ty}: positional where scientific is shorter:\n{sorted}");
            let want = if ty == "f32" {
                "warning: parsing text: 3 values overflowed to ±inf, 2 underflowed to 0, 1 to a subnormal"
            } else {
                "warning: parsing text: 2 values overflowed to ±inf"
            };
            let warnings: Vec<String> =
                text(&sort.stderr).lines().filter(|l| l.starts_with("warning:")).map(String::from).collect();
            assert_eq!(warnings, [want], "{ty} {order}");
        }
    }
}

/// Hostile numbers for every numeric argument: one clear error line each, never a
/// panic, and nothing run.
#[test]
fn numeric_arguments_are_range_checked() {
    let d = dir("args");
    let (inp, out, missing) = (d.join("in.bin"), d.join("out.bin"), d.join("missing.bin"));
    format::write_file(&inp, &[3u32, 1, 2], Format::Binary).unwrap();
    let (i, o) = (s(&inp), s(&out));
    let cases: &[(&[&str], &str)] = &[
        // Written in pieces, so refused for the disk space it would take, not memory.
        (&["gen", "--n", "1<<63", "-o", o], "are free in"),
        (&["gen", "--n", "2^64", "-o", o], "is not a count"),
        (&["run", "--cpu", "--n", "10", "--repeat", "18446744073709551615"], "repeats must be from 1 to 1000000"),
        (&["run", "--cpu", "--n", "10", "--repeat", "0"], "repeats must be from 1 to 1000000"),
        (&["run", "--cpu", "--n", "10", "--block-size", "100"], "power of two between 32 and 1024"),
        (&["run", "--cpu", "--n", "1<<62"], "cannot allocate"),
        (&["run", "--gpus", "18446744073709551615", "--n", "10"], "no CUDA device"),
        (&["sort", "--cpu", "--block-size", "2048", "-i", i, "-o", o], "power of two between 32 and 1024"),
        (&["sort", "--cpu", "--max-device-bytes", "12", "-i", i, "-o", o], "at least 1048576"),
        (&["sort", "--cpu", "--record-size", "0", "-i", i, "-o", o], "record size must be at least 1"),
        (
            &["sort", "--cpu", "--record-size", "4", "--key-offset", "18446744073709551615", "-i", i, "-o", o],
            "does not fit",
        ),
        (&["check-file", "-i", i, "-o", s(&missing)], "cannot read output"),
        (&["bench", "--cpu", "--n", "10", "--block-size", "16"], "power of two between 32 and 1024"),
        (&["bench", "--cpu", "--n", "10", "--buffers", "257"], "from 0 to 256"),
        (&["bench", "--cpu", "--n", "10", "--warmup", "18446744073709551615"], "warm-up runs must be from 0"),
        (&["bench", "--cpu", "--n", "10", "--max-sort-ms", "NaN"], "not a positive number of milliseconds"),
        (&["bench", "--cpu", "--n", "1<<62", "--repeat", "1"], "cannot allocate"),
        (&["bench-topk", "--n", "2^32"], "from 0 to 4294967295"),
        (&["bench-pairs", "--n", "2^32"], "from 0 to 4294967295"),
        (&["bench-records", "--record-size", "0"], "record size must be at least 1"),
        (&["bench-records", "--record-size", "18446744073709551615", "--n", "2"], "more bytes than can be counted"),
        (&["bench-segments", "--segments", "0"], "segments must be at least 1"),
        (&["bench-segments", "--segments", "2^40", "--n", "10"], "at most one segment per key"),
        (&["study", "threads", "--max-threads", "1<<40"], "threads must be from 1 to"),
        (&["study", "sizes", "--max-n", "1<<62", "--out", s(&d)], "cannot allocate"),
    ];
    for (args, want) in cases {
        let run = host(args);
        let e = fails(&run);
        assert!(e.contains(want), "{args:?}: {e}");
        assert!(!text(&run.stderr).contains("panicked"), "{args:?}");
    }
    assert!(!out.exists());
}

#[test]
fn bad_input_is_one_clear_error_and_leaves_nothing_behind() {
    let d = dir("errors");
    let out = d.join("out.bin");
    std::fs::write(&out, b"previous").unwrap();
    let sort = |inp: &Path, extra: &[&str]| host(&[&["sort", "-i", s(inp), "-o", s(&out)][..], extra].concat());

    let e = fails(&sort(&d.join("missing.bin"), &[]));
    assert!(e.contains("cannot read input") && e.contains("missing.bin"), "{e}");

    let odd = d.join("odd.bin");
    std::fs::write(&odd, [1u8; 10]).unwrap();
    let e = fails(&sort(&odd, &["--type", "u64"]));
    assert!(e.contains("10 bytes, not a multiple of 8"), "{e}");

    let bad_text = d.join("bad.txt");
    std::fs::write(&bad_text, "1\n2\n\nthree\n4\n").unwrap();
    let e = fails(&sort(&bad_text, &["--text"]));
    assert!(e.contains("line 4: `three` is not a u32"), "{e}");

    let good = d.join("good.bin");
    format::write_file(&good, &[3u32, 1, 2], Format::Binary).unwrap();
    let e = fails(&host(&["sort", "-i", s(&good), "-o", s(&d.join("no/such/dir/out.bin"))]));
    assert!(e.contains("cannot write output"), "{e}");
    fails(&host(&["sort", "-i", s(&good), "-o", s(&d)]));

    assert_eq!(std::fs::read(&out).unwrap(), b"previous", "a failed sort must not touch the output");
    assert!(strays(&d, &[&out, &odd, &bad_text, &good]).is_empty(), "temporary files left behind");
}

#[test]
fn bench_writes_table_csv_json_and_charts() {
    let d = dir("bench");
    let (csv, json, svg) = (d.join("b.csv"), d.join("b.json"), d.join("b.svg"));
    let stdout = ok(&host(&[
        "bench",
        "--cpu",
        "--type",
        "u32,u64",
        "--n",
        "1000,2^12",
        "--repeat",
        "2",
        "--check",
        "--csv",
        s(&csv),
        "--json",
        s(&json),
        "--svg",
        s(&svg),
    ]));
    assert!(stdout.contains("timing the CPU backend") && stdout.contains("effective bandwidth = "), "{stdout}");
    let rows: Vec<&str> = stdout.lines().filter(|l| l.starts_with("cpu ")).collect();
    assert_eq!(rows.len(), 4, "{stdout}");
    assert!(rows.iter().all(|r| r.ends_with("ok")), "{stdout}");
    let csv = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(csv.lines().count(), 5);
    assert!(csv.starts_with("backend,device,variant,"));
    let json = std::fs::read_to_string(&json).unwrap();
    assert_eq!(json.matches("\"variant\": \"cpu\"").count(), 4);
    for group in ["u32-uniform", "u64-uniform"] {
        let chart = std::fs::read_to_string(d.join(format!("b-{group}.svg"))).unwrap();
        assert!(chart.contains("<polyline"));
    }
    let e = fails(&host(&["bench", "--cpu", "--variants", "nope"]));
    assert!(e.contains("unknown variant `nope`"), "{e}");
}

#[test]
fn bench_on_the_gpu_or_refuses_without_one() {
    let has_gpu = Sorter::new().is_ok();
    if !has_gpu {
        let e = fails(&host(&["bench", "--require-gpu", "--n", "1000"]));
        assert!(e.contains("no CUDA device"), "{e}");
        let stdout = ok(&host(&["bench", "--n", "1000", "--repeat", "1"]));
        assert!(stdout.contains("timing the CPU backend"), "{stdout}");
        return;
    }
    let d = dir("bench-gpu");
    let csv = d.join("g.csv");
    let stdout = ok(&host(&[
        "bench",
        "--require-gpu",
        "--variants",
        "all",
        "--type",
        "u32,entity",
        "--n",
        "1000,70001",
        "--block-size",
        "256,512",
        "--repeat",
        "2",
        "--check",
        "--csv",
        s(&csv),
    ]));
    assert!(stdout.contains("copy bandwidth:"), "{stdout}");
    let lines = std::fs::read_to_string(&csv).unwrap().lines().count();
    assert_eq!(lines, 1 + host::Variant::ALL.len() * 2 * 2 * 2, "{stdout}");
}

/// `--gpus`: bad counts are usage errors; without enough GPUs every command says why in
/// one error line; with two GPUs, `run --gpus 2 --check` sorts and verifies.
#[test]
fn gpus_flag_errors_and_runs() {
    for bad in ["0", "two", "1.5"] {
        let out = host(&["run", "--gpus", bad, "--n", "10"]);
        assert!(!out.status.success());
        assert!(text(&out.stderr).contains("is not a GPU count"), "{}", text(&out.stderr));
    }
    let out = host(&["bench", "--pairs", "--n", "10"]);
    assert!(!out.status.success(), "--pairs needs --gpus");
    let present = host::MultiGpuSorter::device_count().unwrap_or(0);
    let d = dir("gpus");
    let (input, output) = (d.join("in.bin"), d.join("out.bin"));
    ok(&host(&["gen", "--output", s(&input), "--n", "10000"]));
    if present < 2 {
        let e = fails(&host(&["run", "--gpus", "2", "--n", "1000"]));
        assert!(e.contains("no CUDA device") || e.contains("2 present"), "{e}");
        let e = fails(&host(&["sort", "--gpus", "2", "-i", s(&input), "-o", s(&output)]));
        assert!(e.contains("no CUDA device") || e.contains("GPUs asked for"), "{e}");
        assert!(!output.exists(), "no output on error");
        let e = fails(&host(&["bench", "--gpus", "1,2", "--n", "1000"]));
        assert!(e.contains("no CUDA device") || e.contains("GPUs asked for"), "{e}");
        return;
    }
    let stdout = ok(&host(&["run", "--gpus", "2", "--n", "100003", "--check", "--repeat", "1"]));
    assert!(stdout.contains("check:      ok"), "{stdout}");
    ok(&host(&["sort", "--gpus", "2", "-i", s(&input), "-o", s(&output)]));
    ok(&host(&["check-file", "-i", s(&input), "-o", s(&output)]));
    // A binary file streams through each GPU's staging buffers: here small ones (65,540
    // bytes, two), so that each GPU's share and range cross many of them, descending.
    let big = d.join("big.bin");
    ok(&host(&["gen", "--output", s(&big), "--n", "3000017", "--type", "u64", "--dist", "few-unique"]));
    let args = ["sort", "--gpus", "2", "--type", "u64", "--order", "desc", "-i", s(&big), "-o", s(&output)];
    let small = [("SORT_FILE_STAGE_BYTES", "65540"), ("SORT_FILE_STAGES", "2")];
    ok(&Command::new(host_bin()).args(args).envs(small).output().expect("running the host binary"));
    ok(&host(&["check-file", "--type", "u64", "--order", "desc", "-i", s(&big), "-o", s(&output)]));
    // Not a whole number of elements: refused, and no output appears.
    let (odd, none) = (d.join("odd.bin"), d.join("none.bin"));
    std::fs::write(&odd, [7u8; 10]).unwrap();
    let e = fails(&host(&["sort", "--gpus", "2", "-i", s(&odd), "-o", s(&none)]));
    assert!(e.contains("10 bytes, not a multiple of 4"), "{e}");
    assert!(!none.exists(), "no output on error");
}

/// The program opens its device with the tuning variables of its environment: on a GPU
/// a missing `SORT_PTX_FILE` fails the open, and `SORT_FORCE_PTX=1 SORT_PDL=0` load the
/// embedded PTX and launch plainly (the "kernels:" line says so). Without a GPU the CPU
/// sorts whatever they say.
#[test]
fn tuning_variables_reach_the_program() {
    let run = |vars: &[(&str, &str)], require_gpu: bool| {
        let mut args = vec!["run", "--n", "1000", "--repeat", "1", "--check"];
        if require_gpu {
            args.push("--require-gpu");
        }
        Command::new(host_bin()).args(&args).envs(vars.iter().copied()).output().expect("running the host binary")
    };
    let missing = std::env::temp_dir().join("host-cli-no-such-kernels.ptx");
    if Sorter::new().is_err() {
        let stdout = ok(&run(&[("SORT_PTX_FILE", s(&missing)), ("SORT_FORCE_PTX", "1")], false));
        assert!(stdout.contains("check:      ok"), "{stdout}");
        return;
    }
    let e = fails(&run(&[("SORT_PTX_FILE", s(&missing))], true));
    assert!(e.contains("reading the PTX file") && e.contains("host-cli-no-such-kernels.ptx"), "{e}");
    let stdout = ok(&run(&[("SORT_FORCE_PTX", "1"), ("SORT_PDL", "0")], true));
    assert!(stdout.contains("kernels:    embedded PTX (JIT-compiled by the driver)\n"), "{stdout}");
}
