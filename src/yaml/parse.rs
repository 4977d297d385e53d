//! Parse YAML text into the node tree.
//!
//! Events come from `granit-parser`; the tree is built with an explicit stack
//! (no recursion while parsing), so deep nesting is an error, never a stack
//! overflow. Comments are collected by position and attached afterwards, as
//! ytt's yamlmeta does: a comment goes to the first document, map item or
//! array item (in document order) starting on a later line, unless nodes
//! start on the comment's own line (`port: 80 #@schema/nullable`): then it
//! goes to the last (innermost) of those. Scalars are resolved as go-yaml v2 does (`scalar`).

use crate::rules;
use std::collections::{HashMap, HashSet};

use granit_parser::{ErrorKind, Event, Parser, ScanError, StructureStyle};

use crate::source::{FileId, Span};
use crate::yaml::node::{
    ArrayItem, Comment, CommentKind, Document, DocumentSet, MapItem, Node, Scalar, ScalarStyle,
    ScalarValue, Value,
};
use crate::yaml::scalar;

/// Limits and modes of [`parse_file`].
#[derive(Debug, Clone)]
pub struct ParseOptions {
    /// Deepest nesting of maps and arrays accepted (also after alias
    /// expansion). Keep it modest: dropping a tree recurses once per level.
    pub max_depth: usize,
    /// Most nodes that aliases may expand to in one file ("billion laughs").
    pub max_alias_nodes: usize,
    /// Most nodes (maps, arrays, keys and scalars) in one file: a tree is
    /// many times its text, so a file of tiny keys within the size limit
    /// could otherwise fill memory; real configuration stays far below.
    pub max_nodes: usize,
    /// Most scalar bytes that aliases may expand to in one file: a few
    /// aliases of one huge anchored scalar cost memory, not nodes.
    pub max_alias_bytes: usize,
    /// ytt's `--strict`: reject plain scalars that YAML 1.1 reads as booleans
    /// but are not spelled `true` / `false` (`yes`, `On`, `n`, ...).
    pub strict: bool,
    /// Keep a repeated key as a second item instead of failing: ytt
    /// templates repeat keys in `#@ if` / `#@ else` branches, and only
    /// duplicates that survive templating are errors.
    pub keeps_duplicate_keys: bool,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions {
            max_depth: 200,
            max_alias_nodes: 100_000,
            max_nodes: 1_000_000,
            max_alias_bytes: 64 * 1024 * 1024,
            strict: false,
            keeps_duplicate_keys: false,
        }
    }
}

/// Why a file could not be parsed: `yaml/syntax` or `yaml/duplicate-key`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub rule: &'static crate::rules::Rule,
    pub span: Span,
    pub message: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ParseError {}

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
    let mut builder = Builder {
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
    };
    for result in Parser::new_from_str_with_options(text, parser_options) {
        let (event, span) = result.map_err(|e| builder.scan_error(&e))?;
        builder.event(event, span)?;
    }
    builder.flush_pending()?;
    let Builder {
        mut docs,
        raw_comments,
        ..
    } = builder;
    let comments = make_comments(file, text, raw_comments);
    let trailing_comments = attach_comments(text, &mut docs, comments);
    Ok(DocumentSet {
        docs,
        trailing_comments,
    })
}

const MERGE_ERROR: &str = "map merge requires map or sequence of maps as the value";

/// Identity of a map key for duplicate detection (by resolved value, as ytt).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum KeyId {
    Null,
    Bool(bool),
    Int(i64),
    Float(u64),
    Str(String),
}

impl KeyId {
    fn of(value: &ScalarValue) -> KeyId {
        match value {
            ScalarValue::Null => KeyId::Null,
            ScalarValue::Bool(b) => KeyId::Bool(*b),
            ScalarValue::Int(i) => KeyId::Int(*i),
            ScalarValue::Float(f) => KeyId::Float(f.to_bits()),
            ScalarValue::Str(s) => KeyId::Str(s.clone()),
        }
    }
}

const LINEAR_KEY_SCAN: usize = 16;

/// Whether `key` is already among `items`; remembers it otherwise.
fn is_duplicate(items: &[MapItem], seen: &mut Option<HashSet<KeyId>>, key: &ScalarValue) -> bool {
    if seen.is_none() && items.len() >= LINEAR_KEY_SCAN {
        *seen = Some(items.iter().map(|i| KeyId::of(&i.key.resolved)).collect());
    }
    match seen {
        Some(set) => !set.insert(KeyId::of(key)),
        None => {
            let wanted = KeyId::of(key);
            items.iter().any(|i| same_key(&i.key.resolved, &wanted))
        }
    }
}

fn same_key(value: &ScalarValue, key: &KeyId) -> bool {
    match (value, key) {
        (ScalarValue::Null, KeyId::Null) => true,
        (ScalarValue::Bool(a), KeyId::Bool(b)) => a == b,
        (ScalarValue::Int(a), KeyId::Int(b)) => a == b,
        (ScalarValue::Float(a), KeyId::Float(b)) => a.to_bits() == *b,
        (ScalarValue::Str(a), KeyId::Str(b)) => a == b,
        _ => false,
    }
}

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

struct RawComment {
    start: usize,
    end: usize,
    text: String,
}

