//! The Tasks, Pipelines and StepActions of a workspace by kind and name,
//! with what an editor shows of each (description, params, results,
//! workspaces and where each is declared), read from the files on disk
//! once per workspace and kept in the memo. The open document's own
//! resources come from its buffer and stand in for its file on disk.

use super::super::ctx::Ctx;
use super::super::model::{Ty, catalog_package, named, nearness, repositories};
use crate::config::Config;
use crate::navigate::{of_documents, read_small, workspace_yaml_files};
use crate::source::{FileId, SourceFile, Sources};
use crate::yaml::Node;
use crate::yaml::node::{child, text};
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The memo key of the workspace index.
pub(super) const MEMO_KEY: &str = "tekton-navigate-index";

/// One declared param, result or workspace.
#[derive(Debug, Clone)]
pub(super) struct Entry {
    pub name: String,
    pub ty: Ty,
    /// Object properties.
    pub keys: Vec<String>,
    /// The default, as JSON.
    pub default: Option<String>,
    pub description: Option<String>,
    /// The byte range of its `name` value in its file.
    pub start: usize,
    pub end: usize,
    /// 1-based line of the name.
    pub line: usize,
}

/// One Task, Pipeline or StepAction.
#[derive(Debug)]
pub(super) struct Resource {
    pub kind: String,
    pub name: String,
    pub path: Arc<PathBuf>,
    /// The byte range of its `metadata.name` value.
    pub start: usize,
    pub end: usize,
    pub line: usize,
    pub description: Option<String>,
    pub params: Vec<Entry>,
    pub results: Vec<Entry>,
    pub workspaces: Vec<Entry>,
    /// Its catalog package directory, from outside which it is not seen.
    package: Option<PathBuf>,
    /// Its git repository (None: the workspace's tree).
    repo: Option<PathBuf>,
}

impl Resource {
    /// Params and results by name and type: two equally near resources that
    /// agree on it give the same answers.
    fn interface(&self) -> Vec<(u8, &str, Ty)> {
        let mut out: Vec<(u8, &str, Ty)> = self
            .params
            .iter()
            .map(|e| (0, e.name.as_str(), e.ty))
            .chain(self.results.iter().map(|e| (1, e.name.as_str(), e.ty)))
            .collect();
        out.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
        out
    }
}

/// The resources of a workspace, by (kind, name).
#[derive(Debug, Default)]
pub(super) struct Index {
    list: Vec<Resource>,
    by_name: HashMap<(String, String), Vec<usize>>,
}

impl Index {
    /// Read every YAML file below `root` (as a lint of it reads them) that
    /// may declare a Task, Pipeline or StepAction.
    pub(super) fn build(root: &Path, config: Option<&Config>) -> Index {
        let files = workspace_yaml_files(root, config);
        let repos = repositories(files.iter().map(|p| (p.clone(), p.as_path())));
        let mut list: Vec<Resource> = files
            .par_iter()
            .flat_map_iter(|path| {
                let text = read_small(path);
                let repo = repos.get(path).cloned().flatten();
                resources_of(&text, &Arc::new(path.clone()), repo)
            })
            .collect();
        list.sort_by(|a, b| a.path.cmp(&b.path).then(a.start.cmp(&b.start)));
        let mut by_name: HashMap<(String, String), Vec<usize>> = HashMap::new();
        for (i, r) in list.iter().enumerate() {
            by_name
                .entry((r.kind.clone(), r.name.clone()))
                .or_default()
                .push(i);
        }
        Index { list, by_name }
    }

    /// The resources of `kind` named `name`.
    fn named(&self, kind: &str, name: &str) -> impl Iterator<Item = &Resource> {
        self.by_name
            .get(&(kind.to_string(), name.to_string()))
            .into_iter()
            .flatten()
            .map(|&i| &self.list[i])
    }
}

/// The workspace index with the open document's resources laid over it.
pub(super) struct Overlay {
    pub index: Arc<Index>,
    /// The document's own resources.
    pub own: Vec<Resource>,
    pub path: PathBuf,
    repo: Option<PathBuf>,
}

impl Overlay {
    pub(super) fn new(index: Arc<Index>, mut own: Vec<Resource>, path: &Path) -> Overlay {
        let repo = repositories([(0, path)]).remove(&0).flatten();
        for r in &mut own {
            r.repo.clone_from(&repo);
        }
        Overlay {
            index,
            own,
            path: path.to_path_buf(),
            repo,
        }
    }

    /// Every resource of `kind` named `name` a plain reference from the
    /// document may mean: the nearest visible ones (as the check resolves).
    pub(super) fn candidates(&self, kind: &str, name: &str) -> Vec<&Resource> {
        let from = self.path.as_path();
        if from.parent().is_none() {
            return Vec::new();
        }
        let visible: Vec<&Resource> = self
            .index
            .named(kind, name)
            .filter(|r| r.path.as_path() != from)
            .chain(self.own.iter().filter(|r| r.kind == kind && r.name == name))
            .filter(|r| r.package.as_deref().is_none_or(|p| from.starts_with(p)))
            .filter(|r| r.repo == self.repo)
            .collect();
        let near = |r: &Resource| nearness(Some(r.path.as_path()), from);
        let Some(best) = visible.iter().map(|r| near(r)).max() else {
            return Vec::new();
        };
        visible.into_iter().filter(|r| near(r) == best).collect()
    }

