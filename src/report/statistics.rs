//! `--statistics`: instead of the findings, how many each rule gave, as
//! `ruff check --statistics` shows them: count, rule id, severity and the
//! rule's summary, most frequent first (then by rule id), then the summary
//! line. A rule whose findings have two severities (a rule set to warn in one
//! place) has a row for each. The kinds of documents not checked come from
//! the files, so they are escaped ([`escape`](super::escape)).

use super::escape;
use super::model::{Emitter, Report};
use super::text::summary_line;
use crate::finding::Severity;
use crate::rules::{self, Documented};
use std::collections::BTreeMap;
use std::io::{self, Write};

/// Writes the counts per rule.
pub struct StatisticsEmitter;

impl Emitter for StatisticsEmitter {
    fn emit(&self, out: &mut dyn Write, report: &Report<'_>) -> io::Result<()> {
        let mut counts: BTreeMap<(&str, Severity), usize> = BTreeMap::new();
        for finding in report.findings {
            *counts.entry((finding.rule, finding.severity)).or_default() += 1;
        }
        let mut rows: Vec<((&str, Severity), usize)> = counts.into_iter().collect();
        rows.sort_by(|(a, n), (b, m)| m.cmp(n).then(a.0.cmp(b.0)).then(b.1.cmp(&a.1)));
        let count_width = rows.iter().map(|(_, n)| n.to_string().len()).max();
        let rule_width = rows.iter().map(|((rule, _), _)| rule.len()).max();
        for ((rule, severity), count) in &rows {
            let summary = rules::find(rule).map_or("", |r| r.summary());
            writeln!(
                out,
                "{count:>count_width$}  {rule:<rule_width$}  {:<7}  {summary}",
                severity.as_str(),
                count_width = count_width.unwrap_or(1),
                rule_width = rule_width.unwrap_or(1),
            )?;
        }
        if !rows.is_empty() {
            writeln!(out)?;
        }
        // Not a finding: what a reader of the counts should know was not
        // checked at all.
        for (kind, count) in report.unchecked_kinds {
            let documents = if *count == 1 { "document" } else { "documents" };
            writeln!(
                out,
                "note: {count} {documents} of kind {} not checked: no Kubernetes schema or CRD knows the kind",
                escape::line(kind),
            )?;
        }
        if !report.unchecked_kinds.is_empty() {
            writeln!(out)?;
        }
        writeln!(out, "{}", summary_line(report))
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{self, Fixture, HOSTILE, HOSTILE_ESCAPED};
    use super::*;

    fn emit(fixture: &Fixture) -> String {
        fixture.emit(&StatisticsEmitter)
    }

    #[test]
    fn counts_per_rule_most_frequent_first() {
        insta::assert_snapshot!(emit(&fixtures::with_findings()));
    }

    #[test]
    fn kinds_from_files_are_escaped() {
        let fixture = fixtures::clean();
        let kinds = BTreeMap::from([(format!("{HOSTILE} (v1)"), 2)]);
        let report = Report {
            unchecked_kinds: &kinds,
            ..fixture.report()
        };
        let mut out = Vec::new();
        StatisticsEmitter.emit(&mut out, &report).unwrap();
        let text = String::from_utf8(out).unwrap();
        fixtures::assert_nothing_raw(&text, false);
        assert!(
            text.starts_with(&format!(
                "note: 2 documents of kind {HOSTILE_ESCAPED} (v1) not checked:"
            )),
            "{text}"
        );
    }

    #[test]
    fn order_is_by_count_then_rule_id() {
        let mut fixture = fixtures::many(12, 0);
        for finding in &mut fixture.findings[..3] {
            finding.rule = "yaml/syntax";
        }
        let text = emit(&fixture);
        let rules: Vec<&str> = text
            .lines()
            .filter_map(|l| l.split_whitespace().nth(1))
            .take(2)
            .collect();
        assert_eq!(rules, ["ytt/unknown-key", "yaml/syntax"], "{text}");
        assert!(
            text.starts_with(
                "9  ytt/unknown-key  error    A data value is not declared in the schema\n\
                 3  yaml/syntax      error    A file is not well-formed YAML\n\n"
            ),
            "{text}"
        );
        assert_eq!(emit(&fixtures::clean()), "no problems in 5 files\n");
    }
}
