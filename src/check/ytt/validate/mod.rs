//! Validations: `@schema/validation` (and `@assert/validate`) annotations
//! parsed into rules, and rules run on the final data values as ytt's
//! pkg/validations does: null skips everything unless `not_null`, which runs
//! first; then custom rules; then named rules in ytt's fixed order.
//!
//! - `rules.rs`: [`Validation`] and its rules, parsed from an annotation by
//!   [`parse_validation`].
//! - `named.rs`: whether a value keeps a named rule ([`check_named`]).
//! - `run.rs`: [`Validator`], which runs the rules over data values.

mod named;
mod rules;
mod run;

pub use named::check_named;
pub use rules::{CustomRule, FORMATS, NamedRule, NamedRuleSpec, Validation, parse_validation};
pub use run::{Validator, node_to_star, value_span};
