//! Markdown output, for a CI job summary (`$GITHUB_STEP_SUMMARY`) or a pull
//! request comment: a heading with the counts, then one table row per
//! finding (severity, rule, file:line:column, message and help).
//!
//! Text from files is first made visible ([`escape`](super::escape)): a
//! control or bidirectional character shows as `\u{1b}` (written `\\u{1b}`
//! in the Markdown), in the table as in a log that prints the file. Cells are
//! then escaped so that no text of a finding can change the table: Markdown
//! punctuation that could start emphasis, code, a link or HTML gets a
//! backslash (`|` too, which would end the cell), and line breaks become
//! `<br>`. The table stops after [`MAX_ROWS`] rows, or before a row that
//! would take the output past [`MAX_BYTES`] (GitHub's limit for a step
//! summary is 1 MiB, and it drops a larger one whole; bytes are counted as
//! they are written), and then says how many findings it leaves out.

use super::escape;
use super::model::{Emitter, Report, fixable_line, locate, plural};
use super::text::summary_line;
use crate::finding::Severity;
use std::io::{self, Write};

/// Rows shown before the table is cut short.
pub const MAX_ROWS: usize = 100;

/// The most bytes written: GitHub's step summary limit, 1 MiB.
pub const MAX_BYTES: usize = 1024 * 1024;

/// Room kept for the closing note on findings left out.
const NOTE_BYTES: usize = 256;

/// Writes a Markdown summary with at most `max_rows` table rows and
/// `max_bytes` bytes.
pub struct MarkdownEmitter {
    pub max_rows: usize,
    pub max_bytes: usize,
}

impl Emitter for MarkdownEmitter {
    fn emit(&self, out: &mut dyn Write, report: &Report<'_>) -> io::Result<()> {
        let mut out = Counted { out, bytes: 0 };
        out.write(&format!("### confvet: {}\n", summary_line(report)))?;
        if report.findings.is_empty() {
            return Ok(());
        }
        out.write("\n| Severity | Rule | Location | Message |\n| --- | --- | --- | --- |\n")?;
        let mut shown = 0;
        for finding in report.findings.iter().take(self.max_rows) {
            let (file, region) = locate(report.sources, finding.span);
            let mut message = escape::text(&finding.message).into_owned();
            if let Some(help) = &finding.help {
                message.push_str("\nhelp: ");
                message.push_str(&escape::text(help));
            }
            let row = format!(
                "| {} | `{}` | {} | {} |\n",
                finding.severity.as_str(),
                finding.rule,
                escape_cell(&format!(
                    "{}:{}:{}",
                    escape::line(&file.name),
                    region.start.line,
                    region.start.column
                )),
                escape_cell(&message),
            );
            if out.bytes + row.len() + NOTE_BYTES > self.max_bytes {
                break;
            }
            out.write(&row)?;
            shown += 1;
        }
        let hidden = &report.findings[shown..];
        if !hidden.is_empty() {
            let errors = hidden
                .iter()
                .filter(|f| f.severity == Severity::Error)
                .count();
            out.write(&format!(
                "\n…and {} more ({}, {}); `confvet lint` lists every finding.\n",
                hidden.len(),
                plural(errors, "error"),
                plural(hidden.len() - errors, "warning"),
            ))?;
        }
        if let Some(fixable) = fixable_line(report.findings) {
            out.write(&format!(
                "\n{fixable} (`confvet lint --diff` shows what they change).\n"
            ))?;
        }
        Ok(())
    }
}

/// A writer that counts the bytes written through it.
struct Counted<'w> {
    out: &'w mut dyn Write,
    bytes: usize,
}

impl Counted<'_> {
    fn write(&mut self, text: &str) -> io::Result<()> {
        self.bytes += text.len();
        self.out.write_all(text.as_bytes())
    }
}

