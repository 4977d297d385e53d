//! Walk one YAML document against a Kubernetes schema and say where it
//! breaks it, as `kubectl --validate=strict` (the API server's strict
//! decoding and validation) would: unknown fields, types, enums, required
//! fields, formats and bounds. Scalars are typed as go-yaml v2 resolves them
//! (what `kubectl` reads), and every violation keeps the span of its node.
//! Where the server's verdict is not certain, nothing is reported.

use super::formats::{QUANTITY_PATTERN, QuantityReading, base64_error, quantity_problem};
use super::schema::{AdditionalProperties, Schema, SchemaSet, Type};
use crate::source::Span;
use crate::yaml::{MapItem, Node, ScalarValue, Value};

/// What kind of rule a document breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ViolationClass {
    /// A field the schema does not declare (strict decoding).
    UnknownField,
    /// A value of the wrong type (`replicas: "2"`).
    Type,
    /// A value outside the schema's `enum`.
    Enum,
    /// A required field missing from its map.
    Required,
    /// A string that is not of its format (quantity, base64), or a value
    /// out of its bounds (integer width, minimum, length, pattern).
    Format,
}

/// One place where a document breaks its schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    /// The offending node: the key of an unknown field, the map that lacks
    /// a required one, else the value.
    pub span: Span,
    /// Where in the document: `spec.template.spec.containers[0].image`.
    pub path: String,
    pub class: ViolationClass,
    /// What is wrong, in the words of kubectl and kubeconform.
    pub message: String,
    /// For an unknown field, the declared field it is closest to.
    pub did_you_mean: Option<String>,
    /// The text the schema evidently wants instead of what is written: the
    /// only declared field within two edits of an unknown one, the only
    /// allowed value equal to the given one but for case.
    pub replacement: Option<Replacement>,
}

/// A key or value to write in place of another (a fix, when the node's
/// span shows the written text as it is).
#[derive(Debug, Clone, PartialEq)]
pub struct Replacement {
    pub written: String,
    pub declared: String,
}

/// Check `node` against definition `root` of `set`.
pub fn validate_against(node: &Node, set: &SchemaSet, root: u32) -> Vec<Violation> {
    let mut walk = Walk {
        set,
        violations: Vec::new(),
    };
    let schema = set.definition(root);
    walk.node(node, schema, &mut String::new());
    walk.violations
}

struct Walk<'a> {
    set: &'a SchemaSet,
    violations: Vec<Violation>,
}

impl<'a> Walk<'a> {
    fn report(&mut self, span: Span, path: &str, class: ViolationClass, message: String) {
        self.violations.push(Violation {
            span,
            path: path.to_string(),
            class,
            message,
            did_you_mean: None,
            replacement: None,
        });
    }

