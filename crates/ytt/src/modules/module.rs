//! `@ytt:module`: `module.make(name, **members)` makes a module value, as
//! starlark-go's `starlarkstruct.MakeModule`.

use super::context::Context;
use super::native::{Call, Outcome, YttModule, native};
use starlark::eval::Evaluator;
use starlark::values::{Heap, Value};

pub fn module<'v>(heap: Heap<'v>, _: &Context) -> Value<'v> {
    super::native::module(heap, "module", &[("make", "module.make", native!(make))])
}

fn make<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    if call.args.len() != 1 {
        return Err(format!("module.make: got {} arguments, want 1", call.args.len()).into());
    }
    let name = call.args[0].unpack_str().ok_or_else(|| {
        format!(
            "module.make: for parameter 1: got {}, want string",
            call.args[0].get_type()
        )
    })?;
    let members = call
        .kwargs
        .iter()
        .map(|(k, v)| (k.to_string(), *v))
        .collect();
    Ok(call.heap.alloc(YttModule::new(name, members)))
}
