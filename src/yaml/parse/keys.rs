//! Duplicate map keys, found by resolved value as ytt finds them (`1` and
//! `0x1` are the same key): a linear scan for small maps, a set once a map
//! grows.

use crate::yaml::node::{MapItem, ScalarValue};
use std::collections::HashSet;

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
