//! The findings every emitter is snapshot-tested on, so the snapshots show
//! exactly where the formats differ. Built by hand: emitters must not depend
//! on how findings are found.
//!
//! The files are a ytt package (`schema.yml`, `values.yml`) and a
//! `--data-value` given on the command line. The findings cover a related span
//! in another file and in the same file, a help text, a warning, an empty span
//! at end of file, a line with a tab and multibyte characters, and a pseudo
//! file. [`hostile`] is a finding whose every text holds what an attacker
//! writes in a key to take over a terminal.

use super::{CheckedUnit, Report, RunError, Summary};
use crate::finding::{Edit, Finding, Fix, Severity, sort_findings};
use crate::rules;
use crate::source::{FileId, SourceFile, Sources, Span};
use std::path::Path;

pub(crate) const SCHEMA_YML: &str = "\
#@data/values-schema
---
replicas: 1
service_account: \"\"
port:
  #@schema/validation min=1, max=32767
  https: 443
  http: 80
#@schema/validation one_of=[\"core\", \"web\"]
équipe: core
";

/// Line 7 has a tab before the value and multibyte characters before and in
/// it; the last line leaves a flow sequence open until the end of the file.
pub(crate) const VALUES_YML: &str = "\
#@data/values
---
port:
  https: 70000
  http: \"8080\"
replicas: 1
équipe:\t\"naïve\"
serviceaccount: payments
replicas: 3
labels: [a, b
";

pub(crate) const DATA_VALUE_ARG: &str = "port=70000";

/// What an attacker writes in a key: a terminal title (OSC 0 … BEL), a
/// hyperlink (OSC 8 … ST), a C1 CSI that recolours, DEL, a right-to-left
/// mark (zero columns wide, where it is drawn at all) and a right-to-left
/// override that shows `exe.yml` as `lmy.exe`.
pub(crate) const HOSTILE: &str = "\u{1b}]0;pwned\u{7}\u{1b}]8;;https://evil.example/\u{1b}\\click\
     \u{1b}]8;;\u{1b}\\\u{9b}31m\u{7f}\u{200f}\u{202e}lmy.exe";

/// The characters of [`HOSTILE`] no terminal may get raw.
pub(crate) const HOSTILE_CHARS: [char; 6] = [
    '\u{1b}', '\u{7}', '\u{9b}', '\u{7f}', '\u{200f}', '\u{202e}',
];

/// [`HOSTILE`] as messages, labels and file names show it.
pub(crate) const HOSTILE_ESCAPED: &str = "\\u{1b}]0;pwned\\u{7}\\u{1b}]8;;https://evil.example/\\u{1b}\\click\
     \\u{1b}]8;;\\u{1b}\\\\u{9b}31m\\u{7f}\\u{200f}\\u{202e}lmy.exe";

/// [`HOSTILE`] as a snippet shows it: one picture for each character.
pub(crate) const HOSTILE_PICTURED: &str =
    "␛]0;pwned␇␛]8;;https://evil.example/␛\\click␛]8;;␛\\�31m␡��lmy.exe";

/// Panics unless every character of `out` a terminal could act on is
/// gone: the characters of [`HOSTILE_CHARS`], and every other control but
/// line feed and tab, and every bidirectional formatting character. An ESC
/// is let through only where `colours` says confvet writes its own colour
/// codes, and only as one of them (`ESC [ digits;… m`).
pub(crate) fn assert_nothing_raw(out: &str, colours: bool) {
    let bidirectional = |c: char| {
        matches!(c, '\u{61c}' | '\u{200e}' | '\u{200f}')
            || ('\u{202a}'..='\u{202e}').contains(&c)
            || ('\u{2066}'..='\u{2069}').contains(&c)
    };
    for (at, c) in out.char_indices() {
        if c == '\n' || c == '\t' {
            continue;
        }
        if c == '\u{1b}' && colours {
            let code = out[at + 1..]
                .strip_prefix('[')
                .map(|rest| rest.trim_start_matches(|c: char| c.is_ascii_digit() || c == ';'));
            if code.is_some_and(|rest| rest.starts_with('m')) {
                continue;
            }
        }
        let before = out[..at].char_indices().rev().nth(39).map_or(0, |(i, _)| i);
        assert!(
            !(HOSTILE_CHARS.contains(&c) || c.is_control() || bidirectional(c)),
            "{c:?} at byte {at}, after {:?}:\n{out}",
            &out[before..at]
        );
    }
}

/// A run's inputs to an emitter.
pub(crate) struct Fixture {
    pub sources: Sources,
    pub findings: Vec<Finding>,
    pub units: Vec<CheckedUnit>,
    pub summary: Summary,
    pub errors: Vec<RunError>,
    pub fail_on: Option<Severity>,
}

impl Fixture {
    /// What `emitter` writes for this fixture.
    pub(crate) fn emit(&self, emitter: &dyn super::Emitter) -> String {
        let mut out = Vec::new();
        emitter.emit(&mut out, &self.report()).unwrap();
        String::from_utf8(out).unwrap()
    }

    pub(crate) fn report(&self) -> Report<'_> {
        Report {
            findings: &self.findings,
            sources: &self.sources,
            units: &self.units,
            summary: self.summary,
            errors: &self.errors,
            fail_on: self.fail_on,
            category: None,
            base_dir: Some(Path::new("/work/pkg")),
            unchecked_kinds: &super::model::NONE_UNCHECKED,
        }
    }
}

