//! confvet's own YAML tree, shaped like ytt's yamlmeta: a document set holds
//! documents; maps hold map items; arrays hold array items. Documents, map
//! items and array items carry the comments ytt attaches to them (and so the
//! `#@` annotations). Every node knows its span.

use crate::source::Span;

/// All documents of one file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DocumentSet {
    pub docs: Vec<Document>,
    /// Comments after the last node of the file.
    pub trailing_comments: Vec<Comment>,
}

/// One YAML document.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    /// The `---` marker when there is one, else the start of the value.
    pub span: Span,
    /// True when the document starts with `---`.
    pub has_start_marker: bool,
    pub value: Node,
    pub comments: Vec<Comment>,
}

/// A value: scalar, map or array.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// The value's own text (for an empty value, an empty span where it would be).
    pub span: Span,
    pub value: Value,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Scalar(Scalar),
    Map(Vec<MapItem>),
    Array(Vec<ArrayItem>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct MapItem {
    /// The key's text.
    pub key_span: Span,
    pub key: Scalar,
    pub value: Node,
    pub comments: Vec<Comment>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ArrayItem {
    /// From the `-` marker (block) or the item (flow) to the end of the item.
    pub span: Span,
    pub value: Node,
    pub comments: Vec<Comment>,
}

/// How a scalar was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScalarStyle {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
    Folded,
}

/// A scalar with its text as written and its value as go-yaml v2 resolves it.
#[derive(Debug, Clone, PartialEq)]
pub struct Scalar {
    /// The scalar after YAML escape processing (what the parser gives).
    pub text: String,
    pub style: ScalarStyle,
    /// Explicit tag such as `!!str`, if any.
    pub tag: Option<String>,
    pub resolved: ScalarValue,
}

/// A resolved scalar value (YAML 1.1 rules of go-yaml v2; see `scalar`).
#[derive(Debug, Clone, PartialEq)]
pub enum ScalarValue {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
}

impl ScalarValue {
    /// ytt's type name: `string`, `integer`, `float`, `boolean`, `null`.
    pub fn type_name(&self) -> &'static str {
        match self {
            ScalarValue::Null => "null",
            ScalarValue::Bool(_) => "boolean",
            ScalarValue::Int(_) => "integer",
            ScalarValue::Float(_) => "float",
            ScalarValue::Str(_) => "string",
        }
    }
}

/// What a comment is, by ytt's conventions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommentKind {
    /// `#@name args`: an annotation.
    Annotation { name: String, args: String },
    /// `#@ code`: a line of Starlark.
    Code(String),
    /// `#! text`: a ytt comment, ignored.
    Ytt,
    /// `# text`: an ordinary YAML comment.
    Plain,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comment {
    /// The whole comment from `#`.
    pub span: Span,
    /// The text after `#`.
    pub text: String,
    pub kind: CommentKind,
    /// True when the comment is alone on its line.
    pub own_line: bool,
    /// Byte offset in the span's file where the annotation arguments start
    /// (for positions inside them).
    pub args_offset: u32,
    /// Where a render keeps the annotation's evaluated arguments (an
    /// overlay annotation of an output node; `check::ytt::template::annotation_args`).
    pub evaluated: Option<EvaluatedArgs>,
}

/// A render's handle on an annotation's evaluated arguments: the run
/// (module) that evaluated them and their number in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EvaluatedArgs {
    pub run: u32,
    pub index: u32,
}

impl Node {
    /// Whether the comments of any map or array item below this node are
    /// ones `wanted` accepts.
    pub fn any_item_comments(&self, wanted: &dyn Fn(&[Comment]) -> bool) -> bool {
        match &self.value {
            Value::Map(items) => items
                .iter()
                .any(|i| wanted(&i.comments) || i.value.any_item_comments(wanted)),
            Value::Array(items) => items
                .iter()
                .any(|i| wanted(&i.comments) || i.value.any_item_comments(wanted)),
            Value::Scalar(_) => false,
        }
    }

    pub fn as_scalar(&self) -> Option<&Scalar> {
        match &self.value {
            Value::Scalar(s) => Some(s),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(&self.value, Value::Scalar(s) if s.resolved == ScalarValue::Null)
    }

    /// ytt's type name of this node.
    pub fn type_name(&self) -> &'static str {
        match &self.value {
            Value::Scalar(s) => s.resolved.type_name(),
            Value::Map(_) => "map",
            Value::Array(_) => "array",
        }
    }
}

