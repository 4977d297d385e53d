//! The instructions compiled templates call, as Starlark builtins.

use super::noop::Noop;
use super::runtime::{self, Ended, RuntimeError};
use starlark::environment::GlobalsBuilder;
use starlark::values::{Heap, Value};

/// An instruction's error as the Starlark error the template sees: its
/// text, unchanged.
fn fail(e: RuntimeError) -> anyhow::Error {
    anyhow::anyhow!(e.to_string())
}

#[starlark::starlark_module]
pub fn template_instructions(builder: &mut GlobalsBuilder) {
    fn __ytt_start_ctx(id: i64) -> anyhow::Result<starlark::values::none::NoneType> {
        runtime::start_ctx(id as usize).map_err(fail)?;
        Ok(starlark::values::none::NoneType)
    }

    fn __ytt_end_ctx<'v>(
        id: i64,
        #[starlark(args)] given: starlark::values::tuple::UnpackTuple<Value<'v>>,
        heap: Heap<'v>,
    ) -> anyhow::Result<Value<'v>> {
        let given = given.items.first().copied();
        Ok(match runtime::end_ctx(id as usize, given).map_err(fail)? {
            Ended::Given(value) => value,
            // A function that built nothing still returns a fragment (an
            // empty one), as ytt's does.
            Ended::Built(fragment) => heap.alloc(fragment),
            Ended::Text(text) => heap.alloc(text),
        })
    }

    fn __ytt_start_node(id: i64, tag: i32) -> anyhow::Result<starlark::values::none::NoneType> {
        runtime::start_node(id as usize, tag as usize).map_err(fail)?;
        Ok(starlark::values::none::NoneType)
    }

    fn __ytt_set_node<'v>(
        id: i64,
        tag: i32,
        #[starlark(args)] value: starlark::values::tuple::UnpackTuple<Value<'v>>,
    ) -> anyhow::Result<starlark::values::none::NoneType> {
        runtime::set_node(id as usize, tag as usize, value.items.first().copied()).map_err(fail)?;
        Ok(starlark::values::none::NoneType)
    }

    /// `__ytt_start_node` of a text template's node (see `text::finish`).
    fn __ytt_text_start_node(
        id: i64,
        tag: i32,
    ) -> anyhow::Result<starlark::values::none::NoneType> {
        runtime::start_node(id as usize, tag as usize).map_err(fail)?;
        Ok(starlark::values::none::NoneType)
    }

    /// `__ytt_set_node` of a text template's node.
    fn __ytt_text_set_node<'v>(
        id: i64,
        tag: i32,
        #[starlark(args)] value: starlark::values::tuple::UnpackTuple<Value<'v>>,
    ) -> anyhow::Result<starlark::values::none::NoneType> {
        runtime::set_node(id as usize, tag as usize, value.items.first().copied()).map_err(fail)?;
        Ok(starlark::values::none::NoneType)
    }

    /// The key a map item gets when it starts (`@yaml/text-templated-strings`).
    fn __ytt_set_map_item_key<'v>(
        id: i64,
        tag: i32,
        key: Value<'v>,
    ) -> anyhow::Result<starlark::values::none::NoneType> {
        runtime::set_map_item_key(id as usize, tag as usize, key).map_err(fail)?;
        Ok(starlark::values::none::NoneType)
    }

    /// An annotation's arguments are evaluated where ytt evaluates them;
    /// the annotation itself travels with the node's comments, and an
    /// overlay annotation's keyword arguments with it (`annotation_args`).
    fn __ytt_annotation<'v>(
        #[starlark(args)] args: starlark::values::tuple::UnpackTuple<Value<'v>>,
        #[starlark(kwargs)] kwargs: starlark::values::dict::DictRef<'v>,
        eval: &mut starlark::eval::Evaluator<'v, '_, '_>,
    ) -> anyhow::Result<starlark::values::none::NoneType> {
        let place = match args.items.as_slice() {
            [id, tag, name, ..] => <i64 as starlark::values::UnpackValue>::unpack_value(*id)
                .ok()
                .flatten()
                .zip(tag.unpack_i32())
                .zip(name.unpack_str()),
            _ => None,
        };
        if let Some(((id, tag), name)) = place
            && name.starts_with("overlay/")
        {
            let pairs = kwargs
                .iter()
                .map(|(k, v)| (k.unpack_str().unwrap_or_default().to_string(), v))
                .collect();
            let handle = super::annotation_args::record(eval, pairs).map_err(fail)?;
            runtime::set_annotation_args(id as usize, tag as usize, name, handle).map_err(fail)?;
        }
        Ok(starlark::values::none::NoneType)
    }

    /// `**x` on any mapping: a dict of its items (see `wrap_kwargs_splats`).
    fn __ytt_kwargs<'v>(value: Value<'v>, heap: Heap<'v>) -> starlark::Result<Value<'v>> {
        use crate::starlark::{fragment::Fragment, ytt_struct::YttStruct};
        if let Some(fields) = YttStruct::from_value(value) {
            let pairs: Vec<(Value, Value)> =
                fields.fields().map(|(k, v)| (heap.alloc(k), v)).collect();
            return Ok(heap.alloc(starlark::values::dict::AllocDict(pairs)));
        }
        if Fragment::from_value(value).is_some() {
            let keys = value.iterate(heap)?;
            let mut pairs = Vec::new();
            for key in keys {
                pairs.push((key, value.at(key, heap)?));
            }
            return Ok(heap.alloc(starlark::values::dict::AllocDict(pairs)));
        }
        Ok(value)
    }

    /// `template.replace(value)`.
    fn ytt_template_replace<'v>(value: Value<'v>) -> anyhow::Result<Noop> {
        runtime::replace(value).map_err(fail)?;
        Ok(Noop)
    }
}
