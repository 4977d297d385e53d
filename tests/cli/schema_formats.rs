//! `confvet schema`: OpenAPI v3 with rules, JSON Schema for editors, the
//! Markdown reference, and `--check` for generated files.

use crate::common;

use common::{TempDir, run_in};
use serde_json::Value;

/// Every kind of rule: exported keywords, a `when=` rule, a custom rule, a
/// named rule with no keyword, `not_null`, documentation.
const SCHEMA: &str = r#"#@ load("@ytt:assert", "assert")
#@data/values-schema
---
#@schema/title "Replicas"
#@schema/desc "How many pods run"
#@schema/validation min=1, max=20
replicas: 2
#@schema/validation one_of=["debug", "info"]
log_level: info
#@schema/nullable
#@schema/validation not_null=True
api_key: ""
#@schema/validation ("a DNS label", lambda v: len(v) < 64), starts_with="shop-"
name: shop-a
#@schema/validation min_len=1, when=lambda v: v != ""
proxy: ""
#@schema/validation min_len=1, max_len=3
#@schema/default ["a"]
zones:
- ""
#@schema/deprecated "use replicas"
#@schema/examples ("three", 3)
workers: 1
#@schema/type any=True
extra: {}
#@schema/validation min_len=1
token: ""
"#;

fn package() -> TempDir {
    let dir = TempDir::new("schema-formats");
    dir.write("pkg/schema.yml", SCHEMA);
    dir.write("pkg/values.yml", "#@data/values\n---\napi_key: k\n");
    dir
}

