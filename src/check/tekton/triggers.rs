//! Tekton Triggers (`triggers.tekton.dev/v1alpha1`, `v1beta1`):
//! TriggerTemplate params and the `$(tt.params.x)` references of its
//! `resourcetemplates` (tektoncd/triggers `verifyParamDeclarations`), the
//! params each trigger's bindings give its template (`ResolveTrigger`,
//! `applyEventValuesToParams`), duplicate binding params
//! (`validateParams`, `resolveBindingsToParams`), and the PipelineRuns and
//! TaskRuns a template creates, checked like any run.
//!
//! Bindings and templates are found by name among the linted files; when a
//! name is not there, or several resources of that name are equally near,
//! the resource is unknown and the pairing is not checked.

use super::ctx::Ctx;
use super::model::{Doc, Docs, items, named, repositories};
use super::refs::exprs;
use super::rename::rename_fix;
use super::trigger_legacy::legacy_fix;
use crate::discover::DiscoveredFile;
use crate::finding::{Finding, Fix};
use crate::rules;
use crate::source::{FileId, Sources, Span};
use crate::yaml::node::{child, item, text};
use crate::yaml::{Node, Value};
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::path::{Component, Path, PathBuf};

const KINDS: [&str; 5] = [
    "TriggerTemplate",
    "TriggerBinding",
    "ClusterTriggerBinding",
    "EventListener",
    "Trigger",
];

/// Above this many resources of one kind and name, a reference to that name
/// is not followed (keeps each lookup bounded).
const MAX_SAME_NAME: usize = 64;

/// The Triggers kind of document `n`, if it is one.
pub(super) fn kind(n: &Node) -> Option<&str> {
    let api = text(n, "apiVersion")?;
    if !matches!(
        api,
        "triggers.tekton.dev/v1alpha1" | "triggers.tekton.dev/v1beta1"
    ) {
        return None;
    }
    text(n, "kind").filter(|k| KINDS.contains(k))
}

fn namespace(n: &Node) -> Option<&str> {
    child(n, "metadata").and_then(|m| text(m, "namespace"))
}

/// The Triggers documents of a unit by kind and name, and their directories.
struct Index<'a, 'd> {
    list: &'d [Doc<'a>],
    dirs: HashMap<FileId, &'d Path>,
    /// The git repository of each file: no resource of another one is found.
    repos: HashMap<FileId, Option<PathBuf>>,
    by_name: HashMap<(&'a str, &'a str), Vec<usize>>,
}

impl<'a, 'd> Index<'a, 'd> {
    fn new(list: &'d [Doc<'a>], files: &'d [&'d DiscoveredFile]) -> Index<'a, 'd> {
        let mut by_name: HashMap<(&str, &str), Vec<usize>> = HashMap::new();
        for (i, d) in list.iter().enumerate() {
            if let Some(name) = child(d.node, "metadata").and_then(|m| text(m, "name")) {
                by_name.entry((d.kind, name)).or_default().push(i);
            }
        }
        let dirs = files
            .iter()
            .filter_map(|f| Some((f.id, f.path.parent()?)))
            .collect();
        let repos = repositories(files.iter().map(|f| (f.id, f.path.as_path())));
        Index {
            list,
            dirs,
            repos,
            by_name,
        }
    }

    /// The `kind` resource `name` as seen from file `from` in namespace `ns`:
    /// of the resources of that name (in the same namespace, unless cluster
    /// scoped), the one in the nearest directory: the deepest common
    /// ancestor with `from`'s directory, then the fewest levels below it.
    /// None when there is none or two are equally near.
    fn find(&self, kind: &str, name: &str, from: FileId, ns: Option<&str>) -> Option<&'d Doc<'a>> {
        if name.contains("$(") {
            return None;
        }
        let cands = self.by_name.get(&(kind, name))?;
        if cands.len() > MAX_SAME_NAME {
            return None;
        }
        let from_dir = self.dirs.get(&from).copied();
        let mut best: Option<((usize, usize), usize)> = None;
        let mut tie = false;
        for &i in cands {
            let d = &self.list[i];
            if self.repos.get(&d.file) != self.repos.get(&from) {
                continue;
            }
            if kind != "ClusterTriggerBinding"
                && let (Some(a), Some(b)) = (ns, namespace(d.node))
                && a != b
            {
                continue;
            }
            let key = distance(from_dir, self.dirs.get(&d.file).copied());
            match best {
                Some((k, _)) if k < key => {}
                Some((k, _)) if k == key => tie = true,
                _ => {
                    best = Some((key, i));
                    tie = false;
                }
            }
        }
        if tie {
            return None;
        }
        best.map(|(_, i)| &self.list[i])
    }
}