struct Builder<'a> {
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

fn byte_start(span: &granit_parser::Span) -> usize {
    span.start.byte_offset().unwrap_or(0)
}

fn byte_end(span: &granit_parser::Span) -> usize {
    span.end.byte_offset().unwrap_or(0).max(byte_start(span))
}

fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

impl<'a> Builder<'a> {
    fn span(&self, start: usize, end: usize) -> Span {
        let len = self.text.len();
        Span::new(self.file, start.min(len), end.min(len))
    }

    fn error(
        &self,
        rule: &'static crate::rules::Rule,
        start: usize,
        end: usize,
        message: String,
    ) -> ParseError {
        ParseError {
            rule,
            span: self.span(start, end),
            message,
        }
    }

    fn syntax(&self, start: usize, end: usize, message: String) -> ParseError {
        self.error(&rules::yaml::SYNTAX, start, end, message)
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

    fn scan_error(&self, e: &ScanError) -> ParseError {
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

    fn event(&mut self, event: Event<'_>, span: granit_parser::Span) -> Result<(), ParseError> {
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
            .map_err(|message| self.syntax(start, end, message))?;
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

    fn flush_pending(&mut self) -> Result<(), ParseError> {
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
        let fail = |rule: &'static crate::rules::Rule, span: Span, message: String| ParseError {
            rule,
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
                            &rules::yaml::SYNTAX,
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
                        return Err(fail(&rules::yaml::DUPLICATE_KEY, key_span, message));
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
            Kind::Map { items, merges, .. } => Value::Map(self.apply_merges(items, merges)?),
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

    /// go-yaml's merge keys, as ytt's copy of go-yaml v2 reads them: the
    /// merged map's items stand where the `<<` was, and of a key given more
    /// than once the last value wins, at the first one's place. So a map's
    /// own key overrides a merged one before it, and a merged one after it
    /// overrides the map's. The value is a map or an alias of one; ytt's
    /// copy refuses every item of a sequence (its items are nodes of their
    /// own there), so only a written empty sequence passes, merging nothing.
    fn apply_merges(
        &self,
        items: Vec<MapItem>,
        merges: Vec<(usize, Node, bool)>,
    ) -> Result<Vec<MapItem>, ParseError> {
        if merges.is_empty() {
            return Ok(items);
        }
        let mut inserts: Vec<(usize, Vec<MapItem>)> = Vec::new();
        for (at, node, alias) in merges {
            let refused = |span: Span| {
                self.syntax(span.start as usize, span.end as usize, MERGE_ERROR.into())
            };
            let maps: Vec<Vec<MapItem>> = match node.value {
                Value::Map(m) => vec![m],
                Value::Array(a) if a.is_empty() && !alias => Vec::new(),
                Value::Array(a) => {
                    return Err(refused(a.first().map_or(node.span, |item| item.span)));
                }
                Value::Scalar(_) => return Err(refused(node.span)),
            };
            let mut seen: HashSet<KeyId> = HashSet::new();
            let mut added = Vec::new();
            for map in maps {
                for item in map {
                    if seen.insert(KeyId::of(&item.key.resolved)) {
                        added.push(item);
                    }
                }
            }
            inserts.push((at, added));
        }
        // Every item in reading order, merged ones where their `<<` was.
        let mut all =
            Vec::with_capacity(items.len() + inserts.iter().map(|i| i.1.len()).sum::<usize>());
        let mut inserts = inserts.into_iter().peekable();
        for (i, item) in items.into_iter().enumerate() {
            while let Some((_, added)) = inserts.next_if(|(at, _)| *at <= i) {
                all.extend(added);
            }
            all.push(item);
        }
        for (_, added) in inserts {
            all.extend(added);
        }
        let mut place: HashMap<KeyId, usize> = HashMap::new();
        let mut out: Vec<MapItem> = Vec::with_capacity(all.len());
        for item in all {
            match place.entry(KeyId::of(&item.key.resolved)) {
                std::collections::hash_map::Entry::Occupied(at) => out[*at.get()] = item,
                std::collections::hash_map::Entry::Vacant(slot) => {
                    slot.insert(out.len());
                    out.push(item);
                }
            }
        }
        Ok(out)
    }
}

/// The `-` of a block sequence entry whose content (with its properties)
/// starts at `pos`: scan back over blanks and comments.
fn find_dash(b: &[u8], pos: usize) -> Option<usize> {
    let mut p = pos.min(b.len());
    loop {
        while p > 0 && is_blank(b[p - 1]) {
            p -= 1;
        }
        if p == 0 {
            return None;
        }
        if b[p - 1] == b'-' && (p == pos || b.get(p).is_none_or(|&c| is_blank(c))) {
            return Some(p - 1);
        }
        // Perhaps the end of a comment: its line holds only blanks, `-`
        // markers and the comment, so the first `#` after a blank starts it.
        let line_start = b[..p]
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |i| i + 1);
        let line = &b[line_start..p];
        let hash = (0..line.len())
            .find(|&i| line[i] == b'#' && (i == 0 || matches!(line[i - 1], b' ' | b'\t')))?;
        p = line_start + hash;
    }
}

/// Whether the block scalar whose header is at `header` (and whose events
/// end at `end`) runs to the end of a file that does not end with a line
/// break, its last line being content (indented deeper than the block):
/// that line has no line break for the scalar to keep.
fn ends_in_last_line_unbroken(b: &[u8], header: usize, end: usize) -> bool {
    if matches!(b.last(), None | Some(b'\n' | b'\r'))
        || !b
            .get(end..)
            .unwrap_or_default()
            .iter()
            .all(|&c| c == b' ' || c == b'\t')
    {
        return false;
    }
    let Some(header_end) = b
        .get(header..)
        .and_then(|r| r.iter().position(|&c| c == b'\n'))
    else {
        return false;
    };
    let header_end = header + header_end;
    let body = &b[header_end + 1..];
    // An explicit indentation indicator (`|2`): the indentation counts
    // from the parent's, which the text here does not give; a last line
    // with anything but blanks is content whatever it is.
    if b[header..header_end].iter().any(u8::is_ascii_digit) {
        let last_line = body.rsplit(|&c| c == b'\n').next().unwrap_or_default();
        return last_line
            .iter()
            .any(|&c| !matches!(c, b' ' | b'\t' | b'\r'));
    }
    let Some(indent) = body
        .split(|&c| c == b'\n')
        .find(|line| line.iter().any(|&c| c != b' ' && c != b'\r'))
        .map(|line| line.iter().take_while(|&&c| c == b' ').count())
    else {
        return false;
    };
    let last_line = body.rsplit(|&c| c == b'\n').next().unwrap_or_default();
    last_line.len() > indent && last_line.iter().take(indent).all(|&c| c == b' ')
}

/// The `|` or `>` header of a block scalar whose content starts at `content`.
fn block_scalar_header(b: &[u8], content: usize) -> Option<usize> {
    let mut p = content.min(b.len());
    while p > 0 && is_blank(b[p - 1]) {
        p -= 1;
    }
    let line_start = b[..p]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |i| i + 1);
    let line = &b[line_start..p];
    (0..line.len()).find_map(|i| {
        if !matches!(line[i], b'|' | b'>') || (i > 0 && !matches!(line[i - 1], b' ' | b'\t')) {
            return None;
        }
        let mut j = i + 1;
        while j < line.len() && matches!(line[j], b'0'..=b'9' | b'+' | b'-') {
            j += 1;
        }
        let rest = &line[j..];
        let after = rest
            .iter()
            .position(|&c| !matches!(c, b' ' | b'\t' | b'\r'));
        let ok = match after {
            None => true,
            Some(k) => k > 0 && rest[k] == b'#',
        };
        ok.then_some(line_start + i)
    })
}

/// Build [`Comment`]s in source order.
fn make_comments(file: FileId, text: &str, mut raw: Vec<RawComment>) -> Vec<Comment> {
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
fn attach_comments(text: &str, docs: &mut [Document], comments: Vec<Comment>) -> Vec<Comment> {
    if comments.is_empty() {
        return comments;
    }
    let mut line_starts = vec![0usize];
    line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
    let line_of = |offset: usize| line_starts.partition_point(|&s| s <= offset);

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::node::Annotated;

    const F: FileId = FileId(7);

    fn parse(text: &str) -> DocumentSet {
        match parse_file(F, text, &ParseOptions::default()) {
            Ok(set) => set,
            Err(e) => panic!("parse failed: {e:?}"),
        }
    }

    fn parse_err(text: &str) -> ParseError {
        match parse_file(F, text, &ParseOptions::default()) {
            Ok(set) => panic!("expected an error, got {set:?}"),
            Err(e) => e,
        }
    }

    fn at(text: &str, span: Span) -> &str {
        assert_eq!(span.file, F);
        &text[span.range()]
    }

    fn map(node: &Node) -> &[MapItem] {
        match &node.value {
            Value::Map(items) => items,
            other => panic!("not a map: {other:?}"),
        }
    }

    fn arr(node: &Node) -> &[ArrayItem] {
        match &node.value {
            Value::Array(items) => items,
            other => panic!("not an array: {other:?}"),
        }
    }

    fn get<'n>(node: &'n Node, key: &str) -> &'n MapItem {
        map(node)
            .iter()
            .find(|i| i.key.text == key)
            .unwrap_or_else(|| panic!("no key {key}"))
    }

    fn val(node: &Node) -> &ScalarValue {
        &node.as_scalar().expect("scalar").resolved
    }

    fn line(text: &str, offset: u32) -> usize {
        text[..offset as usize].matches('\n').count() + 1
    }

    fn texts(comments: &[Comment]) -> Vec<&str> {
        comments.iter().map(|c| c.text.as_str()).collect()
    }

    #[test]
    fn spans_cover_keys_values_and_items() {
        let text = "a: 1\nb:\n  - x\n  - &k [1, 2]\n  -\n  - y: z\nc: \"q\"\nd:\ne: |\n  l1\n  l2\n\nf: >-\n  folded\n";
        let set = parse(text);
        assert_eq!(set.docs.len(), 1);
        let doc = &set.docs[0];
        assert!(!doc.has_start_marker);
        assert_eq!(doc.span.start, 0);
        let root = &doc.value;
        assert_eq!(at(text, root.span), text.trim_end());
        let a = get(root, "a");
        assert_eq!(at(text, a.key_span), "a");
        assert_eq!(at(text, a.value.span), "1");
        assert_eq!(val(&a.value), &ScalarValue::Int(1));
        let b = get(root, "b");
        assert_eq!(at(text, b.value.span), "- x\n  - &k [1, 2]\n  -\n  - y: z");
        let items = arr(&b.value);
        assert_eq!(items.len(), 4);
        assert_eq!(at(text, items[0].span), "- x");
        assert_eq!(at(text, items[0].value.span), "x");
        assert_eq!(at(text, items[1].span), "- &k [1, 2]");
        assert_eq!(at(text, items[1].value.span), "[1, 2]");
        assert_eq!(at(text, arr(&items[1].value)[1].span), "2");
        assert_eq!(at(text, items[2].span), "-");
        assert!(items[2].value.is_null());
        assert_eq!(items[2].value.span.start, items[2].span.start + 1);
        assert!(items[2].value.span.range().is_empty());
        assert_eq!(at(text, items[3].span), "- y: z");
        assert_eq!(at(text, items[3].value.span), "y: z");
        let c = get(root, "c");
        assert_eq!(at(text, c.value.span), "\"q\"");
        assert_eq!(
            c.value.as_scalar().unwrap().style,
            ScalarStyle::DoubleQuoted
        );
        let d = get(root, "d");
        assert!(d.value.is_null());
        assert_eq!(d.value.as_scalar().unwrap().text, "");
        // Empty value: an empty span right after the `:`.
        let colon = text.find("d:").unwrap() + 2;
        assert_eq!(d.value.span.range(), colon..colon);
        let e = get(root, "e");
        assert_eq!(at(text, e.value.span), "|\n  l1\n  l2");
        assert_eq!(e.value.as_scalar().unwrap().text, "l1\nl2\n");
        assert_eq!(e.value.as_scalar().unwrap().style, ScalarStyle::Literal);
        let f = get(root, "f");
        assert_eq!(at(text, f.value.span), ">-\n  folded");
        assert_eq!(f.value.as_scalar().unwrap().style, ScalarStyle::Folded);
    }

    #[test]
    fn flow_collections_span_their_brackets() {
        let text = "m: {a: 1, b: [x, 'y']}\n";
        let set = parse(text);
        let m = get(&set.docs[0].value, "m");
        assert_eq!(at(text, m.value.span), "{a: 1, b: [x, 'y']}");
        let b = get(&m.value, "b");
        assert_eq!(at(text, b.value.span), "[x, 'y']");
        let items = arr(&b.value);
        assert_eq!(at(text, items[1].span), "'y'");
        assert_eq!(
            items[1].value.as_scalar().unwrap().style,
            ScalarStyle::SingleQuoted
        );
    }

    #[test]
    fn scalars_keep_text_style_and_tag() {
        let text = "a: !!str 3\nb: !!int \"3\"\nc: yes\nd: '1.5'\ne: 0755\n~: null\n";
        let root = parse(text).docs.remove(0).value;
        let a = get(&root, "a").value.as_scalar().unwrap().clone();
        assert_eq!(a.tag.as_deref(), Some("!!str"));
        assert_eq!(a.resolved, ScalarValue::Str("3".into()));
        assert_eq!(val(&get(&root, "b").value), &ScalarValue::Int(3));
        assert_eq!(val(&get(&root, "c").value), &ScalarValue::Bool(true));
        assert_eq!(val(&get(&root, "d").value), &ScalarValue::Str("1.5".into()));
        assert_eq!(val(&get(&root, "e").value), &ScalarValue::Int(493));
        // Keys are resolved scalars too.
        let null_key = &map(&root)[5];
        assert_eq!(null_key.key.resolved, ScalarValue::Null);
        assert_eq!(at(text, null_key.key_span), "~");
    }

    #[test]
    fn mismatched_tag_is_an_error() {
        let text = "a: !!int abc\n";
        let e = parse_err(text);
        assert_eq!(e.rule.id, "yaml/syntax");
        assert_eq!(e.message, "cannot decode !!str `abc` as a !!int");
        assert_eq!(at(text, e.span), "abc");
    }

    #[test]
    fn strict_mode_rejects_yaml_1_1_bools() {
        let text = "enabled: yes\nok: true\n";
        let options = ParseOptions {
            strict: true,
            ..ParseOptions::default()
        };
        let e = parse_file(F, text, &options).unwrap_err();
        assert_eq!(
            e.message,
            "Found 'yes' ambigious (could be !!str or !!bool)"
        );
        assert_eq!(at(text, e.span), "yes");
        assert!(parse_file(F, "a: \"yes\"\nb: true\n", &options).is_ok());
        // Without --strict, `yes` is simply true.
        assert_eq!(
            val(&get(&parse(text).docs[0].value, "enabled").value),
            &ScalarValue::Bool(true)
        );
    }

    #[test]
    fn own_line_annotations_go_to_the_next_node() {
        let text = "#@ load(\"@ytt:data\", \"data\")\n#@data/values\n---\n#@schema/validation min=1\n#@schema/nullable\n# plain note\nport: 80\nname: web #! trailing ytt comment\n";
        let set = parse(text);
        assert_eq!(set.docs.len(), 1);
        let doc = &set.docs[0];
        assert!(doc.has_start_marker);
        assert_eq!(at(text, doc.span), "---");
        assert_eq!(
            texts(&doc.comments),
            ["@ load(\"@ytt:data\", \"data\")", "@data/values"]
        );
        assert!(doc.has_annotation("data/values"));
        assert!(
            matches!(&doc.comments[0].kind, CommentKind::Code(c) if c == "load(\"@ytt:data\", \"data\")")
        );
        let port = get(&doc.value, "port");
        assert_eq!(
            texts(&port.comments),
            [
                "@schema/validation min=1",
                "@schema/nullable",
                " plain note"
            ]
        );
        let validation = port.annotation("schema/validation").unwrap();
        assert!(validation.own_line);
        assert_eq!(at(text, validation.span), "#@schema/validation min=1");
        let args = validation.args_offset as usize;
        assert_eq!(&text[args..args + 5], "min=1");
        assert_eq!(port.comments[2].kind, CommentKind::Plain);
        let name = get(&doc.value, "name");
        assert_eq!(texts(&name.comments), ["! trailing ytt comment"]);
        assert!(!name.comments[0].own_line);
        assert_eq!(name.comments[0].kind, CommentKind::Ytt);
        assert!(set.trailing_comments.is_empty());
    }

    #[test]
    fn line_end_comments_go_to_the_node_on_that_line() {
        let text = "port: 80 #@schema/nullable\nkey: #@ data.values.x\nlist:\n- #@ item()\n  a: 1\n  b: 2 #@ b\n- plain #@ p\n";
        let root = parse(text).docs.remove(0).value;
        let port = get(&root, "port");
        assert_eq!(texts(&port.comments), ["@schema/nullable"]);
        assert!(!port.comments[0].own_line);
        assert_eq!(texts(&get(&root, "key").comments), ["@ data.values.x"]);
        let list = get(&root, "list");
        assert!(list.comments.is_empty());
        let items = arr(&list.value);
        // `- #@ x` with a map on the next line: the array item starts on the `-` line.
        assert_eq!(line(text, items[0].span.start), 4);
        assert_eq!(at(text, items[0].span), "- #@ item()\n  a: 1\n  b: 2");
        assert_eq!(texts(&items[0].comments), ["@ item()"]);
        let inner = map(&items[0].value);
        assert!(inner[0].comments.is_empty());
        assert_eq!(texts(&inner[1].comments), ["@ b"]);
        assert_eq!(texts(&items[1].comments), ["@ p"]);
    }

    #[test]
    fn comments_in_flow_collections_and_at_the_end() {
        let text = "ports: [80, #@ a\n  443, # b\n  8080]\n# tail 1\n#@ tail 2\n";
        let set = parse(text);
        let ports = get(&set.docs[0].value, "ports");
        // Line 1 starts the map item and the item `80`: the last one owns it.
        assert!(ports.comments.is_empty());
        let items = arr(&ports.value);
        assert_eq!(texts(&items[0].comments), ["@ a"]);
        assert_eq!(texts(&items[1].comments), [" b"]);
        assert!(items[2].comments.is_empty());
        assert_eq!(texts(&set.trailing_comments), [" tail 1", "@ tail 2"]);
        assert!(set.trailing_comments.iter().all(|c| c.own_line));
    }

    #[test]
    fn comment_before_implicit_document_goes_to_the_document() {
        let text = "#@ load(\"x.star\", \"f\")\na: 1\n";
        let set = parse(text);
        assert_eq!(texts(&set.docs[0].comments), ["@ load(\"x.star\", \"f\")"]);
        assert!(map(&set.docs[0].value)[0].comments.is_empty());
        let a = text.find("a: 1").unwrap();
        assert_eq!(set.docs[0].span.range(), a..a);
    }

    #[test]
    fn multi_document_files() {
        let text = "a: 1\n---\n#@data/values\n---\nb: 2\n--- # marker comment\nc: 3\n...\n";
        let set = parse(text);
        assert_eq!(set.docs.len(), 4);
        assert!(!set.docs[0].has_start_marker);
        assert!(set.docs[1].has_start_marker);
        assert!(set.docs[1].value.is_null());
        // The annotation between two `---` belongs to the later document,
        // although the parser reports it inside the earlier, empty one.
        assert!(set.docs[1].comments.is_empty());
        assert!(set.docs[2].has_annotation("data/values"));
        assert_eq!(line(text, set.docs[2].span.start), 4);
        assert_eq!(at(text, set.docs[2].span), "---");
        assert_eq!(texts(&set.docs[3].comments), [" marker comment"]);
        assert_eq!(
            val(&get(&set.docs[3].value, "c").value),
            &ScalarValue::Int(3)
        );
    }

    #[test]
    fn block_of_annotations_on_one_key_in_nested_maps() {
        let text = "spec:\n  #@overlay/match by=\"name\"\n  #@overlay/match-child-defaults missing_ok=True\n\n  #@schema/desc \"the image\"\n  image: nginx\n  other: 1\n";
        let root = parse(text).docs.remove(0).value;
        let spec = get(&root, "spec");
        assert!(spec.comments.is_empty());
        let image = get(&spec.value, "image");
        assert_eq!(image.annotations().count(), 3);
        assert_eq!(
            image.annotation("overlay/match").map(|c| &c.kind),
            Some(&CommentKind::Annotation {
                name: "overlay/match".into(),
                args: "by=\"name\"".into()
            })
        );
        assert!(get(&spec.value, "other").comments.is_empty());
    }

    #[test]
    fn anchors_and_aliases_copy_the_subtree() {
        let text = "base: &b\n  x: 1\n  y: [1, 2]\ncopy: *b\nlist:\n- &s hello\n- *s\n";
        let root = parse(text).docs.remove(0).value;
        let base = get(&root, "base");
        let copy = get(&root, "copy");
        assert_eq!(at(text, copy.value.span), "*b");
        assert_eq!(map(&copy.value).len(), 2);
        assert_eq!(map(&copy.value)[0].key.text, "x");
        assert_eq!(
            map(&base.value)[1].value.value,
            map(&copy.value)[1].value.value
        );
        assert_eq!(at(text, base.value.span), "x: 1\n  y: [1, 2]");
        let items = arr(&get(&root, "list").value);
        assert_eq!(at(text, items[0].span), "- &s hello");
        assert_eq!(at(text, items[0].value.span), "hello");
        assert_eq!(at(text, items[1].span), "- *s");
        assert_eq!(val(&items[1].value), &ScalarValue::Str("hello".into()));
    }

    #[test]
    fn comments_near_aliases_stay_in_order() {
        let text = "base: &b\n  #@ note\n  x: 1\nuse: *b #@ here\nafter: 2\n";
        let root = parse(text).docs.remove(0).value;
        assert_eq!(
            texts(&get(&get(&root, "base").value, "x").comments),
            ["@ note"]
        );
        assert_eq!(texts(&get(&root, "use").comments), ["@ here"]);
        assert!(get(&root, "after").comments.is_empty());
    }

    #[test]
    fn merge_keys_add_missing_keys() {
        let text =
            "defaults: &d\n  a: 1\n  b: 2\nsvc:\n  <<: *d\n  b: 20\n  <<: {z: 0}\n  <<: []\n";
        let root = parse(text).docs.remove(0).value;
        let svc = map(&get(&root, "svc").value);
        let keys: Vec<_> = svc.iter().map(|i| i.key.text.as_str()).collect();
        // The merged `b` comes first; the map's own `b` after it wins, there.
        assert_eq!(keys, ["a", "b", "z"]);
        assert_eq!(val(&svc[0].value), &ScalarValue::Int(1));
        assert_eq!(val(&svc[1].value), &ScalarValue::Int(20));
        // ytt's go-yaml refuses any item of a sequence of maps, and an
        // alias of anything but a map (an empty sequence too).
        for text in [
            "d: &d {a: 1}\ne: &e {b: 2}\nsvc:\n  <<: [*d, *e]\n",
            "svc:\n  <<: [{a: 1}]\n",
            "d: &d {a: 1}\nsvc:\n  <<:\n  - *d\n",
            "l: &l []\nsvc:\n  <<: *l\n",
        ] {
            let e = parse_err(text);
            assert_eq!(
                e.message, "map merge requires map or sequence of maps as the value",
                "{text}"
            );
        }
        // A merge after the map's own key overrides it, as ytt reads it.
        let text = "d: &d {a: 1, b: 2}\nsvc:\n  b: 20\n  <<: *d\n  c: 3\n";
        let root = parse(text).docs.remove(0).value;
        let svc = map(&get(&root, "svc").value);
        let keys: Vec<_> = svc.iter().map(|i| i.key.text.as_str()).collect();
        assert_eq!(keys, ["b", "a", "c"]);
        assert_eq!(val(&svc[0].value), &ScalarValue::Int(2));
        let text = "a: &a {x: 1}\nb:\n  <<: *a\n  <<: *a\n";
        assert!(parse_file(F, text, &ParseOptions::default()).is_ok());
        let e = parse_err("a: &a 1\nb:\n  <<: *a\n");
        assert_eq!(
            e.message,
            "map merge requires map or sequence of maps as the value"
        );
    }

    #[test]
    fn duplicate_keys_are_reported_like_ytt() {
        let text = "replicas: 1\nname: x\nreplicas: 3\n";
        let e = parse_err(text);
        assert_eq!(e.rule.id, "yaml/duplicate-key");
        assert_eq!(
            e.message,
            "expected key 'replicas' to not be specified again"
        );
        assert_eq!(e.span.start as usize, text.rfind("replicas").unwrap());
        assert_eq!(at(text, e.span), "replicas");
        // Different types are different keys; nested maps are separate.
        assert!(
            parse_file(
                F,
                "1: a\n\"1\": b\nm: {1: x}\nn: {1: y}\n",
                &ParseOptions::default()
            )
            .is_ok()
        );
        let mut big: String = (0..40).map(|i| format!("k{i}: {i}\n")).collect();
        big.push_str("k17: again\n");
        let e = parse_err(&big);
        assert_eq!(e.message, "expected key 'k17' to not be specified again");
        assert_eq!(line(&big, e.span.start), 41);
        let e = parse_err("m: {a: 1, a: 2}\n");
        assert_eq!(e.message, "expected key 'a' to not be specified again");
        assert_eq!(e.span.start, 10);
    }

    #[test]
    fn same_line_comment_goes_to_the_innermost_node() {
        let text = "items:\n- name: a #@ on name\n  port: 1\n";
        let root = parse(text).docs.remove(0).value;
        let items = arr(&get(&root, "items").value);
        assert!(items[0].comments.is_empty());
        assert_eq!(texts(&get(&items[0].value, "name").comments), ["@ on name"]);
    }

    #[test]
    fn a_file_of_too_many_nodes_is_refused_at_the_node_past_the_limit() {
        let options = ParseOptions {
            max_nodes: 1_000,
            ..ParseOptions::default()
        };
        let text: String = (0..600).map(|i| format!("k{i}: {i}\n")).collect();
        let e = parse_file(FileId(0), &text, &options).unwrap_err();
        assert_eq!(e.rule.id, "yaml/syntax");
        assert!(
            e.message.contains("more than 1000 YAML nodes"),
            "{}",
            e.message
        );
        let fits: String = (0..400).map(|i| format!("k{i}: {i}\n")).collect();
        assert!(parse_file(FileId(0), &fits, &options).is_ok());
    }

    #[test]
    fn syntax_errors_point_at_the_problem() {
        let text = "a: b: c\n";
        let e = parse_err(text);
        assert_eq!(e.rule.id, "yaml/syntax");
        assert_eq!(e.message, "mapping values are not allowed in this context");
        assert_eq!(line(text, e.span.start), 1);

        let text = "service:\n  port: 80\n   name: web\n";
        let e = parse_err(text);
        assert_eq!(e.rule.id, "yaml/syntax");
        assert_eq!(line(text, e.span.start), 3, "{e:?}");

        let e = parse_err("a: \"unclosed\nb: 1\n");
        assert_eq!(e.rule.id, "yaml/syntax");
        assert!(!e.message.is_empty());

        let text = "a:\n\tb: 1\n";
        let e = parse_err(text);
        assert_eq!(line(text, e.span.start), 2, "{e:?}");

        let e = parse_err("a: *nowhere\n");
        assert_eq!(e.rule.id, "yaml/syntax");
        assert!(
            e.message.contains("nowhere") || e.message.contains("anchor"),
            "{e:?}"
        );
    }

    #[test]
    fn deep_flow_nesting_is_an_error_not_a_crash() {
        let text = "[".repeat(10_000);
        let e = parse_err(&text);
        assert_eq!(e.rule.id, "yaml/syntax");
        assert_eq!(e.message, "nesting depth exceeds the maximum of 200");
        let text = format!("{}{}", "{a: ".repeat(10_000), "}".repeat(10_000));
        assert_eq!(
            parse_err(&text).message,
            "nesting depth exceeds the maximum of 200"
        );
    }

    #[test]
    fn deep_block_nesting_is_an_error_not_a_crash() {
        let mut text = String::new();
        for depth in 0..10_000 {
            text.push_str(&" ".repeat(depth));
            text.push_str("a:\n");
        }
        let e = parse_err(&text);
        assert_eq!(e.message, "nesting depth exceeds the maximum of 200");
        assert_eq!(line(&text, e.span.start), 201);
        let text = "- ".repeat(10_000) + "x\n";
        assert_eq!(
            parse_err(&text).message,
            "nesting depth exceeds the maximum of 200"
        );
    }

    #[test]
    fn nesting_up_to_the_limit_parses_on_a_small_stack() {
        let text = format!("{}1{}", "[".repeat(200), "]".repeat(200));
        let handle = std::thread::Builder::new()
            .stack_size(2 * 1024 * 1024)
            .spawn(move || {
                let set = parse_file(F, &text, &ParseOptions::default()).map(|s| s.docs.len());
                drop(text);
                set
            })
            .unwrap();
        assert_eq!(handle.join().unwrap(), Ok(1));
        // An alias that would nest deeper than the limit is refused too.
        let text = format!(
            "a: &a {}1{}\nb: [[[[*a]]]]\n",
            "[".repeat(198),
            "]".repeat(198)
        );
        assert_eq!(
            parse_err(&text).message,
            "nesting depth exceeds the maximum of 200"
        );
    }

    #[test]
    fn alias_bomb_is_refused() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..10 {
            let refs = vec![format!("*a{}", i - 1); 10].join(", ");
            text.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
        }
        let e = parse_err(&text);
        assert_eq!(e.rule.id, "yaml/syntax");
        assert_eq!(e.message, "alias expansion exceeds 100000 nodes");
        assert_eq!(&text[e.span.range()][..2], "*a");
        // A modest number of aliases is fine.
        let small = "a: &a [1, 2]\nb: [*a, *a, *a]\n";
        assert_eq!(arr(&get(&parse(small).docs[0].value, "b").value).len(), 3);
    }

