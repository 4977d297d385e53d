//! A private library's execution as the package running it sees it
//! (ytt's `LibraryExecution`): what a library is evaluated with and gives,
//! the evaluator the package check provides, and what one render keeps of
//! its libraries (a session state, see `template::runtime::Session`).

use super::addressed::{Addressed, LibraryOptions, ValuesDoc};
use crate::template::runtime::SharedSession;
use crate::yaml::{Document, Node};
use std::sync::Arc;

/// What evaluating a private library gives.
#[derive(Clone)]
pub struct EvaluatedLibrary {
    /// The documents it outputs, after its overlays.
    pub docs: Vec<Document>,
    /// Its final data values.
    pub values: Node,
    /// The globals of each of its library files (`.star`, `.lib.yml`,
    /// `.lib.txt`), by path in the library, for `export()`; with the
    /// session their functions run in.
    pub exports: Vec<(String, starlark::environment::FrozenModule)>,
    pub session: Option<SharedSession>,
}

/// What a library is evaluated with: its data values (merged after its
/// own, in this order) and schema documents, what is addressed through it
/// to its own libraries, and its options.
#[derive(Debug, Clone, Default)]
pub struct LibraryInputs {
    pub values: Vec<ValuesDoc>,
    pub schemas: Vec<Document>,
    pub child_values: Vec<Addressed<ValuesDoc>>,
    pub child_schemas: Vec<Addressed<Document>>,
    pub options: LibraryOptions,
    /// `data_values()`: the data values only, no templates.
    pub values_only: bool,
    /// Evaluated as a library: its library files are evaluated for
    /// `export()`, as ytt evaluates them.
    pub is_library: bool,
    /// The input files of the package that uses the library, as its
    /// `--file-mark`s made them (the library's are among them).
    pub files: Option<Arc<crate::marks::Inputs>>,
    /// What the package's files are read through (the editor's or
    /// `--diff`'s texts standing in for some): the library's are too.
    pub file_layer: crate::source::Files,
}

/// Evaluate the library in a folder with `LibraryInputs`.
pub type LibraryEvaluator =
    fn(&std::path::Path, &LibraryInputs) -> Result<EvaluatedLibrary, LibraryFailure>;

/// Why a private library did not evaluate; the text is what the template
/// calling `eval()` fails with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LibraryFailure {
    /// The library's own check stopped: ytt's message, and where in the
    /// library's files when that is known.
    #[error("{message}{}", .at.as_ref().map(|at| format!(" (at {at})")).unwrap_or_default())]
    Stopped { message: String, at: Option<String> },
    /// Libraries evaluating libraries, past the limits against runaway
    /// recursion.
    #[error(
        "libraries nested deeper than {max_depth} or evaluated more than {max_evaluations} times"
    )]
    TooDeep {
        max_depth: usize,
        max_evaluations: usize,
    },
    /// The check gave no values or no output.
    #[error("the library did not render")]
    NotRendered,
}

/// What one render keeps of its libraries, in its session.
#[derive(Default)]
pub struct LibraryState {
    /// Evaluates a private library (`library.get(...).eval()`), given by
    /// the package check so templates do not depend on it.
    pub evaluator: Option<LibraryEvaluator>,
    /// Library evaluations so far, against a template calling one in a loop.
    pub evaluations: usize,
    /// What each library evaluated to, by folder and inputs.
    pub cache: Vec<(String, EvaluatedLibrary)>,
    /// Data values and schemas this package addresses to its libraries
    /// (`#@library/ref`, `--data-value @lib:...`), and the options its
    /// libraries inherit.
    pub values: Vec<Addressed<ValuesDoc>>,
    pub schemas: Vec<Addressed<Document>>,
    pub options: LibraryOptions,
    /// The sessions of the libraries whose functions were exported, by
    /// number: an exported function runs in its library's session.
    pub sessions: Vec<(u64, SharedSession)>,
}
