//! Schema: `#@data/values-schema` documents turned into a tree of types, as
//! ytt's pkg/schema does: types inferred from defaults, `@schema/nullable`,
//! `@schema/type any=True`, `@schema/default`, documentation annotations,
//! and `@schema/validation` rules. Every schema error ytt reports becomes a
//! `schema` finding at ytt's position (the annotated node).

use super::engine::Code;
use super::path::DataPath;
use super::starlark::{CallArgs, StarValue};
use super::validate::{Validation, parse_validation};
use crate::finding::{Finding, Kind};
use crate::source::Span;
use crate::yaml::{
    Annotated, ArrayItem, Comment, MapItem, Node, Scalar, ScalarStyle, ScalarValue, Value,
};

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

/// The annotation names of the schema layer, ytt's and the seed design's.
pub const SCHEMA_ANNOTATIONS: &[&str] = &[
    "type",
    "nullable",
    "default",
    "validation",
    "desc",
    "title",
    "examples",
    "deprecated",
    "validation-defaults-for-strings",
    "removed",
];

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
}

/// Builds types and collects schema errors; stops at the first, as ytt does.
pub struct SchemaBuilder<'a> {
    pub findings: &'a mut Vec<Finding>,
    pub code: &'a Code<'a>,
}

/// Context while descending: inside an any-typed fragment schema annotations
/// are errors, validations are ignored.
#[derive(Clone, Copy)]
struct Scope {
    in_any: bool,
    is_array_item: bool,
    is_document: bool,
}

impl SchemaBuilder<'_> {
    fn error(&mut self, span: Span, message: String) {
        self.findings
            .push(Finding::new("ytt/schema", Kind::Schema, span, message));
    }

    fn compat(&mut self, span: Span, message: String) {
        self.findings
            .push(Finding::new("ytt/compat", Kind::Compat, span, message));
    }

    fn rule_error(&mut self, span: Span, message: String) {
        self.findings.push(Finding::new(
            "ytt/rule-annotation",
            Kind::Schema,
            span,
            message,
        ));
    }

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

/// The annotations on one schema node, checked.
struct SchemaAnnotations {
    is_any: bool,
    is_nullable: bool,
    default: Option<(StarValue, Span)>,
    validation: Option<Validation>,
    /// `@schema/validation-defaults-for-strings` (seed design).
    string_defaults: Option<Validation>,
    docs: TypeDocs,
}

