//! The size of a ytt package, bounded before it is checked: its schema,
//! data values and templates are copied and converted several times over
//! (a schema type per node, defaults, merged values, compiled template
//! code, rendered output), some twenty times the size of the tree, so a
//! package of a million nodes would take gigabytes. Real packages, upstream
//! bundles included, hold tens of thousands.

use crate::finding::Finding;
use crate::rules;
use crate::yaml::{DocumentSet, Node, Value};

/// The most YAML nodes and comments one ytt package may hold.
pub const MAX_PACKAGE_NODES: usize = 250_000;

/// Nodes under and including `node`, counted until past `budget`.
fn count(node: &Node, budget: usize) -> usize {
    let mut total = 0;
    let mut stack = vec![node];
    while let Some(node) = stack.pop() {
        total += 1;
        if total > budget {
            break;
        }
        match &node.value {
            Value::Map(items) => stack.extend(items.iter().map(|i| &i.value)),
            Value::Array(items) => stack.extend(items.iter().map(|i| &i.value)),
            Value::Scalar(_) => {}
        }
    }
    total
}

/// A finding at the first document that takes the package past
/// [`MAX_PACKAGE_NODES`], if one does. Plain files (no `#@`) are passed
/// through, not converted: a package's upstream bundles do not count.
pub(super) fn too_large(parsed: &[&DocumentSet]) -> Option<Finding> {
    let mut total = 0;
    let templated = parsed
        .iter()
        .filter(|set| super::render::has_templating(set));
    for set in templated {
        total += set.trailing_comments.len();
        for doc in &set.docs {
            total += doc.comments.len();
            total += count(&doc.value, MAX_PACKAGE_NODES.saturating_sub(total));
            if total > MAX_PACKAGE_NODES {
                return Some(Finding::new(
                    &rules::yaml::SYNTAX,
                    doc.span,
                    format!(
                        "the ytt package holds more than {MAX_PACKAGE_NODES} YAML nodes; not checked"
                    ),
                ));
            }
        }
    }
    None
}
