//! `@ytt:regexp`: `match(pattern, text)` (unanchored) and
//! `replace(pattern, text, replacement)`, where the replacement is a
//! template (`$1`, `${name}`, `$$`) or a function given each match. Go's
//! RE2 syntax; `\d`, `\w`, `\s` and `\b` keep Go's ASCII meaning.

use super::context::Context;
use super::native::{Call, Outcome, as_str, native};
use crate::starlark::convert::OUTPUT_LIMIT_BYTES;
use crate::starlark::go::is_callable;
use starlark::eval::Evaluator;
use starlark::values::{Heap, Value};

pub fn module<'v>(heap: Heap<'v>, _: &Context) -> Value<'v> {
    super::native::module(
        heap,
        "regexp",
        &[
            ("match", "regexp.match", native!(is_match)),
            ("replace", "regexp.replace", native!(replace)),
        ],
    )
}

/// A pattern that did not compile: the regex crate's error after ytt's
/// words (Go's own parse errors are not reproduced, the crate's pass on).
#[derive(Debug, Clone, thiserror::Error)]
#[error("error parsing regexp: {0}")]
pub struct PatternError(regex::Error);

impl super::native::YttMessage for PatternError {}

/// A Go regular expression compiled for Rust's regex crate.
pub fn compile(pattern: &str) -> Result<regex::Regex, PatternError> {
    regex::Regex::new(&go_classes(pattern)).map_err(PatternError)
}

/// Perl classes with Go's ASCII meaning (Rust's are Unicode-aware).
fn go_classes(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    let mut chars = pattern.chars().peekable();
    // Inside `[...]`; and whether a `]` there would still be a literal.
    let mut in_class = false;
    let mut class_start = false;
    while let Some(c) = chars.next() {
        let at_start = std::mem::take(&mut class_start);
        match c {
            '\\' => {
                let Some(next) = chars.next() else {
                    out.push('\\');
                    break;
                };
                let replacement = match (in_class, next) {
                    (false, 'd') => Some("[0-9]"),
                    (false, 'D') => Some("[^0-9]"),
                    (false, 'w') => Some("[0-9A-Za-z_]"),
                    (false, 'W') => Some("[^0-9A-Za-z_]"),
                    (false, 's') => Some(r"[\t\n\f\r ]"),
                    (false, 'S') => Some(r"[^\t\n\f\r ]"),
                    (false, 'b') => Some(r"(?-u:\b)"),
                    (false, 'B') => Some(r"(?-u:\B)"),
                    (true, 'd') => Some("0-9"),
                    (true, 'w') => Some("0-9A-Za-z_"),
                    (true, 's') => Some(r"\t\n\f\r "),
                    _ => None,
                };
                match replacement {
                    Some(r) => out.push_str(r),
                    None => {
                        out.push('\\');
                        out.push(next);
                    }
                }
            }
            '[' if !in_class => {
                in_class = true;
                class_start = true;
                out.push(c);
            }
            '^' if at_start => {
                class_start = true;
                out.push(c);
            }
            ']' if in_class && !at_start => {
                in_class = false;
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

fn is_match<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    call.expect(2, "expected exactly two arguments")?;
    let pattern = call.str_arg(0)?;
    let text = call.str_arg(1)?;
    let re = compile(pattern)?;
    Ok(Value::new_bool(re.is_match(text)))
}

fn replace<'v>(call: &Call<'v, '_>, eval: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    call.expect(3, "expected exactly 3 arguments")?;
    let pattern = call.str_arg(0)?;
    let re = compile(pattern)?;
    let source = call.str_arg(1)?;
    let replacement = call.args[2];
    let template = if is_callable(replacement) {
        None
    } else {
        Some(as_str(replacement)?)
    };
    let mut out = String::with_capacity(source.len());
    let mut last = 0;
    // A template's `$0`s can copy a long match many times over: each
    // expansion is measured before it is written (at most the template's
    // length plus its references each as long as the whole match).
    let references = template.map_or(0, |t| t.matches('$').count());
    for caps in matches(&re, source) {
        let Some(m) = caps.get(0) else { continue };
        let growth = template.map_or(0, |t| t.len() + references * m.len());
        if (out.len() + (m.start() - last) + growth) as u64 > OUTPUT_LIMIT_BYTES {
            return Err(format!(
                "regexp.replace: the result would pass {} MiB",
                OUTPUT_LIMIT_BYTES / 1024 / 1024
            )
            .into());
        }
        out.push_str(&source[last..m.start()]);
        match template {
            Some(template) => caps.expand(template, &mut out),
            None => {
                let given = call.heap.alloc(m.as_str());
                let result = eval.eval_function(replacement, &[given], &[])?;
                out.push_str(as_str(result)?);
            }
        }
        last = m.end();
    }
    out.push_str(&source[last..]);
    Ok(call.heap.alloc(out))
}

/// The matches Go's `ReplaceAll` replaces, one at a time: an empty match
/// right after the previous match is skipped.
fn matches<'r, 't>(
    re: &'r regex::Regex,
    text: &'t str,
) -> impl Iterator<Item = regex::Captures<'t>> + use<'r, 't> {
    let mut previous_end = None;
    re.captures_iter(text).filter(move |caps| {
        let Some(m) = caps.get(0) else {
            return false;
        };
        if m.start() == m.end() && previous_end == Some(m.start()) {
            return false;
        }
        previous_end = Some(m.end());
        true
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perl_classes_are_ascii_as_in_go() {
        let re = compile(r"^\d+$").unwrap();
        assert!(re.is_match("123"));
        assert!(!re.is_match("١٢٣"));
        assert!(compile(r"[\d.]+").unwrap().is_match("1.2"));
        assert!(compile(r"[^\]\d]").unwrap().is_match("a"));
        assert!(compile(r"\\d").unwrap().is_match(r"\d"));
    }

    #[test]
    fn replaces_as_go_does() {
        // Expected values from the reference ytt.
        let re = compile("a*").unwrap();
        let found: Vec<_> = matches(&re, "baaac")
            .filter_map(|c| c.get(0).map(|m| m.range()))
            .collect();
        assert_eq!(found, vec![0..0, 1..4, 5..5]);
    }
}
