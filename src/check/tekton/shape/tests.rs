//! The shipped shapes read whole, and the walk on small documents: unknown
//! fields at their keys with their help and fix, the two API versions
//! apart, and nothing inside the places Tekton keeps open.

use super::data::{Shape, Shapes};
use super::*;
use crate::source::SourceFile;
use crate::yaml::{ParseOptions, parse_file};

/// The findings of every document of `text`, each as (path, the text of
/// its span, help), and the text the fixes make.
fn lint(text: &str) -> (Vec<(String, String, Option<String>)>, String) {
    let sources = Sources::new();
    let id = sources.add(SourceFile::new("a.yaml".into(), None, text.into()));
    let set = parse_file(id, text, &ParseOptions::default()).expect("parses");
    let findings: Vec<Finding> = set
        .docs
        .iter()
        .flat_map(|d| check(&d.value, &sources))
        .collect();
    let edits: Vec<&crate::edit::Edit> = findings
        .iter()
        .filter_map(|f| f.fix.as_deref())
        .flat_map(|fix| &fix.edits)
        .collect();
    let fixed = crate::edit::apply_edits(text, &edits);
    let found = findings
        .into_iter()
        .map(|f| {
            let path = f.path.clone().unwrap_or_default();
            (path, text[f.span.range()].to_string(), f.help.clone())
        })
        .collect();
    (found, fixed)
}

fn paths(text: &str) -> Vec<String> {
    lint(text).0.into_iter().map(|(path, ..)| path).collect()
}

#[test]
fn the_shipped_data_reads_and_every_name_in_it_is_defined() {
    let text = include_str!("../data/shapes.json");
    let raw: serde_json::Value = serde_json::from_str(text).expect("JSON");
    let types = raw["types"].as_object().expect("types");
    let kubernetes = raw["kubernetes"].as_object().expect("kubernetes");
    for (name, fields) in types {
        for (field, shape) in fields.as_object().expect("fields") {
            let shape = shape.as_str().expect("a shape is a string");
            let inner = shape.trim_start_matches(['[', ']', '{', '}']);
            let known = match inner.strip_prefix("k8s:") {
                Some(k8s) => kubernetes.contains_key(k8s),
                None => matches!(inner, "" | "*" | "@") || types.contains_key(inner),
            };
            assert!(known, "{name}.{field}: {shape} is not defined");
        }
    }
    let shapes = Shapes::get();
    let kinds = raw["kinds"].as_array().expect("kinds");
    assert!(kinds.len() >= 20);
    for kind in kinds {
        let group = kind[0].as_str().unwrap();
        let version = kind[1].as_str().unwrap();
        let name = kind[2].as_str().unwrap();
        assert!(shapes.kind(&format!("{group}/{version}"), name).is_some());
    }
    for version in Version::all() {
        assert_eq!(shapes.missing_kubernetes(version), Vec::<&str>::new());
    }
}

#[test]
fn each_version_has_its_own_fields() {
    let shapes = Shapes::get();
    let field = |ty: &str, key: &str| shapes.type_named(ty).and_then(|t| t.field(key)).cloned();
    assert!(field("v1.Step", "computeResources").is_some());
    assert!(field("v1.Step", "resources").is_none());
    assert!(field("v1beta1.Step", "resources").is_some());
    assert!(field("v1beta1.TaskSpec", "resources").is_some());
    assert!(field("v1.TaskSpec", "resources").is_none());
    assert!(field("v1beta1.TaskRef", "bundle").is_some());
    assert!(field("v1.TaskRef", "bundle").is_none());
    // Values that decode themselves are open.
    assert_eq!(field("v1.Param", "value"), Some(Shape::Open));
    assert_eq!(field("v1.TaskRunSpec", "podTemplate"), Some(Shape::Open));
    // Case does not matter to encoding/json.
    assert!(field("v1.PipelineTask", "RunAfter").is_some());
}

const PIPELINE: &str = "\
apiVersion: tekton.dev/v1
kind: Pipeline
metadata:
  name: ci
  annotations:
    anything: goes
spec:
  params:
    - name: config
      type: object
      properties:
        url: {type: string}
      default: {url: x, more: {deep: [1, {any: thing}]}}
  tasks:
    - name: build
      taskRef: {name: build}
    - name: test
      runAfter: [build]
      params:
        - name: config
          value: {url: $(params.config.url), nested: {free: form}}
      taskSpec:
        metadata:
          labels: {app: ci}
        steps:
          - name: run
            image: busybox
            computeResources: {limits: {cpu: 1}}
            env:
              - name: A
                value: b
