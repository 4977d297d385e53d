//! Fuzzing on stable: property tests (proptest, fixed seeds) that feed the
//! YAML parser, the KubeVirt JSON and JSONPath parsers, whole lint runs of
//! Tekton files and ytt packages (which exercise `$(…)` references, the ytt
//! code translation and Starlark evaluation), and the language server's
//! frame reader with arbitrary text and with mutants of real inputs. Each
//! asserts what a user relies on: no panic (a caught one shows as
//! `confvet/internal`), no hang, memory that stays bounded.
//! `CONFVET_FUZZ_CASES` raises the number of cases for a longer local run;
//! `CONFVET_FUZZ_SECONDS` runs each target for that long instead (fresh
//! seeds batch after batch) and prints how many inputs it ran.

use crate::common;

use crate::tekton_support;

use confvet::check::kubevirt::{json, jsonpath};
use confvet::check::ytt::translate::{parse_guarded, translate};
use confvet::run::{LintRequest, lint};
use confvet::server::transport::{FrameError, MessageReader};
use confvet::source::{FileId, Sources};
use confvet::yaml::{ParseOptions, parse_file};
use lsp_server::Message;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use starlark::syntax::Dialect;
use std::io::Read;
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
    edits_with(TOKENS)
}

/// Edits that insert `tokens` or printable noise, delete or duplicate.
fn edits_with(tokens: &'static [&'static str]) -> impl Strategy<Value = Vec<Edit>> {
    let token = prop::sample::select(tokens).prop_map(str::to_string);
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

/// The hostile tests' allocator: the system's, noting the largest single
/// allocation each thread asks for, so that a test can tell that the
/// server's frame reader never allocated what a frame only declared.
struct LargestAllocation;

thread_local! {
    static LARGEST: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

impl LargestAllocation {
    fn note(size: usize) {
        // A const-initialised cell without a destructor: no allocation.
        let _ = LARGEST.try_with(|largest| largest.set(largest.get().max(size)));
    }

    /// Run `f`; what it returns and the largest allocation it made.
    fn during<T>(f: impl FnOnce() -> T) -> (T, usize) {
        let saved = LARGEST.with(|largest| largest.replace(0));
        let result = f();
        let largest = LARGEST.with(|largest| largest.replace(saved.max(largest.get())));
        (result, largest)
    }
}

// SAFETY: every call is passed to `System` unchanged; the note only writes
// the current thread's cell.
unsafe impl std::alloc::GlobalAlloc for LargestAllocation {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        Self::note(layout.size());
        // SAFETY: the caller's contract, passed on.
        unsafe { std::alloc::System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        Self::note(layout.size());
        // SAFETY: the caller's contract, passed on.
        unsafe { std::alloc::System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        Self::note(new_size);
        // SAFETY: the caller's contract, passed on.
        unsafe { std::alloc::System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: LargestAllocation = LargestAllocation;

/// Messages a client sends, as frame bodies.
const LSP_MESSAGES: &[&str] = &[
    r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{},"processId":null}}"#,
    r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#,
    r##"{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///p/values.yml","languageId":"yaml","version":1,"text":"#@data/values\n---\nreplicas: 50\né: \"x\"\n"}}}"##,
    r#"{"jsonrpc":"2.0","id":"h-2","method":"textDocument/hover","params":{"textDocument":{"uri":"file:///p/values.yml"},"position":{"line":2,"character":3}}}"#,
    r#"{"jsonrpc":"2.0","id":"confvet-register","result":null}"#,
    r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"no"}}"#,
    r#"{"jsonrpc":"2.0","id":4,"method":"shutdown"}"#,
    r#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":3}}"#,
];

/// JSON that is no message.
const NOT_MESSAGES: &[&str] = &[
    r#"{"jsonrpc":"2.0","id":1}"#,
    r#"{"jsonrpc":"2.0","id":1,"method":5}"#,
    r#"{"jsonrpc":"2.0","id":1.5,"method":"m"}"#,
    r#"{"jsonrpc":"2.0","id":true,"method":"m"}"#,
    r#"[{"jsonrpc":"2.0","method":"initialized"}]"#,
    "null",
    "\"text\"",
];

/// Pieces of headers and bodies, and lengths around the limit.
const FRAME_TOKENS: &[&str] = &[
    "Content-Length: ",
    "content-length:",
    "CONTENT-LENGTH :",
    "Content-Type: application/vscode-jsonrpc; charset=utf-8",
    "\r\n",
    "\n",
    "\r",
    "\r\n\r\n",
    ": ",
    ":",
    " ",
    "0",
    "2",
    "17",
    "-1",
    "+5",
    "60000000",
    "67108864",
    "67108865",
    "99999999999",
    "18446744073709551615",
    "99999999999999999999999",
    "{",
    "}",
    "[",
    "]",
    "\"",
    "{}",
    "{\"jsonrpc\":\"2.0\"",
    ",\"id\":1",
    ",\"method\":\"exit\"",
    "}\r\n",
    "\u{0}",
    "é",
    "\u{feff}",
];

/// A frame whose header is whole: it must give its message or one error.
#[derive(Debug, Clone)]
enum WholeFrame {
    /// `LSP_MESSAGES[i]`, its header written in style `style`.
    Message(usize, u8),
    /// A body that is not JSON (a raw control character is never JSON).
    NotJson(Vec<u8>),
    /// `NOT_MESSAGES[i]`.
    NotAMessage(usize),
}

/// A piece of a stream of frames.
#[derive(Debug, Clone)]
enum FramePiece {
    Whole(WholeFrame),
    /// A frame of `LSP_MESSAGES` with edits anywhere, header included.
    Mutated(String),
    /// `FRAME_TOKENS` run together.
    Tokens(String),
    Bytes(Vec<u8>),
}

/// `body` framed, the header in one of the styles clients write.
fn framed(body: &[u8], style: u8) -> Vec<u8> {
    let header = match style % 4 {
        0 => format!("Content-Length: {}\r\n\r\n", body.len()),
        1 => format!("content-length:{}\n\n", body.len()),
        2 => format!(
            "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: {}\r\n\r\n",
            body.len()
        ),
        _ => format!("\r\nContent-Length:  {} \r\n\r\n", body.len()),
    };
    [header.as_bytes(), body].concat()
}

impl WholeFrame {
    fn bytes(&self) -> Vec<u8> {
        match self {
            WholeFrame::Message(i, style) => framed(LSP_MESSAGES[*i].as_bytes(), *style),
            WholeFrame::NotJson(bytes) => {
                framed(&[bytes.as_slice(), b"\x01".as_slice()].concat(), 0)
            }
            WholeFrame::NotAMessage(i) => framed(NOT_MESSAGES[*i].as_bytes(), 0),
        }
    }
}

impl FramePiece {
    fn bytes(&self) -> Vec<u8> {
        match self {
            FramePiece::Whole(whole) => whole.bytes(),
            FramePiece::Mutated(text) | FramePiece::Tokens(text) => text.as_bytes().to_vec(),
            FramePiece::Bytes(bytes) => bytes.clone(),
        }
    }
}

fn frame_pieces() -> impl Strategy<Value = Vec<FramePiece>> {
    let whole = prop_oneof![
        3 => (0..LSP_MESSAGES.len(), any::<u8>()).prop_map(|(i, s)| WholeFrame::Message(i, s)),
        1 => prop::collection::vec(any::<u8>(), 0..40).prop_map(WholeFrame::NotJson),
        1 => (0..NOT_MESSAGES.len()).prop_map(WholeFrame::NotAMessage),
    ];
    let mutated = (0..LSP_MESSAGES.len(), edits_with(FRAME_TOKENS)).prop_map(|(i, edits)| {
        let frame = String::from_utf8(framed(LSP_MESSAGES[i].as_bytes(), 0)).unwrap_or_default();
        FramePiece::Mutated(mutate(&frame, &edits))
    });
    let tokens = prop::collection::vec(prop::sample::select(FRAME_TOKENS), 1..12)
        .prop_map(|t| FramePiece::Tokens(t.concat()));
    let bytes = prop::collection::vec(any::<u8>(), 0..64).prop_map(FramePiece::Bytes);
    prop::collection::vec(
        prop_oneof![4 => whole.prop_map(FramePiece::Whole), 3 => mutated, 2 => tokens, 1 => bytes],
        1..12,
    )
}

/// All the reader gives for `stream`, and the largest allocation it made.
/// It must end within one result per byte (each consumes some).
fn read_frames(stream: &[u8]) -> Result<(Vec<Result<Message, FrameError>>, usize), TestCaseError> {
    let ((results, ended), largest) = LargestAllocation::during(|| {
        let mut reader = MessageReader::new(stream);
        let mut results = Vec::new();
        for _ in 0..=stream.len() + 1 {
            match reader.read_message() {
                Ok(None) => return (results, true),
                Ok(Some(message)) => results.push(Ok(message)),
                Err(error) => results.push(Err(error)),
            }
        }
        (results, false)
    });
    prop_assert!(ended, "the reader did not end: {} results", results.len());
    Ok((results, largest))
}

#[test]
fn server_frames() {
    fuzz("server_frames", &frame_pieces(), 9, 3000, |pieces| {
        // Any stream: the reader ends, never fails on its input (only I/O
        // errors stop it), and holds no more than it was sent: a declared
        // length, up to 18446744073709551615, is never allocated.
        let stream: Vec<u8> = pieces.iter().flat_map(FramePiece::bytes).collect();
        let (results, largest) = read_frames(&stream)?;
        for result in &results {
            if let Err(error) = result {
                prop_assert!(
                    error.refusal().is_some() || matches!(error, FrameError::Truncated { .. }),
                    "{error}"
                );
            }
        }
        prop_assert!(
            largest <= 64 * 1024 + 4 * stream.len(),
            "{largest} bytes allocated at once for a stream of {}",
            stream.len()
        );
        // Whole frames alone: each gives its message, or one error.
        let wholes: Vec<&WholeFrame> = pieces
            .iter()
            .filter_map(|p| match p {
                FramePiece::Whole(whole) => Some(whole),
                _ => None,
            })
            .collect();
        let stream: Vec<u8> = wholes.iter().flat_map(|w| w.bytes()).collect();
        let (results, _) = read_frames(&stream)?;
        prop_assert_eq!(results.len(), wholes.len(), "{:?}", results);
        for (whole, result) in wholes.iter().zip(&results) {
            match (whole, result) {
                (WholeFrame::Message(i, _), Ok(message)) => {
                    let expected: Message = serde_json::from_str(LSP_MESSAGES[*i])
                        .map_err(|e| TestCaseError::fail(e.to_string()))?;
                    prop_assert_eq!(
                        serde_json::to_value(message).ok(),
                        serde_json::to_value(expected).ok()
                    );
                }
                (WholeFrame::NotJson(_), Err(error)) => {
                    prop_assert_eq!(error.refusal().map(|r| r.error.code), Some(-32700));
                }
                (WholeFrame::NotAMessage(_), Err(error)) => {
                    prop_assert_eq!(error.refusal().map(|r| r.error.code), Some(-32600));
                }
                (whole, result) => prop_assert!(false, "{whole:?} gave {result:?}"),
            }
        }
        Ok(())
    });
    assert_peak_memory_bounded();
}

/// A length declared but not sent is not allocated; one above the limit
/// is discarded in the input's small chunks as it streams, and the frame
/// after it is read.
#[test]
fn server_frames_hold_only_the_bytes_that_arrive() {
    let request = r#"{"jsonrpc":"2.0","id":1,"method":"shutdown"}"#;
    let next = framed(request.as_bytes(), 0);
    // 60 MiB declared (within the limit), three bytes sent.
    let declared = b"Content-Length: 62914560\r\n\r\nabc".as_slice();
    let (results, largest) = read_frames(declared).expect("ends");
    assert!(
        matches!(
            results.as_slice(),
            [Err(FrameError::Truncated {
                declared: 62914560,
                received: 3
            })]
        ),
        "{results:?}"
    );
    assert!(largest < 64 * 1024, "{largest} bytes allocated at once");
    // 70 MiB declared and sent, generated as it is read.
    let size: u64 = 70 * 1024 * 1024;
    let stream = std::io::Cursor::new(format!("Content-Length: {size}\r\n\r\n"))
        .chain(std::io::repeat(b' ').take(size))
        .chain(std::io::Cursor::new(next));
    let ((first, second, end), largest) = LargestAllocation::during(|| {
        let mut reader = MessageReader::new(std::io::BufReader::new(stream));
        (
            reader.read_message(),
            reader.read_message(),
            reader.read_message(),
        )
    });
    assert!(
        matches!(first, Err(FrameError::TooLarge { declared }) if declared == size),
        "{first:?}"
    );
    assert!(
        matches!(&second, Ok(Some(Message::Request(r))) if r.method == "shutdown"),
        "{second:?}"
    );
    assert!(matches!(end, Ok(None)), "{end:?}");
    assert!(largest < 64 * 1024, "{largest} bytes allocated at once");
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
