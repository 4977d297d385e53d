//! The ways a run fails other than by findings, as one typed enum: callers
//! match on what went wrong instead of on text. Each displays as the line
//! `confvet: ` prints (the text is what users and their scripts read, so it
//! does not change with the type), and a command that stops on one exits
//! with [`Error::exit_code`]. A unit's failure (its panic, its limits) is
//! reported as a finding of its own ([`Error::finding`]).

use crate::finding::{Finding, RunError};
use crate::rules::{self, Rule};
use crate::source::Span;
use crate::watchdog::panic_message;
use crate::watchdog::{Failure, Stopped};

/// Why a run, or one of its units, failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file, directory, stream or program that could not be read, written
    /// or run.
    #[error("{}", .doing.say(.path, .source))]
    Io {
        doing: Doing,
        /// As the message shows it, after a noun where the message names
        /// one (`the baseline b.json`, `standard input`).
        path: String,
        /// The display name of the file the error is about, where reports
        /// locate it (SARIF notifications, JUnit test cases).
        file: Option<String>,
        #[source]
        source: std::io::Error,
    },
    /// The walk of a directory failed below it (a folder that cannot be
    /// listed, an ignore file that cannot be read).
    #[error("{source}")]
    Walk {
        /// The display name of the path it is about, when it names one.
        file: Option<String>,
        #[source]
        source: ignore::Error,
    },
    /// Flags that do not go together, a value no flag takes, input that is
    /// not what a flag promised.
    #[error("{0}")]
    Usage(String),
    /// A configuration file that cannot be used at all (its mistakes are
    /// findings at their lines, not this).
    #[error("configuration file {file}{} {problem}", .line.map(|n| format!(":{n}")).unwrap_or_default())]
    Config {
        /// Its display name.
        file: String,
        /// The line the problem is at, where one is.
        line: Option<usize>,
        problem: String,
    },
    /// A failure with what it failed at in front: `--changed-since main:
    /// …`.
    #[error("{context}: {source}")]
    In {
        context: String,
        #[source]
        source: Box<Error>,
    },
    /// A bug: confvet panicked on some input. The run goes on without it
    /// and exits 2.
    #[error("internal error while {during} ({message}); please report it{}", .during.asking())]
    Internal { during: During, message: String },
    /// Some unit or file met a bug ([`Error::Internal`], reported as
    /// findings): the run is incomplete.
    #[error("confvet failed internally on some input (see the confvet/internal findings)")]
    FailedInternally,
    /// A unit that ran past its time or memory (`--unit-timeout`,
    /// `--unit-memory`): given up, the run goes on.
    #[error("{system} unit {unit} was not checked: {stopped}")]
    UnitLimit {
        system: &'static str,
        /// The unit's display name.
        unit: String,
        stopped: Stopped,
    },
}

/// What was being done with the path of an [`Error::Io`], as its message
/// says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Doing {
    /// Looking a named path up: `PATH: ERROR`, as the shell says it.
    Naming,
    /// Reading a file the walk found: `PATH: cannot read: ERROR`.
    ReadingFound,
    /// `cannot read PATH: ERROR`.
    Reading,
    /// `cannot write PATH: ERROR`.
    Writing,
    /// `cannot run PATH: ERROR`.
    Running,
}

impl Doing {
    fn say(self, path: &str, source: &std::io::Error) -> String {
        match self {
            Doing::Naming => format!("{path}: {source}"),
            Doing::ReadingFound => format!("{path}: cannot read: {source}"),
            Doing::Reading => format!("cannot read {path}: {source}"),
            Doing::Writing => format!("cannot write {path}: {source}"),
            Doing::Running => format!("cannot run {path}: {source}"),
        }
    }
}

/// What confvet was doing when it panicked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum During {
    /// Checking a unit.
    Checking { system: &'static str, unit: String },
    /// Parsing one file (the finding is at the file).
    Parsing,
}

impl During {
    /// What a report of the bug should come with.
    fn asking(&self) -> &'static str {
        match self {
            During::Checking { .. } => "",
            During::Parsing => " with the file",
        }
    }
}

impl std::fmt::Display for During {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            During::Checking { system, unit } => write!(f, "checking {system} unit {unit}"),
            During::Parsing => f.write_str("parsing this file"),
        }
    }
}

impl Error {
    /// The exit code of a command that stops on this error: 2, as for
    /// every run that is incomplete.
    pub fn exit_code(&self) -> u8 {
        2
    }

    /// `doing` with `path` failed with `source`; `path` is also the file
    /// reports locate the error at.
    pub fn io(doing: Doing, path: impl Into<String>, source: std::io::Error) -> Error {
        let path = path.into();
        Error::Io {
            doing,
            file: Some(path.clone()),
            path,
            source,
        }
    }

