//! Tekton on real repositories: params a run passes into fields the webhook
//! does not check (spec § 6.3), `resolver: git` refs to files of the same
//! repository (§ 2.1) and bindings that nearly name a declared param. Each
//! test is a small tree of the shape seen in public repositories.

mod tekton_support;

use tekton_support::{Scratch, Seen, lint_dir, lint_files};

fn lint(files: &[(&str, &str)]) -> Vec<Seen> {
    lint_files(files)
}

/// `severity file:line:column rule path` of each finding.
fn at(seen: &[Seen]) -> Vec<String> {
    seen.iter()
        .map(|s| {
            format!(
                "{} {}:{}:{} {} {}",
                s.severity, s.file, s.line, s.column, s.rule, s.path
            )
        })
        .collect()
}

/// A pipeline task binding `caTrustConfigMapName` to an inline Task that
/// uses it in `volumes` without declaring it, as build-definitions
/// monorepos do; `notPassed` is used there too but bound by nobody.
const CA_TRUST_PIPELINE: &str = "\
apiVersion: tekton.dev/v1
kind: Pipeline
metadata:
  name: build
spec:
  tasks:
    - name: build
      params:
        - name: caTrustConfigMapName
          value: trusted-ca
      taskSpec:
        steps:
          - name: build
            image: registry/builder
            volumeMounts:
              - name: trust
                mountPath: /etc/pki/ca-trust
        volumes:
          - name: trust
            configMap:
              name: $(params.caTrustConfigMapName)
          - name: other
            configMap:
              name: $(params.notPassed)
";

#[test]
fn a_param_the_pipeline_task_passes_may_be_used_undeclared_in_volumes() {
    let seen = lint(&[("pipeline.yaml", CA_TRUST_PIPELINE)]);
    assert_eq!(
        at(&seen),
        [
            "warning pipeline.yaml:24:21 tekton/param-reference spec.tasks[0].taskSpec.volumes[1].configMap.name"
        ]
    );
    assert!(seen[0].message.contains("$(params.notPassed)"));
    assert!(
        seen[0].message.contains("does not pass"),
        "{}",
        seen[0].message
    );
}

#[test]
fn in_a_field_the_webhook_checks_an_undeclared_param_stays_an_error() {
    // The webhook rejects the Pipeline whatever the pipeline task binds.
    let pipeline = CA_TRUST_PIPELINE.replace(
        "image: registry/builder",
        "image: $(params.caTrustConfigMapName)",
    );
    let seen = lint(&[("pipeline.yaml", &pipeline)]);
    assert_eq!(
        at(&seen),
        [
            "error pipeline.yaml:14:20 tekton/param-reference spec.tasks[0].taskSpec.steps[0].image",
            "warning pipeline.yaml:24:21 tekton/param-reference spec.tasks[0].taskSpec.volumes[1].configMap.name",
        ]
    );
}

#[test]
fn a_task_run_passes_params_into_its_inline_spec() {
    let run = "\
apiVersion: tekton.dev/v1
kind: TaskRun
metadata:
  name: r
spec:
  params:
    - name: secret
      value: creds
  taskSpec:
    steps:
      - name: s
        image: busybox
        env:
          - name: TOKEN
            valueFrom:
              secretKeyRef:
                name: $(params.secret)
                key: token
    sidecars:
      - name: side
        image: $(params.sidecarImage)
";
    let seen = lint(&[("run.yaml", run)]);
    assert_eq!(
        at(&seen),
        ["warning run.yaml:21:16 tekton/param-reference spec.taskSpec.sidecars[0].image"]
    );
}

/// A named Task that reads an undeclared param in `env[].valueFrom`, as the
/// catalog's anchore-cli 0.1 does.
const SECRET_TASK: &str = "\
apiVersion: tekton.dev/v1
kind: Task
metadata:
  name: scan
spec:
  params:
    - name: image
  steps:
    - name: scan
      image: scanner
      args: [$(params.image)]
      env:
        - name: PASSWORD
          valueFrom:
            secretKeyRef:
              name: $(params.scan-secret)
              key: password
";

fn scan_run(params: &str) -> String {
    format!(
        "\
apiVersion: tekton.dev/v1
kind: TaskRun
metadata:
  name: scan-run
spec:
  taskRef:
    name: scan
  params:
    - name: image
      value: alpine
{params}"
    )
}

