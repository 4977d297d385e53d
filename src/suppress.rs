//! Suppression comments: `# confvet: ignore[rule-id] reason` hides the
//! findings of that rule whose primary span starts on the comment's line (a
//! trailing comment) or on the line below (a comment on a line of its own;
//! several such lines stacked all apply to the first line below them), and
//! `# confvet: disable-file[rule-id] reason` (or `disable-file reason`, every
//! rule) hides them in the whole file. ytt files write `#!` instead of `#`.
//!
//! Comments are found in the text, line by line, not in the YAML tree: a
//! `# confvet:` line inside a block scalar (a shell comment in a Tekton
//! `script: |`) counts too, which is the only way to suppress a finding that
//! sits inside a script.
//!
//! A malformed comment (no reason, an unknown rule id, bad syntax) suppresses
//! nothing and is reported as `confvet/invalid-suppression`; a rule id that
//! hides no finding as `confvet/unused-suppression`. Neither can itself be
//! suppressed by a comment.

use crate::finding::{Edit, Finding, Fix, Severity};
use crate::report::locate;
use crate::rules::{self, RULES};
use crate::source::{FileId, SourceFile, Sources, Span};
use crate::suggest::did_you_mean;
use crate::yaml::{Node, ParseOptions, Value};
use rayon::prelude::*;
use std::collections::{BTreeSet, HashMap};

pub const MARKER: &str = "confvet:";

/// Which findings a suppression comment looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reach {
    /// Findings starting on this 1-based line.
    Line(usize),
    /// Every finding in the file.
    File,
}

/// One rule pattern of a comment: `ytt/validation`, `ytt/*`, or every rule.
#[derive(Debug)]
struct Pattern {
    /// None for `disable-file` without brackets.
    rule: Option<String>,
    /// The id in the comment, or the whole comment without brackets.
    span: Span,
    used: bool,
}

impl Pattern {
    fn matches(&self, rule: &str) -> bool {
        match self.rule.as_deref() {
            None => true,
            Some(pattern) => match pattern.strip_suffix('*') {
                Some(prefix) => rule.starts_with(prefix),
                None => rule == pattern,
            },
        }
    }
}

/// A well-formed suppression comment.
#[derive(Debug)]
struct Suppression {
    reach: Reach,
    patterns: Vec<Pattern>,
    /// What removing the whole comment deletes.
    removal: Span,
}

/// Why a comment is malformed, with help, and where in it (a rule id), as
/// a byte range in the text after `confvet:`; None for the whole comment.
struct Malformed {
    message: String,
    help: String,
    at: Option<std::ops::Range<usize>>,
    /// It names a rule id that no rule has.
    unknown_rule: bool,
    /// The rule id it most likely meant, for an unknown one.
    meant: Option<String>,
}

impl Malformed {
    fn new(message: impl Into<String>, help: impl Into<String>) -> Malformed {
        Malformed {
            message: message.into(),
            help: help.into(),
            at: None,
            unknown_rule: false,
            meant: None,
        }
    }
}

/// What one `confvet:` comment says.
struct Parsed {
    file_wide: bool,
    /// `(id, byte range in the text after `confvet:`)`; empty for every rule.
    rules: Vec<(String, std::ops::Range<usize>)>,
}

