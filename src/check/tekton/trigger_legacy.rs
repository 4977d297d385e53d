//! `$(params.x)` of a TriggerTemplate param left in its resource templates.
//! Triggers substitutes `$(tt.params.x)` anywhere in the text of a resource
//! template (`applyParamToResourceTemplate`, pkg/template/resource.go) and,
//! since v0.8, never `$(params.x)`, so that text reaches the created
//! resource as it is: in `metadata` (name, namespace, labels), a run's
//! param values and `serviceAccountName`, any field of a ConfigMap.
//!
//! Where `$(params.x)` is Tekton's own it is left alone: the `spec` of a
//! Task, Pipeline, StepAction or custom run, and a run's inline spec (there
//! the run's check reports an undeclared one, see `triggers`). So is the
//! rest of a run's `spec` for a name the run binds, as Tekton substitutes a
//! run's params into its workspaces, pod template and resolver params.

use super::ctx::Ctx;
use super::model::names_of;
use super::refs::exprs;
use crate::edit::Fix;
use crate::finding::Finding;
use crate::rules;
use crate::source::{Sources, Span};
use crate::yaml::node::{child, text};
use crate::yaml::{Node, Value};
use std::collections::HashSet;

/// Deeper than this, a resource template is not looked into (the parser
/// bounds nesting; this keeps the walk's stack small anyway).
const MAX_DEPTH: usize = 256;

/// What of a resource template's `spec` holds Tekton's own `$(params…)`.
enum Own {
    /// All of it: a Task, Pipeline, StepAction or custom run.
    Spec,
    /// A run's inline spec under this key; its param values are never
    /// substituted, the rest of its spec is for the params it binds.
    Run(&'static str),
    /// None of it.
    Nothing,
}

impl Own {
    fn of(rt: &Node) -> Own {
        if !text(rt, "apiVersion").is_some_and(|a| a.starts_with("tekton.dev/")) {
            return Own::Nothing;
        }
        match text(rt, "kind") {
            Some("Task" | "ClusterTask" | "Pipeline" | "StepAction" | "CustomRun" | "Run") => {
                Own::Spec
            }
            Some("PipelineRun") => Own::Run("pipelineSpec"),
            Some("TaskRun") => Own::Run("taskSpec"),
            _ => Own::Nothing,
        }
    }
}

/// The template params one walk looks for, and the names Tekton may
/// substitute where it is (a run's own params).
struct Looked<'a> {
    declared: &'a HashSet<String>,
    substituted: &'a HashSet<String>,
    /// Who gets the text: "run" or "created resource".
    receiver: &'static str,
}

impl Ctx<'_> {
    /// Warn about each `$(params.x)`, x one of `declared`, in the resource
    /// template `rt` at `path` that neither Triggers nor Tekton substitutes.
    pub(super) fn stray_legacy_params(
        &mut self,
        rt: &Node,
        path: &str,
        declared: &HashSet<String>,
    ) {
        let Value::Map(entries) = &rt.value else {
            return;
        };
        let own = Own::of(rt);
        let none = HashSet::new();
        let receiver = match own {
            Own::Run(_) => "run",
            _ => "created resource",
        };
        let everywhere = Looked {
            declared,
            substituted: &none,
            receiver,
        };
        for it in entries {
            let p = format!("{path}.{}", it.key.text);
            self.stray_key(it, &p, &everywhere);
            if it.key.text != "spec" {
                self.stray_walk(&it.value, &p, &everywhere, 0);
                continue;
            }
            let inline = match own {
                Own::Spec => continue,
                Own::Nothing => {
                    self.stray_walk(&it.value, &p, &everywhere, 0);
                    continue;
                }
                Own::Run(inline) => inline,
            };
            let bound = names_of(child(&it.value, "params"));
            let unbound = Looked {
                substituted: &bound,
                ..everywhere
            };
            let Value::Map(spec) = &it.value.value else {
                continue;
            };
            for field in spec {
                let fp = format!("{p}.{}", field.key.text);
                match field.key.text.as_str() {
                    k if k == inline => {}
                    "params" => self.stray_walk(&field.value, &fp, &everywhere, 0),
                    _ => {
                        self.stray_key(field, &fp, &unbound);
                        self.stray_walk(&field.value, &fp, &unbound, 0);
                    }
                }
            }
        }
    }

    /// [`Ctx::stray_in`] for every string and key under `n`.
    fn stray_walk(&mut self, n: &Node, path: &str, looked: &Looked, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        match &n.value {
            Value::Scalar(_) => self.stray_in(n, path, looked),
            Value::Array(list) => {
                for (i, it) in list.iter().enumerate() {
                    self.stray_walk(&it.value, &format!("{path}[{i}]"), looked, depth + 1);
                }
            }
            Value::Map(entries) => {
                for it in entries {
                    let p = format!("{path}.{}", it.key.text);
                    self.stray_key(it, &p, looked);
                    self.stray_walk(&it.value, &p, looked, depth + 1);
                }
            }
        }
    }

    /// [`Ctx::stray_in`] for the key of a map entry (a label's name).
    fn stray_key(&mut self, it: &crate::yaml::MapItem, path: &str, looked: &Looked) {
        if it.key.text.contains("$(") {
            let key = Node {
                span: it.key_span,
                value: Value::Scalar(it.key.clone()),
            };
            self.stray_in(&key, path, looked);
        }
    }

    /// The warning about each `$(params.x)` of a template param in scalar
    /// `n`, unless Tekton may substitute x there.
    fn stray_in(&mut self, n: &Node, path: &str, looked: &Looked) {
        let Some(s) = n.as_scalar() else { return };
        if !s.text.contains("$(params.") {
            return;
        }
        for (off, body) in exprs(&s.text) {
            let Some(name) = body.strip_prefix("params.") else {
                continue;
            };
            if !looked.declared.contains(name) || looked.substituted.contains(name) {
                continue;
            }
            let span = self.expr_span(n, off);
            let receiver = looked.receiver;
            self.out.push(
                Finding::new(&rules::tekton::TRIGGER_LEGACY_PARAM, span,
                    format!("$({body}) is not substituted by Tekton Triggers: the {receiver} gets the text as it is"),
                )
                .with_path(path.to_string())
                .with_help(format!("write $(tt.params.{name})"))
                .with_fix(legacy_fix(self.sources, span, body)),
            );
        }
    }
}

/// `$(params.x)` → `$(tt.params.x)`: safe, since Triggers substitutes the
/// second form with the very value the author meant the first to get.
pub(super) fn legacy_fix(sources: &Sources, span: Span, body: &str) -> Option<Fix> {
    let old = format!("$({body})");
    let new = format!("$(tt.{body})");
    let edit = crate::check::edits::replace_once(sources, span, &old, &new)?;
    Fix::safe(format!("write {new}"), vec![edit])
}
