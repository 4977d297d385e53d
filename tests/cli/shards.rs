//! `--shard K/N`: N CI jobs each lint a disjoint part of the units, and
//! together they report exactly what one run reports.

use crate::common;

use common::{TempDir, findings, run_in};
use serde_json::Value;
use std::collections::BTreeMap;

/// A tree of many units: ten ytt packages (some with a validation error), a
/// Tekton Task with an undeclared param, a configuration with a mistake.
fn tree() -> TempDir {
    let dir = TempDir::new("shards");
    for i in 0..10 {
        dir.write(
            &format!("pkg{i}/schema.yml"),
            "#@data/values-schema\n---\n#@schema/validation max=5\nreplicas: 1\n",
        );
        dir.write(
            &format!("pkg{i}/values.yml"),
            format!("#@data/values\n---\nreplicas: {}\n", i % 3 * 4),
        );
    }
    dir.write(
        "ci/task.yml",
        "apiVersion: tekton.dev/v1\nkind: Task\nmetadata:\n  name: t\nspec:\n  steps:\n    - name: s\n      image: alpine\n      script: echo $(params.nope)\n",
    );
    dir.write(
        ".confvet.yaml",
        "rules:\n  config/*: warning\n  ytt/validaton: warning\n",
    );
    dir
}

/// Findings as (fingerprint, rule, file, line), counted.
fn lint(dir: &TempDir, extra: &[&str]) -> (BTreeMap<String, usize>, u64) {
    let mut args = vec!["lint", "--format", "json"];
    args.extend_from_slice(extra);
    let run = run_in(dir.path(), &args);
    assert!(run.code < 2, "{}", run.stderr);
    let json = run.json();
    let mut counted = BTreeMap::new();
    for finding in findings(&json) {
        let key = format!(
            "{} {} {}:{}",
            finding["fingerprint"], finding["rule"], finding["file"], finding["line"]
        );
        *counted.entry(key).or_insert(0) += 1;
    }
    (counted, json["summary"]["units"].as_u64().unwrap())
}

#[test]
fn the_shards_together_report_what_one_run_reports() {
    let dir = tree();
    let (whole, units) = lint(&dir, &[]);
    assert_eq!(whole.len(), 5, "{whole:?}");
    for count in [1, 2, 3, 7] {
        let mut union: BTreeMap<String, usize> = BTreeMap::new();
        let mut unit_total = 0;
        let mut nonempty = 0;
        for index in 1..=count {
            let shard = format!("{index}/{count}");
            let (part, part_units) = lint(&dir, &["--shard", &shard]);
            unit_total += part_units;
            nonempty += usize::from(part_units > 0);
            for (key, n) in part {
                *union.entry(key).or_insert(0) += n;
            }
        }
        assert_eq!(union, whole, "{count} shards");
        assert_eq!(
            unit_total, units,
            "every unit in exactly one of {count} shards"
        );
        if count > 1 {
            assert!(nonempty > 1, "{count} shards: the units are spread");
        }
    }
}

#[test]
fn each_shard_is_a_code_scanning_category_of_its_own() {
    let dir = tree();
    let id = |extra: &[&str]| -> Value {
        let mut args = vec!["lint", "--format", "sarif"];
        args.extend_from_slice(extra);
        let run = run_in(dir.path(), &args);
        let sarif: Value = serde_json::from_str(&run.stdout).unwrap();
        sarif["runs"][0]["automationDetails"]["id"].clone()
    };
    assert_eq!(id(&["--shard", "2/3"]), "confvet/shard-2-of-3/");
    assert_eq!(
        id(&["--shard", "1/3", "--category", "prod"]),
        "prod/shard-1-of-3/"
    );
    assert_eq!(id(&[]), Value::Null);
}

#[test]
fn a_bad_shard_is_a_usage_error() {
    let dir = tree();
    for bad in ["0/3", "4/3", "1/0", "x", "2"] {
        let run = run_in(dir.path(), &["lint", "--shard", bad]);
        assert_eq!(run.code, 2, "{bad}");
        assert!(run.stderr.contains("K/N"), "{bad}: {}", run.stderr);
    }
}
