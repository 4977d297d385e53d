use super::nesting::MAX_BLOCK_DEPTH;
use super::*;

#[test]
fn code_nested_past_the_limits_is_refused_before_starlark_sees_it() {
    assert_eq!(
        nesting_error("x = [[1], (2, {3: 4})]\ny = 1 + 2 * 3\n"),
        None
    );
    let deep = format!(
        "x = {}{}\n",
        "[".repeat(MAX_NESTING + 1),
        "]".repeat(MAX_NESTING + 1)
    );
    assert_eq!(nesting_error(&deep).map(|e| e.0), Some(1));
    let chain = format!("x = 1\ny = {}\n", vec!["v"; MAX_NESTING + 2].join(" + "));
    assert_eq!(nesting_error(&chain).map(|e| e.0), Some(2));
    // Brackets and operators inside strings and comments do not count.
    let quoted = format!(
        "x = \"{}\" # {}\n",
        "[".repeat(MAX_NESTING + 1),
        "+".repeat(MAX_NESTING + 1)
    );
    assert_eq!(nesting_error(&quoted), None);
    let blocks = format!("{}x = 1\n", " ".repeat(4 * (MAX_BLOCK_DEPTH + 1)));
    assert!(nesting_error(&blocks).is_some());
}

fn lines(text: &str) -> Vec<(usize, String)> {
    star_code_lines(text)
}

#[test]
fn end_closes_blocks() {
    let out = translate(&lines(
        "def f(v):\n  if v:\n    return 1\n  else:\n  end\n  return 2\nend\nx = f(1)",
    ))
    .unwrap();
    assert_eq!(
        out.source,
        "def f(v):\n    if v:\n        return 1\n    else:\n        pass\n    return 2\nx = f(1)\n"
    );
    assert_eq!(out.lines, vec![1, 2, 3, 4, 5, 6, 8]);
}

#[test]
fn brackets_span_lines_and_colons_in_lambdas_do_not_open_blocks() {
    let out = translate(&lines("rules = {\n  \"a\": lambda v: v,\n}\ny = 1")).unwrap();
    assert_eq!(out.source, "rules = {\n\"a\": lambda v: v,\n}\ny = 1\n");
}

#[test]
fn continued_lines_keep_strings_and_open_blocks_where_they_end() {
    // As ytt, a line loses its leading blanks (in a string too) unless the
    // line before ends with a backslash.
    let out = translate(&lines(
        "def f(v):\nif v and \\\n   v > 1:\nreturn '''a\n  # not a comment\nb'''\nend\nend",
    ))
    .unwrap();
    assert_eq!(
        out.source,
        "def f(v):\n    if v and \\\n   v > 1:\n        return '''a\n# not a comment\nb'''\n"
    );
    let out = translate(&lines("n = 0\nwhile n < 3:\nn += 1\nend")).unwrap();
    assert!(
        out.source.contains(
            "for _ytt_while in range(2147483647):\n    if not (n < 3):\n        break\n    n += 1"
        ),
        "{}",
        out.source
    );
}

#[test]
fn kwargs_splats_take_any_mapping_but_parameters_stay() {
    assert_eq!(
        wrap_kwargs_splats("f(a, **m(), b=1)"),
        "f(a, **__ytt_kwargs(m()), b=1)"
    );
    assert_eq!(wrap_kwargs_splats("f(**x)"), "f(**__ytt_kwargs(x))");
    assert_eq!(wrap_kwargs_splats("def f(**kw):"), "def f(**kw):");
    assert_eq!(
        wrap_kwargs_splats("g = lambda a, **kw: kw"),
        "g = lambda a, **kw: kw"
    );
    assert_eq!(wrap_kwargs_splats("s = \"(**x)\""), "s = \"(**x)\"");
}

#[test]
fn missing_end_names_the_opening_line() {
    let err = translate(&lines("x = 1\ndef f():\n  return 1\n")).unwrap_err();
    assert_eq!(err.line, 2);
    assert!(err.message.contains("mismatched"));
}

#[test]
fn assert_is_renamed_outside_strings() {
    assert_eq!(
        rename_assert(r#"load("@ytt:assert", "assert")"#),
        r#"load("@ytt:assert", "assert_")"#
    );
    assert_eq!(
        rename_assert(r#"assert.fail("assert x")"#),
        r#"assert_.fail("assert x")"#
    );
    assert_eq!(
        rename_assert("my_assert.x + reassert"),
        "my_assert.x + reassert"
    );
}

#[test]
fn fragment_functions_return_their_yaml() {
    let text =
        "#@ def db():\nhost: localhost\nports: [1, 2]\n#@ end\n#@data/values-schema\n---\na: 1\n";
    let (code, ranges) = yaml_program(text);
    let out = translate(&code).unwrap();
    assert_eq!(
        out.source,
        "def db():\n    return {\"host\": \"localhost\", \"ports\": [1, 2]}\n"
    );
    assert_eq!(ranges, vec![1..=4]);
}

#[test]
fn code_lines_of_yaml_are_the_hash_at_space_comments() {
    let got =
        yaml_code_lines("#@ load(\"x.star\", \"y\")\n#@data/values\n---\na: 1 #@ z\n  #@ end\n");
    assert_eq!(
        got,
        vec![(1, "load(\"x.star\", \"y\")".into()), (5, "end".into())]
    );
}

#[test]
fn a_string_continued_by_a_backslash_keeps_the_blanks_after_the_first() {
    // ytt reads the code after `#@ `, so the next line adds "If", not " If".
    let text = "#@ desc = \"in one namespace. \\\n#@ If both\"\n#@ wide = \"a \\\n#@   b\"\n";
    let out = translate(&yaml_code_lines(text)).unwrap();
    assert_eq!(
        out.source,
        "desc = \"in one namespace. \\\nIf both\"\nwide = \"a \\\n  b\"\n"
    );
}
