//! Shared by the test files that run the `host` program (`cli.rs`, `file_safety.rs`):
//! where the binary is, scratch directories and the checks of a command's outcome.
#![allow(dead_code)]
use std::path::{Path, PathBuf};
use std::process::Output;

/// The `host` binary: `$HOST_BIN` (the GPU bundle's script sets it to the bundled
/// binary) or the one cargo built for this test.
pub fn host_bin() -> PathBuf {
    std::env::var_os("HOST_BIN").map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_host")), PathBuf::from)
}

/// Bytes of a command's output as text.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A fresh scratch directory for `test`, named after the test file (`file`).
pub fn scratch_dir(file: &str, test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("host-{file}-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A path as a command-line argument.
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A command that succeeded: its standard output.
pub fn ok(out: &Output) -> String {
    assert!(out.status.success(), "failed:\nstdout: {}\nstderr: {}", text(&out.stdout), text(&out.stderr));
    text(&out.stdout)
}
