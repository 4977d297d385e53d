//! What discovery hands on: systems, discovered files, units, the outcome
//! of a discovery and the options that shape it (a leaf: the other files of
//! discovery share these types).

use crate::cache::{Cache, CacheFolders, Stamp};
use crate::error::Error;
use crate::finding::Finding;
use crate::source::FileId;
use crate::yaml::{DocumentSet, ParseOptions};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Files larger than this are reported, not parsed.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// Which checker a file belongs to, decided from its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum System {
    Ytt,
    Kubevirt,
    Tekton,
}

impl confvet_key::Key for System {
    fn key(&self, out: &mut confvet_key::KeyHasher) {
        out.text(self.name());
    }
}

impl System {
    /// Every system, in the order they are reported: the one list of them.
    pub const ALL: [System; 3] = [System::Ytt, System::Kubevirt, System::Tekton];

    /// The system [`System::name`] names.
    pub fn from_name(name: &str) -> Option<System> {
        System::ALL.into_iter().find(|s| s.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            System::Ytt => "ytt",
            System::Kubevirt => "kubevirt",
            System::Tekton => "tekton",
        }
    }
}

/// One file that a check may look at.
#[derive(Debug, Clone)]
pub struct DiscoveredFile {
    pub id: FileId,
    /// Absolute path.
    pub path: PathBuf,
    /// None for files that are not YAML (`.star`, data files).
    pub system: Option<System>,
    /// The parsed YAML, or the reason it could not be parsed (as a finding).
    pub parsed: Result<DocumentSet, Box<Finding>>,
    /// ytt: the file holds a `#@data/values-schema` annotation.
    pub has_schema: bool,
    /// ytt: the file holds a `#@data/values` annotation.
    pub has_values: bool,
    /// ytt: the file holds an `#@overlay/...` annotation (a schema file
    /// that has one may extend a schema above it).
    pub has_overlay: bool,
    /// Set while the YAML is not parsed yet: a lint parses each unit's
    /// files when it checks the unit and drops the trees after, so memory
    /// does not grow with the tree ([`DiscoveredFile::parse_now`]).
    pub parse_later: Option<ParseOptions>,
    /// The file's size and modification time, when read from disk: what
    /// the cache keys its entries by.
    pub stamp: Option<Stamp>,
    /// What a file of no system holds that a check reads.
    pub resource: Resource,
    /// The API groups a CRD file's text names (`group: x`): it is read
    /// only when a document of one of them is checked.
    pub crd_groups: Vec<String>,
    /// The text holds a suppression comment's marker (`confvet:`): only
    /// such files are read again to apply suppressions.
    pub has_suppression: bool,
}

/// What a YAML file no system reads may still hold for a check: Kubernetes
/// resources (a plain manifest), CustomResourceDefinitions, a Carvel
/// `Package`. Decided from the text, as the system is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Resource {
    /// A Carvel `Package` resource (`data.packaging.carvel.dev`), whose
    /// values schema is compared with the ytt package it ships.
    pub carvel_package: bool,
    /// A `CustomResourceDefinition`: the kinds it defines are checked.
    pub crd: bool,
    /// Top-level `apiVersion` and `kind`, and no text-template markup
    /// (`{{`, `{%`): a plain manifest, checked with `--kubernetes`.
    pub manifest: bool,
}

impl Resource {
    pub fn any(self) -> bool {
        self.carvel_package || self.crd || self.manifest
    }
}

/// A set of files checked together.
#[derive(Debug)]
pub struct Unit {
    pub system: System,
    /// The package directory (ytt) or the linted root (kubevirt, tekton).
    pub root: PathBuf,
    /// Indices into `Discovery::files`, sorted by path relative to `root`
    /// in byte order (the order ytt merges files in).
    pub files: Vec<usize>,
    /// Other files below a ytt package's root (`.star`, `.txt`, ...), for loads.
    pub other_files: Vec<PathBuf>,
    /// What names the unit in reports and places it in a shard: the package
    /// directory (ytt), the linted root, or the first file of a group of
    /// KubeVirt or Tekton files (`check::components`).
    pub key: PathBuf,
}

/// The outcome of discovery.
#[derive(Debug, Default)]
pub struct Discovery {
    pub files: Vec<DiscoveredFile>,
    pub units: Vec<Unit>,
    /// Problems that are not findings (unreadable files); they make exit 2.
    pub errors: Vec<Error>,
    /// When files were named one by one: the files and directories named.
    /// KubeVirt and Tekton units are read whole (a VM's template may sit
    /// elsewhere) but report only on these.
    pub scope: Option<Vec<PathBuf>>,
    /// Files of no system that hold resources (Carvel `Package`s, CRDs,
    /// manifests; see [`Resource`]), in no unit.
    pub resources: Vec<DiscoveredFile>,
    /// Warnings about the tree itself: YAML files and folders that are
    /// links leading out of the linted paths, not followed.
    pub findings: Vec<Finding>,
}

/// Decides whether the walk keeps a path (`true`) or skips it; the flag
/// tells whether the path is a directory.
pub type PathFilter = Arc<dyn Fn(&Path, bool) -> bool + Send + Sync>;

/// What a configuration file changes in discovery.
#[derive(Clone, Default)]
pub struct DiscoverOptions {
    /// Applied to every file and directory the walk meets.
    pub filter: Option<PathFilter>,
    /// Declared ytt package roots (absolute): each takes every ytt file
    /// below it, whatever discovery would have grouped.
    pub package_roots: Vec<PathBuf>,
    /// Systems whose files are neither parsed nor checked.
    pub systems_off: Vec<System>,
    /// Where the scan of unchanged files is remembered between runs.
    pub cache: Option<Arc<Cache>>,
    /// The cache folders the walk skips (see `CacheFolders`).
    pub cache_folders: Arc<CacheFolders>,
    /// Files named one by one are read alone, without walking the tree
    /// around them for their unit: the caller already knows the unit's
    /// files and names them all (the language server, which keeps the
    /// workspace's units between keystrokes).
    pub named_only: bool,
    /// The folder walked is an editor's workspace, not one given as `ytt
    /// -f DIR` is: a package climbed to it goes back down to the folder
    /// that holds its files.
    pub workspace: bool,
}
