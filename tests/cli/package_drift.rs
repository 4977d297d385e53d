//! `ytt/package-schema-drift`: a Carvel Package resource whose values schema
//! is not the export of the ytt package it ships.

use crate::common;

use common::{TempDir, findings, run_in};
use serde_json::Value;

const SCHEMA: &str = "#@data/values-schema
---
#@schema/validation min=1
replicas: 2
image: web
";

/// The Package as `kctrl package release` writes it for SCHEMA, with
/// `replicas_default` as the default of replicas and `extra` after
/// `openAPIv3:`.
fn package_resource(replicas_default: &str, extra: &str, fetch: &str) -> String {
    format!(
        "apiVersion: data.packaging.carvel.dev/v1alpha1
kind: Package
metadata:
  name: web.example.com.1.0.0
spec:
  refName: web.example.com
  version: 1.0.0
  valuesSchema:
    openAPIv3:{extra}
      type: object
      additionalProperties: false
      properties:
        replicas:
          type: integer
          default: {replicas_default}
        image:
          type: string
          default: web
  template:
    spec:
      fetch:
{fetch}
      template:
      - ytt:
          paths:
          - config/
"
    )
}

const BUNDLE: &str = "      - imgpkgBundle:\n          image: registry.example.com/web:1.0.0\n";

fn drift(dir: &TempDir, args: &[&str]) -> Vec<Value> {
    let mut all = vec!["lint", "--no-render", "--format", "json"];
    all.extend_from_slice(args);
    let run = run_in(dir.path(), &all);
    assert!(run.code < 2, "{}", run.stderr);
    findings(&run.json())
        .iter()
        .filter(|f| f["rule"] == "ytt/package-schema-drift")
        .cloned()
        .collect()
}

/// `web/1.0.0/package.yml` beside `web/1.0.0/bundle/config/`.
fn bundle_layout(package: &str) -> TempDir {
    let dir = TempDir::new("drift");
    dir.write("web/1.0.0/bundle/config/schema.yml", SCHEMA);
    dir.write("web/1.0.0/package.yml", package);
    dir
}

#[test]
fn a_package_in_sync_has_no_finding() {
    let dir = bundle_layout(&package_resource("2", "\n      title: web values", BUNDLE));
    assert_eq!(drift(&dir, &[]), Vec::<Value>::new());
}

#[test]
fn a_stale_default_is_reported_at_its_line() {
    let dir = bundle_layout(&package_resource("1", "", BUNDLE));
    let found = drift(&dir, &[]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["file"], "web/1.0.0/package.yml");
    assert_eq!(found[0]["line"], 15);
    let message = found[0]["message"].as_str().unwrap();
    assert!(message.contains("properties.replicas.default"), "{message}");
    assert!(message.contains("1 here, 2 in the schema"), "{message}");
    let help = found[0]["help"].as_str().unwrap();
    // The package is rooted at the folder lint was given (the current
    // one, which holds nothing else), as `ytt -f .` roots it.
    assert!(help.contains("confvet schema . --ytt-compatible"), "{help}");
    // The exit code says so.
    let run = run_in(dir.path(), &["lint", "--no-render"]);
    assert_eq!(run.code, 1);
}

#[test]
fn a_key_the_schema_lost_or_gained_is_reported() {
    let dir = bundle_layout(&package_resource("2", "", BUNDLE).replace(
        "        image:\n          type: string\n          default: web\n",
        "",
    ));
    let found = drift(&dir, &[]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0]["message"]
            .as_str()
            .unwrap()
            .contains("`properties.image` is missing")
    );

    let gained = package_resource("2", "", BUNDLE).replace(
        "          default: web\n",
        "          default: web\n        tag:\n          type: string\n          default: latest\n",
    );
    let dir = bundle_layout(&gained);
    let found = drift(&dir, &[]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0]["message"]
            .as_str()
            .unwrap()
            .contains("`properties.tag` is not in the schema")
    );
}

#[test]
fn a_package_with_rule_keywords_is_compared_with_the_rules() {
    let with_rules = package_resource("2", "", BUNDLE).replace(
        "          default: 2\n",
        "          default: 2\n          minimum: 1\n",
    );
    assert_eq!(drift(&bundle_layout(&with_rules), &[]), Vec::<Value>::new());
    let wrong = with_rules.replace("minimum: 1", "minimum: 0");
    let found = drift(&bundle_layout(&wrong), &[]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0]["message"]
            .as_str()
            .unwrap()
            .contains("properties.replicas.minimum")
    );
}

#[test]
fn an_ambiguous_package_is_not_compared() {
    let dir = bundle_layout(&package_resource("1", "", BUNDLE));
    dir.write("web/1.0.0/bundle/other/schema.yml", SCHEMA);
    assert_eq!(drift(&dir, &[]), Vec::<Value>::new());
}

#[test]
fn a_git_fetch_names_the_package_by_its_sub_path() {
    let dir = TempDir::new("drift-git");
    std::fs::create_dir_all(dir.path().join(".git")).unwrap();
    dir.write("deploy/config/schema.yml", SCHEMA);
    dir.write(
        "deploy/other/schema.yml",
        SCHEMA.replace("replicas: 2", "replicas: 1"),
    );
    let git = "      - git:\n          url: https://example.com/web\n          ref: origin/main\n          subPath: deploy\n";
    dir.write("packages/web.yml", package_resource("1", "", git));
    let found = drift(&dir, &[]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0]["help"].as_str().unwrap().contains("deploy/config"));
}

#[test]
fn the_configuration_maps_a_package_resource() {
    let dir = TempDir::new("drift-config");
    dir.write("config/schema.yml", SCHEMA);
    dir.write("release/package.yml", package_resource("1", "", BUNDLE));
    // Without the mapping, nothing says which package it ships.
    assert_eq!(drift(&dir, &[]), Vec::<Value>::new());
    dir.write(
        ".confvet.yaml",
        "ytt:\n  packages:\n    - path: config\n      package-resource: release/package.yml\n",
    );
    assert_eq!(drift(&dir, &[]).len(), 1);
}
