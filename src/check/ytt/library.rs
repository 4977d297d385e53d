//! A private library evaluated for `library.get(name).eval()`, as ytt's
//! `LibraryExecution` does: the library's folder is a package of its own
//! (its schema, data values and templates; its own `_ytt_lib`), checked and
//! rendered with the data values given to it merged last, overlays
//! included. What stops the library's render is the error `eval()` gives.
//! Also what a package addresses to its libraries (`#@library/ref`
//! documents, `--data-value @lib:...`), and ytt's error when nobody used it.

use super::overlay::merge_mode::MergeMode;
use super::settings::{CheckPackage, YttSettings};
use super::starlark::{StarValue, eval_annotation_args};
use super::workspace::addressed::{Addressed, LibraryOptions, LibraryRef, ValuesDoc, unused_error};
use super::workspace::execution::{EvaluatedLibrary, LibraryFailure, LibraryInputs};
use crate::finding::{Finding, Severity};
use crate::rules;
use crate::source::{FileId, Sources, Span};
use crate::yaml::{Annotated, Comment, CommentKind, Document, Node, Value};
use std::path::Path;

/// How deep libraries may evaluate libraries, and how many evaluations one
/// library evaluation may lead to: hostile packages nest `_ytt_lib` folders.
const MAX_DEPTH: usize = 10;
const MAX_NESTED: usize = 200;

thread_local! {
    /// (depth of the evaluation running, evaluations below the outermost).
    static NESTING: std::cell::Cell<(usize, usize)> = const { std::cell::Cell::new((0, 0)) };
}

/// Render the library in `dir` with the data values and schemas given,
/// checked as a package by `check_package`.
pub fn evaluate(
    dir: &Path,
    inputs: &LibraryInputs,
    check_package: CheckPackage,
) -> Result<EvaluatedLibrary, LibraryFailure> {
    let (depth, count) = NESTING.with(|n| n.get());
    let count = if depth == 0 { 0 } else { count + 1 };
    if depth >= MAX_DEPTH || count > MAX_NESTED {
        return Err(LibraryFailure::TooDeep {
            max_depth: MAX_DEPTH,
            max_evaluations: MAX_NESTED,
        });
    }
    NESTING.with(|n| n.set((depth + 1, count)));
    let result = evaluate_at(dir, inputs, check_package);
    NESTING.with(|n| n.set((depth, n.get().1)));
    result
}

fn evaluate_at(
    dir: &Path,
    inputs: &LibraryInputs,
    check_package: CheckPackage,
) -> Result<EvaluatedLibrary, LibraryFailure> {
    // The library's files get ids of their own: its documents leave with
    // no position (ytt's library documents keep theirs; messages differ).
    let sources = Sources::with_files(inputs.file_layer.clone());
    // Its files as the user's `--file-mark`s made them.
    let marked = inputs.files.as_ref().map(|files| files.below(dir));
    let paths = match &marked {
        Some(marked) => marked
            .files
            .iter()
            .filter(|f| f.file_type() == super::marks::FileType::Yaml)
            .map(|f| f.path.clone())
            .collect(),
        None => super::package::package_files(dir),
    };
    let files: Vec<_> = paths
        .into_iter()
        .filter_map(|path| crate::discover::read_ytt_file(&path, &sources, dir))
        .collect();
    let library_files = match &marked {
        Some(marked) => marked
            .files
            .iter()
            .map(|f| (f.name.clone(), f.path.clone()))
            .collect(),
        None => files
            .iter()
            .map(|f| (crate::source::display_name(&f.path, dir), f.path.clone()))
            .collect(),
    };
    // What the parent gives comes from its files: no positions here.
    let mut library = inputs.clone();
    for doc in &mut library.values {
        unplace(&mut doc.node, true);
        unplace_comments(&mut doc.comments);
    }
    for doc in &mut library.schemas {
        doc.span = nowhere();
        unplace(&mut doc.value, true);
        unplace_comments(&mut doc.comments);
    }
    let options = inputs.options;
    let settings = YttSettings {
        library_files: Some(library_files),
        inputs: marked.map(std::sync::Arc::new),
        ignore_unknown_comments: options.ignore_unknown_comments,
        implicit_map_key_overrides: options.implicit_map_key_overrides,
        strict: options.strict,
        disable_validation: options.skip_validation,
        skip_templates: inputs.values_only,
        library,
        ..YttSettings::default()
    };
    let refs: Vec<_> = files.iter().collect();
    let mut exported = None;
    let outcome = check_package(dir, &refs, &sources, &settings, &mut exported);
    if let Some(stop) = outcome.stops().next() {
        return Err(LibraryFailure::Stopped {
            message: stop.message.clone(),
            at: placed(dir, &sources, stop.span),
        });
    }
    let Some(mut values) = outcome.values else {
        return Err(LibraryFailure::NotRendered);
    };
    unplace(&mut values, false);
    if inputs.values_only {
        return Ok(EvaluatedLibrary {
            docs: Vec::new(),
            values,
            exports: Vec::new(),
            session: None,
        });
    }
    let Some(rendered) = outcome.rendered else {
        return Err(LibraryFailure::NotRendered);
    };
    // ytt's overlay post-processing, which every evaluation runs, leaves
    // empty documents out (a file whose documents an `if` skipped): an
    // overlay the parent applies to `eval()` never sees them.
    let mut docs: Vec<Document> = rendered
        .into_iter()
        .flat_map(|(_, docs)| docs)
        .filter(|doc| !super::overlay::post::is_empty(doc))
        .collect();
    // ytt's documents keep their annotations (an `#@overlay/...` acts
    // when the package applies them as an overlay); the arguments they
    // were evaluated with stay with the library's runs, which the package
    // adopts (`template::annotation_args::adopt_runs`).
    for doc in &mut docs {
        doc.span = nowhere();
        unplace_comments(&mut doc.comments);
        unplace(&mut doc.value, true);
    }
    let (exports, session) = match exported {
        Some((exports, session)) => (exports, Some(session)),
        None => (Vec::new(), None),
    };
    Ok(EvaluatedLibrary {
        docs,
        values,
        exports,
        session,
    })
}

