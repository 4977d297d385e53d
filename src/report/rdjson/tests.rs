//! Unit tests of the rdjson output: the schemas, snapshots, byte columns
//! and suggestions.

use super::super::fixtures::{self, Fixture, HOSTILE, HOSTILE_ESCAPED, VALUES_YML};
use super::*;
use crate::finding::Edit;
use crate::source::SourceFile;
use serde_json::{Value, json};

fn emit(fixture: &Fixture) -> Value {
    let text = fixture.emit(&RdjsonEmitter);
    serde_json::from_str(&text).unwrap()
}

/// Complaints of confvet's strict schema of rdjson (`tests/fixtures`,
/// written from reviewdog's proto), and of reviewdog's own schema where
/// `../shared/schemas` holds it.
fn schema_errors(result: &Value) -> Vec<String> {
    let strict: Value =
        serde_json::from_str(include_str!("../../../tests/fixtures/rdjson.schema.json")).unwrap();
    let mut errors = errors_of(&strict, result);
    let official = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/schemas/reviewdog/DiagnosticResult.json"
    );
    match std::fs::read_to_string(official) {
        Ok(schema) => errors.extend(errors_of(&serde_json::from_str(&schema).unwrap(), result)),
        Err(_) => println!("skipped: reviewdog's own schema is not in ../shared/schemas"),
    }
    errors
}

fn errors_of(schema: &Value, instance: &Value) -> Vec<String> {
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .unwrap();
    validator
        .iter_errors(instance)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}

/// The diagnostic whose message starts with `prefix`.
fn diagnostic_starting<'a>(result: &'a Value, prefix: &str) -> &'a Value {
    result["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["message"].as_str().unwrap().starts_with(prefix))
        .unwrap_or_else(|| panic!("no diagnostic starts with {prefix:?}"))
}

/// (line, column) of a position.
fn at(position: &Value) -> (u64, u64) {
    (
        position["line"].as_u64().unwrap(),
        position["column"].as_u64().unwrap(),
    )
}

#[test]
fn findings() {
    insta::assert_snapshot!(fixtures::with_findings().emit(&RdjsonEmitter));
}

#[test]
fn findings_a_clean_run_and_hostile_text_are_valid_rdjson() {
    for fixture in [
        fixtures::with_findings(),
        fixtures::clean(),
        fixtures::hostile(),
    ] {
        let result = emit(&fixture);
        assert_eq!(schema_errors(&result), Vec::<String>::new(), "{result:#}");
    }
    assert_eq!(emit(&fixtures::clean())["diagnostics"], json!([]));
}

#[test]
fn the_schema_check_is_not_vacuous() {
    let result = emit(&fixtures::with_findings());
    let broken = |change: &dyn Fn(&mut Value)| {
        let mut copy = result.clone();
        change(&mut copy["diagnostics"][1]);
        schema_errors(&copy)
    };
    assert!(!broken(&|d| d["severity"] = "FATAL".into()).is_empty());
    assert!(!broken(&|d| d["location"]["range"]["start"]["column"] = 0.into()).is_empty());
    assert!(!broken(&|d| d["relatedLocations"] = json!([])).is_empty());
    assert!(
        !broken(&|d| {
            d["location"].as_object_mut().unwrap().remove("path");
        })
        .is_empty()
    );
}

#[test]
fn each_finding_is_a_diagnostic_with_its_rule_and_severity() {
    let fixture = fixtures::with_findings();
    let result = emit(&fixture);
    assert_eq!(result["source"]["name"], "confvet");
    let diagnostics = result["diagnostics"].as_array().unwrap();
    assert_eq!(diagnostics.len(), fixture.findings.len());
    for (diagnostic, finding) in diagnostics.iter().zip(&fixture.findings) {
        assert_eq!(diagnostic["code"]["value"], finding.rule);
        assert_eq!(diagnostic["code"]["url"], rules::doc_url(finding.rule));
        let severity = match finding.severity {
            Severity::Error => "ERROR",
            Severity::Warning => "WARNING",
        };
        assert_eq!(diagnostic["severity"], severity);
    }
}

