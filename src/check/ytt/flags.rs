//! ytt's command-line data values: `--data-values-file`, `--data-values-env`,
//! `--data-values-env-yaml`, `--data-value`, `--data-value-yaml`,
//! `--data-value-file`, applied after every `#@data/values` file in that fixed
//! order (spec/ytt.md section 5), each source registered under ytt's pseudo
//! file name so findings point at it.

mod kinds;

use super::overlay::merge_mode::MergeMode;
use super::workspace::addressed::{Addressed, LibraryRef, ValuesDoc};
use crate::finding::Finding;
use crate::rules;
use crate::source::{FileId, SourceFile, Sources, Span, display_name};
use crate::yaml::{self, DocumentSet, MapItem, Node, Scalar, ScalarStyle, ScalarValue, Value};
use kinds::{FLAG_MODE, FlagKind, FlagSource, LibraryTarget};
use std::borrow::Cow;
use std::path::{Path, PathBuf};

/// The data-value flags of one run, with what they need from outside.
#[derive(Debug, Clone, Default)]
pub struct DataValueFlags {
    pub data_value: Vec<String>,
    pub data_value_yaml: Vec<String>,
    pub data_value_file: Vec<String>,
    pub data_values_file: Vec<PathBuf>,
    pub data_values_env: Vec<String>,
    pub data_values_env_yaml: Vec<String>,
    /// Environment variables, read once at start-up.
    pub env: Vec<(String, String)>,
    /// Directory relative paths are resolved against.
    pub cwd: PathBuf,
}

impl confvet_key::Key for DataValueFlags {
    fn key(&self, out: &mut confvet_key::KeyHasher) {
        let DataValueFlags {
            data_value,
            data_value_yaml,
            data_value_file,
            data_values_file,
            data_values_env,
            data_values_env_yaml,
            // Only the variables a `data-values-env` prefix reads are keyed,
            // by the run (the environment is large, and mostly unread).
            env: _,
            cwd,
        } = self;
        out.key(data_value)
            .key(data_value_yaml)
            .key(data_value_file);
        out.key(data_values_file)
            .key(data_values_env)
            .key(data_values_env_yaml);
        out.key(cwd);
    }
}

impl DataValueFlags {
    pub fn is_empty(&self) -> bool {
        FlagKind::IN_ORDER
            .iter()
            .all(|kind| self.args(*kind).is_empty())
    }

    /// The arguments given to flag `kind`, as written.
    fn args(&self, kind: FlagKind) -> Vec<Cow<'_, str>> {
        fn texts(args: &[String]) -> Vec<Cow<'_, str>> {
            args.iter().map(|a| Cow::Borrowed(a.as_str())).collect()
        }
        match kind {
            FlagKind::ValuesFile => self
                .data_values_file
                .iter()
                .map(|p| p.to_string_lossy())
                .collect(),
            FlagKind::ValuesEnv => texts(&self.data_values_env),
            FlagKind::ValuesEnvYaml => texts(&self.data_values_env_yaml),
            FlagKind::Value => texts(&self.data_value),
            FlagKind::ValueYaml => texts(&self.data_value_yaml),
            FlagKind::ValueFile => texts(&self.data_value_file),
        }
    }

    /// Every command-line source as a document to merge, in ytt's order:
    /// those for the package, and those addressed to a library
    /// (`@lib:key=value`).
    pub fn overlays(&self, sources: &Sources, findings: &mut Vec<Finding>) -> FlagOverlays {
        let mut out = FlagOverlays::default();
        for FlagSource {
            target,
            node,
            at,
            starts_at,
        } in self.sources(sources, findings)
        {
            let Some(LibraryTarget { library, id, arg }) = target else {
                out.own.push((node, FLAG_MODE, starts_at));
                continue;
            };
            match LibraryRef::parse(&library) {
                Ok(refs) => {
                    let span = node.span;
                    let doc = ValuesDoc {
                        node,
                        comments: Vec::new(),
                        mode: FLAG_MODE,
                    };
                    out.addressed
                        .push(Addressed::new(doc, refs, false, at, span));
                }
                Err(message) => findings.push(Finding::new(
                    &rules::ytt::FLAG,
                    Span::new(id, 0, sources.get(id).text.len()),
                    format!("{arg}: {message}"),
                )),
            }
        }
        out
    }

    /// Each source, flag by flag in ytt's order.
    fn sources(&self, sources: &Sources, findings: &mut Vec<Finding>) -> Vec<FlagSource> {
        let mut out = Vec::new();
        for kind in FlagKind::IN_ORDER {
            for arg in self.args(kind) {
                let mut read = Reading {
                    kind,
                    arg: &arg,
                    sources,
                    findings: &mut *findings,
                    out: &mut out,
                };
                match kind {
                    FlagKind::ValuesFile => read.values_file(&self.cwd),
                    FlagKind::ValuesEnv | FlagKind::ValuesEnvYaml => read.values_env(&self.env),
                    FlagKind::Value | FlagKind::ValueYaml => read.value(),
                    FlagKind::ValueFile => read.value_file(&self.cwd),
                }
            }
        }
        out
    }
}