    #[test]
    fn self_referencing_alias_is_an_error() {
        let e = parse_err("a: &a [1, *a]\n");
        assert_eq!(e.rule.id, "yaml/syntax");
        assert_eq!(e.message, "anchor 'a' value contains itself");
    }

    #[test]
    fn empty_and_marker_only_files() {
        assert_eq!(parse("").docs.len(), 0);
        assert_eq!(parse("\n\n  \n").docs.len(), 0);
        let set = parse("# only\n# comments\n");
        assert_eq!(set.docs.len(), 0);
        assert_eq!(texts(&set.trailing_comments), [" only", " comments"]);
        let set = parse("---\n");
        assert_eq!(set.docs.len(), 1);
        assert!(set.docs[0].has_start_marker);
        assert!(set.docs[0].value.is_null());
        assert_eq!(set.docs[0].value.type_name(), "null");
        let set = parse("---");
        assert_eq!(set.docs.len(), 1);
        assert!(set.docs[0].value.is_null());
        assert_eq!(parse("...\n").docs.len(), 0);
        assert_eq!(parse("---\n...\n---\n").docs.len(), 2);
    }

    #[test]
    fn crlf_line_endings_keep_spans_and_lines() {
        let text = "#@data/values\r\n---\r\na: 1 # one\r\nb:\r\n  - x\r\n# tail\r\n";
        let set = parse(text);
        let doc = &set.docs[0];
        assert!(doc.has_annotation("data/values"));
        assert_eq!(doc.comments[0].text, "@data/values");
        assert_eq!(at(text, doc.comments[0].span), "#@data/values");
        let a = get(&doc.value, "a");
        assert_eq!(at(text, a.value.span), "1");
        assert_eq!(texts(&a.comments), [" one"]);
        assert_eq!(at(text, a.comments[0].span), "# one");
        let b = get(&doc.value, "b");
        assert_eq!(line(text, b.key_span.start), 4);
        assert_eq!(at(text, arr(&b.value)[0].span), "- x");
        assert_eq!(texts(&set.trailing_comments), [" tail"]);
    }

