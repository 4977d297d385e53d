//! One lint run: discover, check every unit on all cores (or reuse its
//! findings from the cache, see `inputs`), sort findings. The binary and
//! the tests both go through here.

pub mod inputs;
mod request;
pub mod reuse;

pub use self::request::{LintRequest, NotAShard, Shard};

use crate::check::ytt::schema::SchemaType;
use crate::check::ytt::{PackageOutcome, YttSettings};
use crate::check::ytt::{drift, marks};
use crate::check::{kubernetes, kubevirt, tekton};
use crate::config::Config;
use crate::discover::{self, Discovery, System};
use crate::error::Error;
use crate::finding::{Finding, Kind, Severity, number_alike, sort_findings};
use crate::report::{CheckedUnit, RunError, Summary};
use crate::rules;
use crate::source::{FileId, Sources, Span, display_name};
use crate::suppress;
use crate::yaml::{Node, ParseOptions};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Lets the tests of a debug build see a check fail.
fn panic_when_testing(_root: &Path) {
    #[cfg(debug_assertions)]
    if std::env::var_os("CONFVET_TEST_PANIC_IN").is_some_and(|v| _root.ends_with(v)) {
        panic!("test panic");
    }
}

/// Everything a run found.
#[derive(Debug, Default)]
pub struct LintResult {
    pub findings: Vec<Finding>,
    pub units: Vec<CheckedUnit>,
    pub summary: Summary,
    /// Problems that are not findings (missing paths, unreadable files, bad
    /// flags): they make the exit code 2.
    pub errors: Vec<RunError>,
    /// Final data values per ytt package root, when they could be computed
    /// (with [`LintRequest::keep_outputs`]).
    pub values: Vec<(PathBuf, Option<Node>)>,
    /// Each ytt package's schema, as [`PackageOutcome::schema`] (with
    /// [`LintRequest::keep_outputs`]).
    pub schemas: Vec<(PathBuf, Option<Option<SchemaType>>)>,
    /// Documents the Kubernetes check skipped: no schema knows their kind.
    pub skipped_kinds: kubernetes::Skipped,
    /// Which units reused their findings, and why the others did not
    /// (with a cache).
    pub reuse: Option<reuse::Reuse>,
}

impl LintResult {
    /// The outcomes of runs over parts of the linted paths (each with the
    /// configuration closest to it) as one run's.
    pub fn merge(results: Vec<LintResult>, sources: &Sources) -> LintResult {
        let mut merged = LintResult::default();
        for result in results {
            merged.findings.extend(result.findings);
            merged.units.extend(result.units);
            merged.errors.extend(result.errors);
            merged.values.extend(result.values);
            merged.schemas.extend(result.schemas);
            for (kind, count) in result.skipped_kinds {
                *merged.skipped_kinds.entry(kind).or_default() += count;
            }
            let summary = &mut merged.summary;
            summary.files += result.summary.files;
            summary.units += result.summary.units;
            summary.errors += result.summary.errors;
            summary.warnings += result.summary.warnings;
            summary.suppressed += result.summary.suppressed;
            if let Some(reuse) = result.reuse {
                let into = merged.reuse.get_or_insert_with(reuse::Reuse::default);
                into.units += reuse.units;
                into.reused += reuse.reused;
                into.checked.extend(reuse.checked);
                into.unreadable |= reuse.unreadable;
            }
        }
        sort_findings(&mut merged.findings, sources);
        number_alike(&mut merged.findings, sources);
        merged
    }

    /// The outcome of a run stopped by the configuration's own errors.
    pub fn blocked_by(config: &Config, sources: &Sources) -> LintResult {
        let mut findings = config.findings.clone();
        sort_findings(&mut findings, sources);
        number_alike(&mut findings, sources);
        let count = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
        let summary = Summary {
            files: 1,
            units: 0,
            errors: count(Severity::Error),
            warnings: count(Severity::Warning),
            suppressed: 0,
        };
        LintResult {
            findings,
            summary,
            ..LintResult::default()
        }
    }
}