/// One flag argument being read into sources.
struct Reading<'r> {
    kind: FlagKind,
    arg: &'r str,
    sources: &'r Sources,
    findings: &'r mut Vec<Finding>,
    out: &'r mut Vec<FlagSource>,
}

impl Reading<'_> {
    /// A flag that names a library it cannot, or that cannot be read:
    /// ytt's error, in a pseudo file `name` holding the argument.
    fn refuse(&mut self, name: String, message: String) {
        let id = self
            .sources
            .add(SourceFile::new(name, None, self.arg.to_string()));
        self.findings.push(Finding::new(
            &rules::ytt::FLAG,
            Span::new(id, 0, self.arg.len()),
            message,
        ));
    }

    /// The library the argument addresses (`@lib:`) and the rest; None,
    /// with ytt's error, when it addresses one wrongly.
    fn addressed<'a>(
        &mut self,
        split: Result<(Option<&'a str>, &'a str), BadLibraryAddress>,
    ) -> Option<(Option<&'a str>, &'a str)> {
        match split {
            Ok(split) => Some(split),
            Err(message) => {
                let text = format!("--{} {}: {message}", self.kind.name(), self.arg);
                self.refuse(self.kind.pseudo_file(), text);
                None
            }
        }
    }

    /// The target of a source for `library`, if the flag names one.
    fn target(&self, library: Option<&str>, id: FileId) -> Option<LibraryTarget> {
        library.map(|l| LibraryTarget {
            library: l.to_string(),
            id,
            arg: self.arg.to_string(),
        })
    }

    /// `--data-values-file [@lib:]PATH`: each document of the file, or of
    /// each file of the folder.
    fn values_file(&mut self, cwd: &Path) {
        let given = self.arg;
        let Some((library, path)) = self.addressed(split_library(given)) else {
            return;
        };
        let sources = self.sources;
        let (files, links) = expand_values_path(&cwd.join(path));
        self.findings.extend(links.iter().map(|link| {
            crate::discover::link_not_followed(
                link,
                "confvet reads no link in a data values folder, whose files are the repository's",
                "put the file itself in the folder, or name the destination with its own --data-values-file",
                sources,
                cwd,
            )
        }));
        for file in files {
            let name = display_name(&file, cwd);
            let text = match self.sources.read(&file) {
                Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
                Err(err) => {
                    let id = sources.add(SourceFile::new(
                        name.clone(),
                        Some(file.clone()),
                        String::new(),
                    ));
                    self.findings.push(Finding::new(
                        &rules::yaml::SYNTAX,
                        Span::file_start(id),
                        format!("cannot read --data-values-file {name}: {err}"),
                    ));
                    continue;
                }
            };
            let id = sources.add(SourceFile::new(name.clone(), Some(file.clone()), text));
            if let Some(set) = parse_source(sources, id, self.findings) {
                // ytt merges the file as plain YAML, and refuses one
                // that holds templating.
                if let Some(span) = first_templating(&set) {
                    self.findings.push(Finding::new(&rules::ytt::FLAG, span,
                        format!(
                            "Checking data values file '{path}': Expected to be plain YAML, having no annotations (hint: remove comments starting with `#@`)"
                        ),
                    ));
                    continue;
                }
                let source = sources.get(id);
                for doc in set.docs.into_iter().filter(|d| !d.value.is_null()) {
                    let line = source.line_col(doc.span.start as usize).line;
                    let starts_at = document_start(&doc);
                    let target = self.target(library, id);
                    self.out.push(FlagSource {
                        target,
                        node: doc.value,
                        at: format!("{name}:{line}"),
                        starts_at,
                    });
                }
            }
        }
    }

    /// `--data-values-env[-yaml] [@lib:]PREFIX`: a value for each variable
    /// `PREFIX_…`.
    fn values_env(&mut self, env: &[(String, String)]) {
        let given = self.arg;
        let Some((library, prefix)) = self.addressed(split_library_key(given)) else {
            return;
        };
        for (key, value) in env_vars_with_prefix(prefix, env) {
            let path = key[prefix.len() + 1..].replace("__", ".");
            // The environment holds CI's secrets: the pseudo file
            // that findings show holds the value masked (messages
            // name it, see `redact`).
            let text = format!("{key}={}", masked(value));
            let name = format!("{} {prefix}", self.kind.pseudo_file());
            let id = self.sources.add(SourceFile::new(name.clone(), None, text));
            let offset = key.len() + 1;
            let value = FlagValue {
                text: value,
                offset,
                as_yaml: self.kind.as_yaml(),
                secret: true,
            };
            self.push(library, id, &path, value, format!("{name}:1"));
        }
    }

    /// `--data-value[-yaml] [@lib:]KEY=VALUE`.
    fn value(&mut self) {
        let (arg, kind) = (self.arg, self.kind.name());
        let name = self.kind.pseudo_file();
        let id = self
            .sources
            .add(SourceFile::new(name.clone(), None, arg.to_string()));
        let Some((key, value)) = arg.split_once('=') else {
            self.findings.push(Finding::new(
                &rules::ytt::FLAG,
                Span::new(id, 0, arg.len()),
                format!("--{kind} {arg}: expected KEY=VALUE"),
            ));
            return;
        };
        let Some((library, key)) = self.addressed(split_library_key(key)) else {
            return;
        };
        let value = FlagValue {
            text: value,
            offset: arg.len() - value.len(),
            as_yaml: self.kind.as_yaml(),
            secret: false,
        };
        self.push(library, id, key, value, format!("{name}:1"));
    }

    /// `--data-value-file [@lib:]KEY=PATH`: the file's text as the value.
    fn value_file(&mut self, cwd: &Path) {
        let arg = self.arg;
        let Some((key, path)) = arg.split_once('=') else {
            let message = format!("--data-value-file {arg}: expected KEY=PATH");
            self.refuse(self.kind.pseudo_file(), message);
            return;
        };
        let Some((library, key)) = self.addressed(split_library_key(key)) else {
            return;
        };
        let name = format!("{} {key}={path}", self.kind.pseudo_file());
        match self.sources.read(&cwd.join(path)) {
            Ok(bytes) => {
                let contents = String::from_utf8_lossy(&bytes).into_owned();
                let id = self
                    .sources
                    .add(SourceFile::new(name.clone(), None, contents.clone()));
                let value = FlagValue {
                    text: &contents,
                    offset: 0,
                    as_yaml: false,
                    secret: false,
                };
                self.push(library, id, key, value, format!("{name}:1"));
            }
            Err(err) => {
                let message = format!("--data-value-file {arg}: cannot read {path}: {err}");
                self.refuse(name, message);
            }
        }
    }

    /// The node `value` makes at `key`, as a source.
    fn push(
        &mut self,
        library: Option<&str>,
        id: FileId,
        key: &str,
        value: FlagValue<'_>,
        at: String,
    ) {
        if let Some(node) = flag_node(self.sources, id, key, value, self.findings) {
            let target = self.target(library, id);
            let starts_at = node.span;
            self.out.push(FlagSource {
                target,
                node,
                at,
                starts_at,
            });
        }
    }
}

