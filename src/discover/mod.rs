//! Discovery: walk the linted paths in parallel (honouring .gitignore and
//! `.confvetignore`), read and parse candidate files on all cores, classify
//! them by content and group them into units, the things a check looks at
//! as a whole (a ytt package, a KubeVirt or Tekton file set).
//!
//! The shared types are in `model` (a leaf); `walk`, `classify`, `read` and
//! `units` each do one step; this file runs them in order.

mod classify;
mod model;
pub mod pac_text;
mod read;
mod units;
mod walk;

#[cfg(test)]
mod tests;

pub use self::classify::{
    classify, groups_named, is_text_template, names_template, names_virtual_machine,
    reads_document, why_not_linted,
};
pub use self::model::{
    DiscoverOptions, DiscoveredFile, Discovery, MAX_FILE_BYTES, PathFilter, System, Unit,
};
pub use self::read::read_ytt_file;
pub use self::units::{in_ytt_lib, is_library_name, name_in_ytt_lib};
pub use self::walk::{absolutize, exclude_filter, link_not_followed};

use self::read::read_and_parse;
use self::units::{Grouping, adopt_plain_files, deepest_root, group_units_cached};
use self::walk::{Walked, file_context_root, is_yaml_name, walk};
use crate::error::{Doing, Error};
use crate::source::{Sources, display_name, resolves_below};
use crate::yaml::ParseOptions;
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// The YAML files below `root` that a lint of it reads: ignore files,
/// `.confvetignore` and the configuration's excludes apply, and links are
/// never followed. Sorted.
pub fn yaml_files(root: &Path, options: &DiscoverOptions) -> Vec<PathBuf> {
    walk(root, options.filter.as_ref(), &options.cache_folders).yaml
}

