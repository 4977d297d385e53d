//! Which left nodes an `@overlay/match` picks (ytt's map item, array item
//! and document match annotations): by key, by `by=` (a map key name or a
//! function of index or key, left value and right value), then the number
//! of matches checked against `expects=`.

use super::annotations::{self, MATCH};
use super::match_kwargs::{ChildDefaults, Expects};
use super::{Outcome, Overlay, OverlayError, explain};
use crate::modules::overlay::{asked_by, decide_natively, map_key_matcher};
use crate::source::Span;
use crate::starlark::go::{go_type, is_callable};
use crate::starlark::scalars::scalar_to_value;
use crate::yaml::{ArrayItem, Comment, Document, MapItem, Node, Value as NodeValue};
use starlark::values::Value;

/// A parsed `@overlay/match`.
struct Match<'v> {
    by: Option<Value<'v>>,
    expects: Expects<'v>,
}

impl<'v> Overlay<'_, 'v, '_, '_> {
    fn read_match(
        &mut self,
        comments: &[Comment],
        defaults: &ChildDefaults<'v>,
    ) -> Outcome<(Match<'v>, usize)> {
        let kwargs = annotations::kwargs(self.eval, comments, MATCH)?;
        let count = kwargs.len();
        let mut found = Match {
            by: None,
            expects: Expects::default(),
        };
        for (name, value) in kwargs {
            if name == "by" {
                found.by = Some(value);
            } else if !found.expects.take(&name, value) {
                return Err(annotations::unknown_kwarg(MATCH, &name));
            }
        }
        found.expects.fill_in_defaults(defaults);
        Ok((found, count))
    }

    /// The matcher a string `by=` stands for (`overlay.map_key(by)`).
    fn matcher(&mut self, by: Value<'v>) -> Value<'v> {
        if by.unpack_str().is_some() {
            return map_key_matcher(self.eval.heap(), by);
        }
        by
    }

    /// Whether `matcher` picks `left` (at `index`) for `right`: ytt's own
    /// matchers decide on the nodes, any other function is called with
    /// them as values (`right` converted once, on first need).
    fn decides(
        &mut self,
        matcher: Value<'v>,
        index: usize,
        left: &Node,
        right: &Node,
        right_value: &mut Option<Value<'v>>,
    ) -> Outcome<bool> {
        if let Some(decided) = decide_natively(matcher, index as i64, left, right) {
            return Ok(decided);
        }
        let right = *right_value.get_or_insert_with(|| self.value_of(right));
        let index = self.eval.heap().alloc(index as i32);
        let left = self.value_of(left);
        self.is_match(matcher, [index, left, right])
    }

    fn is_match(&mut self, matcher: Value<'v>, args: [Value<'v>; 3]) -> Outcome<bool> {
        let result = self.call(matcher, &args)?;
        result.unpack_bool().ok_or_else(|| {
            OverlayError::Message(format!(
                "expected starlark.Bool, but was {}",
                go_type(result)
            ))
        })
    }

    /// The items of `left` (a map) that `item` matches.
    pub(super) fn map_item_indexes(
        &mut self,
        left: &Node,
        item: &MapItem,
        defaults: &ChildDefaults<'v>,
    ) -> Outcome<Vec<usize>> {
        let (found, _) = self.read_match(&item.comments, defaults)?;
        let NodeValue::Map(items) = &left.value else {
            return Ok(Vec::new());
        };
        let mut indexes = Vec::new();
        let mut matches: Vec<Span> = Vec::new();
        match found.by {
            None => {
                for (i, left_item) in items.iter().enumerate() {
                    if left_item.key.resolved == item.key.resolved {
                        indexes.push(i);
                        matches.push(left_item.key_span);
                    }
                }
            }
            Some(by) => {
                let matcher = self.matcher(by);
                if !is_callable(matcher) {
                    return Err(by_type_error(matcher));
                }
                let right = self.value_of(&item.value);
                for (i, left_item) in items.iter().enumerate() {
                    let key = scalar_to_value(&left_item.key.resolved, self.eval.heap());
                    let value = self.value_of(&left_item.value);
                    if self.is_match(matcher, [key, value, right])? {
                        indexes.push(i);
                        matches.push(left_item.key_span);
                    }
                }
            }
        }
        self.check_expects(&found.expects, &matches).map_err(|e| {
            e.explained(|| {
                let mut notes = item_notes(&item.comments, item.key_span, &matches, None);
                if matches.is_empty() && found.by.is_none() {
                    notes.extend(explain::near_key(&item.key.display(), items));
                }
                notes
            })
        })?;
        Ok(indexes)
    }

    /// The items of `left` (an array) that `item` matches; an item without
    /// `@overlay/match` matches none.
    pub(super) fn array_item_indexes(
        &mut self,
        left: &Node,
        item: &ArrayItem,
        defaults: &ChildDefaults<'v>,
    ) -> Outcome<Vec<usize>> {
        if !annotations::has(&item.comments, MATCH) {
            return Ok(Vec::new());
        }
        let (found, count) = self.read_match(&item.comments, defaults)?;
        if count == 0 {
            return Err(no_kwargs());
        }
        let Some(by) = found.by else {
            return Err(format!(
                "Expected '{MATCH}' annotation keyword argument 'by' to be specified"
            )
            .into());
        };
        let matcher = self.matcher(by);
        if !is_callable(matcher) {
            return Err(by_type_error(matcher));
        }
        let NodeValue::Array(items) = &left.value else {
            return Ok(Vec::new());
        };
        let mut right = None;
        let mut indexes = Vec::new();
        let mut matches = Vec::new();
        for (i, left_item) in items.iter().enumerate() {
            if self.decides(matcher, i, &left_item.value, &item.value, &mut right)? {
                indexes.push(i);
                matches.push(left_item.span);
            }
        }
        self.check_expects(&found.expects, &matches).map_err(|e| {
            e.explained(|| {
                let candidates: Vec<&Node> = items.iter().map(|i| &i.value).collect();
                let asked = asked_by(matcher, &item.value).map(|asked| (asked, candidates));
                item_notes(&item.comments, item.span, &matches, asked)
            })
        })?;
        Ok(indexes)
    }

    /// The documents of `sets` that `doc` matches, as (set, document).
    pub(super) fn document_indexes(
        &mut self,
        sets: &[Vec<Document>],
        doc: &Document,
        defaults: &ChildDefaults<'v>,
    ) -> Outcome<Vec<(usize, usize)>> {
        let (found, count) = self.read_match(&doc.comments, defaults)?;
        if count == 0 {
            return Err(no_kwargs());
        }
        let Some(matcher) = found.by else {
            return Err(format!(
                "Expected '{MATCH}' annotation keyword argument 'by'  to be specified"
            )
            .into());
        };
        if !is_callable(matcher) {
            return Err(format!(
                "Expected '{MATCH}' annotation keyword argument 'by' to be function, but was {}",
                go_type(matcher)
            )
            .into());
        }
        let mut right = None;
        let mut indexes = Vec::new();
        let mut matches = Vec::new();
        let mut combined = 0;
        for (i, set) in sets.iter().enumerate() {
            for (j, left) in set.iter().enumerate() {
                if self.decides(matcher, combined, &left.value, &doc.value, &mut right)? {
                    indexes.push((i, j));
                    matches.push(left.span);
                }
                combined += 1;
            }
        }
        self.check_expects(&found.expects, &matches).map_err(|e| {
            e.explained(|| {
                if !matches.is_empty() {
                    return explain::matches(&matches);
                }
                let candidates: Vec<&Node> = sets.iter().flatten().map(|d| &d.value).collect();
                asked_by(matcher, &doc.value)
                    .map(|asked| explain::no_match(&asked, &candidates))
                    .unwrap_or_default()
            })
        })?;
        Ok(indexes)
    }
}

