//! reviewdog's Diagnostic Format as one JSON document (rdjson), which
//! `reviewdog -f=rdjson` reads and posts as review comments on the lines a
//! pull or merge request changes, with a finding's fix as a suggested
//! change the author commits with one click.
//!
//! ```json
//! {"source": {"name": "confvet", "url": "https://github.com/confvet/confvet"},
//!  "diagnostics": [{"message": "port.http must be an integer, found a string",
//!    "location": {"path": "values.yml",
//!                 "range": {"start": {"line": 5, "column": 9}, "end": {"line": 5, "column": 15}}},
//!    "severity": "ERROR",
//!    "code": {"value": "ytt/type-mismatch", "url": "https://…/docs/rules/ytt/type-mismatch.md"},
//!    "suggestions": [{"range": {…}, "text": "8080"}],
//!    "related_locations": [{"message": "integer inferred from this default",
//!                           "location": {"path": "schema.yml", "range": {…}}}]}]}
//! ```
//!
//! As reviewdog's schema (`proto/rdf/jsonschema`) and `reviewdog.proto`
//! define it:
//!
//! * lines start at 1; **columns start at 1 and count UTF-8 bytes**, not
//!   characters as confvet's other formats do (`é` is two columns); the end
//!   is exclusive, and an end at column 1 of the next line takes the line
//!   break;
//! * `severity` is `ERROR` or `WARNING`; `code.url` is the rule's page;
//! * `path` is the file's name as every other format gives it, relative to
//!   the directory confvet ran in (reviewdog matches it against the diff).
//!   A value given by a flag has no file: its diagnostic has no `location`,
//!   and its message starts with the source and position;
//! * `message`: the message, then the help on a line of its own, then, for
//!   a finding with a suggestion, what the fix does and how safe it is
//!   (instead of the help, when that says what the fix does). It
//!   is shown to people (a review comment, `-reporter=local` in a
//!   terminal), so control and bidirectional characters from files are
//!   shown escaped ([`escape`](super::escape)), as in `github`;
//! * `suggestions`: the finding's fix, safe, unsafe or display-only alike
//!   (a suggested change is applied only by the person who accepts it),
//!   when all its edits are in the diagnostic's file (a suggestion names no
//!   file of its own): one suggestion replacing the text from the first
//!   edit's start to the last's end by that text with every edit made,
//!   since GitHub takes each suggestion as a whole replacement of its lines.
//!   Its text is exactly the fix's, unescaped;
//! * `related_locations`: the finding's related places that are files.
//!
//! A clean run has `"diagnostics": []`.

use super::escape;
use super::model::{Emitter, Report, edit_range, shown_range};
use crate::finding::{Applicability, Finding, Fix, Severity};
use crate::rules;
use crate::source::{SourceFile, Sources, Span};
use serde::Serialize;
use std::io::{self, Write};
use std::ops::Range as ByteRange;

/// Writes a reviewdog rdjson document.
pub struct RdjsonEmitter;

impl Emitter for RdjsonEmitter {
    fn emit(&self, out: &mut dyn Write, report: &Report<'_>) -> io::Result<()> {
        let result = DiagnosticResult {
            source: Source {
                name: "confvet",
                url: rules::HOMEPAGE,
            },
            diagnostics: report
                .findings
                .iter()
                .map(|finding| diagnostic(finding, report.sources))
                .collect(),
        };
        serde_json::to_writer_pretty(&mut *out, &result)?;
        writeln!(out)
    }
}

#[derive(Serialize)]
struct DiagnosticResult<'a> {
    source: Source,
    diagnostics: Vec<Diagnostic<'a>>,
}

#[derive(Serialize)]
struct Source {
    name: &'static str,
    url: &'static str,
}

#[derive(Serialize)]
struct Diagnostic<'a> {
    message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    location: Option<Location>,
    severity: &'static str,
    code: Code<'a>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    suggestions: Vec<Suggestion>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    related_locations: Vec<RelatedLocation>,
}

#[derive(Serialize)]
struct Code<'a> {
    value: &'a str,
    url: String,
}

#[derive(Serialize)]
struct Location {
    path: String,
    range: Range,
}

#[derive(Serialize)]
struct Range {
    start: Position,
    end: Position,
}

#[derive(Serialize)]
struct Position {
    line: usize,
    /// In UTF-8 bytes, from 1.
    column: usize,
}

