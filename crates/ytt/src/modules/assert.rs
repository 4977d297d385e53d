//! `@ytt:assert`: `equals`, `fail`, `try_to`, and the assertion makers
//! `min`, `max`, `min_len`, `max_len`, `not_null` (also `not_null(value)`
//! as a check), `one_of`, `one_not_null`, each giving a struct whose
//! `check(value)` returns True or fails with ytt's text ("value < 3",
//! "length = 1", "check: all values are null"). As in ytt, `min`, `max`
//! and `one_of` compare values after a YAML round trip, so fragments
//! compare as data. confvet's own rules of the seed design are here too:
//! `format`, `starts_with`, `ends_with`, `contains`, `matches`, `even`,
//! `odd`, `multiple_of`, `len`.
//!
//! An assertion is a `struct` here (ytt's type is `@ytt:assert.assertion`):
//! validations accept rule objects by that type.

use super::builtins::to_str;
use super::context::Context;
use super::native::{Call, Failure, Native, NativeFn, Outcome, as_str, native};
use crate::starlark::go::{error_text, go_type, is_callable, is_sequence};
use crate::starlark::ytt_struct::YttStruct;
use starlark::eval::Evaluator;
use starlark::values::dict::DictRef;
use starlark::values::float::StarlarkFloat;
use starlark::values::tuple::AllocTuple;
use starlark::values::{Heap, UnpackValue, Value};
use std::cmp::Ordering;

pub fn module<'v>(heap: Heap<'v>, _: &Context) -> Value<'v> {
    super::native::module(
        heap,
        "assert",
        &[
            ("equals", "assert.equals", native!(equals)),
            ("fail", "assert.fail", native!(fail)),
            ("try_to", "assert.try_to", native!(try_to)),
            ("min", "assert.min", native!(min)),
            ("min_len", "assert.min_len", native!(min_len)),
            ("max", "assert.max", native!(max)),
            ("max_len", "assert.max_len", native!(max_len)),
            ("not_null", "assert.not_null", native!(not_null)),
            ("one_not_null", "assert.one_not_null", native!(one_not_null)),
            ("one_of", "assert.one_of", native!(one_of)),
            ("format", "assert.format", native!(format)),
            ("starts_with", "assert.starts_with", native!(starts_with)),
            ("ends_with", "assert.ends_with", native!(ends_with)),
            ("contains", "assert.contains", native!(contains)),
            ("matches", "assert.matches", native!(matches)),
            ("even", "assert.even", native!(even)),
            ("odd", "assert.odd", native!(odd)),
            ("multiple_of", "assert.multiple_of", native!(multiple_of)),
            ("len", "assert.len", native!(len)),
        ],
    )
}

/// ytt's "got N arguments, want M".
fn count(call: &Call<'_, '_>, want: usize) -> Result<(), Failure> {
    if call.args.len() == want {
        Ok(())
    } else {
        Err(format!("got {} arguments, want {want}", call.args.len()).into())
    }
}

/// An assertion: a struct whose `check` is `check` made with `captured`.
fn assertion<'v>(
    heap: Heap<'v>,
    name: &'static str,
    check: NativeFn,
    captured: Vec<Value<'v>>,
) -> Value<'v> {
    let check = heap.alloc(Native::with(name, check, captured, None));
    heap.alloc(YttStruct::new(vec![("check".into(), check)]))
}

/// The one argument of a check lambda named `parameter`, with the errors
/// starlark-go gives a lambda called wrongly.
fn check_arg<'v>(call: &Call<'v, '_>, parameter: &str) -> Result<Value<'v>, Failure> {
    let named = call.kwargs.iter().find(|(k, _)| *k == parameter);
    if let Some((k, _)) = call.kwargs.iter().find(|(k, _)| *k != parameter) {
        return Err(Failure::Plain(format!(
            "function lambda got an unexpected keyword argument '{k}'"
        )));
    }
    match (call.args.as_slice(), named) {
        ([value], None) => Ok(*value),
        ([], Some((_, value))) => Ok(*value),
        ([], None) => Err(Failure::Plain(format!(
            "function lambda missing 1 argument ({parameter})"
        ))),
        (args, _) => Err(Failure::Plain(format!(
            "function lambda accepts 1 positional argument ({} given)",
            args.len()
        ))),
    }
}

