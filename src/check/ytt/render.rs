//! Rendering a package's templates with its final data values, as `ytt -f`
//! does: each template file is compiled (`template`), run on the package's
//! engine, and gives its output documents, or the failure ytt would stop
//! on. `@assert/validate` on output nodes then runs on the rendered values.

use super::engine::{Code, Engine};
use super::path::DataPath;
use super::template::compile::CompileOptions;
use super::validate::Validator;
use super::{assert_validation, has_errors};
use crate::discover::DiscoveredFile;
use crate::finding::{Finding, Kind, Severity};
use crate::source::{SourceFile, Span};
use crate::yaml::{Comment, CommentKind, Document, DocumentSet, Node, Value};
use starlark::environment::FrozenModule;
use std::collections::HashMap;
use std::path::Path;

/// Why a template did not render: where and what ytt would say.
#[derive(Debug, Clone)]
pub struct RenderFailure {
    pub span: Span,
    pub message: String,
    pub cause: Cause,
    /// The calls that led to the failure, outermost first: (module name as
    /// loaded, 1-based line).
    pub chain: Vec<(String, usize)>,
}

/// What stopped a render.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    /// An explicit `fail()` / `assert.fail()`.
    Fail,
    /// The template's code does not parse: no data value changes that.
    Syntax,
    /// Any other error ytt stops on.
    Error,
}

/// A rendered template file.
pub struct Rendered {
    pub docs: Vec<Document>,
    /// The template's scope (None for plain YAML, which has no code).
    module: Option<FrozenModule>,
}

/// A file of the package: path, id and text.
type PackageFile = (
    std::path::PathBuf,
    crate::source::FileId,
    std::sync::Arc<SourceFile>,
);

/// Renders the templates of one package with its final data values.
pub struct Renderer {
    engine: Engine,
    options: CompileOptions,
    /// The final data values, to tell which failures wait on the consumer.
    values: Node,
    /// Values were given by the consumer (flags, a scenario): every failure
    /// is then an error.
    consumer_values: bool,
    files: Vec<PackageFile>,
    root: std::path::PathBuf,
    /// Loaded files read for call chains, by path.
    loaded: std::cell::RefCell<
        HashMap<std::path::PathBuf, (crate::source::FileId, std::sync::Arc<SourceFile>)>,
    >,
}

impl Renderer {
    pub fn new(
        root: &Path,
        values: &Node,
        consumer_values: bool,
        known_files: HashMap<
            std::path::PathBuf,
            (crate::source::FileId, std::sync::Arc<SourceFile>),
        >,
        options: CompileOptions,
    ) -> Renderer {
        let fallback = known_files
            .values()
            .next()
            .map_or(crate::source::FileId(0), |(id, _)| *id);
        let files = known_files
            .iter()
            .map(|(path, (id, source))| (path.clone(), *id, source.clone()))
            .collect();
        Renderer {
            engine: Engine::for_templates(root, values).with_known_files(known_files, fallback),
            options,
            values: values.clone(),
            consumer_values,
            files,
            root: crate::source::normalize_path(root),
            loaded: Default::default(),
        }
    }

    /// The package is files named one by one: loads see them by base name.
    pub fn with_flat_files(mut self, files: &[std::path::PathBuf]) -> Renderer {
        self.engine = self.engine.with_flat_files(files);
        self
    }

    /// The package's files by the names ytt gives them, when the package
    /// is files and folders named on the command line.
    pub fn with_library_files(self, files: Vec<(String, std::path::PathBuf)>) -> Renderer {
        self.engine.session().borrow_mut().library_files = Some(files);
        self
    }

    /// ytt's `--implicit-map-key-overrides` for this package's renders.
    pub fn session_options(&self, implicit_map_key_overrides: bool) {
        self.engine
            .session()
            .borrow_mut()
            .implicit_map_key_overrides = implicit_map_key_overrides;
    }

