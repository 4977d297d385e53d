//! Workspaces: what a run or pipeline task binds against what its Task or
//! Pipeline declares, and `$(workspaces.w.…)` in a Task.
//!
//! Upstream (tektoncd/pipeline): `validatePipelineWorkspacesUsage` and
//! `PipelineTask.validateWorkspaces` (pipeline_validation.go) reject a
//! pipeline task binding to a workspace a Pipeline document does not
//! declare; `workspace.ValidateBindings` (pkg/workspace/validate.go) fails a
//! TaskRun that leaves a required workspace unbound or binds one its
//! referenced Task does not declare; `ValidateWorkspaceBindings`
//! (pipelinerunresolution.go) fails a PipelineRun that leaves a required
//! Pipeline workspace unbound. `$(workspaces.w.path|bound|claim|volume)` is
//! replaced only for declared workspaces (taskrun/resources/apply.go
//! `ApplyWorkspaces`); nothing else replaces it.
//!
//! Propagation (TEP-0111): a TaskRun's inline taskSpec gets a declaration
//! for every workspace the run binds (taskrun.go); a pipeline task's inline
//! taskSpec gets a binding, looked up among the PipelineRun's, for every
//! workspace its steps use (pipelinerun.go `propagateWorkspaces`, which runs
//! for Pipeline documents too), so there an undeclared workspace is a
//! finding only when the PipelineRun is in the same document and binds no
//! such workspace.

use super::ctx::Ctx;
use super::hints::Hints;
use super::model::items;
use super::refs::exprs;
use super::rename::crowded;
use crate::finding::{Finding, Severity};
use crate::rules;
use crate::source::Span;
use crate::yaml::node::{child, item, text};
use crate::yaml::{Node, ScalarValue, Value};
use std::collections::HashSet;
use std::rc::Rc;

/// A Task or Pipeline spec whose workspaces a call site binds.
pub(super) struct Callee<'n> {
    pub spec: &'n Node,
    /// `Task "name"` or `the inline taskSpec`, for messages.
    pub what: String,
    /// Written inline at the call site (then its bindings declare what it
    /// does not, TEP-0111).
    pub inline: bool,
    /// The key of the spec (`spec:`, `taskSpec:`), for related locations.
    pub site: Span,
    /// Its workspace declarations, read once per spec.
    pub decls: Rc<WsDecls<'n>>,
}

impl<'n> Callee<'n> {
    pub(super) fn inline(spec: &'n Node, what: &str, site: Span) -> Callee<'n> {
        Callee {
            spec,
            what: what.to_string(),
            inline: true,
            site,
            decls: Rc::new(WsDecls::of(spec)),
        }
    }
}

/// Missing workspaces reported for one call site, at most.
const MAX_MISSING: usize = 10;

/// The names of a list of named entries (workspace declarations or
/// bindings, volumes).
#[derive(Default)]
pub(super) struct Names {
    list: Vec<String>,
    set: HashSet<String>,
    /// Some name is only known when the run starts (`$(…)`), or the list is
    /// not a list: any name may be among them.
    pub unknown: bool,
}

impl Names {
    pub fn of(list: Option<&Node>) -> Names {
        let mut names = Names::default();
        names.add(list);
        names
    }

    fn add(&mut self, list: Option<&Node>) {
        let Some(list) = list else { return };
        if !matches!(list.value, Value::Array(_)) {
            self.unknown = true;
            return;
        }
        for entry in items(Some(list)) {
            let Some(name) = text(entry, "name") else {
                continue;
            };
            if name.contains("$(") {
                self.unknown = true;
            } else if self.set.insert(name.to_string()) {
                self.list.push(name.to_string());
            }
        }
    }

    /// The volumes a TaskRun's `podTemplate` adds to the pod.
    pub fn pod_volumes(pod: Option<&Node>) -> Names {
        Names::of(pod.and_then(|p| child(p, "volumes")))
    }

