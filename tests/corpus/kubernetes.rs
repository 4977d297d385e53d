//! The Kubernetes schemas on real output: every document that the
//! reference ytt rendered for the corpus packages
//! (`../shared/corpus/ytt-render`) is checked against the newest
//! Kubernetes version's schemas. The corpus deploys, so its output is
//! valid: a violation there is a false one, unless
//! `tests/kubernetes-corpus-violations.txt` lists it with why it is a true
//! problem. The list must match exactly, both ways.

use crate::common;
use confvet::check::kubernetes::{Validation, Version, validate};
use confvet::source::FileId;
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
    let listed = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kubernetes-corpus-violations.txt"),
    )
    .unwrap();
    // Each entry is a line of the violation, then lines of why (indented).
    let expected: Vec<&str> = listed
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with(' '))
        .collect();
    assert_eq!(
        found, expected,
        "violations on the corpus differ from the list"
    );
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
    let listed = std::fs::read_to_string(root.join("tests/kubernetes-corpus-lint.txt")).unwrap();
    let expected: Vec<&str> = listed
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with(' '))
        .collect();
    assert_eq!(
        found, expected,
        "kubernetes findings on the corpus differ from the list"
    );
}