/// Hide the findings that suppression comments name, in the files of
/// `units` (the files of each unit the run linted) and in any other file with
/// a finding; add findings for malformed and unused comments. Returns how
/// many findings were hidden.
///
/// Unused comments are reported only in units left without errors: an error
/// can stop a check (ytt checks no value of a package whose schema is
/// broken) before it reaches the rule a comment suppresses; and only for
/// rules that `reports` (a rule turned off by `--ignore` or the
/// configuration cannot have fired). Files `unmarked` says hold no
/// suppression marker (known from discovery) are not read.
pub fn apply(
    findings: &mut Vec<Finding>,
    sources: &Sources,
    units: &[Vec<FileId>],
    reports: &dyn Fn(&str) -> bool,
    unmarked: &dyn Fn(FileId) -> bool,
) -> usize {
    let mut scanned: BTreeSet<FileId> = units.iter().flatten().copied().collect();
    scanned.extend(findings.iter().map(|f| f.span.file));
    // A file whose text is known to hold no marker is not read again.
    scanned.retain(|&id| !unmarked(id));
    // Few files have comments: a quick look at every text, on all cores.
    let scans: Vec<(FileId, Vec<Suppression>, Vec<Finding>)> = scanned
        .into_par_iter()
        .filter_map(|id| {
            let source = sources.get(id);
            source.text.contains(MARKER).then(|| {
                let mut problems = Vec::new();
                let suppressions = scan(id, &source, &mut problems);
                (id, suppressions, problems)
            })
        })
        .collect();
    let mut by_file: HashMap<FileId, Vec<Suppression>> = HashMap::new();
    let mut problems = Vec::new();
    for (id, suppressions, malformed) in scans {
        problems.extend(malformed);
        by_file.insert(id, suppressions);
    }
    let before = findings.len();
    findings.retain(|finding| {
        let Some(suppressions) = by_file.get_mut(&finding.span.file) else {
            return true;
        };
        let line = locate(sources, finding.span).1.start.line;
        let mut hidden = false;
        for suppression in suppressions.iter_mut() {
            if suppression.reach != Reach::File && suppression.reach != Reach::Line(line) {
                continue;
            }
            for pattern in &mut suppression.patterns {
                if pattern.matches(finding.rule) {
                    pattern.used = true;
                    hidden = true;
                }
            }
        }
        !hidden
    });
    let hidden = before - findings.len();
    let with_errors: BTreeSet<FileId> = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .map(|f| f.span.file)
        .collect();
    for unit in units {
        if unit.iter().any(|file| with_errors.contains(file)) {
            continue;
        }
        for file in unit {
            for suppression in by_file.get(file).into_iter().flatten() {
                let could_fire =
                    |p: &Pattern| RULES.iter().any(|r| p.matches(r.id) && reports(r.id));
                let patterns = &suppression.patterns;
                let unused_ones: Vec<usize> = (0..patterns.len())
                    .filter(|&i| !patterns[i].used && could_fire(&patterns[i]))
                    .collect();
                let all_unused = unused_ones.len() == patterns.len();
                for i in unused_ones {
                    // The whole comment goes when it would suppress nothing
                    // left; else only this id, with a comma beside it.
                    let removal = if all_unused {
                        suppression.removal
                    } else {
                        id_removal(patterns, i)
                    };
                    let text = &sources.get(removal.file).text;
                    let fix = removal_fix(text, removal, "remove the unused suppression");
                    problems.push(unused(suppression.reach, &patterns[i]).with_fix(fix));
                }
            }
        }
    }
    findings.extend(problems);
    hidden
}

/// The span that removing rule id `i` of a list deletes: the id and the
/// comma before it (or, for the first, the comma after it) with the white
/// space between.
fn id_removal(patterns: &[Pattern], i: usize) -> Span {
    let this = patterns[i].span;
    match (i.checked_sub(1), patterns.get(i + 1)) {
        (Some(before), _) => Span::new(
            this.file,
            patterns[before].span.end as usize,
            this.end as usize,
        ),
        (None, Some(after)) => Span::new(this.file, this.start as usize, after.span.start as usize),
        (None, None) => this,
    }
}

/// A fix deleting `span`: safe where the deleted text is a YAML comment (the
/// suppression hides nothing, so nothing reported changes), unsafe inside a
/// block scalar (a shell comment in a Tekton `script: |`), whose value it
/// changes, or when the file cannot be parsed to tell which it is.
fn removal_fix(text: &str, span: Span, message: &str) -> Option<Fix> {
    let in_value = in_scalar(span.file, text, span.start as usize);
    let edits = vec![Edit::delete(span)];
    if in_value == Some(false) {
        Fix::safe(message, edits)
    } else {
        Fix::unsafe_(message, edits)
    }
}

