//! Puts the kernels where `src/device/module.rs` embeds them: the PTX (OUT_DIR/
//! kernels.ptx.lzma as packed in `prebuilt/`, or OUT_DIR/kernels.ptx from a from-source
//! build) and OUT_DIR/ptx.rs, which names it, one OUT_DIR/kernels.sm_XY.cubin per
//! architecture, and OUT_DIR/cubins.rs (`CUBINS`, `PDL_KERNELS`). It writes nothing
//! outside OUT_DIR.
//!
//! Normally they are the prebuilt kernels of `prebuilt/` (see `build/prebuilt.rs`),
//! unpacked: no nightly toolchain, no ptxas, no warning. They are built from `kernels/`
//! instead (the nightly that rust-toolchain.toml pins, and ptxas where
//! `ptx::find_ptxas` finds one) when
//! - a kernel experiment feature is on (`rank-match-any`, `digit-bits-7`,
//!   `digit-bits-6`: they change the PTX), or `kernels-from-source`;
//! - inside this repository, a source of the kernels differs from what `prebuilt/` was
//!   built from (a kernel developer's `cargo test` runs the kernels as edited, with a
//!   warning to regenerate `prebuilt/` with `cargo xtask build-ptx`).
//!
//! `SORT_CUBINS=0` embeds no cubins (every GPU then JIT-compiles the PTX).
use std::path::{Path, PathBuf};

// Shared with xtask, which uses the parts the build script does not.
#[allow(dead_code)]
#[path = "build/prebuilt.rs"]
mod prebuilt;
#[allow(dead_code)]
#[path = "build/ptx.rs"]
mod ptx;

/// Kernel experiments of this crate: each selects the same feature of `kernels`, for
/// the host's tile sizes and for the PTX.
const EXPERIMENTS: &[&str] = &["rank-match-any", "digit-bits-7", "digit-bits-6"];

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let host_dir = PathBuf::from(env("CARGO_MANIFEST_DIR")?);
    let out_dir = PathBuf::from(env("OUT_DIR")?);
    let prebuilt_dir = host_dir.join(prebuilt::DIR);
    println!("cargo:rerun-if-changed={}", prebuilt_dir.display());
    println!("cargo:rerun-if-env-changed=SORT_CUBINS");
    let cubins_wanted = !std::env::var_os("SORT_CUBINS").is_some_and(|v| v == "0");
    let workspace = prebuilt::workspace_of(&host_dir);
    if let Some(ws) = &workspace {
        for path in prebuilt::source_paths(ws)? {
            println!("cargo:rerun-if-changed={}", ws.join(path).display());
        }
        // New files in the kernels' folders count too.
        println!("cargo:rerun-if-changed={}", ws.join("kernels/src").display());
    }

    let features: Vec<&str> =
        EXPERIMENTS.iter().copied().filter(|f| std::env::var_os(feature_var(f)).is_some()).collect();
    let asked = !features.is_empty() || std::env::var_os(feature_var("kernels-from-source")).is_some();
    // Why the prebuilt kernels cannot be used as they are, if they cannot.
    let stale = if asked {
        None
    } else {
        let manifest = prebuilt::Manifest::read(&prebuilt_dir);
        let changed = match (&workspace, &manifest) {
            (Some(ws), Ok(m)) => prebuilt::changed_sources(&m.sources, &prebuilt::sources(ws)?),
            (Some(_), Err(e)) => vec![e.clone()],
            (None, _) => Vec::new(),
        };
        if changed.is_empty() {
            return unpack(&prebuilt_dir, &manifest?, &out_dir, cubins_wanted);
        }
        Some(changed)
    };
    let ws = workspace.ok_or(
        "building the kernels from source (a kernel experiment feature or `kernels-from-source` is on) \
         needs this repository's kernels/ and rust-toolchain.toml beside host/",
    )?;
    if let Some(changed) = stale {
        println!(
            "cargo:warning=kernels built from source: {} changed since host/prebuilt was generated; \
             run `cargo xtask build-ptx` and commit host/prebuilt",
            changed.join(", ")
        );
    }
    build_from_source(&ws, &out_dir, &features.join(","), cubins_wanted)
}

