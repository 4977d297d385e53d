//! YAML: parse text into confvet's own tree (`node`), with byte spans,
//! comments attached as ytt attaches them, and scalars resolved as go-yaml v2
//! resolves them (`scalar`). Everything above this module speaks only `node`.

pub mod emit;
pub mod float;
pub mod node;
pub mod parse;
pub mod scalar;

pub use node::*;
pub use parse::{ParseError, ParseOptions, parse_file};
