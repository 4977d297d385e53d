//! `data.read` and `data.list`: the package's files as the running
//! template's library sees them.

use crate::template::runtime::{RuntimeError, with_current};
use std::path::{Path, PathBuf};

/// Why `data.read` or `data.list` found nothing, in ytt's words (the
/// path as the template gave it).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PackageFileError {
    /// Called outside a render (no session to read the package from).
    #[error(transparent)]
    Runtime(#[from] RuntimeError),
    #[error("Expected to find file '{0}'")]
    FileNotFound(String),
    #[error("file '{0}' is not UTF-8 text")]
    NotUtf8(String),
    #[error("Did not find '{0}'")]
    FolderNotFound(String),
}

impl crate::modules::native::YttMessage for PackageFileError {}

/// Where the running template's files are.
struct Package {
    root: PathBuf,
    /// The files named on the command line (`render`), by the names ytt
    /// gives them, in input order; None: every file below `root`.
    listed: Option<Vec<(String, PathBuf)>>,
    inputs: Option<std::sync::Arc<crate::marks::Inputs>>,
    /// The folder, by name, of the file running: ytt's current library.
    current: String,
}

fn joined(path: &Path) -> String {
    path.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

impl Package {
    fn running_in(dir: Option<&Path>) -> Result<Package, RuntimeError> {
        let (root, listed, inputs) =
            with_current(|s| (s.root.clone(), s.library_files.clone(), s.inputs.clone()))?;
        let dir = dir.map(crate::source::normalize_path);
        let current = dir
            .and_then(|dir| {
                let named = listed.as_ref().and_then(|files| {
                    files
                        .iter()
                        .find(|(_, p)| crate::source::normalize_path(p).parent() == Some(&*dir))
                        .map(|(name, _)| name.rsplit_once('/').map_or("", |(d, _)| d).to_string())
                });
                named.or_else(|| {
                    let root = crate::source::normalize_path(&root);
                    dir.strip_prefix(&root).ok().map(joined)
                })
            })
            .unwrap_or_default();
        Ok(Package {
            root,
            listed,
            inputs,
            current,
        })
    }

    /// Not a file `--file-mark` excluded, not through a link the symlink
    /// flags did not allow.
    fn admits(&self, full: &Path) -> bool {
        !self
            .inputs
            .as_ref()
            .is_some_and(|i| i.is_excluded(full) || i.get(full).is_none())
    }

    /// The file of the package named `name`.
    fn find(&self, name: &str) -> Option<PathBuf> {
        match &self.listed {
            Some(files) => files
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, p)| p.clone()),
            None => {
                let full = crate::source::normalize_path(&self.root.join(name));
                (full.starts_with(&self.root) && full.is_file() && self.admits(&full))
                    .then_some(full)
            }
        }
    }

    /// Every file's name, in input order.
    fn names(&self) -> Vec<String> {
        match &self.listed {
            Some(files) => files.iter().map(|(n, _)| n.clone()).collect(),
            None => crate::source::files_below(&self.root)
                .into_iter()
                .filter(|p| self.admits(&crate::source::normalize_path(p)))
                .filter_map(|p| p.strip_prefix(&self.root).ok().map(joined))
                .collect(),
        }
    }
}

/// `path` as a name of the package: `/x` from the root, else from the
/// current folder; None when it climbs out (`..`).
fn name_of(path: &str, current: &str) -> Option<String> {
    let name = match path.strip_prefix('/') {
        Some(rest) => rest.to_string(),
        None if current.is_empty() => path.to_string(),
        None => format!("{current}/{path}"),
    };
    let name = name.trim_end_matches('/').to_string();
    (!name.split('/').any(|p| p == ".." || p == ".")).then_some(name)
}

/// A file of a private library (`_ytt_lib`), which ytt's `data.list` and
/// `data.read` do not see.
fn is_private(name: &str) -> bool {
    crate::marks::name_in_ytt_lib(name)
}

/// `data.read(path)`: a file of the package, relative to the folder of the
/// file running (ytt's current library), or to the package root when the
/// path starts with `/`.
pub fn read_package_file(path: &str, dir: Option<&Path>) -> Result<String, PackageFileError> {
    let missing = || PackageFileError::FileNotFound(path.to_string());
    let package = Package::running_in(dir)?;
    let full = name_of(path, &package.current)
        .filter(|name| !is_private(name))
        .and_then(|name| package.find(&name))
        .ok_or_else(missing)?;
    let bytes = with_current(|s| s.files.read(&full))
        .ok()
        .and_then(Result::ok)
        .ok_or_else(missing)?;
    String::from_utf8(bytes).map_err(|_| PackageFileError::NotUtf8(path.to_string()))
}

/// `data.list(path)`: the files below the folder `path` (relative to the
/// current folder, or to the root when it starts with `/`), named relative
/// to it (with a leading `/` when `path` had one), in ytt's library order:
/// each folder's own files before its subfolders'.
pub fn list_package_files(path: &str, dir: Option<&Path>) -> Result<Vec<String>, PackageFileError> {
    let package = Package::running_in(dir)?;
    let from_root = path.starts_with('/');
    let base = name_of(path, &package.current)
        .ok_or_else(|| PackageFileError::FolderNotFound(path.to_string()))?;
    let all = package.names();
    let names: Vec<&str> = all
        .iter()
        .map(String::as_str)
        .filter(|name| !is_private(name))
        .filter_map(|name| {
            if base.is_empty() {
                Some(name)
            } else {
                name.strip_prefix(&base)?.strip_prefix('/')
            }
        })
        .collect();
    Ok(crate::marks::library_order(&names)
        .into_iter()
        .map(|i| {
            if from_root {
                format!("/{}", names[i])
            } else {
                names[i].to_string()
            }
        })
        .collect())
}
