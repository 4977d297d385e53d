//! What the Tekton checks share: param and result types, scopes, callee
//! declarations, and the documents of a unit with the rule by which a
//! `taskRef`/`pipelineRef` resolves to one of them (spec § 2.1).

use super::lighthouse::{Fills, INJECTED, fills};
use super::syntax::{PRef, exprs, parse_param_ref};
use crate::source::FileId;
use crate::yaml::node::{child, item, text};
use crate::yaml::{MapItem, Node, ScalarStyle, ScalarValue, Value};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ty {
    Str,
    Arr,
    Obj,
    Unknown,
}

impl Ty {
    pub(super) fn name(self) -> &'static str {
        match self {
            Ty::Str => "string",
            Ty::Arr => "array",
            Ty::Obj => "object",
            Ty::Unknown => "unknown",
        }
    }
}

/// What a scope knows of a param, or a results list of a result.
#[derive(Debug, Clone)]
pub(super) struct Param {
    pub ty: Ty,
    /// Object keys, when known.
    pub keys: Option<Vec<String>>,
}

/// Params (or results) by name.
pub(super) type Scope = HashMap<String, Param>;

/// A callee param declaration.
#[derive(Debug, Clone)]
pub(super) struct Decl {
    pub name: String,
    pub ty: Ty,
    pub keys: Vec<String>,
    pub default: Option<Node>,
    pub enums: Option<Vec<String>>,
}

/// What `$(tasks.T.results…)` can know about pipeline task T.
#[derive(Debug, Clone)]
pub(super) struct PipelineTask {
    /// Its declared results, when its spec is known.
    pub results: Option<Scope>,
    /// It has a `matrix`: each result is consumed as an array of the
    /// per-run values (spec § 7.2).
    pub matrix: bool,
}

/// Pipeline tasks by name.
pub(super) type Tasks = HashMap<String, PipelineTask>;

/// Where a string is substituted (spec § 6.3), which decides where a whole
/// array or object may stand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Cx {
    /// Part of a string: no whole array or object.
    Str,
    /// An item of `args`, `command`, `when[].values`, an array value: an
    /// isolated whole array.
    Elem,
    /// The scalar value of a binding: an isolated whole array or object.
    Bind,
    /// The scalar value of a Step's StepAction param: an isolated whole
    /// array or object, written with or without `[*]` (upstream substitutes
    /// the exact `$(params.a)` there with the value itself, spec § 10).
    StepBind,
}

/// The items of a sequence node (none for anything else).
pub(super) fn items(n: Option<&Node>) -> Vec<&Node> {
    match n.map(|n| &n.value) {
        Some(Value::Array(a)) => a.iter().map(|i| &i.value).collect(),
        _ => Vec::new(),
    }
}

/// The entries of a params or results list that have a `name` key:
/// (position, entry, its `name` item, the name).
pub(super) fn named(list: Option<&Node>) -> Vec<(usize, &Node, &MapItem, String)> {
    let mut out = Vec::new();
    for (i, entry) in items(list).into_iter().enumerate() {
        if let Some(name_it) = item(entry, "name") {
            let name = name_it
                .value
                .as_scalar()
                .map_or_else(String::new, |s| s.text.clone());
            out.push((i, entry, name_it, name));
        }
    }
    out
}

/// The type of a YAML value as a param value (spec § 4.4).
pub(super) fn value_ty(n: &Node) -> Ty {
    match &n.value {
        Value::Array(_) => Ty::Arr,
        Value::Map(_) => Ty::Obj,
        Value::Scalar(_) => Ty::Str,
    }
}

/// A quoted scalar, or a plain one that the core schema reads as a string.
pub(super) fn is_string_scalar(n: &Node) -> bool {
    match &n.value {
        Value::Scalar(s) => {
            s.style != ScalarStyle::Plain
                || s.tag.as_deref() == Some("!!str")
                || matches!(s.resolved, ScalarValue::Str(_))
        }
        _ => false,
    }
}

pub(super) fn map_keys(n: &Node) -> Vec<String> {
    match &n.value {
        Value::Map(items) => items.iter().map(|i| i.key.text.clone()).collect(),
        _ => Vec::new(),
    }
}

