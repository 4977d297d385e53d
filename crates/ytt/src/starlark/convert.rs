//! Values between YAML nodes and the Starlark heap, both ways, as ytt's
//! `core.GoValue` / `core.StarlarkValue` convert them: what a template sets
//! on a node (`key: #@ expr`), what `data.values` and fragments read as.

use super::fragment::{Fragment, FragmentData};
use super::scalars::{scalar, scalar_node, scalar_to_value, value_to_scalar};
use super::ytt_struct::YttStruct;
use crate::source::Span;
use crate::yaml::{ArrayItem, MapItem, Node, ScalarValue, Value as NodeValue};
use starlark::values::dict::DictRef;
use starlark::values::list::ListRef;
use starlark::values::tuple::TupleRef;
use starlark::values::{Heap, Value};

/// Nesting past this is refused rather than recursed into.
const MAX_DEPTH: usize = 200;

/// The most text or nodes one conversion of a value may make (`str()`,
/// `repr()`, a value written to YAML, `json.encode()`...), in bytes.
pub const OUTPUT_LIMIT_BYTES: u64 = 64 * 1024 * 1024;

/// Why a Starlark value did not convert: ytt's words, which a template
/// sees as the error of the call that converted it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConvertError {
    #[error("value too large: writing it out would pass {} MiB", OUTPUT_LIMIT_BYTES / 1024 / 1024)]
    TooLarge,
    #[error("value nested deeper than {MAX_DEPTH} levels cannot be converted to YAML")]
    TooDeep,
    /// A Starlark int past Go's `int64` (its text).
    #[error("integer {0} does not fit in 64 bits")]
    IntTooLarge(String),
    /// A map key that is no scalar (its Starlark type).
    #[error("unknown type {0} for conversion to a map key")]
    MapKey(String),
    /// ytt's `ConversionHint`: a module's value (`url.parse()`'s) that
    /// does not encode (its Starlark type).
    #[error("Unable to convert value: {0} does not automatically encode (hint: use .string())")]
    NotEncodable(String),
    /// A value with no Go form (its Go type).
    #[error("unknown type {0} for conversion to go value")]
    UnknownType(String),
}

/// Refuses a value whose text (or YAML tree) would pass
/// [`OUTPUT_LIMIT_BYTES`], before it is made: a list holding one list a
/// million times is small on the heap but gigabytes once written out
/// (`str([[0] * 1000] * 1000000)`), and a failed allocation aborts the
/// process.
pub fn check_output_size(value: Value<'_>) -> Result<(), ConvertError> {
    if written_size(value, OUTPUT_LIMIT_BYTES) > OUTPUT_LIMIT_BYTES {
        return Err(ConvertError::TooLarge);
    }
    Ok(())
}

/// About how many bytes `value` takes written out as text, shared parts
/// counted each time they are written; the walk stops once past `cap`
/// (returning more than `cap`), so it costs at most `cap`.
pub fn written_size(value: Value<'_>, cap: u64) -> u64 {
    let mut total: u64 = 0;
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        total += if let Some(text) = value.unpack_str() {
            // Quotes, and room for escapes.
            text.len() as u64 + 2
        } else if let Some(list) = ListRef::from_value(value) {
            stack.extend(list.iter());
            2 + 2 * list.len() as u64
        } else if let Some(tuple) = TupleRef::from_value(value) {
            stack.extend(tuple.iter());
            2 + 2 * tuple.len() as u64
        } else if let Some(dict) = DictRef::from_value(value) {
            for (key, item) in dict.iter() {
                stack.push(key);
                stack.push(item);
            }
            2 + 4 * dict.len() as u64
        } else {
            // Numbers (big ones stay below 100,000 bits, see the engine's
            // guards), booleans, None, functions, structs: their text is
            // small or bounded by what they hold (a struct's fields are
            // checked when converted field by field).
            16
        };
        if total > cap {
            break;
        }
    }
    total
}

