//! `@ytt:md5`: `md5.sum(text)`, the hex digest of a string's bytes.

use super::context::Context;
use super::native::{Call, Outcome, as_str, native};
use starlark::eval::Evaluator;
use starlark::values::{Heap, Value};

pub fn module<'v>(heap: Heap<'v>, _: &Context) -> Value<'v> {
    super::native::module(heap, "md5", &[("sum", "md5.sum", native!(sum))])
}

fn sum<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let text = as_str(call.one()?)?;
    Ok(call.heap.alloc(crate::digest::md5_hex(text.as_bytes())))
}
