//! GitHub Actions output: one workflow command per finding, which GitHub
//! shows as an annotation on the file and line.
//!
//! `::error file=F,line=L,col=C,endLine=EL,endColumn=EC,title=RULE::MESSAGE`
//! (`::warning` for warnings); a span over several lines gives only
//! `line` and `endLine`, since the runner takes columns only within one line.
//! The help, if any, follows the message on its own line. A source that is not a file on disk, such as `(data-value arg)`,
//! gets no `file` and position: its name and position start the message.
//! GitHub parses these commands itself, so everything is escaped as its
//! runner does (`toCommandValue`/`escapeData` in actions/toolkit): in the
//! message `%`, CR and LF; in property values also `:` and `,`. Before
//! that, text from files is made visible ([`escape`](super::escape)): a
//! control or bidirectional character, CR included, becomes `\u{1b}`, which
//! has no `%`, `:` or `,`, so the command escapes still apply to all of it
//! and nothing can end the command or start another. (A file whose name
//! holds such a character is named escaped, so GitHub shows its annotation
//! on the run, not on the file.) A clean run writes nothing.
//!
//! GitHub shows at most 10 error and 10 warning annotations per step and
//! drops the rest without a word, so the first 10 of each are written and
//! one `::notice` then says how many more there are and where to see them.

use super::escape;
use super::model::{Emitter, Report, locate, plural};
use crate::finding::Severity;
use std::io::{self, Write};

/// GitHub's limit of annotations per severity and step.
pub const MAX_ANNOTATIONS: usize = 10;

/// Writes GitHub Actions annotations.
pub struct GithubEmitter;

impl Emitter for GithubEmitter {
    fn emit(&self, out: &mut dyn Write, report: &Report<'_>) -> io::Result<()> {
        let (mut errors, mut warnings) = (0, 0);
        for finding in report.findings {
            let (command, written) = match finding.severity {
                Severity::Error => ("error", &mut errors),
                Severity::Warning => ("warning", &mut warnings),
            };
            *written += 1;
            if *written > MAX_ANNOTATIONS {
                continue;
            }
            let (file, region) = locate(report.sources, finding.span);
            let mut message = String::new();
            let mut properties = String::new();
            if file.path.is_some() && region.start.line == region.end.line {
                properties = format!(
                    "file={},line={},col={},endLine={},endColumn={},",
                    escape_property(&escape::line(&file.name)),
                    region.start.line,
                    region.start.column,
                    region.end.line,
                    region.end.column,
                );
            } else if file.path.is_some() {
                // The runner drops the columns of an annotation over several
                // lines (or rejects `col` with `endLine`): lines only.
                properties = format!(
                    "file={},line={},endLine={},",
                    escape_property(&escape::line(&file.name)),
                    region.start.line,
                    region.end.line,
                );
            } else {
                // Not a file in the repository (a command-line data value):
                // GitHub could attach the annotation to nothing, so it goes on
                // the run, and the message says where.
                message = format!(
                    "{}:{}:{}: ",
                    escape::line(&file.name),
                    region.start.line,
                    region.start.column
                );
            }
            // Made visible first, then escaped for the command.
            message.push_str(&escape::text(&finding.message));
            if let Some(help) = &finding.help {
                message.push_str("\nhelp: ");
                message.push_str(&escape::text(help));
            }
            writeln!(
                out,
                "::{command} {properties}title={}::{}",
                escape_property(finding.rule),
                escape_data(&message),
            )?;
        }
        let hidden_errors = errors.saturating_sub(MAX_ANNOTATIONS);
        let hidden_warnings = warnings.saturating_sub(MAX_ANNOTATIONS);
        if hidden_errors + hidden_warnings > 0 {
            let message = format!(
                "{} ({}, {}) are not shown as annotations: GitHub shows \
                 {MAX_ANNOTATIONS} errors and {MAX_ANNOTATIONS} warnings per step. \
                 The job summary, the code scanning alerts (SARIF) and the text \
                 output list every finding.",
                plural(hidden_errors + hidden_warnings, "more finding"),
                plural(hidden_errors, "error"),
                plural(hidden_warnings, "warning"),
            );
            writeln!(out, "::notice title=confvet::{}", escape_data(&message))?;
        }
        Ok(())
    }
}

