//! Classification: one pass over a file's lines tells which checker it is
//! for and what ytt annotations it holds, without parsing it; and which
//! documents of a file of a system that system reads (the others are plain
//! resources, checked as manifests with `--kubernetes`).

use super::model::{Resource, System};
use crate::yaml::Node;
use regex::Regex;
use std::sync::LazyLock;

/// Decide from the text which checker a YAML file is for, without parsing,
/// so that a file that does not parse is still reported by its checker.
pub fn classify(text: &str) -> Option<System> {
    scan(text).system
}

/// What one pass over a file's lines tells about it.
pub(super) struct Scan {
    pub(super) system: Option<System>,
    pub(super) has_schema: bool,
    pub(super) has_values: bool,
    pub(super) has_overlay: bool,
    /// What the file holds for checks beside its system's.
    pub(super) resource: Resource,
    /// See `DiscoveredFile::crd_groups`.
    pub(super) crd_groups: Vec<String>,
}

pub(super) fn scan(text: &str) -> Scan {
    // A byte-order mark is not part of the first line's content.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut is_tekton = false;
    let mut is_kubevirt = false;
    let mut is_ytt = false;
    let mut has_schema = false;
    let mut has_values = false;
    let mut has_overlay = false;
    let mut is_packaging = false;
    let mut is_package_kind = false;
    let mut is_crd_api = false;
    let mut is_crd_kind = false;
    let mut has_api_version = false;
    let mut has_kind = false;
    // The top-level `apiVersion` and `kind` of each document so far, and of
    // the one the scan is in.
    let mut documents: Vec<(Option<String>, Option<String>)> = Vec::new();
    let mut document: (Option<String>, Option<String>) = (None, None);
    // The indentation of the line that opened the block scalar the scan is
    // in: its text is content, never an annotation or a resource's kind.
    let mut block_at: Option<usize> = None;
    // Once for the text, not for each of its lines: most files of a tree
    // hold no `#@` at all.
    let has_marks = text.contains("#@");
    for raw in text.lines() {
        let line = raw.trim_start();
        let indent = raw.len() - line.len();
        if let Some(opened) = block_at {
            if line.is_empty() || indent > opened {
                continue;
            }
            block_at = None;
        }
        if opens_block_scalar(line) {
            block_at = Some(indent);
        }
        if starts_document(raw) {
            documents.push(std::mem::take(&mut document));
        }
        // `key: #@ expr`, `- #@ expr`: a template whose only code is
        // computed values (a YAML comment follows a blank).
        is_ytt |= has_marks && line.contains(" #@");
        match line.as_bytes().first() {
            Some(b'#') if line.starts_with("#@") => {
                is_ytt = true;
                // An annotation's name ends at the first blank:
                // `#@data/values-schemaX` is another annotation.
                let name = line[2..].split_whitespace().next().unwrap_or("");
                has_schema |= name == "data/values-schema";
                has_values |= name == "data/values";
                has_overlay |= name.starts_with("overlay/");
            }
            Some(b'a') => {
                if let Some(rest) = line.strip_prefix("apiVersion:") {
                    let api = rest.trim().trim_matches(['"', '\'']);
                    is_tekton |= is_tekton_api(api);
                    is_packaging |= api.starts_with("data.packaging.carvel.dev/");
                    is_crd_api |= api.starts_with("apiextensions.k8s.io/");
                    has_api_version |= indent == 0;
                    if indent == 0 {
                        document.0 = Some(api.to_string());
                    }
                }
            }
            Some(b'k') => {
                if let Some(rest) = line.strip_prefix("kind:") {
                    let kind = rest.trim().trim_matches(['"', '\'']);
                    is_kubevirt |= kind == "Template" || kind == "VirtualMachine";
                    is_package_kind |= kind == "Package";
                    is_crd_kind |= kind == "CustomResourceDefinition";
                    has_kind |= indent == 0;
                    if indent == 0 {
                        document.1 = Some(kind.to_string());
                    }
                }
            }
            _ => {}
        }
    }
    documents.push(document);
    let system = if is_tekton {
        Some(System::Tekton)
    } else if is_kubevirt {
        Some(System::Kubevirt)
    } else if is_ytt {
        Some(System::Ytt)
    } else {
        None
    };
    // Helm and Jinja templates are text, not YAML, until rendered (looked
    // for only in what could be a manifest).
    let is_text_template = is_text_template(text);
    let manifest = !is_text_template
        && match system {
            // A Tekton or KubeVirt file may hold other resources beside
            // its system's (a Triggers install file's Deployments and
            // RBAC, a ConfigMap beside a Template).
            Some(system @ (System::Tekton | System::Kubevirt)) => {
                documents.iter().any(|document| match document {
                    (Some(api_version), Some(kind)) => !reads(system, api_version, kind),
                    _ => false,
                })
            }
            _ => has_api_version && has_kind,
        };
    Scan {
        system,
        has_schema,
        has_values,
        has_overlay,
        resource: Resource {
            carvel_package: is_packaging && is_package_kind,
            crd: is_crd_api && is_crd_kind,
            manifest,
        },
        crd_groups: if is_crd_api && is_crd_kind {
            groups_named(text)
        } else {
            Vec::new()
        },
    }
}

