//! JSON Schema 2020-12 of a data-values file, for editors: a values file is
//! an overlay on the schema's defaults, so nothing is `required`; a map
//! takes no key the schema does not declare (`additionalProperties: false`,
//! ytt's unknown-key error); a nullable value also takes null; an any-typed
//! value takes anything; an integer fits a float (`number`). Defaults,
//! documentation and the rules' keywords go on each node.

use super::super::{SchemaType, TypeKind};
use super::rule_keywords;
use crate::source::Sources;
use serde_json::{Map, Value as J, json};

const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// The JSON Schema of the package's data values; `title` names the package.
pub fn document(schema: Option<&SchemaType>, sources: &Sources, title: &str) -> J {
    let mut root = match schema {
        Some(ty) => node(ty, sources),
        None => json!({}),
    };
    if let J::Object(map) = &mut root {
        let mut head = Map::new();
        head.insert("$schema".into(), J::String(DIALECT.into()));
        if !map.contains_key("title") {
            head.insert("title".into(), J::String(format!("Data values of {title}")));
        }
        head.append(map);
        *map = head;
    }
    root
}

fn node(ty: &SchemaType, sources: &Sources) -> J {
    let rules = rule_keywords(ty, sources);
    let mut out = Map::new();
    let docs = &ty.docs;
    if let Some(title) = docs.title.as_deref().filter(|t| !t.is_empty()) {
        out.insert("title".into(), J::String(title.into()));
    }
    if let Some(description) = docs.description.as_deref().filter(|d| !d.is_empty()) {
        out.insert("description".into(), J::String(description.into()));
    }
    let type_name = match &ty.kind {
        TypeKind::Any => None,
        TypeKind::String => Some("string"),
        TypeKind::Int => Some("integer"),
        TypeKind::Float => Some("number"),
        TypeKind::Bool => Some("boolean"),
        TypeKind::Map(_) => Some("object"),
        TypeKind::Array(_) => Some("array"),
    };
    let nullable = ty.is_nullable && !rules.not_null;
    match (type_name, nullable) {
        (Some(name), false) => {
            out.insert("type".into(), J::String(name.into()));
        }
        (Some(name), true) => {
            out.insert("type".into(), json!([name, "null"]));
        }
        (None, _) if rules.not_null => {
            out.insert("not".into(), json!({"type": "null"}));
        }
        (None, _) => {}
    }
    match &ty.kind {
        TypeKind::Map(entries) => {
            out.insert("additionalProperties".into(), J::Bool(false));
            let properties: Map<String, J> = entries
                .iter()
                .map(|entry| (entry.key.clone(), node(&entry.ty, sources)))
                .collect();
            out.insert("properties".into(), J::Object(properties));
        }
        TypeKind::Array(item) => {
            out.insert("items".into(), node(item, sources));
        }
        _ => {}
    }
    let default = crate::yaml::emit::to_json(&ty.default);
    if !matches!(ty.kind, TypeKind::Map(_)) && !rules.rejects(&default) {
        out.insert("default".into(), default);
    }
    if !docs.examples.is_empty() {
        let examples: Vec<J> = docs
            .examples
            .iter()
            .filter_map(|(_, value)| super::star_json(value))
            .collect();
        out.insert("examples".into(), J::Array(examples));
    }
    if docs.deprecated.is_some() {
        out.insert("deprecated".into(), J::Bool(true));
    }
    for (keyword, value) in rules.keywords {
        out.insert(keyword.into(), value);
    }
    if !rules.documented.is_empty() {
        let list = rules.documented.iter().map(|r| r.to_json()).collect();
        out.insert("x-ytt-validations".into(), J::Array(list));
    }
    J::Object(out)
}
