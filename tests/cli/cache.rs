//! Linting files one by one (pre-commit) remembers every other file's role
//! and names in `.confvet-cache/`, keyed by size and modification time: a
//! warm run reads only what changed, and reports what a cold run reports.

use crate::common;

use common::{TempDir, findings, run_in};

const TASK: &str = "apiVersion: tekton.dev/v1\nkind: Task\nmetadata:\n  name: build\nspec:\n  params:\n    - name: image\n  steps:\n    - name: s\n      image: alpine\n      script: echo $(params.image)\n";
const PIPELINE: &str = "apiVersion: tekton.dev/v1\nkind: Pipeline\nmetadata:\n  name: p\nspec:\n  tasks:\n    - name: b\n      taskRef:\n        name: build\n";

fn repo() -> TempDir {
    let dir = TempDir::new("cache");
    dir.write("ci/task.yml", TASK);
    dir.write("ci/pipeline.yml", PIPELINE);
    for i in 0..20 {
        dir.write(
            &format!("other/t{i}.yml"),
            TASK.replace("build", &format!("t{i}")),
        );
    }
    dir
}

/// The rules and lines of a lint of `args`.
fn lint(dir: &TempDir, args: &[&str]) -> Vec<String> {
    let mut all = vec!["lint", "--format", "json"];
    all.extend_from_slice(args);
    let run = run_in(dir.path(), &all);
    assert!(run.code < 2, "{}", run.stderr);
    findings(&run.json())
        .iter()
        .map(|f| format!("{} {}:{} {}", f["rule"], f["file"], f["line"], f["message"]))
        .collect()
}

#[test]
fn a_warm_run_reports_what_a_cold_run_reports_and_sees_edits() {
    let dir = repo();
    let cold = lint(&dir, &["ci/pipeline.yml"]);
    // The Pipeline does not give the Task's required param.
    assert!(cold.iter().any(|f| f.contains("image")), "{cold:?}");
    assert!(dir.path().join(".confvet-cache/index.json").is_file());
    assert!(dir.read(".confvet-cache/.gitignore").contains('*'));
    let warm = lint(&dir, &["ci/pipeline.yml"]);
    assert_eq!(cold, warm);
    // The Task renamed: the Pipeline's reference no longer resolves.
    dir.write("ci/task.yml", TASK.replace("name: build", "name: gone"));
    assert_eq!(lint(&dir, &["ci/pipeline.yml"]), Vec::<String>::new());
    // Another file, remembered as declaring nothing the Pipeline names, now
    // declares its Task: the cache must not answer for the edited file.
    dir.write("other/t3.yml", TASK);
    assert_eq!(lint(&dir, &["ci/pipeline.yml"]), cold);
    // A cache that cannot be read is ignored, not trusted.
    dir.write(".confvet-cache/index.json", "{not json");
    assert_eq!(lint(&dir, &["ci/pipeline.yml"]), cold);
}

#[test]
fn whole_trees_and_no_cache_write_nothing() {
    let dir = repo();
    lint(&dir, &["."]);
    lint(&dir, &["ci/pipeline.yml", "--no-cache"]);
    assert!(!dir.path().join(".confvet-cache").exists());
}

#[test]
fn the_cache_directory_is_never_linted() {
    let dir = repo();
    dir.write(
        ".confvet-cache/bad.yml",
        "apiVersion: tekton.dev/v1\nkind: Task\nmetadata: [\n",
    );
    let all = lint(&dir, &["."]);
    assert!(!all.iter().any(|f| f.contains(".confvet-cache")), "{all:?}");
}
