//! SARIF 2.1.0 output, for GitHub code scanning and other SARIF viewers,
//! built with the typed model of `serde-sarif`.
//!
//! One run:
//!
//! * `tool.driver`: name, `version` and `semanticVersion` (confvet's),
//!   `informationUri` (the home page) and `rules`: every rule of the rule
//!   table, whether or not it fired, with its summary, documentation
//!   (`help.text` and `help.markdown`) and `helpUri` (its documentation page),
//!   so viewers can show help for any result;
//! * `invocations[0]`: `executionSuccessful` is false when the run had errors
//!   (exit 2: a path that cannot be read, bad flags), each of which is a
//!   `toolExecutionNotifications` entry, located at the file it names;
//! * `automationDetails.id`: the `--category` given, ending in `/` as GitHub
//!   wants; without it there is none, and the upload action fills in its own;
//! * `originalUriBaseIds`: `%SRCROOT%`, the directory confvet ran in; every
//!   relative URI names it as its `uriBaseId`;
//! * `columnKind`: `unicodeCodePoints`.
//!
//! Each result has:
//!
//! * `ruleId`, `ruleIndex` (into `rules`) and `level` from the severity;
//! * `message.text`: the message, then the help on its own line, then a line
//!   of links to the related locations, `[rule declared here](1)`, which is
//!   how GitHub shows them. Literal `[` and `]` in the text are escaped with a
//!   backslash, as SARIF asks of messages with links;
//! * one location with a relative URI (the display name, percent-encoded) and
//!   a region in 1-based lines and code-point columns, the end exclusive. A
//!   source that is not a file, such as a `--data-value` flag, has no URI: its
//!   result has no location, and the message starts with the source's name
//!   and position (`(data-value arg):1:6: ...`);
//! * `relatedLocations` with ids from 1 and their messages (files only; one
//!   that is not a file is named in the message);
//! * `partialFingerprints["confvet/v1"]`: the finding's fingerprint, which
//!   does not change when lines move and is unique within the run. We never
//!   write `primaryLocationLineHash`: GitHub computes that one itself;
//! * `properties`: the finding's `kind` and, when it has one, its data `path`;
//! * `fixes`: the fix the finding proposes, when it has one (never an empty
//!   `artifactChanges`): one `artifactChange` per file with its
//!   `replacements` (`deletedRegion`, empty for an insertion, and
//!   `insertedContent.text`), and the fix's `applicability` (`safe`,
//!   `unsafe`, `display-only`) in its `properties`.
//!
//! A clean run has `results: []`.

use super::model::{Emitter, Region, Report, RunError, locate, locate_edit};
use crate::finding::{Finding, Fix, Severity};
use crate::rules::{self, Documented, Rule};
use crate::source::{FileId, Sources, Span};
use crate::uri::{self, Syntax};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use rayon::prelude::*;
use serde_json::json;
use serde_sarif::sarif;
use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::Path;

const SCHEMA_URI: &str = "https://json.schemastore.org/sarif-2.1.0.json";
/// Our key in `partialFingerprints`; bump the suffix if the hash changes.
const FINGERPRINT_KEY: &str = "confvet/v1";
/// The base of relative URIs: the directory confvet ran in.
const SRCROOT: &str = "%SRCROOT%";

/// Writes a SARIF 2.1.0 log.
pub struct SarifEmitter;

impl Emitter for SarifEmitter {
    fn emit(&self, out: &mut dyn Write, report: &Report<'_>) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut *out, &log(report))?;
        writeln!(out)
    }
}

