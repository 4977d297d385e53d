//! ytt's `struct`: what `struct.make()` returns and what `data.values` is
//! made of. Unlike starlark-rust's builtin struct it is also a read-only
//! mapping: `s["key"]`, `"key" in s`, `len(s)` and iteration over its keys
//! work, as in ytt's `core.StarlarkStruct`.

use allocative::Allocative;
use starlark::coerce::Coerce;
use starlark::collections::SmallMap;
use starlark::starlark_complex_value;
use starlark::values::list::{AllocList, ListRef};
use starlark::values::{
    Freeze, FreezeResult, Freezer, Heap, NoSerialize, ProvidesStaticType, StarlarkValue, Trace,
    Value, ValueLike, starlark_value,
};
use std::fmt;

#[derive(Debug, Trace, Coerce, ProvidesStaticType, NoSerialize, Allocative)]
#[repr(C)]
pub struct YttStructGen<V> {
    /// In order, hashed once past a few fields: a schema of 100,000 keys
    /// is looked up key by key.
    fields: SmallMap<String, V>,
}

starlark_complex_value!(pub YttStruct);

impl<V> YttStructGen<V> {
    /// A struct of these fields (frozen values for a frozen struct).
    pub fn new(fields: Vec<(String, V)>) -> Self {
        let mut map = SmallMap::with_capacity(fields.len());
        for (k, v) in fields {
            // The first of a name wins, as a search in order would find it.
            map.entry(k).or_insert(v);
        }
        YttStructGen { fields: map }
    }
}

impl<'v, V: ValueLike<'v>> YttStructGen<V> {
    /// Fields in their order.
    pub fn fields(&self) -> impl Iterator<Item = (&str, Value<'v>)> {
        self.fields.iter().map(|(k, v)| (k.as_str(), v.to_value()))
    }

    fn get(&self, name: &str) -> Option<Value<'v>> {
        self.fields.get(name).map(|v| v.to_value())
    }
}

impl<V> fmt::Display for YttStructGen<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("struct(...)")
    }
}

impl<'v> Freeze for YttStruct<'v> {
    type Frozen = FrozenYttStruct;
    fn freeze(self, freezer: &Freezer) -> FreezeResult<Self::Frozen> {
        let mut fields = SmallMap::with_capacity(self.fields.len());
        for (k, v) in self.fields {
            fields.insert(k, v.freeze(freezer)?);
        }
        Ok(YttStructGen { fields })
    }
}

/// A field's list as ytt's struct gives it: never frozen (ytt freezes a
/// loaded file's globals, not the lists in its structs, nor those of
/// `data.values`), so `values.hosts.append(x)` works where the struct came
/// from a loaded file. starlark-rust cannot thaw a frozen list: a mutable
/// copy stands in, so a change is seen by the code holding it, not by a
/// later read of the field.
fn thawed<'v>(value: Value<'v>, heap: Heap<'v>) -> Value<'v> {
    if value.unpack_frozen().is_none() {
        return value;
    }
    match ListRef::from_value(value) {
        Some(list) => heap.alloc(AllocList(list.content().iter().copied())),
        None => value,
    }
}

#[starlark_value(type = "struct")]
impl<'v, V: ValueLike<'v>> StarlarkValue<'v> for YttStructGen<V>
where
    Self: ProvidesStaticType<'v>,
{
    fn get_attr(&self, attribute: &str, heap: Heap<'v>) -> Option<Value<'v>> {
        self.get(attribute).map(|v| thawed(v, heap))
    }

    fn has_attr(&self, attribute: &str, _heap: Heap<'v>) -> bool {
        self.get(attribute).is_some()
    }

    fn dir_attr(&self) -> Vec<String> {
        self.fields.iter().map(|(k, _)| k.clone()).collect()
    }

    fn at(&self, index: Value<'v>, heap: Heap<'v>) -> starlark::Result<Value<'v>> {
        let Some(name) = index.unpack_str() else {
            return Err(starlark::Error::new_other(anyhow::anyhow!(
                "expected a string, but was {}",
                index.get_type()
            )));
        };
        self.get(name).map(|v| thawed(v, heap)).ok_or_else(|| {
            starlark::Error::new_other(anyhow::anyhow!("key {:?} not in struct", name))
        })
    }

    fn is_in(&self, other: Value<'v>) -> starlark::Result<bool> {
        Ok(other.unpack_str().is_some_and(|k| self.get(k).is_some()))
    }

    fn length(&self) -> starlark::Result<i32> {
        Ok(self.fields.len() as i32)
    }

    fn to_bool(&self) -> bool {
        !self.fields.is_empty()
    }

    fn iterate_collect(&self, heap: Heap<'v>) -> starlark::Result<Vec<Value<'v>>> {
        Ok(self
            .fields
            .iter()
            .map(|(k, _)| heap.alloc(k.as_str()))
            .collect())
    }
}
