//! Fuzzing on stable: property tests (proptest, fixed seeds) that feed the
//! YAML parser, the KubeVirt JSON and JSONPath parsers, and whole lint runs
//! of Tekton files and ytt packages (which exercise `$(…)` references, the
//! ytt code translation and Starlark evaluation) with arbitrary text and
//! with mutants of real inputs. Each asserts what a user relies on: no
//! panic (a caught one shows as `confvet/internal`), no hang, memory that
//! stays bounded. `CONFVET_FUZZ_CASES` raises the number of cases for a
//! longer local run.

mod tekton_support;

use confvet::check::kubevirt::{json, jsonpath};
use confvet::run::{LintRequest, lint};
use confvet::source::{FileId, Sources};
use confvet::yaml::{ParseOptions, parse_file};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use std::path::{Path, PathBuf};
use tekton_support::Scratch;

fn cases(default: u32) -> u32 {
    std::env::var("CONFVET_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A runner with a fixed seed: the same cases on every run.
fn runner(cases: u32, seed: u8) -> TestRunner {
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    TestRunner::new_with_rng(
        config,
        TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32]),
    )
}

/// Seed inputs: the project's examples, and the shared conformance cases
/// and corpus when they are there, with `ext` among the extensions.
fn seeds(exts: &[&str]) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut dirs = vec![root.join("examples")];
    let shared = root.join("../shared");
    if shared.is_dir() {
        dirs.push(shared.join("conformance"));
        dirs.push(shared.join("corpus/tekton/tektoncd-pipeline"));
    } else {
        println!("skipped: ../shared not found; fuzzing from examples/ only");
    }
    let mut out = Vec::new();
    let mut stack = dirs;
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| exts.contains(&e))
                && let Ok(text) = std::fs::read_to_string(&path)
                && text.len() < 64 * 1024
            {
                out.push(text);
            }
        }
    }
    out.sort();
    out
}

/// Tokens that reach the interesting corners of YAML, `$(…)`, JSONPath and
/// Starlark.
const TOKENS: &[&str] = &[
    "[",
    "]",
    "{",
    "}",
    "(",
    ")",
    ":",
    ": ",
    "- ",
    "#",
    "#@ ",
    "#! ",
    "&a ",
    "*a",
    "<<: ",
    "|",
    ">",
    "'",
    "\"",
    "\\",
    "\n",
    "\n  ",
    "\t",
    "---\n",
    "...\n",
    "!!str ",
    "$(",
    "$(params.",
    "[*]",
    "$(tasks.",
    ".results.",
    "$(workspaces.",
    "jsonpath::.",
    "..",
    "${",
    "%",
    "\u{feff}",
    "\u{0}",
    "é",
    "end\n",
    "#@ def f():\n",
    "#@ if True:\n",
    "#@ for x in range(3):\n",
    "lambda v: ",
    "assert.fail(\"x\")",
    "data.values",
    "load(\"@ytt:data\", \"data\")",
    "*",
    "**",
    "9999999999",
];

/// One edit of a text.
#[derive(Debug, Clone)]
enum Edit {
    Insert(usize, String),
    Delete(usize, usize),
    Duplicate(usize, usize),
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    let token = prop::sample::select(TOKENS).prop_map(str::to_string);
    let noise = "[ -~\n]{0,8}";
    let insert = (
        any::<usize>(),
        prop_oneof![token, noise.prop_map(|s: String| s)],
    )
        .prop_map(|(at, s)| Edit::Insert(at, s));
    let delete = (any::<usize>(), 0usize..64).prop_map(|(at, n)| Edit::Delete(at, n));
    let duplicate = (any::<usize>(), 0usize..256).prop_map(|(at, n)| Edit::Duplicate(at, n));
    prop::collection::vec(prop_oneof![3 => insert, 1 => delete, 1 => duplicate], 1..8)
}

