//! What a run checks Kubernetes documents against, and the check itself as
//! lint runs it: the built-in kinds of one Kubernetes version, the CRDs of
//! the tree and the configuration, the CRDs among the documents checked
//! together (a package's output), and the kinds confvet ships (KubeVirt,
//! Carvel). Each violation becomes a finding of its `kubernetes/*` rule at
//! the node that made it; a document of a kind none of them knows is
//! counted, never reported.

use super::crd::{CrdLookup, CrdSet, CrdSetBuilder, is_crd};
use super::crd_files::CrdFiles;
use super::schema::Version;
use super::validate::{Replacement, Violation, ViolationClass, validate_against};
use crate::check::edits::{rename_once, replace_once};
use crate::edit::Fix;
use crate::finding::Finding;
use crate::rules;
use crate::source::Sources;
use crate::yaml::{Node, ScalarStyle, ScalarValue, child};
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// The schemas of one run.
pub struct Catalog {
    pub version: Version,
    /// The CRDs and JSON Schemas of the tree and the configuration.
    crds: CrdFiles,
}

impl std::fmt::Debug for Catalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Catalog")
            .field("version", &self.version.name())
            .field("crd_groups", &self.crds.group_count())
            .finish()
    }
}

/// Documents of kinds no schema knows, counted by `kind (apiVersion)`.
pub type Skipped = BTreeMap<String, usize>;

/// What checking documents looked up: the kinds no schema knows, and the
/// kinds read from the tree's CRDs, whose problems a unit's stored findings
/// keep (`run::reuse`) so that a reused unit still reports them.
#[derive(Debug, Default, Clone)]
pub struct Lookups {
    pub skipped: Skipped,
    /// (API group, kind) pairs some CRD file of the tree names.
    pub crd_kinds: std::collections::BTreeSet<(String, String)>,
}

impl Lookups {
    /// Add what `more` looked up.
    pub fn merge(&mut self, more: Lookups) {
        merge_skipped(&mut self.skipped, more.skipped);
        self.crd_kinds.extend(more.crd_kinds);
    }
}

/// Add the counts of `more` to `into`.
pub fn merge_skipped(into: &mut Skipped, more: Skipped) {
    for (kind, count) in more {
        *into.entry(kind).or_default() += count;
    }
}

/// Where a document's schema comes from, for the message.
enum Origin<'a> {
    Builtin(Version),
    Crd(&'a super::crd::CrdKind),
    Bundled,
}

impl Catalog {
    pub fn new(version: Version, crds: CrdFiles) -> Catalog {
        Catalog { version, crds }
    }

    /// What reading the tree's and configuration's CRDs found wrong with
    /// them so far (`kubernetes/crd`).
    pub fn take_problems(&self) -> Vec<Finding> {
        self.crds.take_problems()
    }

    /// Every CRD or schema file the catalog may read, with its id.
    pub fn files(&self) -> Vec<(std::path::PathBuf, crate::source::FileId)> {
        self.crds.files()
    }

    /// What reading the tree's CRDs for these (group, kind) pairs found
    /// wrong (what a unit that looked them up would report).
    pub fn problems_of(&self, kinds: &[(String, String)]) -> Vec<Finding> {
        self.crds.problems_of(kinds)
    }

    /// Check documents rendered or read together: CRDs among them define
    /// kinds for the others (a package that installs a CRD and its
    /// resources), and a CRD of theirs that cannot be read is reported.
    /// `sources` holds the text the documents were read or rendered from,
    /// where fixes are made.
    pub fn check(
        &self,
        documents: &[&Node],
        sources: &Sources,
        lookups: &mut Lookups,
    ) -> Vec<Finding> {
        let mut builder = CrdSetBuilder::default();
        for document in documents.iter().filter(|d| is_crd(d)) {
            builder.add_crd(document);
        }
        let (local, mut findings) = builder.build();
        for document in documents {
            self.check_document(document, &local, sources, &mut findings, lookups);
        }
        findings
    }

