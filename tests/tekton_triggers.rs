//! Tekton Triggers: `$(tt.params.x)` in TriggerTemplates, the params each
//! trigger's bindings give its template, duplicate binding params, and the
//! PipelineRuns and TaskRuns a template creates, checked like any run. Each
//! test lints a small set of files and compares what a user sees: rule,
//! line, column, data path, message.

mod tekton_support;

use confvet::run::{LintRequest, lint};
use confvet::source::Sources;
use std::path::Path;
use tekton_support::{Scratch, Seen, lint_dir};

/// The findings of `files` linted together, sorted by file and position.
fn findings(files: &[(&str, &str)]) -> Vec<Seen> {
    let dir = Scratch::new("triggers");
    for (name, text) in files {
        dir.file(name, text);
    }
    let mut seen = lint_dir(&dir.root);
    seen.sort();
    seen
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

/// Per finding of `files`: rule, help, and each related location as
/// `file:line message`.
fn details(files: &[(&str, &str)]) -> Vec<(String, String, Vec<String>)> {
    let dir = Scratch::new("triggers-related");
    for (name, text) in files {
        dir.file(name, text);
    }
    let sources = Sources::new();
    let request = LintRequest {
        paths: vec![dir.root.clone()],
        ..LintRequest::default()
    };
    let result = lint(&request, &sources, &dir.root);
    let mut out: Vec<_> = result
        .findings
        .iter()
        .map(|f| {
            let related = f
                .related
                .iter()
                .map(|r| {
                    let (file, start, _) = sources.resolve(r.span);
                    format!("{}:{} {}", file.name, start.line, r.message)
                })
                .collect();
            (
                f.rule.to_string(),
                f.help.clone().unwrap_or_default(),
                related,
            )
        })
        .collect();
    out.sort();
    out
}

/// A TriggerTemplate `name` declaring `params` (YAML list items at two
/// spaces) that creates a TaskRun echoing `$(tt.params.a)`.
fn template(name: &str, params: &str) -> String {
    format!(
        "\
apiVersion: triggers.tekton.dev/v1beta1
kind: TriggerTemplate
metadata:
  name: {name}
spec:
  params:
{params}  resourcetemplates:
  - apiVersion: tekton.dev/v1
    kind: TaskRun
    metadata:
      generateName: run-
    spec:
      taskSpec:
        steps:
        - image: bash
          script: echo $(tt.params.a)
"
    )
}

fn binding(kind: &str, name: &str, params: &[&str]) -> String {
    let mut s = format!(
        "apiVersion: triggers.tekton.dev/v1beta1\nkind: {kind}\nmetadata:\n  name: {name}\nspec:\n  params:\n"
    );
    for p in params {
        s.push_str(&format!("  - name: {p}\n    value: $(body.{p})\n"));
    }
    s
}

/// An EventListener with one trigger of `bindings` (YAML list items at six
/// spaces) and `template.ref: tt`.
fn listener(bindings: &str) -> String {
    format!(
        "\
apiVersion: triggers.tekton.dev/v1beta1
kind: EventListener
metadata:
  name: listener
spec:
  serviceAccountName: sa
  triggers:
    - name: t
      bindings:
{bindings}      template:
        ref: tt
"
    )
}

#[test]
fn undeclared_template_params_are_reported_on_the_expression() {
    let tt = "\
apiVersion: triggers.tekton.dev/v1beta1
kind: TriggerTemplate
metadata:
  name: tt
spec:
  params:
  - name: gitrevision
  - name: url
    default: https://example.com/repo.git
  resourcetemplates:
  - apiVersion: tekton.dev/v1
    kind: PipelineRun
    metadata:
      generateName: build-$(uid)-
      labels:
        rev: \"$(tt.params.git-revision)\"
    spec:
      pipelineSpec:
        params:
        - name: revision
        tasks:
        - name: show
          params:
          - name: revision
            value: $(params.revision)
          taskSpec:
            params:
            - name: revision
            steps:
            - image: bash
              script: |
                git clone $(tt.params.url)
                git checkout $(params.revision) $(tt.params.branch)
                echo $(tt.params.x[0])
      params:
      - name: revision
        value: $(tt.params.gitrevision)
";
    let seen = findings(&[("tt.yaml", tt)]);
    assert_eq!(
        at(&seen),
        [
            "tt.yaml:16:15 tekton/trigger-param-reference spec.resourcetemplates[0].metadata.labels.rev",
            "tt.yaml:33:49 tekton/trigger-param-reference spec.resourcetemplates[0].spec.pipelineSpec.tasks[0].taskSpec.steps[0].script",
        ]
    );
    assert_messages(
        &seen,
        &[
            "undeclared param '$(tt.params.git-revision)'",
            "undeclared param '$(tt.params.branch)'",
        ],
    );
    assert!(
        seen.iter()
            .all(|s| s.kind == "reference" && s.severity == "error")
    );
    let help: Vec<String> = details(&[("tt.yaml", tt)])
        .into_iter()
        .map(|(_, h, _)| h)
        .collect();
    assert_eq!(
        help,
        [
            "declared: gitrevision, url",
            "did you mean \"gitrevision\"?"
        ]
    );
}

#[test]
fn v1alpha1_templates_and_keys_are_scanned_too() {
    let tt = "\
apiVersion: triggers.tekton.dev/v1alpha1
kind: TriggerTemplate
metadata:
  name: tt
spec:
  resourcetemplates:
  - apiVersion: v1
    kind: ConfigMap
    metadata:
      name: cm
    data:
      $(tt.params.key): value
";
    let seen = findings(&[("tt.yaml", tt)]);
    assert_eq!(
        at(&seen),
        [
            "tt.yaml:12:7 tekton/trigger-param-reference spec.resourcetemplates[0].data.$(tt.params.key)"
        ]
    );
}

#[test]
fn a_required_template_param_no_binding_gives_is_reported_at_the_template_ref() {
    let tt = template(
        "tt",
        "  - name: a\n  - name: b\n  - name: c\n  - name: d\n  - name: e\n    default: \"\"\n",
    );
    let el = listener(
        "        - ref: tb\n        - ref: ctb\n          kind: ClusterTriggerBinding\n        - name: b\n          value: $(body.b)\n",
    );
    let files = [
        ("tt.yaml", tt.as_str()),
        ("tb.yaml", &binding("TriggerBinding", "tb", &["a"])),
        ("ctb.yaml", &binding("ClusterTriggerBinding", "ctb", &["c"])),
        ("el.yaml", el.as_str()),
    ];
    let seen = findings(&files);
    assert_eq!(
        at(&seen),
        ["el.yaml:16:9 tekton/trigger-missing-param spec.triggers[0].template.ref"]
    );
    assert_messages(&seen, &["param d of TriggerTemplate tt has no default"]);
    assert_eq!(seen[0].kind, "validation");
    let d = details(&files);
    assert_eq!(d[0].2, ["tt.yaml:10 declared here without a default"]);
    assert!(d[0].1.contains("$(tt.params.d) stays"), "{d:?}");
}

#[test]
fn a_near_miss_among_the_bound_names_is_named_in_the_help() {
    let tt = template("tt", "  - name: a\n  - name: git-revision\n");
    let el = listener(
        "        - name: a\n          value: x\n        - name: gitrevision\n          value: $(body.after)\n",
    );
    let d = details(&[("tt.yaml", tt.as_str()), ("el.yaml", el.as_str())]);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].0, "tekton/trigger-missing-param");
    assert!(
        d[0].1.starts_with("a binding gives \"gitrevision\""),
        "{d:?}"
    );
}