/// Where in the library a span is, as the package calling it names the
/// file (`_ytt_lib/name/file.yml:3`); None for what has no position there.
fn placed(dir: &Path, sources: &Sources, span: Span) -> Option<String> {
    if span.file.0 as usize >= sources.len() {
        return None;
    }
    let path = sources.path(span.file)?;
    let relative = path.strip_prefix(dir).ok()?;
    let parts: Vec<_> = dir.components().collect();
    let from = parts.iter().rposition(|c| c.as_os_str() == "_ytt_lib")?;
    let mut shown = std::path::PathBuf::new();
    for part in &parts[from..] {
        shown.push(part);
    }
    shown.push(relative);
    let line = sources.get(span.file).line_col(span.start as usize).line;
    Some(format!("{}:{line}", shown.to_string_lossy()))
}

/// What a package gives its libraries (ytt's library values and schemas
/// of a library module), and the options they inherit.
#[derive(Debug, Clone, Default)]
pub struct Given {
    pub values: Vec<Addressed<ValuesDoc>>,
    pub schemas: Vec<Addressed<Document>>,
    pub options: LibraryOptions,
}

/// The options a package's libraries inherit from it.
pub fn options(settings: &YttSettings) -> LibraryOptions {
    LibraryOptions {
        ignore_unknown_comments: settings.ignore_unknown_comments,
        implicit_map_key_overrides: settings.implicit_map_key_overrides,
        strict: settings.strict,
        skip_validation: settings.disable_validation,
    }
}

/// ytt's error when something given to a library was never used (no
/// template evaluated the library it is addressed to).
pub fn unused(given: &Given) -> Option<Finding> {
    let (message, span) = unused_error(&given.values, &given.schemas)?;
    Some(
        Finding::new(&rules::ytt::TEMPLATE_ERROR, span, message).with_help(
            "no `library.get(...)` of the package evaluates the library this is addressed to",
        ),
    )
}

/// Why a document's address is not known.
enum Unaddressable {
    /// ytt refuses it, with this message.
    Refused(String),
    /// Its annotation arguments need the file's code to evaluate.
    Unknown(String),
}

impl From<String> for Unaddressable {
    fn from(message: String) -> Unaddressable {
        Unaddressable::Refused(message)
    }
}

impl From<&str> for Unaddressable {
    fn from(message: &str) -> Unaddressable {
        Unaddressable::Refused(message.to_string())
    }
}

/// Annotation arguments evaluated on their own.
fn annotation_args(args: &str) -> Result<super::starlark::CallArgs, Unaddressable> {
    eval_annotation_args(args).map_err(|e| Unaddressable::Unknown(e.message))
}

