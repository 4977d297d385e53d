//! Baselines, end to end: `--update-baseline` records today's findings,
//! `--baseline` then reports only new ones, however lines move.

use crate::common;

use common::{TempDir, findings, run_in};
use serde_json::Value;

const SCHEMA: &str = "#@data/values-schema
---
#@schema/validation max_len=10
namespace: shop
#@schema/validation min=1, max=20
replicas: 2
#@schema/validation min=1, max=20
workers: 2
database:
  host: db
  #@schema/validation min=1024
  port: 5432
";

/// Three validation errors (ytt stops before validations on an unknown
/// key, so every finding here is one phase's).
const VALUES: &str = "#@data/values
---
replicas: 50
workers: 30
database:
  host: db
  port: 80
";

fn package() -> TempDir {
    let dir = TempDir::new("baseline");
    dir.write("pkg/schema.yml", SCHEMA);
    dir.write("pkg/values.yml", VALUES);
    dir
}

fn lint_with_baseline(dir: &TempDir) -> (i32, Value) {
    let run = run_in(
        dir.path(),
        &[
            "lint",
            "pkg",
            "--baseline",
            "confvet-baseline.json",
            "--format",
            "json",
        ],
    );
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    (run.code, run.json())
}

fn update(dir: &TempDir) {
    let run = run_in(
        dir.path(),
        &[
            "lint",
            "pkg",
            "--baseline",
            "confvet-baseline.json",
            "--update-baseline",
        ],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr
            .contains("wrote 3 findings to confvet-baseline.json"),
        "{}",
        run.stderr
    );
}

#[test]
fn update_then_check_reports_nothing_and_counts_the_baseline() {
    let dir = package();
    let plain = run_in(dir.path(), &["lint", "pkg"]);
    assert_eq!(plain.code, 1);
    update(&dir);
    let written: Value = serde_json::from_str(&dir.read("confvet-baseline.json")).unwrap();
    assert_eq!(written["version"], 1);
    let entries = written["findings"].as_array().unwrap();
    assert_eq!(entries.len(), 3);
    for entry in entries {
        assert_eq!(entry["file"], "pkg/values.yml");
        assert_eq!(entry["fingerprint"].as_str().unwrap().len(), 16);
    }
    let (code, json) = lint_with_baseline(&dir);
    assert_eq!(code, 0, "{json:#}");
    assert!(findings(&json).is_empty());
    assert_eq!(json["summary"]["suppressed"], 3);
    assert_eq!(json["summary"]["errors"], 0);
}

#[test]
fn the_baseline_holds_when_lines_move_and_new_findings_still_show() {
    let dir = package();
    update(&dir);
    // Comments and blank lines above, keys reordered, the nested map first.
    dir.write(
        "pkg/values.yml",
        "#! production values
#@data/values
---

database:
  port: 80
  host: db

workers: 30
#! busy season
replicas: 50
",
    );
    let (code, json) = lint_with_baseline(&dir);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(json["summary"]["suppressed"], 3);

    // A new problem is reported; the accepted ones stay hidden.
    dir.write(
        "pkg/values.yml",
        "#@data/values
---
database:
  port: 80
workers: 30
replicas: 50
namespace: shop-in-the-production-cluster
",
    );
    let (code, json) = lint_with_baseline(&dir);
    assert_eq!(code, 1);
    let list = findings(&json);
    assert_eq!(list.len(), 1, "{json:#}");
    assert_eq!(list[0]["path"], "namespace");
    assert_eq!(list[0]["line"], 7);
    assert_eq!(json["summary"]["suppressed"], 3);
}

#[test]
fn a_changed_finding_is_new() {
    let dir = package();
    update(&dir);
    // The same rule on the same key, but another message: a new problem.
    dir.write(
        "pkg/values.yml",
        VALUES.replace("replicas: 50", "replicas: 0"),
    );
    let (code, json) = lint_with_baseline(&dir);
    assert_eq!(code, 1);
    let list = findings(&json);
    assert_eq!(list.len(), 1, "{json:#}");
    assert_eq!(list[0]["path"], "replicas");
    assert_eq!(json["summary"]["suppressed"], 2);
}

#[test]
fn a_missing_or_broken_baseline_is_a_usage_error() {
    let dir = package();
    let run = run_in(dir.path(), &["lint", "pkg", "--baseline", "nope.json"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("no baseline at nope.json") && run.stderr.contains("--update-baseline"),
        "{}",
        run.stderr
    );
    dir.write("broken.json", "{\"version\": 1}");
    let run = run_in(dir.path(), &["lint", "pkg", "--baseline", "broken.json"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("not a confvet baseline"),
        "{}",
        run.stderr
    );
    dir.write("future.json", "{\"version\": 9, \"findings\": []}");
    let run = run_in(dir.path(), &["lint", "pkg", "--baseline", "future.json"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("version 9"), "{}", run.stderr);
    let run = run_in(dir.path(), &["lint", "pkg", "--update-baseline"]);
    assert_eq!(run.code, 2, "--update-baseline needs --baseline");
}

#[test]
fn a_baseline_holds_when_run_from_a_subdirectory_of_the_repository() {
    let dir = package();
    std::fs::create_dir_all(dir.path().join(".git")).unwrap();
    update(&dir);
    // The same findings, linted from inside the package: the file names
    // shown change (`values.yml`), the fingerprints must not.
    let run = run_in(
        &dir.path().join("pkg"),
        &[
            "lint",
            ".",
            "--baseline",
            "../confvet-baseline.json",
            "--format",
            "json",
        ],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let report = run.json();
    assert_eq!(report["summary"]["suppressed"], 3, "{report:#}");
    assert!(findings(&report).is_empty(), "{report:#}");
}
