//! The walk over one Pipeline, Task or run document: which strings are
//! scanned for `$(…)` references, in which scope and context (spec § 6.3),
//! and where call sites bind params to their callee (spec § 8).

use super::ctx::{Ctx, Passed};
use super::lighthouse::{Fills, INJECTED};
use super::model::{
    Cx, Decl, Docs, Param, PipelineTask, Scope, Tasks, Ty, items, names_of, value_strings,
};
use super::refs::{exprs, is_result_ref};
use super::values::{CallSite, decl_scope, value_scope};
use crate::rules;
use crate::source::FileId;
use crate::yaml::node::{child, item, text};
use crate::yaml::{Node, Value};

impl Ctx<'_> {
    /// The param declarations of the Task or Pipeline that `r` (a
    /// `taskRef`/`pipelineRef`) resolves to, read without reporting (the
    /// callee's own findings come from checking it).
    /// Also returns the callee's spec.
    pub(super) fn resolve_callee<'d>(
        &self,
        docs: &Docs<'d>,
        r: &Node,
        kind: &str,
    ) -> Option<(Vec<Decl>, Option<&'d Node>)> {
        let doc = docs.resolve(r, kind, self.file)?;
        let mut quiet = Ctx::new(self.sources, doc.file);
        let spec = child(doc.node, "spec");
        let decls = spec.map_or_else(Vec::new, |spec| {
            quiet.param_decls(child(spec, "params"), "spec.params")
        });
        Some((decls, spec))
    }

    /// The results a Task spec in `file` declares, read without reporting.
    pub(super) fn spec_results(&self, file: FileId, spec: &Node) -> Scope {
        Ctx::new(self.sources, file).result_decls(child(spec, "results"), "results")
    }

    /// What `$(tasks.T.results…)` may know of each pipeline task in `list`.
    pub(super) fn pipeline_tasks(&self, list: Option<&Node>, docs: &Docs) -> Tasks {
        let mut tasks = Tasks::new();
        for t in items(list) {
            let Some(name) = text(t, "name") else {
                continue;
            };
            let results = if let Some(ts) = child(t, "taskSpec") {
                (!is_custom(ts)).then(|| self.spec_results(self.file, ts))
            } else if let Some(r) = child(t, "taskRef") {
                docs.resolve(r, "Task", self.file)
                    .and_then(|d| child(d.node, "spec").map(|spec| self.spec_results(d.file, spec)))
            } else {
                None
            };
            let matrix = child(t, "matrix").is_some();
            tasks.insert(name.to_string(), PipelineTask { results, matrix });
        }
        tasks
    }

    /// Every string scalar under `n`, all in context `cx`.
    pub(super) fn walk_strings(&mut self, n: &Node, path: &str, scope: &Scope, cx: Cx) {
        match &n.value {
            Value::Scalar(_) => self.check_str(n, path, scope, cx),
            Value::Array(a) => {
                for (i, it) in a.iter().enumerate() {
                    self.walk_strings(&it.value, &format!("{path}[{i}]"), scope, cx);
                }
            }
            Value::Map(m) => {
                for it in m {
                    let p = format!("{path}.{}", it.key.text);
                    self.walk_strings(&it.value, &p, scope, cx);
                }
            }
        }
    }

    /// Walk every string under `n` in Task context (spec § 6.3).
    pub(super) fn walk_task(&mut self, n: &Node, path: &str, scope: &Scope, elem: bool) {
        match &n.value {
            Value::Scalar(_) => {
                self.check_str(n, path, scope, if elem { Cx::Elem } else { Cx::Str })
            }
            Value::Array(a) => {
                for (i, it) in a.iter().enumerate() {
                    self.walk_task(&it.value, &format!("{path}[{i}]"), scope, elem);
                }
            }
            Value::Map(m) => {
                for it in m {
                    let k = it.key.text.as_str();
                    if k == "description" {
                        continue;
                    }
                    let p = format!("{path}.{k}");
                    // steps[].params[].value binds a StepAction's param: a
                    // whole array or object is a value there, `$(params.x)`
                    // as `$(params.x[*])` (spec § 10), and the items of an
                    // array value are as in `args`.
                    let is_step_binding = k == "value"
                        && path.contains(".steps[")
                        && path
                            .rsplit('.')
                            .next()
                            .is_some_and(|last| last.starts_with("params["));
                    if is_step_binding {
                        for (n, np, cx) in value_strings(&it.value, &p) {
                            match cx {
                                Cx::Bind => self.check_str(n, &np, scope, Cx::StepBind),
                                _ => self.walk_task(n, &np, scope, cx == Cx::Elem),
                            }
                        }
                        continue;
                    }
                    let e = matches!(k, "command" | "args")
                        && matches!(it.value.value, Value::Array(_));
                    self.walk_task(&it.value, &p, scope, e);
                }
            }
        }
    }

    /// A Task spec at `path`: declarations and references; `outer` is the
    /// scope from outside, `top` a Task document's own spec (D13), `passed`
    /// what its runs pass.
    pub(super) fn task_spec(
        &mut self,
        spec: &Node,
        path: &str,
        outer: &Scope,
        top: bool,
        passed: Passed,
    ) -> Vec<Decl> {
        let params = child(spec, "params");
        let decls = self.param_decls(params, &format!("{path}.params"));
        if top {
            self.partial_defaults(params, &decls, &format!("{path}.params"));
        }
        let results = self.result_decls(child(spec, "results"), &format!("{path}.results"));
        let scope = decl_scope(&decls, outer);
        let saved = self.results.replace(results);
        let saved_passed = self.passed.replace(passed);
        for k in ["steps", "stepTemplate", "sidecars", "volumes", "workspaces"] {
            if let Some(n) = child(spec, k) {
                self.walk_task(n, &format!("{path}.{k}"), &scope, false);
            }
        }
        self.results = saved;
        self.passed = saved_passed;
        decls
    }

    /// A Pipeline spec at `path` with `outer` the scope from outside;
    /// `inner_bind`: a pipeline task's bindings are in its inline
    /// `taskSpec`'s scope (inside a PipelineRun). Returns its declarations.
    pub(super) fn pipeline_spec(
        &mut self,
        spec: &Node,
        path: &str,
        outer: &Scope,
        docs: &Docs,
        inner_bind: bool,
    ) -> Vec<Decl> {
        let decls = self.param_decls(child(spec, "params"), &format!("{path}.params"));
        let scope = decl_scope(&decls, outer);
        let tasks = self.pipeline_tasks(child(spec, "tasks"), docs);
        let finally = self.pipeline_tasks(child(spec, "finally"), docs);
        let saved_tasks = self.tasks.replace(tasks);
        let saved_finally = self.finally_tasks.replace(finally);
        self.pipeline_results(spec, path, &scope);
        self.finally_tasks = saved_finally;
        for sect in ["tasks", "finally"] {
            for (i, t) in items(child(spec, sect)).into_iter().enumerate() {
                let tpath = format!("{path}.{sect}[{i}]");
                self.pipeline_task(t, &tpath, &scope, &decls, docs, inner_bind);
            }
        }
        self.tasks = saved_tasks;
        decls
    }

    /// One pipeline task at `tpath` (spec § 6.3 Pipeline context, § 8).
    pub(super) fn pipeline_task(
        &mut self,
        t: &Node,
        tpath: &str,
        scope: &Scope,
        pipeline: &[Decl],
        docs: &Docs,
        inner_bind: bool,
    ) {
        let params = child(t, "params");
        for (j, b) in items(params).into_iter().enumerate() {
            if let Some(v) = child(b, "value") {
                let vp = format!("{tpath}.params[{j}].value");
                for (n, p, cx) in value_strings(v, &vp) {
                    self.check_str(n, &p, scope, cx);
                }
            }
        }
        // Params a matrix fans out count as given (B3, B4).
        let mut matrix = Vec::new();
        if let Some(m) = child(t, "matrix") {
            let mpath = format!("{tpath}.matrix");
            for (j, b) in items(child(m, "params")).into_iter().enumerate() {
                matrix.extend(text(b, "name").map(str::to_string));
                if let Some(v) = child(b, "value") {
                    let vp = format!("{mpath}.params[{j}].value");
                    for (n, p, cx) in value_strings(v, &vp) {
                        self.check_str(n, &p, scope, cx);
                    }
                }
            }
            for (k, inc) in items(child(m, "include")).into_iter().enumerate() {
                for (j, b) in items(child(inc, "params")).into_iter().enumerate() {
                    matrix.extend(text(b, "name").map(str::to_string));
                    if let Some(v) = child(b, "value") {
                        let vp = format!("{mpath}.include[{k}].params[{j}].value");
                        self.walk_strings(v, &vp, scope, Cx::Str);
                    }
                }
            }
        }
        for (k, w) in items(child(t, "when")).into_iter().enumerate() {
            let wp = format!("{tpath}.when[{k}]");
            for f in ["input", "cel"] {
                if let Some(n) = child(w, f) {
                    self.check_str(n, &format!("{wp}.{f}"), scope, Cx::Str);
                }
            }
            for (l, v) in items(child(w, "values")).into_iter().enumerate() {
                self.check_str(v, &format!("{wp}.values[{l}]"), scope, Cx::Elem);
            }
        }
        for (k, w) in items(child(t, "workspaces")).into_iter().enumerate() {
            if let Some(sub) = child(w, "subPath") {
                let sp = format!("{tpath}.workspaces[{k}].subPath");
                self.check_str(sub, &sp, scope, Cx::Str);
            }
        }
        if let Some(r) = child(t, "taskRef") {
            for (j, b) in items(child(r, "params")).into_iter().enumerate() {
                if let Some(v) = child(b, "value") {
                    let vp = format!("{tpath}.taskRef.params[{j}].value");
                    self.walk_strings(v, &vp, scope, Cx::Str);
                }
            }
        }
        // Lighthouse binds its params to each pipeline task of a run's
        // inline pipelineSpec.
        let injected: &'static [&'static str] = match self.lighthouse {
            Some(Fills { tasks: true }) => &INJECTED,
            _ => &[],
        };
        let callee = if let Some(ts) = child(t, "taskSpec") {
            (!is_custom(ts)).then(|| {
                let inner = if inner_bind {
                    value_scope(params, scope)
                } else {
                    scope.clone()
                };
                let mut names = names_of(params);
                names.extend(matrix.iter().cloned());
                names.extend(injected.iter().map(|n| n.to_string()));
                let passed = Passed::Names(names);
                let path = format!("{tpath}.taskSpec");
                (self.task_spec(ts, &path, &inner, false, passed), Some(ts))
            })
        } else if let Some(r) = child(t, "taskRef") {
            self.resolve_callee(docs, r, "Task")
        } else {
            None
        };
        let (callee, callee_spec) = callee.map_or((None, None), |(d, s)| (Some(d), s));
        let site_path = format!("{tpath}.name");
        let site = CallSite {
            span: item(t, "name").map_or(t.span, |it| it.key_span),
            path: &site_path,
            matrix,
            injected,
            spec: callee_spec,
        };
        let bpath = format!("{tpath}.params");
        self.bindings(params, &bpath, callee.as_deref(), &site, scope);
        if let Some(callee) = &callee {
            let task = text(t, "name").unwrap_or("");
            self.enum_subset(params, &bpath, callee, pipeline, task);
        }
    }

    /// Pipeline `results` (spec § 7.3): P6 and the references in each value.
    pub(super) fn pipeline_results(&mut self, spec: &Node, path: &str, scope: &Scope) {
        for (i, r) in items(child(spec, "results")).into_iter().enumerate() {
            let Some(vit) = item(r, "value") else {
                continue;
            };
            let vp = format!("{path}.results[{i}].value");
            let strs = value_strings(&vit.value, &vp);
            let has_result_ref = strs.iter().any(|(n, _, _)| {
                n.as_scalar().is_some_and(|s| {
                    exprs(&s.text)
                        .iter()
                        .any(|(_, b)| b.starts_with("tasks.") || b.starts_with("finally."))
                })
            });
            if !has_result_ref {
                let name = text(r, "name").unwrap_or("");
                self.push(&rules::tekton::PIPELINE_RESULT, vit.key_span, &vp, format!("pipeline result {name}: expected pipeline results to be task result expressions but no expressions were found"));
                continue;
            }
            for (n, p, cx) in strs {
                self.check_str(n, &p, scope, cx);
            }
        }
    }

    /// A TaskRun or PipelineRun (`callee_kind` Task or Pipeline): its inline
    /// spec or referenced callee, and its `spec.params` bound to it.
    pub(super) fn run(&mut self, spec: &Node, docs: &Docs, callee_kind: &str) {
        let params = child(spec, "params");
        let empty = Scope::new();
        let mut outer = value_scope(params, &empty);
        // Lighthouse adds its params to the run's when it starts it.
        let injected: &'static [&'static str] = match self.lighthouse {
            Some(_) if callee_kind == "Pipeline" => &INJECTED,
            _ => &[],
        };
        for name in injected {
            outer.entry(name.to_string()).or_insert(Param {
                ty: Ty::Str,
                keys: None,
            });
        }
        let (spec_key, ref_key) = match callee_kind {
            "Task" => ("taskSpec", "taskRef"),
            _ => ("pipelineSpec", "pipelineRef"),
        };
        let (callee, site_span, site_path) = if let Some(it) = item(spec, spec_key) {
            let path = format!("spec.{spec_key}");
            let decls = match callee_kind {
                "Task" => {
                    let passed = Passed::Names(names_of(params));
                    self.task_spec(&it.value, &path, &outer, false, passed)
                }
                _ => self.pipeline_spec(&it.value, &path, &outer, docs, true),
            };
            (Some((decls, Some(&it.value))), it.key_span, path)
        } else if let Some(it) = item(spec, ref_key) {
            let decls = self.resolve_callee(docs, &it.value, callee_kind);
            (decls, it.key_span, format!("spec.{ref_key}"))
        } else {
            (None, spec.span, "spec".to_string())
        };
        let (callee, callee_spec) = callee.map_or((None, None), |(d, s)| (Some(d), s));
        let site = CallSite {
            spec: callee_spec,
            injected,
            ..CallSite::new(site_span, &site_path)
        };
        self.bindings(params, "spec.params", callee.as_deref(), &site, &empty);
    }

    /// B9: a PipelineRun param value may not use task results.
    pub(super) fn run_param_results(&mut self, spec: &Node) {
        for (i, b) in items(child(spec, "params")).into_iter().enumerate() {
            let Some(v) = child(b, "value") else {
                continue;
            };
            for (n, vp, _) in value_strings(v, &format!("spec.params[{i}].value")) {
                let Some(s) = n.as_scalar() else { continue };
                for (off, body) in exprs(&s.text) {
                    if is_result_ref(body, "tasks.") {
                        let span = self.expr_span(n, off);
                        self.push(&rules::tekton::RUN_PARAM_RESULT, span, &vp, format!("cannot use result expressions in [$({body})] as PipelineRun parameter values"));
                    }
                }
            }
        }
    }
}

/// An inline `taskSpec` of a custom task (its spec is unknown).
fn is_custom(task_spec: &Node) -> bool {
    child(task_spec, "apiVersion").is_some() || child(task_spec, "kind").is_some()
}