/// Lint `request.paths`; `cwd` names files in the output.
pub fn lint(request: &LintRequest, sources: &Sources, cwd: &Path) -> LintResult {
    let mut options = match discover_options(request, cwd) {
        Ok(options) => options,
        Err(error) => return LintResult::failed(error),
    };
    let Discovery {
        files,
        units,
        errors,
        scope,
        resources,
        findings: tree_findings,
    } = discover::discover_with(
        &request.paths,
        sources,
        cwd,
        &ParseOptions::default(),
        &options,
    );
    let mut result = LintResult {
        errors: errors.into_iter().map(RunError::from).collect(),
        ..LintResult::default()
    };
    let catalog = kubernetes_catalog(request, &resources, sources, cwd);
    // Sharded or not: which package a Carvel Package ships must not depend
    // on the shard.
    let schema_files = ytt_schema_files(&units, &files);
    let mut units = crate::check::components::split_units(
        units,
        &files,
        sources,
        scope.as_deref(),
        options.cache.as_deref(),
    );
    let (package_inputs, refused_links) = match package_inputs(request, &mut units, &files, cwd) {
        Ok(found) => found,
        Err(error) => {
            result.errors.push(error);
            return result;
        }
    };
    // Whatever the shard: the YAML below a package root is the package's,
    // checked as its output (a private library's as what the package
    // renders with it).
    let package_roots: Vec<PathBuf> = ytt_units(&units).map(|u| u.root.clone()).collect();
    if let Some(shard) = request.shard {
        units.retain(|unit| in_shard(&unit.key, cwd, shard));
    }
    if let Some(error) = flags_for_many_packages(request, &units) {
        result.errors.push(error);
        return result;
    }
    if let Some(progress) = &request.progress {
        progress.checking(units.len());
    }
    // Carvel Packages, parsed now: the packages they ship keep their
    // schema's exports, checked or reused, for the drift check below.
    let carvel_packages = resources.iter().filter(|f| f.resource.carvel_package);
    let parsed_packages = parse_now(carvel_packages, sources);
    let mapping =
        (request.config.as_ref()).map_or_else(Default::default, Config::package_resources);
    let drift_context = drift::DriftContext {
        exports: &[],
        schema_files: &schema_files,
        mapping: &mapping,
        sources,
        cwd,
    };
    let shipped = drift::shipped_roots(&parsed_packages, &drift_context);
    let reuse = reuse::Plan::new(
        request,
        options.cache.as_deref(),
        (&units, &files, &resources),
        &package_inputs,
        catalog.as_deref(),
        (sources, cwd),
    );
    if let Some(cache) = options.cache.take().and_then(|c| Arc::try_unwrap(c).ok()) {
        cache.save();
    }
    let outcomes = check_units(
        (request, sources, cwd),
        (catalog.as_ref(), &package_inputs),
        (&units, &files),
        reuse.as_ref(),
        &shipped,
    );
    // The results store written and dropped, and the packages' listings
    // dropped, before the findings are merged: with every file's record
    // still held, they made the peak of a large tree's run.
    let reused_crd_problems = reuse
        .as_ref()
        .map(reuse::Plan::take_crd_problems)
        .unwrap_or_default();
    result.reuse = reuse.map(reuse::Plan::finish);
    drop(package_inputs);
    let in_scope = reported_in(request, scope.as_deref(), sources);
    let exports = merge_outcomes(
        request,
        (sources, cwd),
        (&units, &files),
        outcomes,
        &in_scope,
        &mut result,
    );
    let context = drift::DriftContext {
        exports: &exports,
        ..drift_context
    };
    let drifted = drift::check(&parsed_packages, &context);
    result
        .findings
        .extend(drifted.into_iter().filter(|f| in_scope(f.span.file)));
    // The failures of units, and the panics of the parser on a file, are
    // findings of kind Internal by now.
    if result.findings.iter().any(|f| f.kind == Kind::Internal) {
        result.errors.push(Error::FailedInternally.into());
    }
    let in_this_shard = |key: &Path| request.shard.is_none_or(|shard| in_shard(key, cwd, shard));
    result.findings.extend(
        (refused_links.iter())
            .filter(|(_, (key, _))| in_this_shard(key))
            .map(|(link, (_, root))| refused_link(link, root, sources, cwd)),
    );
    let manifests = check_plain_manifests(
        request,
        catalog.as_deref(),
        (&package_roots, &files, &resources),
        &in_scope,
        (sources, cwd),
        &mut result,
    );
    let mut linted = linted_files(&units, &files, &in_scope);
    linted.push(manifests.iter().map(|file| file.id).collect());
    let crd_findings: Vec<Finding> = catalog
        .iter()
        .flat_map(|c| c.take_problems())
        .chain(reused_crd_problems)
        .collect();
    add_run_findings(request, crd_findings, tree_findings, &in_scope, &mut result);
    scrub_environment(request, &mut result);
    finish(
        (request, sources),
        &mut result,
        &linted,
        (&units, &files, &resources),
        &manifests,
    );
    result
}

