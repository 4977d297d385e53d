//! What ties KubeVirt files together, read from each file once and kept as
//! names, not trees: the Templates a file declares and the templates its
//! VirtualMachines name. [`components`] groups each template with the VMs
//! that resolve to it; checking each group alone gives exactly the findings
//! of checking all files at once (`tests/cli/components.rs`).

use super::documents::{SKIP_KEY, is_template, is_vm, template_key};
use crate::check::union_find::Components;
use crate::yaml::DocumentSet;
use crate::yaml::node::{child, item, text};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::Path;

/// The links of one file.
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FileLinks {
    /// `(name, namespace)` of each Template, in document order.
    templates: Vec<(String, Option<String>)>,
    /// `(name, namespace)` of the template each VirtualMachine names.
    names: Vec<(String, String)>,
}

/// Read the links of a parsed file.
pub fn links(set: &DocumentSet) -> FileLinks {
    let mut out = FileLinks::default();
    for doc in &set.docs {
        let doc = &doc.value;
        let meta = child(doc, "metadata");
        if is_template(doc) {
            out.templates.push((
                meta.and_then(|m| text(m, "name")).unwrap_or("").to_string(),
                meta.and_then(|m| text(m, "namespace"))
                    .filter(|n| !n.is_empty())
                    .map(str::to_string),
            ));
        } else if is_vm(doc) {
            let annotations = meta.and_then(|m| child(m, "annotations"));
            // A VM with its own rules may still fall back to its template
            // (when they are empty): it is joined to it all the same.
            if annotations.is_some_and(|a| item(a, SKIP_KEY).is_some()) {
                continue;
            }
            let labels = meta.and_then(|m| child(m, "labels"));
            if let Some((name, ns, _)) = template_key(labels).or_else(|| template_key(annotations))
            {
                out.names.push((name.to_string(), ns.to_string()));
            }
        }
    }
    out
}

/// Groups of indices into `files` that must be checked together: each VM's
/// file with the file of the template it resolves to, the first template
/// of that name in that namespace, else the first of that name with no
/// namespace, in path order (as `check_vm` finds it).
pub fn components(files: &[(&Path, FileLinks)]) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..files.len()).collect();
    order.sort_by(|&a, &b| files[a].0.cmp(files[b].0));
    let mut first: HashMap<(&str, Option<&str>), usize> = HashMap::new();
    for &i in &order {
        for (name, ns) in &files[i].1.templates {
            first.entry((name.as_str(), ns.as_deref())).or_insert(i);
        }
    }
    let mut groups = Components::new(files.len());
    for (from, (_, links)) in files.iter().enumerate() {
        for (name, ns) in &links.names {
            // Both candidates are joined: which one is found depends only
            // on whether the first exists, and joining more is still exact.
            for key in [(name.as_str(), Some(ns.as_str())), (name.as_str(), None)] {
                if let Some(&i) = first.get(&key) {
                    groups.join(from, i);
                }
            }
        }
    }
    groups.groups()
}
