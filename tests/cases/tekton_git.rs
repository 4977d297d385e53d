//! Tekton in checkouts: `resolver: git` refs to files of the same
//! repository (spec § 2.1), known by the checkout's `.git` and its remote.
//! A case folder cannot hold a `.git`, so these trees are made here; the
//! trees without one are case folders under tests/cases/tekton.

use crate::tekton_support;

use tekton_support::{Scratch, Seen, lint_dir};

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
