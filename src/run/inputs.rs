//! What each unit read, hashed into the key its stored findings are kept
//! under (`cache::results`): the content of every file the unit reads, the
//! settings that change its findings, and confvet's version. A unit whose
//! key is found again is not checked: its findings are reused.
//!
//! What a unit reads, by system:
//! - a ytt package: every input file `ytt -f ROOT` reads (templates, data
//!   values, schemas, `.star` files a template loads, private libraries,
//!   text templates), with their marks; the data-value flags' files and
//!   environment variables; and the tree's CRDs, which its output is
//!   checked against;
//! - a Tekton group: its files (a Task another file references is in the
//!   same group, see `check::components`) and the repositories (`.git`)
//!   they sit in, which decide how a git resolver's ref resolves;
//! - a KubeVirt group: its files and the tree's CRDs;
//! - every unit: the configuration, the command line's settings and the
//!   Kubernetes version.

use super::request::LintRequest;
use crate::cache::{Cache, Digest, KeyHasher};
use crate::check::ytt::marks;
use crate::config::Config;
use crate::discover::{DiscoveredFile, System, Unit};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Bumped whenever what a key hashes changes meaning.
const KEY_FORMAT: &str = "unit-key-2";

/// What every unit's key shares: the run's settings and, for the units
/// whose output is checked against Kubernetes schemas, the schemas' files.
pub struct KeyContext<'a> {
    pub cache: &'a Cache,
    pub cwd: &'a Path,
    /// The configuration, the command line's settings, the version.
    pub settings: Digest,
    /// The Kubernetes catalog: its version and every CRD or schema file it
    /// may read; the same digest for every unit when the check is off.
    pub catalog: Digest,
    /// A data-value flag or scenario reads environment variables: findings
    /// may then quote them, and the cache never stores those.
    pub reads_environment: bool,
    /// The files every unit's key hashes: the data-value flags' files and
    /// the catalog's. A stored finding may point into them.
    pub shared_reads: std::collections::HashSet<PathBuf>,
    /// `.git` lookups already made, by directory (units are keyed on all
    /// cores).
    repositories: std::sync::Mutex<HashMap<PathBuf, Option<PathBuf>>>,
}

/// A unit's key, and the digests that explain a miss.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitKey {
    pub key: Digest,
    /// Which files the unit read (their paths only).
    pub paths: Digest,
}

/// Whether the key of `unit` hashed the content of `path`: the only files
/// a stored finding of the unit may point into, besides the run's shared
/// ones ([`KeyContext::shared_reads`]). Asked only of the few files a
/// reused unit's findings name, so no set of every unit's paths is built.
pub fn unit_reads(
    unit: &Unit,
    files: &[DiscoveredFile],
    inputs: Option<&marks::Inputs>,
    path: &Path,
) -> bool {
    match (unit.system, inputs) {
        (System::Ytt, Some(inputs)) => inputs.files.iter().any(|input| input.path == path),
        _ => unit.files.iter().any(|&i| files[i].path == path),
    }
}

