//! One Tekton document read for navigation: the scopes its strings are in
//! (a Task's params, results and workspaces; a Pipeline's params, tasks and
//! workspaces; a TriggerTemplate's params, with embedded specs nesting
//! inside) and the places an editor may ask about (each `$(…)` body, each
//! `taskRef`/`pipelineRef` name, each `runAfter` item, each bound param
//! name), with their byte spans.

use super::super::syntax::{exprs, openings};
use super::super::triggers;
use super::index::Summary;
use crate::source::SourceFile;
use crate::yaml::node::{child, item, text};
use crate::yaml::{MapItem, Node, Value};
use std::sync::Arc;

/// Declarations read from the document itself.
#[derive(Debug)]
pub(super) struct Local {
    /// Who declares them, for the hover: "this Task `build`".
    pub owner: String,
    pub summary: Summary,
}

/// What a pipeline task, step or run runs.
#[derive(Debug, Clone)]
pub(super) enum Runs {
    /// An embedded spec: an index into `Doc::locals`.
    Local(usize),
    /// A plain reference by kind and name.
    Ref(&'static str, String),
    /// A resolver, bundle, cluster kind or nothing known.
    Unknown,
}

/// A named thing of a Pipeline or Task spec: a pipeline task or a step.
#[derive(Debug)]
pub(super) struct Named {
    pub name: String,
    pub start: usize,
    pub end: usize,
    pub runs: Runs,
    /// A pipeline task with a `matrix`: its results are consumed as arrays
    /// of the per-run values.
    pub matrix: bool,
}

impl Named {
    /// The thing whose `name` entry is `it`.
    fn new(it: &MapItem, name: String, runs: Runs) -> Named {
        Named {
            name,
            start: it.value.span.start as usize,
            end: it.value.span.end as usize,
            runs,
            matrix: false,
        }
    }
}

/// What the `$(…)` of a region of the document may name.
#[derive(Debug, Default, Clone)]
pub(super) struct Scope {
    /// "Task", "Pipeline" or "" (which `$(context.…)` apply).
    pub kind: &'static str,
    /// Param declarations, innermost first (indices into `Doc::locals`).
    pub params: Vec<usize>,
    pub results: Option<usize>,
    pub workspaces: Vec<usize>,
    pub tasks: Option<Arc<Vec<Named>>>,
    pub steps: Option<Arc<Vec<Named>>>,
    /// The TriggerTemplate's params (`$(tt.params.x)`).
    pub tt: Option<usize>,
}

impl Scope {
    /// The param and workspace layers of a spec declaring `local` inside
    /// this scope: its own first, then those propagated from outside.
    fn within(&self, local: usize) -> (Vec<usize>, Vec<usize>) {
        let mut params = vec![local];
        params.extend(self.params.iter().copied());
        let mut workspaces = vec![local];
        workspaces.extend(self.workspaces.iter().copied());
        (params, workspaces)
    }
}

/// A place in the document an editor may ask about.
#[derive(Debug)]
pub(super) enum SiteKind {
    /// The body of a `$(…)` (its text), in a scope.
    Expr(String, usize),
    /// The name of a `taskRef`, `pipelineRef` or step `ref`.
    Ref(&'static str, String),
    /// A `runAfter` item, in a scope.
    RunAfter(String, usize),
    /// The name of a param a run or pipeline task binds, and its callee.
    Binding(String, Runs),
}

#[derive(Debug)]
pub(super) struct Site {
    pub start: usize,
    pub end: usize,
    pub kind: SiteKind,
}

/// The document's places and scopes.
#[derive(Debug, Default)]
pub(super) struct Doc {
    pub locals: Vec<Local>,
    pub scopes: Vec<Scope>,
    /// (start, end, scope) of each spec region.
    pub regions: Vec<(usize, usize, usize)>,
    /// Spans of the string scalars holding a `$(`.
    pub strings: Vec<(usize, usize)>,
    pub sites: Vec<Site>,
    /// The document declares something Tekton reads.
    pub tekton: bool,
    /// The document's text.
    source: Option<Arc<SourceFile>>,
}

/// Nesting bound: the parser bounds depth, this keeps the walk's stack
/// small whatever it allows.
const MAX_DEPTH: usize = 128;

impl Doc {
    pub(super) fn read(docs: &[&Node], text: Arc<SourceFile>) -> Doc {
        let mut out = Doc {
            source: Some(Arc::clone(&text)),
            ..Doc::default()
        };
        for d in docs {
            out.document(d, &Scope::default(), &text, 0);
        }
        out.sites.sort_by_key(|s| (s.start, s.end));
        out
    }

