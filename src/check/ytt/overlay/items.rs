//! Overlay operations on the items of a map or an array (ytt's `map.go`
//! and `array.go`): merge (the default), remove, replace, insert (arrays),
//! append (arrays) and assert.

use super::annotations::{self, APPEND, ASSERT, INSERT, MERGE, REMOVE, REPLACE};
use super::expects::ChildDefaults;
use super::{Outcome, Overlay, OverlayError, Right, position};
use crate::yaml::{ArrayItem, MapItem, Node, Value as NodeValue};

fn map_items(node: &mut Node) -> Outcome<&mut Vec<MapItem>> {
    let type_name = node.type_name();
    match &mut node.value {
        NodeValue::Map(items) => Ok(items),
        _ => Err(format!("Expected map, but was {type_name}").into()),
    }
}

fn array_items(node: &mut Node) -> Outcome<&mut Vec<ArrayItem>> {
    let type_name = node.type_name();
    match &mut node.value {
        NodeValue::Array(items) => Ok(items),
        _ => Err(format!("Expected array, but was {type_name}").into()),
    }
}

impl<'v> Overlay<'_, 'v, '_, '_> {
    /// One right map item onto `left`, a map.
    pub(super) fn map_item(
        &mut self,
        left: &mut Node,
        item: &MapItem,
        defaults: &ChildDefaults<'v>,
    ) -> Outcome<()> {
        let op = annotations::which_op(&item.comments)?;
        match op {
            MERGE => {
                let child_defaults = self.child_defaults(&item.comments, defaults)?;
                let Some(indexes) = skip_when(self.map_item_indexes(left, item, defaults))? else {
                    return Ok(());
                };
                if indexes.is_empty() {
                    map_items(left)?.push(item.clone());
                    return Ok(());
                }
                for i in indexes {
                    let target = &mut map_items(left)?[i];
                    if self.merge_value(&mut target.value, &item.value, &child_defaults)? {
                        // The left item keeps its annotations.
                        target.value = item.value.clone();
                        target.key_span = item.key_span;
                    }
                }
                Ok(())
            }
            REMOVE => {
                let Some(indexes) = skip_when(self.map_item_indexes(left, item, defaults))? else {
                    return Ok(());
                };
                let items = map_items(left)?;
                let mut i = 0;
                items.retain(|_| {
                    i += 1;
                    !indexes.contains(&(i - 1))
                });
                Ok(())
            }
            REPLACE => {
                let via = self.read_replace(&item.comments)?;
                let Some(indexes) = skip_when(self.map_item_indexes(left, item, defaults))? else {
                    return Ok(());
                };
                for &i in &indexes {
                    let existing = map_items(left)?[i].value.clone();
                    let value = self.via_value(&via, Some(&existing), &item.value)?;
                    map_items(left)?[i] = MapItem {
                        value,
                        ..item.clone()
                    };
                }
                if indexes.is_empty() && via.or_add {
                    let value = self.via_value(&via, None, &item.value)?;
                    map_items(left)?.push(MapItem {
                        value,
                        ..item.clone()
                    });
                }
                Ok(())
            }
            ASSERT => {
                let child_defaults = self.child_defaults(&item.comments, defaults)?;
                let Some(indexes) = skip_when(self.map_item_indexes(left, item, defaults))? else {
                    return Ok(());
                };
                for i in indexes {
                    let existing = map_items(left)?[i].value.clone();
                    self.check_assert(&item.comments, &existing, &item.value)?;
                    let target = &mut map_items(left)?[i].value;
                    self.apply_to_node(target, Right::Node(&item.value), &child_defaults)?;
                }
                Ok(())
            }
            other => Err(format!(
                "Found @{other} on map item ({}); only array items can be annotated with @{other}",
                position(item.key_span, false)
            )
            .into()),
        }
    }

    /// One right array item onto `left`, an array.
    pub(super) fn array_item(
        &mut self,
        left: &mut Node,
        item: &ArrayItem,
        defaults: &ChildDefaults<'v>,
    ) -> Outcome<()> {
        let op = annotations::which_op(&item.comments)?;
        match op {
            MERGE => {
                let child_defaults = self.child_defaults(&item.comments, defaults)?;
                let Some(indexes) = skip_when(self.array_item_indexes(left, item, defaults))?
                else {
                    return Ok(());
                };
                if indexes.is_empty() {
                    array_items(left)?.push(item.clone());
                    return Ok(());
                }
                for i in indexes {
                    let target = &mut array_items(left)?[i];
                    if self.merge_value(&mut target.value, &item.value, &child_defaults)? {
                        target.value = item.value.clone();
                        target.span = item.span;
                    }
                }
                Ok(())
            }
            REMOVE => {
                let Some(indexes) = skip_when(self.array_item_indexes(left, item, defaults))?
                else {
                    return Ok(());
                };
                let mut i = 0;
                array_items(left)?.retain(|_| {
                    i += 1;
                    !indexes.contains(&(i - 1))
                });
                Ok(())
            }
            REPLACE => {
                let via = self.read_replace(&item.comments)?;
                let Some(indexes) = skip_when(self.array_item_indexes(left, item, defaults))?
                else {
                    return Ok(());
                };
                for &i in &indexes {
                    let existing = array_items(left)?[i].value.clone();
                    let value = self.via_value(&via, Some(&existing), &item.value)?;
                    array_items(left)?[i] = ArrayItem {
                        value,
                        ..item.clone()
                    };
                }
                if indexes.is_empty() && via.or_add {
                    let value = self.via_value(&via, None, &item.value)?;
                    array_items(left)?.push(ArrayItem {
                        value,
                        ..item.clone()
                    });
                }
                Ok(())
            }
            INSERT => {
                let Some(indexes) = skip_when(self.array_item_indexes(left, item, defaults))?
                else {
                    return Ok(());
                };
                let insert = self.read_insert(&item.comments)?;
                let old = std::mem::take(array_items(left)?);
                let mut updated = Vec::with_capacity(old.len() + indexes.len());
                for (i, left_item) in old.into_iter().enumerate() {
                    if !indexes.contains(&i) {
                        updated.push(left_item);
                        continue;
                    }
                    let value = self.via_value(&insert, Some(&left_item.value), &item.value)?;
                    let inserted = ArrayItem {
                        value,
                        ..item.clone()
                    };
                    if insert.before {
                        updated.push(inserted.clone());
                    }
                    updated.push(left_item);
                    if insert.after {
                        updated.push(inserted);
                    }
                }
                *array_items(left)? = updated;
                Ok(())
            }
            APPEND => {
                array_items(left)?.push(item.clone());
                Ok(())
            }
            ASSERT => {
                let child_defaults = self.child_defaults(&item.comments, defaults)?;
                let Some(indexes) = skip_when(self.array_item_indexes(left, item, defaults))?
                else {
                    return Ok(());
                };
                for i in indexes {
                    let existing = array_items(left)?[i].value.clone();
                    self.check_assert(&item.comments, &existing, &item.value)?;
                    let target = &mut array_items(left)?[i].value;
                    self.apply_to_node(target, Right::Node(&item.value), &child_defaults)?;
                }
                Ok(())
            }
            other => Err(format!("Overlay op {other} is not supported on array item").into()),
        }
    }
}

/// Matches found, or None when a `when=` condition is not met (the node
/// is skipped, as ytt's `isConditional` errors are).
pub(super) fn skip_when<T>(found: Outcome<T>) -> Outcome<Option<T>> {
    match found {
        Ok(found) => Ok(Some(found)),
        Err(OverlayError::NumMatch {
            from_when: true, ..
        }) => Ok(None),
        Err(e) => Err(e),
    }
}
