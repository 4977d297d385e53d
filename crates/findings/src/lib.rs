//! What a check reports, and the table of what it may report.
//!
//! * `rules`: every rule id confvet can report, with its kind, default
//!   severity and whether its findings may carry a fix. A rule is a static
//!   of its system's file (`rules::ytt::VALIDATION`), so a finding names its
//!   rule by a path the compiler checks. The rule's documentation page is
//!   not here: it is the binary's (`docs/rules/<id>.md`, compiled into the
//!   `confvet` crate), so this crate carries no Markdown.
//! * `finding`: one problem with its rule, severity, primary and related
//!   spans, fixes (`confvet_syntax::edit`) and a stable fingerprint, unique
//!   per finding of a run; bounding a report (at most so many per rule and
//!   file); the error that makes a run incomplete.
//!
//! It knows source spans and edits (`confvet-syntax`) and nothing of how a
//! finding was found: the checks build findings, the report formats read
//! them.

pub mod finding;
pub mod rules;
