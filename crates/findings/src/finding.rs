//! Findings: what a check reports. Knows `source` spans and nothing of YAML
//! or of how a finding was found; emitters in `report` read only this.

pub use confvet_syntax::edit::{Applicability, Edit, Fix};
use confvet_syntax::source::{Sources, Span};
use std::fmt;

pub use crate::rules::{Kind, Rule, Severity};

/// A second place that explains a finding ("rule declared here").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Related {
    pub span: Span,
    pub message: String,
}

/// One problem, with everything every report format needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Stable rule id such as `ytt/validation`; see `rules`.
    pub rule: &'static str,
    pub kind: Kind,
    pub severity: Severity,
    /// One line, complete on its own (JSON, SARIF and GitHub show only this).
    pub message: String,
    /// Where the offending node is.
    pub span: Span,
    /// Short label under the primary span in text output.
    pub label: Option<String>,
    /// Data path in ytt's style (`databases[1].port`, `(document)`).
    pub path: Option<String>,
    pub related: Vec<Related>,
    /// Advice shown after the snippet (`did you mean "port"?`).
    pub help: Option<String>,
    /// Which of the run's findings alike in everything the fingerprint
    /// hashes this one is, in report order (0 for the first); set by
    /// [`number_alike`] so that every fingerprint of a run is unique.
    pub occurrence: u32,
    /// How many findings of this rule and file this one stands for, which
    /// a unit with very many left out before the report (its message counts
    /// them); 0 for a finding of its own. See [`cap_per_rule_and_file`].
    pub left_out: usize,
    /// The text this finding proposes instead, when one repair fits.
    pub fix: Option<Box<Fix>>,
}

impl Finding {
    /// A finding of `rule`, with the kind and default severity the rule
    /// table gives it.
    pub fn new(rule: &'static Rule, span: Span, message: impl Into<String>) -> Finding {
        Finding {
            rule: rule.id,
            kind: rule.kind,
            severity: rule.severity,
            message: message.into(),
            span,
            label: None,
            path: None,
            related: Vec::new(),
            help: None,
            occurrence: 0,
            left_out: 0,
            fix: None,
        }
    }

    /// Whether this is a finding of `rule`.
    pub fn is(&self, rule: &Rule) -> bool {
        self.rule == rule.id
    }

    pub fn with_severity(mut self, severity: Severity) -> Finding {
        self.severity = severity;
        self
    }

    pub fn with_label(mut self, label: impl Into<String>) -> Finding {
        self.label = Some(label.into());
        self
    }

    pub fn with_path(mut self, path: impl Into<String>) -> Finding {
        self.path = Some(path.into());
        self
    }

