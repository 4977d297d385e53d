//! Tekton checks beyond the shared conformance cases: whole task results in
//! the wrong place, result keys at call sites, the pipeline-task fields that
//! are scanned, finally tasks, block scalars, and which `taskRef`s are
//! followed. Each test lints a small set of files and compares what a user
//! sees: rule, kind, line, column, data path.

mod tekton_support;

use tekton_support::{Seen, lint_files};

/// The findings of `files` linted together, sorted by file and position.
fn findings(files: &[(&str, &str)]) -> Vec<Seen> {
    lint_files(files)
}

/// Compact form for assertions: `file:line:column rule path`.
fn at(seen: &[Seen]) -> Vec<String> {
    seen.iter()
        .map(|s| format!("{}:{}:{} {} {}", s.file, s.line, s.column, s.rule, s.path))
        .collect()
}

/// Each finding's message holds the token listed with it, in order.
fn assert_messages(seen: &[Seen], tokens: &[&str]) {
    assert_eq!(seen.len(), tokens.len(), "{seen:#?}");
    for (s, t) in seen.iter().zip(tokens) {
        assert!(s.message.contains(t), "{:?} lacks {t}", s.message);
    }
}

const PRODUCER: &str = "    - name: produce
      taskSpec:
        results:
          - name: files
            type: array
          - name: meta
            type: object
            properties: {url: {}, sha: {}}
          - name: digest
        steps:
          - name: s
            image: busybox
            script: echo
";

/// A Pipeline whose first task `produce` has results `files` (array),
/// `meta` (object: url, sha) and `digest` (string), then `tasks`.
fn after_producer(tasks: &str) -> String {
    format!(
        "\
apiVersion: tekton.dev/v1
kind: Pipeline
metadata:
  name: p
spec:
  tasks:
{PRODUCER}{tasks}"
    )
}

