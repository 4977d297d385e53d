//! Phase 5: data values merged one source at a time (the package's
//! documents, then the command line's, then what a parent library call
//! gives), each step type-checked against the schema. ytt stops at the
//! first step's error; confvet reports every step's, each once.

use super::super::deprecated::report_given_deprecated;
use super::super::engine::Code;
use super::super::flags;
use super::super::overlay::merge_mode::MergeMode;
use super::super::path::DataPath;
use super::super::quoting;
use super::super::schema::SchemaType;
use super::super::values::{Merger, TypeChecker};
use super::super::workspace::addressed::{Addressed, ValuesDoc};
use super::package::Package;
use crate::finding::Finding;
use crate::source::Span;
use crate::yaml::{Comment, Document, Node, Value};
use std::collections::HashSet;

/// The final data values, and the command line's values addressed to a
/// library (passed on to it).
pub(super) struct Merged {
    pub values: Node,
    pub flag_addressed: Vec<Addressed<ValuesDoc>>,
}

pub(super) fn merge(
    package: &Package<'_>,
    value_docs: &[&Document],
    schema: Option<&SchemaType>,
    code: &Code<'_>,
    findings: &mut Vec<Finding>,
) -> Merged {
    let settings = package.settings;
    let mut seen: HashSet<(Span, String)> = HashSet::new();
    let mut current: Option<Node> = schema.map(|ty| ty.default.clone());
    let root_at = schema.map(|ty| ty.span);
    let mut step_findings = Vec::new();
    // Documents are merged by reference; only command-line values are new.
    let flag_overlays = settings.flags.overlays(package.sources, &mut step_findings);
    // Each source with where it starts, as ytt places it.
    let sources_in_order: Vec<(&Node, Span, &[Comment], MergeMode)> = value_docs
        .iter()
        .map(|doc| {
            let at = flags::document_start(doc);
            (
                &doc.value,
                at,
                doc.comments.as_slice(),
                MergeMode::default(),
            )
        })
        .chain(
            flag_overlays
                .own
                .iter()
                .map(|(node, mode, at)| (node, *at, &[][..], *mode)),
        )
        .chain(
            settings
                .library
                .values
                .iter()
                .map(|doc| (&doc.node, doc.node.span, doc.comments.as_slice(), doc.mode)),
        )
        .collect();
    findings.append(&mut step_findings);
    let written = quoting::WrittenValues {
        sources: package.sources,
        files: value_docs.iter().map(|doc| doc.span.file).collect(),
    };
    for &(node, starts_at, comments, mode) in &sources_in_order {
        let mut step = Vec::new();
        if let Some(ty) = schema {
            let mut checker = TypeChecker {
                findings: &mut step,
                written: None,
            };
            if !checker.fits_document(node, starts_at, ty) {
                findings.append(&mut step);
                continue;
            }
            report_given_deprecated(node, ty, &DataPath::root(), &mut step);
        }
        match current.as_mut() {
            // Without a schema the first document is the base; an empty
            // one is an empty map, as in ytt.
            None if node.is_null() => {
                current = Some(Node {
                    span: node.span,
                    value: Value::Map(Vec::new()),
                })
            }
            None => current = Some(node.clone()),
            Some(left) => {
                let mut merger = Merger {
                    findings: &mut step,
                    has_schema: schema.is_some(),
                    keeps_left_annotations: false,
                    code: Some(code),
                };
                merger.merge_document(left, node, comments, mode);
            }
        }
        if let (Some(ty), Some(values)) = (schema, current.as_mut()) {
            let at = if values.span.file == ty.span.file {
                ty.span
            } else {
                values.span
            };
            TypeChecker {
                findings: &mut step,
                written: Some(&written),
            }
            .check(values, root_at.unwrap_or(at), ty, &DataPath::root());
        }
        for finding in step {
            if seen.insert((finding.span, finding.message.clone())) {
                findings.push(finding);
            }
        }
    }
    let values = current.unwrap_or_else(|| Node {
        span: package.start,
        value: Value::Map(Vec::new()),
    });
    Merged {
        values,
        flag_addressed: flag_overlays.addressed,
    }
}
