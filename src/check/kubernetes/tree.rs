//! The Kubernetes check of a run as a whole: the catalog built once from
//! the CRDs found in the tree and the schema files the configuration names,
//! and the plain manifests of the tree checked against it (`--kubernetes`).

use super::catalog::{Catalog, Skipped};
use super::crd::{CrdSetBuilder, is_crd};
use super::schema::Version;
use crate::discover::{DiscoveredFile, MAX_FILE_BYTES};
use crate::finding::Finding;
use crate::source::{SourceFile, Sources, Span, display_name};
use crate::yaml::{self, Node, ParseOptions};
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

/// The catalog of a run: `version`'s built-in kinds, the CRDs of `crd_files`
/// (files of the tree the walk found holding one) and of `schema_paths`
/// (files and folders the configuration names, already checked to be
/// inside its directory). Problems with the CRDs come back as findings.
pub fn catalog(
    version: Version,
    crd_files: &[&DiscoveredFile],
    schema_paths: &[PathBuf],
    sources: &Sources,
    cwd: &Path,
) -> (Catalog, Vec<Finding>) {
    let mut builder = CrdSetBuilder::default();
    let mut findings = Vec::new();
    sources.load(crd_files.iter().map(|file| file.id));
    for file in crd_files {
        // A file that does not parse is reported by whatever reads it as
        // a manifest; here it defines nothing.
        if let Ok(set) = &file.parse_now(sources).parsed {
            for document in set.docs.iter().filter(|d| is_crd(&d.value)) {
                builder.add_crd(&document.value);
            }
        }
    }
    sources.evict(crd_files.iter().map(|file| file.id));
    for path in schema_files(schema_paths) {
        read_schema_file(&path, &mut builder, &mut findings, sources, cwd);
    }
    let (crds, problems) = builder.build();
    findings.extend(problems);
    (Catalog::new(version, crds), findings)
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

fn read_schema_file(
    path: &Path,
    builder: &mut CrdSetBuilder,
    findings: &mut Vec<Finding>,
    sources: &Sources,
    cwd: &Path,
) {
    let too_large = std::fs::metadata(path).is_ok_and(|m| m.len() > MAX_FILE_BYTES);
    let Ok(bytes) = (!too_large).then(|| sources.read(path)).transpose() else {
        return;
    };
    let Some(bytes) = bytes else {
        return;
    };
    let (text, _) = crate::source::decode_text(bytes);
    let id = sources.add(SourceFile::new(
        display_name(path, cwd),
        Some(path.to_path_buf()),
        text,
    ));
    let source = sources.get(id);
    let set = match yaml::parse_file(id, &source.text, &ParseOptions::default()) {
        Ok(set) => set,
        Err(error) => {
            findings.push(Finding::new(error.rule, error.span, error.message));
            return;
        }
    };
    for document in &set.docs {
        if is_crd(&document.value) {
            builder.add_crd(&document.value);
        } else if matches!(document.value.value, yaml::Value::Map(_)) {
            let json = yaml::emit::to_json(&document.value);
            builder.add_json_schema(path, json, Span::file_start(id));
        }
    }
}

/// Check plain manifests (files of no system holding Kubernetes resources)
/// against the catalog, each file on its own: the findings, and the kinds
/// no schema knows.
pub fn check_manifests(
    catalog: &Catalog,
    files: &[&DiscoveredFile],
    sources: &Sources,
) -> (Vec<Finding>, Skipped) {
    files
        .par_iter()
        .map(|file| {
            sources.load([file.id]);
            let parsed = file.parse_now(sources);
            let mut skipped = Skipped::new();
            let findings = match &parsed.parsed {
                Ok(set) => {
                    let documents: Vec<&Node> = set.docs.iter().map(|d| &d.value).collect();
                    catalog.check(&documents, &mut skipped)
                }
                Err(finding) => vec![(**finding).clone()],
            };
            sources.evict([file.id]);
            (findings, skipped)
        })
        .reduce(
            || (Vec::new(), Skipped::new()),
            |(mut findings, mut skipped), (more, counts)| {
                findings.extend(more);
                merge_skipped(&mut skipped, counts);
                (findings, skipped)
            },
        )
}

/// Add the counts of `more` to `into`.
pub fn merge_skipped(into: &mut Skipped, more: Skipped) {
    for (kind, count) in more {
        *into.entry(kind).or_default() += count;
    }
}
