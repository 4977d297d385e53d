//! What an editor asks about a place in a file: the hover text, where a
//! name is declared, and what may be typed there. Each system answers for
//! its own files (`check::ytt::navigate`, `check::tekton::navigate`,
//! `check::kubevirt::navigate`) in these terms: byte spans in [`Sources`],
//! which the language server turns into protocol positions.
//!
//! A system first builds a [`Navigator`] for one version of a document (the
//! costly part: finding and reading its unit), which then answers any
//! number of questions about that version quickly.

use crate::config::Config;
use crate::discover::{Discovery, System};
use crate::source::{FileId, SourceFile, Sources, Span};
use crate::yaml::Node;
use std::any::Any;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Hover text for the name under the cursor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hover {
    /// The name hovered, highlighted by the editor.
    pub span: Span,
    /// Markdown.
    pub markdown: String,
}

/// What a completion names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompletionKind {
    /// A data value, a map key.
    Field,
    /// A param, result or workspace.
    Variable,
    /// A Starlark function.
    Function,
    /// An annotation name.
    Keyword,
    /// A Task, Pipeline or Template.
    Reference,
}

/// One completion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    /// What the list shows, and (unless `insert` says otherwise) what is
    /// written.
    pub label: String,
    pub kind: CompletionKind,
    /// One line beside the label: a type, a default.
    pub detail: Option<String>,
    /// Markdown.
    pub documentation: Option<String>,
    /// The text written, when not the label.
    pub insert: Option<String>,
    /// The text the completion replaces: what was typed of the name so far
    /// (empty at the cursor when nothing was).
    pub replace: Span,
}

/// Where the document being asked about stands.
pub struct Context<'a> {
    /// Every file read for the question, the document among them (its
    /// buffer stands in for the file on disk).
    pub sources: &'a Sources,
    /// The document.
    pub file: FileId,
    /// Its absolute path.
    pub path: &'a Path,
    /// The workspace folder holding it: nothing outside it is read.
    pub root: &'a Path,
    /// The configuration in force there, if any.
    pub config: Option<&'a Config>,
    /// What systems keep about the whole workspace between documents.
    pub memo: &'a WorkspaceMemo,
}

/// Facts about a whole workspace folder that a system keeps between
/// documents and versions (an index of Tasks by name, say), built from the
/// files on disk: the server empties it when a file changes on disk, so an
/// open document's unsaved text must never go into it.
#[derive(Default)]
pub struct WorkspaceMemo(Mutex<HashMap<&'static str, Arc<dyn Any + Send + Sync>>>);

impl WorkspaceMemo {
    /// The fact kept under `key`, made now if none is.
    pub fn get_or_insert_with<T: Any + Send + Sync>(
        &self,
        key: &'static str,
        make: impl FnOnce() -> T,
    ) -> Option<Arc<T>> {
        let mut facts = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let fact = facts
            .entry(key)
            .or_insert_with(|| Arc::new(make()) as Arc<dyn Any + Send + Sync>);
        Arc::clone(fact).downcast::<T>().ok()
    }

    /// Keep `fact` under `key`, in place of what was kept.
    pub fn insert<T: Any + Send + Sync>(&self, key: &'static str, fact: T) {
        let mut facts = self.0.lock().unwrap_or_else(|e| e.into_inner());
        facts.insert(key, Arc::new(fact));
    }

    /// Forget everything: files on disk changed.
    pub fn clear(&self) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }
}

/// Answers about one version of one document. Offsets are bytes of the
/// document's text; spans may name other files, added to the same
/// [`Sources`].
pub trait Navigator: Send + Sync {
    /// What the name at `offset` is.
    fn hover(&self, offset: usize) -> Option<Hover>;
    /// Where the name at `offset` is declared (several places when it is
    /// declared in several, none when unknown).
    fn definition(&self, offset: usize) -> Vec<Span>;
    /// What may be written at `offset`.
    fn completions(&self, offset: usize) -> Vec<Completion>;
}

/// The memo's key for [`YttPackages`].
pub const YTT_PACKAGES: &str = "ytt-packages";

/// The ytt packages of a workspace folder, as discovery groups its files on
/// disk: paths only, no text. The language server's checks discover the
/// folder anyway and leave this in its memo; a navigator asked first
/// discovers it itself.
#[derive(Debug, Default)]
pub struct YttPackages {
    pub packages: Vec<PackageFiles>,
}

/// One ytt package's files.
#[derive(Debug)]
pub struct PackageFiles {
    pub root: PathBuf,
    /// YAML files, in ytt's order (by path relative to the root).
    pub yaml: Vec<PathBuf>,
}

impl YttPackages {
    /// The ytt packages discovery found.
    pub fn of(found: &Discovery) -> YttPackages {
        let packages = found
            .units
            .iter()
            .filter(|unit| unit.system == System::Ytt)
            .map(|unit| PackageFiles {
                root: unit.root.clone(),
                yaml: unit
                    .files
                    .iter()
                    .filter_map(|&i| found.files.get(i).map(|f| f.path.clone()))
                    .collect(),
            })
            .collect();
        YttPackages { packages }
    }

    /// The deepest package holding `path`.
    pub fn holding(&self, path: &Path) -> Option<&PackageFiles> {
        self.packages
            .iter()
            .filter(|p| path.starts_with(&p.root))
            .max_by_key(|p| p.root.components().count())
    }
}

/// Files a workspace index reads larger than this are not resources
/// someone references by name.
const MAX_INDEXED_FILE: u64 = 4 << 20;

/// Every YAML file below `root` that a lint of it reads (ignore files and
/// the configuration's excludes apply; links are never followed): what a
/// workspace-wide index reads.
pub fn workspace_yaml_files(root: &Path, config: Option<&Config>) -> Vec<PathBuf> {
    let options = config.map(Config::discover_options).unwrap_or_default();
    crate::discover::yaml_files(root, &options)
}

/// The text of a workspace file read for an index, from disk (never an
/// open document's buffer: indexes are kept in the memo): empty when it is
/// not UTF-8 or too large to be a resource someone references by name.
pub fn read_small(path: &Path) -> String {
    std::fs::metadata(path)
        .ok()
        .filter(|m| m.len() <= MAX_INDEXED_FILE)
        .and_then(|_| std::fs::read(path).ok())
        .and_then(|b| String::from_utf8(b).ok())
        .unwrap_or_default()
}

/// What `read` finds in the parsed documents of a workspace file's text
/// (nothing when it does not parse); spans are byte offsets of the text.
pub fn of_documents<T>(text: &str, read: impl FnOnce(&[&Node], &SourceFile) -> Vec<T>) -> Vec<T> {
    let options = crate::yaml::ParseOptions::default();
    let Ok(set) = crate::yaml::parse_file(FileId(0), text, &options) else {
        return Vec::new();
    };
    let lines = SourceFile::new(String::new(), None, text.to_string());
    let docs: Vec<&Node> = set.docs.iter().map(|d| &d.value).collect();
    read(&docs, &lines)
}
