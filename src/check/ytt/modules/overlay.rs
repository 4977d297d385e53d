//! `@ytt:overlay`, not implemented yet: its matchers accept any arguments
//! and return None, so templates that load it still evaluate (overlay
//! documents are printed as they are); `overlay.apply` says that confvet
//! does not render it yet, which render failures report as a gap of
//! confvet's, never as the package's error. `@ytt:library` likewise.

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
    let mut members: Vec<_> = names
        .iter()
        .map(|(member, name)| (*member, *name, native!(matcher)))
        .collect();
    members.push(("apply", "overlay.apply", native!(not_rendered)));
    super::native::module(heap, "overlay", &members)
}

/// What a template reaching an unimplemented part of ytt gets.
pub const NOT_RENDERED: &str = "confvet does not render this yet";

fn not_rendered<'v>(_: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    Err(NOT_RENDERED.into())
}

/// `@ytt:library`, not implemented yet: `library.get` says so.
pub fn library_module<'v>(heap: Heap<'v>, _: &Context) -> Value<'v> {
    let members = [("get", "library.get", native!(not_rendered))];
    super::native::module(heap, "library", &members)
}

fn matcher<'v>(_: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    Ok(Value::new_none())
}
