//! Write a node tree back as YAML exactly as ytt prints it, and as JSON.
//!
//! ytt prints YAML with its own fork of go-yaml v2
//! (`pkg/yamlmeta/internal/yaml.v2`), one `yaml.Marshal` per document, and
//! joins documents with `---` (`pkg/yamlmeta/printers.go`,
//! `document_set.go`). This module ports that: `encode` (what text and style
//! the encoder asks for), `resolve` (which strings must be quoted), `analyze`
//! (what the emitter allows), `emitter` (layout). Every case in `tests` was
//! checked against the reference `ytt`.
//!
//! In short: two-space indent, sequences under a key not indented, no line
//! folding, strings that would read back as another type double-quoted,
//! strings with indicators single-quoted, multi-line strings as `|` blocks,
//! control and non-BMP characters escaped, keys over 128 bytes or with line
//! breaks written as `? key`.

mod analyze;
mod emitter;
mod encode;
mod resolve;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_docs;

use crate::yaml::{Node, ScalarValue, Value};
use emitter::Emitter;

/// One value as ytt's `yaml.encode()` returns it: go-yaml's `yaml.Marshal`
/// of the value (no `---`, ending in a newline), or `""` for null. It is
/// also what `ytt --data-values-inspect` prints, except for empty data
/// values: ytt skips a document holding an empty map or array and prints
/// nothing, where this gives `{}` (as `yaml.encode({})` does). For
/// `--data-values-inspect` exactly, use `document_set_to_yaml(&[Some(node)])`.
pub fn to_yaml(node: &Node) -> String {
    if node.is_null() {
        return String::new();
    }
    Emitter::document(node)
}

/// What `ytt -f` prints for these output documents: each printed as
/// [`to_yaml`] does, separated by `---` lines (no `---` before the first,
/// none after the last). A document that is `None`, null, an empty map or an
/// empty array is skipped, as ytt's `Document.IsEmpty` does; so a set of
/// only such documents, or no documents, prints nothing at all.
pub fn document_set_to_yaml(docs: &[Option<&Node>]) -> String {
    let mut out = String::new();
    let printed = docs
        .iter()
        .flatten()
        .filter(|node| !is_empty_document(node));
    for (i, node) in printed.enumerate() {
        if i > 0 {
            out.push_str("---\n");
        }
        out.push_str(&Emitter::document(node));
    }
    out
}

/// ytt's `Document.IsEmpty`: no value, or an empty map or array.
fn is_empty_document(node: &Node) -> bool {
    match &node.value {
        Value::Scalar(s) => s.resolved == ScalarValue::Null,
        Value::Map(items) => items.is_empty(),
        Value::Array(items) => items.is_empty(),
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