#[test]
fn an_unknown_binding_or_template_makes_no_finding() {
    let tt = template("tt", "  - name: a\n  - name: b\n");
    for bindings in [
        // not among the files
        "        - ref: elsewhere\n",
        // a name computed at run time
        "        - ref: $(body.binding)\n",
        // a kind that is not a binding
        "        - ref: tb\n          kind: Secret\n",
        // the old form that named a binding with `name`
        "        - name: tb\n",
        // ref and name together: invalid, nothing to say about params
        "        - ref: tb\n          name: b\n          value: x\n",
    ] {
        let el = listener(&format!(
            "        - name: a\n          value: x\n{bindings}"
        ));
        let seen = findings(&[
            ("tt.yaml", tt.as_str()),
            ("tb.yaml", &binding("TriggerBinding", "tb", &["b"])),
            ("el.yaml", el.as_str()),
        ]);
        assert_eq!(at(&seen), Vec::<String>::new(), "{bindings}");
    }
    // The template is not among the files.
    let el = listener("        - name: a\n          value: x\n");
    assert_eq!(findings(&[("el.yaml", el.as_str())]), []);
    // A ClusterTriggerBinding is not a TriggerBinding of the same name.
    let el = listener("        - ref: tb\n          kind: ClusterTriggerBinding\n");
    let seen = findings(&[
        ("tt.yaml", tt.as_str()),
        ("tb.yaml", &binding("TriggerBinding", "tb", &["a", "b"])),
        ("el.yaml", el.as_str()),
    ]);
    assert_eq!(seen, []);
    // A template in another namespace is not the one meant.
    let other_ns = tt.replace("  name: tt\n", "  name: tt\n  namespace: other\n");
    let el = listener("        - name: a\n          value: x\n")
        .replace("  name: listener\n", "  name: listener\n  namespace: ci\n");
    assert_eq!(
        findings(&[("tt.yaml", other_ns.as_str()), ("el.yaml", el.as_str())]),
        []
    );
}

