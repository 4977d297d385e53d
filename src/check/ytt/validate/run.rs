//! Running: [`Validator`] walks final data values along their type tree and
//! runs each node's rules as ytt's pkg/validations/validate.go does (null,
//! `when=`, `not_null`, custom rules, then named rules), reporting each
//! violation at the value.

use super::super::engine::{CallError, Code};
use super::super::path::DataPath;
use super::super::rule::Validation;
use super::super::rule::{check_named, found_value};
use super::super::schema::{SchemaType, TypeKind};
use super::super::starlark::StarValue;
pub use crate::check::ytt::starlark::star_nodes::node_to_star;
use crate::finding::Finding;
use crate::rules;
use crate::source::Span;
use crate::yaml::{Node, ScalarValue, Value};

/// Runs the rules of a type tree over final data values.
pub struct Validator<'a> {
    pub findings: &'a mut Vec<Finding>,
    pub code: &'a Code<'a>,
    /// The whole document's value, for `ctx.root` (converted once).
    pub root: Option<&'a Node>,
    /// `root` converted, on the first `when=` that needs it.
    pub root_value: Option<StarValue>,
    /// Set when a `when=` fails: ytt then stops all validation.
    pub is_aborted: bool,
}

impl Validator<'_> {
    /// Validate `node` (located at `at`) against `ty` and everything below it.
    pub fn validate(
        &mut self,
        node: &Node,
        at: Span,
        ty: &SchemaType,
        path: &DataPath,
        parent: Option<&Node>,
    ) {
        if self.is_aborted {
            return;
        }
        if let Some(validation) = &ty.validation {
            self.run(node, at, validation, path, parent);
        }
        match (&node.value, &ty.kind) {
            (Value::Map(items), TypeKind::Map(_)) => {
                let entries = ty.entries_by_key();
                for item in items {
                    let key = item.key.display();
                    if let Some(&child) = entries.get(key.as_str()) {
                        self.validate(
                            &item.value,
                            item.key_span,
                            child,
                            &path.key(&key),
                            Some(node),
                        );
                    }
                }
            }
            (Value::Array(items), TypeKind::Array(item_type)) => {
                for (index, item) in items.iter().enumerate() {
                    self.validate(
                        &item.value,
                        item.span,
                        item_type,
                        &path.index(index),
                        Some(node),
                    );
                }
            }
            _ => {}
        }
    }

    pub fn run(
        &mut self,
        node: &Node,
        at: Span,
        validation: &Validation,
        path: &DataPath,
        parent: Option<&Node>,
    ) {
        let at = value_span(node, at);
        // ytt: null skips every rule (before when=) unless not_null is set.
        if node.is_null() && !validation.not_null {
            return;
        }
        let value = node_to_star(node);
        if let Some(when) = &validation.when {
            let parent = parent.map_or(StarValue::None, node_to_star);
            let root_node = self.root;
            let root = self
                .root_value
                .get_or_insert_with(|| root_node.map_or(StarValue::None, node_to_star));
            let failure = match self.code.engine.call_when(&when.0, &value, &parent, root) {
                Ok(StarValue::Bool(true)) => None,
                Ok(StarValue::Bool(false)) => return,
                Ok(other) => Some(format!("want when= to be bool, got {}", other.type_name())),
                Err(e @ CallError::WhenArity(_)) => Some(e.to_string()),
                Err(e) => Some(format!(
                    "Failure evaluating when=: {}",
                    strip_fail(&e.to_string())
                )),
            };
            if let Some(message) = failure {
                self.findings.push(
                    Finding::new(
                        &rules::ytt::WHEN,
                        validation.span,
                        format!("Validating {path}: {message}"),
                    )
                    .with_path(path.to_string())
                    .with_help("ytt stops validating at the first failing when= predicate"),
                );
                self.is_aborted = true;
                return;
            }
        } else if validation.has_when {
            return;
        }
        if node.is_null() {
            let must_be = validation
                .not_null_description
                .clone()
                .unwrap_or_else(|| "not null".into());
            self.violation(
                at,
                validation,
                path,
                must_be,
                Some("null".into()),
                "not_null=True".into(),
            );
            return;
        }
        for rule in &validation.custom {
            let Some(check) = &rule.check else { continue };
            let is_object = !matches!(
                self.code.engine.type_of(&check.0).as_str(),
                "function" | "native_function" | "builtin_function_or_method"
            );
            let found = match self.code.engine.call(&check.0, &[&value], &[]) {
                Ok(StarValue::Bool(true)) => continue,
                Ok(StarValue::None) if is_object => continue,
                Ok(_) => None,
                Err(e) => Some(strip_fail(&e.to_string())),
            };
            if let Some(template) = &rule.message {
                let key = path.last_key().unwrap_or_else(|| path.to_string());
                let text = template
                    .replace("{key}", &key)
                    .replace("{value}", &found_value(&value))
                    .replace("{desc}", &rule.description)
                    .replace("{failure}", found.as_deref().unwrap_or(""));
                self.findings.push(
                    Finding::new(&rules::ytt::VALIDATION, at, text)
                        .with_path(path.to_string())
                        .with_label(format!("must be {}", rule.description))
                        .with_related(
                            validation.span,
                            format!("rule declared here (@{})", validation.annotation),
                        ),
                );
                continue;
            }
            self.violation(
                at,
                validation,
                path,
                rule.description.clone(),
                found,
                format!("(\"{}\", ...)", rule.description),
            );
        }
        for spec in &validation.named {
            if let Some(found) = check_named(&spec.rule, &value) {
                let must_be = spec
                    .description
                    .clone()
                    .unwrap_or_else(|| spec.rule.must_be());
                self.violation(
                    at,
                    validation,
                    path,
                    must_be,
                    Some(found),
                    spec.rule.written(),
                );
            }
        }
    }

    fn violation(
        &mut self,
        at: Span,
        validation: &Validation,
        path: &DataPath,
        must_be: String,
        found: Option<String>,
        written: String,
    ) {
        let message = match &found {
            Some(found) => format!("{path} must be {must_be}, found {found}"),
            None => format!("{path} must be {must_be}"),
        };
        let finding = Finding::new(&rules::ytt::VALIDATION, at, message)
            .with_path(path.to_string())
            .with_label(format!("breaks {written}"))
            .with_related(
                validation.span,
                format!("rule declared here (@{})", validation.annotation),
            );
        self.findings.push(finding);
    }
}

/// ytt strips a leading `fail: ` from error texts shown as `found:`.
fn strip_fail(message: &str) -> String {
    let message = message.trim();
    message
        .strip_prefix("fail: ")
        .or_else(|| message.strip_prefix("check: "))
        .unwrap_or(message)
        .to_string()
}

/// Where to underline a value: a one-line scalar itself, else its owner
/// (the map item's key, the array item, the document), whose line ytt reports.
pub fn value_span(node: &Node, owner: Span) -> Span {
    match &node.value {
        Value::Scalar(s)
            if node.span.start < node.span.end
                && s.resolved != ScalarValue::Null
                && node.span.file == owner.file
                && !matches!(
                    s.style,
                    crate::yaml::ScalarStyle::Literal | crate::yaml::ScalarStyle::Folded
                ) =>
        {
            node.span
        }
        _ => owner,
    }
}