fn equals<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    count(call, 2)?;
    let (expected, actual) = (call.args[0], call.args[1]);
    for value in [expected, actual] {
        if is_callable(value) {
            return Err(format!(
                "expected argument not to be a function, but was {}",
                go_type(value)
            )
            .into());
        }
    }
    let as_yaml = |v: Value<'v>| -> Result<String, Failure> {
        let go = super::go_value::from_value(v, call.heap)?;
        Ok(super::yaml::encode_go(&go)?)
    };
    let (expected_text, actual_text) = (as_yaml(expected)?, as_yaml(actual)?);
    if expected_text != actual_text {
        return Err(format!(
            "Not equal:\n(expected type: {})\n{expected_text}\n\n(was type: {})\n{actual_text}",
            expected.get_type(),
            actual.get_type()
        )
        .into());
    }
    Ok(Value::new_none())
}

fn fail<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    count(call, 1)?;
    Err(Failure::AssertFail(as_str(call.args[0])?.to_string()))
}

fn try_to<'v>(call: &Call<'v, '_>, eval: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    count(call, 1)?;
    let f = call.args[0];
    if !is_callable(f) {
        return Err(format!("expected argument to be a function, but was {}", go_type(f)).into());
    }
    let pair = match eval.eval_function(f, &[], &[]) {
        Ok(v) => (v, Value::new_none()),
        Err(e) => (Value::new_none(), call.heap.alloc(error_text(&e))),
    };
    Ok(call.heap.alloc(AllocTuple([pair.0, pair.1])))
}

fn min<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    count(call, 1)?;
    Ok(assertion(
        call.heap,
        "assert.min",
        native!(check_min),
        call.args.clone(),
    ))
}

fn max<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    count(call, 1)?;
    Ok(assertion(
        call.heap,
        "assert.max",
        native!(check_max),
        call.args.clone(),
    ))
}

/// `yaml.decode(yaml.encode(value))`.
fn round_trip<'v>(value: Value<'v>, heap: Heap<'v>) -> Result<Value<'v>, Failure> {
    super::yaml::round_trip(value, heap).map_err(|e| Failure::Plain(e.to_string()))
}

/// The bound of `min` or `max` against the checked value: `wanted` is the
/// order the value must not have against the bound.
fn check_bound<'v>(call: &Call<'v, '_>, refused: Ordering, sign: char) -> Outcome<'v> {
    let value = round_trip(check_arg(call, "val")?, call.heap)?;
    let bound = round_trip(call.captured[0], call.heap)?;
    if value.compare(bound).map_err(Failure::Raw)? == refused {
        return Err(Failure::Fail(format!("value {sign} {}", to_str(bound))));
    }
    Ok(Value::new_bool(true))
}

fn check_min<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    check_bound(call, Ordering::Less, '<')
}

fn check_max<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    check_bound(call, Ordering::Greater, '>')
}

/// starlark-go's `NumberToInt`: ints, and floats truncated.
fn number_to_int(value: Value<'_>) -> Result<i64, Failure> {
    let refused = || {
        Failure::Message(format!(
            "expected value to be an number, but was {}",
            value.get_type()
        ))
    };
    if value.get_type() == "int" {
        return i64::unpack_value(value).ok().flatten().ok_or_else(refused);
    }
    match StarlarkFloat::unpack_value(value) {
        Ok(Some(StarlarkFloat(f))) if f.is_finite() => Ok(f.trunc() as i64),
        _ => Err(refused()),
    }
}

fn min_len<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    count(call, 1)?;
    let n = number_to_int(call.args[0])?;
    let bound = call.heap.alloc(n);
    Ok(assertion(
        call.heap,
        "assert.min_len",
        native!(check_min_len),
        vec![bound],
    ))
}

fn max_len<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    count(call, 1)?;
    let n = number_to_int(call.args[0])?;
    let bound = call.heap.alloc(n);
    Ok(assertion(
        call.heap,
        "assert.max_len",
        native!(check_max_len),
        vec![bound],
    ))
}

fn check_length<'v>(call: &Call<'v, '_>, ok: fn(i64, i64) -> bool) -> Outcome<'v> {
    let value = check_arg(call, "sequence")?;
    let length = i64::from(value.length().map_err(Failure::Raw)?);
    let bound = i64::unpack_value(call.captured[0])
        .ok()
        .flatten()
        .unwrap_or(0);
    if ok(length, bound) {
        Ok(Value::new_bool(true))
    } else {
        Err(Failure::Fail(format!("length = {length}")))
    }
}

fn check_min_len<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    check_length(call, |length, bound| length >= bound)
}

fn check_max_len<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    check_length(call, |length, bound| length <= bound)
}

