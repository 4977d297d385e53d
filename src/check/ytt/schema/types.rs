//! The type tree: [`SchemaType`] (one data value's type, default, rules and
//! docs), [`TypeKind`], [`MapEntry`] and [`TypeDocs`], as ytt's
//! pkg/schema/type.go.

use super::super::rule::Validation;
use super::super::starlark::StarValue;
use crate::source::Span;
use crate::yaml::{Node, ScalarValue};

/// The type of one data value.
#[derive(Debug, Clone)]
pub struct SchemaType {
    pub kind: TypeKind,
    pub is_nullable: bool,
    /// The value used when no data value is given.
    pub default: Node,
    /// Where the value is declared (map item key, array item, document).
    pub span: Span,
    pub validation: Option<Validation>,
    pub docs: TypeDocs,
}

#[derive(Debug, Clone)]
pub enum TypeKind {
    Any,
    String,
    Int,
    Float,
    Bool,
    Map(Vec<MapEntry>),
    Array(Box<SchemaType>),
}

#[derive(Debug, Clone)]
pub struct MapEntry {
    pub key: String,
    pub ty: SchemaType,
}

/// Documentation kept for export (`@schema/desc`, `title`, `examples`, `deprecated`).
#[derive(Debug, Clone, Default)]
pub struct TypeDocs {
    pub title: Option<String>,
    pub description: Option<String>,
    pub examples: Vec<(String, StarValue)>,
    pub deprecated: Option<String>,
    /// `@schema/removed "notice"` (seed design): giving a value is an error.
    pub removed: Option<String>,
}

impl TypeKind {
    /// ytt's name of the type.
    pub fn name(&self) -> &'static str {
        match self {
            TypeKind::Any => "any",
            TypeKind::String => "string",
            TypeKind::Int => "integer",
            TypeKind::Float => "float",
            TypeKind::Bool => "boolean",
            TypeKind::Map(_) => "map",
            TypeKind::Array(_) => "array",
        }
    }

    /// Does a scalar of this resolved value fit? (int fits float.)
    pub fn accepts_scalar(&self, value: &ScalarValue) -> bool {
        matches!(
            (self, value),
            (TypeKind::Any, _)
                | (TypeKind::String, ScalarValue::Str(_))
                | (TypeKind::Int, ScalarValue::Int(_))
                | (TypeKind::Float, ScalarValue::Int(_) | ScalarValue::Float(_))
                | (TypeKind::Bool, ScalarValue::Bool(_))
        )
    }
}

impl SchemaType {
    pub fn entry(&self, key: &str) -> Option<&SchemaType> {
        match &self.kind {
            TypeKind::Map(entries) => entries.iter().find(|e| e.key == key).map(|e| &e.ty),
            _ => None,
        }
    }

    /// The type of each key of a map type (the first entry of a key), for
    /// walking a map of many keys without a search per key.
    pub fn entries_by_key(&self) -> std::collections::HashMap<&str, &SchemaType> {
        let mut out = std::collections::HashMap::new();
        if let TypeKind::Map(entries) = &self.kind {
            for e in entries {
                out.entry(e.key.as_str()).or_insert(&e.ty);
            }
        }
        out
    }
}
