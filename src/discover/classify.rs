//! Classification: one pass over a file's lines tells which checker it is
//! for and what ytt annotations it holds, without parsing it.

use super::model::{Resource, System};

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
    // The indentation of the line that opened the block scalar the scan is
    // in: its text is content, never an annotation or a resource's kind.
    let mut block_at: Option<usize> = None;
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
        // `key: #@ expr`, `- #@ expr`: a template whose only code is
        // computed values (a YAML comment follows a blank).
        is_ytt |= line.contains(" #@");
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
                    // Pipelines-as-Code's Repository declares the params
                    // its templates' placeholders may name.
                    is_tekton |= api.starts_with("tekton.dev/")
                        || api.starts_with("triggers.tekton.dev/")
                        || api.starts_with("pipelinesascode.tekton.dev/");
                    is_packaging |= api.starts_with("data.packaging.carvel.dev/");
                    is_crd_api |= api.starts_with("apiextensions.k8s.io/");
                    has_api_version |= indent == 0;
                }
            }
            Some(b'k') => {
                if let Some(rest) = line.strip_prefix("kind:") {
                    let kind = rest.trim().trim_matches(['"', '\'']);
                    is_kubevirt |= kind == "Template" || kind == "VirtualMachine";
                    is_package_kind |= kind == "Package";
                    is_crd_kind |= kind == "CustomResourceDefinition";
                    has_kind |= indent == 0;
                }
            }
            _ => {}
        }
    }
    let system = if is_tekton {
        Some(System::Tekton)
    } else if is_kubevirt {
        Some(System::Kubevirt)
    } else if is_ytt {
        Some(System::Ytt)
    } else {
        None
    };
    Scan {
        system,
        has_schema,
        has_values,
        has_overlay,
        resource: Resource {
            carvel_package: is_packaging && is_package_kind,
            crd: is_crd_api && is_crd_kind,
            // Helm and Jinja templates are text, not YAML, until rendered
            // (looked for only in what could be a manifest).
            manifest: has_api_version && has_kind && !text.contains("{{") && !text.contains("{%"),
        },
        crd_groups: if is_crd_api && is_crd_kind {
            crate::check::kubernetes::crd_files::groups_named(text)
        } else {
            Vec::new()
        },
    }
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