#[test]
fn a_named_task_with_no_run_in_view_is_not_judged_on_what_runs_pass() {
    let seen = lint(&[("task.yaml", SECRET_TASK)]);
    assert_eq!(at(&seen), Vec::<String>::new());
}

#[test]
fn a_named_task_is_warned_when_no_run_in_view_passes_the_param() {
    let seen = lint(&[("task.yaml", SECRET_TASK), ("run.yaml", &scan_run(""))]);
    assert_eq!(
        at(&seen),
        [
            "warning task.yaml:16:21 tekton/param-reference spec.steps[0].env[0].valueFrom.secretKeyRef.name"
        ]
    );
    assert!(seen[0].message.contains("1 run(s)"), "{}", seen[0].message);
}

#[test]
fn a_named_task_is_fine_when_a_run_in_view_passes_the_param() {
    let passes = "    - name: scan-secret\n      value: registry-creds\n";
    let seen = lint(&[("task.yaml", SECRET_TASK), ("run.yaml", &scan_run(passes))]);
    assert_eq!(at(&seen), Vec::<String>::new());
}

const BUILD_TASK: &str = "\
apiVersion: tekton.dev/v1
kind: Task
metadata:
  name: build
spec:
  params:
    - name: url
    - name: EXTRA_ARGS
      default: \"\"
  results:
    - name: digest
  steps:
    - name: s
      image: busybox
      script: echo $(params.url) $(params.EXTRA_ARGS) > $(results.digest.path)
";

/// A Pipeline at `.tekton/pr.yaml` whose task `build` runs the Task
/// `taskRef` names, then reads `$(tasks.build.results.<result>)`.
fn git_pipeline(task_ref: &str, result: &str) -> String {
    let report = report_task(result, "      ");
    format!(
        "\
apiVersion: tekton.dev/v1
kind: PipelineRun
metadata:
  name: pr
spec:
  pipelineSpec:
    tasks:
      - name: build
        taskRef:
{task_ref}
        params:
          - name: revision
            value: main
{report}"
    )
}

/// The pipeline task `report`, indented by `indent`, which reads
/// `$(tasks.build.results.<result>)`.
fn report_task(result: &str, indent: &str) -> String {
    let task = format!(
        "\
- name: report
  params:
    - name: digest
      value: $(tasks.build.results.{result})
  taskSpec:
    params:
      - name: digest
    steps:
      - name: s
        image: busybox
        script: echo $(params.digest)
"
    );
    task.lines().map(|l| format!("{indent}{l}\n")).collect()
}

const GIT_REF: &str = "          resolver: git
          params:
            - name: url
              value: https://github.com/example/app.git
            - name: revision
              value: main
            - name: pathInRepo
              value: tekton/tasks/build.yaml";

#[test]
fn a_git_resolver_ref_to_a_file_of_this_repository_is_followed() {
    let dir = Scratch::new("git-resolver");
    let repo = dir.root.join("app");
    std::fs::create_dir_all(repo.join(".git")).expect("a .git directory");
    std::fs::write(repo.join(".git/HEAD"), "ref: refs/heads/main\n").expect("HEAD");
    dir.file("app/tekton/tasks/build.yaml", BUILD_TASK);
    dir.file("app/.tekton/pr.yaml", &git_pipeline(GIT_REF, "image"));
    let mut seen = lint_dir(&dir.root);
    seen.sort();
    assert_eq!(
        at(&seen),
        [
            "error app/.tekton/pr.yaml:8:9 tekton/missing-param spec.pipelineSpec.tasks[0].name",
            "error app/.tekton/pr.yaml:24:20 tekton/result-reference spec.pipelineSpec.tasks[1].params[0].value",
        ]
    );
    assert!(seen[0].message.contains("[url]"));
    assert!(seen[1].message.contains("did you mean") || seen[1].message.contains("image"));
}

