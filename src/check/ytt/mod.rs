//! ytt: a package checked as `ytt -f` checks it (spec/ytt.md), phase by
//! phase, stopping where ytt stops:
//!
//! 1. YAML syntax of every file (`package` sorts the files and documents);
//! 2. schema documents turned into types (`schema`; stops at the first
//!    schema error);
//! 3. data-values documents merged one at a time, each step type-checked
//!    (`values`, `flags`; confvet reports every step's errors, ytt only the
//!    first);
//! 4. validations on the final values (`validate`, `asserts`), only when no
//!    type or unknown-key error came before, as in ytt;
//! 5. templates rendered with the final values (`render` over `template`,
//!    on the Starlark `engine` with its `modules`), failures as findings,
//!    then `@assert/validate` on the rendered nodes.
//!
//! Below every phase, `starlark` holds the value types and conversions they
//! share.

mod asserts;
pub mod awaits;
mod deprecated;
pub mod digest;
pub mod drift;
pub mod engine;
pub mod flags;
pub mod formats;
mod library;
pub mod marks;
pub mod modules;
pub mod navigate;
pub mod overlay;
mod package;
mod package_size;
pub mod path;
mod quoting;
pub mod render;
pub mod rule;
pub mod scenarios;
pub mod schema;
mod settings;
pub mod starlark;
pub mod template;
pub mod translate;
mod undefined;
pub mod validate;
mod value_code;
pub mod values;
pub mod workspace;

use crate::discover::DiscoveredFile;
use crate::finding::{Finding, Severity};
use crate::rules;
use crate::source::{Sources, Span};
use crate::yaml::{Annotated, Document, DocumentSet, Node, Value};
use engine::{Code, Engine};
use overlay::merge_mode::MergeMode;
use path::DataPath;
use schema::{SchemaBuilder, SchemaType};
use std::collections::{HashMap, HashSet};
use std::path::Path;
use validate::Validator;
use values::{Merger, TypeChecker};

pub(crate) use asserts::assert_validation;
pub(crate) use asserts::run_asserts;
use deprecated::report_given_deprecated;
pub use package::package_files;
use package::{
    classify_documents, first_plain_comment, holds_data_values, in_ytt_lib, is_template,
    is_yaml_template, text_templates,
};
pub(crate) use settings::LibraryExports;
pub use settings::{PackageOutcome, YttSettings};
use undefined::check_templates;

/// A private library evaluated (`library.get(...).eval()`): checked as a
/// package of its own.
fn evaluate_library(
    dir: &Path,
    inputs: &workspace::execution::LibraryInputs,
) -> Result<workspace::execution::EvaluatedLibrary, String> {
    library::evaluate(dir, inputs, check_package_exporting)
}