/// Text made safe for a table cell: punctuation that Markdown or HTML could
/// read as syntax is backslash-escaped, line breaks become `<br>`.
fn escape_cell(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '~' | '&' | '#' | '!' => {
                escaped.push('\\');
                escaped.push(c);
            }
            '\r' => {
                chars.next_if_eq(&'\n');
                escaped.push_str("<br>");
            }
            '\n' => escaped.push_str("<br>"),
            _ => escaped.push(c),
        }
    }
    escaped
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{self, Fixture, HOSTILE, HOSTILE_ESCAPED};
    use super::*;

    fn render(fixture: &Fixture, max_rows: usize) -> String {
        let mut out = Vec::new();
        MarkdownEmitter {
            max_rows,
            max_bytes: MAX_BYTES,
        }
        .emit(&mut out, &fixture.report())
        .unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn findings() {
        insta::assert_snapshot!(render(&fixtures::with_findings(), MAX_ROWS));
    }

    #[test]
    fn clean_run() {
        insta::assert_snapshot!(render(&fixtures::clean(), MAX_ROWS));
    }

    #[test]
    fn rows_are_capped_and_the_rest_counted() {
        insta::assert_snapshot!(render(&fixtures::many(3, 2), 2));
    }

    #[test]
    fn a_long_run_stops_at_the_default_cap() {
        let text = render(&fixtures::many(MAX_ROWS, 5), MAX_ROWS);
        let rows = text
            .lines()
            .filter(|l| l.starts_with("| error |") || l.starts_with("| warning |"))
            .count();
        assert_eq!(rows, MAX_ROWS, "{text}");
        assert!(
            text.ends_with(
                "…and 5 more (0 errors, 5 warnings); `confvet lint` lists every finding.\n"
            ),
            "{text}"
        );
    }

    #[test]
    fn a_summary_stays_under_githubs_limit_and_counts_what_it_cuts() {
        // 100 rows of 20 KB each would be 2 MB.
        let mut fixture = fixtures::many(60, 40);
        for finding in &mut fixture.findings {
            finding.message = "x".repeat(20_000);
        }
        let mut out = Vec::new();
        MarkdownEmitter {
            max_rows: MAX_ROWS,
            max_bytes: MAX_BYTES,
        }
        .emit(&mut out, &fixture.report())
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.len() <= MAX_BYTES, "{} bytes", text.len());
        let rows = text.lines().filter(|l| l.starts_with("| error |")).count();
        assert_eq!(rows, 52, "as many rows as fit");
        assert!(
            text.ends_with(
                "…and 48 more (8 errors, 40 warnings); `confvet lint` lists every finding.\n"
            ),
            "{}",
            &text[text.len() - 200..]
        );

        // A tiny budget still gets the heading and the note.
        let mut out = Vec::new();
        MarkdownEmitter {
            max_rows: MAX_ROWS,
            max_bytes: 400,
        }
        .emit(&mut out, &fixture.report())
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.len() <= 400 + 100, "{text}");
        assert!(
            text.contains("…and 100 more (60 errors, 40 warnings)"),
            "{text}"
        );
    }

    #[test]
    fn text_from_files_is_escaped() {
        let text = render(&fixtures::hostile(), MAX_ROWS);
        fixtures::assert_nothing_raw(&text, false);
        let column = HOSTILE.chars().count() + 3;
        let row = text
            .lines()
            .find(|l| l.starts_with("| error |"))
            .unwrap_or_else(|| panic!("no row:\n{text}"));
        assert_eq!(
            row,
            format!(
                "| error | `ytt/unknown-key` | {} | {} |",
                escape_cell(&format!("pkg/{HOSTILE_ESCAPED}.yml:3:{column}")),
                escape_cell(&format!(
                    "{HOSTILE_ESCAPED} is not declared\nin the schema\n\
                     help: did you mean {HOSTILE_ESCAPED}?"
                )),
            )
        );
        // Rendered, the backslash of each escape shows.
        assert!(row.contains(r"\\u{1b}\]0;pwned\\u{7}"), "{row}");
    }

    #[test]
    fn nothing_in_a_finding_breaks_the_table() {
        assert_eq!(escape_cell("a | b"), r"a \| b");
        assert_eq!(
            escape_cell("one\r\ntwo\nthree\rfour"),
            "one<br>two<br>three<br>four"
        );
        assert_eq!(
            escape_cell("<script> *x* `y` [l](u) a\\b &amp;"),
            r"\<script\> \*x\* \`y\` \[l\](u) a\\b \&amp;"
        );
        // Letters, digits, quotes and non-ASCII text stay as they are.
        assert_eq!(
            escape_cell("équipe: \"naïve\" <= 5"),
            "équipe: \"naïve\" \\<= 5"
        );
    }
}
