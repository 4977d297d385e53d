//! `--changed-since REF`: only the units that changed files touch, each
//! reported whole (a changed Task's callers too).

use crate::common;

use common::{TempDir, findings, run_in};
use std::process::Command;

fn git(dir: &TempDir, args: &[&str]) {
    let status = Command::new("git")
        .args(args)
        .current_dir(dir.path())
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}

const SCHEMA: &str = "#@data/values-schema\n---\n#@schema/validation max=5\nreplicas: 1\n";

fn files_with_findings(dir: &TempDir, args: &[&str]) -> Vec<String> {
    let mut all = vec!["lint", "--format", "json"];
    all.extend_from_slice(args);
    let run = run_in(dir.path(), &all);
    assert!(run.code < 2, "{}", run.stderr);
    let mut files: Vec<String> = findings(&run.json())
        .iter()
        .map(|f| f["file"].as_str().unwrap().to_string())
        .collect();
    files.sort();
    files.dedup();
    files
}

/// Two ytt packages with errors, a Task and a Pipeline calling it, committed.
fn repository() -> TempDir {
    let dir = TempDir::new("changed-since");
    for name in ["a", "b"] {
        dir.write(&format!("{name}/schema.yml"), SCHEMA);
        dir.write(
            &format!("{name}/values.yml"),
            "#@data/values\n---\nreplicas: 9\n",
        );
    }
    dir.write(
        "ci/task.yml",
        "apiVersion: tekton.dev/v1\nkind: Task\nmetadata:\n  name: build\nspec:\n  params:\n    - name: tag\n  steps:\n    - name: s\n      image: alpine\n      script: echo $(params.tag)\n",
    );
    dir.write(
        "ci/pipeline.yml",
        "apiVersion: tekton.dev/v1\nkind: Pipeline\nmetadata:\n  name: p\nspec:\n  tasks:\n    - name: build\n      taskRef:\n        name: build\n      params:\n        - name: tag\n          value: v1\n",
    );
    git(&dir, &["init", "-q"]);
    git(&dir, &["add", "-A"]);
    git(&dir, &["commit", "-q", "-m", "start"]);
    dir
}

#[test]
fn only_the_units_of_changed_files_are_linted() {
    let dir = repository();
    assert_eq!(
        files_with_findings(&dir, &[]),
        ["a/values.yml", "b/values.yml"]
    );
    // Nothing changed: nothing to lint, and it says so.
    let run = run_in(dir.path(), &["lint", "--changed-since", "HEAD"]);
    assert_eq!(run.code, 0);
    assert!(
        run.stderr.contains("no file changed since HEAD"),
        "{}",
        run.stderr
    );
    // A changed schema selects its package only.
    dir.write("a/schema.yml", SCHEMA.replace("replicas: 1", "replicas: 2"));
    assert_eq!(
        files_with_findings(&dir, &["--changed-since", "HEAD"]),
        ["a/values.yml"]
    );
    // An untracked file counts as changed.
    dir.write("b/more-values.yml", "#@data/values\n---\nreplicas: 3\n");
    assert_eq!(
        files_with_findings(&dir, &["--changed-since", "HEAD"]),
        ["a/values.yml", "b/values.yml"]
    );
}

#[test]
fn a_changed_task_reports_its_callers_too() {
    let dir = repository();
    // The Task now needs a param its Pipeline does not pass: the finding
    // is in the unchanged Pipeline.
    dir.write(
        "ci/task.yml",
        "apiVersion: tekton.dev/v1\nkind: Task\nmetadata:\n  name: build\nspec:\n  params:\n    - name: tag\n    - name: image\n  steps:\n    - name: s\n      image: $(params.image)\n      script: echo $(params.tag)\n",
    );
    assert_eq!(
        files_with_findings(&dir, &["ci/task.yml"]),
        Vec::<String>::new(),
        "named alone, only the Task's own findings count"
    );
    let found = files_with_findings(&dir, &["--changed-since", "HEAD"]);
    assert_eq!(found, ["ci/pipeline.yml"]);
}

#[test]
fn a_bad_reference_is_a_usage_error() {
    let dir = repository();
    let run = run_in(dir.path(), &["lint", "--changed-since", "no-such-ref"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("--changed-since no-such-ref"),
        "{}",
        run.stderr
    );
}
