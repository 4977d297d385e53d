//! Hover, definition and completion in Tekton files (see `crate::navigate`):
//! the declarations behind `$(params.x)`, `$(tasks.t.results.r)`,
//! `$(results.r.path)`, `$(workspaces.w.path)`, `$(steps.s.results.r)`,
//! `$(tt.params.x)` and `$(context.…)`, the Task or Pipeline a `taskRef` or
//! `pipelineRef` names, the pipeline task a `runAfter` item names, the
//! ParamSpec a run's `params[].name` binds; and the names `$(…)` may take.
//!
//! `doc` reads the open document (its scopes and the places asked about);
//! `index` the workspace's Tasks and Pipelines by name, kept in the memo.

mod doc;
mod index;
#[cfg(test)]
pub(crate) mod tests;

use super::model::Ty;
use super::syntax::{PRef, parse_param_ref, strip_selector};
use crate::navigate::{Completion, CompletionKind, Context, Hover, Navigator};
use crate::source::{FileId, SourceFile, Sources, Span};
use crate::yaml::Node;
use doc::{Doc, Local, Runs, Scope, SiteKind};
use index::{Entry, Index, MEMO_KEY, Overlay, Resource, resources_in};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Keep the workspace's Tasks and Pipelines in the memo when the document
/// may be a Tekton file, without parsing it.
pub fn warm(cx: &Context) {
    if cx.sources.get(cx.file).text.contains("tekton.dev/") {
        cx.memo
            .get_or_insert_with(MEMO_KEY, || Index::build(cx.root, cx.config));
    }
}

/// The navigator of the document, when it is a Tekton file.
pub fn navigator(cx: &Context) -> Option<Box<dyn Navigator>> {
    let source = cx.sources.get(cx.file);
    if !source.text.contains("tekton.dev/") {
        return None;
    }
    let options = crate::yaml::parse::ParseOptions::default();
    let set = crate::yaml::parse::parse_file(cx.file, &source.text, &options).ok()?;
    let nodes: Vec<&Node> = set.docs.iter().map(|d| &d.value).collect();
    let doc = Doc::read(&nodes, Arc::clone(&source));
    if !doc.tekton {
        return None;
    }
    let index = cx
        .memo
        .get_or_insert_with(MEMO_KEY, || Index::build(cx.root, cx.config))?;
    let path = Arc::new(cx.path.to_path_buf());
    let own = resources_in(&nodes, &source, &path, None);
    Some(Box::new(TektonNavigator {
        overlay: Overlay::new(index, own, cx.path),
        doc,
        source,
        sources: cx.sources.clone(),
        file: cx.file,
        root: cx.root.to_path_buf(),
        files: Mutex::new(HashMap::new()),
    }))
}

struct TektonNavigator {
    doc: Doc,
    overlay: Overlay,
    source: Arc<SourceFile>,
    sources: Sources,
    file: FileId,
    root: PathBuf,
    /// The files of the workspace added to `sources` for definitions.
    files: Mutex<HashMap<PathBuf, FileId>>,
}

/// Who declares a list of params, results or workspaces.
#[derive(Clone, Copy)]
enum Decls<'a> {
    /// A spec of the document itself.
    Local(&'a Local),
    /// A Task, Pipeline or StepAction of the workspace.
    Remote(&'a Resource),
}

impl<'a> Decls<'a> {
    fn summary_params(self) -> &'a [Entry] {
        match self {
            Decls::Local(l) => &l.summary.params,
            Decls::Remote(r) => &r.params,
        }
    }

    fn results(self) -> &'a [Entry] {
        match self {
            Decls::Local(l) => &l.summary.results,
            Decls::Remote(r) => &r.results,
        }
    }

    fn workspaces(self) -> &'a [Entry] {
        match self {
            Decls::Local(l) => &l.summary.workspaces,
            Decls::Remote(r) => &r.workspaces,
        }
    }
}

/// A declaration found, with who declares it.
struct Found<'a> {
    entry: &'a Entry,
    decls: Decls<'a>,
}

