//! `@assert/validate` on data values and on rendered nodes: the rule read
//! from the annotation (evaluated in its file's scope) and run on every node
//! that carries one.

use super::engine::Code;
use super::path::DataPath;
use super::validate::{self, Validator};
use crate::finding::Finding;
use crate::rules;
use crate::yaml::{Annotated, Node, Value};

/// The `@assert/validate` of a node's comments, evaluated in its file's scope.
pub(crate) fn assert_validation(
    comments: &[crate::yaml::Comment],
    code: &Code<'_>,
    errors: &mut Vec<Finding>,
) -> Option<validate::Validation> {
    let comment = comments.iter().rev().find(|c| {
        matches!(&c.kind, crate::yaml::CommentKind::Annotation { name, .. } if name == "assert/validate")
    })?;
    let crate::yaml::CommentKind::Annotation { args, .. } = &comment.kind else {
        return None;
    };
    let call = match code.eval_args(args, comment.span.file) {
        Ok(call) => call,
        Err(err) => {
            let rule = rules::ytt::code_failure(err.is_syntax);
            errors.push(Finding::new(
                rule,
                comment.span,
                format!("@assert/validate: {}", err.message),
            ));
            return None;
        }
    };
    match validate::parse_validation(&call, comment, "assert/validate") {
        Ok(validation) => {
            for note in &validation.compat {
                errors.push(Finding::new(
                    &rules::ytt::COMPAT,
                    comment.span,
                    note.clone(),
                ));
            }
            Some(validation)
        }
        Err(refused) => {
            errors.push(Finding::new(
                &rules::ytt::RULE_ANNOTATION,
                comment.span,
                refused.to_string(),
            ));
            None
        }
    }
}

/// Run the `@assert/validate` rules found on the nodes below `node`: the
/// merged data values, or a template's rendered output.
pub(crate) fn run_asserts(
    node: &Node,
    path: &DataPath,
    validator: &mut Validator<'_>,
    code: &Code<'_>,
    errors: &mut Vec<Finding>,
) {
    match &node.value {
        Value::Map(items) => {
            for item in items {
                let item_path = path.key(&item.key.display());
                if let Some(validation) = assert_validation(item.comments(), code, errors) {
                    validator.run(
                        &item.value,
                        item.key_span,
                        &validation,
                        &item_path,
                        Some(node),
                    );
                }
                run_asserts(&item.value, &item_path, validator, code, errors);
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                let item_path = path.index(index);
                if let Some(validation) = assert_validation(item.comments(), code, errors) {
                    validator.run(&item.value, item.span, &validation, &item_path, Some(node));
                }
                run_asserts(&item.value, &item_path, validator, code, errors);
            }
        }
        Value::Scalar(_) => {}
    }
}
