//! What ties Tekton files together, read from each file once and kept as
//! names, not trees: the Tasks and Pipelines a file declares and the
//! references it makes. [`components`] groups the files a check must see
//! together; checking each group alone gives exactly the findings of
//! checking all files at once (`tests/cli/components.rs`), because a group holds
//! every file a reference of its files could resolve to.

use super::model::{
    catalog_package, items, nearness, repositories, resolver_values, substitute_params,
};
use super::pac;
use super::triggers;
use crate::check::union_find::Components;
use crate::yaml::node::{child, text};
use crate::yaml::{DocumentSet, Node, Value};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Component, Path};

/// The links of one file.
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FileLinks {
    /// `(kind, metadata.name)` of each Task and Pipeline it declares.
    declares: Vec<(String, String)>,
    /// The names its `taskRef`s and `pipelineRef`s give, anywhere in it
    /// (runs a TriggerTemplate creates included).
    names: Vec<String>,
    /// The `pathInRepo` values of its `resolver: git` references.
    git_paths: Vec<String>,
    /// It holds Triggers resources, which find each other by name and
    /// namespace: all such files are checked together.
    triggers: bool,
    /// It holds a Pipelines-as-Code Repository, whose params the `{{ }}`
    /// placeholders of templates name.
    pac_repository: bool,
    /// It holds a `{{` in some value: it may be a PaC template.
    placeholders: bool,
}

/// The kinds a `taskRef` or `pipelineRef` resolves to.
const KINDS: [&str; 2] = ["Task", "Pipeline"];

/// Read the links of a parsed file.
pub fn links(set: &DocumentSet) -> FileLinks {
    let mut out = FileLinks::default();
    for doc in &set.docs {
        let node = &doc.value;
        if triggers::kind(node).is_some() {
            out.triggers = true;
        }
        out.pac_repository |= pac::is_repository(node);
        let api = text(node, "apiVersion");
        if matches!(api, Some("tekton.dev/v1" | "tekton.dev/v1beta1"))
            && let Some(kind) = text(node, "kind")
            && let Some(kind) = KINDS.iter().find(|k| **k == kind)
            && let Some(name) = child(node, "metadata").and_then(|m| text(m, "name"))
        {
            out.declares.push((kind.to_string(), name.to_string()));
        }
        collect_refs(node, &resolver_values(node), &mut out, 0);
    }
    out
}

/// Every `taskRef`/`pipelineRef` below `node`. Reading more places than the
/// checks resolve only joins more files, never fewer.
fn collect_refs(node: &Node, given: &HashMap<String, String>, out: &mut FileLinks, depth: usize) {
    // The parser bounds nesting; this bound keeps the walk's stack small
    // whatever it allows.
    if depth > 256 {
        return;
    }
    match &node.value {
        Value::Map(entries) => {
            for entry in entries {
                if matches!(entry.key.text.as_str(), "taskRef" | "pipelineRef") {
                    let r = &entry.value;
                    if let Some(name) = text(r, "name") {
                        out.names.push(name.to_string());
                    }
                    for p in items(child(r, "params")) {
                        // A `$(params.x)` in it is what resolution takes it
                        // for (`Docs::resolve`).
                        if text(p, "name") == Some("pathInRepo")
                            && let Some(value) = text(p, "value")
                            && let Some(value) = substitute_params(value, given)
                        {
                            out.git_paths.push(value);
                        }
                    }
                }
                collect_refs(&entry.value, given, out, depth + 1);
            }
        }
        Value::Array(list) => {
            for entry in list {
                collect_refs(&entry.value, given, out, depth + 1);
            }
        }
        Value::Scalar(s) => out.placeholders |= s.text.contains("{{"),
    }
}

/// Groups of indices into `files` (paths with their links) that must be
/// checked together: a file with the nearest visible Tasks and Pipelines
/// of each name it references (as `Docs::resolve_index` chooses among
/// them: the resolved one, or all equally near when they differ), with the
/// files its git references may name, and Triggers files all together.
pub fn components(files: &[(&Path, FileLinks)]) -> Vec<Vec<usize>> {
    let repos = repositories_of(files.iter().map(|(p, _)| *p));
    components_in(files, &repos)
}

/// The git repository of each of `paths`, by index (see
/// [`components_in`]): it depends on the paths alone, so a caller that
/// groups the same files again and again (the language server, at each
/// change of a file's links) finds them once.
pub fn repositories_of<'p>(
    paths: impl IntoIterator<Item = &'p Path>,
) -> HashMap<usize, Option<std::path::PathBuf>> {
    repositories(paths.into_iter().enumerate())
}

/// [`components`], with the repository of each file found already
/// ([`repositories_of`] of the same files, in the same order).
pub fn components_in(
    files: &[(&Path, FileLinks)],
    repos: &HashMap<usize, Option<std::path::PathBuf>>,
) -> Vec<Vec<usize>> {
    let mut by_name: HashMap<(&str, &str), Vec<usize>> = HashMap::new();
    for (i, (_, links)) in files.iter().enumerate() {
        for (kind, name) in &links.declares {
            by_name
                .entry((kind.as_str(), name.as_str()))
                .or_default()
                .push(i);
        }
    }
    let mut groups = Components::new(files.len());
    let mut first_triggers = None;
    // With a PaC Repository in the unit, it and every file that may be a
    // template are checked together.
    let pac_repository = files.iter().position(|(_, l)| l.pac_repository);
    for (from, (path, links)) in files.iter().enumerate() {
        if links.triggers {
            match first_triggers {
                Some(first) => groups.join(first, from),
                None => first_triggers = Some(from),
            }
        }
        if let Some(repository) = pac_repository
            && (links.placeholders || links.pac_repository)
        {
            groups.join(repository, from);
        }
        if path.parent().is_none() {
            continue;
        }
        // Nearness is decided among the resources of one kind: each kind a
        // reference could mean is joined on its own.
        let wanted = links
            .names
            .iter()
            .flat_map(|name| KINDS.map(|kind| (kind, name.as_str())));
        for (kind, name) in wanted {
            let Some(candidates) = by_name.get(&(kind, name)) else {
                continue;
            };
            // Each candidate's nearness found once: a common name (a
            // catalog Task copied across a monorepo) has many.
            let visible: Vec<(usize, (bool, usize))> = candidates
                .iter()
                .copied()
                .filter(|&i| repos.get(&i) == repos.get(&from))
                .filter(|&i| catalog_package(files[i].0, name).is_none_or(|p| path.starts_with(p)))
                .map(|i| (i, nearness(Some(files[i].0), path)))
                .collect();
            let Some(best) = visible.iter().map(|&(_, near)| near).max() else {
                continue;
            };
            for &(i, near) in &visible {
                if near == best {
                    groups.join(from, i);
                }
            }
        }
        for wanted in &links.git_paths {
            let wanted = Path::new(wanted.trim_start_matches("./"));
            let parts: Vec<Component> = wanted.components().collect();
            if parts.is_empty() || parts.iter().any(|c| !matches!(c, Component::Normal(_))) {
                continue;
            }
            for (i, (other, _)) in files.iter().enumerate() {
                if other.ends_with(wanted) {
                    groups.join(from, i);
                }
            }
        }
    }
    groups.groups()
}