    pub fn with_related(mut self, span: Span, message: impl Into<String>) -> Finding {
        self.related.push(Related {
            span,
            message: message.into(),
        });
        self
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Finding {
        self.help = Some(help.into());
        self
    }

    /// Attach `fix`, when the check could build one.
    pub fn with_fix(mut self, fix: Option<Fix>) -> Finding {
        // The rule table says which rules fix, and how safely: their docs
        // say what the fix does.
        debug_assert!(
            fix.as_ref().is_none_or(|fix| {
                crate::rules::find(self.rule).and_then(|rule| rule.fix) >= Some(fix.applicability)
            }),
            "{} makes a fix its rule table entry does not allow",
            self.rule
        );
        self.fix = fix.map(Box::new);
        self
    }

    /// The fix `--fix` (or with `unsafe_fixes`, `--unsafe-fixes`) applies.
    pub fn applicable_fix(&self, unsafe_fixes: bool) -> Option<&Fix> {
        let lowest = if unsafe_fixes {
            Applicability::Unsafe
        } else {
            Applicability::Safe
        };
        self.fix.as_deref().filter(|f| f.applicability >= lowest)
    }

    /// A hash that survives lines moving: rule, file name (relative to the
    /// project root, see [`Sources::stable_name`]), data path and the message
    /// with its numbers masked; never a line or column. Findings alike in all
    /// of these (one problem in each of several documents of a file, such as
    /// the templates of a KubeVirt bundle) are told apart by their
    /// [`occurrence`](Finding::occurrence): the first keeps the plain hash,
    /// the n-th mixes in n. So fingerprints are unique within a run and
    /// still do not depend on where the findings are.
    pub fn fingerprint(&self, sources: &Sources) -> String {
        let mut hash = self.hash_alike(sources);
        if self.occurrence > 0 {
            hash.write(&self.occurrence.to_string());
        }
        format!("{:016x}", hash.0)
    }

    /// The fingerprint of the first of the findings alike with this one:
    /// what confvet before occurrences wrote for every one of them (baselines
    /// read it too).
    pub fn first_fingerprint(&self, sources: &Sources) -> String {
        format!("{:016x}", self.hash_alike(sources).0)
    }

    fn hash_alike(&self, sources: &Sources) -> Fnv64 {
        let mut hash = Fnv64::new();
        hash.write(self.rule);
        hash.write(&sources.stable_name(self.span.file));
        hash.write(self.path.as_deref().unwrap_or(""));
        hash.write(&mask_digits(&self.message));
        hash
    }
}

/// Number the findings alike (same rule, file, data path and message but
/// for digits) in their order, so each gets a fingerprint of its own; see
/// [`Finding::fingerprint`]. Call it on the sorted findings of a run.
pub fn number_alike(findings: &mut [Finding], sources: &Sources) {
    use std::collections::HashMap;
    let mut seen: HashMap<u64, u32> = HashMap::new();
    for finding in findings {
        let count = seen.entry(finding.hash_alike(sources).0).or_default();
        finding.occurrence = *count;
        *count += 1;
    }
}

/// Messages may quote line numbers of other files; masking digits keeps the
/// fingerprint stable when those move.
fn mask_digits(message: &str) -> String {
    message
        .chars()
        .map(|c| if c.is_ascii_digit() { '#' } else { c })
        .collect()
}

/// FNV-1a: small, stable across Rust versions and machines (unlike
/// `DefaultHasher`); fingerprints and shard assignment use it.
pub struct Fnv64(pub u64);

/// A file that did not parse: `yaml/syntax` or `yaml/duplicate-key`, at the
/// parser's span, in its words.
impl From<confvet_syntax::yaml::ParseError> for Finding {
    fn from(error: confvet_syntax::yaml::ParseError) -> Finding {
        let rule = match error.kind {
            confvet_syntax::yaml::ParseErrorKind::Syntax => &crate::rules::yaml::SYNTAX,
            confvet_syntax::yaml::ParseErrorKind::DuplicateKey => {
                &crate::rules::yaml::DUPLICATE_KEY
            }
        };
        Finding::new(rule, error.span, error.message)
    }
}

impl Default for Fnv64 {
    fn default() -> Fnv64 {
        Fnv64::new()
    }
}

impl Fnv64 {
    pub fn new() -> Fnv64 {
        Fnv64(0xcbf2_9ce4_8422_2325)
    }

    pub fn write(&mut self, text: &str) {
        self.write_bytes(text.as_bytes());
    }

