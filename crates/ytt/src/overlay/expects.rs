//! How many matches an `@overlay/match` expects (ytt's
//! `MatchAnnotationExpectsKwarg`): `expects=` (an int, "N+", a list of
//! those, or a function of the count), `missing_ok=`, `when=`, and the
//! defaults `@overlay/match-child-defaults` gives to the nodes below.

use super::annotations::{self, MATCH, MATCH_CHILD_DEFAULTS};
use super::match_kwargs::{ChildDefaults, Expects};
use super::{Outcome, Overlay, OverlayError, position};
use crate::source::Span;
use crate::starlark::go::{go_type, is_callable};
use crate::yaml::Comment;
use starlark::values::Value;
use starlark::values::list::ListRef;

impl<'v> Overlay<'_, 'v, '_, '_> {
    /// The defaults a node gives its children (ytt's
    /// `NewMatchChildDefaultsAnnotation`).
    pub(super) fn child_defaults(
        &mut self,
        comments: &[Comment],
        parent: &ChildDefaults<'v>,
    ) -> Outcome<ChildDefaults<'v>> {
        let mut defaults = Expects::default();
        for (name, value) in annotations::kwargs(self.eval, comments, MATCH_CHILD_DEFAULTS)? {
            if !defaults.take(&name, value) {
                return Err(annotations::unknown_kwarg(MATCH_CHILD_DEFAULTS, &name));
            }
        }
        defaults.fill_in_defaults(parent);
        Ok(defaults)
    }

    /// Check the number of matches (at `matches`) against `expects`.
    pub(super) fn check_expects(&mut self, expects: &Expects<'v>, matches: &[Span]) -> Outcome<()> {
        let one_of = |a: &str, b: &str| {
            Err(OverlayError::Message(format!(
                "Expected only one of keyword arguments ('{a}', '{b}') specified"
            )))
        };
        let from_when = expects.when.is_some();
        match (expects.missing_ok, expects.when, expects.expects) {
            (Some(_), _, Some(_)) => one_of("missing_ok", "expects"),
            (Some(_), Some(_), _) => one_of("missing_ok", "when"),
            (None, Some(_), Some(_)) => one_of("when", "expects"),
            (Some(missing_ok), None, None) => match missing_ok.unpack_bool() {
                Some(true) => {
                    // ytt checks the list [0, 1]: the last failure counts.
                    let zero = self.check_count(0, matches, from_when);
                    if zero.is_ok() {
                        return zero;
                    }
                    self.check_count(1, matches, from_when)
                }
                Some(false) => self.check_count(1, matches, from_when),
                None => Err("Expected keyword argument 'missing_ok' to be a boolean".into()),
            },
            (None, Some(when), None) => self.check_value(when, "when", matches, from_when),
            (None, None, Some(wanted)) => self.check_value(wanted, "expects", matches, from_when),
            (None, None, None) => self.check_count(1, matches, from_when),
        }
    }

    fn check_value(
        &mut self,
        value: Value<'v>,
        kwarg: &str,
        matches: &[Span],
        from_when: bool,
    ) -> Outcome<()> {
        if value.get_type() == "int" {
            let wanted: i64 = value
                .unpack_i32()
                .map(i64::from)
                .or_else(|| value.to_str().parse().ok())
                .ok_or_else(|| OverlayError::Message(format!("integer {value} out of range")))?;
            return self.check_count(wanted, matches, from_when);
        }
        if let Some(text) = value.unpack_str() {
            let wanted: Option<i64> = text.strip_suffix('+').and_then(|n| n.parse().ok());
            let Some(wanted) = wanted else {
                return Err(format!(
                    "Expected '{text}' to be in format 'i+' where i is an integer"
                )
                .into());
            };
            if (matches.len() as i64) < wanted {
                return Err(OverlayError::NumMatch {
                    message: format!(
                        "Expected number of matched nodes to be >= {wanted}, but was {}{}",
                        matches.len(),
                        positions(matches)
                    ),
                    from_when,
                    notes: Vec::new(),
                });
            }
            return Ok(());
        }
        if let Some(list) = ListRef::from_value(value) {
            let mut last = Ok(());
            for item in list.content().to_vec() {
                last = self.check_value(item, kwarg, matches, from_when);
                if last.is_ok() {
                    return last;
                }
            }
            return last;
        }
        if is_callable(value) {
            let count = self.eval.heap().alloc(matches.len() as i32);
            let result = self.call(value, &[count])?;
            return match result.unpack_bool() {
                Some(true) => Ok(()),
                Some(false) => Err(OverlayError::NumMatch {
                    message: "Expectation of number of matched nodes failed".into(),
                    from_when,
                    notes: Vec::new(),
                }),
                None => Err(format!(
                    "Expected keyword argument '{kwarg}' to have a function that returns a boolean"
                )
                .into()),
            };
        }
        Err(format!(
            "Expected '{MATCH}' annotation keyword argument '{kwarg}' to be either int, string or function, but was {}",
            go_type(value)
        )
        .into())
    }

    fn check_count(&self, wanted: i64, matches: &[Span], from_when: bool) -> Outcome<()> {
        if wanted == matches.len() as i64 {
            return Ok(());
        }
        Err(OverlayError::NumMatch {
            message: format!(
                "Expected number of matched nodes to be {wanted}, but was {}{}",
                matches.len(),
                positions(matches)
            ),
            from_when,
            notes: Vec::new(),
        })
    }
}

/// ` (lines: a.yml:3, a.yml:7)`, sorted as text as ytt sorts them.
fn positions(matches: &[Span]) -> String {
    if matches.is_empty() {
        return String::new();
    }
    let mut lines: Vec<String> = matches.iter().map(|s| position(*s, false)).collect();
    lines.sort();
    format!(" (lines: {})", lines.join(", "))
}