fn boundary(text: &str, at: usize) -> usize {
    let mut at = if text.is_empty() {
        0
    } else {
        at % (text.len() + 1)
    };
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn mutate(seed: &str, edits: &[Edit]) -> String {
    let mut text = seed.to_string();
    for edit in edits {
        match edit {
            Edit::Insert(at, s) => {
                let at = boundary(&text, *at);
                text.insert_str(at, s);
            }
            Edit::Delete(at, n) => {
                let a = boundary(&text, *at);
                let b = boundary(&text, a + n);
                text.replace_range(a..b.max(a), "");
            }
            Edit::Duplicate(at, n) => {
                let a = boundary(&text, *at);
                let b = boundary(&text, a + n).max(a);
                let copy = text[a..b].to_string();
                text.insert_str(b, &copy);
            }
        }
    }
    text
}

/// A mutant of one of `seeds`, or arbitrary text.
fn inputs(seeds: Vec<String>) -> impl Strategy<Value = String> {
    let n = seeds.len().max(1);
    let seeds = if seeds.is_empty() {
        vec![String::new()]
    } else {
        seeds
    };
    prop_oneof![
        4 => (0..n, edits()).prop_map(move |(i, e)| mutate(&seeds[i], &e)),
        1 => ".{0,200}".prop_map(|s: String| s),
    ]
}

#[test]
fn the_yaml_parser_never_panics() {
    let strategy = inputs(seeds(&["yaml", "yml"]));
    runner(cases(3000), 1)
        .run(&strategy, |text| {
            let _ = parse_file(FileId(0), &text, &ParseOptions::default());
            let strict = ParseOptions {
                strict: true,
                keeps_duplicate_keys: true,
                ..ParseOptions::default()
            };
            let _ = parse_file(FileId(0), &text, &strict);
            Ok(())
        })
        .expect("no input panics the parser");
    assert_peak_memory_bounded();
}

#[test]
fn kubevirt_json_and_jsonpath_never_panic() {
    let json_seeds = vec![
        r#"[{"name": "a", "path": "jsonpath::.spec.domain.cpu.cores", "rule": "integer", "min": 1}]"#
            .to_string(),
        r#"{"a": [1, 2.5e3, "x\u00e9", true, null, {"b": []}]}"#.to_string(),
    ];
    let path_seeds = vec![
        ".spec.domain.cpu.cores".to_string(),
        ".spec.template.spec.domain.devices.disks[*].name".to_string(),
        "{.metadata.labels['app']}".to_string(),
    ];
    let json_strategy = inputs(json_seeds);
    runner(cases(2000), 2)
        .run(&json_strategy, |text| {
            let _ = json::parse(&text);
            let _ = confvet::check::kubevirt::annotation::parse(&text);
            Ok(())
        })
        .expect("no input panics the JSON parser");
    let path_strategy = inputs(path_seeds);
    runner(cases(2000), 3)
        .run(&path_strategy, |text| {
            let _ = jsonpath::compile(&text);
            Ok(())
        })
        .expect("no input panics the JSONPath compiler");
    assert_peak_memory_bounded();
}

/// Lint `files` (name, text) in one scratch directory, in-process; fails
/// the case on a caught internal error.
fn lint_files(dir: &Scratch, files: &[(&str, &str)]) -> Result<(), TestCaseError> {
    let mut paths: Vec<PathBuf> = Vec::new();
    for (name, text) in files {
        dir.file(name, text);
        paths.push(dir.root.join(name));
    }
    let sources = Sources::new();
    let request = LintRequest {
        paths: vec![dir.root.clone()],
        ..LintRequest::default()
    };
    let result = lint(&request, &sources, &dir.root);
    for f in &result.findings {
        prop_assert!(f.rule != "confvet/internal", "{}: {}", f.rule, f.message);
    }
    for p in paths {
        let _ = std::fs::remove_file(p);
    }
    Ok(())
}

#[test]
fn linting_mutated_tekton_files_never_fails_internally() {
    let tekton: Vec<String> = seeds(&["yaml", "yml"])
        .into_iter()
        .filter(|s| s.contains("tekton.dev"))
        .collect();
    let dir = Scratch::new("fuzz-tekton");
    let strategy = (inputs(tekton.clone()), inputs(tekton));
    runner(cases(400), 4)
        .run(&strategy, |(a, b)| {
            lint_files(&dir, &[("a.yaml", &a), ("b.yaml", &b)])
        })
        .expect("no Tekton input makes an internal error");
    assert_peak_memory_bounded();
}

#[test]
fn linting_mutated_ytt_packages_never_fails_internally() {
    let ytt: Vec<String> = seeds(&["yml", "yaml", "star"])
        .into_iter()
        .filter(|s| s.contains("#@"))
        .collect();
    let dir = Scratch::new("fuzz-ytt");
    let strategy = (inputs(ytt.clone()), inputs(ytt));
    runner(cases(300), 5)
        .run(&strategy, |(a, b)| {
            lint_files(&dir, &[("schema.yml", &a), ("values.yml", &b)])
        })
        .expect("no ytt input makes an internal error");
    assert_peak_memory_bounded();
}

/// The process's peak memory stays far below what a runaway input takes
/// (the tests of this file share the process, so this bounds them all).
fn assert_peak_memory_bounded() {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return;
    };
    let peak_kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    assert!(peak_kb < 2 * 1024 * 1024, "peak memory {peak_kb} kB");
}
