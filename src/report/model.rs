//! What every emitter reads: the report of a run and the shared rules for
//! showing a span. The formats themselves are `report`'s other files.

pub use crate::finding::RunError;
use crate::finding::{Finding, Severity};
use crate::source::{LineCol, SourceFile, Sources, Span};
use std::collections::BTreeMap;
use std::io::{self, Write};
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

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
    /// The run's errors (exit 2): SARIF says the run was not successful.
    pub errors: &'a [RunError],
    /// The lowest severity that fails the run (`--fail-on`; `None` for
    /// never): JUnit fails these findings' test cases, so that the report
    /// agrees with the exit code.
    pub fail_on: Option<Severity>,
    /// GitHub code scanning's category of the analysis (`--category`).
    pub category: Option<&'a str>,
    /// The directory relative file names are relative to (SARIF's
    /// `%SRCROOT%`), when known.
    pub base_dir: Option<&'a Path>,
    /// Documents no Kubernetes schema knows, by `kind (apiVersion)`: not
    /// checked, which `--statistics` notes once per kind.
    pub unchecked_kinds: &'a BTreeMap<String, usize>,
}

/// No document left unchecked.
pub(crate) static NONE_UNCHECKED: BTreeMap<String, usize> = BTreeMap::new();

impl<'a> Report<'a> {
    /// A report of these findings with the defaults of the other fields: no
    /// run errors, `--fail-on error`, no category, no base directory.
    pub fn new(
        findings: &'a [Finding],
        sources: &'a Sources,
        units: &'a [CheckedUnit],
        summary: Summary,
    ) -> Report<'a> {
        Report {
            findings,
            sources,
            units,
            summary,
            errors: &[],
            fail_on: Some(Severity::Error),
            category: None,
            base_dir: None,
            unchecked_kinds: &NONE_UNCHECKED,
        }
    }

    /// Whether `finding` makes the run fail (exit 1) under `fail_on`.
    pub fn fails(&self, finding: &Finding) -> bool {
        self.fail_on
            .is_some_and(|lowest| finding.severity >= lowest)
    }
}

/// One output format.
pub trait Emitter {
    fn emit(&self, out: &mut dyn Write, report: &Report<'_>) -> io::Result<()>;
}

/// Where a span is shown, in 1-based lines and character columns; `end` is
/// exclusive (the position just after the span). Every format reports these,
/// so text, JSON, SARIF and GitHub agree on every position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Region {
    pub start: LineCol,
    pub end: LineCol,
}

/// A span's file and region, after [`shown_range`].
pub(crate) fn locate(sources: &Sources, span: Span) -> (Arc<SourceFile>, Region) {
    let file = sources.get(span.file);
    let range = shown_range(&file.text, span);
    let region = Region {
        start: file.line_col(range.start),
        end: file.line_col(range.end),
    };
    (file, region)
}

/// An edit's file and region, exactly its bytes (clamped to the text and
/// widened to character boundaries, but never shortened as [`shown_range`]
/// shortens a span ending with a line break): a replacement must say which
/// bytes it replaces.
pub(crate) fn locate_edit(sources: &Sources, span: Span) -> (Arc<SourceFile>, Region) {
    let file = sources.get(span.file);
    let range = edit_range(&file.text, span);
    let region = Region {
        start: file.line_col(range.start),
        end: file.line_col(range.end),
    };
    (file, region)
}

/// An edit's byte range as [`locate_edit`] reads it: clamped to the text and
/// widened to character boundaries.
pub(crate) fn edit_range(text: &str, span: Span) -> Range<usize> {
    let mut start = (span.start as usize).min(text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (span.end as usize).clamp(start, text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    start..end
}

/// How many of `findings` carry a fix `--fix` applies, and how many more
/// one `--unsafe-fixes` applies.
pub fn fixable_counts(findings: &[Finding]) -> (usize, usize) {
    let safe = findings
        .iter()
        .filter(|f| f.applicable_fix(false).is_some())
        .count();
    let with_unsafe = findings
        .iter()
        .filter(|f| f.applicable_fix(true).is_some())
        .count();
    (safe, with_unsafe - safe)
}

/// "3 fixable with --fix, 2 more with --unsafe-fixes", or None when no
/// finding is fixable.
pub(crate) fn fixable_line(findings: &[Finding]) -> Option<String> {
    match fixable_counts(findings) {
        (0, 0) => None,
        (safe, 0) => Some(format!("{safe} fixable with --fix")),
        (0, more) => Some(format!("{more} fixable with --unsafe-fixes")),
        (safe, more) => Some(format!(
            "{safe} fixable with --fix, {more} more with --unsafe-fixes"
        )),
    }
}

/// A span's byte range made safe and useful to show. Checks may hand us
/// anything, and an emitter must never panic, so the range is clamped to the
/// text and widened to character boundaries. A span that ends with a line
/// break stops before it (else renderers draw it across two lines), and an
/// empty span at the very end of a file that ends with a line break (a syntax
/// error at end of file) points at the end of the last line, not at a line
/// past it that editors and code scanning do not show.
pub(crate) fn shown_range(text: &str, span: Span) -> Range<usize> {
    let mut start = (span.start as usize).min(text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (span.end as usize).clamp(start, text.len());
    if span.end <= span.start {
        end = start;
    }
    while !text.is_char_boundary(end) {
        end += 1;
    }
    if end > start {
        end = start.max(strip_line_break(text, end));
    } else if end == text.len() {
        start = strip_line_break(text, end);
        end = start;
    }
    start..end
}

/// `end` moved back over one line break (`\n` or `\r\n`) ending just before it.
fn strip_line_break(text: &str, end: usize) -> usize {
    let before = &text[..end];
    let before = before.strip_suffix('\n').unwrap_or(before);
    let before = before.strip_suffix('\r').unwrap_or(before);
    before.len()
}

/// `n thing` or `n things`.
pub fn plural(n: usize, thing: &str) -> String {
    if n == 1 {
        format!("1 {thing}")
    } else {
        format!("{n} {thing}s")
    }
}
