//! One VirtualMachine: which validations apply to it (its own annotation,
//! its enclosing Template's, or the Template its labels name) and the
//! findings of each rule evaluated against its `spec.template`.

use super::ctx::Ctx;
use super::documents::{SKIP_KEY, VM_RULES_KEY, template_key};
use super::eval::RuleEval;
use super::jsonpath::{K, T, V};
use super::placement::{Annot, json_span};
use crate::finding::Finding;
use crate::source::FileId;
use crate::yaml::Node;
use crate::yaml::node::{child, item};
use std::collections::HashSet;

/// A Template of the unit, as VirtualMachines find it by name and namespace.
pub(super) struct Template<'a> {
    pub(super) name: &'a str,
    pub(super) namespace: Option<&'a str>,
    pub(super) annot: Option<Annot<'a>>,
}

/// The findings of the validations that apply to VirtualMachine `vm` of
/// `file`; `enclosing` is the index of the Template whose object it is.
pub(super) fn check_vm(
    ctx: &mut Ctx,
    file: FileId,
    vm: &Node,
    templates: &[Template],
    enclosing: Option<usize>,
) {
    let meta = child(vm, "metadata");
    let annotations = meta.and_then(|m| child(m, "annotations"));
    if annotations.is_some_and(|a| item(a, SKIP_KEY).is_some()) {
        return;
    }
    let own = annotations
        .and_then(|a| item(a, VM_RULES_KEY))
        .and_then(|it| Annot::from_item(file, it))
        .filter(|a| !a.text.is_empty());
    let annot: &Annot = if let Some(a) = &own {
        ctx.parse(a);
        a
    } else if let Some(index) = enclosing {
        match &templates[index].annot {
            Some(a) => a,
            None => return,
        }
    } else {
        let labels = meta.and_then(|m| child(m, "labels"));
        let Some((name, ns, span)) = template_key(labels).or_else(|| template_key(annotations))
        else {
            return;
        };
        let found = templates
            .iter()
            .find(|t| t.name == name && t.namespace == Some(ns))
            .or_else(|| {
                templates
                    .iter()
                    .find(|t| t.name == name && t.namespace.is_none())
            });
        match found {
            Some(t) => match &t.annot {
                Some(a) => a,
                None => return,
            },
            None => {
                ctx.out.push(Finding::new(&crate::rules::kubevirt::TEMPLATE_NOT_FOUND, span,
                    format!(
                        "template `{name}` in namespace `{ns}` is not among the linted files; its validations cannot be checked"
                    ),
                ));
                return;
            }
        }
    };
    let Some(tpl_item) = child(vm, "spec").and_then(|s| item(s, "template")) else {
        return;
    };
    if tpl_item.value.is_null() {
        return;
    }
    let Some(rules) = ctx.parsed.get(&annot.id()).and_then(|p| p.rules.clone()) else {
        would_reject(ctx, annot, vm, tpl_item);
        return;
    };
    let root = template_root(tpl_item);
    let src = ctx.src(annot.file);
    let mut seen = HashSet::new();
    for (index, rule) in rules.iter().enumerate() {
        let rule_span = json_span(&src, annot, rule.off);
        let mut eval = RuleEval {
            rule,
            rule_span,
            vm_file: tpl_item.key_span.file,
            vm_src: ctx.src(tpl_item.key_span.file),
            out: Vec::new(),
        };
        eval.run(&root);
        for f in eval.out {
            let line = ctx.src(f.span.file).line_col(f.span.start as usize).line;
            if seen.insert((index, f.kind, line)) {
                ctx.out.push(f);
            }
        }
    }
}

/// The root a rule is evaluated from: the VM's `spec.template`.
fn template_root<'n>(tpl_item: &'n crate::yaml::MapItem) -> V<'n> {
    V {
        node: Some(&tpl_item.value),
        kind: K::S(T::Template),
        anchor: tpl_item.key_span,
        in_domain: false,
        cpu_default: false,
        reference: false,
        default_text: None,
    }
}

/// An annotation that does not parse for its commas only: whether the
/// rules its repair makes apply would reject `vm`, for the comma fix to
/// say (see `Ctx::finish_repairs`). Nothing is reported here.
fn would_reject(ctx: &mut Ctx, annot: &Annot, vm: &Node, tpl_item: &crate::yaml::MapItem) {
    if !ctx.repaired.contains_key(&annot.id()) {
        return;
    }
    let vm_src = ctx.src(tpl_item.key_span.file);
    let Some(repaired) = ctx.repaired.get(&annot.id()) else {
        return;
    };
    let root = template_root(tpl_item);
    let rejects = repaired.rules.iter().any(|rule| {
        let mut eval = RuleEval {
            rule,
            rule_span: annot.key_span,
            vm_file: tpl_item.key_span.file,
            vm_src: vm_src.clone(),
            out: Vec::new(),
        };
        eval.run(&root);
        eval.out
            .iter()
            .any(|f| f.severity == crate::finding::Severity::Error)
    });
    if !rejects {
        return;
    }
    let name = child(vm, "metadata")
        .and_then(|m| crate::yaml::node::text(m, "name"))
        .map(|n| format!("`{n}`"))
        .unwrap_or_else(|| {
            let line = vm_src.line_col(tpl_item.key_span.start as usize).line;
            format!("{}:{line}", vm_src.name)
        });
    if let Some(repaired) = ctx.repaired.get_mut(&annot.id())
        && !repaired.rejects.contains(&name)
    {
        repaired.rejects.push(name);
    }
}