/// The span of the `nth` (from 0) occurrence of `needle` in `text`.
fn span_of(file: FileId, text: &str, needle: &str, nth: usize) -> Span {
    let (start, _) = text
        .match_indices(needle)
        .nth(nth)
        .unwrap_or_else(|| panic!("fixture lacks {needle:?} #{nth}"));
    Span::new(file, start, start + needle.len())
}

fn units() -> Vec<CheckedUnit> {
    vec![
        CheckedUnit {
            name: ".".into(),
            system: "ytt",
            files: vec!["schema.yml".into(), "values.yml".into()],
        },
        CheckedUnit {
            name: "app".into(),
            system: "ytt",
            files: vec!["app/schema.yml".into(), "app/values.yml".into()],
        },
        CheckedUnit {
            name: "pipeline.yml".into(),
            system: "tekton",
            files: vec!["pipeline.yml".into()],
        },
    ]
}

fn sources() -> (Sources, FileId, FileId, FileId) {
    let sources = Sources::new();
    let schema = sources.add(SourceFile::new(
        "schema.yml".into(),
        Some("/work/pkg/schema.yml".into()),
        SCHEMA_YML.into(),
    ));
    let values = sources.add(SourceFile::new(
        "values.yml".into(),
        Some("/work/pkg/values.yml".into()),
        VALUES_YML.into(),
    ));
    let arg = sources.add(SourceFile::new(
        "(data-value arg)".into(),
        None,
        DATA_VALUE_ARG.into(),
    ));
    (sources, schema, values, arg)
}

/// Seven findings (six errors, one warning) in two files and a pseudo file,
/// one unit with findings and two clean ones.
pub(crate) fn with_findings() -> Fixture {
    let (sources, schema, values, arg) = sources();
    let s = |needle: &str, nth: usize| span_of(schema, SCHEMA_YML, needle, nth);
    let v = |needle: &str, nth: usize| span_of(values, VALUES_YML, needle, nth);
    let end_of_values = Span::new(values, VALUES_YML.len(), VALUES_YML.len());

    let mut findings = vec![
        Finding::new(
            &rules::ytt::TYPE_MISMATCH,
            span_of(arg, DATA_VALUE_ARG, "70000", 0),
            "port must be a map, found integer",
        )
        .with_label("integer given on the command line")
        .with_path("port")
        .with_related(s("port:", 0), "map declared here"),
        Finding::new(
            &rules::ytt::VALIDATION,
            v("70000", 0),
            "port.https must be a value <= 32767, found 70000",
        )
        .with_label("value breaks max=32767")
        .with_path("port.https")
        .with_related(
            s("#@schema/validation min=1, max=32767", 0),
            "rule declared here",
        ),
        Finding::new(
            &rules::ytt::TYPE_MISMATCH,
            v("\"8080\"", 0),
            "port.http must be an integer, found a string",
        )
        .with_label("a string")
        .with_path("port.http")
        .with_related(s("80", 0), "integer inferred from this default")
        .with_help("remove the quotes to give an integer: 8080"),
        Finding::new(
            &rules::ytt::VALIDATION,
            v("\"naïve\"", 0),
            "équipe must be one of \"core\", \"web\", found \"naïve\"",
        )
        .with_severity(Severity::Warning)
        .with_label("not one of the allowed values")
        .with_path("équipe")
        .with_related(s("one_of=[\"core\", \"web\"]", 0), "rule declared here"),
        Finding::new(
            &rules::ytt::UNKNOWN_KEY,
            v("serviceaccount", 0),
            "serviceaccount is not declared in the schema",
        )
        .with_label("unknown key")
        .with_path("serviceaccount")
        .with_help("did you mean \"service_account\"?"),
        Finding::new(
            &rules::yaml::DUPLICATE_KEY,
            v("replicas", 1),
            "replicas is given twice in one map",
        )
        .with_label("given again here")
        .with_path("replicas")
        .with_related(v("replicas", 0), "first given here"),
        Finding::new(
            &rules::yaml::SYNTAX,
            end_of_values,
            "a flow sequence is not closed before the end of the file",
        )
        .with_label("expected `]`")
        .with_related(v("[", 0), "sequence starts here"),
    ];
    // Set here, not by `with_fix`: emitters show any fix, whatever the
    // rule table allows.
    findings[2].fix =
        Fix::unsafe_("write 8080", vec![Edit::replace(v("\"8080\"", 0), "8080")]).map(Box::new);
    sort_findings(&mut findings, &sources);
    Fixture {
        sources,
        findings,
        units: units(),
        summary: Summary {
            files: 5,
            units: 3,
            errors: 6,
            warnings: 1,
            suppressed: 2,
        },
        errors: Vec::new(),
        fail_on: Some(Severity::Error),
    }
}

