//! The committed prebuilt kernels (host/prebuilt) against this checkout: built from
//! these sources with the pinned ptxas, and intact. A full rebuild and byte comparison
//! is `cargo xtask build-ptx --check` (CI runs it); this is the cheap part that
//! `cargo test` runs, so a kernel change without a regeneration fails here.
use std::path::{Path, PathBuf};

use xtask::prebuilt::{self, Manifest};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn committed() -> (PathBuf, Manifest) {
    let dir = workspace().join("host").join(prebuilt::DIR);
    let manifest = Manifest::read(&dir).unwrap();
    (dir, manifest)
}

#[test]
fn prebuilt_kernels_were_built_from_these_sources() {
    let (_, manifest) = committed();
    let changed = prebuilt::changed_sources(&manifest.sources, &prebuilt::sources(&workspace()).unwrap());
    assert!(
        changed.is_empty(),
        "the prebuilt kernels are stale: run `cargo xtask build-ptx` and commit host/prebuilt (changed: {})",
        changed.join(", ")
    );
}

#[test]
fn prebuilt_cubins_were_built_with_the_pinned_ptxas() {
    let (_, manifest) = committed();
    assert_eq!(
        manifest.ptxas,
        xtask::pack::pinned_ptxas_version().unwrap(),
        "the pinned ptxas changed: run `cargo xtask build-ptx` with it and commit host/prebuilt"
    );
    let archs: Vec<_> = manifest.cubins().map(|c| c.arch.unwrap()).collect();
    assert_eq!(archs, xtask::ptx::CUBIN_ARCHS);
}

/// Every file decompresses to the size and fingerprint its manifest line records, and
/// the PTX lists the dependent-launch entries among its entry points.
#[test]
fn prebuilt_files_unpack_to_what_the_manifest_records() {
    let (dir, manifest) = committed();
    for file in &manifest.files {
        prebuilt::unpack(&dir, file).unwrap();
    }
    let ptx = String::from_utf8(prebuilt::unpack(&dir, manifest.ptx()).unwrap()).unwrap();
    let entries = xtask::ptx::entry_points(&ptx);
    assert!(!manifest.pdl.is_empty());
    for k in &manifest.pdl {
        assert!(entries.contains(k), "{k} is not an entry of the prebuilt PTX");
    }
}

#[test]
fn sources_are_the_kernels_the_toolchain_and_the_builder() {
    let paths = prebuilt::source_paths(&workspace()).unwrap();
    for p in ["kernels/Cargo.toml", "kernels/src/lib.rs", "kernels/src/radix/device.rs", "rust-toolchain.toml"] {
        assert!(paths.iter().any(|q| q == p), "{p} missing from {paths:?}");
    }
    assert!(paths.iter().any(|q| q == "host/build/ptx.rs"));
    assert!(paths.windows(2).all(|w| w[0] < w[1]));
}

/// Only this repository's layout counts as a workspace to check the prebuilt kernels
/// against: a `host/` copied beside another crate named `kernels` (a vendor folder) does not.
#[test]
fn workspace_of_recognises_this_repository_only() {
    let ws = workspace();
    assert_eq!(prebuilt::workspace_of(&ws.join("host")), Some(ws));
    let vendor = tempfile::tempdir().unwrap();
    for dir in ["host", "kernels/src"] {
        std::fs::create_dir_all(vendor.path().join(dir)).unwrap();
    }
    std::fs::write(vendor.path().join("kernels/src/lib.rs"), "").unwrap();
    std::fs::write(vendor.path().join("rust-toolchain.toml"), "").unwrap();
    assert_eq!(prebuilt::workspace_of(&vendor.path().join("host")), None);
}
