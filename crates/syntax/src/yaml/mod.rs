//! YAML: parse text into confvet's own tree (`node`), with byte spans,
//! comments attached as ytt attaches them, and scalars resolved as go-yaml v2
//! resolves them (`scalar`). Everything above this module speaks only `node`.

pub mod emit;
pub mod float;
pub mod node;
pub mod parse;
pub mod scalar;

pub use node::*;
pub use parse::{ParseError, ParseErrorKind, ParseOptions, parse_file};

/// Whether `text` parses as a YAML stream the way confvet reads files
/// (duplicate keys kept, as ytt templates repeat them under `#@ if`): the
/// check an edit made for a user passes before it is offered or written.
pub fn parses(text: &str) -> bool {
    let options = ParseOptions {
        keeps_duplicate_keys: true,
        ..ParseOptions::default()
    };
    std::panic::catch_unwind(|| parse_file(crate::source::FileId(0), text, &options).is_ok())
        .unwrap_or(false)
}
