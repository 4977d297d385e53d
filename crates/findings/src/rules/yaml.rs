//! The rules of the YAML parser.

use super::model::{Kind, Rule, Severity, rule};

rule!(SYNTAX, "yaml/syntax", Syntax, Error);
rule!(DUPLICATE_KEY, "yaml/duplicate-key", Syntax, Error);
