//! Rendering a package's templates with its final data values, as `ytt -f`
//! does: each template file is compiled (`template`), run on the package's
//! engine, and gives its output documents, or the failure ytt would stop
//! on. `@assert/validate` on output nodes then runs on the rendered values.

use super::engine::{Code, Engine};
use super::path::DataPath;
use super::template::compile::CompileOptions;
use super::validate::Validator;
use super::{assert_validation, has_errors};
use crate::discover::DiscoveredFile;
use crate::finding::{Finding, Kind, Severity};
use crate::source::{SourceFile, Span};
use crate::yaml::{Comment, CommentKind, Document, DocumentSet, Node, Value};
use starlark::environment::FrozenModule;
use std::collections::HashMap;
use std::path::Path;

/// Why a template did not render: where and what ytt would say.
#[derive(Debug, Clone)]
pub struct RenderFailure {
    pub span: Span,
    pub message: String,
    pub cause: Cause,
}

/// What stopped a render.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    /// An explicit `fail()` / `assert.fail()`.
    Fail,
    /// The template's code does not parse: no data value changes that.
    Syntax,
    /// Any other error ytt stops on.
    Error,
}

/// A rendered template file.
pub struct Rendered {
    pub docs: Vec<Document>,
    module: FrozenModule,
}

/// Renders the templates of one package with its final data values.
pub struct Renderer {
    engine: Engine,
    options: CompileOptions,
    /// A failure is an error when the consumer gave values (flags, a
    /// scenario); with the values as shipped it is a warning, since a
    /// package may leave a required value to its consumer.
    fail_severity: Severity,
}

impl Renderer {
    pub fn new(
        root: &Path,
        values: &Node,
        consumer_values: bool,
        known_files: HashMap<
            std::path::PathBuf,
            (crate::source::FileId, std::sync::Arc<SourceFile>),
        >,
        options: CompileOptions,
    ) -> Renderer {
        let fallback = known_files
            .values()
            .next()
            .map_or(crate::source::FileId(0), |(id, _)| *id);
        Renderer {
            engine: Engine::for_templates(root, values).with_known_files(known_files, fallback),
            options,
            fail_severity: if consumer_values {
                Severity::Error
            } else {
                Severity::Warning
            },
        }
    }

    /// The package is files named one by one: loads see them by base name.
    pub fn with_flat_files(mut self, files: &[std::path::PathBuf]) -> Renderer {
        self.engine = self.engine.with_flat_files(files);
        self
    }

    /// ytt's `--implicit-map-key-overrides` for this package's renders.
    pub fn session_options(&self, implicit_map_key_overrides: bool) {
        self.engine
            .session()
            .borrow_mut()
            .implicit_map_key_overrides = implicit_map_key_overrides;
    }

    /// Render one template file.
    pub fn render(
        &self,
        file: &DiscoveredFile,
        set: &DocumentSet,
        source: &SourceFile,
    ) -> Result<Rendered, RenderFailure> {
        let line_span = |line: usize| {
            let start = source.line_start(line);
            Span::new(file.id, start, start + source.line_text(line).len())
        };
        let program =
            super::template::program(set, source, file.id, self.engine.session(), self.options)
                .map_err(|e| RenderFailure {
                    span: e.span.unwrap_or_else(|| line_span(e.line)),
                    message: e.message,
                    cause: if e.is_syntax {
                        Cause::Syntax
                    } else {
                        Cause::Error
                    },
                })?;
        let dir = file.path.parent().unwrap_or(Path::new("."));
        let result = self
            .engine
            .run_module(&source.name, &program.translated, dir);
        let docs = self.engine.session().borrow_mut().take_result(program.id);
        match result {
            Ok(module) => Ok(Rendered {
                docs: docs.unwrap_or_default(),
                module,
            }),
            Err((message, line, is_syntax)) => {
                self.engine.session().borrow_mut().reset_ctxs();
                let cause = match () {
                    _ if is_syntax => Cause::Syntax,
                    _ if message.starts_with("fail:") => Cause::Fail,
                    _ => Cause::Error,
                };
                let message = message
                    .strip_prefix("fail:")
                    .map_or(message.clone(), |m| m.trim().to_string());
                Err(RenderFailure {
                    span: line_span(line),
                    message,
                    cause,
                })
            }
        }
    }

