//! End-to-end tests of the formats other CI systems read (GitLab Code
//! Quality, Azure Pipelines logging commands, reviewdog's rdjson): the
//! binary run on the bundled examples, each output checked against its
//! schema or grammar, and each finding of the JSON report found in it once,
//! at its file, line and rule.

use crate::common;

use common::{TempDir, findings, run_env, run_in};
use regex::Regex;
use serde_json::Value;
use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `confvet lint examples` in `format`, from the repository's root, and the
/// findings of its JSON report.
fn examples_in(format: &str) -> (String, Vec<Value>) {
    let run = run_in(root(), &["lint", "examples", "--format", format]);
    assert_eq!(run.code, 1, "{format}: {}", run.stderr);
    let json = run_in(root(), &["lint", "examples", "--format", "json"]).json();
    let expected = findings(&json).to_vec();
    assert!(expected.len() >= 10, "{json:#}");
    (run.stdout, expected)
}

/// The complaints of the JSON Schema in `tests/fixtures/NAME`.
fn schema_errors(name: &str, instance: &Value) -> Vec<String> {
    let text = std::fs::read_to_string(root().join("tests/fixtures").join(name)).unwrap();
    errors_of(&serde_json::from_str(&text).unwrap(), instance)
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

/// The one item of `items` that `is_it` picks, for `finding`.
fn the_one<'a>(items: &'a [Value], finding: &Value, is_it: impl Fn(&Value) -> bool) -> &'a Value {
    let found: Vec<&Value> = items.iter().filter(|item| is_it(item)).collect();
    assert_eq!(found.len(), 1, "{finding:#} is there {} times", found.len());
    found[0]
}

#[test]
fn gitlab_code_quality_of_the_examples_is_valid_with_each_finding_once() {
    let (stdout, expected) = examples_in("gitlab");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        schema_errors("gitlab-code-quality.schema.json", &report),
        Vec::<String>::new()
    );
    let issues = report.as_array().unwrap();
    assert_eq!(issues.len(), expected.len());
    for finding in &expected {
        let issue = the_one(issues, finding, |issue| {
            issue["fingerprint"] == finding["fingerprint"]
        });
        assert_eq!(issue["check_name"], finding["rule"]);
        assert_eq!(issue["location"]["path"], finding["file"]);
        assert_eq!(issue["location"]["lines"]["begin"], finding["line"]);
        assert_eq!(issue["location"]["lines"]["end"], finding["end_line"]);
        let severity = if finding["severity"] == "error" {
            "major"
        } else {
            "minor"
        };
        assert_eq!(issue["severity"], severity, "{issue:#}");
    }
}

/// The UTF-8 byte column of character `column` of line `line` of `file`.
fn byte_column(file: &str, line: u64, column: u64) -> u64 {
    let text = std::fs::read_to_string(root().join(file)).unwrap();
    let line = text.lines().nth(line as usize - 1).unwrap();
    let before: String = line.chars().take(column as usize - 1).collect();
    before.len() as u64 + 1
}

#[test]
fn rdjson_of_the_examples_is_valid_with_each_finding_once_and_fixes_suggested() {
    let (stdout, expected) = examples_in("rdjson");
    let result: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        schema_errors("rdjson.schema.json", &result),
        Vec::<String>::new()
    );
    let official = root().join("../shared/schemas/reviewdog/DiagnosticResult.json");
    match std::fs::read_to_string(&official) {
        Ok(schema) => assert_eq!(
            errors_of(&serde_json::from_str(&schema).unwrap(), &result),
            Vec::<String>::new()
        ),
        Err(_) => println!("skipped: reviewdog's own schema is not in ../shared/schemas"),
    }
    let diagnostics = result["diagnostics"].as_array().unwrap();
    assert_eq!(diagnostics.len(), expected.len());
    let mut suggested = 0;
    for finding in &expected {
        let file = finding["file"].as_str().unwrap();
        let line = finding["line"].as_u64().unwrap();
        let diagnostic = the_one(diagnostics, finding, |d| {
            d["code"]["value"] == finding["rule"]
                && d["location"]["path"] == file
                && d["location"]["range"]["start"]["line"] == line
                && d["message"]
                    .as_str()
                    .unwrap()
                    .starts_with(finding["message"].as_str().unwrap())
        });
        assert_eq!(diagnostic["code"]["url"], finding["url"]);
        let start = &diagnostic["location"]["range"]["start"];
        let column = finding["column"].as_u64().unwrap();
        assert_eq!(
            start["column"],
            byte_column(file, line, column),
            "{diagnostic:#}"
        );
        let end = &diagnostic["location"]["range"]["end"];
        let end_line = finding["end_line"].as_u64().unwrap();
        let end_column = finding["end_column"].as_u64().unwrap();
        assert_eq!(end["line"], end_line);
        assert_eq!(end["column"], byte_column(file, end_line, end_column));
        // A fix of one edit is suggested as that edit.
        match finding["fix"]["edits"].as_array() {
            Some(edits) => {
                suggested += 1;
                assert_eq!(edits.len(), 1, "{finding:#}");
                let suggestion = &diagnostic["suggestions"][0];
                assert_eq!(suggestion["text"], edits[0]["content"]);
                assert_eq!(suggestion["range"]["start"]["line"], edits[0]["line"]);
            }
            None => assert!(diagnostic.get("suggestions").is_none(), "{diagnostic:#}"),
        }
    }
    assert_eq!(suggested, 2, "a safe and an unsafe fix in the examples");
}

