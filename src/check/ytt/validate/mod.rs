//! Validations: `@schema/validation` (and `@assert/validate`) annotations
//! parsed into rules, and rules run on the final data values as ytt's
//! pkg/validations does: null skips everything unless `not_null`, which runs
//! first; then custom rules; then named rules in ytt's fixed order.

use super::engine::Code;
use super::path::DataPath;
use super::schema::{SchemaType, TypeKind};
use super::starlark::{CallArgs, Handle, StarValue};
use crate::finding::{Finding, Kind};
use crate::source::Span;
use crate::yaml::{Comment, Node, ScalarValue, Value};

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

/// The named rules, in the order ytt runs them; after ytt's own six come the
/// seed design's, in the order written.
#[derive(Debug, Clone, PartialEq)]
pub enum NamedRule {
    MinLen(i64),
    MaxLen(i64),
    Min(StarValue),
    Max(StarValue),
    /// `None`: every child (`one_not_null=True`).
    OneNotNull(Option<Vec<String>>),
    /// The allowed values as written: a list or a tuple.
    OneOf(StarValue),
    Format(String),
    StartsWith(String),
    EndsWith(String),
    Contains(StarValue),
    Matches(String),
    Even,
    Odd,
    MultipleOf(StarValue),
    Len(i64),
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

impl NamedRule {
    fn order(&self) -> u8 {
        match self {
            NamedRule::MinLen(_) => 0,
            NamedRule::MaxLen(_) => 1,
            NamedRule::Min(_) => 2,
            NamedRule::Max(_) => 3,
            NamedRule::OneNotNull(_) => 4,
            NamedRule::OneOf(_) => 5,
            _ => 6,
        }
    }

    /// ytt's `must be:` text.
    pub fn must_be(&self) -> String {
        match self {
            NamedRule::MinLen(n) => format!("length >= {n}"),
            NamedRule::MaxLen(n) => format!("length <= {n}"),
            NamedRule::Min(x) => format!("a value >= {x}"),
            NamedRule::Max(x) => format!("a value <= {x}"),
            NamedRule::OneNotNull(Some(keys)) => format!(
                "exactly one of {} to be not null",
                StarValue::List(keys.iter().map(|k| StarValue::Str(k.clone())).collect())
            ),
            NamedRule::OneNotNull(None) => "exactly one of all children to be not null".into(),
            NamedRule::OneOf(values) => format!("one of {values}"),
            NamedRule::Format(name) => format!("a valid {name}"),
            NamedRule::StartsWith(prefix) => format!("a string starting with {prefix:?}"),
            NamedRule::EndsWith(suffix) => format!("a string ending with {suffix:?}"),
            NamedRule::Contains(item) => format!("a value containing {item}"),
            NamedRule::Matches(pattern) => format!("a string matching {pattern:?}"),
            NamedRule::Even => "an even number".into(),
            NamedRule::Odd => "an odd number".into(),
            NamedRule::MultipleOf(n) => format!("a multiple of {n}"),
            NamedRule::Len(n) => format!("length == {n}"),
        }
    }