impl<'a> KeyContext<'a> {
    /// The context of a run; `catalog_files` are the files the Kubernetes
    /// catalog may read, None when the check is off.
    pub fn new(
        request: &LintRequest,
        cache: &'a Cache,
        cwd: &'a Path,
        catalog: Option<(crate::check::kubernetes::Version, Vec<PathBuf>)>,
    ) -> KeyContext<'a> {
        let context = KeyContext {
            cache,
            cwd,
            settings: Digest([0; 16]),
            catalog: Digest([0; 16]),
            reads_environment: false,
            shared_reads: Default::default(),
            repositories: Default::default(),
        };
        let mut shared_reads: std::collections::HashSet<PathBuf> = catalog
            .iter()
            .flat_map(|(_, files)| files.iter().cloned())
            .collect();
        let (settings, reads_environment) = context.settings_digest(request, &mut shared_reads);
        let catalog = context.catalog_digest(catalog);
        KeyContext {
            settings,
            catalog,
            reads_environment,
            shared_reads,
            ..context
        }
    }

    /// A hasher that keys paths as keys name them: relative to the current
    /// directory when below it, so that a checkout elsewhere computes the
    /// same keys.
    fn hasher(&self) -> KeyHasher {
        KeyHasher::relative_to(self.cwd)
    }

    /// Hash `path`'s name and content; a file that cannot be read hashes
    /// as missing (a unit that reads it fails the same way again).
    fn file(&self, hasher: &mut KeyHasher, path: &Path) {
        hasher.path(path);
        match self.cache.hash(path) {
            Some(digest) => hasher.part(&digest.0),
            None => hasher.text("<unreadable>"),
        };
    }

    /// The settings' digest, and whether a flag reads the environment.
    fn settings_digest(
        &self,
        request: &LintRequest,
        reads: &mut std::collections::HashSet<PathBuf>,
    ) -> (Digest, bool) {
        // Paths relative to the current directory: a checkout elsewhere
        // computes the same keys.
        let mut hasher = self.hasher();
        hasher.text(KEY_FORMAT).text(crate::cache::BUILD);
        // Every setting, field by field (`Key`); the environment only where
        // a flag reads it, below.
        hasher
            .key(&request.ytt)
            .key(&request.kubernetes)
            .key(&request.config);
        let env = &request.ytt.flags.env;
        let flags = &request.ytt.flags;
        let prefixes = flags
            .data_values_env
            .iter()
            .chain(&flags.data_values_env_yaml)
            .map(String::as_str)
            .chain(request.config.iter().flat_map(Config::env_prefixes));
        let mut reads_environment = false;
        for given in prefixes {
            for (name, value) in crate::check::ytt::flags::env_vars_read(given, env) {
                hasher.text(name).text(value);
                reads_environment = true;
            }
        }
        // The files data-value flags read, on the command line and in the
        // configuration's scenarios.
        let scenarios = request
            .config
            .iter()
            .flat_map(Config::all_scenarios)
            .map(|s| &s.flags);
        for flags in std::iter::once(flags).chain(scenarios) {
            for path in flag_files(flags) {
                self.file(&mut hasher, &path);
                reads.insert(crate::source::normalize_path(&path));
            }
        }
        (hasher.finish(), reads_environment)
    }

    fn catalog_digest(
        &self,
        catalog: Option<(crate::check::kubernetes::Version, Vec<PathBuf>)>,
    ) -> Digest {
        let mut hasher = self.hasher();
        match catalog {
            None => {
                hasher.text("no kubernetes check");
            }
            Some((version, mut files)) => {
                hasher.key(&version);
                files.sort();
                files.dedup();
                for path in &files {
                    self.file(&mut hasher, path);
                }
            }
        }
        hasher.finish()
    }

    /// The key of `unit`: for a ytt package, over `inputs` (what `ytt -f
    /// ROOT` reads); for other units, over their files.
    pub fn unit_key(
        &self,
        unit: &Unit,
        files: &[DiscoveredFile],
        inputs: Option<&marks::Inputs>,
    ) -> UnitKey {
        let mut hasher = self.hasher();
        let mut paths = self.hasher();
        hasher.part(&self.settings.0);
        hasher.text(unit.system.name()).path(&unit.root);
        paths.text(unit.system.name()).path(&unit.root);
        if unit.system != System::Tekton {
            hasher.part(&self.catalog.0);
        }
        match (unit.system, inputs) {
            (System::Ytt, Some(inputs)) => {
                for input in &inputs.files {
                    self.file(&mut hasher, &input.path);
                    hasher.key(input);
                    paths.path(&input.path);
                }
                for path in inputs.excluded.iter().chain(&inputs.refused_links) {
                    hasher.path(path);
                    paths.path(path);
                }
            }
            _ => {
                for &i in &unit.files {
                    self.file(&mut hasher, &files[i].path);
                    paths.path(&files[i].path);
                }
            }
        }
        // Which of its files discovery kept: ignore files, the
        // configuration's and the command line's excludes and the roots
        // decide it, and a ytt package reports findings in those only,
        // though it reads every file below its root.
        hasher.text("discovered");
        paths.text("discovered");
        for path in unit
            .files
            .iter()
            .map(|&i| &files[i].path)
            .chain(&unit.other_files)
        {
            hasher.path(path);
            paths.path(path);
        }
        if unit.system == System::Tekton {
            self.repositories(&mut hasher, unit, files);
        }
        UnitKey {
            key: hasher.finish(),
            paths: paths.finish(),
        }
    }

    /// The repositories a Tekton group's files sit in (the nearest
    /// ancestor holding `.git`), and their git configuration, which names
    /// the remotes a git resolver's URL is compared with.
    fn repositories(&self, hasher: &mut KeyHasher, unit: &Unit, files: &[DiscoveredFile]) {
        let mut roots: Vec<PathBuf> = unit
            .files
            .iter()
            .filter_map(|&i| files[i].path.parent())
            .filter_map(|dir| self.repository(dir))
            .collect();
        roots.sort();
        roots.dedup();
        for root in roots {
            hasher.path(&root);
            let config = root.join(".git").join("config");
            if config.is_file() {
                self.file(hasher, &config);
            }
        }
    }

    fn repository(&self, dir: &Path) -> Option<PathBuf> {
        if let Some(found) = self.lock_repositories().get(dir) {
            return found.clone();
        }
        let found = if dir.join(".git").exists() {
            Some(dir.to_path_buf())
        } else {
            dir.parent().and_then(|parent| self.repository(parent))
        };
        self.lock_repositories()
            .insert(dir.to_path_buf(), found.clone());
        found
    }

    fn lock_repositories(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, Option<PathBuf>>> {
        (self.repositories.lock()).unwrap_or_else(|e| e.into_inner())
    }
}

/// The files a set of data-value flags reads: `--data-values-file` (a file,
/// or every file below a folder) and the paths of `--data-value-file`.
fn flag_files(flags: &crate::check::ytt::flags::DataValueFlags) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for given in &flags.data_values_file {
        let path = flags.cwd.join(given);
        if path.is_dir() {
            out.extend(crate::source::files_below(&path));
        } else {
            out.push(path);
        }
    }
    for given in &flags.data_value_file {
        if let Some((_, path)) = given.split_once('=') {
            out.push(flags.cwd.join(path));
        }
    }
    out
}
