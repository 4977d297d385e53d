//! Defaults: the default value a type's declaration gives, defaults filled
//! into given data values, and the YAML nodes built for them (from Starlark
//! values of `@schema/default`, or null).

use super::types::{SchemaType, TypeKind};
pub use crate::check::ytt::starlark::star_nodes::star_to_node;
use crate::source::Span;
use crate::yaml::{MapItem, Node, Scalar, ScalarStyle, ScalarValue, Value};

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
            // The first item of each key: a search per entry would make a
            // map of many keys cost their square.
            let mut first: std::collections::HashMap<String, usize> =
                std::collections::HashMap::with_capacity(items.len());
            for (at, item) in items.iter().enumerate() {
                first.entry(item.key.display()).or_insert(at);
            }
            for entry in entries {
                match first.get(&entry.key) {
                    Some(&at) => fill_defaults(&mut items[at].value, &entry.ty),
                    None => {
                        first.insert(entry.key.clone(), items.len());
                        items.push(MapItem {
                            key_span: entry.ty.span,
                            key: Scalar {
                                text: entry.key.clone(),
                                style: ScalarStyle::Plain,
                                tag: None,
                                resolved: ScalarValue::Str(entry.key.clone()),
                            },
                            value: entry.ty.default.clone(),
                            comments: Vec::new(),
                        })
                    }
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
