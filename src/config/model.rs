//! The configuration as read: the `Config` a run asks which files to lint,
//! which rules are off or at which severity, and what each declared ytt
//! package is checked with (a leaf: parsing and loading build on it).

use crate::check::ytt::flags::DataValueFlags;
use crate::check::ytt::marks::FileMark;
use crate::discover::{DiscoverOptions, PathFilter, System};
use crate::finding::{Finding, Severity};
use confvet_key::KeyHasher;
use ignore::gitignore::Gitignore;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What the operator allows the repository's configuration (the command
/// line's say, never the file's own).
#[derive(Debug, Clone, Copy, Default)]
pub struct LoadOptions {
    /// `--allow-config-env`: a scenario's `data-values-env` and
    /// `data-values-env-yaml` may read the environment. Without it they
    /// are `config/invalid`: CI jobs keep secrets in the environment, and
    /// the configuration is written by whoever opens a pull request.
    pub allow_env: bool,
}

/// A parsed configuration file.
#[derive(Debug, Clone)]
pub struct Config {
    pub path: PathBuf,
    /// Paths and patterns in the file are relative to this directory, and
    /// must name what is inside it.
    pub dir: PathBuf,
    /// The file's own mistakes, with its `rules` applied.
    pub findings: Vec<Finding>,
    /// The file names a path outside its directory, or a special file:
    /// a hostile or broken configuration, a usage error (exit 2).
    pub names_outside: bool,
    pub(super) include: Option<Patterns>,
    pub(super) exclude: Option<Patterns>,
    pub(super) systems_off: Vec<System>,
    pub(super) rules: Vec<RuleSetting>,
    pub(super) ytt: YttConfig,
    pub(super) kubernetes: KubernetesConfig,
}

/// `include` or `exclude`: gitignore-style patterns, as written (what a
/// cache key takes) and compiled.
#[derive(Debug, Clone)]
pub(super) struct Patterns {
    pub(super) lines: Vec<String>,
    pub(super) matcher: Gitignore,
}

/// `kubernetes`: the schema check of rendered output and manifests.
#[derive(Debug, Clone)]
pub(super) struct KubernetesConfig {
    /// False: no Kubernetes schema check at all.
    pub(super) check: bool,
    /// Plain manifests of the tree are checked too.
    pub(super) manifests: bool,
    pub(super) version: Option<crate::check::kubernetes::Version>,
    /// Files and folders of CRDs and JSON Schemas (absolute, inside).
    pub(super) schemas: Vec<PathBuf>,
}

impl Default for KubernetesConfig {
    fn default() -> KubernetesConfig {
        KubernetesConfig {
            check: true,
            manifests: false,
            version: None,
            schemas: Vec::new(),
        }
    }
}

/// One entry of `rules`: a rule id or a group such as `ytt/*`.
#[derive(Debug, Clone)]
pub(super) struct RuleSetting {
    pub(super) selector: String,
    /// None: off.
    pub(super) severity: Option<Severity>,
}

#[derive(Debug, Clone, Default)]
pub(super) struct YttConfig {
    pub(super) strict: bool,
    pub(super) ignore_unknown_comments: bool,
    pub(super) packages: Vec<Package>,
}

#[derive(Debug, Clone)]
pub(super) struct Package {
    /// Absolute.
    pub(super) root: PathBuf,
    pub(super) strict: bool,
    pub(super) ignore_unknown_comments: bool,
    pub(super) scenarios: Vec<Scenario>,
    /// The Carvel Package resource file that ships this package (absolute).
    pub(super) package_resource: Option<PathBuf>,
    /// ytt's `--file-mark`s for this package, applied before the command
    /// line's.
    pub(super) file_marks: Vec<FileMark>,
}

/// One set of data values a package is checked with.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub name: String,
    /// Only the value lists; paths already resolved.
    pub flags: DataValueFlags,
}

impl Config {
    /// True when the file has mistakes at error severity: nothing is linted
    /// then, and the exit code is 1.
    pub fn has_errors(&self) -> bool {
        self.findings.iter().any(|f| f.severity == Severity::Error)
    }