/// Where ytt places a document: at its `---`, or at its file's start when
/// it has none (only a file's first document may go without).
pub fn document_start(doc: &crate::yaml::Document) -> Span {
    if doc.has_start_marker {
        Span::new(
            doc.span.file,
            doc.span.start as usize,
            doc.span.start as usize,
        )
    } else {
        Span::file_start(doc.span.file)
    }
}

/// What the command line gives: data values for the package, and those
/// addressed to its libraries.
#[derive(Default)]
pub struct FlagOverlays {
    /// Each value, how it merges and where it starts.
    pub own: Vec<(Node, MergeMode, Span)>,
    pub addressed: Vec<Addressed<ValuesDoc>>,
}

/// The variables of `env` that `--data-values-env PREFIX` reads
/// (`PREFIX_…`), sorted.
fn env_vars_with_prefix<'e>(
    prefix: &str,
    env: &'e [(String, String)],
) -> Vec<&'e (String, String)> {
    let wanted = format!("{prefix}_");
    let mut vars: Vec<&(String, String)> =
        env.iter().filter(|(k, _)| k.starts_with(&wanted)).collect();
    vars.sort();
    vars
}

/// The variables of `env` that the flag `--data-values-env GIVEN` (or
/// `-yaml`; `@lib:PREFIX` for a library) reads: none when GIVEN is not a
/// valid argument.
pub fn env_vars_read<'e>(given: &str, env: &'e [(String, String)]) -> Vec<&'e (String, String)> {
    match split_library_key(given) {
        Ok((_, prefix)) => env_vars_with_prefix(prefix, env),
        Err(_) => Vec::new(),
    }
}

