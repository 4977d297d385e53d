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
                // A limit of confvet's, not a fault of the file: ytt
                // renders such a package, given the memory.
                return Some(Finding::new(
                    &rules::confvet::UNIT_LIMIT,
                    doc.span,
                    format!(
                        "the ytt package holds more than {MAX_PACKAGE_NODES} YAML nodes in its templated files, the most a unit may; not checked"
                    ),
                ));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> DocumentSet {
        crate::yaml::parse_file(crate::source::FileId(0), text, &Default::default())
            .expect("valid YAML")
    }

    #[test]
    fn a_templated_package_past_the_node_limit_is_a_unit_limit_not_a_syntax_error() {
        let items: String = (0..MAX_PACKAGE_NODES / 2)
            .map(|i| format!("- k{i}: 1\n"))
            .collect();
        let big = parsed(&format!("#@ x = 1\n---\n{items}"));
        let finding = too_large(&[&big]).expect("past the limit");
        assert_eq!(finding.rule, "confvet/unit-limit");
        assert!(
            finding.message.contains("YAML nodes"),
            "{}",
            finding.message
        );
        // The same tree without templating is passed through, not counted.
        let plain = parsed(&format!("---\n{items}"));
        assert!(too_large(&[&plain]).is_none());
    }
}
