//! The Tekton corpus (../shared/corpus/tekton) gives exactly the real
//! defects its README lists that the spec still reports, whether each file
//! is linted on its own or the whole folder at once (where `taskRef`s
//! resolve across files).
//!
//! The README also lists `$(params.anchore-cli-secret)` in the catalog's
//! anchore-cli 0.1 (lines 57 and 62): an undeclared param in
//! `env[].valueFrom`, a field the webhook does not check and the reconciler
//! substitutes from whatever the run passes. Spec § 6.3 reports such a
//! reference only when a run in view resolves to the Task and none passes
//! the param; the corpus holds no run of anchore-cli, so nothing is
//! reported (the case tests/cases/tekton/a-named-task-is-warned-when-no-run-
//! in-view-passes-the-param shows the warning once a run is there).
//!
//! Beyond the README (which predates the rule), `tekton/legacy-reference`
//! warns about the references written in a `tekton.dev/v1alpha1` form
//! ([`LEGACY`]): `$(inputs.params.x)`, which Tekton still substitutes in a
//! Task as a leftover it marks for removal, and `$(resources.inputs.…)` /
//! `$(resources.outputs.…)`, which nothing substitutes since PipelineResources
//! were removed (the catalog's buildkit Tasks do not even declare the
//! resource they name).

use crate::common;

use crate::tekton_support;

use rayon::prelude::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use tekton_support::{Scratch, lint_dir};

/// (file relative to the corpus, line, kind, rule, token in the message).
const DEFECTS: [(&str, usize, &str, &str, &str); 2] = [
    (
        "tektoncd-pipeline/examples/v1/pipelineruns/no-ci/compressed-results-pipeline.yaml",
        54,
        "reference",
        "tekton/result-reference",
        "$(results.digest-${i}.path)",
    ),
    (
        "tektoncd-pipeline/examples/v1/taskruns/stepaction-params.yaml",
        121,
        "type",
        "tekton/param-type",
        "$(params.enumparam[*])",
    ),
];

/// The `tekton/legacy-reference` warnings: (file, line, the expression).
const LEGACY: [(&str, usize, &str); 28] = [
    (
        "tektoncd-catalog/task/bentoml/0.1/bentoml.yaml",
        35,
        "$(inputs.params.ARGS)",
    ),
    (
        "tektoncd-catalog/task/bentoml/0.1/bentoml.yaml",
        38,
        "$(inputs.params.YATAISERVICE)",
    ),
    (
        "tektoncd-catalog/task/buildkit-daemonless/0.1/buildkit-daemonless.yaml",
        49,
        "$(resources.outputs.image.url)",
    ),
    (
        "tektoncd-catalog/task/buildkit-daemonless/0.1/buildkit-daemonless.yaml",
        51,
        "$(resources.outputs.image.url)",
    ),
    (
        "tektoncd-catalog/task/buildkit/0.1/buildkit.yaml",
        60,
        "$(resources.outputs.image.url)",
    ),
    (
        "tektoncd-catalog/task/buildkit/0.1/buildkit.yaml",
        62,
        "$(resources.outputs.image.url)",
    ),
    (
        "tektoncd-catalog/task/generate-build-id/0.1/generate-build-id.yaml",
        41,
        "$(inputs.params.base-version)",
    ),
    (
        "tektoncd-catalog/task/makisu/0.1/makisu.yaml",
        48,
        "$(resources.outputs.image.url)",
    ),
    (
        "tektoncd-catalog/task/openshift-client-kubecfg/0.1/openshift-client-kubecfg.yaml",
        42,
        "$(resources.inputs.cluster.name)",
    ),
    (
        "tektoncd-catalog/task/openshift-client-kubecfg/0.1/openshift-client-kubecfg.yaml",
        42,
        "$(resources.inputs.cluster.name)",
    ),
    (
        "tektoncd-catalog/task/python-coverage/0.1/python-coverage.yaml",
        37,
        "$(inputs.params.PYTHON)",
    ),
    (
        "tektoncd-catalog/task/python-coverage/0.1/python-coverage.yaml",
        41,
        "$(inputs.params.REQUIREMENTS_FILE)",
    ),
    (
        "tektoncd-catalog/task/python-coverage/0.1/python-coverage.yaml",
        41,
        "$(inputs.params.REQUIREMENTS_FILE)",
    ),
    (
        "tektoncd-catalog/task/python-coverage/0.1/python-coverage.yaml",
        42,
        "$(inputs.params.REQUIREMENTS_FILE)",
    ),
    (
        "tektoncd-catalog/task/python-coverage/0.1/python-coverage.yaml",
        42,
        "$(inputs.params.SOURCE_PATH)",
    ),
    (
        "tektoncd-catalog/task/python-coverage/0.1/python-coverage.yaml",
        54,
        "$(inputs.params.ARGS)",
    ),
    (
        "tektoncd-catalog/task/python-coverage/0.1/python-coverage.yaml",
        54,
        "$(inputs.params.SOURCE_PATH)",
    ),
    (
        "tektoncd-catalog/task/robot-framework/0.1/robot-framework.yaml",
        51,
        "$(inputs.params.REQUIREMENTS_FILE)",
    ),
    (
        "tektoncd-catalog/task/robot-framework/0.1/robot-framework.yaml",
        53,
        "$(inputs.params.REQUIREMENTS_FILE)",
    ),
    (
        "tektoncd-catalog/task/robot-framework/0.1/robot-framework.yaml",
        55,
        "$(inputs.params.REQUIREMENTS_FILE)",
    ),
    (
        "tektoncd-catalog/task/robot-framework/0.1/robot-framework.yaml",
        71,
        "$(inputs.params.VARIABLES_FILE)",
    ),
    (
        "tektoncd-catalog/task/scorecard/0.1/scorecard.yaml",
        30,
        "$(inputs.params.REPO)",
    ),
    (
        "tektoncd-pipeline/examples/v1/pipelineruns/pipelinerun-with-extra-params.yaml",
        41,
        "$(inputs.params.a)",
    ),
    (
        "tektoncd-pipeline/examples/v1/pipelineruns/pipelinerun-with-extra-params.yaml",
        41,
        "$(inputs.params.b)",
    ),
    (
        "tektoncd-pipeline/examples/v1/pipelineruns/pipelinerun-with-params.yaml",
        53,
        "$(inputs.params.a)",
    ),
    (
        "tektoncd-pipeline/examples/v1/pipelineruns/pipelinerun-with-params.yaml",
        53,
        "$(inputs.params.b)",
    ),
    (
        "tektoncd-pipeline/examples/v1/pipelineruns/pipelinerun-with-params.yaml",
        77,
        "$(inputs.params.a)",
    ),
    (
        "tektoncd-pipeline/examples/v1/pipelineruns/pipelinerun-with-params.yaml",
        77,
        "$(inputs.params.b)",
    ),
];

