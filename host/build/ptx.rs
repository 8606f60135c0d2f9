//! Builds the `kernels` crate into a PTX module with rustc's NVPTX backend, and the
//! PTX into cubins with ptxas.
//!
//! A nested `cargo rustc --crate-type cdylib --target nvptx64-nvidia-cuda
//! -Zbuild-std=core` runs with a scrubbed environment (so the outer cargo's flags,
//! wrappers and target settings do not leak in) and its own target directory (so it
//! never waits on the outer build's lock).
//!
//! Compiled into host's build script (which builds the kernels from source only when
//! asked to or when the prebuilt ones are stale) and into xtask (`cargo xtask
//! build-ptx`, which regenerates the prebuilt kernels) through `#[path]`, so both build
//! them the same way.
use std::path::{Path, PathBuf};
use std::process::Command;

pub const TARGET: &str = "nvptx64-nvidia-cuda";
/// Baseline architecture: the PTX runs on Volta and newer, the driver compiling it for
/// the actual GPU (Hopper included) when the module is loaded.
pub const TARGET_CPU: &str = "sm_70";

/// Where the built PTX lands inside a target directory.
pub fn ptx_path(target_dir: &Path) -> PathBuf {
    target_dir.join(TARGET).join("release").join("kernels.ptx")
}

/// Architectures whose machine code (cubins) `host` embeds beside the PTX: loading the
/// cubin that matches the GPU skips the driver's JIT compilation of the whole PTX
/// (seconds on a first run). A cubin runs on GPUs of the same major version and an
/// equal or higher minor one; other GPUs JIT-compile the PTX.
pub const CUBIN_ARCHS: &[(u32, u32)] = &[(8, 0), (9, 0)];

/// `ptxas`: `$PTXAS`, else on `PATH`, else the one `.ci/run` installs from PyPI's
/// `nvidia-cuda-nvcc-cu12` into `<workspace>/target/ptxas-venv`.
pub fn find_ptxas(workspace: &Path) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("PTXAS") {
        return Some(p.into());
    }
    if Command::new("ptxas").arg("--version").output().is_ok_and(|o| o.status.success()) {
        return Some("ptxas".into());
    }
    let lib = workspace.join("target/ptxas-venv/lib");
    for py in std::fs::read_dir(lib).ok()?.flatten() {
        let p = py.path().join("site-packages/nvidia/cuda_nvcc/bin/ptxas");
        if p.is_file() {
            return Some(p);
        }
    }
    None
}