/// What a `$(…)` body names: its kind and the names in it (with the
/// offset in the body of a pipeline task's or step's name).
enum Expr<'b> {
    Param(&'b str),
    TaskResult {
        task: &'b str,
        task_at: usize,
        result: &'b str,
    },
    Result(&'b str),
    /// The workspace and what of it (`path`, `bound`, `claim`, `volume`).
    Workspace(&'b str, &'b str),
    StepResult {
        step: &'b str,
        step_at: usize,
        result: &'b str,
    },
    Context(&'b str),
    TriggerParam(&'b str),
}

fn parse_expr(body: &str) -> Option<Expr<'_>> {
    if let Some(PRef::Ok { name, .. }) = parse_param_ref(body) {
        let at = if body[6..].starts_with('.') { 7 } else { 8 };
        let name = body.get(at..at + name.len())?;
        return Some(Expr::Param(name));
    }
    let parts: Vec<&str> = body.split('.').collect();
    match parts[..] {
        [prefix @ ("tasks" | "finally"), task, "results", result, ..] => Some(Expr::TaskResult {
            task,
            task_at: prefix.len() + 1,
            result: strip_selector(result).0,
        }),
        ["results", result] | ["results", result, "path"] => {
            Some(Expr::Result(strip_selector(result).0))
        }
        [
            "workspaces",
            ws,
            what @ ("path" | "bound" | "claim" | "volume"),
        ] => Some(Expr::Workspace(ws, what)),
        ["steps", step, "results", result, ..] => Some(Expr::StepResult {
            step,
            step_at: "steps.".len(),
            result: strip_selector(result).0,
        }),
        ["context", ..] => Some(Expr::Context(body)),
        ["tt", "params", name] => Some(Expr::TriggerParam(name)),
        _ => None,
    }
}

/// What each `$(context.…)` variable stands for.
fn context_variable(body: &str, kind: &str) -> Option<&'static str> {
    let task = match body {
        "context.taskRun.name" => "the name of the TaskRun running this Task",
        "context.taskRun.namespace" => "the namespace of the TaskRun running this Task",
        "context.taskRun.uid" => "the uid of the TaskRun running this Task",
        "context.task.name" => "the name of this Task",
        "context.task.retry-count" => "how many times this Task has been retried so far",
        _ => "",
    };
    let pipeline = match body {
        "context.pipelineRun.name" => "the name of the PipelineRun running this Pipeline",
        "context.pipelineRun.namespace" => "the namespace of the PipelineRun running this Pipeline",
        "context.pipelineRun.uid" => "the uid of the PipelineRun running this Pipeline",
        "context.pipeline.name" => "the name of this Pipeline",
        "context.pipelineTask.retries" => "the number of retries this pipeline task is given",
        _ => "",
    };
    match kind {
        "Task" if !task.is_empty() => Some(task),
        "Pipeline" if !pipeline.is_empty() => Some(pipeline),
        _ => None,
    }
}

/// The meaning of `$(workspaces.w.<what>)`.
fn workspace_variable(what: &str) -> &'static str {
    match what {
        "path" => "the path the workspace is mounted at",
        "bound" => "`true` when the run binds the workspace, else `false`",
        "claim" => {
            "the name of the PersistentVolumeClaim bound to it (empty for other volume sources)"
        }
        _ => "the name of the volume bound to it",
    }
}