/// A node as templates see data values: maps as structs, arrays as lists.
pub fn node_to_struct_value<'v>(node: &Node, heap: Heap<'v>) -> Value<'v> {
    match &node.value {
        NodeValue::Scalar(s) => scalar_to_value(&s.resolved, heap),
        NodeValue::Array(items) => {
            let values: Vec<Value> = items
                .iter()
                .map(|i| node_to_struct_value(&i.value, heap))
                .collect();
            heap.alloc(values)
        }
        NodeValue::Map(items) => {
            let fields = items
                .iter()
                .map(|i| (i.key.display(), node_to_struct_value(&i.value, heap)))
                .collect();
            heap.alloc(YttStruct::new(fields))
        }
    }
}

/// A node as plain Starlark data: maps as dicts, arrays as lists
/// (`struct.encode`).
pub fn node_to_plain_value<'v>(node: &Node, heap: Heap<'v>) -> Value<'v> {
    match &node.value {
        NodeValue::Scalar(s) => scalar_to_value(&s.resolved, heap),
        NodeValue::Array(items) => {
            let values: Vec<Value> = items
                .iter()
                .map(|i| node_to_plain_value(&i.value, heap))
                .collect();
            heap.alloc(values)
        }
        NodeValue::Map(items) => {
            let pairs: Vec<(Value, Value)> = items
                .iter()
                .map(|i| {
                    (
                        scalar_to_value(&i.key.resolved, heap),
                        node_to_plain_value(&i.value, heap),
                    )
                })
                .collect();
            heap.alloc(starlark::values::dict::AllocDict(pairs))
        }
    }
}

/// What converting a Starlark value into YAML gives: a node, or the
/// documents of a fragment that holds a document set.
pub enum Converted {
    Node(Node),
    Documents(Vec<crate::yaml::Document>),
}

/// A Starlark value as a YAML node at `span` (ytt's `AsGoValue` then
/// `NewASTFromInterface`); fragments keep their own nodes and positions.
pub fn value_to_node(value: Value<'_>, span: Span) -> Result<Node, ConvertError> {
    match convert(value, span, 0)? {
        Converted::Node(node) => Ok(node),
        Converted::Documents(docs) => Ok(documents_as_array(docs, span)),
    }
}

/// Documents where one node is wanted: an array of their values.
pub fn documents_as_array(docs: Vec<crate::yaml::Document>, span: Span) -> Node {
    Node {
        span,
        value: NodeValue::Array(
            docs.into_iter()
                .map(|d| ArrayItem {
                    span: d.span,
                    value: d.value,
                    comments: d.comments,
                })
                .collect(),
        ),
    }
}

pub fn convert(value: Value<'_>, span: Span, depth: usize) -> Result<Converted, ConvertError> {
    if depth == 0 {
        check_output_size(value)?;
    }
    if depth > MAX_DEPTH {
        return Err(ConvertError::TooDeep);
    }
    if let Some(scalar) = value_to_scalar(value) {
        return Ok(Converted::Node(scalar_node(scalar, span)));
    }
    if value.get_type() == "int" {
        return Err(ConvertError::IntTooLarge(value.to_string()));
    }
    if let Some(fragment) = Fragment::from_value(value) {
        return Ok(match &*fragment.data {
            FragmentData::Nil => Converted::Node(scalar_node(ScalarValue::Null, span)),
            FragmentData::Node(node) => Converted::Node(node.clone()),
            FragmentData::Documents(docs) => Converted::Documents(docs.clone()),
        });
    }
    let node = |value| Node { span, value };
    let item_of = |v: Value<'_>| -> Result<ArrayItem, ConvertError> {
        Ok(ArrayItem {
            span,
            value: value_to_node_at(v, span, depth + 1)?,
            comments: Vec::new(),
        })
    };
    if let Some(list) = ListRef::from_value(value) {
        let items = list.iter().map(item_of).collect::<Result<_, _>>()?;
        return Ok(Converted::Node(node(NodeValue::Array(items))));
    }
    if let Some(tuple) = TupleRef::from_value(value) {
        let items = tuple.iter().map(item_of).collect::<Result<_, _>>()?;
        return Ok(Converted::Node(node(NodeValue::Array(items))));
    }
    let map_item = |k: Value<'_>, v: Value<'_>| -> Result<MapItem, ConvertError> {
        let key =
            value_to_scalar(k).ok_or_else(|| ConvertError::MapKey(k.get_type().to_string()))?;
        Ok(MapItem {
            key_span: span,
            key: scalar(key),
            value: value_to_node_at(v, span, depth + 1)?,
            comments: Vec::new(),
        })
    };
    if let Some(dict) = DictRef::from_value(value) {
        let items = dict
            .iter()
            .map(|(k, v)| map_item(k, v))
            .collect::<Result<_, _>>()?;
        return Ok(Converted::Node(node(NodeValue::Map(items))));
    }
    if let Some(fields) = YttStruct::from_value(value) {
        let items = fields
            .fields()
            .map(|(k, v)| {
                Ok(MapItem {
                    key_span: span,
                    key: scalar(ScalarValue::Str(k.to_string())),
                    value: value_to_node_at(v, span, depth + 1)?,
                    comments: Vec::new(),
                })
            })
            .collect::<Result<_, ConvertError>>()?;
        return Ok(Converted::Node(node(NodeValue::Map(items))));
    }
    if let Some(hint) = conversion_hint(value) {
        return Err(hint);
    }
    Err(ConvertError::UnknownType(go_type_name(value)))
}