    fn local(&mut self, owner: String, spec: &Node, text: &SourceFile) -> usize {
        self.locals.push(Local {
            owner,
            summary: Summary::of(spec, text),
        });
        self.locals.len() - 1
    }

    fn scope(&mut self, scope: Scope, region: &Node) -> usize {
        self.scopes.push(scope);
        let id = self.scopes.len() - 1;
        let span = region.span;
        self.regions
            .push((span.start as usize, span.end as usize, id));
        id
    }

    /// One Tekton resource (top-level, or a TriggerTemplate's resource
    /// template) with `outer` the scope around it.
    fn document(&mut self, n: &Node, outer: &Scope, text: &SourceFile, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        let name = child(n, "metadata")
            .and_then(|m| crate::yaml::node::text(m, "name"))
            .unwrap_or("");
        if let Some(kind) = triggers::kind(n) {
            self.tekton = true;
            if kind == "TriggerTemplate"
                && let Some(spec) = child(n, "spec")
            {
                let tt = self.local(format!("this TriggerTemplate `{name}`"), spec, text);
                let scope = Scope {
                    tt: Some(tt),
                    ..outer.clone()
                };
                let id = self.scope(scope.clone(), spec);
                for (key, v) in entries(spec) {
                    if key == "resourcetemplates" {
                        for t in super::super::model::items(Some(v)) {
                            if text_of(t, "apiVersion").starts_with("tekton.dev/") {
                                self.strings_except(t, id, &["spec"], depth + 1);
                                self.document(t, &scope, text, depth + 1);
                            } else {
                                self.strings(t, id, depth + 1);
                            }
                        }
                    } else if key != "params" {
                        self.strings(v, id, depth + 1);
                    }
                }
            }
            return;
        }
        let api = text_of(n, "apiVersion");
        if !api.starts_with("tekton.dev/") {
            return;
        }
        let Some(spec) = child(n, "spec") else {
            return;
        };
        match text_of(n, "kind") {
            "Task" | "ClusterTask" | "StepAction" => {
                let kind = text_of(n, "kind");
                self.tekton = true;
                self.task(spec, outer, format!("this {kind} `{name}`"), text, depth);
            }
            "Pipeline" => {
                self.tekton = true;
                self.pipeline(spec, outer, format!("this Pipeline `{name}`"), text, depth);
            }
            kind @ ("TaskRun" | "PipelineRun") => {
                self.tekton = true;
                self.run(spec, kind, outer, text, depth);
            }
            _ => {}
        }
    }

    /// A TaskRun or PipelineRun spec.
    fn run(&mut self, spec: &Node, kind: &str, outer: &Scope, text: &SourceFile, depth: usize) {
        let (spec_key, ref_key, callee_kind) = match kind {
            "TaskRun" => ("taskSpec", "taskRef", "Task"),
            _ => ("pipelineSpec", "pipelineRef", "Pipeline"),
        };
        let id = self.scope(outer.clone(), spec);
        let mut runs = Runs::Unknown;
        if let Some(inner) = child(spec, spec_key) {
            let owner = format!("the {spec_key} of this {kind}");
            runs = if kind == "TaskRun" {
                Runs::Local(self.task(inner, outer, owner, text, depth))
            } else {
                Runs::Local(self.pipeline(inner, outer, owner, text, depth))
            };
        } else if let Some(r) = child(spec, ref_key) {
            runs = self.reference(r, callee_kind);
        }
        for (key, v) in entries(spec) {
            match key {
                k if k == spec_key => {}
                "params" => self.bindings(v, &runs, id, depth),
                _ => self.strings(v, id, depth + 1),
            }
        }
    }

    /// The params a run or pipeline task binds: each name is a site, each
    /// value scanned in scope `id`.
    fn bindings(&mut self, list: &Node, runs: &Runs, id: usize, depth: usize) {
        for b in super::super::model::items(Some(list)) {
            if let Some(it) = item(b, "name")
                && let Some(s) = it.value.as_scalar()
            {
                self.sites.push(Site {
                    start: it.value.span.start as usize,
                    end: it.value.span.end as usize,
                    kind: SiteKind::Binding(s.text.clone(), runs.clone()),
                });
            }
            if let Some(v) = child(b, "value") {
                self.strings(v, id, depth + 1);
            }
        }
    }

