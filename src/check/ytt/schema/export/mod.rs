//! Schema export: a package's types, defaults, documentation and rules in
//! the formats other tools read.
//!
//! - `openapi.rs`: ytt's OpenAPI v3 document (`--data-values-schema-inspect
//!   -o openapi-v3`, pkg/schema/openapi.go) byte for byte, plus the rules;
//! - `json_schema.rs`: JSON Schema 2020-12 of a data-values file, for
//!   editors (yaml-language-server);
//! - `markdown.rs`: a reference table of every data value.
//!
//! Rules map to keywords here, once, for every format (the seed's mapping):
//! what a keyword cannot say exactly (`when=`, custom Starlark, named rules
//! without a keyword) is listed as a [`DocumentedRule`], never dropped.

pub mod json_schema;
pub mod markdown;
pub mod openapi;

use super::super::rule::{NamedRule, Validation};
use super::super::starlark::StarValue;
use super::{SchemaType, TypeKind};
use crate::source::Sources;
use serde_json::{Value as J, json};

/// The keywords a type's rules export as, in the order they are written.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct RuleKeywords {
    /// `(keyword, value)`: `minimum`, `maxLength`, `enum`, ...
    pub keywords: Vec<(&'static str, J)>,
    /// `not_null=True`: the value may not be null, whatever the schema says.
    pub not_null: bool,
    /// Rules no keyword says exactly.
    pub documented: Vec<DocumentedRule>,
}

/// A rule listed under `x-ytt-validations`: what it checks and where it is.
#[derive(Debug, Clone, PartialEq)]
pub struct DocumentedRule {
    /// The rule as written (`starts_with="db-"`) or its description.
    pub rule: String,
    /// Set when the rules apply only when the `when=` predicate holds.
    pub when: bool,
    /// `file:line` of the annotation.
    pub source: String,
}

impl DocumentedRule {
    pub fn to_json(&self) -> J {
        let mut entry = json!({"rule": self.rule, "source": self.source});
        if self.when {
            entry["when"] = J::Bool(true);
        }
        entry
    }
}

/// The keywords of the rules on `ty` (none without rules). A rule with
/// `when=` exports no keyword: it does not always apply.
pub fn rule_keywords(ty: &SchemaType, sources: &Sources) -> RuleKeywords {
    let mut out = RuleKeywords::default();
    let Some(validation) = &ty.validation else {
        return out;
    };
    let source = {
        let file = sources.get(validation.span.file);
        let line = file.line_col(validation.span.start as usize).line;
        format!("{}:{line}", file.name)
    };
    let when = validation.when.is_some() || validation.has_when;
    let document = |out: &mut RuleKeywords, rule: String| {
        out.documented.push(DocumentedRule {
            rule,
            when,
            source: source.clone(),
        })
    };
    if validation.not_null {
        if when {
            document(&mut out, "not_null=True".into());
        } else {
            out.not_null = true;
        }
    }
    for spec in &validation.named {
        let keywords = if when {
            Vec::new()
        } else {
            named_keywords(&spec.rule, &ty.kind)
        };
        if keywords.is_empty() {
            let written = spec.rule.written();
            let rule = match &spec.description {
                Some(description) => format!("{written} ({description})"),
                None => written,
            };
            document(&mut out, rule);
        }
        out.keywords.extend(keywords);
    }
    for custom in &validation.custom {
        document(&mut out, custom.description.clone());
    }
    out
}

