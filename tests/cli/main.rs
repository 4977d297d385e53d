//! End-to-end tests: run the real `confvet` binary in temporary directories
//! and check what a user would notice (exit codes, output, file names). The
//! modules test one part of the command line each.

mod baseline;
mod cache;
mod cache_differential;
mod changed_since;
mod cli_habits;
#[path = "../common/mod.rs"]
mod common;
mod components;
mod config;
mod discovery;
mod file_marks;
mod fixes;
mod formats;
mod kubernetes;
mod package_drift;
mod progress;
mod reports;
mod rule_docs;
mod schema_formats;
mod server;
mod shards;
mod suppress;

use common::{Run, TempDir, findings, run_env, run_in};
use serde_json::Value;
use std::path::Path;

const SCHEMA: &str = "#@data/values-schema
---
namespace: shop
#@schema/validation min=1, max=20
replicas: 2
database:
  port: 5432
";

const CLEAN_VALUES: &str = "#@data/values
---
replicas: 3
";

/// replicas breaks max=20: a validation error that needs the schema.
const BAD_VALUES: &str = "#@data/values
---
replicas: 50
";

/// A temp dir holding a clean ytt package in `pkg/`.
fn clean_package() -> TempDir {
    let dir = TempDir::new("clean");
    dir.write("pkg/schema.yml", SCHEMA);
    dir.write("pkg/values.yml", CLEAN_VALUES);
    dir
}

/// A temp dir holding a ytt package in `pkg/` with one validation error.
fn bad_package(label: &str) -> TempDir {
    let dir = TempDir::new(label);
    dir.write("pkg/schema.yml", SCHEMA);
    dir.write("pkg/values.yml", BAD_VALUES);
    dir
}

fn assert_replicas_error(json: &Value) {
    let found = findings(json)
        .iter()
        .any(|f| f["rule"] == "ytt/validation" && f["file"] == "pkg/values.yml" && f["line"] == 3);
    assert!(
        found,
        "the package's validation error is missing:\n{json:#}"
    );
}

/// Lint the bad package together with `extra`: the package's validation
/// error is reported, and nothing in `extra`.
fn assert_only_the_package_error(dir: &TempDir, extra: &str) {
    let run = run_in(dir.path(), &["lint", "pkg", extra, "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let json = run.json();
    assert_replicas_error(&json);
    assert!(
        findings(&json)
            .iter()
            .all(|f| f["file"] == "pkg/values.yml"),
        "{json:#}"
    );
}

/// Copy examples/shop into a temp dir as `shop/`.
fn shop() -> TempDir {
    let dir = TempDir::new("shop");
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/shop/config");
    for entry in std::fs::read_dir(&source).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        let text = std::fs::read(entry.path()).unwrap();
        dir.write(&format!("shop/config/{}", name.to_string_lossy()), text);
    }
    dir
}

// 1. Exit codes ------------------------------------------------------------

#[test]
fn clean_package_exits_0() {
    let dir = clean_package();
    let run = run_in(dir.path(), &["lint", "pkg"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let run = run_in(dir.path(), &["lint", "pkg", "--format", "json"]);
    assert_eq!(run.code, 0);
    assert!(findings(&run.json()).is_empty());
}

#[test]
fn error_finding_exits_1() {
    let dir = bad_package("exit1");
    let run = run_in(dir.path(), &["lint", "pkg"]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("error[ytt/validation]"),
        "{}",
        run.stdout
    );
}

#[test]
fn fail_on_never_exits_0_and_still_reports() {
    let dir = bad_package("never");
    let run = run_in(dir.path(), &["lint", "pkg", "--fail-on", "never"]);
    assert_eq!(run.code, 0);
    assert!(
        run.stdout.contains("error[ytt/validation]"),
        "{}",
        run.stdout
    );
}

#[test]
fn quiet_prints_nothing_but_keeps_the_exit_code() {
    let dir = bad_package("quiet");
    let run = run_in(dir.path(), &["lint", "pkg", "--quiet"]);
    assert_eq!(run.code, 1);
    assert_eq!(run.stdout, "");
}

#[test]
fn missing_path_exits_2_and_names_it() {
    let dir = clean_package();
    let run = run_in(dir.path(), &["lint", "pkg", "no-such-dir"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("no-such-dir"), "{}", run.stderr);
}

#[test]
fn unknown_flag_exits_2() {
    let dir = clean_package();
    let run = run_in(dir.path(), &["lint", "--no-such-flag", "pkg"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("--no-such-flag"), "{}", run.stderr);
    let run = run_in(dir.path(), &["lint", "pkg", "--format", "xml"]);
    assert_eq!(run.code, 2);
}

#[test]
fn explain_unknown_rule_exits_2() {
    let dir = TempDir::new("explain");
    let run = run_in(dir.path(), &["explain", "no/such"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("no/such"), "{}", run.stderr);
    let run = run_in(dir.path(), &["explain", "ytt/validation"]);
    assert_eq!(run.code, 0);
    assert!(run.stdout.starts_with("# ytt/validation"), "{}", run.stdout);
}

#[test]
fn rules_lists_ytt_validation() {
    let dir = TempDir::new("rules");
    let run = run_in(dir.path(), &["rules"]);
    assert_eq!(run.code, 0);
    assert!(
        run.stdout.lines().any(|l| l.starts_with("ytt/validation ")),
        "{}",
        run.stdout
    );
}

// 2. Hostile input ---------------------------------------------------------

/// Put `contents` at `hostile/<name>` beside a package with a real error,
/// lint both, and return the finding for the hostile file (if any).
fn lint_hostile(label: &str, name: &str, contents: &[u8]) -> (Run, Vec<Value>) {
    let dir = bad_package(label);
    dir.write(&format!("hostile/{name}"), contents);
    let run = run_in(dir.path(), &["lint", "pkg", "hostile", "--format", "json"]);
    assert_eq!(run.code, 1, "stderr:\n{}", run.stderr);
    let json = run.json();
    assert_replicas_error(&json);
    let file = format!("hostile/{name}");
    let hostile: Vec<Value> = findings(&json)
        .iter()
        .filter(|f| f["file"] == file.as_str())
        .cloned()
        .collect();
    (run, hostile)
}

/// The one finding of `list`, which has rule `rule` at line `line`.
fn the_one_finding<'a>(list: &'a [Value], rule: &str, line: u64) -> &'a Value {
    assert_eq!(list.len(), 1, "{list:#?}");
    let f = &list[0];
    assert_eq!(f["rule"], rule, "{f:#}");
    assert_eq!(f["line"], line, "{f:#}");
    f
}

fn assert_syntax_at(findings: &[Value], line: u64) {
    let f = the_one_finding(findings, "yaml/syntax", line);
    assert_eq!(f["kind"], "syntax", "{f:#}");
    assert!(f["column"].as_u64().unwrap() >= 1, "{f:#}");
}

#[test]
fn invalid_yaml_in_data_values() {
    let (_, found) = lint_hostile(
        "invalid",
        "values.yml",
        b"#@data/values\n---\na: [1, 2\nb: : :\n",
    );
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0]["kind"], "syntax");
    assert!(found[0]["line"].as_u64().unwrap() >= 3, "{:#}", found[0]);
}

#[test]
fn non_utf8_ytt_file() {
    let (_, found) = lint_hostile(
        "nonutf8",
        "values.yml",
        b"#@data/values\n---\na: \xff\xfe x\n",
    );
    assert_syntax_at(&found, 3);
    assert_eq!(found[0]["column"], 4);
}

#[test]
fn binary_file_with_nul_bytes() {
    let (_, found) = lint_hostile("binary", "x.yml", b"#@ x\0\0\x01\x02abc\n\0#@\n");
    assert_syntax_at(&found, 1);
    assert!(
        found[0]["message"].as_str().unwrap().contains("NUL"),
        "{:#}",
        found[0]
    );
}

#[test]
fn deeply_nested_flow_sequences() {
    let n = 10_000;
    let text = format!(
        "#@data/values\n---\na: {}{}\n",
        "[".repeat(n),
        "]".repeat(n)
    );
    let (_, found) = lint_hostile("flow", "deep.yml", text.as_bytes());
    assert_syntax_at(&found, 3);
}

#[test]
fn deeply_nested_block_maps() {
    let n = 10_000;
    let mut text = String::from("#@data/values\n---\n");
    for depth in 0..n {
        text.push_str(&" ".repeat(depth));
        text.push_str("k:\n");
    }
    text.push_str(&" ".repeat(n));
    text.push_str("v\n");
    let (_, found) = lint_hostile("block", "deep.yml", text.as_bytes());
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0]["kind"], "syntax");
    // The finding points into the nesting, past the header.
    assert!(found[0]["line"].as_u64().unwrap() > 2, "{:#}", found[0]);
}

