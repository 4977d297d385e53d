//! Connected components of a unit's files: the files a check must see
//! together (a Pipeline and the Tasks it may run, a template and the VMs that
//! name it) become one unit, so a monorepo is checked in small units whose
//! trees are dropped one by one, instead of one unit per system that holds
//! every tree of the repository at once.

use super::{kubevirt, tekton};
use crate::cache::{Cache, Digest, KeyHasher};
use crate::discover::{DiscoveredFile, System, Unit};
use crate::source::Sources;
use crate::yaml::DocumentSet;
use rayon::prelude::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::path::{Path, PathBuf};

/// Each KubeVirt and Tekton unit split into the groups of its files that
/// must be checked together (ytt packages stay whole). Every file is parsed
/// once here for its links and its tree dropped; when `scope` is given
/// (files named one by one), only the groups holding a file in it remain.
pub fn split_units(
    units: Vec<Unit>,
    files: &[DiscoveredFile],
    sources: &Sources,
    scope: Option<&[PathBuf]>,
    cache: Option<&Cache>,
) -> Vec<Unit> {
    // Lets the tests of a debug build compare groups with whole systems.
    #[cfg(debug_assertions)]
    if std::env::var_os("CONFVET_TEST_WHOLE_UNITS").is_some() {
        return units;
    }
    let mut out = Vec::with_capacity(units.len());
    for unit in units {
        let groups = match unit.system {
            System::Ytt => {
                out.push(unit);
                continue;
            }
            System::Tekton => groups_of(
                &unit,
                (files, sources, cache),
                tekton::links::links,
                tekton::links::components,
            ),
            System::Kubevirt => groups_of(
                &unit,
                (files, sources, cache),
                kubevirt::links::links,
                kubevirt::links::components,
            ),
        };
        for group in groups {
            let members: Vec<usize> = group.into_iter().map(|g| unit.files[g]).collect();
            let in_scope = scope.is_none_or(|scope| {
                members
                    .iter()
                    .any(|&i| scope.iter().any(|s| files[i].path.starts_with(s)))
            });
            if !in_scope {
                continue;
            }
            out.push(Unit {
                system: unit.system,
                root: unit.root.clone(),
                key: files[members[0]].path.clone(),
                files: members,
                other_files: Vec::new(),
            });
        }
    }
    out
}

/// How a system groups files from their links (indices into the slice).
pub type Grouping<L> = fn(&[(&Path, L)]) -> Vec<Vec<usize>>;

/// A system's groups of `unit`'s files (indices into `unit.files`): each
/// file's links are `read` from its YAML, parsed now and dropped after (a
/// file that does not parse has none, and is checked alone).
fn groups_of<L: Default + Send + Serialize + DeserializeOwned>(
    unit: &Unit,
    (files, sources, cache): (&[DiscoveredFile], &Sources, Option<&Cache>),
    read: fn(&DocumentSet) -> L,
    components: Grouping<L>,
) -> Vec<Vec<usize>> {
    // The same files with the same contents in the same repositories as
    // last time: the same groups, without reading any links.
    let key = cache.and_then(|cache| group_key(unit, files, cache));
    if let (Some(cache), Some(key)) = (cache, key)
        && let Some(groups) = cache.groups(&key)
        && groups.iter().flatten().all(|&i| i < unit.files.len())
    {
        return groups;
    }
    let links: Vec<(&Path, L)> = unit
        .files
        .par_iter()
        .map(|&i| {
            let file = &files[i];
            let cached = cache.zip(file.stamp);
            if let Some(links) = cached.and_then(|(c, stamp)| c.links(&file.path, stamp)) {
                return (file.path.as_path(), links);
            }
            let links = links_of(file, sources, read);
            if let Some((cache, stamp)) = cached {
                cache.record_links(&file.path, stamp, &links);
            }
            (file.path.as_path(), links)
        })
        .collect();
    let groups = components(&links);
    if let (Some(cache), Some(key)) = (cache, key) {
        cache.record_groups(key, &groups);
    }
    groups
}

/// A file's links, `read` from its YAML parsed now and dropped after; a
/// file that does not parse has none.
pub fn links_of<L: Default>(
    file: &DiscoveredFile,
    sources: &Sources,
    read: fn(&DocumentSet) -> L,
) -> L {
    match &file.parse_now(sources).parsed {
        Ok(set) => read(set),
        Err(_) => L::default(),
    }
}

/// What a unit's groups depend on: its system and root, each file's path
/// and content, and which folders above them are git repositories (a git
/// resolver's ref resolves only within its own). None when a file was not
/// read from disk as it is (standard input standing in for it) or cannot
/// be read.
fn group_key(unit: &Unit, files: &[DiscoveredFile], cache: &Cache) -> Option<Digest> {
    let mut hasher = KeyHasher::new();
    hasher.text(unit.system.name());
    hasher.part(unit.root.as_os_str().as_encoded_bytes());
    // Folders by their bytes: each is a parent of a file's path, so one
    // folder is always spelled the same, and hashing and sorting bytes
    // spares `Path`'s parsing of components on every call.
    let mut folders: std::collections::HashMap<&[u8], &Path> = Default::default();
    for &i in &unit.files {
        let path = &files[i].path;
        files[i].stamp?;
        hasher.part(path.as_os_str().as_encoded_bytes());
        hasher.part(&cache.hash(path)?.0);
        // Each folder once: the climb stops at one already seen.
        for folder in path.ancestors().skip(1) {
            let bytes = folder.as_os_str().as_encoded_bytes();
            if folders.insert(bytes, folder).is_some() {
                break;
            }
        }
    }
    let mut folders: Vec<(&[u8], &Path)> = folders.into_iter().collect();
    folders.sort_unstable_by_key(|(bytes, _)| *bytes);
    for (bytes, folder) in folders {
        if folder.join(".git").exists() {
            hasher.part(bytes);
        }
    }
    Some(hasher.finish())
}