/// Whether byte `offset` of `text` lies inside a scalar's text; None when
/// the file does not parse.
fn in_scalar(file: FileId, text: &str, offset: usize) -> Option<bool> {
    fn inside(node: &Node, offset: usize) -> bool {
        match &node.value {
            Value::Scalar(_) => node.span.range().contains(&offset),
            Value::Map(items) => items.iter().any(|item| inside(&item.value, offset)),
            Value::Array(items) => items.iter().any(|item| inside(&item.value, offset)),
        }
    }
    let options = ParseOptions {
        keeps_duplicate_keys: true,
        ..ParseOptions::default()
    };
    let set = crate::yaml::parse_file(file, text, &options).ok()?;
    Some(set.docs.iter().any(|doc| inside(&doc.value, offset)))
}

fn unused(reach: Reach, pattern: &Pattern) -> Finding {
    let (message, help) = match (&pattern.rule, reach) {
        (Some(rule), Reach::Line(line)) => (
            format!("ignore[{rule}] hides no finding on line {line}"),
            "remove it, or move it onto the finding's line or the line above",
        ),
        (Some(rule), Reach::File) => (
            format!("disable-file[{rule}] hides no finding in this file"),
            "remove it",
        ),
        (None, _) => (
            "disable-file hides no finding in this file".to_string(),
            "remove it",
        ),
    };
    Finding::new(
        &crate::rules::confvet::UNUSED_SUPPRESSION,
        pattern.span,
        message,
    )
    .with_label("suppresses nothing")
    .with_help(help)
}

/// The suppressions of one file; malformed ones go to `problems`.
fn scan(file: FileId, source: &SourceFile, problems: &mut Vec<Finding>) -> Vec<Suppression> {
    // (line, comment start, comment is alone on its line, parse result)
    let mut comments = Vec::new();
    for line in 1..=source.line_count() {
        // A byte-order mark before line 1 is no text of it.
        let raw = source.line_text(line);
        let bom = if line == 1 && raw.starts_with('\u{feff}') {
            '\u{feff}'.len_utf8()
        } else {
            0
        };
        let text = &raw[bom..];
        let Some((hash, marker)) = find_comment(text) else {
            continue;
        };
        let start = source.line_start(line) + bom;
        let own_line = text[..hash].trim().is_empty();
        let comment = Span::new(file, start + hash, start + text.len());
        let rest_offset = start + marker + MARKER.len();
        // A comment alone on its line goes with its line; a trailing one
        // with the white space before it.
        let removal = if own_line {
            let next = if line < source.line_count() {
                source.line_start(line + 1)
            } else {
                source.text.len()
            };
            Span::new(file, start, next)
        } else {
            let kept = text[..hash].trim_end_matches([' ', '\t']).len();
            Span::new(file, start + kept, start + text.len())
        };
        comments.push((line, own_line, comment, rest_offset, removal));
    }
    let own_lines: BTreeSet<usize> = comments
        .iter()
        .filter(|(_, own_line, ..)| *own_line)
        .map(|(line, ..)| *line)
        .collect();
    let mut suppressions = Vec::new();
    for (line, own_line, comment, rest_offset, removal) in comments {
        let rest = &source.text[rest_offset..comment.end as usize];
        let parsed = match parse(rest) {
            Ok(parsed) => parsed,
            Err(malformed) => {
                let span = malformed.at.clone().map_or(comment, |at| {
                    Span::new(file, rest_offset + at.start, rest_offset + at.end)
                });
                // A comment naming a rule that does not exist hides nothing:
                // removing it changes no report. Where a rule id is near,
                // the author most likely mistyped it: correcting it keeps
                // the comment and its reason, but starts hiding findings,
                // so that fix is unsafe. Other malformed comments want words
                // only their author can write.
                let fix = match (&malformed.meant, malformed.unknown_rule) {
                    (Some(meant), true) => Fix::unsafe_(
                        format!(
                            "correct the rule id to {meant:?} (the comment then hides its findings)"
                        ),
                        vec![Edit::replace(span, meant.clone())],
                    ),
                    (None, true) => removal_fix(&source.text, removal, "remove the suppression"),
                    _ => None,
                };
                problems.push(
                    Finding::new(
                        &crate::rules::confvet::INVALID_SUPPRESSION,
                        span,
                        malformed.message,
                    )
                    .with_label("this comment suppresses nothing")
                    .with_help(malformed.help)
                    .with_fix(fix),
                );
                continue;
            }
        };
        let reach = if parsed.file_wide {
            Reach::File
        } else if own_line {
            // The first line below that is not itself a suppression comment.
            let mut target = line + 1;
            while own_lines.contains(&target) {
                target += 1;
            }
            Reach::Line(target)
        } else {
            Reach::Line(line)
        };
        let patterns = if parsed.rules.is_empty() {
            vec![Pattern {
                rule: None,
                span: comment,
                used: false,
            }]
        } else {
            parsed
                .rules
                .into_iter()
                .map(|(rule, range)| Pattern {
                    rule: Some(rule),
                    span: Span::new(file, rest_offset + range.start, rest_offset + range.end),
                    used: false,
                })
                .collect()
        };
        suppressions.push(Suppression {
            reach,
            patterns,
            removal,
        });
    }
    suppressions
}

