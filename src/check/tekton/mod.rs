//! Tekton params and results (`../shared/spec/tekton.md`): declarations,
//! `$(…)` references and the values call sites bind.
//!
//! `model` holds the types, scopes and the documents of a unit with the rule
//! by which references between them resolve; `ctx` the state a document is
//! checked with; `walk` walks a document, deciding which strings are scanned,
//! in which scope and context; `decls` checks declarations, `refs`
//! expressions, `values` bindings, `triggers` Tekton Triggers, `shape` each
//! document's fields against Tekton's API types. This file only sorts a
//! unit's documents and dispatches each to its check.

mod ctx;
mod decls;
mod graph;
mod hints;
mod legacy;
mod lighthouse;
pub mod links;
mod model;
pub mod navigate;
pub mod pac;
mod refs;
mod rename;
mod runtime;
mod shape;
mod syntax;
mod trigger_legacy;
mod triggers;
mod values;
mod volumes;
mod walk;
mod workspaces;

use crate::discover::DiscoveredFile;
use crate::finding::{Finding, Severity};
use crate::rules;
use crate::source::Sources;
use crate::yaml::Node;
use crate::yaml::node::{child, item, text};
use ctx::{Ctx, Passed};
use model::{Doc, Docs, Scope};
use rayon::prelude::*;
use std::path::Path;

/// Whether the document reaches Tekton decoded by another program first:
/// Pipelines-as-Code (a file of `.tekton/`, or one with its annotations)
/// and Lighthouse (a PipelineRun it runs) read a run into Tekton's Go
/// types with Kubernetes' lenient decoder and create it from them, so an
/// unknown field is dropped there, never refused by the webhook: the
/// document's shape is not checked.
fn decoded_leniently(doc: &crate::yaml::Node, path: &Path) -> bool {
    let in_tekton_folder = path.components().any(|c| c.as_os_str() == ".tekton");
    let pac_annotated = child(doc, "metadata")
        .and_then(|m| child(m, "annotations"))
        .is_some_and(|a| match &a.value {
            crate::yaml::Value::Map(entries) => entries
                .iter()
                .any(|it| it.key.text.starts_with("pipelinesascode.tekton.dev/")),
            _ => false,
        });
    in_tekton_folder || pac_annotated || lighthouse::fills(doc, Some(path)).is_some()
}

/// Check the Tekton files of a unit linted from `root` (spec § 2.1 resolves
/// `resolver: git` paths against the repository that holds them).
pub fn check_unit(files: &[&DiscoveredFile], root: &Path, sources: &Sources) -> Vec<Finding> {
    let mut files: Vec<&DiscoveredFile> = files.to_vec();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let mut out = Vec::new();
    let mut list: Vec<Doc> = Vec::new();
    let mut trig: Vec<Doc> = Vec::new();
    for f in &files {
        match &f.parsed {
            Ok(set) => {
                for d in &set.docs {
                    let n = &d.value;
                    if !decoded_leniently(n, &f.path) {
                        out.extend(shape::check(n, sources));
                    }
                    if let Some(kind) = triggers::kind(n) {
                        trig.push(Doc {
                            file: f.id,
                            kind,
                            node: n,
                        });
                        continue;
                    }
                    let api = text(n, "apiVersion");
                    let kind = text(n, "kind");
                    let pipeline_kind =
                        matches!(kind, Some("Task" | "Pipeline" | "TaskRun" | "PipelineRun"));
                    if api == Some("tekton.dev/v1alpha1") && pipeline_kind {
                        out.extend(removed_version(n, kind.unwrap_or_default()));
                    }
                    if !matches!(api, Some("tekton.dev/v1" | "tekton.dev/v1beta1")) {
                        continue;
                    }
                    if let Some(k) = kind.filter(|_| pipeline_kind) {
                        list.push(Doc {
                            file: f.id,
                            kind: k,
                            node: n,
                        });
                    }
                }
            }
            Err(e) => out.push((**e).clone()),
        }
    }
    let paths = files.iter().map(|f| (f.id, f.path.as_path())).collect();
    let docs = Docs::new(list, paths, root, sources.files());
    let checked: Vec<Vec<Finding>> = docs
        .list
        .par_iter()
        .enumerate()
        .map(|(i, _)| check_doc(i, &docs, sources))
        .collect();
    out.extend(checked.into_iter().flatten());
    out.extend(triggers::check(&trig, &files, &docs, sources));
    out.extend(pac::check(&files, sources));
    out
}

/// A `tekton.dev/v1alpha1` Task, Pipeline, TaskRun or PipelineRun: Tekton
/// v0.38.0 stopped serving these (TEP-0105), so applying it fails. It is
/// not checked further (spec § 2).
fn removed_version(doc: &Node, kind: &str) -> Option<Finding> {
    let it = item(doc, "apiVersion")?;
    let finding = Finding::new(&rules::tekton::REMOVED_API_VERSION, it.value.span,
        format!(
            "tekton.dev/v1alpha1 {kind} is no longer served by Tekton (removed in v0.38.0), so applying it fails; migrate it to tekton.dev/v1"
        ),
    )
    .with_label("no longer served")
    .with_path("apiVersion".to_string())
    .with_severity(Severity::Warning);
    Some(finding)
}

/// The findings of document `index` of `docs`.
fn check_doc(index: usize, docs: &Docs, sources: &Sources) -> Vec<Finding> {
    let d = &docs.list[index];
    let mut ctx = Ctx::new(sources, d.file);
    let empty = Scope::new();
    if let Some(spec) = child(d.node, "spec") {
        match d.kind {
            "Task" => {
                let callers = docs.callers(index);
                ctx.task_spec(spec, "spec", &empty, true, Passed::Callers(callers));
            }
            "Pipeline" => {
                let decls = ctx.pipeline_spec(spec, "spec", &empty, docs, false);
                ctx.partial_defaults(child(spec, "params"), &decls, "spec.params");
            }
            "TaskRun" => ctx.run(spec, docs, "Task"),
            _ => {
                ctx.lighthouse = lighthouse::fills(d.node, docs.path(d.file));
                ctx.run_param_results(spec);
                ctx.run(spec, docs, "Pipeline");
            }
        }
    }
    ctx.run_time(d, docs);
    ctx.out
}
