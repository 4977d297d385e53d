//! Which documents the KubeVirt check reads: Templates and VirtualMachines,
//! and the labels and annotations by which a VirtualMachine names its
//! template or opts out of validation.

use crate::source::Span;
use crate::yaml::Node;
use crate::yaml::node::{item, text};

pub(super) const TEMPLATE_KEY: &str = "vm.kubevirt.io/template";
pub(super) const NAMESPACE_KEY: &str = "vm.kubevirt.io/template.namespace";
pub(super) const OLD_NAMESPACE_KEY: &str = "vm.kubevirt.io/template-namespace";
pub(super) const SKIP_KEY: &str = "vm.kubevirt.io/skip-validations";
pub(super) const VM_RULES_KEY: &str = "vm.kubevirt.io/validations";

pub(super) fn is_template(doc: &Node) -> bool {
    names_template(
        text(doc, "apiVersion").unwrap_or(""),
        text(doc, "kind").unwrap_or(""),
    )
}

pub(super) fn is_vm(doc: &Node) -> bool {
    names_virtual_machine(
        text(doc, "apiVersion").unwrap_or(""),
        text(doc, "kind").unwrap_or(""),
    )
}

/// Whether a resource of `api_version` and `kind` is a Template the check
/// reads (discovery asks too: the other documents of a KubeVirt file are
/// plain resources).
pub(crate) fn names_template(api_version: &str, kind: &str) -> bool {
    kind == "Template" && matches!(api_version, "template.openshift.io/v1" | "v1")
}

/// Whether a resource of `api_version` and `kind` is a VirtualMachine the
/// check reads.
pub(crate) fn names_virtual_machine(api_version: &str, kind: &str) -> bool {
    kind == "VirtualMachine" && api_version.starts_with("kubevirt.io/")
}

/// The template key from one map (labels or annotations).
pub(super) fn template_key(m: Option<&Node>) -> Option<(&str, &str, Span)> {
    let m = m?;
    let name_item = item(m, TEMPLATE_KEY)?;
    let name = name_item.value.as_scalar()?.text.as_str();
    let ns = text(m, NAMESPACE_KEY)
        .filter(|n| !n.is_empty())
        .or_else(|| text(m, OLD_NAMESPACE_KEY))
        .unwrap_or("");
    (!name.is_empty() && !ns.is_empty()).then_some((name, ns, name_item.key_span))
}
