//! A private library evaluated for `library.get(name).eval()`, as ytt's
//! `LibraryExecution` does: the library's folder is a package of its own
//! (its schema, data values and templates; its own `_ytt_lib`), checked and
//! rendered with the data values given to it merged last, overlays
//! included. What stops the library's render is the error `eval()` gives.

use super::flags::DataValueFlags;
use super::template::runtime::{EvaluatedLibrary, LibraryInputs};
use super::values::MergeMode;
use super::{YttSettings, check_package};
use crate::finding::Severity;
use crate::source::{FileId, Sources, Span};
use crate::yaml::{Annotated, Document, DocumentSet, Node, Value};
use std::path::Path;

/// How deep libraries may evaluate libraries, and how many evaluations one
/// library evaluation may lead to: hostile packages nest `_ytt_lib` folders.
const MAX_DEPTH: usize = 10;
const MAX_NESTED: usize = 200;

thread_local! {
    /// (depth of the evaluation running, evaluations below the outermost).
    static NESTING: std::cell::Cell<(usize, usize)> = const { std::cell::Cell::new((0, 0)) };
}

/// Render the library in `dir` with the data values and schemas given.
pub fn evaluate(dir: &Path, inputs: &LibraryInputs) -> Result<EvaluatedLibrary, String> {
    let (depth, count) = NESTING.with(|n| n.get());
    let count = if depth == 0 { 0 } else { count + 1 };
    if depth >= MAX_DEPTH || count > MAX_NESTED {
        return Err(format!(
            "libraries nested deeper than {MAX_DEPTH} or evaluated more than {MAX_NESTED} times"
        ));
    }
    NESTING.with(|n| n.set((depth + 1, count)));
    let result = evaluate_at(dir, inputs);
    NESTING.with(|n| n.set((depth, n.get().1)));
    result
}

fn evaluate_at(dir: &Path, inputs: &LibraryInputs) -> Result<EvaluatedLibrary, String> {
    // The library's files get ids of their own: its documents leave with
    // no position (ytt's library documents keep theirs; messages differ).
    let sources = Sources::new();
    // Its files as the user's `--file-mark`s made them.
    let marked = inputs.files.as_ref().map(|files| files.below(dir));
    let paths = match &marked {
        Some(marked) => marked
            .files
            .iter()
            .filter(|f| f.file_type() == super::marks::FileType::Yaml)
            .map(|f| f.path.clone())
            .collect(),
        None => super::package_files(dir),
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
    let settings = YttSettings {
        library_files: Some(library_files),
        inputs: marked.map(std::sync::Arc::new),
        library_values: inputs
            .values
            .iter()
            .map(|(node, plain)| {
                let mode = MergeMode {
                    implicit_missing_ok: *plain,
                    arrays_replace: *plain,
                };
                (node.clone(), mode)
            })
            .collect(),
        library_schemas: inputs
            .schemas
            .iter()
            .map(|node| Document {
                span: node.span,
                has_start_marker: true,
                value: node.clone(),
                comments: Vec::new(),
            })
            .collect(),
        ..YttSettings::default()
    };
    let refs: Vec<_> = files.iter().collect();
    let outcome = check_package(dir, &refs, &sources, &settings);
    let stop = outcome.findings.iter().find(|f| {
        f.severity == Severity::Error
            || matches!(f.rule, "ytt/template-fail" | "ytt/template-error")
    });
    if let Some(stop) = stop {
        return Err(stop.message.clone());
    }
    let (Some(rendered), Some(values)) = (outcome.rendered, outcome.values) else {
        return Err("the library did not render".into());
    };
    let mut docs: Vec<Document> = rendered.into_iter().flat_map(|(_, docs)| docs).collect();
    for doc in &mut docs {
        doc.span = nowhere();
        doc.comments.clear();
        unplace(&mut doc.value);
    }
    let mut values = values;
    unplace(&mut values);
    Ok(EvaluatedLibrary { docs, values })
}

/// Whether the package gives data values to its libraries
/// (`#@library/ref` documents, `--data-value @lib:...` flags).
pub fn addresses_libraries(sets: &[&DocumentSet], flags: &DataValueFlags) -> bool {
    let annotated = sets
        .iter()
        .flat_map(|set| &set.docs)
        .any(|doc| doc.has_annotation("library/ref"));
    let flagged = flags
        .data_value
        .iter()
        .chain(&flags.data_value_yaml)
        .chain(&flags.data_value_file)
        .any(|flag| flag.starts_with('@'))
        || flags
            .data_values_file
            .iter()
            .any(|path| path.to_string_lossy().starts_with('@'));
    annotated || flagged
}

fn nowhere() -> Span {
    Span::file_start(FileId(u32::MAX))
}

/// Drop the positions of the library's own files from `node`.
fn unplace(node: &mut Node) {
    node.span = nowhere();
    match &mut node.value {
        Value::Map(items) => {
            for item in items {
                item.key_span = nowhere();
                item.comments.clear();
                unplace(&mut item.value);
            }
        }
        Value::Array(items) => {
            for item in items {
                item.span = nowhere();
                item.comments.clear();
                unplace(&mut item.value);
            }
        }
        Value::Scalar(_) => {}
    }
}
