//! Schema: `#@data/values-schema` documents turned into a tree of types, as
//! ytt's pkg/schema does: types inferred from defaults, `@schema/nullable`,
//! `@schema/type any=True`, `@schema/default`, documentation annotations,
//! and `@schema/validation` rules. Every schema error ytt reports becomes a
//! `schema` finding at ytt's position (the annotated node).
//!
//! - `types.rs`: the type tree ([`SchemaType`], [`TypeKind`], [`MapEntry`],
//!   [`TypeDocs`]).
//! - `build.rs`: [`SchemaBuilder`] and the `@schema/...` annotations it reads.
//! - `infer.rs`: the type of each node of a schema document.
//! - `defaults.rs`: default values, [`fill_defaults`], and nodes made from
//!   Starlark values.
//! - `export/`: the tree as OpenAPI v3 (ytt's export), JSON Schema and
//!   Markdown.

mod build;
mod defaults;
pub mod export;
mod infer;
mod types;

pub use build::{SCHEMA_ANNOTATIONS, SchemaBuilder};
pub use defaults::{fill_defaults, null_node, star_to_node};
pub use types::{MapEntry, SchemaType, TypeDocs, TypeKind};
