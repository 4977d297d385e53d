//! Write a node tree back as YAML, in go-yaml v2's style (what
//! `ytt --data-values-inspect` prints), and as JSON.

use crate::yaml::{Node, Scalar, ScalarStyle, ScalarValue, Value};
use std::fmt::Write;

/// The node as a YAML document (no `---`), ending in a newline.
pub fn to_yaml(node: &Node) -> String {
    let mut out = String::new();
    match &node.value {
        Value::Scalar(s) => {
            out.push_str(&scalar_text(s));
            out.push('\n');
        }
        _ => write_block(&mut out, node, 0),
    }
    out
}

fn write_block(out: &mut String, node: &Node, indent: usize) {
    let pad = " ".repeat(indent);
    match &node.value {
        Value::Map(items) if items.is_empty() => out.push_str(&format!("{pad}{{}}\n")),
        Value::Array(items) if items.is_empty() => out.push_str(&format!("{pad}[]\n")),
        Value::Map(items) => {
            for item in items {
                let key = scalar_text(&item.key);
                match &item.value.value {
                    Value::Map(children) if !children.is_empty() => {
                        let _ = writeln!(out, "{pad}{key}:");
                        write_block(out, &item.value, indent + 2);
                    }
                    Value::Array(children) if !children.is_empty() => {
                        let _ = writeln!(out, "{pad}{key}:");
                        // go-yaml v2 does not indent sequences under a key.
                        write_block(out, &item.value, indent);
                    }
                    _ => {
                        let _ = writeln!(out, "{pad}{key}: {}", inline(&item.value));
                    }
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                match &item.value.value {
                    Value::Map(children) if !children.is_empty() => {
                        let mut nested = String::new();
                        write_block(&mut nested, &item.value, indent + 2);
                        let trimmed = &nested[indent + 2..];
                        let _ = write!(out, "{pad}- {trimmed}");
                    }
                    Value::Array(children) if !children.is_empty() => {
                        let _ = writeln!(out, "{pad}-");
                        write_block(out, &item.value, indent + 2);
                    }
                    _ => {
                        let _ = writeln!(out, "{pad}- {}", inline(&item.value));
                    }
                }
            }
        }
        Value::Scalar(s) => {
            let _ = writeln!(out, "{pad}{}", scalar_text(s));
        }
    }
}

fn inline(node: &Node) -> String {
    match &node.value {
        Value::Map(_) => "{}".into(),
        Value::Array(_) => "[]".into(),
        Value::Scalar(s) => scalar_text(s),
    }
}

fn scalar_text(scalar: &Scalar) -> String {
    match &scalar.resolved {
        ScalarValue::Null => "null".into(),
        ScalarValue::Bool(b) => b.to_string(),
        ScalarValue::Int(i) => i.to_string(),
        ScalarValue::Float(f) => crate::yaml::scalar::format_float(*f),
        ScalarValue::Str(s) => quote_if_needed(s),
    }
}

/// Quote a string that would not read back as the same string.
fn quote_if_needed(s: &str) -> String {
    let resolves_to_string = matches!(
        crate::yaml::scalar::resolve(s, ScalarStyle::Plain, None),
        ScalarValue::Str(_)
    );
    let special_start = s.starts_with([
        '-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@',
        '`', ' ',
    ]);
    let needs_quotes = s.is_empty()
        || !resolves_to_string
        || special_start
        || s.ends_with(' ')
        || s.contains(": ")
        || s.contains(" #")
        || s.ends_with(':')
        || s.chars().any(|c| c.is_control());
    if needs_quotes {
        serde_json::to_string(s).unwrap_or_else(|_| format!("{s:?}"))
    } else {
        s.to_string()
    }
}

/// The node as JSON data.
pub fn to_json(node: &Node) -> serde_json::Value {
    use serde_json::Value as J;
    match &node.value {
        Value::Scalar(s) => match &s.resolved {
            ScalarValue::Null => J::Null,
            ScalarValue::Bool(b) => J::Bool(*b),
            ScalarValue::Int(i) => J::from(*i),
            ScalarValue::Float(f) => serde_json::Number::from_f64(*f).map_or(J::Null, J::Number),
            ScalarValue::Str(s) => J::String(s.clone()),
        },
        Value::Map(items) => J::Object(
            items
                .iter()
                .map(|i| (i.key.display(), to_json(&i.value)))
                .collect(),
        ),
        Value::Array(items) => J::Array(items.iter().map(|i| to_json(&i.value)).collect()),
    }
}
