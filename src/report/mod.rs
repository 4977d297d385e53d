//! Reports: one emitter per output format behind [`Emitter`]. An emitter gets
//! the complete, sorted list of findings and a small context and writes to
//! any writer. Emitters know `finding`, `rules` and `source`; never how a
//! finding was found. The formats people and CI logs read pass the text that
//! comes from files through `escape` first.

use logging_commands::{InertHash, WithoutLoggingCommands};
pub(crate) use model::locate;
pub use model::{CheckedUnit, Emitter, Report, RunError, Summary, plural};
use std::io::{self, Write};

mod azure;
mod concise;
mod escape;
mod github;
mod gitlab;
mod json;
mod junit;
mod logging_commands;
mod markdown;
mod model;
mod rdjson;
mod sarif;
mod statistics;
mod text;

/// The output formats of `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// rustc-style snippets with a summary line
    Text,
    /// one line per finding (file:line:col: severity[rule] message), then the summary line
    Concise,
    /// the versioned JSON report (its fields: docs/output.md)
    Json,
    /// JUnit XML, one testsuite per file
    Junit,
    /// SARIF 2.1.0 for code scanning
    Sarif,
    /// GitHub Actions workflow commands (annotations)
    Github,
    /// a Markdown table, for a CI job summary
    Markdown,
    /// GitLab Code Quality report (JSON), for a `codequality` artifact
    Gitlab,
    /// Azure Pipelines logging commands (##vso[task.logissue])
    Azure,
    /// reviewdog's rdjson, with fixes as suggested changes
    Rdjson,
}

/// How the formats for people (text, concise) are written, from flags and
/// the environment; the other formats ignore it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Style {
    /// ANSI colours (text only).
    pub color: bool,
    /// Standard output is read by a GitHub Actions runner
    /// (`GITHUB_ACTIONS=true`): workflow commands in it are turned off, so
    /// that text from a linted file (`::add-mask::`, `::error::`) is never
    /// run as one.
    pub github_actions: bool,
    /// Standard output is read by an Azure Pipelines agent (`TF_BUILD` is
    /// `True`), which runs a `##vso[` command found anywhere in a line:
    /// every format but `azure` (whose commands are the point) has them
    /// made inert, so that no linted file can spell one out.
    pub azure_pipelines: bool,
    /// `--statistics`: counts per rule instead of the findings.
    pub statistics: bool,
}

impl Style {
    /// Text for standard error, which CI runners read for commands as they
    /// read standard output. It may hold what came from the repository (a
    /// file name, a message quoting a file): every control and
    /// bidirectional character but tab and line feed is shown escaped;
    /// under Azure Pipelines no `##vso[` or `##[` is left in it; under
    /// GitHub Actions no line of it starts with `::`, the first `:`
    /// written `\u{3a}` (a file name with a line break cannot start one).
    pub fn log_text(&self, text: &str) -> String {
        let shown = escape::text(text);
        let shown = if self.azure_pipelines {
            logging_commands::neutralize(&shown, InertHash::Text).into_owned()
        } else {
            shown.into_owned()
        };
        if !self.github_actions {
            return shown;
        }
        let lines: Vec<String> = shown
            .split('\n')
            .map(|line| {
                let indent = line.len() - line.trim_start().len();
                if line[indent..].starts_with("::") {
                    format!("{}\\u{{3a}}{}", &line[..indent], &line[indent + 1..])
                } else {
                    line.to_string()
                }
            })
            .collect();
        lines.join("\n")
    }
}