/// Read, classify and group everything below `paths`, as the
/// configuration's `options` shape it.
///
/// A directory is walked; a file is linted as part of its unit, which is
/// found by walking the directory it sits in (pre-commit passes changed files
/// one by one, and a values file must be checked with its package's schema).
pub fn discover_with(
    paths: &[PathBuf],
    sources: &Sources,
    cwd: &Path,
    parse: &ParseOptions,
    options: &DiscoverOptions,
) -> Discovery {
    let mut discovery = Discovery::default();
    // Each root, and whether it was named as a directory (a package may then
    // be rooted at it; below a root walked only to place single files, not).
    let mut roots: BTreeMap<PathBuf, bool> = BTreeMap::new();
    let mut wanted_files: BTreeSet<PathBuf> = BTreeSet::new();
    let mut explicit_dirs: Vec<PathBuf> = Vec::new();
    for path in paths {
        let absolute = absolutize(path, cwd);
        if sources.stdin_path() == Some(absolute.as_path()) {
            // Standard input stands in for this file, which may not exist
            // yet: a folder named beside it that holds it (an editor's ytt
            // package) is its root, else the folder around it.
            let in_named = paths
                .iter()
                .map(|p| absolutize(p, cwd))
                .any(|p| p != absolute && absolute.starts_with(&p) && p.is_dir());
            if !in_named {
                let root = file_context_root(&absolute, cwd);
                roots.entry(root).or_insert(false);
            }
            wanted_files.insert(absolute);
            continue;
        }
        match std::fs::metadata(&absolute) {
            Ok(meta) if meta.is_dir() => {
                explicit_dirs.push(absolute.clone());
                roots.insert(absolute, true);
            }
            Ok(_) => {
                let root = file_context_root(&absolute, cwd);
                wanted_files.insert(absolute);
                roots.entry(root).or_insert(false);
            }
            Err(source) => discovery.errors.push(Error::Io {
                doing: Doing::Naming,
                path: path.display().to_string(),
                file: Some(display_name(&absolute, cwd)),
                source,
            }),
        }
    }
    // A root inside another root adds nothing.
    let roots: Vec<(PathBuf, bool)> = roots
        .iter()
        .filter(|(r, _)| !roots.keys().any(|o| o != *r && r.starts_with(o)))
        .map(|(r, explicit)| (r.clone(), *explicit))
        .collect();

    for (root, is_explicit) in &roots {
        let Walked {
            yaml: mut yaml_paths,
            other: other_paths,
            links,
            errors,
        } = if options.named_only && !is_explicit {
            Walked::default()
        } else {
            walk(root, options.filter.as_ref(), &options.cache_folders)
        };
        discovery
            .errors
            .extend(errors.into_iter().map(|(path, source)| Error::Walk {
                file: path.map(|p| display_name(&p, cwd)),
                source,
            }));
        // A file named on the command line is linted even where an ignore
        // file hides it from the walk (as ripgrep searches a named file);
        // only the configuration's excludes keep it out.
        let keeps = |p: &Path| options.filter.as_ref().is_none_or(|keeps| keeps(p, false));
        let mut outward_links: Vec<PathBuf> = links
            .into_iter()
            .filter(|link| is_yaml_name(link) || link.is_dir())
            .filter(|link| !resolves_below(link, root))
            .collect();
        // A named file that is a link out of the tree (a file changed in
        // a pull request, for `--changed-since`) is not read either.
        let (named_outward, missed): (Vec<PathBuf>, Vec<PathBuf>) = wanted_files
            .iter()
            .filter(|w| w.starts_with(root) && is_yaml_name(w) && keeps(w))
            .filter(|w| yaml_paths.binary_search(w).is_err())
            .cloned()
            .partition(|w| w.is_symlink() && !resolves_below(w, root));
        outward_links.extend(named_outward);
        if !missed.is_empty() {
            yaml_paths.extend(missed);
            yaml_paths.sort();
        }
        let start = discovery.files.len();
        let read: Vec<Result<DiscoveredFile, Error>> = yaml_paths
            .par_iter()
            .filter_map(|p| {
                read_and_parse(p, sources, cwd, parse, options.cache.as_deref()).transpose()
            })
            .collect();
        let plain = sort_read(&mut discovery, read, options);
        let grouping = Grouping {
            start,
            root,
            may_claim_root: *is_explicit,
            is_workspace: options.workspace,
            paths: (&yaml_paths, &other_paths),
            declared_roots: &options.package_roots,
        };
        let first_unit = discovery.units.len();
        group_units_cached(&mut discovery, &grouping, options.cache.as_deref());
        adopt_plain_files(&mut discovery, first_unit, plain);
        // A link below a ytt package is the package's to judge, as ytt
        // judges links among its input files.
        let ytt_roots: Vec<&Path> = discovery
            .units
            .iter()
            .filter(|u| u.system == System::Ytt)
            .map(|u| u.root.as_path())
            .collect();
        outward_links.retain(|link| !ytt_roots.iter().any(|r| link.starts_with(r)));
        outward_links.sort();
        outward_links.dedup();
        for link in outward_links {
            discovery.findings.push(link_not_followed(
                &link,
                "it leads out of the linted tree",
                "confvet reads only what is inside the paths it lints; lint the destination's own folder, or put the file itself here",
                sources,
                cwd,
            ));
        }
    }

    if !wanted_files.is_empty() {
        discovery.scope = Some(
            wanted_files
                .iter()
                .cloned()
                .chain(explicit_dirs.iter().cloned())
                .collect(),
        );
        // Keep the units that hold a file or directory that was asked for;
        // a wanted file that is not YAML of a unit (a plain values file)
        // selects the ytt package it sits in.
        let files = &discovery.files;
        // By bytes: set lookups by `Path` parse components on every
        // comparison, and every file of the tree is looked up.
        let wanted_bytes: HashSet<&OsStr> = wanted_files.iter().map(|w| w.as_os_str()).collect();
        let is_wanted = |path: &Path| {
            wanted_bytes.contains(path.as_os_str())
                || explicit_dirs.iter().any(|d| path.starts_with(d))
        };
        let ytt_roots: BTreeSet<PathBuf> = discovery
            .units
            .iter()
            .filter(|u| u.system == System::Ytt)
            .map(|u| u.root.clone())
            .collect();
        // A file of a KubeVirt or Tekton unit selects only its own unit.
        let other_systems: HashSet<&OsStr> = discovery
            .units
            .iter()
            .filter(|u| u.system != System::Ytt)
            .flat_map(|u| u.files.iter().map(|&i| files[i].path.as_os_str()))
            .collect();
        let selected: BTreeSet<&PathBuf> = wanted_files
            .iter()
            .filter(|w| !other_systems.contains(w.as_os_str()))
            .filter_map(|w| deepest_root(w, &ytt_roots))
            .collect();
        discovery.units.retain(|unit| {
            unit.files.iter().any(|&i| is_wanted(&files[i].path))
                || (unit.system == System::Ytt && selected.contains(&unit.root))
        });
    }
    discovery
}

/// The files read from one root put in their places: a system's in
/// `discovery.files`, resources other checks read in
/// `discovery.resources`; the YAML of no system is given back, to become
/// the plain files of the ytt packages it sits in once they are known.
fn sort_read(
    discovery: &mut Discovery,
    read: Vec<Result<DiscoveredFile, Error>>,
    options: &DiscoverOptions,
) -> Vec<DiscoveredFile> {
    let ytt_off = options.systems_off.contains(&System::Ytt);
    // Room for every file read, the plain ones adopted later included: a
    // record is 200 bytes, and doubling past 80,000 of them held 26 MB.
    discovery.files.reserve(read.len());
    let mut plain = Vec::new();
    for file in read {
        match file {
            Err(error) => discovery.errors.push(error),
            Ok(file) => match file.system {
                Some(system) if options.systems_off.contains(&system) => {}
                Some(_) => discovery.files.push(file),
                None => {
                    let is_resource = file.resource.crd
                        || file.resource.manifest
                        || (!ytt_off && file.resource.carvel_package);
                    if is_resource {
                        discovery.resources.push(file.clone());
                    }
                    if !ytt_off {
                        plain.push(file);
                    }
                }
            },
        }
    }
    plain
}
