//! The progress bar of long runs. `run` only calls [`Progress`]; the bar on
//! standard error is drawn here, with indicatif, and only where a person
//! watches: on a terminal, outside CI, and once a run has taken a second.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::fmt;
use std::io::IsTerminal;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::Duration;

/// What a run tells about its progress. Called from many threads.
pub trait Progress: Send + Sync + fmt::Debug {
    /// Files are read; `units` units are about to be checked.
    fn checking(&self, units: usize);
    /// One more unit has been checked.
    fn checked(&self);
}

/// How long a run goes before the bar appears: short runs never flicker.
pub const DELAY: Duration = Duration::from_secs(1);

/// Whether to draw a bar: only for a person at a terminal. `CI` is set by
/// GitHub Actions, GitLab CI and most others, whose logs a bar would clutter.
pub fn wanted(quiet: bool, no_progress: bool) -> bool {
    let in_ci = std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false" && v != "0");
    decide(std::io::stderr().is_terminal(), in_ci, quiet, no_progress)
}

fn decide(stderr_is_terminal: bool, in_ci: bool, quiet: bool, no_progress: bool) -> bool {
    stderr_is_terminal && !in_ci && !quiet && !no_progress
}

/// A bar on standard error, hidden until `delay` has passed.
pub struct TerminalBar {
    bar: ProgressBar,
    stop: mpsc::Sender<()>,
    timer: JoinHandle<()>,
}

impl TerminalBar {
    /// Start the clock; the bar shows a spinner while files are read.
    pub fn start(delay: Duration) -> TerminalBar {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template("{spinner} reading files {elapsed}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        let (stop, stopped) = mpsc::channel::<()>();
        let shown = bar.clone();
        let timer = std::thread::spawn(move || {
            if stopped.recv_timeout(delay) == Err(RecvTimeoutError::Timeout) {
                shown.set_draw_target(ProgressDrawTarget::stderr());
                shown.enable_steady_tick(Duration::from_millis(100));
            }
        });
        TerminalBar { bar, stop, timer }
    }

    /// What `run` reports to.
    pub fn progress(&self) -> std::sync::Arc<dyn Progress> {
        std::sync::Arc::new(UnitBar(self.bar.clone()))
    }

    /// Remove the bar before the report is printed.
    pub fn finish(self) {
        drop(self.stop);
        let _ = self.timer.join();
        self.bar.finish_and_clear();
    }
}

/// The bar as `run` sees it: units checked out of units found.
struct UnitBar(ProgressBar);

impl fmt::Debug for UnitBar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("UnitBar")
    }
}

impl Progress for UnitBar {
    fn checking(&self, units: usize) {
        self.0.set_length(units as u64);
        self.0.set_position(0);
        if let Ok(style) =
            ProgressStyle::with_template("{spinner} checking {bar:30} {pos}/{len} units {elapsed}")
        {
            self.0.set_style(style);
        }
    }

    fn checked(&self) {
        self.0.inc(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bar_only_for_a_person_at_a_terminal() {
        assert!(decide(true, false, false, false));
        assert!(!decide(false, false, false, false), "stderr redirected");
        assert!(!decide(true, true, false, false), "in CI");
        assert!(!decide(true, false, true, false), "--quiet");
        assert!(!decide(true, false, false, true), "--no-progress");
    }

    #[test]
    fn a_short_run_never_draws() {
        let bar = TerminalBar::start(Duration::from_secs(60));
        let progress = bar.progress();
        progress.checking(3);
        progress.checked();
        assert!(bar.bar.is_hidden());
        assert_eq!(bar.bar.position(), 1);
        bar.finish();
    }
}
