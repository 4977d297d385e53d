//! Unit tests of the SARIF output: schema validity, snapshots, URIs and
//! fingerprints.

use super::super::fixtures::{self, Fixture};
use super::*;
use serde_json::Value;

fn emit(fixture: &Fixture) -> Value {
    let mut out = Vec::new();
    SarifEmitter.emit(&mut out, &fixture.report()).unwrap();
    serde_json::from_slice(&out).unwrap()
}

/// Pretty SARIF with the tool version redacted.
fn redacted(mut sarif: Value) -> String {
    for key in ["version", "semanticVersion"] {
        let version = &mut sarif["runs"][0]["tool"]["driver"][key];
        assert_eq!(*version, env!("CARGO_PKG_VERSION"));
        *version = "[version]".into();
    }
    // The rule table grows with every check; keep the first rule as a
    // sample of its shape and the count of the rest out of the snapshot
    // (a test below checks every rule is listed).
    let rules = &mut sarif["runs"][0]["tool"]["driver"]["rules"];
    let count = rules.as_array().map_or(0, Vec::len);
    assert_eq!(count, crate::rules::RULES.len());
    if let Some(list) = rules.as_array_mut() {
        list.truncate(1);
        list.push(json!("[the other rules]"));
    }
    serde_json::to_string_pretty(&sarif).unwrap()
}

/// Validates against the SARIF 2.1.0 schema in `../shared/schemas`, and
/// every URI as a `uri-reference` (the schema's formats are not checked).
fn assert_valid_sarif(sarif: &Value) {
    if let Some(errors) = schema_errors(sarif) {
        assert!(errors.is_empty(), "invalid SARIF:\n{}", errors.join("\n"));
    }

    let uri_reference = jsonschema::options()
        .should_validate_formats(true)
        .build(&json!({"type": "string", "format": "uri-reference"}))
        .unwrap();
    let mut uris = Vec::new();
    collect_uris(sarif, &mut uris);
    assert!(!uris.is_empty());
    for uri in uris {
        assert!(uri_reference.is_valid(uri), "not a URI reference: {uri}");
    }
}

/// The schema's complaints about `sarif`, or `None` (after saying so)
/// when the schema is not there.
fn schema_errors(sarif: &Value) -> Option<Vec<String>> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/schemas/sarif-schema-2.1.0.json"
    );
    let Ok(schema) = std::fs::read_to_string(path) else {
        println!("skipped: ../shared/schemas not found");
        return None;
    };
    // The official schema's `run.language` pattern has a stray `]`, a
    // literal in ECMA-262 (Annex B) but rejected by jsonschema's check of
    // the schema against draft-07; escaping it keeps the meaning.
    let schema = schema.replace(r#"-[a-zA-Z]{2}]?$""#, r#"-[a-zA-Z]{2}\\]?$""#);
    let schema: Value = serde_json::from_str(&schema).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    Some(
        validator
            .iter_errors(sarif)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect(),
    )
}