#[test]
fn a_checkout_in_a_directory_of_another_name_is_known_by_its_remote() {
    let dir = Scratch::new("git-remote");
    dir.file(
        "checkout-3/.git/config",
        "[remote \"origin\"]\n\turl = git@github.com:example/app.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n",
    );
    dir.file("checkout-3/tekton/tasks/build.yaml", BUILD_TASK);
    dir.file(
        "checkout-3/.tekton/pr.yaml",
        &git_pipeline(GIT_REF, "digest"),
    );
    let seen = lint_dir(&dir.root);
    assert_eq!(
        at(&seen),
        [
            "error checkout-3/.tekton/pr.yaml:8:9 tekton/missing-param spec.pipelineSpec.tasks[0].name"
        ]
    );
}

#[test]
fn a_git_resolver_ref_to_another_repository_stays_unknown() {
    let dir = Scratch::new("git-resolver-other");
    std::fs::create_dir_all(dir.root.join("app/.git")).expect("a .git directory");
    dir.file("app/tekton/tasks/build.yaml", BUILD_TASK);
    let other = GIT_REF.replace("example/app.git", "example/catalog.git");
    dir.file("app/.tekton/pr.yaml", &git_pipeline(&other, "image"));
    assert_eq!(at(&lint_dir(&dir.root)), Vec::<String>::new());
}

#[test]
fn a_git_resolver_ref_to_a_missing_file_or_a_parameterised_path_stays_unknown() {
    let missing = GIT_REF.replace("tekton/tasks/build.yaml", "tekton/tasks/gone.yaml");
    // Pipelines-as-Code fills `{{ ... }}` in before Tekton sees the file.
    let param = GIT_REF.replace("tekton/tasks/build.yaml", "\"{{ task_path }}\"");
    for task_ref in [missing, param] {
        let seen = lint(&[
            ("tekton/tasks/build.yaml", BUILD_TASK),
            (".tekton/pr.yaml", &git_pipeline(&task_ref, "image")),
        ]);
        // `task_path` is no PaC variable and no Repository is in view: that
        // is a warning of its own, not a resolution.
        let resolved: Vec<String> = at(&seen)
            .into_iter()
            .filter(|f| !f.contains("tekton/pac-placeholder"))
            .collect();
        assert_eq!(resolved, Vec::<String>::new(), "{task_ref}");
    }
}

#[test]
fn without_git_the_lint_root_is_the_repository() {
    // No .git: pathInRepo is relative to the directory linted; the url
    // ends in another name, so only a ref without url is followed.
    let no_url = "          resolver: git
          params:
            - name: pathInRepo
              value: tekton/tasks/build.yaml";
    let seen = lint(&[
        ("tekton/tasks/build.yaml", BUILD_TASK),
        (".tekton/pr.yaml", &git_pipeline(no_url, "digest")),
    ]);
    assert_eq!(
        at(&seen),
        ["error .tekton/pr.yaml:8:9 tekton/missing-param spec.pipelineSpec.tasks[0].name"]
    );
}

fn extra_arg_pipeline(name: &str) -> String {
    format!(
        "\
apiVersion: tekton.dev/v1
kind: Pipeline
metadata:
  name: ci
spec:
  tasks:
    - name: build
      taskRef:
        name: build
      params:
        - name: url
          value: https://example.com/app.git
        - name: {name}
          value: --insecure
"
    )
}

#[test]
fn a_binding_that_nearly_names_a_declared_param_is_a_warning() {
    let seen = lint(&[
        ("task.yaml", BUILD_TASK),
        ("pipeline.yaml", &extra_arg_pipeline("EXTRA_ARG")),
    ]);
    assert_eq!(
        at(&seen),
        ["warning pipeline.yaml:13:17 tekton/unknown-binding spec.tasks[0].params[1].name"]
    );
    assert!(seen[0].message.contains("EXTRA_ARG"));
}

#[test]
fn an_unrelated_or_used_extra_binding_is_not_reported() {
    // Far from every declared name: an extra param Tekton ignores.
    let seen = lint(&[
        ("task.yaml", BUILD_TASK),
        ("pipeline.yaml", &extra_arg_pipeline("verbose")),
    ]);
    assert_eq!(at(&seen), Vec::<String>::new());
    // Near a declared name, but the Task uses it undeclared in a volume:
    // the run passes it there.
    let uses = BUILD_TASK.replace(
        "  steps:\n",
        "  volumes:\n    - name: v\n      configMap:\n        name: $(params.EXTRA_ARG)\n  steps:\n",
    );
    let seen = lint(&[
        ("task.yaml", &uses),
        ("pipeline.yaml", &extra_arg_pipeline("EXTRA_ARG")),
    ]);
    assert_eq!(at(&seen), Vec::<String>::new());
}