impl Format {
    /// The emitter for this format, written in `style`.
    pub fn emitter(self, style: Style) -> Box<dyn Emitter> {
        let mut emitter: Box<dyn Emitter> = match self {
            // Counts replace the findings of the formats people read; a
            // machine format keeps its findings (`--format sarif
            // --statistics -o x.sarif` must still be SARIF).
            Format::Text | Format::Concise if style.statistics => {
                Box::new(statistics::StatisticsEmitter)
            }
            Format::Text => Box::new(text::TextEmitter { color: style.color }),
            Format::Concise => Box::new(concise::ConciseEmitter),
            Format::Json => Box::new(json::JsonEmitter),
            Format::Junit => Box::new(junit::JunitEmitter),
            Format::Sarif => Box::new(sarif::SarifEmitter),
            Format::Github => Box::new(github::GithubEmitter),
            Format::Markdown => Box::new(markdown::MarkdownEmitter {
                max_rows: markdown::MAX_ROWS,
                max_bytes: markdown::MAX_BYTES,
            }),
            Format::Gitlab => Box::new(gitlab::GitlabEmitter),
            Format::Azure => Box::new(azure::AzureEmitter),
            Format::Rdjson => Box::new(rdjson::RdjsonEmitter),
        };
        if style.azure_pipelines
            && let Some(hash) = self.inert_hash()
        {
            emitter = Box::new(WithoutLoggingCommands {
                inner: emitter,
                hash,
            });
        }
        // Machine formats are not wrapped: GitHub must still run the
        // annotations, and no other format puts `::` at a line's start.
        if style.github_actions && matches!(self, Format::Text | Format::Concise) {
            emitter = Box::new(WithoutWorkflowCommands(emitter));
        }
        emitter
    }

    /// How this format writes a `#` an Azure Pipelines agent does not read
    /// as one; None for `azure`, whose own commands must run (its messages
    /// are made inert by the emitter).
    fn inert_hash(self) -> Option<InertHash> {
        match self {
            Format::Text | Format::Concise | Format::Github => Some(InertHash::Text),
            Format::Json | Format::Sarif | Format::Gitlab | Format::Rdjson => Some(InertHash::Json),
            Format::Junit | Format::Markdown => Some(InertHash::Markup),
            Format::Azure => None,
        }
    }
}

/// Wraps an emitter's output in `::stop-commands::TOKEN` ... `::TOKEN::`, as
/// GitHub documents for printing untrusted text: the runner runs no workflow
/// command in between. The token is random, so no file can end the block.
struct WithoutWorkflowCommands(Box<dyn Emitter>);

impl Emitter for WithoutWorkflowCommands {
    fn emit(&self, out: &mut dyn Write, report: &Report<'_>) -> io::Result<()> {
        let token = random_token();
        writeln!(out, "::stop-commands::{token}")?;
        self.0.emit(out, report)?;
        writeln!(out, "::{token}::")
    }
}

/// 128 random bits as hex, from the standard library's randomly seeded
/// hasher (seeded anew for each `RandomState`) and the clock.
fn random_token() -> String {
    use std::hash::{BuildHasher, Hasher};
    let half = |salt: u64| {
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u64(salt);
        if let Ok(now) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
            hasher.write_u128(now.as_nanos());
        }
        hasher.write_u32(std::process::id());
        hasher.finish()
    };
    format!("{:016x}{:016x}", half(1), half(2))
}

#[cfg(test)]
pub(crate) mod fixtures;

#[cfg(test)]
mod tests {
    use super::model::shown_range;
    use super::*;
    use crate::source::{FileId, Span};
    use clap::ValueEnum;
    use std::ops::Range;

    fn shown(text: &str, start: usize, end: usize) -> Range<usize> {
        shown_range(text, Span::new(FileId(0), start, end))
    }

    #[test]
    fn text_for_standard_error_runs_no_ci_command() {
        let hostile = "cannot read x\n::error::owned\n  ::set-output name=a::b ##vso[task.setvariable variable=a]b \u{1b}[2J";
        let both = Style {
            github_actions: true,
            azure_pipelines: true,
            ..Style::default()
        };
        let shown = both.log_text(hostile);
        for line in shown.lines() {
            assert!(!line.trim_start().starts_with("::"), "{shown}");
        }
        assert!(!shown.contains("##vso["), "{shown}");
        assert!(!shown.contains('\u{1b}'), "{shown}");
        assert!(shown.contains("\\u{3a}:error::owned"), "{shown}");
        // Outside a CI runner only hidden characters change.
        let plain = Style::default().log_text(hostile);
        assert!(plain.contains("\n::error::owned"), "{plain}");
        assert!(plain.contains("##vso["), "{plain}");
        assert!(!plain.contains('\u{1b}'), "{plain}");
    }

    #[test]
    fn shown_range_is_clamped_and_on_char_boundaries() {
        assert_eq!(shown("a: 1", 10, 20), 4..4);
        // 'é' is bytes 3..5: a span starting or ending inside it takes it whole.
        assert_eq!(shown("a: é", 4, 4), 3..3);
        assert_eq!(shown("a: é", 3, 4), 3..5);
        assert_eq!(shown("", 0, 0), 0..0);
    }

