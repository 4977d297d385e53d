//! The rules of Carvel ytt packages.

use super::model::{Kind, Rule, Severity, rule};

rule!(
    TYPE_MISMATCH,
    "ytt/type-mismatch",
    Type,
    Error,
    fix = Unsafe
);
rule!(UNKNOWN_KEY, "ytt/unknown-key", UnknownKey, Error);
rule!(VALIDATION, "ytt/validation", Validation, Error);
rule!(TEMPLATE_FAIL, "ytt/template-fail", Validation, Error);
rule!(TEMPLATE_ERROR, "ytt/template-error", Validation, Error);
rule!(
    OVERLAY_UNCHECKED,
    "ytt/overlay-unchecked",
    Validation,
    Warning
);
rule!(
    PACKAGE_UNCHECKED,
    "ytt/package-unchecked",
    Validation,
    Warning
);
rule!(SCHEMA, "ytt/schema", Schema, Error);
rule!(RULE_ANNOTATION, "ytt/rule-annotation", Schema, Error);
rule!(STARLARK_SYNTAX, "ytt/starlark-syntax", Syntax, Error);
rule!(UNDEFINED, "ytt/undefined", Reference, Error);
rule!(WHEN, "ytt/when", Schema, Error);
rule!(
    PACKAGE_SCHEMA_DRIFT,
    "ytt/package-schema-drift",
    Schema,
    Error,
    fix = Safe
);
rule!(
    UNKNOWN_COMMENT,
    "ytt/unknown-comment",
    Syntax,
    Error,
    fix = Safe
);
rule!(COMPAT, "ytt/compat", Compat, Warning);
rule!(
    UNKNOWN_ANNOTATION,
    "ytt/unknown-annotation",
    Compat,
    Warning,
    fix = Unsafe
);
rule!(DEPRECATED, "ytt/deprecated", Deprecated, Warning);
rule!(REMOVED, "ytt/removed", UnknownKey, Error);
rule!(FLAG, "ytt/flag", Syntax, Error);

/// The rule for template code that fails before it runs: a syntax error,
/// or a name it uses that nothing defines.
pub fn code_failure(is_syntax: bool) -> &'static Rule {
    if is_syntax {
        &STARLARK_SYNTAX
    } else {
        &UNDEFINED
    }
}