#[test]
fn no_binding_warning_when_the_callee_is_unknown() {
    let seen = lint(&[("pipeline.yaml", &extra_arg_pipeline("EXTRA_ARG"))]);
    assert_eq!(at(&seen), Vec::<String>::new());
}

#[test]
fn a_task_in_the_referring_file_is_nearest_of_all() {
    // Upstream's examples: each file brings its own `build`, several files
    // share a directory, and each file's runs mean the Task beside them.
    let own = |param: &str| {
        format!(
            "{}---\n{}",
            BUILD_TASK.replace("url", param),
            extra_arg_pipeline("verbose").replace("name: url", &format!("name: {param}"))
        )
    };
    let seen = lint(&[("a.yaml", &own("repo")), ("b.yaml", &own("revision"))]);
    assert_eq!(at(&seen), Vec::<String>::new());
    // Without the pipeline's binding, each file's own Task is the one
    // whose param is missing.
    let bare = |param: &str| {
        own(param).replace(
            &format!("        - name: {param}\n          value: https://example.com/app.git\n"),
            "",
        )
    };
    let seen = lint(&[("a.yaml", &bare("repo")), ("b.yaml", &bare("revision"))]);
    assert_eq!(seen.len(), 2, "{seen:#?}");
    assert!(seen[0].message.contains("[repo]") && seen[1].message.contains("[revision]"));
}

#[test]
fn equally_near_tasks_that_differ_only_in_workspaces_are_not_followed() {
    let with_ws = BUILD_TASK.replace(
        "  steps:\n",
        "  workspaces:\n    - name: source\n  steps:\n",
    );
    let seen = lint(&[
        ("a/build.yaml", BUILD_TASK),
        ("b/build.yaml", &with_ws),
        (
            "pipeline.yaml",
            &extra_arg_pipeline("verbose").replace(
                "        - name: url\n          value: https://example.com/app.git\n",
                "",
            ),
        ),
    ]);
    assert_eq!(at(&seen), Vec::<String>::new());
}

#[test]
fn a_task_ref_with_a_key_tekton_does_not_know_is_not_followed() {
    // Konflux writes `version:` in taskRefs; its build makes them bundles.
    let pipeline = extra_arg_pipeline("verbose")
        .replace(
            "        name: build\n",
            "        name: build\n        version: \"0.2\"\n",
        )
        .replace(
            "        - name: url\n          value: https://example.com/app.git\n",
            "",
        );
    let seen = lint(&[("task.yaml", BUILD_TASK), ("pipeline.yaml", &pipeline)]);
    assert_eq!(at(&seen), Vec::<String>::new());
}

/// A PipelineRun handing a list of maps to the param `fetch` of its
/// pipeline's task, which runs `callee`.
fn fetch_run(callee: &str) -> String {
    format!(
        "\
apiVersion: tekton.dev/v1
kind: PipelineRun
metadata:
  name: fetch-run
spec:
  pipelineSpec:
    tasks:
      - name: fetch
        params:
          - name: fetch
            value:
              - path: .
                kind: gomod
              - path: web
                depth: 2
{callee}"
    )
}

/// An inline Task declaring `fetch` of type `ty`.
fn fetch_spec(ty: &str) -> String {
    format!(
        "        taskSpec:
          params:
            - name: fetch
              type: {ty}
          steps:
            - name: s
              image: busybox
              script: echo fetched
"
    )
}

#[test]
fn a_list_of_maps_bound_to_a_string_param_is_its_json_text() {
    // Tekton keeps a value that is neither []string nor map[string]string
    // as its JSON text: a string param takes it.
    let run = fetch_run(&fetch_spec("string"));
    assert_eq!(at(&lint(&[("run.yaml", &run)])), Vec::<String>::new());
}

#[test]
fn a_list_of_maps_bound_to_an_array_param_reports_each_member() {
    let run = fetch_run(&fetch_spec("array"));
    assert_eq!(
        at(&lint(&[("run.yaml", &run)])),
        [
            "error run.yaml:12:17 tekton/value-type spec.pipelineSpec.tasks[0].params[0].value[0]",
            "error run.yaml:14:17 tekton/value-type spec.pipelineSpec.tasks[0].params[0].value[1]",
        ]
    );
}