/// The library a document is addressed to (`#@library/ref "@name"`), with
/// `after_library_module=` of its `#@data/values`; None for the package's
/// own documents.
fn document_address(doc: &Document) -> Result<Option<(Vec<LibraryRef>, bool)>, Unaddressable> {
    let mut after = false;
    let mut has_after = false;
    if let Some(CommentKind::Annotation { args, .. }) =
        doc.annotation("data/values").map(|c| &c.kind)
    {
        let call = annotation_args(args)?;
        for (name, value) in &call.named {
            match (name.as_str(), value) {
                ("after_library_module", StarValue::Bool(b)) => {
                    after = *b;
                    has_after = true;
                }
                ("after_library_module", _) => return Err("expected starlark.Bool".into()),
                (other, _) => {
                    let message = format!("Unknown kwarg {other} for annotation data/values");
                    return Err(message.into());
                }
            }
        }
    }
    let Some(CommentKind::Annotation { args, .. }) = doc.annotation("library/ref").map(|c| &c.kind)
    else {
        if has_after {
            return Err("Annotation data/values: Expected kwarg 'after_library_module' to be used with library/ref annotation".into());
        }
        return Ok(None);
    };
    let call = annotation_args(args)?;
    if call.positional.len() != 1 {
        let message = format!(
            "Expected library/ref annotation to have one arg, got {}",
            call.positional.len()
        );
        return Err(message.into());
    }
    let StarValue::Str(text) = &call.positional[0] else {
        return Err("expected a string".into());
    };
    let refs = LibraryRef::parse(text).map_err(|e| format!("Annotation library/ref: {e}"))?;
    Ok(Some((refs, after)))
}

/// Split documents into the package's own and those addressed to a
/// library; a document ytt refuses is an error.
fn split_addressed<'a, T: Clone>(
    docs: &[&'a Document],
    sources: &Sources,
    findings: &mut Vec<Finding>,
    item: impl Fn(&Document) -> T,
) -> (Vec<&'a Document>, Vec<Addressed<T>>) {
    let mut own = Vec::new();
    let mut addressed = Vec::new();
    for doc in docs {
        match document_address(doc) {
            Ok(None) => own.push(*doc),
            Ok(Some((refs, after))) => {
                let source = sources.get(doc.span.file);
                let line = source.line_col(doc.span.start as usize).line;
                let at = format!("{}:{line}", source.name);
                addressed.push(Addressed::new(item(doc), refs, after, at, doc.span));
            }
            Err(Unaddressable::Refused(message)) => {
                findings.push(Finding::new(&rules::ytt::SCHEMA, doc.span, message))
            }
            // Neither the package's nor a known library's: left out.
            Err(Unaddressable::Unknown(message)) => findings.push(
                Finding::new(&rules::ytt::SCHEMA, doc.span,
                    format!(
                        "confvet cannot evaluate this document's annotation arguments ({message}); the document is not checked"
                    ),
                )
                .with_severity(Severity::Warning),
            ),
        }
    }
    (own, addressed)
}

/// Data-values documents: the package's own, and those for its libraries.
pub fn addressed_values<'a>(
    docs: &[&'a Document],
    sources: &Sources,
    findings: &mut Vec<Finding>,
) -> (Vec<&'a Document>, Vec<Addressed<ValuesDoc>>) {
    split_addressed(docs, sources, findings, |doc| ValuesDoc {
        node: doc.value.clone(),
        comments: doc.comments.clone(),
        mode: MergeMode::default(),
    })
}

/// Schema documents: the package's own, and those for its libraries.
pub fn addressed_schemas<'a>(
    docs: &[&'a Document],
    sources: &Sources,
    findings: &mut Vec<Finding>,
) -> (Vec<&'a Document>, Vec<Addressed<Document>>) {
    split_addressed(docs, sources, findings, Document::clone)
}

fn nowhere() -> Span {
    Span::file_start(FileId(u32::MAX))
}

fn unplace_comments(comments: &mut [Comment]) {
    for comment in comments {
        comment.span = nowhere();
    }
}

/// Drop the positions of another package's files from `node`, and its
/// comments unless kept (the annotations of documents given to a library).
fn unplace(node: &mut Node, keep_comments: bool) {
    node.span = nowhere();
    let place = |span: &mut Span, comments: &mut Vec<Comment>| {
        *span = nowhere();
        if keep_comments {
            unplace_comments(comments);
        } else {
            comments.clear();
        }
    };
    match &mut node.value {
        Value::Map(items) => {
            for item in items {
                place(&mut item.key_span, &mut item.comments);
                unplace(&mut item.value, keep_comments);
            }
        }
        Value::Array(items) => {
            for item in items {
                place(&mut item.span, &mut item.comments);
                unplace(&mut item.value, keep_comments);
            }
        }
        Value::Scalar(_) => {}
    }
}
