//! ytt's `yamlfragment`: what a fragment function (`#@ def` with YAML in its
//! body) returns. It holds output YAML nodes, keeps their positions, and
//! reads like a mapping (a map) or a sequence (an array, a document set),
//! as ytt's `StarlarkFragment` does; its children read as fragments again.

use super::scalars::{scalar_to_value, value_to_scalar};
use crate::yaml::{Document, Node, Value as NodeValue};
use allocative::Allocative;
use starlark::values::{
    Heap, NoSerialize, ProvidesStaticType, StarlarkValue, Value, starlark_value,
};
use std::fmt;
use std::sync::Arc;

/// The nodes a fragment holds.
#[derive(Debug, Clone)]
pub enum FragmentData {
    /// A fragment function that produced no node.
    Nil,
    /// A map or an array.
    Node(Node),
    Documents(Vec<Document>),
}

#[derive(Debug, Clone, ProvidesStaticType, NoSerialize, Allocative)]
pub struct Fragment {
    #[allocative(skip)]
    pub data: Arc<FragmentData>,
}

starlark::starlark_simple_value!(Fragment);

impl Fragment {
    pub fn new(data: FragmentData) -> Fragment {
        Fragment {
            data: Arc::new(data),
        }
    }

    fn len(&self) -> usize {
        match &*self.data {
            FragmentData::Nil => 0,
            FragmentData::Node(node) => match &node.value {
                NodeValue::Map(items) => items.len(),
                NodeValue::Array(items) => items.len(),
                NodeValue::Scalar(_) => 0,
            },
            FragmentData::Documents(docs) => docs.len(),
        }
    }

    /// The `index`-th value of an array or document set.
    fn item(&self, index: usize) -> Option<&Node> {
        match &*self.data {
            FragmentData::Node(node) => match &node.value {
                NodeValue::Array(items) => items.get(index).map(|i| &i.value),
                _ => None,
            },
            FragmentData::Documents(docs) => docs.get(index).map(|d| &d.value),
            FragmentData::Nil => None,
        }
    }
}

impl fmt::Display for Fragment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let go_type = match &*self.data {
            FragmentData::Nil => "<nil>",
            FragmentData::Node(node) => match node.value {
                NodeValue::Map(_) => "*yamlmeta.Map",
                NodeValue::Array(_) => "*yamlmeta.Array",
                NodeValue::Scalar(_) => "<nil>",
            },
            FragmentData::Documents(_) => "*yamlmeta.DocumentSet",
        };
        write!(f, "yamlfragment({go_type})")
    }
}

/// A node read from a fragment: scalars as values, maps and arrays as
/// fragments again (ytt's `NewGoValueWithYAML`).
pub fn fragment_child<'v>(node: &Node, heap: Heap<'v>) -> Value<'v> {
    match &node.value {
        NodeValue::Scalar(s) => scalar_to_value(&s.resolved, heap),
        _ => heap.alloc(Fragment::new(FragmentData::Node(node.clone()))),
    }
}

fn error(message: String) -> starlark::Error {
    starlark::Error::new_other(anyhow::anyhow!(message))
}

#[starlark_value(type = "yamlfragment")]
impl<'v> StarlarkValue<'v> for Fragment {
    fn to_bool(&self) -> bool {
        self.len() > 0
    }

    fn length(&self) -> starlark::Result<i32> {
        Ok(self.len() as i32)
    }

    fn at(&self, index: Value<'v>, heap: Heap<'v>) -> starlark::Result<Value<'v>> {
        if let FragmentData::Node(node) = &*self.data
            && let NodeValue::Map(items) = &node.value
        {
            let wanted = value_to_scalar(index);
            return items
                .iter()
                .find(|i| Some(&i.key.resolved) == wanted.as_ref())
                .map(|i| fragment_child(&i.value, heap))
                .ok_or_else(|| error(format!("key {index} not in yamlfragment")));
        }
        if matches!(*self.data, FragmentData::Nil) {
            return Err(error(format!("key {index} not in yamlfragment")));
        }
        let Some(wanted) = index.unpack_i32() else {
            return Err(error(format!(
                "yamlfragment.Get: Expected array index to be an int64, but was {}",
                index.get_type()
            )));
        };
        let position = if wanted < 0 {
            self.len() as i64 + i64::from(wanted)
        } else {
            i64::from(wanted)
        };
        usize::try_from(position)
            .ok()
            .and_then(|i| self.item(i))
            .map(|n| fragment_child(n, heap))
            .ok_or_else(|| error(format!("index {wanted} out of range")))
    }

    /// ytt's fragment is a mapping first: `x in fragment` looks `x` up as
    /// a key, so for an array or a document set it asks for an index.
    fn is_in(&self, other: Value<'v>) -> starlark::Result<bool> {
        let wanted = value_to_scalar(other);
        Ok(match &*self.data {
            FragmentData::Node(node) => match &node.value {
                NodeValue::Map(items) => items
                    .iter()
                    .any(|i| Some(&i.key.resolved) == wanted.as_ref()),
                NodeValue::Array(_) => other
                    .unpack_i32()
                    .is_some_and(|i| i >= 0 && (i as usize) < self.len()),
                NodeValue::Scalar(_) => false,
            },
            FragmentData::Documents(_) => other
                .unpack_i32()
                .is_some_and(|i| i >= 0 && (i as usize) < self.len()),
            FragmentData::Nil => false,
        })
    }

    fn iterate_collect(&self, heap: Heap<'v>) -> starlark::Result<Vec<Value<'v>>> {
        Ok(match &*self.data {
            FragmentData::Nil => Vec::new(),
            FragmentData::Node(node) => match &node.value {
                NodeValue::Map(items) => items
                    .iter()
                    .map(|i| scalar_to_value(&i.key.resolved, heap))
                    .collect(),
                NodeValue::Array(items) => items
                    .iter()
                    .map(|i| fragment_child(&i.value, heap))
                    .collect(),
                NodeValue::Scalar(_) => Vec::new(),
            },
            FragmentData::Documents(docs) => docs
                .iter()
                .map(|d| fragment_child(&d.value, heap))
                .collect(),
        })
    }
}
