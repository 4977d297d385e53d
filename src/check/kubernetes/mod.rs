//! Kubernetes schemas: whether a document that names a built-in kind
//! (`apiVersion` and `kind`) is what the API server of a Kubernetes version
//! accepts under `kubectl --validate=strict`, with each violation at its
//! node. The schemas of the supported versions ship with the binary
//! (`schema`); `validate` walks a document against them.
//! `catalog` holds what a run checks against (with the CRDs of `crd`) and
//! turns violations into findings.

pub mod catalog;
pub mod crd;
pub mod crd_files;
pub mod formats;
pub mod kustomize;
pub mod schema;
pub mod tree;
pub mod validate;

pub use catalog::{Catalog, Lookups, Skipped};
pub use schema::{SchemaSet, Version};
pub use validate::{Violation, ViolationClass, validate_against};

use crate::yaml::Node;

/// What checking one document found.
#[derive(Debug, Clone, PartialEq)]
pub enum Validation {
    /// No schema of this version knows the document's kind (or it names
    /// none): nothing was checked, which is not a violation.
    NoSchema {
        api_version: Option<String>,
        kind: Option<String>,
    },
    /// Checked: every violation (none when the document is valid).
    Checked(Vec<Violation>),
}

/// Check one document (a map with `apiVersion` and `kind`) against the
/// built-in schemas of `version`.
pub fn validate(document: &Node, version: Version) -> Validation {
    let api_version = crate::yaml::string(document, "apiVersion").map(str::to_string);
    let kind = crate::yaml::string(document, "kind").map(str::to_string);
    let schemas = version.schemas();
    match (&api_version, &kind) {
        (Some(api_version), Some(kind)) => match schemas.kind(api_version, kind) {
            Some(root) => Validation::Checked(validate_against(document, &schemas.set, root)),
            None => Validation::NoSchema {
                api_version: Some(api_version.clone()),
                kind: Some(kind.clone()),
            },
        },
        _ => Validation::NoSchema { api_version, kind },
    }
}

#[cfg(test)]
mod tests;