/// The keywords one named rule is exactly, on a value of `kind`.
fn named_keywords(rule: &NamedRule, kind: &TypeKind) -> Vec<(&'static str, J)> {
    let is_number = matches!(kind, TypeKind::Int | TypeKind::Float);
    const STRING: (&str, &str) = ("minLength", "maxLength");
    const ARRAY: (&str, &str) = ("minItems", "maxItems");
    const MAP: (&str, &str) = ("minProperties", "maxProperties");
    let lengths: &[(&'static str, &'static str)] = match kind {
        TypeKind::String => &[STRING],
        TypeKind::Array(_) => &[ARRAY],
        TypeKind::Map(_) => &[MAP],
        // Each length keyword applies to its own type only: an any-typed
        // value takes all three.
        TypeKind::Any => &[STRING, ARRAY, MAP],
        _ => &[],
    };
    // The length keywords of `lengths` for a bound `n`: minimums, maximums
    // or both.
    let bounds = |n: i64, min: bool, max: bool| {
        let keywords: Vec<(&'static str, J)> = lengths
            .iter()
            .flat_map(|(low, high)| [(min, *low), (max, *high)])
            .filter(|(wanted, _)| *wanted)
            .map(|(_, keyword)| (keyword, J::from(n)))
            .collect();
        (!keywords.is_empty()).then_some(keywords)
    };
    match rule {
        NamedRule::Min(bound) if is_number => number(bound).map(|n| vec![("minimum", n)]),
        NamedRule::Max(bound) if is_number => number(bound).map(|n| vec![("maximum", n)]),
        NamedRule::MultipleOf(step) if is_number => number(step).map(|n| vec![("multipleOf", n)]),
        NamedRule::MinLen(n) => bounds(*n, true, false),
        NamedRule::MaxLen(n) => bounds(*n, false, true),
        NamedRule::Len(n) => bounds(*n, true, true),
        NamedRule::OneOf(StarValue::List(items) | StarValue::Tuple(items)) => items
            .iter()
            .map(star_json)
            .collect::<Option<Vec<J>>>()
            .map(|values| vec![("enum", J::Array(values))]),
        NamedRule::Format(name) if matches!(kind, TypeKind::String) => {
            Some(vec![("format", J::String(name.clone()))])
        }
        _ => None,
    }
    .unwrap_or_default()
}

fn number(value: &StarValue) -> Option<J> {
    match value {
        StarValue::Int(i) => Some(J::from(*i)),
        StarValue::Float(f) => serde_json::Number::from_f64(*f).map(J::Number),
        _ => None,
    }
}

/// A Starlark value as JSON data; None for what is not data.
pub fn star_json(value: &StarValue) -> Option<J> {
    Some(match value {
        StarValue::None => J::Null,
        StarValue::Bool(b) => J::Bool(*b),
        StarValue::Str(s) => J::String(s.clone()),
        StarValue::List(items) | StarValue::Tuple(items) => {
            J::Array(items.iter().map(star_json).collect::<Option<Vec<J>>>()?)
        }
        StarValue::Dict(items) => J::Object(
            items
                .iter()
                .map(|(k, v)| match k {
                    StarValue::Str(key) => Some((key.clone(), star_json(v)?)),
                    _ => None,
                })
                .collect::<Option<serde_json::Map<String, J>>>()?,
        ),
        _ => return number(value),
    })
}

impl RuleKeywords {
    /// Whether `value` breaks one of the keywords: a default that does is
    /// ytt's way to require a value (`min_len=1` on an empty default), and
    /// an export with rules leaves such a default out, since OpenAPI wants
    /// a default to fit its schema.
    pub fn rejects(&self, value: &J) -> bool {
        if value.is_null() {
            return false;
        }
        // A length keyword applies to its own type only.
        let (length, min_length, max_length) = match value {
            J::String(s) => (Some(s.chars().count() as f64), "minLength", "maxLength"),
            J::Array(items) => (Some(items.len() as f64), "minItems", "maxItems"),
            J::Object(map) => (Some(map.len() as f64), "minProperties", "maxProperties"),
            _ => (None, "", ""),
        };
        let number = value.as_f64();
        self.keywords.iter().any(|(keyword, bound)| {
            let bound_number = bound.as_f64();
            match (*keyword, number, length, bound_number) {
                ("minimum", Some(n), _, Some(b)) => n < b,
                ("maximum", Some(n), _, Some(b)) => n > b,
                ("multipleOf", Some(n), _, Some(b)) if b != 0.0 => (n / b).fract() != 0.0,
                (keyword, _, Some(len), Some(b)) if keyword == min_length => len < b,
                (keyword, _, Some(len), Some(b)) if keyword == max_length => len > b,
                ("enum", ..) => bound
                    .as_array()
                    .is_some_and(|options| !options.contains(value)),
                _ => false,
            }
        })
    }
}

/// Whether `validation` carries a rule of any kind.
pub fn has_rules(validation: &Validation) -> bool {
    validation.not_null || !validation.named.is_empty() || !validation.custom.is_empty()
}