/// A flag's argument that addresses a library wrongly, in ytt's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum BadLibraryAddress {
    #[error("Expected library ref to not be empty")]
    EmptyLibrary,
    #[error("Expected at most one library-key separator ':' in '{0}'")]
    TwoSeparators(String),
}

/// ytt's `libraryRefAndRemainder`: `@lib:rest` is `rest` for library `@lib`.
fn split_library(arg: &str) -> Result<(Option<&str>, &str), BadLibraryAddress> {
    if arg.starts_with('@')
        && let Some((library, rest)) = arg.split_once(':')
    {
        if library.len() == 1 {
            return Err(BadLibraryAddress::EmptyLibrary);
        }
        return Ok((Some(library), rest));
    }
    Ok((None, arg))
}

/// ytt's `libraryRefAndKey`: as `split_library`, and the key holds no
/// other `:`.
fn split_library_key(arg: &str) -> Result<(Option<&str>, &str), BadLibraryAddress> {
    let (library, key) = split_library(arg)?;
    if key.contains(':') {
        return Err(BadLibraryAddress::TwoSeparators(key.to_string()));
    }
    Ok((library, key))
}

/// A directory given to `--data-values-file` means its files in path order;
/// ytt keeps every file directly in it and only YAML files below. Links in
/// it are not followed (the second list).
fn expand_values_path(path: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    if !path.is_dir() {
        return (vec![path.to_path_buf()], Vec::new());
    }
    let (mut files, mut links) = (Vec::new(), Vec::new());
    for entry in ignore::WalkBuilder::new(path)
        .standard_filters(false)
        .build()
        .flatten()
    {
        let p = entry.path();
        let direct = p.parent() == Some(path);
        let is_yaml = matches!(p.extension().and_then(|e| e.to_str()), Some("yml" | "yaml"));
        if entry.depth() > 0 && entry.path_is_symlink() {
            links.push(p.to_path_buf());
        } else if entry.file_type().is_some_and(|t| t.is_file()) && (direct || is_yaml) {
            files.push(p.to_path_buf());
        }
    }
    files.sort();
    links.sort();
    (files, links)
}

/// ytt's `HasTemplating` on a data values file's documents: the first
/// annotation (but `#@comment`) or code on a document that is not empty,
/// or on its items.
fn first_templating(set: &DocumentSet) -> Option<Span> {
    fn templating(comments: &[yaml::Comment]) -> Option<Span> {
        comments
            .iter()
            .find(|c| match &c.kind {
                yaml::CommentKind::Code(_) => true,
                yaml::CommentKind::Annotation { name, .. } => name != "comment",
                yaml::CommentKind::Ytt | yaml::CommentKind::Plain => false,
            })
            .map(|c| c.span)
    }
    fn below(node: &Node) -> Option<Span> {
        match &node.value {
            Value::Map(items) => items
                .iter()
                .find_map(|i| templating(&i.comments).or_else(|| below(&i.value))),
            Value::Array(items) => items
                .iter()
                .find_map(|i| templating(&i.comments).or_else(|| below(&i.value))),
            Value::Scalar(_) => None,
        }
    }
    set.docs
        .iter()
        .filter(|d| !d.value.is_null())
        .find_map(|d| templating(&d.comments).or_else(|| below(&d.value)))
}

fn parse_source(
    sources: &Sources,
    id: crate::source::FileId,
    findings: &mut Vec<Finding>,
) -> Option<DocumentSet> {
    parse_text(id, &sources.get(id).text, findings)
}

