//! Defaults: the default value a type's declaration gives, defaults filled
//! into given data values, and the YAML nodes built for them (from Starlark
//! values of `@schema/default`, or null).

use super::super::starlark::StarValue;
use super::types::{SchemaType, TypeKind};
use crate::source::Span;
use crate::yaml::{ArrayItem, MapItem, Node, Scalar, ScalarStyle, ScalarValue, Value};

pub fn null_node(span: Span) -> Node {
    scalar_node(span, ScalarValue::Null)
}

fn scalar_node(span: Span, resolved: ScalarValue) -> Node {
    Node {
        span,
        value: Value::Scalar(Scalar {
            text: String::new(),
            style: ScalarStyle::Plain,
            tag: None,
            resolved,
        }),
    }
}

/// A Starlark value as a YAML node located at `span` (the annotation).
pub fn star_to_node(value: &StarValue, span: Span) -> Node {
    match value {
        StarValue::None => null_node(span),
        StarValue::Bool(b) => scalar_node(span, ScalarValue::Bool(*b)),
        StarValue::Int(i) => scalar_node(span, ScalarValue::Int(*i)),
        StarValue::Float(f) => scalar_node(span, ScalarValue::Float(*f)),
        StarValue::Str(s) => scalar_node(span, ScalarValue::Str(s.clone())),
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
                            _ => Scalar {
                                text: k.to_string(),
                                style: ScalarStyle::Plain,
                                tag: None,
                                resolved: ScalarValue::Str(k.to_string()),
                            },
                        },
                        value: star_to_node(v, span),
                        comments: Vec::new(),
                    })
                    .collect(),
            ),
        },
        StarValue::Other { repr, .. } => scalar_node(span, ScalarValue::Str(repr.clone())),
    }
}

/// The default of a type whose declaration is `node`: scalars keep their
/// value, maps all their items' defaults, arrays are empty.
pub(super) fn default_of(kind: &TypeKind, node: &Node) -> Node {
    match (kind, &node.value) {
        (TypeKind::Any, _) => node.clone(),
        (TypeKind::Map(entries), Value::Map(items)) => Node {
            span: node.span,
            value: Value::Map(
                items
                    .iter()
                    .zip(entries)
                    .map(|(item, entry)| MapItem {
                        key_span: item.key_span,
                        key: item.key.clone(),
                        value: entry.ty.default.clone(),
                        comments: Vec::new(),
                    })
                    .collect(),
            ),
        },
        (TypeKind::Array(_), _) => Node {
            span: node.span,
            value: Value::Array(Vec::new()),
        },
        _ => node.clone(),
    }
}

/// Fill in missing map items from the schema, recursively (also into array
/// items), as ytt does after each merge step.
pub fn fill_defaults(node: &mut Node, ty: &SchemaType) {
    match (&mut node.value, &ty.kind) {
        (Value::Map(items), TypeKind::Map(entries)) => {
            for entry in entries {
                match items.iter_mut().find(|i| i.key.display() == entry.key) {
                    Some(item) => fill_defaults(&mut item.value, &entry.ty),
                    None => items.push(MapItem {
                        key_span: entry.ty.span,
                        key: Scalar {
                            text: entry.key.clone(),
                            style: ScalarStyle::Plain,
                            tag: None,
                            resolved: ScalarValue::Str(entry.key.clone()),
                        },
                        value: entry.ty.default.clone(),
                        comments: Vec::new(),
                    }),
                }
            }
        }
        (Value::Array(items), TypeKind::Array(item_type)) => {
            for item in items {
                fill_defaults(&mut item.value, item_type);
            }
        }
        _ => {}
    }
}
