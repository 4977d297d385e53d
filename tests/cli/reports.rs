//! End-to-end tests of the report formats as the binary writes them: what a
//! CI system reading them would notice.

use crate::common;

use common::{TempDir, findings, run_in};
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

const TEMPLATE: &str = include_str!("../../examples/kubevirt/fedora-small.yaml");
const VM: &str = include_str!("../../examples/kubevirt/web-01.yaml");

/// A KubeVirt file as the common-templates bundles are: one problem
/// repeated in several documents, which only their positions tell apart.
fn repeated_problem() -> TempDir {
    let dir = TempDir::new("repeated");
    dir.write("fedora-small.yaml", TEMPLATE);
    let vms: Vec<String> = (1..=3)
        .map(|n| VM.replace("name: web-01", &format!("name: web-0{n}")))
        .collect();
    dir.write("vms.yaml", vms.join("---\n"));
    dir
}

/// Each fingerprint that more than one finding of `report` has, with the
/// findings' positions.
fn shared_fingerprints(report: &Value) -> Vec<String> {
    let mut by_fingerprint: HashMap<&str, Vec<String>> = HashMap::new();
    for finding in findings(report) {
        by_fingerprint
            .entry(finding["fingerprint"].as_str().unwrap())
            .or_default()
            .push(format!("{}:{}", finding["file"], finding["line"]));
    }
    by_fingerprint
        .into_iter()
        .filter(|(_, at)| at.len() > 1)
        .map(|(fingerprint, at)| format!("{fingerprint} at {}", at.join(", ")))
        .collect()
}

