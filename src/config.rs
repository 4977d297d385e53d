//! The configuration file `.confvet.yaml`: which files to lint, which
//! systems and rules to run at which severity, and ytt packages declared
//! with scenarios (a package checked once per set of data values).
//!
//! The file is read with confvet's own YAML parser, so each of its mistakes
//! is a finding (`config/invalid`, `config/unknown-key`) at its line. Paths
//! and patterns in it are relative to the directory the file is in.
//! `schema/confvet.schema.json` describes the same keys; a test keeps the two
//! in step.

use crate::check::ytt::flags::DataValueFlags;
use crate::check::ytt::marks::{self, FileMark};
use crate::discover::{DiscoverOptions, PathFilter, System};
use crate::finding::{Finding, Severity};
use crate::source::{SourceFile, Sources, Span, display_name, normalize_path, resolves_below};
use crate::yaml::{self, MapItem, Node, ScalarValue, Value};
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The names searched for, in this order, in the current directory and
/// then in each directory above it.
pub const FILE_NAMES: [&str; 2] = [".confvet.yaml", ".confvet.yml"];

/// The keys each part of the file takes (the JSON Schema must list the same).
pub const TOP_KEYS: &[&str] = &["include", "exclude", "systems", "rules", "ytt"];
pub const YTT_KEYS: &[&str] = &["strict", "ignore-unknown-comments", "packages"];
pub const PACKAGE_KEYS: &[&str] = &[
    "path",
    "strict",
    "ignore-unknown-comments",
    "scenarios",
    "package-resource",
    "file-mark",
];
pub const SCENARIO_KEYS: &[&str] = &[
    "name",
    "data-values-file",
    "data-value",
    "data-value-yaml",
    "data-value-file",
    "data-values-env",
    "data-values-env-yaml",
];
/// What a rule may be set to (YAML 1.1 reads a plain `off` as false).
pub const RULE_SETTINGS: [&str; 3] = ["off", "warning", "error"];

/// Where the configuration comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigSource {
    /// Search upward from the current directory.
    Search,
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

/// Read and parse the configuration. `Err` when a file named with `--config`
/// or found by the search cannot be read at all, or is a symbolic link that
/// leads out of the directory it was found in (exit 2); its mistakes are
/// findings in the returned `Config`.
pub fn load(
    source: &ConfigSource,
    cwd: &Path,
    sources: &Sources,
    options: LoadOptions,
) -> Result<Option<Config>, String> {
    let path = match source {
        ConfigSource::Disabled => return Ok(None),
        ConfigSource::File(path) => normalize_path(&cwd.join(path)),
        ConfigSource::Search => match find(cwd) {
            Some(path) => path,
            None => return Ok(None),
        },
    };
    let shown = display_name(&path, cwd);
    // A configuration found in the tree is the repository's: it may be a
    // link, but only to a file of its own directory's tree, or it could
    // make confvet read (and show in findings) a file from anywhere.
    if matches!(source, ConfigSource::Search)
        && let Some(dir) = path.parent()
        && !resolves_below(&path, dir)
    {
        return Err(format!(
            "configuration file {shown} is a symbolic link that leads out of its directory; not read"
        ));
    }
    let bytes = crate::source::read_limited(&path)
        .map_err(|err| format!("cannot read configuration file {shown}: {err}"))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| format!("configuration file {shown} is not UTF-8 text"))?;
    let id = sources.add(SourceFile::new(shown, Some(path.clone()), text));
    Ok(Some(Config::parse(path, id, cwd, sources, options)))
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
    include: Option<Gitignore>,
    exclude: Option<Gitignore>,
    systems_off: Vec<System>,
    rules: Vec<RuleSetting>,
    ytt: YttConfig,
}

/// One entry of `rules`: a rule id or a group such as `ytt/*`.
#[derive(Debug, Clone)]
struct RuleSetting {
    selector: String,
    /// None: off.
    severity: Option<Severity>,
}

#[derive(Debug, Clone, Default)]
struct YttConfig {
    strict: bool,
    ignore_unknown_comments: bool,
    packages: Vec<Package>,
}

