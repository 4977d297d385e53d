//! The package a document belongs to, and what its evaluation gives the
//! navigator: its files, its schema and its final data values.
//!
//! Which folder is a package is decided by discovery over the whole
//! workspace (a package's root depends on its neighbours), so the packages
//! are found once from the files on disk and kept in the workspace memo;
//! each version of a document then reads only its own package, the buffer
//! standing in for the document.

use super::super::schema::SchemaType;
use super::super::{YttSettings, check_package};
use crate::discover::{self, DiscoveredFile};
use crate::navigate::{Context, YTT_PACKAGES, YttPackages};
use crate::source::{Sources, Span, display_name};
use crate::yaml::Annotated;
use crate::yaml::{Node, ParseOptions};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long one package's evaluation may take: beyond that the navigator
/// answers with what it knows without the values.
const EVALUATION_LIMIT: Duration = Duration::from_secs(5);

/// Every ytt package of the workspace, found by discovering it whole.
fn packages_of_workspace(cx: &Context) -> YttPackages {
    // A fresh `Sources`: the open buffer must not be read into the memo.
    let sources = Sources::new();
    let options = discover::DiscoverOptions {
        workspace: true,
        ..cx.config
            .map(crate::config::Config::discover_options)
            .unwrap_or_default()
    };
    YttPackages::of(&discover::discover_with(
        &[cx.root.to_path_buf()],
        &sources,
        cx.root,
        &ParseOptions::default(),
        &options,
    ))
}

/// The document's package, evaluated.
pub(super) struct Package {
    pub root: PathBuf,
    /// The package's YAML files as read for this version of the document
    /// (the document's own id among them is not `cx.file`).
    pub files: Vec<DiscoveredFile>,
    /// The merged schema, when the package has one that builds.
    pub schema: Option<SchemaType>,
    /// The final data values, when they could be computed.
    pub values: Option<Node>,
}

impl Package {
    /// The file of the package at `path`.
    pub fn file(&self, path: &Path) -> Option<&DiscoveredFile> {
        self.files.iter().find(|f| f.path == path)
    }

    /// Whether `span` is in a schema document (a file may hold data
    /// values too).
    pub fn in_schema(&self, span: Span) -> bool {
        self.files
            .iter()
            .filter(|f| f.id == span.file && f.has_schema)
            .filter_map(|f| f.parsed.as_ref().ok())
            .any(|set| {
                // The document holding `span`: the last to start before it.
                set.docs
                    .iter()
                    .take_while(|doc| doc.span.start <= span.start)
                    .last()
                    .is_some_and(|doc| doc.has_annotation("data/values-schema"))
            })
    }
}

/// The folder below the innermost `_ytt_lib` below `package_root` that
/// holds `path`: the outermost folder the private library holding `path`
/// may be rooted at (`_ytt_lib/NAME`; see [`library_in`]).
fn library_root(path: &Path, package_root: &Path) -> Option<PathBuf> {
    let relative = path.strip_prefix(package_root).ok()?;
    let parts: Vec<_> = relative.components().collect();
    // The last `_ytt_lib` with a folder after it and the file after that.
    let at = (0..parts.len().saturating_sub(2))
        .rev()
        .find(|&i| parts[i].as_os_str() == "_ytt_lib")?;
    let mut root = package_root.to_path_buf();
    for part in &parts[..at + 2] {
        root.push(part);
    }
    Some(root)
}

/// The root of the private library holding `path` when `outer` is a
/// folder of `_ytt_lib`: a library is any folder there
/// (`library.get("packages/contour")`), so the deepest folder on the way
/// to `path` whose files hold a schema or data values.
fn library_in(outer: &Path, path: &Path, files: &[DiscoveredFile]) -> Option<PathBuf> {
    if !outer.parent()?.ends_with("_ytt_lib") {
        return None;
    }
    path.ancestors()
        .skip(1)
        .take_while(|dir| dir.starts_with(outer))
        .find(|dir| {
            files
                .iter()
                .any(|f| f.path.starts_with(dir) && (f.has_schema || f.has_values))
        })
        .map(Path::to_path_buf)
}

/// The workspace's packages, from the memo, found now if they are not.
pub(super) fn packages(cx: &Context) -> Option<std::sync::Arc<YttPackages>> {
    cx.memo
        .get_or_insert_with(YTT_PACKAGES, || packages_of_workspace(cx))
}

/// The package holding the document, read and evaluated; None when the
/// document is in no ytt package and is no ytt file itself.
pub(super) fn evaluate(cx: &Context, is_yaml: bool, is_ytt_yaml: bool) -> Option<Package> {
    let index = packages(cx)?;
    let (root, mut paths) = match index.holding(cx.path) {
        Some(package) => {
            let root = library_root(cx.path, &package.root).unwrap_or(package.root.clone());
            let paths: Vec<PathBuf> = package
                .yaml
                .iter()
                .filter(|p| p.starts_with(&root))
                .cloned()
                .collect();
            (root, paths)
        }
        // A file of no package on disk (new, or not ytt's until this edit):
        // a package of its own.
        None if is_ytt_yaml || !is_yaml => (cx.path.parent()?.to_path_buf(), Vec::new()),
        None => return None,
    };
    if is_ytt_yaml && !paths.iter().any(|p| p == cx.path) {
        paths.push(cx.path.to_path_buf());
        paths.sort_by_cached_key(|p| display_name(p, &root));
    }
    let read = |paths: &[PathBuf]| -> Vec<DiscoveredFile> {
        paths
            .iter()
            .filter_map(|path| discover::read_ytt_file(path, cx.sources, cx.root))
            .collect()
    };
    let mut files = read(&paths);
    if is_yaml && !files.iter().any(|f| f.path == cx.path) {
        return None;
    }
    let root = match library_in(&root, cx.path, &files) {
        Some(library) if library != root => {
            files.retain(|f| f.path.starts_with(&library));
            paths.retain(|p| p.starts_with(&library));
            library
        }
        _ => root,
    };
    let (files, schema, values) = match evaluated(cx, &root, files) {
        Some(evaluated) => evaluated,
        // Given up on: the files without what their evaluation gives.
        None => (read(&paths), None, None),
    };
    Some(Package {
        root,
        files,
        schema,
        values,
    })
}

/// The package's files with its schema and final data values, as the lint
/// computes them (templates are not rendered); None when the evaluation
/// failed or ran past its time.
type Evaluated = (Vec<DiscoveredFile>, Option<SchemaType>, Option<Node>);

fn evaluated(cx: &Context, root: &Path, files: Vec<DiscoveredFile>) -> Option<Evaluated> {
    if files.is_empty() {
        return Some((files, None, None));
    }
    let settings = YttSettings {
        skip_templates: true,
        values_only: true,
        strict: cx.config.is_some_and(|c| c.strict(root)),
        ignore_unknown_comments: cx.config.is_some_and(|c| c.ignore_unknown_comments(root)),
        ..YttSettings::default()
    };
    // The work runs on a thread of its own, under a time limit: it owns
    // what it uses (the texts are shared through `sources`).
    let sources = cx.sources.clone();
    let root = root.to_path_buf();
    let limits = crate::watchdog::Limits {
        time: EVALUATION_LIMIT,
        ..crate::watchdog::Limits::default()
    };
    crate::watchdog::run(limits, move || {
        let members: Vec<&DiscoveredFile> = files.iter().collect();
        let outcome = check_package(&root, &members, &sources, &settings);
        (files, outcome.schema.flatten(), outcome.values)
    })
    .ok()
}