    /// Follow references to the schema that says something.
    fn resolve(&self, mut schema: &'a Schema) -> &'a Schema {
        // A cycle of bare references would be a broken file; give up after
        // a few hops rather than loop.
        for _ in 0..16 {
            match schema.reference {
                Some(index) => schema = self.set.definition(index),
                None => break,
            }
        }
        schema
    }

    fn node(&mut self, node: &Node, schema: &'a Schema, path: &mut String) {
        let schema = self.resolve(schema);
        if let Value::Scalar(scalar) = &node.value
            && let ScalarValue::Str(text) = &scalar.resolved
            && (text.is_empty() || holds_placeholder(text))
        {
            // A later tool (clusterctl, envsubst, Flux, Tekton) puts the
            // real value there, and an empty string is what a ytt package
            // renders where its consumer gives the value: what it will be
            // is unknown here.
            return;
        }
        if let Value::Scalar(scalar) = &node.value
            && scalar.resolved == ScalarValue::Null
        {
            if !(self.set.null_is_zero || schema.nullable || schema.kind.is_none()) {
                let expected = schema.kind.map_or("a value", Type::name);
                self.report(
                    node.span,
                    path,
                    ViolationClass::Type,
                    format!("expected {expected}, got null"),
                );
            }
            return;
        }
        if schema.int_or_string {
            self.int_or_string(node, schema, path);
        } else if schema.format.as_deref() == Some("quantity") {
            self.quantity(node, path);
        } else {
            match (&node.value, schema.kind) {
                (Value::Map(items), Some(Type::Object) | None) if is_object(schema) => {
                    self.object(node, items, schema, path)
                }
                (Value::Array(items), Some(Type::Array)) => self.array(node, items, schema, path),
                (Value::Array(items), None) if schema.items.is_some() => {
                    self.array(node, items, schema, path)
                }
                (_, None) => {}
                (Value::Scalar(scalar), Some(expected)) => {
                    self.scalar(node, &scalar.resolved, expected, schema, path)
                }
                (_, Some(expected)) => self.wrong_type(node, expected.name(), path),
            }
        }
    }

    fn wrong_type(&mut self, node: &Node, expected: &str, path: &str) {
        let got = match &node.value {
            Value::Map(_) => "object".to_string(),
            Value::Array(_) => "array".to_string(),
            Value::Scalar(scalar) => describe(&scalar.resolved),
        };
        self.report(
            node.span,
            path,
            ViolationClass::Type,
            format!("expected {expected}, got {got}"),
        );
    }

    /// An integer or a string, the string held to the schema's string
    /// constraints: a custom resource's int-or-string keeps its `pattern`
    /// (controller-gen's quantity pattern on every `resource.Quantity`).
    fn int_or_string(&mut self, node: &Node, schema: &Schema, path: &str) {
        match &node.value {
            Value::Scalar(scalar) => match &scalar.resolved {
                ScalarValue::Int(_) => {}
                ScalarValue::Str(text) => {
                    for problem in string_problems(text, schema) {
                        self.report(node.span, path, ViolationClass::Format, problem);
                    }
                }
                ScalarValue::Float(f) if f.fract() == 0.0 => {}
                _ => self.wrong_type(node, "integer or string", path),
            },
            _ => self.wrong_type(node, "integer or string", path),
        }
    }

    fn quantity(&mut self, node: &Node, path: &str) {
        // A built-in kind's quantity is decoded by apimachinery; a custom
        // resource's is matched against controller-gen's pattern.
        let reading = if self.set.structural {
            QuantityReading::Pattern
        } else {
            QuantityReading::Decoded
        };
        match &node.value {
            Value::Scalar(scalar) => match &scalar.resolved {
                ScalarValue::Int(_) | ScalarValue::Float(_) => {}
                ScalarValue::Str(text) => {
                    if let Some(why) = quantity_problem(text, reading) {
                        self.report(
                            node.span,
                            path,
                            ViolationClass::Format,
                            format!("{text:?} is not a quantity: {why}"),
                        );
                    }
                }
                _ => self.wrong_type(node, "quantity (string or number)", path),
            },
            _ => self.wrong_type(node, "quantity (string or number)", path),
        }
    }

    fn object(&mut self, node: &Node, items: &[MapItem], schema: &'a Schema, path: &mut String) {
        // A custom resource's top level is a resource whatever its schema
        // says (the API server prunes it as one).
        let resource = schema.embedded_resource || (self.set.structural && path.is_empty());
        for name in &schema.required {
            if !items.iter().any(|item| item.key.text == *name) {
                self.report(
                    node.span,
                    path,
                    ViolationClass::Required,
                    format!("missing required field {name:?}"),
                );
            }
        }
        let extra = match &schema.additional_properties {
            Some(AdditionalProperties::Schema(extra)) => Some(Some(extra.as_ref())),
            Some(AdditionalProperties::Allowed(true)) => Some(None),
            Some(AdditionalProperties::Allowed(false)) => None,
            None if schema.preserve_unknown_fields => Some(None),
            // No properties and no additionalProperties: a built-in kind's
            // free-form object (RawExtension, FieldsV1); a custom
            // resource's structural schema keeps no field there, and the
            // API server prunes them (refuses them, under strict field
            // validation).
            None if schema.properties.is_none() && !self.set.structural => Some(None),
            None => None,
        };
        for item in items {
            let name = item.key.text.as_str();
            let declared = schema.properties.as_ref().and_then(|p| p.get(name));
            let length = path.len();
            match (declared, extra) {
                (Some(field), _) if resource && is_resource_field(name) => {
                    // Pruning passes over an embedded resource's type and
                    // object meta (the server reads `metadata` as
                    // ObjectMeta, whatever the schema declares).
                    push_field(path, name);
                    let before = self.violations.len();
                    self.node(&item.value, field, path);
                    self.keep_known_fields_from(before);
                }
                (Some(field), _) => {
                    push_field(path, name);
                    self.node(&item.value, field, path);
                }
                (None, Some(Some(values))) => {
                    push_key(path, name);
                    self.node(&item.value, values, path);
                }
                (None, Some(None)) => {}
                (None, None) if resource && is_resource_field(name) => {}
                (None, None) => {
                    push_field(path, name);
                    self.unknown_field(item, schema, path);
                }
            }
            path.truncate(length);
        }
        self.bounds(node, schema, path);
    }

    fn unknown_field(&mut self, item: &MapItem, schema: &Schema, path: &str) {
        let declared: Vec<String> = schema
            .properties
            .iter()
            .flat_map(|p| p.keys().cloned())
            .collect();
        let did_you_mean = crate::suggest::did_you_mean(&item.key.text, &declared);
        let replacement = crate::suggest::only_within(&item.key.text, &declared, 2)
            .filter(|only| did_you_mean.as_ref() == Some(*only))
            .filter(|only| {
                let field = schema
                    .properties
                    .as_ref()
                    .and_then(|p| p.get(only.as_str()));
                field.is_some_and(|field| self.fits(&item.value, field, path))
            })
            .map(|only| Replacement {
                written: item.key.text.clone(),
                declared: only.clone(),
            });
        self.violations.push(Violation {
            span: item.key_span,
            path: path.to_string(),
            class: ViolationClass::UnknownField,
            message: format!("unknown field {:?}", item.key.text),
            did_you_mean,
            replacement,
        });
    }

    /// Whether `node` has the shape of `field` (a map for an object, a list
    /// for an array, a scalar of its type): a key renamed to a field of
    /// another shape (`cidrBlock: ""` to `cidrBlocks`, a list) was meant
    /// for another version of the schema, not misspelt.
    fn fits(&self, node: &Node, field: &'a Schema, path: &str) -> bool {
        let field = self.resolve(field);
        let shaped = match (&node.value, field.kind) {
            (_, None) => true,
            (Value::Map(_), Some(Type::Object)) => true,
            (Value::Array(_), Some(Type::Array)) => true,
            (Value::Scalar(_), Some(Type::Object | Type::Array)) => false,
            (Value::Scalar(_), _) => true,
            _ => false,
        };
        let mut walk = Walk {
            set: self.set,
            violations: Vec::new(),
        };
        walk.node(node, field, &mut path.to_string());
        shaped
            && !walk
                .violations
                .iter()
                .any(|v| v.class == ViolationClass::Type && v.span == node.span)
    }

    fn array(
        &mut self,
        node: &Node,
        items: &[crate::yaml::ArrayItem],
        schema: &'a Schema,
        path: &mut String,
    ) {
        if let Some(each) = &schema.items {
            let before = self.violations.len();
            for (index, item) in items.iter().enumerate() {
                let length = path.len();
                path.push_str(&format!("[{index}]"));
                self.node(&item.value, each, path);
                path.truncate(length);
            }
            if schema.preserve_unknown_fields {
                // The items of a list that keeps unknown fields keep
                // theirs too (the API server's pruning skips them).
                self.keep_known_fields_from(before);
            }
        }
        self.bounds(node, schema, path);
    }

    /// Drop the unknown fields found since violation `from`.
    fn keep_known_fields_from(&mut self, from: usize) {
        let mut at = 0;
        self.violations.retain(|violation| {
            at += 1;
            at <= from || violation.class != ViolationClass::UnknownField
        });
    }

    /// `minItems`/`maxItems`, `minProperties`/`maxProperties`.
    fn bounds(&mut self, node: &Node, schema: &Schema, path: &str) {
        let (count, what, min, max) = match &node.value {
            Value::Map(items) => (
                items.len(),
                "properties",
                schema.min_properties,
                schema.max_properties,
            ),
            Value::Array(items) => (items.len(), "items", schema.min_items, schema.max_items),
            Value::Scalar(_) => return,
        };
        let count = count as u64;
        if let Some(min) = min.filter(|min| count < *min) {
            let message = format!("must have at least {min} {what}, has {count}");
            self.report(node.span, path, ViolationClass::Format, message);
        }
        if let Some(max) = max.filter(|max| count > *max) {
            let message = format!("must have at most {max} {what}, has {count}");
            self.report(node.span, path, ViolationClass::Format, message);
        }
    }

    fn scalar(
        &mut self,
        node: &Node,
        value: &ScalarValue,
        expected: Type,
        schema: &Schema,
        path: &str,
    ) {
        let typed = match (expected, value) {
            (Type::String, ScalarValue::Str(_)) | (Type::Boolean, ScalarValue::Bool(_)) => true,
            (Type::Integer, ScalarValue::Int(_)) | (Type::Number, ScalarValue::Int(_)) => true,
            // YAML `1.0` reaches the server as the JSON number 1.
            (Type::Integer, ScalarValue::Float(f)) => f.fract() == 0.0,
            (Type::Number, ScalarValue::Float(f)) => f.is_finite(),
            _ => false,
        };
        if !typed {
            return self.wrong_type(node, expected.name(), path);
        }
        if let Some(allowed) = &schema.allowed
            && !allowed.iter().any(|a| same_value(a, value))
        {
            // `""` is allowed (it reads as unset) but is no value to offer.
            let supported: Vec<String> = allowed
                .iter()
                .filter(|a| a.as_str() != Some(""))
                .map(|a| a.to_string())
                .collect();
            let message = format!(
                "unsupported value {}: supported values: {}",
                json_text(value),
                supported.join(", ")
            );
            self.report(node.span, path, ViolationClass::Enum, message);
            if let ScalarValue::Str(text) = value {
                let offered: Vec<String> = allowed
                    .iter()
                    .filter_map(|a| a.as_str())
                    .filter(|a| !a.is_empty())
                    .map(str::to_string)
                    .collect();
                let mut same_but_case = offered.iter().filter(|a| a.eq_ignore_ascii_case(text));
                let replacement = match (same_but_case.next(), same_but_case.next()) {
                    (Some(only), None) => Some(Replacement {
                        written: text.clone(),
                        declared: only.clone(),
                    }),
                    _ => None,
                };
                if let Some(violation) = self.violations.last_mut() {
                    violation.did_you_mean = crate::suggest::did_you_mean(text, &offered);
                    violation.replacement = replacement;
                }
            }
            return;
        }
        let problems = match value {
            ScalarValue::Str(text) => string_problems(text, schema),
            ScalarValue::Int(n) => (number_problem(*n as f64, schema).into_iter())
                .chain(width_problem(*n, schema))
                .collect(),
            ScalarValue::Float(f) => number_problem(*f, schema).into_iter().collect(),
            _ => Vec::new(),
        };
        for message in problems {
            self.report(node.span, path, ViolationClass::Format, message);
        }
    }
}

/// Whether a map can be checked against `schema` as an object: it says
/// `type: object`, or has properties without saying.
fn is_object(schema: &Schema) -> bool {
    schema.kind == Some(Type::Object)
        || schema.properties.is_some()
        || schema.additional_properties.is_some()
}

/// Whether a string holds a placeholder that a tool after the render
/// substitutes: `${VAR}` (clusterctl, envsubst, Flux) or `$(params.x)`
/// (Tekton, Kubernetes' own `$(VAR)` in commands and env).
pub fn holds_placeholder(text: &str) -> bool {
    text.contains("${") || text.contains("$(")
}

/// The fields every embedded resource has beside its schema's own.
fn is_resource_field(name: &str) -> bool {
    matches!(name, "apiVersion" | "kind" | "metadata")
}

/// `.name` after a path, or `name` at its start.
fn push_field(path: &mut String, name: &str) {
    if !path.is_empty() {
        path.push('.');
    }
    path.push_str(name);
}

/// A key of a map of values (labels, data): `[app.kubernetes.io/name]`, as
/// Kubernetes field paths write them.
fn push_key(path: &mut String, key: &str) {
    path.push('[');
    path.push_str(key);
    path.push(']');
}

/// A scalar as messages show it: its type, and its value when short.
fn describe(value: &ScalarValue) -> String {
    match value {
        ScalarValue::Null => "null".to_string(),
        ScalarValue::Str(text) if text.chars().count() <= 40 => format!("string {text:?}"),
        other => format!("{} {}", other.type_name(), json_text(other)),
    }
}

fn json_text(value: &ScalarValue) -> String {
    match value {
        ScalarValue::Null => "null".to_string(),
        ScalarValue::Bool(b) => b.to_string(),
        ScalarValue::Int(n) => n.to_string(),
        ScalarValue::Float(f) => f.to_string(),
        ScalarValue::Str(text) => {
            let shown: String = text.chars().take(40).collect();
            let ellipsis = if shown.len() < text.len() { "…" } else { "" };
            format!("{shown:?}{ellipsis}")
        }
    }
}

fn same_value(allowed: &serde_json::Value, value: &ScalarValue) -> bool {
    match (allowed, value) {
        (serde_json::Value::String(a), ScalarValue::Str(v)) => a == v,
        (serde_json::Value::Bool(a), ScalarValue::Bool(v)) => a == v,
        (serde_json::Value::Number(a), ScalarValue::Int(v)) => a.as_f64() == Some(*v as f64),
        (serde_json::Value::Number(a), ScalarValue::Float(v)) => a.as_f64() == Some(*v),
        _ => false,
    }
}

/// Every string constraint `text` breaks, as the API server lists them
/// all.
fn string_problems(text: &str, schema: &Schema) -> Vec<String> {
    let mut problems = Vec::new();
    let length = text.chars().count() as u64;
    if let Some(max) = schema.max_length.filter(|max| length > *max) {
        problems.push(format!(
            "must be no more than {max} characters, is {length}"
        ));
    }
    if let Some(min) = schema.min_length.filter(|min| length < *min) {
        problems.push(format!("must be at least {min} characters, is {length}"));
    }
    if let Some(pattern) = &schema.pattern
        && let Some(regex) = pattern.regex()
        && !regex.is_match(text)
    {
        // controller-gen's quantity pattern says little to a reader: say
        // what makes the text no quantity.
        let why = (pattern.source == QUANTITY_PATTERN)
            .then(|| quantity_problem(text, QuantityReading::Pattern))
            .flatten();
        problems.push(match why {
            Some(why) => format!("{text:?} is not a quantity: {why}"),
            None => format!("does not match the pattern {:?}", pattern.source),
        });
    }
    if schema.format.as_deref() == Some("byte")
        && let Some(at) = base64_error(text)
    {
        problems.push(format!("illegal base64 data at input byte {at}"));
    }
    problems
}

fn number_problem(n: f64, schema: &Schema) -> Option<String> {
    use std::cmp::Ordering;
    let bounds = [
        (
            schema.minimum,
            schema.exclusive_minimum,
            "greater than",
            Ordering::Less,
        ),
        (
            schema.maximum,
            schema.exclusive_maximum,
            "less than",
            Ordering::Greater,
        ),
    ];
    bounds
        .into_iter()
        .find_map(|(bound, exclusive, than, beyond)| {
            let bound = bound?;
            let order = n.partial_cmp(&bound)?;
            let equal = if exclusive { "" } else { " or equal to" };
            (order == beyond || (exclusive && order == Ordering::Equal))
                .then(|| format!("must be {than}{equal} {bound}"))
        })
}

/// An integer too wide for its Go field (`format: int32`).
fn width_problem(n: i64, schema: &Schema) -> Option<String> {
    (schema.format.as_deref() == Some("int32") && i32::try_from(n).is_err())
        .then(|| format!("{n} overflows int32"))
}