/// The units' outcomes, in order, into the run's result: each unit named
/// with its files, its findings (a Tekton or KubeVirt unit's only in
/// `in_scope` files: a changed Task's callers are read, not reported), the
/// values and schemas a request keeps. Gives the schema exports of the
/// packages Carvel Packages ship.
fn merge_outcomes(
    request: &LintRequest,
    (sources, cwd): (&Sources, &Path),
    (units, files): (&[discover::Unit], &[discover::DiscoveredFile]),
    outcomes: Vec<(PackageOutcome, Option<drift::SchemaExport>)>,
    in_scope: &dyn Fn(FileId) -> bool,
    result: &mut LintResult,
) -> Vec<(PathBuf, drift::SchemaExport)> {
    let mut exports: Vec<(PathBuf, drift::SchemaExport)> = Vec::new();
    for (unit, (outcome, export)) in units.iter().zip(outcomes) {
        if let Some(export) = export {
            exports.push((unit.root.clone(), export));
        }
        kubernetes::tree::merge_skipped(&mut result.skipped_kinds, outcome.kind_lookups.skipped);
        let findings = outcome.findings;
        result.units.push(CheckedUnit {
            name: display_name(&unit.key, cwd),
            system: unit.system.name(),
            files: unit
                .files
                .iter()
                .map(|&i| sources.name(files[i].id))
                .collect(),
        });
        if unit.system == System::Ytt {
            if request.keep_outputs {
                result.values.push((unit.root.clone(), outcome.values));
            }
            if request.keep_outputs {
                result.schemas.push((unit.root.clone(), outcome.schema));
            }
            result.findings.extend(findings);
        } else {
            result
                .findings
                .extend(findings.into_iter().filter(|f| in_scope(f.span.file)));
        }
    }
    exports
}

/// The findings of the run rather than of a unit: what the CRDs the
/// checks read lack, the tree's own (discovery's), the configuration's;
/// then the configuration's rule settings over every finding.
fn add_run_findings(
    request: &LintRequest,
    crd_findings: Vec<Finding>,
    tree_findings: Vec<Finding>,
    in_scope: &dyn Fn(FileId) -> bool,
    result: &mut LintResult,
) {
    // The configuration's own findings belong to one shard.
    let is_first_shard = request.shard.is_none_or(|shard| shard.index == 1);
    // What the CRDs the checks read were found to lack, each once (the run
    // removes repeats), in the shard that read them.
    result
        .findings
        .extend(crd_findings.into_iter().filter(|f| in_scope(f.span.file)));
    if is_first_shard {
        let tree = tree_findings.into_iter().filter(|f| in_scope(f.span.file));
        result.findings.extend(tree);
    }
    if let Some(config) = &request.config {
        if is_first_shard {
            result.findings.extend(config.findings.iter().cloned());
        }
        config.apply_rules(&mut result.findings);
    }
}

/// Whether a finding in a file is reported: when the named paths are not
/// whole units (a named Task read with its callers), only the findings in
/// them are, unless the request asks for every finding of those units.
fn reported_in<'a>(
    request: &'a LintRequest,
    scope: Option<&'a [PathBuf]>,
    sources: &'a Sources,
) -> impl Fn(FileId) -> bool + 'a {
    move |id| {
        request.whole_units
            || scope.is_none_or(|scope| {
                sources
                    .path(id)
                    .is_some_and(|p| scope.iter().any(|s| p.starts_with(s)))
            })
    }
}

/// The files, read and parsed now (discovery keeps no tree).
fn parse_now<'f>(
    files: impl Iterator<Item = &'f discover::DiscoveredFile> + Clone,
    sources: &Sources,
) -> Vec<discover::DiscoveredFile> {
    sources.load(files.clone().map(|file| file.id));
    files.map(|file| file.parse_now(sources)).collect()
}

/// Data-value flags name one package's values: a usage error when the
/// paths hold more than one.
fn flags_for_many_packages(request: &LintRequest, units: &[discover::Unit]) -> Option<RunError> {
    let count = ytt_units(units).count();
    (!request.ytt.flags.is_empty() && count > 1).then(|| {
        RunError::from(Error::Usage(format!(
            "data-value flags apply to one ytt package, but the paths hold {count}; lint one package at a time"
        )))
    })
}

/// The ytt packages among `units`.
fn ytt_units(units: &[discover::Unit]) -> impl Iterator<Item = &discover::Unit> {
    units.iter().filter(|u| u.system == System::Ytt)
}

