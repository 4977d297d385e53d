//! `@assert/validate` on output nodes, run on what they rendered to (the
//! seed design's "validating an output document"; the ytt command skips
//! them).

use super::super::engine::Code;
use super::super::path::DataPath;
use super::super::validate::Validator;
use super::super::{assert_validation, has_errors, run_asserts};
use super::{Rendered, Renderer};
use crate::finding::Finding;
use crate::yaml::{Comment, CommentKind, Document};
use std::collections::HashMap;

impl Renderer {
    /// `@assert/validate` on output nodes, run on what they rendered to.
    pub(super) fn validate_output(
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
            run_asserts(
                &doc.value,
                &DataPath::root(),
                &mut validator,
                &code,
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

fn has_output_rules(doc: &Document) -> bool {
    fn annotated(comments: &[Comment]) -> bool {
        comments.iter().any(|c| {
            matches!(&c.kind, CommentKind::Annotation { name, .. } if name == "assert/validate")
        })
    }
    annotated(&doc.comments) || doc.value.any_item_comments(&annotated)
}
