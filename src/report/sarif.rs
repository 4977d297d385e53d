//! SARIF 2.1.0 output, for GitHub code scanning and other SARIF viewers,
//! built with the typed model of `serde-sarif`.
//!
//! One run:
//!
//! * `tool.driver`: name, `version` and `semanticVersion` (confvet's),
//!   `informationUri` (the home page) and `rules`: every rule of the rule
//!   table, whether or not it fired, with its summary, documentation
//!   (`help.text` and `help.markdown`) and `helpUri` (its documentation page),
//!   so viewers can show help for any result;
//! * `invocations[0]`: `executionSuccessful` is false when the run had errors
//!   (exit 2: a path that cannot be read, bad flags), each of which is a
//!   `toolExecutionNotifications` entry, located at the file it names;
//! * `automationDetails.id`: the `--category` given, ending in `/` as GitHub
//!   wants; without it there is none, and the upload action fills in its own;
//! * `originalUriBaseIds`: `%SRCROOT%`, the directory confvet ran in; every
//!   relative URI names it as its `uriBaseId`;
//! * `columnKind`: `unicodeCodePoints`.
//!
//! Each result has:
//!
//! * `ruleId`, `ruleIndex` (into `rules`) and `level` from the severity;
//! * `message.text`: the message, then the help on its own line, then a line
//!   of links to the related locations, `[rule declared here](1)`, which is
//!   how GitHub shows them. Literal `[` and `]` in the text are escaped with a
//!   backslash, as SARIF asks of messages with links;
//! * one location with a relative URI (the display name, percent-encoded) and
//!   a region in 1-based lines and code-point columns, the end exclusive. A
//!   source that is not a file, such as a `--data-value` flag, has no URI: its
//!   result has no location, and the message starts with the source's name
//!   and position (`(data-value arg):1:6: ...`);
//! * `relatedLocations` with ids from 1 and their messages (files only; one
//!   that is not a file is named in the message);
//! * `partialFingerprints["confvet/v1"]`: the finding's fingerprint, which
//!   does not change when lines move and is unique within the run. We never
//!   write `primaryLocationLineHash`: GitHub computes that one itself;
//! * `properties`: the finding's `kind` and, when it has one, its data `path`.
//!
//! A clean run has `results: []`.

use super::model::{Emitter, Region, Report, RunError, locate};
use crate::finding::{Finding, Severity};
use crate::rules::{self, Rule};
use crate::source::{Sources, Span};
use serde_json::json;
use serde_sarif::sarif;
use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::Path;

const SCHEMA_URI: &str = "https://json.schemastore.org/sarif-2.1.0.json";
/// Our key in `partialFingerprints`; bump the suffix if the hash changes.
const FINGERPRINT_KEY: &str = "confvet/v1";
/// The base of relative URIs: the directory confvet ran in.
const SRCROOT: &str = "%SRCROOT%";

/// Writes a SARIF 2.1.0 log.
pub struct SarifEmitter;

impl Emitter for SarifEmitter {
    fn emit(&self, out: &mut dyn Write, report: &Report<'_>) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut *out, &log(report))?;
        writeln!(out)
    }
}

/// The whole log of a report.
fn log(report: &Report<'_>) -> sarif::Sarif {
    let version = env!("CARGO_PKG_VERSION");
    let driver = sarif::ToolComponent::builder()
        .name("confvet")
        .version(version)
        .semantic_version(version)
        .information_uri(rules::HOMEPAGE)
        .rules(rules::RULES.iter().copied().map(rule).collect::<Vec<_>>())
        .build();
    let mut invocation = sarif::Invocation::builder()
        .execution_successful(report.errors.is_empty())
        .build();
    if !report.errors.is_empty() {
        invocation.tool_execution_notifications =
            Some(report.errors.iter().map(notification).collect());
    }
    let results: Vec<sarif::Result> = report
        .findings
        .iter()
        .map(|finding| result(finding, report.sources))
        .collect();
    let mut run = sarif::Run::builder()
        .tool(sarif::Tool::builder().driver(driver).build())
        .invocations(vec![invocation])
        .original_uri_base_ids(BTreeMap::from([(
            SRCROOT.to_string(),
            source_root(report.base_dir),
        )]))
        .column_kind(json!("unicodeCodePoints"))
        .results(results)
        .build();
    if let Some(category) = report.category {
        run.automation_details = Some(sarif::RunAutomationDetails {
            id: Some(automation_id(category)),
            ..Default::default()
        });
    }
    sarif::Sarif::builder()
        .schema(SCHEMA_URI)
        .version(json!("2.1.0"))
        .runs(vec![run])
        .build()
}

/// GitHub takes everything up to the last `/` of `automationDetails.id` as
/// the category (the rest names the run), so a category ends with `/`, as
/// the upload action makes its `category` input.
fn automation_id(category: &str) -> String {
    if category.ends_with('/') {
        category.to_string()
    } else {
        format!("{category}/")
    }
}

/// `%SRCROOT%`: the directory relative URIs are relative to, as an absolute
/// URI ending in `/`; only described when it is not known.
fn source_root(base_dir: Option<&Path>) -> sarif::ArtifactLocation {
    let description = Some(sarif::Message {
        text: Some("The directory confvet ran in; file names are relative to it.".into()),
        ..Default::default()
    });
    let uri = base_dir
        .and_then(|dir| dir.to_str())
        .filter(|dir| Path::new(dir).is_absolute())
        .map(|dir| {
            let mut uri = file_uri(dir);
            if !uri.ends_with('/') {
                uri.push('/');
            }
            uri
        });
    sarif::ArtifactLocation {
        uri,
        description,
        ..Default::default()
    }
}