    #[test]
    fn byte_order_mark_is_skipped() {
        let text = "\u{feff}a: 1\nb: 2\n";
        let root = parse(text).docs.remove(0).value;
        assert_eq!(map(&root)[0].key.text, "a");
        assert_eq!(at(text, map(&root)[0].key_span), "a");
        let text = "\u{feff}# c\na: 1\n";
        let set = parse(text);
        assert!(set.docs[0].comments[0].own_line);
    }

    /// go-yaml v2 (ytt, Kubernetes) reads a quoted scalar whose next lines
    /// sit at its key's indentation, as CRDs reformatted by some tools have
    /// them; YAML 1.2 wants them indented more.
    #[test]
    fn quoted_continuation_lines_at_the_key_indentation_are_read() {
        let text = "a:\n  description: 'one\n  two'\n  type: string\nb: \"x\n  y\"\n";
        let root = parse(text).docs.remove(0).value;
        let inner = map(&map(&root)[0].value);
        assert_eq!(val(&inner[0].value), &ScalarValue::Str("one two".into()));
        assert_eq!(inner[1].key.text, "type");
        assert_eq!(val(&map(&root)[1].value), &ScalarValue::Str("x y".into()));
    }

    #[test]
    fn tabs_after_values_are_fine() {
        let text = "a:\t1\nb: x\t# c\n";
        let root = parse(text).docs.remove(0).value;
        assert_eq!(val(&get(&root, "a").value), &ScalarValue::Int(1));
        assert_eq!(texts(&get(&root, "b").comments), [" c"]);
    }