/// Where a `#` or `#!` comment holding `confvet:` starts in `line`, and where
/// `confvet:` starts. The `#` starts the line or follows white space, as a
/// YAML comment does.
fn find_comment(line: &str) -> Option<(usize, usize)> {
    line.match_indices(MARKER).find_map(|(marker, _)| {
        let before = line[..marker].trim_end_matches([' ', '\t']);
        let before = before.strip_suffix('!').unwrap_or(before);
        let before = before.strip_suffix('#')?;
        (before.is_empty() || before.ends_with([' ', '\t'])).then_some((before.len(), marker))
    })
}

/// Parse the text after `confvet:`.
fn parse(rest: &str) -> Result<Parsed, Malformed> {
    const SYNTAX: &str =
        "write `confvet: ignore[rule-id] reason` or `confvet: disable-file[rule-id] reason`";
    let trimmed = rest.trim_start();
    let word_len = trimmed
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .unwrap_or(trimmed.len());
    let word = &trimmed[..word_len];
    let file_wide = match word {
        "ignore" => false,
        "disable-file" => true,
        _ => {
            return Err(Malformed::new(
                format!("unknown suppression {word:?}"),
                SYNTAX,
            ));
        }
    };
    let after_word = &trimmed[word_len..];
    let mut rules = Vec::new();
    let mut reason = after_word;
    if let Some(list) = after_word.trim_start().strip_prefix('[') {
        let Some(close) = list.find(']') else {
            return Err(Malformed::new("suppression without a closing `]`", SYNTAX));
        };
        // Byte offset in `rest` of the current id's piece of the list.
        let mut at = rest.len() - list.len();
        for piece in list[..close].split(',') {
            let id = piece.trim();
            let start = at + (piece.len() - piece.trim_start().len());
            check_rule(id).map_err(|(message, help, unknown_rule, meant)| Malformed {
                message,
                help,
                at: Some(start..start + id.len()),
                unknown_rule,
                meant,
            })?;
            rules.push((id.to_string(), start..start + id.len()));
            at += piece.len() + 1;
        }
        reason = &list[close + 1..];
    } else if !file_wide {
        return Err(Malformed::new(
            "ignore without rule ids",
            "name the rules: `confvet: ignore[rule-id] reason`; `confvet rules` lists them",
        ));
    }
    if !reason.chars().any(char::is_alphanumeric) {
        return Err(Malformed::new(
            "suppression without a reason",
            "say why after the rule ids: `confvet: ignore[rule-id] the reason`",
        ));
    }
    Ok(Parsed { file_wide, rules })
}