#[test]
fn columns_count_utf8_bytes() {
    // `équipe:\t"naïve"`: the value starts after 9 bytes (8 characters)
    // and is 8 bytes (7 characters) long.
    let result = emit(&fixtures::with_findings());
    let diagnostic = diagnostic_starting(&result, "équipe must be one of");
    let range = &diagnostic["location"]["range"];
    assert_eq!(at(&range["start"]), (7, 10));
    assert_eq!(at(&range["end"]), (7, 18));
    // The bytes between them are the value.
    let line = VALUES_YML.lines().nth(6).unwrap();
    assert_eq!(&line[9..17], "\"naïve\"");
    // A related location counts the same way: `one_of=[…]` on line 9 of
    // schema.yml starts after ASCII only, so bytes and characters agree.
    assert_eq!(
        at(&diagnostic["related_locations"][0]["location"]["range"]["start"]),
        (9, 21)
    );
}

#[test]
fn a_fix_is_one_suggestion_and_the_message_says_how_safe_it_is() {
    let result = emit(&fixtures::with_findings());
    let diagnostic = diagnostic_starting(&result, "port.http must be an integer");
    let suggestions = diagnostic["suggestions"].as_array().unwrap();
    assert_eq!(suggestions.len(), 1);
    assert_eq!(suggestions[0]["text"], "8080");
    assert_eq!(at(&suggestions[0]["range"]["start"]), (5, 9));
    assert_eq!(at(&suggestions[0]["range"]["end"]), (5, 15));
    assert_eq!(
        diagnostic["message"],
        "port.http must be an integer, found a string\n\
         help: remove the quotes to give an integer: 8080\n\
         suggested fix: write 8080 (unsafe: it may change what the configuration means)"
    );
    let with_suggestions = result["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d.get("suggestions").is_some())
        .count();
    assert_eq!(with_suggestions, 1, "only a finding with a fix");
}

/// One finding in `values.yml` (`a: 1, b: 2`, then a second line) with a
/// fix of `edits`, each `(start, end, content)`.
fn fixed(applicability: Applicability, edits: &[(usize, usize, &str)]) -> Fixture {
    let sources = Sources::new();
    let text = "a: 1, b: 2\nc: 3\n";
    let file = sources.add(SourceFile::new(
        "values.yml".into(),
        Some("/work/pkg/values.yml".into()),
        text.into(),
    ));
    let other = sources.add(SourceFile::new(
        "schema.yml".into(),
        Some("/work/pkg/schema.yml".into()),
        text.into(),
    ));
    let edits = edits
        .iter()
        .map(|&(start, end, content)| {
            let file = if content == "elsewhere" { other } else { file };
            Edit::replace(Span::new(file, start, end), content)
        })
        .collect();
    let mut finding = Finding::new(
        &crate::rules::ytt::VALIDATION,
        Span::new(file, 3, 4),
        "a must be 2",
    );
    finding.fix = Fix::new(applicability, "make it so", edits).map(Box::new);
    let mut fixture = fixtures::clean();
    fixture.sources = sources;
    fixture.findings = vec![finding];
    fixture
}

#[test]
fn the_edits_of_a_fix_make_one_suggestion_of_the_text_they_span() {
    // Edits given out of order, over two lines, one an insertion.
    let fixture = fixed(
        Applicability::Safe,
        &[(14, 15, "4"), (3, 4, "2"), (9, 9, "0")],
    );
    let result = emit(&fixture);
    assert_eq!(schema_errors(&result), Vec::<String>::new());
    let diagnostic = &result["diagnostics"][0];
    let suggestion = &diagnostic["suggestions"][0];
    assert_eq!(suggestion["text"], "2, b: 02\nc: 4");
    assert_eq!(at(&suggestion["range"]["start"]), (1, 4));
    assert_eq!(at(&suggestion["range"]["end"]), (2, 5));
    assert!(
        diagnostic["message"]
            .as_str()
            .unwrap()
            .ends_with("suggested fix: make it so (safe: `confvet lint --fix` makes it)"),
        "{diagnostic:#}"
    );

    // A help that says what the fix does is said once, as the fix.
    let mut fixture = fixed(Applicability::Safe, &[(3, 4, "2")]);
    fixture.findings[0].help = Some("make it so".into());
    assert_eq!(
        emit(&fixture)["diagnostics"][0]["message"],
        "a must be 2\nsuggested fix: make it so (safe: `confvet lint --fix` makes it)"
    );
    fixture.findings[0].help = Some("2 is the one".into());
    assert_eq!(
        emit(&fixture)["diagnostics"][0]["message"],
        "a must be 2\nhelp: 2 is the one\nsuggested fix: make it so (safe: `confvet lint --fix` makes it)"
    );

    // Display-only fixes are suggested too, and say so.
    let result = emit(&fixed(Applicability::DisplayOnly, &[(3, 4, "2")]));
    let diagnostic = &result["diagnostics"][0];
    assert_eq!(diagnostic["suggestions"][0]["text"], "2");
    assert!(
        diagnostic["message"]
            .as_str()
            .unwrap()
            .ends_with("(one repair of several: check that it fits)"),
        "{diagnostic:#}"
    );

    // A deletion at the end of a line takes its line break: the range
    // ends at column 1 of the next line.
    let result = emit(&fixed(Applicability::Safe, &[(10, 11, "")]));
    let suggestion = &result["diagnostics"][0]["suggestions"][0];
    assert_eq!(suggestion["text"], "");
    assert_eq!(at(&suggestion["range"]["start"]), (1, 11));
    assert_eq!(at(&suggestion["range"]["end"]), (2, 1));
}

#[test]
fn a_fix_that_edits_another_file_is_not_suggested() {
    let result = emit(&fixed(
        Applicability::Safe,
        &[(3, 4, "2"), (0, 1, "elsewhere")],
    ));
    let diagnostic = &result["diagnostics"][0];
    assert!(diagnostic.get("suggestions").is_none(), "{diagnostic:#}");
    assert_eq!(diagnostic["message"], "a must be 2");
}

#[test]
fn a_value_from_a_flag_has_no_location_and_says_where_in_its_message() {
    let result = emit(&fixtures::with_findings());
    let diagnostic = diagnostic_starting(&result, "(data-value arg):1:6: port must be a map");
    assert!(diagnostic.get("location").is_none(), "{diagnostic:#}");
    // Its related location is a file: that one is there.
    assert_eq!(
        diagnostic["related_locations"][0]["location"]["path"],
        "schema.yml"
    );
}

#[test]
fn messages_are_shown_escaped_but_paths_and_suggestions_kept() {
    let result = emit(&fixtures::hostile());
    let diagnostic = &result["diagnostics"][0];
    assert_eq!(
        diagnostic["message"],
        format!(
            "{HOSTILE_ESCAPED} is not declared\nin the schema\nhelp: did you mean {HOSTILE_ESCAPED}?\n\
             suggested fix: rename {HOSTILE_ESCAPED} (unsafe: it may change what the configuration means)"
        )
    );
    assert_eq!(
        diagnostic["related_locations"][0]["message"],
        format!("key {HOSTILE_ESCAPED}")
    );
    // reviewdog matches the path against the diff: as it is.
    assert_eq!(diagnostic["location"]["path"], format!("pkg/{HOSTILE}.yml"));
    assert_eq!(diagnostic["suggestions"][0]["text"], "fine");
    // The value is after the key on line 3, in bytes.
    assert_eq!(
        at(&diagnostic["location"]["range"]["start"]),
        (3, HOSTILE.len() as u64 + 3)
    );
}
