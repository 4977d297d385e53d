//! JUnit XML output through quick-junit, for CI systems that show test
//! reports (GitLab, Jenkins, Azure DevOps). Valid against Jenkins' JUnit
//! schema (`junit-10.xsd`), which GitLab's parser reads too.
//!
//! * One `testsuite` per file with findings, named after the file (its
//!   `file` attribute too), with one `testcase` per finding. A testcase is
//!   named `rule: data path` (or just the rule); when several in a suite
//!   would share a name, each gets ` (line N)`, and a counter if that is not
//!   enough, so names are unique in their suite. `classname` is the file.
//!   Nothing else goes on a testcase: the schema allows no `file` or `line`.
//! * A finding at or above `--fail-on` (errors by default) is a failing
//!   testcase: the failure's message is the finding's message, its type the
//!   severity, and its text the position (`file:line:column: message`),
//!   related positions and help. Any other finding passes, with the same text
//!   as system-out. So the report fails exactly when the exit code is 1.
//! * Units with no findings in any of their files are passing testcases, in
//!   one testsuite per system (`ytt`, `kubevirt`, `tekton`), so a clean run
//!   still lists what was checked and is never an empty report.
//! * Run errors (exit 2) are `error` testcases of a `confvet` testsuite.
//! * Characters XML 1.0 cannot hold (control characters from a file) are
//!   replaced by `\u{..}` escapes, and so are the ones it discourages (DEL
//!   and C1, XML 1.0 §2.2), which quick-junit would otherwise drop without
//!   a trace (it strips what a terminal reads as an escape sequence, such
//!   as the C1 CSI U+009B). Every other character is kept as it is,
//!   bidirectional ones included, as in JSON and SARIF.

use super::model::{Emitter, Report, locate};
use crate::finding::Finding;
use crate::source::Sources;
use quick_junit::{NonSuccessKind, Report as JunitReport, TestCase, TestCaseStatus, TestSuite};
use std::collections::{HashMap, HashSet};
use std::io::{self, Write};

/// Writes a JUnit XML report named `confvet`.
pub struct JunitEmitter;

impl Emitter for JunitEmitter {
    fn emit(&self, out: &mut dyn Write, report: &Report<'_>) -> io::Result<()> {
        let mut junit = JunitReport::new("confvet");
        let mut files_with_findings = HashSet::new();

        // Findings come sorted by file, so each file's findings are adjacent.
        let mut start = 0;
        while start < report.findings.len() {
            let file_of = |f: &Finding| f.span.file;
            let file = file_of(&report.findings[start]);
            let end = report.findings[start..]
                .iter()
                .position(|f| file_of(f) != file)
                .map_or(report.findings.len(), |n| start + n);
            let name = xml_text(&report.sources.get(file).name);
            files_with_findings.insert(report.sources.get(file).name.clone());
            junit.add_test_suite(file_suite(&name, &report.findings[start..end], report));
            start = end;
        }

        let clean_units = report.units.iter().filter(|unit| {
            !unit
                .files
                .iter()
                .any(|file| files_with_findings.contains(file))
        });
        let mut clean_suites: Vec<(TestSuite, Vec<String>)> = Vec::new();
        for unit in clean_units {
            let index = match clean_suites
                .iter()
                .position(|(s, _)| s.name.as_str() == unit.system)
            {
                Some(index) => index,
                None => {
                    clean_suites.push((TestSuite::new(unit.system), Vec::new()));
                    clean_suites.len() - 1
                }
            };
            clean_suites[index].1.push(xml_text(&unit.name));
        }
        for (mut suite, names) in clean_suites {
            let system = suite.name.as_str().to_string();
            let names = unique_names(names.into_iter().map(|n| (n, None)).collect());
            suite.add_test_cases(names.into_iter().map(|name| {
                let mut case = TestCase::new(name, TestCaseStatus::success());
                case.set_classname(system.as_str());
                case
            }));
            junit.add_test_suite(suite);
        }

        if !report.errors.is_empty() {
            let mut suite = TestSuite::new("confvet");
            let names = unique_names(
                report
                    .errors
                    .iter()
                    .map(|e| {
                        (
                            format!("run error: {}", e.file.as_deref().unwrap_or("confvet")),
                            None,
                        )
                    })
                    .map(|(name, line)| (xml_text(&name), line))
                    .collect(),
            );
            for (error, name) in report.errors.iter().zip(names) {
                let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
                status
                    .set_message(xml_text(&error.message))
                    .set_type("run error");
                let mut case = TestCase::new(name, status);
                case.set_classname("confvet");
                suite.add_test_case(case);
            }
            junit.add_test_suite(suite);
        }

        // Serialize first, write after: a closed pipe must stay an I/O error
        // of its own kind (main exits 0 on a broken pipe).
        let xml = junit.to_string().map_err(io::Error::other)?;
        out.write_all(without_root_skipped(&xml).as_bytes())?;
        writeln!(out)
    }
}

