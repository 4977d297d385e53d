//! Data values and schemas addressed to private libraries (ytt's
//! `ref.LibraryRef` and `datavalues.Envelope`): `#@library/ref "@lib"`
//! documents and `--data-value @lib:key=value` flags travel from the
//! package that gives them, through each library on their address, to the
//! library they are for; one nobody used is an error once the package that
//! holds them has rendered.

use crate::overlay::merge_mode::MergeMode;
use crate::source::Span;
use crate::yaml::{Comment, Node};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Why a library address (`@lib~alias`) does not read, in ytt's words.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LibraryRefError {
    #[error("Expected library ref to not be empty")]
    Empty,
    #[error("Expected library ref to start with '@'")]
    NoAt,
    #[error("Expected library alias to not be empty")]
    EmptyAlias,
    /// A piece with more than one `~` (the whole address).
    #[error("Expected library ref to have form: '@path', '@~alias', or '@path~alias', got: '{0}'")]
    BadForm(String),
}

/// One piece of a library address: `@path`, `@~alias` or `@path~alias`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LibraryRef {
    pub path: String,
    pub alias: String,
}

impl LibraryRef {
    /// ytt's `Matches`: the path must be equal; an alias, when given, too.
    pub fn matches(&self, other: &LibraryRef) -> bool {
        let path_match = self.path == other.path;
        if self.alias.is_empty() {
            return path_match;
        }
        let alias_match = self.alias == other.alias;
        if self.path.is_empty() {
            return alias_match;
        }
        alias_match && path_match
    }

    /// `path` or `path~alias`, as ytt names a library.
    pub fn display(&self) -> String {
        if self.alias.is_empty() {
            self.path.clone()
        } else {
            format!("{}~{}", self.path, self.alias)
        }
    }

    /// ytt's `LibraryRefExtractor.FromStr`: `@a@b~x` is `a`, then `b` as `x`.
    pub fn parse(text: &str) -> Result<Vec<LibraryRef>, LibraryRefError> {
        if text.is_empty() {
            return Err(LibraryRefError::Empty);
        }
        let Some(rest) = text.strip_prefix('@') else {
            return Err(LibraryRefError::NoAt);
        };
        rest.split('@')
            .map(|piece| {
                let parts: Vec<&str> = piece.split('~').collect();
                match parts[..] {
                    [path] => Ok(LibraryRef {
                        path: path.to_string(),
                        alias: String::new(),
                    }),
                    [_, ""] => Err(LibraryRefError::EmptyAlias),
                    [path, alias] => Ok(LibraryRef {
                        path: path.to_string(),
                        alias: alias.to_string(),
                    }),
                    _ => Err(LibraryRefError::BadForm(text.to_string())),
                }
            })
            .collect()
    }
}

/// A data-values document to merge: its value, its document annotations
/// and how it merges.
#[derive(Debug, Clone)]
pub struct ValuesDoc {
    pub node: Node,
    pub comments: Vec<Comment>,
    pub mode: MergeMode,
}

/// Options a library evaluates with (ytt's template loader options, which
/// `library.get(...)` may override and nested libraries inherit).
#[derive(Debug, Clone, Copy, Default)]
pub struct LibraryOptions {
    pub ignore_unknown_comments: bool,
    pub implicit_map_key_overrides: bool,
    pub strict: bool,
    /// `dangerous_data_values_disable_validation=True`, or the command's
    /// `--dangerous-data-values-disable-validation`: once set, it stays.
    pub skip_validation: bool,
}

/// Something addressed to a library, with the rest of its address.
#[derive(Debug, Clone)]
pub struct Addressed<T> {
    pub item: T,
    /// The libraries it still has to go through, the first next.
    pub refs: Vec<LibraryRef>,
    /// Its whole address, for the error naming it.
    pub original: Vec<LibraryRef>,
    /// `#@data/values after_library_module=True`: merged after the
    /// library's `with_data_values(...)`.
    pub after_library_module: bool,
    /// Where ytt says it is (`values.yml:3`, `(data-value arg):1`).
    pub at: String,
    /// Where it is in the package that gives it.
    pub span: Span,
    used: Arc<AtomicBool>,
}

impl<T: Clone> Addressed<T> {
    pub fn new(
        item: T,
        refs: Vec<LibraryRef>,
        after_library_module: bool,
        at: String,
        span: Span,
    ) -> Addressed<T> {
        Addressed {
            item,
            original: refs.clone(),
            refs,
            after_library_module,
            at,
            span,
            used: Arc::default(),
        }
    }

    /// Given by `with_data_values(...)`: for the library itself.
    pub fn unaddressed(item: T, span: Span) -> Addressed<T> {
        Addressed::new(item, Vec::new(), false, String::new(), span)
    }

    /// ytt's `UsedInLibrary`: for the library `library` or none, a copy
    /// with the rest of its address (marking this one used); None when
    /// addressed to another library.
    pub fn used_in(&self, library: &LibraryRef) -> Option<Addressed<T>> {
        let rest = match self.refs.split_first() {
            None => Vec::new(),
            Some((first, rest)) if first.matches(library) => rest.to_vec(),
            Some(_) => return None,
        };
        self.used.store(true, Ordering::Relaxed);
        Some(Addressed {
            item: self.item.clone(),
            refs: rest,
            original: self.original.clone(),
            after_library_module: self.after_library_module,
            at: self.at.clone(),
            span: self.span,
            used: Arc::default(),
        })
    }

    pub fn is_used(&self) -> bool {
        self.used.load(Ordering::Relaxed)
    }

    /// ytt's `Desc`: `Data Value belonging to library '@a' on line v.yml:3`.
    pub fn describe(&self, what: &str) -> String {
        let address: Vec<String> = self.original.iter().map(LibraryRef::display).collect();
        format!(
            "{what} belonging to library '@{}' on line {}",
            address.join("@"),
            self.at
        )
    }
}

/// ytt's error for what no library used, if anything is left unused.
pub fn unused_error(
    values: &[Addressed<ValuesDoc>],
    schemas: &[Addressed<crate::yaml::Document>],
) -> Option<(String, Span)> {
    let unused_values: Vec<&Addressed<ValuesDoc>> =
        values.iter().filter(|v| !v.is_used()).collect();
    let unused_schemas: Vec<&Addressed<crate::yaml::Document>> =
        schemas.iter().filter(|s| !s.is_used()).collect();
    let span = unused_values
        .first()
        .map(|v| v.span)
        .or(unused_schemas.first().map(|s| s.span))?;
    let mut kinds = Vec::new();
    if !unused_values.is_empty() {
        kinds.push("data values");
    }
    if !unused_schemas.is_empty() {
        kinds.push("schema");
    }
    let descriptions: Vec<String> = unused_values
        .iter()
        .map(|v| v.describe("Data Value"))
        .chain(unused_schemas.iter().map(|s| s.describe("Schema")))
        .collect();
    Some((
        format!(
            "Expected all provided library {} documents to be used but found unused: {}",
            kinds.join(", and "),
            descriptions.join(", ")
        ),
        span,
    ))
}
