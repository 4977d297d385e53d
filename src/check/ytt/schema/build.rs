//! The builder and the annotations it reads: [`SchemaBuilder`] (where schema
//! errors go), the descent [`Scope`], and the `@schema/...` annotations on one
//! node read and checked into [`SchemaAnnotations`], as ytt's
//! pkg/schema/annotations.go. The type tree itself is built in `infer.rs`.

use super::super::engine::Code;
use super::super::rule::{Validation, parse_validation};
use super::super::starlark::{CallArgs, StarValue};
use super::types::TypeDocs;
use crate::edit::{Edit, Fix};
use crate::finding::Finding;
use crate::rules;
use crate::source::Span;
use crate::yaml::Comment;

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

/// Builds types and collects schema errors; stops at the first, as ytt does.
pub struct SchemaBuilder<'a> {
    pub findings: &'a mut Vec<Finding>,
    pub code: &'a Code<'a>,
}

/// Context while descending: inside an any-typed fragment schema annotations
/// are errors, validations are ignored.
#[derive(Clone, Copy)]
pub(super) struct Scope {
    pub(super) in_any: bool,
    pub(super) is_array_item: bool,
    pub(super) is_document: bool,
}

impl SchemaBuilder<'_> {
    pub(super) fn error(&mut self, span: Span, message: String) {
        self.findings
            .push(Finding::new(&rules::ytt::SCHEMA, span, message));
    }

    fn compat(&mut self, span: Span, message: String) {
        self.findings
            .push(Finding::new(&rules::ytt::COMPAT, span, message));
    }

    fn rule_error(&mut self, span: Span, message: String) {
        self.findings
            .push(Finding::new(&rules::ytt::RULE_ANNOTATION, span, message));
    }
}

/// Rename `@schema/<short>` to the one known annotation within two edits
/// of it. Unsafe: ytt then acts on an annotation it ignored.
fn annotation_rename_fix(comment: &Comment, short: &str, known: &[String]) -> Option<Fix> {
    let near = crate::suggest::within(short, known, 2)?;
    let others: Vec<String> = known.iter().filter(|k| **k != near).cloned().collect();
    if crate::suggest::within(short, &others, 2).is_some() {
        return None;
    }
    // The name as written right after `#@` (the comment's text is its
    // source after `#`).
    let name = format!("schema/{short}");
    let start = comment.span.start as usize + 2;
    let written = comment.text.starts_with(&format!("@{name}"))
        && comment.span.range().len() > name.len() + 1;
    if !written {
        return None;
    }
    let span = Span::new(comment.span.file, start, start + name.len());
    Fix::unsafe_(
        format!("write @schema/{near}"),
        vec![Edit::replace(span, format!("schema/{near}"))],
    )
}

/// Whether the annotation `comment` becomes under the rename `fix` is read
/// without an error: a rename that makes ytt fail (`@schema/example "x"`
/// to `@schema/examples "x"`, which wants (description, value) tuples)
/// is no repair.
fn renamed_reads(
    builder: &SchemaBuilder<'_>,
    comment: &Comment,
    fix: &Fix,
    owner: Span,
    scope: Scope,
) -> bool {
    let crate::yaml::CommentKind::Annotation { args, .. } = &comment.kind else {
        return false;
    };
    let Some(name) = fix.edits.first().map(|edit| edit.content.clone()) else {
        return false;
    };
    let renamed = Comment {
        kind: crate::yaml::CommentKind::Annotation {
            name,
            args: args.clone(),
        },
        ..comment.clone()
    };
    let mut errors = Vec::new();
    let mut trial = SchemaBuilder {
        findings: &mut errors,
        code: builder.code,
    };
    SchemaAnnotations::read(&mut trial, &[renamed], owner, scope).is_some() && errors.is_empty()
}

/// The annotations on one schema node, checked.
pub(super) struct SchemaAnnotations {
    pub(super) is_any: bool,
    pub(super) is_nullable: bool,
    pub(super) default: Option<(StarValue, Span)>,
    pub(super) validation: Option<Validation>,
    /// `@schema/validation-defaults-for-strings` (seed design).
    pub(super) string_defaults: Option<Validation>,
    pub(super) docs: TypeDocs,
}

