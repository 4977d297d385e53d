//! The configuration file `.confvet.yaml`, through the binary: where it is
//! found, and what each of its keys changes in what a user sees.

use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_confvet");

/// A project in a fresh temporary directory, removed when dropped.
struct Project(PathBuf);

impl Project {
    fn new(label: &str, files: &[(&str, &str)]) -> Project {
        static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let root =
            std::env::temp_dir().join(format!("confvet-config-{label}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let project = Project(root);
        for (path, text) in files {
            project.write(path, text);
        }
        project
    }

    fn write(&self, rel: &str, text: &str) {
        let path = self.0.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// Run `confvet lint --format json ARGS` in `rel`: the exit code and the
    /// findings as `file:line rule severity message`.
    fn lint(&self, rel: &str, args: &[&str]) -> (i32, Vec<String>) {
        let output = Command::new(BIN)
            .args(["lint", "--format", "json"])
            .args(args)
            .current_dir(self.0.join(rel))
            .output()
            .expect("run confvet");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!stderr.contains("panicked"), "{stderr}");
        let code = output.status.code().expect("exit code");
        let findings = match serde_json::from_str::<Value>(&stdout) {
            Ok(json) => json["findings"]
                .as_array()
                .expect("findings")
                .iter()
                .map(|f| {
                    format!(
                        "{}:{} {} {} {}",
                        f["file"].as_str().unwrap(),
                        f["line"],
                        f["rule"].as_str().unwrap(),
                        f["severity"].as_str().unwrap(),
                        f["message"].as_str().unwrap()
                    )
                })
                .collect(),
            Err(_) => vec![format!("no JSON; stderr: {stderr}")],
        };
        (code, findings)
    }

    /// Fingerprints of the findings of `confvet lint --format json ARGS`.
    fn fingerprints(&self, args: &[&str]) -> Vec<String> {
        let output = Command::new(BIN)
            .args(["lint", "--format", "json"])
            .args(args)
            .current_dir(&self.0)
            .output()
            .expect("run confvet");
        let json: Value = serde_json::from_slice(&output.stdout).expect("JSON");
        json["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["fingerprint"].as_str().unwrap().to_string())
            .collect()
    }
}

impl Drop for Project {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const SCHEMA: &str = "#@data/values-schema
---
namespace: shop
#@schema/validation min=1, max=20
replicas: 2
";

/// A ytt package in `pkg/` whose replicas break max=20 (values.yml line 3).
fn bad_package(label: &str, config: &str) -> Project {
    Project::new(
        label,
        &[
            (".confvet.yaml", config),
            ("pkg/schema.yml", SCHEMA),
            ("pkg/values.yml", "#@data/values\n---\nreplicas: 50\n"),
        ],
    )
}

const REPLICAS_ERROR: &str = "ytt/validation error replicas must be a value <= 20, found 50";

#[test]
fn the_config_is_found_upward_and_a_rule_turned_off_disappears() {
    let project = bad_package("upward", "rules:\n  ytt/validation: off\n");
    assert_eq!(project.lint("pkg", &[]), (0, vec![]));
    assert_eq!(project.lint("", &[]), (0, vec![]));
    let (code, findings) = project.lint("pkg", &["--no-config"]);
    assert_eq!(code, 1);
    assert_eq!(findings, [format!("values.yml:3 {REPLICAS_ERROR}")]);
}

#[test]
fn each_path_takes_the_configuration_closest_to_it() {
    // Two packages, each with its own configuration, and none at the root.
    let values = "#@data/values\n---\nreplicas: 50\n";
    let project = Project::new(
        "closest",
        &[
            ("a/.confvet.yaml", "rules:\n  ytt/validation: off\n"),
            ("a/pkg/schema.yml", SCHEMA),
            ("a/pkg/values.yml", values),
            ("b/.confvet.yaml", "rules:\n  ytt/validation: warning\n"),
            ("b/pkg/schema.yml", SCHEMA),
            ("b/pkg/values.yml", values),
        ],
    );
    let warning = format!(
        "b/pkg/values.yml:3 {}",
        REPLICAS_ERROR.replace("error", "warning")
    );
    // `lint a/` from the root takes `a/.confvet.yaml`, not the (missing)
    // root one.
    assert_eq!(project.lint("", &["a"]), (0, vec![]));
    assert_eq!(project.lint("", &["b"]), (0, vec![warning.clone()]));
    // Both at once, each with its own; a file named alone (as pre-commit
    // names them) too.
    assert_eq!(project.lint("", &["a", "b"]), (0, vec![warning.clone()]));
    assert_eq!(
        project.lint("", &["a/pkg/values.yml", "b/pkg/values.yml"]),
        (0, vec![warning])
    );
    // `--statistics` says which file applied to which paths.
    let output = Command::new(BIN)
        .args(["lint", "--statistics", "a", "b"])
        .current_dir(&project.0)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("configuration a/.confvet.yaml applies to a")
            && stderr.contains("configuration b/.confvet.yaml applies to b"),
        "{stderr}"
    );
}

#[test]
fn config_flag_overrides_the_search_and_a_rule_set_to_warning_passes() {
    let project = bad_package("override", "rules:\n  ytt/validation: off\n");
    project.write("ci/confvet.yaml", "rules:\n  ytt/*: warning\n");
    let (code, findings) = project.lint("pkg", &["--config", "../ci/confvet.yaml"]);
    assert_eq!(code, 0);
    assert_eq!(
        findings,
        ["values.yml:3 ytt/validation warning replicas must be a value <= 20, found 50"]
    );
    let (code, _) = project.lint(
        "pkg",
        &["--config", "../ci/confvet.yaml", "--fail-on", "warning"],
    );
    assert_eq!(code, 1);
    let (code, findings) = project.lint("", &["--config", "missing.yaml"]);
    assert_eq!(code, 2);
    assert!(findings[0].contains("cannot read configuration file missing.yaml"));
}

#[test]
fn a_system_turned_off_is_not_checked() {
    let task = "apiVersion: tekton.dev/v1
kind: Task
metadata:
  name: build
spec:
  steps:
    - name: build
      image: alpine
      script: echo $(params.missing)
";
    let project = Project::new("systems", &[("tekton/task.yml", task)]);
    let (code, findings) = project.lint("", &[]);
    assert_eq!(code, 1);
    assert!(findings[0].starts_with("tekton/task.yml:9 tekton/param-reference error"));
    project.write(".confvet.yaml", "systems:\n  tekton: false\n  ytt: true\n");
    assert_eq!(project.lint("", &[]), (0, vec![]));
}

#[test]
fn excluded_files_are_not_linted_even_when_named() {
    let project = bad_package("exclude", "exclude:\n  - \"vendor/\"\n");
    project.write("vendor/lib/schema.yml", SCHEMA);
    project.write(
        "vendor/lib/values.yml",
        "#@data/values\n---\nreplicas: 50\n",
    );
    let (code, findings) = project.lint("", &[]);
    assert_eq!(code, 1);
    assert_eq!(findings, [format!("pkg/values.yml:3 {REPLICAS_ERROR}")]);
    assert_eq!(project.lint("", &["vendor/lib/values.yml"]), (0, vec![]));
    assert_eq!(project.lint("vendor", &["lib"]), (0, vec![]));
    // include narrows the walk to what it matches.
    project.write(".confvet.yaml", "include: [\"vendor/**/*.yml\"]\n");
    let (_, findings) = project.lint("", &[]);
    assert_eq!(
        findings,
        [format!("vendor/lib/values.yml:3 {REPLICAS_ERROR}")]
    );
}

/// A clean package in `config/` whose schema sits in a folder of its own;
/// environments' plain values files in `envs/`.
fn scenario_project(label: &str, prod_values: &str) -> Project {
    Project::new(
        label,
        &[
            ("config/schema/schema.yml", SCHEMA),
            ("config/values.yml", "#@data/values\n---\nreplicas: 3\n"),
            ("envs/staging.yml", "replicas: 1\n"),
            ("envs/prod.yml", prod_values),
            (
                ".confvet.yaml",
                "ytt:
  packages:
    - path: config
      scenarios:
        - name: staging
          data-values-file: envs/staging.yml
        - name: prod
          data-values-file: [envs/prod.yml]
          data-value: [namespace=shop-prod]
",
            ),
        ],
    )
}

#[test]
fn a_scenario_with_bad_values_fails_at_the_values_file_line() {
    let project = scenario_project("scenario-bad", "namespace: shop\n\nreplicas: 50\n");
    let (code, findings) = project.lint("", &[]);
    assert_eq!(code, 1);
    assert_eq!(
        findings,
        [
            "envs/prod.yml:3 ytt/validation error replicas must be a value <= 20, found 50 (scenario prod)"
        ]
    );
    // Run from below, file names are relative to where confvet runs.
    let (code, findings) = project.lint("envs", &[".."]);
    assert_eq!(code, 1);
    assert!(
        findings[0].starts_with("prod.yml:3 ytt/validation"),
        "{findings:?}"
    );
    // Without the configuration the package alone is clean.
    assert_eq!(project.lint("", &["--no-config"]), (0, vec![]));
}

#[test]
fn good_scenarios_exit_0() {
    let project = scenario_project("scenario-good", "replicas: 20\n");
    assert_eq!(project.lint("", &[]), (0, vec![]));
}

#[test]
fn a_problem_every_scenario_has_keeps_its_fingerprint() {
    let project = scenario_project("scenario-fingerprint", "replicas: 5\n");
    project.write(
        "config/values.yml",
        "#@data/values\n---\nreplicas: 3\nnamespce: x\n",
    );
    let plain = project.fingerprints(&["--no-config"]);
    assert_eq!(plain.len(), 1);
    assert_eq!(project.fingerprints(&[]), plain);
}

#[test]
fn config_mistakes_are_findings_at_their_lines_and_stop_the_run() {
    let project = bad_package(
        "mistakes",
        "exclude:\n  - vendor/\nrules:\n  ytt/validaton: off\nytt:\n  packages:\n    - path: pkg\n      scenarios:\n        - name: prod\n          data-values-file: prod.yml\n",
    );
    let (code, findings) = project.lint("", &["--fail-on", "never"]);
    assert_eq!(code, 1);
    assert_eq!(
        findings,
        [
            ".confvet.yaml:4 config/invalid error unknown rule \"ytt/validaton\"",
            ".confvet.yaml:10 config/invalid error ytt.packages[0].scenarios[0].data-values-file: no file prod.yml",
        ]
    );
    // Turned down to a warning, a mistake no longer stops the run.
    project.write(
        ".confvet.yaml",
        "rules:\n  config/*: warning\nexlude: [pkg/]\n",
    );
    let (code, findings) = project.lint("", &[]);
    assert_eq!(code, 1);
    assert_eq!(
        findings,
        [
            ".confvet.yaml:3 config/unknown-key warning unknown key \"exlude\" in the configuration",
            &format!("pkg/values.yml:3 {REPLICAS_ERROR}"),
        ]
    );
}

#[test]
fn a_config_that_is_not_yaml_is_a_syntax_finding() {
    let project = bad_package("syntax", "rules:\n  ytt/compat: [off\n");
    let (code, findings) = project.lint("", &[]);
    assert_eq!(code, 1);
    assert_eq!(findings.len(), 1);
    assert!(findings[0].starts_with(".confvet.yaml:"), "{findings:?}");
    assert!(findings[0].contains("yaml/syntax error"), "{findings:?}");
}
