//! Fixes: the text a finding proposes instead of what is there. Knows
//! `source` spans and nothing else, so checks build fixes and emitters show
//! them without knowing of each other; `fix` applies them.
//!
//! A fix is byte-range edits of the source text, never a rewrite of a parsed
//! tree: every comment, `#@` annotation, anchor, quoting style and
//! indentation outside the edited ranges stays byte for byte.

use crate::source::Span;
use serde::{Deserialize, Serialize};

/// Whether a fix may be applied without asking, as ruff grades them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Applicability {
    /// Shown as a suggestion, never applied: more than one repair fits, or
    /// the repair needs a choice only the author can make.
    DisplayOnly,
    /// May change what the configuration means (a rename to the nearest
    /// declared name): applied with `--unsafe-fixes`.
    Unsafe,
    /// Keeps the meaning the author evidently intended, and only that:
    /// applied by `--fix`.
    Safe,
}

impl Applicability {
    pub fn as_str(self) -> &'static str {
        match self {
            Applicability::DisplayOnly => "display-only",
            Applicability::Unsafe => "unsafe",
            Applicability::Safe => "safe",
        }
    }
}

/// Replace the bytes of `span` by `content` (an empty span inserts, an empty
/// content deletes).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Edit {
    pub span: Span,
    pub content: String,
}

impl Edit {
    pub fn replace(span: Span, content: impl Into<String>) -> Edit {
        Edit {
            span,
            content: content.into(),
        }
    }

    pub fn delete(span: Span) -> Edit {
        Edit::replace(span, "")
    }

    /// Whether the two edits touch the same bytes of one file; two
    /// insertions at one place overlap too, since their order would matter.
    pub fn overlaps(&self, other: &Edit) -> bool {
        self.span.file == other.span.file
            && self.span.start < other.span.end.max(other.span.start + 1)
            && other.span.start < self.span.end.max(self.span.start + 1)
    }
}

/// What a finding proposes: edits in one or more files, applied together or
/// not at all.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Fix {
    /// What the fix does, imperative and complete ("write `$(tt.params.x)`").
    pub message: String,
    pub applicability: Applicability,
    /// Sorted by file and position, none overlapping another.
    pub edits: Vec<Edit>,
}

impl Fix {
    /// A fix of these edits; `None` when there is none or two overlap, so
    /// that a check never hands on a fix that cannot be applied.
    pub fn new(
        applicability: Applicability,
        message: impl Into<String>,
        mut edits: Vec<Edit>,
    ) -> Option<Fix> {
        edits.sort_by_key(|e| (e.span.file.0, e.span.start, e.span.end));
        edits.dedup();
        let overlapping = edits.windows(2).any(|pair| pair[0].overlaps(&pair[1]));
        (!edits.is_empty() && !overlapping).then(|| Fix {
            message: message.into(),
            applicability,
            edits,
        })
    }

    pub fn safe(message: impl Into<String>, edits: Vec<Edit>) -> Option<Fix> {
        Fix::new(Applicability::Safe, message, edits)
    }

    pub fn unsafe_(message: impl Into<String>, edits: Vec<Edit>) -> Option<Fix> {
        Fix::new(Applicability::Unsafe, message, edits)
    }

    pub fn display_only(message: impl Into<String>, edits: Vec<Edit>) -> Option<Fix> {
        Fix::new(Applicability::DisplayOnly, message, edits)
    }

    /// Whether any edit of this fix overlaps one of `other`.
    pub fn overlaps(&self, other: &Fix) -> bool {
        self.edits
            .iter()
            .any(|a| other.edits.iter().any(|b| a.overlaps(b)))
    }
}

/// `text` with `edits` (all of one file, none overlapping) made. An edit
/// outside the text or off a character boundary is skipped: checks hand us
/// spans, and applying must never panic.
pub fn apply_edits(text: &str, edits: &[&Edit]) -> String {
    let mut sorted: Vec<&&Edit> = edits.iter().collect();
    sorted.sort_by_key(|e| (e.span.start, e.span.end));
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for edit in sorted {
        let (start, end) = (edit.span.start as usize, edit.span.end as usize);
        let fits = start >= at
            && end >= start
            && end <= text.len()
            && text.is_char_boundary(start)
            && text.is_char_boundary(end);
        if !fits {
            continue;
        }
        out.push_str(&text[at..start]);
        out.push_str(&edit.content);
        at = end;
    }
    out.push_str(&text[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::FileId;

    fn edit(start: usize, end: usize, content: &str) -> Edit {
        Edit::replace(Span::new(FileId(0), start, end), content)
    }

    #[test]
    fn edits_change_only_their_bytes() {
        let text = "a: 1 # keep\nb: $(params.x)\n";
        let at = text.find("params").unwrap();
        let fixed = apply_edits(text, &[&edit(at, at, "tt.")]);
        assert_eq!(fixed, "a: 1 # keep\nb: $(tt.params.x)\n");
        let deleted = apply_edits(text, &[&edit(4, 11, ""), &edit(0, 1, "z")]);
        assert_eq!(deleted, "z: 1\nb: $(params.x)\n");
    }

    #[test]
    fn an_edit_outside_the_text_or_a_character_is_skipped() {
        let text = "é: 1\n";
        assert_eq!(apply_edits(text, &[&edit(1, 2, "x")]), text);
        assert_eq!(apply_edits(text, &[&edit(3, 99, "x")]), text);
    }

    #[test]
    fn overlapping_or_empty_fixes_are_refused() {
        assert!(Fix::safe("x", vec![edit(0, 4, "a"), edit(2, 6, "b")]).is_none());
        assert!(Fix::safe("x", vec![edit(3, 3, "a"), edit(3, 3, "b")]).is_none());
        assert!(Fix::safe("x", vec![]).is_none());
        let fix = Fix::safe("x", vec![edit(4, 6, "b"), edit(0, 4, "a")]).unwrap();
        assert_eq!(fix.edits[0].span.start, 0, "sorted");
        assert!(!edit(0, 4, "").overlaps(&edit(4, 6, "")), "adjacent");
        assert!(edit(4, 4, "").overlaps(&edit(4, 4, "")), "two insertions");
    }
}