    /// The rule as written (for labels).
    fn written(&self) -> String {
        match self {
            NamedRule::MinLen(n) => format!("min_len={n}"),
            NamedRule::MaxLen(n) => format!("max_len={n}"),
            NamedRule::Min(x) => format!("min={x}"),
            NamedRule::Max(x) => format!("max={x}"),
            NamedRule::OneNotNull(Some(keys)) => format!(
                "one_not_null={}",
                StarValue::List(keys.iter().map(|k| StarValue::Str(k.clone())).collect())
            ),
            NamedRule::OneNotNull(None) => "one_not_null=True".into(),
            NamedRule::OneOf(values) => format!("one_of={values}"),
            NamedRule::Format(name) => format!("format={name:?}"),
            NamedRule::StartsWith(prefix) => format!("starts_with={prefix:?}"),
            NamedRule::EndsWith(suffix) => format!("ends_with={suffix:?}"),
            NamedRule::Contains(item) => format!("contains={item}"),
            NamedRule::Matches(pattern) => format!("matches={pattern:?}"),
            NamedRule::Even => "even=True".into(),
            NamedRule::Odd => "odd=True".into(),
            NamedRule::MultipleOf(n) => format!("multiple_of={n}"),
            NamedRule::Len(n) => format!("len={n}"),
        }
    }
}

/// Parse the arguments of a validation annotation, with ytt's error texts.
pub fn parse_validation(
    call: &CallArgs,
    comment: &Comment,
    annotation: &'static str,
) -> Result<Validation, String> {
    let prefix = format!("Invalid @{annotation} annotation - ");
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
        return Err(format!(
            "{prefix}expected annotation to have 2-tuple as argument(s), but found no arguments"
        ));
    }
    for rule in &call.positional {
        let StarValue::Tuple(items) = rule else {
            return Err(format!(
                "{prefix}expected annotation to have 2-tuple as argument(s), but found: {rule}"
            ));
        };
        if items.len() != 2 && items.len() != 3 {
            return Err(format!(
                "{prefix}expected 2-tuple, but found tuple with length {}",
                items.len()
            ));
        }
        let StarValue::Str(description) = &items[0] else {
            return Err(format!(
                "{prefix}expected first item in the 2-tuple to be a string describing a valid value, but was {}",
                items[0].type_name()
            ));
        };
        if !is_callable(&items[1]) {
            return Err(format!(
                "{prefix}expected second item in tuple to be an assertion function or assertion object, but was a {}",
                items[1].type_name()
            ));
        }
        let message = match items.get(2) {
            None => None,
            Some(StarValue::Str(template)) => {
                validation.compat.push(format!(
                    "@{annotation}: a third tuple item (a message template) is confvet's; ytt rejects the annotation (expected 2-tuple, but found tuple with length 3)"
                ));
                Some(template.clone())
            }
            Some(other) => {
                return Err(format!(
                    "{prefix}expected the third item of a rule tuple to be a message template string, but was {}",
                    other.type_name()
                ));
            }
        };
        validation.custom.push(CustomRule {
            description: description.clone(),
            check: handle_of(&items[1]),
            message,
        });
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
        let number = |value: &StarValue| -> Result<i64, String> {
            match value {
                StarValue::Int(i) => Ok(*i),
                // ytt truncates: min_len=8.9 means 8.
                StarValue::Float(f) => Ok(f.trunc() as i64),
                other => Err(format!(
                    "{prefix}expected keyword argument \"{key}\" to be a number, but was {}",
                    other.type_name()
                )),
            }
        };
        let string = |value: &StarValue| -> Result<String, String> {
            match value {
                StarValue::Str(s) => Ok(s.clone()),
                other => Err(format!(
                    "{prefix}expected keyword argument \"{key}\" to be a string, but was {}",
                    other.type_name()
                )),
            }
        };
        let flag = |value: &StarValue| -> Result<bool, String> {
            match value {
                StarValue::Bool(b) => Ok(*b),
                other => Err(format!(
                    "{prefix}expected keyword argument \"{key}\" to be a boolean, but was {}",
                    other.type_name()
                )),
            }
        };
        let is_seed = !matches!(
            key.as_str(),
            "min_len" | "max_len" | "min" | "max" | "not_null" | "one_not_null" | "one_of" | "when"
        );
        let rule = match key.as_str() {
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
                    return Err(format!("{prefix}one_not_null= cannot be False"));
                }
                StarValue::List(keys) | StarValue::Tuple(keys) => {
                    Some(NamedRule::OneNotNull(Some(
                        keys.iter()
                            .map(|k| match k {
                                StarValue::Str(s) => s.clone(),
                                other => other.to_string(),
                            })
                            .collect(),
                    )))
                }
                other => {
                    return Err(format!(
                        "{prefix}expected keyword argument \"one_not_null\" to be a sequence or True, but was {}",
                        other.type_name()
                    ));
                }
            },
            "one_of" => match value {
                StarValue::List(_) | StarValue::Tuple(_) => Some(NamedRule::OneOf(value.clone())),
                other => {
                    return Err(format!(
                        "{prefix}expected keyword argument one_of to be a sequence, but was {}",
                        other.type_name()
                    ));
                }
            },
            "when" => {
                validation.has_when = true;
                validation.when = handle_of(value);
                if !is_callable(value) {
                    return Err(format!(
                        "{prefix}expected keyword argument \"when\" to be a function, but was {}",
                        value.type_name()
                    ));
                }
                None
            }
            "format" => {
                let name = string(value)?;
                if !FORMATS.contains(&name.as_str()) {
                    return Err(format!(
                        "{prefix}unknown format {name:?} (known: {})",
                        FORMATS.join(", ")
                    ));
                }
                Some(NamedRule::Format(name))
            }
            "starts_with" => Some(NamedRule::StartsWith(string(value)?)),
            "ends_with" => Some(NamedRule::EndsWith(string(value)?)),
            "contains" => Some(NamedRule::Contains(value.clone())),
            "matches" => {
                let pattern = string(value)?;
                if let Err(e) = regex::Regex::new(&pattern) {
                    return Err(format!(
                        "{prefix}matches= is not a valid regular expression: {e}"
                    ));
                }
                Some(NamedRule::Matches(pattern))
            }
            "even" => flag(value)?.then_some(NamedRule::Even),
            "odd" => flag(value)?.then_some(NamedRule::Odd),
            "multiple_of" => match value {
                StarValue::Int(0) => return Err(format!("{prefix}multiple_of= cannot be 0")),
                StarValue::Int(_) | StarValue::Float(_) => {
                    Some(NamedRule::MultipleOf(value.clone()))
                }
                other => {
                    return Err(format!(
                        "{prefix}expected keyword argument \"multiple_of\" to be a number, but was {}",
                        other.type_name()
                    ));
                }
            },
            "len" => Some(NamedRule::Len(number(value)?)),
            other => return Err(format!("{prefix}unknown keyword argument \"{other}\"")),
        };
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

