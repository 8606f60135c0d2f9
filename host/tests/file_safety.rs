//! `host sort` and `host gen` never lose or damage data, on the CPU path: pipes,
//! FIFOs and devices as inputs and outputs, symbolic links and permissions, inputs
//! larger than the memory budget (runs on disk), endless inputs, a full disk
//! (`RLIMIT_FSIZE`), a memory cap (`RLIMIT_AS`) and signals. Runs the `host` binary
//! (or `$HOST_BIN`). Tests that need root (device nodes) say "skipped" without it.
use std::io::{Read, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use host::file_sort::Format;
use host::testing::cpu;
use host::testing::file_format as format;
use host::testing::inputs::generate;
use host::{Distribution, Entity, Order};

mod program;
use program::{host_bin, ok, s, text};

fn cmd(args: &[&str]) -> Command {
    let mut c = Command::new(host_bin());
    c.args(args).env_remove("TMPDIR");
    c
}

fn host(args: &[&str]) -> Output {
    cmd(args).stdin(Stdio::null()).output().expect("running the host binary")
}

/// Runs `host args` with `input` on its standard input.
fn host_with_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = cmd(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("running the host binary");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let feeder = std::thread::spawn(move || {
        // The sort may stop reading early (an error): a broken pipe is fine here.
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    out
}

/// A fresh scratch directory per test.
fn dir(test: &str) -> PathBuf {
    program::scratch_dir("safety", test)
}

/// A failed command: exit status 1 and exactly one `error: ...` line on stderr.
fn fails(out: &Output) -> String {
    assert_eq!(out.status.code(), Some(1), "should have failed cleanly:\n{}", text(&out.stderr));
    let err = text(&out.stderr);
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error: ")).collect();
    assert_eq!(errors.len(), 1, "one error line expected in:\n{err}");
    errors[0].to_string()
}

/// Names in `d` other than `keep`: temporary files must not be left behind.
fn strays(d: &Path, keep: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !keep.contains(&n.as_str()))
        .collect();
    v.sort();
    v
}

fn is_root() -> bool {
    // SAFETY: no preconditions.
    unsafe { libc::geteuid() == 0 }
}

fn mkfifo(p: &Path) {
    let c = std::ffi::CString::new(s(p)).unwrap();
    // SAFETY: a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo {}", p.display());
}

fn u32_bytes(v: &[u32]) -> Vec<u8> {
    bytemuck::cast_slice(v).to_vec()
}

fn sorted<T: host::Element>(v: &[T], order: Order) -> Vec<T> {
    let mut v = v.to_vec();
    cpu::reference_sort(&mut v, order);
    v
}

#[test]
fn standard_input_pipes_and_fifos_are_read_to_the_end() {
    let d = dir("streams");
    // No -i and no -o: standard input to standard output, as sort(1).
    let out = host_with_stdin(&["sort", "--cpu", "--type", "u32", "--text"], b"5\n3\n9\n");
    assert_eq!(ok(&out), "3\n5\n9\n");
    assert!(text(&out.stderr).contains("sorted 3 u32"), "the closing line goes to stderr: {}", text(&out.stderr));
    // -i /dev/stdin (a pipe: its size says 0) into a file.
    let o = d.join("o.txt");
    ok(&host_with_stdin(&["sort", "--cpu", "--text", "-i", "/dev/stdin", "-o", s(&o)], b"5\n3\n9"));
    assert_eq!(std::fs::read_to_string(&o).unwrap(), "3\n5\n9\n");
    // Binary through `-i -` and `-o -`, larger than the memory budget: the chunked
    // path with runs on disk, the same bytes as the in-memory sort.
    let data: Vec<u32> = generate(300_007, Distribution::FewUnique, 1);
    let args = ["sort", "--cpu", "--order", "desc", "--memory", "1M", "--temp-dir", s(&d), "-i", "-", "-o", "-"];
    let out = host_with_stdin(&args, &u32_bytes(&data));
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(out.stdout == u32_bytes(&sorted(&data, Order::Descending)), "stdin to stdout differs from the sort");
    assert!(text(&out.stderr).contains("runs on disk"), "{}", text(&out.stderr));
    // A stream that is not whole elements.
    let e = fails(&host_with_stdin(&["sort", "--cpu", "--type", "u64", "-o", s(&o)], &[1u8; 12]));
    assert!(e.contains("ended after 12 bytes, not a multiple of 8"), "{e}");
    assert_eq!(std::fs::read_to_string(&o).unwrap(), "3\n5\n9\n", "a failed sort keeps the old output");
    // A FIFO, written by another thread.
    let fifo = d.join("in.fifo");
    mkfifo(&fifo);
    let (f2, payload) = (fifo.clone(), u32_bytes(&data));
    let writer = std::thread::spawn(move || std::fs::write(&f2, payload).unwrap());
    let b = d.join("o.bin");
    ok(&host(&["sort", "--cpu", "-i", s(&fifo), "-o", s(&b)]));
    writer.join().unwrap();
    assert!(std::fs::read(&b).unwrap() == u32_bytes(&sorted(&data, Order::Ascending)));
    // check-file reads a stream too.
    let check = cmd(&["check-file", "-i", "-", "-o", s(&b)])
        .stdin(std::fs::File::open(d.join("o.bin")).unwrap())
        .output()
        .unwrap();
    assert!(check.status.success() && text(&check.stdout).starts_with("ok: 300007 elements"), "{check:?}");
    assert_eq!(strays(&d, &["o.txt", "o.bin", "in.fifo"]), Vec::<String>::new());
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn endless_input_fails_at_the_budget_and_writes_nothing() {
    let d = dir("endless");
    let out = d.join("out.bin");
    std::fs::write(&out, b"previous").unwrap();
    let args = ["sort", "--cpu", "--memory", "1M", "--max-temp-bytes", "4M", "--temp-dir", s(&d)];
    let e = fails(&host(&[&args[..], &["-i", "/dev/zero", "-o", s(&out)]].concat()));
    assert!(e.contains("/dev/zero is larger than this sort may hold") && e.contains("--max-temp-bytes"), "{e}");
    assert_eq!(std::fs::read(&out).unwrap(), b"previous");
    // To standard output: nothing written.
    let r = host(&[&args[..], &["-i", "/dev/zero"]].concat());
    fails(&r);
    assert!(r.stdout.is_empty(), "{} bytes written", r.stdout.len());
    // As text: zero bytes are no line of digits; refused at once.
    let e = fails(&host(&["sort", "--cpu", "--text", "-i", "/dev/zero", "-o", s(&out)]));
    assert!(e.contains("line 1: longer than"), "{e}");
    assert_eq!(strays(&d, &["out.bin"]), Vec::<String>::new());
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn devices_fifos_and_stdout_are_written_in_place() {
    let d = dir("outputs");
    let inp = d.join("in.bin");
    let data: Vec<u32> = generate(100_003, Distribution::Uniform, 2);
    std::fs::write(&inp, u32_bytes(&data)).unwrap();
    let want = u32_bytes(&sorted(&data, Order::Ascending));
    // /dev/null stays the device it is (renaming over it needs only root).
    let before = std::fs::metadata("/dev/null").unwrap();
    ok(&host(&["sort", "--cpu", "-i", s(&inp), "-o", "/dev/null"]));
    let after = std::fs::metadata("/dev/null").unwrap();
    assert!(after.file_type().is_char_device() && before.ino() == after.ino(), "/dev/null was replaced");
    // A FIFO: its reader gets the sorted bytes, and it stays a FIFO.
    let fifo = d.join("out.fifo");
    mkfifo(&fifo);
    let f2 = fifo.clone();
    let reader = std::thread::spawn(move || std::fs::read(&f2).unwrap());
    ok(&host(&["sort", "--cpu", "-i", s(&inp), "-o", s(&fifo)]));
    assert!(reader.join().unwrap() == want);
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    // /dev/stdout when standard output is a pipe.
    let out = host(&["sort", "--cpu", "-i", s(&inp), "-o", "/dev/stdout"]);
    assert!(out.status.success() && out.stdout == want, "{}", text(&out.stderr));
    // A device node made here (root only).
    let node = d.join("null-node");
    let c = std::ffi::CString::new(s(&node)).unwrap();
    // SAFETY: a NUL-terminated path; makedev of /dev/null's numbers.
    let made = is_root() && unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 3)) } == 0;
    if made {
        ok(&host(&["sort", "--cpu", "-i", s(&inp), "-o", s(&node)]));
        assert!(std::fs::symlink_metadata(&node).unwrap().file_type().is_char_device());
        std::fs::remove_file(&node).unwrap();
    } else {
        let _ = writeln!(
            std::io::stderr(),
            "devices_fifos_and_stdout_are_written_in_place: device node: skipped (not root)"
        );
    }
    assert_eq!(strays(&d, &["in.bin", "out.fifo"]), Vec::<String>::new());
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn links_modes_and_names_are_kept() {
    let d = dir("links");
    let inp = d.join("in.bin");
    let data: Vec<u32> = generate(10_007, Distribution::Uniform, 3);
    std::fs::write(&inp, u32_bytes(&data)).unwrap();
    let want = u32_bytes(&sorted(&data, Order::Ascending));
    // A symlink: the target gets the data and keeps its mode; the link stays a link.
    let target = d.join("target.bin");
    std::fs::write(&target, b"old").unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o600)).unwrap();
    let link = d.join("link.bin");
    std::os::unix::fs::symlink("target.bin", &link).unwrap();
    ok(&host(&["sort", "--cpu", "-i", s(&inp), "-o", s(&link)]));
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert!(std::fs::read(&target).unwrap() == want);
    assert_eq!(std::fs::metadata(&target).unwrap().mode() & 0o7777, 0o600, "the mode widened");
    // A name as long as the file system allows: the temporary name still fits.
    let long = d.join("n".repeat(255));
    ok(&host(&["sort", "--cpu", "-i", s(&inp), "-o", s(&long)]));
    assert!(std::fs::read(&long).unwrap() == want);
    // Errors known before sorting: a trailing slash, a directory, a missing directory
    // or input; nothing is created.
    let e = fails(&host(&["sort", "--cpu", "-i", s(&inp), "-o", &format!("{}/newdir/", d.display())]));
    assert!(e.contains("names a directory"), "{e}");
    let e = fails(&host(&["sort", "--cpu", "-i", s(&inp), "-o", s(&d)]));
    assert!(e.contains("is a directory"), "{e}");
    let e = fails(&host(&["sort", "--cpu", "-i", s(&inp), "-o", s(&d.join("no/out.bin"))]));
    assert!(e.contains("cannot write output"), "{e}");
    let e = fails(&host(&["sort", "--cpu", "-i", s(&d.join("missing")), "-o", s(&target)]));
    assert!(e.contains("cannot read input"), "{e}");
    // Sorting a file onto itself past the memory budget (runs on disk).
    ok(&host(&["sort", "--cpu", "--memory", "64K", "-i", s(&inp), "-o", s(&inp)]));
    assert!(std::fs::read(&inp).unwrap() == want);
    let name = long.file_name().unwrap().to_str().unwrap();
    assert_eq!(strays(&d, &["in.bin", "target.bin", "link.bin", name]), Vec::<String>::new());
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn runs_on_disk_give_the_in_memory_result_bit_for_bit() {
    let d = dir("external");
    let data: Vec<Entity> = generate(200_003, Distribution::FewUnique, 4);
    let inp = d.join("in.bin");
    format::write_file(&inp, &data, Format::Binary).unwrap();
    let want = sorted(&data, Order::Descending);
    let common = ["sort", "--cpu", "--type", "entity", "--order", "desc", "--temp-dir", s(&d), "-i", s(&inp)];
    let (mem, ext) = (d.join("mem.bin"), d.join("ext.bin"));
    ok(&host(&[&common[..], &["-o", s(&mem)]].concat()));
    // 1 MiB: 4 MiB of entities in runs of a third of a MiB, merged two at a time (several passes).
    let stdout = ok(&host(&[&common[..], &["--memory", "1M", "-o", s(&ext)]].concat()));
    assert!(stdout.contains("runs on disk"), "{stdout}");
    assert!(std::fs::read(&ext).unwrap() == std::fs::read(&mem).unwrap(), "runs on disk differ from in memory");
    assert!(format::read_binary::<Entity>(&ext).unwrap() == want, "not the stable sort");
    // Text in and out, through runs.
    let (tin, tout) = (d.join("in.txt"), d.join("out.txt"));
    let keys: Vec<i64> = generate(100_003, Distribution::Uniform, 5);
    format::write_file(&tin, &keys, Format::Text).unwrap();
    let stdout = ok(&host(&[
        "sort",
        "--cpu",
        "--type",
        "i64",
        "--memory",
        "256K",
        "--temp-dir",
        s(&d),
        "-i",
        s(&tin),
        "-o",
        s(&tout),
    ]));
    assert!(stdout.contains("runs on disk"), "{stdout}");
    assert_eq!(format::read_text::<i64>(&tout).unwrap(), sorted(&keys, Order::Ascending));
    assert_eq!(strays(&d, &["in.bin", "mem.bin", "ext.bin", "in.txt", "out.txt"]), Vec::<String>::new());
    std::fs::remove_dir_all(&d).unwrap();
}

/// Sets a resource limit in the child before it runs.
fn with_rlimit(c: &mut Command, resource: libc::__rlimit_resource_t, bytes: u64) -> &mut Command {
    // SAFETY: setrlimit is async-signal-safe; nothing else runs in the forked child.
    unsafe {
        c.pre_exec(move || {
            let l = libc::rlimit { rlim_cur: bytes, rlim_max: bytes };
            if libc::setrlimit(resource, &l) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        })
    }
}

#[test]
fn a_full_disk_leaves_the_old_output_and_nothing_else() {
    let d = dir("full");
    let inp = d.join("in.bin");
    let out = d.join("out.bin");
    let data: Vec<u32> = generate(1 << 20, Distribution::Uniform, 6);
    std::fs::write(&inp, u32_bytes(&data)).unwrap();
    std::fs::write(&out, b"previous").unwrap();
    // Files past 1 MiB fail to grow (EFBIG): the output, and the runs on disk.
    for extra in [&[][..], &["--memory", "1M", "--temp-dir", s(&d)][..], &["--fsync"][..]] {
        let mut c = cmd(&[&["sort", "--cpu", "-i", s(&inp), "-o", s(&out)][..], extra].concat());
        let r = with_rlimit(&mut c, libc::RLIMIT_FSIZE, 1 << 20).output().unwrap();
        let e = fails(&r);
        assert!(e.contains("File too large") || e.contains("reserving"), "{e}");
        assert_eq!(std::fs::read(&out).unwrap(), b"previous", "{extra:?}");
        assert_eq!(strays(&d, &["in.bin", "out.bin"]), Vec::<String>::new(), "{extra:?}");
    }
    // To a pipe nothing limits the size: the same sort succeeds.
    let mut c = cmd(&["sort", "--cpu", "-i", s(&inp)]);
    let r = with_rlimit(&mut c, libc::RLIMIT_FSIZE, 1 << 20).output().unwrap();
    assert!(r.status.success() && r.stdout.len() == 4 << 20, "{}", text(&r.stderr));
    // gen of a file that cannot fit any disk fails before writing anything.
    let big = d.join("big.bin");
    let e = fails(&host(&["gen", "--n", "2^60", "--type", "u64", "-o", s(&big)]));
    assert!(e.contains("are free in"), "{e}");
    assert!(!big.exists());
    assert_eq!(strays(&d, &["in.bin", "out.bin"]), Vec::<String>::new());
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_memory_cap_is_kept_to_not_aborted_on() {
    // 96 MiB of keys under a 400 MiB address space: the default budget sends the
    // sorted runs to disk (mapping the output may fail: positioned writes then).
    let d = dir("cap");
    let inp = d.join("in.bin");
    let out = d.join("out.bin");
    let data: Vec<u32> = generate(24 << 20, Distribution::Uniform, 7);
    std::fs::write(&inp, u32_bytes(&data)).unwrap();
    let mut c = cmd(&["sort", "--cpu", "-i", s(&inp), "-o", s(&out)]);
    let r = with_rlimit(&mut c, libc::RLIMIT_AS, 400 << 20).output().unwrap();
    assert!(r.status.success(), "status {:?}:\n{}", r.status, text(&r.stderr));
    assert!(text(&r.stdout).contains("runs on disk"), "{}", text(&r.stdout));
    assert!(std::fs::read(&out).unwrap() == u32_bytes(&sorted(&data, Order::Ascending)));
    // The sorts that work in memory refuse what passes the budget.
    let e = fails(&host(&["sort", "--cpu", "--argsort", "--memory", "1M", "-i", s(&inp), "-o", s(&out)]));
    assert!(e.contains("larger than this sort may hold") && e.contains("--argsort sorts in memory"), "{e}");
    let e = fails(&host(&["sort", "--cpu", "--record-size", "8", "--memory", "1M", "-i", s(&inp), "-o", s(&out)]));
    assert!(e.contains("--record-size sorts in memory"), "{e}");
    let e = fails(&host_with_stdin(
        &["sort", "--cpu", "--record-size", "4", "--memory", "64K", "-o", s(&out)],
        &[0; 1 << 20],
    ));
    assert!(e.contains("standard input is larger"), "{e}");
    assert!(std::fs::read(&out).unwrap() == u32_bytes(&sorted(&data, Order::Ascending)), "the output was touched");
    assert_eq!(strays(&d, &["in.bin", "out.bin"]), Vec::<String>::new());
    std::fs::remove_dir_all(&d).unwrap();
}

/// Starts `host sort` reading a FIFO that is fed a little and never closed, and waits
/// until the output's temporary file exists: the sort is then blocked mid-read.
fn blocked_sort(d: &Path, args: &[&str]) -> (Child, std::fs::File) {
    let fifo = d.join("in.fifo");
    if !fifo.exists() {
        mkfifo(&fifo);
    }
    let out = d.join("out.bin");
    let child = cmd(&[&["sort", "--cpu", "-i", s(&fifo), "-o", s(&out)][..], args].concat())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut w = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    w.write_all(&[7u8; 4096]).unwrap();
    let start = Instant::now();
    while !strays(d, &["in.fifo", "out.bin"]).iter().any(|n| n.ends_with(".tmp")) {
        assert!(start.elapsed() < Duration::from_secs(20), "no temporary output appeared");
        std::thread::sleep(Duration::from_millis(20));
    }
    (child, w)
}

#[test]
fn signals_remove_temporary_files_and_end_by_the_signal() {
    let d = dir("signals");
    let out = d.join("out.bin");
    std::fs::write(&out, b"previous").unwrap();
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        let (mut child, writer) = blocked_sort(&d, &[]);
        // SAFETY: a signal to our own child.
        assert_eq!(unsafe { libc::kill(child.id() as i32, sig) }, 0);
        let status = child.wait().unwrap();
        drop(writer);
        assert_eq!(status.signal(), Some(sig), "signal {sig}: {status:?}");
        assert_eq!(std::fs::read(&out).unwrap(), b"previous");
        assert_eq!(strays(&d, &["in.fifo", "out.bin"]), Vec::<String>::new(), "signal {sig}");
        let mut err = String::new();
        child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
        assert!(!err.contains("panicked"), "{err}");
    }
    // The status a shell reports: 128 + the signal.
    let fifo = d.join("in.fifo");
    let script = r#""$0" sort --cpu -i "$1" -o "$2" & echo $!; wait $!; echo "status $?""#;
    let mut sh = Command::new("sh")
        .args(["-c", script, s(&host_bin()), s(&fifo), s(&out)])
        .env_remove("TMPDIR")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut w = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    w.write_all(&[1u8; 64]).unwrap();
    let mut stdout = std::io::BufReader::new(sh.stdout.take().unwrap());
    let mut pid = String::new();
    std::io::BufRead::read_line(&mut stdout, &mut pid).unwrap();
    let start = Instant::now();
    while !strays(&d, &["in.fifo", "out.bin"]).iter().any(|n| n.ends_with(".tmp")) {
        assert!(start.elapsed() < Duration::from_secs(20), "no temporary output appeared");
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: a signal to the shell's child.
    assert_eq!(unsafe { libc::kill(pid.trim().parse().unwrap(), libc::SIGTERM) }, 0);
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    sh.wait().unwrap();
    drop(w);
    assert_eq!(rest.trim(), "status 143");
    assert_eq!(strays(&d, &["in.fifo", "out.bin"]), Vec::<String>::new());
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn gen_writes_in_pieces_the_same_file() {
    let d = dir("gen");
    for dist in [Distribution::Uniform, Distribution::Sorted, Distribution::OrganPipe, Distribution::Reverse] {
        let p = d.join(format!("{dist}.bin"));
        // 64 KiB of memory: the sorted shapes go through runs on disk.
        let args = ["gen", "--type", "entity", "--n", "100003", "--memory", "64K", "--temp-dir", s(&d)];
        ok(&host(&[&args[..], &["--dist", dist.name(), "--seed", "9", "-o", s(&p)]].concat()));
        let want: Vec<Entity> = generate(100_003, dist, 9);
        assert!(format::read_binary::<Entity>(&p).unwrap() == want, "{dist}");
    }
    let out = host(&["gen", "--text", "--type", "i32", "--n", "1000", "-o", "-"]);
    let want: Vec<i32> = generate(1000, Distribution::Uniform, 42);
    assert_eq!(format::parse_text::<i32>(&out.stdout).unwrap(), want);
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn progress_shows_after_a_second_and_not_before() {
    let d = dir("progress");
    let out = d.join("out.bin");
    // Quick: nothing but the usual lines.
    let r = host_with_stdin(&["sort", "--cpu", "-o", s(&out)], &[1u8; 4096]);
    ok(&r);
    assert!(!text(&r.stderr).contains("] read:"), "{}", text(&r.stderr));
    // Slow (a FIFO fed over two seconds): plain progress lines on a non-terminal.
    let (mut child, mut w) = blocked_sort(&d, &[]);
    std::thread::sleep(Duration::from_millis(1500));
    w.write_all(&[3u8; 4096]).unwrap();
    drop(w);
    let status = child.wait().unwrap();
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    assert!(status.success(), "{err}");
    assert!(err.contains("] read: "), "{err}");
    std::fs::remove_dir_all(&d).unwrap();
}