    /// The volumes any pod template of a PipelineRun adds to its TaskRuns'
    /// pods (v1 `taskRunTemplate`, v1beta1 `podTemplate`, per task in
    /// `taskRunSpecs`).
    pub fn run_pod_volumes(spec: &Node) -> Names {
        let mut names = Names::default();
        let template = child(spec, "taskRunTemplate").and_then(|t| child(t, "podTemplate"));
        for pod in [template, child(spec, "podTemplate")].into_iter().flatten() {
            names.add(child(pod, "volumes"));
        }
        for s in items(child(spec, "taskRunSpecs")) {
            for k in ["podTemplate", "taskPodTemplate"] {
                names.add(child(s, k).and_then(|p| child(p, "volumes")));
            }
        }
        names
    }

    pub fn has(&self, name: &str) -> bool {
        self.set.contains(name)
    }

    /// The name is, or may be, among these.
    pub fn covers(&self, name: &str) -> bool {
        self.unknown || self.has(name)
    }

    pub fn list(&self) -> &[String] {
        &self.list
    }
}

/// The workspace declarations of a Task or Pipeline spec.
pub(super) struct WsDecls<'n> {
    pub names: Names,
    optional: HashSet<&'n str>,
    /// The required ones, each name once: (name, where it is declared).
    required: Vec<(&'n str, Span)>,
}

impl<'n> WsDecls<'n> {
    pub fn of(spec: &'n Node) -> WsDecls<'n> {
        let list = child(spec, "workspaces");
        let mut optional = HashSet::new();
        let mut required = Vec::new();
        let mut seen = HashSet::new();
        for d in items(list) {
            let Some(nit) = item(d, "name") else { continue };
            let Some(w) = nit.value.as_scalar().map(|s| s.text.as_str()) else {
                continue;
            };
            if w.contains("$(") || !seen.insert(w) {
                continue;
            }
            if is_optional(d) {
                optional.insert(w);
            } else {
                required.push((w, nit.value.span));
            }
        }
        WsDecls {
            names: Names::of(list),
            optional,
            required,
        }
    }
}

/// What a pipeline spec's task bindings are checked against.
pub(super) struct PipelineWorkspaces<'a> {
    /// The workspaces the spec declares.
    pub declared: Names,
    /// Where (for related locations).
    pub related: (Span, String),
    /// The PipelineRun's bindings when the spec is inline in one (then a
    /// binding it makes propagates; otherwise the run fails unless the
    /// Task's workspace is optional); None for a Pipeline document.
    pub run: Option<&'a Names>,
}

/// Who binds a callee's workspaces.
pub(super) enum Caller<'a> {
    /// A pipeline task `name`; `inline`: with a taskSpec.
    PipelineTask {
        name: &'a str,
        inline: bool,
    },
    /// A TaskRun. Its omission is a warning: binding the required
    /// workspaces a TaskRun leaves out is what the cluster's
    /// `default-task-run-workspace-binding` is for (docs/workspaces.md), and
    /// the files do not show that setting.
    TaskRun,
    PipelineRun,
}

/// What a Task spec may use without declaring it (TEP-0111).
pub(super) enum Propagated<'a> {
    /// A Task document: nothing.
    None,
    /// A TaskRun's inline taskSpec: the workspaces the run binds.
    Run(&'a Names),
    /// A pipeline task's inline taskSpec: what the pipeline task binds, and
    /// what the PipelineRun binds (`run`; None when the PipelineRun is not
    /// in the document: then anything).
    Task {
        own: &'a Names,
        run: Option<&'a Names>,
    },
}

impl Propagated<'_> {
    fn provides(&self, name: &str) -> bool {
        match self {
            Propagated::None => false,
            Propagated::Run(bound) => bound.covers(name),
            Propagated::Task { own, run } => own.covers(name) || run.is_none_or(|r| r.covers(name)),
        }
    }
}

/// The workspace `$(workspaces.<name>.<attribute>)` names, and the
/// attribute; None for any other expression or a form whose name is not
/// plain.
pub(super) fn workspace_ref(body: &str) -> Option<(&str, &str)> {
    let rest = body.strip_prefix("workspaces.")?;
    let (name, attr) = rest.split_once('.')?;
    let plain = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    };
    (plain(name) && !attr.is_empty()).then_some((name, attr))
}