#[test]
fn alias_bomb() {
    let mut text = String::from("#@data/values\n---\na0: &a0 lol\n");
    for i in 1..=9 {
        let refs = vec![format!("*a{}", i - 1); 9].join(", ");
        text.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
    }
    let (_, found) = lint_hostile("bomb", "bomb.yml", text.as_bytes());
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0]["kind"], "syntax");
    assert!(found[0]["line"].as_u64().unwrap() >= 3, "{:#}", found[0]);
}

/// A large, valid values file. 50 MB takes about 90 s and 5 GB of memory in
/// a debug build, so this uses 20 MB.
#[test]
fn large_values_file() {
    const SIZE: usize = 20 * 1024 * 1024;
    let mut text = String::with_capacity(SIZE + 100);
    text.push_str("#@data/values\n---\nitems:\n");
    let mut i = 0;
    while text.len() < SIZE {
        // Long values: 20 MB of tiny nodes would pass the node limit
        // (a million per file) first, which tests/hostile covers.
        text.push_str(&format!(
            "- name: item{i}\n  value: {i}\n  note: {}\n",
            "lorem ipsum dolor sit amet ".repeat(8)
        ));
        i += 1;
    }
    // A syntax error at the very end, so the whole file must be read.
    text.push_str("bad: : :\n");
    let last_line = text.lines().count() as u64;
    let (_, found) = lint_hostile("large", "big.yml", text.as_bytes());
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0]["kind"], "syntax");
    assert_eq!(found[0]["line"], last_line, "{:#}", found[0]);
}

#[test]
fn file_with_only_comments() {
    let dir = bad_package("comments");
    dir.write("hostile/comments.yml", "# nothing here\n# nor here\n");
    dir.write("hostile/ytt-comments.yml", "#! a ytt comment\n#@ x = 1\n");
    assert_only_the_package_error(&dir, "hostile/comments.yml");
}

