//! The overlay annotations of a right-hand node (ytt's `annotations.go`):
//! which operation it asks for, and an annotation's keyword arguments as
//! evaluated when the node was built.

use super::{Outcome, OverlayError};
use crate::starlark::convert::star_to_value;
use crate::starlark::eval_annotation_args;
use crate::template::annotation_args;
use crate::yaml::{Comment, CommentKind};
use starlark::eval::Evaluator;
use starlark::values::Value;

pub const MATCH: &str = "overlay/match";
pub const MATCH_CHILD_DEFAULTS: &str = "overlay/match-child-defaults";
pub const MERGE: &str = "overlay/merge";
pub const REMOVE: &str = "overlay/remove";
pub const REPLACE: &str = "overlay/replace";
pub const INSERT: &str = "overlay/insert";
pub const APPEND: &str = "overlay/append";
pub const ASSERT: &str = "overlay/assert";

/// The operations, in the order ytt looks for them.
const OPS: [&str; 6] = [MERGE, REMOVE, REPLACE, INSERT, APPEND, ASSERT];

/// The last annotation named `name` (ytt keeps one annotation per name).
pub fn find<'c>(comments: &'c [Comment], name: &str) -> Option<&'c Comment> {
    comments
        .iter()
        .rev()
        .find(|c| matches!(&c.kind, CommentKind::Annotation { name: n, .. } if n == name))
}

pub fn has(comments: &[Comment], name: &str) -> bool {
    find(comments, name).is_some()
}

/// The operation a node asks for; merge when it names none (`whichOp`).
pub fn which_op(comments: &[Comment]) -> Outcome<&'static str> {
    let mut found = None;
    for op in OPS {
        if has(comments, op) {
            if found.is_some() {
                return Err("Expected to find only one overlay operation".into());
            }
            found = Some(op);
        }
    }
    Ok(found.unwrap_or(MERGE))
}

/// The keyword arguments of annotation `name` (none when it is absent).
pub fn kwargs<'v>(
    eval: &mut Evaluator<'v, '_, '_>,
    comments: &[Comment],
    name: &str,
) -> Outcome<Vec<(String, Value<'v>)>> {
    let Some(comment) = find(comments, name) else {
        return Ok(Vec::new());
    };
    if let Some(at) = comment.evaluated {
        return annotation_args::kwargs(eval, at).ok_or_else(|| {
            OverlayError::Message(format!("confvet lost the arguments of annotation '{name}'"))
        });
    }
    // A node no template built (plain YAML): its arguments are constants.
    let CommentKind::Annotation { args, .. } = &comment.kind else {
        return Ok(Vec::new());
    };
    let call = eval_annotation_args(args).map_err(|e| OverlayError::Message(e.message))?;
    let heap = eval.heap();
    Ok(call
        .named
        .iter()
        .map(|(k, v)| (k.clone(), star_to_value(heap, v)))
        .collect())
}

/// An annotation keyword argument ytt does not know.
pub fn unknown_kwarg(annotation: &str, kwarg: &str) -> OverlayError {
    OverlayError::Message(format!(
        "Unknown '{annotation}' annotation keyword argument '{kwarg}'"
    ))
}
