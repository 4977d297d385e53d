//! Fuzzing on stable: property tests (proptest, fixed seeds) that feed the
//! YAML parser, the KubeVirt JSON and JSONPath parsers, and whole lint runs
//! of Tekton files and ytt packages (which exercise `$(…)` references, the
//! ytt code translation and Starlark evaluation) with arbitrary text and
//! with mutants of real inputs. Each asserts what a user relies on: no
//! panic (a caught one shows as `confvet/internal`), no hang, memory that
//! stays bounded. `CONFVET_FUZZ_CASES` raises the number of cases for a
//! longer local run; `CONFVET_FUZZ_SECONDS` runs each target for that long
//! instead (fresh seeds batch after batch) and prints how many inputs it ran.

use crate::common;

use crate::tekton_support;

use confvet::check::kubevirt::{json, jsonpath};
use confvet::check::ytt::translate::{parse_guarded, translate};
use confvet::run::{LintRequest, lint};
use confvet::source::{FileId, Sources};
use confvet::yaml::{ParseOptions, parse_file};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use starlark::syntax::Dialect;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
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

/// No single input may take this long (a hang, or quadratic work).
const SLOW_CASE: Duration = Duration::from_secs(10);

/// Run `test` on inputs of `strategy`: `default` cases with a fixed seed,
/// or, with `CONFVET_FUZZ_SECONDS`, batches of fresh seeds until that time
/// has passed. Fails on the first failing or slow input.
fn fuzz<S: Strategy>(
    target: &str,
    strategy: &S,
    seed: u8,
    default: u32,
    test: impl Fn(S::Value) -> Result<(), TestCaseError>,
) where
    S::Value: std::fmt::Debug,
{
    let budget = std::env::var("CONFVET_FUZZ_SECONDS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .map(Duration::from_secs);
    let started = Instant::now();
    let ran = std::cell::Cell::new(0u64);
    let timed = |value: S::Value| {
        let case = Instant::now();
        let result = test(value);
        ran.set(ran.get() + 1);
        prop_assert!(
            case.elapsed() < SLOW_CASE,
            "a case took {:?}",
            case.elapsed()
        );
        result
    };
    let Some(budget) = budget else {
        runner(cases(default), seed)
            .run(strategy, timed)
            .unwrap_or_else(|e| panic!("{target}: {e}"));
        return;
    };
    let mut batch: u64 = 0;
    while started.elapsed() < budget {
        let mut key = [seed; 32];
        key[..8].copy_from_slice(&batch.to_le_bytes());
        let config = Config {
            cases: 200,
            failure_persistence: None,
            ..Config::default()
        };
        TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &key))
            .run(strategy, timed)
            .unwrap_or_else(|e| panic!("{target} (batch {batch}): {e}"));
        batch += 1;
    }
    println!(
        "fuzz {target}: {} executions in {:.0?}",
        ran.get(),
        started.elapsed()
    );
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
        common::skipped_without_shared("../shared not found; fuzzing from examples/ only");
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
fn yaml_parser() {
    let strategy = inputs(seeds(&["yaml", "yml"]));
    fuzz("yaml_parser", &strategy, 1, 3000, |text| {
        let _ = parse_file(FileId(0), &text, &ParseOptions::default());
        let strict = ParseOptions {
            strict: true,
            keeps_duplicate_keys: true,
            ..ParseOptions::default()
        };
        let _ = parse_file(FileId(0), &text, &strict);
        Ok(())
    });
    assert_peak_memory_bounded();
}

#[test]
fn kubevirt_json() {
    let json_seeds = vec![
        r#"[{"name": "a", "path": "jsonpath::.spec.domain.cpu.cores", "rule": "integer", "min": 1}]"#
            .to_string(),
        r#"{"a": [1, 2.5e3, "x\u00e9", true, null, {"b": []}]}"#.to_string(),
        r#"[{"name": "b", "path": "jsonpath::.spec.x[*].name", "rule": "enum", "values": ["a", "b"], "justWarning": true}]"#
            .to_string(),
    ];
    fuzz("kubevirt_json", &inputs(json_seeds), 2, 2000, |text| {
        let _ = json::parse(&text);
        let _ = confvet::check::kubevirt::annotation::parse(&text);
        Ok(())
    });
    assert_peak_memory_bounded();
}

