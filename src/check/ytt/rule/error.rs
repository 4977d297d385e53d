//! Why a validation annotation's arguments are refused, in ytt's words
//! (pkg/validations/annotations.go): each variant is one of ytt's checks,
//! and its text is ytt's, which the conformance cases compare.

/// A `@schema/validation` or `@assert/validate` annotation ytt refuses.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("Invalid @{annotation} annotation - {problem}")]
pub struct AnnotationError {
    /// `schema/validation` or `assert/validate`.
    pub annotation: &'static str,
    pub problem: Problem,
}

/// What is wrong with the arguments.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Problem {
    #[error("expected annotation to have 2-tuple as argument(s), but found no arguments")]
    NoArguments,
    #[error("expected annotation to have 2-tuple as argument(s), but found: {found}")]
    NotATuple { found: String },
    #[error("expected 2-tuple, but found tuple with length {0}")]
    TupleLength(usize),
    #[error(
        "expected first item in the 2-tuple to be a string describing a valid value, but was {type_name}"
    )]
    DescriptionNotAString { type_name: String },
    #[error(
        "expected second item in tuple to be an assertion function or assertion object, but was a {type_name}"
    )]
    CheckNotCallable { type_name: String },
    #[error(
        "expected the third item of a rule tuple to be a message template string, but was {type_name}"
    )]
    MessageNotAString { type_name: String },
    /// A keyword argument of the wrong type; `quoted` is whether ytt puts
    /// the keyword in quotes (it does not for `one_of`).
    #[error("expected keyword argument {} to be {expected}, but was {type_name}", keyword(.key, *.quoted))]
    KeywordType {
        key: String,
        quoted: bool,
        expected: &'static str,
        type_name: String,
    },
    #[error("one_not_null= cannot be False")]
    OneNotNullFalse,
    #[error("multiple_of= cannot be 0")]
    MultipleOfZero,
    #[error("unknown format {name:?} (known: {})", known.join(", "))]
    UnknownFormat {
        name: String,
        known: &'static [&'static str],
    },
    #[error("matches= is not a valid regular expression: {error}")]
    BadPattern { error: String },
    #[error("unknown keyword argument \"{0}\"")]
    UnknownKeyword(String),
}

fn keyword(key: &str, quoted: bool) -> String {
    if quoted {
        format!("\"{key}\"")
    } else {
        key.to_string()
    }
}
