//! The syntax of Tekton's `$(…)` expressions (spec § 6.1): where they are
//! in a string, and what a `$(params…)` body names. No declarations: the
//! checks in `refs` and the models in `model` both read it.

use crate::yaml::{Scalar, ScalarStyle};

/// Expressions in a string: (offset of `$(`, body). Each `$(` starts one
/// that ends at the first `)` after it (spec § 6.1).
pub(super) fn exprs(s: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut from = 0;
    // The first `)` at or after some offset: found once and reused while
    // the expressions start before it, so nested `$($($(…` stay linear.
    let mut close: Option<usize> = None;
    while let Some(i) = s[from..].find("$(") {
        let start = from + i;
        if close.is_none_or(|c| c < start + 2) {
            close = s[start + 2..].find(')').map(|j| start + 2 + j);
        }
        match close {
            Some(c) => out.push((start, clip(&s[start + 2..c]))),
            None => break,
        }
        from = start + 2;
    }
    out
}

/// Where the `$(` of a scalar are: (offsets in `raw`, its source text,
/// after a block scalar's header line; offsets in its value). The k-th of
/// one is the k-th of the other unless an escape made one up (then the
/// counts differ).
pub(super) fn openings(raw: &str, scalar: &Scalar) -> (Vec<usize>, Vec<usize>) {
    let body_start = if matches!(scalar.style, ScalarStyle::Literal | ScalarStyle::Folded) {
        raw.find('\n').map_or(raw.len(), |i| i + 1)
    } else {
        0
    };
    let in_source: Vec<usize> = raw[body_start..]
        .match_indices("$(")
        .map(|(i, _)| body_start + i)
        .collect();
    let in_text: Vec<usize> = scalar.text.match_indices("$(").map(|(i, _)| i).collect();
    (in_source, in_text)
}

/// No valid body is longer (names are at most 253 bytes); a longer one is
/// judged by its start, so `$(params.` repeated a million times before its
/// `)` stays linear.
pub(super) const MAX_BODY: usize = 1024;

fn clip(body: &str) -> &str {
    if body.len() <= MAX_BODY {
        return body;
    }
    let mut end = MAX_BODY;
    while !body.is_char_boundary(end) {
        end -= 1;
    }
    &body[..end]
}

/// The body of `s` when `s` is exactly one expression and nothing else.
pub(super) fn isolated_body(s: &str) -> Option<&str> {
    match exprs(s)[..] {
        [(0, body)] if body.len() + 3 == s.len() => Some(body),
        _ => None,
    }
}

/// A parsed `$(params…)` body.
pub(super) enum PRef {
    Malformed,
    Ok {
        name: String,
        key: Option<String>,
        star: bool,
        index: bool,
    },
}

/// None when `body` is not a param reference at all.
pub(super) fn parse_param_ref(body: &str) -> Option<PRef> {
    let rest = body.strip_prefix("params")?;
    if !(rest.starts_with('.') || rest.starts_with('[')) {
        return None;
    }
    let (core, star, index) = strip_selector(rest);
    if let Some(r) = core.strip_prefix('.') {
        let parts: Vec<&str> = r.split('.').collect();
        if parts.len() > 2
            || parts
                .iter()
                .any(|p| p.is_empty() || p.contains('[') || p.contains(']'))
            || (parts.len() == 2 && (star || index))
        {
            return Some(PRef::Malformed);
        }
        return Some(PRef::Ok {
            name: parts[0].to_string(),
            key: parts.get(1).map(|s| s.to_string()),
            star,
            index,
        });
    }
    for q in ['\'', '"'] {
        let open = format!("[{q}");
        let close = format!("{q}]");
        if let Some(r) = core.strip_prefix(open.as_str())
            && let Some(name) = r.strip_suffix(close.as_str())
            && !name.is_empty()
            && !name.contains(q)
        {
            return Some(PRef::Ok {
                name: name.to_string(),
                key: None,
                star,
                index,
            });
        }
    }
    Some(PRef::Malformed)
}

/// Strip one trailing `[*]` or `[N]`: (rest, star, index).
pub(super) fn strip_selector(s: &str) -> (&str, bool, bool) {
    if let Some(c) = s.strip_suffix("[*]") {
        return (c, true, false);
    }
    if let Some(c) = s.strip_suffix(']')
        && let Some(i) = c.rfind('[')
    {
        let digits = &c[i + 1..];
        if !digits.is_empty() && digits.chars().all(|d| d.is_ascii_digit()) {
            return (&c[..i], false, true);
        }
    }
    (s, false, false)
}

/// `$(<prefix>T.results…)`: a task result reference (`tasks.`, or `finally.`
/// in pipeline results). `tasks.T.status`, `tasks.status` and the like are
/// other features (spec § 7.1).
pub(super) fn is_result_ref(body: &str, prefix: &str) -> bool {
    body.starts_with(prefix) && body.split('.').nth(2) == Some("results")
}
