//! The Tekton navigator on fixture workspaces and on the corpus.

use super::navigator;
use crate::navigate::{Context, Navigator, WorkspaceMemo};
use crate::source::{SourceFile, Sources, Span};
use std::path::{Path, PathBuf};

const TASK: &str = r#"apiVersion: tekton.dev/v1
kind: Task
metadata:
  name: build
spec:
  description: Builds an image.
  params:
    - name: revision
      type: string
      default: main
      description: The revision to build.
    - name: flags
      type: array
      default: ["-v"]
    - name: target
      type: object
      properties:
        url: {type: string}
        branch: {type: string}
  results:
    - name: digest
      description: The image digest.
    - name: files
      type: array
  workspaces:
    - name: source
      description: Where the sources are.
  steps:
    - name: compile
      image: golang
      args: ["$(params.flags[*])"]
      results:
        - name: log
      script: |
        echo $(params.revision) $(params["revision"]) $(params.target.url)
        cd $(workspaces.source.path)
        echo done > $(results.digest.path)
        echo $(context.taskRun.name) $(params.nope)
    - name: after
      image: alpine
      script: echo $(steps.compile.results.log)
"#;

const PIPELINE: &str = r#"apiVersion: tekton.dev/v1
kind: Pipeline
metadata:
  name: ci
spec:
  params:
    - name: rev
      default: main
  workspaces:
    - name: shared
  tasks:
    - name: build-it
      taskRef:
        name: build
      params:
        - name: revision
          value: $(params.rev)
      workspaces:
        - name: source
          workspace: shared
    - name: report
      runAfter: [build-it]
      taskSpec:
        params:
          - name: digest
        steps:
          - name: show
            image: alpine
            script: echo $(params.digest) $(params.rev)
      params:
        - name: digest
          value: $(tasks.build-it.results.digest)
    - name: remote
      taskRef:
        resolver: git
        params:
          - name: pathInRepo
            value: tasks/build.yaml
    - name: on-cluster
      taskRef:
        name: cluster-only
  results:
    - name: files
      value: $(tasks.build-it.results.files[*])
"#;

const RUN: &str = r#"apiVersion: tekton.dev/v1
kind: PipelineRun
metadata:
  name: ci-run
spec:
  pipelineRef:
    name: ci
  params:
    - name: rev
      value: v1.2
"#;

const TRIGGER: &str = r#"apiVersion: triggers.tekton.dev/v1beta1
kind: TriggerTemplate
metadata:
  name: on-push
spec:
  params:
    - name: revision
      description: The pushed commit.
  resourcetemplates:
    - apiVersion: tekton.dev/v1
      kind: PipelineRun
      metadata:
        generateName: ci-
      spec:
        pipelineRef:
          name: ci
        params:
          - name: rev
            value: $(tt.params.revision)
"#;

