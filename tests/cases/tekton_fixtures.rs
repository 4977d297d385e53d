//! Tekton Triggers on the upstream examples (tests/fixtures/tekton-triggers):
//! they lint clean, and with one change each their pairings and the
//! PipelineRun they create are followed. The smaller Triggers cases are
//! folders under tests/cases/tekton.

use crate::tekton_support;
use std::path::Path;
use tekton_support::{Seen, lint_dir, lint_files};

/// Compact form for assertions: `file:line:column rule path`.
fn at(seen: &[Seen]) -> Vec<String> {
    seen.iter()
        .map(|s| format!("{}:{}:{} {} {}", s.file, s.line, s.column, s.rule, s.path))
        .collect()
}

/// Each finding's message holds the token listed with it, in order.
fn assert_messages(seen: &[Seen], tokens: &[&str]) {
    assert_eq!(seen.len(), tokens.len(), "{seen:#?}");
    for (s, t) in seen.iter().zip(tokens) {
        assert!(s.message.contains(t), "{:?} lacks {t}", s.message);
    }
}

fn fixtures() -> &'static Path {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/tekton-triggers"
    ))
}

#[test]
fn upstream_examples_lint_clean() {
    assert_eq!(lint_dir(fixtures()), []);
}

/// The upstream examples with one change each: the pairings and the
/// created PipelineRun are followed (each directory's own template and
/// binding, the Pipeline at the top).
#[test]
fn upstream_examples_are_paired_and_followed() {
    let read = |rel: &str| std::fs::read_to_string(fixtures().join(rel)).expect("a fixture");
    let mut files: Vec<(String, String)> = [
        "example-pipeline.yaml",
        "trigger-ref/eventlistener-triggerref.yaml",
        "trigger-ref/trigger.yaml",
        "trigger-ref/triggerbinding.yaml",
        "trigger-ref/triggertemplate.yaml",
        "embedded-trigger/eventlistener.yaml",
        "embedded-trigger/triggerbinding.yaml",
        "embedded-trigger/triggerbinding-message.yaml",
        "embedded-trigger/triggertemplate.yaml",
    ]
    .iter()
    .map(|f| (f.to_string(), read(f)))
    .collect();
    for (name, text) in &mut files {
        if name == "trigger-ref/triggerbinding.yaml" {
            *text = text.replace(
                "  - name: gitrepositoryurl\n    value: $(body.repository.url)\n",
                "",
            );
        }
        if name == "embedded-trigger/triggertemplate.yaml" {
            *text = text.replace(
                "      - name: git-url\n        value: $(tt.params.gitrepositoryurl)\n",
                "",
            );
        }
    }
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    let seen = lint_files(&refs);
    assert_eq!(
        at(&seen),
        [
            "embedded-trigger/triggertemplate.yaml:23:7 tekton/missing-param spec.resourcetemplates[0].spec.pipelineRef",
            "trigger-ref/trigger.yaml:19:5 tekton/trigger-missing-param spec.template.ref",
        ]
    );
    assert_messages(
        &seen,
        &[
            "[git-url]",
            "param gitrepositoryurl of TriggerTemplate pipeline-template",
        ],
    );
}