impl TektonNavigator {
    fn callee(&self, runs: &Runs) -> Option<Decls<'_>> {
        match runs {
            Runs::Local(l) => self.doc.locals.get(*l).map(Decls::Local),
            Runs::Ref(kind, name) => self.overlay.resolve(kind, name).map(Decls::Remote),
            Runs::Unknown => None,
        }
    }

    /// The first declaration of `name` among `layers`, innermost first.
    fn in_layers<'a>(
        &'a self,
        layers: &[usize],
        name: &str,
        pick: fn(Decls<'a>) -> &'a [Entry],
    ) -> Option<Found<'a>> {
        layers.iter().find_map(|&l| {
            let decls = Decls::Local(self.doc.locals.get(l)?);
            let entry = pick(decls).iter().find(|e| e.name == name)?;
            Some(Found { entry, decls })
        })
    }

    /// The pipeline task named `name` in scope and what it runs.
    fn pipeline_task<'a>(&'a self, scope: &'a Scope, name: &str) -> Option<&'a doc::Named> {
        scope.tasks.as_ref()?.iter().find(|t| t.name == name)
    }

    /// The declaration an expression names (None for context variables).
    fn declaration(&self, expr: &Expr, scope: &Scope) -> Option<Found<'_>> {
        match *expr {
            Expr::Param(name) => self.in_layers(&scope.params, name, Decls::summary_params),
            Expr::TriggerParam(name) => {
                self.in_layers(scope.tt.as_slice(), name, Decls::summary_params)
            }
            Expr::Result(name) => self.in_layers(scope.results.as_slice(), name, Decls::results),
            Expr::Workspace(name, _) => self.in_layers(&scope.workspaces, name, Decls::workspaces),
            Expr::TaskResult { task, result, .. } => {
                let t = self.pipeline_task(scope, task)?;
                let decls = self.callee(&t.runs)?;
                let entry = decls.results().iter().find(|e| e.name == result)?;
                Some(Found { entry, decls })
            }
            Expr::StepResult { step, result, .. } => {
                let s = scope.steps.as_ref()?.iter().find(|s| s.name == step)?;
                let decls = self.callee(&s.runs)?;
                let entry = decls.results().iter().find(|e| e.name == result)?;
                Some(Found { entry, decls })
            }
            Expr::Context(_) => None,
        }
    }

    /// Where a declaration of `decls` is, for the hover.
    fn place(&self, decls: Decls, line: usize) -> String {
        match decls {
            Decls::Local(l) => format!("{} (line {line})", l.owner),
            Decls::Remote(r) if r.path.as_path() == self.overlay.path => {
                format!("{} `{}` in this file (line {line})", r.kind, r.name)
            }
            Decls::Remote(r) => {
                let rel = r.path.strip_prefix(&self.root).unwrap_or(&r.path);
                format!("{} `{}` ({}:{line})", r.kind, r.name, rel.display())
            }
        }
    }

    fn entry_markdown(&self, what: &str, found: &Found, extra: Option<&str>) -> String {
        let e = found.entry;
        let mut out = format!("**{what}** `{}`", e.name);
        if what != "workspace" && e.ty != Ty::Unknown {
            out.push_str(&format!(": {}", e.ty.name()));
        }
        out.push('\n');
        if !e.keys.is_empty() {
            let keys: Vec<String> = e.keys.iter().map(|k| format!("`{k}`")).collect();
            out.push_str(&format!("\nproperties: {}\n", keys.join(", ")));
        }
        if let Some(d) = &e.default {
            out.push_str(&format!("\ndefault: `{d}`\n"));
        }
        if let Some(extra) = extra {
            out.push_str(&format!("\n{extra}\n"));
        }
        if let Some(d) = e
            .description
            .as_deref()
            .map(str::trim)
            .filter(|d| !d.is_empty())
        {
            out.push_str(&format!("\n{d}\n"));
        }
        out.push_str(&format!(
            "\nDeclared in {}",
            self.place(found.decls, e.line)
        ));
        out
    }

    fn resource_markdown(&self, r: &Resource) -> String {
        let mut out = format!("**{}** `{}`\n", r.kind, r.name);
        if let Some(d) = r
            .description
            .as_deref()
            .map(str::trim)
            .filter(|d| !d.is_empty())
        {
            out.push_str(&format!("\n{d}\n"));
        }
        if !r.params.is_empty() {
            out.push_str("\nParams:\n");
            for p in &r.params {
                out.push_str(&format!("- `{}`: {}", p.name, p.ty.name()));
                if let Some(d) = &p.default {
                    out.push_str(&format!(" = `{d}`"));
                }
                out.push('\n');
            }
        }
        if !r.results.is_empty() {
            let names: Vec<String> = r.results.iter().map(|e| format!("`{}`", e.name)).collect();
            out.push_str(&format!("\nResults: {}\n", names.join(", ")));
        }
        out.push_str(&format!(
            "\nDeclared in {}",
            self.place(Decls::Remote(r), r.line)
        ));
        out
    }

    /// The innermost site holding `offset`.
    fn site_at(&self, offset: usize) -> Option<&doc::Site> {
        let end = self.doc.sites.partition_point(|s| s.start <= offset);
        self.doc.sites[..end]
            .iter()
            .filter(|s| offset <= s.end)
            .min_by_key(|s| s.end - s.start)
    }

    /// The span of `start..end` of the file at `path` (None: the document).
    fn span(&self, path: Option<&Path>, start: usize, end: usize) -> Span {
        let file = match path {
            None => self.file,
            Some(p) if p == self.overlay.path => self.file,
            Some(p) => {
                let mut files = self.files.lock().unwrap_or_else(|e| e.into_inner());
                *files.entry(p.to_path_buf()).or_insert_with(|| {
                    let name = crate::source::display_name(p, &self.root);
                    self.sources.add_unread(name, p.to_path_buf())
                })
            }
        };
        Span::new(file, start, end)
    }

    fn found_span(&self, found: &Found) -> Span {
        let path = match found.decls {
            Decls::Local(_) => None,
            Decls::Remote(r) => Some(r.path.as_path()),
        };
        self.span(path, found.entry.start, found.entry.end)
    }

    fn hover_expr(&self, body: &str, scope: &Scope) -> Option<String> {
        let expr = parse_expr(body)?;
        if let Expr::Context(v) = expr {
            let meaning = context_variable(v, scope.kind)?;
            return Some(format!("**context** `{v}`\n\n{meaning}"));
        }
        let found = self.declaration(&expr, scope)?;
        let fanned = match expr {
            Expr::TaskResult { task, .. } => {
                self.pipeline_task(scope, task).is_some_and(|t| t.matrix)
            }
            _ => false,
        };
        let (what, extra) = match expr {
            Expr::Param(..) | Expr::TriggerParam(..) => ("param", None),
            Expr::Workspace(_, what) => ("workspace", Some(workspace_variable(what))),
            _ if fanned => (
                "result",
                Some(
                    "The pipeline task has a matrix: the result is consumed as an array of each run's value.",
                ),
            ),
            _ => ("result", None),
        };
        Some(self.entry_markdown(what, &found, extra))
    }

    fn definition_expr(&self, body: &str, scope: &Scope, at: usize) -> Vec<Span> {
        let Some(expr) = parse_expr(body) else {
            return Vec::new();
        };
        // On the pipeline task or step name: its declaration.
        let named = match expr {
            Expr::TaskResult { task, task_at, .. } if at <= task_at + task.len() => {
                Some(self.pipeline_task(scope, task))
            }
            Expr::StepResult { step, step_at, .. } if at <= step_at + step.len() => Some(
                scope
                    .steps
                    .as_ref()
                    .and_then(|ss| ss.iter().find(|s| s.name == step)),
            ),
            _ => None,
        };
        if let Some(named) = named {
            return named
                .map(|n| self.span(None, n.start, n.end))
                .into_iter()
                .collect();
        }
        self.declaration(&expr, scope)
            .map(|f| self.found_span(&f))
            .into_iter()
            .collect()
    }

    fn scope_at(&self, offset: usize) -> Option<&Scope> {
        let (_, _, id) = self
            .doc
            .regions
            .iter()
            .filter(|(s, e, _)| *s <= offset && offset <= *e)
            .min_by_key(|(s, e, _)| e - s)?;
        self.doc.scopes.get(*id)
    }

    fn variable(&self, e: &Entry, replace: Span) -> Completion {
        let ty = (e.ty != Ty::Unknown).then(|| e.ty.name().to_string());
        Completion {
            label: e.name.clone(),
            kind: CompletionKind::Variable,
            detail: ty,
            documentation: e.description.as_deref().map(str::trim).map(str::to_string),
            insert: None,
            replace,
        }
    }

    /// Each name of `pick` among `layers`, the innermost first.
    fn layer_names<'a>(
        &'a self,
        layers: &[usize],
        pick: fn(Decls<'a>) -> &'a [Entry],
        replace: Span,
    ) -> Vec<Completion> {
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        for l in layers {
            let Some(local) = self.doc.locals.get(*l) else {
                continue;
            };
            for e in pick(Decls::Local(local)) {
                if seen.insert(e.name.as_str()) {
                    out.push(self.variable(e, replace));
                }
            }
        }
        out
    }
}

