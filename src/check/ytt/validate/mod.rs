//! Validations: `@schema/validation` (and `@assert/validate`) annotations
//! parsed into rules, and rules run on the final data values as ytt's
//! pkg/validations does: null skips everything unless `not_null`, which runs
//! first; then custom rules; then named rules in ytt's fixed order.
//!
//! The rules themselves (parsed, and named rules checked) are in `rule`;
//! `run.rs` holds [`Validator`], which runs them over data values.

mod run;

pub use super::rule::{
    CustomRule, FORMATS, NamedRule, NamedRuleSpec, Validation, check_named, parse_validation,
};
pub use run::{Validator, node_to_star, value_span};