impl SchemaAnnotations {
    fn read(
        builder: &mut SchemaBuilder<'_>,
        comments: &[Comment],
        owner: Span,
        scope: Scope,
    ) -> Option<SchemaAnnotations> {
        let mut found = SchemaAnnotations {
            is_any: false,
            is_nullable: false,
            default: None,
            validation: None,
            string_defaults: None,
            docs: TypeDocs::default(),
        };
        for comment in comments {
            let crate::yaml::CommentKind::Annotation { name, args } = &comment.kind else {
                continue;
            };
            let Some(short) = name.strip_prefix("schema/") else {
                continue;
            };
            if !SCHEMA_ANNOTATIONS.contains(&short) {
                // ytt ignores unknown @schema/ annotations silently: most are typos.
                let known: Vec<String> = SCHEMA_ANNOTATIONS.iter().map(|a| a.to_string()).collect();
                let mut finding = Finding::new(
                    "ytt/unknown-annotation",
                    Kind::Compat,
                    comment.span,
                    format!("@{name} is not a schema annotation; ytt ignores it"),
                );
                if let Some(near) = crate::suggest::did_you_mean(short, &known) {
                    finding = finding.with_help(format!("did you mean @schema/{near}?"));
                }
                builder.findings.push(finding);
                continue;
            }
            if scope.in_any && short != "validation" {
                builder.error(
                    owner,
                    format!("Invalid schema - Schema was specified within an \"any type\" fragment: @schema/{short} on a value below @schema/type any=True"),
                );
                return None;
            }
            let call = match builder.code.eval_args(args, comment.span.file) {
                Ok(call) => call,
                Err(err) => {
                    let kind = if err.is_syntax {
                        Kind::Syntax
                    } else {
                        Kind::Reference
                    };
                    let rule = if err.is_syntax {
                        "ytt/starlark-syntax"
                    } else {
                        "ytt/undefined"
                    };
                    builder.findings.push(Finding::new(
                        rule,
                        kind,
                        // ytt reports a syntax error where the parser notices
                        // it: inside the arguments at the annotation, at
                        // their end (an unclosed bracket) at the node.
                        if err.is_syntax && err.offset.is_none_or(|o| o >= args.trim_end().len()) {
                            owner
                        } else {
                            comment.span
                        },
                        format!("@{name}: {}", err.message),
                    ));
                    return None;
                }
            };
            match short {
                "type" => found.is_any = read_type_annotation(builder, &call, owner)?,
                "nullable" => {
                    if !call.named.is_empty() || !call.positional.is_empty() {
                        builder.error(owner, "Invalid schema - expected @schema/nullable annotation to not contain any keyword arguments".into());
                        return None;
                    }
                    found.is_nullable = true;
                }
                "default" => {
                    if scope.is_array_item {
                        builder.error(owner, "Invalid schema - @schema/default not supported on array item: annotate the array instead".into());
                        return None;
                    }
                    if call.positional.len() != 1 || !call.named.is_empty() {
                        builder.error(
                            owner,
                            format!("Invalid schema - syntax error in @schema/default annotation: expected one value, found {} positional and {} keyword arguments", call.positional.len(), call.named.len()),
                        );
                        return None;
                    }
                    found.default = Some((call.positional[0].clone(), comment.span));
                }
                "validation" | "validation-defaults-for-strings" => {
                    match parse_validation(&call, comment, "schema/validation") {
                        Ok(v) => {
                            for note in &v.compat {
                                builder.compat(comment.span, note.clone());
                            }
                            if short == "validation" {
                                found.validation = Some(v);
                            } else {
                                builder.compat(
                                    comment.span,
                                    "@schema/validation-defaults-for-strings is confvet's; ytt ignores it".into(),
                                );
                                found.string_defaults = Some(v);
                            }
                        }
                        Err(message) => {
                            builder.rule_error(comment.span, message);
                            return None;
                        }
                    }
                }
                "removed" => match single_string(&call) {
                    Some(text) => {
                        builder.compat(
                            comment.span,
                            "@schema/removed is confvet's; ytt ignores it".into(),
                        );
                        found.docs.removed = Some(text);
                    }
                    None => {
                        builder.error(owner, "Invalid schema - syntax error in @schema/removed annotation: expected a string notice".into());
                        return None;
                    }
                },
                "desc" | "title" => {
                    let text = single_string(&call);
                    match text {
                        Some(text) => {
                            if short == "desc" {
                                found.docs.description = Some(text);
                            } else {
                                found.docs.title = Some(text);
                            }
                        }
                        None => {
                            builder.error(owner, format!("Invalid schema - syntax error in @schema/{short} annotation: expected exactly one string argument"));
                            return None;
                        }
                    }
                }
                "deprecated" => {
                    if scope.is_document {
                        builder.error(
                            owner,
                            "Invalid schema - @schema/deprecated not supported on a document"
                                .into(),
                        );
                        return None;
                    }
                    match single_string(&call) {
                        Some(text) => found.docs.deprecated = Some(text),
                        None => {
                            builder.error(owner, "Invalid schema - syntax error in @schema/deprecated annotation: expected a string notice".into());
                            return None;
                        }
                    }
                }
                "examples" => {
                    if !call.named.is_empty() || call.positional.is_empty() {
                        builder.error(owner, "Invalid schema - syntax error in @schema/examples annotation: expected one or more (description, value) tuples".into());
                        return None;
                    }
                    for example in &call.positional {
                        match example {
                            StarValue::Tuple(items) if items.len() == 2 => {
                                let StarValue::Str(desc) = &items[0] else {
                                    builder.error(owner, format!("Invalid schema - @schema/examples has wrong type: expected the first item of an example to be a string description, but was {}", items[0].type_name()));
                                    return None;
                                };
                                found.docs.examples.push((desc.clone(), items[1].clone()));
                            }
                            StarValue::Tuple(items) => {
                                builder.error(owner, format!("Invalid schema - syntax error in @schema/examples annotation: expected 2-tuple (description, value), but found tuple with length {}", items.len()));
                                return None;
                            }
                            other => {
                                builder.error(owner, format!("Invalid schema - syntax error in @schema/examples annotation: expected 2-tuple (description, value), but found {}", other.type_name()));
                                return None;
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        Some(found)
    }
}

fn read_type_annotation(
    builder: &mut SchemaBuilder<'_>,
    call: &CallArgs,
    owner: Span,
) -> Option<bool> {
    if call.named.is_empty() {
        builder.error(owner, "Invalid schema - expected @schema/type annotation to have keyword argument and value (any=True)".into());
        return None;
    }
    let mut is_any = false;
    for (key, value) in &call.named {
        if key != "any" {
            builder.error(owner, format!("Invalid schema - unknown @schema/type annotation keyword argument \"{key}\" (only any= is supported)"));
            return None;
        }
        match value {
            StarValue::Bool(b) => is_any = *b,
            other => {
                builder.error(owner, format!("Invalid schema - expected @schema/type keyword argument any= to be a boolean, but was {}", other.type_name()));
                return None;
            }
        }
    }
    Some(is_any)
}

fn single_string(call: &CallArgs) -> Option<String> {
    match (call.positional.as_slice(), call.named.is_empty()) {
        ([StarValue::Str(text)], true) => Some(text.clone()),
        _ => None,
    }
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

pub fn null_node(span: Span) -> Node {
    Node {
        span,
        value: Value::Scalar(Scalar {
            text: String::new(),
            style: ScalarStyle::Plain,
            tag: None,
            resolved: ScalarValue::Null,
        }),
    }
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
fn default_of(kind: &TypeKind, node: &Node) -> Node {
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
