//! `@schema/deprecated`: a value given for a deprecated data value is a
//! warning, as ytt warns.

use super::path::DataPath;
use super::schema::{self, SchemaType};
use crate::finding::Finding;
use crate::rules;
use crate::yaml::{Node, Value};

/// A value given for a `@schema/deprecated` data value is a warning, for a
/// `@schema/removed` one an error (seed design; ytt says nothing).
pub(super) fn report_given_deprecated(
    node: &Node,
    ty: &SchemaType,
    path: &DataPath,
    findings: &mut Vec<Finding>,
) {
    match (&node.value, &ty.kind) {
        (Value::Map(items), schema::TypeKind::Map(_)) => {
            let entries = ty.entries_by_key();
            for item in items {
                let key = item.key.display();
                let Some(&child) = entries.get(key.as_str()) else {
                    continue;
                };
                let item_path = path.key(&key);
                if let Some(notice) = &child.docs.deprecated {
                    findings.push(
                        Finding::new(
                            &rules::ytt::DEPRECATED,
                            item.key_span,
                            format!("{item_path} is deprecated: {notice}"),
                        )
                        .with_path(item_path.to_string())
                        .with_related(child.span, "deprecated here"),
                    );
                }
                if let Some(notice) = &child.docs.removed {
                    findings.push(
                        Finding::new(
                            &rules::ytt::REMOVED,
                            item.key_span,
                            format!("{item_path} was removed: {notice}"),
                        )
                        .with_path(item_path.to_string())
                        .with_related(child.span, "removed here"),
                    );
                }
                report_given_deprecated(&item.value, child, &item_path, findings);
            }
        }
        (Value::Array(items), schema::TypeKind::Array(item_type)) => {
            for (index, item) in items.iter().enumerate() {
                report_given_deprecated(&item.value, item_type, &path.index(index), findings);
            }
        }
        _ => {}
    }
}
