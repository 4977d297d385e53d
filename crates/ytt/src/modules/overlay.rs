//! `@ytt:overlay` (ytt's `overlay/api.go`): `overlay.apply(left, right...)`
//! and the matchers `by=` takes, each a builtin that captures what it was
//! made with and is called with (index or key, left value, right value).

use super::context::Context;
use super::native::{Call, Failure, Native, Outcome, native};
use crate::overlay::compare::compare;
use crate::overlay::{Left, Overlay, Right};
use crate::source::{FileId, Span};
use crate::starlark::convert::{self, Converted};
use crate::starlark::fragment::{Fragment, FragmentData};
use crate::yaml::{Node, Value as NodeValue};
use starlark::eval::Evaluator;
use starlark::values::{Heap, Value};
use std::sync::Arc;

pub fn module<'v>(heap: Heap<'v>, _: &Context) -> Value<'v> {
    let members = [
        ("apply", "overlay.apply", native!(apply)),
        ("index", "overlay.index", native!(index)),
        ("all", "overlay.all", native!(all)),
        ("map_key", "overlay.map_key", native!(map_key)),
        ("subset", "overlay.subset", native!(subset)),
        ("and_op", "overlay.and_op", native!(and_op)),
        ("or_op", "overlay.or_op", native!(or_op)),
        ("not_op", "overlay.not_op", native!(not_op)),
    ];
    super::native::module(heap, "overlay", &members)
}

/// Where values built in memory are: nowhere in a file (ytt prints `?`).
fn in_memory() -> Span {
    Span::file_start(FileId(u32::MAX))
}

fn to_converted(value: Value<'_>) -> Result<Converted, Failure> {
    Ok(convert::convert(value, in_memory(), 0)?)
}

fn to_node(value: Value<'_>) -> Result<Node, Failure> {
    Ok(convert::value_to_node(value, in_memory())?)
}

fn apply<'v>(call: &Call<'v, '_>, eval: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let Some((first, rights)) = call.args.split_first() else {
        return Err("expected exactly at least argument".into());
    };
    let rights = rights
        .iter()
        .map(|v| to_converted(*v))
        .collect::<Result<Vec<_>, _>>()?;
    let mut overlay = Overlay { eval };
    let data = match to_converted(*first)? {
        Converted::Documents(docs) => {
            let mut sets = vec![docs];
            for right in &rights {
                overlay
                    .apply(Left::DocSets(&mut sets), as_right(right))
                    .map_err(|e| Failure::Message(e.message().to_string()))?;
            }
            FragmentData::Documents(sets.concat())
        }
        Converted::Node(mut node) => {
            for right in &rights {
                overlay
                    .apply(Left::Node(&mut node), as_right(right))
                    .map_err(|e| Failure::Message(e.message().to_string()))?;
            }
            FragmentData::Node(node)
        }
    };
    Ok(call.heap.alloc(Fragment::new(data)))
}

fn as_right(converted: &Converted) -> Right<'_> {
    match converted {
        Converted::Documents(docs) => Right::Documents(docs),
        Converted::Node(node) => Right::Node(node),
    }
}

/// A matcher: a builtin named `name` that captured `captured`.
fn matcher<'v>(
    heap: Heap<'v>,
    name: &'static str,
    call: super::native::NativeFn,
    captured: Vec<Value<'v>>,
    kind: MatcherKind,
) -> Value<'v> {
    heap.alloc(Native::with(name, call, captured, Some(Arc::new(kind))))
}

/// Which of ytt's own matchers a builtin is, so that matching can decide
/// on the nodes themselves instead of converting each candidate to a
/// Starlark value and back.
#[derive(Clone, Copy)]
enum MatcherKind {
    Index,
    MapKey,
    Subset,
    And,
    Or,
    Not,
}

/// What `matcher` decides for `left` (at `index`) against `right`, when it
/// is one of ytt's own matchers (or and/or/not of them) and decides without
/// an error; None when it must be called (another function, or an error
/// whose message the call gives).
pub fn decide_natively(matcher: Value<'_>, index: i64, left: &Node, right: &Node) -> Option<bool> {
    let native = Native::of(matcher)?;
    // `overlay.all` is the module's own builtin, made with nothing.
    if native.name() == "overlay.all" {
        return Some(true);
    }
    let kind = *native.data::<MatcherKind>()?;
    let captured = native.captured();
    match kind {
        MatcherKind::Index => Some(as_int(*captured.first()?).ok()? == index),
        MatcherKind::Subset => {
            let expected = to_node(*captured.first()?).ok()?;
            Some(compare(left, &expected).is_ok())
        }
        MatcherKind::MapKey => {
            let key = captured.first()?.unpack_str()?;
            let old = map_value(key, left).ok()?;
            let new = map_value(key, right).ok()?;
            Some(same_scalar(old, new))
        }
        // Each operand in order until one decides, as the call would.
        MatcherKind::And | MatcherKind::Or | MatcherKind::Not => {
            let stop = !matches!(kind, MatcherKind::And);
            let mut stopped = false;
            for op in captured {
                if decide_natively(*op, index, left, right)? == stop {
                    stopped = true;
                    break;
                }
            }
            Some(match kind {
                MatcherKind::And => !stopped,
                MatcherKind::Or => stopped,
                _ => !stopped,
            })
        }
    }
}

