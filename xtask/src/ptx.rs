//! Builds the `kernels` crate into a PTX module with rustc's NVPTX backend.
//!
//! A nested `cargo rustc --crate-type cdylib --target nvptx64-nvidia-cuda
//! -Zbuild-std=core` runs with a scrubbed environment (so the outer cargo's flags,
//! wrappers and target settings do not leak in) and its own target directory (so it
//! never waits on the outer build's lock).
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

/// Environment variables passed through to the nested cargo; everything else is
/// dropped (CARGO_*, RUSTFLAGS, RUSTC_WRAPPER, ... of the outer build).
const KEEP_ENV: &[&str] = &["PATH", "HOME", "RUSTUP_HOME", "CARGO_HOME", "RUSTUP_TOOLCHAIN", "TMPDIR"];

/// Compiles `<workspace>/kernels` to PTX using `target_dir` and returns the PTX path.
/// `cargo` is the cargo binary to run (the outer build's `$CARGO` when available).
pub fn build(workspace: &Path, target_dir: &Path, cargo: &Path) -> Result<PathBuf, String> {
    build_with_features(workspace, target_dir, cargo, "")
}

/// [`build`] with cargo features of the `kernels` crate enabled (comma-separated;
/// experiments that compare kernel variants build each into its own `target_dir`).
pub fn build_with_features(
    workspace: &Path,
    target_dir: &Path,
    cargo: &Path,
    features: &str,
) -> Result<PathBuf, String> {
    let mut cmd = Command::new(cargo);
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
    let status = cmd.status().map_err(|e| format!("could not run {}: {e}", cargo.display()))?;
    if !status.success() {
        return Err(format!("building the kernels for {TARGET} failed ({status})"));
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
    for line in ptx.lines() {
        out.push_str(line);
        out.push('\n');
        if let Some(name) = line.trim_start().strip_prefix(".visible .entry ") {
            let name = name.trim_end_matches('(').trim();
            pending = bounds.iter().find(|b| b.0 == name).map(|b| (b.1, b.2));
            found += pending.is_some() as usize;
        } else if line.trim_start().starts_with(')') {
            // The end of the parameter list (LLVM may append a `// @name` comment).
            if let Some((threads, blocks)) = pending.take() {
                out.push_str(&format!(".maxntid {threads}, 1, 1\n.minnctapersm {blocks}\n"));
            }
        }
    }
    if found != bounds.len() {
        return Err(format!("launch bounds name {} kernels, {found} of them are in the PTX", bounds.len()));
    }
    Ok(out)
}

/// Names of the `.entry` kernels in a PTX module, in file order.
pub fn entry_points(ptx: &str) -> Vec<String> {
    ptx.lines()
        .filter_map(|l| l.trim_start().strip_prefix(".visible .entry "))
        .map(|rest| rest.trim_end_matches('(').trim().to_string())
        .collect()
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
    }

    #[test]
    fn finds_entry_points() {
        let ptx =
            ".version 7.0\n.visible .entry foo_u32(\n\t.param .u64 a\n)\n.visible .func bar()\n.visible .entry baz(\n";
        assert_eq!(entry_points(ptx), vec!["foo_u32", "baz"]);
    }
}