fn corpus() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/tekton");
    if dir.is_dir() {
        Some(dir)
    } else {
        common::skipped_without_shared("../shared/corpus/tekton not found; Tekton corpus not run");
        None
    }
}

/// Every YAML file below `dir`, relative to it, in byte order.
fn yaml_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("a readable corpus").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
                out.push(
                    path.strip_prefix(dir)
                        .expect("below the corpus")
                        .to_path_buf(),
                );
            }
        }
    }
    out.sort();
    out
}

/// One finding as (file, line, kind, rule, message), sorted for comparing.
type Found = (String, usize, String, String, String);

fn assert_only_the_defects(found: Vec<Found>, how: &str) {
    let (mut legacy, mut found): (Vec<Found>, Vec<Found>) = found
        .into_iter()
        .partition(|f| f.3 == "tekton/legacy-reference");
    legacy.sort();
    let seen: Vec<(&str, usize, &str)> = legacy
        .iter()
        .map(|(f, l, k, _, _)| (f.as_str(), *l, k.as_str()))
        .collect();
    let want: Vec<(&str, usize, &str)> = LEGACY
        .iter()
        .map(|(f, l, _)| (*f, *l, "deprecated"))
        .collect();
    assert_eq!(seen, want, "{how}: {legacy:#?}");
    for ((.., message), (.., token)) in legacy.iter().zip(LEGACY) {
        assert!(
            message.starts_with(token),
            "{how}: {message:?} is not about {token}"
        );
    }
    found.sort();
    let summary: Vec<(&str, usize, &str, &str)> = found
        .iter()
        .map(|(f, l, k, r, _)| (f.as_str(), *l, k.as_str(), r.as_str()))
        .collect();
    let want: Vec<(&str, usize, &str, &str)> = DEFECTS
        .iter()
        .map(|(f, l, k, r, _)| (*f, *l, *k, *r))
        .collect();
    assert_eq!(summary, want, "{how}: {found:#?}");
    for ((.., message), (.., token)) in found.iter().zip(DEFECTS) {
        assert!(message.contains(token), "{how}: {message:?} lacks {token}");
    }
}

#[test]
fn each_file_linted_on_its_own_gives_only_the_real_defects() {
    let Some(dir) = corpus() else { return };
    let files = yaml_files(&dir);
    assert_eq!(files.len(), 271, "the corpus README counts 271 YAML files");
    // One scratch directory per file, so nothing else is in its unit.
    let scratch = Scratch::new("corpus");
    let found: Vec<Found> = files
        .par_iter()
        .enumerate()
        .flat_map_iter(|(i, rel)| {
            let alone = scratch.root.join(i.to_string());
            std::fs::create_dir_all(&alone).expect("a scratch directory");
            let name = rel.file_name().expect("a file name");
            std::fs::copy(dir.join(rel), alone.join(name)).expect("a copy");
            let rel = rel.to_string_lossy().replace('\\', "/");
            lint_dir(&alone)
                .into_iter()
                .map(move |s| (rel.clone(), s.line, s.kind, s.rule, s.message))
        })
        .collect();
    assert_only_the_defects(found, "one file at a time");
}

#[test]
fn the_whole_folder_at_once_gives_only_the_real_defects() {
    let Some(dir) = corpus() else { return };
    let mut command = Command::new(env!("CARGO_BIN_EXE_confvet"));
    command
        .current_dir(&dir)
        .args(["lint", ".", "--format", "json"]);
    crate::common::keep_cache_out_of_shared(&mut command, &dir);
    let output = command.output().expect("confvet runs");
    assert_eq!(output.status.code(), Some(1), "errors make exit status 1");
    let report: Value = serde_json::from_slice(&output.stdout).expect("a JSON report");
    assert_eq!(report["summary"]["files"], 271);
    let found: Vec<Found> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            let text = |k: &str| f[k].as_str().unwrap_or_default().to_string();
            let line = f["line"].as_u64().unwrap_or(0) as usize;
            (
                text("file"),
                line,
                text("kind"),
                text("rule"),
                text("message"),
            )
        })
        .collect();
    assert_only_the_defects(found, "whole folder");
}
