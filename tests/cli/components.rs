//! A lint checks KubeVirt and Tekton files in small groups (a Pipeline with
//! the Tasks it may run, a template with the VMs that name it) so that its
//! memory does not grow with the repository; the groups must report exactly
//! what checking every file of the system at once reports. A debug build
//! keeps each system whole when CONFVET_TEST_WHOLE_UNITS is set.

use crate::common;

use common::{TempDir, copy_case, findings, run_env};
use std::path::Path;

/// Findings as sorted JSON lines, and the unit count.
fn lint(dir: &Path, whole: bool) -> (Vec<String>, u64) {
    let env: &[(&str, &str)] = if whole {
        &[("CONFVET_TEST_WHOLE_UNITS", "1")]
    } else {
        &[]
    };
    let run = run_env(dir, &["lint", ".", "--format", "json"], env);
    assert!(run.code < 2, "{}", run.stderr);
    let json = run.json();
    let mut lines: Vec<String> = findings(&json).iter().map(|f| f.to_string()).collect();
    lines.sort();
    (lines, json["summary"]["units"].as_u64().unwrap())
}

/// A repository where names collide: the Tekton and KubeVirt corpora and
/// conformance cases, three times each at different depths, so that which
/// Task or template is nearest matters.
fn colliding_tree(shared: &Path) -> TempDir {
    let dir = TempDir::new("components");
    let sources = [
        ("corpus/tekton", "tekton"),
        ("corpus/kubevirt", "kubevirt"),
        ("conformance/tekton", "cases/tekton"),
        ("conformance/kubevirt", "cases/kubevirt"),
    ];
    for (from, to) in sources {
        for (copy, prefix) in ["a", "b/deeper", "c"].iter().enumerate() {
            let target = dir.path().join(prefix).join(to);
            copy_case(&shared.join(from), &target).expect("copy");
            if copy == 2 {
                break;
            }
        }
    }
    // A checkout nested in the tree: references never cross into it or
    // out of it, and grouping must agree.
    std::fs::create_dir_all(dir.path().join("b/deeper/.git")).expect("a .git directory");
    let triggers = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tekton-triggers");
    copy_case(&triggers, &dir.path().join("a/triggers")).expect("copy");
    copy_case(&triggers, &dir.path().join("c/triggers")).expect("copy");
    dir
}

#[test]
fn groups_report_exactly_what_whole_systems_report() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared");
    if !shared.join("corpus/tekton").is_dir() {
        common::skipped_without_shared("../shared is not there (no corpus to compare on)");
        return;
    }
    if !cfg!(debug_assertions) {
        // The switch that keeps systems whole is in debug builds only.
        eprintln!("skipped: a release build cannot keep systems whole");
        return;
    }
    let dir = colliding_tree(&shared);
    let (grouped, grouped_units) = lint(dir.path(), false);
    let (whole, whole_units) = lint(dir.path(), true);
    assert!(!whole.is_empty(), "the tree holds known defects");
    assert_eq!(grouped.len(), whole.len());
    for (a, b) in grouped.iter().zip(&whole) {
        assert_eq!(a, b);
    }
    // Two systems (plus one unit per ytt package, none here) when whole;
    // many small groups when split.
    assert_eq!(whole_units, 2);
    assert!(grouped_units > 100, "{grouped_units} groups");
}

#[test]
fn a_pipeline_is_grouped_with_its_tasks_and_a_vm_with_its_template() {
    let dir = TempDir::new("components-small");
    dir.write(
        "ci/task.yml",
        "apiVersion: tekton.dev/v1\nkind: Task\nmetadata:\n  name: build\nspec:\n  params:\n    - name: image\n  steps:\n    - name: s\n      image: alpine\n      script: echo $(params.image)\n",
    );
    dir.write(
        "ci/pipeline.yml",
        "apiVersion: tekton.dev/v1\nkind: Pipeline\nmetadata:\n  name: p\nspec:\n  tasks:\n    - name: b\n      taskRef:\n        name: build\n",
    );
    dir.write(
        "ci/other.yml",
        "apiVersion: tekton.dev/v1\nkind: Task\nmetadata:\n  name: other\nspec:\n  steps:\n    - name: s\n      image: alpine\n",
    );
    let (grouped, units) = lint(dir.path(), false);
    let (whole, _) = lint(dir.path(), true);
    assert_eq!(grouped, whole);
    // The Pipeline does not pass the Task's required param: found only when
    // the Task and its caller are checked together.
    assert!(grouped.iter().any(|f| f.contains("image")), "{grouped:?}");
    assert_eq!(units, 2, "pipeline+task, other");
}

#[test]
fn a_git_resolver_path_from_a_pipeline_param_groups_its_task_and_a_pac_repository_its_templates() {
    let dir = TempDir::new("components-resolver");
    dir.write(
        "tasks/build/build.yaml",
        "apiVersion: tekton.dev/v1\nkind: Task\nmetadata:\n  name: build\nspec:\n  params:\n    - name: image\n  steps:\n    - name: s\n      image: alpine\n      script: echo $(params.image)\n",
    );
    dir.write(
        "pipelines/release.yaml",
        "apiVersion: tekton.dev/v1\nkind: Pipeline\nmetadata:\n  name: release\nspec:\n  params:\n    - name: buildPath\n      default: tasks/build/build.yaml\n  tasks:\n    - name: b\n      taskRef:\n        resolver: git\n        params:\n          - name: pathInRepo\n            value: $(params.buildPath)\n",
    );
    dir.write(
        ".tekton/push.yaml",
        "apiVersion: tekton.dev/v1\nkind: PipelineRun\nmetadata:\n  name: push\nspec:\n  params:\n    - name: image\n      value: {{ image_repo }}\n  pipelineRef:\n    name: elsewhere\n",
    );
    dir.write(
        "deploy/repository.yaml",
        "apiVersion: pipelinesascode.tekton.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: app\nspec:\n  params:\n    - name: image_repo\n      value: quay.io/example/app\n",
    );
    let (grouped, _) = lint(dir.path(), false);
    let (whole, _) = lint(dir.path(), true);
    assert_eq!(grouped, whole);
    // The Pipeline does not pass the Task's required param; the placeholder
    // is a param of the Repository, so not reported.
    assert_eq!(grouped.len(), 1, "{grouped:?}");
    assert!(grouped[0].contains("image"), "{grouped:?}");
}
