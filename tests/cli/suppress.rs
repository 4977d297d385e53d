//! Suppression comments, end to end: `#! confvet: ignore[...]` in ytt files,
//! `# confvet: ignore[...]` in plain YAML, `disable-file`, and what reports
//! and exit codes make of them.

use crate::common;

use common::{TempDir, findings, run_in};
use serde_json::Value;

const SCHEMA: &str = "#@data/values-schema
---
#@schema/validation min=1, max=20
replicas: 2
#@schema/validation min=1, max=20
workers: 2
";

/// A ytt package whose values break both rules of the schema.
fn package(values: &str) -> TempDir {
    let dir = TempDir::new("suppress");
    dir.write("pkg/schema.yml", SCHEMA);
    dir.write("pkg/values.yml", values);
    dir
}

fn rules_at(json: &Value) -> Vec<(String, u64)> {
    findings(json)
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn lint_json(dir: &TempDir, path: &str) -> (i32, Value) {
    let run = run_in(dir.path(), &["lint", path, "--format", "json"]);
    (run.code, run.json())
}

#[test]
fn ytt_comments_on_the_line_and_the_line_above() {
    let dir = package(
        "#@data/values
---
replicas: 50 #! confvet: ignore[ytt/validation] the load test needs 50
#! confvet: ignore[ytt/validation] batch workers, see ticket 12
workers: 30
",
    );
    let run = run_in(dir.path(), &["lint", "pkg", "--color", "never"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(
        run.stdout.trim_end(),
        "no problems in 2 files (2 suppressed)"
    );
    let (_, json) = lint_json(&dir, "pkg");
    assert!(findings(&json).is_empty(), "{json:#}");
    assert_eq!(json["summary"]["suppressed"], 2);
    assert_eq!(json["summary"]["errors"], 0);
}

#[test]
fn a_comment_hides_only_its_rule_on_its_line() {
    let dir = package(
        "#@data/values
---
#! confvet: ignore[ytt/unknown-key] not this rule
replicas: 50
workers: 30 #! confvet: ignore[ytt/validation] only this line
",
    );
    let (code, json) = lint_json(&dir, "pkg");
    assert_eq!(code, 1);
    assert_eq!(rules_at(&json), vec![("ytt/validation".to_string(), 4)]);
    assert_eq!(json["summary"]["suppressed"], 1);
}

#[test]
fn a_plain_comment_in_a_ytt_file_is_what_ytt_rejects() {
    // ytt's own rule: data-values files take `#!` comments only.
    let values = "#@data/values\n---\nreplicas: 50 # confvet: ignore[ytt/validation] load test\n";
    let dir = package(values);
    let (code, json) = lint_json(&dir, "pkg");
    assert_eq!(code, 1);
    assert_eq!(
        rules_at(&json),
        vec![("ytt/unknown-comment".to_string(), 3)]
    );
    // With ytt's flag that allows them, the comment works.
    let run = run_in(
        dir.path(),
        &[
            "lint",
            "pkg",
            "--ignore-unknown-comments",
            "--format",
            "json",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.json()["summary"]["suppressed"], 1);
}

const TASK: &str = "apiVersion: tekton.dev/v1
kind: Task
metadata:
  name: build
spec:
  params:
    - name: url
  steps:
    - name: clone
      image: alpine
      # confvet: ignore[tekton/param-reference] set by the trigger template
      args: [\"$(params.revision)\"]
      env:
        - name: URL
          value: $(params.mirror) # confvet: ignore[tekton/*] the mirror is injected
      script: |
        # confvet: ignore[tekton/param-reference] exported by the wrapper
        echo $(params.token)
        echo $(params.branch)
";

#[test]
fn plain_yaml_comments_in_a_tekton_task_and_its_script() {
    let dir = TempDir::new("suppress-tekton");
    dir.write("task.yml", TASK);
    let (code, json) = lint_json(&dir, "task.yml");
    assert_eq!(code, 1, "{json:#}");
    // Only the reference nobody suppressed is left, and nothing about comments.
    assert_eq!(
        rules_at(&json),
        vec![("tekton/param-reference".to_string(), 19)]
    );
    assert!(
        findings(&json)[0]["message"]
            .as_str()
            .unwrap()
            .contains("params.branch")
    );
    assert_eq!(json["summary"]["suppressed"], 3);
}

#[test]
fn a_suppression_without_a_reason_suppresses_nothing() {
    let dir = package(
        "#@data/values
---
replicas: 50 #! confvet: ignore[ytt/validation]
workers: 3
",
    );
    let (code, json) = lint_json(&dir, "pkg");
    assert_eq!(code, 1);
    assert_eq!(
        rules_at(&json),
        vec![
            ("ytt/validation".to_string(), 3),
            ("confvet/invalid-suppression".to_string(), 3)
        ]
    );
    let invalid = &findings(&json)[1];
    assert_eq!(invalid["severity"], "warning");
    assert!(
        invalid["message"].as_str().unwrap().contains("reason"),
        "{invalid:#}"
    );
}

#[test]
fn an_unknown_rule_id_is_reported_with_a_hint() {
    let dir = package(
        "#@data/values
---
replicas: 50 #! confvet: ignore[ytt/valdation] load test
",
    );
    let run = run_in(dir.path(), &["lint", "pkg", "--color", "never"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout
            .contains("warning[confvet/invalid-suppression]: unknown rule id \"ytt/valdation\""),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("did you mean \"ytt/validation\"?"),
        "{}",
        run.stdout
    );
}

#[test]
fn an_unused_suppression_is_a_warning() {
    let dir = package(
        "#@data/values
---
replicas: 5 #! confvet: ignore[ytt/validation] was 50 for the load test
",
    );
    let (code, json) = lint_json(&dir, "pkg");
    assert_eq!(code, 0, "a warning keeps exit 0");
    assert_eq!(
        rules_at(&json),
        vec![("confvet/unused-suppression".to_string(), 3)]
    );
    assert_eq!(findings(&json)[0]["severity"], "warning");
    assert_eq!(findings(&json)[0]["column"], 32, "points at the rule id");
    let run = run_in(dir.path(), &["lint", "pkg", "--fail-on", "warning"]);
    assert_eq!(run.code, 1);
}

#[test]
fn disable_file_hides_a_rule_or_every_rule_in_one_file() {
    let dir = package(
        "#@data/values
---
#! confvet: disable-file[ytt/validation] staging sizes, reviewed by ops
replicas: 50
workers: 30
",
    );
    let (code, json) = lint_json(&dir, "pkg");
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(json["summary"]["suppressed"], 2);

    let dir = TempDir::new("suppress-file");
    dir.write(
        "task.yml",
        format!("# confvet: disable-file generated by our pipeline tool\n{TASK}"),
    );
    let (code, json) = lint_json(&dir, "task.yml");
    assert_eq!(code, 0, "{json:#}");
    assert!(findings(&json).is_empty());
    assert_eq!(json["summary"]["suppressed"], 4);
}

#[test]
fn sarif_leaves_suppressed_findings_out_and_the_summary_counts_them() {
    let dir = package(
        "#@data/values
---
replicas: 50 #! confvet: ignore[ytt/validation] load test
workers: 30
",
    );
    let args = "lint pkg --format sarif --output out.sarif --format text --color never";
    let run = run_in(dir.path(), &args.split(' ').collect::<Vec<_>>());
    assert_eq!(run.code, 1, "{}", run.stderr);
    let sarif: Value = serde_json::from_str(&dir.read("out.sarif")).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{results:#?}");
    assert_eq!(
        results[0]["locations"][0]["physicalLocation"]["region"]["startLine"],
        4
    );
    assert!(
        run.stdout
            .trim_end()
            .ends_with("1 error, 0 warnings in 2 files (1 suppressed)"),
        "{}",
        run.stdout
    );
}
