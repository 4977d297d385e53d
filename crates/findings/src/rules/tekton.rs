//! The rules of Tekton resources.

use super::model::{Kind, Rule, Severity, rule};

rule!(DECLARATION, "tekton/declaration", Schema, Error);
rule!(
    RESULT_DECLARATION,
    "tekton/result-declaration",
    Schema,
    Error
);
rule!(DUPLICATE, "tekton/duplicate", Schema, Error);
rule!(
    DUPLICATE_BINDING,
    "tekton/duplicate-binding",
    Validation,
    Error
);
rule!(DEFAULT, "tekton/default", Type, Error);
rule!(VALUE_TYPE, "tekton/value-type", Type, Error);
rule!(
    DEFAULT_UNKNOWN_KEY,
    "tekton/default-unknown-key",
    UnknownKey,
    Warning
);
rule!(
    PARTIAL_DEFAULT,
    "tekton/partial-default",
    Validation,
    Warning
);
rule!(ENUM_DEFAULT, "tekton/enum-default", Validation, Error);
rule!(ENUM, "tekton/enum", Validation, Error);
rule!(
    PARAM_REFERENCE,
    "tekton/param-reference",
    Reference,
    Error,
    fix = Unsafe
);
rule!(PARAM_TYPE, "tekton/param-type", Type, Error);
rule!(
    LEGACY_REFERENCE,
    "tekton/legacy-reference",
    Deprecated,
    Warning,
    fix = Unsafe
);
rule!(BINDING_TYPE, "tekton/binding-type", Type, Error);
rule!(
    MISSING_PARAM,
    "tekton/missing-param",
    Validation,
    Error,
    fix = Unsafe
);
rule!(
    UNKNOWN_BINDING,
    "tekton/unknown-binding",
    Reference,
    Warning,
    fix = Unsafe
);
rule!(MISSING_KEYS, "tekton/missing-keys", Validation, Error);
rule!(
    RUN_PARAM_RESULT,
    "tekton/run-param-result",
    Validation,
    Error
);
rule!(
    RESULT_REFERENCE,
    "tekton/result-reference",
    Reference,
    Error,
    fix = Unsafe
);
rule!(RESULT_TYPE, "tekton/result-type", Type, Error);
rule!(PIPELINE_RESULT, "tekton/pipeline-result", Validation, Error);
rule!(
    REMOVED_API_VERSION,
    "tekton/removed-api-version",
    Deprecated,
    Warning
);
rule!(
    PAC_PLACEHOLDER,
    "tekton/pac-placeholder",
    Reference,
    Warning
);
rule!(
    TRIGGER_PARAM_REFERENCE,
    "tekton/trigger-param-reference",
    Reference,
    Error,
    fix = Unsafe
);
rule!(
    TRIGGER_MISSING_PARAM,
    "tekton/trigger-missing-param",
    Validation,
    Error,
    fix = Unsafe
);
rule!(
    TRIGGER_DUPLICATE_PARAM,
    "tekton/trigger-duplicate-param",
    Validation,
    Error
);
rule!(
    TRIGGER_LEGACY_PARAM,
    "tekton/trigger-legacy-param",
    Reference,
    Warning,
    fix = Safe
);
rule!(
    MISSING_WORKSPACE,
    "tekton/missing-workspace",
    Validation,
    Error
);
rule!(
    WORKSPACE_REFERENCE,
    "tekton/workspace-reference",
    Reference,
    Error,
    fix = Unsafe
);
rule!(
    RUN_AFTER,
    "tekton/run-after",
    Reference,
    Error,
    fix = Unsafe
);
rule!(CYCLE, "tekton/cycle", Validation, Error);
rule!(
    VOLUME_MOUNT,
    "tekton/volume-mount",
    Reference,
    Warning,
    fix = Unsafe
);
rule!(DUPLICATE_ENV, "tekton/duplicate-env", Validation, Warning);
rule!(
    UNKNOWN_FIELD,
    "tekton/unknown-field",
    UnknownKey,
    Error,
    fix = Unsafe
);
