//! Tekton checks for what fails when a run starts: workspaces bound and
//! referenced, the pipeline task graph, volume mounts and env. Each test
//! lints a small set of files and compares what a user sees: rule,
//! severity, line, column, data path, message, and the related locations.

mod tekton_support;

use confvet::run::{LintRequest, lint};
use confvet::source::Sources;
use tekton_support::Scratch;

/// One finding as the report shows it, with its related locations as
/// `file:line:column message`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Found {
    file: String,
    line: usize,
    column: usize,
    rule: String,
    severity: String,
    path: String,
    message: String,
    related: Vec<String>,
    help: Option<String>,
    /// How many findings this one counts (one, or those a unit left out).
    stands_for: usize,
}

/// The findings of the rules under test for `files` linted together,
/// sorted by file and position.
fn findings(files: &[(&str, &str)]) -> Vec<Found> {
    let dir = Scratch::new("graph");
    for (name, text) in files {
        dir.file(name, text);
    }
    let sources = Sources::new();
    let request = LintRequest {
        paths: vec![dir.root.clone()],
        ..LintRequest::default()
    };
    let result = lint(&request, &sources, &dir.root);
    assert!(result.errors.is_empty(), "{:?}", result.errors);
    let mut out: Vec<Found> = result
        .findings
        .iter()
        .filter(|f| RULES.contains(&f.rule))
        .map(|f| {
            let registered = confvet::rules::find(f.rule).map(|r| r.kind);
            assert_eq!(registered, Some(f.kind), "kind of {}", f.rule);
            let (file, start, _) = sources.resolve(f.span);
            Found {
                file: file.name.clone(),
                line: start.line,
                column: start.column,
                rule: f.rule.to_string(),
                severity: f.severity.as_str().to_string(),
                path: f.path.clone().unwrap_or_default(),
                message: f.message.clone(),
                stands_for: f.left_out.max(1),
                related: f
                    .related
                    .iter()
                    .map(|r| {
                        let (file, start, _) = sources.resolve(r.span);
                        format!(
                            "{}:{}:{} {}",
                            file.name, start.line, start.column, r.message
                        )
                    })
                    .collect(),
                help: f.help.clone(),
            }
        })
        .collect();
    out.sort();
    out
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
fn at(found: &[Found]) -> Vec<String> {
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
fn assert_messages(found: &[Found], tokens: &[&str]) {
    assert_eq!(found.len(), tokens.len(), "{found:#?}");
    for (f, t) in found.iter().zip(tokens) {
        assert!(f.message.contains(t), "{:?} lacks {t}", f.message);
    }
}

/// A Task `git-clone` with a required workspace `output` and an optional
/// `ssh`.
const CLONE_TASK: &str = "\
apiVersion: tekton.dev/v1
kind: Task
metadata:
  name: git-clone
spec:
  workspaces:
    - name: output
    - name: ssh
      optional: true
  steps:
    - name: clone
      image: alpine/git
      script: git clone . $(workspaces.output.path)
";

#[test]
fn required_workspaces_left_unbound_are_reported_at_the_call_site() {
    let pipeline = "\
apiVersion: tekton.dev/v1
kind: Pipeline
metadata:
  name: p
spec:
  workspaces:
    - name: shared
  tasks:
    - name: fetch
      taskRef:
        name: git-clone
    - name: fetch-bound
      taskRef:
        name: git-clone
      workspaces:
        - name: output
          workspace: shared
    - name: fetch-elsewhere
      taskRef:
        name: not-in-the-files
    - name: fetch-resolved
      taskRef:
        resolver: git
        params:
          - name: pathInRepo
            value: git-clone.yaml
";
    let runs = "\
apiVersion: tekton.dev/v1
kind: TaskRun
metadata:
  name: tr
spec:
  taskRef:
    name: git-clone
---
apiVersion: tekton.dev/v1
kind: PipelineRun
metadata:
  name: pr
spec:
  pipelineRef:
    name: p
---
apiVersion: tekton.dev/v1
kind: PipelineRun
metadata:
  name: pr-bound
spec:
  pipelineRef:
    name: p
  workspaces:
    - name: shared
      emptyDir: {}
";
    let found = findings(&[
        ("task.yaml", CLONE_TASK),
        ("pipeline.yaml", pipeline),
        ("runs.yaml", runs),
    ]);
    assert_eq!(
        at(&found),
        [
            "pipeline.yaml:9:7 error tekton/missing-workspace spec.tasks[0].name",
            "runs.yaml:6:3 warning tekton/missing-workspace spec.taskRef",
            "runs.yaml:14:3 error tekton/missing-workspace spec.pipelineRef",
        ]
    );
    assert_messages(
        &found,
        &[
            "declared workspace \"output\" of Task \"git-clone\" is required but pipeline task \"fetch\" does not bind it",
            "but the TaskRun does not bind it (unless the cluster's config-defaults set default-task-run-workspace-binding)",
            "declared workspace \"shared\" of Pipeline \"p\" is required but the PipelineRun does not bind it",
        ],
    );
    assert_eq!(found[0].related, ["task.yaml:7:13 workspace declared here"]);
    assert_eq!(
        found[2].related,
        ["pipeline.yaml:7:13 workspace declared here"]
    );
}

#[test]
fn pipeline_task_bindings_must_name_a_pipeline_workspace() {
    let pipeline = "\
apiVersion: tekton.dev/v1
kind: Pipeline
metadata:
  name: p
spec:
  workspaces:
    - name: source
  tasks:
    - name: typo
      taskRef:
        name: git-clone
      workspaces:
        - name: output
          workspace: sorce
    - name: omitted
      taskRef:
        name: git-clone
      workspaces:
        - name: output
    - name: omitted-fine
      taskSpec:
        workspaces:
          - name: source
        steps:
          - name: s
            image: busybox
            script: ls $(workspaces.source.path)
      workspaces:
        - name: source
    - name: unknown
      taskRef:
        name: git-clone
      workspaces:
        - name: output
          workspace: $(params.ws)
    - name: nested
      pipelineRef:
        name: other
      workspaces:
        - name: out
          workspace: nowhere
";
    let found = findings(&[("task.yaml", CLONE_TASK), ("pipeline.yaml", pipeline)]);
    assert_eq!(
        at(&found),
        [
            "pipeline.yaml:14:22 error tekton/workspace-reference spec.tasks[0].workspaces[0].workspace",
            "pipeline.yaml:19:17 error tekton/workspace-reference spec.tasks[1].workspaces[0].name",
            "pipeline.yaml:41:22 error tekton/workspace-reference spec.tasks[4].workspaces[0].workspace",
        ]
    );
    assert_messages(
        &found,
        &[
            "pipeline task \"typo\" expects workspace with name \"sorce\" but none exists in pipeline spec",
            "pipeline task \"omitted\" expects workspace with name \"output\"",
            "pipeline task \"nested\" expects workspace with name \"nowhere\"",
        ],
    );
    assert_eq!(
        found[0].related,
        ["pipeline.yaml:6:3 workspaces declared here"]
    );
    assert_eq!(found[0].help.as_deref(), Some("did you mean \"source\"?"));
}

#[test]
fn bindings_a_referenced_task_does_not_declare_are_reported() {
    let files = "\
apiVersion: tekton.dev/v1
kind: TaskRun
metadata:
  name: tr
spec:
  taskRef:
    name: git-clone
  workspaces:
    - name: output
      emptyDir: {}
    - name: sshh
      secret: {secretName: key}
---
apiVersion: tekton.dev/v1
kind: Pipeline
metadata:
  name: p
spec:
  workspaces:
    - name: src
  tasks:
    - name: fetch
      taskRef:
        name: git-clone
      workspaces:
        - name: output
          workspace: src
        - name: extra
          workspace: src
";
    let found = findings(&[("task.yaml", CLONE_TASK), ("files.yaml", files)]);
    assert_eq!(
        at(&found),
        [
            "files.yaml:11:13 error tekton/workspace-reference spec.workspaces[1].name",
            "files.yaml:28:17 error tekton/workspace-reference spec.tasks[0].workspaces[1].name",
        ]
    );
    assert_messages(
        &found,
        &[
            "workspace binding \"sshh\" does not match any declared workspace of Task \"git-clone\"",
            "workspace binding \"extra\" does not match",
        ],
    );
    assert_eq!(found[0].related, ["task.yaml:6:3 workspaces declared here"]);
    assert_eq!(found[0].help.as_deref(), Some("did you mean \"ssh\"?"));
}

#[test]
fn workspace_variables_of_undeclared_workspaces_are_reported_in_tasks() {
    let task = "\
apiVersion: tekton.dev/v1
kind: Task
metadata:
  name: build
spec:
  workspaces:
    - name: source
    - name: cache
  steps:
    - name: build
      image: golang
      workingDir: $(workspaces.src.path)
      script: |
        ls $(workspaces.source.path)
        echo $(workspaces.cahe.claim)
        if [ \"$(workspaces.secrets.bound)\" = true ]; then echo; fi
      workspaces:
        - name: sources
    - name: skipped
      ref:
        name: action
      params:
        - name: dir
          value: $(workspaces.out.path)
    - name: exported
      image: alpine
      env:
        - name: OUTPUT_PATH
          value: $(workspaces.output.path)
";
    let found = findings(&[("task.yaml", task)]);
    assert_eq!(
        at(&found),
        [
            // A named Task: the webhook takes the text, and an inline copy
            // of the Task (as Pipelines-as-Code makes) gets the workspace
            // its run binds; only step `workspaces` it rejects.
            "task.yaml:12:19 warning tekton/workspace-reference spec.steps[0].workingDir",
            "task.yaml:15:14 warning tekton/workspace-reference spec.steps[0].script",
            "task.yaml:18:17 error tekton/workspace-reference spec.steps[0].workspaces[0].name",
            "task.yaml:24:18 warning tekton/workspace-reference spec.steps[1].params[0].value",
            "task.yaml:29:18 warning tekton/workspace-reference spec.steps[2].env[0].value",
        ]
    );
    assert_messages(
        &found,
        &[
            "$(workspaces.src.path) names workspace \"src\", which the Task does not declare",
            "$(workspaces.cahe.claim)",
            "undefined workspace \"sources\"",
            "$(workspaces.out.path)",
            "$(workspaces.output.path) names workspace \"output\", which the Task does not declare: Tekton substitutes it only in an inline copy",
        ],
    );
    assert_eq!(found[1].help.as_deref(), Some("did you mean \"cache\"?"));
    assert_eq!(found[0].related, ["task.yaml:6:3 workspaces declared here"]);
}

#[test]
fn propagated_workspaces_are_not_findings() {
    let runs = "\
apiVersion: tekton.dev/v1
kind: TaskRun
metadata:
  name: bound-by-the-run
spec:
  workspaces:
    - name: data
      emptyDir: {}
  taskSpec:
    steps:
      - name: s
        image: busybox
        script: ls $(workspaces.data.path) $(workspaces.other.path)
---
apiVersion: tekton.dev/v1
kind: PipelineRun
metadata:
  name: pr
spec:
  workspaces:
    - name: shared
      emptyDir: {}
  pipelineSpec:
    tasks:
      - name: uses-propagated
        taskSpec:
          steps:
            - name: s
              image: busybox
              script: cat $(workspaces.shared.path)/a $(workspaces.nope.path)/b
      - name: binds-its-own
        workspaces:
          - name: mine
            workspace: shared
        taskSpec:
          steps:
            - name: s
              image: busybox
              script: cat $(workspaces.mine.path)
      - name: binds-propagated
        workspaces:
          - name: shared
        taskSpec:
          workspaces:
            - name: shared
          steps:
            - name: s
              image: busybox
              script: cat $(workspaces.shared.path)
      - name: binds-unknown
        workspaces:
          - name: x
            workspace: missing
        taskRef:
          name: somewhere-else
---
apiVersion: tekton.dev/v1
kind: Pipeline
metadata:
  name: standalone
spec:
  tasks:
    - name: inline
      taskSpec:
        workspaces:
          - name: declared-and-used
        steps:
          - name: s
            image: busybox
            script: cat $(workspaces.from-the-run.path) $(workspaces.declared-and-used.path)
";
    let found = findings(&[("runs.yaml", runs)]);
    assert_eq!(
        at(&found),
        [
            "runs.yaml:13:44 error tekton/workspace-reference spec.taskSpec.steps[0].script",
            "runs.yaml:30:55 error tekton/workspace-reference spec.pipelineSpec.tasks[0].taskSpec.steps[0].script",
        ]
    );
    assert_messages(
        &found,
        &["$(workspaces.other.path)", "$(workspaces.nope.path)"],
    );
    assert_eq!(
        found[0].related,
        ["runs.yaml:9:3 no workspaces declared here"]
    );
}

#[test]
fn pipeline_run_bindings_to_undeclared_pipeline_workspaces_need_the_run_to_bind_them() {
    let runs = "\
apiVersion: tekton.dev/v1
kind: PipelineRun
metadata:
  name: pr
spec:
  workspaces:
    - name: bound
      emptyDir: {}
  pipelineSpec:
    tasks:
      - name: from-the-run
        workspaces:
          - name: output
            workspace: bound
        taskRef:
          name: git-clone
      - name: from-nowhere
        workspaces:
          - name: output
            workspace: nowhere
        taskRef:
          name: git-clone
      - name: optional-in-the-task
        workspaces:
          - name: output
            workspace: bound
          - name: ssh
            workspace: nowhere
        taskRef:
          name: git-clone
";
    let found = findings(&[("task.yaml", CLONE_TASK), ("runs.yaml", runs)]);
    assert_eq!(
        at(&found),
        [
            "runs.yaml:20:24 error tekton/workspace-reference spec.pipelineSpec.tasks[1].workspaces[0].workspace"
        ]
    );
    assert_messages(
        &found,
        &[
            "expects workspace with name \"nowhere\" but none exists in pipeline spec nor among the PipelineRun's workspaces",
        ],
    );
    assert_eq!(
        found[0].related,
        ["runs.yaml:9:3 no workspaces declared here"]
    );
}

#[test]
fn inline_task_workspaces_used_by_steps_are_propagated_and_unused_ones_must_be_bound() {
    let pipeline = "\
apiVersion: tekton.dev/v1
kind: Pipeline
metadata:
  name: p
spec:
  workspaces:
    - name: data
  tasks:
    - name: t
      taskSpec:
        workspaces:
          - name: used
          - name: unused
          - name: maybe
            optional: true
        steps:
          - name: s
            image: busybox
            script: ls $(workspaces.used.path)
---
apiVersion: tekton.dev/v1
kind: TaskRun
metadata:
  name: tr
spec:
  workspaces:
    - name: $(params.name)
      emptyDir: {}
  taskRef:
    name: git-clone
";
    let found = findings(&[("task.yaml", CLONE_TASK), ("pipeline.yaml", pipeline)]);
    assert_eq!(
        at(&found),
        ["pipeline.yaml:9:7 error tekton/missing-workspace spec.tasks[0].name"]
    );
    assert_messages(
        &found,
        &[
            "declared workspace \"unused\" of the inline taskSpec is required but pipeline task \"t\"",
        ],
    );
}

#[test]
fn custom_tasks_and_unresolved_references_give_no_workspace_findings() {
    let files = "\
apiVersion: tekton.dev/v1
kind: Pipeline
metadata:
  name: p
spec:
  workspaces:
    - name: ws
  tasks:
    - name: custom
      taskSpec:
        apiVersion: example.dev/v1
        kind: Example
        spec: {}
      workspaces:
        - name: anything
          workspace: ws
    - name: bundle
      taskRef:
        name: git-clone
        bundle: registry/catalog:1
      workspaces:
        - name: anything
          workspace: ws
---
apiVersion: tekton.dev/v1
kind: PipelineRun
metadata:
  name: pr
spec:
  pipelineRef:
    resolver: hub
    params:
      - name: name
        value: p
";
    assert_eq!(
        at(&findings(&[
            ("task.yaml", CLONE_TASK),
            ("files.yaml", files)
        ])),
        Vec::<String>::new()
    );
}

#[test]
fn run_after_names_a_task_of_the_tasks_section() {
    let pipeline = "\
apiVersion: tekton.dev/v1
kind: Pipeline
metadata:
  name: p
spec:
  tasks:
    - name: build
      taskRef:
        name: b
    - name: test
      runAfter: [buld, report, $(params.after), build]
      taskRef:
        name: t
  finally:
    - name: report
      runAfter:
        - build
      taskRef:
        name: r
";
    let found = findings(&[("pipeline.yaml", pipeline)]);
    assert_eq!(
        at(&found),
        [
            "pipeline.yaml:11:18 error tekton/run-after spec.tasks[1].runAfter[0]",
            "pipeline.yaml:11:24 error tekton/run-after spec.tasks[1].runAfter[1]",
            "pipeline.yaml:16:7 error tekton/run-after spec.finally[0].runAfter",
        ]
    );
    assert_messages(
        &found,
        &[
            "pipeline task \"test\" runs after \"buld\", but the pipeline has no task \"buld\"",
            "runs after \"report\", a finally task",
            "no runAfter allowed under spec.finally, final task report has runAfter specified",
        ],
    );
    assert_eq!(found[0].help.as_deref(), Some("did you mean \"build\"?"));
    assert_eq!(
        found[0].related,
        ["pipeline.yaml:6:3 pipeline tasks declared here"]
    );
    assert_eq!(
        found[1].related,
        ["pipeline.yaml:15:13 finally task declared here"]
    );
    assert_eq!(
        found[2].related,
        ["pipeline.yaml:14:3 finally tasks run after every task of `tasks`"]
    );
}

#[test]
fn a_cycle_through_run_after_and_results_is_reported_once_with_each_edge() {
    let pipeline = "\
apiVersion: tekton.dev/v1
kind: Pipeline
metadata:
  name: p
spec:
  tasks:
    - name: lint
      taskRef:
        name: l
    - name: build
      runAfter: [lint, test]
      taskRef:
        name: b
    - name: test
      params:
        - name: image
          value: $(tasks.publish.results.image)
      taskRef:
        name: t
    - name: publish
      when:
        - input: \"$(tasks.build.results.ok)\"
          operator: in
          values: [\"true\"]
      taskRef:
        name: p
    - name: self
      taskSpec:
        steps:
          - name: s
            image: busybox
            script: echo $(tasks.self.results.x)
";
    let found = findings(&[("pipeline.yaml", pipeline)]);
    assert_eq!(
        at(&found),
        [
            "pipeline.yaml:10:13 error tekton/cycle spec.tasks[1].name",
            "pipeline.yaml:27:13 error tekton/cycle spec.tasks[4].name",
        ]
    );
    assert_messages(
        &found,
        &[
            "cycle detected in the pipeline tasks: \"build\" depends on \"test\", \"test\" depends on \"publish\", \"publish\" depends on \"build\"",
            "\"self\" depends on \"self\"",
        ],
    );
    assert_eq!(
        found[0].related,
        [
            "pipeline.yaml:11:24 \"build\" runs after \"test\" here",
            "pipeline.yaml:17:18 \"test\" uses a result of \"publish\" here",
            "pipeline.yaml:22:19 \"publish\" uses a result of \"build\" here",
        ]
    );
    assert_eq!(
        found[1].related,
        ["pipeline.yaml:32:26 \"self\" uses a result of \"self\" here"]
    );
}

#[test]
fn an_acyclic_graph_and_repeated_task_names_give_no_cycle() {
    let pipeline = "\
apiVersion: tekton.dev/v1
kind: Pipeline
metadata:
  name: p
spec:
  tasks:
    - name: a
      taskRef: {name: x}
    - name: b
      runAfter: [a]
      taskRef: {name: x}
    - name: c
      runAfter: [a]
      params:
        - name: p
          value: $(tasks.b.results.r)
      taskRef: {name: x}
    - name: d
      runAfter: [b, c]
      params:
        - name: p
          value: \"$(tasks.unknown.results.r) $(tasks.c.status)\"
      taskRef: {name: x}
---
apiVersion: tekton.dev/v1
kind: Pipeline
metadata:
  name: twice
spec:
  tasks:
    - name: a
      runAfter: [b]
      taskRef: {name: x}
    - name: b
      runAfter: [a]
      taskRef: {name: x}
    - name: a
      taskRef: {name: x}
";
    assert_eq!(
        at(&findings(&[("pipeline.yaml", pipeline)])),
        Vec::<String>::new()
    );
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
fn volume_mounts_name_a_volume_workspace_or_pod_template_volume() {
    let files = "\
apiVersion: tekton.dev/v1
kind: Task
metadata:
  name: build
spec:
  workspaces:
    - name: source
  volumes:
    - name: cache
      emptyDir: {}
  stepTemplate:
    volumeMounts:
      - name: certs
        mountPath: /etc/certs
  steps:
    - name: build
      image: golang
      volumeMounts:
        - name: cahe
          mountPath: /cache
        - name: cache
          mountPath: /cache2
        - name: source
          mountPath: /src
        - name: tekton-internal-home
          mountPath: /home
        - name: $(params.volume)
          mountPath: /p
  sidecars:
    - name: docker
      image: docker:dind
      volumeMounts:
        - name: docker-sock
          mountPath: /var/run
---
apiVersion: tekton.dev/v1
kind: TaskRun
metadata:
  name: tr
spec:
  podTemplate:
    volumes:
      - name: from-template
        emptyDir: {}
  taskSpec:
    steps:
      - name: s
        image: busybox
        volumeMounts:
          - name: from-template
            mountPath: /t
          - name: missing
            mountPath: /m
";
    let found = findings(&[("files.yaml", files)]);
    assert_eq!(
        at(&found),
        [
            "files.yaml:13:15 warning tekton/volume-mount spec.stepTemplate.volumeMounts[0].name",
            "files.yaml:19:17 warning tekton/volume-mount spec.steps[0].volumeMounts[0].name",
            "files.yaml:33:17 warning tekton/volume-mount spec.sidecars[0].volumeMounts[0].name",
            "files.yaml:52:19 warning tekton/volume-mount spec.taskSpec.steps[0].volumeMounts[1].name",
        ]
    );
    assert_messages(
        &found,
        &[
            "volumeMount \"certs\" names no volume of the Task: unless a pod template",
            "\"cahe\"",
            "\"docker-sock\"",
            "\"missing\"",
        ],
    );
    assert_eq!(found[1].help.as_deref(), Some("did you mean \"cache\"?"));
    assert_eq!(found[1].related, ["files.yaml:8:3 volumes declared here"]);
    assert_eq!(
        found[3].related,
        ["files.yaml:45:3 no volumes declared here"]
    );
}

#[test]
fn env_repeated_after_the_step_template_merge_is_a_warning() {
    let tasks = "\
apiVersion: tekton.dev/v1
kind: Task
metadata:
  name: no-template
spec:
  steps:
    - name: build
      image: golang
      env:
        - name: GOFLAGS
          value: -mod=vendor
        - name: CGO_ENABLED
          value: \"0\"
        - name: GOFLAGS
          value: -v
        - name: CGO_ENABLED
          value: \"0\"
  sidecars:
    - name: db
      image: postgres
      env:
        - name: PGUSER
          value: a
        - name: PGUSER
          valueFrom:
            secretKeyRef: {name: db, key: user}
---
apiVersion: tekton.dev/v1
kind: Task
metadata:
  name: with-template
spec:
  stepTemplate:
    env:
      - name: HOME
        value: /tekton/home
      - name: LANG
        value: C
      - name: LANG
        value: C.UTF-8
  steps:
    - name: overrides
      image: golang
      env:
        - name: HOME
          value: /root
    - name: folded-by-the-merge
      image: golang
      env:
        - name: X
          value: a
        - name: X
          value: b
";
    let found = findings(&[("tasks.yaml", tasks)]);
    assert_eq!(
        at(&found),
        [
            "tasks.yaml:14:17 warning tekton/duplicate-env spec.steps[0].env[2].name",
            "tasks.yaml:24:17 warning tekton/duplicate-env spec.sidecars[0].env[1].name",
            "tasks.yaml:39:15 warning tekton/duplicate-env spec.stepTemplate.env[2].name",
        ]
    );
    assert_messages(
        &found,
        &[
            "env variable \"GOFLAGS\" is set twice in step \"build\", with different values",
            "\"PGUSER\" is set twice in sidecar \"db\"",
            "\"LANG\" is set twice in the stepTemplate, so in every step",
        ],
    );
    assert_eq!(found[0].related, ["tasks.yaml:10:17 first set here"]);
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

#[test]
fn pipelines_as_code_inlines_the_tasks_it_names_so_their_bindings_propagate() {
    // konflux-ci/build-definitions' .tekton/pull-request.yaml: the Task
    // uses $(workspaces.source.path) without declaring it, and PaC embeds
    // it as an inline taskSpec that gets the pipeline task's binding.
    let task = "\
apiVersion: tekton.dev/v1
kind: Task
metadata:
  name: switchboard
spec:
  steps:
    - name: evaluate
      image: alpine
      workingDir: $(workspaces.source.path)/source
";
    let run = |annotations: &str| {
        format!(
            "\
apiVersion: tekton.dev/v1
kind: PipelineRun
metadata:
  name: pr
{annotations}spec:
  pipelineSpec:
    workspaces:
      - name: workspace
    tasks:
      - name: switchboard
        taskRef:
          name: switchboard
        workspaces:
          - name: source
            workspace: workspace
  workspaces:
    - name: workspace
      emptyDir: {{}}
"
        )
    };
    let pac = "  annotations:\n    pipelinesascode.tekton.dev/task: \"[.tekton/tasks/switchboard.yaml]\"\n";
    let found = findings(&[
        (".tekton/tasks/switchboard.yaml", task),
        (".tekton/pr.yaml", &run(pac)),
    ]);
    assert_eq!(
        at(&found),
        [
            ".tekton/tasks/switchboard.yaml:9:19 warning tekton/workspace-reference spec.steps[0].workingDir"
        ]
    );
    // Without PaC the binding names a workspace the Task lacks.
    let found = findings(&[
        (".tekton/tasks/switchboard.yaml", task),
        (".tekton/pr.yaml", &run("")),
    ]);
    assert_eq!(
        at(&found),
        [
            ".tekton/pr.yaml:14:19 error tekton/workspace-reference spec.pipelineSpec.tasks[0].workspaces[0].name",
            ".tekton/tasks/switchboard.yaml:9:19 warning tekton/workspace-reference spec.steps[0].workingDir",
        ]
    );
}
