//! What the navigator says about one data value: its schema type as ytt
//! names it, default, description and validations, and its final value
//! with the file that set it.

use super::super::schema::{SchemaType, TypeKind};
use crate::source::Sources;
use crate::yaml::{Node, Value};
use std::path::Path;

/// The final value is cut to this many characters.
const VALUE_WIDTH: usize = 60;

/// The path segment of an array's items (`a[]`), as the navigator keys
/// its facts.
pub(super) const ITEMS: &str = "[]";

/// The final value at `path`, with the node of its key (what set it last).
fn value_at<'a>(values: &'a Node, path: &[String]) -> Option<(&'a Node, crate::source::Span)> {
    let mut node = values;
    let mut key_span = None;
    for part in path {
        let Value::Map(items) = &node.value else {
            return None;
        };
        let item = items.iter().rev().find(|i| i.key.text == *part)?;
        key_span = Some(item.key_span);
        node = &item.value;
    }
    Some((node, key_span?))
}

/// Where a data-values file wrote a value that replaced the schema's
/// default whole: the node itself, or an array's first item.
fn set_whole(
    node: &Node,
    in_schema: &dyn Fn(crate::source::Span) -> bool,
) -> Option<crate::source::Span> {
    if !in_schema(node.span) {
        return Some(node.span);
    }
    match &node.value {
        Value::Array(items) => items.iter().map(|i| i.span).find(|s| !in_schema(*s)),
        _ => None,
    }
}

/// Where a data-values file first changed a map the schema's default
/// gave: a key it added or a value it set, in the map's order.
fn first_change(
    node: &Node,
    in_schema: &dyn Fn(crate::source::Span) -> bool,
) -> Option<crate::source::Span> {
    let Value::Map(items) = &node.value else {
        return None;
    };
    items.iter().find_map(|item| {
        if !in_schema(item.key_span) {
            Some(item.key_span)
        } else {
            set_whole(&item.value, in_schema).or_else(|| first_change(&item.value, in_schema))
        }
    })
}

/// The type as ytt names it: `string`, `int`, `array of string`,
/// `nullable map`.
pub(super) fn type_name(ty: &SchemaType) -> String {
    let name = match &ty.kind {
        TypeKind::Any => "any".to_string(),
        TypeKind::String => "string".to_string(),
        TypeKind::Int => "int".to_string(),
        TypeKind::Float => "float".to_string(),
        TypeKind::Bool => "bool".to_string(),
        TypeKind::Map(_) => "map".to_string(),
        TypeKind::Array(item) => format!("array of {}", type_name(item)),
    };
    if ty.is_nullable && !matches!(ty.kind, TypeKind::Any) {
        format!("nullable {name}")
    } else {
        name
    }
}

/// A node on one line, cut short.
fn one_line(node: &Node) -> String {
    let json = crate::yaml::emit::to_json(node).to_string();
    if json.chars().count() <= VALUE_WIDTH {
        return json;
    }
    let cut: String = json.chars().take(VALUE_WIDTH - 1).collect();
    format!("{cut}…")
}

/// The text of a validation annotation's arguments as written.
fn validation_text(ty: &SchemaType, sources: &Sources) -> Option<String> {
    let validation = ty.validation.as_ref()?;
    let source = sources.get(validation.span.file);
    let written = source.text.get(validation.span.range())?;
    let args = written
        .trim_start_matches('#')
        .trim_start_matches('@')
        .trim_start()
        .strip_prefix(validation.annotation)
        .unwrap_or(written);
    Some(args.trim().to_string())
}

/// Where the package's files are named from, and which set values.
pub(super) struct Origins<'a> {
    pub sources: &'a Sources,
    pub root: &'a Path,
    /// Whether a place is in a schema document.
    pub in_schema: &'a dyn Fn(crate::source::Span) -> bool,
}

/// The hover text of the data value at `path`.
pub(super) fn markdown(
    path: &[String],
    ty: &SchemaType,
    values: Option<&Node>,
    origins: &Origins,
) -> String {
    let shown = path.join(".").replace(".[]", "[]");
    let mut out = format!("```\ndata.values.{shown}: {}\n```\n", type_name(ty));
    if let Some(title) = &ty.docs.title {
        out.push_str(&format!("\n**{title}**\n"));
    }
    if let Some(description) = &ty.docs.description {
        out.push_str(&format!("\n{description}\n"));
    }
    let mut facts = Vec::new();
    if !matches!(ty.kind, TypeKind::Map(_)) {
        facts.push(format!(
            "default: `{}`",
            one_line(&ty.default).replace('`', "'")
        ));
    }
    if let Some(rules) = validation_text(ty, origins.sources) {
        facts.push(format!("validation: `{}`", rules.replace('`', "'")));
    }
    if let Some(notice) = &ty.docs.deprecated {
        facts.push(match notice.as_str() {
            "" => "deprecated".to_string(),
            notice => format!("deprecated: {notice}"),
        });
    }
    if let Some((node, key)) = values.and_then(|v| value_at(v, path)) {
        let at = |span: crate::source::Span| {
            let source = origins.sources.get(span.file);
            let name = origins.sources.path(span.file).map_or_else(
                || source.name.clone(),
                |p| crate::source::display_name(&p, origins.root),
            );
            format!("{name}:{}", source.line_col(span.range().start).line)
        };
        let in_schema = origins.in_schema;
        let from = if !in_schema(key) {
            at(key)
        } else if let Some(set) = set_whole(node, in_schema) {
            // A value a data-values file set whole (an array replaces the
            // default): the merge keeps the schema's key and node.
            at(set)
        } else if let Some(changed) = first_change(node, in_schema) {
            format!("the schema default, changed at {}", at(changed))
        } else {
            "the schema default".to_string()
        };
        facts.push(format!(
            "value: `{}` (from {from})",
            one_line(node).replace('`', "'")
        ));
    }
    if !facts.is_empty() {
        out.push('\n');
        for fact in facts {
            out.push_str(&format!("- {fact}\n"));
        }
    }
    out
}