/// Every ytt package's schema files, by the package's root.
fn ytt_schema_files(
    units: &[discover::Unit],
    files: &[discover::DiscoveredFile],
) -> Vec<(PathBuf, PathBuf)> {
    ytt_units(units)
        .flat_map(|u| {
            u.files
                .iter()
                .filter(|&&i| files[i].has_schema)
                .map(|&i| (u.root.clone(), files[i].path.clone()))
        })
        .collect()
}

/// Plain manifests (`--kubernetes`), in the shard of their own path,
/// checked against the catalog; gives the files checked. The plain files
/// of a ytt package are checked as what the package renders (its overlays
/// may change them, its libraries are evaluated): they are left out here,
/// as are kustomize patches (parts of resources).
fn check_plain_manifests<'f>(
    request: &LintRequest,
    catalog: Option<&kubernetes::Catalog>,
    tree: (
        &[PathBuf],
        &'f [discover::DiscoveredFile],
        &'f [discover::DiscoveredFile],
    ),
    in_scope: &dyn Fn(FileId) -> bool,
    (sources, cwd): (&Sources, &Path),
    result: &mut LintResult,
) -> Vec<&'f discover::DiscoveredFile> {
    let Some(catalog) = catalog.filter(|_| kubernetes_manifests(request)) else {
        return Vec::new();
    };
    let manifests = manifest_files(request, tree, in_scope, cwd);
    let (findings, lookups) = kubernetes::tree::check_manifests(catalog, &manifests, sources);
    result.findings.extend(findings);
    kubernetes::tree::merge_skipped(&mut result.skipped_kinds, lookups.skipped);
    manifests
}

/// Name, never show, what came from the environment: in every finding and
/// error of the run.
fn scrub_environment(request: &LintRequest, result: &mut LintResult) {
    let flags = &request.ytt.flags;
    let environment = crate::redact::EnvironmentValues::new(
        flags
            .data_values_env
            .iter()
            .chain(&flags.data_values_env_yaml)
            .map(String::as_str)
            .chain(request.config.iter().flat_map(Config::env_prefixes))
            .flat_map(|given| crate::check::ytt::flags::env_vars_read(given, &flags.env)),
    );
    if !environment.is_empty() {
        for finding in &mut result.findings {
            environment.scrub_finding(finding);
        }
        for error in &mut result.errors {
            error.message = environment.scrub(&error.message);
        }
    }
}

/// The run's findings as reported: one per link, sorted, repeats gone,
/// the rules the request turns off dropped, suppression comments applied
/// (in the `linted` files), numbered, counted with the units and files.
fn finish(
    (request, sources): (&LintRequest, &Sources),
    result: &mut LintResult,
    linted: &[Vec<FileId>],
    (units, files, resources): (
        &[discover::Unit],
        &[discover::DiscoveredFile],
        &[discover::DiscoveredFile],
    ),
    manifests: &[&discover::DiscoveredFile],
) {
    // Discovery saw which files hold no suppression comment: those are not
    // read again (a unit whose findings were reused read none of its files).
    let unmarked: std::collections::HashSet<FileId> = files
        .iter()
        .chain(resources)
        .filter(|file| !file.has_suppression)
        .map(|file| file.id)
        .collect();
    // A link a data values folder left out is also one the walk did: say it
    // once, with the more telling reason (the first).
    let mut links_said = std::collections::HashSet::new();
    result.findings.retain(|f| {
        !f.is(&rules::confvet::SYMLINK) || links_said.insert(sources.stable_name(f.span.file))
    });
    sort_findings(&mut result.findings, sources);
    result.findings.dedup();
    let reports = |id: &str| request.reports(id);
    result.findings.retain(|f| reports(f.rule));
    let suppressed = suppress::apply(&mut result.findings, sources, linted, &reports, &|id| {
        unmarked.contains(&id)
    });
    // Suppression comments make findings of their own, which may be off.
    result.findings.retain(|f| reports(f.rule));
    sort_findings(&mut result.findings, sources);
    number_alike(&mut result.findings, sources);
    result.summary = Summary {
        errors: result
            .findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .map(|f| f.left_out.max(1))
            .sum(),
        warnings: result
            .findings
            .iter()
            .filter(|f| f.severity == Severity::Warning)
            .map(|f| f.left_out.max(1))
            .sum(),
        suppressed,
        // A Tekton or KubeVirt file is counted with its unit.
        files: units.iter().map(|u| u.files.len()).sum::<usize>()
            + manifests
                .iter()
                .filter(|file| file.system.is_none())
                .count(),
        units: units.len(),
    };
}

