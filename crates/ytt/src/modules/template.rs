//! `@ytt:template`: `template.replace(value)` puts `value`'s items, or its
//! documents, in place of the node it is set on.

use super::context::Context;
use super::native::{Call, Outcome, native};
use crate::template::{noop::Noop, runtime};
use starlark::eval::Evaluator;
use starlark::values::{Heap, Value};

pub fn module<'v>(heap: Heap<'v>, _: &Context) -> Value<'v> {
    super::native::module(
        heap,
        "template",
        &[("replace", "template.replace", native!(replace))],
    )
}

fn replace<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let value = call.one()?;
    runtime::replace(value)?;
    Ok(call.heap.alloc(Noop))
}
