//! Types inferred from a schema document, as ytt's pkg/schema/schema.go:
//! scalars by their value, maps item by item, arrays by their one item;
//! `@schema/default` and `@schema/examples` checked against the type.

use super::super::path::DataPath;
use super::super::rule::Validation;
use super::super::starlark::StarValue;
use super::build::{SchemaAnnotations, SchemaBuilder, Scope};
use super::defaults::{default_of, fill_defaults, null_node, star_to_node};
use super::types::{MapEntry, SchemaType, TypeKind};
use crate::source::Span;
use crate::yaml::{Annotated, ArrayItem, Comment, MapItem, Node, ScalarValue, Value};

impl SchemaBuilder<'_> {
    /// The type of a whole schema document; None after a schema error.
    pub fn document_type(&mut self, doc: &crate::yaml::Document) -> Option<SchemaType> {
        let scope = Scope {
            in_any: false,
            is_array_item: false,
            is_document: true,
        };
        self.node_type(
            &doc.value,
            doc.comments(),
            doc.span,
            scope,
            &DataPath::root(),
        )
    }

    fn node_type(
        &mut self,
        node: &Node,
        comments: &[Comment],
        owner: Span,
        scope: Scope,
        path: &DataPath,
    ) -> Option<SchemaType> {
        let annotations = SchemaAnnotations::read(self, comments, owner, scope)?;
        let in_any = scope.in_any || annotations.is_any;
        if in_any && !scope.in_any {
            self.check_any_fragment(node)?;
        }
        let kind = match &node.value {
            _ if in_any => TypeKind::Any,
            Value::Scalar(scalar) => match &scalar.resolved {
                ScalarValue::Str(_) => TypeKind::String,
                ScalarValue::Int(_) => TypeKind::Int,
                ScalarValue::Float(_) => TypeKind::Float,
                ScalarValue::Bool(_) => TypeKind::Bool,
                ScalarValue::Null => {
                    self.error(
                        owner,
                        format!(
                            "Invalid schema - null value not allowed here: {} has no default that implies a type (give a value, or use @schema/type any=True)",
                            display_path(path)
                        ),
                    );
                    return None;
                }
            },
            Value::Map(items) => {
                let mut entries = Vec::with_capacity(items.len());
                for item in items {
                    let key = item.key.display();
                    let child_scope = Scope {
                        in_any,
                        is_array_item: false,
                        is_document: false,
                    };
                    let ty = self.map_item_type(item, child_scope, &path.key(&key))?;
                    entries.push(MapEntry { key, ty });
                }
                TypeKind::Map(entries)
            }
            Value::Array(items) => {
                if items.len() != 1 {
                    self.error(
                        owner,
                        format!(
                            "Invalid schema - wrong number of items in array definition: found {} array items, expected exactly one item that gives the type of every item",
                            items.len()
                        ),
                    );
                    return None;
                }
                let item: &ArrayItem = &items[0];
                let child_scope = Scope {
                    in_any,
                    is_array_item: true,
                    is_document: false,
                };
                let item_type = self.node_type(
                    &item.value,
                    item.comments(),
                    item.span,
                    child_scope,
                    &path.index(0),
                )?;
                TypeKind::Array(Box::new(item_type))
            }
        };
        let mut ty = SchemaType {
            default: default_of(&kind, node),
            kind,
            is_nullable: annotations.is_nullable,
            span: owner,
            validation: if scope.in_any {
                None
            } else {
                annotations.validation
            },
            docs: annotations.docs,
        };
        if let Some((value, span)) = annotations.default {
            if matches!(ty.kind, TypeKind::Any)
                || (value == StarValue::None && ty.is_nullable)
                || star_fits(&value, &ty.kind)
            {
                let mut default = star_to_node(&value, span);
                fill_defaults(&mut default, &ty);
                ty.default = default;
            } else {
                self.error(
                    owner,
                    format!(
                        "Invalid schema - @schema/default is wrong type: found {}, expected {}",
                        star_type_name(&value),
                        ty.kind.name()
                    ),
                );
                return None;
            }
        } else if ty.is_nullable {
            ty.default = null_node(node.span);
        }
        if let Some(defaults) = &annotations.string_defaults {
            apply_string_defaults(&mut ty, defaults);
        }
        for (_, example) in &ty.docs.examples {
            let fits = matches!(ty.kind, TypeKind::Any)
                || (example == &StarValue::None && ty.is_nullable)
                || star_fits(example, &ty.kind);
            if !fits {
                self.error(
                    owner,
                    format!(
                        "Invalid schema - @schema/examples has wrong type: found {}, expected {}",
                        star_type_name(example),
                        ty.kind.name()
                    ),
                );
                return None;
            }
        }
        Some(ty)
    }

    /// Below `@schema/type any=True` nothing is typed, and schema annotations
    /// other than `@schema/validation` (accepted, never run) are errors.
    fn check_any_fragment(&mut self, node: &Node) -> Option<()> {
        let children: Vec<(&[Comment], Span, &Node)> = match &node.value {
            Value::Map(items) => items
                .iter()
                .map(|i| (i.comments(), i.key_span, &i.value))
                .collect(),
            Value::Array(items) => items
                .iter()
                .map(|i| (i.comments(), i.span, &i.value))
                .collect(),
            Value::Scalar(_) => Vec::new(),
        };
        for (comments, span, child) in children {
            let nested = comments.iter().find_map(|c| match &c.kind {
                crate::yaml::CommentKind::Annotation { name, .. }
                    if name.starts_with("schema/") && name != "schema/validation" =>
                {
                    Some(name.clone())
                }
                _ => None,
            });
            if let Some(name) = nested {
                self.error(
                    span,
                    format!("Invalid schema - Schema was specified within an \"any type\" fragment: @{name} below @schema/type any=True"),
                );
                return None;
            }
            self.check_any_fragment(child)?;
        }
        Some(())
    }

    fn map_item_type(
        &mut self,
        item: &MapItem,
        scope: Scope,
        path: &DataPath,
    ) -> Option<SchemaType> {
        self.node_type(&item.value, item.comments(), item.key_span, scope, path)
    }
}