    /// As [`Error::io`], with a noun before the path in the message
    /// (`cannot read the baseline b.json: …`).
    pub fn io_named(
        doing: Doing,
        noun: &str,
        path: impl Into<String>,
        source: std::io::Error,
    ) -> Error {
        let path = path.into();
        Error::Io {
            doing,
            path: format!("{noun} {path}"),
            file: Some(path),
            source,
        }
    }

    /// `doing` with something that is not a file of the run (standard
    /// output, an output file, git) failed with `source`.
    pub fn io_unlocated(doing: Doing, path: impl Into<String>, source: std::io::Error) -> Error {
        Error::Io {
            doing,
            path: path.into(),
            file: None,
            source,
        }
    }

    /// This error with `context` in front of its message.
    pub fn within(self, context: impl Into<String>) -> Error {
        Error::In {
            context: context.into(),
            source: Box::new(self),
        }
    }

    /// The unit `unit` of `system` (its display name) failed as `failure`
    /// says: it panicked, or ran past its limits.
    pub fn of_unit(system: &'static str, unit: String, failure: Failure) -> Error {
        match failure {
            Failure::Panicked(panic) => Error::Internal {
                during: During::Checking { system, unit },
                // The payload, not the box: `&panic` would hand on the box
                // itself (it is `Any` too) and never say what panicked.
                message: panic_message(panic.as_ref()),
            },
            Failure::Stopped(stopped) => Error::UnitLimit {
                system,
                unit,
                stopped,
            },
        }
    }

    /// The display name of the file or directory the error is about, if any.
    pub fn file(&self) -> Option<&str> {
        match self {
            Error::Io { file, .. } | Error::Walk { file, .. } => file.as_deref(),
            Error::Config { file, .. } => Some(file),
            Error::In { source, .. } => source.file(),
            Error::Usage(_)
            | Error::Internal { .. }
            | Error::FailedInternally
            | Error::UnitLimit { .. } => None,
        }
    }

    /// The rule a unit's failure is reported under; None for the errors of
    /// a run, which are not findings.
    pub fn rule(&self) -> Option<&'static Rule> {
        match self {
            Error::Internal { .. } => Some(&rules::confvet::INTERNAL),
            Error::UnitLimit { .. } => Some(&rules::confvet::UNIT_LIMIT),
            _ => None,
        }
    }

    /// The finding at `at` that a unit's failure stands as in the report;
    /// None for the errors of a run.
    pub fn finding(&self, at: Span) -> Option<Finding> {
        Some(Finding::new(self.rule()?, at, self.to_string()))
    }
}

/// A run error as reports show it: its message, and the file it is about.
impl From<Error> for RunError {
    fn from(error: Error) -> RunError {
        RunError {
            file: error.file().map(str::to_string),
            message: error.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_read_as_before_the_errors_were_typed() {
        let missing = || std::io::Error::from(std::io::ErrorKind::NotFound);
        let named = Error::io(Doing::Naming, "missing", missing());
        assert_eq!(named.to_string(), format!("missing: {}", missing()));
        assert_eq!(named.file(), Some("missing"));
        let config = Error::Config {
            file: ".confvet.yaml".into(),
            line: None,
            problem: "is not UTF-8 text".into(),
        };
        assert_eq!(
            config.to_string(),
            "configuration file .confvet.yaml is not UTF-8 text"
        );
        let panicked = Error::Internal {
            during: During::Checking {
                system: "ytt",
                unit: "app".into(),
            },
            message: "boom".into(),
        };
        assert_eq!(
            panicked.to_string(),
            "internal error while checking ytt unit app (boom); please report it"
        );
        let at = Span::file_start(crate::source::FileId(0));
        assert!(
            panicked
                .finding(at)
                .is_some_and(|f| f.is(&rules::confvet::INTERNAL))
        );
        let stopped = Error::of_unit("tekton", "ci".into(), Failure::Stopped(Stopped::NoThread));
        assert_eq!(
            stopped.to_string(),
            "tekton unit ci was not checked: no thread could be started for it"
        );
        assert!(
            stopped
                .finding(at)
                .is_some_and(|f| f.is(&rules::confvet::UNIT_LIMIT))
        );
        // A unit's panic says what panicked, as the payload tells it.
        let payload: Box<dyn std::any::Any + Send> = Box::new(String::from("index out of range"));
        let failed = Error::of_unit("ytt", "pkg".into(), Failure::Panicked(payload));
        assert_eq!(
            failed.to_string(),
            "internal error while checking ytt unit pkg (index out of range); please report it"
        );
        let usage = Error::Usage("bad pattern".into()).within("--extend-exclude");
        assert_eq!(usage.to_string(), "--extend-exclude: bad pattern");
        assert!(usage.finding(at).is_none());
    }
}