impl LintResult {
    /// A run that stopped before it checked anything.
    fn failed(error: RunError) -> LintResult {
        LintResult {
            errors: vec![error],
            ..LintResult::default()
        }
    }
}

/// Check every unit on all cores, or take its findings from the cache;
/// each unit's trees and texts are dropped as soon as it is done. Gives
/// each unit's outcome and, for a package a Carvel Package ships
/// (`shipped`), its schema's export for the drift check.
fn check_units(
    (request, sources, cwd): (&LintRequest, &Sources, &Path),
    (catalog, package_inputs): (
        Option<&Arc<kubernetes::Catalog>>,
        &std::collections::HashMap<PathBuf, Arc<marks::Inputs>>,
    ),
    (units, files): (&[discover::Unit], &[discover::DiscoveredFile]),
    reuse: Option<&reuse::Plan<'_>>,
    shipped: &[PathBuf],
) -> Vec<(PackageOutcome, Option<drift::SchemaExport>)> {
    // A ytt package runs on a thread of its own, under the unit limits:
    // what it needs is shared, not borrowed, so a package given up on can be
    // left running.
    let ytt_config = Arc::new(request.config.clone());
    let ytt_settings = Arc::new(YttSettings {
        kubernetes: catalog.cloned(),
        plain_manifests: kubernetes_manifests(request),
        ..request.ytt.clone()
    });
    let context = &UnitContext {
        request,
        sources,
        cwd,
        package_inputs,
        ytt_settings: &ytt_settings,
        ytt_config: &ytt_config,
        catalog: catalog.map(|c| &**c),
    };
    units
        .par_iter()
        .enumerate()
        .map(|(index, unit)| {
            let inputs = package_inputs.get(&unit.root).map(|i| i.as_ref());
            if let Some(reused) = reuse.and_then(|r| r.reused(index, inputs)) {
                if let Some(progress) = &request.progress {
                    progress.checked();
                }
                return reused;
            }
            // Parsed here and dropped with the unit: only the units being
            // checked hold their trees.
            let parsed = parse_now(unit.files.iter().map(|&i| &files[i]), sources);
            let mut outcome = check_unit(context, unit, parsed);
            // Findings by the million (a file of a million bad references)
            // would otherwise add up across the units of a run.
            if outcome.findings.len() > crate::finding::UNIT_FINDINGS_BEFORE_CAP {
                sort_findings(&mut outcome.findings, sources);
                crate::finding::cap_per_rule_and_file(
                    &mut outcome.findings,
                    crate::finding::UNIT_MAX_PER_RULE_AND_FILE,
                );
            }
            // What the drift check compares a Carvel Package with.
            let export = match &outcome.schema {
                Some(Some(schema)) if shipped.contains(&unit.root) => {
                    Some(drift::SchemaExport::of(schema, sources))
                }
                _ => None,
            };
            if let Some(reuse) = reuse {
                reuse.store(index, &outcome, export.as_ref());
            }
            // What the run does not return is dropped with the unit, not
            // at the end: the rendered documents of every package would
            // otherwise stay alive until all units are checked.
            outcome.rendered = None;
            outcome.rendered_texts = None;
            if !request.keep_outputs {
                outcome.values = None;
                outcome.schema = None;
            }
            // No text stays: the reports read the few files their findings
            // show again (one at a time, in order), so memory does not grow
            // with the number of findings either.
            sources.evict(unit.files.iter().map(|&i| files[i].id));
            if let Some(progress) = &request.progress {
                progress.checked();
            }
            (outcome, export)
        })
        .collect()
}

/// The catalog the Kubernetes check of this run uses, built once; None
/// when the check is off (by the command, the configuration, or every
/// `kubernetes/*` rule turned off).
fn kubernetes_catalog(
    request: &LintRequest,
    resources: &[discover::DiscoveredFile],
    sources: &Sources,
    cwd: &Path,
) -> Option<Arc<kubernetes::Catalog>> {
    let config = request.config.as_ref();
    let wanted = request.kubernetes.check
        && config.is_none_or(Config::kubernetes_check)
        && rules::RULES
            .iter()
            .any(|rule| rule.id.starts_with("kubernetes/") && request.reports(rule.id));
    if !wanted {
        return None;
    }
    let version = request
        .kubernetes
        .version
        .or_else(|| config.and_then(Config::kubernetes_version))
        .unwrap_or_else(kubernetes::Version::newest);
    let crd_files: Vec<&discover::DiscoveredFile> =
        resources.iter().filter(|file| file.resource.crd).collect();
    let schema_paths = config.map_or(&[][..], Config::kubernetes_schemas);
    let catalog = kubernetes::tree::catalog(
        version,
        (&crd_files, &request.known_crds),
        schema_paths,
        sources,
        cwd,
    );
    Some(Arc::new(catalog))
}

