//! Pipelines-as-Code templates as text, before the YAML is parsed: which
//! files PaC reads as templates, where their `{{ name }}` placeholders are,
//! the text parsed with each blanked out to a filler of the same length
//! (lines and columns stay), and the placeholders put back into the parsed
//! scalars. Discovery uses it to parse; the Tekton check's `pac` module
//! checks the names.

use crate::source::Span;
use crate::yaml::{DocumentSet, Node, Value};
use std::ops::Range;
use std::path::Path;

/// Whether PaC reads the file at `path` with text `text` as a template.
pub fn reads(path: &Path, text: &str) -> bool {
    path.components().any(|c| c.as_os_str() == ".tekton")
        || text.contains("pipelinesascode.tekton.dev/")
}

/// The byte ranges of the placeholders in `text` that name a variable:
/// what PaC's pattern matches, on one line, holding a name (`repo_url`,
/// `body.pull_request.number`, `headers['x-github-event']`), not template
/// code of another tool (`{{.Status}}`, `{{ range .items }}`), which PaC
/// leaves alone too.
pub fn placeholders(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut from = 0;
    // The first `}` at or after some offset, found once and reused, so a
    // long run of `{` stays linear.
    let mut close: Option<usize> = None;
    while let Some(i) = text[from..].find("{{") {
        let start = from + i;
        let inner = start + 2;
        if close.is_none_or(|c| c < inner) {
            close = text[inner..].find('}').map(|j| inner + j);
        }
        let Some(end) = close else { break };
        if end - inner >= 2 && text[end..].starts_with("}}") && is_name(text[inner..end].trim()) {
            out.push(start..end + 2);
            from = end + 2;
        } else {
            from = start + 1;
        }
    }
    out
}

/// A variable name as PaC placeholders hold one.
fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || "_-.[]'\"".contains(c))
}

/// What stands in for a placeholder of `len` bytes while the YAML is
/// parsed: a plain word, distinct enough to be found again in the scalar.
fn filler(len: usize) -> String {
    format!("Q{}Q", "_".repeat(len.saturating_sub(2)))
}

/// `text` with each placeholder of `ranges` blanked out to its filler.
pub fn blank(text: &str, ranges: &[Range<usize>]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for r in ranges {
        out.push_str(&text[at..r.start]);
        out.push_str(&filler(r.len()));
        at = r.end;
    }
    out.push_str(&text[at..]);
    out
}

/// Put the placeholders of `ranges` (in `text`, the file as written) back
/// into the scalars and keys of `set`, parsed from the blanked text.
pub fn restore(set: &mut DocumentSet, text: &str, ranges: &[Range<usize>]) {
    for doc in &mut set.docs {
        restore_node(&mut doc.value, text, ranges, 0);
    }
}

fn restore_node(node: &mut Node, text: &str, ranges: &[Range<usize>], depth: usize) {
    // The parser bounds nesting; this keeps the walk's stack small anyway.
    if depth > 256 {
        return;
    }
    let span = node.span;
    match &mut node.value {
        Value::Scalar(s) => restore_text(&mut s.text, span, text, ranges),
        Value::Array(list) => {
            for it in list {
                restore_node(&mut it.value, text, ranges, depth + 1);
            }
        }
        Value::Map(entries) => {
            for it in entries {
                restore_text(&mut it.key.text, it.key_span, text, ranges);
                restore_node(&mut it.value, text, ranges, depth + 1);
            }
        }
    }
}

/// Replace, in order, the filler of each placeholder within `span` in
/// `value` by the placeholder as written.
fn restore_text(value: &mut String, span: Span, text: &str, ranges: &[Range<usize>]) {
    let within = in_span(ranges, span);
    if within.is_empty() || !value.contains('Q') {
        return;
    }
    let mut cursor = 0;
    for r in within {
        let fill = filler(r.len());
        let Some(i) = value[cursor..].find(&fill) else {
            return;
        };
        let at = cursor + i;
        value.replace_range(at..at + fill.len(), &text[r.clone()]);
        cursor = at + r.len();
    }
}

/// The ranges (sorted, disjoint) that lie within `span`.
pub(crate) fn in_span(ranges: &[Range<usize>], span: Span) -> &[Range<usize>] {
    let (start, end) = (span.start as usize, span.end as usize);
    let first = ranges.partition_point(|r| r.start < start);
    let last = ranges.partition_point(|r| r.end <= end);
    ranges.get(first..last.max(first)).unwrap_or(&[])
}