#[test]
fn a_list_of_maps_bound_to_an_unknown_callee_is_not_reported() {
    let run = fetch_run("        taskRef:\n          name: fetch-from-the-cluster\n");
    assert_eq!(at(&lint(&[("run.yaml", &run)])), Vec::<String>::new());
}

#[test]
fn a_v1alpha1_pipeline_kind_is_a_warning_at_its_api_version() {
    let task = "\
apiVersion: tekton.dev/v1alpha1
kind: Task
metadata:
  name: old
spec:
  steps:
    - name: s
      image: busybox
      script: echo $(params.never-declared)
---
apiVersion: tekton.dev/v1alpha1
kind: StepAction
metadata:
  name: still-served
";
    let seen = lint(&[("old.yaml", task)]);
    assert_eq!(
        at(&seen),
        ["warning old.yaml:1:13 tekton/removed-api-version apiVersion"]
    );
    assert!(
        seen[0].message.contains("tekton.dev/v1"),
        "{}",
        seen[0].message
    );
}

/// A named Task whose sidecar reads `$(params.{used})`; it declares
/// `revision` and `image1`.
fn sidecar_task(used: &str) -> String {
    format!(
        "\
apiVersion: tekton.dev/v1
kind: Task
metadata:
  name: serve
spec:
  params:
    - name: revision
    - name: image1
  steps:
    - name: s
      image: busybox
      script: echo $(params.revision) $(params.image1)
  sidecars:
    - name: cache
      image: registry/cache
      env:
        - name: REV
          value: $(params.{used})
"
    )
}

#[test]
fn a_near_miss_of_a_declared_param_outside_the_webhook_fields_is_a_typo() {
    // No run in view: an unknown name there may be passed by one, but one
    // within two edits of a declared param is a typo.
    let seen = lint(&[("task.yaml", &sidecar_task("revison"))]);
    assert_eq!(
        at(&seen),
        ["warning task.yaml:18:18 tekton/param-reference spec.sidecars[0].env[0].value"]
    );
    assert!(seen[0].message.contains("$(params.revison)"));
}

#[test]
fn a_far_or_sibling_name_outside_the_webhook_fields_is_left_to_the_runs() {
    for used in ["cacheKey", "image2"] {
        let seen = lint(&[("task.yaml", &sidecar_task(used))]);
        assert_eq!(at(&seen), Vec::<String>::new(), "{used}");
    }
}

/// A Task `deploy` that requires the param `manifest`.
const DEPLOY_TASK: &str = "\
apiVersion: tekton.dev/v1
kind: Task
metadata:
  name: deploy
spec:
  params:
    - name: manifest
  steps:
    - name: apply
      image: bitnami/kubectl
      script: kubectl apply -f $(params.manifest)
";

/// A Pipeline that runs the Task `deploy` without binding a param.
const DEPLOY_PIPELINE: &str = "\
apiVersion: tekton.dev/v1
kind: Pipeline
metadata:
  name: release
spec:
  tasks:
    - name: deploy
      taskRef:
        name: deploy
";

#[test]
fn a_task_of_another_git_repository_is_never_the_one_meant() {
    // A workspace of two checkouts: the tutorial's Task is not what the
    // cli's test data runs, whatever the names.
    let dir = Scratch::new("checkouts");
    std::fs::create_dir_all(dir.root.join("cli/.git")).expect("a .git directory");
    std::fs::create_dir_all(dir.root.join("tutorial/.git")).expect("a .git directory");
    dir.file("cli/test/testdata/pipeline.yaml", DEPLOY_PIPELINE);
    dir.file("tutorial/tasks/deploy.yaml", DEPLOY_TASK);
    assert_eq!(at(&lint_dir(&dir.root)), Vec::<String>::new());
    // Linted alone, each checkout gives the same: nothing.
    assert_eq!(at(&lint_dir(&dir.root.join("cli"))), Vec::<String>::new());
}