    /// The one resource a plain reference means, None when unknown or when
    /// equally near candidates differ.
    pub(super) fn resolve(&self, kind: &str, name: &str) -> Option<&Resource> {
        let all = self.candidates(kind, name);
        let first = *all.first()?;
        let interface = first.interface();
        all.iter()
            .all(|r| r.interface() == interface)
            .then_some(first)
    }
}

/// The Tasks, Pipelines and StepActions of one file's text.
fn resources_of(text: &str, path: &Arc<PathBuf>, repo: Option<PathBuf>) -> Vec<Resource> {
    if !text.contains("tekton.dev/") {
        return Vec::new();
    }
    of_documents(text, |docs, lines| resources_in(docs, lines, path, repo))
}

/// The Tasks, Pipelines and StepActions among parsed documents `docs` of
/// the file `lines` at `path`.
pub(super) fn resources_in(
    docs: &[&Node],
    lines: &SourceFile,
    path: &Arc<PathBuf>,
    repo: Option<PathBuf>,
) -> Vec<Resource> {
    docs.iter()
        .filter_map(|d| resource(d, lines, path, repo.clone()))
        .collect()
}

/// The resource document `doc` declares, if it is one.
fn resource(
    doc: &Node,
    lines: &SourceFile,
    path: &Arc<PathBuf>,
    repo: Option<PathBuf>,
) -> Option<Resource> {
    let kind = text(doc, "kind")?;
    let api = text(doc, "apiVersion")?;
    let known = match kind {
        "Task" | "Pipeline" => matches!(api, "tekton.dev/v1" | "tekton.dev/v1beta1"),
        "StepAction" => matches!(api, "tekton.dev/v1alpha1" | "tekton.dev/v1beta1"),
        _ => false,
    };
    if !known {
        return None;
    }
    let name_item = child(doc, "metadata").and_then(|m| crate::yaml::node::item(m, "name"))?;
    let name = name_item.value.as_scalar()?.text.clone();
    let spec = child(doc, "spec");
    let span = name_item.value.span;
    let summary = spec.map(|s| Summary::of(s, lines)).unwrap_or_default();
    Some(Resource {
        kind: kind.to_string(),
        package: catalog_package(path, &name).map(Path::to_path_buf),
        name,
        path: Arc::clone(path),
        start: span.start as usize,
        end: span.end as usize,
        line: lines.line_col(span.start as usize).line,
        description: summary.description,
        params: summary.params,
        results: summary.results,
        workspaces: summary.workspaces,
        repo,
    })
}

/// What a Task or Pipeline spec (or an embedded one) declares.
#[derive(Debug, Default, Clone)]
pub(super) struct Summary {
    pub description: Option<String>,
    pub params: Vec<Entry>,
    pub results: Vec<Entry>,
    pub workspaces: Vec<Entry>,
}

impl Summary {
    /// Read with the check's own declaration rules (types, properties),
    /// without its findings.
    pub(super) fn of(spec: &Node, lines: &SourceFile) -> Summary {
        let quiet = Sources::new();
        let mut ctx = Ctx::new(&quiet, FileId(0));
        let decls = ctx.param_decls(child(spec, "params"), "params");
        let results = ctx.result_decls(child(spec, "results"), "results");
        let entries = |section: &str| {
            let mut seen = std::collections::HashSet::new();
            named(child(spec, section))
                .into_iter()
                .filter(|(_, _, _, name)| seen.insert(name.clone()))
                .map(|(_, entry, name_it, name)| {
                    let span = name_it.value.span;
                    Entry {
                        name,
                        ty: Ty::Str,
                        keys: Vec::new(),
                        default: None,
                        description: text(entry, "description").map(str::to_string),
                        start: span.start as usize,
                        end: span.end as usize,
                        line: lines.line_col(span.start as usize).line,
                    }
                })
                .collect::<Vec<Entry>>()
        };
        let mut params = entries("params");
        for e in &mut params {
            if let Some(d) = decls.iter().find(|d| d.name == e.name) {
                e.ty = d.ty;
                e.keys = d.keys.clone();
                e.default = d
                    .default
                    .as_ref()
                    .map(|v| crate::yaml::emit::to_json(v).to_string());
            }
        }
        let mut result_entries = entries("results");
        for e in &mut result_entries {
            if let Some(r) = results.get(&e.name) {
                e.ty = r.ty;
                e.keys = r.keys.clone().unwrap_or_default();
            }
        }
        Summary {
            description: text(spec, "description").map(str::to_string),
            params,
            results: result_entries,
            workspaces: entries("workspaces"),
        }
    }
}