";

#[test]
fn a_valid_pipeline_with_open_values_gives_nothing() {
    assert_eq!(lint(PIPELINE).0, vec![]);
    let with_case = PIPELINE.replace("runAfter:", "RunAfter:");
    assert_eq!(lint(&with_case).0, vec![]);
}

#[test]
fn a_misspelt_field_is_reported_at_its_key_and_renamed() {
    let text = PIPELINE.replace("runAfter:", "runAftr:");
    let (found, fixed) = lint(&text);
    assert_eq!(
        found,
        vec![(
            "spec.tasks[1].runAftr".to_string(),
            "runAftr".to_string(),
            Some("did you mean \"runAfter\"?".to_string())
        )]
    );
    assert_eq!(fixed, PIPELINE);
}

#[test]
fn a_rename_needs_the_same_shape_and_no_such_field_already() {
    // A list where `taskRef` takes a map: a hint, no fix.
    let text = PIPELINE.replace("taskRef: {name: build}", "taskRf: [build]");
    let (found, fixed) = lint(&text);
    assert_eq!(found.len(), 1);
    assert_eq!(fixed, text);
    let twice = PIPELINE.replace("runAfter: [build]", "runAfter: [build]\n      runAftr: [x]");
    let (found, fixed) = lint(&twice);
    assert_eq!(found.len(), 1);
    assert_eq!(fixed, twice);
}

#[test]
fn embedded_specs_and_kubernetes_types_are_checked() {
    let text = PIPELINE
        .replace(
            "          labels: {app: ci}",
            "          labels: {app: ci}\n          name: x",
        )
        .replace("            value: b", "            valu: b")
        .replace("{limits: {cpu: 1}}", "{limit: {cpu: 1}}");
    assert_eq!(
        paths(&text),
        [
            "spec.tasks[1].taskSpec.metadata.name",
            "spec.tasks[1].taskSpec.steps[0].computeResources.limit",
            "spec.tasks[1].taskSpec.steps[0].env[0].valu",
        ]
    );
}

#[test]
fn a_field_of_the_other_version_says_so() {
    let text = PIPELINE.replace("computeResources:", "resources:").replace(
        "taskRef: {name: build}",
        "taskRef: {name: build, bundle: b}",
    );
    let (found, fixed) = lint(&text);
    let helps: Vec<String> = found.into_iter().filter_map(|(.., help)| help).collect();
    assert_eq!(
        helps,
        [
            "\"bundle\" is a tekton.dev/v1beta1 field; tekton.dev/v1 has the bundles resolver (\"resolver: bundles\")",
            "tekton.dev/v1 names it \"computeResources\" (\"resources\" is its name in tekton.dev/v1beta1)",
        ]
    );
    assert!(fixed.contains("computeResources:"), "{fixed}");
    let beta = text.replace("tekton.dev/v1\n", "tekton.dev/v1beta1\n");
    assert_eq!(paths(&beta), Vec::<String>::new());
}

#[test]
fn other_kinds_and_versions_are_not_checked() {
    for api_version in ["tekton.dev/v1alpha1", "example.com/v1", "tekton.dev/v2"] {
        let text = format!("apiVersion: {api_version}\nkind: Task\nspec:\n  stepz: []\n");
        assert_eq!(paths(&text), Vec::<String>::new(), "{api_version}");
    }
    // Not a map, or with no kind: nothing, and no panic.
    for text in [
        "- a\n- b\n",
        "just text\n",
        "apiVersion: tekton.dev/v1\n",
        "{}\n",
    ] {
        assert_eq!(paths(text), Vec::<String>::new());
    }
}

#[test]
fn trigger_templates_check_the_tekton_resources_they_create() {
    let text = "\
apiVersion: triggers.tekton.dev/v1beta1
kind: TriggerTemplate
spec:
  params:
    - name: rev
  resourcetemplates:
    - apiVersion: tekton.dev/v1
      kind: PipelineRun
      spec:
        pipelineRef: {name: p}
        param: []
    - apiVersion: v1
      kind: ConfigMap
      anything: goes
";
    assert_eq!(paths(text), ["spec.resourcetemplates[0].spec.param"]);
}