    /// Render one template file.
    pub fn render(
        &self,
        file: &DiscoveredFile,
        set: &DocumentSet,
        source: &SourceFile,
    ) -> Result<Rendered, RenderFailure> {
        // Plain YAML (no `#@` anywhere) is not a template: ytt passes it
        // through, the last of repeated keys winning.
        if !has_templating(set) {
            let mut docs = set.docs.clone();
            for doc in &mut docs {
                override_map_keys(&mut doc.value);
            }
            return Ok(Rendered { docs, module: None });
        }
        let line_span = |line: usize| {
            let start = source.line_start(line);
            Span::new(file.id, start, start + source.line_text(line).len())
        };
        let program =
            super::template::program(set, source, file.id, self.engine.session(), self.options)
                .map_err(|e| RenderFailure {
                    span: e.span.unwrap_or_else(|| line_span(e.line)),
                    message: e.message,
                    cause: if e.is_syntax {
                        Cause::Syntax
                    } else {
                        Cause::Error
                    },
                    chain: Vec::new(),
                })?;
        let dir = file.path.parent().unwrap_or(Path::new("."));
        let result = self
            .engine
            .run_module(&source.name, &program.translated, dir);
        let docs = self.engine.session().borrow_mut().take_result(program.id);
        match result {
            Ok(module) => Ok(Rendered {
                docs: docs.unwrap_or_default(),
                module: Some(module),
            }),
            Err(super::engine::RunFailure {
                message,
                line,
                is_syntax,
                chain,
            }) => {
                self.engine.session().borrow_mut().reset_ctxs();
                let cause = match () {
                    _ if is_syntax => Cause::Syntax,
                    _ if message.starts_with("fail:") => Cause::Fail,
                    _ => Cause::Error,
                };
                let message = message
                    .strip_prefix("fail:")
                    .map_or(message.clone(), |m| m.trim().to_string());
                Err(RenderFailure {
                    span: line_span(line),
                    message,
                    cause,
                    chain,
                })
            }
        }
    }

    /// Render every template of a package (ytt's file order), reporting
    /// failures and output validations as findings; gives each file's
    /// documents.
    pub fn check(
        &self,
        templates: &[(&DiscoveredFile, &DocumentSet)],
        sources: &crate::source::Sources,
        findings: &mut Vec<Finding>,
    ) -> Vec<(crate::source::FileId, Vec<Document>)> {
        let mut outputs = Vec::new();
        for (file, set) in templates {
            let source = sources.get(file.id);
            match self.render(file, set, &source) {
                Ok(rendered) => {
                    self.validate_output(file.id, &rendered, findings);
                    outputs.push((file.id, rendered.docs));
                }
                Err(failure) => findings.push(self.failure_finding(failure, &source, sources)),
            }
        }
        outputs
    }

    /// Render one text template (`.txt`): the text it builds.
    pub fn render_text(
        &self,
        file: crate::source::FileId,
        path: &Path,
        source: &SourceFile,
    ) -> Result<String, RenderFailure> {
        let line_span = |line: usize| {
            let start = source.line_start(line);
            Span::new(file, start, start + source.line_text(line).len())
        };
        let session = self.engine.session();
        let program =
            super::template::text_program(source, session).map_err(|e| RenderFailure {
                span: e.span.unwrap_or_else(|| line_span(e.line)),
                message: e.message,
                cause: if e.is_syntax {
                    Cause::Syntax
                } else {
                    Cause::Error
                },
                chain: Vec::new(),
            })?;
        let dir = path.parent().unwrap_or(Path::new("."));
        let result = self
            .engine
            .run_module(&source.name, &program.translated, dir);
        let text = session.borrow_mut().take_text_result(program.id);
        match result {
            Ok(_) => Ok(text.unwrap_or_default()),
            Err(failure) => {
                session.borrow_mut().reset_ctxs();
                let cause = match () {
                    _ if failure.is_syntax => Cause::Syntax,
                    _ if failure.message.starts_with("fail:") => Cause::Fail,
                    _ => Cause::Error,
                };
                let message = failure
                    .message
                    .strip_prefix("fail:")
                    .map_or(failure.message.clone(), |m| m.trim().to_string());
                Err(RenderFailure {
                    span: line_span(failure.line),
                    message,
                    cause,
                    chain: failure.chain,
                })
            }
        }
    }

