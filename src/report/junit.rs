//! JUnit XML output through quick-junit, for CI systems that show test
//! reports.
//!
//! * One `testsuite` per file with findings, named after the file, with one
//!   `testcase` per finding, named `rule: data path` (or just the rule). The
//!   testcase carries `classname`, `file` and `line` attributes naming the
//!   file and line (GitLab and Jenkins read them).
//! * An error is a failing testcase: the failure's message is the finding's
//!   message, its type the severity, and its text the location, related
//!   locations and help. A warning passes, with the same text as system-out,
//!   so warnings are visible without failing the build.
//! * Units with no findings in any of their files are passing testcases, in
//!   one testsuite per system (`ytt`, `kubevirt`, `tekton`), so a clean run
//!   still lists what was checked and is never an empty report.

use super::{Emitter, Report, locate};
use crate::finding::{Finding, Severity};
use crate::source::Sources;
use quick_junit::{NonSuccessKind, Report as JunitReport, TestCase, TestCaseStatus, TestSuite};
use std::collections::HashSet;
use std::io::{self, Write};

/// Writes a JUnit XML report named `confvet`.
pub struct JunitEmitter;

impl Emitter for JunitEmitter {
    fn emit(&self, out: &mut dyn Write, report: &Report<'_>) -> io::Result<()> {
        let mut junit = JunitReport::new("confvet");
        let mut files_with_findings = HashSet::new();

        // Findings come sorted by file, so each file's findings are adjacent.
        let mut suite: Option<TestSuite> = None;
        for finding in report.findings {
            let file = report.sources.get(finding.span.file).name.clone();
            if suite.as_ref().is_none_or(|s| s.name.as_str() != file) {
                junit.add_test_suites(suite.take());
                suite = Some(TestSuite::new(file.as_str()));
                files_with_findings.insert(file);
            }
            if let Some(suite) = &mut suite {
                suite.add_test_case(finding_case(finding, report.sources));
            }
        }
        junit.add_test_suites(suite);

        let clean_units = report.units.iter().filter(|unit| {
            !unit
                .files
                .iter()
                .any(|file| files_with_findings.contains(file))
        });
        let mut clean_suites: Vec<TestSuite> = Vec::new();
        for unit in clean_units {
            let mut case = TestCase::new(unit.name.as_str(), TestCaseStatus::success());
            case.set_classname(unit.system);
            let index = match clean_suites
                .iter()
                .position(|s| s.name.as_str() == unit.system)
            {
                Some(index) => index,
                None => {
                    clean_suites.push(TestSuite::new(unit.system));
                    clean_suites.len() - 1
                }
            };
            clean_suites[index].add_test_case(case);
        }
        junit.add_test_suites(clean_suites);

        // Serialize first, write after: a closed pipe must stay an I/O error
        // of its own kind (main exits 0 on a broken pipe).
        let xml = junit.to_string().map_err(io::Error::other)?;
        out.write_all(xml.as_bytes())?;
        writeln!(out)
    }
}

/// The testcase of one finding.
fn finding_case(finding: &Finding, sources: &Sources) -> TestCase {
    let (file, region) = locate(sources, finding.span);
    let name = match &finding.path {
        Some(path) => format!("{}: {path}", finding.rule),
        None => finding.rule.to_string(),
    };

    // The text shown under the testcase: where, what, where else, what to do.
    let mut text = format!(
        "{}:{}:{}: {}",
        file.name, region.start.line, region.start.column, finding.message
    );
    for related in &finding.related {
        let (file, region) = locate(sources, related.span);
        text.push_str(&format!(
            "\n{}:{}:{}: {}",
            file.name, region.start.line, region.start.column, related.message
        ));
    }
    if let Some(help) = &finding.help {
        text.push_str(&format!("\nhelp: {help}"));
    }

    let mut case = match finding.severity {
        Severity::Error => {
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
            status
                .set_message(finding.message.as_str())
                .set_type(finding.severity.as_str())
                .set_description(text);
            TestCase::new(name, status)
        }
        Severity::Warning => {
            let mut case = TestCase::new(name, TestCaseStatus::success());
            case.set_system_out(format!("warning: {text}"));
            case
        }
    };
    case.set_classname(file.name.as_str());
    case.extra.insert("file".into(), file.name.as_str().into());
    case.extra
        .insert("line".into(), region.start.line.to_string().into());
    case
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{self, Fixture};
    use super::*;

    fn emit(fixture: &Fixture) -> String {
        let mut out = Vec::new();
        JunitEmitter.emit(&mut out, &fixture.report()).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn findings() {
        insta::assert_snapshot!(emit(&fixtures::with_findings()));
    }

    #[test]
    fn clean_run() {
        let xml = emit(&fixtures::clean());
        assert!(xml.contains("tests=\"3\""), "{xml}");
        insta::assert_snapshot!(xml);
    }

    #[test]
    fn counts_only_errors_as_failures() {
        let xml = emit(&fixtures::with_findings());
        assert!(
            xml.contains(
                r#"<testsuites name="confvet" tests="9" skipped="0" failures="6" errors="0">"#
            ),
            "{xml}"
        );
    }
}
