//! GitLab Code Quality output: the JSON array of issues GitLab reads from a
//! `codequality` report artifact and shows in the merge request (the widget
//! lists new and fixed findings; Ultimate marks the lines in the diff) and,
//! in Premium, on the pipeline's Code Quality tab.
//!
//! ```json
//! [{"type": "issue", "check_name": "ytt/validation",
//!   "description": "port.https must be a value <= 32767, found 70000",
//!   "categories": ["Bug Risk"], "severity": "major",
//!   "fingerprint": "5f0c1e2a9b3d4c7e",
//!   "location": {"path": "values.yml", "lines": {"begin": 4, "end": 4}}}]
//! ```
//!
//! GitLab documents the fields it reads ("Code Quality report format",
//! docs.gitlab.com/ci/testing/code_quality): `description`, `check_name`,
//! `fingerprint`, `severity` (`info`, `minor`, `major`, `critical`,
//! `blocker`), `location.path` (relative to the repository) and
//! `location.lines.begin` (or `location.positions.begin.line`); it ignores
//! the rest of the CodeClimate format, of which `type` and `categories` are
//! written for other readers of it.
//!
//! * `check_name` is the rule id; `fingerprint` the finding's (unique in the
//!   report, stable when lines move): GitLab shows findings with one
//!   fingerprint as one, and tells new from fixed ones by it.
//! * `severity`: an error is `major`, a warning `minor` (confvet has no
//!   lower severity, and none of its findings blocks more than a failing
//!   job does).
//! * `description`: the message, then the help on a line of its own, with
//!   control and bidirectional characters from files shown escaped
//!   ([`escape`](super::escape)), as a CI page shows them.
//! * `location.path`: the file's name as every other format gives it,
//!   relative to the directory confvet ran in (run it at the repository's
//!   root); a value given by a flag has its pseudo name,
//!   `(data-value arg)`, which GitLab lists without a link.
//! * `location.lines`: the first and last line of the finding.
//! * `categories`: CodeClimate's `Compatibility` for findings of kinds
//!   `deprecated` and `compat`, `Bug Risk` for every other.
//!
//! A clean run is `[]`.

use super::escape;
use super::model::{Emitter, Report, locate};
use crate::finding::{Finding, Kind, Severity};
use crate::source::Sources;
use serde::Serialize;
use std::io::{self, Write};

/// Writes a GitLab Code Quality report.
pub struct GitlabEmitter;

impl Emitter for GitlabEmitter {
    fn emit(&self, out: &mut dyn Write, report: &Report<'_>) -> io::Result<()> {
        let issues: Vec<Issue<'_>> = report
            .findings
            .iter()
            .map(|finding| Issue::new(finding, report.sources))
            .collect();
        serde_json::to_writer_pretty(&mut *out, &issues)?;
        writeln!(out)
    }
}

/// One CodeClimate issue, as GitLab reads it.
#[derive(Serialize)]
struct Issue<'a> {
    #[serde(rename = "type")]
    issue_type: &'static str,
    check_name: &'a str,
    description: String,
    categories: [&'static str; 1],
    severity: &'static str,
    fingerprint: String,
    location: Location,
}

#[derive(Serialize)]
struct Location {
    path: String,
    lines: Lines,
}

#[derive(Serialize)]
struct Lines {
    begin: usize,
    end: usize,
}

impl<'a> Issue<'a> {
    fn new(finding: &'a Finding, sources: &Sources) -> Issue<'a> {
        let (file, region) = locate(sources, finding.span);
        let mut description = escape::text(&finding.message).into_owned();
        if let Some(help) = &finding.help {
            description.push_str("\nhelp: ");
            description.push_str(&escape::text(help));
        }
        Issue {
            issue_type: "issue",
            check_name: finding.rule,
            description,
            categories: [category(finding.kind)],
            severity: severity(finding.severity),
            fingerprint: finding.fingerprint(sources),
            location: Location {
                path: file.name.clone(),
                lines: Lines {
                    begin: region.start.line,
                    end: region.end.line,
                },
            },
        }
    }
}

/// GitLab's severity of a finding's.
fn severity(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "major",
        Severity::Warning => "minor",
    }
}

