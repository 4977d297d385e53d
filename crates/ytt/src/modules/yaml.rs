//! `@ytt:yaml`: `encode(value)` prints a value as ytt prints YAML (a
//! fragment's document set as documents between `---`; nothing for None)
//! and `decode(text)` reads exactly one document with ytt's YAML 1.1
//! scalars into dicts, lists and scalars.

use super::context::Context;
use super::go_value::{self, Go, GoError};
use super::native::{Call, Outcome, as_str, native};
use crate::yaml::{Node, ScalarValue, Value as NodeValue};
use starlark::eval::Evaluator;
use starlark::values::{Heap, Value};

pub fn module<'v>(heap: Heap<'v>, _: &Context) -> Value<'v> {
    super::native::module(
        heap,
        "yaml",
        &[
            ("encode", "yaml.encode", native!(encode)),
            ("decode", "yaml.decode", native!(decode)),
        ],
    )
}

fn span() -> crate::source::Span {
    crate::source::Span::new(crate::source::FileId(0), 0, 0)
}

/// Why YAML did not decode (or a value not round-trip), in ytt's words.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum YamlError {
    #[error(transparent)]
    Go(#[from] GoError),
    /// The YAML parser's error, its message as it is (the parser words it
    /// as ytt's does).
    #[error("{0}")]
    Parse(String),
    #[error("Expected to find exactly one YAML document")]
    NotOneDocument,
}

impl super::native::YttMessage for YamlError {}

/// ytt's `yamlModule.Encode`: Go data as YAML text.
pub fn encode_go(go: &Go) -> Result<String, GoError> {
    let is_empty = |node: &Node| match &node.value {
        NodeValue::Map(items) => items.is_empty(),
        NodeValue::Array(items) => items.is_empty(),
        NodeValue::Scalar(s) => s.resolved == ScalarValue::Null,
    };
    match go {
        Go::Docs(docs) => {
            let nodes: Vec<Option<&Node>> = docs.iter().map(|d| Some(&d.value)).collect();
            Ok(crate::yaml::emit::document_set_to_yaml(&nodes))
        }
        // A fragment's empty map or array is an empty document: skipped.
        Go::Node(node) if is_empty(node) => Ok(String::new()),
        _ => Ok(crate::yaml::emit::to_yaml(&go_value::to_node(go, span())?)),
    }
}

fn encode<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let go = go_value::from_value(call.one()?, call.heap)?;
    Ok(call.heap.alloc(encode_go(&go)?))
}

/// ytt's `yamlModule.Decode`: one document as Go data.
pub fn decode_text(text: &str) -> Result<Go, YamlError> {
    let set = crate::yaml::parse_file(crate::source::FileId(0), text, &Default::default())
        .map_err(|e| YamlError::Parse(e.message))?;
    match set.docs.as_slice() {
        [] => Ok(Go::Null),
        [doc] => Ok(plain(&doc.value)),
        _ => Err(YamlError::NotOneDocument),
    }
}

/// A parsed node as plain data; `!!binary` scalars decoded.
fn plain(node: &Node) -> Go {
    match &node.value {
        NodeValue::Scalar(s) => {
            let binary = s
                .tag
                .as_deref()
                .is_some_and(|t| t == "!!binary" || t == "tag:yaml.org,2002:binary");
            if binary {
                let compact: String = s.text.split_whitespace().collect();
                if let Ok(bytes) = super::base64::STANDARD.decode(compact.as_bytes()) {
                    return Go::Str(String::from_utf8_lossy(&bytes).into_owned());
                }
            }
            Go::from_scalar(&s.resolved)
        }
        NodeValue::Array(items) => Go::List(items.iter().map(|i| plain(&i.value)).collect()),
        NodeValue::Map(items) => {
            let mut out = Vec::new();
            for item in items {
                go_value::map_set(
                    &mut out,
                    Go::from_scalar(&item.key.resolved),
                    plain(&item.value),
                );
            }
            Go::Map(out)
        }
    }
}

fn decode<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let text = as_str(call.one()?)?;
    let go = decode_text(text)?;
    Ok(go_value::to_value(&go, call.heap, false)?)
}

/// `yaml.decode(yaml.encode(value))`, as ytt's assertions compare values.
pub fn round_trip<'v>(value: Value<'v>, heap: Heap<'v>) -> Result<Value<'v>, YamlError> {
    let go = go_value::from_value(value, heap)?;
    let decoded = decode_text(&encode_go(&go)?)?;
    Ok(go_value::to_value(&decoded, heap, false)?)
}
