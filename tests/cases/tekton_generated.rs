//! Tekton inputs generated to hostile sizes, linted in-process: a cycle of
//! 20,000 pipeline tasks is found without deep recursion, and thousands of
//! findings of one rule are kept to a few per call site, counted whole.
//! The small graph and workspace cases are folders under tests/cases/tekton.

use crate::tekton_support;
use tekton_support::{Seen, lint_files};

/// The findings of the graph and workspace rules for `files` linted
/// together, sorted by file and position.
fn findings(files: &[(&str, &str)]) -> Vec<Seen> {
    lint_files(files)
        .into_iter()
        .filter(|s| RULES.contains(&s.rule.as_str()))
        .collect()
}

const RULES: [&str; 6] = [
    "tekton/missing-workspace",
    "tekton/workspace-reference",
    "tekton/run-after",
    "tekton/cycle",
    "tekton/volume-mount",
    "tekton/duplicate-env",
];

/// Compact form for assertions: `file:line:column severity rule path`.
fn at(found: &[Seen]) -> Vec<String> {
    found
        .iter()
        .map(|f| {
            format!(
                "{}:{}:{} {} {} {}",
                f.file, f.line, f.column, f.severity, f.rule, f.path
            )
        })
        .collect()
}

/// Each finding's message holds the token listed with it, in order.
fn assert_messages(found: &[Seen], tokens: &[&str]) {
    assert_eq!(found.len(), tokens.len(), "{found:#?}");
    for (f, t) in found.iter().zip(tokens) {
        assert!(f.message.contains(t), "{:?} lacks {t}", f.message);
    }
}

#[test]
fn a_long_cycle_in_a_hostile_file_is_found_without_deep_recursion() {
    let n = 20_000;
    let mut text = String::from(
        "apiVersion: tekton.dev/v1\nkind: Pipeline\nmetadata:\n  name: p\nspec:\n  tasks:\n",
    );
    for i in 0..n {
        let after = (i + 1) % n;
        text.push_str(&format!(
            "    - name: t{i}\n      runAfter: [t{after}]\n      taskRef: {{name: x}}\n"
        ));
    }
    let found = findings(&[("pipeline.yaml", &text)]);
    assert_eq!(
        at(&found),
        ["pipeline.yaml:7:13 error tekton/cycle spec.tasks[0].name"]
    );
    assert_messages(&found, &["(20000 dependencies in all)"]);
    assert_eq!(found[0].related.len(), 100);
}

#[test]
fn a_hostile_file_gets_a_few_hints_and_a_few_missing_workspaces_per_call_site() {
    let n = 3_000;
    let mut task = String::from(
        "apiVersion: tekton.dev/v1\nkind: Task\nmetadata:\n  name: big\nspec:\n  workspaces:\n",
    );
    for i in 0..n {
        task.push_str(&format!("    - name: w{i}\n"));
    }
    task.push_str("  steps:\n    - name: s\n      image: x\n");
    let mut pipeline = String::from(
        "apiVersion: tekton.dev/v1\nkind: Pipeline\nmetadata:\n  name: p\nspec:\n  tasks:\n",
    );
    for i in 0..n {
        pipeline.push_str(&format!(
            "    - name: t{i}\n      runAfter: [t{i}x]\n      taskRef: {{name: big}}\n"
        ));
    }
    let found = findings(&[("task.yaml", &task), ("pipeline.yaml", &pipeline)]);
    // Counted whole, though a unit keeps 1,000 of a rule in a file.
    let count = |rule: &str| {
        found
            .iter()
            .filter(|f| f.rule == rule)
            .map(|f| f.stands_for)
            .sum::<usize>()
    };
    assert_eq!(count("tekton/run-after"), n);
    assert_eq!(count("tekton/missing-workspace"), n * 10);
    let hinted = found.iter().filter(|f| f.help.is_some()).count();
    assert_eq!(hinted, 20);
}