/// The same files and units with nothing found.
pub(crate) fn clean() -> Fixture {
    let (sources, ..) = sources();
    Fixture {
        sources,
        findings: Vec::new(),
        units: units(),
        summary: Summary {
            files: 5,
            units: 3,
            ..Summary::default()
        },
        errors: Vec::new(),
        fail_on: Some(Severity::Error),
    }
}

/// One file `name` holding `text` and one error at bytes `start..end`, for
/// the renderers' edge cases.
pub(crate) fn single(name: &str, text: &str, start: usize, end: usize) -> Fixture {
    let sources = Sources::new();
    let file = sources.add(SourceFile::new(name.into(), None, text.into()));
    let finding = Finding::new(
        &rules::yaml::SYNTAX,
        Span::new(file, start, end),
        "edge case",
    )
    .with_label("here");
    Fixture {
        sources,
        findings: vec![finding],
        units: vec![CheckedUnit {
            name: name.into(),
            system: "ytt",
            files: vec![name.into()],
        }],
        summary: Summary {
            files: 1,
            units: 1,
            errors: 1,
            ..Summary::default()
        },
        errors: Vec::new(),
        fail_on: Some(Severity::Error),
    }
}

/// One error in a file named after [`HOSTILE`], on the value after a
/// [`HOSTILE`] key, whose message (over two lines), label, data path,
/// related span and message, help and fix message all hold [`HOSTILE`].
pub(crate) fn hostile() -> Fixture {
    let sources = Sources::new();
    let name = format!("pkg/{HOSTILE}.yml");
    let text = format!("#@data/values\n---\n{HOSTILE}: oops\n");
    let file = sources.add(SourceFile::new(
        name.clone(),
        Some(format!("/work/{name}").into()),
        text.clone(),
    ));
    let value = span_of(file, &text, "oops", 0);
    let mut finding = Finding::new(
        &rules::ytt::UNKNOWN_KEY,
        value,
        format!("{HOSTILE} is not declared\nin the schema"),
    )
    .with_label(format!("value of {HOSTILE}"))
    .with_path(HOSTILE)
    .with_related(span_of(file, &text, HOSTILE, 0), format!("key {HOSTILE}"))
    .with_help(format!("did you mean {HOSTILE}?"));
    finding.fix = Fix::unsafe_(
        format!("rename {HOSTILE}"),
        vec![Edit::replace(value, "fine")],
    )
    .map(Box::new);
    Fixture {
        sources,
        findings: vec![finding],
        units: vec![CheckedUnit {
            name: "pkg".into(),
            system: "ytt",
            files: vec![name],
        }],
        summary: Summary {
            files: 1,
            units: 1,
            errors: 1,
            ..Summary::default()
        },
        errors: Vec::new(),
        fail_on: Some(Severity::Error),
    }
}

/// `errors` errors then `warnings` warnings, one per line of one values file,
/// for the formats that cap how many findings they show.
pub(crate) fn many(errors: usize, warnings: usize) -> Fixture {
    let sources = Sources::new();
    let count = errors + warnings;
    let text: String = (1..=count).map(|n| format!("key{n}: {n}\n")).collect();
    let file = sources.add(SourceFile::new(
        "values.yml".into(),
        Some("/work/pkg/values.yml".into()),
        text.clone(),
    ));
    let findings = (1..=count)
        .map(|n| {
            let finding = Finding::new(
                &rules::ytt::UNKNOWN_KEY,
                span_of(file, &text, &format!("key{n}:"), 0),
                format!("key{n} is not declared in the schema"),
            );
            if n > errors {
                finding.with_severity(Severity::Warning)
            } else {
                finding
            }
        })
        .collect();
    Fixture {
        sources,
        findings,
        units: vec![CheckedUnit {
            name: ".".into(),
            system: "ytt",
            files: vec!["values.yml".into()],
        }],
        summary: Summary {
            files: 1,
            units: 1,
            errors,
            warnings,
            ..Summary::default()
        },
        errors: Vec::new(),
        fail_on: Some(Severity::Error),
    }
}