/// The files whose plain manifests `--kubernetes` checks, in the shard of
/// their own path: the files of no system, and the Tekton and KubeVirt
/// files that hold documents their system does not read (see
/// `discover::reads_document`). A ytt package outputs its plain files as
/// they are, unless an overlay of it may change them: those of a package
/// with overlays are left out, as are kustomize patches (parts of
/// resources).
fn manifest_files<'a>(
    request: &LintRequest,
    (package_roots, files, resources): (
        &[PathBuf],
        &'a [discover::DiscoveredFile],
        &'a [discover::DiscoveredFile],
    ),
    in_scope: &dyn Fn(FileId) -> bool,
    cwd: &Path,
) -> Vec<&'a discover::DiscoveredFile> {
    let holds_others = |file: &&discover::DiscoveredFile| {
        matches!(file.system, Some(System::Tekton | System::Kubevirt))
    };
    let mut manifests: Vec<&discover::DiscoveredFile> = resources
        .iter()
        .chain(files.iter().filter(holds_others))
        .filter(|file| file.resource.manifest && in_scope(file.id))
        // A ytt package's plain files are its own (adopted in discovery);
        // a Tekton or KubeVirt file in it stays its system's.
        .filter(|file| {
            file.system.is_some() || !package_roots.iter().any(|root| file.path.starts_with(root))
        })
        .filter(|file| {
            request
                .shard
                .is_none_or(|shard| in_shard(&file.path, cwd, shard))
        })
        .collect();
    // Only the kustomizations beside the manifests this run checks.
    let patches =
        kubernetes::kustomize::patch_files(manifests.iter().filter_map(|file| file.path.parent()));
    manifests.retain(|file| !patches.contains(&file.path));
    manifests
}

/// What checking one unit needs of the run.
struct UnitContext<'a> {
    request: &'a LintRequest,
    sources: &'a Sources,
    cwd: &'a Path,
    package_inputs: &'a std::collections::HashMap<PathBuf, Arc<marks::Inputs>>,
    ytt_settings: &'a Arc<YttSettings>,
    ytt_config: &'a Arc<Option<Config>>,
    catalog: Option<&'a kubernetes::Catalog>,
}

/// Check one unit whose files are `parsed`: a ytt package on a thread of
/// its own under the unit limits, KubeVirt and Tekton groups here. A bug
/// in one check must not end the run (hostile input): it becomes a
/// finding naming the unit, at its first file.
fn check_unit(
    context: &UnitContext<'_>,
    unit: &discover::Unit,
    parsed: Vec<discover::DiscoveredFile>,
) -> PackageOutcome {
    let UnitContext {
        request,
        sources,
        cwd,
        ..
    } = *context;
    let at = parsed
        .first()
        .map_or_else(|| Span::file_start(FileId(0)), |f| Span::file_start(f.id));
    // A bug in one check must not end the run (issue: hostile input):
    // it becomes a finding naming the unit, and exit 2.
    let checked = match unit.system {
        System::Ytt => {
            let inputs = context.package_inputs.get(&unit.root).cloned();
            // Files a mark made YAML that the walk did not take as ytt's.
            let extra: Vec<discover::DiscoveredFile> = inputs
                .iter()
                .flat_map(|inputs| marked_yaml(inputs, &parsed, sources, cwd))
                .collect();
            let root_guessed = !(request.config.as_ref())
                .is_some_and(|config| config.declares_package(&unit.root));
            let settings = YttSettings {
                inputs,
                root_guessed,
                ..context.ytt_settings.as_ref().clone()
            };
            let config = Arc::clone(context.ytt_config);
            let (root, sources) = (unit.root.clone(), sources.clone());
            let cancel = request.cancel.as_ref();
            crate::watchdog::run_cancellable(request.limits, cancel, move || {
                panic_when_testing(&root);
                let mut members: Vec<&discover::DiscoveredFile> =
                    parsed.iter().chain(&extra).collect();
                if !extra.is_empty() {
                    // ytt's order: by path relative to the root.
                    members.sort_by_cached_key(|f| display_name(&f.path, &root));
                }
                let outcome = crate::check::ytt::scenarios::check_package_as_configured(
                    config.as_ref().as_ref(),
                    &root,
                    &members,
                    &sources,
                    &settings,
                );
                sources.evict(extra.iter().map(|f| f.id));
                outcome
            })
        }
        System::Kubevirt | System::Tekton => crate::watchdog::catch(|| {
            panic_when_testing(&unit.root);
            let members: Vec<&discover::DiscoveredFile> = parsed.iter().collect();
            let mut kind_lookups = kubernetes::Lookups::default();
            let findings = if unit.system == System::Kubevirt {
                kubevirt::check_unit(&members, sources, context.catalog, &mut kind_lookups)
            } else {
                tekton::check_unit(&members, &unit.root, sources)
            };
            PackageOutcome {
                findings,
                kind_lookups,
                ..PackageOutcome::default()
            }
        }),
    };
    // A unit that failed is a finding at its first file.
    checked.unwrap_or_else(|failure| {
        let failed = Error::of_unit(unit.system.name(), display_name(&unit.root, cwd), failure);
        PackageOutcome {
            findings: failed.finding(at).into_iter().collect(),
            ..PackageOutcome::default()
        }
    })
}

