//! Concise output, as ruff's `--output-format concise`: one line per finding,
//! `file:line:column: severity[rule] message`, then the summary line. Lines
//! and columns are those of every other format; a message with line breaks
//! stays on its line (breaks become spaces), so tools can read one finding
//! per line. A finding `--fix` fixes is marked `[*]` after its rule, one
//! `--unsafe-fixes` fixes `[*unsafe]`.

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
            let message: String = finding
                .message
                .split(['\r', '\n'])
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
                file.name,
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
    use super::super::fixtures::{self, Fixture};
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
}
