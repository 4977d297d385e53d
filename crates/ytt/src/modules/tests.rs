//! The modules as templates use them, through the engine. Every expected
//! value is what the reference ytt gives for the same expression.

use crate::engine::Engine;
use crate::starlark::{StarValue, to_star_value};
use std::path::Path;

const LOADS: &str = r#"load("@ytt:json", "json")
load("@ytt:yaml", "yaml")
load("@ytt:base64", "base64")
load("@ytt:url", "url")
load("@ytt:ip", "ip")
load("@ytt:assert", "assert")
load("@ytt:regexp", "regexp")
load("@ytt:struct", "struct")
load("@ytt:math", "math")
load("@ytt:version", "version")
load("@ytt:module", "module")
load("@ytt:sha256", "sha256")
load("@ytt:md5", "md5")
def boom():
  assert.fail("kaboom")
end
"#;

/// The values of `expressions`, evaluated in a template after the loads.
fn values(expressions: &[&str]) -> Vec<StarValue> {
    let engine = Engine::new(Path::new("."), crate::workspace::MODULES);
    let code = format!("{LOADS}out = [\n{}\n]", expressions.join(",\n"));
    let text: String = code.lines().map(|l| format!("#@ {l}\n")).collect();
    let module = engine
        .compile_yaml_file("t.yml", &text, Path::new("."))
        .unwrap_or_else(|e| panic!("{e:?}"));
    match to_star_value(module.get("out").expect("out").value(), 0) {
        StarValue::List(items) => items,
        other => panic!("not a list: {other:?}"),
    }
}

fn check(cases: &[(&str, StarValue)]) {
    let expressions: Vec<&str> = cases.iter().map(|(e, _)| *e).collect();
    for ((expression, want), got) in cases.iter().zip(values(&expressions)) {
        assert_eq!(&got, want, "{expression}");
    }
}

fn s(text: &str) -> StarValue {
    StarValue::Str(text.into())
}

/// `assert.try_to(lambda: expression)`'s error text.
fn error_of(expression: &str) -> String {
    format!("assert.try_to(lambda: {expression})[1]")
}

