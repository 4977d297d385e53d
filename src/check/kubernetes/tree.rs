//! The Kubernetes check of a run as a whole: the catalog built once from
//! the CRDs found in the tree and the schema files the configuration names,
//! and the plain manifests of the tree checked against it (`--kubernetes`).

pub use super::catalog::merge_skipped;
use super::catalog::{Catalog, Lookups};
use super::crd_files::{CrdFile, CrdFiles};
use super::schema::Version;
use crate::discover::{DiscoveredFile, MAX_FILE_BYTES, reads_document};
use crate::finding::Finding;
use crate::source::{Sources, display_name};
use crate::yaml::Node;
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// What the command line asks of the Kubernetes check (the configuration
/// may say more).
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Check at all (`lint`; not `values` or `schema`).
    pub check: bool,
    /// Check plain manifests too (`--kubernetes`).
    pub manifests: bool,
    /// `--kubernetes-version`.
    pub version: Option<Version>,
}

impl confvet_key::Key for Options {
    fn key(&self, out: &mut confvet_key::KeyHasher) {
        let Options {
            check,
            manifests,
            version,
        } = self;
        out.key(check).key(manifests).key(version);
    }
}

/// A file holding a CRD that a run's walk does not meet: the language
/// server checks one unit at a time, and gives the run the CRDs of its
/// whole workspace folder, found when it discovered it, so that a unit's
/// resources are checked against the CRDs `confvet lint DIR` reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownCrd {
    pub path: PathBuf,
    /// The API groups its text names (see `DiscoveredFile::crd_groups`);
    /// None when its text may have changed since (an open document): read
    /// again.
    pub groups: Option<Vec<String>>,
}

/// The catalog of a run: `version`'s built-in kinds, the CRDs of `crd_files`
/// (files of the tree the walk found holding one), of `known` (files the
/// caller found beyond the walk, those the walk found left out) and of
/// `schema_paths` (files and folders the configuration names, already
/// checked to be inside its directory), indexed now and read when a
/// document needs them.
pub fn catalog(
    version: Version,
    (crd_files, known): (&[&DiscoveredFile], &[KnownCrd]),
    schema_paths: &[PathBuf],
    sources: &Sources,
    cwd: &Path,
) -> Catalog {
    let walked: std::collections::HashSet<&Path> =
        crd_files.iter().map(|file| file.path.as_path()).collect();
    let tree = crd_files.iter().map(|file| CrdFile {
        id: Some(file.id),
        path: file.path.clone(),
        holds_json_schemas: false,
        groups: Some(file.crd_groups.clone()),
    });
    let beyond = known
        .iter()
        .filter(|crd| !walked.contains(crd.path.as_path()))
        .map(|crd| CrdFile {
            // Registered when a document needs it.
            id: None,
            path: crd.path.clone(),
            holds_json_schemas: false,
            groups: crd.groups.clone(),
        });
    let configured = schema_files(schema_paths).into_iter().filter_map(|path| {
        // What is too large to read, or cannot be, is skipped: the
        // configuration already said whether it exists.
        let size = std::fs::metadata(&path).ok()?.len();
        (size <= MAX_FILE_BYTES).then(|| CrdFile {
            id: Some(sources.add_unread(display_name(&path, cwd), path.clone())),
            path,
            holds_json_schemas: true,
            groups: None,
        })
    });
    let files = tree.chain(beyond).chain(configured).collect();
    Catalog::new(version, CrdFiles::index(files, sources, cwd))
}

/// The YAML and JSON files of the configuration's schema paths, in order.
/// Links are not followed: what a folder holds stays inside it.
fn schema_files(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack: Vec<PathBuf> = paths.iter().rev().cloned().collect();
    while let Some(path) = stack.pop() {
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            let mut children: Vec<PathBuf> = std::fs::read_dir(&path)
                .into_iter()
                .flatten()
                .flatten()
                .map(|entry| entry.path())
                .collect();
            children.sort();
            stack.extend(children.into_iter().rev());
        } else if meta.is_file()
            && path
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| matches!(e, "yaml" | "yml" | "json"))
        {
            found.push(path);
        }
    }
    found
}

/// Check plain manifests against the catalog, each file on its own: files
/// of no system holding Kubernetes resources, and the documents of a
/// Tekton or KubeVirt file that its system does not read (each at its own
/// place in the file). The findings, and the kinds no schema knows.
pub fn check_manifests(
    catalog: &Catalog,
    files: &[&DiscoveredFile],
    sources: &Sources,
) -> (Vec<Finding>, Lookups) {
    files
        .par_iter()
        .map(|file| {
            sources.load([file.id]);
            let parsed = file.parse_now(sources);
            let mut lookups = Lookups::default();
            let findings = match (&parsed.parsed, file.system) {
                (Ok(set), system) => {
                    let documents: Vec<&Node> = (set.docs.iter().map(|d| &d.value))
                        .filter(|d| system.is_none_or(|system| !reads_document(system, d)))
                        .collect();
                    catalog.check(&documents, sources, &mut lookups)
                }
                // The file's system reports why it does not parse.
                (Err(_), Some(_)) => Vec::new(),
                (Err(finding), None) => vec![(**finding).clone()],
            };
            sources.evict([file.id]);
            (findings, lookups)
        })
        .reduce(
            || (Vec::new(), Lookups::default()),
            |(mut findings, mut lookups), (more, looked_up)| {
                findings.extend(more);
                lookups.merge(looked_up);
                (findings, lookups)
            },
        )
}
