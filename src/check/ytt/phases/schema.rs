//! Phase 4: the schema. Each schema document typed on its own, then the
//! documents merged as overlays and the result typed.

use super::super::engine::Code;
use super::super::overlay::merge_mode::MergeMode;
use super::super::schema::{SchemaBuilder, SchemaType};
use super::super::values::Merger;
use crate::finding::Finding;
use crate::rules;
use crate::yaml::Document;

/// Build and merge the schema. Ok(None) without schema documents; Err
/// when ytt stops here (the reasons are in `findings`).
pub(super) fn build(
    docs: &[&Document],
    findings: &mut Vec<Finding>,
    code: &Code<'_>,
) -> Result<Option<SchemaType>, ()> {
    let Some(first) = docs.first() else {
        return Ok(None);
    };
    let mut builder = SchemaBuilder { findings, code };
    let mut types = Vec::new();
    for doc in docs {
        match builder.document_type(doc) {
            Some(ty) => types.push(ty),
            None => return Err(()),
        }
    }
    if docs.len() == 1 {
        return Ok(types.pop());
    }
    // Merge the documents as overlays, keeping the first document's
    // annotations where two annotate one value (ytt: first rule wins).
    let mut merged = (*first).clone();
    let mut merge_findings = Vec::new();
    for doc in &docs[1..] {
        let mut merger = Merger {
            findings: &mut merge_findings,
            has_schema: false,
            keeps_left_annotations: true,
            code: Some(code),
        };
        merger.merge_document(
            &mut merged.value,
            &doc.value,
            &doc.comments,
            MergeMode::default(),
        );
    }
    if !merge_findings.is_empty() {
        for mut finding in merge_findings {
            finding.rule = rules::ytt::SCHEMA.id;
            finding.kind = rules::ytt::SCHEMA.kind;
            finding.message = format!("schema documents do not merge: {}", finding.message);
            findings.push(finding);
        }
        return Err(());
    }
    SchemaBuilder { findings, code }
        .document_type(&merged)
        .map(Some)
        .ok_or(())
}