#[test]
fn the_nearest_template_of_a_name_is_used_and_a_tie_is_unknown() {
    let strict = template("tt", "  - name: a\n  - name: b\n");
    let lenient = template("tt", "  - name: a\n  - name: b\n    default: x\n");
    let el = listener("        - name: a\n          value: x\n");
    let files = [
        ("a/tt.yaml", strict.as_str()),
        ("a/el.yaml", el.as_str()),
        ("b/tt.yaml", lenient.as_str()),
        ("b/el.yaml", el.as_str()),
        ("c/el.yaml", el.as_str()),
        ("d/e/el.yaml", el.as_str()),
        ("d/tt.yaml", strict.as_str()),
    ];
    let seen = findings(&files);
    // a/ and d/e/ (whose nearest is d/) see the strict template; b/ its own
    // lenient one; c/ has two siblings equally near.
    assert_eq!(
        at(&seen),
        [
            "a/el.yaml:13:9 tekton/trigger-missing-param spec.triggers[0].template.ref",
            "d/e/el.yaml:13:9 tekton/trigger-missing-param spec.triggers[0].template.ref",
        ]
    );
}

#[test]
fn trigger_resources_are_checked_and_trigger_refs_not_twice() {
    let tt = template("tt", "  - name: a\n  - name: b\n");
    let trigger = "\
apiVersion: triggers.tekton.dev/v1beta1
kind: Trigger
metadata:
  name: on-push
spec:
  interceptors:
    - ref:
        name: cel
      params:
        - name: overlays
          value:
            - key: short_sha
              expression: body.after.truncate(7)
  bindings:
  - ref: tb
  template:
    ref: tt
";
    let el = "\
apiVersion: triggers.tekton.dev/v1alpha1
kind: EventListener
metadata:
  name: listener
spec:
  triggers:
    - triggerRef: on-push
";
    let seen = findings(&[
        ("tt.yaml", tt.as_str()),
        ("tb.yaml", &binding("TriggerBinding", "tb", &["a"])),
        ("trigger.yaml", trigger),
        ("el.yaml", el),
    ]);
    assert_eq!(
        at(&seen),
        ["trigger.yaml:17:5 tekton/trigger-missing-param spec.template.ref"]
    );
    assert_messages(&seen, &["param b of TriggerTemplate tt"]);
}

#[test]
fn an_inline_template_spec_is_checked_as_a_template() {
    let el = "\
apiVersion: triggers.tekton.dev/v1beta1
kind: EventListener
metadata:
  name: listener
spec:
  triggers:
    - name: t
      bindings:
        - name: branch
          value: $(extensions.branch)
      template:
        spec:
          params:
            - name: branch
            - name: response
          resourcetemplates:
            - apiVersion: tekton.dev/v1beta1
              kind: TaskRun
              metadata:
                generateName: run-
              spec:
                taskSpec:
                  steps:
                    - image: ubuntu
                      script: echo $(tt.params.branch) $(tt.params.image)
";
    let seen = findings(&[("el.yaml", el)]);
    assert_eq!(
        at(&seen),
        [
            "el.yaml:8:7 tekton/trigger-missing-param spec.triggers[0].bindings",
            "el.yaml:25:56 tekton/trigger-param-reference spec.triggers[0].template.spec.resourcetemplates[0].spec.taskSpec.steps[0].script",
        ]
    );
    assert_messages(
        &seen,
        &[
            "param response of the inline TriggerTemplate",
            "$(tt.params.image)",
        ],
    );
}

