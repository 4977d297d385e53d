//! The rules of confvet itself: suppressions, links, limits and its own failures.

use super::model::{Kind, Rule, Severity, rule};

rule!(INTERNAL, "confvet/internal", Internal, Error);
rule!(UNIT_LIMIT, "confvet/unit-limit", Limit, Error);
rule!(SYMLINK, "confvet/symlink", Reference, Warning);
rule!(
    INVALID_SUPPRESSION,
    "confvet/invalid-suppression",
    Syntax,
    Warning,
    fix = Safe
);
rule!(
    UNUSED_SUPPRESSION,
    "confvet/unused-suppression",
    Reference,
    Warning,
    fix = Safe
);
