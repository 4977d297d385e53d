//! Kustomize patches: a file a kustomization names as a patch holds part of
//! a resource (a Deployment with only the fields it changes), not a
//! resource, so it is not a plain manifest to check. Only the
//! kustomization files beside the manifests are read, inside the tree.

use crate::source::{FileId, normalize_path, resolves_below};
use crate::yaml::{self, Node, ParseOptions, ScalarValue, Value, child};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// The names kustomize reads a kustomization from.
const KUSTOMIZATION: [&str; 3] = ["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// Larger than any real kustomization: not read.
const MAX_BYTES: u64 = 1024 * 1024;

/// The files the kustomizations of `dirs` name as patches (absolute).
pub fn patch_files<'a>(dirs: impl IntoIterator<Item = &'a Path>) -> HashSet<PathBuf> {
    let mut patches = HashSet::new();
    let mut seen = HashSet::new();
    for dir in dirs {
        if !seen.insert(dir.to_path_buf()) {
            continue;
        }
        for name in KUSTOMIZATION {
            let path = dir.join(name);
            // Not through a link out of the folder, nor anything large.
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            if !meta.is_file() || meta.len() > MAX_BYTES || !resolves_below(&path, dir) {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let Ok(set) = yaml::parse_file(FileId(u32::MAX), &text, &ParseOptions::default())
            else {
                continue;
            };
            for document in &set.docs {
                for patch in named_patches(&document.value) {
                    patches.insert(normalize_path(&dir.join(patch)));
                }
            }
        }
    }
    patches
}

/// `patchesStrategicMerge: [file]`, `patches: [{path: file}]`,
/// `patchesJson6902: [{path: file}]`; an inline patch names no file.
fn named_patches(kustomization: &Node) -> Vec<String> {
    let mut named = Vec::new();
    for key in ["patchesStrategicMerge", "patches", "patchesJson6902"] {
        let Some(Value::Array(items)) = child(kustomization, key).map(|n| &n.value) else {
            continue;
        };
        for item in items {
            let path = match &item.value.value {
                Value::Scalar(_) => Some(&item.value),
                Value::Map(_) => child(&item.value, "path"),
                Value::Array(_) => None,
            };
            if let Some(ScalarValue::Str(path)) =
                path.and_then(Node::as_scalar).map(|s| &s.resolved)
                && !path.contains('\n')
            {
                named.push(path.clone());
            }
        }
    }
    named
}