fn display_path(path: &DataPath) -> String {
    path.to_string()
}

/// ytt's type name of a Starlark default (`float`, `string`, ...).
fn star_type_name(value: &StarValue) -> &str {
    match value {
        StarValue::None => "null",
        StarValue::Bool(_) => "boolean",
        StarValue::Int(_) => "integer",
        StarValue::Float(_) => "float",
        StarValue::Str(_) => "string",
        StarValue::List(_) | StarValue::Tuple(_) => "array",
        StarValue::Dict(_) => "map",
        StarValue::Other { type_name, .. } => type_name,
    }
}

/// Does a Starlark value fit a type (deeply)?
fn star_fits(value: &StarValue, kind: &TypeKind) -> bool {
    match (value, kind) {
        (_, TypeKind::Any) => true,
        (StarValue::Str(_), TypeKind::String)
        | (StarValue::Int(_), TypeKind::Int | TypeKind::Float)
        | (StarValue::Float(_), TypeKind::Float)
        | (StarValue::Bool(_), TypeKind::Bool) => true,
        (StarValue::List(items) | StarValue::Tuple(items), TypeKind::Array(item)) => items
            .iter()
            .all(|v| (v == &StarValue::None && item.is_nullable) || star_fits(v, &item.kind)),
        (StarValue::Dict(items), TypeKind::Map(entries)) => items.iter().all(|(k, v)| {
            let StarValue::Str(key) = k else { return false };
            entries.iter().any(|e| {
                &e.key == key
                    && ((v == &StarValue::None && e.ty.is_nullable) || star_fits(v, &e.ty.kind))
            })
        }),
        _ => false,
    }
}

/// Give every string value below `ty` that has no rule of its own the
/// rules of `@schema/validation-defaults-for-strings`.
fn apply_string_defaults(ty: &mut SchemaType, defaults: &Validation) {
    match &mut ty.kind {
        TypeKind::String if ty.validation.is_none() => ty.validation = Some(defaults.clone()),
        TypeKind::Map(entries) => entries
            .iter_mut()
            .for_each(|e| apply_string_defaults(&mut e.ty, defaults)),
        TypeKind::Array(item) => apply_string_defaults(item, defaults),
        _ => {}
    }
}