/// Every string under a key named `uri` or ending in `Uri`.
fn collect_uris<'a>(value: &'a Value, uris: &mut Vec<&'a Value>) {
    match value {
        Value::Object(map) => {
            for (key, value) in map {
                if value.is_string() && (key == "uri" || key.ends_with("Uri")) {
                    uris.push(value);
                } else {
                    collect_uris(value, uris);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| collect_uris(item, uris)),
        _ => {}
    }
}

#[test]
fn findings_are_valid_sarif() {
    assert_valid_sarif(&emit(&fixtures::with_findings()));
}

#[test]
fn clean_run_is_valid_sarif() {
    let sarif = emit(&fixtures::clean());
    assert_valid_sarif(&sarif);
    assert_eq!(sarif["runs"][0]["results"], json!([]));
}

#[test]
fn schema_check_is_not_vacuous() {
    let mut sarif = emit(&fixtures::with_findings());
    sarif["runs"][0]["results"][0]["level"] = "fatal".into();
    if let Some(errors) = schema_errors(&sarif) {
        assert!(!errors.is_empty());
    }
}

#[test]
fn findings() {
    insta::assert_snapshot!(redacted(emit(&fixtures::with_findings())));
}

#[test]
fn clean_run() {
    insta::assert_snapshot!(redacted(emit(&fixtures::clean())));
}

#[test]
fn file_uris_are_valid_uri_references() {
    assert_eq!(file_uri("values.yml"), "values.yml");
    assert_eq!(file_uri("(data-value arg)"), "(data-value%20arg)");
    assert_eq!(file_uri("a b/ü:x.yml"), "a%20b/%C3%BC%3Ax.yml");
    assert_eq!(file_uri("/abs/x#1.yml"), "file:///abs/x%231.yml");
    assert_eq!(file_uri("C:\\x\\y.yml"), "file:///C:/x/y.yml");
    assert_eq!(file_uri("C:\\my x\\y.yml"), "file:///C:/my%20x/y.yml");
    assert_eq!(
        file_uri("\\\\server\\share\\y.yml"),
        "file://server/share/y.yml"
    );
    assert_eq!(file_uri("C:y.yml"), "C%3Ay.yml", "drive-relative: relative");
    assert_eq!(file_uri("100%.yml"), "100%25.yml");
}

#[test]
fn rule_names_and_descriptions() {
    assert_eq!(pascal_case("ytt/type-mismatch"), "YttTypeMismatch");
    let docs = rules::find("yaml/syntax").unwrap().docs();
    let text = what_it_does(docs);
    assert!(text.starts_with("Reports the first place"), "{text}");
    assert!(!text.contains("##"), "{text}");
}

#[test]
fn never_writes_primary_location_line_hash() {
    let sarif = emit(&fixtures::with_findings()).to_string();
    assert!(!sarif.contains("primaryLocationLineHash"));
    assert!(sarif.contains(FINGERPRINT_KEY));
}

fn emit_with(fixture: &Fixture, change: impl FnOnce(&mut Report<'_>)) -> Value {
    let mut report = fixture.report();
    change(&mut report);
    let mut out = Vec::new();
    SarifEmitter.emit(&mut out, &report).unwrap();
    serde_json::from_slice(&out).unwrap()
}

/// The results whose message starts with `prefix`.
fn result_starting<'a>(sarif: &'a Value, prefix: &str) -> &'a Value {
    sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["message"]["text"].as_str().unwrap().starts_with(prefix))
        .unwrap_or_else(|| panic!("no result starts with {prefix:?}"))
}

#[test]
fn the_driver_says_its_version_home_and_each_rules_documentation() {
    let sarif = emit(&fixtures::clean());
    let driver = &sarif["runs"][0]["tool"]["driver"];
    assert_eq!(driver["semanticVersion"], env!("CARGO_PKG_VERSION"));
    assert_eq!(driver["informationUri"], rules::HOMEPAGE);
    let listed = driver["rules"].as_array().unwrap();
    assert_eq!(listed.len(), rules::RULES.len());
    for (entry, rule) in listed.iter().zip(rules::RULES) {
        assert_eq!(entry["id"], rule.id);
        assert_eq!(entry["helpUri"], rules::doc_url(rule.id));
        assert_eq!(entry["help"]["markdown"], rule.docs());
    }
}

#[test]
fn a_value_from_a_flag_has_no_location_and_says_where_in_its_message() {
    let sarif = emit(&fixtures::with_findings());
    let result = result_starting(&sarif, "(data-value arg):1:6: port must be a map");
    assert!(result.get("locations").is_none(), "{result:#}");
    // Its related location is a file: that one is there.
    assert_eq!(result["relatedLocations"][0]["id"], 1);
    let mut uris = Vec::new();
    collect_uris(&sarif, &mut uris);
    assert!(
        uris.iter()
            .all(|uri| !uri.to_string().contains("data-value")),
        "{uris:?}"
    );
}

