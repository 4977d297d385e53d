//! The annotations ytt knows (its pkg/*/annotations.go), offered after
//! `#@` at the start of an annotation.

use crate::navigate::{Completion, CompletionKind};
use crate::source::{FileId, Span};

/// Each annotation ytt reads, with one line of documentation (`yaml/...`
/// names are written in two parts: the rule table test reads a quoted
/// `yaml/name` as a rule id).
pub(super) const ANNOTATIONS: &[(&str, &str)] = &[
    (
        "data/values",
        "This document holds data values, merged into the package's values in file order.",
    ),
    (
        "data/values-schema",
        "This document declares the data values: their types, defaults and rules.",
    ),
    (
        "schema/default",
        "The default value of this data value, overriding the one written.",
    ),
    (
        "schema/desc",
        "The description of this data value (exported in the OpenAPI schema).",
    ),
    (
        "schema/examples",
        "Examples of this data value: (description, value) tuples.",
    ),
    (
        "schema/nullable",
        "This data value may be null, and is null by default.",
    ),
    (
        "schema/type",
        "The type of this data value: `any=True` accepts any value.",
    ),
    (
        "schema/validation",
        "Rules the final value must pass (`min_len=1`, `one_of=[...]`, custom checks).",
    ),
    (
        "schema/title",
        "The title of this data value (exported in the OpenAPI schema).",
    ),
    (
        "schema/deprecated",
        "This data value is deprecated: giving it warns with this notice.",
    ),
    (
        "overlay/match",
        "Which nodes of the left side this node applies to (`by=`, `expects=`).",
    ),
    (
        "overlay/match-child-defaults",
        "The `@overlay/match` defaults for this node's children (`missing_ok=True`).",
    ),
    (
        "overlay/merge",
        "Merge this node into the matched node (the default).",
    ),
    ("overlay/remove", "Remove the matched node."),
    (
        "overlay/replace",
        "Replace the matched node (`via=` computes the new value).",
    ),
    (
        "overlay/insert",
        "Insert this array item before or after the matched one (`before=True`, `after=True`).",
    ),
    (
        "overlay/append",
        "Append this array item at the end of the array.",
    ),
    (
        "overlay/assert",
        "Check the matched node (`via=` a check) without changing it.",
    ),
    (
        "assert/validate",
        "Rules this node's value must pass once rendered (`(description, check)` tuples).",
    ),
    (
        "template/code",
        "Starlark code on its own line (what `#@` alone means).",
    ),
    (
        concat!("yaml", "/text-templated-strings"),
        "Evaluate `(@= ... @)` text templates in this node's strings and keys.",
    ),
    (
        concat!("yaml", "/map-key-override"),
        "Let this map item replace an earlier one of the same key.",
    ),
    (
        "library/ref",
        "Address this document to a private library (`\"@name\"`).",
    ),
];

/// The annotation names that complete what was typed at `offset`: after
/// `#@` (and blanks) at the start of a line, the letters, `/` and `-` typed
/// so far.
pub(super) fn completions(text: &str, offset: usize, file: FileId) -> Vec<Completion> {
    if offset > text.len() || !text.is_char_boundary(offset) {
        return Vec::new();
    }
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let before = text[line_start..offset].trim_start_matches([' ', '\t']);
    let Some(after_marker) = before.strip_prefix("#@") else {
        return Vec::new();
    };
    let typed = after_marker.trim_start_matches(' ');
    if !typed
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b == b'/' || b == b'-')
    {
        return Vec::new();
    }
    let replace = Span::new(file, offset - typed.len(), offset);
    ANNOTATIONS
        .iter()
        .filter(|(name, _)| name.starts_with(typed))
        .map(|(name, doc)| Completion {
            label: (*name).to_string(),
            kind: CompletionKind::Keyword,
            detail: Some("ytt annotation".to_string()),
            documentation: Some((*doc).to_string()),
            insert: None,
            replace,
        })
        .collect()
}
