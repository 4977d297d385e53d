//! Phase 7: the templates, once the data values are valid. Names of data
//! values the templates use are checked against the values; the YAML
//! templates render with the final values (overlays applied, private
//! libraries evaluated with what the package gives them), then the text
//! templates; what the package renders is checked against Kubernetes
//! schemas; a library exports its library files, and a package evaluates
//! each of its library files, loaded or not, as ytt does.

use super::super::library::{self, Given};
use super::super::package::in_ytt_lib;
use super::super::package::{holds_data_values, is_template, is_yaml_template, text_templates};
use super::super::schema::SchemaType;
use super::super::settings::has_errors;
use super::super::settings::{self, LibraryExports, PackageOutcome, YttSettings};
use super::super::undefined::check_templates;
use super::super::workspace::addressed::{Addressed, ValuesDoc};
use super::super::workspace::execution::LibraryEvaluator;
use super::super::{render, starlark, template};
use super::documents::ForLibraries;
use super::package::{Package, is_marked_plain};
use crate::check::kubernetes::{Catalog, Lookups, catalog::as_warnings};
use crate::discover::DiscoveredFile;
use crate::finding::{Finding, Severity};
use crate::rules;
use crate::source::{FileId, Sources};
use crate::yaml::{Document, DocumentSet, Node};
use std::collections::HashSet;

/// The names of data values the templates use, checked against the final
/// values and the schema.
pub(super) fn check_names(
    package: &Package<'_>,
    values: &Node,
    schema: Option<&SchemaType>,
    findings: &mut Vec<Finding>,
) {
    let (templated, templated_sets): (Vec<&DiscoveredFile>, Vec<&DocumentSet>) = package
        .members()
        .filter(|(file, _)| !package.is_plain(file))
        .unzip();
    check_templates(
        &templated,
        &templated_sets,
        package.root,
        package.sources,
        Some(values),
        schema,
        findings,
    );
}

/// What a package gives its libraries: its own addressed documents, then
/// the command line's, then what its parent passes on through it.
pub(super) fn given(
    addressed: ForLibraries,
    flag_addressed: Vec<Addressed<ValuesDoc>>,
    settings: &YttSettings,
) -> Given {
    Given {
        values: addressed
            .values
            .into_iter()
            .chain(flag_addressed)
            .chain(settings.library.child_values.iter().cloned())
            .collect(),
        schemas: addressed
            .schemas
            .into_iter()
            .chain(settings.library.child_schemas.iter().cloned())
            .collect(),
        options: library::options(settings),
    }
}

/// Render the package's templates with `values` into `outcome`.
pub(super) fn render(
    package: &Package<'_>,
    values: &Node,
    (given, evaluate_library): (Given, LibraryEvaluator),
    outcome: &mut PackageOutcome,
    exported: &mut Option<LibraryExports>,
) {
    let Package {
        root,
        files,
        sources,
        settings,
        ..
    } = *package;
    let templates: Vec<(&DiscoveredFile, &DocumentSet)> = package
        .members()
        .filter(|(file, set)| match package.marked(file) {
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
    let findings = &mut outcome.findings;
    // The engine and the values' conversion only for packages that use them.
    if templates.is_empty()
        && texts.is_empty()
        && !settings.library.is_library
        && !has_library_files
    {
        findings.extend(library::unused(&given));
        return;
    }
    let known = files
        .iter()
        .map(|f| (f.path.clone(), (f.id, sources.get(f.id))))
        .collect();
    let options = template::compile::CompileOptions {
        ignore_unknown_comments: settings.ignore_unknown_comments,
    };
    let mut renderer =
        render::Renderer::new(root, values, !settings.flags.is_empty(), known, options)
            .with_files(sources.files());
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
    outcome.rendered = Some(renderer.check(&templates, sources, &mut outcome.findings));
    let findings = &mut outcome.findings;
    // What the package renders, checked against Kubernetes schemas when it
    // all rendered, overlays applied: a partial output, or one before its
    // overlays, is not what ytt would give.
    if exported.is_none()
        && !settings.library.is_library
        && render_failures(findings) == failures_before
        && !findings
            .iter()
            .any(|f| f.is(&rules::ytt::OVERLAY_UNCHECKED))
        && let (Some(catalog), Some(rendered)) = (&settings.kubernetes, &outcome.rendered)
    {
        let members = (files, package.parsed.as_slice());
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
            Err(failed) => findings.push(Finding::new(
                &rules::ytt::TEMPLATE_ERROR,
                package.start,
                failed.to_string(),
            )),
        }
    }
    // ytt evaluates every library file of the package, loaded or not: one
    // that fails stops it once the templates rendered.
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
        findings.push(library_file_failure(package, &name, &message));
    }
    // What no library used, once every template rendered (ytt's check at
    // the end of a library's evaluation).
    if render_failures(findings) == failures_before && !has_errors(findings) {
        findings.extend(library::unused(&given));
    }
}

/// A library file of the package that failed when ytt evaluated it: as a
/// template failure, a warning with the package's own data values.
fn library_file_failure(package: &Package<'_>, name: &str, message: &str) -> Finding {
    let rule = if message.starts_with("fail:") || message.contains(": fail: ") {
        &rules::ytt::TEMPLATE_FAIL
    } else {
        &rules::ytt::TEMPLATE_ERROR
    };
    let (severity, help) = if package.settings.flags.is_empty() {
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
    Finding::new(
        rule,
        package.start,
        format!("library file {name}: {message}"),
    )
    .with_severity(severity)
    .with_help(help)
}

/// What the package renders (once it all rendered, its overlays applied)
/// checked against Kubernetes schemas, each finding where the node was
/// written: a template, an overlay, a plain file of the package (`members`,
/// the files with their YAML). As a template failure, a warning with the
/// package's own data values and an error once data values are given; with
/// `--kubernetes`, a value written in a plain file is a plain manifest's,
/// an error as anywhere else in the tree.
fn check_output(
    catalog: &Catalog,
    rendered: &[(FileId, Vec<Document>)],
    members: (&[&DiscoveredFile], &[&DocumentSet]),
    settings: &YttSettings,
    sources: &Sources,
    lookups: &mut Lookups,
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
    let plain: HashSet<FileId> = files
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
    as_warnings(&mut given_values);
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