#[derive(Debug, Clone)]
struct Package {
    /// Absolute.
    root: PathBuf,
    strict: bool,
    ignore_unknown_comments: bool,
    scenarios: Vec<Scenario>,
    /// The Carvel Package resource file that ships this package (absolute).
    package_resource: Option<PathBuf>,
    /// ytt's `--file-mark`s for this package, applied before the command
    /// line's.
    file_marks: Vec<FileMark>,
}

/// One set of data values a package is checked with.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub name: String,
    /// Only the value lists; paths already resolved.
    pub flags: DataValueFlags,
}

impl Config {
    fn parse(
        path: PathBuf,
        id: crate::source::FileId,
        cwd: &Path,
        sources: &Sources,
        options: LoadOptions,
    ) -> Config {
        let dir = path
            .parent()
            .map_or_else(|| cwd.to_path_buf(), Path::to_path_buf);
        let mut config = Config {
            path,
            dir,
            findings: Vec::new(),
            names_outside: false,
            include: None,
            exclude: None,
            systems_off: Vec::new(),
            rules: Vec::new(),
            ytt: YttConfig::default(),
        };
        let file = sources.get(id);
        let set = match yaml::parse_file(id, &file.text, &yaml::ParseOptions::default()) {
            Ok(set) => set,
            Err(err) => {
                config
                    .findings
                    .push(Finding::new(err.rule, err.span, err.message));
                return config;
            }
        };
        let mut parser = Parser {
            findings: Vec::new(),
            dir: &config.dir,
            cwd,
            options,
            names_outside: false,
        };
        if let Some(extra) = set.docs.get(1) {
            parser.invalid(
                extra.span,
                "the configuration file must hold one YAML document",
            );
        }
        if let Some(doc) = set.docs.first() {
            for item in parser.map(&doc.value, "the configuration", TOP_KEYS) {
                let node = &item.value;
                match item.key.text.as_str() {
                    "include" => config.include = parser.patterns(node, "include"),
                    "exclude" => config.exclude = parser.patterns(node, "exclude"),
                    "systems" => config.systems_off = parser.systems(node),
                    "rules" => config.rules = parser.rules(node),
                    "ytt" => config.ytt = parser.ytt(node),
                    _ => {}
                }
            }
        }
        config.findings = parser.findings;
        config.names_outside = parser.names_outside;
        let mut findings = std::mem::take(&mut config.findings);
        config.apply_rules(&mut findings);
        config.findings = findings;
        config
    }

    /// True when the file has mistakes at error severity: nothing is linted
    /// then, and the exit code is 1.
    pub fn has_errors(&self) -> bool {
        self.findings.iter().any(|f| f.severity == Severity::Error)
    }