/// A declaration is `optional: true`.
fn is_optional(decl: &Node) -> bool {
    child(decl, "optional")
        .and_then(Node::as_scalar)
        .is_some_and(|s| s.resolved == ScalarValue::Bool(true) || s.text == "true")
}

/// Every scalar under `n` with its data path.
pub(super) fn scalars<'n>(n: &'n Node, path: String, out: &mut Vec<(&'n Node, String)>) {
    match &n.value {
        Value::Scalar(_) => out.push((n, path)),
        Value::Array(a) => {
            for (i, it) in a.iter().enumerate() {
                scalars(&it.value, format!("{path}[{i}]"), out);
            }
        }
        Value::Map(m) => {
            for it in m {
                scalars(&it.value, format!("{path}.{}", it.key.text), out);
            }
        }
    }
}

/// The strings of a Task spec that Tekton substitutes workspace variables
/// in, with their paths.
fn task_strings<'n>(spec: &'n Node, path: &str) -> Vec<(&'n Node, String)> {
    let mut out = Vec::new();
    for k in ["steps", "stepTemplate", "sidecars", "volumes"] {
        if let Some(n) = child(spec, k) {
            scalars(n, format!("{path}.{k}"), &mut out);
        }
    }
    out
}

/// Where a spec declares its workspaces, for related locations: the
/// `workspaces` key, else `fallback` (the spec's key).
pub(super) fn decl_site(spec: &Node, fallback: Span) -> (Span, String) {
    match item(spec, "workspaces") {
        Some(it) => (it.key_span, "workspaces declared here".to_string()),
        None => (fallback, "no workspaces declared here".to_string()),
    }
}