#[test]
fn kubevirt_jsonpath() {
    let path_seeds = vec![
        ".spec.domain.cpu.cores".to_string(),
        ".spec.template.spec.domain.devices.disks[*].name".to_string(),
        "{.metadata.labels['app']}".to_string(),
        "jsonpath::.spec.x[?(@.name=='a')].y[0:2]".to_string(),
    ];
    fuzz("kubevirt_jsonpath", &inputs(path_seeds), 3, 2000, |text| {
        let _ = jsonpath::compile(&text);
        Ok(())
    });
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
        prop_assert!(
            !f.is(&confvet::rules::confvet::INTERNAL),
            "{}: {}",
            f.rule,
            f.message
        );
    }
    for p in paths {
        let _ = std::fs::remove_file(p);
    }
    Ok(())
}

#[test]
fn tekton_files() {
    let tekton: Vec<String> = seeds(&["yaml", "yml"])
        .into_iter()
        .filter(|s| s.contains("tekton.dev"))
        .collect();
    let dir = Scratch::new("fuzz-tekton");
    let strategy = (inputs(tekton.clone()), inputs(tekton));
    fuzz("tekton_files", &strategy, 4, 400, |(a, b)| {
        lint_files(&dir, &[("a.yaml", &a), ("b.yaml", &b)])
    });
    assert_peak_memory_bounded();
}

/// Pieces of `$(…)` references, joined into the strings of a Task and a
/// Pipeline that declare some of what they name.
const REF_TOKENS: &[&str] = &[
    "$(",
    ")",
    "params.",
    "p",
    "a",
    ".",
    "[",
    "]",
    "[*]",
    "['a.b']",
    "[\"a\"]",
    "0",
    "tasks.",
    "t1",
    ".results.",
    "r",
    "workspaces.",
    "w",
    ".path",
    "context.",
    "taskRun.name",
    "steps.",
    "step-results.",
    "$",
    "(",
    " ",
    "\\",
    "\"",
    "'",
    "é",
    "\n",
];

/// One to three strings, each made of up to 24 of `tokens`.
fn token_strings(tokens: &'static [&'static str]) -> impl Strategy<Value = Vec<String>> {
    let piece = prop::sample::select(tokens).prop_map(str::to_string);
    prop::collection::vec(
        prop::collection::vec(piece, 1..24).prop_map(|p| p.concat()),
        1..4,
    )
}

#[test]
fn tekton_references() {
    let dir = Scratch::new("fuzz-tekton-refs");
    fuzz(
        "tekton_references",
        &token_strings(REF_TOKENS),
        6,
        400,
        |strings| {
            let quoted: Vec<String> = strings
                .iter()
                .map(|s| serde_json::to_string(s).expect("a JSON string"))
                .collect();
            let task = format!(
                "apiVersion: tekton.dev/v1\nkind: Task\nmetadata:\n  name: t\nspec:\n  params:\n    - name: p\n      type: array\n    - name: a\n      type: object\n      properties: {{b: {{}}}}\n  results:\n    - name: r\n  workspaces:\n    - name: w\n  steps:\n    - name: s\n      image: {}\n      args: [{}]\n      script: {}\n",
                quoted[0],
                quoted.join(", "),
                quoted[quoted.len() - 1]
            );
            let pipeline = format!(
                "apiVersion: tekton.dev/v1\nkind: Pipeline\nmetadata:\n  name: pl\nspec:\n  params:\n    - name: p\n  tasks:\n    - name: t1\n      taskRef: {{name: t}}\n      params:\n        - name: p\n          value: {}\n    - name: t2\n      taskRef: {{name: t}}\n      params:\n        - name: p\n          value: [{}]\n",
                quoted[0],
                quoted.join(", ")
            );
            lint_files(&dir, &[("task.yaml", &task), ("pipeline.yaml", &pipeline)])
        },
    );
    assert_peak_memory_bounded();
}

/// Pieces of Pipelines-as-Code templates: placeholders, near misses,
/// other tools' template code, and the YAML around them.
const PAC_TOKENS: &[&str] = &[
    "{{",
    "}}",
    "{",
    "}",
    "repo_url",
    "revision",
    "revison",
    " ",
    "body.",
    "headers['x']",
    ".State",
    "range .items",
    "end",
    "\n",
    ": ",
    "- ",
    "'",
    "\"",
    "|",
    "#",
    "$(params.u)",
    "é",
];

