//! Why running a module failed, as the engine reports it to the checks.

use starlark::environment::FrozenModule;

/// Why running a module failed: the message, the 1-based line in the
/// module, whether its code does not parse, and the chain of places (module
/// name, 1-based line) from the outermost call to the failure.
#[derive(Debug, Clone)]
pub struct RunFailure {
    pub message: String,
    pub line: usize,
    pub is_syntax: bool,
    pub chain: Vec<(String, usize)>,
}

/// A compiled file, or why it failed (message, 1-based line, is_syntax).
pub type Compiled = Result<FrozenModule, RunFailure>;