impl Navigator for TektonNavigator {
    fn hover(&self, offset: usize) -> Option<Hover> {
        let site = self.site_at(offset)?;
        let (span, markdown) = match &site.kind {
            SiteKind::Expr(body, scope) => {
                let scope = self.doc.scopes.get(*scope)?;
                let span = self.span(None, site.start - 2, site.end + 1);
                (span, self.hover_expr(body, scope)?)
            }
            SiteKind::Ref(kind, name) => {
                let r = self.overlay.resolve(kind, name)?;
                (
                    self.span(None, site.start, site.end),
                    self.resource_markdown(r),
                )
            }
            SiteKind::Binding(name, runs) => {
                let decls = self.callee(runs)?;
                let entry = decls.summary_params().iter().find(|e| &e.name == name)?;
                let found = Found { entry, decls };
                let span = self.span(None, site.start, site.end);
                (span, self.entry_markdown("param", &found, None))
            }
            SiteKind::RunAfter(..) => return None,
        };
        Some(Hover { span, markdown })
    }

    fn definition(&self, offset: usize) -> Vec<Span> {
        let Some(site) = self.site_at(offset) else {
            return Vec::new();
        };
        match &site.kind {
            SiteKind::Expr(body, scope) => match self.doc.scopes.get(*scope) {
                Some(scope) => self.definition_expr(body, scope, offset - site.start),
                None => Vec::new(),
            },
            SiteKind::Ref(kind, name) => self
                .overlay
                .candidates(kind, name)
                .into_iter()
                .map(|r| self.span(Some(r.path.as_path()), r.start, r.end))
                .collect(),
            SiteKind::RunAfter(name, scope) => self
                .doc
                .scopes
                .get(*scope)
                .and_then(|s| self.pipeline_task(s, name))
                .map(|t| self.span(None, t.start, t.end))
                .into_iter()
                .collect(),
            SiteKind::Binding(name, runs) => self
                .callee(runs)
                .and_then(|decls| {
                    let entry = decls.summary_params().iter().find(|e| &e.name == name)?;
                    Some(self.found_span(&Found { entry, decls }))
                })
                .into_iter()
                .collect(),
        }
    }