/// CodeClimate's category of a finding's kind.
fn category(kind: Kind) -> &'static str {
    match kind {
        Kind::Deprecated | Kind::Compat => "Compatibility",
        _ => "Bug Risk",
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{self, Fixture, HOSTILE, HOSTILE_ESCAPED};
    use super::*;
    use serde_json::{Value, json};
    use std::collections::HashSet;

    fn emit(fixture: &Fixture) -> Value {
        serde_json::from_str(&fixture.emit(&GitlabEmitter)).unwrap()
    }

    /// The Code Quality report format as GitLab documents it, written as a
    /// JSON Schema in `tests/fixtures` (GitLab publishes none).
    fn schema_errors(report: &Value) -> Vec<String> {
        let schema: Value = serde_json::from_str(include_str!(
            "../../tests/fixtures/gitlab-code-quality.schema.json"
        ))
        .unwrap();
        let validator = jsonschema::validator_for(&schema).unwrap();
        validator
            .iter_errors(report)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect()
    }

    #[test]
    fn findings() {
        let text = fixtures::with_findings().emit(&GitlabEmitter);
        insta::assert_snapshot!(text);
    }

    #[test]
    fn findings_and_a_clean_run_are_valid_code_quality_reports() {
        let report = emit(&fixtures::with_findings());
        assert_eq!(schema_errors(&report), Vec::<String>::new());
        let clean = emit(&fixtures::clean());
        assert_eq!(clean, json!([]));
        assert_eq!(schema_errors(&clean), Vec::<String>::new());
        let hostile = emit(&fixtures::hostile());
        assert_eq!(schema_errors(&hostile), Vec::<String>::new());
    }

    #[test]
    fn the_schema_check_is_not_vacuous() {
        let report = emit(&fixtures::with_findings());
        let broken = |change: &dyn Fn(&mut Value)| {
            let mut copy = report.clone();
            change(&mut copy[0]);
            schema_errors(&copy)
        };
        assert!(!broken(&|issue| issue["severity"] = "error".into()).is_empty());
        assert!(!broken(&|issue| issue["location"]["lines"]["begin"] = 0.into()).is_empty());
        assert!(
            !broken(&|issue| {
                issue.as_object_mut().unwrap().remove("fingerprint");
            })
            .is_empty()
        );
        assert!(
            !broken(&|issue| {
                issue["location"].as_object_mut().unwrap().remove("lines");
            })
            .is_empty()
        );
        assert!(!schema_errors(&json!({"issues": []})).is_empty());
    }

    #[test]
    fn each_finding_is_an_issue_at_its_file_and_lines() {
        let fixture = fixtures::with_findings();
        let report = emit(&fixture);
        let issues = report.as_array().unwrap();
        assert_eq!(issues.len(), fixture.findings.len());
        let fingerprints: HashSet<&str> = issues
            .iter()
            .map(|issue| issue["fingerprint"].as_str().unwrap())
            .collect();
        assert_eq!(fingerprints.len(), issues.len(), "unique fingerprints");
        for (issue, finding) in issues.iter().zip(&fixture.findings) {
            let (file, region) = locate(&fixture.sources, finding.span);
            assert_eq!(issue["check_name"], finding.rule);
            assert_eq!(issue["fingerprint"], finding.fingerprint(&fixture.sources));
            assert_eq!(issue["location"]["path"], file.name.as_str());
            assert_eq!(issue["location"]["lines"]["begin"], region.start.line);
            assert_eq!(issue["location"]["lines"]["end"], region.end.line);
            let expected = match finding.severity {
                Severity::Error => "major",
                Severity::Warning => "minor",
            };
            assert_eq!(issue["severity"], expected);
        }
        let http = issues
            .iter()
            .find(|issue| issue["location"]["lines"]["begin"] == 5)
            .unwrap();
        assert_eq!(
            http["description"],
            "port.http must be an integer, found a string\nhelp: remove the quotes to give an integer: 8080"
        );
    }

    #[test]
    fn text_from_files_is_shown_escaped_but_paths_are_kept() {
        let report = emit(&fixtures::hostile());
        let issue = &report[0];
        assert_eq!(
            issue["description"],
            format!(
                "{HOSTILE_ESCAPED} is not declared\nin the schema\nhelp: did you mean {HOSTILE_ESCAPED}?"
            )
        );
        // The path must be the repository's to be linked: as it is.
        assert_eq!(issue["location"]["path"], format!("pkg/{HOSTILE}.yml"));
    }
}