/// Levels up from directory `a` to the common ancestor with `b`, then down
/// to `b` (both 0 when either is unknown).
fn distance(a: Option<&Path>, b: Option<&Path>) -> (usize, usize) {
    let (Some(a), Some(b)) = (a, b) else {
        return (0, 0);
    };
    let a: Vec<Component> = a.components().collect();
    let b: Vec<Component> = b.components().collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    (a.len() - common, b.len() - common)
}

/// Rename fixes looked for at one trigger.
const MAX_RENAMES: usize = 20;

/// A TriggerTemplate param declaration.
struct TtParam {
    name: String,
    /// The `name` key, for "declared here".
    span: Span,
    has_default: bool,
}

/// The param names a template declares: to look up, and sorted to suggest.
struct Declared {
    set: HashSet<String>,
    sorted: Vec<String>,
}

impl Declared {
    fn new(params: &[TtParam]) -> Declared {
        let set: HashSet<String> = params.iter().map(|p| p.name.clone()).collect();
        let mut sorted: Vec<String> = set.iter().cloned().collect();
        sorted.sort();
        Declared { set, sorted }
    }
}

/// A TriggerTemplate seen from a trigger: its name (empty when inline) and
/// params.
struct Template {
    name: String,
    params: Vec<TtParam>,
}

/// `$(tt.params.NAME)`: NAME when `body` is such a reference as upstream's
/// `paramsRegexp` matches it (`[_a-zA-Z][_a-zA-Z0-9.-]*`).
fn tt_param(body: &str) -> Option<&str> {
    let name = body.strip_prefix("tt.params.")?;
    let mut cs = name.chars();
    let first = cs.next()?;
    let ok = (first.is_ascii_alphabetic() || first == '_')
        && cs.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'));
    ok.then_some(name)
}

/// The param declarations of a TriggerTemplate spec with a name, read
/// without reporting.
fn tt_params(spec: &Node) -> Vec<TtParam> {
    named(child(spec, "params"))
        .into_iter()
        .filter(|(_, _, _, name)| !name.is_empty())
        .map(|(_, p, name_it, name)| TtParam {
            name,
            span: name_it.key_span,
            has_default: child(p, "default").is_some(),
        })
        .collect()
}

/// The findings of the Triggers documents `list` of a unit (`files`), whose
/// created runs resolve among `docs`.
pub(super) fn check(
    list: &[Doc],
    files: &[&DiscoveredFile],
    docs: &Docs,
    sources: &Sources,
) -> Vec<Finding> {
    if list.is_empty() {
        return Vec::new();
    }
    let index = Index::new(list, files);
    let checked: Vec<Vec<Finding>> = list
        .par_iter()
        .map(|d| check_doc(d, &index, docs, sources))
        .collect();
    checked.into_iter().flatten().collect()
}

fn check_doc(d: &Doc, index: &Index, docs: &Docs, sources: &Sources) -> Vec<Finding> {
    let mut ctx = Ctx::new(sources, d.file);
    let Some(spec) = child(d.node, "spec") else {
        return ctx.out;
    };
    let ns = namespace(d.node);
    match d.kind {
        "TriggerTemplate" => ctx.template_spec(spec, "spec", docs),
        "TriggerBinding" | "ClusterTriggerBinding" => ctx.binding_duplicates(spec),
        "Trigger" => ctx.trigger(spec, "spec", ns, index, docs),
        _ => {
            for (i, t) in items(child(spec, "triggers")).into_iter().enumerate() {
                ctx.trigger(t, &format!("spec.triggers[{i}]"), ns, index, docs);
            }
        }
    }
    ctx.out
}

