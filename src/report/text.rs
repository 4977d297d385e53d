//! Text output: rustc-style snippets drawn by annotate-snippets, then a
//! summary line.
//!
//! Each finding is one group: its title, a snippet of the primary file with
//! the primary span (`^^^`) and any related spans in that file (`---`), one
//! more snippet per other file holding related spans (`::: schema.yml:6:3`),
//! `= help:` when the finding has help, and last, as clippy does,
//! `= help: for further information visit <url>`: the rule's documentation. Spans go through
//! [`shown_range`](super::shown_range) first, so they are clamped, on character
//! boundaries, and never end on a line break. annotate-snippets itself
//! expands tabs (4 columns), counts wide characters and draws an empty span
//! as one `^`; each of those has a snapshot below.
//!
//! Text from the files is escaped first ([`escape`](super::escape)): the
//! message, labels, help and file names as `\u{1b}`, the snippets' lines
//! with one visible character for each hidden one (spans moved to match),
//! so nothing but confvet's own colours reaches the terminal.
//!
//! Only display names appear, never a file's path on disk.

use super::escape::{self, SnippetSource};
use super::model::{Emitter, Report, fixable_line, plural, shown_range};
use crate::finding::{Applicability, Finding, Severity};
use crate::rules;
use crate::source::{FileId, SourceFile, Sources};
use annotate_snippets::{AnnotationKind, Group, Level, Origin, Renderer, Snippet};
use std::borrow::Cow;
use std::io::{self, Write};
use std::sync::Arc;

/// Renders findings for a terminal; `color` turns on ANSI styles.
pub struct TextEmitter {
    pub color: bool,
}

impl Emitter for TextEmitter {
    fn emit(&self, out: &mut dyn Write, report: &Report<'_>) -> io::Result<()> {
        let renderer = if self.color {
            Renderer::styled()
        } else {
            Renderer::plain()
        };
        for finding in report.findings {
            let rendered = render_finding(&renderer, finding, report.sources);
            writeln!(out, "{rendered}\n")?;
        }
        writeln!(out, "{}", summary_lines(report))
    }
}

/// One finding as annotate-snippets draws it.
fn render_finding(renderer: &Renderer, finding: &Finding, sources: &Sources) -> String {
    // The files' texts must outlive the group that borrows them: the primary
    // file first, then every other file in the order its first related span
    // comes.
    let mut files: Vec<(FileId, Arc<SourceFile>)> =
        vec![(finding.span.file, sources.get(finding.span.file))];
    for related in &finding.related {
        if !files.iter().any(|(id, _)| *id == related.span.file) {
            files.push((related.span.file, sources.get(related.span.file)));
        }
    }
    // What is drawn of each file: its name and its text, escaped.
    let shown: Vec<(Cow<'_, str>, SnippetSource<'_>)> = files
        .iter()
        .map(|(_, file)| (escape::line(&file.name), SnippetSource::new(&file.text)))
        .collect();
    let message = escape::text(&finding.message);
    let label = finding.label.as_deref().map(escape::line);
    let related_labels: Vec<Cow<'_, str>> = finding
        .related
        .iter()
        .map(|related| escape::line(&related.message))
        .collect();

    let level = match finding.severity {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
    };
    let mut group = Group::with_title(level.primary_title(message.as_ref()).id(finding.rule));
    for (index, ((id, file), (name, source))) in files.iter().zip(&shown).enumerate() {
        // A place with no text to show (a symbolic link not followed):
        // where it is, without an empty snippet.
        let nothing_to_mark = finding.label.is_none() || index > 0;
        if file.text.is_empty()
            && nothing_to_mark
            && !finding.related.iter().any(|r| r.span.file == *id)
        {
            group = group.element(Origin::path(name.as_ref()).line(1).char_column(1));
            continue;
        }
        // A span of the file, where it is in the shown text.
        let shown_span = |span| {
            let range = shown_range(&file.text, span);
            source.offset(range.start)..source.offset(range.end)
        };
        let mut snippet = Snippet::source(source.text.as_ref())
            .line_start(1)
            .path(name.as_ref());
        if index == 0 {
            let mut primary = AnnotationKind::Primary.span(shown_span(finding.span));
            if let Some(label) = &label {
                primary = primary.label(label.as_ref());
            }
            snippet = snippet.annotation(primary);
        }
        for (related, label) in finding.related.iter().zip(&related_labels) {
            if related.span.file != *id {
                continue;
            }
            let mut context = AnnotationKind::Context.span(shown_span(related.span));
            if !label.is_empty() {
                context = context.label(label.as_ref());
            }
            snippet = snippet.annotation(context);
        }
        group = group.element(snippet);
    }
    let fix = finding.fix.as_deref();
    // A fix that writes what the help already says is shown on its line.
    let fix_says_help = fix.is_some_and(|fix| finding.help.as_deref() == Some(&fix.message));
    let fix_line = fix.map(|fix| format!("{} {}", fix.message, fix_note(fix.applicability)));
    let help = match (&finding.help, fix_line) {
        (_, Some(line)) if fix_says_help => vec![line],
        (Some(help), Some(line)) => vec![help.clone(), format!("fix: {line}")],
        (None, Some(line)) => vec![format!("fix: {line}")],
        (Some(help), None) => vec![help.clone()],
        (None, None) => Vec::new(),
    };
    for line in help {
        group = group.element(Level::HELP.message(escape::text(&line).into_owned()));
    }
    // As clippy does: where the rule is documented, last.
    group = group.element(Level::HELP.message(format!(
        "for further information visit {}",
        rules::doc_url(finding.rule)
    )));
    renderer.render(&[group])
}

