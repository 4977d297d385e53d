//! One lint run: discover, check every unit on all cores, sort findings.
//! The binary and the tests both go through here.

use crate::check::ytt::YttSettings;
use crate::check::{kubevirt, tekton};
use crate::config::{self, Config};
use crate::discover::{self, Discovery, System};
use crate::finding::{Finding, Severity, sort_findings};
use crate::report::{CheckedUnit, Summary};
use crate::source::{Sources, display_name};
use crate::yaml::{Node, ParseOptions};
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// What to lint and how.
#[derive(Debug, Clone, Default)]
pub struct LintRequest {
    pub paths: Vec<PathBuf>,
    pub ytt: YttSettings,
    /// The configuration file, when there is one.
    pub config: Option<Config>,
}

/// Everything a run found.
#[derive(Debug, Default)]
pub struct LintResult {
    pub findings: Vec<Finding>,
    pub units: Vec<CheckedUnit>,
    pub summary: Summary,
    /// Problems that are not findings (missing paths, unreadable files, bad
    /// flags): they make the exit code 2.
    pub errors: Vec<String>,
    /// Final data values per ytt package root, when they could be computed.
    pub values: Vec<(PathBuf, Option<Node>)>,
}

/// Lint `request.paths`; `cwd` names files in the output.
pub fn lint(request: &LintRequest, sources: &Sources, cwd: &Path) -> LintResult {
    let Discovery {
        files,
        units,
        errors,
        scope,
    } = discover::discover_with(
        &request.paths,
        sources,
        cwd,
        &ParseOptions::default(),
        &request
            .config
            .as_ref()
            .map(Config::discover_options)
            .unwrap_or_default(),
    );
    let mut result = LintResult {
        errors,
        ..LintResult::default()
    };
    let ytt_units = units.iter().filter(|u| u.system == System::Ytt).count();
    if !request.ytt.flags.is_empty() && ytt_units > 1 {
        result.errors.push(format!(
            "data-value flags apply to one ytt package, but the paths hold {ytt_units}; lint one package at a time"
        ));
        return result;
    }
    let outcomes: Vec<(Vec<Finding>, Option<Node>)> = units
        .par_iter()
        .map(|unit| {
            let members: Vec<&discover::DiscoveredFile> =
                unit.files.iter().map(|&i| &files[i]).collect();
            match unit.system {
                System::Ytt => {
                    let outcome = config::check_ytt_package(
                        request.config.as_ref(),
                        &unit.root,
                        &members,
                        sources,
                        &request.ytt,
                    );
                    (outcome.findings, outcome.values)
                }
                System::Kubevirt => (kubevirt::check_unit(&members, sources), None),
                System::Tekton => (tekton::check_unit(&members, sources), None),
            }
        })
        .collect();
    for (unit, (findings, values)) in units.iter().zip(outcomes) {
        result.units.push(CheckedUnit {
            name: display_name(&unit.root, cwd),
            system: unit.system.name(),
            files: unit
                .files
                .iter()
                .map(|&i| sources.get(files[i].id).name.clone())
                .collect(),
        });
        if unit.system == System::Ytt {
            result.values.push((unit.root.clone(), values));
            result.findings.extend(findings);
        } else if let Some(scope) = &scope {
            result.findings.extend(findings.into_iter().filter(|f| {
                sources
                    .get(f.span.file)
                    .path
                    .as_ref()
                    .is_some_and(|p| scope.iter().any(|s| p.starts_with(s)))
            }));
        } else {
            result.findings.extend(findings);
        }
    }
    // Trees of a large repository take a while to free: do it on all cores.
    files.into_par_iter().for_each(drop);
    if let Some(config) = &request.config {
        result.findings.extend(config.findings.iter().cloned());
        config.apply_rules(&mut result.findings);
    }
    sort_findings(&mut result.findings, sources);
    result.findings.dedup();
    result.summary = Summary {
        files: units.iter().map(|u| u.files.len()).sum(),
        units: units.len(),
        errors: result
            .findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .count(),
        warnings: result
            .findings
            .iter()
            .filter(|f| f.severity == Severity::Warning)
            .count(),
        suppressed: 0,
    };
    result
}