/// ytt's `ConversionHint` of the values its modules return that do not
/// encode (`url.parse()`'s, `ip.parse_addr()`'s).
pub fn conversion_hint(value: Value<'_>) -> Option<ConvertError> {
    let t = value.get_type();
    t.starts_with("@ytt:")
        .then(|| ConvertError::NotEncodable(t.to_string()))
}

fn value_to_node_at(value: Value<'_>, span: Span, depth: usize) -> Result<Node, ConvertError> {
    match convert(value, span, depth)? {
        Converted::Node(node) => Ok(node),
        Converted::Documents(docs) => Ok(documents_as_array(docs, span)),
    }
}

/// The Go type ytt names in conversion errors.
fn go_type_name(value: Value<'_>) -> String {
    match value.get_type() {
        "function" => "*starlark.Function".into(),
        "builtin_function_or_method" | "native_function" => "*starlark.Builtin".into(),
        "struct" => "*starlarkstruct.Struct".into(),
        other => other.to_string(),
    }
}

/// A converted value back on a heap (maps become dicts, arrays lists; a
/// value that did not convert becomes its repr).
pub fn star_to_value<'v>(heap: Heap<'v>, value: &super::StarValue) -> Value<'v> {
    use super::StarValue;
    match value {
        StarValue::None => Value::new_none(),
        StarValue::Bool(b) => Value::new_bool(*b),
        StarValue::Int(i) => heap.alloc(*i),
        StarValue::Float(f) => heap.alloc(*f),
        StarValue::Str(s) => heap.alloc(s.as_str()),
        StarValue::List(items) => heap.alloc(starlark::values::list::AllocList(
            items.iter().map(|i| star_to_value(heap, i)),
        )),
        StarValue::Tuple(items) => heap.alloc(starlark::values::tuple::AllocTuple(
            items.iter().map(|i| star_to_value(heap, i)),
        )),
        StarValue::Dict(items) => heap.alloc(starlark::values::dict::AllocDict(
            items
                .iter()
                .map(|(k, v)| (star_to_value(heap, k), star_to_value(heap, v))),
        )),
        StarValue::Other { repr, .. } => heap.alloc(repr.as_str()),
    }
}

/// The `(args, kwargs)` pair an annotation's arguments were captured in,
/// as call arguments that keep handles to the functions among them.
pub fn captured_call_args(captured: &starlark::values::OwnedFrozenValue) -> super::CallArgs {
    let pair = TupleRef::from_value(captured.value()).map(|t| t.content().to_vec());
    let Some([args, kwargs]) = pair.as_deref() else {
        return super::CallArgs::default();
    };
    let positional = TupleRef::from_value(*args)
        .map(|t| {
            t.content()
                .iter()
                .map(|v| super::to_star_value_owned(*v, captured, 0))
                .collect()
        })
        .unwrap_or_default();
    let named = DictRef::from_value(*kwargs)
        .map(|d| {
            d.iter()
                .map(|(k, v)| {
                    (
                        k.unpack_str().unwrap_or_default().to_string(),
                        super::to_star_value_owned(v, captured, 0),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    super::CallArgs { positional, named }
}
