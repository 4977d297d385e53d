//! Why the engine did not do what it was asked: a `load()` that found no
//! module (ytt's words, with the path as the code gave it), a rule or
//! predicate call that failed, an evaluator the interpreter gave up on.

use crate::modules::BuiltinLoadError;

/// Why `load(path)` gave no module; `path` as the loading code wrote it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LoadError {
    /// An `@ytt:` module that is not there, or did not build.
    #[error(transparent)]
    Builtin(#[from] BuiltinLoadError),
    /// A base name that none of the files named one by one has.
    #[error("cannot load {path}: Expected to find file '{path}', but did not")]
    NotNamed { path: String },
    /// No such file inside the package (outside it, excluded by a mark,
    /// behind a link the symlink flags did not allow).
    #[error("cannot load {path}: file not found in the package")]
    NotFound { path: String },
    #[error(
        "cannot load {path}: Expected file '{path}' to be a library file, but was not (hint: library filename must end with '.lib.yml' or '.star'; use data.read(...) for loading non-templated file contents)"
    )]
    NotALibrary { path: String },
    #[error("cycle while loading {path:?}")]
    Cycle { path: String },
    /// An `@name:` load of another kind than ytt's modules.
    #[error("cannot load {path}: not a module confvet provides")]
    NotProvided { path: String },
    /// The file could not be read: the I/O error's text (kept as text so
    /// a failed load can be cached and given again).
    #[error("cannot load {path}: {reason}")]
    Unreadable { path: String, reason: String },
    #[error("cannot load {path}: the file is not UTF-8 text")]
    NotUtf8 { path: String },
    /// A file `--file-mark` made data (`type=data`).
    #[error("cannot load {path}: File '{path}' type is not a known")]
    UnknownType { path: String },
    /// The file's code did not translate or compile, or stopped while it
    /// ran: the line in the file and that failure's message.
    #[error("{path}:{line}: {message}")]
    Failed {
        path: String,
        line: usize,
        message: String,
    },
    /// A YAML library that does not parse: the parser's message.
    #[error("{path}: {message}")]
    NotYaml { path: String, message: String },
}

impl LoadError {
    /// `path`'s code failed at `line` of the file with `message`.
    pub(super) fn failed(path: &str, line: usize, message: String) -> LoadError {
        LoadError::Failed {
            path: path.to_string(),
            line,
            message,
        }
    }
}

/// Why calling a rule function or a `when=` predicate gave no value.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CallError {
    /// Neither a function nor an object with `check` (its Starlark type).
    #[error("{0} is not callable and has no check")]
    NotCallable(String),
    /// A `when=` predicate taking neither one nor two parameters.
    #[error("Failed to evaluate when=: function must accept 1 or 2 arguments ({0} given)")]
    WhenArity(usize),
    /// The function failed: the first line of starlark-rust's error, as
    /// it is (the message of the code's own `fail()` or of a builtin).
    #[error("{0}")]
    Failed(String),
}

/// The interpreter panicked (a value too large to make): the panic's
/// message.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "evaluation stopped: the interpreter failed ({0}), most likely on a value too large to make"
)]
pub struct InterpreterFailed(pub String);
