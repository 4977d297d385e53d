//! YAML scalars and the Starlark values they are, both ways: the leaf
//! of the conversions, shared by [`super::convert`] and fragments.

use crate::source::Span;
use crate::yaml::{Node, Scalar, ScalarStyle, ScalarValue, Value as NodeValue};
use starlark::values::float::StarlarkFloat;
use starlark::values::{Heap, UnpackValue, Value};

/// A scalar node holding `value`, at `span`.
pub fn scalar_node(value: ScalarValue, span: Span) -> Node {
    Node {
        span,
        value: NodeValue::Scalar(scalar(value)),
    }
}

/// A scalar with no source text of its own (the output writes `resolved`).
pub fn scalar(value: ScalarValue) -> Scalar {
    let text = match &value {
        ScalarValue::Null => "null".to_string(),
        ScalarValue::Bool(b) => b.to_string(),
        ScalarValue::Int(i) => i.to_string(),
        ScalarValue::Float(f) => crate::yaml::float::format_float(*f),
        ScalarValue::Str(s) => s.clone(),
    };
    Scalar {
        text,
        style: ScalarStyle::Plain,
        tag: None,
        resolved: value,
    }
}

/// The scalar a Starlark value is, if it is one.
pub fn value_to_scalar(value: Value<'_>) -> Option<ScalarValue> {
    if value.is_none() {
        return Some(ScalarValue::Null);
    }
    if let Some(b) = value.unpack_bool() {
        return Some(ScalarValue::Bool(b));
    }
    if let Some(s) = value.unpack_str() {
        return Some(ScalarValue::Str(s.to_string()));
    }
    match value.get_type() {
        "int" => i64::unpack_value(value)
            .ok()
            .flatten()
            .map(ScalarValue::Int),
        "float" => StarlarkFloat::unpack_value(value)
            .ok()
            .flatten()
            .map(|f| ScalarValue::Float(f.0)),
        _ => None,
    }
}

pub fn scalar_to_value<'v>(scalar: &ScalarValue, heap: Heap<'v>) -> Value<'v> {
    match scalar {
        ScalarValue::Null => Value::new_none(),
        ScalarValue::Bool(b) => Value::new_bool(*b),
        ScalarValue::Int(i) => heap.alloc(*i),
        ScalarValue::Float(f) => heap.alloc(StarlarkFloat(*f)),
        ScalarValue::Str(s) => heap.alloc(s.as_str()),
    }
}
