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
mod read;
mod schema;
mod templates;
mod validations;

use super::engine::{Code, Engine};
use super::settings::{LibraryExports, PackageOutcome, YttSettings};
use super::{has_errors, workspace};
use crate::discover::DiscoveredFile;
use crate::source::{FileId, Sources, Span};
use crate::yaml::{Document, DocumentSet};
use std::path::Path;

/// One package as its phases read it: its files in ytt's merge order with
/// their YAML, and the settings it is checked with.
pub(super) struct Package<'a> {
    pub root: &'a Path,
    pub files: &'a [&'a DiscoveredFile],
    pub parsed: Vec<&'a DocumentSet>,
    pub sources: &'a Sources,
    pub settings: &'a YttSettings,
    /// Where a finding about the package as a whole points: its first file.
    pub start: Span,
}

impl<'a> Package<'a> {
    /// The input file as `--file-mark` left it, when the inputs are known.
    fn marked(&self, file: &DiscoveredFile) -> Option<&'a super::marks::InputFile> {
        self.settings
            .inputs
            .as_ref()
            .and_then(|i| i.get(&file.path))
    }

    /// A file marked `type=yaml-plain`: read as plain YAML, it holds no
    /// schema, no data values and no code.
    fn is_plain(&self, file: &DiscoveredFile) -> bool {
        is_marked_plain(self.settings, file)
    }

    /// In a private library, by the name ytt gives the file when the input
    /// files are known: it keeps its own data values.
    fn in_private(&self, file: &DiscoveredFile) -> bool {
        match self.marked(file) {
            Some(input) => input.in_private_library(),
            None => super::in_ytt_lib(&file.path, self.root),
        }
    }

    /// The files and their YAML, together.
    fn members(&self) -> impl Iterator<Item = (&'a DiscoveredFile, &'a DocumentSet)> + '_ {
        self.files.iter().copied().zip(self.parsed.iter().copied())
    }

    /// The files whose schema and data values are the package's own.
    fn own_members(&self) -> impl Iterator<Item = (&'a DiscoveredFile, &'a DocumentSet)> + '_ {
        self.members()
            .filter(|(file, _)| !self.in_private(file) && !self.is_plain(file))
    }
}

/// A file marked `type=yaml-plain` (or `text-plain`): read as plain YAML,
/// it holds no schema, no data values and no code.
pub(super) fn is_marked_plain(settings: &YttSettings, file: &DiscoveredFile) -> bool {
    let marked = settings.inputs.as_ref().and_then(|i| i.get(&file.path));
    marked.is_some_and(|f| !f.is_template())
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
        templates::render(&package, values, given, &mut outcome, exported);
    }
    outcome.values = Some(merged.values);
    outcome
}