/// The strings of a binding or result value with the context each is
/// substituted in: a scalar as a whole, the items of a sequence, the member
/// values of a mapping.
pub(super) fn value_strings<'n>(v: &'n Node, path: &str) -> Vec<(&'n Node, String, Cx)> {
    match &v.value {
        Value::Scalar(_) => vec![(v, path.to_string(), Cx::Bind)],
        Value::Array(a) => a
            .iter()
            .enumerate()
            .map(|(k, it)| (&it.value, format!("{path}[{k}]"), Cx::Elem))
            .collect(),
        Value::Map(m) => m
            .iter()
            .map(|it| (&it.value, format!("{path}.{}", it.key.text), Cx::Str))
            .collect(),
    }
}

/// A Tekton document of the unit.
pub(super) struct Doc<'a> {
    pub file: FileId,
    pub kind: &'a str,
    pub node: &'a Node,
}

/// The Tekton documents of a unit, indexed for resolving references.
pub(super) struct Docs<'a> {
    pub list: Vec<Doc<'a>>,
    paths: HashMap<FileId, &'a Path>,
    /// The catalog package directory of each document of `list`, if any.
    packages: Vec<Option<&'a Path>>,
    /// (kind, metadata.name) → indices into `list`.
    by_name: HashMap<(&'a str, &'a str), Vec<usize>>,
    /// File → indices into `list` of its documents, for `resolver: git`.
    by_path: HashMap<&'a Path, Vec<usize>>,
    /// The linted root: the repository root where no `.git` is found.
    root: &'a Path,
    /// The git repository of each file (see [`repositories`]).
    repos: HashMap<FileId, Option<PathBuf>>,
    /// Task index → the param names each call site that resolves to it
    /// binds (pipeline tasks with their matrix, TaskRuns).
    callers: HashMap<usize, Vec<HashSet<String>>>,
    /// What `.git/config` is read through.
    files: &'a crate::source::Files,
}

