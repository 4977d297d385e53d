//! The node tree built from the parser's events with an explicit stack of
//! open maps and arrays (no recursion), counting depth, nodes and alias
//! expansion against the limits as it goes.

use super::comments::RawComment;
use super::error::{ParseError, ParseErrorKind};
use super::keys::{KeyId, is_duplicate, merge_keys};
use super::options::ParseOptions;
use super::text_scan::{
    block_scalar_header, byte_end, byte_start, ends_in_last_line_unbroken, find_dash, is_blank,
};
use crate::source::{FileId, Span};
use crate::yaml::node::{
    ArrayItem, Document, MapItem, Node, Scalar, ScalarStyle, ScalarValue, Value,
};
use crate::yaml::scalar;
use granit_parser::{ErrorKind, Event, ScanError, StructureStyle};
use std::collections::{HashMap, HashSet};

const MERGE_ERROR: &str = "map merge requires map or sequence of maps as the value";

/// A node that is complete, with what its parent needs to know.
struct Done {
    node: Node,
    /// Start of the node including its anchor and tag.
    props_start: usize,
    /// Nodes in the subtree (keys included), after alias expansion.
    count: usize,
    /// Bytes of scalar text in the subtree, after alias expansion.
    bytes: usize,
    /// Levels of collections in the subtree (0 for a scalar).
    height: usize,
    anchor: usize,
    /// An implicit empty value (`key:` or `-` with nothing after).
    empty: bool,
}

enum Kind {
    Map {
        items: Vec<MapItem>,
        key: Option<(Scalar, Span)>,
        /// Keys seen so far, once the map is too big for a linear scan.
        seen: Option<HashSet<KeyId>>,
        /// `<<` values and where in `items` they were given.
        merges: Vec<(usize, Node, bool)>,
    },
    Seq {
        items: Vec<ArrayItem>,
    },
}

/// An open map or array.
struct Frame {
    kind: Kind,
    flow: bool,
    /// Start of the `[` / `{`, if the start event covered one.
    open: Option<usize>,
    /// Start offset of the start event (fallback for spans).
    event_start: usize,
    props_start: Option<usize>,
    anchor: usize,
    first_start: Option<usize>,
    last_end: usize,
    count: usize,
    bytes: usize,
    height: usize,
}

struct Anchored {
    node: Node,
    count: usize,
    bytes: usize,
    height: usize,
}

/// The tree under construction: finished documents, the stack of open
/// collections and the anchors seen, with the running counts.
pub(super) struct Builder<'a> {
    file: FileId,
    text: &'a str,
    bytes: &'a [u8],
    options: &'a ParseOptions,
    docs: Vec<Document>,
    raw_comments: Vec<RawComment>,
    stack: Vec<Frame>,
    /// `Some((explicit, marker span))` while a document is open.
    doc_start: Option<(bool, Span)>,
    doc_value: Option<Done>,
    /// A scalar or alias waiting for a possible `Anchor` event.
    pending: Option<Done>,
    anchors: HashMap<usize, Anchored>,
    anchor_names: HashMap<usize, String>,
    expanded: usize,
    expanded_bytes: usize,
    /// Nodes delivered so far (an alias counts once; its expansion is
    /// bounded by `max_alias_nodes`).
    nodes: usize,
}