#[derive(Serialize)]
struct Suggestion {
    range: Range,
    text: String,
}

#[derive(Serialize)]
struct RelatedLocation {
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<String>,
    location: Location,
}

fn diagnostic<'a>(finding: &'a Finding, sources: &Sources) -> Diagnostic<'a> {
    let file = sources.get(finding.span.file);
    let primary = file
        .path
        .is_some()
        .then(|| location(&file, shown_range(&file.text, finding.span)));
    let suggestion = primary
        .as_ref()
        .and(finding.fix.as_deref())
        .and_then(|fix| suggestion(fix, finding.span, &file).map(|s| (fix, s)));

    let mut message = String::new();
    if primary.is_none() {
        let start = file.line_col(shown_range(&file.text, finding.span).start);
        message = format!(
            "{}:{}:{}: ",
            escape::line(&file.name),
            start.line,
            start.column
        );
    }
    message.push_str(&escape::text(&finding.message));
    // A fix that does what the help says is said once, on the fix's line.
    let fix_says_help = suggestion
        .as_ref()
        .is_some_and(|(fix, _)| finding.help.as_deref() == Some(&fix.message));
    if let Some(help) = finding.help.as_ref().filter(|_| !fix_says_help) {
        message.push_str("\nhelp: ");
        message.push_str(&escape::text(help));
    }
    if let Some((fix, _)) = &suggestion {
        message.push_str("\nsuggested fix: ");
        message.push_str(&escape::text(&fix.message));
        message.push_str(match fix.applicability {
            Applicability::Safe => " (safe: `confvet lint --fix` makes it)",
            Applicability::Unsafe => " (unsafe: it may change what the configuration means)",
            Applicability::DisplayOnly => " (one repair of several: check that it fits)",
        });
    }

    let related_locations = finding
        .related
        .iter()
        .filter_map(|related| {
            let file = sources.get(related.span.file);
            file.path.as_ref()?;
            Some(RelatedLocation {
                message: (!related.message.is_empty())
                    .then(|| escape::text(&related.message).into_owned()),
                location: location(&file, shown_range(&file.text, related.span)),
            })
        })
        .collect();

    Diagnostic {
        message,
        location: primary,
        severity: match finding.severity {
            Severity::Error => "ERROR",
            Severity::Warning => "WARNING",
        },
        code: Code {
            value: finding.rule,
            url: rules::doc_url(finding.rule),
        },
        suggestions: suggestion.map(|(_, s)| s).into_iter().collect(),
        related_locations,
    }
}

fn location(file: &SourceFile, bytes: ByteRange<usize>) -> Location {
    Location {
        path: file.name.clone(),
        range: range(file, bytes),
    }
}

fn range(file: &SourceFile, bytes: ByteRange<usize>) -> Range {
    Range {
        start: position(file, bytes.start),
        end: position(file, bytes.end),
    }
}

/// The 1-based line and UTF-8 byte column of `offset` (within the text).
fn position(file: &SourceFile, offset: usize) -> Position {
    let line = file.lines().line(offset);
    Position {
        line,
        column: offset - file.line_start(line) + 1,
    }
}

/// `fix` as one suggestion in `span`'s file: the text from its first
/// edit's start to its last edit's end, every edit made. None when an edit
/// is in another file.
fn suggestion(fix: &Fix, span: Span, file: &SourceFile) -> Option<Suggestion> {
    if fix.edits.iter().any(|edit| edit.span.file != span.file) {
        return None;
    }
    let mut edits: Vec<(ByteRange<usize>, &str)> = fix
        .edits
        .iter()
        .map(|edit| (edit_range(&file.text, edit.span), edit.content.as_str()))
        .collect();
    edits.sort_by_key(|(bytes, _)| (bytes.start, bytes.end));
    let start = edits.first()?.0.start;
    let end = edits.iter().map(|(bytes, _)| bytes.end).max()?;
    let mut text = String::new();
    let mut copied = start;
    for (bytes, content) in &edits {
        // Fixes never overlap (`Fix::new`); were two to, the later one's
        // start is taken from where the earlier one ended.
        text.push_str(file.text.get(copied..bytes.start.max(copied))?);
        text.push_str(content);
        copied = copied.max(bytes.end);
    }
    text.push_str(file.text.get(copied..end)?);
    Some(Suggestion {
        range: range(file, start..end),
        text,
    })
}

#[cfg(test)]
mod tests;