/// The version `ptxas --version` reports, as in its last line
/// `Cuda compilation tools, release 12.9, V12.9.86`: `V12.9.86`.
pub fn ptxas_version(ptxas: &Path) -> Result<String, String> {
    let out = Command::new(ptxas).arg("--version").output().map_err(|e| format!("running {}: {e}", ptxas.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.split([' ', ',', '\n'])
        .find(|w| w.strip_prefix('V').is_some_and(|v| v.starts_with(|c: char| c.is_ascii_digit())))
        .map(str::to_string)
        .ok_or_else(|| format!("{} --version printed no version: {text:?}", ptxas.display()))
}

/// A cubin that [`build_cubin`] wrote, with what `ptxas -v` reported on it (registers,
/// shared memory, stack and spills per kernel).
pub struct Cubin {
    pub arch: (u32, u32),
    pub path: PathBuf,
    pub report: String,
}

/// Compiles `ptx_file` for `sm_<major><minor>` into a cubin next to it. The cubin is
/// reused while the PTX and the ptxas version are unchanged (kept in a `.src` file
/// beside it, the report in a `.log` file), so a second build costs no ptxas run.
pub fn build_cubin(ptxas: &Path, ptx_file: &Path, (major, minor): (u32, u32)) -> Result<Cubin, String> {
    let arch = format!("sm_{major}{minor}");
    let ptx = std::fs::read(ptx_file).map_err(|e| format!("reading {}: {e}", ptx_file.display()))?;
    let stamp_text = format!("{:016x} {}\n", crate::prebuilt::fingerprint(&ptx), ptxas_version(ptxas)?);
    let path = ptx_file.with_extension(format!("{arch}.cubin"));
    let stamp = ptx_file.with_extension(format!("{arch}.src"));
    let log = ptx_file.with_extension(format!("{arch}.log"));
    let cubin = |report| Cubin { arch: (major, minor), path: path.clone(), report };
    if path.is_file()
        && std::fs::read_to_string(&stamp).is_ok_and(|s| s == stamp_text)
        && let Ok(report) = std::fs::read_to_string(&log)
    {
        return Ok(cubin(report));
    }
    let out = Command::new(ptxas)
        .arg(format!("-arch={arch}"))
        .arg("-v")
        .arg("-o")
        .arg(&path)
        .arg(ptx_file)
        .output()
        .map_err(|e| format!("running {}: {e}", ptxas.display()))?;
    let report = String::from_utf8_lossy(&out.stderr).into_owned();
    if !out.status.success() {
        let _ = std::fs::remove_file(&path);
        return Err(format!("ptxas -arch={arch} failed:\n{report}"));
    }
    std::fs::write(&log, &report).map_err(|e| format!("writing {}: {e}", log.display()))?;
    std::fs::write(&stamp, stamp_text).map_err(|e| format!("writing {}: {e}", stamp.display()))?;
    Ok(cubin(report))
}

/// The kernels built from source: the baseline PTX and the cubins ptxas compiled.
pub struct Built {
    pub ptx: PathBuf,
    pub cubins: Vec<Cubin>,
    /// Why a cubin of [`CUBIN_ARCHS`] is missing (ptxas failed), one line each.
    pub failed: Vec<String>,
    /// Entries of the sm_90 cubin that wait for the previous grid first (sorted; empty
    /// without that cubin): the kernels the host may launch as programmatic dependents.
    pub pdl: Vec<String>,
}

/// Builds the PTX (see [`build_ptx`]) and, with `ptxas`, a cubin for each architecture
/// of [`CUBIN_ARCHS`] (ptxas runs in parallel, one process per architecture).
pub fn build_all(workspace: &Path, target_dir: &Path, features: &str, ptxas: Option<&Path>) -> Result<Built, String> {
    let ptx = build_ptx(workspace, target_dir, features)?;
    let mut built = Built { ptx, cubins: Vec::new(), failed: Vec::new(), pdl: Vec::new() };
    let Some(ptxas) = ptxas else { return Ok(built) };
    let results: Vec<Result<(Cubin, Option<String>), String>> = std::thread::scope(|s| {
        let jobs: Vec<_> = CUBIN_ARCHS
            .iter()
            .map(|&arch| {
                let ptx = &built.ptx;
                s.spawn(move || {
                    let (src, text) = ptx_for_arch(ptx, arch)?;
                    Ok((build_cubin(ptxas, &src, arch)?, text))
                })
            })
            .collect();
        jobs.into_iter().map(|j| j.join().unwrap_or_else(|_| Err("a ptxas thread panicked".into()))).collect()
    });
    for result in results {
        match result {
            Ok((cubin, text)) => {
                // The sm_90 text: its entries that wait for the previous grid.
                if let Some(text) = text {
                    built.pdl = pdl_entries(&text)?;
                }
                built.cubins.push(cubin);
            }
            Err(e) => built.failed.push(e.lines().next().unwrap_or("").to_string()),
        }
    }
    Ok(built)
}

/// Environment variables passed through to the nested cargo; everything else is
/// dropped (CARGO_*, RUSTFLAGS, RUSTC_WRAPPER, ... of the outer build, and
/// RUSTUP_TOOLCHAIN, so that rustup picks the workspace's pinned nightly from
/// rust-toolchain.toml even under a stable outer build).
const KEEP_ENV: &[&str] = &["PATH", "HOME", "RUSTUP_HOME", "CARGO_HOME", "TMPDIR"];

/// Compiles `<workspace>/kernels` to PTX using `target_dir` and returns the PTX path,
/// with cargo features of the `kernels` crate enabled (comma-separated; experiments
/// that compare kernel variants build each into its own `target_dir`). The nested
/// cargo is `cargo` from `PATH`: rustup's proxy, which runs the toolchain that
/// rust-toolchain.toml pins (the PTX is only reproducible with that one).
pub fn build_ptx(workspace: &Path, target_dir: &Path, features: &str) -> Result<PathBuf, String> {
    let mut cmd = Command::new("cargo");
    cmd.env_clear();
    for key in KEEP_ENV {
        if let Some(v) = std::env::var_os(key) {
            cmd.env(key, v);
        }
    }
    cmd.current_dir(workspace.join("kernels"))
        .args(["rustc", "--lib", "--release", "--quiet", "--target", TARGET])
        .args(["-Zbuild-std=core", "--crate-type", "cdylib"])
        .args(if features.is_empty() { vec![] } else { vec!["--features", features] })
        .arg("--target-dir")
        .arg(target_dir)
        .args(["--config", "profile.release.panic=\"abort\""])
        .args(["--config", "profile.release.codegen-units=1"])
        .args(["--", "-C"])
        .arg(format!("target-cpu={TARGET_CPU}"));
    let status = cmd.status().map_err(|e| format!("could not run cargo: {e}"))?;
    if !status.success() {
        return Err(format!(
            "building the kernels for {TARGET} failed ({status}); this needs the nightly toolchain that \
             {} pins (`rustup toolchain install` there installs it)",
            workspace.join("rust-toolchain.toml").display()
        ));
    }
    let ptx = ptx_path(target_dir);
    if !ptx.is_file() {
        return Err(format!("the kernel build produced no {}", ptx.display()));
    }
    let text = std::fs::read_to_string(&ptx).map_err(|e| format!("reading {}: {e}", ptx.display()))?;
    let bounded = with_launch_bounds(&text, kernels::LAUNCH_BOUNDS)?;
    if bounded != text {
        std::fs::write(&ptx, bounded).map_err(|e| format!("writing {}: {e}", ptx.display()))?;
    }
    Ok(ptx)
}

/// Adds `.maxntid T, 1, 1` and `.minnctapersm B` (CUDA's `__launch_bounds__(T, B)`)
/// to each kernel named in `bounds` (Rust has no attribute for them): ptxas then
/// keeps the kernel's registers within what `B` blocks of `T` threads per SM allow.
/// The directives go between an entry's parameter list and its body.
pub fn with_launch_bounds(ptx: &str, bounds: &[(&str, u32, u32)]) -> Result<String, String> {
    let mut out = String::with_capacity(ptx.len() + 64 * bounds.len());
    let mut pending: Option<(u32, u32)> = None;
    let mut found = 0;
    // Set right after writing bounds: directives already there (from an earlier run
    // over the same file, when the nested cargo had nothing to rebuild) are dropped, so
    // running this twice gives the same PTX.
    let mut after_bounds = false;
    for line in ptx.lines() {
        let t = line.trim_start();
        if after_bounds && (t.starts_with(".maxntid ") || t.starts_with(".minnctapersm ")) {
            continue;
        }
        after_bounds = false;
        out.push_str(line);
        out.push('\n');
        if let Some(name) = entry_name(line) {
            pending = bounds.iter().find(|b| b.0 == name).map(|b| (b.1, b.2));
            found += pending.is_some() as usize;
        } else if line.trim_start().starts_with(')') {
            // The end of the parameter list (LLVM may append a `// @name` comment).
            if let Some((threads, blocks)) = pending.take() {
                out.push_str(&format!(".maxntid {threads}, 1, 1\n.minnctapersm {blocks}\n"));
                after_bounds = true;
            }
        }
    }
    if found != bounds.len() {
        return Err(format!("launch bounds name {} kernels, {found} of them are in the PTX", bounds.len()));
    }
    Ok(out)
}

/// PTX ISA version the sm_90 build declares at least: `griddepcontrol` needs 7.8.
pub const SM90_PTX_VERSION: (u32, u32) = (7, 8);

/// The PTX that the Hopper (sm_90) cubin is compiled from: the baseline PTX with
/// `.version` raised to at least [`SM90_PTX_VERSION`], `.target sm_90`, and the
/// instructions that `kernels::gpu::grid_dependency_wait` wrote as comments tagged
/// [`kernels::PDL_MARK`] turned into instructions.
pub fn for_sm90(ptx: &str) -> Result<String, String> {
    let mut out = String::with_capacity(ptx.len() + 1024);
    let (mut version, mut target) = (false, false);
    for line in ptx.lines() {
        let t = line.trim_start();
        if let Some(v) = t.strip_prefix(".version ") {
            let parse = |s: &str| s.trim().parse::<u32>().map_err(|e| format!("bad PTX version {v:?}: {e}"));
            let (major, minor) = v.split_once('.').ok_or_else(|| format!("bad PTX version {v:?}"))?;
            let have = (parse(major)?, parse(minor)?);
            let (major, minor) = have.max(SM90_PTX_VERSION);
            out.push_str(&format!(".version {major}.{minor}\n"));
            version = true;
        } else if t.starts_with(".target ") {
            out.push_str(".target sm_90\n");
            target = true;
        } else if let Some(instruction) = t.strip_prefix(kernels::PDL_MARK) {
            out.push_str(&line[..line.len() - t.len()]);
            out.push_str(instruction);
            out.push('\n');
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    if !version || !target {
        return Err("the PTX has no .version or no .target line".into());
    }
    Ok(out)
}

/// The PTX file ptxas compiles for `sm_<major><minor>`: for sm_90 and newer the
/// [`for_sm90`] text, written beside `ptx_file` (rewritten only when it changes, so
/// [`build_cubin`]'s cache holds) and returned too (for [`pdl_entries`], without
/// reading the file back); the baseline PTX itself for older GPUs.
pub fn ptx_for_arch(ptx_file: &Path, (major, _): (u32, u32)) -> Result<(PathBuf, Option<String>), String> {
    if major < 9 {
        return Ok((ptx_file.to_path_buf(), None));
    }
    let text = std::fs::read_to_string(ptx_file).map_err(|e| format!("reading {}: {e}", ptx_file.display()))?;
    let hopper = for_sm90(&text)?;
    let dest = ptx_file.with_extension("sm_90.ptx");
    if std::fs::read_to_string(&dest).ok().as_deref() != Some(hopper.as_str()) {
        std::fs::write(&dest, &hopper).map_err(|e| format!("writing {}: {e}", dest.display()))?;
    }
    Ok((dest, Some(hopper)))
}

/// The entries that start with the dependency wait of
/// `kernels::gpu::grid_dependency_wait` (tagged or, in [`for_sm90`]'s output, as an
/// instruction), sorted by name: the kernels the host may launch as programmatic
/// dependents. An error names any entry that touches global or generic memory, or
/// calls a function, before its wait: launched early, it would read what the previous
/// kernel has not finished writing.
pub fn pdl_entries(ptx: &str) -> Result<Vec<String>, String> {
    let wait = "griddepcontrol.wait";
    let mut found = Vec::new();
    let mut bad = Vec::new();
    // (name, touched memory yet, has the wait)
    let mut current: Option<(String, bool, bool)> = None;
    let close = |c: Option<(String, bool, bool)>, found: &mut Vec<String>| {
        if let Some((name, _, true)) = c {
            found.push(name);
        }
    };
    for line in ptx.lines() {
        let t = line.trim_start();
        if let Some(name) = entry_name(line) {
            close(current.take(), &mut found);
            current = Some((name.to_string(), false, false));
            continue;
        }
        if line == "}" {
            close(current.take(), &mut found);
            continue;
        }
        let Some((name, touched, waited)) = current.as_mut() else { continue };
        let instruction = t.strip_prefix(kernels::PDL_MARK).unwrap_or(t);
        if instruction.starts_with(wait) {
            if *touched {
                bad.push(name.clone());
            }
            *waited = true;
        } else if !*waited && touches_memory(instruction) {
            *touched = true;
        }
    }
    close(current.take(), &mut found);
    if !bad.is_empty() {
        return Err(format!("these entries access memory before their {wait}: {}", bad.join(", ")));
    }
    found.sort();
    Ok(found)
}

/// Whether a PTX instruction may read or write memory that another kernel writes:
/// loads, stores, atomics, copies and calls, except kernel parameters and shared
/// memory. Predicated instructions (`@%p1 ld...`) count too.
fn touches_memory(instruction: &str) -> bool {
    let op = match instruction.strip_prefix('@') {
        Some(rest) => rest.split_once(char::is_whitespace).map_or("", |(_, op)| op.trim_start()),
        None => instruction,
    };
    let memory = ["ld.", "ldu.", "st.", "atom.", "red.", "cp.", "call", "prefetch", "tex.", "suld.", "sust."];
    memory.iter().any(|m| op.starts_with(m)) && !op.starts_with("ld.param") && !op.contains(".shared")
}

/// Names of the `.entry` kernels in a PTX module, in file order.
pub fn entry_points(ptx: &str) -> Vec<String> {
    ptx.lines().filter_map(entry_name).map(str::to_string).collect()
}

/// One parameter of a PTX entry: its alignment and size in bytes (`.param .u64 p`:
/// 8 and 8; `.param .align 8 .b8 p[24]`: 8 and 24).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param {
    pub align: usize,
    pub size: usize,
}

/// Every entry of a PTX module with its parameters, in file order.
pub fn entry_params(ptx: &str) -> Result<Vec<(String, Vec<Param>)>, String> {
    let mut out = Vec::new();
    let mut lines = ptx.lines();
    while let Some(line) = lines.next() {
        let Some(name) = entry_name(line) else { continue };
        let mut params = Vec::new();
        for l in lines.by_ref() {
            let l = l.trim();
            if l.starts_with(')') {
                break;
            }
            let p = parse_param(l).ok_or_else(|| format!("entry {name}: cannot read the parameter `{l}`"))?;
            params.push(p);
        }
        out.push((name.to_string(), params));
    }
    Ok(out)
}

/// `.param .u32 name,` or `.param .align A .b8 name[N]`.
fn parse_param(line: &str) -> Option<Param> {
    let mut words = line.trim_end_matches(',').split_whitespace();
    if words.next()? != ".param" {
        return None;
    }
    let ty = words.next()?;
    if ty == ".align" {
        let align = words.next()?.parse().ok()?;
        let (_, count) = words.nth(1)?.split_once('[')?;
        return Some(Param { align, size: count.strip_suffix(']')?.parse().ok()? });
    }
    let bits: usize = ty.get(2..)?.parse().ok()?;
    (ty.len() > 2 && bits.is_multiple_of(8)).then_some(Param { align: bits / 8, size: bits / 8 })
}

/// The offsets of `params` in the parameter buffer (each at its alignment, as a C
/// struct lays out its fields), and the end of the last one.
pub fn param_offsets(params: &[Param]) -> (Vec<usize>, usize) {
    let mut at = 0usize;
    let offsets = params
        .iter()
        .map(|p| {
            let o = at.next_multiple_of(p.align.max(1));
            at = o + p.size;
            o
        })
        .collect();
    (offsets, at)
}

/// The kernel that a PTX line `.visible .entry name(` starts, if it starts one.
pub fn entry_name(line: &str) -> Option<&str> {
    line.trim_start().strip_prefix(".visible .entry ").map(|rest| rest.trim_end_matches('(').trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launch_bounds_go_after_the_parameter_list() {
        let ptx = ".visible .entry a(\n\t.param .u64 x\n)\n{\n}\n.visible .entry b(\n)   // @b\n{\n}\n";
        let out = with_launch_bounds(ptx, &[("b", 384, 3)]).unwrap();
        assert_eq!(
            out,
            ".visible .entry a(\n\t.param .u64 x\n)\n{\n}\n.visible .entry b(\n)   // @b\n.maxntid 384, 1, 1\n.minnctapersm 3\n{\n}\n"
        );
        assert!(with_launch_bounds(ptx, &[("c", 32, 1)]).is_err());
        // Idempotent: a second run over its own output (an up-to-date PTX file) adds nothing.
        assert_eq!(with_launch_bounds(&out, &[("b", 384, 3)]).unwrap(), out);
    }

    #[test]
    fn sm90_text_raises_the_version_and_uncomments_the_tagged_instructions() {
        let mark = kernels::PDL_MARK;
        let ptx = format!(".version 7.0\n.target sm_70\n.visible .entry k(\n)\n{{\n\t{mark}griddepcontrol.wait;\n}}\n");
        let out = for_sm90(&ptx).unwrap();
        assert_eq!(out, ".version 7.8\n.target sm_90\n.visible .entry k(\n)\n{\n\tgriddepcontrol.wait;\n}\n");
        // A newer version is kept.
        assert!(for_sm90(".version 8.3\n.target sm_70\n").unwrap().starts_with(".version 8.3\n"));
        assert!(for_sm90(".target sm_70\n").is_err());
    }

    #[test]
    fn pdl_entries_are_those_that_wait_before_touching_memory() {
        let mark = kernels::PDL_MARK;
        let ptx = format!(
            ".visible .entry plain(\n)\n{{\n\tld.global.u32 %r1, [%rd1];\n}}\n\
             .visible .entry waits(\n)\n{{\n\tld.param.u64 %rd1, [p];\n\tst.shared.u32 [%r2], %r1;\n\
             \t{mark}griddepcontrol.wait;\n\tld.global.u32 %r1, [%rd1];\n}}\n\
             .visible .entry another(\n)\n{{\n\tgriddepcontrol.wait;\n}}\n"
        );
        assert_eq!(pdl_entries(&ptx).unwrap(), vec!["another", "waits"]);
        for early in
            ["ld.u32 %r1, [%rd1];", "@%p1 st.global.u32 [%rd1], %r1;", "atom.global.add.u32 %r1, [%rd1], 1;", "call f;"]
        {
            let ptx = format!(".visible .entry late(\n)\n{{\n\t{early}\n\t{mark}griddepcontrol.wait;\n}}\n");
            let err = pdl_entries(&ptx).unwrap_err();
            assert!(err.contains("late"), "{early}: {err}");
        }
    }

    #[test]
    fn reads_entry_parameters_and_lays_them_out_as_a_c_struct() {
        let ptx = ".visible .entry a(\n\t.param .u64 a_param_0,\n\t.param .u32 a_param_1,\n\t.param .u8 a_param_2,\n\
                   \t.param .u64 a_param_3\n)\n{\n}\n.visible .entry b(\n\t.param .align 8 .b8 b_param_0[24]\n)\n{\n}\n\
                   .visible .entry c(\n)\n{\n}\n";
        let e = entry_params(ptx).unwrap();
        let p = |align, size| Param { align, size };
        assert_eq!(e[0], ("a".to_string(), vec![p(8, 8), p(4, 4), p(1, 1), p(8, 8)]));
        assert_eq!(e[1], ("b".to_string(), vec![p(8, 24)]));
        assert_eq!(e[2], ("c".to_string(), vec![]));
        assert_eq!(param_offsets(&e[0].1), (vec![0, 8, 12, 16], 24));
        assert!(entry_params(".visible .entry d(\n\t.reg .u32 x\n)\n").is_err());
    }

    #[test]
    fn finds_entry_points() {
        let ptx =
            ".version 7.0\n.visible .entry foo_u32(\n\t.param .u64 a\n)\n.visible .func bar()\n.visible .entry baz(\n";
        assert_eq!(entry_points(ptx), vec!["foo_u32", "baz"]);
    }
}
