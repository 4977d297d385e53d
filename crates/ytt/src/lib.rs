//! A Rust ytt: Carvel ytt's template language on starlark-rust, in the
//! layers of ytt's own `pkg/`, each importing only those before it:
//!
//! ```text
//! starlark ─► template ─► overlay ─► modules ─► engine ─► workspace
//!  values,     compile,    apply,     @ytt:*     sandbox,  libraries,
//!  scalars,    runtime,    matching,  (ytt's     loads     @ytt:data,
//!  Go wording  annotation  merge      yttlibrary)          @ytt:library
//!              arguments   mode
//! ```
//!
//! `translate` turns a template's `#@` lines into Starlark as ytt does,
//! `marks` is ytt's file list (`-f`, `--file-mark`, which files are
//! templates, libraries or data), `digest` and `formats` the hashing and
//! encodings the modules share. It renders; it does not judge: what a
//! linter makes of a failure (its rule, its finding) is for the crate
//! above.
//!
//! Errors are typed where they leave the crate: a template that does not
//! compile ([`template::compile::CompileError`]), code that stopped
//! ([`engine::RunFailure`], with the line and ytt's own message), either
//! of them ([`engine::TemplateError`]). Inside, each layer has its own
//! `thiserror` types, whose variants name what went wrong and whose
//! `Display` is the text ytt prints: [`starlark::convert::ConvertError`],
//! [`template::runtime::RuntimeError`], [`overlay::compare::Mismatch`],
//! [`modules::go_value::GoError`] and one per `@ytt:` module that fails
//! its own way ([`modules::toml::TomlError`], [`modules::json::JsonError`],
//! ...), [`engine::LoadError`] and [`engine::CallError`],
//! [`marks::InputError`]. That text is behaviour: it becomes the Starlark
//! error the template sees, through `Display` in one place per layer (a
//! module's error becomes a builtin's failure by
//! [`modules::native::YttMessage`]), and the message a user compares with
//! ytt's; a change of type never changes it.
#![doc = ""]
#![doc = include_str!("../README.md")]

pub mod digest;
pub mod engine;
pub mod formats;
pub mod marks;
pub mod modules;
pub mod overlay;
pub mod starlark;
pub mod template;
pub mod translate;
pub mod workspace;

// The crates below, under the names the layers use (`crate::yaml::Node`).
use confvet_syntax::{source, suggest, yaml};
use confvet_watchdog as watchdog;
