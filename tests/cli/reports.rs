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

/// A YAML key whose escapes give a terminal title (OSC 0 … BEL), a
/// hyperlink (OSC 8), a C1 CSI, DEL and a right-to-left override.
const HOSTILE_KEY: &str = "\u{1b}]0;pwned\u{7}\u{1b}]8;;https://evil.example/\u{1b}\\click\
                           \u{1b}]8;;\u{1b}\\\u{9b}31m\u{7f}\u{202e}lmy.exe";

/// The characters of the hostile package no terminal may get raw.
const RAW: [char; 6] = [
    '\u{1b}', '\u{7}', '\u{9b}', '\u{7f}', '\u{202e}', '\u{200f}',
];

/// What an attacker's pull request adds: a ytt package with the hostile key
/// (written with YAML escapes), a key holding a raw right-to-left mark, and
/// a data-values file whose name holds ESC, BEL and an override; beside it,
/// a schema whose string holds the raw bytes (a syntax error, so its line is
/// shown in a snippet).
fn hostile_package() -> TempDir {
    let dir = TempDir::new("hostile-text");
    dir.write("pkg/schema.yml", "#@data/values-schema\n---\nname: \"\"\n");
    dir.write(
        "pkg/values.yml",
        "#@data/values\n---\nname: x\n\
         \"\\e]0;pwned\\a\\e]8;;https://evil.example/\\e\\\\click\\e]8;;\\e\\\\\\x9b31m\\x7f\\u202elmy.exe\": 1\n",
    );
    dir.write("pkg/marks.yml", "#@data/values\n---\nrl\u{200f}m: 1\n");
    dir.write(
        "pkg/more\u{1b}]0;t\u{7}\u{202e}.yml",
        "#@data/values\n---\nother: 2\n",
    );
    dir.write(
        "raw/schema.yml",
        "#@data/values-schema\n---\nname: \"\u{1b}]0;raw\u{7} \u{9b} \u{7f}\"\n",
    );
    dir
}

#[test]
fn formats_for_terminals_show_what_files_hide_escaped() {
    let dir = hostile_package();
    let title = r"\u{1b}]0;pwned\u{7}\u{1b}]8;;https://evil.example/\u{1b}\click";
    let rest = r"\u{1b}]8;;\u{1b}\\u{9b}31m\u{7f}\u{202e}lmy.exe is not declared";
    let name = r"pkg/more\u{1b}]0;t\u{7}\u{202e}.yml";
    let mark = r"rl\u{200f}m is not declared";
    // Markdown writes each backslash and bracket escaped.
    let in_markdown = |text: &str| text.replace('\\', r"\\").replace(']', r"\]");
    for format in ["text", "concise", "github", "markdown"] {
        let run = run_in(dir.path(), &["lint", "pkg", "raw", "--format", format]);
        assert_eq!(run.code, 1, "{format}: {}", run.stderr);
        for c in RAW {
            assert!(
                !run.stdout.contains(c),
                "{format}: {c:?} written raw:\n{}",
                run.stdout
            );
        }
        for shown in [title, rest, name, mark] {
            let shown = if format == "markdown" {
                in_markdown(shown)
            } else {
                shown.to_string()
            };
            assert!(
                run.stdout.contains(&shown),
                "{format}: {shown} not in\n{}",
                run.stdout
            );
        }
    }

    // Snippets show a picture for each hidden character, so underlines
    // still fit: `rl�m` is four columns, and so is its `^^^^`.
    let text = run_in(dir.path(), &["lint", "pkg", "raw", "--format", "text"]).stdout;
    for shown in [
        "3 | rl�m: 1\n  | ^^^^ unknown key\n",
        "3 | name: \"␛]0;raw␇ � ␡\"\n",
        "4 | \"\\e]0;pwned\\a",
    ] {
        assert!(text.contains(shown), "{shown} not in\n{text}");
    }

    // JSON carries the characters as they are (in its own escapes).
    let json = run_in(dir.path(), &["lint", "pkg", "raw", "--format", "json"]).json();
    let found = findings(&json);
    let messages: Vec<&str> = found.iter().filter_map(|f| f["message"].as_str()).collect();
    assert!(
        messages.contains(&format!("{HOSTILE_KEY} is not declared in the schema").as_str()),
        "{messages:?}"
    );
    assert!(
        found
            .iter()
            .any(|f| f["file"] == "pkg/more\u{1b}]0;t\u{7}\u{202e}.yml"),
        "{json:#}"
    );
    assert!(found.iter().any(|f| f["path"] == "rl\u{200f}m"), "{json:#}");
}
