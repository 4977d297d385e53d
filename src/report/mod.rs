//! Reports: one emitter per output format behind [`Emitter`]. An emitter gets
//! the complete, sorted list of findings and a small context and writes to
//! any writer. Emitters know `finding`, `rules` and `source`; never how a
//! finding was found.

use crate::finding::Finding;
use crate::source::Sources;
use std::io::{self, Write};

mod github;
mod json;
mod junit;
mod sarif;
mod text;

/// A unit that was checked (a ytt package, a Tekton file, ...), so that a
/// clean run still reports what it looked at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedUnit {
    /// Display name: the package directory or the file.
    pub name: String,
    /// `ytt`, `kubevirt` or `tekton`.
    pub system: &'static str,
    /// Display names of the unit's files.
    pub files: Vec<String>,
}

/// Counts shown in summaries.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    pub files: usize,
    pub units: usize,
    pub errors: usize,
    pub warnings: usize,
    /// Findings hidden by suppression comments or a baseline.
    pub suppressed: usize,
}

/// Everything an emitter may read.
pub struct Report<'a> {
    pub findings: &'a [Finding],
    pub sources: &'a Sources,
    pub units: &'a [CheckedUnit],
    pub summary: Summary,
}

/// One output format.
pub trait Emitter {
    fn emit(&self, out: &mut dyn Write, report: &Report<'_>) -> io::Result<()>;
}

/// The output formats of `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// rustc-style snippets with a summary line
    Text,
    /// the versioned JSON contract (see report::json)
    Json,
    /// JUnit XML, one testsuite per file
    Junit,
    /// SARIF 2.1.0 for code scanning
    Sarif,
    /// GitHub Actions workflow commands (annotations)
    Github,
}

impl Format {
    /// The emitter for this format; `color` only affects text.
    pub fn emitter(self, color: bool) -> Box<dyn Emitter> {
        match self {
            Format::Text => Box::new(text::TextEmitter { color }),
            Format::Json => Box::new(json::JsonEmitter),
            Format::Junit => Box::new(junit::JunitEmitter),
            Format::Sarif => Box::new(sarif::SarifEmitter),
            Format::Github => Box::new(github::GithubEmitter),
        }
    }
}

#[cfg(test)]
pub(crate) mod fixtures;
