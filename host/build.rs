//! Compiles `kernels/` to PTX (through the same builder as `cargo xtask build-ptx`) and
//! places it in OUT_DIR, where `src/device.rs` embeds it with `include_str!`.
use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let workspace = manifest.parent().expect("host/ lives in the workspace").to_path_buf();
    for path in ["kernels/src", "kernels/Cargo.toml", "rust-toolchain.toml"] {
        println!("cargo:rerun-if-changed={}", workspace.join(path).display());
    }
    // One PTX build shared by every profile (debug, release, test, clippy).
    let target_dir = workspace.join("target").join("ptx-build");
    let cargo = std::env::var_os("CARGO").map(PathBuf::from).unwrap_or_else(|| "cargo".into());
    // Kernel experiment features of this crate select the same features of `kernels`
    // for the PTX (each combination in its own build directory).
    let features: Vec<&str> = ["rank-match-any"]
        .into_iter()
        .filter(|f| std::env::var_os(format!("CARGO_FEATURE_{}", f.to_uppercase().replace('-', "_"))).is_some())
        .collect();
    let target_dir = if features.is_empty() {
        target_dir
    } else {
        target_dir.with_file_name(format!("ptx-build-{}", features.join("+")))
    };
    let ptx = xtask::ptx::build_with_features(&workspace, &target_dir, &cargo, &features.join(","))
        .unwrap_or_else(|e| panic!("{e}"));
    let out = PathBuf::from(std::env::var_os("OUT_DIR").unwrap()).join("kernels.ptx");
    std::fs::copy(&ptx, &out).unwrap_or_else(|e| panic!("copying {} to {}: {e}", ptx.display(), out.display()));
}
