//! The Kubernetes schemas on real output: every document that the
//! reference ytt rendered for the corpus packages
//! (`../shared/corpus/ytt-render`) is checked against the newest
//! Kubernetes version's schemas. The corpus deploys, so its output is
//! valid: a violation there is a false one, unless
//! `tests/kubernetes-corpus-violations.txt` lists it with why it is a true
//! problem. The list must match exactly, both ways.

use crate::common;
use confvet::check::kubernetes::{Validation, Version, schema, validate, validate_against};
use confvet::source::FileId;
use confvet::yaml::{Node, ScalarValue, Value, child};
use std::collections::BTreeMap;
use std::path::Path;

/// The standard output of each full render that exited 0 in one record
/// file (format: the folder's README); `--data-values-inspect` runs print
/// values, not documents.
fn rendered_outputs(record: &str) -> Vec<&str> {
    record
        .split("===== $ ytt ")
        .skip(1)
        .filter(|run| {
            let command = run.lines().next().unwrap_or("");
            !command.contains("--data-values-inspect") && run.contains("\n===== exit: 0\n")
        })
        .filter_map(|run| run.split_once("===== stdout:\n"))
        .filter_map(|(_, rest)| rest.split_once("===== stderr:\n"))
        .map(|(stdout, _)| stdout)
        .collect()
}

#[test]
fn corpus_renders_break_no_kubernetes_schema() {
    // Another folder of records in the same format (to try mutated output).
    let records = std::env::var_os("CONFVET_KUBERNETES_CORPUS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/ytt-render"),
        Into::into,
    );
    let Ok(entries) = std::fs::read_dir(&records) else {
        common::skipped_without_shared("../shared/corpus/ytt-render not found; schemas not tried");
        return;
    };
    let mut names: Vec<_> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".txt"))
        .collect();
    names.sort();
    let version = Version::newest();
    let (mut documents, mut checked) = (0, 0);
    let mut without_schema: BTreeMap<String, usize> = BTreeMap::new();
    let mut found = Vec::new();
    let mut validating = std::time::Duration::ZERO;
    for name in &names {
        let record = std::fs::read_to_string(records.join(name)).unwrap();
        for (run, output) in rendered_outputs(&record).into_iter().enumerate() {
            let set = confvet::yaml::parse_file(FileId(0), output, &Default::default())
                .unwrap_or_else(|e| panic!("{name}: {}", e.message));
            for (index, doc) in set.docs.iter().enumerate() {
                documents += 1;
                let started = std::time::Instant::now();
                let validation = validate(&doc.value, version);
                validating += started.elapsed();
                match validation {
                    Validation::NoSchema {
                        api_version: Some(api_version),
                        kind: Some(kind),
                    } => {
                        *without_schema
                            .entry(format!("{api_version} {kind}"))
                            .or_default() += 1
                    }
                    Validation::NoSchema { .. } => {}
                    Validation::Checked(violations) => {
                        checked += 1;
                        for v in violations {
                            let hint = v.did_you_mean.map(|d| format!(" (did you mean {d:?}?)"));
                            found.push(format!(
                                "{} run {run} document {index}: {}: {}{}",
                                name.trim_end_matches(".txt"),
                                v.path,
                                v.message,
                                hint.unwrap_or_default()
                            ));
                        }
                    }
                }
            }
        }
    }
    println!(
        "{} records, {documents} documents, {checked} checked against Kubernetes {} in {validating:?} \
         (loading included), {} violations",
        names.len(),
        version.name(),
        found.len()
    );
    for (kind, count) in &without_schema {
        println!("no schema: {kind} ({count})");
    }
    for line in &found {
        println!("violation: {line}");
    }
    assert_eq!(
        found,
        listed("kubernetes-corpus-violations.txt"),
        "violations on the corpus differ from the list"
    );
}

/// The entries of a list of `tests/`: each is a line of a violation or
/// finding, then lines of why it is true (indented); `#` lines are comments.
fn listed(name: &str) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(name);
    (std::fs::read_to_string(path).unwrap().lines())
        .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with(' '))
        .map(str::to_string)
        .collect()
}

/// `confvet lint` over the whole corpus: every `kubernetes/*` finding it
/// gives (on what it renders itself, on the KubeVirt Templates' objects,
/// with the corpus's own CRDs) is listed in
/// `tests/kubernetes-corpus-lint.txt` with why it is true, and none is an
/// error (the packages render with their own data values).
#[test]
fn corpus_lint_kubernetes_findings_are_true_ones() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let corpus = root.join("../shared/corpus");
    if !corpus.is_dir() {
        common::skipped_without_shared("../shared/corpus not found; lint not tried");
        return;
    }
    let run = common::run_in(
        &corpus,
        &["lint", ".", "--select", "kubernetes", "--format", "json"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let found: Vec<String> = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            format!(
                "{}:{}:{}: {} {}",
                f["file"].as_str().unwrap(),
                f["line"],
                f["column"],
                f["severity"].as_str().unwrap(),
                f["message"].as_str().unwrap()
            )
        })
        .collect();
    for line in &found {
        println!("finding: {line}");
    }
    assert_eq!(
        found,
        listed("kubernetes-corpus-lint.txt"),
        "kubernetes findings on the corpus differ from the list"
    );
}

