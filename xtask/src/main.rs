//! `cargo xtask <task>`: build-ptx, bundle. Run `cargo xtask help` for details.
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use xtask::{pack, prebuilt, ptx};

const HELP: &str = "\
usage: cargo xtask <task> [options]

tasks:
  build-ptx [--check] [--features F]
                        Compile kernels/ to PTX (target/ptx/kernels.ptx, entry points
                        listed) and, with the pinned ptxas (xtask/ptxas-requirements.txt;
                        from $PTXAS, PATH, or target/ptxas-venv), to the sm_80 and sm_90
                        cubins; print registers, shared memory, stack and spills per
                        sm_90 kernel; write the prebuilt kernels that `host` embeds
                        (host/prebuilt: commit them). With --check, compare host/prebuilt
                        with this build instead and fail when it is stale. With
                        --features, build a kernel variant (cargo features of `kernels`,
                        e.g. rank-ballot) into target/ptx/kernels-<features>.ptx only, for
                        experiments (load it with SORT_PTX_FILE=...; --check: its sm_90
                        resources).
  bundle                Build the release CLI and the release test binaries into
                        bundle/ with run-gpu-tests.sh, for a GPU machine without Rust.
  sanitize              Build the bundle and write bundle/sanitize.sh, which runs
                        compute-sanitizer (memcheck, racecheck, synccheck, initcheck)
                        over every variant's kernels at a few sizes and types. Runs it
                        at once where compute-sanitizer is on PATH; otherwise copy
                        bundle/ to a GPU machine and run bundle/sanitize.sh there.
  help                  This text.
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("build-ptx") => {
            let features = args.iter().position(|a| a == "--features").and_then(|i| args.get(i + 1));
            build_ptx(args[1..].iter().any(|a| a == "--check"), features.map_or("", String::as_str))
        }
        Some("bundle") => bundle(),
        Some("sanitize") => sanitize(),
        Some("help" | "--help" | "-h") | None => {
            print!("{HELP}");
            Ok(())
        }
        Some(other) => Err(format!("unknown task `{other}`\n\n{HELP}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn cargo() -> PathBuf {
    std::env::var_os("CARGO").map(PathBuf::from).unwrap_or_else(|| "cargo".into())
}

/// The ptxas to build the prebuilt cubins with and its version: refused unless it is the
/// pinned one, whose cubins are the ones CI rebuilds and compares.
fn pinned_ptxas(ws: &Path) -> Result<(PathBuf, String), String> {
    let install = "python3 -m venv target/ptxas-venv && \
                   target/ptxas-venv/bin/pip install -r xtask/ptxas-requirements.txt";
    let pinned = pack::pinned_ptxas_version()?;
    let Some(ptxas) = ptx::find_ptxas(ws) else {
        return Err(format!(
            "ptxas not found: the prebuilt cubins need ptxas {pinned}; install it with\n  {install}\n\
             (or point $PTXAS at it)"
        ));
    };
    let version = ptx::ptxas_version(&ptxas)?;
    if version != pinned {
        return Err(format!(
            "{} is ptxas {version}, but the prebuilt cubins are built and checked with the pinned {pinned} \
             (xtask/ptxas-requirements.txt): another version would write cubins that CI rejects. Install \
             it with\n  {install}\n(or point $PTXAS at it)",
            ptxas.display()
        ));
    }
    Ok((ptxas, version))
}

/// `build-ptx`: the PTX into target/ptx, and the prebuilt kernels into host/prebuilt
/// (with `check`, compared with host/prebuilt instead). With `features`, a kernel
/// variant's PTX only (see HELP).
fn build_ptx(check: bool, features: &str) -> Result<(), String> {
    let ws = workspace();
    if !features.is_empty() {
        return build_variant(&ws, check, features);
    }
    let ptxas = pinned_ptxas(&ws);
    let built = ptx::build_all(&ws, &ws.join("target/ptx-build"), "", ptxas.as_ref().ok().map(|p| p.0.as_path()))?;
    publish_ptx(&ws, &built.ptx, "kernels.ptx")?;
    // Refused only now, so that the PTX is in target/ptx even without ptxas.
    let (_, version) = ptxas?;
    if !built.failed.is_empty() {
        return Err(built.failed.join("\n"));
    }
    let sm90 = built.cubins.iter().find(|c| c.arch == (9, 0)).ok_or("no sm_90 cubin was built")?;
    print_resources(&sm90.report, &version);
    let fresh = pack::fresh(&ws, &built, &version)?;
    let dir = ws.join("host").join(prebuilt::DIR);
    if check {
        let differences = pack::differences(&dir, &fresh);
        if !differences.is_empty() {
            return Err(format!(
                "the prebuilt kernels are stale: run `cargo xtask build-ptx` and commit host/{}\n  {}",
                prebuilt::DIR,
                differences.join("\n  ")
            ));
        }
        println!(
            "host/{}: up to date (PTX, {} cubins, {} dependent-launch entries, {} sources)",
            prebuilt::DIR,
            fresh.manifest.cubins().count(),
            fresh.manifest.pdl.len(),
            fresh.manifest.sources.len()
        );
    } else {
        for line in pack::write(&dir, &fresh)? {
            println!("{line}");
        }
    }
    Ok(())
}

/// A kernel variant (cargo features of `kernels`) into target/ptx/kernels-<features>.ptx,
/// for experiments that load it with SORT_PTX_FILE; with `check`, its sm_90 resources.
fn build_variant(ws: &Path, check: bool, features: &str) -> Result<(), String> {
    let tag = features.replace(',', "+");
    let built = ptx::build_ptx(ws, &ws.join(format!("target/ptx-build-{tag}")), features)?;
    let (hopper, _) = publish_ptx(ws, &built, &format!("kernels-{tag}.ptx"))?;
    if check {
        let Some(ptxas) = ptx::find_ptxas(ws) else {
            println!(
                "ptxas not found: skipping the sm_90 check (set $PTXAS, or install it: see `cargo xtask build-ptx`)"
            );
            return Ok(());
        };
        let cubin = ptx::build_cubin(&ptxas, &hopper, (9, 0))?;
        print_resources(&cubin.report, &ptx::ptxas_version(&ptxas)?);
    }
    Ok(())
}

/// Copies the PTX at `built` to target/ptx/`name` and writes the sm_90 text beside it
/// (what the sm_90 cubin is built from), listing the entry points and the entries
/// launched as dependents on Hopper. Returns the paths of both.
fn publish_ptx(ws: &Path, built: &Path, name: &str) -> Result<(PathBuf, PathBuf), String> {
    let dest_dir = ws.join("target/ptx");
    std::fs::create_dir_all(&dest_dir).map_err(|e| e.to_string())?;
    let dest = dest_dir.join(name);
    std::fs::copy(built, &dest).map_err(|e| format!("copying the PTX: {e}"))?;
    let text = std::fs::read_to_string(&dest).map_err(|e| e.to_string())?;
    let entries = ptx::entry_points(&text);
    println!("wrote {} ({} bytes, {} entry points)", dest.display(), text.len(), entries.len());
    for e in &entries {
        println!("  {e}");
    }
    let (hopper, hopper_text) = ptx::ptx_for_arch(&dest, (9, 0))?;
    let dependents = ptx::pdl_entries(&hopper_text.ok_or("no sm_90 PTX text")?)?;
    println!("wrote {} ({} entries wait for the previous grid first):", hopper.display(), dependents.len());
    println!("  {}", dependents.join(" "));
    Ok((dest, hopper))
}

/// Resource use of one kernel as ptxas reports it.
#[derive(Default)]
struct Resources {
    name: String,
    registers: String,
    smem: String,
    stack: String,
    spills: String,
}

/// Prints registers, static shared memory, stack and spills per kernel from the
/// `ptxas -arch=sm_90 -v` report `log`.
fn print_resources(log: &str, version: &str) {
    let mut kernels: Vec<Resources> = Vec::new();
    // The function the last "Function properties for" line named: a kernel's block is
    // followed by those of the functions it calls (a panic handler's 0 spills must
    // not overwrite the kernel's own figures).
    let mut properties_of = String::new();
    for line in log.lines() {
        if let Some(rest) = line.split("Function properties for ").nth(1) {
            properties_of = rest.trim().to_string();
        } else if let Some(rest) = line.split("Compiling entry function '").nth(1) {
            kernels.push(Resources {
                name: rest.split('\'').next().unwrap_or("").to_string(),
                // ptxas mentions static shared memory only when there is some; dynamic
                // shared memory (what our kernels use) is sized at launch.
                smem: "0".into(),
                ..Default::default()
            });
        } else if let Some(k) = kernels.last_mut() {
            if let Some(i) = line.find("bytes stack frame").filter(|_| properties_of == k.name) {
                k.stack = field_before(&line[..i]);
                if let Some(s) = line.split(", ").find(|s| s.contains("spill stores")) {
                    k.spills = s.trim().split(' ').next().unwrap_or("").to_string();
                }
            }
            if let Some(i) = line.find(" registers") {
                k.registers = field_before(&line[..i]);
                if let Some(s) = line.split(", ").find(|s| s.contains("bytes smem")) {
                    k.smem = s.trim().split(' ').next().unwrap_or("").to_string();
                }
            }
        }
    }
    println!("ptxas -arch=sm_90 ({version}): OK");
    println!("{:<40} {:>5} {:>16} {:>7} {:>7}", "kernel", "regs", "static smem (B)", "stack", "spills");
    for k in &kernels {
        println!("{:<40} {:>5} {:>16} {:>7} {:>7}", k.name, k.registers, k.smem, k.stack, k.spills);
    }
    if kernels.iter().any(|k| !k.spills.is_empty() && k.spills != "0") {
        println!("warning: some kernels spill registers to local memory");
    }
}

fn field_before(s: &str) -> String {
    s.split_whitespace().last().unwrap_or("").to_string()
}

fn run(cmd: &mut Command) -> Result<String, String> {
    let out = cmd.output().map_err(|e| format!("running {cmd:?}: {e}"))?;
    if !out.status.success() {
        return Err(format!("{cmd:?} failed:\n{}", String::from_utf8_lossy(&out.stderr)));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Release CLI + release test binaries of `host` + a script, in bundle/.
fn bundle() -> Result<(), String> {
    let ws = workspace();
    let dir = ws.join("bundle");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("tests")).map_err(|e| e.to_string())?;
    println!("building the release CLI ...");
    run(Command::new(cargo()).current_dir(&ws).args(["build", "--release", "-p", "host", "--bin", "host"]))?;
    copy_stripped(&ws.join("target/release/host"), &dir.join("host"))?;
    println!("building the release test binaries ...");
    let json = run(Command::new(cargo()).current_dir(&ws).args([
        "test",
        "--release",
        "-p",
        "host",
        "--no-run",
        "--message-format=json",
    ]))?;
    let mut names = Vec::new();
    let is_test_build = |l: &str| {
        l.split("\"profile\":{").nth(1).and_then(|p| p.split('}').next()).is_some_and(|p| p.contains("\"test\":true"))
    };
    for line in json.lines().filter(|l| is_test_build(l)) {
        let Some(exe) = line.split("\"executable\":\"").nth(1).and_then(|s| s.split('"').next()) else {
            continue;
        };
        // Name by target and kind: `host-lib`, `host-bin`, `gpu_naive-test`.
        let field = |key: &str| line.split(key).nth(1).and_then(|s| s.split('"').nth(1)).unwrap_or("?");
        let name = format!("{}-{}", field("\"name\":"), field("\"kind\":["));
        copy_stripped(Path::new(exe), &dir.join("tests").join(&name))?;
        names.push(name);
    }
    names.sort();
    std::fs::write(dir.join("run-gpu-tests.sh"), RUN_SCRIPT).map_err(|e| e.to_string())?;
    make_executable(&dir.join("run-gpu-tests.sh"))?;
    let size: u64 = walk_size(&dir);
    println!(
        "bundle/: host + {} test binaries ({}) + run-gpu-tests.sh, {:.1} MiB",
        names.len(),
        names.join(", "),
        size as f64 / (1 << 20) as f64
    );
    Ok(())
}

const RUN_SCRIPT: &str = r#"#!/usr/bin/env bash
# Runs every GPU test binary of the bundle with SORT_REQUIRE_GPU=1 (a missing device
# fails instead of skipping) and SORT_REQUIRE_GPUS set to the number of GPUs present
# (so the two-GPU tests run, and fail if they cannot, wherever two GPUs are). Tests
# that still skip (two-GPU tests on one GPU, tests needing more free memory) are
# listed at the end. Usage: bundle/run-gpu-tests.sh [LOG_DIR] [test filter]
set -u
here=$(cd "$(dirname "$0")" && pwd)
logs=${1:-${OUT:-/tmp}/gpu-tests}
filter=${2:-}
mkdir -p "$logs"
export SORT_REQUIRE_GPU=1
SORT_REQUIRE_GPUS=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
export SORT_REQUIRE_GPUS
export SORT_SKIP_LOG="$logs/skipped.tsv"
rm -f "$SORT_SKIP_LOG"
# The CLI tests run this bundle's binary (their build-time path is not here).
export HOST_BIN="$here/host"
pass=0; fail=0; failed=""
for t in "$here"/tests/*; do
  name=$(basename "$t")
  if "$t" $filter > "$logs/$name.log" 2>&1; then
    pass=$((pass+1)); echo "PASS $name: $(grep -h '^test result' "$logs/$name.log" | tail -1)"
  else
    fail=$((fail+1)); failed="$failed $name"; echo "FAIL $name (log: $logs/$name.log)"; tail -30 "$logs/$name.log"
  fi
done
skipped=0
if [ -s "$SORT_SKIP_LOG" ]; then
  skipped=$(cut -f1,2 "$SORT_SKIP_LOG" | sort -u | wc -l)
  echo "skipped (counted as passed by libtest):"
  sort -u "$SORT_SKIP_LOG" | sed 's/^/  /'
fi
echo "gpu-tests on $SORT_REQUIRE_GPUS GPUs: $pass binaries passed, $fail failed; $skipped tests skipped"
[ "$fail" -eq 0 ]
"#;

fn sanitize() -> Result<(), String> {
    bundle()?;
    let script = workspace().join("bundle/sanitize.sh");
    std::fs::write(&script, SANITIZE_SCRIPT).map_err(|e| e.to_string())?;
    make_executable(&script)?;
    if Command::new("compute-sanitizer").arg("--version").output().is_ok_and(|o| o.status.success()) {
        let status = Command::new(&script).status().map_err(|e| e.to_string())?;
        return if status.success() { Ok(()) } else { Err("compute-sanitizer found errors (see above)".into()) };
    }
    println!("compute-sanitizer is not installed here: copy bundle/ to a GPU machine and run bundle/sanitize.sh");
    Ok(())
}

/// Every variant's kernels under each compute-sanitizer tool, on sizes that exercise
/// partial tiles (4097) and many blocks (100003, 300007), 4- and 8-byte keys and 20-byte
/// entities; then top-k (`topk` in the list), whose select path starts at ~262,000
/// keys (300007), with uniform keys and with all keys equal (the tie quota).
const SANITIZE_SCRIPT: &str = r#"#!/usr/bin/env bash
# Usage: bundle/sanitize.sh [LOG_DIR] [VARIANTS... and/or segmented, topk]  (default: all of them)
set -u
here=$(cd "$(dirname "$0")" && pwd)
logs=${1:-${OUT:-/tmp}/sanitize}; shift || true
mkdir -p "$logs"
variants=${*:-$("$here/host" list --names) segmented topk}
pass=0; fail=0
sanitize() { # log tool host-arguments...
  local log="$1" tool="$2"; shift 2
  if compute-sanitizer --tool "$tool" --error-exitcode 9 "$here/host" "$@" > "$log" 2>&1; then
    pass=$((pass+1)); rm -f "$log"
  else
    fail=$((fail+1)); echo "FAIL $tool $*:"; grep -m5 -E "ERROR|Invalid|Race|Barrier|Uninitialized|error|FAILED" "$log"
  fi
}
run() { # tool variant type n
  sanitize "$logs/$1-$2-$3-$4.log" "$1" --require-gpu --check --repeat 1 --variant "$2" --type "$3" --n "$4" --order desc
}
# The segmented sort (not a variant): 300 segments of mean 1,000 keys (warp and block
# kernels), 30 of mean 10,000 (block kernel, large segments sorted together), pairs.
segmented() { # tool type segments [--pairs]
  sanitize "$logs/$1-segmented-$2-$3${4:-}.log" "$1" bench-segments --check --repeat 1 --type "$2" --n 300007 \
    --segments "$3" --order desc ${4:-}
}
# Top-k (not a variant): uniform and all-equal keys (ties at the boundary).
topk() { # tool type n k dist
  sanitize "$logs/$1-topk-$2-$3-$4-$5.log" "$1" bench-topk --check --repeat 1 --type "$2" --n "$3" --k "$4" \
    --dist "$5" --order desc
}
for v in $variants; do
  if [ "$v" = topk ]; then
    for tool in memcheck racecheck synccheck; do
      topk "$tool" u32 300007 100 uniform
      topk "$tool" u64 300007 1000 equal
    done
    topk initcheck f32 300007 100 few-unique
    topk memcheck i32 4097 100 uniform
    echo "sanitized topk"; continue
  fi
  if [ "$v" = segmented ]; then
    for tool in memcheck racecheck synccheck initcheck; do
      segmented $tool u32 300; segmented $tool u64 30; segmented $tool f32 300 --pairs; segmented $tool i64 30 --pairs
    done
    echo "sanitized segmented"; continue
  fi
  run memcheck "$v" u32 100003
  run memcheck "$v" entity 4097
  run racecheck "$v" u32 100003
  run synccheck "$v" u32 100003
  run initcheck "$v" entity 4097
  run memcheck "$v" u64 300007
  run racecheck "$v" entity 100003
  echo "sanitized $v"
done
echo "sanitize: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
"#;

fn copy_stripped(src: &Path, dst: &Path) -> Result<(), String> {
    std::fs::copy(src, dst).map_err(|e| format!("copying {}: {e}", src.display()))?;
    // Best effort: the bundle must stay small enough to travel.
    let _ = Command::new("strip").arg(dst).status();
    make_executable(dst)
}

fn make_executable(p: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let mut perm = std::fs::metadata(p).map_err(|e| e.to_string())?.permissions();
    perm.set_mode(0o755);
    std::fs::set_permissions(p, perm).map_err(|e| e.to_string())
}

fn walk_size(p: &Path) -> u64 {
    std::fs::read_dir(p)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| {
            let m = e.metadata().unwrap();
            if m.is_dir() { walk_size(&e.path()) } else { m.len() }
        })
        .sum()
}
