//! Why a file could not be parsed.

use crate::source::Span;

/// Why a file could not be parsed. The rule a finding names for it
/// (`yaml/syntax`, `yaml/duplicate-key`) is the rule table's business, a
/// layer above.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub kind: ParseErrorKind,
    pub span: Span,
    pub message: String,
}

/// What kind of parse error: each is reported under a rule of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParseErrorKind {
    /// Not YAML, or YAML past the parser's limits.
    Syntax,
    /// A mapping key given twice (where the options refuse it).
    DuplicateKey,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ParseError {}