impl Ctx<'_> {
    /// `$(workspaces.w.…)` and step or sidecar `workspaces[].name` naming a
    /// workspace the Task spec at `path` neither declares nor gets
    /// propagated.
    pub(super) fn workspace_refs(
        &mut self,
        spec: &Node,
        path: &str,
        key: Span,
        prop: &Propagated,
        hints: &Hints,
    ) {
        let declared = Names::of(child(spec, "workspaces"));
        if declared.unknown {
            return;
        }
        let missing = |w: &str| !declared.has(w) && !prop.provides(w);
        let related = decl_site(spec, key);
        for (n, p) in task_strings(spec, path) {
            let Some(s) = n.as_scalar() else { continue };
            if !s.text.contains("$(workspaces.") {
                continue;
            }
            for (off, body) in exprs(&s.text) {
                // `.bound` of an undeclared workspace stays unsubstituted,
                // which is never "true": a condition on it reads "not bound",
                // as upstream's own examples use it (stepaction-when.yaml).
                let Some((w, _)) = workspace_ref(body).filter(|(w, a)| *a != "bound" && missing(w))
                else {
                    continue;
                };
                let span = self.expr_span(n, off);
                let near = hints.nearest(w, declared.list());
                let help = self.rename_help(span, w, near, declared.list());
                // A named Task's own spec: the webhook accepts the text,
                // and an inline copy of the Task (Pipelines-as-Code makes
                // one of each Task it fetches) gets the workspace its
                // pipeline task binds. A warning.
                let named = path == "spec";
                let mut msg = if named {
                    format!(
                        "$({body}) names workspace \"{w}\", which the Task does not declare: Tekton substitutes it only in an inline copy of this Task whose run binds \"{w}\""
                    )
                } else {
                    format!(
                        "$({body}) names workspace \"{w}\", which the Task does not declare: Tekton never substitutes it"
                    )
                };
                // An env variable that holds the literal text harms only a
                // program that reads it (the catalog's git-cli exports one
                // its script never reads): a warning.
                let env = p.contains(".env[");
                if env {
                    msg.push_str(", the env variable holds the literal text");
                }
                let mut f = Finding::new(&rules::tekton::WORKSPACE_REFERENCE, span, msg)
                    .with_fix(help.fix)
                    .with_path(p.clone())
                    .with_related(related.0, related.1.clone());
                f.help = help.text;
                if env || named {
                    f = f.with_severity(Severity::Warning);
                }
                self.out.push(f);
            }
        }
        for k in ["steps", "sidecars"] {
            for (i, c) in items(child(spec, k)).into_iter().enumerate() {
                for (j, u) in items(child(c, "workspaces")).into_iter().enumerate() {
                    let Some(nit) = item(u, "name") else { continue };
                    let Some(w) = nit.value.as_scalar().map(|s| s.text.as_str()) else {
                        continue;
                    };
                    if w.contains("$(") || !missing(w) {
                        continue;
                    }
                    let p = format!("{path}.{k}[{i}].workspaces[{j}].name");
                    let msg = format!("undefined workspace \"{w}\": the Task does not declare it");
                    let rel = vec![related.clone()];
                    let near = hints.nearest(w, declared.list());
                    // Renamed to a workspace the step uses already, it
                    // would be given twice.
                    let twice = near
                        .as_deref()
                        .is_some_and(|n| crowded(child(c, "workspaces"), w, n));
                    let rivals: &[String] = if twice { &[] } else { declared.list() };
                    let help = self.rename_help(nit.value.span, w, near, rivals);
                    let rule = &rules::tekton::WORKSPACE_REFERENCE;
                    self.report(rule, nit.value.span, &p, msg, rel, help);
                }
            }
        }
    }

    /// Pipeline task `t`'s bindings to workspaces the Pipeline (`ws`) does
    /// not declare.
    pub(super) fn pipeline_bindings(
        &mut self,
        t: &Node,
        tpath: &str,
        ws: &PipelineWorkspaces,
        callee: Option<&Callee>,
        hints: &Hints,
    ) {
        let (declared, related, run) = (&ws.declared, &ws.related, ws.run);
        if declared.unknown {
            return;
        }
        let task = text(t, "name").unwrap_or("");
        for (j, b) in items(child(t, "workspaces")).into_iter().enumerate() {
            let Some(name) = text(b, "name") else {
                continue;
            };
            // An empty or absent `workspace:` means the binding's name
            // (pipelinerun.go `getTaskrunWorkspaces`).
            let (field, it) = match item(b, "workspace").filter(|it| {
                !it.value.is_null() && it.value.as_scalar().is_some_and(|s| !s.text.is_empty())
            }) {
                Some(it) => ("workspace", it),
                None => match item(b, "name") {
                    Some(it) => ("name", it),
                    None => continue,
                },
            };
            let Some(ws) = it.value.as_scalar().map(|s| s.text.as_str()) else {
                continue;
            };
            if ws.contains("$(") || name.contains("$(") || declared.has(ws) {
                continue;
            }
            let mut msg = format!(
                "pipeline task \"{task}\" expects workspace with name \"{ws}\" but none exists in pipeline spec"
            );
            if let Some(run) = run {
                if run.covers(ws) {
                    continue;
                }
                // Unbound, the run fails unless the Task's workspace is
                // optional (pipelinerun.go `getTaskrunWorkspaces`).
                let Some(c) = callee else { continue };
                if c.decls.names.unknown || c.decls.optional.contains(name) {
                    continue;
                }
                msg.push_str(" nor among the PipelineRun's workspaces");
            }
            let p = format!("{tpath}.workspaces[{j}].{field}");
            let near = hints.nearest(ws, declared.list());
            // Without `workspace:` the name also names the Task's
            // workspace, which a rename would lose.
            let rivals: &[String] = if field == "workspace" {
                declared.list()
            } else {
                &[]
            };
            let help = self.rename_help(it.value.span, ws, near, rivals);
            let rel = vec![related.clone()];
            let rule = &rules::tekton::WORKSPACE_REFERENCE;
            self.report(rule, it.value.span, &p, msg, rel, help);
        }
    }

    /// Required workspaces of `callee` that `caller` (its `bound` names)
    /// leaves out, reported at `site`.
    pub(super) fn missing_workspaces(
        &mut self,
        callee: &Callee,
        bound: &Names,
        site: Span,
        path: &str,
        caller: &Caller,
    ) {
        if bound.unknown {
            return;
        }
        // A pipeline task's inline taskSpec gets a binding from the
        // PipelineRun for each workspace its steps use.
        let propagated = matches!(caller, Caller::PipelineTask { inline: true, .. });
        let task_run = matches!(caller, Caller::TaskRun);
        let who = match caller {
            Caller::PipelineTask { name, .. } => format!("pipeline task \"{name}\""),
            Caller::TaskRun => "the TaskRun".to_string(),
            Caller::PipelineRun => "the PipelineRun".to_string(),
        };
        let mut used: Option<HashSet<String>> = None;
        let mut reported = 0;
        for &(w, decl_span) in &callee.decls.required {
            // Each required workspace is bound (paid for by the binding) or
            // reported: a few per call site keep the work linear.
            if reported == MAX_MISSING {
                break;
            }
            if bound.has(w) {
                continue;
            }
            if propagated {
                let used = used.get_or_insert_with(|| used_workspaces(callee.spec));
                if used.contains(w) {
                    continue;
                }
            }
            reported += 1;
            let mut msg = format!(
                "declared workspace \"{w}\" of {} is required but {who} does not bind it",
                callee.what
            );
            if task_run {
                msg.push_str(
                    " (unless the cluster's config-defaults set default-task-run-workspace-binding)",
                );
            }
            let mut f = Finding::new(&rules::tekton::MISSING_WORKSPACE, site, msg)
                .with_path(path.to_string())
                .with_related(decl_span, "workspace declared here");
            if task_run {
                f = f.with_severity(Severity::Warning);
            }
            self.out.push(f);
        }
    }

    /// Bindings (`list` at `path`) to workspaces a referenced Task does not
    /// declare.
    pub(super) fn unknown_bindings(
        &mut self,
        callee: &Callee,
        list: Option<&Node>,
        path: &str,
        hints: &Hints,
    ) {
        let declared = &callee.decls.names;
        if declared.unknown {
            return;
        }
        let related = decl_site(callee.spec, callee.site);
        for (j, b) in items(list).into_iter().enumerate() {
            let Some(nit) = item(b, "name") else { continue };
            let Some(w) = nit.value.as_scalar().map(|s| s.text.as_str()) else {
                continue;
            };
            if w.contains("$(") || declared.has(w) {
                continue;
            }
            let msg = format!(
                "workspace binding \"{w}\" does not match any declared workspace of {}",
                callee.what
            );
            let p = format!("{path}[{j}].name");
            let near = hints.nearest(w, declared.list());
            // Renamed to a workspace bound already, it would be bound twice;
            // a pipeline task's binding without `workspace:` names the
            // Pipeline's workspace too, which a rename would change.
            let twice = near.as_deref().is_some_and(|n| crowded(list, w, n));
            let own =
                path == "spec.workspaces" || text(b, "workspace").is_some_and(|w| !w.is_empty());
            let rivals: &[String] = if twice || !own { &[] } else { declared.list() };
            let help = self.rename_help(nit.value.span, w, near, rivals);
            let rel = vec![related.clone()];
            let rule = &rules::tekton::WORKSPACE_REFERENCE;
            self.report(rule, nit.value.span, &p, msg, rel, help);
        }
    }
}

/// The workspaces a Task spec's steps, sidecars and stepTemplate name in
/// `$(workspaces.w.…)`.
fn used_workspaces(spec: &Node) -> HashSet<String> {
    let mut used = HashSet::new();
    for (n, _) in task_strings(spec, "") {
        if let Some(s) = n.as_scalar() {
            for (_, body) in exprs(&s.text) {
                used.extend(workspace_ref(body).map(|(w, _)| w.to_string()));
            }
        }
    }
    used
}
