//! Phase 3: the code of schema and data-values files, compiled once (its
//! annotation arguments are evaluated in their file's scope), and the
//! values written as code (`key: #@ expr`) computed as ytt does.

use super::super::engine::{self, Code, Engine};
use super::super::package::{first_plain_comment, plain_comments};
use super::super::value_code;
use super::documents::Documents;
use super::package::Package;
use crate::finding::{Edit, Finding, Fix};
use crate::rules;
use crate::source::{FileId, Span};
use crate::yaml::{Annotated, Document, DocumentSet};
use starlark::environment::FrozenModule;
use std::borrow::Cow;
use std::collections::HashMap;

/// What compiling the package's value code left.
pub(super) struct Compiled {
    pub scopes: HashMap<FileId, FrozenModule>,
    /// A data-values file ytt cannot template stops the data values, not
    /// the schema: ytt builds (and exports) the schema first.
    pub values_unreadable: bool,
    /// What each file's code printed, in file order: ytt evaluates a
    /// file's code and its computed values in one go, confvet in two.
    file_prints: Vec<(FileId, String)>,
}

/// None when ytt stops here (what printed before is replayed).
pub(super) fn compile(
    package: &Package<'_>,
    engine: &Engine,
    findings: &mut Vec<Finding>,
) -> Option<Compiled> {
    let mut compiled = Compiled {
        scopes: HashMap::new(),
        values_unreadable: false,
        file_prints: Vec::new(),
    };
    let stop = |compiled: &Compiled| {
        for (_, printed) in &compiled.file_prints {
            engine::prints::replay(printed);
        }
    };
    for (file, set) in package.own_members() {
        let is_schema_file = set
            .docs
            .iter()
            .any(|d| d.has_annotation("data/values-schema"));
        let is_values_file = set.docs.iter().any(|d| d.has_annotation("data/values"));
        if !is_schema_file && !is_values_file {
            continue;
        }
        if compiled.values_unreadable && !is_schema_file {
            continue;
        }
        let source = package.sources.get(file.id);
        if !package.settings.ignore_unknown_comments
            && let Some(comment) = first_plain_comment(set)
        {
            let line = source.line_col(comment.span.start as usize).line;
            findings.push(
                Finding::new(&rules::ytt::UNKNOWN_COMMENT, comment.span,
                    format!(
                        "Failed to parse line {line}: '#{}': Expected ytt-formatted string (use '#@' for annotations or code, '#!' for comments)",
                        comment.text
                    ),
                )
                .with_help("write `#!` for a comment in a ytt file, or pass --ignore-unknown-comments as ytt users do")
                .with_fix(ytt_comments_fix(&source.text, set)),
            );
            if is_schema_file {
                stop(&compiled);
                return None;
            }
            compiled.values_unreadable = true;
            continue;
        }
        let (result, printed) = engine::prints::aside(|| {
            engine.compile_yaml_file(
                &source.name,
                &source.text,
                file.path.parent().unwrap_or(package.root),
            )
        });
        compiled.file_prints.push((file.id, printed));
        match result {
            Ok(module) => {
                compiled.scopes.insert(file.id, module);
            }
            // A data-values file may template with data it cannot see here
            // (ytt evaluates it with the values before it); only a schema
            // file that does not compile is reported.
            Err(_) if !is_schema_file => {}
            Err(engine::RunFailure {
                message,
                line,
                is_syntax,
                ..
            }) => {
                let start = source.line_start(line);
                let end = start + source.line_text(line).len();
                let rule = rules::ytt::code_failure(is_syntax);
                findings.push(Finding::new(
                    rule,
                    Span::new(file.id, start, end),
                    format!("templating {}: {message}", source.name),
                ));
                stop(&compiled);
                return None;
            }
        }
    }
    Some(compiled)
}

/// The schema and data-values documents with their values written as code
/// computed; what the code printed is replayed in ytt's order.
pub(super) fn evaluate_values<'a>(
    documents: &Documents<'a>,
    code: &Code<'_>,
    compiled: &Compiled,
    findings: &mut Vec<Finding>,
) -> (Vec<Cow<'a, Document>>, Vec<Cow<'a, Document>>) {
    let mut value_prints = HashMap::new();
    let schema = value_code::evaluate(&documents.schema, code, true, findings, &mut value_prints);
    let values = value_code::evaluate(&documents.values, code, false, findings, &mut value_prints);
    for (file, printed) in &compiled.file_prints {
        engine::prints::replay(printed);
        engine::prints::replay(value_prints.get(file).map_or("", String::as_str));
    }
    (schema, values)
}

/// Every plain `#` comment of a schema or data-values file written `#!`, at
/// once (ytt stops at the first, so one at a time would take a pass each):
/// safe, since each stays a comment, now one ytt reads as such.
fn ytt_comments_fix(text: &str, set: &DocumentSet) -> Option<Fix> {
    let edits = plain_comments(set)
        .into_iter()
        .filter(|c| text.as_bytes().get(c.span.start as usize) == Some(&b'#'))
        .map(|c| {
            let after_hash = c.span.start as usize + 1;
            Edit::replace(Span::new(c.span.file, after_hash, after_hash), "!")
        })
        .collect();
    Fix::safe("write `#!` for each plain `#` comment", edits)
}