impl Scalar {
    /// The key or value as ytt prints it in paths and messages.
    pub fn display(&self) -> String {
        match &self.resolved {
            ScalarValue::Str(s) => s.clone(),
            ScalarValue::Null => "null".into(),
            ScalarValue::Bool(b) => b.to_string(),
            ScalarValue::Int(i) => i.to_string(),
            ScalarValue::Float(f) => crate::yaml::float::format_float(*f),
        }
    }
}

/// The item of map `n` under `key` (the last one, as a YAML decoder keeps).
pub fn item<'a>(n: &'a Node, key: &str) -> Option<&'a MapItem> {
    match &n.value {
        Value::Map(items) => items.iter().rev().find(|i| i.key.text == key),
        _ => None,
    }
}

/// The non-null value of map `n` under `key`.
pub fn child<'a>(n: &'a Node, key: &str) -> Option<&'a Node> {
    item(n, key).map(|i| &i.value).filter(|v| !v.is_null())
}

/// The scalar text of map `n` under `key`.
pub fn text<'a>(n: &'a Node, key: &str) -> Option<&'a str> {
    child(n, key)
        .and_then(Node::as_scalar)
        .map(|s| s.text.as_str())
}

/// The string of map `n` under `key`: a scalar that resolves to a string
/// (not `1`, `true` or `null`), as a decoder into a Go string reads it.
pub fn string<'a>(n: &'a Node, key: &str) -> Option<&'a str> {
    match &child(n, key)?.as_scalar()?.resolved {
        ScalarValue::Str(text) => Some(text),
        _ => None,
    }
}

/// Helpers over the annotations of a node's comments.
pub trait Annotated {
    fn comments(&self) -> &[Comment];

    /// Annotations in source order.
    fn annotations(&self) -> Box<dyn Iterator<Item = (&str, &Comment)> + '_> {
        Box::new(self.comments().iter().filter_map(|c| match &c.kind {
            CommentKind::Annotation { name, .. } => Some((name.as_str(), c)),
            _ => None,
        }))
    }

    fn has_annotation(&self, wanted: &str) -> bool {
        self.annotations().any(|(name, _)| name == wanted)
    }

    /// The last annotation of that name (ytt keeps the last of duplicates).
    fn annotation(&self, wanted: &str) -> Option<&Comment> {
        self.annotations()
            .filter(|(name, _)| *name == wanted)
            .map(|(_, c)| c)
            .last()
    }
}

impl Annotated for Document {
    fn comments(&self) -> &[Comment] {
        &self.comments
    }
}

impl Annotated for MapItem {
    fn comments(&self) -> &[Comment] {
        &self.comments
    }
}

impl Annotated for ArrayItem {
    fn comments(&self) -> &[Comment] {
        &self.comments
    }
}

impl CommentKind {
    /// Classify the text after `#` as ytt does.
    pub fn classify(text: &str) -> (CommentKind, usize) {
        if let Some(rest) = text.strip_prefix('@') {
            if rest.is_empty() || rest.starts_with([' ', '\t']) {
                return (CommentKind::Code(rest.trim().to_string()), 1);
            }
            let name_len = rest.find(|c: char| c.is_whitespace()).unwrap_or(rest.len());
            let name = rest[..name_len].to_string();
            let args_start = rest[name_len..]
                .find(|c: char| !c.is_whitespace())
                .map_or(rest.len(), |i| name_len + i);
            let args = rest[args_start..].trim_end().to_string();
            return (CommentKind::Annotation { name, args }, 1 + args_start);
        }
        if text.starts_with('!') {
            return (CommentKind::Ytt, 0);
        }
        (CommentKind::Plain, 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_are_classified_as_ytt_does() {
        let (kind, offset) = CommentKind::classify("@schema/validation min=1, max=3");
        assert_eq!(
            kind,
            CommentKind::Annotation {
                name: "schema/validation".into(),
                args: "min=1, max=3".into()
            }
        );
        assert_eq!(&"@schema/validation min=1, max=3"[offset..], "min=1, max=3");
        assert_eq!(
            CommentKind::classify("@ load(\"@ytt:data\", \"data\")").0,
            CommentKind::Code("load(\"@ytt:data\", \"data\")".into())
        );
        assert_eq!(CommentKind::classify("! note").0, CommentKind::Ytt);
        assert_eq!(CommentKind::classify(" plain").0, CommentKind::Plain);
        assert_eq!(
            CommentKind::classify("@data/values").0,
            CommentKind::Annotation {
                name: "data/values".into(),
                args: String::new()
            }
        );
    }
}