impl SchemaAnnotations {
    pub(super) fn read(
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
                report_unknown(builder, comment, (name, short), (owner, scope));
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
                    let rule = rules::ytt::code_failure(err.is_syntax);
                    builder.findings.push(Finding::new(
                        rule,
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
            found.apply(builder, (short, &call), comment, (owner, scope))?;
        }
        Some(found)
    }
}

impl SchemaAnnotations {
    /// What one known `@schema/` annotation says, added to `self`; None
    /// when it is invalid (reported), which stops the schema as in ytt.
    fn apply(
        &mut self,
        builder: &mut SchemaBuilder<'_>,
        (short, call): (&str, &CallArgs),
        comment: &Comment,
        (owner, scope): (Span, Scope),
    ) -> Option<()> {
        let found = self;
        match short {
            "type" => found.is_any = read_type_annotation(builder, call, owner)?,
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
                match parse_validation(call, comment, "schema/validation") {
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
                    Err(refused) => {
                        builder.rule_error(comment.span, refused.to_string());
                        return None;
                    }
                }
            }
            "removed" => match single_string(call) {
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
                let text = single_string(call);
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
                        "Invalid schema - @schema/deprecated not supported on a document".into(),
                    );
                    return None;
                }
                match single_string(call) {
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
        Some(())
    }
}

/// An `@schema/` annotation ytt does not know (ytt ignores it silently:
/// most are typos): a finding with the near name and, where the renamed
/// annotation still reads, the rename as a fix.
fn report_unknown(
    builder: &mut SchemaBuilder<'_>,
    comment: &Comment,
    (name, short): (&str, &str),
    (owner, scope): (Span, Scope),
) {
    let known: Vec<String> = SCHEMA_ANNOTATIONS.iter().map(|a| a.to_string()).collect();
    let mut finding = Finding::new(
        &rules::ytt::UNKNOWN_ANNOTATION,
        comment.span,
        format!("@{name} is not a schema annotation; ytt ignores it"),
    );
    if let Some(near) = crate::suggest::did_you_mean(short, &known) {
        finding = finding.with_help(format!("did you mean @schema/{near}?"));
    }
    let fix = annotation_rename_fix(comment, short, &known)
        .filter(|fix| renamed_reads(builder, comment, fix, owner, scope));
    builder.findings.push(finding.with_fix(fix));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::FileId;

    /// The text after the rename fix of the first annotation of `text`.
    fn renamed(text: &str) -> Option<String> {
        let set = crate::yaml::parse_file(FileId(0), text, &Default::default()).unwrap();
        let crate::yaml::Value::Map(items) = &set.docs[0].value.value else {
            panic!("a map");
        };
        let comment = &items[0].comments[0];
        let crate::yaml::CommentKind::Annotation { name, .. } = &comment.kind else {
            panic!("an annotation");
        };
        let known: Vec<String> = SCHEMA_ANNOTATIONS.iter().map(|a| a.to_string()).collect();
        let short = name.strip_prefix("schema/").unwrap();
        let fix = annotation_rename_fix(comment, short, &known)?;
        assert_eq!(fix.applicability, crate::edit::Applicability::Unsafe);
        let edits: Vec<&Edit> = fix.edits.iter().collect();
        Some(crate::edit::apply_edits(text, &edits))
    }

    #[test]
    fn a_near_annotation_name_is_renamed_keeping_its_arguments() {
        assert_eq!(
            renamed(
                "#@data/values-schema\n---\n#@schema/example (\"one\", 1)\nreplicas: 1 #! pods\n"
            )
            .as_deref(),
            Some(
                "#@data/values-schema\n---\n#@schema/examples (\"one\", 1)\nreplicas: 1 #! pods\n"
            )
        );
        assert_eq!(
            renamed("#@data/values-schema\n---\n#@schema/nulable\ntls: {}\n").as_deref(),
            Some("#@data/values-schema\n---\n#@schema/nullable\ntls: {}\n")
        );
    }

    #[test]
    fn no_rename_when_no_or_two_names_are_near() {
        assert_eq!(
            renamed("#@data/values-schema\n---\n#@schema/description \"pods\"\nreplicas: 1\n"),
            None
        );
        // `tipe` is one edit from `type` and two from `title`.
        assert_eq!(
            renamed("#@data/values-schema\n---\n#@schema/tipe\nreplicas: 1\n"),
            None
        );
    }
}
