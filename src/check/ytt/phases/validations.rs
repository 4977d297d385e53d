//! Phase 6: validations on the final data values: the schema's
//! `@schema/validation` rules and `@assert/validate` on data-values
//! documents and on the nodes that survived the merge. ytt never gets here
//! after a type or unknown-key error, and neither does confvet: a rule on
//! a value of the wrong type would only report the same problem again, or
//! a false one.

use super::super::asserts::{assert_validation, run_asserts};
use super::super::engine::Code;
use super::super::path::DataPath;
use super::super::schema::SchemaType;
use super::super::validate::Validator;
use crate::finding::Finding;
use crate::source::Span;
use crate::yaml::{Annotated, Document, Node};
use std::collections::HashSet;

pub(super) fn run(
    values: &Node,
    value_docs: &[&Document],
    schema: Option<&SchemaType>,
    code: &Code<'_>,
    findings: &mut Vec<Finding>,
) {
    let mistyped: HashSet<Span> = findings.iter().map(|f| f.span).collect();
    let mut violations = Vec::new();
    let mut annotation_errors = Vec::new();
    let mut validator = Validator {
        findings: &mut violations,
        code,
        root: Some(values),
        root_value: None,
        is_aborted: false,
    };
    if let Some(ty) = schema {
        validator.validate(values, ty.span, ty, &DataPath::root(), None);
    }
    for doc in value_docs {
        if let Some(validation) = assert_validation(doc.comments(), code, &mut annotation_errors) {
            validator.run(values, doc.span, &validation, &DataPath::root(), None);
        }
    }
    run_asserts(
        values,
        &DataPath::root(),
        &mut validator,
        code,
        &mut annotation_errors,
    );
    findings.extend(annotation_errors);
    findings.extend(
        violations
            .into_iter()
            .filter(|v| !mistyped.contains(&v.span)),
    );
}