fn not_null<'v>(call: &Call<'v, '_>, eval: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    if call.args.len() > 1 {
        return Err(format!("got {} arguments, want at most 1", call.args.len()).into());
    }
    if call.args.is_empty() {
        return Ok(assertion(
            call.heap,
            "assert.not_null",
            native!(check_not_null),
            Vec::new(),
        ));
    }
    // `assert.not_null(value)`: the check, run now.
    let check = Call {
        name: call.name,
        captured: &[],
        data: None,
        args: call.args.clone(),
        kwargs: Vec::new(),
        heap: call.heap,
    };
    check_not_null(&check, eval).map_err(|f| Failure::Message(f.text("")))
}

fn check_not_null<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    if check_arg(call, "value")?.is_none() {
        return Err(Failure::Fail("value is null".into()));
    }
    Ok(Value::new_bool(true))
}

fn one_of<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    if call.args.is_empty() {
        return Err("got 0 arguments, want at least 1".into());
    }
    let values = if call.args.len() == 1 {
        call.args[0]
    } else {
        call.heap.alloc(AllocTuple(call.args.iter().copied()))
    };
    if !is_sequence(values) {
        return Err(format!("expected a sequence, but was a '{}'", values.get_type()).into());
    }
    Ok(assertion(
        call.heap,
        "assert.one_of",
        native!(check_one_of),
        vec![values],
    ))
}

fn check_one_of<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let value = round_trip(check_arg(call, "val")?, call.heap)?;
    let values = round_trip(call.captured[0], call.heap)?;
    if values.is_in(value).map_err(Failure::Raw)? {
        Ok(Value::new_bool(true))
    } else {
        Err(Failure::Fail("not one of allowed values".into()))
    }
}

fn one_not_null<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    if call.args.len() > 1 {
        return Err(format!("got {} arguments, want 1", call.args.len()).into());
    }
    let keys = match call.args.first() {
        None => Vec::new(),
        Some(v) if v.unpack_bool() == Some(true) => Vec::new(),
        Some(v) if v.unpack_bool() == Some(false) => {
            return Err("one_not_null() cannot be False".into());
        }
        Some(v) if is_sequence(*v) => vec![*v],
        Some(v) => {
            return Err(
                format!("expected a sequence of keys, but was a '{}'", v.get_type()).into(),
            );
        }
    };
    Ok(assertion(
        call.heap,
        "assert.one_not_null",
        native!(check_one_not_null),
        keys,
    ))
}

fn check_one_not_null<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let plain = |m: String| Failure::Plain(format!("check: {m}"));
    if call.args.len() != 1 {
        return Err(plain(format!("got {} arguments, want 1", call.args.len())));
    }
    let value = round_trip(call.args[0], call.heap)?;
    let Some(dict) = DictRef::from_value(value) else {
        return Err(plain(format!(
            "value must be a map or dict, but was '{}'",
            value.get_type()
        )));
    };
    let keys: Vec<Value<'v>> = match call.captured.first() {
        None => dict.keys().collect(),
        Some(keys) => {
            let mut out = Vec::new();
            for key in keys.iterate(call.heap).map_err(Failure::Raw)? {
                out.push(round_trip(key, call.heap)?);
            }
            out
        }
    };
    let mut not_null = Vec::new();
    for key in keys {
        let found = dict.get(key).map_err(Failure::Raw)?;
        if found.is_some_and(|v| !v.is_none()) {
            not_null.push(key);
        }
    }
    match not_null.len() {
        0 if dict.is_empty() => Err(plain("value is empty".into())),
        0 => Err(plain("all values are null".into())),
        1 => Ok(Value::new_bool(true)),
        _ => {
            let list = call.heap.alloc(not_null);
            Err(plain(format!("{} are not null", to_str(list))))
        }
    }
}

/// A rule of confvet's: `name(argument)` whose check fails with
/// `message(value, argument)` unless `test(value, argument)`.
fn rule<'v>(call: &Call<'v, '_>, arity: usize, check: NativeFn) -> Outcome<'v> {
    count(call, arity)?;
    Ok(assertion(call.heap, call.name, check, call.args.clone()))
}

fn checked<'v>(call: &Call<'v, '_>, ok: bool, message: impl FnOnce(&str) -> String) -> Outcome<'v> {
    let value = check_arg(call, "v")?;
    if ok {
        Ok(Value::new_bool(true))
    } else {
        Err(Failure::Fail(message(&to_str(value))))
    }
}

fn format<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    rule(call, 1, native!(check_format))
}

fn check_format<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let name = as_str(call.captured[0])?;
    let value = check_arg(call, "v")?;
    let ok = value
        .unpack_str()
        .is_some_and(|text| crate::formats::is_valid(name, text));
    checked(call, ok, |v| format!("{v} is not a valid {name}"))
}

