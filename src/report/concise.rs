//! Concise output, as ruff's `--output-format concise`: one line per finding,
//! `file:line:column: severity[rule] message`, then the summary line. Lines
//! and columns are those of every other format; a message with line breaks
//! stays on its line (breaks become spaces), so tools can read one finding
//! per line. Text from files is escaped ([`escape`](super::escape)): a
//! control or bidirectional character shows as `\u{1b}`, a carriage return
//! among them, so none can end or overwrite the line. A finding `--fix`
//! fixes is marked `[*]` after its rule, one `--unsafe-fixes` fixes
//! `[*unsafe]`.

use super::escape;
use super::model::{Emitter, Report, locate};
use super::text::summary_lines;
use crate::finding::Applicability;
use std::io::{self, Write};

/// Writes one line per finding.
pub struct ConciseEmitter;

impl Emitter for ConciseEmitter {
    fn emit(&self, out: &mut dyn Write, report: &Report<'_>) -> io::Result<()> {
        for finding in report.findings {
            let (file, region) = locate(report.sources, finding.span);
            // Escaped first: what is left of a line break is a line feed.
            let message: String = escape::text(&finding.message)
                .split('\n')
                .filter(|part| !part.is_empty())
                .collect::<Vec<_>>()
                .join(" ");
            // As ruff marks what `--fix` fixes.
            let mark = match finding.fix.as_deref().map(|f| f.applicability) {
                Some(Applicability::Safe) => " [*]",
                Some(Applicability::Unsafe) => " [*unsafe]",
                _ => "",
            };
            writeln!(
                out,
                "{}:{}:{}: {}[{}]{mark} {message}",
                escape::line(&file.name),
                region.start.line,
                region.start.column,
                finding.severity.as_str(),
                finding.rule,
            )?;
        }
        writeln!(out, "{}", summary_lines(report))
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{self, Fixture, HOSTILE, HOSTILE_ESCAPED};
    use super::*;

    fn emit(fixture: &Fixture) -> String {
        fixture.emit(&ConciseEmitter)
    }

    #[test]
    fn findings() {
        insta::assert_snapshot!(emit(&fixtures::with_findings()));
    }

    #[test]
    fn one_line_per_finding_then_the_summary() {
        let mut fixture = fixtures::with_findings();
        fixture.findings[1].message = "two\nlines".into();
        let text = emit(&fixture);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), fixture.findings.len() + 2, "{text}");
        assert_eq!(
            lines[1], "values.yml:4:10: error[ytt/validation] two lines",
            "{text}"
        );
        assert_eq!(
            lines[lines.len() - 2],
            "6 errors, 1 warning in 5 files (2 suppressed)"
        );
        assert_eq!(lines[lines.len() - 1], "1 fixable with --unsafe-fixes");
        assert!(
            lines[2].contains("error[ytt/type-mismatch] [*unsafe] port.http"),
            "{text}"
        );
        assert_eq!(emit(&fixtures::clean()), "no problems in 5 files\n");
    }

    #[test]
    fn text_from_files_is_escaped() {
        let mut fixture = fixtures::hostile();
        let text = emit(&fixture);
        fixtures::assert_nothing_raw(&text, false);
        let column = HOSTILE.chars().count() + 3;
        assert_eq!(
            text.lines().next(),
            Some(
                format!(
                    "pkg/{HOSTILE_ESCAPED}.yml:3:{column}: error[ytt/unknown-key] [*unsafe] \
                     {HOSTILE_ESCAPED} is not declared in the schema"
                )
                .as_str()
            ),
            "{text}"
        );
        assert_eq!(text.lines().count(), 3, "{text}");

        // A carriage return neither ends the line nor goes back over it.
        fixture.findings[0].message = "fine\rerror: forged\r\nnext".into();
        let text = emit(&fixture);
        fixtures::assert_nothing_raw(&text, false);
        assert!(
            text.lines()
                .next()
                .is_some_and(|l| l.ends_with("fine\\u{d}error: forged\\u{d} next")),
            "{text}"
        );
    }
}