    /// Render every template of a package (ytt's file order), reporting
    /// failures and output validations as findings; gives each file's
    /// documents.
    pub fn check(
        &self,
        templates: &[(&DiscoveredFile, &DocumentSet)],
        sources: &crate::source::Sources,
        findings: &mut Vec<Finding>,
    ) -> Vec<(crate::source::FileId, Vec<Document>)> {
        let mut outputs = Vec::new();
        for (file, set) in templates {
            let source = sources.get(file.id);
            match self.render(file, set, &source) {
                Ok(rendered) => {
                    self.validate_output(file.id, &rendered, findings);
                    outputs.push((file.id, rendered.docs));
                }
                Err(failure) => findings.push(self.failure_finding(failure)),
            }
        }
        outputs
    }

    fn failure_finding(&self, failure: RenderFailure) -> Finding {
        let (rule, kind, help) = match failure.cause {
            Cause::Fail => (
                "ytt/template-fail",
                Kind::Validation,
                "`ytt -f` stops here with these data values; give the value the template needs",
            ),
            Cause::Error => (
                "ytt/template-error",
                Kind::Validation,
                "`ytt -f` stops here: the template cannot be rendered with these data values",
            ),
            Cause::Syntax => {
                return Finding::new(
                    "ytt/starlark-syntax",
                    Kind::Syntax,
                    failure.span,
                    format!("template code does not parse: {}", failure.message),
                );
            }
        };
        Finding::new(rule, kind, failure.span, failure.message)
            .with_severity(self.fail_severity)
            .with_help(help)
    }

    /// `@assert/validate` on output nodes, run on what they rendered to.
    fn validate_output(
        &self,
        file: crate::source::FileId,
        rendered: &Rendered,
        findings: &mut Vec<Finding>,
    ) {
        if !rendered.docs.iter().any(has_output_rules) {
            return;
        }
        let scopes = HashMap::from([(file, rendered.module.clone())]);
        let code = Code {
            engine: &self.engine,
            scopes: &scopes,
        };
        for doc in &rendered.docs {
            let mut violations = Vec::new();
            let mut errors = Vec::new();
            let mut validator = Validator {
                findings: &mut violations,
                code: &code,
                root: Some(&doc.value),
                root_value: None,
                is_aborted: false,
            };
            if let Some(validation) = assert_validation(&doc.comments, &code, &mut errors) {
                validator.run(&doc.value, doc.span, &validation, &DataPath::root(), None);
            }
            walk(
                &doc.value,
                &DataPath::root(),
                &code,
                &mut validator,
                &mut errors,
            );
            findings.extend(errors);
            findings.extend(violations);
            if has_errors(findings) {
                return;
            }
        }
    }
}

fn has_output_rules(doc: &Document) -> bool {
    fn annotated(comments: &[Comment]) -> bool {
        comments.iter().any(|c| {
            matches!(&c.kind, CommentKind::Annotation { name, .. } if name == "assert/validate")
        })
    }
    fn node(n: &Node) -> bool {
        match &n.value {
            Value::Map(items) => items
                .iter()
                .any(|i| annotated(&i.comments) || node(&i.value)),
            Value::Array(items) => items
                .iter()
                .any(|i| annotated(&i.comments) || node(&i.value)),
            Value::Scalar(_) => false,
        }
    }
    annotated(&doc.comments) || node(&doc.value)
}

fn walk(
    node: &Node,
    path: &DataPath,
    code: &Code<'_>,
    validator: &mut Validator<'_>,
    errors: &mut Vec<Finding>,
) {
    match &node.value {
        Value::Map(items) => {
            for item in items {
                let item_path = path.key(&item.key.display());
                if let Some(validation) = assert_validation(&item.comments, code, errors) {
                    validator.run(
                        &item.value,
                        item.key_span,
                        &validation,
                        &item_path,
                        Some(node),
                    );
                }
                walk(&item.value, &item_path, code, validator, errors);
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                let item_path = path.index(index);
                if let Some(validation) = assert_validation(&item.comments, code, errors) {
                    validator.run(&item.value, item.span, &validation, &item_path, Some(node));
                }
                walk(&item.value, &item_path, code, validator, errors);
            }
        }
        Value::Scalar(_) => {}
    }
}
