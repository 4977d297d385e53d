//! The builtins as starlark-rust defines them, for the engine's overrides
//! (which check what a call would take, then make it) to call.

use starlark::environment::{Globals, LibraryExtension};
use starlark::eval::Evaluator;
use starlark::values::Value;
use starlark::values::dict::DictRef;
use std::sync::LazyLock;

static ORIGINALS: LazyLock<Globals> =
    LazyLock::new(|| Globals::extended_by(&[LibraryExtension::SetType, LibraryExtension::Partial]));

/// `name(args…, kwargs…)` with the original builtin `name`.
pub(super) fn call<'v>(
    name: &str,
    args: &[Value<'v>],
    kwargs: DictRef<'v>,
    eval: &mut Evaluator<'v, '_, '_>,
) -> starlark::Result<Value<'v>> {
    let original = ORIGINALS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v.to_value())
        .ok_or_else(|| starlark::Error::new_other(anyhow::anyhow!("no builtin {name}")))?;
    eval.eval_function(original, args, &named(&kwargs))
}

/// Keyword arguments as `eval_function` takes them.
pub(super) fn named<'v>(kwargs: &DictRef<'v>) -> Vec<(&'v str, Value<'v>)> {
    kwargs
        .iter()
        .filter_map(|(k, v)| Some((k.unpack_str()?, v)))
        .collect()
}