    /// A `taskRef`/`pipelineRef`/step `ref`: a site on its name, and what
    /// it runs when it is a plain reference by name.
    fn reference(&mut self, r: &Node, kind: &'static str) -> Runs {
        // As `Docs::resolve_index`: a resolver, a bundle, another kind or
        // a key Tekton does not know leave the callee unknown.
        const KNOWN: [&str; 3] = ["name", "kind", "apiVersion"];
        let plain = match &r.value {
            Value::Map(m) => m.iter().all(|it| KNOWN.contains(&it.key.text.as_str())),
            _ => false,
        };
        let plain =
            plain && child(r, "apiVersion").is_none() && text(r, "kind").is_none_or(|k| k == kind);
        let Some(it) = item(r, "name") else {
            return Runs::Unknown;
        };
        let Some(s) = it.value.as_scalar().filter(|_| plain) else {
            return Runs::Unknown;
        };
        if s.text.contains("$(") {
            return Runs::Unknown;
        }
        self.sites.push(Site {
            start: it.value.span.start as usize,
            end: it.value.span.end as usize,
            kind: SiteKind::Ref(kind, s.text.clone()),
        });
        Runs::Ref(kind, s.text.clone())
    }

    /// A Task (or StepAction) spec: returns the index of its declarations.
    fn task(
        &mut self,
        spec: &Node,
        outer: &Scope,
        owner: String,
        text: &SourceFile,
        depth: usize,
    ) -> usize {
        let local = self.local(owner, spec, text);
        self.task_declared(spec, local, outer, text, depth);
        local
    }

    /// A Task spec whose declarations are `local`: its steps and strings,
    /// in a scope of its own inside `outer`. An inline `taskSpec` of a
    /// pipeline task sees the Pipeline's tasks (`outer.tasks`): upstream
    /// substitutes their results in inline steps too.
    fn task_declared(
        &mut self,
        spec: &Node,
        local: usize,
        outer: &Scope,
        text: &SourceFile,
        depth: usize,
    ) {
        let mut steps = Vec::new();
        for s in super::super::model::items(child(spec, "steps")) {
            let Some(it) = item(s, "name") else { continue };
            let Some(name) = it.value.as_scalar().map(|v| v.text.clone()) else {
                continue;
            };
            let runs = if let Some(r) = child(s, "ref") {
                self.reference(r, "StepAction")
            } else if child(s, "results").is_some() {
                Runs::Local(self.local(format!("step `{name}`"), s, text))
            } else {
                Runs::Unknown
            };
            steps.push(Named::new(it, name, runs));
        }
        let (params, workspaces) = outer.within(local);
        let scope = Scope {
            kind: "Task",
            params,
            results: Some(local),
            workspaces,
            tasks: outer.tasks.clone(),
            steps: Some(Arc::new(steps)),
            tt: outer.tt,
        };
        let id = self.scope(scope, spec);
        for (key, v) in entries(spec) {
            if key == "steps" {
                for s in super::super::model::items(Some(v)) {
                    self.strings_except(s, id, &["ref"], depth + 1);
                }
            } else {
                self.strings(v, id, depth + 1);
            }
        }
    }