#[test]
fn empty_file() {
    let dir = bad_package("empty");
    dir.write("hostile/empty.yml", "");
    assert_only_the_package_error(&dir, "hostile/empty.yml");
    // An empty file on its own is clean.
    let run = run_in(&dir.path().join("hostile"), &["lint", "empty.yml"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
}

// 3. Formats ---------------------------------------------------------------

#[test]
fn sarif_to_file_and_text_to_stdout() {
    let dir = shop();
    let json = run_in(dir.path(), &["lint", "shop", "--format", "json"]).json();
    let count = findings(&json).len();
    assert!(count > 0);

    let run = run_in(
        dir.path(),
        &[
            "lint",
            "shop",
            "--format",
            "sarif",
            "--output",
            "out.sarif",
            "--format",
            "text",
            "--color",
            "never",
        ],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stdout.contains("error[ytt/validation]"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("\"$schema\""), "{}", run.stdout);
    let sarif: Value = serde_json::from_str(&dir.read("out.sarif")).unwrap();
    assert_eq!(sarif["version"], "2.1.0");
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), count);
}

#[test]
fn junit_has_a_failure_per_finding() {
    let dir = shop();
    let json = run_in(dir.path(), &["lint", "shop", "--format", "json"]).json();
    let count = findings(&json).len();
    let run = run_in(dir.path(), &["lint", "shop", "--format", "junit"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stdout.contains("<testsuites"), "{}", run.stdout);
    assert_eq!(
        run.stdout.matches("<failure").count(),
        count,
        "{}",
        run.stdout
    );
}

#[test]
fn github_annotations() {
    let dir = shop();
    let run = run_in(dir.path(), &["lint", "shop", "--format", "github"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", run.stdout);
    for line in lines {
        assert!(line.starts_with("::error file=shop/config/"), "{line}");
    }
}

#[test]
fn markdown_summary_has_a_row_per_finding() {
    let dir = shop();
    let run = run_in(dir.path(), &["lint", "shop", "--format", "markdown"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stdout
            .starts_with("### confvet: 3 errors, 0 warnings in 3 files\n"),
        "{}",
        run.stdout
    );
    let rows: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("| error | "))
        .collect();
    assert_eq!(rows.len(), 3, "{}", run.stdout);
    assert!(
        rows.contains(&"| error | `ytt/validation` | shop/config/values.yml:11:14 | database.pool\\_size must be a value \\<= 100, found 250 |"),
        "{}",
        run.stdout
    );
}

#[test]
fn json_contract() {
    let dir = shop();
    let run = run_in(dir.path(), &["lint", "shop", "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let json = run.json();
    assert_eq!(json["version"], 1);
    assert_eq!(json["tool"]["name"], "confvet");
    assert_eq!(json["tool"]["version"], env!("CARGO_PKG_VERSION"));
    let list = findings(&json);
    assert_eq!(list.len(), 3);
    for f in list {
        for key in ["rule", "kind", "severity", "message", "file", "fingerprint"] {
            assert!(f[key].is_string(), "{key} in {f:#}");
        }
        for key in ["line", "column", "end_line", "end_column"] {
            assert!(f[key].as_u64().is_some_and(|n| n >= 1), "{key} in {f:#}");
        }
        assert!(f["related"].is_array(), "{f:#}");
        assert!(f["file"].as_str().unwrap().starts_with("shop/config/"));
    }
    let summary = &json["summary"];
    assert_eq!(summary["errors"], 3);
    assert_eq!(summary["warnings"], 0);
    assert_eq!(summary["files"], 3);
    assert_eq!(summary["units"], 1);
    assert_eq!(summary["suppressed"], 0);
}

#[test]
fn text_output_snapshot() {
    let dir = shop();
    let run = run_in(dir.path(), &["lint", "shop", "--color", "never"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    insta::assert_snapshot!(run.stdout);
}

// 4. Fingerprints ----------------------------------------------------------

#[test]
fn fingerprints_survive_moved_lines() {
    let dir = shop();
    let before = run_in(dir.path(), &["lint", "shop", "--format", "json"]).json();
    let values = dir.read("shop/config/values.yml");
    dir.write(
        "shop/config/values.yml",
        format!("#! moved down\n\n\n\n{values}"),
    );
    let after = run_in(dir.path(), &["lint", "shop", "--format", "json"]).json();
    let (before, after) = (findings(&before), findings(&after));
    assert_eq!(before.len(), after.len());
    let mut moved = 0;
    for (b, a) in before.iter().zip(after) {
        assert_eq!(b["fingerprint"], a["fingerprint"], "{b:#}\n{a:#}");
        assert_eq!(b["rule"], a["rule"]);
        if a["file"] == "shop/config/values.yml" {
            assert_eq!(
                a["line"].as_u64().unwrap(),
                b["line"].as_u64().unwrap() + 4,
                "{b:#}\n{a:#}"
            );
            moved += 1;
        }
    }
    assert!(moved > 0);
}

// 5. Files one by one ------------------------------------------------------

#[test]
fn single_values_file_is_checked_against_its_schema() {
    let dir = TempDir::new("precommit");
    dir.write("pkg/schema.yml", SCHEMA);
    dir.write(
        "pkg/values.yml",
        "#@data/values\n---\ndatabase:\n  port: \"5432\"\n",
    );
    let run = run_in(dir.path(), &["lint", "pkg/values.yml", "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let json = run.json();
    let found = the_one_finding(findings(&json), "ytt/type-mismatch", 4);
    assert_eq!(found["file"], "pkg/values.yml");
    assert_eq!(found["related"][0]["file"], "pkg/schema.yml");
}

// 6. values ----------------------------------------------------------------

#[test]
fn values_prints_merged_yaml_and_json() {
    let dir = clean_package();
    let run = run_in(dir.path(), &["values", "pkg"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("namespace: shop"), "{}", run.stdout);
    assert!(run.stdout.contains("replicas: 3"), "{}", run.stdout);
    assert!(run.stdout.contains("port: 5432"), "{}", run.stdout);

    let run = run_in(dir.path(), &["values", "pkg", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let json = run.json();
    assert_eq!(json["namespace"], "shop");
    assert_eq!(json["replicas"], 3);
    assert_eq!(json["database"]["port"], 5432);
}

#[test]
fn values_with_data_value_yaml() {
    let dir = clean_package();
    let run = run_in(
        dir.path(),
        &[
            "values",
            "pkg",
            "--format",
            "json",
            "--data-value-yaml",
            "replicas=5",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json()["replicas"], 5);
}

#[test]
fn values_reads_the_folder_named_as_one_package() {
    // `ytt -f pkg --data-values-inspect`: the schema overlay in `prod/`
    // extends the schema of `config/`, though discovery alone would make
    // `prod/` a package of its own.
    let dir = TempDir::new("values-whole-folder");
    dir.write(
        "pkg/config/schema.yml",
        "#@data/values-schema\n---\nname: app\n",
    );
    dir.write(
        "pkg/prod/schema.yml",
        "#@ load(\"@ytt:overlay\", \"overlay\")\n#@data/values-schema\n---\n#@overlay/match missing_ok=True\nreplicas: 3\n",
    );
    dir.write("pkg/prod/values.yml", "#@data/values\n---\nreplicas: 5\n");
    let run = run_in(dir.path(), &["values", "pkg"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "name: app\nreplicas: 5\n");
}

#[test]
fn values_does_not_check_the_templates() {
    // `ytt -f pkg --data-values-inspect` stops once the data values are
    // known: a template using a value nobody declared does not matter.
    let dir = TempDir::new("values-templates-unchecked");
    dir.write("pkg/schema.yml", "#@data/values-schema\n---\nname: app\n");
    dir.write(
        "pkg/secret.yml",
        "#@ load(\"@ytt:data\", \"data\")\n---\nhost: #@ data.values.registry.host\n",
    );
    let run = run_in(dir.path(), &["values", "pkg"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "name: app\n");
}

#[test]
fn values_of_a_folder_without_ytt_files_is_empty() {
    // As `--data-values-inspect` of plain YAML: no data values, nothing printed.
    let dir = TempDir::new("values-no-ytt");
    dir.write("pkg/plain.yml", "a: 1\n");
    let run = run_in(dir.path(), &["values", "pkg"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "");
}

#[test]
fn string_data_value_against_integer_is_a_type_error() {
    let dir = clean_package();
    let run = run_in(
        dir.path(),
        &["lint", "pkg", "-v", "replicas=5", "--format", "json"],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    let json = run.json();
    let list = findings(&json);
    assert_eq!(list.len(), 1, "{json:#}");
    assert_eq!(list[0]["kind"], "type");
    assert_eq!(list[0]["path"], "replicas");

    let run = run_in(dir.path(), &["values", "pkg", "-v", "replicas=5"]);
    assert_eq!(run.code, 1);
    assert_eq!(run.stdout, "");
    assert!(run.stderr.contains("replicas"), "{}", run.stderr);
}

// 7. Colour ----------------------------------------------------------------

#[test]
fn no_color_and_color_always() {
    let dir = bad_package("color");
    let run = run_env(
        dir.path(),
        &["lint", "pkg", "--color", "auto"],
        &[("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")],
    );
    assert_eq!(run.code, 1);
    assert!(run.stdout.contains("error[ytt/validation]"));
    assert!(!run.stdout.contains('\x1b'), "{:?}", run.stdout);

    let run = run_in(dir.path(), &["lint", "pkg", "--color", "always"]);
    assert_eq!(run.code, 1);
    assert!(run.stdout.contains("\x1b["), "{:?}", run.stdout);

    let run = run_env(
        dir.path(),
        &["lint", "pkg", "--color", "auto"],
        &[("CLICOLOR_FORCE", "1")],
    );
    assert!(run.stdout.contains("\x1b["), "{:?}", run.stdout);

    // Files never get colour.
    let run = run_in(
        dir.path(),
        &["lint", "pkg", "--color", "always", "--output", "out.txt"],
    );
    assert_eq!(run.code, 1);
    assert!(!dir.read("out.txt").contains('\x1b'));
}

#[test]
fn a_single_file_is_linted_with_its_package_only() {
    // A broken ytt file elsewhere in the repository is not part of the
    // package of the file pre-commit passes.
    let dir = bad_package("single-scope");
    dir.write("other/broken.yml", "#@data/values\n---\na: [1\n");
    let run = run_in(dir.path(), &["lint", "pkg/values.yml", "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let json = run.json();
    assert_replicas_error(&json);
    assert!(
        findings(&json)
            .iter()
            .all(|f| f["file"] != "other/broken.yml"),
        "{json:#}"
    );
}

#[test]
fn custom_rules_and_when_run_from_the_binary() {
    let dir = TempDir::new("custom-rules");
    dir.write(
        "pkg/schema.yml",
        "#@ load(\"helpers.star\", \"is_even\")\n#@data/values-schema\n---\nenabled: true\n#@schema/validation (\"an even count\", is_even), when=lambda v, ctx: ctx.parent[\"enabled\"]\ncount: 2\n",
    );
    dir.write(
        "pkg/helpers.star",
        "def is_even(v):\n  return v % 2 == 0\nend\n",
    );
    dir.write("pkg/values.yml", "#@data/values\n---\ncount: 3\n");
    let run = run_in(dir.path(), &["lint", "pkg", "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let json = run.json();
    let found = findings(&json);
    assert_eq!(found.len(), 1, "{json:#}");
    assert_eq!(found[0]["path"], "count");
    assert!(
        found[0]["message"]
            .as_str()
            .unwrap()
            .contains("an even count")
    );
    // when= false: the rule does not run.
    dir.write(
        "pkg/values.yml",
        "#@data/values\n---\nenabled: false\ncount: 3\n",
    );
    let run = run_in(dir.path(), &["lint", "pkg", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
}

#[test]
fn an_endless_rule_is_stopped_and_reported() {
    let dir = TempDir::new("endless");
    dir.write(
        "pkg/schema.yml",
        "#@ def spin(v):\n#@   for i in range(1000000000):\n#@     v = v + 1\n#@   end\n#@   return True\n#@ end\n#@data/values-schema\n---\n#@schema/validation (\"terminates\", spin)\ncount: 2\n",
    );
    let run = run_in(dir.path(), &["lint", "pkg", "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let json = run.json();
    let message = findings(&json)[0]["message"].as_str().unwrap().to_string();
    assert!(message.contains("statements"), "{message}");
}

/// The quick start's `confvet lint examples/`: every system's example is
/// found and each deliberate mistake reported where it stands, with the
/// value underlined and a hint where one helps.
#[test]
fn the_bundled_examples_show_every_system() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let run = run_in(root, &["lint", "examples", "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let report = run.json();
    let seen: Vec<String> = findings(&report)
        .iter()
        .map(|f| {
            format!(
                "{} {}:{}:{} {}",
                f["rule"].as_str().unwrap(),
                f["file"].as_str().unwrap(),
                f["line"],
                f["column"],
                f["help"].as_str().unwrap_or("-")
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            "kubevirt/validation examples/kubevirt/web-01.yaml:15:18 -",
            "kubevirt/validation examples/kubevirt/web-01.yaml:18:21 -",
            "ytt/validation examples/shop/config/values.yml:5:16 -",
            "ytt/validation examples/shop/config/values.yml:7:15 -",
            "ytt/validation examples/shop/config/values.yml:11:14 -",
            // The scenario of `examples/.confvet.yaml`, the configuration
            // closest to `examples`.
            "ytt/validation examples/shop/prod-values.yml:1:11 -",
            "tekton/param-reference examples/tekton/build-task.yaml:29:21 declared: repository, tag",
            "tekton/missing-keys examples/tekton/pipeline.yaml:15:11 -",
            "tekton/result-reference examples/tekton/pipeline.yaml:22:37 declared: digest",
            "tekton/trigger-legacy-param examples/tekton/trigger-template.yaml:20:20 write $(tt.params.revision)",
            "kubernetes/unknown-field examples/web/deployment.yml:20:9 did you mean `imagePullPolicy`?",
        ],
        "{report:#}"
    );
    assert_eq!(report["summary"]["units"], 4);
}

/// The quick start's `confvet lint --diff examples/`: the fixes shown, the
/// examples left as they are.
#[test]
fn the_bundled_examples_show_their_fixes_without_changing() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let before = std::fs::read(root.join("examples/tekton/trigger-template.yaml")).unwrap();
    let run = run_in(root, &["lint", "--no-cache", "--diff", "examples"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stdout
            .contains("+            value: $(tt.params.revision)   # Triggers before v0.8"),
        "{}",
        run.stdout
    );
    assert!(
        !run.stdout.contains("imagePullPolicy"),
        "unsafe: {}",
        run.stdout
    );
    let run = run_in(
        root,
        &["lint", "--no-cache", "--diff", "--unsafe-fixes", "examples"],
    );
    assert!(
        run.stdout.contains(
            "-        imagePullPolcy: IfNotPresent\n+        imagePullPolicy: IfNotPresent"
        ),
        "{}",
        run.stdout
    );
    let after = std::fs::read(root.join("examples/tekton/trigger-template.yaml")).unwrap();
    assert_eq!(before, after);
}

#[test]
fn an_unloaded_star_file_is_evaluated_with_its_own_package_only() {
    // ytt evaluates every library file of a package, loaded or not; a
    // nested package's `.star` is that package's, not the outer one's.
    let dir = TempDir::new("unloaded-star");
    dir.write("pkg/schema.yml", "#@data/values-schema\n---\nname: outer\n");
    dir.write(
        "pkg/tpl.yml",
        "#@ load(\"@ytt:data\", \"data\")\n---\nname: #@ data.values.name\n",
    );
    dir.write(
        "pkg/inner/schema.yml",
        "#@data/values-schema\n---\nsize: 0\n",
    );
    dir.write(
        "pkg/inner/tpl.yml",
        "#@ load(\"@ytt:data\", \"data\")\n---\nsize: #@ data.values.size\n",
    );
    dir.write(
        "pkg/inner/check.star",
        "load(\"@ytt:data\", \"data\")\nload(\"@ytt:assert\", \"assert\")\ndata.values.size > 0 or assert.fail(\"size must be positive\")\n",
    );
    let run = run_in(dir.path(), &["lint", "pkg", "--format", "json"]);
    let report = run.json();
    let list = findings(&report);
    assert_eq!(list.len(), 1, "{report:#}");
    assert_eq!(list[0]["rule"], "ytt/template-fail");
    assert_eq!(list[0]["file"], "pkg/inner/schema.yml");

    let render = run_in(dir.path(), &["render", "pkg/inner"]);
    assert_eq!(render.code, 1, "{}", render.stdout);
}

/// A template whose value is `data.values.x or assert.fail(...)`: with the
/// package's own values the failure may await the consumer's value (a
/// warning); with values given on the command line it is an error.
#[test]
fn a_template_failure_warns_as_shipped_and_fails_with_consumer_values() {
    let dir = TempDir::new("template-fail");
    dir.write(
        "pkg/schema.yml",
        "#@data/values-schema\n---\n#@schema/nullable\nstorage_class: \"\"\nreplicas: 1\n",
    );
    dir.write(
        "pkg/pvc.yml",
        "#@ load(\"@ytt:data\", \"data\")\n#@ load(\"@ytt:assert\", \"assert\")\n---\nspec:\n  storageClassName: #@ data.values.storage_class or assert.fail(\"storage_class must be set\")\n  #@assert/validate min=1\n  replicas: #@ data.values.replicas\n",
    );
    let shipped = run_in(dir.path(), &["lint", "pkg", "--format", "json"]);
    assert_eq!(shipped.code, 0, "{}", shipped.stdout);
    let report = shipped.json();
    let found = the_one_finding(findings(&report), "ytt/template-fail", 5);
    assert_eq!(found["severity"], "warning");
    assert_eq!(found["message"], "storage_class must be set");

    let given = run_in(
        dir.path(),
        &[
            "lint",
            "pkg",
            "-v",
            "storage_class=",
            "--data-value-yaml",
            "replicas=0",
            "--format",
            "json",
        ],
    );
    assert_eq!(given.code, 1, "{}", given.stdout);
    let report = given.json();
    let seen: Vec<String> = findings(&report)
        .iter()
        .map(|f| format!("{} {} {}", f["rule"], f["severity"], f["line"]))
        .collect();
    // As in ytt, the template's first failure stops it: its output is not
    // validated.
    assert_eq!(seen, ["\"ytt/template-fail\" \"error\" 5"], "{report:#}");
    let good = run_in(dir.path(), &["lint", "pkg", "-v", "storage_class=ssd"]);
    assert_eq!(good.code, 0, "{}", good.stdout);
    // Rendered, the replicas (0) breaks the template's @assert/validate.
    let rendered = run_in(
        dir.path(),
        &[
            "lint",
            "pkg",
            "-v",
            "storage_class=ssd",
            "--data-value-yaml",
            "replicas=0",
            "--format",
            "json",
        ],
    );
    assert_eq!(rendered.code, 1, "{}", rendered.stdout);
    let report = rendered.json();
    let seen: Vec<String> = findings(&report)
        .iter()
        .map(|f| format!("{} {} {}", f["rule"], f["severity"], f["line"]))
        .collect();
    assert_eq!(seen, ["\"ytt/validation\" \"error\" 7"], "{report:#}");
}

/// A `fail()` in a loaded `.star` file, reached through a call in the
/// template: the finding is at the template's line, the failing call in the
/// `.star` file is a related location, and since the value that fails is one
/// the package gives (not null), it is an error.
#[test]
fn a_template_failure_shows_its_call_chain() {
    let dir = TempDir::new("call-chain");
    dir.write("pkg/schema.yml", "#@data/values-schema\n---\nreplicas: 0\n");
    dir.write(
        "pkg/helpers.star",
        "load(\"@ytt:assert\", \"assert\")\ndef calc_replicas(n):\n  if n < 1:\n    assert.fail(\"replicas must be at least 1, got {}\".format(n))\n  end\n  return n\nend\n",
    );
    dir.write(
        "pkg/deploy.yml",
        "#@ load(\"@ytt:data\", \"data\")\n#@ load(\"helpers.star\", \"calc_replicas\")\n---\nkind: Deployment\nspec:\n  replicas: #@ calc_replicas(data.values.replicas)\n",
    );
    let out = run_in(dir.path(), &["lint", "pkg", "--format", "json"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    let report = out.json();
    let found = the_one_finding(findings(&report), "ytt/template-fail", 6);
    assert_eq!(found["severity"], "error");
    let related = found["related"].as_array().expect("related locations");
    assert_eq!(related.len(), 1, "{report:#}");
    assert!(
        related[0]["file"]
            .as_str()
            .unwrap()
            .ends_with("helpers.star")
    );
    assert_eq!(related[0]["line"], 4);

    // A null value the package leaves to its consumer: a warning naming it.
    dir.write(
        "pkg/schema.yml",
        "#@data/values-schema\n---\n#@schema/nullable\nreplicas: 0\n",
    );
    dir.write(
        "pkg/helpers.star",
        "load(\"@ytt:data\", \"data\")\nload(\"@ytt:assert\", \"assert\")\ndef calc_replicas(n):\n  return data.values.replicas or assert.fail(\"replicas is required\")\nend\n",
    );
    let out = run_in(dir.path(), &["lint", "pkg", "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    let report = out.json();
    let list = findings(&report);
    assert_eq!(list[0]["severity"], "warning", "{report:#}");
    assert!(
        list[0]["help"].as_str().unwrap().contains("`replicas`"),
        "{report:#}"
    );
}

/// An overlay document whose `expects=` is not met stops `ytt -f`: lint
/// reports ytt's message at the overlay's `@overlay/match` line. Overlays
/// see the package's plain YAML files too, as ytt does.
#[test]
fn an_unmet_overlay_expectation_is_an_error_at_its_match_line() {
    let dir = TempDir::new("overlay-expects");
    dir.write("pkg/schema.yml", "#@data/values-schema\n---\nreplicas: 2\n");
    dir.write(
        "pkg/upstream/deploy.yml",
        "kind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n",
    );
    dir.write(
        "pkg/overlay.yml",
        "#@ load(\"@ytt:overlay\", \"overlay\")\n#@ load(\"@ytt:data\", \"data\")\n#@overlay/match by=overlay.subset({\"kind\": \"Deployment\"})\n---\nspec:\n  replicas: #@ data.values.replicas\n",
    );
    let run = run_in(dir.path(), &["lint", "pkg", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(findings(&run.json()).is_empty(), "{}", run.stdout);

    dir.write(
        "pkg/overlay.yml",
        "#@ load(\"@ytt:overlay\", \"overlay\")\n#@ load(\"@ytt:data\", \"data\")\n#@overlay/match by=overlay.subset({\"kind\": \"StatefulSet\"})\n---\nspec:\n  replicas: #@ data.values.replicas\n",
    );
    let run = run_in(dir.path(), &["lint", "pkg", "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let report = run.json();
    let found = the_one_finding(findings(&report), "ytt/template-error", 3);
    assert_eq!(found["severity"], "error", "{report:#}");
    assert_eq!(
        found["message"],
        "Overlaying (in following order: overlay.yml): Document on line overlay.yml:4: Expected number of matched nodes to be 1, but was 0",
        "{report:#}"
    );
}

/// `lint pkg` in `dir` finds one error: it, and its related locations as
/// `file:line message`.
fn the_one_error_and_its_related(dir: &TempDir) -> (Value, Vec<String>) {
    let run = run_in(dir.path(), &["lint", "pkg", "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let report = run.json();
    let list = findings(&report);
    assert_eq!(list.len(), 1, "{report:#}");
    let related = list[0]["related"]
        .as_array()
        .expect("related locations")
        .iter()
        .map(|r| {
            format!(
                "{}:{} {}",
                r["file"].as_str().unwrap(),
                r["line"],
                r["message"].as_str().unwrap()
            )
        })
        .collect();
    (list[0].clone(), related)
}

/// An overlay whose `@overlay/match` finds no target, or too many, says
/// what ytt does not: the nearest candidates and the key where each
/// differs, or where each match is; so does a failed `@overlay/assert`.
/// The message stays ytt's.
#[test]
fn an_overlay_that_does_not_apply_explains_itself() {
    let dir = TempDir::new("overlay-explained");
    dir.write(
        "pkg/deploy.yml",
        "kind: Deployment\nmetadata:\n  name: web-v2\nspec:\n  replicas: 1\n  template:\n    spec:\n      containers:\n      - name: web-app\n---\nkind: Service\nmetadata:\n  name: web\n",
    );
    let overlay = |dir: &TempDir, text: &str| {
        dir.write(
            "pkg/overlay.yml",
            format!("#@ load(\"@ytt:overlay\", \"overlay\")\n{text}"),
        );
        let (error, related) = the_one_error_and_its_related(dir);
        (
            error["message"].as_str().unwrap().to_string(),
            error["line"].clone(),
            related,
        )
    };
    // A subset no document holds: the Deployment (of the kind asked for)
    // and the key where it differs; the Service is not shown.
    let (message, line, related) = overlay(
        &dir,
        "#@overlay/match by=overlay.subset({\"kind\": \"Deployment\", \"metadata\": {\"name\": \"web\"}})\n---\nspec:\n  replicas: 3\n",
    );
    assert!(
        message.ends_with(
            "Document on line overlay.yml:3: Expected number of matched nodes to be 1, but was 0"
        ),
        "{message}"
    );
    assert_eq!(line, 2);
    assert_eq!(
        related,
        ["pkg/deploy.yml:3 target has metadata.name: web-v2; overlay asks for web"]
    );
    // An array item matched by key: the item's @overlay/match, then each
    // item and its key.
    let (_, _, related) = overlay(
        &dir,
        "#@overlay/match by=overlay.subset({\"kind\": \"Deployment\"})\n---\nspec:\n  template:\n    spec:\n      containers:\n      #@overlay/match by=\"name\"\n      - name: web\n",
    );
    assert_eq!(
        related,
        [
            "pkg/overlay.yml:8 this item's @overlay/match",
            "pkg/deploy.yml:9 target has name: web-app; overlay asks for web",
        ]
    );
    // Too many matches: where each is.
    let (message, _, related) = overlay(
        &dir,
        "#@overlay/match by=overlay.subset({\"metadata\": {}})\n---\nmetadata:\n  labels: {}\n",
    );
    assert!(
        message.ends_with("but was 2 (lines: deploy.yml:1, deploy.yml:10)"),
        "{message}"
    );
    assert_eq!(
        related,
        [
            "pkg/deploy.yml:1 match 1 of 2",
            "pkg/deploy.yml:10 match 2 of 2"
        ]
    );
    // An assert: where the target differs.
    let (message, _, related) = overlay(
        &dir,
        "#@overlay/match by=overlay.subset({\"kind\": \"Deployment\"})\n#@overlay/assert\n---\nspec:\n  replicas: 3\n",
    );
    assert!(
        message.ends_with(
            "Expected objects to equal, but did not: Expected leaf values to match integer integer"
        ),
        "{message}"
    );
    assert_eq!(
        related,
        ["pkg/deploy.yml:5 target has spec.replicas: 1; overlay asserts 3"]
    );
    // An assert by via=: which target it refused.
    let (message, _, related) = overlay(
        &dir,
        "#@overlay/match by=overlay.subset({\"kind\": \"Deployment\"})\n---\nspec:\n  #@overlay/assert via=lambda l, r: (l >= r, \"too few\")\n  replicas: 3\n",
    );
    assert!(
        message.ends_with("but was false with message: too few"),
        "{message}"
    );
    assert_eq!(related, ["pkg/deploy.yml:5 the target via= refused"]);
    // render: ytt's message first, the notes after it.
    dir.write(
        "pkg/overlay.yml",
        "#@ load(\"@ytt:overlay\", \"overlay\")\n#@overlay/match by=overlay.subset({\"kind\": \"Deployment\", \"metadata\": {\"name\": \"web\"}})\n---\nspec:\n  replicas: 3\n",
    );
    let render = run_in(dir.path(), &["render", "pkg"]);
    assert_eq!(render.code, 1, "{}", render.stdout);
    let first = render.stderr.lines().next().unwrap_or_default();
    assert!(
        first.ends_with("Expected number of matched nodes to be 1, but was 0"),
        "{}",
        render.stderr
    );
    let note = render
        .stderr
        .find("target has metadata.name: web-v2; overlay asks for web")
        .expect("the note");
    assert!(
        note > render.stderr.find("pkg/deploy.yml:3").unwrap(),
        "{}",
        render.stderr
    );
}

/// A data-values overlay on an array item that matches no item by its key
/// shows the items there and their keys; too many matches, where each is.
#[test]
fn a_data_values_array_item_that_matches_nothing_shows_the_items_there() {
    let dir = TempDir::new("values-overlay-explained");
    dir.write(
        "pkg/v1.yml",
        "#@data/values\n---\napps:\n- name: web-app\n  replicas: 1\n- name: api\n  replicas: 1\n",
    );
    dir.write(
        "pkg/v2.yml",
        "#@data/values\n---\napps:\n#@overlay/match by=\"name\"\n- name: web\n  replicas: 3\n",
    );
    let (_, related) = the_one_error_and_its_related(&dir);
    assert_eq!(
        related,
        [
            "pkg/v1.yml:4 target has name: web-app; overlay asks for web",
            "pkg/v1.yml:6 target has name: api; overlay asks for web",
        ]
    );
}

/// A package using what confvet does not render yet (more library
/// evaluations than one render makes) gets a warning that says so, even
/// with values given by the consumer: confvet's gap is never the package's
/// error (`overlay.apply` and `export()` of a function, of a struct or a
/// dict of functions render).
#[test]
fn what_confvet_cannot_render_yet_is_a_warning_not_an_error() {
    let dir = TempDir::new("not-rendered");
    dir.write("pkg/schema.yml", "#@data/values-schema\n---\nname: x\n");
    dir.write(
        "pkg/deploy.yml",
        "#@ load(\"@ytt:overlay\", \"overlay\")\n---\nmerged: #@ overlay.apply({\"a\": 1}, {\"a\": 2})\n",
    );
    dir.write(
        "pkg/lib.yml",
        "#@ load(\"@ytt:library\", \"library\")\n#@ app = library.get(\"app\")\n---\none: #@ app.export(\"f\")()\nkit: #@ app.export(\"kit\").part()\nparts: #@ app.export(\"parts\")[\"part\"]()\nmany: #@ [len(app.with_data_values({\"i\": i}).eval()) for i in range(101)]\n",
    );
    dir.write(
        "pkg/_ytt_lib/app/funcs.star",
        "load(\"@ytt:struct\", \"struct\")\nload(\"parts.lib.yml\", \"part\")\ndef f():\n  return 1\nend\nkit = struct.make(part=part)\nparts = {\"part\": part}\n",
    );
    dir.write(
        "pkg/_ytt_lib/app/parts.lib.yml",
        "#@ def part():\nkind: part\n#@ end\n",
    );
    dir.write(
        "pkg/_ytt_lib/app/schema.yml",
        "#@data/values-schema\n---\ni: 0\n",
    );
    let run = run_in(
        dir.path(),
        &["lint", "pkg", "-v", "name=y", "--format", "json"],
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    let report = run.json();
    let list = findings(&report);
    assert_eq!(list.len(), 1, "{report:#}");
    assert_eq!(list[0]["line"], 7, "{report:#}");
    assert_eq!(list[0]["severity"], "warning", "{report:#}");
    assert!(
        list[0]["message"]
            .as_str()
            .unwrap()
            .contains("confvet does not render this yet"),
        "{report:#}"
    );
}

/// A value written as code in a data-values document is what the code
/// gives; an `if` among a document's items is beyond confvet, which says
/// so instead of merging the document as written in silence.
#[test]
fn data_values_computed_by_code() {
    let dir = TempDir::new("values-code");
    let computed =
        "#@ def base():\n#@   return 8000\n#@ end\n#@data/values\n---\nport: #@ base() + 80\n";
    dir.write("pkg/values.yml", computed);
    let run = run_in(dir.path(), &["values", "pkg"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.stdout, "port: 8080\n");
    let with_if = "#@data/values\n---\n#@ if False:\nport: 1\n#@ end\nname: x\n";
    dir.write("pkg/values.yml", with_if);
    let report = run_in(dir.path(), &["lint", "pkg", "--format", "json"]).json();
    let list = findings(&report);
    assert_eq!(list.len(), 1, "{report:#}");
    assert_eq!(list[0]["severity"], "warning", "{report:#}");
    let message = list[0]["message"].as_str().unwrap();
    assert!(message.contains("does not render this yet"), "{message}");
}

/// A function defined between two keys of a schema document may branch
/// and loop in its body: the document's items hold no `if` or `for`, so the
/// schema is checked with its validation, as ytt checks it.
#[test]
fn a_function_among_schema_items_may_branch() {
    let dir = TempDir::new("schema-def-among-items");
    dir.write(
        "pkg/schema.yml",
        "#@data/values-schema\n---\nname: web\n#@ def https(v):\n#@   if not v.startswith(\"https://\"):\n#@     return False\n#@   end\n#@   for c in [\" \"]:\n#@     if c in v:\n#@       return False\n#@     end\n#@   end\n#@   return True\n#@ end\n#@schema/validation (\"an https URL\", https)\nendpoint: \"https://example.com\"\n",
    );
    let run = run_in(dir.path(), &["lint", "pkg", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(findings(&run.json()).is_empty(), "{}", run.stdout);
    let run = run_in(
        dir.path(),
        &["lint", "pkg", "-v", "endpoint=http://x", "--format", "json"],
    );
    assert_eq!(run.code, 1, "{}", run.stdout);
    let report = run.json();
    let list = findings(&report);
    assert_eq!(list.len(), 1, "{report:#}");
    assert_eq!(list[0]["rule"], "ytt/validation", "{report:#}");
}

/// ytt's `print` writes to standard error as the package renders: `render`
/// prints the same lines there, `lint` prints none of them.
#[test]
fn print_goes_to_stderr_when_rendering_and_nowhere_when_linting() {
    let dir = TempDir::new("print");
    dir.write(
        "pkg/deploy.yml",
        "#@ print(\"rendering\", 2, [\"a\"])\n---\nkind: Deployment\n",
    );
    let render = run_in(dir.path(), &["render", "pkg"]);
    assert_eq!(render.code, 0, "{}", render.stderr);
    assert_eq!(render.stdout, "kind: Deployment\n");
    assert_eq!(render.stderr, "rendering 2 [\"a\"]\n");
    let lint = run_in(dir.path(), &["lint", "pkg", "--format", "json"]);
    assert_eq!(lint.code, 0, "{}", lint.stdout);
    assert!(findings(&lint.json()).is_empty(), "{}", lint.stdout);
    assert!(!lint.stderr.contains("rendering"), "{}", lint.stderr);
}

/// `--data-values-file DIR` reads every file of the folder in path order,
/// as ytt does: a `README.md` there is a document holding a string, the
/// one error, at the README's first line as ytt reports it, not at the
/// YAML files merged after it.
#[test]
fn a_readme_in_a_data_values_folder_is_the_error() {
    let dir = TempDir::new("values-folder-readme");
    dir.write(
        "pkg/schema.yml",
        "#@data/values-schema\n---\nname: web\nreplicas: 1\n",
    );
    dir.write("values/a.yml", "name: api\n");
    dir.write("values/b.yaml", "replicas: 3\n");
    dir.write("values/README.md", "# Values\n\nThese are the values.\n");
    let run = run_in(
        dir.path(),
        &[
            "lint",
            "pkg",
            "--data-values-file",
            "values",
            "--format",
            "json",
        ],
    );
    assert_eq!(run.code, 1, "{}", run.stdout);
    let report = run.json();
    let found = the_one_finding(findings(&report), "ytt/type-mismatch", 1);
    assert_eq!(found["file"], "values/README.md", "{report:#}");
    let related = found["related"].as_array().expect("related locations");
    assert_eq!(related[0]["file"], "pkg/schema.yml", "{report:#}");
    assert_eq!(related[0]["line"], 2, "{report:#}");
    // Without the README, the folder's values merge.
    std::fs::remove_file(dir.path().join("values/README.md")).unwrap();
    let run = run_in(
        dir.path(),
        &["values", "pkg", "--data-values-file", "values"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "name: api\nreplicas: 3\n");
}

/// Data values addressed to a private library (`#@library/ref`) are the
/// library's, not the package's: its schema does not know them, and no
/// finding says it should. Given to a library no template evaluates, they
/// are ytt's error, at the document.
#[test]
fn data_values_addressed_to_a_library_go_to_it() {
    let dir = TempDir::new("library-ref");
    dir.write("pkg/schema.yml", "#@data/values-schema\n---\nname: x\n");
    dir.write(
        "pkg/values.yml",
        "#@library/ref \"@app\"\n#@data/values\n---\nport: 8080\n",
    );
    dir.write(
        "pkg/_ytt_lib/app/schema.yml",
        "#@data/values-schema\n---\nport: 80\n",
    );
    dir.write(
        "pkg/_ytt_lib/app/app.yml",
        "#@ load(\"@ytt:data\", \"data\")\n---\nport: #@ data.values.port\n",
    );
    dir.write(
        "pkg/tpl.yml",
        "#@ load(\"@ytt:library\", \"library\")\n#@ load(\"@ytt:template\", \"template\")\n--- #@ template.replace(library.get(\"app\").eval())\n",
    );
    for args in [
        &["lint", "pkg", "--format", "json"][..],
        &["lint", "pkg", "--no-render", "--format", "json"],
    ] {
        let run = run_in(dir.path(), args);
        assert_eq!(run.code, 0, "{}", run.stdout);
        assert!(findings(&run.json()).is_empty(), "{}", run.stdout);
    }
    // A flag for another library: nobody uses it.
    let run = run_in(
        dir.path(),
        &["lint", "pkg", "-v", "@db:port=5432", "--format", "json"],
    );
    assert_eq!(run.code, 1, "{}", run.stdout);
    let report = run.json();
    let list = findings(&report);
    assert_eq!(list.len(), 1, "{report:#}");
    assert_eq!(list[0]["severity"], "error", "{report:#}");
    assert_eq!(
        list[0]["message"],
        "Expected all provided library data values documents to be used but found unused: Data Value belonging to library '@db' on line (data-value arg):1",
        "{report:#}"
    );
    // Without the template, the document itself is unused.
    dir.write("pkg/tpl.yml", "plain: true\n");
    let run = run_in(dir.path(), &["lint", "pkg", "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let report = run.json();
    let list = findings(&report);
    assert_eq!(list.len(), 1, "{report:#}");
    assert_eq!(list[0]["line"], 3, "{report:#}");
    assert!(
        list[0]["message"]
            .as_str()
            .unwrap()
            .ends_with("Data Value belonging to library '@app' on line pkg/values.yml:3"),
        "{report:#}"
    );
}

/// A document addressed with arguments only the file's code can evaluate
/// (`#@library/ref name`) is not the package's, nor a library confvet
/// knows: a warning says it is not checked, never a false error.
#[test]
fn an_address_confvet_cannot_evaluate_is_a_warning() {
    let dir = TempDir::new("library-ref-code");
    dir.write("pkg/schema.yml", "#@data/values-schema\n---\nname: x\n");
    dir.write(
        "pkg/values.yml",
        "#@ target = \"@app\"\n#@library/ref target\n#@data/values\n---\nport: 8080\n",
    );
    let run = run_in(dir.path(), &["lint", "pkg", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let report = run.json();
    let list = findings(&report);
    assert_eq!(list.len(), 1, "{report:#}");
    assert_eq!(list[0]["severity"], "warning", "{report:#}");
    assert!(
        list[0]["message"]
            .as_str()
            .unwrap()
            .contains("the document is not checked"),
        "{report:#}"
    );
}

/// A library that fails is a finding at the parent's call site, naming the
/// library and where in it the evaluation stopped.
#[test]
fn a_failing_library_is_reported_at_the_call_naming_the_library() {
    let dir = TempDir::new("library-fails");
    dir.write(
        "pkg/_ytt_lib/app/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation min=1\nreplicas: 0\n",
    );
    dir.write("pkg/_ytt_lib/app/app.yml", "app: true\n");
    dir.write(
        "pkg/tpl.yml",
        "#@ load(\"@ytt:library\", \"library\")\n#@ load(\"@ytt:template\", \"template\")\n---\nname: x\n--- #@ template.replace(library.get(\"app\").eval())\n",
    );
    let run = run_in(dir.path(), &["lint", "pkg/tpl.yml", "--format", "json"]);
    let report = run.json();
    let list = findings(&report);
    let call = list
        .iter()
        .find(|f| f["file"].as_str().is_some_and(|p| p.ends_with("tpl.yml")))
        .unwrap_or_else(|| panic!("no finding at the call: {report:#}"));
    assert_eq!(call["rule"], "ytt/template-error", "{report:#}");
    assert_eq!(call["line"], 5, "{report:#}");
    assert_eq!(
        call["message"],
        "library.eval: Evaluating library 'app': replicas must be a value >= 1, found 0 (at _ytt_lib/app/schema.yml:4)",
        "{report:#}"
    );
}

/// A loaded `.star` file that fails while it loads fails every template
/// that loads it; ytt reports it once, and so does confvet: one finding,
/// with the failing line of the `.star` file as a related location, judged
/// by what that line reads (a null value the consumer must give).
#[test]
fn a_failing_loaded_file_is_reported_once_with_its_line() {
    let dir = TempDir::new("load-fails");
    dir.write(
        "pkg/schema.yml",
        "#@data/values-schema\n---\n#@schema/nullable\nrole: \"\"\n",
    );
    dir.write(
        "pkg/values.star",
        "load(\"@ytt:data\", \"data\")\nload(\"@ytt:assert\", \"assert\")\ndata.values.role or assert.fail(\"role must be given\")\nrole = data.values.role\n",
    );
    for name in ["a", "b", "c"] {
        dir.write(
            &format!("pkg/{name}.yml"),
            "#@ load(\"/values.star\", \"role\")\n---\nrole: #@ role\n",
        );
    }
    let run = run_in(dir.path(), &["lint", "pkg", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let report = run.json();
    let list = findings(&report);
    assert_eq!(list.len(), 1, "{report:#}");
    assert_eq!(list[0]["rule"], "ytt/template-fail");
    assert_eq!(list[0]["severity"], "warning");
    assert_eq!(list[0]["message"], "role must be given");
    let related = list[0]["related"].as_array().expect("related");
    assert!(
        related
            .iter()
            .any(|r| r["file"] == "pkg/values.star" && r["line"] == 3),
        "{report:#}"
    );
    assert!(list[0]["help"].as_str().unwrap().contains("`role`"));
}
