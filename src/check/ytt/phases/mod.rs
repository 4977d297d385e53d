//! The package check, phase by phase as ytt runs them (spec/ytt.md),
//! stopping where ytt stops. Each phase is a file of its own, as ytt's
//! `pkg/workspace` has them:
//!
//! 1. `read`: every file parsed, the package's size, `--strict`;
//! 2. `documents`: documents sorted into schema and data values, those
//!    addressed to a library set aside;
//! 3. `code`: the code of schema and data-values files compiled once, and
//!    values written as code computed;
//! 4. `schema`: each schema document typed, then merged;
//! 5. `data_values`: data values merged one source at a time, each step
//!    type-checked (confvet reports every step's errors, ytt the first);
//! 6. `validations`: `@schema/validation` and `@assert/validate` on the
//!    final values, only when no type or unknown-key error came before;
//! 7. `templates`: templates rendered with the final values (overlays
//!    applied), the output checked, libraries' exports and files.

mod code;
mod data_values;
mod documents;
mod package;
mod read;
mod schema;
mod templates;
mod validations;

use super::engine::{Code, Engine};
use super::settings::has_errors;
use super::settings::{LibraryExports, PackageOutcome, YttSettings};
use super::workspace;
use crate::discover::DiscoveredFile;
use crate::source::{FileId, Sources, Span};
use crate::yaml::Document;
use package::Package;
use std::path::Path;

/// A private library evaluated (`library.get(...).eval()`): checked as a
/// package of its own.
fn evaluate_library(
    dir: &Path,
    inputs: &workspace::execution::LibraryInputs,
) -> Result<workspace::execution::EvaluatedLibrary, workspace::execution::LibraryFailure> {
    super::library::evaluate(dir, inputs, check_package_exporting)
}

/// `check_package`, and for a library its evaluated library files.
pub(crate) fn check_package_exporting(
    root: &Path,
    files: &[&DiscoveredFile],
    sources: &Sources,
    settings: &YttSettings,
    exported: &mut Option<LibraryExports>,
) -> PackageOutcome {
    let mut outcome = PackageOutcome::default();
    let Some(parsed) = read::read(root, files, sources, settings, &mut outcome.findings) else {
        return outcome;
    };
    let package = Package {
        root,
        files,
        parsed,
        sources,
        settings,
        start: Span::file_start(files.first().map_or(FileId(0), |f| f.id)),
    };
    let findings = &mut outcome.findings;
    let Some(documents) = documents::sort(&package, findings) else {
        return outcome;
    };
    let engine = Engine::new(root, workspace::MODULES);
    engine.session().borrow_mut().files = sources.files().clone();
    let Some(compiled) = code::compile(&package, &engine, findings) else {
        return outcome;
    };
    let code = Code {
        engine: &engine,
        scopes: &compiled.scopes,
    };
    let (schema_docs, value_docs) = code::evaluate_values(&documents, &code, &compiled, findings);
    let schema_docs: Vec<&Document> = schema_docs.iter().map(|d| d.as_ref()).collect();
    let value_docs: Vec<&Document> = value_docs.iter().map(|d| d.as_ref()).collect();
    let Ok(schema) = schema::build(&schema_docs, findings, &code) else {
        return outcome;
    };
    outcome.schema = Some(schema.clone());
    if compiled.values_unreadable {
        return outcome;
    }
    let findings = &mut outcome.findings;
    let merged = data_values::merge(&package, &value_docs, schema.as_ref(), &code, findings);
    let values = &merged.values;
    if !settings.disable_validation && !has_errors(findings) {
        validations::run(values, &value_docs, schema.as_ref(), &code, findings);
    }
    // ytt evaluates templates only once data values are valid.
    if !has_errors(findings) && !settings.values_only {
        templates::check_names(&package, values, schema.as_ref(), findings);
    }
    if !has_errors(findings) && !settings.skip_templates {
        let given = templates::given(documents.addressed, merged.flag_addressed, settings);
        let render_with = (
            given,
            evaluate_library as workspace::execution::LibraryEvaluator,
        );
        templates::render(&package, values, render_with, &mut outcome, exported);
    }
    outcome.values = Some(merged.values);
    outcome
}
