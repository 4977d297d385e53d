//! JSON output: a versioned, documented contract with serde types of its
//! own, so that changing `Finding` never changes what scripts read.
//!
//! # Contract, version 1
//!
//! ```json
//! {
//!   "version": 1,
//!   "tool": {"name": "confvet", "version": "0.1.0"},
//!   "findings": [
//!     {
//!       "rule": "ytt/validation",
//!       "kind": "validation",
//!       "severity": "error",
//!       "message": "port.https must be a value <= 32767, found 70000",
//!       "file": "values.yml",
//!       "line": 4, "column": 10, "end_line": 4, "end_column": 15,
//!       "path": "port.https",
//!       "related": [
//!         {"file": "schema.yml", "line": 6, "column": 3, "message": "rule declared here"}
//!       ],
//!       "help": "...",
//!       "url": "https://github.com/confvet/confvet/blob/main/docs/rules/ytt/validation.md",
//!       "fingerprint": "5f0c1e2a9b3d4c7e",
//!       "fix": {
//!         "message": "write $(tt.params.revision)",
//!         "applicability": "safe",
//!         "edits": [
//!           {"file": "tt.yaml", "line": 16, "column": 16, "end_line": 16, "end_column": 32,
//!            "content": "$(tt.params.revision)"}
//!         ]
//!       }
//!     }
//!   ],
//!   "summary": {"files": 3, "units": 1, "errors": 1, "warnings": 0, "suppressed": 0,
//!               "fixable": 1, "unsafe_fixable": 0}
//! }
//! ```
//!
//! * `version` is the version of this contract. Adding a field keeps it;
//!   removing, renaming or changing the meaning of one bumps it.
//! * `tool.version` is confvet's own version.
//! * Findings come sorted by file, position and rule.
//! * `kind` is one of `syntax`, `schema`, `type`, `unknown-key`, `validation`,
//!   `reference`, `deprecated`, `compat`; `severity` is `error` or `warning`.
//! * `file` is the name shown to users: relative to the current directory
//!   with `/` separators, or a pseudo name such as `(data-value arg)` for a
//!   command-line source.
//! * Lines and columns start at 1; columns count Unicode characters. The end
//!   is exclusive: `end_column` is the column just after the last character.
//! * `path` (the data path, such as `databases[1].port`) and `help` are
//!   omitted when the finding has none. `related` is always present.
//! * `fingerprint` does not change when lines move (rule, file, data path and
//!   message with digits masked) and is unique within a report: findings
//!   alike in all of those are numbered in order; use it for baselines.
//! * `url` is the documentation page of the rule (added in version 1).
//! * `fix` (added in version 1, omitted when the finding has none) is the
//!   repair it proposes: `applicability` is `safe` (applied by `--fix`),
//!   `unsafe` (applied with `--unsafe-fixes`) or `display-only` (never
//!   applied); each edit replaces the text from `line`/`column` up to
//!   `end_line`/`end_column` (exclusive; an edit may end at column 1 of the
//!   next line, taking the line break) by `content`. Edits are sorted and do
//!   not overlap.
//! * `summary.fixable` and `summary.unsafe_fixable` count findings `--fix`
//!   fixes, and how many more `--unsafe-fixes` does (added in version 1).
//! * `summary.suppressed` counts findings hidden by suppression comments or a
//!   baseline; they are not in `findings`.

use super::model::{Emitter, Report, fixable_counts, locate, locate_edit};
use crate::finding::Finding;
use crate::source::Sources;
use rayon::prelude::*;
use serde::Serialize;
use std::io::{self, Write};

/// The contract version written as `version`.
pub const JSON_VERSION: u32 = 1;

/// Writes the version 1 JSON contract.
pub struct JsonEmitter;

#[derive(Serialize)]
struct JsonReport<'a> {
    version: u32,
    tool: Tool,
    findings: Vec<JsonFinding<'a>>,
    summary: JsonSummary,
}

#[derive(Serialize)]
struct Tool {
    name: &'static str,
    version: &'static str,
}

#[derive(Serialize)]
struct JsonFinding<'a> {
    rule: &'a str,
    kind: &'static str,
    severity: &'static str,
    message: &'a str,
    file: String,
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<&'a str>,
    related: Vec<JsonRelated<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    help: Option<&'a str>,
    url: String,
    fingerprint: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    fix: Option<JsonFix<'a>>,
}

#[derive(Serialize)]
struct JsonFix<'a> {
    message: &'a str,
    applicability: &'static str,
    edits: Vec<JsonEdit<'a>>,
}

#[derive(Serialize)]
struct JsonEdit<'a> {
    file: String,
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
    content: &'a str,
}

#[derive(Serialize)]
struct JsonRelated<'a> {
    file: String,
    line: usize,
    column: usize,
    message: &'a str,
}

#[derive(Serialize)]
struct JsonSummary {
    files: usize,
    units: usize,
    errors: usize,
    warnings: usize,
    suppressed: usize,
    fixable: usize,
    unsafe_fixable: usize,
}

