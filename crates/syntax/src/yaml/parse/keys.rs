//! Map keys by resolved value, as ytt compares them (`1` and `0x1` are the
//! same key): duplicates (a linear scan for small maps, a set once a map
//! grows) and `<<` merge keys.

use crate::source::Span;
use crate::yaml::node::{MapItem, Node, ScalarValue, Value};
use std::collections::{HashMap, HashSet};

/// Identity of a map key for duplicate detection (by resolved value, as ytt).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum KeyId {
    Null,
    Bool(bool),
    Int(i64),
    Float(u64),
    Str(String),
}

impl KeyId {
    pub(super) fn of(value: &ScalarValue) -> KeyId {
        match value {
            ScalarValue::Null => KeyId::Null,
            ScalarValue::Bool(b) => KeyId::Bool(*b),
            ScalarValue::Int(i) => KeyId::Int(*i),
            ScalarValue::Float(f) => KeyId::Float(f.to_bits()),
            ScalarValue::Str(s) => KeyId::Str(s.clone()),
        }
    }
}

pub(super) const LINEAR_KEY_SCAN: usize = 16;

/// Whether `key` is already among `items`; remembers it otherwise.
pub(super) fn is_duplicate(
    items: &[MapItem],
    seen: &mut Option<HashSet<KeyId>>,
    key: &ScalarValue,
) -> bool {
    if seen.is_none() && items.len() >= LINEAR_KEY_SCAN {
        *seen = Some(items.iter().map(|i| KeyId::of(&i.key.resolved)).collect());
    }
    match seen {
        Some(set) => !set.insert(KeyId::of(key)),
        None => {
            let wanted = KeyId::of(key);
            items.iter().any(|i| same_key(&i.key.resolved, &wanted))
        }
    }
}

pub(super) fn same_key(value: &ScalarValue, key: &KeyId) -> bool {
    match (value, key) {
        (ScalarValue::Null, KeyId::Null) => true,
        (ScalarValue::Bool(a), KeyId::Bool(b)) => a == b,
        (ScalarValue::Int(a), KeyId::Int(b)) => a == b,
        (ScalarValue::Float(a), KeyId::Float(b)) => a.to_bits() == *b,
        (ScalarValue::Str(a), KeyId::Str(b)) => a == b,
        _ => false,
    }
}

/// go-yaml's merge keys, as ytt's copy of go-yaml v2 reads them: the
/// merged map's items stand where the `<<` was, and of a key given more
/// than once the last value wins, at the first one's place. So a map's
/// own key overrides a merged one before it, and a merged one after it
/// overrides the map's. The value is a map or an alias of one; ytt's
/// copy refuses every item of a sequence (its items are nodes of their
/// own there), so only a written empty sequence passes, merging nothing.
///
/// Fails with the span of a value that cannot be merged.
pub(super) fn merge_keys(
    items: Vec<MapItem>,
    merges: Vec<(usize, Node, bool)>,
) -> Result<Vec<MapItem>, Span> {
    if merges.is_empty() {
        return Ok(items);
    }
    let mut inserts: Vec<(usize, Vec<MapItem>)> = Vec::new();
    for (at, node, alias) in merges {
        let maps: Vec<Vec<MapItem>> = match node.value {
            Value::Map(m) => vec![m],
            Value::Array(a) if a.is_empty() && !alias => Vec::new(),
            Value::Array(a) => {
                return Err(a.first().map_or(node.span, |item| item.span));
            }
            Value::Scalar(_) => return Err(node.span),
        };
        let mut seen: HashSet<KeyId> = HashSet::new();
        let mut added = Vec::new();
        for map in maps {
            for item in map {
                if seen.insert(KeyId::of(&item.key.resolved)) {
                    added.push(item);
                }
            }
        }
        inserts.push((at, added));
    }
    // Every item in reading order, merged ones where their `<<` was.
    let mut all =
        Vec::with_capacity(items.len() + inserts.iter().map(|i| i.1.len()).sum::<usize>());
    let mut inserts = inserts.into_iter().peekable();
    for (i, item) in items.into_iter().enumerate() {
        while let Some((_, added)) = inserts.next_if(|(at, _)| *at <= i) {
            all.extend(added);
        }
        all.push(item);
    }
    for (_, added) in inserts {
        all.extend(added);
    }
    let mut place: HashMap<KeyId, usize> = HashMap::new();
    let mut out: Vec<MapItem> = Vec::with_capacity(all.len());
    for item in all {
        match place.entry(KeyId::of(&item.key.resolved)) {
            std::collections::hash_map::Entry::Occupied(at) => out[*at.get()] = item,
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(out.len());
                out.push(item);
            }
        }
    }
    Ok(out)
}
