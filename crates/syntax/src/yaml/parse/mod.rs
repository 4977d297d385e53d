//! Parse YAML text into the node tree.
//!
//! Events come from `granit-parser`; the tree is built with an explicit stack
//! (no recursion while parsing), so deep nesting is an error, never a stack
//! overflow. Comments are collected by position and attached afterwards, as
//! ytt's yamlmeta does: a comment goes to the first document, map item or
//! array item (in document order) starting on a later line, unless nodes
//! start on the comment's own line (`port: 80 #@schema/nullable`): then it
//! goes to the last (innermost) of those. Scalars are resolved as go-yaml v2 does (`scalar`).
//!
//! `options` and `error` are what a parse is given and fails with;
//! `builder` builds the tree from the events, with `keys` (duplicate keys)
//! and `text_scan` (what the events leave out of the source); `comments`
//! places the comments. This file runs the parser over one file.

mod builder;
mod comments;
mod error;
mod keys;
mod options;
mod text_scan;

pub use error::{ParseError, ParseErrorKind};
pub use options::ParseOptions;

use crate::source::FileId;
use crate::yaml::node::DocumentSet;
use builder::Builder;
use comments::{attach_comments, make_comments};
use granit_parser::Parser;

/// Parse all documents of one file. Spans are byte offsets into `text`.
pub fn parse_file(
    file: FileId,
    text: &str,
    options: &ParseOptions,
) -> Result<DocumentSet, ParseError> {
    let parser_options = granit_parser::options! {
        emit_anchor_events: true,
        // Every comment has at least its `#`: this never limits a real file.
        max_buffered_comment_events: text.len().saturating_add(16),
        // Our own depth check fires first; these bound the parser's own state.
        flow_nesting_limit: options.max_depth.saturating_add(8),
        block_nesting_limit: options.max_depth.saturating_add(8),
    };
    let mut builder = Builder::new(file, text, options);
    for result in Parser::new_from_str_with_options(text, parser_options) {
        let (event, span) = result.map_err(|e| builder.scan_error(&e))?;
        builder.event(event, span)?;
    }
    builder.flush_pending()?;
    let (mut docs, raw_comments) = builder.finish();
    let comments = make_comments(file, text, raw_comments);
    let trailing_comments = attach_comments(text, &mut docs, comments);
    Ok(DocumentSet {
        docs,
        trailing_comments,
    })
}

#[cfg(test)]
mod tests;