/// The whole log of a report.
fn log(report: &Report<'_>) -> sarif::Sarif {
    let version = env!("CARGO_PKG_VERSION");
    let driver = sarif::ToolComponent::builder()
        .name("confvet")
        .version(version)
        .semantic_version(version)
        .information_uri(rules::HOMEPAGE)
        .rules(rules::RULES.iter().copied().map(rule).collect::<Vec<_>>())
        .build();
    let mut invocation = sarif::Invocation::builder()
        .execution_successful(report.errors.is_empty())
        .build();
    if !report.errors.is_empty() {
        invocation.tool_execution_notifications =
            Some(report.errors.iter().map(notification).collect());
    }
    // On all cores, as the JSON report: each finding's lines come from its
    // file, read again from disk.
    let results: Vec<sarif::Result> = report
        .findings
        .par_iter()
        .map(|finding| result(finding, report.sources))
        .collect();
    let mut run = sarif::Run::builder()
        .tool(sarif::Tool::builder().driver(driver).build())
        .invocations(vec![invocation])
        .original_uri_base_ids(BTreeMap::from([(
            SRCROOT.to_string(),
            source_root(report.base_dir),
        )]))
        .column_kind(json!("unicodeCodePoints"))
        .results(results)
        .build();
    if let Some(category) = report.category {
        run.automation_details = Some(sarif::RunAutomationDetails {
            id: Some(automation_id(category)),
            ..Default::default()
        });
    }
    sarif::Sarif::builder()
        .schema(SCHEMA_URI)
        .version(json!("2.1.0"))
        .runs(vec![run])
        .build()
}

/// GitHub takes everything up to the last `/` of `automationDetails.id` as
/// the category (the rest names the run), so a category ends with `/`, as
/// the upload action makes its `category` input.
fn automation_id(category: &str) -> String {
    if category.ends_with('/') {
        category.to_string()
    } else {
        format!("{category}/")
    }
}

/// `%SRCROOT%`: the directory relative URIs are relative to, as an absolute
/// URI ending in `/`; only described when it is not known.
fn source_root(base_dir: Option<&Path>) -> sarif::ArtifactLocation {
    let description = Some(sarif::Message {
        text: Some("The directory confvet ran in; file names are relative to it.".into()),
        ..Default::default()
    });
    let uri = base_dir
        .and_then(|dir| dir.to_str())
        .filter(|dir| Path::new(dir).is_absolute())
        .map(|dir| {
            let mut uri = file_uri(dir);
            if !uri.ends_with('/') {
                uri.push('/');
            }
            uri
        });
    sarif::ArtifactLocation {
        uri,
        description,
        ..Default::default()
    }
}

/// A `reportingDescriptor` for one rule of the table.
fn rule(rule: &Rule) -> sarif::ReportingDescriptor {
    let text = |text: &str| {
        sarif::MultiformatMessageString::builder()
            .text(text)
            .build()
    };
    sarif::ReportingDescriptor::builder()
        .id(rule.id)
        .name(pascal_case(rule.id))
        .short_description(text(rule.summary()))
        .full_description(text(what_it_does(rule.docs())))
        .help(
            sarif::MultiformatMessageString::builder()
                .text(rule.docs())
                .markdown(rule.docs())
                .build(),
        )
        .help_uri(rules::doc_url(rule.id))
        .default_configuration(
            sarif::ReportingConfiguration::builder()
                .level(json!(level_name(rule.severity)))
                .build(),
        )
        .build()
}

