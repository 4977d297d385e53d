//! A ytt package checked as `.confvet.yaml` declares it: with the settings
//! of `ytt` and of the package's declaration, once per scenario (a set of
//! data values), and one finding per problem across the scenarios.

use super::flags::DataValueFlags;
use super::{PackageOutcome, YttSettings};
use crate::config::Config;
use crate::discover::DiscoveredFile;
use crate::finding::Finding;
use crate::source::Sources;
use std::collections::HashMap;
use std::path::Path;

/// Check one ytt package as the configuration says: with the settings of
/// `ytt` and of the package's declaration, once per scenario when it has
/// scenarios.
pub fn check_package_as_configured(
    config: Option<&Config>,
    root: &Path,
    files: &[&DiscoveredFile],
    sources: &Sources,
    settings: &YttSettings,
) -> PackageOutcome {
    let Some(config) = config else {
        return super::check_package(root, files, sources, settings);
    };
    let mut settings = settings.clone();
    settings.strict |= config.strict(root);
    settings.ignore_unknown_comments |= config.ignore_unknown_comments(root);
    let scenarios = config.scenarios(root);
    if scenarios.is_empty() {
        return super::check_package(root, files, sources, &settings);
    }
    // One after the other: a package runs on a thread of its own (see
    // `watchdog`), outside the worker pool, whose workers may all be waiting
    // on packages: work handed to the pool from here could wait for ever.
    let runs: Vec<Vec<Finding>> = scenarios
        .iter()
        .map(|scenario| {
            let settings = YttSettings {
                flags: with_scenario(&settings.flags, &scenario.flags),
                ..settings.clone()
            };
            super::check_package(root, files, sources, &settings).findings
        })
        .collect();
    let names: Vec<&str> = scenarios.iter().map(|s| s.name.as_str()).collect();
    PackageOutcome {
        findings: merge_scenarios(&names, runs, sources),
        ..PackageOutcome::default()
    }
}

/// The scenario's data values first, then the command line's, kind by kind
/// (ytt applies the kinds in a fixed order).
fn with_scenario(base: &DataValueFlags, scenario: &DataValueFlags) -> DataValueFlags {
    let join = |a: &[String], b: &[String]| [a, b].concat();
    DataValueFlags {
        data_value: join(&scenario.data_value, &base.data_value),
        data_value_yaml: join(&scenario.data_value_yaml, &base.data_value_yaml),
        data_value_file: join(&scenario.data_value_file, &base.data_value_file),
        data_values_file: [&scenario.data_values_file[..], &base.data_values_file[..]].concat(),
        data_values_env: join(&scenario.data_values_env, &base.data_values_env),
        data_values_env_yaml: join(&scenario.data_values_env_yaml, &base.data_values_env_yaml),
        env: base.env.clone(),
        cwd: base.cwd.clone(),
    }
}

/// One finding per problem: a problem every scenario has is the package's
/// own and is reported as a run without scenarios reports it (same
/// fingerprint); one only some scenarios have names them in its message.
fn merge_scenarios(names: &[&str], runs: Vec<Vec<Finding>>, sources: &Sources) -> Vec<Finding> {
    type Key = (&'static str, String, u32, u32, String, Option<String>);
    let mut order: Vec<(Finding, Vec<usize>)> = Vec::new();
    let mut index: HashMap<Key, usize> = HashMap::new();
    for (scenario, findings) in runs.into_iter().enumerate() {
        for finding in findings {
            // Each run registers its own data-values files: compare by name.
            let key = (
                finding.rule,
                sources.get(finding.span.file).name.clone(),
                finding.span.start,
                finding.span.end,
                finding.message.clone(),
                finding.path.clone(),
            );
            match index.get(&key) {
                Some(&i) => {
                    if !order[i].1.contains(&scenario) {
                        order[i].1.push(scenario);
                    }
                }
                None => {
                    index.insert(key, order.len());
                    order.push((finding, vec![scenario]));
                }
            }
        }
    }
    order
        .into_iter()
        .map(|(mut finding, hits)| {
            if hits.len() < names.len() {
                let listed: Vec<&str> = hits.iter().map(|&i| names[i]).collect();
                let noun = if listed.len() == 1 {
                    "scenario"
                } else {
                    "scenarios"
                };
                finding.message = format!("{} ({noun} {})", finding.message, listed.join(", "));
            }
            finding
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::source::{SourceFile, Span};

    #[test]
    fn only_findings_some_scenarios_have_name_them() {
        let sources = Sources::new();
        let id = sources.add(SourceFile::new("v.yml".into(), None, "a: 1\nb: 2\n".into()));
        let shared = Finding::new(&crate::rules::ytt::VALIDATION, Span::new(id, 0, 4), "a");
        let own = Finding::new(&crate::rules::ytt::VALIDATION, Span::new(id, 5, 9), "b");
        let merged = merge_scenarios(
            &["prod", "staging", "dev"],
            vec![
                vec![shared.clone(), own.clone()],
                vec![shared.clone()],
                vec![shared.clone(), own.clone()],
            ],
            &sources,
        );
        let messages: Vec<&str> = merged.iter().map(|f| f.message.as_str()).collect();
        assert_eq!(messages, ["a", "b (scenarios prod, dev)"]);
        assert_eq!(
            merged[0].fingerprint(&sources),
            shared.fingerprint(&sources)
        );
        assert_ne!(merged[1].fingerprint(&sources), own.fingerprint(&sources));
    }
}