    fn check_document(
        &self,
        document: &Node,
        local: &CrdSet,
        sources: &Sources,
        findings: &mut Vec<Finding>,
        lookups: &mut Lookups,
    ) {
        // A document that names no kind is not a Kubernetes resource (a
        // configuration file a template renders): not counted either.
        let (Some(api_version), Some(kind)) =
            (text(document, "apiVersion"), text(document, "kind"))
        else {
            return;
        };
        // kubectl applies the items of a `v1` `List` one by one.
        if api_version == "v1" && kind == "List" {
            if let Some(crate::yaml::Value::Array(items)) =
                child(document, "items").map(|n| &n.value)
            {
                for item in items {
                    self.check_document(&item.value, local, sources, findings, lookups);
                }
            }
            return;
        }
        let builtin = self.version.schemas();
        if let Some(root) = builtin.kind(api_version, kind) {
            let origin = Origin::Builtin(self.version);
            let mut violations = validate_against(document, &builtin.set, root);
            if builtin.resets_status(api_version, kind) {
                drop_status(&mut violations);
            }
            return report(violations, &origin, api_version, kind, sources, findings);
        }
        let group = api_version.split_once('/').map_or("", |(group, _)| group);
        let tree = self.crds.for_kind(group, kind);
        if tree.is_some() {
            lookups
                .crd_kinds
                .insert((group.to_string(), kind.to_string()));
        }
        let tree = tree.as_deref().and_then(OnceLock::get);
        for crds in [Some(local), tree].into_iter().flatten() {
            match crds.lookup(api_version, kind) {
                Some(CrdLookup::Schema(crd, version, root)) => {
                    let mut violations = validate_against(document, &crds.set, root);
                    if crd.keeps_unknown_fields {
                        violations.retain(|v| v.class != ViolationClass::UnknownField);
                    }
                    if version.status_subresource {
                        drop_status(&mut violations);
                    }
                    return report(
                        violations,
                        &Origin::Crd(crd),
                        api_version,
                        kind,
                        sources,
                        findings,
                    );
                }
                Some(CrdLookup::NotServed(crd)) => {
                    return findings.push(not_served(document, crd, api_version, kind));
                }
                Some(CrdLookup::Unchecked) => break,
                None => {}
            }
        }
        let bundled = super::schema::bundled();
        if let Some(root) = bundled.kind(api_version, kind) {
            let mut violations = validate_against(document, &bundled.set, root);
            if bundled.resets_status(api_version, kind) {
                drop_status(&mut violations);
            }
            return report(
                violations,
                &Origin::Bundled,
                api_version,
                kind,
                sources,
                findings,
            );
        }
        *lookups
            .skipped
            .entry(format!("{kind} ({api_version})"))
            .or_default() += 1;
    }
}

/// Findings of documents whose final values a consumer gives (what a ytt
/// package's templates and overlays render with its own defaults, a
/// Template's objects before it is processed): warnings, as a template
/// that fails with the package's defaults is one.
pub fn as_warnings(findings: &mut [Finding]) {
    for finding in findings {
        finding.severity = crate::finding::Severity::Warning;
    }
}

/// Drop the violations inside a document's top-level `status`, which the
/// API server drops on create and update of a kind with the status
/// subresource (its controller writes it through that subresource). Its
/// strict decoding still refuses an unknown field there, and a built-in
/// kind's decoding a value of the wrong type; but a `status` in a manifest
/// is a copy of what a cluster wrote (an export), whose fields a newer
/// version of the kind than the schema's explains better than a mistake:
/// nothing there is judged.
fn drop_status(violations: &mut Vec<Violation>) {
    violations.retain(|violation| {
        let path = violation.path.as_str();
        !(path == "status" || path.starts_with("status.") || path.starts_with("status["))
    });
}

