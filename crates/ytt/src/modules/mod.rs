//! ytt's standard library, the `@ytt:` modules (ytt's `pkg/yttlibrary` and
//! `pkg/yttlibraryext`), one file per module; `data` and `library`, which
//! need the package's files, come from the workspace in a [`ModuleTable`]
//! the engine passes to [`load`]. Each builds its module value
//! (a `module` of builtins, as ytt's `starlarkstruct.Module`) on a heap;
//! [`load`] maps a load path such as `@ytt:json` to it. The functions keep
//! ytt's behaviour at the edges: argument checks, the errors they give
//! (prefixed with the function's name, as ytt's `ErrWrapper` does), how
//! values convert ([`go_value`]).

pub mod assert;
pub mod base64;
pub mod builtins;
pub mod context;
pub mod go_value;
pub mod ip;
pub mod json;
pub mod math;
pub mod md5;
pub mod module;
pub mod native;
pub mod overlay;
pub mod regexp;
pub mod sha256;
pub mod structs;
pub mod template;
pub mod toml;
pub mod url;
pub mod version;
pub mod yaml;

use starlark::environment::{FrozenModule, Module};
use starlark::values::{Heap, Value};

pub use context::Context;

/// What builds a module's value on a heap.
pub type Build = for<'v> fn(Heap<'v>, &Context) -> Value<'v>;

/// Modules a layer above adds (`data` and `library`, from the workspace),
/// by name.
pub type ModuleTable = &'static [(&'static str, Build)];

/// The builder of `@ytt:name`: one of ytt's library, else one of `added`.
fn builder(name: &str, added: ModuleTable) -> Option<Build> {
    Some(match name {
        "assert" => assert::module,
        "base64" => base64::module,
        "ip" => ip::module,
        "json" => json::module,
        "math" => math::module,
        "md5" => md5::module,
        "module" => module::module,
        "overlay" => overlay::module,
        "regexp" => regexp::module,
        "sha256" => sha256::module,
        "struct" => structs::module,
        "template" => template::module,
        "toml" => toml::module,
        "url" => url::module,
        "version" => version::module,
        "yaml" => yaml::module,
        _ => {
            return added
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, build)| *build);
        }
    })
}

/// Why an `@ytt:` module did not load.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BuiltinLoadError {
    /// ytt's error for a module its library does not have.
    #[error(
        "cannot load {path}: builtin ytt library does not have module '{name}' \
         (hint: is it available in newer version of ytt?)"
    )]
    NoSuchModule { path: String, name: String },
    /// starlark-rust could not freeze the module: its error's debug text.
    #[error("{0}")]
    Freeze(String),
}

/// The module a `load()` path names, when it is one of ytt's (`@ytt:...`):
/// `None` for other paths.
pub fn load(
    path: &str,
    context: &Context,
    added: ModuleTable,
) -> Option<Result<FrozenModule, BuiltinLoadError>> {
    let name = path.strip_prefix("@ytt:")?;
    let Some(build) = builder(name, added) else {
        return Some(Err(BuiltinLoadError::NoSuchModule {
            path: path.to_string(),
            name: name.to_string(),
        }));
    };
    Some(Module::with_temp_heap(|module| {
        let value = build(module.heap(), context);
        module.set(name, value);
        if name == "assert" {
            // `assert` is a keyword of starlark-rust: code reads it as
            // `assert_` (see `translate::rename_assert`).
            module.set("assert_", value);
        }
        module
            .freeze()
            .map_err(|e| BuiltinLoadError::Freeze(format!("{e:?}")))
    }))
}

#[cfg(test)]
mod tests;