/// `text` parsed as the YAML of file `id` (which may show other text).
fn parse_text(id: FileId, text: &str, findings: &mut Vec<Finding>) -> Option<DocumentSet> {
    match yaml::parse_file(id, text, &yaml::ParseOptions::default()) {
        Ok(set) => Some(set),
        Err(err) => {
            findings.push(Finding::from(err));
            None
        }
    }
}

/// The value of one data-value flag.
struct FlagValue<'a> {
    text: &'a str,
    /// Where it starts in the flag's pseudo file.
    offset: usize,
    /// `-yaml`: parsed as YAML, else a string.
    as_yaml: bool,
    /// Read from the environment: the pseudo files hold it masked.
    secret: bool,
}

/// Each character of `value` as `*`, byte for byte (so spans into it stay
/// where they are), line breaks kept.
fn masked(value: &str) -> String {
    value
        .bytes()
        .map(|b| if b == b'\n' { '\n' } else { '*' })
        .collect()
}

/// `a.b.c=value` as a nested map node located in the flag's pseudo file.
fn flag_node(
    sources: &Sources,
    id: crate::source::FileId,
    key_path: &str,
    flag_value: FlagValue<'_>,
    findings: &mut Vec<Finding>,
) -> Option<Node> {
    let FlagValue {
        text: value,
        offset: value_offset,
        as_yaml,
        secret,
    } = flag_value;
    let whole = Span::new(id, 0, sources.get(id).text.len());
    let value_span = Span::new(id, value_offset, value_offset + value.len());
    // A key path nests as deep as it has segments: hold it to the limit
    // every YAML tree is held to.
    let max_depth = crate::yaml::ParseOptions::default().max_depth;
    if key_path.split('.').count() > max_depth {
        findings.push(Finding::new(
            &rules::yaml::SYNTAX,
            whole,
            format!("key path nests deeper than the maximum of {max_depth} levels"),
        ));
        return None;
    }
    let mut node = if as_yaml {
        let shown = if secret {
            masked(value)
        } else {
            value.to_string()
        };
        let probe = sources.add(SourceFile::new(sources.get(id).name.clone(), None, shown));
        let set = parse_text(probe, value, findings)?;
        let mut parsed = set
            .docs
            .into_iter()
            .next()
            .map(|d| d.value)
            .unwrap_or_else(|| super::schema::null_node(value_span));
        relocate(&mut parsed, value_span);
        parsed
    } else {
        Node {
            span: value_span,
            value: Value::Scalar(Scalar {
                text: value.to_string(),
                style: ScalarStyle::DoubleQuoted,
                tag: None,
                resolved: ScalarValue::Str(value.to_string()),
            }),
        }
    };
    for key in key_path.rsplit('.') {
        node = Node {
            span: whole,
            value: Value::Map(vec![MapItem {
                key_span: whole,
                key: Scalar {
                    text: key.to_string(),
                    style: ScalarStyle::Plain,
                    tag: None,
                    resolved: ScalarValue::Str(key.to_string()),
                },
                value: node,
                comments: Vec::new(),
            }]),
        };
    }
    Some(node)
}

/// ytt names every node of a `--data-value-yaml` value after the flag.
fn relocate(node: &mut Node, span: Span) {
    node.span = span;
    match &mut node.value {
        Value::Map(items) => {
            for item in items {
                item.key_span = span;
                relocate(&mut item.value, span);
            }
        }
        Value::Array(items) => {
            for item in items {
                item.span = span;
                relocate(&mut item.value, span);
            }
        }
        Value::Scalar(_) => {}
    }
}

/// `--strict`: YAML 1.1 booleans such as `yes` are ambiguous and rejected.
pub fn check_strict(set: &DocumentSet, findings: &mut Vec<Finding>) {
    fn walk(node: &Node, findings: &mut Vec<Finding>) {
        match &node.value {
            Value::Scalar(s) => {
                if yaml::scalar::is_ambiguous_for_strict(&s.text, s.style) {
                    findings.push(
                        Finding::new(
                            &rules::yaml::SYNTAX,
                            node.span,
                            format!(
                                "strict parsing: found '{}' ambiguous (could be !!str or !!bool)",
                                s.text
                            ),
                        )
                        .with_help("quote it for a string, or write true/false"),
                    );
                }
            }
            Value::Map(items) => items.iter().for_each(|i| walk(&i.value, findings)),
            Value::Array(items) => items.iter().for_each(|i| walk(&i.value, findings)),
        }
    }
    for doc in &set.docs {
        walk(&doc.value, findings);
    }
}