/// Unpacks the prebuilt cubins into `out_dir`, and copies the PTX there as it is
/// packed (checked by unpacking it once): the PTX is only JIT-compiled on GPUs without
/// a cubin, and unpacked it would add 26 MB to every binary that links the library.
fn unpack(dir: &Path, manifest: &prebuilt::Manifest, out_dir: &Path, cubins_wanted: bool) -> Result<(), String> {
    prebuilt::unpack(dir, manifest.ptx())?;
    copy(&dir.join(manifest.ptx().file_name()), &out_dir.join(PACKED_PTX))?;
    write_ptx_rs(out_dir, true)?;
    let mut cubins = Vec::new();
    for file in manifest.cubins().filter(|_| cubins_wanted) {
        let arch = file.arch.expect("cubins have an architecture");
        let dest = cubin_path(out_dir, arch);
        write(&dest, &prebuilt::unpack(dir, file)?)?;
        cubins.push((arch, dest));
    }
    let pdl = if cubins.iter().any(|c| c.0.0 >= 9) { manifest.pdl.clone() } else { Vec::new() };
    write_cubins_rs(out_dir, &cubins, &pdl)
}

/// Builds the PTX (and, with ptxas, the cubins) from `kernels/` under `out_dir`. A
/// missing or failing ptxas only costs the first run's JIT time on the GPU, so it is
/// a warning, never a build failure.
fn build_from_source(ws: &Path, out_dir: &Path, features: &str, cubins_wanted: bool) -> Result<(), String> {
    println!("cargo:rerun-if-env-changed=PTXAS");
    let ptxas = if cubins_wanted { ptx::find_ptxas(ws) } else { None };
    if cubins_wanted && ptxas.is_none() {
        println!("cargo:warning=ptxas not found: embedding PTX only (the first run on a GPU JIT-compiles it)");
    }
    let built = ptx::build_all(ws, &out_dir.join("ptx-build"), features, ptxas.as_deref())?;
    for failure in &built.failed {
        println!("cargo:warning=a cubin is missing: {failure}");
    }
    copy(&built.ptx, &out_dir.join("kernels.ptx"))?;
    write_ptx_rs(out_dir, false)?;
    let mut cubins = Vec::new();
    for cubin in &built.cubins {
        let dest = cubin_path(out_dir, cubin.arch);
        copy(&cubin.path, &dest)?;
        cubins.push((cubin.arch, dest));
    }
    write_cubins_rs(out_dir, &cubins, &built.pdl)
}

/// Writes OUT_DIR/cubins.rs: `CUBINS`, the `(major, minor, machine code)` of each
/// embedded cubin, and `PDL_KERNELS`.
fn write_cubins_rs(out_dir: &Path, cubins: &[((u32, u32), PathBuf)], pdl: &[String]) -> Result<(), String> {
    let entries: Vec<String> = cubins
        .iter()
        .map(|((major, minor), path)| format!("({major}, {minor}, include_bytes!({:?})),", path.display().to_string()))
        .collect();
    let code = format!(
        "/// The kernels as machine code, `(major, minor, cubin)` per architecture (none with\n\
         /// SORT_CUBINS=0, or in a from-source build without ptxas).\n\
         pub const CUBINS: &[(u32, u32, &[u8])] = &[\n{}\n];\n\
         /// Entries of the sm_90 cubin that wait for the previous grid first (sorted).\n\
         pub const PDL_KERNELS: &[&str] = &{pdl:?};\n",
        entries.join("\n")
    );
    write(&out_dir.join("cubins.rs"), code.as_bytes())
}

/// The prebuilt PTX as packed in `prebuilt/` (`.lzma`), in OUT_DIR.
const PACKED_PTX: &str = "kernels.ptx.lzma";

/// Writes OUT_DIR/ptx.rs: `EMBEDDED_PTX`, the prebuilt PTX packed (`packed`) or the
/// PTX of a from-source build as text (OUT_DIR/kernels.ptx).
fn write_ptx_rs(out_dir: &Path, packed: bool) -> Result<(), String> {
    let code = if packed {
        format!("EmbeddedPtx::Lzma(include_bytes!({:?}))", out_dir.join(PACKED_PTX).display().to_string())
    } else {
        format!("EmbeddedPtx::Text(include_str!({:?}))", out_dir.join("kernels.ptx").display().to_string())
    };
    write(&out_dir.join("ptx.rs"), code.as_bytes())
}

fn cubin_path(out_dir: &Path, (major, minor): (u32, u32)) -> PathBuf {
    out_dir.join(format!("kernels.sm_{major}{minor}.cubin"))
}

/// `CARGO_FEATURE_<NAME>`, set while feature `name` of this crate is on.
fn feature_var(name: &str) -> String {
    format!("CARGO_FEATURE_{}", name.to_uppercase().replace('-', "_"))
}

fn env(key: &str) -> Result<String, String> {
    std::env::var(key).map_err(|e| format!("{key}: {e}"))
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    std::fs::write(path, bytes).map_err(|e| format!("writing {}: {e}", path.display()))
}

fn copy(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::copy(from, to).map(|_| ()).map_err(|e| format!("copying {} to {}: {e}", from.display(), to.display()))
}
