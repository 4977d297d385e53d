//! [`StarValue`]s (values taken out of the interpreter, as validations keep
//! them) and YAML nodes, both ways: what a rule checks and what a default
//! or an evaluated annotation argument becomes.

use super::StarValue;
use super::scalars::{scalar, scalar_node};
use crate::source::Span;
use crate::yaml::{ArrayItem, MapItem, Node, ScalarValue, Value};

/// A node as a rule sees it: maps as dicts with string keys, arrays as lists.
pub fn node_to_star(node: &Node) -> StarValue {
    match &node.value {
        Value::Scalar(s) => match &s.resolved {
            ScalarValue::Null => StarValue::None,
            ScalarValue::Bool(b) => StarValue::Bool(*b),
            ScalarValue::Int(i) => StarValue::Int(*i),
            ScalarValue::Float(f) => StarValue::Float(*f),
            ScalarValue::Str(s) => StarValue::Str(s.clone()),
        },
        Value::Map(items) => StarValue::Dict(
            items
                .iter()
                .map(|i| (StarValue::Str(i.key.display()), node_to_star(&i.value)))
                .collect(),
        ),
        Value::Array(items) => {
            StarValue::List(items.iter().map(|i| node_to_star(&i.value)).collect())
        }
    }
}

/// A value as a node at `span`; anything that is not data (a function)
/// becomes its repr as a string.
pub fn star_to_node(value: &StarValue, span: Span) -> Node {
    match value {
        StarValue::None => scalar_node(ScalarValue::Null, span),
        StarValue::Bool(b) => scalar_node(ScalarValue::Bool(*b), span),
        StarValue::Int(i) => scalar_node(ScalarValue::Int(*i), span),
        StarValue::Float(f) => scalar_node(ScalarValue::Float(*f), span),
        StarValue::Str(s) => scalar_node(ScalarValue::Str(s.clone()), span),
        StarValue::List(items) | StarValue::Tuple(items) => Node {
            span,
            value: Value::Array(
                items
                    .iter()
                    .map(|v| ArrayItem {
                        span,
                        value: star_to_node(v, span),
                        comments: Vec::new(),
                    })
                    .collect(),
            ),
        },
        StarValue::Dict(items) => Node {
            span,
            value: Value::Map(
                items
                    .iter()
                    .map(|(k, v)| MapItem {
                        key_span: span,
                        key: match star_to_node(k, span).value {
                            Value::Scalar(s) => s,
                            _ => scalar(ScalarValue::Str(k.to_string())),
                        },
                        value: star_to_node(v, span),
                        comments: Vec::new(),
                    })
                    .collect(),
            ),
        },
        StarValue::Other { repr, .. } => scalar_node(ScalarValue::Str(repr.clone()), span),
    }
}