#[test]
fn errors_have_ytt_words() {
    let cases = [
        (
            "assert.try_to(boom)[1]".to_string(),
            "assert.fail: fail: kaboom",
        ),
        (
            error_of("assert.not_null(None)"),
            "assert.not_null: fail: value is null",
        ),
        (
            error_of(r#"assert.one_not_null().check({"a": 1, "b": 2})"#),
            r#"check: ["a", "b"] are not null"#,
        ),
        (
            error_of("assert.one_not_null().check({})"),
            "check: value is empty",
        ),
        (
            error_of("assert.one_of(4)"),
            "assert.one_of: expected a sequence, but was a 'int'",
        ),
        (error_of("assert.min(3).check(2)"), "fail: value < 3"),
        (
            error_of("assert.max_len(1).check([1, 2])"),
            "fail: length = 2",
        ),
        (
            error_of("assert.equals(1, 2)"),
            "assert.equals: Not equal:\n(expected type: int)\n1\n\n\n(was type: int)\n2\n",
        ),
        (
            error_of("assert.min(1, 2)"),
            "assert.min: got 2 arguments, want 1",
        ),
        (
            error_of(r#"json.decode("}junk")"#),
            "json.decode: invalid character '}' looking for beginning of value",
        ),
        (
            error_of(r#"base64.decode("YQ=")"#),
            "base64.decode: illegal base64 data at input byte 3",
        ),
        (
            error_of(r#"ip.parse_addr("01.2.3.4")"#),
            "ip.parse_addr: invalid IP address: 01.2.3.4",
        ),
        (
            error_of(r#"ip.parse_cidr("10.0.0.0/33")"#),
            "ip.parse_cidr: invalid CIDR address: 10.0.0.0/33",
        ),
        (
            error_of(r#"url.parse(":foo")"#),
            r#"url.parse: parse ":foo": missing protocol scheme"#,
        ),
        (
            error_of(r#"version.require_at_least("0.1.0")"#),
            "version.require_at_least: Malformed version: develop",
        ),
        (
            error_of("struct.make(1)"),
            "struct.make: unexpected positional arguments (structs are made from keyword arguments only)",
        ),
        (
            error_of("json.encode(1, indent=9)"),
            "json.encode: indent value must be between 0 and 8",
        ),
        (
            error_of(r#"math.ceil("x")"#),
            "ceil: expected float value, but was starlark.String",
        ),
        (
            error_of("math.mod(1)"),
            "round: expected exactly two arguments",
        ),
        (
            error_of(r#"regexp.replace("a", "a", lambda m: 1)"#),
            "regexp.replace: expected a string, but was int",
        ),
        (
            error_of(r#"url.query_params_encode({"a": "b"})"#),
            "url.query_params_encode: expected map value to be array, but was string",
        ),
        (
            error_of(r#"yaml.decode("a: 1\n---\nb: 2")"#),
            "yaml.decode: Expected to find exactly one YAML document",
        ),
        (
            error_of("(None).foo"),
            "NoneType has no .foo field or method",
        ),
    ];
    let cases: Vec<(&str, StarValue)> = cases.iter().map(|(e, m)| (e.as_str(), s(m))).collect();
    check(&cases);
}

#[test]
fn values_are_ytt_values() {
    let t = StarValue::Bool(true);
    check(&[
        (r#"assert.min(["a", 1]).check(["b", 2])"#, t.clone()),
        (
            r#"assert.one_of("aws", 4, False, {"azure": "vsphere"}).check({"azure": "vsphere"})"#,
            t.clone(),
        ),
        (r#"assert.not_null("a")"#, t.clone()),
        ("str(3.0)", s("3")),
        ("str([1.0, 2.5])", s("[1, 2.5]")),
        (r#"type(ip.parse_addr("::1"))"#, s("@ytt:ip.addr")),
        (r#"type(url.parse("http://x"))"#, s("@ytt:url.value")),
        (
            r#"type(struct.bind(len, "x"))"#,
            s("builtin_function_or_method"),
        ),
        ("str(assert.equals)", s("<built-in function assert.equals>")),
        ("str(json)", s(r#"<module "json">"#)),
        ("type(json)", s("module")),
        (r#"struct.bind(len, "xyz")()"#, StarValue::Int(3)),
        (
            r#"struct.make_and_bind("r", f=lambda self, x: self + x).f("s")"#,
            s("rs"),
        ),
        (
            r#"regexp.replace("(?i)[a-z]+[0-9]+", "__hello123__HI456__", lambda a: str(len(a)))"#,
            s("__8__5__"),
        ),
        (r#"regexp.replace("a*", "baaac", "X")"#, s("XbXcX")),
        (r#"base64.encode("??>>", encoding="url")"#, s("Pz8+Pg==")),
        (r#"base64.encode("??>>", url=True, raw=True)"#, s("Pz8-Pg")),
        (
            r#"url.query_params_encode({"y": ["2", "3"], "x": ["1"], "z": [""], "w": []})"#,
            s("x=1&y=2&y=3&z="),
        ),
        (
            r#"url.parse("http://admin:pa%20ss@url.domain:8080/a b?q#f g").string()"#,
            s("http://admin:pa%20ss@url.domain:8080/a%20b?q#f%20g"),
        ),
        (
            r#"url.parse("http://admin@h").user.password"#,
            StarValue::None,
        ),
        (
            r#"ip.parse_cidr("2001:db8::1/96")[1].addr().string()"#,
            s("2001:db8::"),
        ),
        ("math.ceil(2.1)", StarValue::Int(3)),
        ("math.floor(-2.1)", StarValue::Int(-3)),
        ("math.log(8, 2)", StarValue::Float(3.0)),
        (
            r#"json.encode({"b": [1, 2.5, None], "a": "<x>"})"#,
            s(r#"{"a":"\u003cx\u003e","b":[1,2.5,null]}"#),
        ),
        (
            r#"yaml.encode({"a": [1, {"b": None}]})"#,
            s("a:\n- 1\n- b: null\n"),
        ),
        (r#"yaml.decode("x: !!binary aGk=")["x"]"#, s("hi")),
        (r#"yaml.decode("y: 0x1F")[True]"#, StarValue::Int(31)),
        (r#"json.decode("[1]")[0]"#, StarValue::Float(1.0)),
        (
            r#"dir(module.make("m", b=1, a=2))"#,
            StarValue::List(vec![s("a"), s("b")]),
        ),
        (r#"sha256.sum("data")[:8]"#, s("3a6eb079")),
        (r#"md5.sum("data")[:8]"#, s("8d777f38")),
    ]);
}

#[test]
fn decoded_maps_keep_their_order() {
    // `url.query_params_decode` and `json.decode` sort keys; YAML keeps them.
    let got = values(&[
        r#"list(url.query_params_decode("y=2&x=1&y=3;z").items())"#,
        r#"list(json.decode('{"z": 1, "a": 2}').keys())"#,
        r#"list(yaml.decode("b: 1\na: 2").keys())"#,
        r#"struct.decode(struct.encode({"a": {"b": (1, 2)}}))"#,
    ]);
    let list = |items: Vec<StarValue>| StarValue::List(items);
    let pair =
        |k: &str, v: Vec<&str>| StarValue::Tuple(vec![s(k), list(v.into_iter().map(s).collect())]);
    assert_eq!(
        got[0],
        list(vec![
            pair("x", vec!["1"]),
            pair("y", vec!["2", "3"]),
            pair("z", vec![""])
        ])
    );
    assert_eq!(got[1], list(vec![s("a"), s("z")]));
    assert_eq!(got[2], list(vec![s("b"), s("a")]));
    assert_eq!(
        got[3],
        StarValue::Dict(vec![(
            s("a"),
            StarValue::Dict(vec![(
                s("b"),
                list(vec![StarValue::Int(1), StarValue::Int(2)])
            )])
        )])
    );
}
