//! Hostile CRDs and resources: schemas that do not read, patterns that do
//! not compile, huge enums and lists, a CRD defined twice differently.
//! Each gives a `kubernetes/crd` warning or a bounded check, never a
//! panic or a hang, and the rest of the tree is still linted.

use super::{assert_healthy_linted, healthy_package, run_capped};
use crate::common::TempDir;

fn crd(kind: &str, schema: &str) -> String {
    format!(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: {kind}s.example.com\n\
         spec:\n  group: example.com\n  names: {{kind: {kind}, plural: {kind}s}}\n  scope: Namespaced\n  versions:\n\
         \x20 - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n{schema}"
    )
}

fn resource(kind: &str, spec: &str) -> String {
    format!("---\napiVersion: example.com/v1\nkind: {kind}\nmetadata:\n  name: x\nspec:\n{spec}")
}

#[test]
fn hostile_crds_are_warnings_and_bounded_checks() {
    let dir = TempDir::new("hostile-crds");
    healthy_package(&dir);
    let enum_values: Vec<String> = (0..100_000).map(|i| format!("v{i}")).collect();
    let crds = [
        // Not schemas confvet can read.
        crd("Listtype", "        type: objectz\n"),
        crd("Badprops", "        type: object\n        properties: 5\n"),
        crd("Scalar", "        \"object\"\n"),
        // A pattern too large to compile, a huge enum, a named `$ref`.
        crd(
            "Pattern",
            "        type: object\n        properties:\n          spec:\n            type: object\n            properties:\n\
             \x20             name: {type: string, pattern: \"(a{1000}){1000}(b{1000}){1000}\"}\n\
             \x20             size: {type: string, enum: [",
        ) + &enum_values.join(", ")
            + "]}\n              other: {$ref: \"#/definitions/nowhere\"}\n",
        // Defined twice, differently: neither is used.
        crd(
            "Twice",
            "        type: object\n        properties: {spec: {type: object}}\n",
        ),
        crd(
            "Twice",
            "        type: object\n        properties: {spec: {type: string}}\n",
        ),
    ];
    dir.write("crds.yaml", crds.join("---\n"));
    let items = "  items:\n".to_string() + &"  - 1\n".repeat(200_000);
    let resources = [
        resource("Listtype", "  a: 1\n"),
        resource("Pattern", "  name: aaaa\n  size: v99999\n  other: 1\n"),
        resource(
            "Pattern",
            &("  name: ".to_string() + &"a".repeat(5_000_000) + "\n  size: none\n"),
        ),
        resource("Twice", "  anything: 1\n"),
        resource("Scalar", &items),
    ];
    dir.write("resources.yaml", resources.concat());
    // Named one by one: `lint .` would root the healthy package at `.`,
    // whose plain files the CRDs and resources would then be (checked as
    // its output, which its failed validation never renders).
    let run = run_capped(
        &dir,
        &[
            "lint",
            "healthy",
            "crds.yaml",
            "resources.yaml",
            "--kubernetes",
            "--format",
            "json",
        ],
        &[],
    );
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect(&run.stderr);
    let found: Vec<(String, String)> = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["file"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_healthy_linted(&found);
    let crd_warnings = found
        .iter()
        .filter(|(rule, _)| rule == "kubernetes/crd")
        .count();
    assert_eq!(crd_warnings, 3, "{found:?}");
    // The one resource checked against a readable schema with a value
    // outside its enum; the pattern that does not compile says nothing.
    let enums: Vec<&(String, String)> = found
        .iter()
        .filter(|(rule, _)| rule == "kubernetes/enum")
        .collect();
    assert_eq!(enums.len(), 1, "{found:?}");
    assert!(
        !found.iter().any(|(rule, file)| file == "resources.yaml"
            && (rule == "kubernetes/format"
                || rule == "kubernetes/unknown-field"
                || rule == "kubernetes/type")),
        "{found:?}"
    );
    // The CRDs are manifests too, of a built-in kind whose schema refuses
    // `properties: 5` and a schema that is a string.
    let refused = found
        .iter()
        .filter(|(rule, file)| rule == "kubernetes/type" && file == "crds.yaml")
        .count();
    assert_eq!(refused, 2, "{found:?}");
}