    /// What the file changes in discovery.
    pub fn discover_options(&self) -> DiscoverOptions {
        let filter: Option<PathFilter> = if self.include.is_some() || self.exclude.is_some() {
            let matcher =
                |patterns: &Option<Patterns>| patterns.as_ref().map(|p| p.matcher.clone());
            let (dir, include, exclude) = (
                self.dir.clone(),
                matcher(&self.include),
                matcher(&self.exclude),
            );
            Some(Arc::new(move |path: &Path, is_dir: bool| {
                keeps(&dir, include.as_ref(), exclude.as_ref(), path, is_dir)
            }))
        } else {
            None
        };
        DiscoverOptions {
            filter,
            package_roots: self.ytt.packages.iter().map(|p| p.root.clone()).collect(),
            systems_off: self.systems_off.clone(),
            cache: None,
            cache_folders: Default::default(),
            named_only: false,
            workspace: false,
        }
    }

    /// Drop findings of rules set to `off`; give the others the severity
    /// set for their rule id, else for their group (`ytt/*`).
    pub fn apply_rules(&self, findings: &mut Vec<Finding>) {
        if self.rules.is_empty() {
            return;
        }
        findings.retain_mut(|finding| match self.setting(finding.rule) {
            None => true,
            Some(None) => false,
            Some(Some(severity)) => {
                finding.severity = severity;
                true
            }
        });
    }

    /// Whether `rules` turns rule `id` off.
    pub fn turns_off(&self, id: &str) -> bool {
        self.setting(id) == Some(None)
    }

    fn setting(&self, rule: &str) -> Option<Option<Severity>> {
        let group = rule.split('/').next().unwrap_or(rule);
        self.rules
            .iter()
            .find(|s| s.selector == rule)
            .or_else(|| {
                self.rules
                    .iter()
                    .find(|s| s.selector.strip_suffix("/*") == Some(group))
            })
            .map(|s| s.severity)
    }

    /// Whether the Kubernetes schema check runs (`kubernetes: false` turns
    /// it off).
    pub fn kubernetes_check(&self) -> bool {
        self.kubernetes.check
    }

    /// Whether plain manifests of the tree are checked (`kubernetes: true`).
    pub fn kubernetes_manifests(&self) -> bool {
        self.kubernetes.manifests
    }

    /// The Kubernetes version the configuration names.
    pub fn kubernetes_version(&self) -> Option<crate::check::kubernetes::Version> {
        self.kubernetes.version
    }

    /// Files and folders of CRDs and JSON Schemas the configuration names.
    pub fn kubernetes_schemas(&self) -> &[PathBuf] {
        &self.kubernetes.schemas
    }

    /// `(Package resource file, ytt package root)` for every package that
    /// names its `package-resource`.
    pub fn package_resources(&self) -> Vec<(PathBuf, PathBuf)> {
        self.ytt
            .packages
            .iter()
            .filter_map(|p| Some((p.package_resource.clone()?, p.root.clone())))
            .collect()
    }

    fn package(&self, root: &Path) -> Option<&Package> {
        self.ytt.packages.iter().find(|p| p.root == root)
    }

    /// Whether `ytt.packages` names `root` as a package's root.
    pub fn declares_package(&self, root: &Path) -> bool {
        self.package(root).is_some()
    }

    /// `strict` for the package at `root`: of `ytt` or of its declaration.
    pub fn strict(&self, root: &Path) -> bool {
        self.ytt.strict || self.package(root).is_some_and(|p| p.strict)
    }

    /// `ignore-unknown-comments` for the package at `root`.
    pub fn ignore_unknown_comments(&self, root: &Path) -> bool {
        self.ytt.ignore_unknown_comments
            || self
                .package(root)
                .is_some_and(|p| p.ignore_unknown_comments)
    }

    /// The scenarios the package at `root` is checked in (none: once, as
    /// it is).
    pub fn scenarios(&self, root: &Path) -> &[Scenario] {
        self.package(root).map_or(&[], |p| &p.scenarios)
    }