impl<'a> JsonFinding<'a> {
    fn new(finding: &'a Finding, sources: &Sources) -> JsonFinding<'a> {
        let (file, region) = locate(sources, finding.span);
        JsonFinding {
            rule: finding.rule,
            kind: finding.kind.as_str(),
            severity: finding.severity.as_str(),
            message: &finding.message,
            file: file.name.clone(),
            line: region.start.line,
            column: region.start.column,
            end_line: region.end.line,
            end_column: region.end.column,
            path: finding.path.as_deref(),
            related: finding
                .related
                .iter()
                .map(|related| {
                    let (file, region) = locate(sources, related.span);
                    JsonRelated {
                        file: file.name.clone(),
                        line: region.start.line,
                        column: region.start.column,
                        message: &related.message,
                    }
                })
                .collect(),
            help: finding.help.as_deref(),
            url: crate::rules::doc_url(finding.rule),
            fingerprint: finding.fingerprint(sources),
            fix: finding.fix.as_deref().map(|fix| JsonFix {
                message: &fix.message,
                applicability: fix.applicability.as_str(),
                edits: fix
                    .edits
                    .iter()
                    .map(|edit| {
                        let (file, region) = locate_edit(sources, edit.span);
                        JsonEdit {
                            file: file.name.clone(),
                            line: region.start.line,
                            column: region.start.column,
                            end_line: region.end.line,
                            end_column: region.end.column,
                            content: &edit.content,
                        }
                    })
                    .collect(),
            }),
        }
    }
}

impl Emitter for JsonEmitter {
    fn emit(&self, out: &mut dyn Write, report: &Report<'_>) -> io::Result<()> {
        let summary = report.summary;
        let (fixable, unsafe_fixable) = fixable_counts(report.findings);
        let json = JsonReport {
            version: JSON_VERSION,
            tool: Tool {
                name: "confvet",
                version: env!("CARGO_PKG_VERSION"),
            },
            // On all cores: each finding's lines come from its file, read
            // again from disk.
            findings: report
                .findings
                .par_iter()
                .map(|finding| JsonFinding::new(finding, report.sources))
                .collect(),
            summary: JsonSummary {
                files: summary.files,
                units: summary.units,
                errors: summary.errors,
                warnings: summary.warnings,
                suppressed: summary.suppressed,
                fixable,
                unsafe_fixable,
            },
        };
        serde_json::to_writer_pretty(&mut *out, &json)?;
        writeln!(out)
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{self, Fixture, HOSTILE};
    use super::*;
    use serde_json::Value;

    fn emit_text(fixture: &Fixture) -> String {
        let mut out = Vec::new();
        JsonEmitter.emit(&mut out, &fixture.report()).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn emit(fixture: &Fixture) -> Value {
        serde_json::from_str(&emit_text(fixture)).unwrap()
    }

    /// The output as written (fields in contract order) with the tool
    /// version redacted, so releases keep snapshots.
    fn redacted(fixture: &Fixture) -> String {
        let text = emit_text(fixture);
        let json: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(json["tool"]["version"], env!("CARGO_PKG_VERSION"));
        let version = format!("\"version\": \"{}\"", env!("CARGO_PKG_VERSION"));
        assert_eq!(text.matches(&version).count(), 1);
        text.replace(&version, "\"version\": \"[version]\"")
    }

    #[test]
    fn findings() {
        insta::assert_snapshot!(redacted(&fixtures::with_findings()));
    }

    #[test]
    fn clean_run() {
        insta::assert_snapshot!(redacted(&fixtures::clean()));
    }

    #[test]
    fn text_from_files_is_kept_exactly() {
        let text = emit_text(&fixtures::hostile());
        let json: Value = serde_json::from_str(&text).unwrap();
        let finding = &json["findings"][0];
        assert_eq!(
            finding["message"],
            format!("{HOSTILE} is not declared\nin the schema")
        );
        assert_eq!(finding["file"], format!("pkg/{HOSTILE}.yml"));
        assert_eq!(finding["path"], HOSTILE);
        assert_eq!(finding["related"][0]["message"], format!("key {HOSTILE}"));
        assert_eq!(finding["help"], format!("did you mean {HOSTILE}?"));
        assert_eq!(finding["fix"]["message"], format!("rename {HOSTILE}"));
        // JSON writes the C0 controls as its own escapes.
        assert!(!text.contains(['\u{1b}', '\u{7}']), "{text}");
        assert!(text.contains(r"\u001b]0;pwned\u0007"), "{text}");
    }

    #[test]
    fn follows_the_documented_contract() {
        let json = emit(&fixtures::with_findings());
        assert_eq!(json["version"], 1);
        assert_eq!(json["tool"]["name"], "confvet");
        let validation = &json["findings"][1];
        assert_eq!(validation["rule"], "ytt/validation");
        assert_eq!(validation["file"], "values.yml");
        assert_eq!(
            (
                &validation["line"],
                &validation["column"],
                &validation["end_line"],
                &validation["end_column"]
            ),
            (&4.into(), &10.into(), &4.into(), &15.into())
        );
        assert_eq!(validation["related"][0]["file"], "schema.yml");
        assert_eq!(validation["related"][0]["line"], 6);
        assert_eq!(validation["related"][0]["column"], 3);
        assert!(validation.get("help").is_none());
        assert_eq!(
            validation["url"],
            "https://github.com/confvet/confvet/blob/main/docs/rules/ytt/validation.md"
        );
        let syntax = json["findings"].as_array().unwrap().last().unwrap();
        assert!(syntax.get("path").is_none());
        assert_eq!(json["summary"]["suppressed"], 2);
    }
}