fn result(finding: &Finding, sources: &Sources) -> sarif::Result {
    let mut text = String::new();
    let primary = physical_location(sources, finding.span);
    if primary.is_none() {
        text.push_str(&escape_brackets(&position(sources, finding.span)));
        text.push_str(": ");
    }
    text.push_str(&escape_brackets(&finding.message));
    if let Some(help) = &finding.help {
        text.push_str("\nhelp: ");
        text.push_str(&escape_brackets(help));
    }
    let mut related = Vec::new();
    let mut links = Vec::new();
    for item in &finding.related {
        let message = (!item.message.is_empty()).then(|| sarif::Message {
            text: Some(item.message.clone()),
            ..Default::default()
        });
        match physical_location(sources, item.span) {
            Some(location) => {
                let id = related.len() as i64 + 1;
                let label = if item.message.is_empty() {
                    "related location"
                } else {
                    &item.message
                };
                links.push(format!("[{}]({id})", escape_brackets(label)));
                related.push(sarif::Location {
                    id: Some(id),
                    physical_location: Some(location),
                    message,
                    ..Default::default()
                });
            }
            None => {
                let mut named = position(sources, item.span);
                if !item.message.is_empty() {
                    named = format!("{named}: {}", item.message);
                }
                links.push(escape_brackets(&named));
            }
        }
    }
    if !links.is_empty() {
        text.push('\n');
        text.push_str(&links.join(", "));
    }

    let mut properties = BTreeMap::from([("kind".to_string(), json!(finding.kind.as_str()))]);
    if let Some(path) = &finding.path {
        properties.insert("path".into(), json!(path));
    }
    let mut result = sarif::Result::builder()
        .rule_id(finding.rule)
        .level(match finding.severity {
            Severity::Error => sarif::ResultLevel::Error,
            Severity::Warning => sarif::ResultLevel::Warning,
        })
        .message(sarif::Message {
            text: Some(text),
            ..Default::default()
        })
        .partial_fingerprints(BTreeMap::from([(
            FINGERPRINT_KEY.to_string(),
            finding.fingerprint(sources),
        )]))
        .properties(sarif::PropertyBag {
            additional_properties: properties,
            ..Default::default()
        })
        .build();
    result.rule_index = rules::RULES
        .iter()
        .position(|r| r.id == finding.rule)
        .map(|index| index as i64);
    result.locations = primary.map(|location| {
        vec![sarif::Location {
            physical_location: Some(location),
            ..Default::default()
        }]
    });
    if !related.is_empty() {
        result.related_locations = Some(related);
    }
    result.fixes = finding
        .fix
        .as_deref()
        .and_then(|fix| fix_of(fix, sources))
        .map(|fix| vec![fix]);
    result
}

/// A finding's fix as SARIF proposes one: per file, its replacements (an
/// empty deleted region inserts). None when an edit is in a source with no
/// file (a command-line value): SARIF's `artifactChanges` may not be empty,
/// and a fix applied in part is no fix.
fn fix_of(fix: &Fix, sources: &Sources) -> Option<sarif::Fix> {
    let mut changes: Vec<(FileId, sarif::ArtifactChange)> = Vec::new();
    for edit in &fix.edits {
        let (file, Region { start, end }) = locate_edit(sources, edit.span);
        file.path.as_ref()?;
        let line = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
        let replacement = sarif::Replacement {
            deleted_region: sarif::Region {
                start_line: Some(line(start.line)),
                start_column: Some(line(start.column)),
                end_line: Some(line(end.line)),
                end_column: Some(line(end.column)),
                ..Default::default()
            },
            inserted_content: Some(sarif::ArtifactContent {
                text: Some(edit.content.clone()),
                ..Default::default()
            }),
            properties: None,
        };
        match changes.iter_mut().find(|(id, _)| *id == edit.span.file) {
            Some((_, change)) => change.replacements.push(replacement),
            None => changes.push((
                edit.span.file,
                sarif::ArtifactChange {
                    artifact_location: artifact_location(&file.name),
                    properties: None,
                    replacements: vec![replacement],
                },
            )),
        }
    }
    if changes.is_empty() {
        return None;
    }
    let applicability = json!(fix.applicability.as_str());
    Some(sarif::Fix {
        artifact_changes: changes.into_iter().map(|(_, change)| change).collect(),
        description: Some(sarif::Message {
            text: Some(fix.message.clone()),
            ..Default::default()
        }),
        properties: Some(sarif::PropertyBag {
            additional_properties: BTreeMap::from([("applicability".into(), applicability)]),
            ..Default::default()
        }),
    })
}

