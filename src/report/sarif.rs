//! SARIF 2.1.0 output, for GitHub code scanning and other SARIF viewers.
//!
//! One run. `tool.driver.rules` lists every rule of the rule table, whether
//! or not it fired, with its summary and documentation, so viewers can show
//! help for any result. Each result has:
//!
//! * `ruleId`, `ruleIndex` (into `rules`) and `level` from the severity;
//! * `message.text`: the message, then the help on its own line;
//! * one location with a relative URI (the display name, percent-encoded, so
//!   pseudo files like `(data-value arg)` stay valid URIs) and a region in
//!   1-based lines and code-point columns (`run.columnKind` says so), the end
//!   exclusive;
//! * `relatedLocations` with ids from 1 and their messages;
//! * `partialFingerprints["confvet/v1"]`: the finding's fingerprint, which
//!   does not change when lines move. We never write
//!   `primaryLocationLineHash`: GitHub computes that one itself;
//! * `properties`: the finding's `kind` and, when it has one, its data `path`.
//!
//! A clean run has `results: []`.

use super::{Emitter, Region, Report, locate};
use crate::finding::{Finding, Severity};
use crate::rules::{self, Rule};
use crate::source::{Sources, Span};
use serde_json::{Value, json};
use std::io::{self, Write};

const SCHEMA_URI: &str = "https://json.schemastore.org/sarif-2.1.0.json";
/// Our key in `partialFingerprints`; bump the suffix if the hash changes.
const FINGERPRINT_KEY: &str = "confvet/v1";

/// Writes a SARIF 2.1.0 log.
pub struct SarifEmitter;

impl Emitter for SarifEmitter {
    fn emit(&self, out: &mut dyn Write, report: &Report<'_>) -> io::Result<()> {
        let results: Vec<Value> = report
            .findings
            .iter()
            .map(|finding| result(finding, report.sources))
            .collect();
        let log = json!({
            "$schema": SCHEMA_URI,
            "version": "2.1.0",
            "runs": [{
                "tool": {
                    "driver": {
                        "name": "confvet",
                        "version": env!("CARGO_PKG_VERSION"),
                        "informationUri": rules::HOMEPAGE,
                        "rules": rules::RULES.iter().map(rule).collect::<Vec<_>>(),
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": results,
            }]
        });
        serde_json::to_writer_pretty(&mut *out, &log)?;
        writeln!(out)
    }
}

/// A `reportingDescriptor` for one rule of the table.
fn rule(rule: &Rule) -> Value {
    json!({
        "id": rule.id,
        "name": pascal_case(rule.id),
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": what_it_does(rule.docs)},
        "help": {"text": rule.docs, "markdown": rule.docs},
        "defaultConfiguration": {"level": level(rule.severity)},
    })
}

fn result(finding: &Finding, sources: &Sources) -> Value {
    let mut message = finding.message.clone();
    if let Some(help) = &finding.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    let mut result = json!({
        "ruleId": finding.rule,
        "level": level(finding.severity),
        "message": {"text": message},
        "locations": [{"physicalLocation": physical_location(sources, finding.span)}],
        "partialFingerprints": {FINGERPRINT_KEY: finding.fingerprint(sources)},
        "properties": {"kind": finding.kind.as_str()},
    });
    if let Some(index) = rules::RULES.iter().position(|r| r.id == finding.rule) {
        result["ruleIndex"] = index.into();
    }
    if let Some(path) = &finding.path {
        result["properties"]["path"] = path.as_str().into();
    }
    if !finding.related.is_empty() {
        let related: Vec<Value> = finding
            .related
            .iter()
            .zip(1..)
            .map(|(related, id): (_, u32)| {
                json!({
                    "id": id,
                    "physicalLocation": physical_location(sources, related.span),
                    "message": {"text": related.message},
                })
            })
            .collect();
        result["relatedLocations"] = related.into();
    }
    result
}

fn physical_location(sources: &Sources, span: Span) -> Value {
    let (file, Region { start, end }) = locate(sources, span);
    json!({
        "artifactLocation": {"uri": file_uri(&file.name)},
        "region": {
            "startLine": start.line,
            "startColumn": start.column,
            "endLine": end.line,
            "endColumn": end.column,
        },
    })
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// A display name as a URI reference: relative names stay relative (viewers
/// resolve them against the repository), absolute ones become `file:` URIs.
/// Everything but unreserved characters, `/` and the sub-delimiters allowed in
/// a path is percent-encoded; `:` always is, so a relative first segment
/// never reads as a scheme.
fn file_uri(name: &str) -> String {
    let name = name.replace('\\', "/");
    let mut uri = String::new();
    if name.starts_with('/') {
        uri.push_str("file://");
    } else if name.as_bytes().get(1) == Some(&b':') && name.as_bytes().get(2) == Some(&b'/') {
        // A Windows drive path: `C:/x` becomes `file:///C:/x`.
        uri.push_str("file:///");
        uri.push_str(&name[..2]);
        return uri + &percent_encode(&name[2..]);
    }
    uri + &percent_encode(&name)
}

fn percent_encode(path: &str) -> String {
    let mut encoded = String::with_capacity(path.len());
    for byte in path.bytes() {
        match byte {
            b'A'..=b'Z'
            | b'a'..=b'z'
            | b'0'..=b'9'
            | b'-'
            | b'.'
            | b'_'
            | b'~'
            | b'/'
            | b'!'
            | b'$'
            | b'&'
            | b'\''
            | b'('
            | b')'
            | b'*'
            | b'+'
            | b','
            | b';'
            | b'='
            | b'@' => encoded.push(char::from(byte)),
            _ => encoded.push_str(&format!("%{byte:02X}")),
        }
    }
    encoded
}

/// `ytt/type-mismatch` -> `YttTypeMismatch`: SARIF wants a name distinct
/// from the id, readable as an identifier.
fn pascal_case(id: &str) -> String {
    id.split(['/', '-'])
        .flat_map(|word| {
            let mut chars = word.chars();
            chars
                .next()
                .map(|first| first.to_ascii_uppercase())
                .into_iter()
                .chain(chars)
        })
        .collect()
}

/// The "What it does" section of a rule's docs, as plain text.
fn what_it_does(docs: &str) -> &str {
    let section = docs.strip_prefix("## What it does\n").unwrap_or(docs);
    section
        .find("\n\n##")
        .map_or(section, |end| &section[..end])
        .trim()
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{self, Fixture};
    use super::*;

    fn emit(fixture: &Fixture) -> Value {
        let mut out = Vec::new();
        SarifEmitter.emit(&mut out, &fixture.report()).unwrap();
        serde_json::from_slice(&out).unwrap()
    }

    /// Pretty SARIF with the tool version redacted.
    fn redacted(mut sarif: Value) -> String {
        let version = &mut sarif["runs"][0]["tool"]["driver"]["version"];
        assert_eq!(*version, env!("CARGO_PKG_VERSION"));
        *version = "[version]".into();
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
        assert_eq!(file_uri("100%.yml"), "100%25.yml");
    }

    #[test]
    fn rule_names_and_descriptions() {
        assert_eq!(pascal_case("ytt/type-mismatch"), "YttTypeMismatch");
        let docs = rules::find("yaml/syntax").unwrap().docs;
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
}
