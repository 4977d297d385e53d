//! The command line as people used to ruff and ripgrep use it: choosing
//! rules, excluding paths, linting standard input from an editor, shell
//! completions, and the errors a newcomer meets first.

use crate::common;

use common::{TempDir, findings, run_in, run_stdin};
use std::process::{Command, Stdio};

const SCHEMA: &str = "#@data/values-schema
---
#@schema/validation min=1, max=20
replicas: 2
";

const BAD_VALUES: &str = "#@data/values
---
replicas: 50
";

/// A Task that reads a param it does not declare.
const BAD_TASK: &str = "apiVersion: tekton.dev/v1
kind: Task
metadata:
  name: build
spec:
  params:
    - name: tag
  steps:
    - name: build
      image: alpine
      script: echo $(params.tga)
";

/// A ytt package with a validation error in `pkg/`, a Tekton Task with an
/// undeclared param in `ci/`.
fn two_systems() -> TempDir {
    let dir = TempDir::new("habits");
    dir.write("pkg/schema.yml", SCHEMA);
    dir.write("pkg/values.yml", BAD_VALUES);
    dir.write("ci/task.yml", BAD_TASK);
    dir
}

fn rules_found(dir: &TempDir, args: &[&str]) -> Vec<String> {
    let mut all = vec!["lint", "--format", "json"];
    all.extend_from_slice(args);
    let run = run_in(dir.path(), &all);
    assert!(run.code < 2, "{}", run.stderr);
    findings(&run.json())
        .iter()
        .map(|f| f["rule"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn select_and_ignore_take_rule_ids_and_systems() {
    let dir = two_systems();
    assert_eq!(
        rules_found(&dir, &[]),
        ["tekton/param-reference", "ytt/validation"]
    );
    assert_eq!(rules_found(&dir, &["--select", "ytt"]), ["ytt/validation"]);
    assert_eq!(
        rules_found(&dir, &["--select", "tekton/*"]),
        ["tekton/param-reference"]
    );
    assert_eq!(
        rules_found(&dir, &["--ignore", "ytt/validation"]),
        ["tekton/param-reference"]
    );
    assert_eq!(
        rules_found(&dir, &["--select", "ytt,tekton", "--ignore", "tekton"]),
        ["ytt/validation"]
    );
    // What is not reported does not fail the run.
    let run = run_in(dir.path(), &["lint", "--ignore", "ytt,tekton"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
}

#[test]
fn an_unknown_rule_is_a_usage_error_with_the_nearest_id() {
    let dir = two_systems();
    let run = run_in(dir.path(), &["lint", "--select", "ytt/validaton"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("did you mean \"ytt/validation\""),
        "{}",
        run.stderr
    );
}

#[test]
fn a_suppression_of_an_ignored_rule_is_not_called_unused() {
    let dir = TempDir::new("habits-unused");
    dir.write("pkg/schema.yml", SCHEMA);
    dir.write(
        "pkg/values.yml",
        "#@data/values\n---\nreplicas: 50 #! confvet: ignore[ytt/validation] load test\n",
    );
    assert_eq!(rules_found(&dir, &[]), Vec::<String>::new());
    // Ignored, the rule cannot fire: its suppression is not stale.
    assert_eq!(
        rules_found(&dir, &["--ignore", "ytt/validation"]),
        Vec::<String>::new()
    );
    dir.write(
        "pkg/values.yml",
        "#@data/values\n---\nreplicas: 5 #! confvet: ignore[ytt/validation] load test\n",
    );
    assert_eq!(
        rules_found(&dir, &[]),
        ["confvet/unused-suppression"],
        "the check itself still works"
    );
    assert_eq!(
        rules_found(&dir, &["--select", "tekton"]),
        Vec::<String>::new()
    );
}

#[test]
fn extend_exclude_adds_patterns_to_the_walk() {
    let dir = two_systems();
    assert_eq!(
        rules_found(&dir, &["--extend-exclude", "ci/"]),
        ["ytt/validation"]
    );
    assert_eq!(
        rules_found(&dir, &["--extend-exclude", "*.yml,!ci/task.yml"]),
        ["tekton/param-reference"]
    );
    let run = run_in(dir.path(), &["lint", "--extend-exclude", "[z-a]"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("--extend-exclude"), "{}", run.stderr);
}

#[test]
fn standard_input_is_linted_as_the_named_file_with_its_package() {
    let dir = TempDir::new("habits-stdin");
    dir.write("pkg/schema.yml", SCHEMA);
    dir.write("pkg/values.yml", "#@data/values\n---\nreplicas: 3\n");
    // The editor's unsaved buffer differs from the file on disk.
    let run = run_stdin(
        dir.path(),
        &[
            "lint",
            "-",
            "--stdin-filename",
            "pkg/values.yml",
            "--format",
            "json",
        ],
        BAD_VALUES,
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    let json = run.json();
    let found = findings(&json);
    assert_eq!(found.len(), 1, "{json:#}");
    assert_eq!(found[0]["rule"], "ytt/validation");
    assert_eq!(found[0]["file"], "pkg/values.yml");
    assert_eq!(found[0]["line"], 3);

    // A new file, not yet saved, joins its package all the same.
    let run = run_stdin(
        dir.path(),
        &["lint", "-", "--stdin-filename", "pkg/zz-values.yml"],
        BAD_VALUES,
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stdout.contains("pkg/zz-values.yml:3"), "{}", run.stdout);

    // Clean input from standard input is clean.
    let run = run_stdin(
        dir.path(),
        &["lint", "-", "--stdin-filename", "pkg/values.yml"],
        "#@data/values\n---\nreplicas: 4\n",
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
}

#[test]
fn standard_input_needs_its_file_name() {
    let dir = two_systems();
    let run = run_stdin(dir.path(), &["lint", "-"], BAD_TASK);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("--stdin-filename"), "{}", run.stderr);
    let run = run_in(dir.path(), &["lint", "--stdin-filename", "ci/task.yml"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("`-`"), "{}", run.stderr);
}

#[test]
fn completions_for_each_shell() {
    let dir = TempDir::new("habits-completions");
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let run = run_in(dir.path(), &["completions", shell]);
        assert_eq!(run.code, 0, "{shell}: {}", run.stderr);
        // Fish spells long flags `-l select`.
        for word in ["confvet", "lint", "select", "stdin-filename"] {
            assert!(run.stdout.contains(word), "{shell} lacks {word}");
        }
    }
    let run = run_in(dir.path(), &["completions", "tcsh"]);
    assert_eq!(run.code, 2);
}

#[test]
fn a_missing_path_is_named_and_nothing_claims_success() {
    let dir = two_systems();
    let run = run_in(dir.path(), &["lint", "no-such-dir"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("no-such-dir"), "{}", run.stderr);
    assert!(!run.stdout.contains("no problems"), "{}", run.stdout);
}

#[test]
fn a_directory_with_nothing_to_lint_says_so() {
    let dir = TempDir::new("habits-empty");
    dir.write("docs/readme.md", "# nothing here\n");
    dir.write("k8s/plain.yml", "apiVersion: v1\nkind: ConfigMap\n");
    let run = run_in(dir.path(), &["lint"]);
    assert_eq!(run.code, 0);
    assert!(run.stderr.contains("nothing to lint"), "{}", run.stderr);
    assert!(!run.stdout.contains("no problems"), "{}", run.stdout);
}

#[test]
fn a_file_named_that_is_not_linted_says_why() {
    let dir = TempDir::new("habits-skipped");
    dir.write("plain.yaml", "a: 1\n");
    dir.write("binary.yaml", "a\0b\n");
    dir.write("chart.yaml", "name: {{ .Values.name }}\n");
    dir.write("configmap.yaml", "apiVersion: v1\nkind: ConfigMap\n");
    std::fs::write(dir.path().join("latin.yaml"), b"caf\xe9: 1\n").unwrap();
    let names = [
        "plain.yaml",
        "binary.yaml",
        "chart.yaml",
        "configmap.yaml",
        "latin.yaml",
    ];
    let run = run_in(dir.path(), &[&["lint"][..], &names[..]].concat());
    assert_eq!(run.code, 0, "{}", run.stderr);
    for (name, why) in [
        ("plain.yaml", "YAML of no system confvet checks"),
        ("binary.yaml", "binary: it holds a NUL byte"),
        ("chart.yaml", "a Helm or Jinja template"),
        (
            "configmap.yaml",
            "a plain Kubernetes manifest: checked with --kubernetes",
        ),
        ("latin.yaml", "not UTF-8 text"),
    ] {
        assert!(
            run.stderr.contains(&format!("  {name}: {why}")),
            "{name}: {}",
            run.stderr
        );
    }
}

#[test]
fn a_data_value_without_equals_says_what_was_expected() {
    let dir = two_systems();
    for flag in ["-v", "--data-value-yaml", "--data-value-file"] {
        let run = run_in(dir.path(), &["lint", "pkg", flag, "int"]);
        assert_eq!(run.code, 2, "{flag}");
        assert!(
            run.stderr.contains("expected KEY="),
            "{flag}: {}",
            run.stderr
        );
        assert!(run.stdout.is_empty(), "{flag}: {}", run.stdout);
    }
    let run = run_in(dir.path(), &["lint", "pkg", "-v", "=3"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("no key"), "{}", run.stderr);
}

/// `confvet rules | head` and friends: a reader that went away is not an
/// error and never a panic.
#[test]
fn a_closed_pipe_ends_quietly() {
    for args in [
        &["rules"][..],
        &["explain", "ytt/validation"],
        &["completions", "bash"],
    ] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let output = Command::new(env!("CARGO_BIN_EXE_confvet"))
            .args(args)
            .stdout(writer)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(stderr.is_empty(), "{args:?}: {stderr}");
    }
}

#[test]
fn ruffs_spellings_of_the_format_and_output_flags_are_taken() {
    let dir = two_systems();
    // `--output-format json` as ruff spells it: JSON on standard output,
    // not a text report written to a file named `json`.
    let run = run_in(dir.path(), &["lint", "--output-format", "json", "."]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(!findings(&run.json()).is_empty());
    assert!(!dir.path().join("json").exists());
    let run = run_in(
        dir.path(),
        &[
            "lint",
            "--output-format",
            "sarif",
            "--output-file",
            "out.sarif",
            ".",
        ],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    let sarif: serde_json::Value = serde_json::from_str(&dir.read("out.sarif")).unwrap();
    assert_eq!(sarif["version"], "2.1.0");
}

#[test]
fn check_as_ruff_names_it_is_lint() {
    let dir = two_systems();
    let lint = run_in(dir.path(), &["lint", "--format", "json", "."]);
    let check = run_in(dir.path(), &["check", "--format", "json", "."]);
    assert_eq!(check.code, lint.code, "{}", check.stderr);
    assert_eq!(findings(&check.json()), findings(&lint.json()));
    // No tip toward another command.
    assert!(!check.stderr.contains("tip"), "{}", check.stderr);
}