    /// What the file changes in discovery.
    pub fn discover_options(&self) -> DiscoverOptions {
        let filter: Option<PathFilter> = if self.include.is_some() || self.exclude.is_some() {
            let (dir, include, exclude) =
                (self.dir.clone(), self.include.clone(), self.exclude.clone());
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

/// Reads the YAML tree, collecting every mistake.
struct Parser<'a> {
    findings: Vec<Finding>,
    dir: &'a Path,
    cwd: &'a Path,
    options: LoadOptions,
    names_outside: bool,
}

/// What a path of the configuration must name.
#[derive(Clone, Copy, PartialEq, Eq)]
enum PathKind {
    Directory,
    File,
    FileOrDirectory,
}

impl Parser<'_> {
    fn invalid(&mut self, span: Span, message: impl Into<String>) -> &mut Finding {
        self.findings
            .push(Finding::new(&crate::rules::config::INVALID, span, message));
        self.findings.last_mut().expect("just pushed")
    }

    /// The items of a map with known keys; a null node is an empty map.
    fn map<'n>(&mut self, node: &'n Node, what: &str, keys: &[&str]) -> Vec<&'n MapItem> {
        match &node.value {
            Value::Map(items) => items
                .iter()
                .filter(|item| {
                    let key = item.key.text.as_str();
                    if keys.contains(&key) {
                        return true;
                    }
                    let known: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
                    let help = match crate::suggest::did_you_mean(key, &known) {
                        Some(near) => format!("did you mean \"{near}\"?"),
                        None => format!("{what} takes {}", keys.join(", ")),
                    };
                    self.findings.push(
                        Finding::new(
                            &crate::rules::config::UNKNOWN_KEY,
                            item.key_span,
                            format!("unknown key \"{key}\" in {what}"),
                        )
                        .with_help(help),
                    );
                    false
                })
                .collect(),
            _ if node.is_null() => Vec::new(),
            _ => {
                self.invalid(
                    node.span,
                    format!("{what} must be a map, found {}", node.type_name()),
                );
                Vec::new()
            }
        }
    }

    fn bool(&mut self, node: &Node, what: &str) -> bool {
        match node.as_scalar().map(|s| &s.resolved) {
            Some(ScalarValue::Bool(b)) => *b,
            _ => {
                self.invalid(
                    node.span,
                    format!("{what} must be true or false, found {}", node.type_name()),
                );
                false
            }
        }
    }

    fn string(&mut self, node: &Node, what: &str) -> Option<String> {
        match node.as_scalar().map(|s| &s.resolved) {
            Some(ScalarValue::Str(s)) => Some(s.clone()),
            _ => {
                self.invalid(
                    node.span,
                    format!("{what} must be a string, found {}", node.type_name()),
                );
                None
            }
        }
    }

    /// A string or a list of strings, with their spans.
    fn strings(&mut self, node: &Node, what: &str) -> Vec<(String, Span)> {
        match &node.value {
            Value::Array(items) => items
                .iter()
                .filter_map(|item| {
                    self.string(&item.value, &format!("each item of {what}"))
                        .map(|s| (s, item.value.span))
                })
                .collect(),
            Value::Scalar(_) if node.is_null() => Vec::new(),
            Value::Scalar(_) => self
                .string(node, what)
                .map(|s| vec![(s, node.span)])
                .unwrap_or_default(),
            Value::Map(_) => {
                self.invalid(
                    node.span,
                    format!("{what} must be a string or a list of strings, found map"),
                );
                Vec::new()
            }
        }
    }

    /// `include` / `exclude`: gitignore-style patterns.
    fn patterns(&mut self, node: &Node, what: &str) -> Option<Gitignore> {
        let patterns = self.strings(node, what);
        if patterns.is_empty() {
            return None;
        }
        let mut builder = GitignoreBuilder::new(self.dir);
        builder.allow_unclosed_class(false);
        for (pattern, span) in &patterns {
            if let Err(err) = builder.add_line(None, pattern) {
                self.invalid(*span, format!("{what}: bad pattern \"{pattern}\": {err}"));
            }
        }
        match builder.build() {
            Ok(matcher) => Some(matcher),
            Err(err) => {
                self.invalid(node.span, format!("{what}: {err}"));
                None
            }
        }
    }

    fn systems(&mut self, node: &Node) -> Vec<System> {
        let names: Vec<&str> = System::ALL.iter().map(|s| s.name()).collect();
        let mut off = Vec::new();
        for item in self.map(node, "systems", &names) {
            let Some(system) = System::ALL.iter().find(|s| s.name() == item.key.text) else {
                continue;
            };
            let what = format!("systems.{}", system.name());
            if !self.bool(&item.value, &what) {
                off.push(*system);
            }
        }
        off
    }

    fn rules(&mut self, node: &Node) -> Vec<RuleSetting> {
        let mut settings = Vec::new();
        let Value::Map(items) = &node.value else {
            if !node.is_null() {
                self.invalid(
                    node.span,
                    format!(
                        "rules must be a map of rule ids to off, warning or error, found {}",
                        node.type_name()
                    ),
                );
            }
            return settings;
        };
        for item in items {
            let selector = item.key.text.as_str();
            // The file names groups as `ytt/*` only: a bare `ytt` is the
            // command line's shorthand.
            let parsed = match crate::rules::Selector::parse(selector) {
                Ok(crate::rules::Selector::System(_)) if !selector.ends_with("/*") => Err(format!(
                    "unknown rule \"{selector}\"; `{selector}/*` names the whole system"
                )),
                parsed => parsed,
            };
            if let Err(message) = parsed {
                let (message, help) = message.split_once("; ").unwrap_or((&message, ""));
                self.invalid(item.key_span, message).help = Some(help.to_string());
                continue;
            }
            let severity = match item.value.as_scalar().map(|s| &s.resolved) {
                Some(ScalarValue::Str(s)) if s == "warning" => Some(Some(Severity::Warning)),
                Some(ScalarValue::Str(s)) if s == "error" => Some(Some(Severity::Error)),
                Some(ScalarValue::Str(s)) if s == "off" => Some(None),
                Some(ScalarValue::Bool(false)) => Some(None),
                _ => None,
            };
            match severity {
                Some(severity) => settings.push(RuleSetting {
                    selector: selector.to_string(),
                    severity,
                }),
                None => {
                    let found = item.value.as_scalar().map_or_else(
                        || item.value.type_name().to_string(),
                        |s| format!("\"{}\"", s.text),
                    );
                    self.invalid(
                        item.value.span,
                        format!("rules.{selector} must be off, warning or error, found {found}"),
                    );
                }
            }
        }
        settings
    }

    fn ytt(&mut self, node: &Node) -> YttConfig {
        let mut config = YttConfig::default();
        for item in self.map(node, "ytt", YTT_KEYS) {
            match item.key.text.as_str() {
                "strict" => config.strict = self.bool(&item.value, "ytt.strict"),
                "ignore-unknown-comments" => {
                    config.ignore_unknown_comments =
                        self.bool(&item.value, "ytt.ignore-unknown-comments")
                }
                "packages" => config.packages = self.packages(&item.value),
                _ => {}
            }
        }
        config
    }

    /// The items of a list; a null node is an empty list.
    fn list<'n>(&mut self, node: &'n Node, what: &str) -> &'n [crate::yaml::ArrayItem] {
        match &node.value {
            Value::Array(items) => items,
            _ if node.is_null() => &[],
            _ => {
                self.invalid(
                    node.span,
                    format!("{what} must be a list, found {}", node.type_name()),
                );
                &[]
            }
        }
    }

    fn packages(&mut self, node: &Node) -> Vec<Package> {
        let items = self.list(node, "ytt.packages");
        let mut packages: Vec<(Package, Span)> = Vec::new();
        for (index, item) in items.iter().enumerate() {
            let what = format!("ytt.packages[{index}]");
            let Some((package, span)) = self.package(&item.value, &what) else {
                continue;
            };
            if packages.iter().any(|(p, _)| p.root == package.root) {
                self.invalid(span, format!("{what}.path: this package is declared twice"));
                continue;
            }
            packages.push((package, span));
        }
        packages.into_iter().map(|(p, _)| p).collect()
    }

    fn package(&mut self, node: &Node, what: &str) -> Option<(Package, Span)> {
        if !matches!(node.value, Value::Map(_)) {
            self.invalid(
                node.span,
                format!(
                    "{what} must be a map with a path, found {}",
                    node.type_name()
                ),
            );
            return None;
        }
        let mut root = None;
        let mut package = Package {
            root: PathBuf::new(),
            strict: false,
            ignore_unknown_comments: false,
            scenarios: Vec::new(),
            package_resource: None,
            file_marks: Vec::new(),
        };
        let mut given_marks = Vec::new();
        for item in self.map(node, what, PACKAGE_KEYS) {
            let value = &item.value;
            match item.key.text.as_str() {
                "path" => {
                    let Some(path) = self.string(value, &format!("{what}.path")) else {
                        continue;
                    };
                    let field = format!("{what}.path");
                    if let Some(absolute) =
                        self.inside(&path, value.span, &field, PathKind::Directory)
                    {
                        root = Some((absolute, value.span));
                    }
                }
                "strict" => package.strict = self.bool(value, &format!("{what}.strict")),
                "ignore-unknown-comments" => {
                    package.ignore_unknown_comments =
                        self.bool(value, &format!("{what}.ignore-unknown-comments"))
                }
                "scenarios" => package.scenarios = self.scenarios(value, what),
                "file-mark" => {
                    let field = format!("{what}.file-mark");
                    for (text, span) in self.strings(value, &field) {
                        match FileMark::parse(&text) {
                            Ok(mark) => given_marks.push((mark, span)),
                            Err(message) => {
                                self.invalid(span, format!("{field}: {message}"));
                            }
                        }
                    }
                }
                "package-resource" => {
                    let what = format!("{what}.package-resource");
                    let Some(path) = self.string(value, &what) else {
                        continue;
                    };
                    package.package_resource =
                        self.inside(&path, value.span, &what, PathKind::File);
                }
                _ => {}
            }
        }
        if yaml::item(node, "path").is_none() {
            self.invalid(node.span, format!("{what} has no path"));
        }
        let (root, span) = root?;
        // Each mark must match a file of the package, as in ytt.
        let files = match given_marks.is_empty() {
            true => Vec::new(),
            false => {
                marks::files_in(&root, self.dir, &Default::default(), false).unwrap_or_default()
            }
        };
        for (mark, at) in given_marks {
            let mut matched = [0];
            let _ = marks::apply(
                std::slice::from_ref(&mark),
                files.clone(),
                false,
                &mut matched,
            );
            if matched[0] == 0 {
                self.invalid(
                    at,
                    format!("{what}.file-mark: no file of the package matches it"),
                )
                .help = Some(
                    "paths are relative to the package's path, as `ytt -f PATH` names its files"
                        .into(),
                );
            } else {
                package.file_marks.push(mark);
            }
        }
        package.root = root;
        Some((package, span))
    }

    fn scenarios(&mut self, node: &Node, package: &str) -> Vec<Scenario> {
        let items = self.list(node, &format!("{package}.scenarios"));
        let mut scenarios: Vec<Scenario> = Vec::new();
        for (index, item) in items.iter().enumerate() {
            let what = format!("{package}.scenarios[{index}]");
            let Some(scenario) = self.scenario(&item.value, &what) else {
                continue;
            };
            if scenarios.iter().any(|s| s.name == scenario.name) {
                let span = yaml::child(&item.value, "name").map_or(item.span, |n| n.span);
                self.invalid(
                    span,
                    format!(
                        "{what}.name: another scenario of this package is named \"{}\"",
                        scenario.name
                    ),
                );
                continue;
            }
            scenarios.push(scenario);
        }
        scenarios
    }

    fn scenario(&mut self, node: &Node, what: &str) -> Option<Scenario> {
        if !matches!(node.value, Value::Map(_)) {
            self.invalid(
                node.span,
                format!(
                    "{what} must be a map with a name, found {}",
                    node.type_name()
                ),
            );
            return None;
        }
        let mut name = None;
        let mut flags = DataValueFlags::default();
        for item in self.map(node, what, SCENARIO_KEYS) {
            let key = item.key.text.as_str();
            let field = format!("{what}.{key}");
            if key == "name" {
                match self.string(&item.value, &field) {
                    Some(text) if text.trim().is_empty() => {
                        self.invalid(item.value.span, format!("{field} must not be empty"));
                    }
                    text => name = text,
                }
                continue;
            }
            let values = self.strings(&item.value, &field);
            match key {
                "data-values-file" => {
                    for (path, span) in values {
                        if let Some(absolute) =
                            self.inside(&path, span, &field, PathKind::FileOrDirectory)
                        {
                            flags.data_values_file.push(absolute);
                        }
                    }
                }
                "data-value-file" => {
                    for (arg, span) in values {
                        let Some((key, path)) = arg.split_once('=') else {
                            self.invalid(span, format!("{field}: expected KEY=PATH, found {arg}"));
                            continue;
                        };
                        if let Some(absolute) = self.inside(path, span, &field, PathKind::File) {
                            let shown = display_name(&absolute, self.cwd);
                            flags.data_value_file.push(format!("{key}={shown}"));
                        }
                    }
                }
                "data-value" | "data-value-yaml" => {
                    for (arg, span) in values {
                        if arg.contains('=') {
                            let list = if key == "data-value" {
                                &mut flags.data_value
                            } else {
                                &mut flags.data_value_yaml
                            };
                            list.push(arg);
                        } else {
                            self.invalid(span, format!("{field}: expected KEY=VALUE, found {arg}"));
                        }
                    }
                }
                "data-values-env" | "data-values-env-yaml"
                    if !self.options.allow_env && !values.is_empty() =>
                {
                    self.invalid(
                        item.key_span,
                        format!(
                            "{field}: a repository's configuration may not read environment variables (CI jobs keep secrets there)"
                        ),
                    )
                    .help = Some(
                        "the operator allows it with --allow-config-env (the GitHub Action's `allow-config-env: true`); --data-values-env on the command line always works".into(),
                    );
                }
                "data-values-env" => flags
                    .data_values_env
                    .extend(values.into_iter().map(|(s, _)| s)),
                "data-values-env-yaml" => flags
                    .data_values_env_yaml
                    .extend(values.into_iter().map(|(s, _)| s)),
                _ => {}
            }
        }
        if yaml::item(node, "name").is_none() {
            self.invalid(node.span, format!("{what} has no name"));
        }
        Some(Scenario { name: name?, flags })
    }

    /// A path of the configuration, absolute, when it names a `kind` inside
    /// the configuration's directory, every symbolic link on the way
    /// resolved; else a `config/invalid` finding, and nothing is read
    /// through it. An absolute path, a `..` out, a link out, and a special
    /// file (a named pipe, a device, `/proc`) are refused whether or not
    /// they exist.
    fn inside(&mut self, path: &str, span: Span, field: &str, kind: PathKind) -> Option<PathBuf> {
        let relative_help = "paths are relative to the configuration file and name what is in its directory or below";
        let outside = |parser: &mut Self, why: &str| {
            parser.names_outside = true;
            parser
                .invalid(span, format!("{field}: {why}; the configuration may only name what is inside its own directory"))
                .help = Some(relative_help.into());
            None
        };
        if Path::new(path).is_absolute() {
            return outside(self, "an absolute path");
        }
        let absolute = normalize_path(&self.dir.join(path));
        if !absolute.starts_with(self.dir) {
            return outside(
                self,
                "a path that leads out of the configuration's directory",
            );
        }
        if !resolves_below(&absolute, self.dir) {
            return outside(
                self,
                "a symbolic link that leads out of the configuration's directory",
            );
        }
        let Ok(metadata) = std::fs::metadata(&absolute) else {
            let what = if kind == PathKind::Directory {
                "directory"
            } else {
                "file"
            };
            self.invalid(span, format!("{field}: no {what} {path}"))
                .help = Some(relative_help.into());
            return None;
        };
        let found = if metadata.is_dir() {
            PathKind::Directory
        } else if metadata.is_file() {
            PathKind::File
        } else {
            self.names_outside = true;
            self.invalid(span, format!("{field}: {path} is a special file (a named pipe, socket or device), not a file; not read"));
            return None;
        };
        match (kind, found) {
            (PathKind::FileOrDirectory, _) => Some(absolute),
            (want, found) if want == found => Some(absolute),
            (PathKind::Directory, _) => {
                self.invalid(span, format!("{field}: {path} is a file, not a directory"));
                None
            }
            _ => {
                self.invalid(span, format!("{field}: {path} is a directory, not a file"));
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value as Json;

    fn parse(text: &str) -> (Config, Sources) {
        parse_with(text, LoadOptions::default())
    }

    fn parse_with(text: &str, options: LoadOptions) -> (Config, Sources) {
        let sources = Sources::new();
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
        let path = dir.join(".confvet.yaml");
        let id = sources.add(SourceFile::new(
            ".confvet.yaml".into(),
            Some(path.clone()),
            text.into(),
        ));
        let config = Config::parse(path, id, &dir, &sources, options);
        (config, sources)
    }

    /// Each finding as `rule line: message`.
    fn mistakes(text: &str) -> Vec<String> {
        mistakes_with(text, LoadOptions::default())
    }

    fn mistakes_with(text: &str, options: LoadOptions) -> Vec<String> {
        let (config, sources) = parse_with(text, options);
        config
            .findings
            .iter()
            .map(|f| {
                let (_, start, _) = sources.resolve(f.span);
                format!("{} {}: {}", f.rule, start.line, f.message)
            })
            .collect()
    }

    fn schema() -> Json {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/schema/confvet.schema.json");
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    /// The YAML file as the JSON an editor's schema check sees.
    fn as_json(text: &str) -> Json {
        let sources = Sources::new();
        let id = sources.add(SourceFile::new("c".into(), None, text.into()));
        let set = yaml::parse_file(id, text, &yaml::ParseOptions::default()).unwrap();
        set.docs
            .first()
            .map_or(Json::Null, |d| yaml::emit::to_json(&d.value))
    }

    fn schema_errors(text: &str) -> Vec<String> {
        let schema = schema();
        let validator = jsonschema::validator_for(&schema).unwrap();
        validator
            .iter_errors(&as_json(text))
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect()
    }

    /// The `.confvet.yaml` block of the README's Configuration section.
    fn readme_example() -> String {
        let readme = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/docs/configuration.md"
        ))
        .unwrap();
        let start = readme
            .find("```yaml\n# .confvet.yaml")
            .expect("docs/configuration.md has a ```yaml block starting with `# .confvet.yaml`");
        let body = &readme[start + "```yaml\n".len()..];
        body[..body.find("```").unwrap()].to_string()
    }

    fn bundled_example() -> String {
        std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/examples/.confvet.yaml"
        ))
        .unwrap()
    }

    #[test]
    fn the_readme_and_bundled_examples_are_valid() {
        let bundled = bundled_example();
        assert_eq!(schema_errors(&bundled), Vec::<String>::new());
        assert_eq!(mistakes(&bundled), Vec::<String>::new());
        // The README's paths name a reader's files: only they may be missing.
        let readme = readme_example();
        assert_eq!(schema_errors(&readme), Vec::<String>::new());
        // Its `data-values-env` is the operator's to allow.
        let allowed = LoadOptions { allow_env: true };
        let found = mistakes_with(&readme, allowed);
        assert!(!found.is_empty());
        for mistake in found {
            assert!(
                mistake.contains(": no file ") || mistake.contains(": no directory "),
                "{mistake}"
            );
        }
    }

    #[test]
    fn the_schema_lists_the_keys_the_parser_takes() {
        let schema = schema();
        let keys = |pointer: &str| -> Vec<String> {
            let mut keys: Vec<String> = schema
                .pointer(pointer)
                .and_then(Json::as_object)
                .unwrap_or_else(|| panic!("schema has no {pointer}"))
                .keys()
                .cloned()
                .collect();
            keys.sort();
            keys
        };
        let sorted = |list: &[&str]| {
            let mut list: Vec<String> = list.iter().map(|s| s.to_string()).collect();
            list.sort();
            list
        };
        assert_eq!(keys("/properties"), sorted(TOP_KEYS));
        assert_eq!(keys("/properties/ytt/properties"), sorted(YTT_KEYS));
        assert_eq!(keys("/$defs/package/properties"), sorted(PACKAGE_KEYS));
        assert_eq!(keys("/$defs/scenario/properties"), sorted(SCENARIO_KEYS));
        let systems: Vec<&str> = System::ALL.iter().map(|s| s.name()).collect();
        assert_eq!(keys("/properties/systems/properties"), sorted(&systems));
        let settings = schema
            .pointer("/$defs/severity/enum")
            .and_then(Json::as_array)
            .unwrap();
        for setting in RULE_SETTINGS {
            assert!(settings.contains(&Json::from(setting)), "{setting}");
        }
        // The schema names exactly the rule ids and groups the parser takes,
        // so an editor lists them and rejects any other.
        let names: Vec<&str> = schema
            .pointer("/properties/rules/propertyNames/enum")
            .and_then(Json::as_array)
            .unwrap()
            .iter()
            .filter_map(Json::as_str)
            .collect();
        let mut expected: Vec<String> = crate::rules::RULES
            .iter()
            .map(|r| r.id.to_string())
            .collect();
        for rule in crate::rules::RULES {
            let group = format!("{}/*", rule.id.split('/').next().unwrap());
            if !expected.contains(&group) {
                expected.push(group);
            }
        }
        let mut sorted_names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        sorted_names.sort();
        expected.sort();
        assert_eq!(
            sorted_names, expected,
            "schema/confvet.schema.json rules names"
        );
        for name in names {
            let text = format!("rules: {{{name}: off}}\n");
            assert!(mistakes(&text).is_empty(), "the parser rejects {name}");
        }
    }

    #[test]
    fn the_schema_and_the_parser_reject_the_same_mistakes() {
        for text in [
            "exlude: [vendor/]\n",
            "systems: {helm: false}\n",
            "systems: {ytt: maybe}\n",
            "rules: {ytt/validation: fatal}\n",
            "rules: {ytt/validaton: off}\n",
            "rules: {ytt: off}\n",
            "ytt: {packages: [{scenarios: []}]}\n",
            "ytt: {packages: [{path: shop/config, scenarios: [{data-value: [a=1]}]}]}\n",
            "ytt: {packages: [{path: shop/config, scenarios: [{name: a, data-values: x}]}]}\n",
        ] {
            assert!(!schema_errors(text).is_empty(), "schema accepts {text}");
            assert!(!mistakes(text).is_empty(), "parser accepts {text}");
        }
    }

    #[test]
    fn mistakes_are_findings_at_their_lines() {
        let text = "\
include:
  - \"[z-a]\"
systems:
  ytt: true
  kubvirt: false
rules:
  ytt/validaton: off
  tekton/*: sometimes
ytt:
  packages:
    - path: nowhere
    - path: shop/config
      scenarios:
        - name: prod
          data-values-file: [shop/missing.yml]
          data-value: [replicas]
        - name: prod
";
        let found = mistakes(text);
        let expected = [
            "config/invalid 2: include: bad pattern \"[z-a]\"",
            "config/unknown-key 5: unknown key \"kubvirt\" in systems",
            "config/invalid 7: unknown rule \"ytt/validaton\"",
            "config/invalid 8: rules.tekton/* must be off, warning or error, found \"sometimes\"",
            "config/invalid 11: ytt.packages[0].path: no directory nowhere",
            "config/invalid 15: ytt.packages[1].scenarios[0].data-values-file: no file shop/missing.yml",
            "config/invalid 16: ytt.packages[1].scenarios[0].data-value: expected KEY=VALUE, found replicas",
            "config/invalid 17: ytt.packages[1].scenarios[1].name: another scenario of this package is named \"prod\"",
        ];
        assert_eq!(found.len(), expected.len(), "{found:#?}");
        for (found, expected) in found.iter().zip(expected) {
            assert!(found.starts_with(expected), "{found} / {expected}");
        }
        let (config, _) = parse(text);
        assert_eq!(
            config.findings[1].help.as_deref(),
            Some("did you mean \"kubevirt\"?")
        );
        assert_eq!(
            config.findings[2].help.as_deref(),
            Some("did you mean \"ytt/validation\"?")
        );
    }

    #[test]
    fn a_config_that_is_not_yaml_is_a_syntax_finding() {
        let found = mistakes("rules:\n  ytt/compat: [off\n");
        assert_eq!(found.len(), 1);
        assert!(found[0].starts_with("yaml/syntax"), "{found:?}");
    }

    #[test]
    fn rules_take_ids_before_groups_and_may_turn_config_findings_down() {
        let (config, sources) = parse(
            "rules:\n  ytt/*: warning\n  ytt/validation: off\n  config/unknown-key: warning\nextra: 1\n",
        );
        assert!(!config.has_errors());
        assert_eq!(config.findings[0].severity, Severity::Warning);
        let id = sources.add(SourceFile::new("v.yml".into(), None, String::new()));
        let at = Span::file_start(id);
        let mut findings = vec![
            Finding::new(&crate::rules::ytt::VALIDATION, at, "a"),
            Finding::new(&crate::rules::ytt::TYPE_MISMATCH, at, "b"),
            Finding::new(&crate::rules::yaml::SYNTAX, at, "c"),
        ];
        config.apply_rules(&mut findings);
        let left: Vec<(&str, Severity)> = findings.iter().map(|f| (f.rule, f.severity)).collect();
        assert_eq!(
            left,
            [
                ("ytt/type-mismatch", Severity::Warning),
                ("yaml/syntax", Severity::Error)
            ]
        );
    }

    #[test]
    fn include_and_exclude_are_relative_to_the_config_directory() {
        let (config, _) = parse("include: [\"*.yml\"]\nexclude: [vendor/, \"!vendor/keep/\"]\n");
        let filter = config.discover_options().filter.unwrap();
        let dir = &config.dir;
        assert!(filter(&dir.join("a/b.yml"), false));
        assert!(!filter(&dir.join("a/b.txt"), false));
        assert!(filter(&dir.join("a"), true));
        assert!(!filter(&dir.join("vendor"), true));
        assert!(!filter(&dir.join("vendor/x/y.yml"), false));
        assert!(filter(&dir.join("vendor/keep/y.yml"), false));
        assert!(filter(Path::new("/elsewhere/b.txt"), false));
    }
}
