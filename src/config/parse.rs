//! Parsing the configuration file: its YAML read with confvet's own
//! parser, each mistake a finding at its line, and every path it names
//! checked to be inside its directory.

use super::model::{
    Config, KubernetesConfig, LoadOptions, Package, Patterns, RuleSetting, Scenario, YttConfig,
};
use crate::check::ytt::flags::DataValueFlags;
use crate::check::ytt::marks::{self, FileMark};
use crate::discover::System;
use crate::finding::{Finding, Severity};
use crate::source::{Sources, Span, display_name, normalize_path, resolves_below};
use crate::yaml::{self, MapItem, Node, ScalarValue, Value};
use ignore::gitignore::GitignoreBuilder;
use std::path::{Path, PathBuf};

/// The keys each part of the file takes (the JSON Schema must list the same).
pub const TOP_KEYS: &[&str] = &[
    "include",
    "exclude",
    "systems",
    "rules",
    "ytt",
    "kubernetes",
];
pub const KUBERNETES_KEYS: &[&str] = &["check", "manifests", "version", "schemas"];
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

impl Config {
    pub(super) fn parse(
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
            kubernetes: KubernetesConfig::default(),
        };
        let file = sources.get(id);
        let set = match yaml::parse_file(id, &file.text, &yaml::ParseOptions::default()) {
            Ok(set) => set,
            Err(err) => {
                config.findings.push(Finding::from(err));
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
                    "kubernetes" => config.kubernetes = parser.kubernetes(node),
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
    fn patterns(&mut self, node: &Node, what: &str) -> Option<Patterns> {
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
            Ok(matcher) => Some(Patterns {
                lines: patterns.into_iter().map(|(pattern, _)| pattern).collect(),
                matcher,
            }),
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
            let advice = match crate::rules::Selector::parse(selector) {
                Ok(crate::rules::Selector::System(_)) if !selector.ends_with("/*") => {
                    Some(format!("`{selector}/*` names the whole system"))
                }
                Ok(_) => None,
                Err(unknown) => Some(unknown.advice()),
            };
            if let Some(advice) = advice {
                self.invalid(item.key_span, format!("unknown rule \"{selector}\""))
                    .help = Some(advice);
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

    /// `kubernetes: true` (plain manifests checked too), `false` (no
    /// Kubernetes schema check), or a map of the settings.
    fn kubernetes(&mut self, node: &Node) -> KubernetesConfig {
        let mut config = KubernetesConfig::default();
        if let Some(ScalarValue::Bool(on)) = node.as_scalar().map(|s| &s.resolved) {
            config.check = *on;
            config.manifests = *on;
            return config;
        }
        for item in self.map(node, "kubernetes", KUBERNETES_KEYS) {
            let value = &item.value;
            match item.key.text.as_str() {
                "check" => config.check = self.bool(value, "kubernetes.check"),
                "manifests" => config.manifests = self.bool(value, "kubernetes.manifests"),
                "version" => {
                    // `1.36` reads as a float: the text is what was meant.
                    let text = value.as_scalar().map(|s| s.text.clone());
                    match text
                        .as_deref()
                        .and_then(crate::check::kubernetes::Version::parse)
                    {
                        Some(version) => config.version = Some(version),
                        None => {
                            let known: Vec<&str> = crate::check::kubernetes::Version::all()
                                .map(|v| v.name())
                                .collect();
                            self.invalid(
                                value.span,
                                format!(
                                    "kubernetes.version must be one of {}, found {}",
                                    known.join(", "),
                                    text.map_or_else(
                                        || value.type_name().to_string(),
                                        |t| format!("\"{t}\"")
                                    )
                                ),
                            );
                        }
                    }
                }
                "schemas" => {
                    for (path, span) in self.strings(value, "kubernetes.schemas") {
                        if let Some(path) = self.inside(
                            &path,
                            span,
                            "kubernetes.schemas",
                            PathKind::FileOrDirectory,
                        ) {
                            config.schemas.push(path);
                        }
                    }
                }
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
                let cache_folders = crate::cache::CacheFolders::default();
                let skip = |dir: &Path| cache_folders.holds(dir);
                marks::files_in(&root, self.dir, &Default::default(), false, &skip)
                    .unwrap_or_default()
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