    /// Render text templates (ytt's file order), reporting failures as
    /// findings; gives each file's text.
    pub fn check_texts(
        &self,
        texts: &[(crate::source::FileId, std::path::PathBuf)],
        sources: &crate::source::Sources,
        findings: &mut Vec<Finding>,
    ) -> Vec<(crate::source::FileId, String)> {
        let mut outputs = Vec::new();
        for (file, path) in texts {
            let source = sources.get(*file);
            match self.render_text(*file, path, &source) {
                Ok(text) => outputs.push((*file, text)),
                Err(failure) => findings.push(self.failure_finding(failure, &source, sources)),
            }
        }
        outputs
    }

    fn failure_finding(
        &self,
        failure: RenderFailure,
        template: &SourceFile,
        sources: &crate::source::Sources,
    ) -> Finding {
        let (rule, kind) = match failure.cause {
            Cause::Fail => ("ytt/template-fail", Kind::Validation),
            Cause::Error => ("ytt/template-error", Kind::Validation),
            Cause::Syntax => {
                return Finding::new(
                    "ytt/starlark-syntax",
                    Kind::Syntax,
                    failure.span,
                    format!("template code does not parse: {}", failure.message),
                );
            }
        };
        // The calls that led here, outermost first, each a line of a file
        // of the package; the last is where it failed.
        let places: Vec<(Option<Span>, String)> = failure
            .chain
            .iter()
            .filter_map(|(module, line)| {
                if *module == template.name {
                    let start = template.line_start(*line);
                    let text = template.line_text(*line);
                    let span = Span::new(failure.span.file, start, start + text.len());
                    return Some((Some(span), text.to_string()));
                }
                self.place(module, *line, template, sources)
            })
            .collect();
        let mut lines: Vec<String> = places.iter().map(|(_, text)| text.clone()).collect();
        let failing_line = template.line_col(failure.span.start as usize).line;
        lines.push(template.line_text(failing_line).to_string());
        let awaited = super::awaits::awaited_values(lines.iter().map(String::as_str), &self.values);
        let comment_rejected = failure.message.contains("Expected ytt-formatted string");
        let unsupported = failure.message.contains("not a module confvet provides");
        let (severity, help) = if unsupported {
            (
                Severity::Warning,
                "confvet does not render this yet (see the README's `confvet render`); the template was not checked".to_string(),
            )
        } else if self.consumer_values {
            (
                Severity::Error,
                "`ytt -f` stops here with these data values".to_string(),
            )
        } else if !awaited.is_empty() {
            (
                Severity::Warning,
                format!(
                    "`ytt -f` stops here until the consumer gives data value {} (null or absent in the package's own values)",
                    awaited
                        .iter()
                        .map(|p| format!("`{p}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        } else if comment_rejected {
            (
                Severity::Warning,
                "`ytt -f` rejects plain `#` comments in templates unless `--ignore-unknown-comments` is given; use `#!` for comments".to_string(),
            )
        } else if failure.cause == Cause::Fail {
            (
                Severity::Error,
                "`ytt -f` stops here with the package's own data values".to_string(),
            )
        } else {
            // An error no data value explains may still be confvet's gap
            // (overlays, libraries): a warning until the engine is whole.
            (
                Severity::Warning,
                "`ytt -f` stops here with the package's own data values".to_string(),
            )
        };
        let mut finding = Finding::new(rule, kind, failure.span, failure.message)
            .with_severity(severity)
            .with_help(help);
        for (span, _) in places {
            if let Some(span) = span.filter(|s| *s != failure.span) {
                finding = finding.with_related(span, "in this call");
            }
        }
        finding
    }

    /// A place of a call chain: the span and text of `line` in the package
    /// file loaded as `module` (the template itself, or a loaded file; a
    /// `.star` file is read and added to `sources` the first time).
    fn place(
        &self,
        module: &str,
        line: usize,
        template: &SourceFile,
        sources: &crate::source::Sources,
    ) -> Option<(Option<Span>, String)> {
        let wanted = module.trim_start_matches("./");
        let known = if module == template.name {
            self.files
                .iter()
                .find(|(_, _, s)| s.name == template.name)
                .map(|(_, id, s)| (*id, s.clone()))
        } else {
            self.files
                .iter()
                .filter(|(path, _, _)| path.to_string_lossy().ends_with(wanted))
                .min_by_key(|(path, _, _)| path.as_os_str().len())
                .map(|(_, id, s)| (*id, s.clone()))
        };
        let (id, source) = match known {
            Some(found) => found,
            None => self.loaded_source(wanted, sources)?,
        };
        let start = source.line_start(line);
        let text = source.line_text(line);
        Some((
            Some(Span::new(id, start, start + text.len())),
            text.to_string(),
        ))
    }

    /// A loaded file of the package that confvet did not lint itself (a
    /// `.star` file), read once and added to `sources` for its positions.
    fn loaded_source(
        &self,
        relative: &str,
        sources: &crate::source::Sources,
    ) -> Option<(crate::source::FileId, std::sync::Arc<SourceFile>)> {
        let path = crate::source::normalize_path(&self.root.join(relative));
        if !path.starts_with(&self.root) {
            return None;
        }
        if let Some(found) = self.loaded.borrow().get(&path) {
            return Some(found.clone());
        }
        let bytes = crate::source::read_limited(&path).ok()?;
        let text = String::from_utf8(bytes).ok()?;
        let name = self
            .files
            .first()
            .and_then(|(p, _, s)| {
                // Name it as the package's files are named (relative to
                // where they are shown from).
                let shown = std::path::Path::new(&s.name);
                let dir = p.parent()?.strip_prefix(&self.root).ok()?;
                let base = shown.ancestors().nth(dir.components().count() + 1)?;
                Some(base.join(relative).to_string_lossy().into_owned())
            })
            .unwrap_or_else(|| relative.to_string());
        let id = sources.add(SourceFile::new(name, Some(path.clone()), text));
        let found = (id, sources.get(id));
        self.loaded.borrow_mut().insert(path, found.clone());
        Some(found)
    }

    /// `@assert/validate` on output nodes, run on what they rendered to.
    fn validate_output(
        &self,
        file: crate::source::FileId,
        rendered: &Rendered,
        findings: &mut Vec<Finding>,
    ) {
        if !rendered.docs.iter().any(has_output_rules) {
            return;
        }
        let scopes: HashMap<_, _> = rendered
            .module
            .iter()
            .map(|module| (file, module.clone()))
            .collect();
        let code = Code {
            engine: &self.engine,
            scopes: &scopes,
        };
        for doc in &rendered.docs {
            let mut violations = Vec::new();
            let mut errors = Vec::new();
            let mut validator = Validator {
                findings: &mut violations,
                code: &code,
                root: Some(&doc.value),
                root_value: None,
                is_aborted: false,
            };
            if let Some(validation) = assert_validation(&doc.comments, &code, &mut errors) {
                validator.run(&doc.value, doc.span, &validation, &DataPath::root(), None);
            }
            walk(
                &doc.value,
                &DataPath::root(),
                &code,
                &mut validator,
                &mut errors,
            );
            findings.extend(errors);
            findings.extend(violations);
            if has_errors(findings) {
                return;
            }
        }
    }
}

/// The text templates `ytt -f path` renders: `.txt` files that are not
/// libraries (`x.lib.txt`) nor in a private library (`_ytt_lib`); a file
/// itself, or a directory's, by path relative to it (ytt's order). Each
/// comes with that relative path, its name among ytt's output files.
pub fn text_template_files(path: &Path) -> Vec<(std::path::PathBuf, String)> {
    let is_text_template =
        |name: &str| name.ends_with(".txt") && !super::template::text::is_library(name);
    let name_of = |p: &Path| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    if !path.is_dir() {
        let name = name_of(path);
        return if is_text_template(&name) {
            vec![(path.to_path_buf(), name)]
        } else {
            Vec::new()
        };
    }
    let mut found = Vec::new();
    let mut pending = vec![path.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let p = entry.path();
            if p.is_dir() {
                pending.push(p);
                continue;
            }
            let Ok(relative) = p.strip_prefix(path) else {
                continue;
            };
            let parts: Vec<String> = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            let in_library = parts[..parts.len().saturating_sub(1)]
                .iter()
                .any(|d| d == "_ytt_lib");
            if is_text_template(&name_of(&p)) && !in_library {
                found.push((p.clone(), parts.join("/")));
            }
        }
    }
    found.sort_by(|a, b| a.1.cmp(&b.1));
    found
}

/// ytt's `HasTemplating`: some node carries `#@` code or an annotation
/// (`#@comment` and `#!` comments do not count).
fn has_templating(set: &DocumentSet) -> bool {
    fn templating(comments: &[Comment]) -> bool {
        comments.iter().any(|c| match &c.kind {
            CommentKind::Code(_) => true,
            CommentKind::Annotation { name, .. } => name != "comment",
            CommentKind::Ytt | CommentKind::Plain => false,
        })
    }
    fn node(n: &Node) -> bool {
        match &n.value {
            Value::Map(items) => items
                .iter()
                .any(|i| templating(&i.comments) || node(&i.value)),
            Value::Array(items) => items
                .iter()
                .any(|i| templating(&i.comments) || node(&i.value)),
            Value::Scalar(_) => false,
        }
    }
    templating(&set.trailing_comments)
        || set
            .docs
            .iter()
            .any(|d| templating(&d.comments) || node(&d.value))
}

/// ytt's `OverrideMapKeys`: of items with the same key the last one's
/// value stays, where the first one stood.
fn override_map_keys(node: &mut Node) {
    match &mut node.value {
        Value::Map(items) => {
            let mut kept: Vec<crate::yaml::MapItem> = Vec::with_capacity(items.len());
            for mut item in std::mem::take(items) {
                override_map_keys(&mut item.value);
                match kept
                    .iter_mut()
                    .find(|k| k.key.resolved == item.key.resolved)
                {
                    Some(earlier) => *earlier = item,
                    None => kept.push(item),
                }
            }
            *items = kept;
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|i| override_map_keys(&mut i.value)),
        Value::Scalar(_) => {}
    }
}

fn has_output_rules(doc: &Document) -> bool {
    fn annotated(comments: &[Comment]) -> bool {
        comments.iter().any(|c| {
            matches!(&c.kind, CommentKind::Annotation { name, .. } if name == "assert/validate")
        })
    }
    fn node(n: &Node) -> bool {
        match &n.value {
            Value::Map(items) => items
                .iter()
                .any(|i| annotated(&i.comments) || node(&i.value)),
            Value::Array(items) => items
                .iter()
                .any(|i| annotated(&i.comments) || node(&i.value)),
            Value::Scalar(_) => false,
        }
    }
    annotated(&doc.comments) || node(&doc.value)
}

fn walk(
    node: &Node,
    path: &DataPath,
    code: &Code<'_>,
    validator: &mut Validator<'_>,
    errors: &mut Vec<Finding>,
) {
    match &node.value {
        Value::Map(items) => {
            for item in items {
                let item_path = path.key(&item.key.display());
                if let Some(validation) = assert_validation(&item.comments, code, errors) {
                    validator.run(
                        &item.value,
                        item.key_span,
                        &validation,
                        &item_path,
                        Some(node),
                    );
                }
                walk(&item.value, &item_path, code, validator, errors);
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                let item_path = path.index(index);
                if let Some(validation) = assert_validation(&item.comments, code, errors) {
                    validator.run(&item.value, item.span, &validation, &item_path, Some(node));
                }
                walk(&item.value, &item_path, code, validator, errors);
            }
        }
        Value::Scalar(_) => {}
    }
}