impl<'a> Docs<'a> {
    /// `list` in the unit's order; `paths` names each file on disk; `root`
    /// is the directory the unit was linted from; `files` what files are
    /// read through.
    pub fn new(
        list: Vec<Doc<'a>>,
        paths: HashMap<FileId, &'a Path>,
        root: &'a Path,
        files: &'a crate::source::Files,
    ) -> Docs<'a> {
        let mut by_name: HashMap<(&str, &str), Vec<usize>> = HashMap::new();
        let mut by_path: HashMap<&Path, Vec<usize>> = HashMap::new();
        let mut packages = Vec::with_capacity(list.len());
        for (i, d) in list.iter().enumerate() {
            let name = child(d.node, "metadata").and_then(|m| text(m, "name"));
            let path = paths.get(&d.file).copied();
            packages.push(name.zip(path).and_then(|(n, p)| catalog_package(p, n)));
            if let Some(name) = name {
                by_name.entry((d.kind, name)).or_default().push(i);
            }
            if let Some(path) = path {
                by_path.entry(path).or_default().push(i);
            }
        }
        let repos = repositories(paths.iter().map(|(id, p)| (*id, *p)));
        Docs {
            list,
            paths,
            packages,
            by_name,
            by_path,
            root,
            repos,
            callers: HashMap::new(),
            files,
        }
        .with_callers()
    }

    /// Index who calls each Task: every `taskRef` of a pipeline task (in a
    /// Pipeline or a PipelineRun's inline `pipelineSpec`) or a TaskRun that
    /// resolves.
    fn with_callers(mut self) -> Self {
        let mut callers: HashMap<usize, Vec<HashSet<String>>> = HashMap::new();
        for d in &self.list {
            let Some(spec) = child(d.node, "spec") else {
                continue;
            };
            let pipeline = match d.kind {
                "Pipeline" => Some(spec),
                "PipelineRun" => child(spec, "pipelineSpec"),
                _ => None,
            };
            // Lighthouse binds its params to the pipeline tasks of a run's
            // inline pipelineSpec too.
            let injected = match fills(d.node, self.paths.get(&d.file).copied()) {
                Some(Fills { tasks: true }) => &INJECTED[..],
                _ => &[],
            };
            if let Some(p) = pipeline {
                for sect in ["tasks", "finally"] {
                    for t in items(child(p, sect)) {
                        let Some(r) = child(t, "taskRef") else {
                            continue;
                        };
                        if let Some(target) = self.resolve_index(r, "Task", d.file) {
                            let mut names = names_of(child(t, "params"));
                            names.extend(injected.iter().map(|n| n.to_string()));
                            if let Some(m) = child(t, "matrix") {
                                names.extend(names_of(child(m, "params")));
                                for inc in items(child(m, "include")) {
                                    names.extend(names_of(child(inc, "params")));
                                }
                            }
                            callers.entry(target).or_default().push(names);
                        }
                    }
                }
            }
            if d.kind == "TaskRun"
                && let Some(r) = child(spec, "taskRef")
                && let Some(target) = self.resolve_index(r, "Task", d.file)
            {
                let names = names_of(child(spec, "params"));
                callers.entry(target).or_default().push(names);
            }
        }
        self.callers = callers;
        self
    }

    /// The file `file` on disk, when known.
    pub fn path(&self, file: FileId) -> Option<&'a Path> {
        self.paths.get(&file).copied()
    }

    /// What each call site in view that resolves to document `index` binds.
    pub fn callers(&self, index: usize) -> Vec<HashSet<String>> {
        self.callers.get(&index).cloned().unwrap_or_default()
    }

    /// The document `r` (a `taskRef` or `pipelineRef` in file `from`) names
    /// (spec § 2.1), or None when the files do not say which one is meant
    /// (it may live in the cluster, in another repository, or be one of
    /// several equally near candidates that differ).
    pub fn resolve(&self, r: &Node, kind: &str, from: FileId) -> Option<&Doc<'a>> {
        self.resolve_index(r, kind, from).map(|i| &self.list[i])
    }

    /// [`Docs::resolve`], as an index into `list`.
    pub fn resolve_index(&self, r: &Node, kind: &str, from: FileId) -> Option<usize> {
        // A reference with a key Tekton does not know (Konflux pipelines
        // write `taskRef: {name: x, version: "0.3"}`, which their build
        // turns into a bundle reference) is rewritten before it reaches a
        // cluster: which Task it runs is unknown.
        const KNOWN: [&str; 6] = ["name", "kind", "apiVersion", "bundle", "resolver", "params"];
        if let Value::Map(m) = &r.value
            && m.iter().any(|it| !KNOWN.contains(&it.key.text.as_str()))
        {
            return None;
        }
        if child(r, "bundle").is_some()
            || child(r, "apiVersion").is_some()
            || text(r, "kind").is_some_and(|k| k != kind)
        {
            return None;
        }
        let from_id = from;
        let from = self.paths.get(&from).copied()?;
        if let Some(resolver) = child(r, "resolver") {
            return match resolver.as_scalar().map(|s| s.text.as_str()) {
                Some("git") => self.resolve_git(r, kind, from),
                _ => None,
            };
        }
        let name = text(r, "name")?;
        // A reference from a path with no directory resolves nowhere.
        from.parent()?;
        // A versioned catalog resource is seen only from its own package,
        // a resource of another git repository never.
        let repo = self.repos.get(&from_id);
        let visible: Vec<usize> = self
            .by_name
            .get(&(kind, name))?
            .iter()
            .copied()
            .filter(|&i| self.packages[i].is_none_or(|p| from.starts_with(p)))
            .filter(|&i| self.repos.get(&self.list[i].file) == repo)
            .collect();
        let nearness = |i: usize| nearness(self.paths.get(&self.list[i].file).copied(), from);
        let best = visible.iter().map(|&i| nearness(i)).max()?;
        let nearest: Vec<usize> = visible
            .into_iter()
            .filter(|&i| nearness(i) == best)
            .collect();
        let first = *nearest.first()?;
        let signature = interface(self.list[first].node);
        nearest
            .iter()
            .all(|&i| interface(self.list[i].node) == signature)
            .then_some(first)
    }

    /// A `resolver: git` ref whose `pathInRepo` names a file of the
    /// repository `from` is in, and no `url`/`repo` names another one: the
    /// one document of `kind` in that file.
    fn resolve_git(&self, r: &Node, kind: &str, from: &Path) -> Option<usize> {
        let mut path_in_repo = None;
        // What `$(params.x)` in a resolver param stands for, read once.
        let mut given: Option<HashMap<String, String>> = None;
        for p in items(child(r, "params")) {
            let (Some(name), Some(value)) = (text(p, "name"), text(p, "value")) else {
                // A value that is not a plain string says nothing certain.
                if text(p, "name").is_some_and(|n| matches!(n, "pathInRepo" | "url" | "repo")) {
                    return None;
                }
                continue;
            };
            let value = if value.contains("$(") {
                let given = given.get_or_insert_with(|| self.resolver_param_values(r, from));
                substitute_params(value, given)
            } else {
                Some(value.to_string())
            };
            // Pipelines-as-Code fills in the URL of the repository whose
            // event runs the file: this one.
            if matches!(name, "url" | "repo")
                && is_own_url_placeholder(value.as_deref())
                && self.pac_template(from)
            {
                continue;
            }
            let Some(value) = value.filter(|v| !v.contains("{{")) else {
                if matches!(name, "pathInRepo" | "url" | "repo" | "org") {
                    return None;
                }
                continue;
            };
            match name {
                "pathInRepo" => path_in_repo = Some(value),
                "url" | "repo" if !names_repository(&value, self.repo_root(from)?, self.files) => {
                    return None;
                }
                _ => {}
            }
        }
        let path_in_repo = path_in_repo?;
        let rel = Path::new(path_in_repo.trim_start_matches("./"));
        if rel.is_absolute()
            || rel
                .components()
                .any(|c| !matches!(c, std::path::Component::Normal(_)))
        {
            return None;
        }
        let target = self.repo_root(from)?.join(rel);
        let mut of_kind = self
            .by_path
            .get(target.as_path())?
            .iter()
            .copied()
            .filter(|&i| self.list[i].kind == kind);
        let first = of_kind.next()?;
        of_kind.next().is_none().then_some(first)
    }

    /// What `$(params.x)` means in the resolver params of `r`, a ref in
    /// file `from`: [`resolver_values`] of the document holding it.
    fn resolver_param_values(&self, r: &Node, from: &Path) -> HashMap<String, String> {
        let within = |d: &&Doc| d.node.span.start <= r.span.start && r.span.end <= d.node.span.end;
        let docs = self.by_path.get(from).into_iter().flatten();
        docs.map(|&i| &self.list[i])
            .find(within)
            .map_or_else(HashMap::new, |d| resolver_values(d.node))
    }

    /// Whether Pipelines-as-Code reads `file` as a template: it is under a
    /// `.tekton` folder, or a document of it has PaC annotations.
    fn pac_template(&self, file: &Path) -> bool {
        let annotated = |i: &usize| {
            let annotations =
                child(self.list[*i].node, "metadata").and_then(|m| child(m, "annotations"));
            match annotations.map(|a| &a.value) {
                Some(Value::Map(m)) => m
                    .iter()
                    .any(|it| it.key.text.starts_with("pipelinesascode.tekton.dev/")),
                _ => false,
            }
        };
        crate::discover::pac_text::reads(file, "")
            || self
                .by_path
                .get(file)
                .is_some_and(|docs| docs.iter().any(annotated))
    }

    /// The repository `file` belongs to: the nearest ancestor holding
    /// `.git`, else the linted root (None for a file outside it).
    fn repo_root<'p>(&'p self, file: &'p Path) -> Option<&'p Path> {
        file.ancestors()
            .skip(1)
            .find(|dir| dir.join(".git").exists())
            .or_else(|| file.starts_with(self.root).then_some(self.root))
    }
}

