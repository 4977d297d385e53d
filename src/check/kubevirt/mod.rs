//! KubeVirt template validations (`../shared/spec/kubevirt.md`): the rules of
//! a Template's `validations` annotation (or a VM's own
//! `vm.kubevirt.io/validations`) evaluated against every VirtualMachine of
//! the unit, as the SSP template validator does at admission.
//!
//! `documents` tells Templates and VirtualMachines apart; `annotation`
//! parses a validations annotation (with `json`, `jsonpath` and
//! `quantity`), `placement` places its offsets in the file, `repair`
//! finds the commas that would make it JSON; `vm` finds the
//! rules of one VirtualMachine and `eval` evaluates each (reading values
//! with `convert`); `ctx` is the unit's state. This file sorts a unit's
//! documents and substitutes a Template's parameters into its objects.

pub mod annotation;
mod convert;
mod ctx;
pub(crate) mod documents;
mod eval;
pub mod json;
pub mod jsonpath;
pub mod links;
pub mod navigate;
mod placement;
pub mod quantity;
mod repair;
mod vm;

use crate::discover::DiscoveredFile;
use crate::finding::Finding;
use crate::source::{FileId, Sources};
use crate::yaml::node::{child, item, text};
use crate::yaml::{Node, ScalarStyle, ScalarValue, Value};
use ctx::Ctx;
use documents::{is_template, is_vm};
use placement::Annot;
use vm::{Template, check_vm};

/// With a `catalog`, the VirtualMachines and each Template's objects (its
/// parameters substituted) are checked against Kubernetes schemas too.
pub fn check_unit(
    files: &[&DiscoveredFile],
    sources: &Sources,
    catalog: Option<&crate::check::kubernetes::Catalog>,
    lookups: &mut crate::check::kubernetes::Lookups,
) -> Vec<Finding> {
    let mut ctx = Ctx::new(sources);
    let mut files: Vec<&DiscoveredFile> = files.to_vec();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let mut templates: Vec<Template> = Vec::new();
    let mut vms: Vec<(FileId, &Node)> = Vec::new();
    let mut template_docs: Vec<(FileId, &Node, usize)> = Vec::new();
    for f in &files {
        let docs = match &f.parsed {
            Ok(set) => &set.docs,
            Err(e) => {
                ctx.out.push((**e).clone());
                continue;
            }
        };
        for d in docs {
            let doc = &d.value;
            if is_template(doc) {
                let meta = child(doc, "metadata");
                let annot = meta
                    .and_then(|m| child(m, "annotations"))
                    .and_then(|a| item(a, "validations"))
                    .and_then(|it| Annot::from_item(f.id, it));
                if let Some(a) = &annot {
                    ctx.parse(a);
                } else if let Some(it) = meta
                    .and_then(|m| child(m, "annotations"))
                    .and_then(|a| item(a, "validations"))
                    .filter(|it| it.value.as_scalar().is_none())
                {
                    ctx.out.push(Finding::new(&crate::rules::kubevirt::ANNOTATION, it.key_span,
                        format!(
                            "the validations annotation must be a string holding a JSON array, found {}",
                            it.value.type_name()
                        ),
                    ));
                }
                templates.push(Template {
                    name: meta.and_then(|m| text(m, "name")).unwrap_or(""),
                    namespace: meta
                        .and_then(|m| text(m, "namespace"))
                        .filter(|n| !n.is_empty()),
                    annot,
                });
                template_docs.push((f.id, doc, templates.len() - 1));
            } else if is_vm(doc) {
                vms.push((f.id, doc));
            }
        }
    }
    for &(file, vm) in &vms {
        check_vm(&mut ctx, file, vm, &templates, None);
    }
    let mut objects_substituted: Vec<Node> = Vec::new();
    for &(file, doc, index) in &template_docs {
        let params: Vec<(String, String)> = match child(doc, "parameters").map(|p| &p.value) {
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(|i| {
                    let name = text(&i.value, "name")?;
                    let value = child(&i.value, "value")?.as_scalar()?;
                    Some((name.to_string(), value.text.clone()))
                })
                .collect(),
            _ => Vec::new(),
        };
        let Some(Value::Array(objects)) = child(doc, "objects").map(|o| &o.value) else {
            continue;
        };
        for o in objects {
            if !is_vm(&o.value) && catalog.is_none() {
                continue;
            }
            let mut object = o.value.clone();
            substitute(&mut object, &params);
            if is_vm(&object) {
                check_vm(&mut ctx, file, &object, &templates, Some(index));
            }
            if catalog.is_some() {
                objects_substituted.push(object);
            }
        }
    }
    if let Some(catalog) = catalog {
        let documents: Vec<&Node> = vms
            .iter()
            .map(|&(_, vm)| vm)
            .chain(&objects_substituted)
            .collect();
        // The parameters a Template is processed with, and which Template
        // a VM is created from, are the user's: warnings.
        let mut found = catalog.check(&documents, sources, lookups);
        crate::check::kubernetes::catalog::as_warnings(&mut found);
        ctx.out.extend(found);
    }
    ctx.finish_repairs();
    ctx.out
}

fn substitute(n: &mut Node, params: &[(String, String)]) {
    match &mut n.value {
        Value::Scalar(s) => {
            if !s.text.contains("${") {
                return;
            }
            if let Some(name) = s
                .text
                .strip_prefix("${{")
                .and_then(|r| r.strip_suffix("}}"))
                && let Some((_, v)) = params.iter().find(|(k, _)| k == name)
            {
                s.resolved = crate::yaml::scalar::resolve(v, ScalarStyle::Plain, None);
                s.text = v.clone();
                s.style = ScalarStyle::Plain;
                return;
            }
            let mut t = s.text.clone();
            for (k, v) in params {
                t = t.replace(&format!("${{{k}}}"), v);
            }
            if t != s.text {
                s.resolved = ScalarValue::Str(t.clone());
                s.text = t;
            }
        }
        Value::Map(items) => items
            .iter_mut()
            .for_each(|i| substitute(&mut i.value, params)),
        Value::Array(items) => items
            .iter_mut()
            .for_each(|i| substitute(&mut i.value, params)),
    }
}