#[test]
fn pac_templates() {
    let dir = Scratch::new("fuzz-pac");
    fuzz(
        "pac_templates",
        &token_strings(PAC_TOKENS),
        6,
        400,
        |strings| {
            // Unquoted, as PaC templates write them: the text is filled in
            // before the YAML is parsed, so anything may come of it.
            let run = format!(
                "apiVersion: tekton.dev/v1\nkind: PipelineRun\nmetadata:\n  name: {}\n  annotations:\n    pipelinesascode.tekton.dev/on-event: push\nspec:\n  params:\n    - name: u\n      value: {}\n  pipelineSpec:\n    params:\n      - name: u\n    tasks:\n      - name: t\n        taskSpec:\n          steps:\n            - image: busybox\n              script: |\n                {}\n",
                strings[0],
                strings[strings.len() - 1],
                strings.join(" ").replace('\n', "\n                "),
            );
            lint_files(&dir, &[(".tekton/run.yaml", &run)])
        },
    );
    assert_peak_memory_bounded();
}

fn ytt_seeds() -> Vec<String> {
    seeds(&["yml", "yaml", "star"])
        .into_iter()
        .filter(|s| s.contains("#@"))
        .collect()
}

#[test]
fn ytt_translation() {
    let strategy = inputs(ytt_seeds());
    fuzz("ytt_translation", &strategy, 7, 2000, |text| {
        let lines: Vec<(usize, String)> = text
            .lines()
            .enumerate()
            .filter_map(|(i, l)| {
                l.trim_start()
                    .strip_prefix("#@")
                    .map(|c| (i + 1, c.to_string()))
            })
            .collect();
        if let Ok(translated) = translate(&lines) {
            let _ = parse_guarded("t.star", translated.source, &Dialect::Extended);
        }
        Ok(())
    });
    assert_peak_memory_bounded();
}

#[test]
fn ytt_templates() {
    let ytt = ytt_seeds();
    let dir = Scratch::new("fuzz-ytt");
    let strategy = (inputs(ytt.clone()), inputs(ytt));
    fuzz("ytt_templates", &strategy, 5, 300, |(a, b)| {
        lint_files(&dir, &[("schema.yml", &a), ("values.yml", &b)])
    });
    assert_peak_memory_bounded();
}

/// Pieces of Starlark expressions, joined into a validation rule's body.
const RULE_TOKENS: &[&str] = &[
    "v",
    "x",
    "0",
    "1",
    "-1",
    "9999999",
    "\"a\"",
    "\"%s\"",
    "\"{}\"",
    "[",
    "]",
    "(",
    ")",
    "{",
    "}",
    ",",
    ":",
    " + ",
    " * ",
    " % ",
    " - ",
    " // ",
    " == ",
    " < ",
    " and ",
    " or ",
    " not ",
    " if ",
    " else ",
    " in ",
    " for ",
    "len(",
    "str(",
    "repr(",
    "int(",
    "list(",
    "range(",
    "sorted(",
    "type(",
    ".format(",
    ".join(",
    ".replace(",
    ".split(",
    ".upper()",
    "lambda y: ",
    "True",
    "None",
    "data.values",
    "assert.fail(\"x\")",
    "struct.make(a=1)",
    "json.encode(",
    "yaml.encode(",
    "regexp.match(",
    "\"\\\\\"",
    "é",
    "\n",
];

#[test]
fn ytt_rules() {
    let dir = Scratch::new("fuzz-ytt-rules");
    fuzz("ytt_rules", &token_strings(RULE_TOKENS), 8, 300, |rules| {
        let mut schema = String::from(
            "#@ load(\"@ytt:data\", \"data\")\n#@ load(\"@ytt:assert\", \"assert\")\n#@ load(\"@ytt:struct\", \"struct\")\n#@ load(\"@ytt:json\", \"json\")\n#@ load(\"@ytt:yaml\", \"yaml\")\n#@ load(\"@ytt:regexp\", \"regexp\")\n#@data/values-schema\n---\n",
        );
        for (i, rule) in rules.iter().enumerate() {
            let one_line = rule.replace('\n', " ");
            schema.push_str(&format!(
                "#@schema/validation (\"r\", lambda v: {one_line})\nk{i}: {i}\n"
            ));
        }
        let template = format!(
            "#@ load(\"@ytt:data\", \"data\")\n---\nv: #@ {}\n",
            rules[0].replace('\n', " ")
        );
        lint_files(&dir, &[("schema.yml", &schema), ("t.yml", &template)])
    });
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