/// The testsuite of one file's findings.
fn file_suite(name: &str, findings: &[Finding], report: &Report<'_>) -> TestSuite {
    let mut suite = TestSuite::new(name);
    suite.extra.insert("file".into(), name.into());
    let names = unique_names(
        findings
            .iter()
            .map(|finding| {
                let base = match &finding.path {
                    Some(path) => format!("{}: {path}", finding.rule),
                    None => finding.rule.to_string(),
                };
                let line = locate(report.sources, finding.span).1.start.line;
                (xml_text(&base), Some(line))
            })
            .collect(),
    );
    for (finding, name) in findings.iter().zip(names) {
        suite.add_test_case(finding_case(finding, name, report));
    }
    suite
}

/// The testcase of one finding.
fn finding_case(finding: &Finding, name: String, report: &Report<'_>) -> TestCase {
    let sources: &Sources = report.sources;
    let (file, region) = locate(sources, finding.span);

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
    let text = xml_text(&text);

    let mut case = if report.fails(finding) {
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
        status
            .set_message(xml_text(&finding.message))
            .set_type(finding.severity.as_str())
            .set_description(text);
        TestCase::new(name, status)
    } else {
        let mut case = TestCase::new(name, TestCaseStatus::success());
        case.set_system_out(format!("{}: {text}", finding.severity.as_str()));
        case
    };
    case.set_classname(xml_text(&file.name));
    case
}

/// Names made unique: a name several share gets ` (line N)` where a line is
/// known, then ` #2`, ` #3`... for any still shared, in order.
fn unique_names(names: Vec<(String, Option<usize>)>) -> Vec<String> {
    let mut count: HashMap<&str, usize> = HashMap::new();
    for (name, _) in &names {
        *count.entry(name).or_default() += 1;
    }
    let named: Vec<String> = names
        .iter()
        .map(|(name, line)| match line {
            Some(line) if count[name.as_str()] > 1 => format!("{name} (line {line})"),
            _ => name.clone(),
        })
        .collect();
    let mut seen: HashMap<String, usize> = HashMap::new();
    named
        .into_iter()
        .map(|name| {
            let n = seen.entry(name.clone()).or_default();
            *n += 1;
            if *n == 1 {
                name
            } else {
                format!("{name} #{n}")
            }
        })
        .collect()
}

/// Text XML 1.0 can hold: characters it forbids (control characters but
/// tab and line breaks, U+FFFE, U+FFFF) and the controls it discourages
/// (DEL and C1) become `\u{..}` escapes.
fn xml_text(text: &str) -> String {
    let allowed = |c: char| {
        matches!(c, '\t' | '\n' | '\r')
            || ('\u{20}'..='\u{7E}').contains(&c)
            || ('\u{A0}'..='\u{D7FF}').contains(&c)
            || ('\u{E000}'..='\u{FFFD}').contains(&c)
            || c >= '\u{10000}'
    };
    if text.chars().all(allowed) {
        return text.to_string();
    }
    text.chars()
        .map(|c| {
            if allowed(c) {
                c.to_string()
            } else {
                format!("\\u{{{:x}}}", u32::from(c))
            }
        })
        .collect()
}