/// What the agent takes back from an escaped value or message.
fn unescape(text: &str) -> String {
    text.replace("%3B", ";")
        .replace("%0D", "\r")
        .replace("%0A", "\n")
        .replace("%5D", "]")
        .replace("%AZP25", "%")
}

/// Each line of `output` as one `task.logissue` command: its properties
/// and message, unescaped. Panics unless each line is one command of the
/// grammar, with one `##vso[`.
fn logissue_commands(output: &str) -> Vec<(Vec<(String, String)>, String)> {
    let grammar = Regex::new(
        r"^##vso\[task\.logissue type=(error|warning);((sourcepath|linenumber|columnnumber|code)=[^;\]\r\n]*;)*\](?:[^%\r\n]|%AZP25|%0D|%0A)*$",
    )
    .unwrap();
    output
        .lines()
        .map(|line| {
            assert!(grammar.is_match(line), "not one command: {line:?}");
            assert_eq!(line.matches("##vso[").count(), 1, "{line:?}");
            let (command, message) = line.split_once(']').unwrap();
            let properties = command
                .trim_start_matches("##vso[task.logissue ")
                .split(';')
                .filter(|p| !p.is_empty())
                .map(|p| {
                    let (key, value) = p.split_once('=').unwrap();
                    (key.to_string(), unescape(value))
                })
                .collect();
            (properties, unescape(message))
        })
        .collect()
}

fn property<'a>(properties: &'a [(String, String)], key: &str) -> Option<&'a str> {
    properties
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

#[test]
fn azure_logging_commands_of_the_examples_follow_the_grammar_with_each_finding_once() {
    let (stdout, expected) = examples_in("azure");
    let commands = logissue_commands(&stdout);
    assert_eq!(commands.len(), expected.len(), "{stdout}");
    let root = root().canonicalize().unwrap();
    for finding in &expected {
        let file = finding["file"].as_str().unwrap();
        let (properties, message) = the_one_command(&commands, finding, |properties, message| {
            property(properties, "code") == finding["rule"].as_str()
                && property(properties, "linenumber") == Some(&finding["line"].to_string())
                && property(properties, "sourcepath").is_some_and(|p| p.ends_with(file))
                && message.starts_with(finding["message"].as_str().unwrap())
        });
        // The absolute path, as Microsoft asks.
        let path = Path::new(property(properties, "sourcepath").unwrap());
        assert_eq!(path.canonicalize().unwrap(), root.join(file));
        assert_eq!(
            property(properties, "columnnumber"),
            Some(finding["column"].to_string().as_str())
        );
        assert_eq!(property(properties, "type"), finding["severity"].as_str());
        assert!(
            !message.contains('\n') || message.contains("\nhelp: "),
            "{message}"
        );
    }
}

fn the_one_command<'a>(
    commands: &'a [(Vec<(String, String)>, String)],
    finding: &Value,
    is_it: impl Fn(&[(String, String)], &str) -> bool,
) -> &'a (Vec<(String, String)>, String) {
    let found: Vec<_> = commands
        .iter()
        .filter(|(properties, message)| is_it(properties, message))
        .collect();
    assert_eq!(found.len(), 1, "{finding:#} is there {} times", found.len());
    found[0]
}

/// A command a linted file spells out, and where: a key, a value, a file
/// name (with `;` and `]`), and a soft hyphen the agent's comparison skips.
fn package_spelling_commands() -> TempDir {
    let dir = TempDir::new("azure-commands");
    dir.write("pkg/schema.yml", "#@data/values-schema\n---\nname: \"\"\n");
    dir.write(
        "pkg/values.yml",
        "#@data/values\n---\nname: x\n\"##vso[task.setvariable variable=A;]1\": 1\n\
         \"#\u{ad}#vso[task.complete result=Failed]\": 2\n",
    );
    dir.write(
        "pkg/##vso[task.prependpath]x;y.yml",
        "#@data/values\n---\nother: 2\n",
    );
    dir
}

