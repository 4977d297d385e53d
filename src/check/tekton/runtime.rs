//! Checks for what fails when a run starts rather than when a resource is
//! admitted: workspaces bound and referenced (`workspaces`), the pipeline
//! task graph (`graph`), volume mounts and env (`volumes`). This file walks
//! one document and decides, for each inline or referenced spec, what is
//! known about the run around it.
//!
//! A callee whose spec is not in the files (an unresolved `taskRef`, a
//! resolver or bundle, a custom task, a pipeline in a pipeline) gives no
//! finding that needs it.

use super::ctx::Ctx;
use super::hints::{Help, Hints};
use super::model::{Doc, Docs, items, map_keys};
use super::workspaces::{
    Callee, Caller, Names, PipelineWorkspaces, Propagated, WsDecls, decl_site,
};
use crate::finding::Finding;
use crate::source::Span;
use crate::yaml::Node;
use crate::yaml::node::{child, item, text};
use std::collections::HashMap;
use std::rc::Rc;

/// The workspace declarations of the referenced specs met so far, by spec.
type DeclCache<'n> = HashMap<*const Node, Rc<WsDecls<'n>>>;

impl Ctx<'_> {
    /// Record a finding with its related locations, did-you-mean help and
    /// fix.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn report(
        &mut self,
        rule: &'static crate::rules::Rule,
        span: Span,
        path: &str,
        message: String,
        related: Vec<(Span, String)>,
        help: Help,
    ) {
        let mut f = Finding::new(rule, span, message)
            .with_path(path.to_string())
            .with_fix(help.fix);
        for (s, m) in related {
            f = f.with_related(s, m);
        }
        f.help = help.text;
        self.out.push(f);
    }

    /// The run-time checks of one document.
    pub(super) fn run_time(&mut self, d: &Doc, docs: &Docs) {
        let Some(spec_it) = item(d.node, "spec") else {
            return;
        };
        let spec = &spec_it.value;
        let none = Names::default();
        self.pac_inlines = d.kind == "PipelineRun"
            && child(d.node, "metadata")
                .and_then(|m| child(m, "annotations"))
                .is_some_and(|a| {
                    map_keys(a)
                        .iter()
                        .any(|k| k.starts_with("pipelinesascode.tekton.dev/task"))
                });
        match d.kind {
            "Task" => self.task_run_time(spec, "spec", spec_it.key_span, &Propagated::None, &none),
            "Pipeline" => self.pipeline_run_time(spec, "spec", spec_it.key_span, docs, None, &none),
            "TaskRun" => self.task_run(spec, docs),
            _ => self.pipeline_run(spec, docs),
        }
    }

    /// Everything a Task spec is checked for at run time.
    pub(super) fn task_run_time(
        &mut self,
        spec: &Node,
        path: &str,
        key_span: Span,
        prop: &Propagated,
        pod_volumes: &Names,
    ) {
        let hints = Hints::new();
        self.workspace_refs(spec, path, key_span, prop, &hints);
        self.volume_mounts(spec, path, key_span, pod_volumes, &hints);
        self.duplicate_env(spec, path);
    }

    /// A Pipeline spec; `run`: the bindings of the PipelineRun it is
    /// written in, None for a Pipeline document (whose runs are unseen).
    pub(super) fn pipeline_run_time(
        &mut self,
        spec: &Node,
        path: &str,
        key_span: Span,
        docs: &Docs,
        run: Option<&Names>,
        pod_volumes: &Names,
    ) {
        self.task_graph(spec, path);
        let ws = PipelineWorkspaces {
            declared: Names::of(child(spec, "workspaces")),
            related: decl_site(spec, key_span),
            run,
        };
        let hints = Hints::new();
        let mut cache = DeclCache::new();
        for sect in ["tasks", "finally"] {
            for (i, t) in items(child(spec, sect)).into_iter().enumerate() {
                let tpath = format!("{path}.{sect}[{i}]");
                let callee = self.task_callee(t, docs, &mut cache);
                let c = callee.as_ref();
                self.pipeline_bindings(t, &tpath, &ws, c, &hints);
                let own = Names::of(child(t, "workspaces"));
                let Some(c) = c else { continue };
                let site = item(t, "name").map_or(t.span, |it| it.key_span);
                let caller = Caller::PipelineTask {
                    name: text(t, "name").unwrap_or(""),
                    inline: c.inline,
                };
                let p = format!("{tpath}.name");
                self.missing_workspaces(c, &own, site, &p, &caller);
                if c.inline {
                    let prop = Propagated::Task { own: &own, run };
                    let p = format!("{tpath}.taskSpec");
                    self.task_run_time(c.spec, &p, c.site, &prop, pod_volumes);
                } else if !self.pac_inlines {
                    // Inlined by Pipelines-as-Code, the Task gets every
                    // workspace its pipeline task binds (TEP-0111).
                    let tw = child(t, "workspaces");
                    self.unknown_bindings(c, tw, &format!("{tpath}.workspaces"), &hints);
                }
            }
        }
    }

    /// The Task spec a pipeline task runs, when the files hold it.
    fn task_callee<'d>(
        &self,
        t: &'d Node,
        docs: &'d Docs,
        cache: &mut DeclCache<'d>,
    ) -> Option<Callee<'d>> {
        if let Some(it) = item(t, "taskSpec").filter(|it| !it.value.is_null()) {
            let ts = &it.value;
            if child(ts, "apiVersion").is_some() || child(ts, "kind").is_some() {
                return None;
            }
            return Some(Callee::inline(ts, "the inline taskSpec", it.key_span));
        }
        let r = child(t, "taskRef")?;
        self.referenced(r, "Task", docs, cache)
    }

    /// The spec of the Task or Pipeline that `r` names, when resolved.
    fn referenced<'d>(
        &self,
        r: &Node,
        kind: &str,
        docs: &'d Docs,
        cache: &mut DeclCache<'d>,
    ) -> Option<Callee<'d>> {
        let doc = docs.resolve(r, kind, self.file)?;
        let name = child(doc.node, "metadata").and_then(|m| text(m, "name"));
        let spec = item(doc.node, "spec")?;
        let decls = cache
            .entry(&spec.value as *const Node)
            .or_insert_with(|| Rc::new(WsDecls::of(&spec.value)));
        Some(Callee {
            spec: &spec.value,
            what: format!("{kind} \"{}\"", name.unwrap_or("")),
            inline: false,
            site: spec.key_span,
            decls: decls.clone(),
        })
    }

    /// A TaskRun: the workspaces it binds against its Task's, and its
    /// inline taskSpec.
    fn task_run(&mut self, spec: &Node, docs: &Docs) {
        let bound = Names::of(child(spec, "workspaces"));
        let pod = Names::pod_volumes(child(spec, "podTemplate"));
        if let Some(it) = item(spec, "taskSpec").filter(|it| !it.value.is_null()) {
            let callee = Callee::inline(&it.value, "the inline taskSpec", it.key_span);
            let path = "spec.taskSpec";
            self.missing_workspaces(&callee, &bound, it.key_span, path, &Caller::TaskRun);
            let prop = Propagated::Run(&bound);
            self.task_run_time(&it.value, "spec.taskSpec", it.key_span, &prop, &pod);
        } else if let Some(it) = item(spec, "taskRef")
            && let Some(callee) = self.referenced(&it.value, "Task", docs, &mut DeclCache::new())
        {
            let path = "spec.taskRef";
            self.missing_workspaces(&callee, &bound, it.key_span, path, &Caller::TaskRun);
            let ws = child(spec, "workspaces");
            self.unknown_bindings(&callee, ws, "spec.workspaces", &Hints::new());
        }
    }

    /// A PipelineRun: the workspaces it binds against its Pipeline's, and
    /// its inline pipelineSpec.
    fn pipeline_run(&mut self, spec: &Node, docs: &Docs) {
        let bound = Names::of(child(spec, "workspaces"));
        if let Some(it) = item(spec, "pipelineSpec").filter(|it| !it.value.is_null()) {
            let callee = Callee::inline(&it.value, "the inline pipelineSpec", it.key_span);
            let path = "spec.pipelineSpec";
            self.missing_workspaces(&callee, &bound, it.key_span, path, &Caller::PipelineRun);
            let pod = Names::run_pod_volumes(spec);
            self.pipeline_run_time(&it.value, path, it.key_span, docs, Some(&bound), &pod);
        } else if let Some(it) = item(spec, "pipelineRef")
            && let Some(callee) =
                self.referenced(&it.value, "Pipeline", docs, &mut DeclCache::new())
        {
            let path = "spec.pipelineRef";
            self.missing_workspaces(&callee, &bound, it.key_span, path, &Caller::PipelineRun);
        }
    }
}