/// Whether the check of `system` reads a parsed document (by its
/// `apiVersion` and `kind`); the other documents of a file of the system
/// are plain resources.
pub fn reads_document(system: System, document: &Node) -> bool {
    let field = |key| crate::yaml::string(document, key).unwrap_or("");
    reads(system, field("apiVersion"), field("kind"))
}

/// Whether the check of `system` reads a resource of `api_version` and
/// `kind`: Tekton every resource of its API groups (a file holding one is
/// Tekton's), KubeVirt the Templates and VirtualMachines it checks.
fn reads(system: System, api_version: &str, kind: &str) -> bool {
    match system {
        System::Tekton => is_tekton_api(api_version),
        System::Kubevirt => {
            names_template(api_version, kind) || names_virtual_machine(api_version, kind)
        }
        System::Ytt => true,
    }
}

/// The API groups of Tekton Pipelines, Triggers and Pipelines-as-Code
/// (whose Repository declares the params its templates' placeholders may
/// name).
fn is_tekton_api(api_version: &str) -> bool {
    api_version.starts_with("tekton.dev/")
        || api_version.starts_with("triggers.tekton.dev/")
        || api_version.starts_with("pipelinesascode.tekton.dev/")
}

/// Whether a line starts a YAML document (`---`, alone or before content).
fn starts_document(line: &str) -> bool {
    line.strip_prefix("---")
        .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t', '\r']))
}

/// Whether `line` (without its indentation) ends in a block scalar header,
/// `key: |`, `- >-`, `key: |2 # comment`: the lines indented below it are
/// the scalar's text.
pub(super) fn opens_block_scalar(line: &str) -> bool {
    let value = if let Some(rest) = line.strip_prefix("- ") {
        rest.rsplit_once(": ").map_or(rest, |(_, v)| v)
    } else if let Some((_, v)) = line.rsplit_once(": ") {
        v
    } else {
        return false;
    };
    let value = value.split(" #").next().unwrap_or("").trim();
    let mut chars = value.chars();
    matches!(chars.next(), Some('|' | '>'))
        && chars.all(|c| c.is_ascii_digit() || c == '+' || c == '-')
}

/// Whether a resource of `api_version` and `kind` is a Template the check
/// reads; the other documents of a KubeVirt file are plain resources.
pub fn names_template(api_version: &str, kind: &str) -> bool {
    kind == "Template" && matches!(api_version, "template.openshift.io/v1" | "v1")
}

/// Whether a resource of `api_version` and `kind` is a VirtualMachine the
/// check reads.
pub fn names_virtual_machine(api_version: &str, kind: &str) -> bool {
    kind == "VirtualMachine" && api_version.starts_with("kubevirt.io/")
}

/// The API groups a text names (`group: example.com` in YAML, `"group":
/// "example.com"` in JSON): a superset of those its CRDs define.
pub fn groups_named(text: &str) -> Vec<String> {
    let mut groups: Vec<String> = GROUP
        .captures_iter(text)
        .map(|c| c[1].to_string())
        .collect();
    groups.sort();
    groups.dedup();
    groups
}

/// `group: example.com` in YAML, `"group": "example.com"` in JSON.
static GROUP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?m)(?:^|[\s{,])"?group"?\s*:\s*["']?([A-Za-z0-9][A-Za-z0-9.-]*)"#)
        .expect("a valid pattern")
});

/// A Helm or Jinja template: text, not YAML, until it is rendered.
pub fn is_text_template(text: &str) -> bool {
    text.contains("{{") || text.contains("{%")
}

/// Why a file named on the command line was not linted, said from its name
/// and text, so that "nothing to lint" names the reason.
pub fn why_not_linted(name: &std::path::Path, bytes: &[u8]) -> &'static str {
    if !super::walk::is_yaml_name(name) {
        return match name.extension().and_then(|e| e.to_str()) {
            Some("star") => "a Starlark file of no ytt package below the paths given",
            _ => {
                "not a YAML file (confvet reads `.yml` and `.yaml` files, and a ytt package's other files)"
            }
        };
    }
    if bytes.contains(&0) {
        return "binary: it holds a NUL byte";
    }
    let Ok(text) = std::str::from_utf8(bytes) else {
        return "not UTF-8 text";
    };
    if is_text_template(text) {
        return "a Helm or Jinja template: text, not YAML, until it is rendered";
    }
    let found = scan(text);
    if found.resource.manifest {
        return "a plain Kubernetes manifest: checked with --kubernetes";
    }
    "YAML of no system confvet checks: no ytt annotation (`#@`), KubeVirt Template or Tekton resource"
}