/// Check one ytt package: `files` in ytt's merge order.
pub fn check_package(
    root: &Path,
    files: &[&DiscoveredFile],
    sources: &Sources,
    settings: &YttSettings,
) -> PackageOutcome {
    check_package_exporting(root, files, sources, settings, &mut None)
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
    // Where a finding about the package as a whole points: its first file.
    let package_start = Span::file_start(files.first().map_or(crate::source::FileId(0), |f| f.id));
    let findings = &mut outcome.findings;

    // 1. Every file must parse; ytt stops at the first that does not.
    let mut parsed: Vec<&DocumentSet> = Vec::new();
    for file in files {
        match &file.parsed {
            Ok(set) => parsed.push(set),
            Err(finding) => findings.push(package::unparsed(finding, file, root, sources)),
        }
    }
    if !findings.is_empty() {
        return outcome;
    }
    if let Some(finding) = package_size::too_large(&parsed) {
        findings.push(finding);
        return outcome;
    }
    if settings.strict {
        for set in &parsed {
            flags::check_strict(set, findings);
        }
        if !findings.is_empty() {
            return outcome;
        }
    }

    // A file marked `type=yaml-plain` is read as plain YAML: it holds no
    // schema, no data values and no code.
    let marked = |file: &DiscoveredFile| settings.inputs.as_ref().and_then(|i| i.get(&file.path));
    let is_plain = |file: &DiscoveredFile| is_marked_plain(settings, file);
    // In a private library, by the name ytt gives the file when the input
    // files are known.
    let in_private = |file: &DiscoveredFile| match marked(file) {
        Some(input) => input.in_private_library(),
        None => in_ytt_lib(&file.path, root),
    };

    // 2. Sort documents into schema and data values; check file shapes.
    let mut schema_docs: Vec<&Document> = Vec::new();
    let mut value_docs: Vec<&Document> = Vec::new();
    for (file, set) in files.iter().zip(&parsed) {
        // ytt private libraries keep their own data values.
        if in_private(file) || is_plain(file) {
            continue;
        }
        let source = sources.get(file.id);
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
    // Documents addressed to a library (`#@library/ref`) are not the
    // package's own: they go to its libraries.
    let (own_schema_docs, addressed_schemas) =
        library::addressed_schemas(&schema_docs, sources, findings);
    let (own_value_docs, addressed_values) =
        library::addressed_values(&value_docs, sources, findings);
    let mut schema_docs = own_schema_docs;
    let value_docs = own_value_docs;
    schema_docs.extend(&settings.library.schemas);
    if has_errors(findings) {
        return outcome;
    }

    // 3. The code of schema and data-values files, compiled once; annotation
    // arguments are evaluated in their file's scope.
    let engine = Engine::new(root, workspace::MODULES);
    let mut scopes = HashMap::new();
    // A data-values file that ytt cannot template stops the data values,
    // not the schema: ytt builds (and exports) the schema first.
    let mut values_unreadable = false;
    // What each file's code printed, in file order: ytt evaluates a file's
    // code and its computed values in one go, confvet in two.
    let mut file_prints: Vec<(crate::source::FileId, String)> = Vec::new();
    for (file, set) in files.iter().zip(&parsed) {
        if in_private(file) || is_plain(file) {
            continue;
        }
        let is_schema_file = set
            .docs
            .iter()
            .any(|d| d.has_annotation("data/values-schema"));
        let is_values_file = set.docs.iter().any(|d| d.has_annotation("data/values"));
        if !is_schema_file && !is_values_file {
            continue;
        }
        if values_unreadable && !is_schema_file {
            continue;
        }
        let source = sources.get(file.id);
        if !settings.ignore_unknown_comments
            && let Some(comment) = first_plain_comment(set)
        {
            let line = source.line_col(comment.span.start as usize).line;
            findings.push(
                Finding::new(&rules::ytt::UNKNOWN_COMMENT, comment.span,
                    format!(
                        "Failed to parse line {line}: '#{}': Expected ytt-formatted string (use '#@' for annotations or code, '#!' for comments)",
                        comment.text
                    ),
                )
                .with_help("write `#!` for a comment in a ytt file, or pass --ignore-unknown-comments as ytt users do")
                .with_fix(ytt_comments_fix(&source.text, set)),
            );
            if is_schema_file {
                // What printed before ytt stops.
                for (_, printed) in &file_prints {
                    engine::prints::replay(printed);
                }
                return outcome;
            }
            values_unreadable = true;
            continue;
        }
        let (compiled, printed) = engine::prints::aside(|| {
            engine.compile_yaml_file(
                &source.name,
                &source.text,
                file.path.parent().unwrap_or(root),
            )
        });
        file_prints.push((file.id, printed));
        match compiled {
            Ok(module) => {
                scopes.insert(file.id, module);
            }
            // A data-values file may template with data it cannot see here
            // (ytt evaluates it with the values before it); only a schema
            // file that does not compile is reported.
            Err(_) if !is_schema_file => {}
            Err(engine::RunFailure {
                message,
                line,
                is_syntax,
                ..
            }) => {
                let start = source.line_start(line);
                let end = start + source.line_text(line).len();
                let rule = rules::ytt::code_failure(is_syntax);
                findings.push(Finding::new(
                    rule,
                    Span::new(file.id, start, end),
                    format!("templating {}: {message}", source.name),
                ));
                // What printed before ytt stops.
                for (_, printed) in &file_prints {
                    engine::prints::replay(printed);
                }
                return outcome;
            }
        }
    }
    let code = Code {
        engine: &engine,
        scopes: &scopes,
    };
    // Values written as code (`key: #@ expr`), computed as ytt does.
    let mut value_prints = HashMap::new();
    let schema_evaluated =
        value_code::evaluate(&schema_docs, &code, true, findings, &mut value_prints);
    let schema_docs: Vec<&Document> = schema_evaluated.iter().map(|d| d.as_ref()).collect();
    let values_evaluated =
        value_code::evaluate(&value_docs, &code, false, findings, &mut value_prints);
    let value_docs: Vec<&Document> = values_evaluated.iter().map(|d| d.as_ref()).collect();
    for (file, printed) in &file_prints {
        engine::prints::replay(printed);
        engine::prints::replay(value_prints.get(file).map_or("", String::as_str));
    }

    // 4. Schema: each document on its own, then merged.
    let schema = match build_schema(&schema_docs, findings, &code) {
        Ok(schema) => schema,
        Err(()) => return outcome,
    };
    outcome.schema = Some(schema.clone());
    if values_unreadable {
        return outcome;
    }

    // 4. Data values, merged step by step.
    let mut seen: HashSet<(Span, String)> = HashSet::new();
    let mut current: Option<Node> = schema.as_ref().map(|ty| ty.default.clone());
    let root_at = schema.as_ref().map(|ty| ty.span);
    let mut step_findings = Vec::new();
    // Documents are merged by reference; only command-line values are new.
    let flag_overlays = settings.flags.overlays(sources, &mut step_findings);
    // Each source with where it starts, as ytt places it.
    let sources_in_order: Vec<(&Node, Span, &[crate::yaml::Comment], MergeMode)> = value_docs
        .iter()
        .map(|doc| {
            let at = flags::document_start(doc);
            (
                &doc.value,
                at,
                doc.comments.as_slice(),
                MergeMode::default(),
            )
        })
        .chain(
            flag_overlays
                .own
                .iter()
                .map(|(node, mode, at)| (node, *at, &[][..], *mode)),
        )
        .chain(
            settings
                .library
                .values
                .iter()
                .map(|doc| (&doc.node, doc.node.span, doc.comments.as_slice(), doc.mode)),
        )
        .collect();
    findings.append(&mut step_findings);
    let written = quoting::WrittenValues {
        sources,
        files: value_docs.iter().map(|doc| doc.span.file).collect(),
    };
    for &(node, starts_at, comments, mode) in &sources_in_order {
        let mut step = Vec::new();
        if let Some(ty) = &schema {
            let mut checker = TypeChecker {
                findings: &mut step,
                written: None,
            };
            if !checker.fits_document(node, starts_at, ty) {
                findings.append(&mut step);
                continue;
            }
            report_given_deprecated(node, ty, &DataPath::root(), &mut step);
        }
        match current.as_mut() {
            // Without a schema the first document is the base; an empty
            // one is an empty map, as in ytt.
            None if node.is_null() => {
                current = Some(Node {
                    span: node.span,
                    value: Value::Map(Vec::new()),
                })
            }
            None => current = Some(node.clone()),
            Some(left) => {
                let mut merger = Merger {
                    findings: &mut step,
                    has_schema: schema.is_some(),
                    keeps_left_annotations: false,
                    code: Some(&code),
                };
                merger.merge_document(left, node, comments, mode);
            }
        }
        if let (Some(ty), Some(values)) = (&schema, current.as_mut()) {
            let at = if values.span.file == ty.span.file {
                ty.span
            } else {
                values.span
            };
            TypeChecker {
                findings: &mut step,
                written: Some(&written),
            }
            .check(values, root_at.unwrap_or(at), ty, &DataPath::root());
        }
        for finding in step {
            if seen.insert((finding.span, finding.message.clone())) {
                findings.push(finding);
            }
        }
    }
    let values = current.unwrap_or_else(|| Node {
        span: package_start,
        value: Value::Map(Vec::new()),
    });
    // 5. Validations on the final values. ytt never gets here after a type
    // or unknown-key error, and neither does confvet: a rule on a value of
    // the wrong type would only report the same problem again, or a false
    // one.
    if !settings.disable_validation && !has_errors(findings) {
        let mistyped: HashSet<Span> = findings.iter().map(|f| f.span).collect();
        let mut violations = Vec::new();
        let mut annotation_errors = Vec::new();
        let mut validator = Validator {
            findings: &mut violations,
            code: &code,
            root: Some(&values),
            root_value: None,
            is_aborted: false,
        };
        if let Some(ty) = &schema {
            validator.validate(&values, ty.span, ty, &DataPath::root(), None);
        }
        // @assert/validate on data-values documents and on the nodes that
        // survived the merge.
        for doc in &value_docs {
            if let Some(validation) =
                assert_validation(doc.comments(), &code, &mut annotation_errors)
            {
                validator.run(&values, doc.span, &validation, &DataPath::root(), None);
            }
        }
        run_asserts(
            &values,
            &DataPath::root(),
            &mut validator,
            &code,
            &mut annotation_errors,
        );
        findings.extend(annotation_errors);
        findings.extend(
            violations
                .into_iter()
                .filter(|v| !mistyped.contains(&v.span)),
        );
    }
    // ytt evaluates templates only once data values are valid.
    if !has_errors(findings) && !settings.values_only {
        let (templated, templated_sets): (Vec<&DiscoveredFile>, Vec<&DocumentSet>) = files
            .iter()
            .zip(&parsed)
            .filter(|(file, _)| !is_plain(file))
            .map(|(file, set)| (*file, *set))
            .unzip();
        check_templates(
            &templated,
            &templated_sets,
            root,
            sources,
            Some(&values),
            schema.as_ref(),
            findings,
        );
    }
    if !has_errors(findings) && !settings.skip_templates {
        let templates: Vec<(&DiscoveredFile, &DocumentSet)> = files
            .iter()
            .copied()
            .zip(parsed.iter().copied())
            .filter(|(file, set)| match marked(file) {
                // ytt outputs a plain file whatever its annotations say.
                Some(input) if !input.is_template() => {
                    input.is_for_output() && !input.in_private_library()
                }
                Some(input) => {
                    !holds_data_values(set) && !input.in_private_library() && input.is_for_output()
                }
                None => is_template(file, set, root) && is_yaml_template(&file.path),
            })
            .collect();
        let texts = match &settings.text_templates {
            Some(given) => given.clone(),
            None => text_templates(root, files, sources, settings.inputs.as_deref()),
        };
        // What this package gives its libraries: its own addressed
        // documents, then the command line's, then what its parent passes
        // on through it.
        let given = library::Given {
            values: addressed_values
                .into_iter()
                .chain(flag_overlays.addressed)
                .chain(settings.library.child_values.iter().cloned())
                .collect(),
            schemas: addressed_schemas
                .into_iter()
                .chain(settings.library.child_schemas.iter().cloned())
                .collect(),
            options: library::options(settings),
        };
        // The engine and the values' conversion only for packages that use them.
        // ytt evaluates every library file of the package, loaded or not:
        // without templates too (a finding needs a file of the package to
        // point at).
        let has_library_files = !files.is_empty()
            && settings.inputs.as_ref().is_some_and(|inputs| {
                inputs
                    .files
                    .iter()
                    .any(|f| f.is_library() && !f.is_for_output() && !in_ytt_lib(&f.path, root))
            });
        if templates.is_empty()
            && texts.is_empty()
            && !settings.library.is_library
            && !has_library_files
        {
            findings.extend(library::unused(&given));
        } else {
            let known = files
                .iter()
                .map(|f| (f.path.clone(), (f.id, sources.get(f.id))))
                .collect();
            let options = template::compile::CompileOptions {
                ignore_unknown_comments: settings.ignore_unknown_comments,
            };
            let mut renderer =
                render::Renderer::new(root, &values, !settings.flags.is_empty(), known, options);
            if let Some(files) = &settings.flat_files {
                renderer = renderer.with_flat_files(files);
            }
            if let Some(files) = &settings.library_files {
                renderer = renderer.with_library_files(files.clone());
            }
            renderer.session_options(settings.implicit_map_key_overrides);
            if let Some(inputs) = &settings.inputs {
                renderer.with_inputs(inputs.clone());
            }
            let failures_before = render_failures(findings);
            renderer.with_libraries(evaluate_library, &given);
            outcome.rendered = Some(renderer.check(&templates, sources, findings));
            // What the package renders, checked against Kubernetes schemas
            // when it all rendered, overlays applied: a partial output, or
            // one before its overlays, is not what ytt would give.
            if exported.is_none()
                && !settings.library.is_library
                && render_failures(findings) == failures_before
                && !findings
                    .iter()
                    .any(|f| f.is(&rules::ytt::OVERLAY_UNCHECKED))
                && let (Some(catalog), Some(rendered)) = (&settings.kubernetes, &outcome.rendered)
            {
                let members = (files, parsed.as_slice());
                let lookups = &mut outcome.kind_lookups;
                findings.extend(check_output(
                    catalog, rendered, members, settings, sources, lookups,
                ));
            }
            // Text templates render after the YAML ones, as in ytt.
            if !texts.is_empty() && !has_errors(findings) {
                outcome.rendered_texts = Some(renderer.check_texts(&texts, sources, findings));
            }
            // A library's library files are evaluated too, for export().
            if settings.library.is_library && !has_errors(findings) {
                match renderer.library_exports(root) {
                    Ok(exports) => {
                        *exported = Some((exports, renderer.session()));
                    }
                    Err(message) => findings.push(Finding::new(
                        &rules::ytt::TEMPLATE_ERROR,
                        package_start,
                        message,
                    )),
                }
            }
            // ytt evaluates every library file of the package, loaded or
            // not: one that fails stops it once the templates rendered.
            if !settings.library.is_library
                && render_failures(findings) == failures_before
                && !has_errors(findings)
                && let Some(inputs) = &settings.inputs
                && let Err((name, message)) = renderer.evaluate_library_files(
                    inputs,
                    &files.iter().map(|f| f.path.as_path()).collect(),
                )
                // What confvet cannot evaluate yet is no verdict.
                && !message.contains(starlark::NOT_RENDERED)
            {
                let rule = if message.starts_with("fail:") || message.contains(": fail: ") {
                    &rules::ytt::TEMPLATE_FAIL
                } else {
                    &rules::ytt::TEMPLATE_ERROR
                };
                let (severity, help) = if settings.flags.is_empty() {
                    (
                        Severity::Warning,
                        "`ytt -f` stops here with the package's own data values: it evaluates each library file, loaded or not",
                    )
                } else {
                    (
                        Severity::Error,
                        "`ytt -f` stops here with these data values: it evaluates each library file, loaded or not",
                    )
                };
                findings.push(
                    Finding::new(
                        rule,
                        package_start,
                        format!("library file {name}: {message}"),
                    )
                    .with_severity(severity)
                    .with_help(help),
                );
            }
            // What no library used, once every template rendered (ytt's
            // check at the end of a library's evaluation).
            if render_failures(findings) == failures_before && !has_errors(findings) {
                findings.extend(library::unused(&given));
            }
        }
    }
    outcome.values = Some(values);
    outcome
}

/// A file marked `type=yaml-plain` (or `text-plain`): read as plain YAML,
/// it holds no schema, no data values and no code.
fn is_marked_plain(settings: &YttSettings, file: &DiscoveredFile) -> bool {
    let marked = settings.inputs.as_ref().and_then(|i| i.get(&file.path));
    marked.is_some_and(|f| !f.is_template())
}

/// What the package renders (once it all rendered, its overlays applied)
/// checked against Kubernetes schemas, each finding where the node was
/// written: a template, an overlay, a plain file of the package (`members`,
/// the files with their YAML). As a template failure, a warning with the
/// package's own data values and an error once data values are given; with
/// `--kubernetes`, a value written in a plain file is a plain manifest's,
/// an error as anywhere else in the tree.
fn check_output(
    catalog: &crate::check::kubernetes::Catalog,
    rendered: &[(crate::source::FileId, Vec<Document>)],
    members: (&[&DiscoveredFile], &[&DocumentSet]),
    settings: &YttSettings,
    sources: &Sources,
    lookups: &mut crate::check::kubernetes::Lookups,
) -> Vec<Finding> {
    let documents: Vec<&Node> = rendered
        .iter()
        .flat_map(|(_, docs)| docs.iter().map(|doc| &doc.value))
        .collect();
    let found = catalog.check(&documents, sources, lookups);
    if !settings.flags.is_empty() {
        return found;
    }
    let (files, parsed) = members;
    let plain: HashSet<crate::source::FileId> = files
        .iter()
        .zip(parsed)
        .filter(|(file, set)| {
            settings.plain_manifests
                && (is_marked_plain(settings, file) || !render::has_templating(set))
        })
        .map(|(file, _)| file.id)
        .collect();
    let (mut given_values, plain_values): (Vec<Finding>, Vec<Finding>) = found
        .into_iter()
        .partition(|f| !plain.contains(&f.span.file));
    crate::check::kubernetes::catalog::as_warnings(&mut given_values);
    given_values.extend(plain_values);
    given_values
}

/// How many findings say a template did not render.
fn render_failures(findings: &[Finding]) -> usize {
    findings
        .iter()
        .filter(|f| settings::is_render_failure(f))
        .count()
}

pub(crate) fn has_errors(findings: &[Finding]) -> bool {
    findings.iter().any(|f| f.severity == Severity::Error)
}

/// Build and merge the schema. Ok(None) without schema documents.
fn build_schema(
    docs: &[&Document],
    findings: &mut Vec<Finding>,
    code: &Code<'_>,
) -> Result<Option<SchemaType>, ()> {
    let Some(first) = docs.first() else {
        return Ok(None);
    };
    let mut builder = SchemaBuilder { findings, code };
    let mut types = Vec::new();
    for doc in docs {
        match builder.document_type(doc) {
            Some(ty) => types.push(ty),
            None => return Err(()),
        }
    }
    if docs.len() == 1 {
        return Ok(types.pop());
    }
    // Merge the documents as overlays, keeping the first document's
    // annotations where two annotate one value (ytt: first rule wins).
    let mut merged = (*first).clone();
    let mut merge_findings = Vec::new();
    for doc in &docs[1..] {
        let mut merger = Merger {
            findings: &mut merge_findings,
            has_schema: false,
            keeps_left_annotations: true,
            code: Some(code),
        };
        merger.merge_document(
            &mut merged.value,
            &doc.value,
            &doc.comments,
            MergeMode::default(),
        );
    }
    if !merge_findings.is_empty() {
        for mut finding in merge_findings {
            finding.rule = rules::ytt::SCHEMA.id;
            finding.kind = rules::ytt::SCHEMA.kind;
            finding.message = format!("schema documents do not merge: {}", finding.message);
            findings.push(finding);
        }
        return Err(());
    }
    SchemaBuilder { findings, code }
        .document_type(&merged)
        .map(Some)
        .ok_or(())
}

/// Every plain `#` comment of a schema or data-values file written `#!`, at
/// once (ytt stops at the first, so one at a time would take a pass each):
/// safe, since each stays a comment, now one ytt reads as such.
fn ytt_comments_fix(text: &str, set: &crate::yaml::DocumentSet) -> Option<crate::finding::Fix> {
    let edits = package::plain_comments(set)
        .into_iter()
        .filter(|c| text.as_bytes().get(c.span.start as usize) == Some(&b'#'))
        .map(|c| {
            let after_hash = c.span.start as usize + 1;
            crate::finding::Edit::replace(
                crate::source::Span::new(c.span.file, after_hash, after_hash),
                "!",
            )
        })
        .collect();
    crate::finding::Fix::safe("write `#!` for each plain `#` comment", edits)
}