#[test]
fn a_param_bound_twice_is_reported() {
    let tb = "\
apiVersion: triggers.tekton.dev/v1beta1
kind: TriggerBinding
metadata:
  name: tb
spec:
  params:
  - name: a
    value: $(body.a)
  - name: a
    value: $(body.b)
";
    let tt = template("tt", "  - name: a\n  - name: b\n");
    let el = listener(
        "        - ref: tb\n        - name: b\n          value: x\n        - name: a\n          value: y\n",
    );
    let files = [
        ("tb.yaml", tb),
        ("tt.yaml", tt.as_str()),
        ("el.yaml", el.as_str()),
    ];
    let seen = findings(&files);
    assert_eq!(
        at(&seen),
        [
            "el.yaml:13:11 tekton/trigger-duplicate-param spec.triggers[0].bindings[2]",
            "tb.yaml:9:5 tekton/trigger-duplicate-param spec.params[1].name",
        ]
    );
    assert_messages(
        &seen,
        &[
            "param a given by more than one binding of this trigger",
            "param a appears more than once",
        ],
    );
    let d = details(&files);
    let related: Vec<&Vec<String>> = d.iter().map(|(_, _, r)| r).collect();
    assert!(
        related.contains(&&vec!["tb.yaml:7 a first bound here".to_string()]),
        "{d:?}"
    );
    assert!(
        related.contains(&&vec!["tb.yaml:7 first bound here".to_string()]),
        "{d:?}"
    );
}

const PIPELINE: &str = "\
apiVersion: tekton.dev/v1
kind: Pipeline
metadata:
  name: build
spec:
  params:
  - name: url
  - name: revision
  - name: flags
    type: array
    default: []
  tasks:
  - name: show
    taskSpec:
      steps:
      - image: bash
        script: echo $(params.url) $(params.revision)
";

#[test]
fn a_created_pipeline_run_is_checked_against_its_pipeline() {
    let tt = "\
apiVersion: triggers.tekton.dev/v1beta1
kind: TriggerTemplate
metadata:
  name: tt
spec:
  params:
  - name: url
  - name: revision
  resourcetemplates:
  - apiVersion: tekton.dev/v1
    kind: PipelineRun
    metadata:
      generateName: build-
    spec:
      pipelineRef:
        name: build
      params:
      - name: url
        value: $(tt.params.url)
      - name: flags
        value: $(tt.params.revision)
  - apiVersion: tekton.dev/v1
    kind: PipelineRun
    metadata:
      generateName: elsewhere-
    spec:
      pipelineRef:
        name: not-in-the-tree
      params:
      - name: anything
        value: $(tt.params.url)
  - apiVersion: tekton.dev/v1beta1
    kind: PipelineRun
    metadata:
      generateName: from-param-
    spec:
      pipelineRef:
        name: $(tt.params.revision)
";
    let seen = findings(&[("pipeline.yaml", PIPELINE), ("tt.yaml", tt)]);
    assert_eq!(
        at(&seen),
        [
            "tt.yaml:15:7 tekton/missing-param spec.resourcetemplates[0].spec.pipelineRef",
            "tt.yaml:21:9 tekton/binding-type spec.resourcetemplates[0].spec.params[1].value",
        ]
    );
    assert_messages(&seen, &["[revision]", "string given, array declared"]);
}

#[test]
fn a_created_task_run_and_inline_specs_are_checked_as_runs() {
    let task = "\
apiVersion: tekton.dev/v1beta1
kind: Task
metadata:
  name: echo
spec:
  params:
  - name: message
  steps:
  - image: bash
    script: echo $(params.message)
";
    let tt = "\
apiVersion: triggers.tekton.dev/v1beta1
kind: TriggerTemplate
metadata:
  name: tt
spec:
  params:
  - name: message
  resourcetemplates:
  - apiVersion: tekton.dev/v1beta1
    kind: TaskRun
    metadata:
      generateName: echo-
    spec:
      taskRef:
        name: echo
  - apiVersion: tekton.dev/v1
    kind: TaskRun
    metadata:
      generateName: inline-
    spec:
      params:
      - name: message
        value: $(tt.params.message)
      taskSpec:
        params:
        - name: message
        steps:
        - image: bash
          script: echo $(params.mesage)
";
    let seen = findings(&[("task.yaml", task), ("tt.yaml", tt)]);
    assert_eq!(
        at(&seen),
        [
            "tt.yaml:14:7 tekton/missing-param spec.resourcetemplates[0].spec.taskRef",
            "tt.yaml:29:24 tekton/param-reference spec.resourcetemplates[1].spec.taskSpec.steps[0].script",
        ]
    );
    assert_messages(&seen, &["[message]", "$(params.mesage)"]);
}