/// What `$(params.x)` stands for in the resolver params of the refs in
/// document `doc` (spec § 2.1): the string value the run binds to `x`,
/// else the string default its Pipeline (or inline `pipelineSpec`)
/// declares. Tekton substitutes these before it asks the resolver.
pub(super) fn resolver_values(doc: &Node) -> HashMap<String, String> {
    let mut out = HashMap::new();
    let Some(spec) = child(doc, "spec") else {
        return out;
    };
    let kind = text(doc, "kind").unwrap_or("");
    let pipeline = match kind {
        "Pipeline" => Some(spec),
        "PipelineRun" => child(spec, "pipelineSpec"),
        _ => None,
    };
    for p in items(pipeline.and_then(|p| child(p, "params"))) {
        if let (Some(name), Some(default)) = (text(p, "name"), text(p, "default")) {
            out.insert(name.to_string(), default.to_string());
        }
    }
    if matches!(kind, "PipelineRun" | "TaskRun") {
        for b in items(child(spec, "params")) {
            if let (Some(name), Some(value)) = (text(b, "name"), text(b, "value")) {
                out.insert(name.to_string(), value.to_string());
            }
        }
    }
    out
}

/// `{{ repo_url }}` or `{{ source_url }}`: the repository PaC runs the
/// template for (a fork's URL on a pull request from it, same content).
fn is_own_url_placeholder(value: Option<&str>) -> bool {
    value.is_some_and(|v| {
        v.strip_prefix("{{")
            .and_then(|v| v.strip_suffix("}}"))
            .is_some_and(|inner| matches!(inner.trim(), "repo_url" | "source_url"))
    })
}