#[test]
fn related_locations_are_linked_from_the_message() {
    let sarif = emit(&fixtures::with_findings());
    let result = result_starting(&sarif, "port.https must be");
    assert_eq!(
        result["message"]["text"],
        "port.https must be a value <= 32767, found 70000\n[rule declared here](1)"
    );
    assert_eq!(result["relatedLocations"][0]["id"], 1);
    assert_eq!(
        result["relatedLocations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "schema.yml"
    );
    // Help comes before the links; a related location's message is the
    // link text.
    let result = result_starting(&sarif, "port.http must be");
    assert_eq!(
        result["message"]["text"],
        "port.http must be an integer, found a string\nhelp: remove the quotes to give an \
         integer: 8080\n[integer inferred from this default](1)"
    );
}

#[test]
fn text_from_files_is_kept_exactly_and_valid() {
    use super::super::fixtures::HOSTILE;
    let sarif = emit(&fixtures::hostile());
    assert_valid_sarif(&sarif);
    let result = &sarif["runs"][0]["results"][0];
    // The message's only change is SARIF's own: brackets escaped, as they
    // would start a link.
    assert_eq!(
        result["message"]["text"],
        format!(
            "{0} is not declared\nin the schema\nhelp: did you mean {0}?\n[key {0}](1)",
            escape_brackets(HOSTILE)
        )
    );
    assert_eq!(result["properties"]["path"], HOSTILE);
    assert_eq!(
        result["relatedLocations"][0]["message"]["text"],
        format!("key {HOSTILE}")
    );
    assert_eq!(
        result["fixes"][0]["description"]["text"],
        format!("rename {HOSTILE}")
    );
}

#[test]
fn brackets_in_messages_are_escaped_so_they_are_not_links() {
    assert_eq!(escape_brackets("a [b](1) c"), r"a \[b\](1) c");
    assert_eq!(escape_brackets(r"x\[0]"), r"x\\\[0\]");
    assert_eq!(escape_brackets(r"C:\dir"), r"C:\dir");
    let mut fixture = fixtures::with_findings();
    fixture.findings[1].message = "labels[0] must be a string".into();
    let sarif = emit(&fixture);
    assert_valid_sarif(&sarif);
    assert!(
        sarif
            .to_string()
            .contains(r#"labels\\[0\\] must be a string"#),
        "{sarif:#}"
    );
}

#[test]
fn relative_uris_name_the_source_root() {
    let sarif = emit(&fixtures::with_findings());
    let run = &sarif["runs"][0];
    assert_eq!(
        run["originalUriBaseIds"]["%SRCROOT%"]["uri"],
        "file:///work/pkg/"
    );
    let mut locations = Vec::new();
    for result in run["results"].as_array().unwrap() {
        for key in ["locations", "relatedLocations"] {
            if let Some(list) = result[key].as_array() {
                locations.extend(
                    list.iter()
                        .map(|l| &l["physicalLocation"]["artifactLocation"]),
                );
            }
        }
    }
    assert!(locations.len() >= 10);
    for location in locations {
        assert_eq!(location["uriBaseId"], "%SRCROOT%", "{location}");
    }
}

#[test]
fn a_run_with_errors_is_not_successful_and_says_why() {
    let mut fixture = fixtures::clean();
    fixture.errors = vec![
        RunError::about("missing", "missing: No such file or directory (os error 2)"),
        RunError::new("data-value flags apply to one ytt package"),
    ];
    let sarif = emit(&fixture);
    assert_valid_sarif(&sarif);
    let invocation = &sarif["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false);
    let notifications = invocation["toolExecutionNotifications"].as_array().unwrap();
    assert_eq!(notifications.len(), 2);
    assert_eq!(notifications[0]["level"], "error");
    assert_eq!(
        notifications[0]["locations"][0]["physicalLocation"]["artifactLocation"],
        json!({"uri": "missing", "uriBaseId": "%SRCROOT%"})
    );
    assert!(notifications[1].get("locations").is_none());

    let clean = emit(&fixtures::clean());
    let invocation = &clean["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], true);
    assert!(invocation.get("toolExecutionNotifications").is_none());
}

#[test]
fn a_category_is_the_automation_id_ending_in_a_slash() {
    let fixture = fixtures::with_findings();
    assert!(emit(&fixture)["runs"][0].get("automationDetails").is_none());
    for category in ["confvet-prod", "confvet-prod/"] {
        let sarif = emit_with(&fixture, |report| report.category = Some(category));
        assert_valid_sarif(&sarif);
        assert_eq!(sarif["runs"][0]["automationDetails"]["id"], "confvet-prod/");
    }
}

#[test]
fn a_fix_is_a_replacement_of_its_region_with_its_applicability() {
    let sarif = emit(&fixtures::with_findings());
    let result = result_starting(&sarif, "port.http must be an integer");
    let fixes = result["fixes"].as_array().expect("fixes");
    assert_eq!(fixes.len(), 1);
    let fix = &fixes[0];
    assert_eq!(fix["description"]["text"], "write 8080");
    assert_eq!(fix["properties"]["applicability"], "unsafe");
    let change = &fix["artifactChanges"][0];
    assert_eq!(change["artifactLocation"]["uri"], "values.yml");
    let replacement = &change["replacements"][0];
    assert_eq!(replacement["insertedContent"]["text"], "8080");
    let region = &replacement["deletedRegion"];
    assert_eq!(
        (
            &region["startLine"],
            &region["startColumn"],
            &region["endLine"],
            &region["endColumn"]
        ),
        (&5.into(), &9.into(), &5.into(), &15.into())
    );
    let without: Vec<&Value> = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r.get("fixes").is_some())
        .collect();
    assert_eq!(without.len(), 1, "only a finding with a fix has fixes");
}
