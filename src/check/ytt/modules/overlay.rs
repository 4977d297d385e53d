//! `@ytt:overlay`, not implemented yet: its matchers accept any arguments
//! and return None, so templates that load it still evaluate (overlay
//! documents are printed as they are).

use super::Context;
use super::native::{Call, Outcome, native};
use starlark::eval::Evaluator;
use starlark::values::{Heap, Value};

pub fn module<'v>(heap: Heap<'v>, _: &Context) -> Value<'v> {
    let names: &[(&str, &'static str)] = &[
        ("subset", "overlay.subset"),
        ("all", "overlay.all"),
        ("map_key", "overlay.map_key"),
        ("index", "overlay.index"),
        ("and_op", "overlay.and_op"),
        ("or_op", "overlay.or_op"),
        ("not_op", "overlay.not_op"),
    ];
    let members: Vec<_> = names
        .iter()
        .map(|(member, name)| (*member, *name, native!(matcher)))
        .collect();
    super::native::module(heap, "overlay", &members)
}

fn matcher<'v>(_: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    Ok(Value::new_none())
}