/// `value` with each `$(params.x)` whose string `given` has replaced by
/// it; None when an expression is left (its value is not known here).
pub(super) fn substitute_params(value: &str, given: &HashMap<String, String>) -> Option<String> {
    let mut out = String::new();
    let mut rest = 0;
    for (off, body) in exprs(value) {
        if off < rest {
            continue;
        }
        let Some(PRef::Ok {
            name,
            key: None,
            star: false,
            index: false,
        }) = parse_param_ref(body)
        else {
            return None;
        };
        let v = given.get(&name)?;
        out.push_str(&value[rest..off]);
        out.push_str(v);
        rest = off + body.len() + 3;
    }
    out.push_str(&value[rest..]);
    (!out.contains("$(")).then_some(out)
}

/// The git repository each file belongs to: the nearest ancestor
/// directory holding `.git`, or None for a file in no repository (all
/// such files are one tree, the one linted). A reference never resolves
/// to a resource of another repository: a workspace of checkouts linted
/// as one tree gives what each checkout gives alone.
pub(super) fn repositories<'p, K: Eq + std::hash::Hash>(
    files: impl IntoIterator<Item = (K, &'p Path)>,
) -> HashMap<K, Option<PathBuf>> {
    // Directories already asked: a tree of many files stats each once.
    let mut known: HashMap<PathBuf, Option<PathBuf>> = HashMap::new();
    let mut out = HashMap::new();
    for (id, file) in files {
        let mut asked = Vec::new();
        let mut found = None;
        for dir in file.ancestors().skip(1) {
            if let Some(root) = known.get(dir) {
                found = root.clone();
                break;
            }
            asked.push(dir.to_path_buf());
            if dir.join(".git").exists() {
                found = Some(dir.to_path_buf());
                break;
            }
        }
        for dir in asked {
            known.insert(dir, found.clone());
        }
        out.insert(id, found);
    }
    out
}

/// Whether a git resolver's `url` or `repo` value names the repository
/// rooted at `root`: it ends in the root directory's name, or in the name of
/// a remote its `.git/config` lists (a checkout may sit in a directory of
/// another name), with or without `.git`.
fn names_repository(value: &str, root: &Path, files: &crate::source::Files) -> bool {
    let wanted = repository_name(value);
    if root.file_name().and_then(|n| n.to_str()) == Some(wanted) {
        return true;
    }
    // A worktree's `.git` is a file; only a directory holds the config.
    let Ok(Ok(config)) = files
        .read(&root.join(".git").join("config"))
        .map(String::from_utf8)
    else {
        return false;
    };
    config
        .lines()
        .filter_map(|l| l.trim().strip_prefix("url"))
        .filter_map(|rest| rest.trim_start().strip_prefix('='))
        .any(|remote| repository_name(remote.trim()) == wanted)
}

/// The last path segment of a repository URL or name, without `.git`.
fn repository_name(value: &str) -> &str {
    let trimmed = value.trim_end_matches('/');
    let trimmed = trimmed.strip_suffix(".git").unwrap_or(trimmed);
    trimmed.rsplit(['/', ':']).next().unwrap_or(trimmed)
}

/// The names a params list binds.
pub(super) fn names_of(list: Option<&Node>) -> HashSet<String> {
    items(list)
        .into_iter()
        .filter_map(|b| text(b, "name").map(str::to_string))
        .collect()
}

