//! `@ytt:url`: path segment and query value escaping, query parameter maps
//! (`query_params_encode({"k": ["v"]})`, `query_params_decode("k=v")`) and
//! `parse(text)`, an `@ytt:url.value` with `user` (an `@ytt:url.user`
//! with `name`, `password`, `string()`, or None), `hostname()`,
//! `without_user()` and `string()`. All of it is Go's `net/url`, which
//! this file ports: what it escapes, what it refuses, how it prints a URL.

mod net_url;

use super::context::Context;
use super::go_value::{self, Go};
use super::native::{Call, Native, Outcome, UrlUser, UrlValue, as_str, native};
use net_url::{Mode, Url, UrlError, escape, parse_url, unescape, user_string};
use starlark::eval::Evaluator;
use starlark::values::{Heap, Value};
use std::sync::Arc;

pub fn module<'v>(heap: Heap<'v>, _: &Context) -> Value<'v> {
    super::native::module(
        heap,
        "url",
        &[
            (
                "path_segment_encode",
                "url.path_segment_encode",
                native!(path_segment_encode),
            ),
            (
                "path_segment_decode",
                "url.path_segment_decode",
                native!(path_segment_decode),
            ),
            (
                "query_param_value_encode",
                "url.query_param_value_encode",
                native!(query_param_value_encode),
            ),
            (
                "query_param_value_decode",
                "url.query_param_value_decode",
                native!(query_param_value_decode),
            ),
            (
                "query_params_encode",
                "url.query_params_encode",
                native!(query_params_encode),
            ),
            (
                "query_params_decode",
                "url.query_params_decode",
                native!(query_params_decode),
            ),
            ("parse", "url.parse", native!(parse)),
        ],
    )
}

fn string_fn<'v>(
    call: &Call<'v, '_>,
    f: impl FnOnce(&str) -> Result<String, UrlError>,
) -> Outcome<'v> {
    let text = as_str(call.one()?)?;
    Ok(call.heap.alloc(f(text)?))
}

fn path_segment_encode<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    string_fn(call, |s| Ok(escape(s, Mode::PathSegment)))
}

fn path_segment_decode<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    string_fn(call, |s| unescape(s, Mode::PathSegment))
}

fn query_param_value_encode<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    string_fn(call, |s| Ok(escape(s, Mode::QueryComponent)))
}

fn query_param_value_decode<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    string_fn(call, |s| unescape(s, Mode::QueryComponent))
}

/// Go's `url.Values.Encode` of a map of lists of strings: keys sorted.
fn query_params_encode<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let value = go_value::from_value(call.one()?, call.heap)?;
    let Go::Map(items) = value else {
        return Err(format!("expected argument to be a map, but was {}", go_name(&value)).into());
    };
    let mut params: Vec<(String, Vec<String>)> = Vec::new();
    for (key, values) in items {
        let Go::Str(key) = key else {
            return Err(format!("expected map key to be string, but was {}", go_name(&key)).into());
        };
        let Go::List(values) = values else {
            return Err(format!(
                "expected map value to be array, but was {}",
                go_name(&values)
            )
            .into());
        };
        let mut strings = Vec::new();
        for v in values {
            match v {
                Go::Str(s) => strings.push(s),
                other => {
                    return Err(format!(
                        "expected array value to be string, but was {}",
                        go_name(&other)
                    )
                    .into());
                }
            }
        }
        params.push((key, strings));
    }
    params.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out = String::new();
    for (key, values) in &params {
        for v in values {
            if !out.is_empty() {
                out.push('&');
            }
            out.push_str(&escape(key, Mode::QueryComponent));
            out.push('=');
            out.push_str(&escape(v, Mode::QueryComponent));
        }
    }
    Ok(call.heap.alloc(out))
}

/// Go's `%T` of converted data, for `query_params_encode` errors.
fn go_name(go: &Go) -> &'static str {
    match go {
        Go::Null => "<nil>",
        Go::Bool(_) => "bool",
        Go::Int(_) => "int64",
        Go::Float(_) => "float64",
        Go::Str(_) => "string",
        Go::Map(_) => "*orderedmap.Map",
        Go::List(_) => "[]interface {}",
        Go::Node(_) => "*yamlmeta.Map",
        Go::Docs(_) => "*yamlmeta.DocumentSet",
    }
}

/// Go's `url.ParseQuery` (after ytt turns `;` into `&`): keys sorted, each
/// with its values in order.
fn query_params_decode<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let text = as_str(call.one()?)?.replace(';', "&");
    let mut params: Vec<(String, Vec<String>)> = Vec::new();
    let mut first_error = None;
    for pair in text.split('&') {
        if pair.is_empty() {
            continue;
        }
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let decoded = unescape(key, Mode::QueryComponent)
            .and_then(|k| Ok((k, unescape(value, Mode::QueryComponent)?)));
        match decoded {
            Ok((k, v)) => match params.iter_mut().find(|(p, _)| *p == k) {
                Some((_, values)) => values.push(v),
                None => params.push((k, vec![v])),
            },
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    if let Some(e) = first_error {
        return Err(e.into());
    }
    params.sort_by(|a, b| a.0.cmp(&b.0));
    let map = Go::Map(
        params
            .into_iter()
            .map(|(k, vs)| (Go::Str(k), Go::List(vs.into_iter().map(Go::Str).collect())))
            .collect(),
    );
    Ok(go_value::to_value(&map, call.heap, false)?)
}

fn parse<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let text = as_str(call.one()?)?;
    let url = parse_url(text)?;
    Ok(url_value(call.heap, url))
}

fn url_value<'v>(heap: Heap<'v>, url: Url) -> Value<'v> {
    let user = match &url.user {
        None => Value::new_none(),
        Some((name, password)) => {
            let data: Arc<dyn std::any::Any + Send + Sync> = Arc::new(url.clone());
            heap.alloc(UrlUser::new(vec![
                ("name", heap.alloc(name.as_str())),
                (
                    "password",
                    password
                        .as_deref()
                        .map_or(Value::new_none(), |p| heap.alloc(p)),
                ),
                (
                    "string",
                    heap.alloc(Native::with(
                        "string",
                        native!(user_string_method),
                        Vec::new(),
                        Some(data),
                    )),
                ),
            ]))
        }
    };
    let data: Arc<dyn std::any::Any + Send + Sync> = Arc::new(url);
    let method =
        |name: &'static str, f| heap.alloc(Native::with(name, f, Vec::new(), Some(data.clone())));
    heap.alloc(UrlValue::new(vec![
        ("user", user),
        (
            "without_user",
            method("url.value.without_user", native!(without_user)),
        ),
        ("string", method("url.value.string", native!(url_string))),
        ("hostname", method("url.value.hostname", native!(hostname))),
    ]))
}

fn no_arguments(call: &Call<'_, '_>) -> Result<(), super::native::Failure> {
    call.expect(0, "expected no argument")
}

fn user_string_method<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    no_arguments(call)?;
    let url = call.data::<Url>()?;
    Ok(call
        .heap
        .alloc(url.user.as_ref().map(user_string).unwrap_or_default()))
}

fn without_user<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    no_arguments(call)?;
    let mut url = call.data::<Url>()?.clone();
    url.user = None;
    Ok(url_value(call.heap, url))
}

fn url_string<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    no_arguments(call)?;
    Ok(call.heap.alloc(call.data::<Url>()?.string()))
}

fn hostname<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    no_arguments(call)?;
    Ok(call.heap.alloc(call.data::<Url>()?.hostname()))
}