    /// A Pipeline spec: returns the index of its declarations.
    fn pipeline(
        &mut self,
        spec: &Node,
        outer: &Scope,
        owner: String,
        text: &SourceFile,
        depth: usize,
    ) -> usize {
        let local = self.local(owner, spec, text);
        let mut tasks = Vec::new();
        let mut embedded = Vec::new();
        let sections = ["tasks", "finally"];
        for t in sections
            .iter()
            .flat_map(|s| super::super::model::items(child(spec, s)))
        {
            let Some(it) = item(t, "name") else { continue };
            let Some(name) = it.value.as_scalar().map(|v| v.text.clone()) else {
                continue;
            };
            let runs = if let Some(ts) = child(t, "taskSpec") {
                if child(ts, "apiVersion").is_some() || child(ts, "kind").is_some() {
                    Runs::Unknown
                } else {
                    // Declared now, so that every pipeline task's results
                    // are known before any string is read.
                    let owner = format!("the taskSpec of pipeline task `{name}`");
                    let local = self.local(owner, ts, text);
                    embedded.push((ts, local));
                    Runs::Local(local)
                }
            } else if let Some(r) = child(t, "taskRef") {
                self.reference(r, "Task")
            } else {
                Runs::Unknown
            };
            tasks.push(Named {
                matrix: child(t, "matrix").is_some(),
                ..Named::new(it, name, runs)
            });
        }
        let (params, workspaces) = outer.within(local);
        let scope = Scope {
            kind: "Pipeline",
            params,
            results: None,
            workspaces,
            tasks: Some(Arc::new(tasks)),
            steps: None,
            tt: outer.tt,
        };
        for (ts, local) in embedded {
            self.task_declared(ts, local, &scope, text, depth + 1);
        }
        let id = self.scope(scope, spec);
        for (key, v) in entries(spec) {
            if !sections.contains(&key) {
                self.strings(v, id, depth + 1);
                continue;
            }
            for t in super::super::model::items(Some(v)) {
                let runs = self.scopes[id]
                    .tasks
                    .as_ref()
                    .and_then(|ts| {
                        let name = text_of(t, "name");
                        ts.iter().find(|x| x.name == name).map(|x| x.runs.clone())
                    })
                    .unwrap_or(Runs::Unknown);
                for (k, tv) in entries(t) {
                    match k {
                        "name" | "taskSpec" => {}
                        "taskRef" => {
                            if let Some(p) = child(tv, "params") {
                                self.strings(p, id, depth + 1);
                            }
                        }
                        "runAfter" => {
                            for a in super::super::model::items(Some(tv)) {
                                if let Some(s) = a.as_scalar() {
                                    self.sites.push(Site {
                                        start: a.span.start as usize,
                                        end: a.span.end as usize,
                                        kind: SiteKind::RunAfter(s.text.clone(), id),
                                    });
                                }
                            }
                        }
                        "params" => self.bindings(tv, &runs, id, depth + 1),
                        _ => self.strings(tv, id, depth + 1),
                    }
                }
            }
        }
        local
    }

    /// Every string under `n` but the values of the keys `skip`.
    fn strings_except(&mut self, n: &Node, id: usize, skip: &[&str], depth: usize) {
        match &n.value {
            Value::Map(m) => {
                for it in m.iter().filter(|it| !skip.contains(&it.key.text.as_str())) {
                    self.strings(&it.value, id, depth + 1);
                }
            }
            _ => self.strings(n, id, depth),
        }
    }

    /// The `$(…)` of every string under `n` (descriptions aside), in scope
    /// `id`.
    fn strings(&mut self, n: &Node, id: usize, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        match &n.value {
            Value::Scalar(s) if s.text.contains("$(") => self.expressions(n, id),
            Value::Scalar(_) => {}
            Value::Array(a) => {
                for it in a {
                    self.strings(&it.value, id, depth + 1);
                }
            }
            Value::Map(m) => {
                for it in m.iter().filter(|it| it.key.text != "description") {
                    self.strings(&it.value, id, depth + 1);
                }
            }
        }
    }

    /// The expressions of string scalar `n`, placed in the source: the
    /// k-th `$(` of its text is the k-th of its source (after a block
    /// scalar's header), and the body must read the same there; when an
    /// escape breaks that, the string's expressions are left out.
    fn expressions(&mut self, n: &Node, id: usize) {
        let Some(s) = n.as_scalar() else { return };
        self.strings
            .push((n.span.start as usize, n.span.end as usize));
        let Some(source) = self.source.clone() else {
            return;
        };
        let Some(raw) = source.text.get(n.span.range()) else {
            return;
        };
        let (in_source, in_text) = openings(raw, s);
        if in_source.len() != in_text.len() {
            return;
        }
        let base = n.span.start as usize;
        for (off, body) in exprs(&s.text) {
            let ordinal = in_text.partition_point(|&i| i < off);
            let Some(&at) = in_source.get(ordinal) else {
                continue;
            };
            if raw.get(at + 2..at + 2 + body.len()) != Some(body) {
                continue;
            }
            self.sites.push(Site {
                start: base + at + 2,
                end: base + at + 2 + body.len(),
                kind: SiteKind::Expr(body.to_string(), id),
            });
        }
    }
}

/// The entries of a mapping, by key.
fn entries(n: &Node) -> Vec<(&str, &Node)> {
    match &n.value {
        Value::Map(m) => m
            .iter()
            .map(|it| (it.key.text.as_str(), &it.value))
            .collect(),
        _ => Vec::new(),
    }
}

fn text_of<'n>(n: &'n Node, key: &str) -> &'n str {
    text(n, key).unwrap_or("")
}
