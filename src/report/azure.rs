//! Azure Pipelines output: one logging command per finding, which the agent
//! turns into an issue of the step (on the run's summary and in its log).
//!
//! `##vso[task.logissue type=error;sourcepath=PATH;linenumber=L;columnnumber=C;code=RULE;]MESSAGE`
//! (`type=warning` for warnings: confvet has no lower severity). `PATH` is
//! the file's absolute path, as Microsoft's documentation asks: the agent
//! makes a path inside the pipeline's repository relative to it, and shows
//! the issue as `PATH(L,C): error RULE: MESSAGE`. Columns count characters,
//! as in every other format. The help, if any, follows the message on a
//! line of its own. A source that is not a file on disk, such as
//! `(data-value arg)`, gets no `sourcepath` and position: its name and
//! position start the message.
//!
//! Text from files is first made visible ([`escape`](super::escape)), then
//! the line breaks a message or help holds become spaces (the agent writes
//! the message to the log, where a line a file started could be read as a
//! formatting command such as `##[group]`), then every `##vso[` and `##[` in
//! it is made inert ([`logging_commands::neutralize`]), then it is escaped
//! for the command ([`logging_commands`]): so each finding is one line that
//! holds one `##vso[`, at its start, and the agent unescapes exactly the
//! shown text. A clean run writes nothing.
//!
//! The agent lists the first 10 errors and 10 warnings of a step on the
//! run's summary and counts the rest; it writes every one to the log.

use super::escape;
use super::logging_commands::{InertHash, escape_message, escape_property, neutralize};
use super::model::{Emitter, Report, locate};
use crate::finding::Severity;
use std::io::{self, Write};

/// Writes Azure Pipelines `task.logissue` commands.
pub struct AzureEmitter;

impl Emitter for AzureEmitter {
    fn emit(&self, out: &mut dyn Write, report: &Report<'_>) -> io::Result<()> {
        for finding in report.findings {
            let issue_type = match finding.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            };
            let (file, region) = locate(report.sources, finding.span);
            let mut properties = format!("type={issue_type};");
            let mut message = String::new();
            match &file.path {
                Some(path) => {
                    properties.push_str(&format!(
                        "sourcepath={};linenumber={};columnnumber={};",
                        property(&path.to_string_lossy()),
                        region.start.line,
                        region.start.column,
                    ));
                }
                // Not a file in the repository (a command-line data value):
                // the issue names no file, and its message says where.
                None => {
                    message = format!(
                        "{}:{}:{}: ",
                        escape::line(&file.name),
                        region.start.line,
                        region.start.column
                    );
                }
            }
            properties.push_str(&format!("code={};", property(finding.rule)));
            message.push_str(&one_line(&finding.message));
            if let Some(help) = &finding.help {
                message.push_str("\nhelp: ");
                message.push_str(&one_line(help));
            }
            writeln!(
                out,
                "##vso[task.logissue {properties}]{}",
                escape_message(&neutralize(&message, InertHash::Text)),
            )?;
        }
        Ok(())
    }
}

/// A property value: made visible, kept on its line, commands in it made
/// inert, then escaped for the command.
fn property(text: &str) -> String {
    let shown = escape::line(text);
    escape_property(&neutralize(&shown, InertHash::Text))
}