/// A `reportingDescriptor` for one rule of the table.
fn rule(rule: &Rule) -> sarif::ReportingDescriptor {
    let text = |text: &str| {
        sarif::MultiformatMessageString::builder()
            .text(text)
            .build()
    };
    sarif::ReportingDescriptor::builder()
        .id(rule.id)
        .name(pascal_case(rule.id))
        .short_description(text(rule.summary()))
        .full_description(text(what_it_does(rule.docs())))
        .help(
            sarif::MultiformatMessageString::builder()
                .text(rule.docs())
                .markdown(rule.docs())
                .build(),
        )
        .help_uri(rules::doc_url(rule.id))
        .default_configuration(
            sarif::ReportingConfiguration::builder()
                .level(json!(level_name(rule.severity)))
                .build(),
        )
        .build()
}

fn result(finding: &Finding, sources: &Sources) -> sarif::Result {
    let mut text = String::new();
    let primary = physical_location(sources, finding.span);
    if primary.is_none() {
        text.push_str(&escape_brackets(&position(sources, finding.span)));
        text.push_str(": ");
    }
    text.push_str(&escape_brackets(&finding.message));
    if let Some(help) = &finding.help {
        text.push_str("\nhelp: ");
        text.push_str(&escape_brackets(help));
    }
    let mut related = Vec::new();
    let mut links = Vec::new();
    for item in &finding.related {
        let message = (!item.message.is_empty()).then(|| sarif::Message {
            text: Some(item.message.clone()),
            ..Default::default()
        });
        match physical_location(sources, item.span) {
            Some(location) => {
                let id = related.len() as i64 + 1;
                let label = if item.message.is_empty() {
                    "related location"
                } else {
                    &item.message
                };
                links.push(format!("[{}]({id})", escape_brackets(label)));
                related.push(sarif::Location {
                    id: Some(id),
                    physical_location: Some(location),
                    message,
                    ..Default::default()
                });
            }
            None => {
                let mut named = position(sources, item.span);
                if !item.message.is_empty() {
                    named = format!("{named}: {}", item.message);
                }
                links.push(escape_brackets(&named));
            }
        }
    }
    if !links.is_empty() {
        text.push('\n');
        text.push_str(&links.join(", "));
    }

    let mut properties = BTreeMap::from([("kind".to_string(), json!(finding.kind.as_str()))]);
    if let Some(path) = &finding.path {
        properties.insert("path".into(), json!(path));
    }
    let mut result = sarif::Result::builder()
        .rule_id(finding.rule)
        .level(match finding.severity {
            Severity::Error => sarif::ResultLevel::Error,
            Severity::Warning => sarif::ResultLevel::Warning,
        })
        .message(sarif::Message {
            text: Some(text),
            ..Default::default()
        })
        .partial_fingerprints(BTreeMap::from([(
            FINGERPRINT_KEY.to_string(),
            finding.fingerprint(sources),
        )]))
        .properties(sarif::PropertyBag {
            additional_properties: properties,
            ..Default::default()
        })
        .build();
    result.rule_index = rules::RULES
        .iter()
        .position(|r| r.id == finding.rule)
        .map(|index| index as i64);
    result.locations = primary.map(|location| {
        vec![sarif::Location {
            physical_location: Some(location),
            ..Default::default()
        }]
    });
    if !related.is_empty() {
        result.related_locations = Some(related);
    }
    result
}

/// A tool execution notification for one run error, located at the file it
/// names.
fn notification(error: &RunError) -> sarif::Notification {
    let mut notification = sarif::Notification::builder()
        .level(json!("error"))
        .message(sarif::Message {
            text: Some(error.message.clone()),
            ..Default::default()
        })
        .build();
    if let Some(file) = &error.file {
        notification.locations = Some(vec![sarif::Location {
            physical_location: Some(sarif::PhysicalLocation {
                artifact_location: Some(artifact_location(file)),
                ..Default::default()
            }),
            ..Default::default()
        }]);
    }
    notification
}

/// Where a span is, if its source is a file on disk: a pseudo file such as
/// `(data-value arg)` has no URI to give.
fn physical_location(sources: &Sources, span: Span) -> Option<sarif::PhysicalLocation> {
    let (file, Region { start, end }) = locate(sources, span);
    file.path.as_ref()?;
    let line = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
    Some(sarif::PhysicalLocation {
        artifact_location: Some(artifact_location(&file.name)),
        region: Some(sarif::Region {
            start_line: Some(line(start.line)),
            start_column: Some(line(start.column)),
            end_line: Some(line(end.line)),
            end_column: Some(line(end.column)),
            ..Default::default()
        }),
        ..Default::default()
    })
}

/// A file by its display name: relative names are relative to `%SRCROOT%`.
fn artifact_location(name: &str) -> sarif::ArtifactLocation {
    let uri = file_uri(name);
    let is_relative = !uri.starts_with("file:");
    sarif::ArtifactLocation {
        uri: Some(uri),
        uri_base_id: is_relative.then(|| SRCROOT.to_string()),
        ..Default::default()
    }
}

/// `name:line:column` of a span's start, for sources that are not files.
fn position(sources: &Sources, span: Span) -> String {
    let (file, region) = locate(sources, span);
    format!(
        "{}:{}:{}",
        file.name, region.start.line, region.start.column
    )
}

/// Text safe in a SARIF message with embedded links: a literal `[` or `]`
/// gets a backslash (and so does a backslash just before one).
fn escape_brackets(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '[' | ']' => {
                escaped.push('\\');
                escaped.push(c);
            }
            '\\' if matches!(chars.peek(), Some('[' | ']')) => escaped.push_str("\\\\"),
            _ => escaped.push(c),
        }
    }
    escaped
}

fn level_name(severity: Severity) -> &'static str {
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
}