#[test]
fn without_git_the_whole_tree_is_one_repository() {
    // No `.git` anywhere: the nearest Task of the name is followed, across
    // folders, as before.
    let seen = lint(&[
        ("cli/test/testdata/pipeline.yaml", DEPLOY_PIPELINE),
        ("tutorial/tasks/deploy.yaml", DEPLOY_TASK),
    ]);
    assert_eq!(
        at(&seen),
        ["error cli/test/testdata/pipeline.yaml:7:7 tekton/missing-param spec.tasks[0].name"]
    );
}

/// A release Pipeline naming its Task by `resolver: git` through its own
/// params, as catalog repositories do; `{default}` is the default of
/// `taskGitUrl`. Its second task reads the result `{result}`.
fn release_pipeline(default: &str, result: &str) -> String {
    let report = report_task(result, "    ");
    format!(
        "\
apiVersion: tekton.dev/v1
kind: Pipeline
metadata:
  name: release
spec:
  params:
    - name: taskGitUrl
      default: {default}
    - name: taskGitRevision
      default: main
  tasks:
    - name: build
      taskRef:
        resolver: git
        params:
          - name: url
            value: $(params.taskGitUrl)
          - name: revision
            value: $(params.taskGitRevision)
          - name: pathInRepo
            value: tekton/tasks/build.yaml
      params:
        - name: url
          value: https://example.com/app.git
{report}"
    )
}

/// The findings of a checkout `app` holding the Task `build` and the
/// release Pipeline whose `taskGitUrl` defaults to `default`.
fn lint_release(default: &str) -> Vec<Seen> {
    let dir = Scratch::new("resolver-param");
    std::fs::create_dir_all(dir.root.join("app/.git")).expect("a .git directory");
    dir.file("app/tekton/tasks/build.yaml", BUILD_TASK);
    let pipeline = release_pipeline(default, "digset");
    dir.file("app/pipelines/release.yaml", &pipeline);
    lint_dir(&dir.root)
}

#[test]
fn a_git_resolver_param_from_a_pipeline_param_is_its_default() {
    let seen = lint_release("https://github.com/example/app.git");
    assert_eq!(
        at(&seen),
        [
            "error app/pipelines/release.yaml:28:18 tekton/result-reference spec.tasks[1].params[0].value"
        ]
    );
    assert!(seen[0].message.contains("digset"), "{}", seen[0].message);
}

#[test]
fn a_git_resolver_param_whose_default_names_another_repository_stays_unknown() {
    let seen = lint_release("https://github.com/example/catalog.git");
    assert_eq!(at(&seen), Vec::<String>::new());
}

#[test]
fn a_run_binding_of_a_resolver_param_wins_over_the_default() {
    // The same Pipeline inline in a PipelineRun that binds taskGitUrl to
    // another repository: the Task there is unknown.
    let pipeline = release_pipeline("https://github.com/example/app.git", "digset");
    let (_, body) = pipeline.split_once("spec:\n").expect("a spec");
    let inline: String = body.lines().map(|l| format!("    {l}\n")).collect();
    let run = |url: &str| {
        format!(
            "apiVersion: tekton.dev/v1\nkind: PipelineRun\nmetadata:\n  name: release-run\nspec:\n  params:\n    - name: taskGitUrl\n      value: {url}\n  pipelineSpec:\n{inline}"
        )
    };
    let dir = Scratch::new("resolver-param-run");
    std::fs::create_dir_all(dir.root.join("app/.git")).expect("a .git directory");
    dir.file("app/tekton/tasks/build.yaml", BUILD_TASK);
    dir.file(
        "app/runs/other.yaml",
        &run("https://github.com/example/catalog.git"),
    );
    assert_eq!(at(&lint_dir(&dir.root)), Vec::<String>::new());
    dir.file(
        "app/runs/other.yaml",
        &run("git@github.com:example/app.git"),
    );
    let seen = lint_dir(&dir.root);
    assert_eq!(seen.len(), 1, "{:?}", at(&seen));
    assert!(seen[0].message.contains("digset"), "{}", seen[0].message);
}