/// The notes of an item's `@overlay/match` (or its key, without one) that
/// found too many or too few: where it is, then where the matches are, or
/// why the nearest candidates do not match (`asked`, when the matcher says).
fn item_notes(
    comments: &[Comment],
    item_at: Span,
    matches: &[Span],
    asked: Option<(Node, Vec<&Node>)>,
) -> Vec<explain::Note> {
    let first = match annotations::find(comments, MATCH) {
        Some(annotation) => (annotation.span, "this item's @overlay/match".to_string()),
        None => (
            item_at,
            "this item (its key must be in the target)".to_string(),
        ),
    };
    let mut notes = vec![first];
    if !matches.is_empty() {
        notes.extend(explain::matches(matches));
    } else if let Some((asked, candidates)) = asked {
        notes.extend(explain::no_match(&asked, &candidates));
    }
    notes
}

fn no_kwargs() -> OverlayError {
    OverlayError::Message(format!(
        "Expected '{MATCH}' annotation to have at least one keyword argument (by=..., expects=...)"
    ))
}

fn by_type_error(matcher: Value<'_>) -> OverlayError {
    OverlayError::Message(format!(
        "Expected '{MATCH}' annotation keyword argument 'by' to be either string (for map key) or function, but was {}",
        go_type(matcher)
    ))
}
