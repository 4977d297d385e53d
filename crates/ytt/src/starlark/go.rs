//! How ytt's Go code speaks of Starlark values and errors: Go's `%T` of a
//! value, what is callable or a sequence to starlark-go, and an error's
//! text as `err.Error()` gives it. Every layer's messages use these.

use starlark::values::Value;
use starlark::{Error, ErrorKind};
use std::fmt;

/// What `assert.fail(message)` raises: a `fail` that `assert.try_to` reports
/// as ytt does (`assert.fail: fail: message`), while a render that stops
/// on it still reads `fail: message`.
#[derive(Debug)]
pub struct AssertFail(pub String);

impl fmt::Display for AssertFail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, " {}", self.0)
    }
}

impl std::error::Error for AssertFail {}

/// An error's message as ytt's `err.Error()` gives it.
pub fn error_text(e: &Error) -> String {
    if let ErrorKind::Fail(inner) = e.kind()
        && let Some(AssertFail(message)) = inner.downcast_ref::<AssertFail>()
    {
        return format!("assert.fail: fail: {message}");
    }
    let text = e.without_diagnostic().to_string();
    go_wording(text.strip_prefix("error: ").unwrap_or(&text))
}

/// starlark-go's words for what starlark-rust says differently.
fn go_wording(message: &str) -> String {
    // "Object of type `NoneType` has no attribute `foo`"
    let attribute = message
        .strip_prefix("Object of type `")
        .and_then(|rest| rest.split_once("` has no attribute `"))
        .and_then(|(t, rest)| Some((t, rest.strip_suffix('`')?)));
    match attribute {
        Some((t, name)) => format!("{t} has no .{name} field or method"),
        None => message.to_string(),
    }
}

/// Go's `%T` of a Starlark value in ytt, for messages that print it.
pub fn go_type(value: Value<'_>) -> String {
    match value.get_type() {
        "string" => "starlark.String".into(),
        "int" => "starlark.Int".into(),
        "float" => "starlark.Float".into(),
        "bool" => "starlark.Bool".into(),
        "NoneType" => "starlark.NoneType".into(),
        "list" => "*starlark.List".into(),
        "tuple" => "starlark.Tuple".into(),
        "dict" => "*starlark.Dict".into(),
        "set" => "*starlark.Set".into(),
        "struct" => "*core.StarlarkStruct".into(),
        "function" => "*starlark.Function".into(),
        "builtin_function_or_method" | "native_function" => "*starlark.Builtin".into(),
        "yamlfragment" => "*yamltemplate.StarlarkFragment".into(),
        "module" => "*starlarkstruct.Module".into(),
        other => other.to_string(),
    }
}

/// Whether a value can be called (ytt's `starlark.Callable`).
pub fn is_callable(value: Value<'_>) -> bool {
    matches!(
        value.get_type(),
        "function" | "builtin_function_or_method" | "native_function"
    )
}

/// Whether a value is a Starlark sequence (`starlark.Sequence`: it has a
/// length and can be iterated): lists, tuples, dicts, sets, structs and
/// fragments, not strings.
pub fn is_sequence(value: Value<'_>) -> bool {
    matches!(
        value.get_type(),
        "list" | "tuple" | "dict" | "set" | "struct" | "yamlfragment"
    )
}
