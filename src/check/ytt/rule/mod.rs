//! Validation rules as data: a `@schema/validation` or `@assert/validate`
//! annotation parsed into a [`Validation`] (custom rules, named rules,
//! `when=`), and whether a value keeps a named rule (`named`). Below both
//! `schema` (which attaches rules to types) and `validate` (which runs them).
//!
//! Rules: a validation annotation's arguments parsed into a [`Validation`]
//! (custom `(description, check)` rules, named rules, `not_null`, `when=`),
//! with ytt's error texts, as ytt's pkg/validations/annotations.go.

mod error;
mod named;

pub use error::{AnnotationError, Problem};

pub(crate) use named::found_value;
pub use named::{NamedRule, check_named};

use super::starlark::{CallArgs, Handle, StarValue};
use crate::source::Span;
use crate::yaml::Comment;

/// The rules of one annotation.
#[derive(Debug, Clone)]
pub struct Validation {
    /// The annotation comment ("rule declared here").
    pub span: Span,
    /// `schema/validation` or `assert/validate`.
    pub annotation: &'static str,
    pub not_null: bool,
    /// The description given as `not_null=("...", True)` (seed design).
    pub not_null_description: Option<String>,
    pub custom: Vec<CustomRule>,
    pub named: Vec<NamedRuleSpec>,
    /// The `when=` predicate.
    pub when: Option<Handle>,
    /// A `when=` was given but could not be kept (not from compiled code):
    /// the rules are then not run rather than run unconditionally.
    pub has_when: bool,
    /// Constructs the ytt command rejects or ignores, which confvet
    /// implements (seed design): each becomes a `compat` warning.
    pub compat: Vec<String>,
}

/// A `(description, check)` rule: a function, an assertion object or a
/// struct with a `check`; with a third item, the violation message template
/// (seed design: `{key}`, `{value}`, `{desc}`, `{failure}`).
#[derive(Debug, Clone)]
pub struct CustomRule {
    pub description: String,
    pub check: Option<Handle>,
    pub message: Option<String>,
}

/// A named rule and, when given as `("description", value)`, its description.
#[derive(Debug, Clone, PartialEq)]
pub struct NamedRuleSpec {
    pub rule: NamedRule,
    pub description: Option<String>,
}

/// The formats of `format=` (seed design).
pub const FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "email",
    "hostname",
    "ip",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "port",
    "percent",
    "duration",
    "quantity",
];

/// Parse the arguments of a validation annotation, with ytt's error texts.
pub fn parse_validation(
    call: &CallArgs,
    comment: &Comment,
    annotation: &'static str,
) -> Result<Validation, AnnotationError> {
    let refuse = |problem| AnnotationError {
        annotation,
        problem,
    };
    let mut validation = Validation {
        span: comment.span,
        annotation,
        not_null: false,
        not_null_description: None,
        custom: Vec::new(),
        named: Vec::new(),
        when: None,
        has_when: false,
        compat: Vec::new(),
    };
    if call.positional.is_empty() && call.named.is_empty() {
        return Err(refuse(Problem::NoArguments));
    }
    for rule in &call.positional {
        let custom = custom_rule(rule, annotation, &mut validation.compat).map_err(refuse)?;
        validation.custom.push(custom);
    }
    for (key, given) in &call.named {
        // Seed design: a named rule's argument may be ("description", value).
        let (value, description) = match given {
            StarValue::Tuple(items)
                if items.len() == 2
                    && matches!(items[0], StarValue::Str(_))
                    && key != "one_of"
                    && key != "when" =>
            {
                validation.compat.push(format!(
                    "@{annotation}: {key}=(description, value) is confvet's; ytt rejects a tuple argument for {key}="
                ));
                let StarValue::Str(description) = &items[0] else {
                    unreachable!()
                };
                (&items[1], Some(description.clone()))
            }
            other => (other, None),
        };
        let is_seed = !matches!(
            key.as_str(),
            "min_len" | "max_len" | "min" | "max" | "not_null" | "one_not_null" | "one_of" | "when"
        );
        let rule = named_rule(key, (value, &description), &mut validation).map_err(refuse)?;
        if is_seed {
            validation.compat.push(format!(
                "@{annotation}: {key}= is a named rule of confvet's; ytt rejects it (unknown keyword argument \"{key}\")"
            ));
        }
        if let Some(rule) = rule {
            validation.named.push(NamedRuleSpec { rule, description });
        }
    }
    validation.named.sort_by_key(|spec| spec.rule.order());
    Ok(validation)
}