fn handle_of(value: &StarValue) -> Option<Handle> {
    match value {
        StarValue::Other { handle, .. } => handle.clone(),
        _ => None,
    }
}

fn is_callable(value: &StarValue) -> bool {
    matches!(value, StarValue::Other { type_name, .. } if type_name == "function" || type_name == "builtin_function_or_method" || type_name == "struct")
}

/// A data value as the Starlark value a rule sees.
pub fn node_to_star(node: &Node) -> StarValue {
    match &node.value {
        Value::Scalar(s) => match &s.resolved {
            ScalarValue::Null => StarValue::None,
            ScalarValue::Bool(b) => StarValue::Bool(*b),
            ScalarValue::Int(i) => StarValue::Int(*i),
            ScalarValue::Float(f) => StarValue::Float(*f),
            ScalarValue::Str(s) => StarValue::Str(s.clone()),
        },
        Value::Map(items) => StarValue::Dict(
            items
                .iter()
                .map(|i| (StarValue::Str(i.key.display()), node_to_star(&i.value)))
                .collect(),
        ),
        Value::Array(items) => {
            StarValue::List(items.iter().map(|i| node_to_star(&i.value)).collect())
        }
    }
}

/// A value in a `found` text: strings unquoted, as ytt prints them.
fn found_value(value: &StarValue) -> String {
    match value {
        StarValue::Str(s) => s.clone(),
        StarValue::Dict(_) | StarValue::List(_) => {
            let text = value.to_string();
            if text.len() > 60 {
                format!("{}...", &text[..text.floor_char_boundary(57)])
            } else {
                text
            }
        }
        other => other.to_string(),
    }
}

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
                for item in items {
                    let key = item.key.display();
                    if let Some(child) = ty.entry(&key) {
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
                Err(e) if e.starts_with("Failed to evaluate") => Some(e),
                Err(e) => Some(format!("Failure evaluating when=: {}", strip_fail(&e))),
            };
            if let Some(message) = failure {
                self.findings.push(
                    Finding::new(
                        "ytt/when",
                        Kind::Schema,
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
                Err(e) => Some(strip_fail(&e)),
            };
            if let Some(template) = &rule.message {
                let key = path.last_key().unwrap_or_else(|| path.to_string());
                let text = template
                    .replace("{key}", &key)
                    .replace("{value}", &found_value(&value))
                    .replace("{desc}", &rule.description)
                    .replace("{failure}", found.as_deref().unwrap_or(""));
                self.findings.push(
                    Finding::new("ytt/validation", Kind::Validation, at, text)
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
        let finding = Finding::new("ytt/validation", Kind::Validation, at, message)
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

/// None when the rule holds; else the `found` text.
pub fn check_named(rule: &NamedRule, value: &StarValue) -> Option<String> {
    match rule {
        NamedRule::MinLen(n) | NamedRule::MaxLen(n) => {
            let length = match value {
                StarValue::Str(s) => s.len() as i64,
                StarValue::List(items) | StarValue::Tuple(items) => items.len() as i64,
                StarValue::Dict(items) => items.len() as i64,
                other => return Some(format!("value of type {} has no length", other.type_name())),
            };
            let holds = if matches!(rule, NamedRule::MinLen(_)) {
                length >= *n
            } else {
                length <= *n
            };
            (!holds).then(|| format!("length {length}"))
        }
        NamedRule::Min(bound) | NamedRule::Max(bound) => {
            let is_min = matches!(rule, NamedRule::Min(_));
            match compare(value, bound) {
                Some(ordering) => {
                    let holds = if is_min {
                        ordering.is_ge()
                    } else {
                        ordering.is_le()
                    };
                    (!holds).then(|| found_value(value))
                }
                None => Some(format!(
                    "{} {} {} not implemented",
                    value.type_name(),
                    if is_min { ">=" } else { "<=" },
                    bound.type_name()
                )),
            }
        }
        NamedRule::OneNotNull(keys) => {
            let StarValue::Dict(items) = value else {
                return Some(format!("value of type {} is not a map", value.type_name()));
            };
            if items.is_empty() {
                return Some("value is empty".into());
            }
            let set: Vec<String> = match keys {
                Some(keys) => keys
                    .iter()
                    .filter(|k| {
                        items.iter().any(|(key, v)| {
                            matches!(key, StarValue::Str(s) if s == *k) && *v != StarValue::None
                        })
                    })
                    .cloned()
                    .collect(),
                None => items
                    .iter()
                    .filter(|(_, v)| *v != StarValue::None)
                    .map(|(k, _)| found_value(k))
                    .collect(),
            };
            match set.len() {
                1 => None,
                0 => Some("all values are null".into()),
                _ => Some(format!(
                    "{} are not null",
                    StarValue::List(set.into_iter().map(StarValue::Str).collect())
                )),
            }
        }
        NamedRule::OneOf(StarValue::List(values) | StarValue::Tuple(values)) => {
            let holds = values.iter().any(|allowed| {
                compare(value, allowed).is_some_and(|o| o.is_eq()) && same_kind(value, allowed)
            });
            (!holds).then(|| found_value(value))
        }
        NamedRule::Format(name) => match value {
            StarValue::Str(text) => {
                (!super::formats::is_valid(name, text)).then(|| found_value(value))
            }
            other => Some(format!("a {} is not a {name}", other.type_name())),
        },
        NamedRule::StartsWith(prefix) => match value {
            StarValue::Str(text) => {
                (!text.starts_with(prefix.as_str())).then(|| found_value(value))
            }
            other => Some(format!("a {}", other.type_name())),
        },
        NamedRule::EndsWith(suffix) => match value {
            StarValue::Str(text) => (!text.ends_with(suffix.as_str())).then(|| found_value(value)),
            other => Some(format!("a {}", other.type_name())),
        },
        NamedRule::Contains(item) => {
            let holds = match (value, item) {
                (StarValue::Str(text), StarValue::Str(part)) => text.contains(part.as_str()),
                (StarValue::List(items) | StarValue::Tuple(items), item) => {
                    items.iter().any(|i| i == item)
                }
                (StarValue::Dict(items), key) => items.iter().any(|(k, _)| k == key),
                _ => false,
            };
            (!holds).then(|| found_value(value))
        }
        NamedRule::Matches(pattern) => match (value, regex::Regex::new(pattern)) {
            (StarValue::Str(text), Ok(re)) => (!re.is_match(text)).then(|| found_value(value)),
            (other, _) => Some(format!("a {}", other.type_name())),
        },
        NamedRule::Even | NamedRule::Odd => match value {
            StarValue::Int(i) => {
                let is_even = i % 2 == 0;
                (is_even != matches!(rule, NamedRule::Even)).then(|| i.to_string())
            }
            other => Some(format!("a {}", other.type_name())),
        },
        NamedRule::MultipleOf(divisor) => match (value.as_number(), divisor.as_number()) {
            (Some(x), Some(d)) if d != 0.0 => {
                ((x / d).fract().abs() > 1e-9).then(|| found_value(value))
            }
            _ => Some(format!("a {}", value.type_name())),
        },
        NamedRule::Len(n) => {
            let length = match value {
                StarValue::Str(s) => s.len() as i64,
                StarValue::List(items) | StarValue::Tuple(items) => items.len() as i64,
                StarValue::Dict(items) => items.len() as i64,
                other => return Some(format!("value of type {} has no length", other.type_name())),
            };
            (length != *n).then(|| format!("length {length}"))
        }
        NamedRule::OneOf(other) => Some(format!(
            "one_of= needs a sequence, not {}",
            other.type_name()
        )),
    }
}

fn same_kind(a: &StarValue, b: &StarValue) -> bool {
    a.as_number().is_some() && b.as_number().is_some()
        || std::mem::discriminant(a) == std::mem::discriminant(b)
}

/// Starlark's ordering: numbers numerically, strings and sequences
/// lexicographically; other pairs cannot be compared.
fn compare(a: &StarValue, b: &StarValue) -> Option<std::cmp::Ordering> {
    match (a, b) {
        (StarValue::Str(x), StarValue::Str(y)) => Some(x.cmp(y)),
        (StarValue::Bool(x), StarValue::Bool(y)) => Some(x.cmp(y)),
        (StarValue::Int(x), StarValue::Int(y)) => Some(x.cmp(y)),
        (StarValue::List(x), StarValue::List(y)) | (StarValue::Tuple(x), StarValue::Tuple(y)) => {
            for (p, q) in x.iter().zip(y) {
                match compare(p, q)? {
                    std::cmp::Ordering::Equal => continue,
                    other => return Some(other),
                }
            }
            Some(x.len().cmp(&y.len()))
        }
        (StarValue::None, StarValue::None) => Some(std::cmp::Ordering::Equal),
        _ => match (a.as_number(), b.as_number()) {
            (Some(x), Some(y)) => x.partial_cmp(&y),
            _ => None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_rules_report_ytt_texts() {
        let max = NamedRule::Max(StarValue::Int(32767));
        assert_eq!(max.must_be(), "a value <= 32767");
        assert_eq!(
            check_named(&max, &StarValue::Int(70000)).as_deref(),
            Some("70000")
        );
        assert_eq!(check_named(&max, &StarValue::Int(443)), None);
        let min_len = NamedRule::MinLen(8);
        assert_eq!(
            check_named(&min_len, &StarValue::Str("hunter2".into())).as_deref(),
            Some("length 7")
        );
        let one_of = NamedRule::OneOf(StarValue::List(vec![
            StarValue::Float(0.5),
            StarValue::Float(1.0),
        ]));
        assert_eq!(one_of.must_be(), "one of [0.5, 1]");
        assert_eq!(check_named(&one_of, &StarValue::Int(1)), None);
        assert!(check_named(&one_of, &StarValue::Str("1".into())).is_some());
        let min = NamedRule::Min(StarValue::Int(1));
        assert_eq!(
            check_named(&min, &StarValue::Dict(vec![])).as_deref(),
            Some("dict >= int not implemented")
        );
        assert_eq!(
            check_named(
                &NamedRule::Min(StarValue::Str("v1.29".into())),
                &StarValue::Str("v1.3".into())
            ),
            None
        );
    }

    #[test]
    fn one_not_null_counts_set_keys() {
        let rule = NamedRule::OneNotNull(Some(vec!["oidc".into(), "ldap".into()]));
        let both_null = StarValue::Dict(vec![
            (StarValue::Str("oidc".into()), StarValue::None),
            (StarValue::Str("ldap".into()), StarValue::None),
        ]);
        assert_eq!(
            check_named(&rule, &both_null).as_deref(),
            Some("all values are null")
        );
        let both_set = StarValue::Dict(vec![
            (StarValue::Str("oidc".into()), StarValue::Int(1)),
            (StarValue::Str("ldap".into()), StarValue::Int(1)),
        ]);
        assert_eq!(
            check_named(&rule, &both_set).as_deref(),
            Some("[\"oidc\", \"ldap\"] are not null")
        );
    }
}
