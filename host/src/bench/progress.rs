//! A progress bar that appears only once a run has taken a few seconds, so quick runs
//! print nothing extra. On a terminal it is an indicatif bar on stderr; otherwise (logs,
//! pipes) a plain line per finished step, still only after the first few seconds.
use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Seconds before any progress is shown.
const QUIET_FOR: Duration = Duration::from_secs(3);

pub struct Progress {
    bar: ProgressBar,
    start: Instant,
    shown: bool,
    terminal: bool,
    enabled: bool,
}

impl Progress {
    /// Progress over `total` units of work; `enabled = false` never shows anything.
    pub fn new(total: u64, enabled: bool) -> Progress {
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {pos}/{len} ETA {eta} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        Progress { bar, start: Instant::now(), shown: false, terminal: std::io::stderr().is_terminal(), enabled }
    }

    /// Names the step in progress.
    pub fn set_message(&self, msg: String) {
        self.bar.set_message(msg);
    }

    /// Adds `units` of finished work; `done` describes a finished step for logs.
    pub fn inc(&mut self, units: u64, done: Option<&str>) {
        self.bar.inc(units);
        if !self.enabled || self.start.elapsed() < QUIET_FOR {
            return;
        }
        if self.terminal {
            if !self.shown {
                self.bar.set_draw_target(ProgressDrawTarget::stderr());
                self.shown = true;
            }
        } else if let Some(done) = done {
            let (pos, len) = (self.bar.position(), self.bar.length().unwrap_or(0));
            eprintln!("[{:>6.1}s {pos}/{len}] {done}", self.start.elapsed().as_secs_f64());
        }
    }

    /// Removes the bar before the results are printed.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