#[test]
fn params_x_of_a_template_param_in_run_params_is_a_warning() {
    let tt = "\
apiVersion: triggers.tekton.dev/v1beta1
kind: TriggerTemplate
metadata:
  name: tt
spec:
  params:
  - name: gitrevision
  resourcetemplates:
  - apiVersion: tekton.dev/v1
    kind: PipelineRun
    metadata:
      generateName: build-
    spec:
      params:
      - name: gitrevision
        value: $(params.gitrevision)
      - name: other
        value: $(params.other)
      pipelineSpec:
        params:
        - name: gitrevision
        - name: other
        tasks:
        - name: show
          taskSpec:
            steps:
            - image: bash
              script: echo $(params.gitrevision) $(params.other)
";
    let seen = findings(&[("tt.yaml", tt)]);
    assert_eq!(
        at(&seen),
        [
            "tt.yaml:16:16 tekton/trigger-legacy-param spec.resourcetemplates[0].spec.params[0].value"
        ]
    );
    assert_eq!(seen[0].severity, "warning");
    assert_messages(&seen, &["$(params.gitrevision) is not substituted"]);
}

#[test]
fn params_x_of_a_template_param_inside_the_created_run_is_the_legacy_warning() {
    // The catalog's gcs samples: a v1alpha1 template written for Triggers
    // before v0.8, whose inline pipelineSpec reads the template param as
    // $(params.x). Not an undeclared Pipeline param: the legacy form.
    let tt = "\
apiVersion: triggers.tekton.dev/v1alpha1
kind: TriggerTemplate
metadata:
  name: tt
spec:
  params:
  - name: project-name
  resourcetemplates:
  - apiVersion: tekton.dev/v1beta1
    kind: PipelineRun
    metadata:
      generateName: gcs-
    spec:
      pipelineSpec:
        tasks:
        - name: create
          taskRef:
            name: gcs-create-bucket
          params:
          - name: project
            value: $(params.project-name)
          - name: other
            value: $(params.not-a-template-param)
";
    let seen = findings(&[("tt.yaml", tt)]);
    assert_eq!(
        at(&seen),
        [
            "tt.yaml:21:20 tekton/trigger-legacy-param spec.resourcetemplates[0].spec.pipelineSpec.tasks[0].params[0].value",
            "tt.yaml:23:20 tekton/param-reference spec.resourcetemplates[0].spec.pipelineSpec.tasks[0].params[1].value",
        ]
    );
    assert_eq!(seen[0].severity, "warning");
    assert_eq!(seen[1].severity, "error");
}

#[test]
fn a_file_of_bindings_only_is_found_as_tekton() {
    let tb = binding("TriggerBinding", "tb", &["a", "a"]);
    let seen = findings(&[("tb.yaml", tb.as_str())]);
    assert_eq!(
        at(&seen),
        ["tb.yaml:9:5 tekton/trigger-duplicate-param spec.params[1].name"]
    );
}

fn fixtures() -> &'static Path {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/tekton-triggers"
    ))
}

#[test]
fn upstream_examples_lint_clean() {
    assert_eq!(lint_dir(fixtures()), []);
}

/// The upstream examples with one change each: the pairings and the
/// created PipelineRun are followed (each directory's own template and
/// binding, the Pipeline at the top).
#[test]
fn upstream_examples_are_paired_and_followed() {
    let read = |rel: &str| std::fs::read_to_string(fixtures().join(rel)).expect("a fixture");
    let mut files: Vec<(String, String)> = [
        "example-pipeline.yaml",
        "trigger-ref/eventlistener-triggerref.yaml",
        "trigger-ref/trigger.yaml",
        "trigger-ref/triggerbinding.yaml",
        "trigger-ref/triggertemplate.yaml",
        "embedded-trigger/eventlistener.yaml",
        "embedded-trigger/triggerbinding.yaml",
        "embedded-trigger/triggerbinding-message.yaml",
        "embedded-trigger/triggertemplate.yaml",
    ]
    .iter()
    .map(|f| (f.to_string(), read(f)))
    .collect();
    for (name, text) in &mut files {
        if name == "trigger-ref/triggerbinding.yaml" {
            *text = text.replace(
                "  - name: gitrepositoryurl\n    value: $(body.repository.url)\n",
                "",
            );
        }
        if name == "embedded-trigger/triggertemplate.yaml" {
            *text = text.replace(
                "      - name: git-url\n        value: $(tt.params.gitrepositoryurl)\n",
                "",
            );
        }
    }
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    let seen = findings(&refs);
    assert_eq!(
        at(&seen),
        [
            "embedded-trigger/triggertemplate.yaml:23:7 tekton/missing-param spec.resourcetemplates[0].spec.pipelineRef",
            "trigger-ref/trigger.yaml:19:5 tekton/trigger-missing-param spec.template.ref",
        ]
    );
    assert_messages(
        &seen,
        &[
            "[git-url]",
            "param gitrepositoryurl of TriggerTemplate pipeline-template",
        ],
    );
}
