//! `@ytt:struct`: `make(**fields)`, `make_and_bind(receiver, **fields)`
//! (functions get the receiver as their first argument), `bind(f, *args)`,
//! `encode(value)` (dicts become structs, all the way down) and
//! `decode(value)` (structs become dicts). Fragments are refused by
//! `encode` and `decode`, as ytt refuses them.

use super::context::Context;
use super::go_value;
use super::native::{Call, Native, Outcome, native};
use crate::starlark::go::is_callable;
use crate::starlark::ytt_struct::YttStruct;
use starlark::eval::Evaluator;
use starlark::values::{Heap, Value};

pub fn module<'v>(heap: Heap<'v>, _: &Context) -> Value<'v> {
    super::native::module(
        heap,
        "struct",
        &[
            ("make", "struct.make", native!(make)),
            (
                "make_and_bind",
                "struct.make_and_bind",
                native!(make_and_bind),
            ),
            ("bind", "struct.bind", native!(bind)),
            ("encode", "struct.encode", native!(encode)),
            ("decode", "struct.decode", native!(decode)),
        ],
    )
}

fn make<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    if !call.args.is_empty() {
        return Err(
            "unexpected positional arguments (structs are made from keyword arguments only)".into(),
        );
    }
    let fields = call
        .kwargs
        .iter()
        .map(|(k, v)| (k.to_string(), *v))
        .collect();
    Ok(call.heap.alloc(YttStruct::new(fields)))
}

/// `f` with `args` given before the caller's arguments.
fn bound<'v>(heap: Heap<'v>, f: Value<'v>, args: &[Value<'v>]) -> Value<'v> {
    let mut captured = vec![f];
    captured.extend_from_slice(args);
    heap.alloc(Native::with(
        "struct.bind_result",
        native!(call_bound),
        captured,
        None,
    ))
}

fn call_bound<'v>(call: &Call<'v, '_>, eval: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let (f, bound_args) = call
        .captured
        .split_first()
        .ok_or("internal: bound function without its function")?;
    let mut args = bound_args.to_vec();
    args.extend_from_slice(&call.args);
    Ok(eval.eval_function(*f, &args, &call.kwargs)?)
}

fn bind<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    if call.args.len() < 2 {
        return Err("expected at least two arguments".into());
    }
    Ok(bound(call.heap, call.args[0], &call.args[1..]))
}

fn make_and_bind<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    call.expect(1, "expected at exactly one argument")?;
    let receiver = call.args[0];
    let fields = call
        .kwargs
        .iter()
        .map(|(k, v)| {
            let value = if is_callable(*v) {
                bound(call.heap, *v, &[receiver])
            } else {
                *v
            };
            (k.to_string(), value)
        })
        .collect();
    Ok(call.heap.alloc(YttStruct::new(fields)))
}

fn encode<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let go = go_value::from_value(call.one()?, call.heap)?;
    Ok(go_value::to_value(&go, call.heap, true)?)
}

fn decode<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let go = go_value::from_value(call.one()?, call.heap)?;
    Ok(go_value::to_value(&go, call.heap, false)?)
}
