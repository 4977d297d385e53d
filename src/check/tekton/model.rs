//! What the Tekton checks share: param and result types, scopes, callee
//! declarations, and the documents of a unit with the rule by which a
//! `taskRef`/`pipelineRef` resolves to one of them (spec § 2.1).

use crate::source::FileId;
use crate::yaml::node::{child, item, text};
use crate::yaml::{MapItem, Node, ScalarStyle, ScalarValue, Value};
use std::collections::HashMap;
use std::path::Path;

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
}

impl<'a> Docs<'a> {
    /// `list` in the unit's order; `paths` names each file on disk.
    pub fn new(list: Vec<Doc<'a>>, paths: HashMap<FileId, &'a Path>) -> Docs<'a> {
        let mut by_name: HashMap<(&str, &str), Vec<usize>> = HashMap::new();
        let mut packages = Vec::with_capacity(list.len());
        for (i, d) in list.iter().enumerate() {
            let name = child(d.node, "metadata").and_then(|m| text(m, "name"));
            let path = paths.get(&d.file);
            packages.push(name.zip(path).and_then(|(n, p)| catalog_package(p, n)));
            if let Some(name) = name {
                by_name.entry((d.kind, name)).or_default().push(i);
            }
        }
        Docs {
            list,
            paths,
            packages,
            by_name,
        }
    }

    /// The document `r` (a `taskRef` or `pipelineRef` in file `from`) names:
    /// only a plain reference by name (no resolver, bundle or custom kind),
    /// and only when exactly one document of that kind and name is visible
    /// from `from`. Otherwise the resource is unknown (it may live in the
    /// cluster, or the files do not say which one is meant).
    pub fn resolve(&self, r: &Node, kind: &str, from: FileId) -> Option<&Doc<'a>> {
        if child(r, "resolver").is_some()
            || child(r, "bundle").is_some()
            || child(r, "apiVersion").is_some()
            || text(r, "kind").is_some_and(|k| k != kind)
        {
            return None;
        }
        let name = text(r, "name")?;
        let from = self.paths.get(&from).copied();
        let mut visible =
            self.by_name.get(&(kind, name))?.iter().filter(|&&i| {
                self.packages[i].is_none_or(|p| from.is_some_and(|f| f.starts_with(p)))
            });
        let first = *visible.next()?;
        visible.next().is_none().then(|| &self.list[first])
    }
}

/// The package directory of a resource laid out as a versioned catalog
/// package, `<name>/<version>/<file>` with `<name>` its `metadata.name` and
/// `<version>` a version number (the layout of tektoncd/catalog and Tekton
/// Hub, TEP-0003). Such a resource is one of several published versions; a
/// reference by plain name from outside its package does not say which
/// version is installed beside the referrer (the catalog pins that in
/// install instructions, not in YAML), so it is followed only from files
/// inside the package (its samples and tests).
fn catalog_package<'p>(path: &'p Path, name: &str) -> Option<&'p Path> {
    let version_dir = path.parent()?;
    let version = version_dir.file_name()?.to_str()?;
    let is_version = version
        .split('.')
        .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()));
    let named = version_dir.parent()?.file_name()?.to_str()? == name;
    (is_version && named).then_some(version_dir)
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
}