    #[test]
    fn no_emitter_panics_on_any_span() {
        use crate::finding::{Edit, Fix};
        use crate::source::{SourceFile, Sources};
        // Tabs, wide characters, CRLF, and characters snippets draw as
        // pictures of another length in bytes (ESC, C1, RLM, a lone CR).
        let text = "a:\té: \"名\u{1b}\u{9b}\u{200f}\"\r\n\n  b: [1\rx\n";
        for start in 0..=text.len() + 2 {
            for end in [0, start, start + 1, start + 3, text.len(), text.len() + 5] {
                // A pseudo file, and a file on disk whose finding has a fix
                // there and just after.
                for on_disk in [false, true] {
                    let mut fixture = fixtures::single("a.yml", text, start, end);
                    if on_disk {
                        fixture.sources = Sources::new();
                        let file = fixture.sources.add(SourceFile::new(
                            "a.yml".into(),
                            Some("/work/a.yml".into()),
                            text.into(),
                        ));
                        let finding = &mut fixture.findings[0];
                        finding.span = Span::new(file, start, end);
                        finding.fix = Fix::safe(
                            "x",
                            vec![
                                Edit::replace(Span::new(file, start, end), "y"),
                                Edit::replace(Span::new(file, end + 1, end + 2), "z"),
                            ],
                        )
                        .map(Box::new);
                    }
                    let related = fixture.findings[0].span;
                    fixture.findings[0] = fixture.findings[0].clone().with_related(
                        Span {
                            start: related.end,
                            end: related.start,
                            ..related
                        },
                        "x",
                    );
                    for &format in Format::value_variants() {
                        for statistics in [false, true] {
                            let mut out = Vec::new();
                            let style = Style {
                                statistics,
                                azure_pipelines: statistics,
                                ..Style::default()
                            };
                            format
                                .emitter(style)
                                .emit(&mut out, &fixture.report())
                                .unwrap();
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn shown_range_keeps_line_breaks_out() {
        assert_eq!(shown("a: 1\nb: 2\n", 0, 5), 0..4);
        assert_eq!(shown("a: 1\r\nb: 2\r\n", 6, 12), 6..10);
        // A span that is only a line break becomes empty, on its line.
        assert_eq!(shown("a: 1\nb: 2\n", 4, 5), 4..4);
        // An empty span at end of file points at the end of the last line...
        assert_eq!(shown("a: [1\n", 6, 6), 5..5);
        assert_eq!(shown("a: [1\r\n", 7, 7), 5..5);
        // ...which may be an empty line; and an empty span elsewhere stays.
        assert_eq!(shown("a: 1\n\n", 6, 6), 5..5);
        assert_eq!(shown("a: 1\nb: 2\n", 5, 5), 5..5);
    }

    /// The output of `format` in `style` for `fixture`.
    fn written(format: Format, style: Style, fixture: &fixtures::Fixture) -> String {
        fixture.emit(format.emitter(style).as_ref())
    }

    #[test]
    fn statistics_replace_the_findings_of_text_and_concise_only() {
        let fixture = fixtures::single("a.yml", "a: 1\n", 3, 4);
        let counts = Style {
            statistics: true,
            ..Style::default()
        };
        for &format in Format::value_variants() {
            if matches!(format, Format::Text | Format::Concise) {
                continue;
            }
            assert_eq!(
                written(format, counts, &fixture),
                written(format, Style::default(), &fixture),
                "{format:?}"
            );
        }
        for format in [Format::Text, Format::Concise] {
            assert_ne!(
                written(format, counts, &fixture),
                written(format, Style::default(), &fixture),
                "{format:?}"
            );
        }
    }

    #[test]
    fn under_github_actions_file_contents_cannot_run_workflow_commands() {
        // A value and a message that a runner would take for commands.
        let text = "a: \"x\"\n::add-mask::secret\n";
        let mut fixture = fixtures::single("a.yml", text, 3, text.len() - 1);
        fixture.findings[0].message = "bad\n::error::injected\n  ::set-env name=A::1".into();
        let github = Style {
            github_actions: true,
            ..Style::default()
        };
        for format in [Format::Text, Format::Concise] {
            for statistics in [false, true] {
                let style = Style {
                    statistics,
                    ..github
                };
                let out = written(format, style, &fixture);
                let lines: Vec<&str> = out.lines().collect();
                let token = lines[0]
                    .strip_prefix("::stop-commands::")
                    .unwrap_or_else(|| panic!("not stopped first:\n{out}"));
                assert!(token.len() >= 32, "{token}");
                assert_eq!(lines[lines.len() - 1], format!("::{token}::"), "{out}");
                // Nothing in between ends the block.
                assert_eq!(out.matches(token).count(), 2, "{out}");
                // Without the flag, nothing is wrapped.
                let plain = written(
                    format,
                    Style {
                        statistics,
                        ..Style::default()
                    },
                    &fixture,
                );
                assert!(!plain.contains("::stop-commands::"), "{plain}");
            }
        }
        let text = written(Format::Text, github, &fixture);
        assert!(text.contains("::add-mask::secret"), "{text}");
        // Each run has a token of its own.
        let again = written(Format::Text, github, &fixture);
        assert_ne!(text.lines().next(), again.lines().next());
        // Machine formats are not wrapped: annotations must still run.
        let annotations = written(Format::Github, github, &fixture);
        assert!(annotations.starts_with("::error "), "{annotations}");
    }

    #[test]
    fn under_azure_pipelines_file_contents_cannot_run_logging_commands() {
        // A value, a message, a help, a data path and a file name that an
        // agent would run, anywhere in a line.
        let command = "##vso[task.setvariable variable=A]1";
        let text = format!("a: \"x {command}\"\n##[group]hidden\n");
        let name = "pkg/#\u{ad}#vso[task.prependpath]x.yml";
        let sources = crate::source::Sources::new();
        let file = sources.add(crate::source::SourceFile::new(
            name.into(),
            Some(format!("/work/{name}").into()),
            text.clone(),
        ));
        let mut fixture = fixtures::single("a.yml", &text, 0, 1);
        fixture.sources = sources;
        let finding = &mut fixture.findings[0];
        finding.span = Span::new(file, 3, text.len() - 1);
        finding.message = format!("bad {command}\n##[error]x ###VSO[task.complete result=Failed]");
        finding.help = Some(format!("did you mean {command}?"));
        finding.path = Some(command.into());
        let azure = Style {
            azure_pipelines: true,
            ..Style::default()
        };
        // A command starts where `##` then `[` or `vso[` are, whatever the
        // agent's comparison skips in between.
        let commands = |out: &str| {
            out.match_indices('#')
                .filter(|(at, _)| {
                    let rest: String = out[*at..]
                        .chars()
                        .filter(|c| *c == '\n' || !(c.is_control() || *c == '\u{ad}'))
                        .take(6)
                        .collect();
                    rest.starts_with("##[") || rest.to_ascii_lowercase().starts_with("##vso[")
                })
                .count()
        };
        for &format in Format::value_variants() {
            for statistics in [false, true] {
                let style = Style {
                    statistics,
                    ..azure
                };
                let out = written(format, style, &fixture);
                let plain = written(
                    format,
                    Style {
                        statistics,
                        ..Style::default()
                    },
                    &fixture,
                );
                if format == Format::Azure {
                    // Its own command, once, at the start; nothing else.
                    assert_eq!(out, plain);
                    assert!(out.starts_with("##vso[task.logissue "), "{out}");
                    assert_eq!(commands(&out), 1, "{out}");
                    continue;
                }
                assert_eq!(commands(&out), 0, "{format:?}:\n{out}");
                // `--statistics` shows no text from files, and Markdown
                // writes every `#` and `[` from them backslashed already.
                let shows_commands = match format {
                    Format::Text | Format::Concise => !statistics,
                    Format::Markdown => false,
                    _ => true,
                };
                if shows_commands {
                    assert!(commands(&plain) > 0, "{format:?} test is vacuous:\n{plain}");
                }
                // Machine formats mean the same once read back.
                match format {
                    Format::Json | Format::Sarif | Format::Gitlab | Format::Rdjson => {
                        let read: serde_json::Value = serde_json::from_str(&out).unwrap();
                        let read_plain: serde_json::Value = serde_json::from_str(&plain).unwrap();
                        assert_eq!(read, read_plain, "{format:?}");
                    }
                    Format::Junit => {
                        assert_eq!(out.replace("&#35;", "#"), plain, "{format:?}");
                    }
                    _ => {}
                }
            }
        }
    }
}