/// What one of ytt's own matchers asks of a left node, as a node a left
/// node holds when it matches: `overlay.subset(expected)` the expected
/// node; `overlay.map_key(key)` a map of `key` with `right`'s value there.
/// None for any other matcher (it does not say why it refuses a node).
pub fn asked_by(matcher: Value<'_>, right: &Node) -> Option<Node> {
    let native = Native::of(matcher)?;
    let captured = native.captured();
    match *native.data::<MatcherKind>()? {
        MatcherKind::Subset => to_node(*captured.first()?).ok(),
        MatcherKind::MapKey => {
            crate::overlay::explain::asked_key(right, captured.first()?.unpack_str()?)
        }
        _ => None,
    }
}

fn same_scalar(a: &Node, b: &Node) -> bool {
    matches!((&a.value, &b.value), (NodeValue::Scalar(a), NodeValue::Scalar(b)) if a.resolved == b.resolved)
}

fn three_args(call: &Call<'_, '_>) -> Result<(), Failure> {
    call.expect(3, "expected exactly 3 arguments")
}

fn index<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let wanted = call.one()?;
    as_int(wanted)?;
    Ok(matcher(
        call.heap,
        "overlay.index_matcher",
        native!(index_match),
        vec![wanted],
        MatcherKind::Index,
    ))
}

fn as_int(value: Value<'_>) -> Result<i64, Failure> {
    if value.get_type() != "int" {
        return Err(Failure::Message(format!(
            "expected starlark.Int, but was {}",
            crate::starlark::go::go_type(value)
        )));
    }
    value
        .unpack_i32()
        .map(i64::from)
        .or_else(|| value.to_str().parse().ok())
        .ok_or_else(|| Failure::Message("expected int64 value".into()))
}

fn index_match<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    three_args(call)?;
    let wanted = as_int(call.captured[0])?;
    let index = as_int(call.args[0])?;
    Ok(Value::new_bool(wanted == index))
}

fn all<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    three_args(call)?;
    Ok(Value::new_bool(true))
}

fn map_key<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let key = call.one()?;
    call.str_arg(0)?;
    Ok(map_key_matcher(call.heap, key))
}

/// `overlay.map_key(key)`: what a string `by=` stands for.
pub fn map_key_matcher<'v>(heap: Heap<'v>, key: Value<'v>) -> Value<'v> {
    matcher(
        heap,
        "overlay.map_key_matcher",
        native!(map_key_match),
        vec![key],
        MatcherKind::MapKey,
    )
}

fn map_key_match<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    three_args(call)?;
    let key = super::native::as_str(call.captured[0])?;
    let old = to_node(call.args[1])?;
    let new = to_node(call.args[2])?;
    let old = map_value(key, &old)?;
    let new = map_value(key, &new)?;
    Ok(Value::new_bool(same_scalar(old, new)))
}

fn map_value<'n>(key: &str, node: &'n Node) -> Result<&'n Node, Failure> {
    let NodeValue::Map(items) = &node.value else {
        return Err(Failure::Message(format!(
            "Expected value to be map, but was {}",
            node.type_name()
        )));
    };
    items
        .iter()
        .find(|i| i.key.resolved == crate::yaml::ScalarValue::Str(key.to_string()))
        .map(|i| &i.value)
        .ok_or_else(|| {
            Failure::Message(format!(
                "Expected to find map item with key '{key}', but did not"
            ))
        })
}

fn subset<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let expected = call.one()?;
    Ok(matcher(
        call.heap,
        "overlay.subset_matcher",
        native!(subset_match),
        vec![expected],
        MatcherKind::Subset,
    ))
}

fn subset_match<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    three_args(call)?;
    let left = to_node(call.args[1])?;
    let expected = to_node(call.captured[0])?;
    Ok(Value::new_bool(compare(&left, &expected).is_ok()))
}

fn and_op<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    if call.args.is_empty() {
        return Err("expected at least one argument".into());
    }
    Ok(matcher(
        call.heap,
        "overlay.and_op",
        native!(and_match),
        call.args.clone(),
        MatcherKind::And,
    ))
}

fn or_op<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    if call.args.is_empty() {
        return Err("expected at least one argument".into());
    }
    Ok(matcher(
        call.heap,
        "overlay.or_op",
        native!(or_match),
        call.args.clone(),
        MatcherKind::Or,
    ))
}

fn not_op<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let op = call.one()?;
    // ytt names its not_op matcher `overlay.or_op`.
    Ok(matcher(
        call.heap,
        "overlay.or_op",
        native!(not_match),
        vec![op],
        MatcherKind::Not,
    ))
}

/// Call each captured matcher with the call's arguments until one gives
/// `stop` (and_op stops on false, or_op on true).
fn each_match<'v>(
    call: &Call<'v, '_>,
    eval: &mut Evaluator<'v, '_, '_>,
    stop: bool,
) -> Result<bool, Failure> {
    three_args(call)?;
    for op in call.captured {
        let result = eval.eval_function(*op, &call.args, &[])?;
        let result = result.unpack_bool().ok_or_else(|| {
            Failure::Message(format!(
                "expected starlark.Bool, but was {}",
                crate::starlark::go::go_type(result)
            ))
        })?;
        if result == stop {
            return Ok(true);
        }
    }
    Ok(false)
}

fn and_match<'v>(call: &Call<'v, '_>, eval: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    Ok(Value::new_bool(!each_match(call, eval, false)?))
}

fn or_match<'v>(call: &Call<'v, '_>, eval: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    Ok(Value::new_bool(each_match(call, eval, true)?))
}

fn not_match<'v>(call: &Call<'v, '_>, eval: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    Ok(Value::new_bool(!each_match(call, eval, true)?))
}
