//! Building fixes from what a check knows: the span it reports and the text
//! it would write there. The source text decides: a fix is made only where
//! the text to replace appears exactly as expected, so a span that covers
//! more (a whole scalar) or text written in another form (an escape in a
//! quoted string) gives no fix rather than a wrong one.

use crate::edit::Edit;
use crate::source::{Sources, Span};

/// Replace the one occurrence of `old` in the source text of `span` by
/// `new`; None when `old` is not there, or more than once.
pub fn replace_once(sources: &Sources, span: Span, old: &str, new: &str) -> Option<Edit> {
    replace_single(sources, span, old, new, |_, _| true)
}

/// Replace the one occurrence of the name `old` in the source text of `span`
/// by `new`, where it stands as a whole name: not inside a longer one
/// (`port` in `ports` or `export`).
pub fn rename_once(sources: &Sources, span: Span, old: &str, new: &str) -> Option<Edit> {
    let is_name = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
    replace_single(sources, span, old, new, |raw, at| {
        let before = raw[..at].chars().next_back();
        let after = raw[at + old.len()..].chars().next();
        !before.is_some_and(is_name) && !after.is_some_and(is_name)
    })
}

/// The edit replacing the one occurrence of `old` in `span`'s text that
/// `counts` (given the text and the occurrence's offset in it) keeps.
fn replace_single(
    sources: &Sources,
    span: Span,
    old: &str,
    new: &str,
    counts: impl Fn(&str, usize) -> bool,
) -> Option<Edit> {
    if old.is_empty() {
        return None;
    }
    let file = sources.get(span.file);
    let raw = file.text.get(span.range())?;
    let mut found = raw.match_indices(old).filter(|(at, _)| counts(raw, *at));
    let (at, _) = found.next()?;
    if found.next().is_some() {
        return None;
    }
    let start = span.start as usize + at;
    Some(Edit::replace(
        Span::new(span.file, start, start + old.len()),
        new,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SourceFile;

    fn source(text: &str) -> (Sources, Span) {
        let sources = Sources::new();
        let id = sources.add(SourceFile::new("a.yaml".into(), None, text.into()));
        (sources, Span::new(id, 0, text.len()))
    }

    #[test]
    fn only_a_single_occurrence_is_replaced() {
        let (sources, span) = source("v: $(params.x) and $(params.y)");
        let edit = replace_once(&sources, span, "$(params.x)", "$(tt.params.x)").unwrap();
        assert_eq!(edit.span.range(), 3..14);
        let (sources, span) = source("v: $(params.x) and $(params.x)");
        assert!(replace_once(&sources, span, "$(params.x)", "$(tt.params.x)").is_none());
    }

    #[test]
    fn a_rename_touches_the_whole_name_only() {
        let (sources, span) = source("$(params.ports) $(params.port)");
        let edit = rename_once(&sources, span, "port", "host").unwrap();
        assert_eq!(edit.span.range(), 25..29);
        let (sources, span) = source("$(params.ports)");
        assert!(rename_once(&sources, span, "port", "host").is_none());
    }
}
