//! ytt's overlay `Comparison`: whether a left node holds a right one
//! (every right map key, with a matching value; every right array item at
//! its index; equal leaves, integers by value). `overlay.subset` and
//! `@overlay/assert` use it.

use crate::yaml::{Node, ScalarValue, Value as NodeValue};

/// Why a left node does not hold a right one, in ytt's words (the YAML
/// types of the nodes).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Mismatch {
    #[error("Expected map, but was {0}")]
    NotMap(&'static str),
    #[error("Expected at least one map item to match by key")]
    MissingKey,
    #[error("Expected array, but was {0}")]
    NotArray(&'static str),
    #[error("Expected to have matching number of array items")]
    ArrayLength,
    #[error("Expected leaf values to match {left} {right}")]
    Leaf {
        left: &'static str,
        right: &'static str,
    },
}

/// Ok when `left` holds `right`, else why not (ytt's explanation).
pub fn compare(left: &Node, right: &Node) -> Result<(), Mismatch> {
    match &right.value {
        NodeValue::Map(right_items) => {
            let NodeValue::Map(left_items) = &left.value else {
                return Err(Mismatch::NotMap(left.type_name()));
            };
            for right_item in right_items {
                let mut matched = false;
                for left_item in left_items {
                    if left_item.key.resolved == right_item.key.resolved {
                        compare(&left_item.value, &right_item.value)?;
                        matched = true;
                    }
                }
                if !matched {
                    return Err(Mismatch::MissingKey);
                }
            }
            Ok(())
        }
        NodeValue::Array(right_items) => {
            let NodeValue::Array(left_items) = &left.value else {
                return Err(Mismatch::NotArray(left.type_name()));
            };
            for (i, item) in right_items.iter().enumerate() {
                let Some(left_item) = left_items.get(i) else {
                    return Err(Mismatch::ArrayLength);
                };
                compare(&left_item.value, &item.value)?;
            }
            Ok(())
        }
        NodeValue::Scalar(right_scalar) => {
            let equal = match &left.value {
                NodeValue::Scalar(left_scalar) => {
                    same_leaf(&left_scalar.resolved, &right_scalar.resolved)
                }
                _ => false,
            };
            if equal {
                Ok(())
            } else {
                Err(Mismatch::Leaf {
                    left: left.type_name(),
                    right: right.type_name(),
                })
            }
        }
    }
}

/// Go's `reflect.DeepEqual` on two leaves (NaN is not equal to itself).
fn same_leaf(left: &ScalarValue, right: &ScalarValue) -> bool {
    left == right
}

#[cfg(test)]
mod tests {
    use super::compare;
    use crate::source::FileId;
    use crate::yaml::{Node, ParseOptions, parse_file};

    fn node(text: &str) -> Node {
        let set = parse_file(FileId(0), text, &ParseOptions::default()).expect("valid YAML");
        set.docs[0].value.clone()
    }

    /// None when `left` holds `right`, else the text ytt prints for why.
    fn mismatch(left: &Node, right: &Node) -> Option<String> {
        compare(left, right).err().map(|e| e.to_string())
    }

    #[test]
    fn a_subset_holds_each_of_its_keys_with_a_matching_value() {
        let left = node("kind: Deployment\nmetadata:\n  name: a\n  labels: {x: y}\n");
        assert_eq!(mismatch(&left, &node("kind: Deployment\n")), None);
        assert_eq!(mismatch(&left, &node("metadata: {name: a}\n")), None);
        assert_eq!(
            mismatch(&left, &node("kind: Service\n")),
            Some("Expected leaf values to match string string".into())
        );
        assert_eq!(
            mismatch(&left, &node("spec: {}\n")),
            Some("Expected at least one map item to match by key".into())
        );
        assert_eq!(
            mismatch(&left, &node("kind: {a: 1}\n")),
            Some("Expected map, but was string".into())
        );
    }

    #[test]
    fn array_items_compare_by_position_and_leaves_by_type() {
        let left = node("- 1\n- two\n");
        assert_eq!(mismatch(&left, &node("- 1\n")), None);
        assert_eq!(
            mismatch(&left, &node("- 1\n- two\n- 3\n")),
            Some("Expected to have matching number of array items".into())
        );
        assert_eq!(
            mismatch(&node("1\n"), &node("\"1\"\n")),
            Some("Expected leaf values to match integer string".into())
        );
    }
}