/// What discovery is told: the configuration's walk, the package roots it
/// and the command line declare, `--extend-exclude`, the cache.
fn discover_options(
    request: &LintRequest,
    cwd: &Path,
) -> Result<discover::DiscoverOptions, RunError> {
    let mut options = request
        .config
        .as_ref()
        .map(Config::discover_options)
        .unwrap_or_default();
    options.named_only = request.named_only;
    options.package_roots.extend(
        request
            .package_roots
            .iter()
            .map(|root| discover::absolutize(root, cwd)),
    );
    if !request.extend_exclude.is_empty() {
        match discover::exclude_filter(cwd, &request.extend_exclude) {
            Ok(excluded) => {
                let before = options.filter.take();
                options.filter = Some(Arc::new(move |path: &Path, is_dir: bool| {
                    !excluded(path, is_dir)
                        && before.as_ref().is_none_or(|keeps| keeps(path, is_dir))
                }));
            }
            Err(error) => return Err(error.within("--extend-exclude").into()),
        }
    }
    options.cache = request
        .cache
        .as_ref()
        .map(|location| Arc::new(crate::cache::Cache::open(location)));
    options.cache_folders = Arc::new(crate::cache::CacheFolders::new(request.cache.as_ref()));
    Ok(options)
}

/// Links among a package's files that lint left out: link -> (the
/// package's unit key, its root).
type RefusedLinks = BTreeMap<PathBuf, (PathBuf, PathBuf)>;

/// Each ytt package's input files as `ytt -f ROOT` reads them, by root,
/// with the links lint left out; each unit keeps the files its marks keep.
fn package_inputs(
    request: &LintRequest,
    units: &mut [discover::Unit],
    files: &[discover::DiscoveredFile],
    cwd: &Path,
) -> Result<
    (
        std::collections::HashMap<PathBuf, Arc<marks::Inputs>>,
        RefusedLinks,
    ),
    RunError,