#[test]
fn whole_array_and_object_results_only_stand_where_a_whole_value_may() {
    let pipeline = after_producer(
        "    - name: consume
      taskRef:
        name: elsewhere
      params:
        - name: in-string
          value: \"files: $(tasks.produce.results.files[*])\"
        - name: object-in-string
          value: \"$(tasks.produce.results.meta) x\"
        - name: whole-array
          value: $(tasks.produce.results.files)
        - name: whole-object
          value: $(tasks.produce.results.meta[*])
        - name: not-isolated-item
          value: [\"--f=$(tasks.produce.results.files[*])\"]
        - name: object-item
          value: [\"$(tasks.produce.results.meta[*])\"]
        - name: array-item
          value: [\"$(tasks.produce.results.files[*])\"]
        - name: string-result
          value: \"sha: $(tasks.produce.results.digest)\"
        - name: object-key
          value: \"u=$(tasks.produce.results.meta.url)\"
      when:
        - input: $(tasks.produce.results.files)
          operator: in
          values: [\"$(tasks.produce.results.files[*])\"]
",
    );
    let seen = findings(&[("pipeline.yaml", &pipeline)]);
    assert_eq!(
        at(&seen),
        [
            "pipeline.yaml:25:26 tekton/result-type spec.tasks[1].params[0].value",
            "pipeline.yaml:27:19 tekton/result-type spec.tasks[1].params[1].value",
            "pipeline.yaml:33:24 tekton/result-type spec.tasks[1].params[4].value[0]",
            "pipeline.yaml:35:20 tekton/result-type spec.tasks[1].params[5].value[0]",
            "pipeline.yaml:43:18 tekton/result-type spec.tasks[1].when[0].input",
        ]
    );
    assert!(seen.iter().all(|s| s.kind == "type"));
    assert_messages(
        &seen,
        &[
            "variable type invalid in $(tasks.produce.results.files[*])",
            "variable type invalid in $(tasks.produce.results.meta)",
            "variable is not properly isolated in $(tasks.produce.results.files[*])",
            "variable type invalid in $(tasks.produce.results.meta[*])",
            "variable type invalid in $(tasks.produce.results.files)",
        ],
    );
}

#[test]
fn whole_results_bound_to_params_are_typed_and_their_keys_checked() {
    let pipeline = after_producer(
        "    - name: fan
      matrix:
        params:
          - name: platform
            value: [linux, mac]
      taskSpec:
        params:
          - name: platform
        results:
          - name: out
        steps:
          - name: s
            image: busybox
            script: echo $(params.platform)
    - name: consume
      params:
        - name: image
          value: $(tasks.produce.results.meta[*])
        - name: list
          value: $(tasks.produce.results.meta)
        - name: outs
          value: $(tasks.fan.results.out[*])
        - name: one
          value: $(tasks.fan.results.out)
        - name: fine
          value: $(tasks.produce.results.files[*])
      taskSpec:
        params:
          - name: image
            properties: {url: {}, digest: {}}
          - name: list
            type: array
          - name: outs
            type: array
          - name: one
          - name: fine
            type: array
        steps:
          - name: s
            image: busybox
            script: echo $(params.image.url) $(tasks.fan.results.out)
",
    );
    let seen = findings(&[("pipeline.yaml", &pipeline)]);
    assert_eq!(
        at(&seen),
        [
            "pipeline.yaml:37:11 tekton/missing-keys spec.tasks[2].params[0].value",
            "pipeline.yaml:39:11 tekton/binding-type spec.tasks[2].params[1].value",
            "pipeline.yaml:43:11 tekton/binding-type spec.tasks[2].params[3].value",
            "pipeline.yaml:60:46 tekton/result-type spec.tasks[2].taskSpec.steps[0].script",
        ]
    );
    assert_messages(
        &seen,
        &[
            "map[image:[digest]]",
            "[list] (object given, array declared)",
            "[one] (array given, string declared)",
            "variable type invalid in $(tasks.fan.results.out)",
        ],
    );
}

#[test]
fn matrix_workspace_and_resolver_values_are_scanned_and_matrix_params_count_as_given() {
    let pipeline = "\
apiVersion: tekton.dev/v1
kind: Pipeline
metadata:
  name: p
spec:
  params:
    - name: platforms
      type: array
    - name: dir
  tasks:
    - name: build
      taskRef:
        name: build
      matrix:
        params:
          - name: platform
            value: $(params.platforms[*])
          - name: browser
            value: [\"$(params.browsers[*])\", chrome]
        include:
          - name: extra
            params:
              - name: flavour
                value: \"x-$(params.flavours)\"
      workspaces:
        - name: src
          workspace: ws
          subPath: $(params.dir)/$(params.subdir)
    - name: remote
      taskRef:
        resolver: git
        params:
          - name: url
            value: $(params.repo-url)
          - name: revision
            value: main
  workspaces:
    - name: ws
";
    let task = "\
apiVersion: tekton.dev/v1
kind: Task
metadata:
  name: build
spec:
  params:
    - name: platform
    - name: browser
    - name: flavour
    - name: mode
  steps:
    - name: s
      image: busybox
      script: echo $(params.platform) $(params.browser) $(params.flavour) $(params.mode)
  workspaces:
    - name: src
";
    let seen = findings(&[("pipeline.yaml", pipeline), ("task.yaml", task)]);
    assert_eq!(
        at(&seen),
        [
            "pipeline.yaml:11:7 tekton/missing-param spec.tasks[0].name",
            "pipeline.yaml:19:22 tekton/param-reference spec.tasks[0].matrix.params[1].value[0]",
            "pipeline.yaml:24:27 tekton/param-reference spec.tasks[0].matrix.include[0].params[0].value",
            "pipeline.yaml:28:34 tekton/param-reference spec.tasks[0].workspaces[0].subPath",
            "pipeline.yaml:34:20 tekton/param-reference spec.tasks[1].taskRef.params[0].value",
        ]
    );
    assert_messages(
        &seen,
        &[
            "[mode]",
            "$(params.browsers[*])",
            "$(params.flavours)",
            "$(params.subdir)",
            "$(params.repo-url)",
        ],
    );
}

#[test]
fn finally_tasks_read_results_of_the_tasks_section_and_status_is_no_result() {
    let pipeline = "\
apiVersion: tekton.dev/v1
kind: Pipeline
metadata:
  name: p
spec:
  tasks:
    - name: build
      taskSpec:
        results:
          - name: image
        steps:
          - name: s
            image: busybox
            script: echo -n x > $(results.image.path)
  finally:
    - name: report
      when:
        - input: $(tasks.build.status)
          operator: in
          values: [Succeeded]
        - input: $(tasks.status)
          operator: notin
          values: [Failed]
      params:
        - name: image
          value: $(tasks.build.results.image)
        - name: digest
          value: $(tasks.build.results.digest)
      taskSpec:
        params:
          - name: image
          - name: digest
        results:
          - name: summary
        steps:
          - name: s
            image: busybox
            script: echo $(params.image) > $(results.summary.path)
  results:
    - name: summary
      value: $(finally.report.results.summary)
    - name: wrong-section
      value: $(finally.build.results.image)
    - name: undeclared
      value: $(finally.report.results.nope)
";
    let seen = findings(&[("pipeline.yaml", pipeline)]);
    assert_eq!(
        at(&seen),
        [
            "pipeline.yaml:28:18 tekton/result-reference spec.finally[0].params[1].value",
            "pipeline.yaml:43:14 tekton/result-reference spec.results[1].value",
            "pipeline.yaml:45:14 tekton/result-reference spec.results[2].value",
        ]
    );
    assert!(seen.iter().all(|s| s.kind == "reference"));
    assert_messages(
        &seen,
        &[
            "\"digest\" is not a named result returned by pipeline task \"build\"",
            "task build is not a pipeline task of the finally section",
            "\"nope\" is not a named result returned by pipeline task \"report\"",
        ],
    );
}

#[test]
fn references_in_block_scalars_and_multi_line_strings_are_reported_where_they_stand() {
    let task = "\
apiVersion: tekton.dev/v1
kind: Task
metadata:
  name: t
spec:
  params:
    - name: known
  steps:
    - name: literal
      image: busybox
      script: | # $(params.not-in-a-comment)
        echo $(params.known)
          echo $(params.one) and $(params.two)

        tail $(params.three)
    - name: folded
      image: busybox
      script: >-
        first $(params.four)
        second

          more-indented $(params.five)
        last
    - name: spread
      image: busybox
      args: [
        \"$(params.known)\",
        \"$(params.six)\"
      ]
      env:
        - name: QUOTED
          value: \"a
            b $(params.seven)\"
";
    let seen = findings(&[("task.yaml", task)]);
    assert_eq!(
        at(&seen),
        [
            "task.yaml:13:16 tekton/param-reference spec.steps[0].script",
            "task.yaml:13:34 tekton/param-reference spec.steps[0].script",
            "task.yaml:15:14 tekton/param-reference spec.steps[0].script",
            "task.yaml:19:15 tekton/param-reference spec.steps[1].script",
            "task.yaml:22:25 tekton/param-reference spec.steps[1].script",
            "task.yaml:28:10 tekton/param-reference spec.steps[2].args[1]",
            "task.yaml:33:15 tekton/param-reference spec.steps[2].env[0].value",
        ]
    );
    assert_messages(
        &seen,
        &[
            "$(params.one)",
            "$(params.two)",
            "$(params.three)",
            "$(params.four)",
            "$(params.five)",
            "$(params.six)",
            "$(params.seven)",
        ],
    );
}

const BUILD_TASK: &str = "\
apiVersion: tekton.dev/v1
kind: Task
metadata:
  name: build
spec:
  params:
    - name: url
  steps:
    - name: s
      image: busybox
      script: echo $(params.url)
";

const CI_PIPELINE: &str = "\
apiVersion: tekton.dev/v1
kind: Pipeline
metadata:
  name: ci
spec:
  tasks:
    - name: build
      taskRef:
        name: build
";

#[test]
fn a_task_ref_is_followed_to_the_one_task_of_that_name() {
    let seen = findings(&[
        ("tasks/build.yaml", BUILD_TASK),
        ("pipelines/ci.yaml", CI_PIPELINE),
    ]);
    assert_eq!(
        at(&seen),
        ["pipelines/ci.yaml:7:7 tekton/missing-param spec.tasks[0].name"]
    );
    assert_messages(&seen, &["[url]"]);
}

#[test]
fn a_task_ref_to_equally_near_tasks_that_differ_is_not_followed() {
    let other = BUILD_TASK.replace("url", "revision");
    let seen = findings(&[
        ("a/build.yaml", BUILD_TASK),
        ("b/build.yaml", &other),
        ("pipelines/ci.yaml", CI_PIPELINE),
    ]);
    assert_eq!(at(&seen), Vec::<String>::new());
}

#[test]
fn equally_near_copies_of_one_task_are_followed() {
    // Two copies with the same params and results give the same findings,
    // whichever is meant.
    let seen = findings(&[
        ("a/build.yaml", BUILD_TASK),
        ("b/build.yaml", BUILD_TASK),
        ("pipelines/ci.yaml", CI_PIPELINE),
    ]);
    assert_eq!(
        at(&seen),
        ["pipelines/ci.yaml:7:7 tekton/missing-param spec.tasks[0].name"]
    );
}

#[test]
fn a_task_ref_resolves_to_the_nearest_task_of_that_name() {
    // Two repositories checked out side by side, each with its own `build`:
    // each Pipeline runs its own repository's Task.
    let other = BUILD_TASK.replace("url", "revision");
    let seen = findings(&[
        ("repo-a/tasks/build.yaml", BUILD_TASK),
        ("repo-a/pipelines/ci.yaml", CI_PIPELINE),
        ("repo-b/tekton/build.yaml", &other),
        ("repo-b/tekton/ci.yaml", CI_PIPELINE),
    ]);
    assert_eq!(
        at(&seen),
        [
            "repo-a/pipelines/ci.yaml:7:7 tekton/missing-param spec.tasks[0].name",
            "repo-b/tekton/ci.yaml:7:7 tekton/missing-param spec.tasks[0].name",
        ]
    );
    assert_messages(&seen, &["[url]", "[revision]"]);
}

#[test]
fn a_catalog_task_version_is_followed_only_from_inside_its_package() {
    // tektoncd/catalog layout: task/<name>/<version>/<name>.yaml. A pipeline
    // of another package does not say which version of `build` it runs
    // with; the package's own tests do.
    let run = "\
apiVersion: tekton.dev/v1
kind: TaskRun
metadata:
  name: build-run
spec:
  taskRef:
    name: build
";
    let seen = findings(&[
        ("task/build/0.2/build.yaml", BUILD_TASK),
        ("task/build/0.2/tests/run.yaml", run),
        ("pipeline/ci/0.1/ci.yaml", CI_PIPELINE),
    ]);
    assert_eq!(
        at(&seen),
        ["task/build/0.2/tests/run.yaml:6:3 tekton/missing-param spec.taskRef"]
    );
}

#[test]
fn binding_duplicates_and_enum_defaults_have_rule_ids_of_their_own() {
    let task = "\
apiVersion: tekton.dev/v1
kind: Task
metadata:
  name: t
spec:
  params:
    - name: mode
      enum: [fast, slow]
      default: medium
    - name: mode
  steps:
    - name: s
      image: busybox
      script: echo $(params.mode)
---
apiVersion: tekton.dev/v1
kind: TaskRun
metadata:
  name: r
spec:
  taskRef:
    name: t
  params:
    - name: mode
      value: fast
    - name: mode
      value: slow
";
    let seen = findings(&[("task.yaml", task)]);
    let got: Vec<(String, &str, &str)> = seen
        .iter()
        .map(|s| {
            (
                format!("{}:{}", s.line, s.column),
                s.rule.as_str(),
                s.kind.as_str(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("9:7".to_string(), "tekton/enum-default", "validation"),
            ("10:7".to_string(), "tekton/duplicate", "schema"),
            ("26:7".to_string(), "tekton/duplicate-binding", "validation"),
        ]
    );
}