fn schema(dir: &TempDir, format: &str) -> String {
    let run = run_in(dir.path(), &["schema", "pkg", "--format", format]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout
}

#[test]
fn openapi_with_rules() {
    let dir = package();
    let openapi = schema(&dir, "openapi-v3");
    insta::assert_snapshot!(openapi);
    // The compatible export leaves every rule out.
    let run = run_in(dir.path(), &["schema", "pkg", "--ytt-compatible"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    for keyword in ["minimum", "enum", "x-ytt-validations", "maxItems"] {
        assert!(openapi.contains(keyword), "{keyword}");
        assert!(!run.stdout.contains(keyword), "{keyword}");
    }
    // A default that breaks its own rule (ytt's way to require a value) is
    // left out where the rule is exported: OpenAPI wants defaults to fit.
    assert!(
        openapi.ends_with("        token:\n          type: string\n          minLength: 1\n"),
        "{openapi}"
    );
    assert!(
        run.stdout
            .ends_with("        token:\n          type: string\n          default: \"\"\n"),
        "{}",
        run.stdout
    );
}

#[test]
fn json_schema_is_a_2020_12_schema_that_takes_the_packages_values() {
    let dir = package();
    let json: Value = serde_json::from_str(&schema(&dir, "json-schema")).unwrap();
    assert!(jsonschema::draft202012::meta::is_valid(&json));
    insta::assert_snapshot!(serde_json::to_string_pretty(&json).unwrap());
    let validator = jsonschema::validator_for(&json).unwrap();
    assert!(validator.is_valid(&serde_json::json!({"api_key": "k", "replicas": 3})));
    for bad in [
        serde_json::json!({"replicas": 30}),
        serde_json::json!({"replicas": "3"}),
        serde_json::json!({"log_level": "trace"}),
        serde_json::json!({"zones": ["a", "b", "c", "d"]}),
        serde_json::json!({"api_key": null}),
        serde_json::json!({"replica": 3}),
    ] {
        assert!(!validator.is_valid(&bad), "accepted {bad}");
    }
    // A rule that applies only `when=` something holds is not a keyword.
    assert!(validator.is_valid(&serde_json::json!({"proxy": ""})));
}

/// `min_len=` on an any-typed value: JSON Schema's length keywords each
/// apply to their own type only, so the value takes all three, and a
/// string, list or map that ytt refuses for its length is refused.
#[test]
fn a_length_rule_on_an_any_value_exports_a_keyword_per_type() {
    let dir = TempDir::new("schema-any-length");
    dir.write(
        "pkg/schema.yml",
        "#@data/values-schema\n---\n#@schema/type any=True\n#@schema/validation min_len=1\nextra: [a]\n",
    );
    let json: Value = serde_json::from_str(&schema(&dir, "json-schema")).unwrap();
    let extra = &json["properties"]["extra"];
    assert_eq!(extra["minLength"], 1, "{json:#}");
    assert_eq!(extra["minItems"], 1, "{json:#}");
    assert_eq!(extra["minProperties"], 1, "{json:#}");
    assert!(extra.get("x-ytt-validations").is_none(), "{json:#}");
    assert_eq!(extra["default"], serde_json::json!(["a"]), "{json:#}");
    let validator = jsonschema::validator_for(&json).unwrap();
    for good in [
        serde_json::json!({"extra": "a"}),
        serde_json::json!({"extra": [1]}),
        serde_json::json!({"extra": {"k": 1}}),
        serde_json::json!({"extra": null}),
    ] {
        assert!(validator.is_valid(&good), "refused {good}");
    }
    for bad in [
        serde_json::json!({"extra": ""}),
        serde_json::json!({"extra": []}),
        serde_json::json!({"extra": {}}),
    ] {
        assert!(!validator.is_valid(&bad), "accepted {bad}");
    }
    let openapi = schema(&dir, "openapi-v3");
    assert!(
        openapi.contains(
            "          minLength: 1\n          minItems: 1\n          minProperties: 1\n"
        ),
        "{openapi}"
    );
    assert!(!openapi.contains("x-ytt-validations"), "{openapi}");
}

#[test]
fn markdown_reference() {
    let dir = package();
    insta::assert_snapshot!(schema(&dir, "markdown"));
}

#[test]
fn check_fails_when_the_file_is_out_of_date() {
    let dir = package();
    let check = [
        "schema",
        "pkg",
        "--format",
        "markdown",
        "--output",
        "VALUES.md",
        "--check",
    ];
    let write = run_in(dir.path(), &check[..6]);
    assert_eq!(write.code, 0, "{}", write.stderr);
    assert!(dir.read("VALUES.md").contains("| `replicas` |"));
    assert_eq!(run_in(dir.path(), &check).code, 0);
    dir.write(
        "pkg/schema.yml",
        SCHEMA.replace("replicas: 2", "replicas: 4"),
    );
    let stale = run_in(dir.path(), &check);
    assert_eq!(stale.code, 1);
    assert!(
        stale.stderr.contains("VALUES.md is out of date"),
        "{}",
        stale.stderr
    );
    assert!(
        dir.read("VALUES.md").contains("`2`"),
        "--check writes nothing"
    );
}

#[test]
fn a_package_without_schema_exports_any_value() {
    let dir = TempDir::new("schema-none");
    dir.write("pkg/values.yml", "#@data/values\n---\na: 1\n");
    let openapi = schema(&dir, "openapi-v3");
    assert!(
        openapi.ends_with("    dataValues:\n      nullable: true\n      default: null\n"),
        "{openapi}"
    );
    let json: Value = serde_json::from_str(&schema(&dir, "json-schema")).unwrap();
    assert!(
        jsonschema::validator_for(&json)
            .unwrap()
            .is_valid(&serde_json::json!({"b": [1]}))
    );
}

#[test]
fn a_broken_schema_is_reported_not_exported() {
    let dir = TempDir::new("schema-broken");
    dir.write(
        "pkg/schema.yml",
        "#@data/values-schema\n---\n#@schema/nullable\nlist: []\n",
    );
    let run = run_in(dir.path(), &["schema", "pkg"]);
    assert_eq!(run.code, 1);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    assert!(run.stderr.contains("ytt/schema"), "{}", run.stderr);
}

#[test]
fn values_errors_do_not_stop_the_export() {
    // As ytt: the schema is exported before any data value is looked at.
    let dir = package();
    dir.write("pkg/values.yml", "#@data/values\n---\nreplicas: many\n");
    let run = run_in(dir.path(), &["schema", "pkg"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.starts_with("openapi: 3.0.0\n"));
}
