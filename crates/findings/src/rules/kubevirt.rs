//! The rules of KubeVirt and OpenShift Templates.

use super::model::{Kind, Rule, Severity, rule};

rule!(ANNOTATION, "kubevirt/annotation", Schema, Error, fix = Safe);
rule!(RULE, "kubevirt/rule", Schema, Error);
rule!(
    RULE_WITHOUT_ARGUMENTS,
    "kubevirt/rule-without-arguments",
    Schema,
    Warning
);
rule!(VALIDATION, "kubevirt/validation", Validation, Error);
rule!(PATH_NOT_FOUND, "kubevirt/path-not-found", Reference, Error);
rule!(VALUE_TYPE, "kubevirt/value-type", Type, Error);
rule!(
    TEMPLATE_NOT_FOUND,
    "kubevirt/template-not-found",
    Reference,
    Warning
);