/// A Pipelines-as-Code PipelineRun with unquoted placeholders; `{extra}`
/// is bound to the param `extra`.
fn pac_run(extra: &str) -> String {
    format!(
        "\
apiVersion: tekton.dev/v1
kind: PipelineRun
metadata:
  name: {{{{repo_name}}}}-on-push
  annotations:
    pipelinesascode.tekton.dev/on-event: push
spec:
  params:
    - name: url
      value: {{{{repo_url}}}}
    - name: revision
      value: {{{{ revision }}}}
    - name: extra
      value: {extra}
  pipelineSpec:
    params:
      - name: url
      - name: revision
      - name: extra
    tasks:
      - name: show
        taskSpec:
          steps:
            - name: s
              image: busybox
              script: |
                echo $(params.url) $(params.revision) $(params.extra)
                docker inspect -f '{{{{.State.Status}}}}{{{{end}}}}' app
            - name: list
              image: bitnami/kubectl
              args: [get, pods, -o, 'go-template={{{{range .items}}}}{{{{.metadata.name}}}}{{{{end}}}}']
"
    )
}

#[test]
fn pac_placeholders_are_filled_in_before_the_yaml_is_parsed() {
    let seen = lint(&[(".tekton/push.yaml", &pac_run("{{ target_branch }}"))]);
    assert_eq!(at(&seen), Vec::<String>::new());
}

#[test]
fn a_placeholder_pac_does_not_define_is_a_warning() {
    let seen = lint(&[(".tekton/push.yaml", &pac_run("{{ revison }}"))]);
    assert_only(
        &seen,
        "warning .tekton/push.yaml:14:14 tekton/pac-placeholder spec.params[2].value",
        "{{revison}}",
    );
}

/// `seen` is the one finding `expected` (as [`at`] writes it), whose
/// message holds `says`.
fn assert_only(seen: &[Seen], expected: &str, says: &str) {
    assert_eq!(at(seen), [expected]);
    assert!(seen[0].message.contains(says), "{}", seen[0].message);
}

#[test]
fn a_repository_in_view_defines_its_params_as_placeholders() {
    // A name near no variable PaC defines may be a param of a Repository
    // on the cluster, or meant for a later tool (`{{hash}}`): no finding.
    let run = pac_run("{{ image_repo }}");
    let seen = lint(&[(".tekton/push.yaml", &run)]);
    assert_eq!(at(&seen), Vec::<String>::new());
    let repository = "\
apiVersion: pipelinesascode.tekton.dev/v1alpha1
kind: Repository
metadata:
  name: app
spec:
  url: https://github.com/example/app
  params:
    - name: image_repo
      value: quay.io/example/app
";
    let seen = lint(&[
        (".tekton/push.yaml", &run),
        ("deploy/repository.yaml", repository),
    ]);
    assert_eq!(at(&seen), Vec::<String>::new());
    // A near miss of the Repository's param is a typo.
    let typo = pac_run("{{ image_rep }}");
    let seen = lint(&[
        (".tekton/push.yaml", &typo),
        ("deploy/repository.yaml", repository),
    ]);
    assert_only(
        &seen,
        "warning .tekton/push.yaml:14:14 tekton/pac-placeholder spec.params[2].value",
        "{{image_rep}}",
    );
}

#[test]
fn outside_pac_an_unquoted_placeholder_is_still_a_syntax_error() {
    let run = pac_run("plain").replace(
        "  annotations:\n    pipelinesascode.tekton.dev/on-event: push\n",
        "",
    );
    let seen = lint(&[("pipelines/push.yaml", &run)]);
    assert_eq!(seen.len(), 1, "{:?}", at(&seen));
    assert_eq!(seen[0].rule, "yaml/syntax");
}

#[test]
fn in_a_pac_template_repo_url_names_this_repository() {
    let own = GIT_REF
        .replace("https://github.com/example/app.git", "'{{ repo_url }}'")
        .replace("value: main", "value: '{{revision}}'");
    for (file, followed) in [("app/.tekton/pr.yaml", true), ("app/ci/pr.yaml", false)] {
        let dir = Scratch::new("pac-repo-url");
        std::fs::create_dir_all(dir.root.join("app/.git")).expect("a .git directory");
        dir.file("app/tekton/tasks/build.yaml", BUILD_TASK);
        dir.file(file, &git_pipeline(&own, "digest"));
        let missing: Vec<Seen> = lint_dir(&dir.root)
            .into_iter()
            .filter(|s| s.rule == "tekton/missing-param")
            .collect();
        assert_eq!(missing.len(), usize::from(followed), "{file}: {missing:?}");
    }
}