#[test]
fn fingerprints_are_unique_in_a_file_that_repeats_a_problem() {
    let dir = repeated_problem();
    let run = run_in(dir.path(), &["lint", ".", "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let report = run.json();
    assert_eq!(findings(&report).len(), 6, "{report:#}");
    assert_eq!(shared_fingerprints(&report), Vec::<String>::new());

    // Moving every document down keeps each finding's fingerprint.
    let before: Vec<Value> = findings(&report)
        .iter()
        .map(|f| f["fingerprint"].clone())
        .collect();
    let vms = dir.read("vms.yaml");
    dir.write("vms.yaml", format!("# moved\n\n{vms}"));
    let moved = run_in(dir.path(), &["lint", ".", "--format", "json"]).json();
    let after: Vec<Value> = findings(&moved)
        .iter()
        .map(|f| f["fingerprint"].clone())
        .collect();
    assert_eq!(before, after);
}

#[test]
fn fingerprints_are_unique_in_the_examples_and_the_corpus() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let run = run_in(root, &["lint", "examples", "--format", "json"]);
    assert_eq!(shared_fingerprints(&run.json()), Vec::<String>::new());

    let corpus = root.join("../shared/corpus/kubevirt");
    if !corpus.is_dir() {
        common::skipped_without_shared(
            "../shared/corpus/kubevirt not found; corpus fingerprints not checked",
        );
        return;
    }
    let run = run_in(&corpus, &["lint", ".", "--format", "json"]);
    let report = run.json();
    assert!(findings(&report).len() > 20, "{report:#}");
    assert_eq!(shared_fingerprints(&report), Vec::<String>::new());
}

#[test]
fn sarif_says_the_run_failed_where_and_under_which_category() {
    let dir = repeated_problem();
    let run = run_in(
        dir.path(),
        &[
            "lint",
            ".",
            "missing.yaml",
            "--format",
            "sarif",
            "--category",
            "kubevirt",
        ],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("confvet: missing.yaml: "),
        "{}",
        run.stderr
    );
    let sarif: Value = serde_json::from_str(&run.stdout).unwrap();
    let run_log = &sarif["runs"][0];
    assert_eq!(run_log["automationDetails"]["id"], "kubevirt/");
    let invocation = &run_log["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false);
    let notification = &invocation["toolExecutionNotifications"][0];
    assert!(
        notification["message"]["text"]
            .as_str()
            .unwrap()
            .starts_with("missing.yaml: "),
        "{notification:#}"
    );
    assert_eq!(
        notification["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "missing.yaml"
    );
    // The findings are still there, each with its own fingerprint.
    let results = run_log["results"].as_array().unwrap();
    assert_eq!(results.len(), 6);
    let mut fingerprints: Vec<&Value> = results
        .iter()
        .map(|r| &r["partialFingerprints"]["confvet/v1"])
        .collect();
    fingerprints.sort_by_key(|f| f.to_string());
    fingerprints.dedup();
    assert_eq!(fingerprints.len(), 6);
}

#[test]
fn junit_fails_warnings_when_the_exit_code_does() {
    // A template whose broken rule is `justWarning`: one warning, no error.
    let dir = TempDir::new("junit-warnings");
    dir.write(
        "template.yaml",
        TEMPLATE.replace("\"max\": 4", "\"max\": 4,\n          \"justWarning\": true"),
    );
    dir.write("vm.yaml", VM.replace("memory: 512Mi", "memory: 2Gi"));
    let count = |run: &common::Run, what: &str| run.stdout.matches(what).count();

    let default = run_in(dir.path(), &["lint", ".", "--format", "junit"]);
    assert_eq!(default.code, 0, "{}", default.stdout);
    assert_eq!(count(&default, "<failure "), 0, "{}", default.stdout);
    assert_eq!(
        count(&default, "<system-out>warning: "),
        1,
        "{}",
        default.stdout
    );

    let strict = run_in(
        dir.path(),
        &["lint", ".", "--format", "junit", "--fail-on", "warning"],
    );
    assert_eq!(strict.code, 1, "{}", strict.stdout);
    assert_eq!(
        count(&strict, r#"<failure message="#),
        1,
        "{}",
        strict.stdout
    );
    assert!(
        strict.stdout.contains(r#"type="warning""#),
        "{}",
        strict.stdout
    );
}

#[test]
fn text_under_github_actions_cannot_run_commands_from_files() {
    let dir = TempDir::new("commands");
    dir.write("pkg/schema.yml", "#@data/values-schema\n---\nname: \"\"\n");
    dir.write(
        "pkg/values.yml",
        "#@data/values\n---\nname: x\n::add-mask::x: 1\n",
    );
    let run = common::run_env(
        dir.path(),
        &["lint", "pkg", "--format", "concise", "--format", "text"],
        &[("GITHUB_ACTIONS", "true")],
    );
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(run.stdout.contains("::add-mask::x"), "{}", run.stdout);
    // Each format's output is one block that starts and ends the stop.
    let stops: Vec<&str> = run
        .stdout
        .lines()
        .filter_map(|l| l.strip_prefix("::stop-commands::"))
        .collect();
    assert_eq!(stops.len(), 2, "{}", run.stdout);
    for token in stops {
        let block = run
            .stdout
            .split(&format!("::stop-commands::{token}\n"))
            .nth(1)
            .unwrap();
        assert!(block.contains("::add-mask::x"), "{block}");
        assert!(block.contains(&format!("::{token}::")), "{block}");
    }
    // Without the variable the output is as always.
    let plain = run_in(dir.path(), &["lint", "pkg", "--format", "concise"]);
    assert!(
        !plain.stdout.contains("::stop-commands::"),
        "{}",
        plain.stdout
    );
    assert!(
        plain
            .stdout
            .starts_with("pkg/values.yml:4:1: error[ytt/unknown-key]"),
        "{}",
        plain.stdout
    );
}

#[test]
fn statistics_count_findings_per_rule_and_keep_the_exit_code() {
    let dir = repeated_problem();
    // Without the Kubernetes check: its note on kinds it has no schema
    // for is tested on its own.
    let run = run_in(
        dir.path(),
        &["lint", ".", "--statistics", "--no-kubernetes"],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "6  kubevirt/validation  error    A VirtualMachine breaks a template validation rule\n\
         \n\
         6 errors, 0 warnings in 2 files\n"
    );
}