    #[test]
    fn garbage_never_panics() {
        // A small deterministic generator over bytes that matter to YAML.
        let alphabet = b"-:?[]{},#&*!|>'\"%@`\t\r\n .0123456789abcdefxyz~<=\\\xef\xbb\xbf\xff\xc3";
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        for round in 0..3000 {
            let len = (round % 97) + 1;
            let mut bytes = Vec::with_capacity(len);
            for _ in 0..len {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                bytes.push(alphabet[(state % alphabet.len() as u64) as usize]);
            }
            let text = String::from_utf8_lossy(&bytes);
            match parse_file(F, &text, &ParseOptions::default()) {
                Ok(set) => {
                    for doc in &set.docs {
                        assert!(doc.span.end as usize <= text.len());
                    }
                }
                Err(e) => {
                    assert!(e.span.end as usize <= text.len());
                    assert!(text.is_char_boundary(e.span.start as usize));
                }
            }
        }
    }

    #[test]
    fn large_generated_file_parses_quickly() {
        let mut text = String::with_capacity(5_300_000);
        let mut i = 0;
        while text.len() < 5_000_000 {
            text.push_str(&format!(
                "#@data/values\n---\nname: item-{i}\nreplicas: {i}\nports:\n- 80\n- 443 #@ x\nlabels: {{app: web, tier: \"front\"}}\n"
            ));
            i += 1;
        }
        let started = std::time::Instant::now();
        let set = parse(&text);
        assert_eq!(set.docs.len(), i);
        assert!(set.docs[i - 1].has_annotation("data/values"));
        let ports = arr(&get(&set.docs[i - 1].value, "ports").value);
        assert_eq!(texts(&ports[1].comments), ["@ x"]);
        assert!(
            started.elapsed().as_secs() < 30,
            "took {:?}",
            started.elapsed()
        );
    }
}