/// quick-junit writes `skipped` on the root `testsuites`, which the JUnit
/// schema does not allow there (confvet never skips a test).
fn without_root_skipped(xml: &str) -> String {
    let Some(start) = xml.find("<testsuites ") else {
        return xml.to_string();
    };
    let end = xml[start..].find('>').map_or(xml.len(), |n| start + n);
    let tag = xml[start..end].replacen(" skipped=\"0\"", "", 1);
    format!("{}{tag}{}", &xml[..start], &xml[end..])
}

#[cfg(test)]
mod tests {
    use super::super::RunError;
    use super::super::fixtures::{self, Fixture};
    use super::*;
    use crate::finding::Severity;
    use std::process::Command;

    fn emit(fixture: &Fixture) -> String {
        fixture.emit(&JunitEmitter)
    }

    /// What `xmllint --schema ../shared/schemas/junit-10.xsd` says of `xml`:
    /// `Ok` when valid, `None` (after saying so) when the schema is not there.
    /// xmllint (Debian's libxml2-utils, which .ci/run installs) must be.
    fn xsd_check(xml: &str) -> Option<Result<(), String>> {
        let schema = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/schemas/junit-10.xsd"
        );
        if !std::path::Path::new(schema).is_file() {
            println!("skipped: ../shared/schemas/junit-10.xsd not found; JUnit XML not validated");
            return None;
        }
        static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let file =
            std::env::temp_dir().join(format!("confvet-junit-{}-{n}.xml", std::process::id()));
        std::fs::write(&file, xml).unwrap();
        let output = Command::new("xmllint")
            .args(["--noout", "--schema", schema])
            .arg(&file)
            .output();
        let _ = std::fs::remove_file(&file);
        let output = output.unwrap_or_else(|err| {
            panic!("xmllint is needed to validate JUnit XML (apt-get install libxml2-utils): {err}")
        });
        Some(if output.status.success() {
            Ok(())
        } else {
            Err(String::from_utf8_lossy(&output.stderr).into_owned())
        })
    }

    fn assert_valid_junit(xml: &str) {
        if let Some(Err(errors)) = xsd_check(xml) {
            panic!("invalid JUnit XML:\n{errors}\n{xml}");
        }
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
    fn every_report_is_valid_against_the_junit_schema() {
        let mut with_errors = fixtures::clean();
        with_errors.errors = vec![
            RunError::about("missing", "missing: No such file or directory"),
            RunError::new("data-value flags apply to one ytt package"),
        ];
        let mut control = fixtures::single("a.yml", "a: \"\u{7}\u{1b}x\"\n", 3, 7);
        control.findings[0].message = "bad \u{7}\u{1b}[31m value \u{fffe}".into();
        let mut warnings_fail = fixtures::with_findings();
        warnings_fail.fail_on = Some(Severity::Warning);
        for fixture in [
            fixtures::with_findings(),
            fixtures::clean(),
            with_errors,
            control,
            warnings_fail,
            fixtures::many(3, 3),
        ] {
            assert_valid_junit(&emit(&fixture));
        }
    }

    #[test]
    fn the_schema_check_is_not_vacuous() {
        let xml =
            emit(&fixtures::with_findings()).replacen("<testcase ", "<testcase line=\"4\" ", 1);
        if let Some(result) = xsd_check(&xml) {
            assert!(result.is_err(), "{xml}");
        }
    }

    #[test]
    fn test_cases_carry_only_attributes_the_schema_allows() {
        let xml = emit(&fixtures::with_findings());
        for line in xml
            .lines()
            .filter(|l| l.trim_start().starts_with("<testcase "))
        {
            assert!(
                !line.contains(" file=") && !line.contains(" line="),
                "{line}"
            );
        }
        assert!(xml.contains(r#"<testsuite name="values.yml" "#), "{xml}");
        assert!(xml.contains(r#"file="values.yml""#), "{xml}");
        assert!(xml.contains("values.yml:4:10: port.https must be"), "{xml}");
    }

    #[test]
    fn test_case_names_are_unique_in_their_suite() {
        // Four findings of one rule and path, two on one line.
        let mut fixture = fixtures::many(4, 0);
        for finding in &mut fixture.findings {
            finding.message = "replicas is given twice".into();
            finding.path = Some("replicas".into());
        }
        let same_line = fixture.findings[2].span;
        fixture.findings[3].span = same_line;
        let xml = emit(&fixture);
        assert_valid_junit(&xml);
        let names: Vec<&str> = xml
            .lines()
            .filter_map(|l| l.trim_start().strip_prefix("<testcase name=\""))
            .map(|l| &l[..l.find('"').unwrap()])
            .collect();
        assert_eq!(
            names,
            [
                "ytt/unknown-key: replicas (line 1)",
                "ytt/unknown-key: replicas (line 2)",
                "ytt/unknown-key: replicas (line 3)",
                "ytt/unknown-key: replicas (line 3) #2",
            ]
        );
        // A name no other test case has stays as it is.
        assert!(
            emit(&fixtures::with_findings())
                .contains(r#"<testcase name="ytt/validation: port.https" "#)
        );
    }

    #[test]
    fn failures_agree_with_fail_on() {
        let root = |fixture: &Fixture| {
            let xml = emit(fixture);
            xml.lines().nth(1).unwrap().to_string()
        };
        let mut fixture = fixtures::with_findings();
        assert_eq!(
            root(&fixture),
            r#"<testsuites name="confvet" tests="9" failures="6" errors="0">"#
        );
        fixture.fail_on = Some(Severity::Warning);
        assert_eq!(
            root(&fixture),
            r#"<testsuites name="confvet" tests="9" failures="7" errors="0">"#
        );
        let xml = emit(&fixture);
        assert!(
            xml.contains(r#"type="warning">values.yml:7:9: équipe must be"#),
            "{xml}"
        );
        fixture.fail_on = None;
        assert_eq!(
            root(&fixture),
            r#"<testsuites name="confvet" tests="9" failures="0" errors="0">"#
        );
    }

    #[test]
    fn run_errors_are_error_test_cases() {
        let mut fixture = fixtures::clean();
        fixture.errors = vec![RunError::about(
            "missing",
            "missing: No such file or directory",
        )];
        let xml = emit(&fixture);
        assert!(xml.contains(r#"errors="1""#), "{xml}");
        assert!(
            xml.contains(
                r#"<error message="missing: No such file or directory" type="run error"/>"#
            ),
            "{xml}"
        );
    }

    #[test]
    fn text_from_files_gives_well_formed_xml() {
        use super::super::fixtures::HOSTILE_ESCAPED;
        let xml = emit(&fixtures::hostile());
        assert_valid_junit(&xml);
        // The controls XML 1.0 forbids or discourages are escaped, not
        // lost; the rest (U+200F, U+202E here) is kept, as in JSON and SARIF.
        assert!(
            !xml.contains(['\u{1b}', '\u{7}', '\u{7f}', '\u{9b}']),
            "{xml}"
        );
        let kept = HOSTILE_ESCAPED
            .replace("\\u{200f}", "\u{200f}")
            .replace("\\u{202e}", "\u{202e}");
        assert!(
            xml.contains(&format!(r#"<testcase name="ytt/unknown-key: {kept}""#)),
            "{xml}"
        );
        // xmllint parses it (well-formed), even without the schema.
        let file =
            std::env::temp_dir().join(format!("confvet-junit-hostile-{}.xml", std::process::id()));
        std::fs::write(&file, &xml).unwrap();
        let parsed = Command::new("xmllint").arg("--noout").arg(&file).output();
        let _ = std::fs::remove_file(&file);
        let parsed = parsed.unwrap_or_else(|err| panic!("xmllint: {err}"));
        assert!(
            parsed.status.success(),
            "{}\n{xml}",
            String::from_utf8_lossy(&parsed.stderr)
        );
    }

    #[test]
    fn characters_xml_cannot_hold_are_escaped() {
        assert_eq!(xml_text("a\u{7}b\tc\u{fffe}"), "a\\u{7}b\tc\\u{fffe}");
        assert_eq!(
            xml_text("\u{7f}\u{9b}\u{a0}\u{202e}"),
            "\\u{7f}\\u{9b}\u{a0}\u{202e}"
        );
        assert_eq!(xml_text("naïve 名"), "naïve 名");
    }
}
