//! Compiles `kernels/` to PTX (through the same builder as `cargo xtask build-ptx`) and
//! places it in OUT_DIR, where `src/device.rs` embeds it with `include_str!`. Where
//! `ptxas` is found (see `xtask::ptx::find_ptxas`), also compiles the PTX to cubins for
//! `xtask::ptx::CUBIN_ARCHS` and lists them in OUT_DIR/cubins.rs for `src/device.rs`
//! to embed (`SORT_CUBINS=0` turns that off).
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
    let features: Vec<&str> = ["rank-match-any", "digit-bits-7", "digit-bits-6"]
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
    write_cubins(&workspace, &ptx);
}

/// Writes OUT_DIR/cubins.rs: `CUBINS`, the `(major, minor, machine code)` of each
/// architecture ptxas compiled. A missing or failing ptxas only costs the first run's
/// JIT time, so it is a warning, never a build failure.
fn write_cubins(workspace: &std::path::Path, ptx: &std::path::Path) {
    println!("cargo:rerun-if-env-changed=PTXAS");
    println!("cargo:rerun-if-env-changed=SORT_CUBINS");
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").unwrap());
    let mut entries = Vec::new();
    // Entries the sm_90 cubin lets the host launch as programmatic dependents.
    let mut pdl: Vec<String> = Vec::new();
    let ptxas = if std::env::var_os("SORT_CUBINS").is_some_and(|v| v == "0") {
        None
    } else {
        let found = xtask::ptx::find_ptxas(workspace);
        if found.is_none() {
            println!("cargo:warning=ptxas not found: embedding PTX only (the first run on a machine JIT-compiles it)");
        }
        found
    };
    if let Some(ptxas) = ptxas {
        for &(major, minor) in xtask::ptx::CUBIN_ARCHS {
            let built = xtask::ptx::ptx_for_arch(ptx, (major, minor)).and_then(|(src, text)| {
                xtask::ptx::build_cubin(&ptxas, &src, (major, minor)).map(|cubin| (text, cubin))
            });
            match built {
                Ok((text, cubin)) => {
                    // The sm_90 text: its entries that wait for the previous grid.
                    if let Some(text) = text {
                        pdl = xtask::ptx::pdl_entries(&text).unwrap_or_else(|e| panic!("{e}"));
                    }
                    let dest = out_dir.join(format!("kernels.sm_{major}{minor}.cubin"));
                    std::fs::copy(&cubin, &dest)
                        .unwrap_or_else(|e| panic!("copying {} to {}: {e}", cubin.display(), dest.display()));
                    entries.push(format!("({major}, {minor}, include_bytes!({:?})),", dest.display().to_string()));
                }
                Err(e) => {
                    println!("cargo:warning=no sm_{major}{minor} cubin embedded: {}", e.lines().next().unwrap_or(""))
                }
            }
        }
    }
    let code = format!(
        "pub const CUBINS: &[(u32, u32, &[u8])] = &[\n{}\n];\n\
         /// Entries of the sm_90 cubin that wait for the previous grid first (sorted).\n\
         pub const PDL_KERNELS: &[&str] = &{pdl:?};\n",
        entries.join("\n")
    );
    std::fs::write(out_dir.join("cubins.rs"), code).unwrap_or_else(|e| panic!("writing cubins.rs: {e}"));
}
