//! Support for this crate's tests, shared by the library's unit tests and the test
//! binaries; not part of the API.
//!
//! Skips: tests that cannot run on this machine (no GPU, one GPU where two are needed,
//! a library that is or is not installed) return early, and libtest then counts them
//! as passed. [`skipped`] says so on standard error and, where `SORT_SKIP_LOG` names a
//! file, appends a line to it, so that a test run can count them as skipped (`.ci/run`
//! and the GPU bundle's `run-gpu-tests.sh` do).
//!
//! Fuzzing: the fuzz tests (property tests over arbitrary input) run one round of
//! cases in every `cargo test`, and more rounds for `SORT_FUZZ_SECONDS` where that is
//! set (the fuzz step of `.ci/run`): [`fuzz_rounds`].
use std::io::Write;

// The crate's internals the test binaries and examples use, under one hidden roof.
pub use crate::options::{MAX_BLOCK_SIZE, check_block_size};
pub use crate::sorter::cpu_top_k;

/// Generated inputs ([`crate::Distribution`]s, seeds).
pub mod inputs {
    pub use crate::inputs::*;
}
/// Checks of sorted outputs against the input.
pub mod verify {
    pub use crate::verify::*;
}
/// The CPU sorts and the reference sort.
pub mod cpu {
    pub use crate::cpu::*;
}
/// Timing of sorts.
pub mod measure {
    pub use crate::measure::*;
}
/// The launchers of each algorithm, with their test hooks.
pub mod variants {
    pub use crate::variants::*;
}
/// The device-wide scan.
pub mod scan {
    pub use crate::variants::scan::*;
}
/// The multi-GPU sort's parts.
pub mod multi_gpu {
    pub use crate::multi_gpu::*;
}
/// Reading and writing element files.
pub mod file_format {
    pub use crate::file_sort::format::*;
}
/// The file sort's streaming pipeline through the device.
pub mod file_pipeline {
    pub use crate::file_sort::pipeline::*;
}
/// The device layer (the embedded PTX, for the tests that read it).
pub mod device {
    pub use crate::device::*;
}
/// The timeline of `SORT_TRACE=1`.
pub mod trace {
    pub use crate::trace::*;
}

/// The environment variable naming the file [`skipped`] appends to.
pub const SKIP_LOG_VAR: &str = "SORT_SKIP_LOG";

/// Records that the running test is skipped because of `why`: prints
/// `<test>: skipped: <why>` to standard error and appends `<binary>\t<test>\t<why>` to
/// the file `SORT_SKIP_LOG` names, if any. The test is named as libtest names its
/// thread (the test's path), or `test` outside a test thread; a test recorded twice is
/// one line per call, so readers count distinct `<binary>\t<test>` pairs.
pub fn skipped(test: &str, why: &str) {
    record(std::env::var_os(SKIP_LOG_VAR).as_deref().map(std::path::Path::new), test, why);
}

/// [`skipped`], appending to `log`.
fn record(log: Option<&std::path::Path>, test: &str, why: &str) {
    let why = why.replace(['\n', '\t'], " ");
    // Straight to the process's stderr: libtest captures `eprintln!` of passing tests.
    let _ = writeln!(std::io::stderr(), "{test}: skipped: {why}");
    let Some(path) = log else { return };
    let thread = std::thread::current();
    let name = thread.name().filter(|n| *n != "main").unwrap_or(test);
    let binary = std::env::current_exe()
        .ok()
        .and_then(|p| p.file_name().map(|f| f.to_string_lossy().into_owned()))
        .unwrap_or_default();
    // One append of one whole line: lines of tests running in parallel, in one binary
    // or several, do not interleave.
    let line = format!("{binary}\t{name}\t{why}\n");
    let appended =
        std::fs::OpenOptions::new().create(true).append(true).open(path).and_then(|mut f| f.write_all(line.as_bytes()));
    if let Err(e) = appended {
        let _ = writeln!(std::io::stderr(), "{test}: cannot record the skip in {}: {e}", path.display());
    }
}

/// The environment variable giving each fuzz test's running time in seconds.
pub const FUZZ_SECONDS_VAR: &str = "SORT_FUZZ_SECONDS";

/// Runs `round` (one round of a fuzz test's cases) once, and again until
/// `SORT_FUZZ_SECONDS` have passed where that is set to a number of seconds, then
/// says on standard error how many rounds `test` ran. Returns the rounds.
pub fn fuzz_rounds(test: &str, mut round: impl FnMut()) -> u64 {
    let seconds = std::env::var(FUZZ_SECONDS_VAR).ok().and_then(|v| v.trim().parse::<f64>().ok());
    let deadline = seconds
        .and_then(|s| std::time::Duration::try_from_secs_f64(s).ok())
        .and_then(|d| std::time::Instant::now().checked_add(d));
    let mut rounds = 0;
    loop {
        round();
        rounds += 1;
        if deadline.is_none_or(|d| std::time::Instant::now() >= d) {
            break;
        }
    }
    if deadline.is_some() {
        let _ = writeln!(std::io::stderr(), "{test}: {rounds} rounds in {FUZZ_SECONDS_VAR}={}", seconds.unwrap_or(0.0));
    }
    rounds
}

/// Launches `kernel` with `params` exactly as the library does (`Gpu::launch`), for the
/// tests of failed launches.
///
/// # Safety
/// As for any kernel launch: the buffers `params` names must be ones the kernel may
/// read and write over the ranges its lengths give.
pub unsafe fn launch<P: kernels::params::KernelParams>(
    gpu: &crate::Gpu,
    kernel: kernels::params::Kernel<P>,
    cfg: cudarc::driver::LaunchConfig,
    params: &P,
) -> crate::Result<()> {
    gpu.launch(kernel, cfg, params)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The line names this test by its libtest name.
    #[test]
    fn a_skip_is_one_line_naming_the_test() {
        let path = std::env::temp_dir().join(format!("host-skip-log-{}", std::process::id()));
        let _ = std::fs::remove_file(&path);
        record(Some(&path), "label", "no CUDA device (two\nlines)");
        record(None, "label", "not recorded without a log");
        let log = std::fs::read_to_string(&path).unwrap();
        let fields: Vec<&str> = log.trim_end().split('\t').collect();
        assert_eq!(fields.len(), 3, "{log:?}");
        assert!(fields[0].starts_with("host"), "{log:?}");
        assert_eq!(fields[1..], ["testing::tests::a_skip_is_one_line_naming_the_test", "no CUDA device (two lines)"]);
        std::fs::remove_file(&path).unwrap();
    }
}
