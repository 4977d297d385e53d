//! The rules of Kubernetes schemas: what rendered ytt output, the
//! VirtualMachines of KubeVirt Templates and (when asked) plain manifests
//! are checked against (the built-in kinds, bundled kinds and CRDs).

use super::model::{Kind, Rule, Severity, rule};

rule!(
    UNKNOWN_FIELD,
    "kubernetes/unknown-field",
    UnknownKey,
    Error,
    fix = Unsafe
);
rule!(TYPE, "kubernetes/type", Type, Error);
rule!(ENUM, "kubernetes/enum", Validation, Error, fix = Unsafe);
rule!(REQUIRED, "kubernetes/required", Validation, Error);
rule!(FORMAT, "kubernetes/format", Validation, Error);
rule!(
    VERSION_NOT_SERVED,
    "kubernetes/version-not-served",
    Reference,
    Error
);
rule!(CRD, "kubernetes/crd", Schema, Warning);
