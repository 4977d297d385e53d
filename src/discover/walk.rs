//! The walk: the paths a run names made absolute, their folders walked in
//! parallel (honouring .gitignore, `.confvetignore` and the configuration's
//! filter), and the links it meets, never followed.

use super::model::PathFilter;
use crate::cache::CacheFolders;
use crate::error::Error;
use crate::finding::Finding;
use crate::rules;
use crate::source::{SourceFile, Sources, Span, display_name, is_vcs_dir};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// A filter that is true for paths matching gitignore-style `patterns`
/// relative to `dir` (or below a directory that does); paths outside `dir`
/// never match. The error names the first bad pattern.
pub fn exclude_filter(dir: &Path, patterns: &[String]) -> Result<PathFilter, Error> {
    let mut builder = ignore::gitignore::GitignoreBuilder::new(dir);
    builder.allow_unclosed_class(false);
    for pattern in patterns {
        builder
            .add_line(None, pattern)
            .map_err(|err| Error::Usage(format!("bad pattern \"{pattern}\": {err}")))?;
    }
    let matcher = builder
        .build()
        .map_err(|err| Error::Usage(err.to_string()))?;
    let dir = dir.to_path_buf();
    Ok(Arc::new(move |path: &Path, is_dir: bool| {
        path.strip_prefix(&dir).is_ok_and(|relative| {
            !relative.as_os_str().is_empty()
                && matcher
                    .matched_path_or_any_parents(relative, is_dir)
                    .is_ignore()
        })
    }))
}

/// `path` from `cwd` when relative, without `.` and `..`.
pub fn absolutize(path: &Path, cwd: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    };
    crate::source::normalize_path(&joined)
}

/// The directory to walk for a single file: the current directory when the
/// file is under it (the repository, for pre-commit), else the file's folder.
pub(super) fn file_context_root(file: &Path, cwd: &Path) -> PathBuf {
    let cwd = crate::source::normalize_path(cwd);
    if file.starts_with(&cwd) {
        cwd
    } else {
        file.parent().map_or_else(|| cwd.clone(), Path::to_path_buf)
    }
}

/// What a walk found, sorted.
#[derive(Default)]
pub(super) struct Walked {
    pub(super) yaml: Vec<PathBuf>,
    pub(super) other: Vec<PathBuf>,
    /// Symbolic links (to files or folders): never followed.
    pub(super) links: Vec<PathBuf>,
    /// Walk errors, with the path they are about when they name one.
    pub(super) errors: Vec<(Option<PathBuf>, ignore::Error)>,
}

/// A `confvet/symlink` warning at a link lint did not follow. Nothing is
/// read through the link, and its destination is not shown: it may be
/// outside the repository.
pub fn link_not_followed(
    link: &Path,
    why: &str,
    help: &str,
    sources: &Sources,
    cwd: &Path,
) -> Finding {
    let name = display_name(link, cwd);
    let id = sources.add(SourceFile::new(
        name.clone(),
        Some(link.to_path_buf()),
        String::new(),
    ));
    Finding::new(
        &rules::confvet::SYMLINK,
        Span::file_start(id),
        format!("symbolic link {name} not followed: {why}"),
    )
    .with_help(help)
}

/// Walk `root` in parallel.
pub(super) fn walk(
    root: &Path,
    filter: Option<&PathFilter>,
    cache_folders: &CacheFolders,
) -> Walked {
    let found = Mutex::new(Walked::default());
    // Folders below the root holding a cache tag: each is then asked
    // whether it is a cache folder confvet made, and what it holds is left
    // out. (Looking for the tag in every folder the walk enters was a
    // failed lookup per folder, a twentieth of a warm run.)
    let tagged = Mutex::new(Vec::new());
    let filter = filter.cloned();
    ignore::WalkBuilder::new(root)
        .add_custom_ignore_filename(".confvetignore")
        // Hidden directories hold configuration too (`.tekton/` of
        // Pipelines-as-Code, `.github/`, `.tanzu-managed/`); version
        // control metadata never does.
        .hidden(false)
        .require_git(false)
        .filter_entry(move |entry| {
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            if is_dir && entry.depth() > 0 && is_vcs_dir(entry.file_name()) {
                return false;
            }
            filter
                .as_ref()
                .is_none_or(|keeps| keeps(entry.path(), is_dir))
        })
        .build_parallel()
        .run(|| {
            Box::new(|entry| {
                match entry {
                    Ok(entry) if entry.file_type().is_some_and(|t| t.is_file()) => {
                        if entry.depth() > 1
                            && entry.file_name() == crate::source::CACHE_TAG
                            && let Some(dir) = entry.path().parent()
                        {
                            tagged
                                .lock()
                                .unwrap_or_else(|e| e.into_inner())
                                .push(dir.to_path_buf());
                        }
                        let path = entry.into_path();
                        let mut found = found.lock().unwrap_or_else(|e| e.into_inner());
                        if is_yaml_name(&path) {
                            found.yaml.push(path);
                        } else {
                            found.other.push(path);
                        }
                    }
                    Ok(entry) if entry.path_is_symlink() => {
                        let path = entry.into_path();
                        found
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .links
                            .push(path);
                    }
                    Ok(_) => {}
                    Err(err) => found
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .errors
                        .push((error_path(&err).map(Path::to_path_buf), err)),
                }
                ignore::WalkState::Continue
            })
        });
    let mut walked = found.into_inner().unwrap_or_else(|e| e.into_inner());
    let cache_dirs: Vec<PathBuf> = tagged
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .filter(|dir| cache_folders.holds(dir))
        .collect();
    if !cache_dirs.is_empty() {
        let outside = |path: &Path| !cache_dirs.iter().any(|dir| path.starts_with(dir));
        for paths in [&mut walked.yaml, &mut walked.other, &mut walked.links] {
            paths.retain(|path| outside(path));
        }
        walked
            .errors
            .retain(|(path, _)| path.as_deref().is_none_or(outside));
    }
    for paths in [&mut walked.yaml, &mut walked.other, &mut walked.links] {
        paths.sort_unstable_by(|a, b| path_order(a, b));
    }
    walked
}

/// The order of `Path::cmp` (component by component) for the paths a walk
/// gives (no `a//b`, no trailing separator), as one pass over the bytes:
/// a separator sorts before every other byte, as the end of a component
/// does. `Path::cmp` parses components on each comparison, a tenth of a
/// pre-commit run in a tree of 19,000 files.
pub(super) fn path_order(a: &Path, b: &Path) -> std::cmp::Ordering {
    fn bytes(path: &Path) -> impl Iterator<Item = u8> + '_ {
        path.as_os_str().as_encoded_bytes().iter().map(|&byte| {
            if std::path::is_separator(byte.into()) {
                0
            } else {
                byte
            }
        })
    }
    bytes(a).cmp(bytes(b))
}

/// The path a walk error is about, if it names one.
fn error_path(err: &ignore::Error) -> Option<&Path> {
    match err {
        ignore::Error::WithPath { path, .. } => Some(path),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            error_path(err)
        }
        ignore::Error::Partial(errors) => errors.iter().find_map(error_path),
        _ => None,
    }
}

pub(super) fn is_yaml_name(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("yml" | "yaml")
    )
}
