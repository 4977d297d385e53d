//! The part of template rendering that validation needs. In a template whose
//! own code is only `load()` statements, every `key: #@ expr` is evaluated
//! with the final data values, as ytt renders it: an explicit failure
//! (`assert.fail()`, `fail()`) is a finding at its line, and the
//! `@assert/validate` rules on output nodes run on the rendered values.
//! Templates with control flow, functions or overlays are left alone: confvet
//! does not render those, and a guess would give false findings.

use super::engine::{Code, Engine};
use super::path::DataPath;
use super::schema::star_to_node;
use super::validate::Validator;
use super::{all_comments, assert_validation};
use crate::discover::DiscoveredFile;
use crate::finding::{Finding, Kind, Severity};
use crate::source::SourceFile;
use crate::yaml::{Annotated, Comment, CommentKind, DocumentSet, Node, Value};
use std::collections::HashMap;
use std::path::Path;

/// Evaluates templates of one package with its final data values.
pub struct Renderer {
    engine: Engine,
    /// A failure is an error when the consumer gave values (flags, a
    /// scenario); with the values as shipped it is a warning, since a
    /// package may leave a required value to its consumer (`#@schema/nullable`
    /// and `or assert.fail(...)`, ytt's idiom before validations).
    fail_severity: Severity,
}

impl Renderer {
    pub fn new(root: &Path, values: &Node, consumer_values: bool) -> Renderer {
        Renderer {
            engine: Engine::for_templates(root, &crate::yaml::emit::to_json(values)),
            fail_severity: if consumer_values {
                Severity::Error
            } else {
                Severity::Warning
            },
        }
    }

    /// Render `set`, the documents of `file`, which [`is_renderable`].
    pub fn check(
        &self,
        file: &DiscoveredFile,
        set: &DocumentSet,
        source: &SourceFile,
        findings: &mut Vec<Finding>,
    ) {
        let dir = file.path.parent().unwrap_or(Path::new("."));
        let Ok(module) = self
            .engine
            .compile_yaml_file(&source.name, &source.text, dir)
        else {
            return;
        };
        let scopes = HashMap::from([(file.id, module)]);
        let code = Code {
            engine: &self.engine,
            scopes: &scopes,
        };
        let mut rendering = Rendering {
            code: &code,
            fail_severity: self.fail_severity,
            findings: Vec::new(),
        };
        for doc in &set.docs {
            let mut violations = Vec::new();
            let mut validator = Validator {
                findings: &mut violations,
                code: &code,
                root: Some(&doc.value),
                root_value: None,
                is_aborted: false,
            };
            rendering.walk(&doc.value, &DataPath::root(), &mut validator);
            rendering.findings.extend(violations);
        }
        findings.extend(rendering.findings);
    }
}

/// Only `load()` as own code, and no annotation but `@assert/validate`.
pub fn is_renderable(set: &DocumentSet) -> bool {
    let doc_annotations = set.docs.iter().flat_map(|d| d.comments.iter());
    all_comments(set)
        .into_iter()
        .chain(doc_annotations)
        .all(|comment| match &comment.kind {
            CommentKind::Code(text) if comment.own_line => text.trim_start().starts_with("load("),
            CommentKind::Annotation { name, .. } => name == "assert/validate",
            _ => true,
        })
}

struct Rendering<'a> {
    code: &'a Code<'a>,
    fail_severity: Severity,
    findings: Vec<Finding>,
}

impl Rendering<'_> {
    fn walk(&mut self, node: &Node, path: &DataPath, validator: &mut Validator<'_>) {
        match &node.value {
            Value::Map(items) => {
                for item in items {
                    let item_path = path.key(&item.key.display());
                    self.item(
                        &item.value,
                        item.key_span,
                        item.comments(),
                        &item_path,
                        node,
                        validator,
                    );
                }
            }
            Value::Array(items) => {
                for (index, item) in items.iter().enumerate() {
                    self.item(
                        &item.value,
                        item.span,
                        item.comments(),
                        &path.index(index),
                        node,
                        validator,
                    );
                }
            }
            Value::Scalar(_) => {}
        }
    }

    /// One map or array item: its `#@ expr` value evaluated, its
    /// `@assert/validate` run on what it renders to.
    fn item(
        &mut self,
        value: &Node,
        at: crate::source::Span,
        comments: &[Comment],
        path: &DataPath,
        parent: &Node,
        validator: &mut Validator<'_>,
    ) {
        let inline = comments.iter().find_map(|c| match &c.kind {
            CommentKind::Code(text) if !c.own_line => Some((c, text)),
            _ => None,
        });
        let rendered = match inline {
            Some((comment, text)) => {
                match self.code.eval_args(text, comment.span.file) {
                    Ok(mut args) if args.positional.len() == 1 => {
                        Some(star_to_node(&args.positional.remove(0), comment.span))
                    }
                    Err(err) if !err.is_syntax && err.message.starts_with("fail:") => {
                        let message = err.message["fail:".len()..].trim().to_string();
                        self.findings.push(
                            Finding::new("ytt/template-fail", Kind::Validation, comment.span, message)
                                .with_path(path.to_string())
                                .with_severity(self.fail_severity)
                                .with_help(
                                    "`ytt -f` stops here with these data values; give the value the template needs",
                                ),
                        );
                        return;
                    }
                    // Anything else ytt would report is left to ytt: confvet
                    // does not know all of a template's world.
                    _ => return,
                }
            }
            None => None,
        };
        let value = rendered.as_ref().unwrap_or(value);
        if let Some(validation) = assert_validation(comments, self.code, &mut self.findings) {
            validator.run(value, at, &validation, path, Some(parent));
        }
        if rendered.is_none() {
            self.walk(value, path, validator);
        }
    }
}