impl Ctx<'_> {
    /// A TriggerTemplate spec at `path` (a document's or a trigger's inline
    /// `template.spec`): its references and the runs it creates.
    fn template_spec(&mut self, spec: &Node, path: &str, docs: &Docs) {
        let params = tt_params(spec);
        let declared = Declared::new(&params);
        for (i, rt) in items(child(spec, "resourcetemplates"))
            .into_iter()
            .enumerate()
        {
            let rpath = format!("{path}.resourcetemplates[{i}]");
            self.tt_refs(rt, &rpath, &declared);
            self.stray_legacy_params(rt, &rpath, &declared.set);
            self.created_run(rt, &rpath, &declared, docs);
        }
    }

    /// Every `$(tt.params.x)` in keys and strings under `n` names a declared
    /// param (upstream `verifyParamDeclarations`).
    fn tt_refs(&mut self, n: &Node, path: &str, declared: &Declared) {
        match &n.value {
            Value::Scalar(_) => self.tt_refs_in(n, path, declared),
            Value::Array(a) => {
                for (i, it) in a.iter().enumerate() {
                    self.tt_refs(&it.value, &format!("{path}[{i}]"), declared);
                }
            }
            Value::Map(m) => {
                for it in m {
                    let p = format!("{path}.{}", it.key.text);
                    if it.key.text.contains("$(") {
                        let key = Node {
                            span: it.key_span,
                            value: Value::Scalar(it.key.clone()),
                        };
                        self.tt_refs_in(&key, &p, declared);
                    }
                    self.tt_refs(&it.value, &p, declared);
                }
            }
        }
    }

    fn tt_refs_in(&mut self, n: &Node, path: &str, declared: &Declared) {
        let Some(s) = n.as_scalar() else { return };
        if !s.text.contains("$(") {
            return;
        }
        for (off, body) in exprs(&s.text) {
            let Some(name) = tt_param(body) else { continue };
            if declared.set.contains(name) {
                continue;
            }
            let span = self.expr_span(n, off);
            let sorted = &declared.sorted;
            let near = crate::suggest::did_you_mean(name, sorted);
            let fix = near
                .as_deref()
                .and_then(|near| rename_fix(self.sources, span, name, near, sorted));
            let help = match near {
                Some(near) => format!("did you mean \"{near}\"?"),
                None if sorted.is_empty() => "the TriggerTemplate declares no params".to_string(),
                None => format!("declared: {}", sorted.join(", ")),
            };
            self.out.push(
                Finding::new(
                    &rules::tekton::TRIGGER_PARAM_REFERENCE,
                    span,
                    format!("undeclared param '$({body})': it must be declared in spec.params"),
                )
                .with_path(path.to_string())
                .with_help(help)
                .with_fix(fix),
            );
        }
    }

    /// A PipelineRun or TaskRun the template creates (at `path`), checked
    /// against its Pipeline or Task as any run; an undeclared `$(params.x)`
    /// in its inline spec, x a template param, is the legacy form (the rest
    /// of the template is `trigger_legacy`'s).
    fn created_run(&mut self, rt: &Node, path: &str, declared: &Declared, docs: &Docs) {
        if !matches!(
            text(rt, "apiVersion"),
            Some("tekton.dev/v1" | "tekton.dev/v1beta1")
        ) {
            return;
        }
        let callee = match text(rt, "kind") {
            Some("PipelineRun") => "Pipeline",
            Some("TaskRun") => "Task",
            _ => return,
        };
        let Some(spec) = child(rt, "spec") else {
            return;
        };
        let mut run = Ctx::new(self.sources, self.file);
        if callee == "Pipeline" {
            run.run_param_results(spec);
        }
        run.run(spec, docs, callee);
        for mut f in run.out {
            // An undeclared `$(params.x)` anywhere in the run, with x a
            // template param: written for Triggers before v0.8, which
            // substituted that form. Say so, as for run param values.
            let legacy = (f.is(&rules::tekton::PARAM_REFERENCE))
                .then(|| f.message.strip_prefix("non-existent variable $(params."))
                .flatten()
                .and_then(|rest| rest.split_once(')'))
                .map(|(name, _)| name.to_string())
                .filter(|name| declared.set.contains(name));
            if let Some(name) = legacy {
                let original = f.path.take();
                f = Finding::new(&rules::tekton::TRIGGER_LEGACY_PARAM, f.span,
                    format!("$(params.{name}) is not substituted by Tekton Triggers: the run gets the text as it is"),
                )
                .with_help(format!("write $(tt.params.{name})"))
                .with_fix(legacy_fix(self.sources, f.span, &format!("params.{name}")));
                f.path = original;
            }
            f.path = Some(match f.path {
                Some(p) => format!("{path}.{p}"),
                None => path.to_string(),
            });
            self.out.push(f);
        }
    }

    /// A TriggerBinding or ClusterTriggerBinding binds each param once
    /// (upstream `validateParams`).
    fn binding_duplicates(&mut self, spec: &Node) {
        let mut seen: HashMap<String, Span> = HashMap::new();
        for (i, _, name_it, name) in named(child(spec, "params")) {
            if let Some(first) = seen.get(&name) {
                let f = Finding::new(
                    &rules::tekton::TRIGGER_DUPLICATE_PARAM,
                    name_it.key_span,
                    format!("param {name} appears more than once"),
                )
                .with_path(format!("spec.params[{i}].name"))
                .with_related(*first, "first bound here");
                self.out.push(f);
                continue;
            }
            seen.insert(name, name_it.key_span);
        }
    }

    /// One trigger (an EventListener's `triggers[]` item or a Trigger's
    /// spec) at `path`: its inline template and the params its bindings give
    /// the template. A `triggerRef` is checked at the Trigger it names.
    fn trigger(&mut self, t: &Node, path: &str, ns: Option<&str>, index: &Index, docs: &Docs) {
        if child(t, "triggerRef").is_some() {
            return;
        }
        let Some(tmpl) = child(t, "template") else {
            return;
        };
        let inline = child(tmpl, "spec");
        if let Some(spec) = inline {
            self.template_spec(spec, &format!("{path}.template.spec"), docs);
        }
        let bound = self.bound_params(t, path, ns, index);
        let Some(bound) = bound else { return };
        let template = match (inline, item(tmpl, "ref")) {
            (Some(spec), None) => Template {
                name: String::new(),
                params: tt_params(spec),
            },
            (None, Some(r)) => {
                let Some(name) = r.value.as_scalar().map(|s| s.text.as_str()) else {
                    return;
                };
                let Some(doc) = index.find("TriggerTemplate", name, self.file, ns) else {
                    return;
                };
                Template {
                    name: name.to_string(),
                    params: child(doc.node, "spec").map_or_else(Vec::new, tt_params),
                }
            }
            _ => return,
        };
        let (site, site_path) = match (inline, item(tmpl, "ref"), item(t, "bindings")) {
            (None, Some(r), _) => (r.key_span, format!("{path}.template.ref")),
            (_, _, Some(b)) => (b.key_span, format!("{path}.bindings")),
            _ => match item(t, "template") {
                Some(it) => (it.key_span, format!("{path}.template")),
                None => return,
            },
        };
        let mut names: Vec<String> = bound.keys().cloned().collect();
        names.sort();
        // A name declared twice has a default when either declaration has.
        let mut settled: HashSet<&str> = template
            .params
            .iter()
            .filter(|p| p.has_default || bound.contains_key(&p.name))
            .map(|p| p.name.as_str())
            .collect();
        let mut renames = MAX_RENAMES;
        for p in &template.params {
            if !settled.insert(&p.name) {
                continue;
            }
            let which = if template.name.is_empty() {
                "the inline TriggerTemplate".to_string()
            } else {
                format!("TriggerTemplate {}", template.name)
            };
            let mut f = Finding::new(&rules::tekton::TRIGGER_MISSING_PARAM, site,
                format!(
                    "param {} of {which} has no default and no binding of this trigger gives it a value",
                    p.name
                ),
            )
            .with_path(site_path.clone())
            .with_related(p.span, "declared here without a default");
            if let Some(near) = crate::suggest::did_you_mean(&p.name, &names) {
                // Each rename looks through every param and binding: a few
                // per trigger keep the work linear.
                let mut fix = None;
                if renames > 0 {
                    renames -= 1;
                    fix = self.misspelled_trigger_binding(
                        t,
                        &template.params,
                        &bound,
                        &p.name,
                        &near,
                    );
                }
                f = f.with_help(format!(
                    "a binding gives \"{near}\"; $(tt.params.{}) stays as it is in the created resources",
                    p.name
                ));
                f = f.with_fix(fix);
            } else {
                f = f.with_help(format!(
                    "$(tt.params.{}) stays as it is in the created resources",
                    p.name
                ));
            }
            self.out.push(f);
        }
    }

    /// The fix of template param `missing`, which no binding of trigger
    /// `t` gives, when the binding nearest it (`near`, of the `bound`
    /// names) is a misspelling of it: the one bound name the template does
    /// not declare within two edits of it, given inline by this trigger
    /// (a TriggerBinding may serve other triggers, whose templates may read
    /// the name it gives).
    fn misspelled_trigger_binding(
        &self,
        t: &Node,
        declared: &[TtParam],
        bound: &HashMap<String, Span>,
        missing: &str,
        near: &str,
    ) -> Option<Fix> {
        let names: Vec<String> = declared.iter().map(|p| p.name.clone()).collect();
        let extra: Vec<String> = bound
            .keys()
            .filter(|b| !names.contains(b))
            .cloned()
            .collect();
        if crate::suggest::sole_within(missing, &extra, 2).as_deref() != Some(near) {
            return None;
        }
        let inline: Vec<&Node> = items(child(t, "bindings"))
            .into_iter()
            .filter(|b| child(b, "ref").is_none() && child(b, "value").is_some())
            .filter_map(|b| child(b, "name"))
            .filter(|n| n.as_scalar().is_some_and(|s| s.text == near))
            .collect();
        let [name] = inline[..] else {
            return None;
        };
        rename_fix(self.sources, name.span, near, missing, &names)
    }

    /// The params the bindings of trigger `t` give, each with where it is
    /// bound; None when a binding is unknown. Reports a param that two
    /// bindings give (upstream `resolveBindingsToParams` fails every event).
    fn bound_params(
        &mut self,
        t: &Node,
        path: &str,
        ns: Option<&str>,
        index: &Index,
    ) -> Option<HashMap<String, Span>> {
        let mut bound: HashMap<String, Span> = HashMap::new();
        let mut known = true;
        for (j, b) in items(child(t, "bindings")).into_iter().enumerate() {
            let bpath = format!("{path}.bindings[{j}]");
            let mut here: Vec<(String, Span)> = Vec::new();
            let site;
            if let Some(r) = item(b, "ref") {
                site = r.key_span;
                let name = r.value.as_scalar().map(|s| s.text.as_str());
                let kind = text(b, "kind").unwrap_or("TriggerBinding");
                let doc = match (name, kind, item(b, "name")) {
                    (Some(n), "TriggerBinding" | "ClusterTriggerBinding", None) => {
                        index.find(kind, n, self.file, ns)
                    }
                    _ => None,
                };
                let Some(doc) = doc else {
                    known = false;
                    continue;
                };
                for (_, _, name_it, name) in
                    named(child(doc.node, "spec").and_then(|s| child(s, "params")))
                {
                    here.push((name, name_it.key_span));
                }
            } else if let (Some(n), Some(_)) = (item(b, "name"), child(b, "value")) {
                site = n.key_span;
                let Some(name) = n.value.as_scalar() else {
                    known = false;
                    continue;
                };
                here.push((name.text.clone(), n.key_span));
            } else {
                known = false;
                continue;
            }
            let mut dups: Vec<(String, Span)> = Vec::new();
            let mut mine: HashSet<&str> = HashSet::new();
            for (name, span) in &here {
                // A binding's own repeats are reported at the binding.
                if !mine.insert(name) {
                    continue;
                }
                match bound.get(name) {
                    Some(first) => dups.push((name.clone(), *first)),
                    None => {
                        bound.insert(name.clone(), *span);
                    }
                }
            }
            if dups.is_empty() {
                continue;
            }
            let names: Vec<&str> = dups.iter().map(|(n, _)| n.as_str()).collect();
            let mut f = Finding::new(
                &rules::tekton::TRIGGER_DUPLICATE_PARAM,
                site,
                format!(
                    "param {} given by more than one binding of this trigger",
                    names.join(", ")
                ),
            )
            .with_path(bpath)
            .with_help("Triggers fails every event of this trigger: duplicate param name");
            for (name, first) in dups {
                f = f.with_related(first, format!("{name} first bound here"));
            }
            self.out.push(f);
        }
        known.then_some(bound)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tt_params_match_upstreams_pattern() {
        assert_eq!(tt_param("tt.params.git-revision"), Some("git-revision"));
        assert_eq!(tt_param("tt.params.a.b_c"), Some("a.b_c"));
        assert_eq!(tt_param("tt.params.1x"), None);
        assert_eq!(tt_param("tt.params.x[0]"), None);
        assert_eq!(tt_param("params.x"), None);
    }

    #[test]
    fn nearer_directories_sort_first() {
        let from = Some(Path::new("/r/a/b"));
        let same = distance(from, Some(Path::new("/r/a/b")));
        let sibling = distance(from, Some(Path::new("/r/a/c")));
        let below = distance(from, Some(Path::new("/r/a/b/x")));
        let far = distance(from, Some(Path::new("/r/z")));
        assert_eq!(same, (0, 0));
        assert!(same < below && below < sibling && sibling < far);
    }
}