/// Whether a comment may suppress findings of rule `id`: the `confvet/`
/// rules (the comments' own problems, links not followed, units given up,
/// confvet's own failures) are never hidden.
pub fn suppressible(id: &str) -> bool {
    !id.starts_with("confvet/")
}

/// What is wrong with a rule id of a comment: a message, help, whether no
/// rule has that id, and the id it most likely meant.
type RuleProblem = (String, String, bool, Option<String>);

/// Whether `id`, a rule id or `system/*`, names rules a comment may
/// suppress; else what is wrong with it.
fn check_rule(id: &str) -> Result<(), RuleProblem> {
    let list = "`confvet rules` lists the rule ids".to_string();
    if id.is_empty() {
        return Err((
            "suppression with an empty rule id".to_string(),
            list,
            false,
            None,
        ));
    }
    if !suppressible(id) {
        return Err((
            format!("{id} cannot be suppressed by a comment"),
            "fix or remove the suppression comment it reports".to_string(),
            false,
            None,
        ));
    }
    let known = match id.strip_suffix("/*") {
        Some(system) => RULES
            .iter()
            .any(|r| r.id.split_once('/').is_some_and(|(s, _)| s == system)),
        None => rules::find(id).is_some(),
    };
    if known {
        return Ok(());
    }
    let ids: Vec<String> = RULES.iter().map(|r| r.id.to_string()).collect();
    let meant = did_you_mean(id, &ids).map(|near| near.to_string());
    let help = match &meant {
        Some(near) => format!("did you mean {near:?}? {list}"),
        None => list,
    };
    Err((
        format!("unknown rule id {id:?} in suppression"),
        help,
        true,
        meant,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SourceFile;

    const INVALID: &str = crate::rules::confvet::INVALID_SUPPRESSION.id;
    const UNUSED: &str = crate::rules::confvet::UNUSED_SUPPRESSION.id;

    /// Findings of `rule` at the start of each of `lines` of `text`, after
    /// `apply`, with the sources they point into and how many were hidden.
    fn applied(text: &str, found: &[(&'static str, usize)]) -> (Sources, Vec<Finding>, usize) {
        let sources = Sources::new();
        let file = sources.add(SourceFile::new("a.yml".into(), None, text.into()));
        let source = sources.get(file);
        let mut findings: Vec<Finding> = found
            .iter()
            .map(|&(rule, line)| {
                let start = source.line_start(line) + 2;
                Finding::new(
                    crate::rules::find(rule).expect("a rule of the table"),
                    Span::new(file, start, start + 1),
                    "bad",
                )
            })
            .collect();
        let hidden = apply(&mut findings, &sources, &[vec![file]], &|_| true, &|_| {
            false
        });
        (sources, findings, hidden)
    }

    /// (rule, line) of what is left after `apply`, and how many were hidden.
    fn run(text: &str, found: &[(&'static str, usize)]) -> (Vec<(&'static str, usize)>, usize) {
        let (sources, findings, hidden) = applied(text, found);
        let left = findings
            .iter()
            .map(|f| {
                let line = sources
                    .get(f.span.file)
                    .line_col(f.span.start as usize)
                    .line;
                (f.rule, line)
            })
            .collect();
        (left, hidden)
    }

    const V: &str = "ytt/validation";
    const U: &str = "ytt/unknown-key";

    #[test]
    fn a_trailing_comment_hides_its_own_line_only() {
        let text = "a: 1 # confvet: ignore[ytt/validation] load test\nb: 2\n";
        assert_eq!(run(text, &[(V, 1), (V, 2)]), (vec![(V, 2)], 1));
    }

    #[test]
    fn a_comment_on_its_own_line_hides_the_line_below() {
        let text = "a: 1\n  #! confvet: ignore[ytt/validation] load test\nb: 2\nc: 3\n";
        assert_eq!(
            run(text, &[(V, 1), (V, 3), (V, 4)]),
            (vec![(V, 1), (V, 4)], 1)
        );
    }

    #[test]
    fn a_comment_on_line_one_after_a_byte_order_mark_hides_the_line_below() {
        let text = "\u{feff}# confvet: ignore[ytt/validation] load test\nb: 2\nc: 3\n";
        assert_eq!(run(text, &[(V, 2), (V, 3)]), (vec![(V, 3)], 1));
    }

    #[test]
    fn stacked_comments_all_apply_to_the_first_line_below() {
        let text =
            "# confvet: ignore[ytt/validation] one\n# confvet: ignore[ytt/unknown-key] two\nb: 2\n";
        assert_eq!(run(text, &[(V, 3), (U, 3)]), (vec![], 2));
    }

    #[test]
    fn several_ids_and_a_system_wildcard() {
        let text = "a: 1 # confvet: ignore[ytt/validation, ytt/unknown-key] both\nb: 2 # confvet: ignore[ytt/*] all of ytt\n";
        assert_eq!(run(text, &[(V, 1), (U, 1), (V, 2), (U, 2)]), (vec![], 4));
    }

    #[test]
    fn the_other_rules_on_the_line_still_show() {
        let text = "a: 1 # confvet: ignore[ytt/validation] load test\n";
        assert_eq!(run(text, &[(V, 1), (U, 1)]), (vec![(U, 1)], 1));
    }

    #[test]
    fn disable_file_with_and_without_ids() {
        let text = "#! confvet: disable-file[ytt/validation] generated\na: 1\nb: 2\n";
        assert_eq!(run(text, &[(V, 2), (U, 3)]), (vec![(U, 3)], 1));
        let text = "# confvet: disable-file generated by a tool\na: 1\nb: 2\n";
        assert_eq!(run(text, &[(V, 2), (U, 3)]), (vec![], 2));
    }

    #[test]
    fn malformed_comments_suppress_nothing() {
        for comment in [
            "# confvet: ignore[ytt/validation]",
            "# confvet: ignore[ytt/validation] -- ",
            "# confvet: ignore[ytt/validaton] typo",
            "# confvet: ignore[ytt/validation no bracket",
            "# confvet: ignore load test",
            "# confvet: ignore[] empty",
            "# confvet: ignore[confvet/unused-suppression] why not",
            "# confvet: disable-file",
            "# confvet: skip[ytt/validation] unknown word",
        ] {
            let text = format!("a: 1 {comment}\n");
            let (left, hidden) = run(&text, &[(V, 1)]);
            assert_eq!(hidden, 0, "{comment}");
            assert_eq!(left, vec![(V, 1), (INVALID, 1)], "{comment}");
        }
    }

    #[test]
    fn unused_suppressions_are_reported_per_rule_id() {
        let text = "a: 1 # confvet: ignore[ytt/validation, ytt/unknown-key] both\n";
        assert_eq!(run(text, &[(V, 1)]).0, vec![(UNUSED, 1)]);
    }

    #[test]
    fn a_suppression_of_a_rule_that_is_off_is_not_unused() {
        let sources = Sources::new();
        let text = "a: 1 # confvet: ignore[ytt/validation, ytt/unknown-key] both\n";
        let file = sources.add(SourceFile::new("a.yml".into(), None, text.into()));
        let mut findings = Vec::new();
        let off = |id: &str| id != "ytt/validation";
        apply(&mut findings, &sources, &[vec![file]], &off, &|_| false);
        let messages: Vec<&str> = findings.iter().map(|f| f.message.as_str()).collect();
        assert_eq!(
            messages,
            ["ignore[ytt/unknown-key] hides no finding on line 1"]
        );
    }

    #[test]
    fn unused_suppressions_wait_until_the_unit_has_no_errors() {
        let text = "a: 1 # confvet: ignore[ytt/unknown-key] typo\nb: 2\n";
        assert_eq!(run(text, &[(V, 2)]).0, vec![(V, 2)]);
    }

    #[test]
    fn only_comments_count() {
        for text in [
            "a: \"x#confvet: ignore[ytt/validation] why\"\n",
            "a: 1 # see confvet: ignore[ytt/validation] why\n",
        ] {
            assert_eq!(run(text, &[(V, 1)]), (vec![(V, 1)], 0), "{text}");
        }
    }

    #[test]
    fn the_rule_id_is_what_an_invalid_comment_points_at() {
        let sources = Sources::new();
        let text = "a: 1 # confvet: ignore[ytt/validation, ytt/validaton] typo\n";
        let file = sources.add(SourceFile::new("a.yml".into(), None, text.into()));
        let mut findings = Vec::new();
        apply(&mut findings, &sources, &[vec![file]], &|_| true, &|_| {
            false
        });
        assert_eq!(findings.len(), 1);
        let typo = text.rfind("ytt/").unwrap();
        let typo = &text[typo..text.find(']').unwrap()];
        assert_eq!(&text[findings[0].span.range()], typo);
        assert_eq!(
            findings[0]
                .help
                .as_deref()
                .map(|h| h.contains("\"ytt/validation\"")),
            Some(true)
        );
    }

    /// The text after `--fix` of what `apply` reports on `text` (every
    /// fix, none overlapping: the cases below are made so).
    fn fixed(text: &str, found: &[(&'static str, usize)]) -> String {
        fixed_with(text, found, false)
    }

    fn fixed_with(text: &str, found: &[(&'static str, usize)], unsafe_fixes: bool) -> String {
        let (_, findings, _) = applied(text, found);
        let edits: Vec<&Edit> = findings
            .iter()
            .filter_map(|f| f.applicable_fix(unsafe_fixes))
            .flat_map(|fix| &fix.edits)
            .collect();
        crate::edit::apply_edits(text, &edits)
    }

    #[test]
    fn the_fix_removes_an_unused_id_or_the_whole_comment() {
        let block = "s: |\n  echo # confvet: ignore[ytt/validation] why\n";
        let no_reason = "a: 1 # confvet: ignore[ytt/validation]\n";
        // (why, text, findings, text after the safe fixes)
        type Found = &'static [(&'static str, usize)];
        let cases: &[(&str, &str, Found, &str)] = &[
            (
                "the first id, with the comma after it",
                "a: 1  # confvet: ignore[ytt/unknown-key, ytt/validation] why\nb: 2\n",
                &[(V, 1)],
                "a: 1  # confvet: ignore[ytt/validation] why\nb: 2\n",
            ),
            (
                "a line of its own, and blanks before",
                "# confvet: ignore[ytt/validation] why\na: 1\nb: 2 # confvet: ignore[ytt/unknown-key] why\n",
                &[],
                "a: 1\nb: 2\n",
            ),
            ("inside a block scalar: not by --fix", block, &[], block),
            (
                "an unknown id, near no rule, hides nothing",
                "a: 1 # confvet: ignore[nothing/like-it] why\n",
                &[(V, 1)],
                "a: 1\n",
            ),
            (
                "a mistyped id: corrected only by --unsafe-fixes",
                "a: 1 # confvet: ignore[ytt/validaton] why\n",
                &[(V, 1)],
                "a: 1 # confvet: ignore[ytt/validaton] why\n",
            ),
            (
                "no reason: the author's to write",
                no_reason,
                &[(V, 1)],
                no_reason,
            ),
        ];
        for (why, text, found, after) in cases {
            assert_eq!(fixed(text, found), *after, "{why}");
        }
        // The correction keeps the comment and its reason.
        assert_eq!(
            fixed_with(
                "a: 1 # confvet: ignore[ytt/validaton] load test\n",
                &[(V, 1)],
                true
            ),
            "a: 1 # confvet: ignore[ytt/validation] load test\n"
        );
    }
}
