//! Comments: collected by position while parsing, then attached to the
//! document, map item or array item that owns them as ytt's yamlmeta does.

use crate::source::{FileId, LineIndex, Span};
use crate::yaml::node::{Comment, CommentKind, Document, Node, Value};

/// A comment as the parser reported it, before it is classified and placed.
pub(super) struct RawComment {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) text: String,
}

/// Build [`Comment`]s in source order.
pub(super) fn make_comments(file: FileId, text: &str, mut raw: Vec<RawComment>) -> Vec<Comment> {
    raw.sort_by_key(|c| c.start);
    raw.dedup_by_key(|c| c.start);
    let bytes = text.as_bytes();
    raw.into_iter()
        .map(|c| {
            let (kind, offset) = CommentKind::classify(&c.text);
            let line_start = bytes[..c.start.min(bytes.len())]
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1);
            let own_line = text.get(line_start..c.start).is_some_and(|s| {
                s.chars()
                    .all(|ch| ch == ' ' || ch == '\t' || ch == '\u{feff}')
            });
            Comment {
                span: Span::new(file, c.start, c.end),
                text: c.text,
                kind,
                own_line,
                args_offset: (c.start + 1 + offset) as u32,
                evaluated: None,
            }
        })
        .collect()
}

/// Walks documents, map items and array items in document order. Nodes
/// copied from elsewhere (aliases, merge keys) start before the previous
/// target; they and their subtrees are skipped so start lines stay sorted.
struct Walker<'f> {
    last: usize,
    visit: &'f mut dyn FnMut(usize, &mut Vec<Comment>),
}

impl Walker<'_> {
    fn target(&mut self, start: usize, comments: &mut Vec<Comment>) -> bool {
        if start < self.last {
            return false;
        }
        self.last = start;
        (self.visit)(start, comments);
        true
    }

    fn node(&mut self, node: &mut Node) {
        match &mut node.value {
            Value::Scalar(_) => {}
            Value::Map(items) => {
                for item in items {
                    if self.target(item.key_span.start as usize, &mut item.comments) {
                        self.node(&mut item.value);
                    }
                }
            }
            Value::Array(items) => {
                for item in items {
                    if self.target(item.span.start as usize, &mut item.comments) {
                        self.node(&mut item.value);
                    }
                }
            }
        }
    }

    fn docs(&mut self, docs: &mut [Document]) {
        for doc in docs {
            if self.target(doc.span.start as usize, &mut doc.comments) {
                self.node(&mut doc.value);
            }
        }
    }
}

/// Attach comments as ytt's yamlmeta does: a comment on a line where targets
/// start goes to the last of them (the innermost); any other comment goes to
/// the first target starting on a later line. Returns the comments after the
/// last target.
pub(super) fn attach_comments(
    text: &str,
    docs: &mut [Document],
    comments: Vec<Comment>,
) -> Vec<Comment> {
    if comments.is_empty() {
        return comments;
    }
    let index = LineIndex::new(text);
    let line_of = |offset: usize| index.line(offset);

    let mut lines: Vec<usize> = Vec::new();
    Walker {
        last: 0,
        visit: &mut |start, _| lines.push(line_of(start)),
    }
    .docs(docs);

    let mut trailing = Vec::new();
    let mut assigned: Vec<(usize, Comment)> = Vec::with_capacity(comments.len());
    for comment in comments {
        let line = line_of(comment.span.start as usize);
        let mut target = lines.partition_point(|&l| l < line);
        if lines.get(target) == Some(&line) {
            // ytt: the last node starting on the comment's own line owns it.
            target = lines.partition_point(|&l| l <= line) - 1;
        }
        if target < lines.len() {
            assigned.push((target, comment));
        } else {
            trailing.push(comment);
        }
    }
    // Comments are in source order, so their targets are non-decreasing.
    let mut assigned = assigned.into_iter().peekable();
    let mut index = 0usize;
    Walker {
        last: 0,
        visit: &mut |_, comments| {
            while let Some((_, c)) = assigned.next_if(|(t, _)| *t == index) {
                comments.push(c);
            }
            index += 1;
        },
    }
    .docs(docs);
    trailing
}