/// A tool execution notification for one run error, located at the file it
/// names.
fn notification(error: &RunError) -> sarif::Notification {
    let mut notification = sarif::Notification::builder()
        .level(json!("error"))
        .message(sarif::Message {
            text: Some(error.message.clone()),
            ..Default::default()
        })
        .build();
    if let Some(file) = &error.file {
        notification.locations = Some(vec![sarif::Location {
            physical_location: Some(sarif::PhysicalLocation {
                artifact_location: Some(artifact_location(file)),
                ..Default::default()
            }),
            ..Default::default()
        }]);
    }
    notification
}

/// Where a span is, if its source is a file on disk: a pseudo file such as
/// `(data-value arg)` has no URI to give.
fn physical_location(sources: &Sources, span: Span) -> Option<sarif::PhysicalLocation> {
    let (file, Region { start, end }) = locate(sources, span);
    file.path.as_ref()?;
    let line = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
    Some(sarif::PhysicalLocation {
        artifact_location: Some(artifact_location(&file.name)),
        region: Some(sarif::Region {
            start_line: Some(line(start.line)),
            start_column: Some(line(start.column)),
            end_line: Some(line(end.line)),
            end_column: Some(line(end.column)),
            ..Default::default()
        }),
        ..Default::default()
    })
}

/// A file by its display name: relative names are relative to `%SRCROOT%`.
fn artifact_location(name: &str) -> sarif::ArtifactLocation {
    let uri = file_uri(name);
    let is_relative = !uri.starts_with("file:");
    sarif::ArtifactLocation {
        uri: Some(uri),
        uri_base_id: is_relative.then(|| SRCROOT.to_string()),
        ..Default::default()
    }
}

/// `name:line:column` of a span's start, for sources that are not files.
fn position(sources: &Sources, span: Span) -> String {
    let (file, region) = locate(sources, span);
    format!(
        "{}:{}:{}",
        file.name, region.start.line, region.start.column
    )
}

/// Text safe in a SARIF message with embedded links: a literal `[` or `]`
/// gets a backslash (and so does a backslash just before one).
fn escape_brackets(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '[' | ']' => {
                escaped.push('\\');
                escaped.push(c);
            }
            '\\' if matches!(chars.peek(), Some('[' | ']')) => escaped.push_str("\\\\"),
            _ => escaped.push(c),
        }
    }
    escaped
}

fn level_name(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// A display name as a URI reference: relative names stay relative (viewers
/// resolve them against the repository), absolute ones (Unix or Windows,
/// whichever platform wrote them) become `file:` URIs as `url` writes them.
fn file_uri(name: &str) -> String {
    let absolute =
        uri::from_path(name, Syntax::Unix).or_else(|| uri::from_path(name, Syntax::Windows));
    match absolute {
        Some(url) => url.into(),
        None => utf8_percent_encode(&name.replace('\\', "/"), RELATIVE).to_string(),
    }
}

/// What a relative reference keeps as it is: RFC 3986's unreserved
/// characters, its sub-delims, `@` and `/` (`:` is encoded: in a first
/// segment it would read as a scheme's end).
const RELATIVE: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b'/')
    .remove(b'!')
    .remove(b'$')
    .remove(b'&')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')')
    .remove(b'*')
    .remove(b'+')
    .remove(b',')
    .remove(b';')
    .remove(b'=')
    .remove(b'@');

/// `ytt/type-mismatch` -> `YttTypeMismatch`: SARIF wants a name distinct
/// from the id, readable as an identifier.
fn pascal_case(id: &str) -> String {
    id.split(['/', '-'])
        .flat_map(|word| {
            let mut chars = word.chars();
            chars
                .next()
                .map(|first| first.to_ascii_uppercase())
                .into_iter()
                .chain(chars)
        })
        .collect()
}

/// The "What it does" section of a rule's docs, as plain text.
fn what_it_does(docs: &str) -> &str {
    let section = docs.strip_prefix("## What it does\n").unwrap_or(docs);
    section
        .find("\n\n##")
        .map_or(section, |end| &section[..end])
        .trim()
}

#[cfg(test)]
mod tests;