/// How near a candidate in file `there` is to a reference in file `from`,
/// greater is nearer: the referring file itself first (applied together,
/// its own Task is the one meant), then the directory sharing the most.
/// Resolution and grouping (`links`) must agree on it.
pub(super) fn nearness(there: Option<&Path>, from: &Path) -> (bool, usize) {
    let shared = there
        .and_then(Path::parent)
        .zip(from.parent())
        .map_or(0, |(a, b)| common_components(a, b));
    (there == Some(from), shared)
}

/// How many leading path components `a` and `b` share.
fn common_components(a: &Path, b: &Path) -> usize {
    a.components()
        .zip(b.components())
        .take_while(|(x, y)| x == y)
        .count()
}

/// A Task's or Pipeline's interface as callers see it: its params and
/// results by name and declared type, its workspaces by name and whether
/// optional, sorted. Two equally near candidates
/// with the same interface give the same findings, so either may be used.
fn interface(doc: &Node) -> Vec<(String, String, String)> {
    let spec = child(doc, "spec");
    let mut out = Vec::new();
    for section in ["params", "results", "workspaces"] {
        for entry in items(spec.and_then(|s| child(s, section))) {
            let name = text(entry, "name").unwrap_or("").to_string();
            let ty = match (section, child(entry, "type")) {
                ("workspaces", _) => text(entry, "optional").unwrap_or("false").to_string(),
                (_, Some(t)) => t.as_scalar().map_or_else(String::new, |s| s.text.clone()),
                (_, None) => child(entry, "default")
                    .map_or("string", |d| value_ty(d).name())
                    .to_string(),
            };
            out.push((section.to_string(), name, ty));
        }
    }
    out.sort();
    out
}

/// The package directory of a resource laid out as a versioned catalog
/// package, `<name>/<version>/<file>` with `<name>` its `metadata.name` and
/// `<version>` a version number (the layout of tektoncd/catalog and Tekton
/// Hub, TEP-0003). Such a resource is one of several published versions; a
/// reference by plain name from outside its package does not say which
/// version is installed beside the referrer (the catalog pins that in
/// install instructions, not in YAML), so it is followed only from files
/// inside the package (its samples and tests).
pub(super) fn catalog_package<'p>(path: &'p Path, name: &str) -> Option<&'p Path> {
    let version_dir = path.parent()?;
    let version = version_dir.file_name()?.to_str()?;
    let is_version = version
        .split('.')
        .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()));
    let named = version_dir.parent()?.file_name()?.to_str()? == name;
    (is_version && named).then_some(version_dir)
}

/// Names of one family rather than a typo of each other: they differ only
/// in a trailing number (`image1`, `image2`) or in one short segment
/// (`pl-param-x`, `pl-param-z`), as deliberately distinct params do.
pub(super) fn siblings(a: &str, b: &str) -> bool {
    let stem = |s: &str| s.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    if a[..stem(a)] == b[..stem(b)] && stem(a) < a.len() && stem(b) < b.len() {
        return true;
    }
    let segments = |s: &str| {
        s.split(['-', '_', '.'])
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let (sa, sb) = (segments(a), segments(b));
    if sa.len() != sb.len() || sa.len() < 2 {
        return false;
    }
    let differing: Vec<(&String, &String)> = sa.iter().zip(&sb).filter(|(x, y)| x != y).collect();
    matches!(differing[..], [(x, y)] if x.len() <= 2 && y.len() <= 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_packages_are_versioned_directories_named_after_the_resource() {
        let p = Path::new("/c/task/git-clone/0.9/git-clone.yaml");
        assert_eq!(
            catalog_package(p, "git-clone"),
            Some(Path::new("/c/task/git-clone/0.9"))
        );
        assert_eq!(catalog_package(p, "other"), None);
        let plain = Path::new("/repo/tekton/tasks/git-clone.yaml");
        assert_eq!(catalog_package(plain, "git-clone"), None);
        let not_version = Path::new("/c/task/git-clone/v0.x/git-clone.yaml");
        assert_eq!(catalog_package(not_version, "git-clone"), None);
    }

    #[test]
    fn numbered_and_lettered_params_are_siblings_not_typos() {
        assert!(siblings("pl-param-z", "pl-param-x"));
        assert!(siblings("image2", "image1"));
        assert!(!siblings("EXTRA_ARG", "EXTRA_ARGS"));
        assert!(!siblings("uri", "url"));
        assert!(!siblings("revison", "revision"));
    }
}
