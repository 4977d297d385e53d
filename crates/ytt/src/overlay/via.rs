//! The annotations that bring their own values (ytt's replace, insert and
//! assert annotations): `@overlay/replace via= or_add=`, `@overlay/insert
//! before= after= via=` and `@overlay/assert via=`.

use super::annotations::{self, ASSERT, INSERT, REPLACE};
use super::compare::compare;
use super::{Outcome, Overlay, OverlayError};
use crate::starlark::go::{go_type, is_callable};
use crate::yaml::{Comment, Node};
use starlark::values::Value;
use starlark::values::list::ListRef;
use starlark::values::tuple::TupleRef;

/// A parsed `@overlay/replace` or `@overlay/insert`.
#[derive(Default)]
pub(super) struct Via<'v> {
    via: Option<Value<'v>>,
    pub or_add: bool,
    pub before: bool,
    pub after: bool,
}

fn as_bool(value: Value<'_>) -> Outcome<bool> {
    value.unpack_bool().ok_or_else(|| {
        OverlayError::Message(format!(
            "expected starlark.Bool, but was {}",
            go_type(value)
        ))
    })
}

fn function<'v>(annotation: &str, kwarg: &str, value: Value<'v>) -> Outcome<Value<'v>> {
    if is_callable(value) {
        return Ok(value);
    }
    Err(format!(
        "Expected '{annotation}' annotation keyword argument '{kwarg}' to be function, but was {}",
        go_type(value)
    )
    .into())
}

impl<'v> Overlay<'_, 'v, '_, '_> {
    pub(super) fn read_replace(&mut self, comments: &[Comment]) -> Outcome<Via<'v>> {
        let mut found = Via::default();
        for (name, value) in annotations::kwargs(self.eval, comments, REPLACE)? {
            match name.as_str() {
                "via" => found.via = Some(function(REPLACE, &name, value)?),
                "or_add" => found.or_add = as_bool(value)?,
                _ => return Err(annotations::unknown_kwarg(REPLACE, &name)),
            }
        }
        Ok(found)
    }

    pub(super) fn read_insert(&mut self, comments: &[Comment]) -> Outcome<Via<'v>> {
        if !annotations::has(comments, INSERT) {
            return Err(format!("Expected item to have '{INSERT}' annotation").into());
        }
        let kwargs = annotations::kwargs(self.eval, comments, INSERT)?;
        if kwargs.is_empty() {
            return Err(format!(
                "Expected '{INSERT}' annotation to have at least one keyword argument (before=..., after=...)"
            )
            .into());
        }
        let mut found = Via::default();
        for (name, value) in kwargs {
            match name.as_str() {
                "before" => found.before = as_bool(value)?,
                "after" => found.after = as_bool(value)?,
                "via" => found.via = Some(function(INSERT, &name, value)?),
                _ => return Err(annotations::unknown_kwarg(INSERT, &name)),
            }
        }
        Ok(found)
    }

    /// The value that goes in: the right value, or what `via(left, right)`
    /// returns (`existing` is None where nothing matched).
    pub(super) fn via_value(
        &mut self,
        via: &Via<'v>,
        existing: Option<&Node>,
        new: &Node,
    ) -> Outcome<Node> {
        let Some(function) = via.via else {
            return Ok(new.clone());
        };
        let left = match existing {
            Some(node) => self.value_of(node),
            None => starlark::values::Value::new_none(),
        };
        let right = self.value_of(new);
        let result = self.call(function, &[left, right])?;
        self.node_of(result, new.span)
    }

    /// `@overlay/assert`: the left value equals the right one, or `via`
    /// accepts it.
    pub(super) fn check_assert(
        &mut self,
        comments: &[Comment],
        existing: &Node,
        new: &Node,
    ) -> Outcome<()> {
        let mut via = None;
        for (name, value) in annotations::kwargs(self.eval, comments, ASSERT)? {
            match name.as_str() {
                "via" => via = Some(value),
                _ => return Err(annotations::unknown_kwarg(ASSERT, &name)),
            }
        }
        let Some(via) = via else {
            return compare(existing, new).map_err(|why| OverlayError::Explained {
                message: format!("Expected objects to equal, but did not: {why}"),
                notes: super::explain::assert_failed(existing, new),
            });
        };
        if !is_callable(via) {
            return Err(format!(
                "Expected '{ASSERT}' annotation keyword argument 'via' to be function, but was {}",
                go_type(via)
            )
            .into());
        }
        let left = self.value_of(existing);
        let right = self.value_of(new);
        let result = self.call(via, &[left, right])?;
        if result.is_none() {
            return Ok(());
        }
        // Which target `via` refused (an overlay may match several).
        let refused = |message: String| OverlayError::Explained {
            message,
            notes: vec![(existing.span, "the target via= refused".to_string())],
        };
        if let Some(ok) = result.unpack_bool() {
            return if ok {
                Ok(())
            } else {
                Err(refused(
                    "Expected via invocation to return true, but was false".into(),
                ))
            };
        }
        // A (bool, string) pair, as a tuple or a list.
        let pair: Option<Vec<Value<'v>>> = TupleRef::from_value(result)
            .map(|t| t.content().to_vec())
            .or_else(|| ListRef::from_value(result).map(|l| l.content().to_vec()));
        if let Some(pair) = pair
            && let [ok, message] = pair.as_slice()
            && let (Some(ok), Some(message)) = (ok.unpack_bool(), message.unpack_str())
        {
            return if ok {
                Ok(())
            } else {
                Err(refused(format!(
                    "Expected via invocation to return true, but was false with message: {message}"
                )))
            };
        }
        Err("Expected via invocation to return NoneType, Bool or Tuple(Bool,String), but returned neither of those".into())
    }
}