#[test]
fn under_azure_pipelines_no_format_lets_a_file_spell_out_a_logging_command() {
    let dir = package_spelling_commands();
    let has_command = |line: &str| {
        let kept: String = line.chars().filter(|&c| c != '\u{ad}').collect();
        kept.to_ascii_lowercase().contains("##vso[") || kept.contains("##[")
    };
    for format in [
        "text", "concise", "json", "junit", "sarif", "github", "markdown", "gitlab", "rdjson",
        "azure",
    ] {
        let args = ["lint", "pkg", "--format", format];
        let run = run_env(dir.path(), &args, &[("TF_BUILD", "True")]);
        assert_eq!(run.code, 1, "{format}: {}", run.stderr);
        if format == "azure" {
            // Its own commands, one a line, at the start: three findings.
            assert_eq!(logissue_commands(&run.stdout).len(), 3, "{}", run.stdout);
            continue;
        }
        let spelt: Vec<&str> = run.stdout.lines().filter(|l| has_command(l)).collect();
        assert_eq!(spelt, Vec::<&str>::new(), "{format}:\n{}", run.stdout);
        // Without the variable the commands are there: the test can fail.
        let plain = run_in(dir.path(), &args);
        if format != "markdown" {
            assert!(
                plain.stdout.lines().any(has_command),
                "{format}:\n{}",
                plain.stdout
            );
        }
        // JSON still reads back as the same report.
        if matches!(format, "json" | "sarif" | "gitlab" | "rdjson") {
            let inert: Value = serde_json::from_str(&run.stdout).unwrap();
            assert_eq!(inert, plain.json(), "{format}");
        }
    }
}

#[test]
fn the_new_formats_are_taken_and_typos_get_the_nearest_format() {
    let dir = package_spelling_commands();
    for format in ["gitlab", "azure", "rdjson"] {
        let run = run_in(dir.path(), &["lint", "pkg", "--format", format]);
        assert_eq!(run.code, 1, "{format}: {}", run.stderr);
        assert!(!run.stdout.is_empty(), "{format}");
    }
    for (typo, tip) in [
        ("gitlb", "gitlab"),
        ("githb", "github"),
        ("azur", "azure"),
        ("rdjsn", "rdjson"),
    ] {
        let run = run_in(dir.path(), &["lint", "pkg", "--format", typo]);
        assert_eq!(run.code, 2, "{typo}");
        assert!(
            run.stderr
                .contains(&format!("tip: a similar value exists: '{tip}'")),
            "{typo}: {}",
            run.stderr
        );
    }
}

#[test]
fn rdjson_columns_count_bytes_on_a_line_with_accents() {
    let dir = TempDir::new("rdjson-bytes");
    dir.write(
        "pkg/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation one_of=[\"core\", \"web\"]\néquipe: core\n",
    );
    dir.write("pkg/values.yml", "#@data/values\n---\néquipe: \"naïve\"\n");
    let run = run_in(dir.path(), &["lint", "pkg", "--format", "rdjson"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let result = run.json();
    let range = &result["diagnostics"][0]["location"]["range"];
    // `équipe: ` is 8 characters, 9 bytes; `"naïve"` 7 characters, 8 bytes.
    assert_eq!(range["start"], serde_json::json!({"line": 3, "column": 10}));
    assert_eq!(range["end"], serde_json::json!({"line": 3, "column": 18}));
    let json = run_in(dir.path(), &["lint", "pkg", "--format", "json"]).json();
    let finding = &findings(&json)[0];
    assert_eq!(
        (&finding["column"], &finding["end_column"]),
        (&9.into(), &16.into())
    );
}

/// What confvet says on standard error names files of the repository too
/// (here one named on the command line that is not linted, and why): under
/// Azure Pipelines or GitHub Actions, which read standard error as they
/// read standard output, none of it runs a command.
#[test]
fn messages_on_standard_error_run_no_ci_command() {
    let dir = TempDir::new("stderr-commands");
    let name = "##vso[task.complete result=Failed]x.txt";
    dir.write(name, "not yaml\n");
    let lines_run = |stderr: &str| -> Vec<String> {
        stderr
            .lines()
            .filter(|l| l.contains("##vso[") || l.trim_start().starts_with("::"))
            .map(String::from)
            .collect()
    };
    let plain = run_in(dir.path(), &["lint", name]);
    assert!(plain.stderr.contains("##vso["), "{}", plain.stderr);
    let azure = run_env(dir.path(), &["lint", name], &[("TF_BUILD", "True")]);
    assert_eq!(
        lines_run(&azure.stderr),
        Vec::<String>::new(),
        "{}",
        azure.stderr
    );
    assert!(azure.stderr.contains("\\u{23}#vso["), "{}", azure.stderr);
    // A line that starts with `::` is GitHub's workflow command.
    let github_name = "::error::x.txt";
    dir.write(github_name, "not yaml\n");
    let plain = run_in(dir.path(), &["lint", github_name]);
    assert_ne!(
        lines_run(&plain.stderr),
        Vec::<String>::new(),
        "{}",
        plain.stderr
    );
    let github = run_env(
        dir.path(),
        &["lint", github_name],
        &[("GITHUB_ACTIONS", "true")],
    );
    assert_eq!(
        lines_run(&github.stderr),
        Vec::<String>::new(),
        "{}",
        github.stderr
    );
    assert!(
        github.stderr.contains("\\u{3a}:error::x.txt"),
        "{}",
        github.stderr
    );
}