impl<'a> Builder<'a> {
    /// A builder for `text`, the contents of `file`, before any event.
    pub(super) fn new(file: FileId, text: &'a str, options: &'a ParseOptions) -> Builder<'a> {
        Builder {
            file,
            text,
            bytes: text.as_bytes(),
            options,
            docs: Vec::new(),
            raw_comments: Vec::new(),
            stack: Vec::new(),
            doc_start: None,
            doc_value: None,
            pending: None,
            anchors: HashMap::new(),
            anchor_names: HashMap::new(),
            expanded: 0,
            expanded_bytes: 0,
            nodes: 0,
        }
    }

    /// The documents built and the comments collected, once every event
    /// has been handed over and the last pending node flushed.
    pub(super) fn finish(self) -> (Vec<Document>, Vec<RawComment>) {
        (self.docs, self.raw_comments)
    }

    fn span(&self, start: usize, end: usize) -> Span {
        let len = self.text.len();
        Span::new(self.file, start.min(len), end.min(len))
    }

    fn error(&self, kind: ParseErrorKind, start: usize, end: usize, message: String) -> ParseError {
        ParseError {
            kind,
            span: self.span(start, end),
            message,
        }
    }

    fn syntax(&self, start: usize, end: usize, message: String) -> ParseError {
        self.error(ParseErrorKind::Syntax, start, end, message)
    }

    fn depth_error(&self, at: usize) -> ParseError {
        self.syntax(
            at,
            at,
            format!(
                "nesting depth exceeds the maximum of {}",
                self.options.max_depth
            ),
        )
    }

    pub(super) fn scan_error(&self, e: &ScanError) -> ParseError {
        let at = e.marker().byte_offset().unwrap_or(0).min(self.text.len());
        if matches!(e.kind(), ErrorKind::RecursionLimitExceeded) {
            return self.depth_error(at);
        }
        let mut message = e.info();
        if message.is_empty() {
            message = "invalid YAML".into();
        }
        // Inside an unclosed flow collection, go-yaml (and so ytt) reports
        // the line where the collection opens: the mistake is a missing
        // `]` or `}` there, not where the parser gave up.
        if let Some(frame) = self.stack.iter().rev().find(|f| f.flow) {
            let open = frame.open.unwrap_or(frame.event_start);
            let closer = if matches!(frame.kind, Kind::Map { .. }) {
                '}'
            } else {
                ']'
            };
            // The scanner may give up before the collection's own start
            // (a comment right after `[`): then nothing lies between.
            let between = self.text.get(open.min(at)..at).unwrap_or("");
            if !between.contains(closer) {
                return self.syntax(
                    open,
                    open + 1,
                    format!("did not find expected ',' or '{closer}' for the collection opened here ({message})"),
                );
            }
        }
        self.syntax(at, at, message)
    }

    pub(super) fn event(
        &mut self,
        event: Event<'_>,
        span: granit_parser::Span,
    ) -> Result<(), ParseError> {
        let start = byte_start(&span);
        let end = byte_end(&span);
        match event {
            Event::Anchor(id, name) => {
                self.anchor_names.insert(id, name.into_owned());
                if let Some(p) = self.pending.as_mut().filter(|p| p.anchor == id) {
                    p.props_start = p.props_start.min(start);
                } else if let Some(f) = self.stack.last_mut().filter(|f| f.anchor == id) {
                    f.props_start = Some(f.props_start.map_or(start, |s| s.min(start)));
                }
                return Ok(());
            }
            Event::Comment(text, _) => {
                let mut end = end;
                if end > start && self.bytes.get(end - 1) == Some(&b'\r') {
                    end -= 1;
                }
                let text = text.trim_end_matches('\r').to_string();
                self.raw_comments.push(RawComment { start, end, text });
                return Ok(());
            }
            _ => {}
        }
        self.flush_pending()?;
        match event {
            Event::StreamStart | Event::StreamEnd => {}
            Event::DocumentStart(explicit, _) => {
                self.doc_start = Some((explicit, self.span(start, end)));
                self.anchors.clear();
            }
            Event::DocumentEnd => self.end_document(start),
            Event::Scalar(value, style, anchor, tag) => {
                let tag_text = tag.as_ref().map(|t| t.original());
                self.scalar(&value, style, anchor, tag_text, &span)?;
            }
            Event::Alias(id) => self.alias(id, start, end)?,
            Event::UnresolvedAlias(name) => {
                return Err(self.syntax(start, end, format!("unknown anchor '{name}' referenced")));
            }
            Event::MappingStart(style, anchor, _) | Event::SequenceStart(style, anchor, _) => {
                let is_map = matches!(event, Event::MappingStart(..));
                if self.stack.len() + 1 > self.options.max_depth {
                    return Err(self.depth_error(start));
                }
                let flow = style == StructureStyle::Flow;
                let open = (end > start && matches!(self.bytes.get(start), Some(b'[' | b'{')))
                    .then_some(start);
                let tag_start = span.tag_start().and_then(|m| m.byte_offset());
                self.stack.push(Frame {
                    kind: if is_map {
                        Kind::Map {
                            items: Vec::new(),
                            key: None,
                            seen: None,
                            merges: Vec::new(),
                        }
                    } else {
                        Kind::Seq { items: Vec::new() }
                    },
                    flow,
                    open,
                    event_start: start,
                    props_start: tag_start,
                    anchor,
                    first_start: None,
                    last_end: start,
                    count: 0,
                    bytes: 0,
                    height: 0,
                });
            }
            Event::MappingEnd | Event::SequenceEnd => self.end_collection(end)?,
            _ => {}
        }
        Ok(())
    }

    fn scalar(
        &mut self,
        value: &str,
        style: granit_parser::ScalarStyle,
        anchor: usize,
        tag: Option<String>,
        span: &granit_parser::Span,
    ) -> Result<(), ParseError> {
        let mut start = byte_start(span);
        let mut end = byte_end(span);
        let style = match style {
            granit_parser::ScalarStyle::Plain => ScalarStyle::Plain,
            granit_parser::ScalarStyle::SingleQuoted => ScalarStyle::SingleQuoted,
            granit_parser::ScalarStyle::DoubleQuoted => ScalarStyle::DoubleQuoted,
            granit_parser::ScalarStyle::Literal => ScalarStyle::Literal,
            granit_parser::ScalarStyle::Folded => ScalarStyle::Folded,
        };
        let empty = style == ScalarStyle::Plain && start == end;
        let mut text = if empty { "" } else { value };
        if matches!(style, ScalarStyle::Literal | ScalarStyle::Folded) {
            if let Some(header) = block_scalar_header(self.bytes, start) {
                start = header;
            }
            if text.ends_with('\n') && ends_in_last_line_unbroken(self.bytes, start, end) {
                // go-yaml keeps only the line break that follows the last
                // content line: at the end of a file without one, none.
                text = &text[..text.len() - 1];
            }
            while end > start + 1 && is_blank(self.bytes[end - 1]) {
                end -= 1;
            }
        }
        let resolved = scalar::resolve_tagged(text, style, tag.as_deref())
            .map_err(|mismatch| self.syntax(start, end, mismatch.to_string()))?;
        if self.options.strict && tag.is_none() && scalar::is_ambiguous_for_strict(text, style) {
            return Err(self.syntax(
                start,
                end,
                format!("Found '{text}' ambigious (could be !!str or !!bool)"),
            ));
        }
        let tag_start = span.tag_start().and_then(|m| m.byte_offset());
        self.pending = Some(Done {
            node: Node {
                span: self.span(start, end),
                value: Value::Scalar(Scalar {
                    text: text.to_string(),
                    style,
                    tag,
                    resolved,
                }),
            },
            props_start: tag_start.map_or(start, |t| t.min(start)),
            count: 1,
            bytes: text.len(),
            height: 0,
            anchor,
            empty: empty && tag_start.is_none() && anchor == 0,
        });
        Ok(())
    }

    fn alias(&mut self, id: usize, start: usize, end: usize) -> Result<(), ParseError> {
        let name = self
            .anchor_names
            .get(&id)
            .cloned()
            .unwrap_or_else(|| id.to_string());
        let Some(anchored) = self.anchors.get(&id) else {
            return Err(self.syntax(start, end, format!("anchor '{name}' value contains itself")));
        };
        let expanded = self.expanded.saturating_add(anchored.count);
        if expanded > self.options.max_alias_nodes {
            return Err(self.syntax(
                start,
                end,
                format!(
                    "alias expansion exceeds {} nodes",
                    self.options.max_alias_nodes
                ),
            ));
        }
        let expanded_bytes = self.expanded_bytes.saturating_add(anchored.bytes);
        if expanded_bytes > self.options.max_alias_bytes {
            return Err(self.syntax(
                start,
                end,
                format!(
                    "alias expansion exceeds {} MiB of text",
                    self.options.max_alias_bytes / 1024 / 1024
                ),
            ));
        }
        if self.stack.len() + anchored.height > self.options.max_depth {
            return Err(self.depth_error(start));
        }
        self.expanded = expanded;
        self.expanded_bytes = expanded_bytes;
        let mut node = anchored.node.clone();
        node.span = self.span(start, end);
        self.pending = Some(Done {
            node,
            props_start: start,
            count: anchored.count,
            bytes: anchored.bytes,
            height: anchored.height,
            anchor: 0,
            empty: false,
        });
        Ok(())
    }

    pub(super) fn flush_pending(&mut self) -> Result<(), ParseError> {
        match self.pending.take() {
            Some(done) => self.deliver(done),
            None => Ok(()),
        }
    }

    fn end_document(&mut self, at: usize) {
        let Some((explicit, marker)) = self.doc_start.take() else {
            return;
        };
        let value = self.doc_value.take();
        let (value, value_start) = match value {
            Some(done) => (done.node, done.props_start),
            None => (
                Node {
                    span: self.span(at, at),
                    value: Value::Scalar(Scalar {
                        text: String::new(),
                        style: ScalarStyle::Plain,
                        tag: None,
                        resolved: ScalarValue::Null,
                    }),
                },
                at,
            ),
        };
        let span = if explicit {
            marker
        } else {
            self.span(value_start, value_start)
        };
        self.docs.push(Document {
            span,
            has_start_marker: explicit,
            value,
            comments: Vec::new(),
        });
        self.anchors.clear();
    }

    /// Hand a complete node to its parent (or the document).
    fn deliver(&mut self, mut done: Done) -> Result<(), ParseError> {
        self.nodes += 1;
        if self.nodes > self.options.max_nodes {
            let start = done.props_start;
            return Err(self.syntax(
                start,
                start,
                format!(
                    "file has more than {} YAML nodes; not parsed",
                    self.options.max_nodes
                ),
            ));
        }
        if done.anchor != 0 {
            self.anchors.insert(
                done.anchor,
                Anchored {
                    node: done.node.clone(),
                    count: done.count,
                    bytes: done.bytes,
                    height: done.height,
                },
            );
        }
        let bytes = self.bytes;
        let file = self.file;
        let len = self.text.len();
        let mk = |s: usize, e: usize| Span::new(file, s.min(len), e.min(len));
        let fail = |kind: ParseErrorKind, span: Span, message: String| ParseError {
            kind,
            span,
            message,
        };
        let Some(frame) = self.stack.last_mut() else {
            self.doc_value = Some(done);
            return Ok(());
        };
        frame.count = frame.count.saturating_add(done.count);
        frame.bytes = frame.bytes.saturating_add(done.bytes);
        frame.height = frame.height.max(done.height);
        let mut item_start = done.props_start;
        match &mut frame.kind {
            Kind::Map {
                items,
                key,
                seen,
                merges,
            } => match key.take() {
                None => {
                    let key_span = done.node.span;
                    let Value::Scalar(k) = done.node.value else {
                        return Err(fail(
                            ParseErrorKind::Syntax,
                            key_span,
                            "map keys must be scalars".into(),
                        ));
                    };
                    *key = Some((k, key_span));
                    if frame.first_start.is_none() {
                        frame.first_start = Some(item_start);
                    }
                    frame.last_end = frame.last_end.max(key_span.end as usize);
                    return Ok(());
                }
                Some((k, key_span)) => {
                    if done.empty {
                        // `key:` with nothing after: an empty span right after the `:`.
                        let mut p = key_span.end as usize;
                        while p < bytes.len() && is_blank(bytes[p]) {
                            p += 1;
                        }
                        if bytes.get(p) == Some(&b':') {
                            done.node.span = mk(p + 1, p + 1);
                        }
                    }
                    let is_merge = k.text == "<<"
                        && k.style == ScalarStyle::Plain
                        && k.tag.as_deref().is_none_or(|t| t == "!!merge");
                    let node_end = done.node.span.end as usize;
                    if is_merge {
                        let alias = bytes.get(done.props_start) == Some(&b'*');
                        merges.push((items.len(), done.node, alias));
                    } else if !self.options.keeps_duplicate_keys
                        && is_duplicate(items, seen, &k.resolved)
                    {
                        let message =
                            format!("expected key '{}' to not be specified again", k.display());
                        return Err(fail(ParseErrorKind::DuplicateKey, key_span, message));
                    } else {
                        items.push(MapItem {
                            key_span,
                            key: k,
                            value: done.node,
                            comments: Vec::new(),
                        });
                    }
                    frame.last_end = frame.last_end.max(node_end);
                }
            },
            Kind::Seq { items } => {
                if !frame.flow
                    && let Some(dash) = find_dash(bytes, done.props_start)
                {
                    item_start = dash;
                    if done.empty {
                        done.node.span = mk(dash + 1, dash + 1);
                    }
                }
                let end = (done.node.span.end as usize).max(item_start + usize::from(done.empty));
                items.push(ArrayItem {
                    span: mk(item_start, end),
                    value: done.node,
                    comments: Vec::new(),
                });
                if frame.first_start.is_none() {
                    frame.first_start = Some(item_start);
                }
                frame.last_end = frame.last_end.max(end);
            }
        }
        Ok(())
    }

    fn end_collection(&mut self, end: usize) -> Result<(), ParseError> {
        let Some(frame) = self.stack.pop() else {
            return Ok(());
        };
        let (start, stop) = match frame.open {
            Some(open) => (open, end),
            None => (
                frame.first_start.unwrap_or(frame.event_start),
                frame
                    .last_end
                    .max(frame.first_start.unwrap_or(frame.event_start)),
            ),
        };
        let value = match frame.kind {
            Kind::Map { items, merges, .. } => {
                Value::Map(merge_keys(items, merges).map_err(|span| {
                    self.syntax(span.start as usize, span.end as usize, MERGE_ERROR.into())
                })?)
            }
            Kind::Seq { items } => Value::Array(items),
        };
        let props_start = frame.props_start.map_or(start, |p| p.min(start));
        self.deliver(Done {
            node: Node {
                span: self.span(start, stop),
                value,
            },
            props_start,
            count: frame.count.saturating_add(1),
            bytes: frame.bytes,
            height: frame.height + 1,
            anchor: frame.anchor,
            empty: false,
        })
    }
}