/// Each violation as a finding of its rule.
fn report(
    violations: Vec<Violation>,
    origin: &Origin,
    api_version: &str,
    kind: &str,
    sources: &Sources,
    findings: &mut Vec<Finding>,
) {
    let schema = match origin {
        Origin::Builtin(version) => format!("{kind} {api_version}, Kubernetes {}", version.name()),
        Origin::Crd(crd) => format!("{kind} {api_version}, from {}", definition(crd)),
        Origin::Bundled => format!("{kind} {api_version}"),
    };
    for violation in violations {
        let rule = match violation.class {
            ViolationClass::UnknownField => &rules::kubernetes::UNKNOWN_FIELD,
            ViolationClass::Type => &rules::kubernetes::TYPE,
            ViolationClass::Enum => &rules::kubernetes::ENUM,
            ViolationClass::Required => &rules::kubernetes::REQUIRED,
            ViolationClass::Format => &rules::kubernetes::FORMAT,
        };
        let message = if violation.path.is_empty() {
            format!("{} ({schema})", violation.message)
        } else {
            format!("{}: {} ({schema})", violation.path, violation.message)
        };
        let fix = fix_of(&violation, sources);
        let mut finding = Finding::new(rule, violation.span, message).with_fix(fix);
        if !violation.path.is_empty() {
            finding = finding.with_path(violation.path);
        }
        if let Some(suggestion) = violation.did_you_mean {
            finding = finding.with_help(format!("did you mean `{suggestion}`?"));
        }
        if let Origin::Crd(crd) = origin {
            finding = finding.with_related(crd.at, format!("{} of this kind", definition(crd)));
        }
        findings.push(finding);
    }
}

/// The fix of a violation with an evident replacement, when the node's
/// span shows the written key or value as it is (a plain or quoted scalar
/// of the file): a node that template code computed, or that data values
/// gave, is reported where the code stands, and gets none.
fn fix_of(violation: &Violation, sources: &Sources) -> Option<Fix> {
    let Replacement { written, declared } = violation.replacement.as_ref()?;
    let file = sources.get(violation.span.file);
    let raw = file.text.get(violation.span.range())?;
    let quoted = ['\'', '"']
        .into_iter()
        .find(|q| raw.len() >= 2 && raw.starts_with(*q) && raw.ends_with(*q));
    let literal = match quoted {
        // Quoted, the new text must need no escape there either.
        Some(_) => {
            raw[1..raw.len() - 1] == **written
                && ![written, declared]
                    .iter()
                    .any(|t| t.contains(['\'', '"', '\\']))
        }
        // Plain, it must stay a string (`True` would read as a boolean).
        None => {
            raw == written
                && crate::yaml::scalar::resolve(declared, ScalarStyle::Plain, None)
                    == ScalarValue::Str(declared.clone())
        }
    };
    if !literal {
        return None;
    }
    match violation.class {
        ViolationClass::UnknownField => Fix::unsafe_(
            format!("rename `{written}` to `{declared}`"),
            vec![rename_once(sources, violation.span, written, declared)?],
        ),
        ViolationClass::Enum => Fix::unsafe_(
            format!("write `{declared}`"),
            vec![replace_once(sources, violation.span, written, declared)?],
        ),
        _ => None,
    }
}

fn not_served(
    document: &Node,
    crd: &super::crd::CrdKind,
    api_version: &str,
    kind: &str,
) -> Finding {
    let at = child(document, "apiVersion").map_or(document.span, |node| node.span);
    let served: Vec<&str> = crd
        .versions
        .iter()
        .filter(|v| v.served)
        .map(|v| v.name.as_str())
        .collect();
    let offered = if served.is_empty() {
        "serves no version".to_string()
    } else {
        format!("serves {}", served.join(", "))
    };
    Finding::new(
        &rules::kubernetes::VERSION_NOT_SERVED,
        at,
        format!(
            "{kind} {api_version}: the CustomResourceDefinition of {kind} in group {} {offered}",
            crd.group
        ),
    )
    .with_related(crd.at, format!("{} of this kind", definition(crd)))
}

/// What defined a custom kind, in words.
fn definition(crd: &super::crd::CrdKind) -> &'static str {
    if crd.from_json_schema {
        "the JSON Schema"
    } else {
        "the CustomResourceDefinition"
    }
}

fn text<'a>(document: &'a Node, key: &str) -> Option<&'a str> {
    crate::yaml::string(document, key).filter(|text| !text.is_empty())
}
