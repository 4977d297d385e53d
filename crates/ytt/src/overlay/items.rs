//! Overlay operations on the items of a map or an array (ytt's `map.go`
//! and `array.go`): merge (the default), remove, replace and assert on
//! both, insert and append on array items only.

use super::annotations::{self, APPEND, ASSERT, INSERT, MERGE, REMOVE, REPLACE};
use super::match_kwargs::ChildDefaults;
use super::{Outcome, Overlay, OverlayError, Right, position};
use crate::yaml::{ArrayItem, Comment, MapItem, Node, Value as NodeValue};

/// What map items and array items share for overlays.
trait Item: Clone {
    fn value(&self) -> &Node;
    fn value_mut(&mut self) -> &mut Node;
    fn comments(&self) -> &[Comment];
    /// The item takes `other`'s position (ytt's `SetPosition`).
    fn take_position(&mut self, other: &Self);
    /// The item with another value, as ytt's `SetValue` on a copy.
    fn with_value(&self, value: Node) -> Self;
    fn items_of(node: &mut Node) -> Outcome<&mut Vec<Self>>;
    /// The left items this right item matches.
    fn indexes<'v>(
        &self,
        overlay: &mut Overlay<'_, 'v, '_, '_>,
        left: &Node,
        defaults: &ChildDefaults<'v>,
    ) -> Outcome<Vec<usize>>;
}

/// `Item` for an item type: its node variant, the field of its position,
/// the matching it uses and the name of its container.
macro_rules! item {
    ($item:ident, $variant:ident, $position:ident, $indexes:ident, $container:literal) => {
        impl Item for $item {
            fn value(&self) -> &Node {
                &self.value
            }
            fn value_mut(&mut self) -> &mut Node {
                &mut self.value
            }
            fn comments(&self) -> &[Comment] {
                &self.comments
            }
            fn take_position(&mut self, other: &Self) {
                self.$position = other.$position;
            }
            fn with_value(&self, value: Node) -> Self {
                $item {
                    value,
                    ..self.clone()
                }
            }
            fn items_of(node: &mut Node) -> Outcome<&mut Vec<Self>> {
                let type_name = node.type_name();
                match &mut node.value {
                    NodeValue::$variant(items) => Ok(items),
                    _ => Err(format!("Expected {}, but was {type_name}", $container).into()),
                }
            }
            fn indexes<'v>(
                &self,
                overlay: &mut Overlay<'_, 'v, '_, '_>,
                left: &Node,
                defaults: &ChildDefaults<'v>,
            ) -> Outcome<Vec<usize>> {
                overlay.$indexes(left, self, defaults)
            }
        }
    };
}

item!(MapItem, Map, key_span, map_item_indexes, "map");
item!(ArrayItem, Array, span, array_item_indexes, "array");

impl<'v> Overlay<'_, 'v, '_, '_> {
    /// One right map item onto `left`, a map.
    pub(super) fn map_item(
        &mut self,
        left: &mut Node,
        item: &MapItem,
        defaults: &ChildDefaults<'v>,
    ) -> Outcome<()> {
        match annotations::which_op(&item.comments)? {
            MERGE => self.merge_item(left, item, defaults),
            REMOVE => self.remove_item(left, item, defaults),
            REPLACE => self.replace_item(left, item, defaults),
            ASSERT => self.assert_item(left, item, defaults),
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
        match annotations::which_op(&item.comments)? {
            MERGE => self.merge_item(left, item, defaults),
            REMOVE => self.remove_item(left, item, defaults),
            REPLACE => self.replace_item(left, item, defaults),
            INSERT => self.insert_item(left, item, defaults),
            APPEND => {
                ArrayItem::items_of(left)?.push(item.clone());
                Ok(())
            }
            ASSERT => self.assert_item(left, item, defaults),
            other => Err(format!("Overlay op {other} is not supported on array item").into()),
        }
    }

    /// Merge into each match (the left item keeps its annotations); no
    /// match adds the item.
    fn merge_item<I: Item>(
        &mut self,
        left: &mut Node,
        item: &I,
        defaults: &ChildDefaults<'v>,
    ) -> Outcome<()> {
        let child_defaults = self.child_defaults(item.comments(), defaults)?;
        let Some(indexes) = skip_when(item.indexes(self, left, defaults))? else {
            return Ok(());
        };
        if indexes.is_empty() {
            I::items_of(left)?.push(item.clone());
            return Ok(());
        }
        for i in indexes {
            let target = &mut I::items_of(left)?[i];
            if self.merge_value(target.value_mut(), item.value(), &child_defaults)? {
                *target.value_mut() = item.value().clone();
                target.take_position(item);
            }
        }
        Ok(())
    }

    fn remove_item<I: Item>(
        &mut self,
        left: &mut Node,
        item: &I,
        defaults: &ChildDefaults<'v>,
    ) -> Outcome<()> {
        let Some(indexes) = skip_when(item.indexes(self, left, defaults))? else {
            return Ok(());
        };
        let mut i = 0;
        I::items_of(left)?.retain(|_| {
            i += 1;
            !indexes.contains(&(i - 1))
        });
        Ok(())
    }

    /// Each match becomes the right item (with `via=`'s value); no match
    /// adds it under `or_add=True`.
    fn replace_item<I: Item>(
        &mut self,
        left: &mut Node,
        item: &I,
        defaults: &ChildDefaults<'v>,
    ) -> Outcome<()> {
        let via = self.read_replace(item.comments())?;
        let Some(indexes) = skip_when(item.indexes(self, left, defaults))? else {
            return Ok(());
        };
        for &i in &indexes {
            let existing = I::items_of(left)?[i].value().clone();
            let value = self.via_value(&via, Some(&existing), item.value())?;
            I::items_of(left)?[i] = item.with_value(value);
        }
        if indexes.is_empty() && via.or_add {
            let value = self.via_value(&via, None, item.value())?;
            I::items_of(left)?.push(item.with_value(value));
        }
        Ok(())
    }

    fn assert_item<I: Item>(
        &mut self,
        left: &mut Node,
        item: &I,
        defaults: &ChildDefaults<'v>,
    ) -> Outcome<()> {
        let child_defaults = self.child_defaults(item.comments(), defaults)?;
        let Some(indexes) = skip_when(item.indexes(self, left, defaults))? else {
            return Ok(());
        };
        for i in indexes {
            let existing = I::items_of(left)?[i].value().clone();
            self.check_assert(item.comments(), &existing, item.value())?;
            let target = I::items_of(left)?[i].value_mut();
            self.apply_to_node(target, Right::Node(item.value()), &child_defaults)?;
        }
        Ok(())
    }

    /// The right item goes before and/or after each match.
    fn insert_item(
        &mut self,
        left: &mut Node,
        item: &ArrayItem,
        defaults: &ChildDefaults<'v>,
    ) -> Outcome<()> {
        let Some(indexes) = skip_when(item.indexes(self, left, defaults))? else {
            return Ok(());
        };
        let insert = self.read_insert(&item.comments)?;
        let old = std::mem::take(ArrayItem::items_of(left)?);
        let mut updated = Vec::with_capacity(old.len() + indexes.len());
        for (i, left_item) in old.into_iter().enumerate() {
            if !indexes.contains(&i) {
                updated.push(left_item);
                continue;
            }
            let value = self.via_value(&insert, Some(&left_item.value), &item.value)?;
            let inserted = item.with_value(value);
            if insert.before {
                updated.push(inserted.clone());
            }
            updated.push(left_item);
            if insert.after {
                updated.push(inserted);
            }
        }
        *ArrayItem::items_of(left)? = updated;
        Ok(())
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