    fn completions(&self, offset: usize) -> Vec<Completion> {
        let text = self.source.text.as_str();
        if offset > text.len() || !text.is_char_boundary(offset) {
            return Vec::new();
        }
        if !self
            .doc
            .strings
            .iter()
            .any(|&(s, e)| s < offset && offset <= e)
        {
            return Vec::new();
        }
        let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
        let before = &text[line_start..offset];
        let Some(open) = before.rfind("$(") else {
            return Vec::new();
        };
        let typed = &before[open + 2..];
        let Some((path, partial)) = typed.rsplit_once('.') else {
            return Vec::new();
        };
        let name_char = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
        if !partial.chars().all(name_char) {
            return Vec::new();
        }
        let Some(scope) = self.scope_at(offset) else {
            return Vec::new();
        };
        let replace = self.span(None, offset - partial.len(), offset);
        match path {
            "params" => self.layer_names(&scope.params, Decls::summary_params, replace),
            "results" => self.layer_names(scope.results.as_slice(), Decls::results, replace),
            "workspaces" => self.layer_names(&scope.workspaces, Decls::workspaces, replace),
            "tt.params" => self.layer_names(scope.tt.as_slice(), Decls::summary_params, replace),
            "tasks" => scope
                .tasks
                .iter()
                .flat_map(|ts| ts.iter())
                .map(|t| Completion {
                    label: t.name.clone(),
                    kind: CompletionKind::Reference,
                    detail: match &t.runs {
                        Runs::Ref(kind, name) => Some(format!("{kind} {name}")),
                        Runs::Local(_) => Some("taskSpec".to_string()),
                        Runs::Unknown => None,
                    },
                    documentation: None,
                    insert: None,
                    replace,
                })
                .collect(),
            _ => {
                let task = path
                    .strip_prefix("tasks.")
                    .and_then(|p| p.strip_suffix(".results"))
                    .filter(|t| !t.contains('.'));
                let decls = task
                    .and_then(|t| self.pipeline_task(scope, t))
                    .and_then(|t| self.callee(&t.runs));
                decls
                    .map(|d| {
                        d.results()
                            .iter()
                            .map(|e| self.variable(e, replace))
                            .collect()
                    })
                    .unwrap_or_default()
            }
        }
    }
}
