//! The rules of the configuration file, `.confvet.yaml`.

use super::model::{Kind, Rule, Severity, rule};

rule!(INVALID, "config/invalid", Schema, Error);
rule!(UNKNOWN_KEY, "config/unknown-key", UnknownKey, Error);