/// Every document of a bundled kind (KubeVirt's `VirtualMachine` and
/// `VirtualMachineInstance`, Carvel's packaging kinds and `App`) in
/// `../shared/corpus` and `../shared/conformance`: the files as they are
/// (a document, a Template's `objects`, a List's `items`) and what the
/// reference ytt rendered. Each violation of the bundled schemas is listed
/// in `tests/kubernetes-bundled-violations.txt` with why it is true (or
/// why the file is not what is deployed); the list must match exactly.
#[test]
fn corpus_bundled_kinds_break_only_the_listed_rules() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let shared = root.join("../shared");
    if !shared.join("corpus").is_dir() {
        common::skipped_without_shared("../shared/corpus not found; bundled schemas not tried");
        return;
    }
    let mut files = Vec::new();
    for folder in ["corpus", "conformance"] {
        yaml_files(&shared.join(folder), &mut files);
    }
    files.sort();
    let (mut checked, mut found) = (BTreeMap::<String, usize>::new(), Vec::new());
    for file in &files {
        let name = file.strip_prefix(&shared).unwrap().to_string_lossy();
        let text = std::fs::read_to_string(file).unwrap_or_default();
        let outputs: Vec<(String, &str)> = if name.starts_with("corpus/ytt-render/") {
            let runs = rendered_outputs(&text);
            (runs.into_iter().enumerate())
                .map(|(run, output)| (format!("{name} run {run}"), output))
                .collect()
        } else {
            vec![(name.to_string(), text.as_str())]
        };
        for (label, output) in outputs {
            // Conformance cases hold YAML that does not parse on purpose.
            let Ok(set) = confvet::yaml::parse_file(FileId(0), output, &Default::default()) else {
                continue;
            };
            for (index, doc) in set.docs.iter().enumerate() {
                for (place, node) in resources(&doc.value, String::new()) {
                    let (Some(api_version), Some(kind)) =
                        (text_of(node, "apiVersion"), text_of(node, "kind"))
                    else {
                        continue;
                    };
                    let bundled = schema::bundled();
                    let Some(definition) = bundled.kind(api_version, kind) else {
                        continue;
                    };
                    *checked.entry(format!("{api_version} {kind}")).or_default() += 1;
                    for v in validate_against(node, &bundled.set, definition) {
                        let hint = v.did_you_mean.map(|d| format!(" (did you mean {d:?}?)"));
                        found.push(format!(
                            "{label} document {index}{place}: {kind} {}: {}{}",
                            v.path,
                            v.message,
                            hint.unwrap_or_default()
                        ));
                    }
                }
            }
        }
    }
    for (kind, count) in &checked {
        println!("checked: {kind} ({count})");
    }
    for line in &found {
        println!("violation: {line}");
    }
    assert!(checked.values().sum::<usize>() > 100, "{checked:?}");
    assert_eq!(
        found,
        listed("kubernetes-bundled-violations.txt"),
        "violations of the bundled schemas differ from the list"
    );
}

/// The YAML files under `dir`, and the ytt-render records (`.txt`).
fn yaml_files(dir: &Path, files: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(|e| e.ok()) {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            yaml_files(&path, files);
        } else if name.ends_with(".yaml")
            || name.ends_with(".yml")
            || (name.ends_with(".txt") && dir.ends_with("ytt-render"))
        {
            files.push(path);
        }
    }
}

/// A document and the resources it holds: a Template's `objects`, a
/// List's `items`; each with where it is in the document.
fn resources(node: &Node, place: String) -> Vec<(String, &Node)> {
    let mut found = vec![(place.clone(), node)];
    for key in ["objects", "items"] {
        if let Some(Value::Array(items)) = child(node, key).map(|n| &n.value) {
            for (index, item) in items.iter().enumerate() {
                found.extend(resources(&item.value, format!("{place} {key}[{index}]")));
            }
        }
    }
    found
}

fn text_of<'a>(node: &'a Node, key: &str) -> Option<&'a str> {
    match &child(node, key)?.as_scalar()?.resolved {
        ScalarValue::Str(text) => Some(text),
        _ => None,
    }
}
