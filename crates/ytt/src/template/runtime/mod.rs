//! What the instructions of a compiled template do while it runs (ytt's
//! `template.EvaluationCtx` with the YAML dialect): a stack of evaluation
//! contexts, one per template run or fragment-function call, each building
//! its output nodes. Starting a node copies the template node and attaches
//! it under the nearest started ancestor, which is how `for` repeats nodes
//! and `if` drops them.

use super::nodes::Tag;
use super::text::TextBuild;
use crate::starlark::convert::{self, Converted};
use crate::starlark::fragment::{Fragment, FragmentData};
use crate::starlark::scalars::scalar_node;
use crate::yaml::{Node, ScalarValue, Value as NodeValue};
use starlark::values::Value;
use std::collections::HashMap;

mod build;
mod error;
mod session;

use build::{Ctx, Materialized, Slot};
pub use error::RuntimeError;
use session::{OpenCtx, foreign_owner, replace_current, with_session, with_session_of};
pub use session::{
    SESSION_TEMPLATES, Session, SessionGuard, SharedSession, new_session, with_current,
};

pub fn start_ctx(id: usize) -> Result<(), RuntimeError> {
    // Another session's template: that session runs until the context
    // ends (its `template.replace`, `data.read`, libraries).
    let owner = foreign_owner(id);
    let return_to = match &owner {
        Some(owner) => replace_current(Some(owner.clone())),
        None => None,
    };
    let started = with_session(|s| {
        let text = s.texts.contains_key(&id).then(TextBuild::default);
        s.ctxs.push(OpenCtx {
            ctx: Ctx {
                template: id,
                arena: Vec::new(),
                root: None,
                parents: Vec::new(),
                parent_tags: Vec::new(),
                pending_keys: HashMap::new(),
                pending_annotations: HashMap::new(),
                text,
            },
            return_to: return_to.clone(),
        });
        Ok(())
    });
    if started.is_err()
        && let Some(previous) = return_to
    {
        replace_current(Some(previous));
    }
    started
}

/// What ending a context returns: the value given, or what it built.
pub enum Ended<'v> {
    Given(Value<'v>),
    Built(Fragment),
    /// What a text context built.
    Text(String),
}

pub fn end_ctx(id: usize, given: Option<Value<'_>>) -> Result<Ended<'_>, RuntimeError> {
    let mut return_to = None;
    let ended = with_session_of(id, |s| {
        let OpenCtx {
            ctx,
            return_to: previous,
        } = s.ctxs.pop().ok_or(RuntimeError::UnexpectedEnd)?;
        return_to = previous;
        if ctx.template != id {
            return Err(RuntimeError::EndedOutOfOrder);
        }
        if let Some(text) = ctx.text {
            let text = text.finish();
            return Ok(match given {
                // A text template's top level ends with a given `None`.
                Some(value) => {
                    if value.is_none() {
                        s.text_results.insert(id, text);
                    }
                    Ended::Given(value)
                }
                None => Ended::Text(text),
            });
        }
        let built = match ctx.root {
            Some(root) => match ctx.materialize(root) {
                Materialized::Node(node) => FragmentData::Node(node),
                Materialized::Documents(docs) => FragmentData::Documents(docs),
                _ => FragmentData::Nil,
            },
            None => FragmentData::Nil,
        };
        if s.ctxs.is_empty() || given.is_some() {
            // A template's top level ends with a given `None`: keep what it
            // built as the template's output.
            if let FragmentData::Documents(docs) = &built
                && given.is_some_and(|v| v.is_none())
                && let Some(slot) = id
                    .checked_sub(s.id_base)
                    .and_then(|index| s.results.get_mut(index))
            {
                *slot = Some(docs.clone());
            }
        }
        Ok(match given {
            Some(value) => Ended::Given(value),
            None => Ended::Built(Fragment::new(built)),
        })
    });
    if let Some(previous) = return_to {
        replace_current(Some(previous));
    }
    ended
}

pub fn start_node(id: usize, tag: Tag) -> Result<(), RuntimeError> {
    with_session_of(id, |s| {
        let text = s.texts.get(&id).cloned();
        let (ctx, nodes, implicit) = s.ctx(id)?;
        if let (Some(nodes), Some(build)) = (text, ctx.text.as_mut()) {
            return build.start_node(&nodes, tag);
        }
        ctx.start_node(&nodes, tag, implicit)
    })
}

pub fn set_node(id: usize, tag: Tag, value: Option<Value<'_>>) -> Result<(), RuntimeError> {
    with_session_of(id, |s| {
        let text = s.texts.get(&id).cloned();
        let (ctx, nodes, _) = s.ctx(id)?;
        if let (Some(nodes), Some(build)) = (text, ctx.text.as_mut()) {
            return build.set_node(&nodes, tag, value);
        }
        let top = *ctx.parents.last().ok_or(RuntimeError::NoNodeToSet)?;
        match value {
            None => {
                let template = nodes.get(tag).ok_or(RuntimeError::UnknownNode)?;
                let span = template.span;
                let node = template
                    .scalar
                    .clone()
                    .unwrap_or_else(|| scalar_node(ScalarValue::Null, span));
                ctx.arena[top].slot = Slot::Node(node);
            }
            Some(value) if is_noop(value) => {}
            Some(value) => {
                let span = ctx.arena[top].span;
                let node = match convert::convert(value, span, 0)? {
                    Converted::Node(node) => node,
                    Converted::Documents(docs) => convert::documents_as_array(docs, span),
                };
                ctx.arena[top].slot = Slot::Node(node);
            }
        }
        Ok(())
    })
}

/// `__ytt_set_map_item_key`: the key the map item `tag` gets when it
/// starts (a templated key of `@yaml/text-templated-strings`).
pub fn set_map_item_key(id: usize, tag: Tag, value: Value<'_>) -> Result<(), RuntimeError> {
    with_session_of(id, |s| {
        let (ctx, nodes, _) = s.ctx(id)?;
        if ctx.text.is_some() {
            return Err(RuntimeError::Unsupported);
        }
        let span = nodes.get(tag).ok_or(RuntimeError::UnknownNode)?.span;
        let key = match convert::convert(value, span, 0)? {
            Converted::Node(Node {
                value: NodeValue::Scalar(scalar),
                ..
            }) => scalar,
            _ => return Err(RuntimeError::KeyNotScalar),
        };
        ctx.pending_keys.insert(tag, key);
        Ok(())
    })
}

/// `__ytt_annotation`: the evaluated arguments of annotation `name` of
/// node `tag`, which it carries when it starts.
pub fn set_annotation_args(
    id: usize,
    tag: Tag,
    name: &str,
    args: crate::yaml::EvaluatedArgs,
) -> Result<(), RuntimeError> {
    with_session_of(id, |s| {
        let (ctx, _, _) = s.ctx(id)?;
        ctx.pending_annotations
            .entry(tag)
            .or_default()
            .push((name.to_string(), args));
        Ok(())
    })
}

/// `template.replace(value)`: the current item becomes the items of `value`.
pub fn replace(value: Value<'_>) -> Result<(), RuntimeError> {
    with_session(|s| {
        let implicit = s.implicit_map_key_overrides;
        let ctx = s
            .ctxs
            .last_mut()
            .map(|open| &mut open.ctx)
            .ok_or(RuntimeError::ReplaceOutsideTemplate)?;
        if ctx.text.is_some() {
            return Err(RuntimeError::Unsupported);
        }
        ctx.replace(value, implicit)
    })
}

fn is_noop(value: Value<'_>) -> bool {
    value.get_type() == super::noop::NOOP_TYPE
}