    /// Every scenario of every package.
    pub fn all_scenarios(&self) -> impl Iterator<Item = &Scenario> {
        self.ytt.packages.iter().flat_map(|p| &p.scenarios)
    }

    /// The `data-values-env` and `data-values-env-yaml` prefixes of every
    /// scenario (there are none unless `--allow-config-env` allowed them).
    pub fn env_prefixes(&self) -> impl Iterator<Item = &str> {
        self.ytt
            .packages
            .iter()
            .flat_map(|p| &p.scenarios)
            .flat_map(|s| {
                s.flags
                    .data_values_env
                    .iter()
                    .chain(&s.flags.data_values_env_yaml)
            })
            .map(String::as_str)
    }

    /// The `file-mark`s the configuration gives the package at `root`.
    pub fn file_marks(&self, root: &Path) -> &[FileMark] {
        self.package(root).map_or(&[], |p| &p.file_marks)
    }
}

/// Whether the walk keeps `path`: inside the configuration's directory, a
/// path matching `exclude` (or below a directory that does) is skipped, and
/// with `include`, only files matching it (or below a directory that does)
/// are kept. Paths outside the directory are kept.
fn keeps(
    dir: &Path,
    include: Option<&Gitignore>,
    exclude: Option<&Gitignore>,
    path: &Path,
    is_dir: bool,
) -> bool {
    let Ok(relative) = path.strip_prefix(dir) else {
        return true;
    };
    if relative.as_os_str().is_empty() {
        return true;
    }
    if exclude.is_some_and(|e| e.matched_path_or_any_parents(relative, is_dir).is_ignore()) {
        return false;
    }
    match include {
        Some(include) if !is_dir => include
            .matched_path_or_any_parents(relative, false)
            .is_ignore(),
        _ => true,
    }
}

// The configuration as cache keys take it: every field, the compiled
// matchers by the patterns they were built from.

impl confvet_key::Key for Config {
    fn key(&self, out: &mut KeyHasher) {
        let Config {
            path,
            dir,
            // The file's own mistakes are reported by the run itself, never
            // by a unit; what they leave in force is keyed below.
            findings: _,
            names_outside,
            include,
            exclude,
            systems_off,
            rules,
            ytt,
            kubernetes,
        } = self;
        out.key(path)
            .key(dir)
            .key(names_outside)
            .key(include)
            .key(exclude);
        out.key(systems_off).key(rules).key(ytt).key(kubernetes);
    }
}

impl confvet_key::Key for Patterns {
    fn key(&self, out: &mut KeyHasher) {
        let Patterns { lines, matcher: _ } = self;
        out.key(lines);
    }
}

impl confvet_key::Key for KubernetesConfig {
    fn key(&self, out: &mut KeyHasher) {
        let KubernetesConfig {
            check,
            manifests,
            version,
            schemas,
        } = self;
        out.key(check).key(manifests).key(version).key(schemas);
    }
}

impl confvet_key::Key for RuleSetting {
    fn key(&self, out: &mut KeyHasher) {
        let RuleSetting { selector, severity } = self;
        out.key(selector).key(severity);
    }
}

impl confvet_key::Key for YttConfig {
    fn key(&self, out: &mut KeyHasher) {
        let YttConfig {
            strict,
            ignore_unknown_comments,
            packages,
        } = self;
        out.key(strict).key(ignore_unknown_comments).key(packages);
    }
}

impl confvet_key::Key for Package {
    fn key(&self, out: &mut KeyHasher) {
        let Package {
            root,
            strict,
            ignore_unknown_comments,
            scenarios,
            package_resource,
            file_marks,
        } = self;
        out.key(root).key(strict).key(ignore_unknown_comments);
        out.key(scenarios).key(package_resource).key(file_marks);
    }
}

impl confvet_key::Key for Scenario {
    fn key(&self, out: &mut KeyHasher) {
        let Scenario { name, flags } = self;
        out.key(name).key(flags);
    }
}
