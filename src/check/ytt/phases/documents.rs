//! Phase 2: the documents of the package's own files sorted into schema
//! and data values (file shapes checked on the way), and those addressed
//! to a library (`#@library/ref`) set aside for it.

use super::super::library;
use super::super::settings::has_errors;
use super::super::workspace::addressed::{Addressed, ValuesDoc};
use super::super::{package::classify_documents, translate};
use super::package::Package;
use crate::finding::Finding;
use crate::yaml::Document;

/// The package's documents by what they are.
pub(super) struct Documents<'a> {
    /// Its own schema documents, then those its parent library call gives.
    pub schema: Vec<&'a Document>,
    pub values: Vec<&'a Document>,
    pub addressed: ForLibraries,
}

/// The documents addressed to the package's libraries.
pub(super) struct ForLibraries {
    pub schemas: Vec<Addressed<Document>>,
    pub values: Vec<Addressed<ValuesDoc>>,
}

/// None when ytt stops here.
pub(super) fn sort<'a>(
    package: &Package<'a>,
    findings: &mut Vec<Finding>,
) -> Option<Documents<'a>> {
    let mut schema_docs: Vec<&Document> = Vec::new();
    let mut value_docs: Vec<&Document> = Vec::new();
    for (file, set) in package.own_members() {
        let source = package.sources.get(file.id);
        let fragments = if source.text.contains("#@ def") {
            translate::yaml_program(&source.text).1
        } else {
            Vec::new()
        };
        let in_fragment = |at: usize| {
            let line = source.line_col(at).line;
            fragments.iter().any(|r| r.contains(&line))
        };
        classify_documents(
            set,
            &in_fragment,
            &mut schema_docs,
            &mut value_docs,
            findings,
        );
    }
    let (mut schema, schemas) = library::addressed_schemas(&schema_docs, package.sources, findings);
    let (values, addressed_values) =
        library::addressed_values(&value_docs, package.sources, findings);
    schema.extend(&package.settings.library.schemas);
    if has_errors(findings) {
        return None;
    }
    Some(Documents {
        schema,
        values,
        addressed: ForLibraries {
            schemas,
            values: addressed_values,
        },
    })
}