/// A positional rule: a 2-tuple (description, assertion); a third item, a
/// message template, is confvet's (noted in `compat`).
fn custom_rule(
    rule: &StarValue,
    annotation: &str,
    compat: &mut Vec<String>,
) -> Result<CustomRule, Problem> {
    let StarValue::Tuple(items) = rule else {
        return Err(Problem::NotATuple {
            found: rule.to_string(),
        });
    };
    if items.len() != 2 && items.len() != 3 {
        return Err(Problem::TupleLength(items.len()));
    }
    let StarValue::Str(description) = &items[0] else {
        return Err(Problem::DescriptionNotAString {
            type_name: items[0].type_name().to_string(),
        });
    };
    if !is_callable(&items[1]) {
        return Err(Problem::CheckNotCallable {
            type_name: items[1].type_name().to_string(),
        });
    }
    let message = match items.get(2) {
        None => None,
        Some(StarValue::Str(template)) => {
            compat.push(format!(
                "@{annotation}: a third tuple item (a message template) is confvet's; ytt rejects the annotation (expected 2-tuple, but found tuple with length 3)"
            ));
            Some(template.clone())
        }
        Some(other) => {
            return Err(Problem::MessageNotAString {
                type_name: other.type_name().to_string(),
            });
        }
    };
    Ok(CustomRule {
        description: description.clone(),
        check: handle_of(&items[1]),
        message,
    })
}

/// A named rule (`min_len=8`, `when=...`): the rule, or None for the
/// keywords that set the validation itself (`not_null`, `when`).
fn named_rule(
    key: &str,
    (value, description): (&StarValue, &Option<String>),
    validation: &mut Validation,
) -> Result<Option<NamedRule>, Problem> {
    let wrong_type = |expected: &'static str, value: &StarValue| Problem::KeywordType {
        key: key.to_string(),
        quoted: key != "one_of",
        expected,
        type_name: value.type_name().to_string(),
    };
    let number = |value: &StarValue| match value {
        StarValue::Int(i) => Ok(*i),
        // ytt truncates: min_len=8.9 means 8.
        StarValue::Float(f) => Ok(f.trunc() as i64),
        other => Err(wrong_type("a number", other)),
    };
    let string = |value: &StarValue| match value {
        StarValue::Str(s) => Ok(s.clone()),
        other => Err(wrong_type("a string", other)),
    };
    let flag = |value: &StarValue| match value {
        StarValue::Bool(b) => Ok(*b),
        other => Err(wrong_type("a boolean", other)),
    };
    let rule = match key {
        "min_len" => Some(NamedRule::MinLen(number(value)?)),
        "max_len" => Some(NamedRule::MaxLen(number(value)?)),
        "min" => Some(NamedRule::Min(value.clone())),
        "max" => Some(NamedRule::Max(value.clone())),
        "not_null" => {
            validation.not_null = flag(value)?;
            validation.not_null_description = description.clone();
            None
        }
        "one_not_null" => match value {
            StarValue::Bool(true) => Some(NamedRule::OneNotNull(None)),
            StarValue::Bool(false) => {
                return Err(Problem::OneNotNullFalse);
            }
            StarValue::List(keys) | StarValue::Tuple(keys) => Some(NamedRule::OneNotNull(Some(
                keys.iter()
                    .map(|k| match k {
                        StarValue::Str(s) => s.clone(),
                        other => other.to_string(),
                    })
                    .collect(),
            ))),
            other => return Err(wrong_type("a sequence or True", other)),
        },
        "one_of" => match value {
            StarValue::List(_) | StarValue::Tuple(_) => Some(NamedRule::OneOf(value.clone())),
            other => return Err(wrong_type("a sequence", other)),
        },
        "when" => {
            validation.has_when = true;
            validation.when = handle_of(value);
            if !is_callable(value) {
                return Err(wrong_type("a function", value));
            }
            None
        }
        "format" => {
            let name = string(value)?;
            if !FORMATS.contains(&name.as_str()) {
                return Err(Problem::UnknownFormat {
                    name,
                    known: FORMATS,
                });
            }
            Some(NamedRule::Format(name))
        }
        "starts_with" => Some(NamedRule::StartsWith(string(value)?)),
        "ends_with" => Some(NamedRule::EndsWith(string(value)?)),
        "contains" => Some(NamedRule::Contains(value.clone())),
        "matches" => {
            let pattern = string(value)?;
            if let Err(error) = regex::Regex::new(&pattern) {
                return Err(Problem::BadPattern {
                    error: error.to_string(),
                });
            }
            Some(NamedRule::Matches(pattern))
        }
        "even" => flag(value)?.then_some(NamedRule::Even),
        "odd" => flag(value)?.then_some(NamedRule::Odd),
        "multiple_of" => match value {
            StarValue::Int(0) => return Err(Problem::MultipleOfZero),
            StarValue::Int(_) | StarValue::Float(_) => Some(NamedRule::MultipleOf(value.clone())),
            other => return Err(wrong_type("a number", other)),
        },
        "len" => Some(NamedRule::Len(number(value)?)),
        other => return Err(Problem::UnknownKeyword(other.to_string())),
    };
    Ok(rule)
}

fn handle_of(value: &StarValue) -> Option<Handle> {
    match value {
        StarValue::Other { handle, .. } => handle.clone(),
        _ => None,
    }
}

fn is_callable(value: &StarValue) -> bool {
    matches!(value, StarValue::Other { type_name, .. } if type_name == "function" || type_name == "builtin_function_or_method" || type_name == "struct")
}