/// A command's message: `%` first, so the escapes themselves survive.
fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A command's property value: as a message, plus the separators `:` and `,`.
fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{self, Fixture, HOSTILE, HOSTILE_ESCAPED};
    use super::*;
    use crate::finding::Finding;
    use crate::source::{SourceFile, Sources, Span};

    fn emit(fixture: &Fixture) -> String {
        fixture.emit(&GithubEmitter)
    }

    #[test]
    fn findings() {
        insta::assert_snapshot!(emit(&fixtures::with_findings()));
    }

    #[test]
    fn at_most_ten_errors_and_ten_warnings_then_a_notice() {
        let output = emit(&fixtures::many(12, 11));
        let count = |prefix: &str| output.lines().filter(|l| l.starts_with(prefix)).count();
        assert_eq!(count("::error "), MAX_ANNOTATIONS, "{output}");
        assert_eq!(count("::warning "), MAX_ANNOTATIONS, "{output}");
        assert_eq!(count("::notice "), 1, "{output}");
        insta::assert_snapshot!(output);
    }

    #[test]
    fn no_notice_when_every_finding_is_shown() {
        let output = emit(&fixtures::many(MAX_ANNOTATIONS, MAX_ANNOTATIONS));
        assert_eq!(output.lines().count(), 2 * MAX_ANNOTATIONS, "{output}");
        assert!(!output.contains("::notice"), "{output}");
    }

    #[test]
    fn clean_run_writes_nothing() {
        assert_eq!(emit(&fixtures::clean()), "");
    }

    #[test]
    fn escapes_messages_and_properties() {
        assert_eq!(
            escape_data("100% done\r\nnext: a, b"),
            "100%25 done%0D%0Anext: a, b"
        );
        assert_eq!(
            escape_property("dir,1/a:b%.yml\n"),
            "dir%2C1/a%3Ab%25.yml%0A"
        );
        // `%` is escaped first: an existing `%0A` must not turn into a line break.
        assert_eq!(escape_data("%0A"), "%250A");
    }

    #[test]
    fn escapes_a_whole_command() {
        let sources = Sources::new();
        let file = sources.add(SourceFile::new(
            "a,b:c.yml".into(),
            Some("a,b:c.yml".into()),
            "x: 1\n".into(),
        ));
        let finding = Finding::new(
            &crate::rules::ytt::VALIDATION,
            Span::new(file, 3, 4),
            "x: 100% wrong,\nreally",
        )
        .with_help("use 50%");
        let mut fixture = fixtures::clean();
        fixture.sources = sources;
        fixture.findings = vec![finding];
        assert_eq!(
            emit(&fixture),
            "::error file=a%2Cb%3Ac.yml,line=1,col=4,endLine=1,endColumn=5,\
             title=ytt/validation::x: 100%25 wrong,%0Areally%0Ahelp: use 50%25\n"
        );
    }

    #[test]
    fn text_from_files_is_escaped_before_the_command_is() {
        let mut fixture = fixtures::hostile();
        let out = emit(&fixture);
        fixtures::assert_nothing_raw(&out, false);
        let column = HOSTILE.chars().count() + 3;
        // The file name as a property (`https:` gets its `%3A`), the message
        // and help with line feeds as `%0A`.
        assert_eq!(
            out,
            format!(
                "::error file={},line=3,col={column},endLine=3,endColumn={},\
                 title=ytt/unknown-key::{HOSTILE_ESCAPED} is not declared%0Ain the schema\
                 %0Ahelp: did you mean {HOSTILE_ESCAPED}?\n",
                escape_property(&format!("pkg/{HOSTILE_ESCAPED}.yml")),
                column + 4,
            )
        );
        assert!(out.contains("file=pkg/\\u{1b}]0;pwned\\u{7}"), "{out}");

        // A carriage return, a line feed, `%` and `::` in a message stay in
        // the one command: the CR shown as `\u{d}`, then `%` escaped before
        // the line feed is.
        fixture.findings[0].message = "x\r::error::forged\u{1b}[2K\n%0A::warning::y".into();
        fixture.findings[0].help = None;
        let out = emit(&fixture);
        fixtures::assert_nothing_raw(&out, false);
        assert_eq!(out.lines().count(), 1, "{out}");
        assert!(
            out.ends_with("::x\\u{d}::error::forged\\u{1b}[2K%0A%250A::warning::y\n"),
            "{out}"
        );

        // A source that is not a file names itself in the message.
        let sources = Sources::new();
        let file = sources.add(SourceFile::new(HOSTILE.into(), None, "x: 1\n".into()));
        fixture.sources = sources;
        fixture.findings = vec![Finding::new(
            &crate::rules::ytt::VALIDATION,
            Span::new(file, 3, 4),
            "bad",
        )];
        let out = emit(&fixture);
        fixtures::assert_nothing_raw(&out, false);
        assert_eq!(
            out,
            format!("::error title=ytt/validation::{HOSTILE_ESCAPED}:1:4: bad\n")
        );
    }

    #[test]
    fn a_span_over_several_lines_has_lines_but_no_columns() {
        let mut fixture = fixtures::single("a.yml", "a:\n  b: 1\n  c: 2\n", 0, 17);
        fixture.sources = Sources::new();
        let file = fixture.sources.add(SourceFile::new(
            "a.yml".into(),
            Some("a.yml".into()),
            "a:\n  b: 1\n  c: 2\n".into(),
        ));
        fixture.findings[0].span = Span::new(file, 0, 17);
        assert_eq!(
            emit(&fixture),
            "::error file=a.yml,line=1,endLine=3,title=yaml/syntax::edge case\n"
        );
        fixture.findings[0].span = Span::new(file, 5, 9);
        assert_eq!(
            emit(&fixture),
            "::error file=a.yml,line=2,col=3,endLine=2,endColumn=7,title=yaml/syntax::edge case\n"
        );
    }
}
