//! ytt's `OverlayPostProcessing`: after every template ran, the documents
//! annotated `@overlay/match` are overlays. They are applied, file by file
//! in ytt's file order, to the other documents (empty ones dropped, each
//! kept with its file), and are not output themselves.

use super::annotations::{self, MATCH};
use super::{Left, Overlay, Right};
use crate::source::{FileId, Span};
use crate::yaml::{Document, Value as NodeValue};
use starlark::eval::Evaluator;

/// An overlay document that failed: the place of its `@overlay/match` and
/// ytt's message.
#[derive(Debug, Clone)]
pub struct PostFailure {
    pub span: Span,
    pub message: String,
    /// What ytt does not say: the candidates, the matches, or where an
    /// assert's target differs (see `explain`).
    pub notes: Vec<super::explain::Note>,
}

/// Whether a document is an overlay.
pub fn is_overlay(doc: &Document) -> bool {
    annotations::has(&doc.comments, MATCH)
}

/// ytt's `Document.IsEmpty`: null, an empty map or an empty array.
pub fn is_empty(doc: &Document) -> bool {
    match &doc.value.value {
        NodeValue::Map(items) => items.is_empty(),
        NodeValue::Array(items) => items.is_empty(),
        NodeValue::Scalar(_) => doc.value.is_null(),
    }
}

/// Each file's documents after overlays; `names` gives the name ytt
/// prints for a file. A file left with no documents is not output.
pub fn apply(
    eval: &mut Evaluator<'_, '_, '_>,
    outputs: Vec<(FileId, Vec<Document>)>,
    names: impl Fn(FileId) -> String,
) -> Result<Vec<(FileId, Vec<Document>)>, PostFailure> {
    let mut files = Vec::new();
    let mut sets = Vec::new();
    let mut overlays: Vec<(FileId, Vec<Document>)> = Vec::new();
    for (file, docs) in outputs {
        let (overlay_docs, docs): (Vec<Document>, Vec<Document>) =
            docs.into_iter().partition(is_overlay);
        if !overlay_docs.is_empty() {
            overlays.push((file, overlay_docs));
        }
        let docs: Vec<Document> = docs.into_iter().filter(|d| !is_empty(d)).collect();
        if !docs.is_empty() {
            files.push(file);
            sets.push(docs);
        }
    }
    let order = overlays
        .iter()
        .map(|(file, _)| names(*file))
        .collect::<Vec<_>>()
        .join(", ");
    let mut overlay = Overlay { eval };
    for (_, docs) in &overlays {
        for doc in docs {
            overlay
                .apply(
                    Left::DocSets(&mut sets),
                    Right::Documents(std::slice::from_ref(doc)),
                )
                .map_err(|e| PostFailure {
                    span: annotations::find(&doc.comments, MATCH).map_or(doc.span, |c| c.span),
                    message: format!("Overlaying (in following order: {order}): {}", e.message()),
                    notes: e.notes().to_vec(),
                })?;
        }
    }
    Ok(files.into_iter().zip(sets).collect())
}