fn string_test<'v>(call: &Call<'v, '_>, test: fn(&str, &str) -> bool, verb: &str) -> Outcome<'v> {
    let wanted = as_str(call.captured[0])?;
    let value = check_arg(call, "v")?;
    let text = as_str(value).map_err(|_| {
        Failure::Plain(format!(
            "{} has no such method for {verb}",
            value.get_type()
        ))
    })?;
    checked(call, test(text, wanted), |v| {
        format!("{v} does not {verb} {wanted}")
    })
}

fn starts_with<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    rule(call, 1, native!(check_starts_with))
}

fn check_starts_with<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    string_test(call, |text, prefix| text.starts_with(prefix), "start with")
}

fn ends_with<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    rule(call, 1, native!(check_ends_with))
}

fn check_ends_with<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    string_test(call, |text, suffix| text.ends_with(suffix), "end with")
}

fn contains<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    rule(call, 1, native!(check_contains))
}

fn check_contains<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let item = call.captured[0];
    let value = check_arg(call, "v")?;
    let ok = value.is_in(item).map_err(Failure::Raw)?;
    checked(call, ok, |v| {
        format!("{v} does not contain {}", to_str(item))
    })
}

fn matches<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    rule(call, 1, native!(check_matches))
}

fn check_matches<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let pattern = as_str(call.captured[0])?;
    let re = super::regexp::compile(pattern).map_err(|e| Failure::Plain(e.to_string()))?;
    let value = check_arg(call, "v")?;
    let text = as_str(value).map_err(|f| Failure::Plain(f.text("matches")))?;
    checked(call, re.is_match(text), |v| {
        format!("{v} does not match {pattern}")
    })
}

/// `value % divisor == 0` or `== 1` as Starlark computes `%` (the result
/// takes the divisor's sign), for ints and floats.
fn modulo_is(value: Value<'_>, divisor: Value<'_>, wanted: i64) -> Result<bool, Failure> {
    let unsupported = || {
        Failure::Plain(format!(
            "Operation `%` not supported for types `{}` and `{}`",
            value.get_type(),
            divisor.get_type()
        ))
    };
    let int = |v: Value<'_>| {
        i64::unpack_value(v)
            .ok()
            .flatten()
            .filter(|_| v.get_type() == "int")
    };
    let float = |v: Value<'_>| -> Option<f64> {
        match StarlarkFloat::unpack_value(v) {
            Ok(Some(StarlarkFloat(f))) => Some(f),
            _ => int(v).map(|i| i as f64),
        }
    };
    if let (Some(a), Some(b)) = (int(value), int(divisor)) {
        if b == 0 {
            return Err(Failure::Plain("Integer division by zero".into()));
        }
        let (a, b) = (i128::from(a), i128::from(b));
        let r = a.rem_euclid(b.abs());
        let r = if b < 0 && r != 0 { r + b } else { r };
        return Ok(r == i128::from(wanted));
    }
    let (a, b) = (
        float(value).ok_or_else(unsupported)?,
        float(divisor).ok_or_else(unsupported)?,
    );
    if b == 0.0 {
        return Err(Failure::Plain("Float division by zero".into()));
    }
    let r = a % b;
    let r = if r != 0.0 && (r < 0.0) != (b < 0.0) {
        r + b
    } else {
        r
    };
    Ok(r == wanted as f64)
}

fn even<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    rule(call, 0, native!(check_even))
}

fn check_even<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let value = check_arg(call, "v")?;
    let ok = modulo_is(value, call.heap.alloc(2), 0)?;
    checked(call, ok, |v| format!("{v} is odd"))
}

fn odd<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    rule(call, 0, native!(check_odd))
}

fn check_odd<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let value = check_arg(call, "v")?;
    let ok = modulo_is(value, call.heap.alloc(2), 1)?;
    checked(call, ok, |v| format!("{v} is even"))
}

fn multiple_of<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    rule(call, 1, native!(check_multiple_of))
}

fn check_multiple_of<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let divisor = call.captured[0];
    let value = check_arg(call, "v")?;
    let ok = modulo_is(value, divisor, 0)?;
    checked(call, ok, |v| {
        format!("{v} is not a multiple of {}", to_str(divisor))
    })
}

fn len<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    rule(call, 1, native!(check_len))
}

fn check_len<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let wanted = i64::unpack_value(call.captured[0]).ok().flatten();
    let value = check_arg(call, "v")?;
    let length = i64::from(value.length().map_err(Failure::Raw)?);
    checked(call, Some(length) == wanted, |_| {
        format!("length = {length}")
    })
}