/// How a fix is applied, after its message.
fn fix_note(applicability: Applicability) -> &'static str {
    match applicability {
        Applicability::Safe => "[fixable with --fix]",
        Applicability::Unsafe => "[fixable with --unsafe-fixes]",
        Applicability::DisplayOnly => "[a suggestion: not applied by --fix]",
    }
}

/// The summary line, and under it how many findings `--fix` and
/// `--unsafe-fixes` fix, when any.
pub(super) fn summary_lines(report: &Report<'_>) -> String {
    let mut lines = summary_line(report);
    if let Some(fixable) = fixable_line(report.findings) {
        lines.push('\n');
        lines.push_str(&fixable);
    }
    lines
}

/// `6 errors, 1 warning in 5 files (2 suppressed)` or `no problems in 5 files`.
pub(super) fn summary_line(report: &Report<'_>) -> String {
    let summary = report.summary;
    let files = plural(summary.files, "file");
    let mut line = if summary.errors == 0 && summary.warnings == 0 {
        format!("no problems in {files}")
    } else {
        format!(
            "{}, {} in {files}",
            plural(summary.errors, "error"),
            plural(summary.warnings, "warning"),
        )
    };
    if summary.suppressed > 0 {
        line.push_str(&format!(" ({} suppressed)", summary.suppressed));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{self, Fixture, HOSTILE, HOSTILE_ESCAPED, HOSTILE_PICTURED};
    use super::*;
    use crate::report::Summary;

    fn render(fixture: &Fixture) -> String {
        let mut out = Vec::new();
        TextEmitter { color: false }
            .emit(&mut out, &fixture.report())
            .unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn findings() {
        insta::assert_snapshot!(render(&fixtures::with_findings()));
    }

    #[test]
    fn clean_run() {
        insta::assert_snapshot!(render(&fixtures::clean()));
    }

    #[test]
    fn no_colour_codes_without_color_but_some_with_it() {
        let fixture = fixtures::with_findings();
        assert!(!render(&fixture).contains('\x1b'));
        let mut out = Vec::new();
        TextEmitter { color: true }
            .emit(&mut out, &fixture.report())
            .unwrap();
        assert!(String::from_utf8(out).unwrap().contains('\x1b'));
    }

    #[test]
    fn never_shows_paths_on_disk() {
        let text = render(&fixtures::with_findings());
        assert!(!text.contains("/work/pkg"), "{text}");
    }

    #[test]
    fn summary_counts_are_singular_or_plural() {
        let mut fixture = fixtures::single("a.yml", "a: 1\n", 3, 4);
        let last_line = |fixture: &Fixture| render(fixture).lines().last().unwrap().to_string();
        assert_eq!(last_line(&fixture), "1 error, 0 warnings in 1 file");
        fixture.summary = Summary {
            files: 2,
            errors: 0,
            warnings: 1,
            suppressed: 1,
            ..fixture.summary
        };
        assert_eq!(
            last_line(&fixture),
            "0 errors, 1 warning in 2 files (1 suppressed)"
        );
        fixture.findings.clear();
        fixture.summary = Summary {
            files: 1,
            warnings: 0,
            suppressed: 3,
            ..fixture.summary
        };
        assert_eq!(last_line(&fixture), "no problems in 1 file (3 suppressed)");
    }

    #[test]
    fn empty_span_at_end_of_file() {
        let text = "a:\n  b: [1, 2\n";
        insta::assert_snapshot!(render(&fixtures::single(
            "a.yml",
            text,
            text.len(),
            text.len()
        )));
    }

    #[test]
    fn empty_span_at_end_of_file_without_line_break() {
        let text = "a:\n  b: [1, 2";
        insta::assert_snapshot!(render(&fixtures::single(
            "a.yml",
            text,
            text.len(),
            text.len()
        )));
    }

    #[test]
    fn file_level_finding() {
        insta::assert_snapshot!(render(&fixtures::single("a.yml", "a: 1\nb: 2\n", 0, 0)));
    }

    #[test]
    fn empty_file() {
        insta::assert_snapshot!(render(&fixtures::single("a.yml", "", 0, 0)));
    }

    #[test]
    fn span_of_a_line_break_only() {
        insta::assert_snapshot!(render(&fixtures::single("a.yml", "a: 1\nb: 2\n", 4, 5)));
    }

    #[test]
    fn span_after_a_tab() {
        let text = "a:\t[1, 2]\n";
        let start = text.find('[').unwrap();
        insta::assert_snapshot!(render(&fixtures::single("a.yml", text, start, start + 6)));
    }

    #[test]
    fn multibyte_characters() {
        // Wide (CJK) and two-byte characters before and inside the span.
        let text = "名前: \"zoë\"\n";
        let start = text.find('"').unwrap();
        insta::assert_snapshot!(render(&fixtures::single(
            "a.yml",
            text,
            start,
            text.len() - 1
        )));
    }

    #[test]
    fn span_inside_a_multibyte_character_is_widened() {
        let text = "a: é\n";
        insta::assert_snapshot!(render(&fixtures::single("a.yml", text, 4, 4)));
    }

    #[test]
    fn control_characters() {
        insta::assert_snapshot!(render(&fixtures::single("a.yml", "a: \"\u{7}x\"\n", 3, 7)));
    }

    #[test]
    fn crlf_line_breaks() {
        insta::assert_snapshot!(render(&fixtures::single(
            "a.yml",
            "a: 1\r\nb: 2\r\n",
            9,
            12
        )));
    }

    #[test]
    fn span_over_several_lines() {
        insta::assert_snapshot!(render(&fixtures::single(
            "a.yml",
            "a:\n  b: 1\n  c: 2\n",
            0,
            17
        )));
    }

    #[test]
    fn span_beyond_the_end_is_clamped() {
        insta::assert_snapshot!(render(&fixtures::single("a.yml", "a: 1\n", 3, 1000)));
        insta::assert_snapshot!(
            "span_beyond_the_end_is_clamped_empty",
            render(&fixtures::single("a.yml", "a: 1\n", 900, 1000))
        );
    }

    #[test]
    fn each_finding_ends_with_its_rules_documentation() {
        let text = render(&fixtures::with_findings());
        let findings: Vec<&str> = text.split("\n\n").collect();
        assert_eq!(findings.len(), 8, "{text}");
        for finding in &findings[..7] {
            let rule = finding
                .split_once('[')
                .and_then(|(_, rest)| rest.split_once(']'))
                .map(|(rule, _)| rule)
                .unwrap();
            let last = finding.lines().last().unwrap().trim_start();
            assert_eq!(
                last,
                format!(
                    "= help: for further information visit {}",
                    rules::doc_url(rule)
                ),
                "{finding}"
            );
        }
    }

    #[test]
    fn text_from_files_is_escaped() {
        let fixture = fixtures::hostile();
        let plain = render(&fixture);
        fixtures::assert_nothing_raw(&plain, false);
        // The message, file name, label, related message, help, fix and
        // snippet.
        for shown in [
            format!("error[ytt/unknown-key]: {HOSTILE_ESCAPED} is not declared\n"),
            format!("--> pkg/{HOSTILE_ESCAPED}.yml:3:"),
            format!("value of {HOSTILE_ESCAPED}\n"),
            format!("key {HOSTILE_ESCAPED}\n"),
            format!("= help: did you mean {HOSTILE_ESCAPED}?\n"),
            format!("= help: fix: rename {HOSTILE_ESCAPED} [fixable with --unsafe-fixes]\n"),
            format!("3 | {HOSTILE_PICTURED}: oops\n"),
        ] {
            assert!(plain.contains(&shown), "{shown}\nnot in\n{plain}");
        }
        insta::assert_snapshot!(plain);

        // With colours, confvet's own codes are the only escape sequences.
        let mut out = Vec::new();
        TextEmitter { color: true }
            .emit(&mut out, &fixture.report())
            .unwrap();
        let coloured = String::from_utf8(out).unwrap();
        fixtures::assert_nothing_raw(&coloured, true);
        assert!(coloured.contains("\u{1b}["), "{coloured}");
        assert!(coloured.contains(HOSTILE_ESCAPED), "{coloured}");
    }

    #[test]
    fn underlines_point_at_escaped_text() {
        let plain = render(&fixtures::hostile());
        let lines: Vec<&str> = plain.lines().collect();
        let source = lines
            .iter()
            .position(|l| l.starts_with("3 | "))
            .unwrap_or_else(|| panic!("no line 3:\n{plain}"));
        let (source, underline) = (lines[source], lines[source + 1]);
        // Columns on the screen: every character here is one column wide.
        let column = |line: &str, needle: &str| {
            let at = line
                .find(needle)
                .unwrap_or_else(|| panic!("{needle:?} not in {line:?}\n{plain}"));
            line[..at].chars().count()
        };
        assert_eq!(column(underline, "^"), column(source, "oops"), "{plain}");
        assert_eq!(column(underline, "^^^^ "), column(underline, "^"));
        // `---` under the whole key, one column for each of its characters.
        assert_eq!(column(underline, "-"), column(source, "␛]0;"), "{plain}");
        let dashes = underline.chars().filter(|&c| c == '-').count();
        assert_eq!(dashes, HOSTILE.chars().count(), "{plain}");
        // The header names the column every other format names.
        let fixture = fixtures::hostile();
        let (_, region) = crate::report::locate(&fixture.sources, fixture.findings[0].span);
        let oops = HOSTILE.chars().count() + 3;
        assert_eq!(region.start.column, oops);
        assert!(plain.contains(&format!(".yml:3:{oops}\n")), "{plain}");
    }

    #[test]
    fn pseudo_file() {
        insta::assert_snapshot!(render(&fixtures::single(
            "(data-value arg)",
            "port=70000",
            5,
            10
        )));
    }
}
