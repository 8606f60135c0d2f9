//! A phase timeline for the command-line program: with `SORT_TRACE=1`, [`mark`] prints
//! `[trace   12.3 ms] what` to standard error, the time since the first mark (which
//! `main` makes first thing). For finding where a short command's wall time goes
//! (driver start-up, module load, buffers, I/O, exit) without a profiler.
use std::sync::OnceLock;
use std::time::Instant;

fn start() -> &'static Option<Instant> {
    static START: OnceLock<Option<Instant>> = OnceLock::new();
    START.get_or_init(|| std::env::var_os("SORT_TRACE").is_some_and(|v| v != "0").then(Instant::now))
}

/// Prints `what` with the time since the first mark, when `SORT_TRACE` is set.
pub fn mark(what: &str) {
    if let Some(t0) = start() {
        eprintln!("[trace {:8.1} ms] {what}", t0.elapsed().as_secs_f64() * 1e3);
    }
}
