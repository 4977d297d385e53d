//! The KubeVirt corpus (../shared/corpus/kubevirt) gives what its README
//! lists under "Expected linter behaviour", and nothing else.

use crate::common;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn corpus() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/kubevirt");
    if dir.is_dir() {
        Some(dir)
    } else {
        common::skipped_without_shared(
            "../shared/corpus/kubevirt not found; KubeVirt corpus not run",
        );
        None
    }
}

/// Lint `paths` from `cwd`; the exit code and the JSON report.
fn lint(cwd: &Path, paths: &[&str]) -> (i32, Value) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_confvet"));
    command
        .current_dir(cwd)
        .arg("lint")
        .args(paths)
        .args(["--format", "json"]);
    crate::common::keep_cache_out_of_shared(&mut command, cwd);
    let output = command.output().expect("confvet runs");
    let report = serde_json::from_slice(&output.stdout).expect("a JSON report");
    (output.status.code().unwrap_or(-1), report)
}

fn count(report: &Value, severity: &str) -> usize {
    report["findings"].as_array().map_or(0, |f| {
        f.iter().filter(|f| f["severity"] == severity).count()
    })
}

/// Findings per file name (the part after the last `/`).
fn by_file<'a>(report: &'a Value, file: &str) -> Vec<&'a Value> {
    report["findings"]
        .as_array()
        .map(|f| {
            f.iter()
                .filter(|f| {
                    f["file"]
                        .as_str()
                        .is_some_and(|n| n.rsplit('/').next() == Some(file))
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn each_common_templates_bundle_alone_gives_only_the_windows_virtio_warnings() {
    let Some(dir) = corpus() else { return };
    for (bundle, warnings) in [
        ("common-templates-bundles/common-templates-v0.12.4.yaml", 14),
        (
            "common-templates-bundles/common-templates-amd64-v0.35.0.yaml",
            12,
        ),
    ] {
        let (code, report) = lint(&dir, &[bundle]);
        assert_eq!(code, 0, "{bundle}: {report:#}");
        assert_eq!(count(&report, "error"), 0, "{bundle}");
        assert_eq!(count(&report, "warning"), warnings, "{bundle}: {report:#}");
        assert!(
            report["findings"]
                .as_array()
                .unwrap()
                .iter()
                .all(|f| f["message"].as_str().unwrap_or("").contains("virtio")
                    || f["message"].as_str().unwrap_or("").contains("windows")),
            "{bundle}: {report:#}"
        );
    }
}

#[test]
fn the_split_v0_6_2_bundle_gives_one_schema_error_and_one_warning() {
    let Some(dir) = corpus() else { return };
    let (code, report) = lint(&dir, &["common-templates-v0.6.2-split"]);
    assert_eq!(code, 1);
    assert_eq!(count(&report, "error"), 1, "{report:#}");
    assert_eq!(count(&report, "warning"), 1, "{report:#}");
    let error = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["severity"] == "error")
        .unwrap();
    assert_eq!(error["kind"], "schema");
}

#[test]
fn the_validator_functests_match_upstream_outcomes() {
    let Some(dir) = corpus() else { return };
    // "top level, all files linted together": the files directly in the folder.
    let scratch =
        std::env::temp_dir().join(format!("confvet-kubevirt-functests-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    for entry in std::fs::read_dir(dir.join("template-validator-functests"))
        .unwrap()
        .flatten()
    {
        if entry.path().is_file() {
            std::fs::copy(entry.path(), scratch.join(entry.file_name())).unwrap();
        }
    }
    let (code, report) = lint(&scratch, &["."]);
    let _ = std::fs::remove_dir_all(&scratch);
    assert_eq!(code, 1);
    let prefix = |n: &str| -> Vec<&Value> {
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["file"].as_str().is_some_and(|name| name.starts_with(n)))
            .collect()
    };
    for clean in ["01-", "03-", "05-", "07-", "10-", "11-", "12-", "14-"] {
        assert!(
            prefix(clean).is_empty(),
            "{clean} should be clean: {report:#}"
        );
    }
    for failing in ["04-", "06-", "08-"] {
        let found = prefix(failing);
        assert!(
            !found.is_empty() && found.iter().all(|f| f["severity"] == "error"),
            "{failing}: {report:#}"
        );
    }
    let warned = prefix("09-");
    assert!(
        !warned.is_empty() && warned.iter().all(|f| f["severity"] == "warning"),
        "{report:#}"
    );
    let unknown = prefix("02-");
    assert_eq!(unknown.len(), 1);
    assert_eq!(unknown[0]["kind"], "reference");
    assert_eq!(unknown[0]["severity"], "warning");
    // 07 is rejected only through its template's own schema errors.
    assert!(
        by_file(&report, "template-with-rules-incorrect.yaml")
            .iter()
            .any(|f| f["kind"] == "schema")
    );
    // The templates' own default VMs break their own rules.
    let own = by_file(&report, "template-with-rules.yaml");
    assert!(
        own.iter()
            .any(|f| f["message"].as_str().unwrap_or("").contains("Memory")),
        "{report:#}"
    );
    assert!(
        own.iter()
            .any(|f| f["message"].as_str().unwrap_or("").contains("Machine type")),
        "{report:#}"
    );
}