/// Text from a finding made visible, with its line breaks as spaces.
fn one_line(text: &str) -> String {
    escape::text(text)
        .split('\n')
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{self, Fixture, HOSTILE_ESCAPED};
    use super::super::logging_commands::unescape;
    use super::*;
    use crate::finding::Finding;
    use crate::source::{SourceFile, Sources, Span};
    use regex::Regex;

    fn emit(fixture: &Fixture) -> String {
        fixture.emit(&AzureEmitter)
    }

    /// One `task.logissue` command, as the agent parses it: the prefix at
    /// the start, properties with no `;` or `]` but their separators and no
    /// line break, then the message, with nothing the agent unescapes left
    /// but the escapes.
    fn command_grammar() -> Regex {
        Regex::new(
            r"^##vso\[task\.logissue type=(error|warning);((sourcepath|linenumber|columnnumber|code)=[^;\]\r\n]*;)*\](?:[^%\r\n]|%AZP25|%0D|%0A)*$",
        )
        .unwrap()
    }

    /// Each line's properties and message, unescaped as the agent does;
    /// panics unless every line is one command of [`command_grammar`] with
    /// one `##vso[`.
    fn parsed(output: &str) -> Vec<(Vec<(String, String)>, String)> {
        let grammar = command_grammar();
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

    #[test]
    fn findings() {
        let output = emit(&fixtures::with_findings());
        assert_eq!(parsed(&output).len(), 7);
        insta::assert_snapshot!(output);
    }

    #[test]
    fn clean_run_writes_nothing() {
        assert_eq!(emit(&fixtures::clean()), "");
    }

    #[test]
    fn every_finding_is_one_command_with_its_place_and_rule() {
        let fixture = fixtures::with_findings();
        let commands = parsed(&emit(&fixture));
        assert_eq!(commands.len(), fixture.findings.len());
        let value_of = |properties: &[(String, String)], key: &str| {
            properties
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.clone())
        };
        for ((properties, message), finding) in commands.iter().zip(&fixture.findings) {
            let (file, region) = locate(&fixture.sources, finding.span);
            assert_eq!(value_of(properties, "code").as_deref(), Some(finding.rule));
            let severity = value_of(properties, "type").unwrap();
            assert_eq!(severity, finding.severity.as_str());
            match &file.path {
                Some(path) => {
                    assert_eq!(value_of(properties, "sourcepath").as_deref(), path.to_str());
                    assert_eq!(
                        value_of(properties, "linenumber"),
                        Some(region.start.line.to_string())
                    );
                    assert_eq!(
                        value_of(properties, "columnnumber"),
                        Some(region.start.column.to_string())
                    );
                    assert!(message.starts_with(&finding.message), "{message}");
                }
                None => {
                    assert_eq!(value_of(properties, "sourcepath"), None);
                    assert!(
                        message.starts_with("(data-value arg):1:6: port must be a map"),
                        "{message}"
                    );
                }
            }
        }
    }

    /// One finding in `values.yml` whose message is `message`.
    fn with_message(message: &str) -> Fixture {
        let sources = Sources::new();
        let file = sources.add(SourceFile::new(
            "values.yml".into(),
            Some("/work/pkg/values.yml".into()),
            "x: 1\n".into(),
        ));
        let mut fixture = fixtures::clean();
        fixture.sources = sources;
        fixture.findings = vec![Finding::new(
            &crate::rules::ytt::VALIDATION,
            Span::new(file, 3, 4),
            message,
        )];
        fixture
    }

    #[test]
    fn messages_cannot_start_or_break_out_of_a_command() {
        let attempts = [
            "x\n##vso[task.setvariable variable=PATH]/evil",
            "x\r##vso[task.setvariable variable=A;issecret=false]1",
            "]##vso[task.complete result=Failed;]",
            "a;b]c %3B %0A %5D %AZP25 100%",
            "\u{1b}[31mred\u{1b}[0m \u{9b}2J \u{202e}lmy.exe \u{2066}x\u{2069}",
            "x\n##[group]hidden until the end",
            "#\u{ad}#vso[task.setvariable variable=B]2 and ##VSO[task.prependpath]/x",
        ];
        for attempt in attempts {
            let output = emit(&with_message(attempt));
            let commands = parsed(&output);
            assert_eq!(commands.len(), 1, "{output}");
            let (properties, message) = &commands[0];
            // The agent gets back the shown message: hidden characters as
            // `\u{..}`, line breaks as spaces, commands made inert, and
            // nothing else changed.
            let shown = neutralize(&one_line(attempt), InertHash::Text).into_owned();
            assert_eq!(message, &shown, "{output}");
            assert!(!message.contains("##vso["), "{message}");
            assert!(!message.contains("##["), "{message}");
            assert!(
                !message.contains(['\u{1b}', '\u{9b}', '\u{202e}', '\r', '\n']),
                "{message:?}"
            );
            assert_eq!(
                properties
                    .iter()
                    .map(|(k, _)| k.as_str())
                    .collect::<Vec<_>>(),
                ["type", "sourcepath", "linenumber", "columnnumber", "code"],
                "{output}"
            );
        }
        // Only the agent's escapes are undone: a literal `%3B` stays.
        let output = emit(&with_message("a;b]c %3B 100%"));
        assert!(output.ends_with("]a;b]c %AZP253B 100%AZP25\n"), "{output}");
    }

    #[test]
    fn text_from_files_is_escaped_before_the_command_is() {
        let fixture = fixtures::hostile();
        let output = emit(&fixture);
        fixtures::assert_nothing_raw(&output, false);
        let commands = parsed(&output);
        assert_eq!(commands.len(), 1);
        let (properties, message) = &commands[0];
        assert_eq!(
            properties[1],
            (
                "sourcepath".to_string(),
                format!("/work/pkg/{HOSTILE_ESCAPED}.yml")
            )
        );
        assert_eq!(
            message,
            &format!(
                "{HOSTILE_ESCAPED} is not declared in the schema\nhelp: did you mean {HOSTILE_ESCAPED}?"
            )
        );
    }

    #[test]
    fn a_value_from_a_flag_names_itself_in_the_message() {
        let sources = Sources::new();
        let file = sources.add(SourceFile::new(
            "(data-value arg)".into(),
            None,
            "port=70000".into(),
        ));
        let mut fixture = with_message("bad");
        fixture.sources = sources;
        fixture.findings[0].span = Span::new(file, 5, 10);
        assert_eq!(
            emit(&fixture),
            "##vso[task.logissue type=error;code=ytt/validation;](data-value arg):1:6: bad\n"
        );
    }
}
