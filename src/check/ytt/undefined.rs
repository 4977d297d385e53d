//! Template code read before rendering: every `data.values.x.y` that
//! unconditional template code reads must exist, where a schema declares
//! the map (no consumer value could add the key).

use super::package::{all_comments, is_template};
use super::schema::{self, SchemaType};
use super::translate;
use crate::discover::DiscoveredFile;
use crate::finding::Finding;
use crate::rules;
use crate::source::{Sources, Span};
use crate::yaml::{DocumentSet, Node, Value};
use std::path::Path;

/// Templates are not rendered, but their code must parse (ytt would fail to
/// compile it), and every `data.values.a.b` they read must exist in the
/// final data values (ytt: `struct has no .b field or method`).
pub(super) fn check_templates(
    files: &[&DiscoveredFile],
    parsed: &[&DocumentSet],
    root: &Path,
    sources: &Sources,
    values: Option<&Node>,
    schema: Option<&SchemaType>,
    findings: &mut Vec<Finding>,
) {
    static DATA_VALUES: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"\bdata\.values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)").unwrap()
    });
    for (file, set) in files.iter().zip(parsed) {
        if !is_template(file, set, root) {
            continue;
        }
        let source = sources.get(file.id);
        let comments: Vec<&crate::yaml::Comment> = all_comments(set)
            .into_iter()
            .filter(|c| matches!(c.kind, crate::yaml::CommentKind::Code(_)))
            .collect();
        if comments.is_empty() {
            continue;
        }
        let code: Vec<(usize, String)> = comments
            .iter()
            .map(|c| {
                let line = source.line_col(c.span.start as usize).line;
                let crate::yaml::CommentKind::Code(text) = &c.kind else {
                    unreachable!()
                };
                if c.own_line {
                    (line, format!(" {text}"))
                } else {
                    (line, format!(" _ = ({text})"))
                }
            })
            .collect();
        // Code that does not parse is reported by the render, with ytt's
        // block sugar (`if/end`, `else/end`) understood.
        let parses = translate::translate(&code).is_ok_and(|program| {
            ::starlark::syntax::AstModule::parse(
                &source.name,
                program.source,
                &::starlark::syntax::Dialect::Extended,
            )
            .is_ok()
        });
        if !parses {
            continue;
        }
        // hasattr()/getattr() guard optional values: leave such files alone.
        let (Some(values), false) = (
            values,
            source.text.contains("hasattr(") || source.text.contains("getattr("),
        ) else {
            continue;
        };
        // Only code that always runs: not inside a def, if or for block, and
        // nothing after a single-node `if/end`/`for/end` (its extent is a
        // node, which comments alone do not show).
        let mut depth = 0usize;
        let mut is_conditional = false;
        for comment in &comments {
            let crate::yaml::CommentKind::Code(text) = &comment.kind else {
                continue;
            };
            if comment.own_line {
                let statement = text.trim();
                let word = statement
                    .split(|c: char| !c.is_alphanumeric() && c != '_')
                    .next()
                    .unwrap_or("");
                if statement[word.len()..].starts_with("/end") {
                    is_conditional = true;
                } else if statement == "end" {
                    depth = depth.saturating_sub(1);
                } else if statement.ends_with(':') && !matches!(word, "else" | "elif") {
                    depth += 1;
                }
                if depth > 0 || is_conditional || matches!(word, "load" | "def") {
                    continue;
                }
            } else if depth > 0 || is_conditional {
                continue;
            }
            let Some(offset) = comment.text.find(text.as_str()) else {
                continue;
            };
            for found in DATA_VALUES.captures_iter(text) {
                let keys: Vec<&str> = found[1].split('.').skip(1).collect();
                if let Some(missing) = missing_key(values, schema, &keys) {
                    let whole = found.get(0).expect("match");
                    let start = comment.span.start as usize + 1 + offset + whole.start();
                    let path = keys[..=missing].join(".");
                    findings.push(
                        Finding::new(
                            &rules::ytt::UNDEFINED,
                            Span::new(file.id, start, start + whole.len()),
                            format!(
                                "data.values.{path} does not exist: the data values have no {:?}",
                                keys[missing]
                            ),
                        )
                        .with_help("declare it in the data-values schema, or fix the name"),
                    );
                }
            }
        }
    }
}

/// The index of the first key of `keys` missing below `node`, if any. Only
/// where a schema declares the map (no consumer value could add the key):
/// an any-typed value, an array, a scalar or null on the way ends the check.
pub(super) fn missing_key(
    node: &Node,
    schema: Option<&SchemaType>,
    keys: &[&str],
) -> Option<usize> {
    let mut current = node;
    let mut ty = schema?;
    for (index, key) in keys.iter().enumerate() {
        let (Value::Map(items), schema::TypeKind::Map(_)) = (&current.value, &ty.kind) else {
            return None;
        };
        match (
            items.iter().find(|i| i.key.display() == *key),
            ty.entry(key),
        ) {
            (Some(item), Some(child)) => {
                current = &item.value;
                ty = child;
            }
            (None, None) => return Some(index),
            _ => return None,
        }
    }
    None
}
