//! The configuration file `.confvet.yaml`: which files to lint, which
//! systems and rules to run at which severity, and ytt packages declared
//! with scenarios (a package checked once per set of data values).
//!
//! The file is read with confvet's own YAML parser, so each of its mistakes
//! is a finding (`config/invalid`, `config/unknown-key`) at its line. Paths
//! and patterns in it are relative to the directory the file is in.
//! `schema/confvet.schema.json` describes the same keys; a test keeps the two
//! in step.

mod model;
mod parse;

#[cfg(test)]
mod tests;

pub use self::model::{Config, LoadOptions, Scenario};
pub use self::parse::{
    KUBERNETES_KEYS, PACKAGE_KEYS, RULE_SETTINGS, SCENARIO_KEYS, TOP_KEYS, YTT_KEYS,
};

use crate::error::{Doing, Error};
use crate::source::{SourceFile, Sources, display_name, normalize_path, resolves_below};
use std::path::{Path, PathBuf};

/// The names searched for, in this order, in the current directory and
/// then in each directory above it.
pub const FILE_NAMES: [&str; 2] = [".confvet.yaml", ".confvet.yml"];

/// Where the configuration comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigSource {
    /// Search upward from the current directory.
    Search,
    /// Search upward from this folder (absolute): the closest configuration
    /// of a linted path, as ruff finds its settings.
    SearchFrom(PathBuf),
    /// `--config FILE`.
    File(PathBuf),
    /// `--no-config`.
    Disabled,
}

impl ConfigSource {
    pub fn from_flags(file: Option<&Path>, disabled: bool) -> ConfigSource {
        match (file, disabled) {
            (_, true) => ConfigSource::Disabled,
            (Some(path), false) => ConfigSource::File(path.to_path_buf()),
            (None, false) => ConfigSource::Search,
        }
    }
}

/// The nearest configuration file at or above `dir`.
pub fn find(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .flat_map(|d| FILE_NAMES.iter().map(move |name| d.join(name)))
        .find(|p| p.is_file())
}

/// Read and parse the configuration. `Err` when a file named with `--config`
/// or found by the search cannot be read at all, or is a symbolic link that
/// leads out of the directory it was found in (exit 2); its mistakes are
/// findings in the returned `Config`.
pub fn load(
    source: &ConfigSource,
    cwd: &Path,
    sources: &Sources,
    options: LoadOptions,
) -> Result<Option<Config>, Error> {
    let path = match source {
        ConfigSource::Disabled => return Ok(None),
        ConfigSource::File(path) => normalize_path(&cwd.join(path)),
        ConfigSource::Search => match find(cwd) {
            Some(path) => path,
            None => return Ok(None),
        },
        ConfigSource::SearchFrom(dir) => match find(dir) {
            Some(path) => path,
            None => return Ok(None),
        },
    };
    let shown = display_name(&path, cwd);
    // A configuration found in the tree is the repository's: it may be a
    // link, but only to a file of its own directory's tree, or it could
    // make confvet read (and show in findings) a file from anywhere.
    if matches!(source, ConfigSource::Search | ConfigSource::SearchFrom(_))
        && let Some(dir) = path.parent()
        && !resolves_below(&path, dir)
    {
        return Err(Error::Config {
            file: shown,
            line: None,
            problem: "is a symbolic link that leads out of its directory; not read".into(),
        });
    }
    let bytes = sources
        .read(&path)
        .map_err(|err| Error::io_named(Doing::Reading, "configuration file", &shown, err))?;
    let Ok(text) = String::from_utf8(bytes) else {
        return Err(Error::Config {
            file: shown,
            line: None,
            problem: "is not UTF-8 text".into(),
        });
    };
    let id = sources.add(SourceFile::new(shown, Some(path.clone()), text));
    Ok(Some(Config::parse(path, id, cwd, sources, options)))
}
