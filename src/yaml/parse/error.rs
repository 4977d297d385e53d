//! Why a file could not be parsed.

use crate::source::Span;

/// Why a file could not be parsed: `yaml/syntax` or `yaml/duplicate-key`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub rule: &'static crate::rules::Rule,
    pub span: Span,
    pub message: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ParseError {}