> {
    // Each ytt package's input files as `ytt -f ROOT` reads them: links
    // only where the symlink flags allow, `--file-mark`s relative to ROOT
    // (a mark must match in some package, not in each). Before sharding:
    // whether a mark matches must not depend on the shard.
    let mut matched = vec![0; request.ytt.marks.len()];
    let mut package_inputs: std::collections::HashMap<PathBuf, Arc<marks::Inputs>> =
        Default::default();
    // Links among a package's files that lint left out, said out loud:
    // link -> (the package's unit key, its root).
    let mut refused_links: BTreeMap<PathBuf, (PathBuf, PathBuf)> = BTreeMap::new();
    // confvet's own cache folders are not a package's files.
    let cache_folders = crate::cache::CacheFolders::default();
    let skip = |dir: &Path| cache_folders.holds(dir);
    let ytt = &request.ytt;
    // Listed on all cores (each package's folder is read again, as `ytt -f`
    // reads it, ignore files or not); taken in the units' order below, so
    // the first refusal is the same.
    let listed: Vec<_> = units
        .par_iter()
        .filter(|u| u.system == System::Ytt)
        .map(|unit| {
            // The configuration's marks for the package first.
            let own = (request.config.as_ref()).map_or(&[][..], |c| c.file_marks(&unit.root));
            let all: Vec<marks::FileMark> = own.iter().chain(&ytt.marks).cloned().collect();
            let mut counts = vec![0; all.len()];
            let inputs =
                marks::package_inputs(&unit.root, cwd, &all, &ytt.symlinks, &skip, &mut counts);
            // What the command line's marks matched, for `unmatched` below.
            (inputs, counts.split_off(own.len()))
        })
        .collect();
    let ytt_units = units.iter_mut().filter(|u| u.system == System::Ytt);
    for (unit, (inputs, counts)) in ytt_units.zip(listed) {
        match inputs {
            Ok(inputs) => {
                for (total, count) in matched.iter_mut().zip(&counts) {
                    *total += count;
                }
                // A file the marks leave out (or make other than YAML) is
                // not linted: no finding, no unused suppression, not counted.
                unit.files.retain(|&i| inputs.keeps_yaml(&files[i].path));
                for link in &inputs.refused_links {
                    refused_links
                        .entry(link.clone())
                        .or_insert_with(|| (unit.key.clone(), unit.root.clone()));
                }
                package_inputs.insert(unit.root.clone(), Arc::new(inputs));
            }
            // The ytt engine's words, for a flag or a file of the package.
            Err(refused) => return Err(Error::Usage(refused.to_string()).into()),
        }
    }
    if let Some(message) = marks::unmatched(&request.ytt.marks, &matched) {
        let mut roots: Vec<String> = package_inputs
            .keys()
            .map(|root| crate::source::display_dir(root, cwd))
            .collect();
        roots.sort();
        let hint = match roots.len() {
            0 => "no ytt package was found".to_string(),
            _ => format!("ytt packages here: {}", roots.join(", ")),
        };
        return Err(RunError::from(Error::Usage(format!(
            "{message} (lint names files relative to each ytt package's root, as `ytt -f ROOT` does; {hint})"
        ))));
    }
    Ok((package_inputs, refused_links))
}

/// Whether plain manifests are checked: `--kubernetes`, or `kubernetes:
/// true` in the configuration.
fn kubernetes_manifests(request: &LintRequest) -> bool {
    request.kubernetes.manifests
        || request
            .config
            .as_ref()
            .is_some_and(Config::kubernetes_manifests)
}

/// The `confvet/symlink` warning for a link among the files of the ytt
/// package `root` that the symlink flags do not allow.
fn refused_link(link: &Path, root: &Path, sources: &Sources, cwd: &Path) -> Finding {
    let rule = "ytt reads a link among a package's files only where --allow-symlink-destination allows its destination, and lint reads it only then";
    let why = if link.canonicalize().is_err() {
        "its destination does not exist".to_string()
    } else if !crate::source::resolves_below(link, root) {
        format!("it leads out of the ytt package; {rule}")
    } else {
        rule.to_string()
    };
    discover::link_not_followed(
        link,
        &why,
        "pass --allow-symlink-destination DIR (as to ytt) to read links into DIR, or put the file itself in the package",
        sources,
        cwd,
    )
}

/// The package's YAML input files discovery did not take as ytt files: one
/// a `--file-mark` made YAML (a `.txt` marked `type=yaml-template`), or a
/// link the symlink flags allow (the walk takes no link), read.
fn marked_yaml(
    inputs: &marks::Inputs,
    taken: &[discover::DiscoveredFile],
    sources: &Sources,
    cwd: &Path,
) -> Vec<discover::DiscoveredFile> {
    inputs
        .files
        .iter()
        .filter(|f| f.file_type() == marks::FileType::Yaml)
        .filter(|f| f.is_type_marked() || f.path.is_symlink())
        .filter(|f| !taken.iter().any(|t| t.path == f.path))
        .filter_map(|f| discover::read_ytt_file(&f.path, sources, cwd))
        .collect()
}

/// Whether the unit named by `key` ([`discover::Unit::key`]) belongs to
/// `shard`: FNV-1a of its key relative to the current directory (`.` for
/// the directory itself, so every CI job agrees, wherever the checkout is),
/// modulo the shard count.
fn in_shard(key: &Path, cwd: &Path, shard: Shard) -> bool {
    let mut hash = crate::finding::Fnv64::new();
    hash.write(&crate::source::display_dir(key, cwd));
    hash.0 % u64::from(shard.count) == u64::from(shard.index - 1)
}

/// The files of each unit whose findings a run reports, where suppression
/// comments count: whole ytt packages, other units' files within the scope.
fn linted_files(
    units: &[discover::Unit],
    files: &[discover::DiscoveredFile],
    in_scope: impl Fn(FileId) -> bool,
) -> Vec<Vec<FileId>> {
    units
        .iter()
        .map(|unit| {
            unit.files
                .iter()
                .map(|&i| files[i].id)
                .filter(|&id| unit.system == System::Ytt || in_scope(id))
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests;