/// A fresh workspace folder holding `files`.
fn workspace(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let root =
        std::env::temp_dir().join(format!("confvet-nav-tekton-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    for (rel, text) in files {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    root
}

fn fixture(name: &str) -> PathBuf {
    workspace(
        name,
        &[
            ("tasks/build.yaml", TASK),
            ("pipelines/ci.yaml", PIPELINE),
            ("runs/run.yaml", RUN),
            ("triggers/tt.yaml", TRIGGER),
        ],
    )
}

/// The document `rel` of `root` opened with `text` as the server does.
struct Open {
    sources: Sources,
    text: String,
    nav: Option<Box<dyn Navigator>>,
}

/// Build `make`'s navigator for document `rel` of `root` holding `text`,
/// with the context the server gives it.
pub(crate) fn open_as_server(
    root: &Path,
    rel: &str,
    text: &str,
    memo: &WorkspaceMemo,
    make: fn(&Context) -> Option<Box<dyn Navigator>>,
) -> (Sources, Option<Box<dyn Navigator>>) {
    let path = root.join(rel);
    let sources = Sources::new();
    sources.set_stdin(path.clone(), text.as_bytes().to_vec());
    let file = sources.add(SourceFile::new(
        rel.to_string(),
        Some(path.clone()),
        text.to_string(),
    ));
    let cx = Context {
        sources: &sources,
        file,
        path: &path,
        root,
        config: None,
        memo,
    };
    let nav = make(&cx);
    (sources, nav)
}

fn open_with(root: &Path, rel: &str, text: &str, memo: &WorkspaceMemo) -> Open {
    let (sources, nav) = open_as_server(root, rel, text, memo, navigator);
    Open {
        sources,
        text: text.to_string(),
        nav,
    }
}

fn open(root: &Path, rel: &str, memo: &WorkspaceMemo) -> Open {
    let text = std::fs::read_to_string(root.join(rel)).unwrap();
    open_with(root, rel, &text, memo)
}

impl Open {
    fn nav(&self) -> &dyn Navigator {
        self.nav.as_deref().expect("a Tekton navigator")
    }

    /// The offset `delta` bytes into the `nth` occurrence of `needle`.
    fn at(&self, needle: &str, nth: usize, delta: usize) -> usize {
        let found: Vec<usize> = self.text.match_indices(needle).map(|(i, _)| i).collect();
        found[nth] + delta
    }

    fn hover(&self, needle: &str, nth: usize, delta: usize) -> Option<String> {
        let h = self.nav().hover(self.at(needle, nth, delta))?;
        Some(h.markdown)
    }

    /// Each definition as (file name, line, the text it spans).
    fn definition(&self, needle: &str, nth: usize, delta: usize) -> Vec<(String, usize, String)> {
        let spans: Vec<Span> = self.nav().definition(self.at(needle, nth, delta));
        spans
            .into_iter()
            .map(|s| {
                let f = self.sources.get(s.file);
                let line = f.line_col(s.start as usize).line;
                (f.name.clone(), line, f.text[s.range()].to_string())
            })
            .collect()
    }

    fn labels(&self, needle: &str, nth: usize, delta: usize) -> Vec<String> {
        let mut labels: Vec<String> = self
            .nav()
            .completions(self.at(needle, nth, delta))
            .into_iter()
            .map(|c| c.label)
            .collect();
        labels.sort();
        labels
    }
}

fn def(file: &str, line: usize, text: &str) -> (String, usize, String) {
    (file.to_string(), line, text.to_string())
}

#[test]
fn params_of_a_task_hover_with_their_declaration() {
    let root = fixture("params");
    let memo = WorkspaceMemo::default();
    let doc = open(&root, "tasks/build.yaml", &memo);
    let md = doc.hover("$(params.revision)", 0, 5).unwrap();
    assert!(md.starts_with("**param** `revision`: string\n"), "{md}");
    assert!(md.contains("default: `\"main\"`"), "{md}");
    assert!(md.contains("The revision to build."), "{md}");
    assert!(
        md.contains("Declared in this Task `build` (line 8)"),
        "{md}"
    );
    // The bracket form names the same param.
    assert_eq!(doc.hover("$(params[\"revision\"])", 0, 12).unwrap(), md);
    let arr = doc.hover("$(params.flags[*])", 0, 10).unwrap();
    assert!(arr.starts_with("**param** `flags`: array\n"), "{arr}");
    assert!(arr.contains("default: `[\"-v\"]`"), "{arr}");
    let obj = doc.hover("$(params.target.url)", 0, 10).unwrap();
    assert!(obj.contains("`target`: object"), "{obj}");
    assert!(obj.contains("properties: `url`, `branch`"), "{obj}");
    // Undeclared: nothing.
    assert_eq!(doc.hover("$(params.nope)", 0, 10), None);
    assert!(doc.definition("$(params.nope)", 0, 10).is_empty());
    // Outside any expression: nothing.
    assert_eq!(doc.hover("image: golang", 0, 9), None);
    let h = doc.nav().hover(doc.at("$(params.revision)", 0, 5)).unwrap();
    assert_eq!(&doc.text[h.span.range()], "$(params.revision)");
    assert_eq!(
        doc.definition("$(params.revision)", 0, 10),
        vec![def("tasks/build.yaml", 8, "revision")]
    );
    assert_eq!(
        doc.definition("$(params.target.url)", 0, 17),
        vec![def("tasks/build.yaml", 15, "target")]
    );
}

#[test]
fn results_workspaces_steps_and_context_of_a_task() {
    let root = fixture("results");
    let memo = WorkspaceMemo::default();
    let doc = open(&root, "tasks/build.yaml", &memo);
    let r = doc.hover("$(results.digest.path)", 0, 12).unwrap();
    assert!(r.starts_with("**result** `digest`: string"), "{r}");
    assert!(r.contains("The image digest."), "{r}");
    assert_eq!(
        doc.definition("$(results.digest.path)", 0, 12),
        vec![def("tasks/build.yaml", 21, "digest")]
    );
    let w = doc.hover("$(workspaces.source.path)", 0, 14).unwrap();
    assert!(w.starts_with("**workspace** `source`\n"), "{w}");
    assert!(w.contains("the path the workspace is mounted at"), "{w}");
    assert!(w.contains("Where the sources are."), "{w}");
    assert_eq!(
        doc.definition("$(workspaces.source.path)", 0, 14),
        vec![def("tasks/build.yaml", 26, "source")]
    );
    let c = doc.hover("$(context.taskRun.name)", 0, 4).unwrap();
    assert!(
        c.contains("the name of the TaskRun running this Task"),
        "{c}"
    );
    let s = doc.hover("$(steps.compile.results.log)", 0, 26).unwrap();
    assert!(s.starts_with("**result** `log`"), "{s}");
    assert_eq!(
        doc.definition("$(steps.compile.results.log)", 0, 26),
        vec![def("tasks/build.yaml", 33, "log")]
    );
    assert_eq!(
        doc.definition("$(steps.compile.results.log)", 0, 10),
        vec![def("tasks/build.yaml", 29, "compile")]
    );
}

#[test]
fn a_pipeline_reaches_the_tasks_it_runs() {
    let root = fixture("pipeline");
    let memo = WorkspaceMemo::default();
    let doc = open(&root, "pipelines/ci.yaml", &memo);
    // taskRef name: the Task's metadata.name, and its interface.
    assert_eq!(
        doc.definition("name: build\n", 0, 8),
        vec![def("tasks/build.yaml", 4, "build")]
    );
    let md = doc.hover("name: build\n", 0, 8).unwrap();
    assert!(
        md.starts_with("**Task** `build`\n\nBuilds an image.\n"),
        "{md}"
    );
    assert!(md.contains("- `revision`: string = `\"main\"`\n"), "{md}");
    assert!(md.contains("- `flags`: array = `[\"-v\"]`\n"), "{md}");
    assert!(md.contains("- `target`: object\n"), "{md}");
    assert!(md.contains("(tasks/build.yaml:4)"), "{md}");
    // A resolver or a Task only on the cluster: nothing.
    assert!(doc.definition("name: cluster-only", 0, 8).is_empty());
    assert_eq!(doc.hover("name: cluster-only", 0, 8), None);
    assert!(doc.definition("value: tasks/build.yaml", 0, 10).is_empty());
    // A task result: the result in the Task the pipeline task runs.
    let r = doc
        .hover("$(tasks.build-it.results.digest)", 0, 27)
        .unwrap();
    assert!(r.starts_with("**result** `digest`: string"), "{r}");
    assert!(r.contains("The image digest."), "{r}");
    assert!(r.contains("Task `build` (tasks/build.yaml:21)"), "{r}");
    assert_eq!(
        doc.definition("$(tasks.build-it.results.digest)", 0, 27),
        vec![def("tasks/build.yaml", 21, "digest")]
    );
    // On the pipeline task's name: the pipeline task.
    assert_eq!(
        doc.definition("$(tasks.build-it.results.digest)", 0, 10),
        vec![def("pipelines/ci.yaml", 12, "build-it")]
    );
    let files = doc
        .hover("$(tasks.build-it.results.files[*])", 0, 27)
        .unwrap();
    assert!(files.starts_with("**result** `files`: array"), "{files}");
    assert_eq!(
        doc.definition("runAfter: [build-it]", 0, 12),
        vec![def("pipelines/ci.yaml", 12, "build-it")]
    );
    // A pipeline task's param name: the Task's ParamSpec.
    assert_eq!(
        doc.definition("- name: revision", 0, 9),
        vec![def("tasks/build.yaml", 8, "revision")]
    );
    // Inside an embedded taskSpec: its own params, then the Pipeline's.
    assert_eq!(
        doc.definition("$(params.digest)", 0, 10),
        vec![def("pipelines/ci.yaml", 25, "digest")]
    );
    let own = doc.hover("$(params.digest)", 0, 10).unwrap();
    assert!(
        own.contains("the taskSpec of pipeline task `report` (line 25)"),
        "{own}"
    );
    assert_eq!(
        doc.definition("$(params.rev)", 1, 10),
        vec![def("pipelines/ci.yaml", 7, "rev")]
    );
}

#[test]
fn runs_and_trigger_templates_bind_declared_params() {
    let root = fixture("runs");
    let memo = WorkspaceMemo::default();
    let run = open(&root, "runs/run.yaml", &memo);
    assert_eq!(
        run.definition("name: ci\n", 0, 7),
        vec![def("pipelines/ci.yaml", 4, "ci")]
    );
    assert_eq!(
        run.definition("name: rev", 0, 7),
        vec![def("pipelines/ci.yaml", 7, "rev")]
    );
    let md = run.hover("name: rev", 0, 7).unwrap();
    assert!(md.contains("Pipeline `ci` (pipelines/ci.yaml:7)"), "{md}");
    let tt = open(&root, "triggers/tt.yaml", &memo);
    let md = tt.hover("$(tt.params.revision)", 0, 12).unwrap();
    assert!(md.contains("The pushed commit."), "{md}");
    assert_eq!(
        tt.definition("$(tt.params.revision)", 0, 12),
        vec![def("triggers/tt.yaml", 7, "revision")]
    );
    assert_eq!(
        tt.definition("name: rev\n", 0, 7),
        vec![def("pipelines/ci.yaml", 7, "rev")]
    );
}

#[test]
fn completion_offers_the_names_in_scope() {
    let root = fixture("completion");
    let memo = WorkspaceMemo::default();
    let edited = PIPELINE.replace(
        "script: echo $(params.digest) $(params.rev)",
        "script: echo $(params.di $(tasks. $(tasks.build-it.results. $(workspaces.",
    );
    let doc = open_with(&root, "pipelines/ci.yaml", &edited, &memo);
    assert_eq!(doc.labels("$(params.di", 0, 11), ["digest", "rev"]);
    let c = doc.nav().completions(doc.at("$(params.di", 0, 11));
    assert_eq!(&doc.text[c[0].replace.range()], "di");
    // Inline steps consume results too (spec § 7.1): the pipeline's tasks.
    assert_eq!(
        doc.labels("$(tasks. ", 0, 8),
        ["build-it", "on-cluster", "remote", "report"]
    );
    assert_eq!(doc.labels("$(workspaces.", 0, 13), ["shared"]);
    let edited = PIPELINE.replace(
        "value: $(tasks.build-it.results.files[*])",
        "value: $(tasks.build-it.results. $(tasks.b",
    );
    let doc = open_with(&root, "pipelines/ci.yaml", &edited, &memo);
    assert_eq!(
        doc.labels("$(tasks.build-it.results. ", 0, 25),
        ["digest", "files"]
    );
    let c = doc.nav().completions(doc.at("$(tasks.b", 0, 9));
    let labels: Vec<&str> = c.iter().map(|c| c.label.as_str()).collect();
    assert_eq!(labels, ["build-it", "report", "remote", "on-cluster"]);
    assert_eq!(&doc.text[c[0].replace.range()], "b");
    // Outside a `$(`: nothing.
    assert!(doc.labels("name: ci", 0, 8).is_empty());
    let edited = TASK.replace("$(params.nope)", "$(params. $(results.");
    let task = open_with(&root, "tasks/build.yaml", &edited, &memo);
    assert_eq!(
        task.labels("$(params. ", 0, 9),
        ["flags", "revision", "target"]
    );
    let c = task.nav().completions(task.at("$(params. ", 0, 9));
    let flags = c.iter().find(|c| c.label == "flags").unwrap();
    assert_eq!(flags.detail.as_deref(), Some("array"));
    assert_eq!(task.labels("$(results.", 0, 10), ["digest", "files"]);
    let tt = TRIGGER.replace("$(tt.params.revision)", "$(tt.params.");
    let tt = open_with(&root, "triggers/tt.yaml", &tt, &memo);
    assert_eq!(tt.labels("$(tt.params.", 0, 12), ["revision"]);
}

#[test]
fn the_open_buffer_stands_in_for_its_file() {
    let root = fixture("buffer");
    let memo = WorkspaceMemo::default();
    // The memo is built from the disk first.
    let _ = open(&root, "pipelines/ci.yaml", &memo);
    let edited = TASK.replace("name: digest", "name: image-digest");
    let task = open_with(&root, "tasks/build.yaml", &edited, &memo);
    assert!(task.nav.is_some());
    // A pipeline sees the disk (the memo); its buffer overlays only itself.
    let renamed = PIPELINE.replace("name: build\n", "name: build\n  # x\n");
    let doc = open_with(&root, "pipelines/ci.yaml", &renamed, &memo);
    assert_eq!(
        doc.definition("$(tasks.build-it.results.digest)", 0, 27),
        vec![def("tasks/build.yaml", 21, "digest")]
    );
}

#[test]
fn equally_near_tasks_that_differ_are_all_definitions_and_no_hover() {
    let other = TASK.replace("name: digest", "name: sha");
    let root = workspace(
        "ambiguous",
        &[
            ("a/build.yaml", TASK),
            ("b/build.yaml", &other),
            ("pipelines/ci.yaml", PIPELINE),
        ],
    );
    let memo = WorkspaceMemo::default();
    let doc = open(&root, "pipelines/ci.yaml", &memo);
    let defs = doc.definition("name: build\n", 0, 8);
    assert_eq!(
        defs,
        vec![
            def("a/build.yaml", 4, "build"),
            def("b/build.yaml", 4, "build")
        ]
    );
    assert_eq!(doc.hover("name: build\n", 0, 8), None);
    assert_eq!(doc.hover("$(tasks.build-it.results.digest)", 0, 27), None);
}

#[test]
fn a_matrix_task_result_is_consumed_as_an_array() {
    let fanned = PIPELINE.replace(
        "      taskRef:\n        name: build\n",
        "      taskRef:\n        name: build\n      matrix:\n        params:\n          - name: flags\n            value: [a, b]\n",
    );
    let root = workspace(
        "matrix",
        &[("tasks/build.yaml", TASK), ("pipelines/ci.yaml", &fanned)],
    );
    let memo = WorkspaceMemo::default();
    let doc = open(&root, "pipelines/ci.yaml", &memo);
    let md = doc
        .hover("$(tasks.build-it.results.digest)", 0, 27)
        .unwrap();
    assert!(md.contains("consumed as an array"), "{md}");
}

#[test]
fn other_files_have_no_tekton_navigator() {
    let root = fixture("other");
    let memo = WorkspaceMemo::default();
    let doc = open_with(
        &root,
        "k8s.yaml",
        "apiVersion: v1\nkind: ConfigMap\n",
        &memo,
    );
    assert!(doc.nav.is_none());
}

#[test]
fn corpus_embedded_specs_and_catalog_samples() {
    if std::env::var_os("CONFVET_REQUIRE_SHARED").is_none()
        && !Path::new("../shared/corpus/tekton").exists()
    {
        return;
    }
    let root = std::fs::canonicalize("../shared/corpus/tekton").unwrap();
    let memo = WorkspaceMemo::default();
    let rel = "tektoncd-pipeline/examples/v1/pipelineruns/pipelinerun-param-array-indexing.yaml";
    let doc = open(&root, rel, &memo);
    let md = doc.hover("\"$(params.environment1)\"", 0, 5).unwrap();
    assert!(md.starts_with("**param** `environment1`: string"), "{md}");
    assert!(
        md.contains("the taskSpec of pipeline task `deploy`"),
        "{md}"
    );
    let defs = doc.definition("\"$(params.environment1)\"", 0, 12);
    assert_eq!(defs.len(), 1);
    assert_eq!(defs[0].2, "environment1");
    assert_eq!(defs[0].1, 20);
    let arr = doc.hover("'$(params.environments[0])'", 0, 12).unwrap();
    assert!(arr.starts_with("**param** `environments`: array"), "{arr}");
}

/// The memo's build, then a navigator's build and one answer of each kind
/// for a Pipeline of a big workspace (the corpus copied ten times by
/// `scripts/corpus-copies.sh`): `CONFVET_NAV_BENCH=<workspace> cargo test
/// --release --lib measure_on_a_big_workspace -- --ignored --nocapture`.
#[test]
#[ignore = "a measurement on a workspace named by CONFVET_NAV_BENCH"]
fn measure_on_a_big_workspace() {
    use std::time::{Duration, Instant};
    let Some(root) = std::env::var_os("CONFVET_NAV_BENCH").map(PathBuf::from) else {
        return;
    };
    let memo = WorkspaceMemo::default();
    let started = Instant::now();
    let index = memo.get_or_insert_with(super::index::MEMO_KEY, || {
        super::index::Index::build(&root, None)
    });
    assert!(index.is_some());
    eprintln!("memo build: {:?}", started.elapsed());
    let rel = "copy5/tekton/tektoncd-catalog/pipeline/buildpacks/0.2/buildpacks.yaml";
    let text = std::fs::read_to_string(root.join(rel)).unwrap();
    let edited = text.replacen("\"$(params.TRUST_BUILDER)\"", "\"$(params.TR\"", 1);
    let median = |mut times: Vec<Duration>| {
        times.sort();
        times[times.len() / 2]
    };
    let (mut build, mut hover, mut definition, mut completion) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..20 {
        let started = Instant::now();
        let doc = open_with(&root, rel, &text, &memo);
        doc.nav();
        build.push(started.elapsed());
        let at = doc.at("$(params.TRUST_BUILDER)", 0, 10);
        let started = Instant::now();
        assert!(doc.nav().hover(at).is_some());
        hover.push(started.elapsed());
        let started = Instant::now();
        assert_eq!(doc.nav().definition(at).len(), 1);
        definition.push(started.elapsed());
        let typed = open_with(&root, rel, &edited, &memo);
        let at = typed.at("$(params.TR\"", 0, 11);
        let started = Instant::now();
        assert!(!typed.nav().completions(at).is_empty());
        completion.push(started.elapsed());
    }
    eprintln!(
        "navigator build {:?}, hover {:?}, definition {:?}, completion {:?} (medians of 20)",
        median(build),
        median(hover),
        median(definition),
        median(completion)
    );
}

/// `$(tasks.T.results.R)` in an inline `taskSpec`'s steps (upstream
/// substitutes it there, and lint checks it) hovers, goes to the result
/// and completes as it does in the pipeline task's params.
#[test]
fn a_task_result_in_inline_steps_hovers_and_goes_to_its_declaration() {
    let pipeline = PIPELINE.replace(
        "script: echo $(params.digest) $(params.rev)",
        "script: echo $(tasks.build-it.results.digest) $(tasks.build-it.results.f",
    );
    let root = workspace(
        "inline-results",
        &[("tasks/build.yaml", TASK), ("pipelines/ci.yaml", &pipeline)],
    );
    let memo = WorkspaceMemo::default();
    let doc = open(&root, "pipelines/ci.yaml", &memo);
    let md = doc
        .hover("$(tasks.build-it.results.digest) $(", 0, 27)
        .expect("a hover on the result");
    assert!(md.starts_with("**result** `digest`: string"), "{md}");
    assert!(md.contains("Task `build` (tasks/build.yaml:21)"), "{md}");
    assert_eq!(
        doc.definition("$(tasks.build-it.results.digest) $(", 0, 27),
        vec![def("tasks/build.yaml", 21, "digest")]
    );
    assert_eq!(
        doc.definition("$(tasks.build-it.results.digest) $(", 0, 10),
        vec![def("pipelines/ci.yaml", 12, "build-it")]
    );
    assert_eq!(
        doc.labels("$(tasks.build-it.results.f", 0, 26),
        ["digest", "files"]
    );
}