    /// `bytes`, then a byte no UTF-8 text holds, so that two writes are
    /// never taken for one.
    pub fn write_bytes(&mut self, bytes: &[u8]) {
        for &byte in bytes.iter().chain(std::iter::once(&0xff)) {
            self.0 ^= u64::from(byte);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// Sort findings by file, position and rule, so thread timing never shows.
pub fn sort_findings(findings: &mut [Finding], sources: &Sources) {
    findings.sort_by_cached_key(|f| {
        (
            sources.name(f.span.file),
            f.span.start,
            f.rule,
            f.message.clone(),
        )
    });
}

/// At most this many findings of one rule in one file are shown.
pub const MAX_PER_RULE_AND_FILE: usize = 100;

/// Keep a report bounded: of the findings of one rule in one file (sorted),
/// keep the first `max` and replace the rest by one finding that counts
/// them, at the first one left out. Returns how many were left out.
///
/// It runs twice: on each unit whose check made very many findings, with a
/// generous `max`, so that memory does not grow with the units of a run,
/// then on the report. A finding that stands for others
/// ([`Finding::left_out`]) is always left out, and counts as them.
pub fn cap_per_rule_and_file(findings: &mut Vec<Finding>, max: usize) -> usize {
    use std::collections::HashMap;
    let mut seen: HashMap<(u32, &'static str), usize> = HashMap::new();
    let mut kept = Vec::with_capacity(findings.len().min(max * 8));
    // (index into kept of the summary, count, worst severity)
    let mut summaries: HashMap<(u32, &'static str), (usize, usize, Severity)> = HashMap::new();
    let mut left_out = 0;
    for f in findings.drain(..) {
        let key = (f.span.file.0, f.rule);
        if f.left_out == 0 {
            let n = seen.entry(key).or_default();
            *n += 1;
            if *n <= max {
                kept.push(f);
                continue;
            }
        }
        let stands_for = f.left_out.max(1);
        left_out += stands_for;
        match summaries.get_mut(&key) {
            Some((_, count, worst)) => {
                *count += stands_for;
                *worst = (*worst).max(f.severity);
            }
            None => {
                summaries.insert(key, (kept.len(), stands_for, f.severity));
                kept.push(f);
            }
        }
    }
    for ((_, rule), (at, count, worst)) in summaries {
        let first = &kept[at];
        kept[at] = Finding {
            rule,
            kind: first.kind,
            severity: worst,
            message: format!(
                "{count} more {rule} findings in this file are not shown (at most {max} per rule and file)"
            ),
            span: first.span,
            label: None,
            path: None,
            related: Vec::new(),
            help: None,
            occurrence: 0,
            left_out: count,
            fix: None,
        };
    }
    *findings = kept;
    left_out
}

/// Per unit, findings are capped only past this many: a real unit never
/// makes so many, and its report is capped as every report is.
pub const UNIT_FINDINGS_BEFORE_CAP: usize = 10_000;

/// At most this many findings of one rule in one file are kept per unit,
/// once the unit has made more than [`UNIT_FINDINGS_BEFORE_CAP`].
pub const UNIT_MAX_PER_RULE_AND_FILE: usize = 1_000;

/// A problem that is not a finding (a path that cannot be read, a bad
/// combination of flags): the run is incomplete and exits 2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunError {
    /// The display name of the file or directory it is about, if any.
    pub file: Option<String>,
    /// The whole message, as `confvet: ` prints it (naming the file itself).
    pub message: String,
}

impl RunError {
    pub fn new(message: impl Into<String>) -> RunError {
        RunError {
            file: None,
            message: message.into(),
        }
    }

    pub fn about(file: impl Into<String>, message: impl Into<String>) -> RunError {
        RunError {
            file: Some(file.into()),
            message: message.into(),
        }
    }
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use confvet_syntax::source::SourceFile;

    #[test]
    fn a_flood_of_one_rule_in_one_file_is_cut_and_counted() {
        let sources = Sources::new();
        let a = sources.add(SourceFile::new("a.yml".into(), None, "x".repeat(1000)));
        let b = sources.add(SourceFile::new("b.yml".into(), None, "x".repeat(1000)));
        let mut findings: Vec<Finding> =
            (0..250)
                .map(|i| Finding::new(&crate::rules::yaml::SYNTAX, Span::new(a, i, i + 1), "bad"))
                .chain((0..3).map(|i| {
                    Finding::new(&crate::rules::yaml::SYNTAX, Span::new(b, i, i + 1), "bad")
                }))
                .collect();
        let left_out = cap_per_rule_and_file(&mut findings, 100);
        assert_eq!(left_out, 150);
        assert_eq!(findings.len(), 100 + 1 + 3);
        assert!(
            findings[100]
                .message
                .starts_with("150 more yaml/syntax findings")
        );
        assert_eq!(findings[100].span, Span::new(a, 100, 101));
        let fingerprints: std::collections::HashSet<String> =
            findings.iter().map(|f| f.fingerprint(&sources)).collect();
        assert_eq!(fingerprints.len(), 3, "one per distinct finding");
    }

    #[test]
    fn fingerprint_ignores_position_but_not_path() {
        let sources = Sources::new();
        let a = sources.add(SourceFile::new(
            "v.yml".into(),
            None,
            "x: 1\n\ny: 2\n".into(),
        ));
        let f1 =
            Finding::new(&crate::rules::ytt::VALIDATION, Span::new(a, 0, 4), "bad").with_path("x");
        let mut f2 = f1.clone();
        f2.span = Span::new(a, 6, 10);
        assert_eq!(f1.fingerprint(&sources), f2.fingerprint(&sources));
        let f3 = f1.clone().with_path("y");
        assert_ne!(f1.fingerprint(&sources), f3.fingerprint(&sources));
    }

    #[test]
    fn findings_alike_get_fingerprints_of_their_own_that_survive_moved_lines() {
        // One problem in each of two documents of a file: only the position
        // tells them apart.
        let text = "kind: VM\ncores: 8\n---\nkind: VM\ncores: 8\n";
        let moved = format!("# a comment\n\n{text}");
        let fingerprints = |text: &str| {
            let sources = Sources::new();
            let file = sources.add(SourceFile::new("vms.yaml".into(), None, text.into()));
            let mut findings: Vec<Finding> = text
                .match_indices("8")
                .map(|(at, _)| {
                    Finding::new(
                        &crate::rules::kubevirt::VALIDATION,
                        Span::new(file, at, at + 1),
                        "cores must be at most 4",
                    )
                })
                .collect();
            number_alike(&mut findings, &sources);
            let first = findings[0].first_fingerprint(&sources);
            let all: Vec<String> = findings.iter().map(|f| f.fingerprint(&sources)).collect();
            (first, all)
        };
        let (first, here) = fingerprints(text);
        assert_eq!(here.len(), 2);
        assert_ne!(here[0], here[1]);
        assert_eq!(here[0], first, "the first keeps the plain fingerprint");
        assert_eq!(fingerprints(&moved).1, here);
    }
}
